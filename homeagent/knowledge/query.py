"""Turning a question into the terms worth searching the knowledge base for.

The index scores a passage against every term of the query, and in a small corpus words
like "how", "you", "should" or 怎么办 are rare enough to look meaningful: "how are you
doing today" would pull in the emergency-numbers section. So questions lose their
function words before they reach the index: English stopwords are dropped, and in CJK
text every character bigram that touches a filler (怎么办, 如何, 什么, 的, 了, 吗, 我 …) is
dropped, keeping the content bigrams (番茄炒蛋怎么做 → 番茄 茄炒 炒蛋).
"""

from __future__ import annotations

import re

from homeagent.text import CJK as _CJK
from homeagent.text import normalize, tokenize

_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")

_STOPWORD_TEXT = """
    a about above after again all also am an and any are as at be because been before
    being below between both but by can can't could did didn't do does doesn't doing
    don't down during each either else ever every few for from further get gets getting
    give go going got had has have having he her here hers him his how i i'd i'll i'm
    i've if in into is isn't it it's its itself just know let let's like make many may
    me might more most much must my need needs no nor not now of off often on once one
    only or other ought our ours out over own please quite rather really right said same
    say says she should so some such tell than thank thanks that that's the their theirs
    them then there there's these they this those through to today too under until up us
    use used very want wants was we were what what's whats when where which while who
    whom whose why will with would yes yet you you're your yours
    anyone anything everyone everything somebody someone something
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Longest first, so 怎么办 is marked before 怎么.
_FILLER_TEXT = """
    怎么办 怎么做 怎么样 怎么 怎样 如何 什么 为什么 为何 哪些 哪个 哪里 哪儿 多少 是不是 能不能
    可不可以 可以 应该 需要 一下 请问 告诉我 帮我 我们 你们 他们 我 你 他 她 它 吗 呢 吧 啊 呀
    嘛 哦 了 的 得 呗
"""
_CJK_FILLERS = tuple(sorted(_FILLER_TEXT.split(), key=len, reverse=True))


def _cjk_terms(run: str) -> list[str]:
    filler = [False] * len(run)
    for word in _CJK_FILLERS:
        start = run.find(word)
        while start != -1:
            for i in range(start, start + len(word)):
                filler[i] = True
            start = run.find(word, start + len(word))
    if len(run) == 1:
        return [] if filler[0] else [run]
    return [run[i : i + 2] for i in range(len(run) - 1) if not (filler[i] or filler[i + 1])]


def focus_terms(query: str) -> list[str]:
    """The content terms of `query` (CJK bigrams, Latin words), fillers dropped."""
    text = normalize(query)
    terms: list[str] = []
    pos = 0
    for match in _CJK_RUN_RE.finditer(text):
        terms += [t for t in tokenize(text[pos : match.start()]) if t not in _STOPWORDS]
        terms += _cjk_terms(match.group())
        pos = match.end()
    terms += [t for t in tokenize(text[pos:]) if t not in _STOPWORDS]
    return terms


def focus_query(query: str) -> str:
    """`query` reduced to its content terms, as text the index tokenises back to them;
    "" when nothing but function words is left."""
    return " ".join(focus_terms(query))
