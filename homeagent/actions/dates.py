"""Relative dates and times in Chinese and English, resolved against the home's "now".

Models are told to copy the user's own words for a date ("明天下午3点", "next Monday")
rather than compute one; this module turns them into aware datetimes in the home's
timezone (the injected clock's), stored as ISO 8601.

Our own rules cover what people say to a home assistant (今天, 明天, 后天, 下周五,
周五下午3点, 昨晚, 3天后, 5月20号, tomorrow 5pm, next Monday, in 2 hours); `dateparser`
handles the English forms the rules do not know ("March 3rd", "a week ago"). Week-based
words follow the Chinese convention in both languages: 下周五 / next Friday is the Friday of
next week (weeks start on Monday); a bare 周五 / Friday is the next one to come (or the
last one gone, when the value describes the past).

Anything unreadable raises `DateError`, whose message tells the model the accepted forms.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal

from homeagent.numbers import NUM, parse_number

Prefer = Literal["future", "past", "nearest"]  # nearest: no rolling into another year/week

FORMAT_HINT = (
    "use YYYY-MM-DD or YYYY-MM-DD HH:MM, or words such as 今天, 明天下午3点, 下周五, 昨晚, "
    "3天后, today, tomorrow 5pm, next Monday, in 2 hours"
)

_WD_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
_WD_EN = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_MONTHS_EN = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1)}

_DAY_WORDS: tuple[tuple[str, int], ...] = (
    ("大后天", 3), ("大前天", -3), ("后天", 2), ("前天", -2),
    ("今天", 0), ("今日", 0), ("今晚", 0), ("今早", 0), ("今儿", 0), ("今夜", 0),
    ("明天", 1), ("明日", 1), ("明晚", 1), ("明早", 1), ("明儿", 1),
    ("昨天", -1), ("昨日", -1), ("昨晚", -1), ("昨夜", -1), ("昨早", -1),
    ("day after tomorrow", 2), ("day before yesterday", -2), ("tonight", 0), ("today", 0),
    ("this morning", 0), ("this evening", 0), ("this afternoon", 0), ("tomorrow", 1),
    ("yesterday", -1), ("last night", -1),
)
# Parts of the day: (words, hour used when no clock time is given, shift to afternoon).
_PARTS: tuple[tuple[tuple[str, ...], int, bool], ...] = (
    (("凌晨",), 3, False),
    (("早上", "早晨", "清晨", "今早", "明早", "昨早", "morning"), 8, False),
    (("上午",), 9, False),
    (("中午", "晌午", "noon", "lunch"), 12, False),
    (("下午", "afternoon"), 15, True),
    (("傍晚", "下班"), 18, True),
    (("深夜", "半夜"), 23, True),
    (("晚上", "今晚", "明晚", "昨晚", "夜里", "今夜", "昨夜", "tonight", "evening", "night"), 20, True),
)


class DateError(ValueError):
    """A date or time that could not be read; the message lists the accepted forms."""


@dataclass(frozen=True)
class When:
    value: datetime  # aware, in the home's timezone
    has_time: bool

    @property
    def day(self) -> date:
        return self.value.date()

    def iso(self) -> str:
        """YYYY-MM-DD for a date, YYYY-MM-DDTHH:MM:SS±HH:MM for a date and time."""
        return self.value.isoformat(timespec="seconds") if self.has_time else self.day.isoformat()


def parse_when(text: str, now: datetime, *, prefer: Prefer = "future") -> When:
    """Resolve a date/time expression against `now` (aware); raises DateError."""
    raw = " ".join(str(text).split())
    if not raw:
        raise DateError(f"empty date; {FORMAT_HINT}")
    if re.search(r"(?:周|星期|礼拜)[七八九十零〇]|下下下|上上上", raw):
        raise DateError(f"{text!r} names no real day; {FORMAT_HINT}")
    iso = _parse_iso(raw, now)
    if iso is not None:
        return iso
    s = _lunar_words(raw.casefold().replace("星期天", "星期日").replace("礼拜天", "礼拜日"))
    try:
        found = _rules(s, now, prefer)
    except ValueError as err:
        # e.g. 2月30日: the words were understood but name no real day.
        raise DateError(f"{text!r} is not a real date ({err}); {FORMAT_HINT}") from err
    if found is not None:
        return found
    fallback = _dateparser(raw, now, prefer)
    if fallback is not None:
        return fallback
    raise DateError(f"cannot read {text!r} as a date or time; {FORMAT_HINT}")


# A lunar birthday is said by the lunar calendar's own month and day names (正月初一, 腊月初八,
# 冬月廿三) or, in English, "the 8th day of the 8th lunar month". The record keeps the month and
# day as said, with its lunar flag: these become the plain "M月D日" the rules read.
_LUNAR_MONTHS = {"正": "1", "冬": "11", "腊": "12"}
_LUNAR_DAY_RE = re.compile(r"(?<=月)\s*(?:(初)(十|[一二三四五六七八九])|(廿|二十)([一二三四五六七八九]?)|(三十))(?![日号\d一二三四五六七八九十])")
_LUNAR_EN_RE = re.compile(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+day\s+of\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\s+(?:lunar\s+)?month\b")


def _lunar_words(s: str) -> str:
    s = re.sub(r"([正冬腊])月", lambda m: _LUNAR_MONTHS[m.group(1)] + "月", s)
    s = _LUNAR_DAY_RE.sub(lambda m: (m.group(2) if m.group(1) else f"二十{m.group(4) or ''}" if m.group(3) else "三十") + "日", s)
    return _LUNAR_EN_RE.sub(lambda m: f"{int(m.group(2))}月{int(m.group(1))}日", s)


def parse_date(text: str, now: datetime, *, prefer: Prefer = "future") -> date:
    return parse_when(text, now, prefer=prefer).day


_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTHS_ZH = ("一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二")
# The periods `day_range` reads beyond single dates, as a household says them in a question:
# what the intent layer looks for in a read ("这礼拜花了多少", "my mood log for February").
PERIOD_RE = re.compile(
    r"(?:(?:这|本|上|下)(?:个)?(?:周末|礼拜|星期|周|月)(?:剩下的?)?|今年|去年)(?!\s*(?:\d|[一二三四五六七八九十]+[号日]|[一二三四五六日天]))"
    r"|这两天|这几天|最近几天"
    rf"|(?:最近|过去|近)\s*(?:{NUM})?\s*(?:个?月|周|个?星期|个?礼拜|天)"
    r"|(?<![\d年])(?:1[0-2]|[1-9]|十[一二]|[一二三四五六七八九十])月份?(?![\d一二三四五六七八九十]|[日号])"
    r"|\b(?:(?:this|last|next)\s+(?:weekend|week|month|year)|(?:the\s+)?(?:past|last)\s+(?:few|\d+|two|three|four)\s+"
    r"(?:days|weeks|months)|(?:over\s+)?the\s+(?:past|last)\s+(?:week|month)|the\s+rest\s+of\s+the\s+(?:week|month)"
    rf"|(?:(?:since|in|for|during)\s+)?(?:{'|'.join(m for m in _MONTH_NAMES if m != 'may')})|(?:since|in|for|during)\s+may)\b",
    re.I,
)
_EN_COUNT = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "few": 3}


def _period_words(s: str, today: date) -> tuple[date, date] | None:
    """The periods of PERIOD_RE that the short forms below do not already read."""
    s = re.sub(r"^(?:over\s+|in\s+|for\s+|during\s+|since\s+|from\s+)?(?:the\s+)?", "", s)
    monday = today - timedelta(days=today.weekday())
    if s == "这两天":
        return today - timedelta(days=1), today
    if s in ("这几天", "最近几天"):
        return today - timedelta(days=2), today
    if re.fullmatch(r"(?:本|这个?)月剩下的?|rest of the month", s):
        return today, month_end(today)
    if s == "rest of the week":
        return today, monday + timedelta(days=6)
    if s in ("去年", "last year"):
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    m = re.fullmatch(rf"(?:最近|过去|近|past|last)\s*({NUM}|a|one|two|three|four|few)?\s*(个?月|周|个?星期|个?礼拜|天|days?|weeks?|months?)", s)
    if m:
        n = _EN_COUNT.get(m.group(1) or "a") or parse_number(m.group(1) or "1") or 1
        unit = m.group(2)
        days = int(n) * (30 if "月" in unit or unit.startswith("month") else 7 if unit[-1] in "周期拜" or unit.startswith("week") else 1)
        return today - timedelta(days=days - 1), today
    month = None
    m = re.fullmatch(r"(1[0-2]|[1-9]|十[一二]|[一二三四五六七八九十])月份?", s)
    if m:
        month = int(m.group(1)) if m.group(1).isdigit() else _MONTHS_ZH.index(m.group(1)) + 1
    elif s in _MONTH_NAMES:
        month = _MONTH_NAMES.index(s) + 1
    if month is not None:  # a month asked about: this year's, or last year's when it is still to come
        year = today.year if month <= today.month else today.year - 1
        first = date(year, month, 1)
        return first, month_end(first)
    return None


def day_range(text: str, now: datetime) -> tuple[date, date]:
    """A period as inclusive days: 今天, 本周/this week, 这周末/this weekend, 上个月/last month,
    最近7天/last 7 days, 这礼拜, 这两天, the past two weeks, February, or any single date."""
    s = re.sub(r"(?<=\S)的$", "", str(text).strip().casefold())  # "下周的", "上个月的"
    today = now.date()
    monday = today - timedelta(days=today.weekday())
    if s in ("周末", "这周末", "本周末", "这个周末", "this weekend", "the weekend", "weekend"):
        return monday + timedelta(days=5), monday + timedelta(days=6)
    if s in ("下周末", "下个周末", "next weekend"):
        return monday + timedelta(days=12), monday + timedelta(days=13)
    if s in ("上周末", "上个周末", "last weekend"):
        return monday - timedelta(days=2), monday - timedelta(days=1)
    if s in ("本周", "这周", "这个星期", "这星期", "本星期", "这礼拜", "本礼拜", "这个礼拜", "this week"):
        return monday, monday + timedelta(days=6)
    if s in ("上周", "上个星期", "上星期", "上礼拜", "上个礼拜", "last week"):
        return monday - timedelta(days=7), monday - timedelta(days=1)
    if s in ("下周", "下个星期", "下星期", "下礼拜", "下个礼拜", "next week"):
        return monday + timedelta(days=7), monday + timedelta(days=13)
    if s in ("本月", "这个月", "这月", "this month"):
        return today.replace(day=1), month_end(today)
    if s in ("下个月", "下月", "next month"):
        first = month_end(today) + timedelta(days=1)
        return first, month_end(first)
    if s in ("上个月", "上月", "last month"):
        last = today.replace(day=1) - timedelta(days=1)
        return last.replace(day=1), last
    if s in ("今年", "this year"):
        return date(today.year, 1, 1), date(today.year, 12, 31)
    if s in ("去年", "last year"):
        return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)
    match = re.fullmatch(rf"(?:最近|过去|近|last|past)\s*({NUM})\s*(?:天|日|days?)", s)
    if match and (n := parse_number(match.group(1))):
        return today - timedelta(days=int(n) - 1), today
    words = _period_words(s, today)
    if words is not None:
        return words
    day = parse_date(text, now, prefer="nearest")
    return day, day


_PERIOD_ENDS = {
    "year": ("今年", "本年", "this year"),
    "next_year": ("明年", "next year"),
    "month": ("本月", "这个月", "这月", "this month"),
    "next_month": ("下个月", "下月", "next month"),
    "week": ("本周", "这周", "这个星期", "这星期", "本星期", "这礼拜", "this week"),
    "next_week": ("下周", "下个星期", "下星期", "下礼拜", "next week"),
}


def period_end(text: str, now: datetime) -> date | None:
    """The last day of a period said whole as a deadline ("今年读20本书" is by 31 December,
    "this month" by its last day, "下周" by next Sunday); None for anything else."""
    s = re.sub(r"(?:之内|以内|内)$", "", str(text).strip().casefold().removeprefix("by ").removesuffix("的"))
    today = now.date()
    kind = next((k for k, words in _PERIOD_ENDS.items() if s in words), None)
    sunday = today + timedelta(days=6 - today.weekday())
    return {"year": date(today.year, 12, 31), "next_year": date(today.year + 1, 12, 31),
            "month": month_end(today), "next_month": month_end(add_months(today.replace(day=1), 1)),
            "week": sunday, "next_week": sunday + timedelta(days=7), None: None}[kind]


# -- rules ----------------------------------------------------------------------------


def _parse_iso(raw: str, now: datetime) -> When | None:
    s = raw.replace("/", "-").replace("年", "-").replace("月", "-").rstrip("日号")
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", s):
        y, m, d = (int(x) for x in s.split("-"))
        return When(datetime(y, m, d, tzinfo=now.tzinfo), False) if _valid(y, m, d) else None
    try:
        value = datetime.fromisoformat(raw.replace(" ", "T", 1) if "T" not in raw else raw)
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=now.tzinfo)
    else:
        value = value.astimezone(now.tzinfo)
    return When(value, True)


def _valid(y: int, m: int, d: int) -> bool:
    try:
        date(y, m, d)
    except ValueError:
        return False
    return True


def _rules(s: str, now: datetime, prefer: Prefer) -> When | None:
    today = now.date()
    day: date | None = None
    explicit_day = False

    # Offsets: 3天后, in 3 days, 2 weeks ago, 两小时后, in 30 minutes.
    m = re.search(rf"({NUM}|半)\s*个?\s*(分钟|小时|钟头|天|日|周|星期|礼拜|个月|月)\s*(后|以后|之后|前|以前|之前)", s)
    if m is None:
        m2 = re.search(r"in\s+(\d+(?:\.\d+)?|an?|half an?)\s*(minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b", s)
        m3 = re.search(r"(\d+(?:\.\d+)?|an?)\s*(minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\s+(ago|later|from now)", s)
        if m2:
            amount, unit, sign = m2.group(1), m2.group(2), 1
        elif m3:
            amount, unit, sign = m3.group(1), m3.group(2), -1 if m3.group(3) == "ago" else 1
        else:
            amount = None
    else:
        amount, unit = m.group(1), m.group(2)
        sign = -1 if m.group(3) in ("前", "以前", "之前") else 1
    if amount is not None:
        n = {"a": 1.0, "an": 1.0, "half a": 0.5, "half an": 0.5, "半": 0.5}.get(amount)
        n = n if n is not None else parse_number(amount)
        if n is None:
            return None
        unit = unit.rstrip("s")
        if unit in ("分钟", "minute", "min"):
            return When(now + sign * timedelta(minutes=n), True)
        if unit in ("小时", "钟头", "hour", "hr"):
            return When(now + sign * timedelta(hours=n), True)
        if unit in ("天", "日", "day"):
            day = today + timedelta(days=sign * int(n))
        elif unit in ("周", "星期", "礼拜", "week"):
            day = today + timedelta(days=sign * 7 * int(n))
        else:
            day = add_months(today, sign * int(n))
        explicit_day = True

    # Named days: 今天, 明天, 后天, 昨晚, tomorrow, yesterday.
    if day is None:
        for word, offset in _DAY_WORDS:
            if word in s:
                day, explicit_day = today + timedelta(days=offset), True
                break

    # A day of the month said alone in English: "the 12th", "on the 27th at 2pm", "Saturday the
    # 14th" (the number names the day; a weekday beside it only agrees). With a month's name
    # the month-and-day rule below reads it.
    if day is None and not re.search(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*\d|\d(?:st|nd|rd|th)?\s+(?:of\s+)?"
                                     r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", s):
        m = re.search(r"(?<![\d:.])(\d{1,2})(?:st|nd|rd|th)\b", s)
        if m and 1 <= (nth := int(m.group(1))) <= 31:
            day = _month_day(today, nth, prefer)
            explicit_day = True

    # Weekdays: 下周五, 本周三, 上星期一, 周五, next Monday, this friday, last sun.
    if day is None:
        m = re.search(r"(下下|下个?|上上|上个?|这个?|本)?\s*(?:周|星期|礼拜)([一二三四五六日天末])", s)
        if m:
            which = {"下下": 2, "下": 1, "下个": 1, "上上": -2, "上": -1, "上个": -1}.get(m.group(1) or "", 0)
            bare = m.group(1) is None
            day, explicit_day = _weekday(today, _WD_ZH[m.group(2)], which, bare, prefer), True
    if day is None:
        m = re.search(r"\b(next|this|last|coming|on)?\s*\b(mon|tue|wed|thu|fri|sat|sun)"
                      r"(?:day|s|sday|nesday|rsday|urday|r|rs)?\.?(?![a-z])", s)
        if m:
            which = {"next": 1, "last": -1}.get(m.group(1) or "", 0)
            bare = m.group(1) in (None, "on", "coming")
            day, explicit_day = _weekday(today, _WD_EN[m.group(2)], which, bare, prefer), True
            # "Tuesday week", "a week Friday", "Monday after next": a week past the coming one
            if bare and (re.match(r"\s+(?:week\b|after next\b)", s[m.end():])
                         or re.search(r"\ba week\s+(?:on\s+)?$", s[:m.start(2)])):
                day = _weekday(today, _WD_EN[m.group(2)], 0, True, "future") + timedelta(days=7)
    if day is None and re.search(r"月底|月末|end of (?:the )?month", s):
        day, explicit_day = month_end(today), True
    if day is None and re.search(r"年底|年末|end of (?:the )?year", s):
        day, explicit_day = date(today.year, 12, 31), True
    if day is None and re.search(r"(下周|下个?星期|next week)", s):
        day, explicit_day = today - timedelta(days=today.weekday()) + timedelta(days=7), True
    if day is None and (m := re.search(rf"下个?月\s*({NUM})\s*[号日]", s)):
        d = parse_number(m.group(1))  # 下个月5号: that day of next month
        first = add_months(today.replace(day=1), 1)
        if d is None or not _valid(first.year, first.month, int(d)):
            return None
        day, explicit_day = first.replace(day=int(d)), True
    if day is None and re.search(r"(下个?月|next month)", s):
        day, explicit_day = add_months(today, 1), True

    # Month and day in figures, as typed: 3/15, 3.12, 3.12号; a day first when the first figure
    # cannot be a month (20/3). A time stays a time: "3.30pm", "at 3.30".
    if day is None:
        m = re.search(r"(?<![\d./:-])(\d{1,2})\s*([/.])\s*(\d{1,2})(?![\d/:]|\.\d)"
                      r"(?!\s*(?:am|pm|a\.m|p\.m|点|點|时|時|%|度|斤|公斤|kg|块|元|k\b|w\b|万))", s)
        if m and not (m.group(2) == "." and re.search(r"(?:\bat|@)\s*$", s[:m.start()])):
            said_first, said_second = int(m.group(1)), int(m.group(3))
            month, mday = (said_first, said_second) if 1 <= said_first <= 12 else (said_second, said_first)
            if 1 <= month <= 12 and _valid(today.year, month, mday):
                day, explicit_day = _roll_year(date(today.year, month, mday), today, prefer), True

    # Month and day: 5月20日, 5月20号, 2026年5月20日 (the ISO path took full dates), 20号.
    if day is None:
        m = re.search(rf"(?:(\d{{4}})\s*年\s*)?({NUM})\s*月\s*({NUM})\s*[日号]?", s)
        if m:
            mo, d = parse_number(m.group(2)), parse_number(m.group(3))
            if mo is None or d is None:
                return None
            year = int(m.group(1)) if m.group(1) else today.year
            day = date(year, int(mo), int(d))
            if not m.group(1):
                day = _roll_year(day, today, prefer)
            explicit_day = True
    if day is None:
        m = re.search(
            r"\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
            r"|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?)"
            r"(?:,?\s*(\d{4}))?\b",
            s,
        )
        if m:
            mon = _MONTHS_EN[(m.group(2) or m.group(3))[:3]]
            d = int(m.group(1) or m.group(4))
            day = date(int(m.group(5)) if m.group(5) else today.year, mon, d)
            if not m.group(5):
                day = _roll_year(day, today, prefer)
            explicit_day = True
    if day is None:
        m = re.search(rf"(?<![月\d])({NUM})\s*[号日](?!\s*[后前])", s)
        if m and (d := parse_number(m.group(1))) and 1 <= d <= 31:
            day = _month_day(today, int(d), prefer)
            explicit_day = True

    clock = _clock_time(s)
    if clock is None:
        return None if day is None else When(datetime.combine(day, time(0, 0), tzinfo=now.tzinfo), False)
    if day is None:
        day = today
        moment = datetime.combine(day, clock, tzinfo=now.tzinfo)
        if not explicit_day and prefer == "future" and moment < now - timedelta(minutes=1):
            moment += timedelta(days=1)
        elif not explicit_day and prefer == "past" and moment > now + timedelta(minutes=1):
            moment -= timedelta(days=1)
        return When(moment, True)
    return When(datetime.combine(day, clock, tzinfo=now.tzinfo), True)


def _month_day(today: date, d: int, prefer: Prefer) -> date:
    """Day `d` of this month, or of the next (the last) when it has passed (is to come)."""
    day = today.replace(day=d)
    if prefer == "future" and day < today:
        day = add_months(today.replace(day=1), 1).replace(day=d)
    elif prefer == "past" and day > today:
        day = add_months(today.replace(day=1), -1).replace(day=d)
    return day


def _clock_time(s: str) -> time | None:
    """The time of day in `s`, if any: 下午3点, 3点半, 15:30, 5pm, 8:15 am, noon."""
    part = next(((hour, pm) for words, hour, pm in _PARTS if any(_has_word(s, w) for w in words)), None)
    at_form = zh_bare = False
    m = re.search(rf"({NUM})\s*(?:点|點|时|時)\s*(?:(半)|(一刻)|(三刻)|({NUM})\s*分?)?", s)
    hour = minute = None
    if m:
        hour = parse_number(m.group(1))
        minute = 30 if m.group(2) else 15 if m.group(3) else 45 if m.group(4) else (
            parse_number(m.group(5)) if m.group(5) else 0)
        # "4点提醒我", "3点半开会": with no 早上/凌晨 before it, an hour up to 5 is the afternoon
        # (as "at 4" is); 6 stays as said ("6点起床").
        zh_bare = part is None and hour is not None and 1 <= hour <= 5
    else:
        m = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])", s)
        if m:
            hour, minute = float(m.group(1)), float(m.group(2) or 0)
            if m.group(3).startswith("p") and hour < 12:
                hour += 12
            elif m.group(3).startswith("a") and hour == 12:
                hour = 0
            part = None
        else:
            m = re.search(r"(?<![\d:])(\d{1,2})[:：](\d{2})(?![\d:])", s) or _military_time(s)
            if m:
                hour, minute = float(m.group(1)), float(m.group(2))
            else:
                m = re.search(r"\bat\s+(\d{1,2})\b(?!\s*[:/-])", s)
                if m:
                    hour, minute, at_form = float(m.group(1)), 0.0, True
                elif "midnight" in s or "半夜" in s:
                    return time(23, 59)
    if hour is None:
        if part is None:
            return None
        return time(part[0], 0)
    if part is not None and hour == 12 and (part[0] >= 18 or part[0] == 3) and m is not None and re.search("[点點时時]", m.group(0)):
        # 晚上12点 / 凌晨12点 is midnight: the end of the day said (as "midnight" is), or
        # past it when minutes follow (晚上12点半 is 0:30).
        return time(23, 59) if part[0] >= 18 and not minute else time(0, int(minute or 0))
    if part is not None and part[1] and part[0] >= 20 and hour <= 5:
        pass  # 夜里一点, 半夜两点, "2 at night": the small hours, not the afternoon
    elif part is not None and part[1] and hour < 12:
        hour += 12
    elif part is not None and part[0] == 12 and hour < 6:
        hour += 12  # 中午1点
    elif part is None and at_form and 1 <= hour <= 6:
        hour += 12  # "at 5": people mean the afternoon
    elif zh_bare:
        hour += 12
    if not (0 <= hour <= 24 and 0 <= (minute or 0) < 60):
        return None
    hour = min(int(hour), 23) if hour < 24 else 0
    return time(hour, int(minute or 0))


# A 24-hour time in four figures, as nurses and shift workers write it: "at 0700", "1930 hrs",
# "0830", "1930 today". Four figures are a year as often ("by 2030", "2026年"): they are a time
# only after "at"/"by"/"before"…, before "hrs", with a leading 0, or beside a day's name.
_MILITARY_RE = re.compile(r"(?<![\d.,$£€¥:/-])([01]\d|2[0-3])([0-5]\d)(?P<hrs>\s*(?:hrs?|hours|h)\b)?(?![\d.,/%]|:\d|\s*(?:年|块|元|号|日|月|s\b))")
_MILITARY_LEAD_RE = re.compile(r"(\bat|\bby|\bbefore|\bafter|\bfrom|\buntil|\btill|\bto|\bb4|@)\s*$")
_DAY_NAMED_RE = re.compile(r"\b(?:today|tonight|tomorrow|tmrw|yesterday|mon|tue|wed|thu|fri|sat|sun)", re.I)


def _military_time(s: str) -> re.Match[str] | None:
    for m in _MILITARY_RE.finditer(s):
        said = _MILITARY_LEAD_RE.search(s[:m.start()])
        lead = said.group(1) if said else ""
        if lead not in ("at", "@") and m.group(1)[0] == "2" and not m.group("hrs"):
            continue  # "by 2030": a year
        if lead or m.group("hrs") or m.group(1)[0] == "0" or _DAY_NAMED_RE.search(s):
            return m
    return None


def clock_time(text: str) -> time | None:
    """The time of day in `text` (下午3点, 7:30, 8am, noon), or None."""
    return _clock_time(text.casefold())


def _has_word(s: str, word: str) -> bool:
    if word.isascii():
        return re.search(rf"\b{word}\b", s) is not None
    return word in s


def _weekday(today: date, wd: int, which: int, bare: bool, prefer: Prefer) -> date:
    if bare and prefer == "nearest":
        which = 0
    elif bare:
        delta = (wd - today.weekday()) % 7
        if prefer == "past":
            delta = -((today.weekday() - wd) % 7)
        return today + timedelta(days=delta)
    monday = today - timedelta(days=today.weekday())
    return monday + timedelta(days=7 * which + wd)


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    first = date(year, month + 1, 1)
    return first.replace(day=min(day.day, month_end(first).day))


def month_end(day: date) -> date:
    nxt = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return nxt - timedelta(days=1)


def _roll_year(day: date, today: date, prefer: Prefer) -> date:
    if prefer == "future" and day < today - timedelta(days=1):
        return day.replace(year=day.year + 1) if not (day.month == 2 and day.day == 29) else day
    if prefer == "past" and day > today + timedelta(days=1):
        return day.replace(year=day.year - 1) if not (day.month == 2 and day.day == 29) else day
    return day


_DATEPARSER = threading.Lock()
_preloading: threading.Thread | None = None


def preload() -> None:
    """Begin loading dateparser now, in a thread of its own: its import, and what its
    first parse loads (the English and Chinese data, the timezone patterns): a fifth of
    a second of Python. `App` starts it as it opens, so that it fills what would be idle
    time of the interpreter (a wait for the engine's model, for the database) instead of
    following the intent model's load; a parse meanwhile waits for it (`_DATEPARSER`),
    and the intent layer's warm-up, still done before the daemon says ready, finds it
    done."""
    global _preloading
    if _preloading is None:
        _preloading = threading.Thread(target=_preload_sync, name="dateparser-preload", daemon=True)
        _preloading.start()


def _preload_sync() -> None:
    _dateparser("3 weeks from now on March 3rd", datetime.now(), "future")


def _dateparser(raw: str, now: datetime, prefer: Prefer) -> When | None:
    """English forms our rules do not cover; dateparser resolves them against `now`."""
    import dateparser  # imported late: it loads its language data on first use

    base = now.replace(tzinfo=None)
    try:
        with _DATEPARSER:  # its language data loads lazily; the intent layer warms it in a thread
            value = dateparser.parse(
                raw,
                languages=["en", "zh"],
                settings={
                    "RELATIVE_BASE": base,
                    "PREFER_DATES_FROM": "current_period" if prefer == "nearest" else prefer,
                    "RETURN_AS_TIMEZONE_AWARE": False,
                    "STRICT_PARSING": False,
                },
            )
    except (ValueError, TypeError, OverflowError, LookupError):
        return None  # the library could not make sense of it either
    if value is None:
        return None
    has_time = bool(re.search(r"\d[:.]\d|\d\s*(?:am|pm)|hours?|minutes?|noon", raw, re.I))
    if not has_time:
        value = value.replace(hour=0, minute=0, second=0, microsecond=0)
    return When(value.replace(microsecond=0, tzinfo=now.tzinfo), has_time)
