"""Tokenisation shared by every index: Chinese and English without a word segmenter.

Text is NFKC-normalised and case-folded. Runs of CJK characters become overlapping
character bigrams (a lone character stays a unigram); Latin-script text becomes words
(letters and digits, inner apostrophes and hyphens kept). Punctuation and whitespace are
dropped.
"""

from __future__ import annotations

import re
import unicodedata

# CJK unified ideographs (+ extension A, compatibility), kana, hangul.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_WORD = rf"[^\W_{_CJK}]+"
_TOKEN_RE = re.compile(rf"([{_CJK}]+)|({_WORD}(?:['\-]{_WORD})*)", re.UNICODE)
_CJK_ONLY_RE = re.compile(rf"[{_CJK}]")


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
    cjk = len(_CJK_ONLY_RE.findall(text))
    return cjk + max(0, len(text) - cjk) // 4
