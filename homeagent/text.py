"""Chinese and English text without a word segmenter, for every layer (ground floor).

The CJK character ranges are defined here once and every module that asks "is this
Chinese?" or splits text into terms uses them: `HAN` (the ideographs: extension A,
the unified block, compatibility ideographs) answers the language question; `CJK`
(`HAN` plus kana and hangul) is what tokenisation treats as a script without spaces.

Text is NFKC-normalised and case-folded. Runs of CJK characters become overlapping
character bigrams (a lone character stays a unigram); Latin-script text becomes words
(letters and digits, inner apostrophes and hyphens kept). Punctuation and whitespace are
dropped.
"""

from __future__ import annotations

import re
import unicodedata

# Ranges for use inside a regex character class, e.g. rf"[{CJK}]+".
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs: ext. A, unified, compatibility
CJK = HAN + "\u3040-\u30ff\uac00-\ud7af"  # ... plus hiragana, katakana, hangul syllables
HAN_CLASS = f"[{HAN}]"
CJK_CLASS = f"[{CJK}]"
HAN_RE = re.compile(HAN_CLASS)
CJK_RE = re.compile(CJK_CLASS)

_WORD = rf"[^\W_{CJK}]+"
_TOKEN_RE = re.compile(rf"([{CJK}]+)|({_WORD}(?:['\-]{_WORD})*)", re.UNICODE)


def has_han(text: str) -> bool:
    """Whether `text` holds a Chinese character (the test for "answer in Chinese")."""
    return HAN_RE.search(text) is not None


def is_cjk(char: str) -> bool:
    """Whether the one character `char` belongs to a CJK script (ideograph, kana, hangul)."""
    return len(char) == 1 and CJK_RE.match(char) is not None


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def tokenize(text: str) -> list[str]:
    """Terms of `text`: CJK character bigrams and Latin words, in order."""
    terms: list[str] = []
    for cjk, word in _TOKEN_RE.findall(normalize(text)):
        if cjk:
            if len(cjk) == 1:
                terms.append(cjk)
            else:
                terms.extend(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            terms.append(word)
    return terms


def char_bigrams(text: str) -> set[str]:
    """Character bigrams of the normalised text without spaces (for name similarity)."""
    compact = re.sub(r"\s+", "", normalize(text))
    if len(compact) < 2:
        return {compact} if compact else set()
    return {compact[i : i + 2] for i in range(len(compact) - 1)}


def bigram_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of two names' character bigrams, 0..1."""
    x, y = char_bigrams(a), char_bigrams(b)
    if not x or not y:
        return 0.0
    return len(x & y) / len(x | y)


def estimate_tokens(text: str) -> int:
    """A cheap model-token estimate for prompt budgets: CJK chars count one each,
    Latin text about four characters a token."""
    cjk = len(CJK_RE.findall(text))
    return cjk + max(0, len(text) - cjk) // 4


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(text: str) -> str:
    """`text` with every lone UTF-16 surrogate replaced by U+FFFD: storable, encodable."""
    return _SURROGATE_RE.sub("\ufffd", text) if _SURROGATE_RE.search(text) else text
