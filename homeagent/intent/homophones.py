"""A household word typed with a character of the same sound, put right: 交房祖 → 交房租,
部门会义 → 部门会议, 吃了一片不洛芬 → 布洛芬, 绿箩 → 绿萝, 睡了7个小是 → 小时.

Pinyin input makes these typos: the right sound, the wrong character. Only a word the
household vocabulary knows (the Chinese values of the phrase books' pools: chores, foods,
medicines, plants, places…) is put right, and only when

- the words said are not themselves a known word, and one character of them, read as it
  sounds, makes exactly one known word of the same length (two characters at least);
- that character makes no known pair with the characters either side of it: a pair seen in
  the layer's own training text is a real word, not a typo (老公今天 has 公今 only because
  公斤 sounds alike, and 今天 is a word; 写孩子 stays, 儿童医院 is no 中医院);
- with one character of context only (two-character words), that character is not more often
  part of a pair beyond the words said than the word itself is said (把牙医预约: 牙医 is said
  more than 拔牙, so 把牙 is no typo of it).

The readings are GB2312's (homeagent/intent/pinyin.txt, written by bench/make_pinyin.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from pathlib import Path

_READINGS = Path(__file__).with_name("pinyin.txt")
_HAN_RUN = re.compile(r"[\u4e00-\u9fff]+")
_LONGEST = 6


@cache
def readings() -> dict[str, frozenset[str]]:
    """Each character's toneless syllables."""
    out: dict[str, set[str]] = {}
    for line in _READINGS.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        syllable, chars = line.split(" ", 1)
        for char in chars:
            out.setdefault(char, set()).add(syllable)
    return {char: frozenset(s) for char, s in out.items()}


class Homophones:
    """Puts right what `words` (the household vocabulary) would be but for a character of the
    same sound; `known` is text whose character pairs are real words."""

    def __init__(self, words: Iterable[str], known: Iterable[str]) -> None:
        sounds = readings()
        self.words = {run for word in words for run in _HAN_RUN.findall(word) if 2 <= len(run) <= _LONGEST}
        self.index: dict[tuple[str, str, str], set[str]] = {}
        for word in self.words:
            for i, char in enumerate(word):
                for syllable in sounds.get(char, ()):
                    self.index.setdefault((word[:i], syllable, word[i + 1:]), set()).add(word)
        known = list(known)
        self.pairs = Counter(run[i:i + 2] for text in known for run in _HAN_RUN.findall(text) for i in range(len(run) - 1))
        joined = "\n".join(known)
        self.said = {word: joined.count(word) for word in self.words}  # how often each word is said

    def _fix(self, text: str, at: int) -> tuple[int, str] | None:
        """One character of `text` to put right, at or after `at`: (where, the right one)."""
        sounds = readings()
        for run in _HAN_RUN.finditer(text, at):
            han = run.group(0)
            for size in range(min(_LONGEST, len(han)), 1, -1):
                for start in range(len(han) - size + 1):
                    said = han[start:start + size]
                    if said in self.words:
                        continue
                    for i, char in enumerate(said):
                        found = {w for s in sounds.get(char, ()) for w in self.index.get((said[:i], s, said[i + 1:]), ())}
                        if len(found) != 1:
                            continue
                        where, first = run.start() + start + i, run.start() + start
                        if text[max(0, where - 1):where + 1] in self.pairs or text[where:where + 2] in self.pairs:
                            continue  # the character is part of a real word beside it
                        word = found.pop()
                        if size == 2:  # one character of context: is it rather part of a word beyond?
                            kept = first + 1 - i
                            beyond = text[kept - 1:kept + 1] if kept == first else text[kept:kept + 2]
                            if len(beyond) == 2 and self.pairs.get(beyond, 0) > self.said.get(word, 0):
                                continue  # 把牙医预约: 牙医 is said more than 拔牙, so 把牙 is no typo
                        return where, word[i]
        return None

    def fix(self, text: str) -> str:
        """`text` with each typed-by-sound household word put right."""
        at = 0
        for _ in range(8):
            found = self._fix(text, at)
            if found is None:
                break
            where, char = found
            text = text[:where] + char + text[where + 1:]
            at = where + 1
        return text
