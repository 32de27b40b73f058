#!/usr/bin/env python3
"""Write `homeagent/intent/pinyin.txt`: the common toneless reading of the 6,763 characters of
GB2312, one syllable a line followed by its characters ("zu 祖租足族阻组卒…"). The intent
layer reads it to put right a household word typed with a character of the same sound
(交房祖 → 交房租, 部门会义 → 部门会议); see `homeagent/intent/homophones.py`.

The readings come from pypinyin (a development tool, not a dependency of the daemon):

    .venv/bin/pip install pypinyin && .venv/bin/python bench/make_pinyin.py
"""

from __future__ import annotations

from pathlib import Path

from pypinyin import Style, pinyin

OUT = Path(__file__).resolve().parent.parent / "homeagent/intent/pinyin.txt"


def gb2312() -> list[str]:
    chars = []
    for high in range(0xB0, 0xF8):  # the two levels of hanzi
        for low in range(0xA1, 0xFF):
            try:
                char = bytes((high, low)).decode("gb2312")
            except UnicodeDecodeError:
                continue
            chars.append(char)
    return chars


def main() -> int:
    readings: dict[str, list[str]] = {}
    chars = gb2312()
    for char in chars:
        for syllable in pinyin(char, style=Style.NORMAL)[0]:  # the common reading: 王 is no "yu"
            if syllable.isascii() and syllable.isalpha():
                readings.setdefault(syllable, []).append(char)
    lines = [f"{s} {''.join(dict.fromkeys(cs))}" for s, cs in sorted(readings.items())]
    OUT.write_text("# Toneless readings of GB2312's characters, written by bench/make_pinyin.py from pypinyin.\n"
                   + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(chars)} characters, {len(readings)} syllables -> {OUT} ({OUT.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
