"""Numbers as people say them: Arabic digits and Chinese numerals (三十五, 两, 一百二十, 七个半).

`parse_number` reads a whole string; `NUM` is a regex fragment matching either form, for
the date, duration and money rules built on top of it. Ground floor: imports nothing
from homeagent, so every layer may use it.
"""

from __future__ import annotations

import re

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5,
           "六": 6, "七": 7, "八": 8, "九": 9}
_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10_000, "亿": 100_000_000}
CN_NUM = "[零〇一二两俩三四五六七八九十百千万亿]+"
NUM = rf"(?:\d+(?:\.\d+)?|{CN_NUM})"


def cn_to_int(text: str) -> int | None:
    """三十五 → 35, 十二 → 12, 一百零五 → 105, 两万三 → 23000; None if not a numeral."""
    if not text or any(ch not in _DIGITS and ch not in _UNITS and ch not in _BIG for ch in text):
        return None
    if all(ch in _DIGITS for ch in text) and len(text) > 1:
        # Digit by digit, as in years: 二〇二六 → 2026.
        return int("".join(str(_DIGITS[ch]) for ch in text))
    total = section = 0
    digit: int | None = None
    last_unit = 1
    for ch in text:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch in _UNITS:
            section += (1 if digit is None else digit) * _UNITS[ch]
            last_unit = _UNITS[ch]
            digit = None
        else:
            section += digit or 0
            total += (section or 1) * _BIG[ch]
            section, digit, last_unit = 0, None, _BIG[ch]
    if digit is not None:
        # 两万三 means 23000 and 一百五 means 150: a trailing digit scales by the unit below.
        if last_unit >= 100 and section + total and text[-2:-1] not in ("零", "〇"):
            section += digit * (last_unit // 10)
        else:
            section += digit
    return total + section


def parse_number(text: str | float | int) -> float | None:
    """A number from digits or Chinese numerals, with 半 (half): 7.5, 七个半 → 7.5."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return float(text)
    s = text.strip().replace(",", "").replace("，", "")
    half = 0.0
    if s.endswith("半") and len(s) > 1:
        s, half = s[:-1].rstrip("个"), 0.5
    elif s == "半":
        return 0.5
    try:
        return float(s) + half
    except ValueError:
        pass
    value = cn_to_int(s)
    return None if value is None else value + half


def find_number(text: str) -> float | None:
    """The first number in free text: "7个半小时" → 7.5, "喝了两杯" → 2, "two glasses" → 2."""
    match = re.search(rf"({NUM})(个)?(半)?", text)
    if not match:
        word = _WORD_RE.search(text)
        if word:
            return float(_WORDS[word.group(1).casefold()])
        return None if "半" not in text else 0.5
    value = parse_number(match.group(1))
    if value is None:
        return None
    return value + (0.5 if match.group(3) else 0.0)


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a dozen": 12}
_WORD_RE = re.compile(r"\b(" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b", re.I)
_SCALED_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([万千kK])")


def numbers_in(text: str) -> list[float]:
    """Every number a person said in `text`: 35, 7.5, 5万 → 50000, 三十五 → 35, two → 2."""
    found: list[float] = []
    for value, unit in _SCALED_RE.findall(text):
        found.append(float(value) * {"万": 10_000, "千": 1000, "k": 1000, "K": 1000}[unit])
    found += [float(m) for m in re.findall(r"\d+(?:\.\d+)?", text)]
    for run in re.findall(CN_NUM, text):
        if not any(ch in _DIGITS or ch == "十" for ch in run):
            continue  # a bare 万 or 百 is a unit, not a number
        value = cn_to_int(run)
        if value is not None:
            found.append(float(value))
    found += [float(_WORDS[w.casefold()]) for w in _WORD_RE.findall(text)]
    return list(dict.fromkeys(found))
