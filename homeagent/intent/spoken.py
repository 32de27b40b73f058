"""A spoken line as a household would type it. Speech recognition writes numbers as words
("at three thirty", "twenty five dollars", "quarter to six"): they are written as digits and
clock times, which the date, money and count rules read. And the pauses a spoken line lost:
speech recognition and a hurried thumb write a request
with no punctuation ("阳台晾衣架坏了 下周三之前得找人来修 记个任务", "i need to book the car
in for its mot put it down as high priority"), and the rules that part a name from the
command after it read clause by clause. A space between two Chinese characters is a pause;
in an English line with no punctuation of its own, a pause goes before a command about the
thing just said ("put it down", "add that to the calendar", "tick that off") and before a
remark that starts a new clause ("it's only about 45 minutes", "i've changed it"). A line
that has its own punctuation is left as written."""

from __future__ import annotations

import re

from homeagent.text import has_han

_HAN_SPACE = re.compile(r"(?<=[\u4e00-\u9fff])[ \t\u3000]+(?=[\u4e00-\u9fff])")
_FIELD_BEFORE = re.compile(r"(?:标签|标题|分类|类别|备注|名字|名称|内容|叫|是|为|成)$")
_PUNCTUATED_EN = re.compile(r"[,;:!?.—–](?=\s|$)|\s[-–—]\s")
_VERBS_EN = (r"put|add|tick|check|cross|log|write|jot|stick|pop|pin|note|save|record|delete|remove|mark|make|set|keep|file"
             r"|track|count|call|bin|scrap|drop|move|push|change|cancel|take")
_PAUSE_EN = re.compile(
    rf"(?<=\w)\s+(?=(?:(?:please|pls|can you|could you|would you|just|and)\s+)?(?:{_VERBS_EN})\s+(?:it|that|this|them|those|him|her)\b"
    r"|(?:it's|it is|i've|i have|i'd|they're|so i|so we|so that|because|cos|'cause)\s)", re.I)
# A word after which the verb is the thing's own ("remind me to take it to the tip").
_BOUND_BEFORE = frozenset({"to", "and", "or", "not", "never", "can", "could", "would", "will", "should", "must", "please", "i", "we",
                           "you", "me", "let", "lets", "let's", "gonna", "wanna", "don't", "didn't", "that", "which", "who", "a", "an", "the", "my", "our", "your"})


def restore_pauses(text: str) -> str:
    """`text` with the pauses speech left out put back as commas (see the module's words)."""
    if has_han(text):  # (a line with its own pauses has spaces of its own: "标签 生日")
        if re.search(r"[，。？！；：、,;:?!]", text):
            return text
        # (a space after a field's name is before its value: "打个标签 证件和出行", "标题叫 装修")
        return _HAN_SPACE.sub(lambda m: m.group(0) if _FIELD_BEFORE.search(text, 0, m.start()) else "，", text)
    if len(text.split()) < 5 or _PUNCTUATED_EN.search(text.rstrip(" .!?")):
        return text

    def pause(m: re.Match[str]) -> str:
        before = text[: m.start()].split()
        return m.group(0) if len(before) < 2 or before[-1].casefold() in _BOUND_BEFORE else ", "
    return _PAUSE_EN.sub(pause, text)


_UNIT_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
               "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
               "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS_WORDS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_HOUR = r"(?P<h>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_MINUTES = r"(?P<m>(?:oh\s+)?(?:one|two|three|four|five|six|seven|eight|nine)|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen" \
           r"|(?:twenty|thirty|forty|fifty)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)"
# A clock time said: "three thirty" after "at" (or before am/pm), "half past four", "quarter to
# six", "seven o'clock", "ten am".
_CLOCK_SAID = re.compile(
    rf"\b(?:(?P<half>half)\s+past\s+{_HOUR.replace('?P<h>', '?P<h1>')}|(?P<quarter>(?:a\s+)?quarter)\s+(?P<dir>past|to)\s+{_HOUR.replace('?P<h>', '?P<h2>')}"
    # "twenty to twelve", "ten past six"; "at half nine" (half past, as Britain says it)
    rf"|(?P<mins>five|ten|twenty|twenty[\s-]five)\s+(?P<dir2>past|to)\s+{_HOUR.replace('?P<h>', '?P<h5>')}"
    rf"|(?:(?<=\bat\s)|(?<=\bby\s)|(?<=\btill\s)|(?<=\buntil\s)|(?<=\bfrom\s))(?P<bhalf>half)\s+{_HOUR.replace('?P<h>', '?P<h6>')}(?!\s+(?:hours?|an?\b))"
    rf"|{_HOUR.replace('?P<h>', '?P<h3>')}\s+o'?clock"
    rf"|(?<=\bat\s){_HOUR}\s+{_MINUTES}\b(?!\s+(?:minutes?|mins?|hours?|days?|weeks?|dollars?|pounds?|bucks|quid|euros?|yuan|km|kg|miles?))"
    rf"|{_HOUR.replace('?P<h>', '?P<h4>')}(?=\s*(?:am|pm|a\.m\.|p\.m\.)\b)"
    # "at ten in the morning", "at seven in the evening": the hour, its part of the day said after
    rf"|(?<=\bat\s){_HOUR.replace('?P<h>', '?P<h7>')}(?=\s+(?:in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)\b))\b", re.I)
_NUMBER_WORD = re.compile(r"\b(?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
                          r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|a)"
                          r"(?:[\s-]+(?:and[\s-]+)?(?=(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
                          r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred"
                          r"|thousand)\b)|\b))+", re.I)


def _word_value(word: str) -> int:
    word = word.casefold()
    return _UNIT_WORDS.get(word, _TENS_WORDS.get(word, 0))


def _clock(m: re.Match[str]) -> str:
    if m.group("half"):
        return f"{_word_value(m.group('h1'))}:30"
    if m.group("quarter"):
        hour = _word_value(m.group("h2"))
        return f"{hour}:15" if m.group("dir").casefold() == "past" else f"{(hour - 2) % 12 + 1}:45"
    if m.group("mins"):
        minutes, hour = sum(_word_value(w) for w in re.split(r"[\s-]+", m.group("mins"))), _word_value(m.group("h5"))
        return f"{hour}:{minutes:02d}" if m.group("dir2").casefold() == "past" else f"{(hour - 2) % 12 + 1}:{60 - minutes:02d}"
    if m.group("bhalf"):
        return f"{_word_value(m.group('h6'))}:30"
    if m.group("h3"):
        return f"{_word_value(m.group('h3'))}:00"
    if m.group("h4"):
        return str(_word_value(m.group("h4")))
    if m.group("h7"):
        return str(_word_value(m.group("h7")))
    minutes = sum(_word_value(w) for w in re.split(r"[\s-]+", m.group("m")) if w.casefold() != "oh")
    return f"{_word_value(m.group('h'))}:{minutes:02d}"


def _number(m: re.Match[str]) -> str:
    """A run of number words as digits when it is more than one small word ("twenty five",
    "one hundred and twenty", "twenty"); "two glasses" and "that one" are the rules' to read."""
    words = [w for w in re.split(r"[\s-]+", m.group(0).strip()) if w and w.casefold() != "and"]
    low = [w.casefold() for w in words]
    if low[0] == "a" and (len(low) < 2 or low[1] not in ("hundred", "thousand")):
        return m.group(0)
    if len(words) == 1 and (low[0] in _UNIT_WORDS and _UNIT_WORDS[low[0]] < 13 or low[0] in ("hundred", "thousand")):
        return m.group(0)
    if sum(w in _TENS_WORDS for w in low) > 1 or any(a in _UNIT_WORDS and b in _UNIT_WORDS for a, b in zip(low, low[1:], strict=False)):
        return m.group(0)  # "twenty twenty six", "one two three": no one number
    total, section = 0, 0
    for w in low:
        if w == "a":
            section += 1
        elif w == "hundred":
            section = max(section, 1) * 100
        elif w == "thousand":
            total += max(section, 1) * 1000
            section = 0
        else:
            section += _word_value(w)
    trail = " " if m.group(0).endswith(" ") else ""
    return f"{total + section}{trail}"


def spoken_numbers(text: str) -> str:
    """`text` with its spoken clock times and numbers written as digits (English only)."""
    if not re.search(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|\w+(?:st|nd|rd|th)"
                     r"|seventy|eighty|ninety|hundred|thousand|half|quarter)\b", text, re.I):
        return text
    text = _CLOCK_SAID.sub(_clock, text)
    text = _ORDINAL_SAID.sub(_ordinal, text)
    text = _NUMBER_WORD.sub(_number, text)
    # "sixty-eight point two kilograms": the digits after the point, as said
    return _POINT_SAID.sub(lambda m: str(_UNIT_WORDS.get(m.group(1).casefold(), m.group(1))) + "." + "".join(
        str(_DIGIT_WORDS[w.casefold()]) for w in re.split(r"[\s-]+", m.group(2).strip())), text)


_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
             "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
             "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30}
# "the twenty-second of March", "thirty-first": a day of the month said as a word.
_ORDINAL_SAID = re.compile(r"\b(?P<tens>twenty|thirty)[\s-](?P<unit>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)\b"
                           # a day said alone as a word, where it can only be a day: "on the eighteenth", "the first of April"
                           r"|(?<=\b(?:on|by) the )(?P<day>[a-z]+)\b"
                           r"|(?<=\bthe )(?P<dayof>[a-z]+)(?= of (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))", re.I)


def _ordinal(m: re.Match[str]) -> str:
    said = m.group("day") or m.group("dayof")
    if said is not None:
        n = _ORDINALS.get(said.casefold(), 0)
        if not n:
            return m.group(0)
    else:
        n = _TENS_WORDS[m.group("tens").casefold()] + _ORDINALS[m.group("unit").casefold()]
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10 if n not in (11, 12, 13) else 0, 'th')}"


_DIGIT_WORDS = {"zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_POINT_SAID = re.compile(r"\b(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+point\s+"
                         r"((?:zero|oh|one|two|three|four|five|six|seven|eight|nine)(?:[\s-]+(?:zero|oh|one|two|three|four|five|six|seven"
                         r"|eight|nine))*)\b", re.I)


# A restart mid-line: what was said is taken back and said again ("周四，不对，周五之前…",
# "体重，六十，哦不，五十九点八", "at 5, no wait, 6"). Only a short value is taken back (a
# day, a number, a time): a longer clause before the restart may hold the command.
_RESTART_ZH = re.compile(r"(?:^|(?<=[，,。；;\s]))[^，,。；;\s]{1,6}[，,。；;\s]+(?:不对|(?:哦|噢|喔|啊|呃|不)不(?![是要用会能行好对]))(?:不对)?"
                         r"[，,。；;\s]*(?=\S)")
_RESTART_EN = re.compile(r"(?<![\w:])(?:\d{1,4}(?:[:.]\d{2})?\s*(?:am|pm)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
                         r"|twelve)\s*(?:,|—|–|\s-)?\s*(?:no wait|wait no|no sorry|sorry|i mean|make that|scratch that|no)"
                         r"\s*(?:,|—|–|-\s)?\s*(?=\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)", re.I)


def without_restarts(text: str) -> str:
    """`text` without what a speaker took back and said again (see `_RESTART_ZH`)."""
    return (_RESTART_ZH if has_han(text) else _RESTART_EN).sub("", text)


def as_written(text: str) -> str:
    """A spoken line as typed: its numbers written (`spoken_numbers`), its pauses put back
    (`restore_pauses`), what was taken back and said again left out (`without_restarts`)."""
    if not has_han(text):
        text = spoken_numbers(text)
    return without_restarts(restore_pauses(text))
