#!/usr/bin/env python3
"""Write `homeagent/intent/hant.txt`: traditional characters and the simplified character
each is read as ("們们 裡里 週周 …"), one pair a line. The intent layer reads a line typed in
traditional characters as the simplified one it was trained on, and stores the household's
values in the characters they were typed in; see `homeagent/intent/mainland.py`.

Only a character outside GB2312's 6,763 is taken, and only onto one inside it: a line typed
in simplified characters is read exactly as typed (乾 and 著 stay as typed: they are GB2312's
own characters in words of their own, 乾坤, 著名).

The pairs come from hanziconv's table (a development tool, not a dependency of the daemon):

    .venv/bin/pip install hanziconv && .venv/bin/python bench/make_hant.py
"""

from __future__ import annotations

from pathlib import Path

from hanziconv.charmap import simplified_charmap, traditional_charmap

INTENT = Path(__file__).resolve().parent.parent / "homeagent/intent"
OUT = INTENT / "hant.txt"

# Traditional characters hanziconv keeps as they are: 後 and 週 are in GB2312 too, but a line
# typed in simplified characters writes 后 and 周 (後 is a rare surname there).
EXTRA = {"週": "周", "後": "后", "併": "并", "釐": "厘", "裏": "里", "臺": "台", "檯": "台", "颱": "台"}


def gb2312() -> set[str]:
    """GB2312's characters, as pinyin.txt lists them by reading."""
    lines = (INTENT / "pinyin.txt").read_text(encoding="utf-8").splitlines()
    return {c for line in lines if not line.startswith("#") for c in line.split(" ", 1)[1]}


def main() -> int:
    simplified = gb2312()
    pairs: dict[str, str] = {}
    for trad, simp in zip(traditional_charmap, simplified_charmap, strict=True):
        if trad != simp and trad not in simplified and simp in simplified:
            pairs.setdefault(trad, simp)
    for trad, simp in EXTRA.items():  # pairs the table leaves out
        pairs.setdefault(trad, simp)
    lines = [f"{t}{s}" for t, s in sorted(pairs.items())]
    OUT.write_text("# Traditional characters read as simplified ones, written by bench/make_hant.py from hanziconv.\n"
                   + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(pairs)} pairs -> {OUT} ({OUT.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
