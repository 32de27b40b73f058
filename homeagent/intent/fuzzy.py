"""Tolerant reading of command and enum words: typos ("remnd", "tomorow", "slep", "awya")
and the fillers and hedges people put around what they mean ("ok so", "嗯那个", "kinda").

Only words of a closed vocabulary are corrected (the command and date words slot filling
looks for, an action's enum values): a word one edit away (a letter added, dropped,
changed, or two swapped) from exactly one of them, and long enough that the edit cannot
turn one ordinary word into another. The user's own words (what a task says) are never
rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words the slot rules read; a typo of one of them hides a date or a command frame.
VOCABULARY = (
    "remind", "tomorrow", "today", "tonight", "yesterday", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "morning", "afternoon", "evening", "remember", "switch", "delete",
    "remove", "please", "shopping", "reminder", "appointment", "breakfast", "countdown", "calendar", "inventory",
)
# The kinds of record a request names, long enough that one edit from them is a typo, not
# another word: routing reads them as meant ("delte the gym taks", "blood presure pills").
KINDS_VOCABULARY = VOCABULARY + ("pressure", "medicine", "birthday", "wishlist", "groceries", "journal",
                                 "expense", "transaction", "subscription", "prescription")
# Ordinary words one edit from a vocabulary word: never "corrected".
_KEEP = frozenset({"tonight", "monday", "sunday", "minute", "hour", "switched", "deleted", "removed", "reminds",
                   "reminded", "remains", "remand", "rewind", "remit", "pleased", "pleas", "remote", "twitch",
                   "swatch", "sundae", "mourning", "shipping", "chopping", "stopping", "remainder", "evenings",
                   "mornings", "todays", "deleter", "removal"})
# Chat spellings of date words.
_ABBREVIATIONS = {"tmrw": "tomorrow", "tmr": "tomorrow", "tmw": "tomorrow", "tmro": "tomorrow", "2morrow": "tomorrow",
                  "2moro": "tomorrow", "tomoz": "tomorrow", "tonite": "tonight", "2nite": "tonight", "2day": "today",
                  "tdy": "today", "thurs": "thursday", "weds": "wednesday", "tues": "tuesday", "lst": "list",
                  "lsit": "list", "taks": "task", "wed": "wednesday", "thu": "thursday", "thur": "thursday"}
_ABBREVIATION_RE = re.compile(r"(?<![\w-])(" + "|".join(_ABBREVIATIONS) + r")(?![\w-])", re.I)
_WORD_RE = re.compile(r"[A-Za-z]+")
# A colon that heads what follows ("写日记：…", "Note: …"), not a clock's ("at 7:30").
HEAD_COLON = r"(?:(?<!\d)[：:]|[：:](?!\d))"
# Sighs and exclamations before what is meant ("哎哟，刚吃了…"): 哎哟 before 哎, so no 哟 is left.
INTERJECTIONS_ZH = "哎哟|哎呀|哎|哟|唉|诶|欸|噢|哦"
_LEAD_FILLER_RE = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|um+|uh+|er+|erm|hmm+|alright|right|yeah|yes|oh|and|like|hey|hi|actually|basically|yo|so yeah"
    rf"|嗯+|呃+|额|那个|就是|然后|那么|好吧|对了|啊|{INTERJECTIONS_ZH})(?:[\s，,：:.…~!！]+|(?=[\u4e00-\u9fff])))+",
    re.I,
)
_HEDGE_RE = re.compile(
    r"^(?:(?:i'm|i am|im|i|feeling|feel|felt|kinda|kind of|sort of|sorta|pretty|a bit|a little(?: bit)?|somewhat|rather"
    r"|quite|really|very|so|super)\s+|(?:有点儿?|有些|挺|蛮|比较|稍微|略微|特别|非常|很)\s*)+",
    re.I,
)


def edits1(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one edit (insert, delete, substitute, swap)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1:]


def closest(word: str, vocabulary: Iterable[str], *, shortest: int = 4) -> str | None:
    """The one vocabulary word `word` is a typo of, or None."""
    low = word.casefold()
    if len(low) < shortest or low in _KEEP:
        return None
    words = list(vocabulary)
    if low in words:
        return low
    found = {v for v in words if len(v) >= shortest and edits1(low, v)}
    return found.pop() if len(found) == 1 else None


def fix_typos(text: str, vocabulary: Iterable[str] = VOCABULARY) -> str:
    """`text` with typos of the command and date words corrected ("remnd me to wtaer the
    plants tomorow" → "remind me to wtaer the plants tomorrow")."""
    words = tuple(vocabulary)

    def one(m: re.Match[str]) -> str:
        word = m.group(0).casefold()
        if word in words or (word.endswith("s") and word[:-1] in words):
            return m.group(0)  # a vocabulary word, or its plural ("Sundays"): as said
        fixed = closest(m.group(0), words, shortest=5)
        return fixed if fixed is not None else m.group(0)

    text = _ABBREVIATION_RE.sub(lambda m: _ABBREVIATIONS[m.group(1).casefold()], text)
    return _WORD_RE.sub(one, text)


# A laugh or a groan, wherever it stands ("wolfed down a burrito lol", "ugh, gotta sort the car tax"):
# how it was said, no part of a value.
_LAUGH_RE = re.compile(r"(?:^|[\s,，]+)(?:lol+|lmao|lmfao|haha+|hehe+|ugh+|omg|哈哈+|嘿嘿|呵呵|嘻嘻)(?=[\s,，.!！?？~]|$)[.!！~]*", re.I)


def strip_fillers(text: str) -> str:
    """Leading fillers off an utterance ("ok so remind me…", "嗯那个提醒我…", "就是明天…"), and
    laughs or groans wherever they stand."""
    out = _LEAD_FILLER_RE.sub("", _LAUGH_RE.sub("", text.strip()).strip(" ,，"))
    return out if out.strip() else text


def strip_hedges(value: str) -> str:
    """"kinda tired" → "tired", "I feel pretty down" → "down", "有点低落" → "低落"; a value
    that is only a hedge stays as said, and so does one the hedge is most of ("挺好")."""
    out = _HEDGE_RE.sub("", value.strip()).strip(" ，,。.")
    if re.fullmatch(r"[\u4e00-\u9fff]的?", out):  # "挺好的" less 挺 is hardly a mood: the hedge stays
        return re.sub(r"的$", "", value.strip()) or value
    return out or value
