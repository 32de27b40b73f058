"""Time expressions in memory questions, Chinese and English.

"What did I say about the dishwasher last month?" / "上个月我说洗碗机怎么了？" carry a
time window the lexical index cannot see. `parse_time_cue` finds the first such
expression, resolves it against `now` (in `now`'s timezone; weeks start on Monday) into a
half-open window [start, end), and returns the query without it, so the expression's own
words (上个, 个月, last, month) do not match documents that merely mention months.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "several": 3,
    "a couple of": 2, "couple of": 2,
}  # fmt: skip
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_EN_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip


@dataclass(frozen=True)
class TimeCue:
    start: datetime
    end: datetime  # exclusive
    phrase: str  # the expression as written
    rest: str  # the query without the expression

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def _cn_number(text: str) -> int:
    """几/两/三/十二/二十/3 → a number (几 means 'a few': 3)."""
    if text.isdigit():
        return int(text)
    if text in ("几", "好几"):
        return 3
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    return _CN_DIGITS.get(text, 1)


def _day(now: datetime, offset: int = 0) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=offset)


def _week(now: datetime, offset: int = 0) -> tuple[datetime, datetime]:
    start = _day(now, -now.weekday()) + timedelta(weeks=offset)
    return start, start + timedelta(weeks=1)


def _month(now: datetime, offset: int = 0) -> tuple[datetime, datetime]:
    index = now.year * 12 + now.month - 1 + offset
    start = now.replace(year=index // 12, month=index % 12 + 1, day=1, hour=0, minute=0, second=0, microsecond=0)
    nxt = index + 1
    return start, start.replace(year=nxt // 12, month=nxt % 12 + 1)


def _named_month(now: datetime, month: int) -> tuple[datetime, datetime]:
    """The most recent `month` that has begun (this one if it is the current month)."""
    back = (now.month - month) % 12
    return _month(now, -back)


def _weekday(now: datetime, weekday: int, week_offset: int | None) -> tuple[datetime, datetime]:
    if week_offset is None:  # "on Tuesday": the most recent Tuesday before today
        back = (now.weekday() - weekday) % 7 or 7
        start = _day(now, -back)
    else:
        start = _week(now, week_offset)[0] + timedelta(days=weekday)
    return start, start + timedelta(days=1)


def _ago(now: datetime, unit: str, n: int) -> tuple[datetime, datetime]:
    """'3 days ago' / '两周前': the unit-sized window around that point in time."""
    if unit in ("day", "天"):
        start = _day(now, -n)
        return start, start + timedelta(days=1)
    if unit in ("week", "周", "星期", "个星期", "礼拜", "个礼拜"):
        return _week(now, -n)
    if unit in ("month", "月", "个月"):
        return _month(now, -n)
    return now.replace(year=now.year - n, month=1, day=1, hour=0, minute=0, second=0, microsecond=0), now.replace(year=now.year - n + 1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)


def _past(now: datetime, unit: str, n: int) -> tuple[datetime, datetime]:
    """'the past 3 days' / '最近三天': from n units ago until now."""
    days = {"day": 1, "天": 1, "week": 7, "周": 7, "星期": 7, "个星期": 7, "month": 30, "个月": 30}.get(unit, 1)
    return _day(now, -n * days), now + timedelta(seconds=1)


# Meteorological seasons (northern hemisphere): the month each starts; winter spans the
# turn of the year (December to February).
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12,
                 "春": 3, "夏": 6, "秋": 9, "冬": 12}  # fmt: skip


def _season_of_year(year: int, name: str, now: datetime) -> tuple[datetime, datetime]:
    """The season `name` that starts in `year` (winter: December of `year`)."""
    month = _SEASON_START[name.lower()]
    start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    return start, _month(start, 3)[0]


def _season(now: datetime, name: str, which: str) -> tuple[datetime, datetime]:
    """'last summer' (the latest that has ended), 'this summer' (this year's; for winter
    the one around this turn of the year), 'in the summer' / 夏天 (the latest that has
    begun), 去年夏天 (last year's)."""
    if which == "previous-year":
        return _season_of_year(now.year - 1, name, now)
    if which == "this":
        winter = _SEASON_START[name.lower()] == 12
        return _season_of_year(now.year - 1 if winter and now.month <= 2 else now.year, name, now)
    for year in range(now.year, now.year - 3, -1):
        start, end = _season_of_year(year, name, now)
        if (end <= now) if which == "last" else (start <= now):
            return start, end
    return _season_of_year(now.year - 1, name, now)


_SEASONS_EN = "spring|summer|autumn|fall|winter"
_SEASONS_CN = r"([春夏秋冬])(?:天|季)"

_CN_NUM = r"(\d+|[一二两三四五六七八九十]+|几|好几)"
_EN_NUM = r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten)"

Resolver = Callable[[re.Match[str], datetime], tuple[datetime, datetime]]


def _en_num(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _EN_NUMBERS.get(text, 1)


def _unit(text: str) -> str:
    return text.lower().rstrip("s")


# Longest and most specific expressions first: 上上周 before 上周, "day before yesterday"
# before "yesterday".
_PATTERNS: tuple[tuple[re.Pattern[str], Resolver], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"大前天", lambda m, n: (_day(n, -3), _day(n, -2))),
        (r"前天", lambda m, n: (_day(n, -2), _day(n, -1))),
        (r"昨天|昨日|昨晚|昨儿", lambda m, n: (_day(n, -1), _day(n))),
        (r"今天|今日|今早|今晚|今儿", lambda m, n: (_day(n), _day(n, 1))),
        (r"上上(?:个)?(?:周|星期|礼拜)", lambda m, n: _week(n, -2)),
        (r"上(?:个)?(?:周|星期|礼拜)([一二三四五六日天末])",
         lambda m, n: _weekday(n, _CN_WEEKDAYS[m.group(1)], -1) if m.group(1) != "末"
         else (_week(n, -1)[0] + timedelta(days=5), _week(n, -1)[1])),
        (r"(?:这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])",
         lambda m, n: _weekday(n, _CN_WEEKDAYS[m.group(1)], 0)),
        (r"上(?:个)?(?:周|星期|礼拜)", lambda m, n: _week(n, -1)),
        (r"(?:这|本)(?:个)?(?:周|星期|礼拜)", lambda m, n: _week(n, 0)),
        (r"上上(?:个)?月", lambda m, n: _month(n, -2)),
        (r"上(?:个)?月", lambda m, n: _month(n, -1)),
        (r"(?:这|本)(?:个)?月", lambda m, n: _month(n, 0)),
        (rf"去年{_SEASONS_CN}", lambda m, n: _season(n, m.group(1), "previous-year")),
        (rf"(?:今年|这个?){_SEASONS_CN}", lambda m, n: _season(n, m.group(1), "this")),
        (rf"(?:上个?){_SEASONS_CN}", lambda m, n: _season(n, m.group(1), "last")),
        (r"去年", lambda m, n: _ago(n, "year", 1)),
        (r"今年", lambda m, n: _ago(n, "year", 0)),
        (rf"{_CN_NUM}(天|周|个星期|星期|个礼拜|礼拜|个月)(?:以)?前",
         lambda m, n: _ago(n, m.group(2), _cn_number(m.group(1)))),
        (rf"(?:最近|过去|近)的?{_CN_NUM}(天|周|个星期|个月)",
         lambda m, n: _past(n, m.group(2), _cn_number(m.group(1)))),
        (r"前几天|前些天|这几天|前两天", lambda m, n: (_day(n, -7), n + timedelta(seconds=1))),
        (r"最近|近来|近期", lambda m, n: (_day(n, -14), n + timedelta(seconds=1))),
        (r"(?:周|星期|礼拜)([一二三四五六日天])", lambda m, n: _weekday(n, _CN_WEEKDAYS[m.group(1)], None)),
        (r"(\d{1,2}|十[一二]?|[一二三四五六七八九])月份?(?!\d)",
         lambda m, n: _named_month(n, _cn_number(m.group(1)))),
        (r"\bthe day before yesterday\b", lambda m, n: (_day(n, -2), _day(n, -1))),
        (r"\b(?:yesterday|last night)\b", lambda m, n: (_day(n, -1), _day(n))),
        (r"\b(?:today|tonight|this morning|this afternoon|this evening|earlier today)\b",
         lambda m, n: (_day(n), _day(n, 1))),
        (r"\blast weekend\b", lambda m, n: (_week(n, -1)[0] + timedelta(days=5), _week(n, -1)[1])),
        (rf"\blast ({'|'.join(_EN_WEEKDAYS)})\b",
         lambda m, n: _weekday(n, _EN_WEEKDAYS.index(m.group(1).lower()), None)),
        (rf"\b(?:on )?({'|'.join(_EN_WEEKDAYS)})\b",
         lambda m, n: _weekday(n, _EN_WEEKDAYS.index(m.group(1).lower()), None)),
        (r"\bthe week before last\b", lambda m, n: _week(n, -2)),
        (r"\blast week\b", lambda m, n: _week(n, -1)),
        (r"\bthis week\b", lambda m, n: _week(n, 0)),
        (r"\bthe month before last\b", lambda m, n: _month(n, -2)),
        (r"\blast month\b", lambda m, n: _month(n, -1)),
        (r"\bthis month\b", lambda m, n: _month(n, 0)),
        (r"\blast year\b", lambda m, n: _ago(n, "year", 1)),
        (r"\bthis year\b", lambda m, n: _ago(n, "year", 0)),
        (rf"\b{_EN_NUM} (day|week|month|year)s? ago\b",
         lambda m, n: _ago(n, _unit(m.group(2)), _en_num(m.group(1)))),
        (rf"\b(?:in |over |during )?the (?:past|last) {_EN_NUM} (day|week|month)s?\b",
         lambda m, n: _past(n, _unit(m.group(2)), _en_num(m.group(1)))),
        (r"\b(?:in |over |during )?the (?:past|last) (day|week|month)\b",
         lambda m, n: _past(n, _unit(m.group(1)), 1)),
        (r"\b(?:the other day|a few days ago|recently|lately)\b",
         lambda m, n: (_day(n, -14 if m.group(0).lower() in ("recently", "lately") else -7), n + timedelta(seconds=1))),
        (rf"\blast ({_SEASONS_EN})\b", lambda m, n: _season(n, m.group(1), "last")),
        (rf"\bthis (?:past )?({_SEASONS_EN})\b",
         lambda m, n: _season(n, m.group(1), "last" if "past" in m.group(0).lower() else "this")),
        (rf"\b(?:in|during|over) the ({_SEASONS_EN})\b", lambda m, n: _season(n, m.group(1), "recent")),
        (rf"(?<![今去上这个]){_SEASONS_CN}", lambda m, n: _season(n, m.group(1), "recent")),
        (rf"\bin ({'|'.join(_EN_MONTHS)})\b",
         lambda m, n: _named_month(n, _EN_MONTHS.index(m.group(1).lower()) + 1)),
    )
)


def parse_time_cue(query: str, now: datetime) -> TimeCue | None:
    """The first time expression of `query` resolved against `now`, or None."""
    best: tuple[int, re.Match[str], Resolver] | None = None
    for order, (pattern, resolve) in enumerate(_PATTERNS):
        match = pattern.search(query)
        if match is None:
            continue
        # Earliest, then longest, then most specific (pattern order) wins.
        key = (match.start(), -len(match.group(0)), order)
        if best is None or key < (best[1].start(), -len(best[1].group(0)), best[0]):
            best = (order, match, resolve)
    if best is None:
        return None
    _, match, resolve = best
    try:
        start, end = resolve(match, now)
    except (ValueError, KeyError):
        return None  # an impossible date such as month 13: treat as no cue
    rest = (query[: match.start()] + " " + query[match.end() :]).strip()
    return TimeCue(start, end, match.group(0), re.sub(r"\s{2,}", " ", rest))
