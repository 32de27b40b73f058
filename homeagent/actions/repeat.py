"""Recurrences: "每个工作日早上7点", "每周一", "每月1号", "every Monday at 8", "every other day".

`find_repeat(text)` finds a recurrence in free words (Chinese or English) and returns it
with the span it covers, so the intent layer's slot filler can take it out of the
object phrase; `parse_repeat(value)` reads an action's `repeat` argument, in the user's
words or in the stored form. A `Repeat` is stored as a short canonical text
(`Repeat.code()`: "weekdays@07:00", "weekly:1,3@08:00", "monthly:1", "days:2") in the
`repeat` column of tasks and events (migration 22), shown in the user's language by
`Repeat.show(lang)`, and `Repeat.next_after(moment, anchor)` gives the next occurrence,
which the scheduler and `complete_task` move a repeating record to.

Ground floor of the actions: imports only `dates` and `numbers`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal

from homeagent.actions.dates import clock_time, month_end
from homeagent.numbers import NUM, parse_number

Kind = Literal["daily", "weekdays", "weekly", "monthly", "days"]
_WD_ZH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_WD_EN = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
_WD_NAMES_ZH = "一二三四五六日"
_WD_NAMES_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EN_COUNT = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


class RepeatError(ValueError):
    """A recurrence that could not be read; the message lists the accepted forms."""


REPEAT_HINT = ("use words such as 每天、每个工作日、每周一、每月1号、每隔一天, every day, every weekday, "
               "every Monday at 8, monthly on the 1st, every other day")


@dataclass(frozen=True)
class Repeat:
    kind: Kind
    values: tuple[int, ...] = ()  # weekly: ISO weekdays 1-7; monthly: days of the month; days: (n,)
    at: time | None = None  # the time of day, when the recurrence names one

    def code(self) -> str:
        """The stored form, read back by `parse_repeat`."""
        head = self.kind + (":" + ",".join(map(str, self.values)) if self.values else "")
        return head + (f"@{self.at.strftime('%H:%M')}" if self.at else "")

    def show(self, lang: str = "zh") -> str:
        at = self.at.strftime("%H:%M") if self.at else ""
        n = self.values[0] if self.values else 1
        if lang == "zh":
            text = {"daily": "每天", "weekdays": "每个工作日"}.get(self.kind, "")
            if self.kind == "weekly":
                text = "每周" + "、".join(_WD_NAMES_ZH[v - 1] for v in self.values)
            elif self.kind == "monthly":
                text = "每月底" if self.values == (31,) else "每月" + "、".join(f"{v}号" for v in self.values)
            elif self.kind == "days":
                text = f"每隔{n - 1}天" if n > 1 else "每天"
            return f"{text} {at}" if at else text
        text = {"daily": "every day", "weekdays": "every weekday"}.get(self.kind, "")
        if self.kind == "weekly":
            text = "every " + (" and ".join(_WD_NAMES_EN[v - 1] for v in self.values) or "week")
        elif self.kind == "monthly":
            text = "every month" + (" on day " + ", ".join(str(v) for v in self.values) if self.values else "")
            text = "at the end of every month" if self.values == (31,) else text
        elif self.kind == "days":
            text = "every other day" if n == 2 else f"every {n} days"
        return f"{text} at {at}" if at else text

    def _matches(self, day: date, anchor: date) -> bool:
        if self.kind == "daily":
            return True
        if self.kind == "weekdays":
            return day.isoweekday() <= 5
        if self.kind == "weekly":
            return day.isoweekday() in (self.values or (anchor.isoweekday(),))
        if self.kind == "monthly":
            wanted = self.values or (anchor.day,)
            last = month_end(day).day
            return any(day.day == min(v, last) for v in wanted)
        step = self.values[0] if self.values else 1
        return (day - anchor).days % step == 0

    def next_after(self, moment: datetime, anchor: datetime | date | None = None) -> datetime:
        """The first occurrence strictly after `moment`. `anchor` (the record's current
        due) gives the time of day when the rule has none, and the phase of "every other
        day" and the weekday of a bare "weekly"."""
        at = self.at
        if at is None and isinstance(anchor, datetime):
            at = anchor.timetz().replace(tzinfo=None)
        base = anchor.date() if isinstance(anchor, datetime) else anchor or moment.date()
        day = moment.date()
        for _ in range(400):
            if self._matches(day, base) and (day >= base or self.kind != "days"):
                candidate = datetime.combine(day, at or time(0), moment.tzinfo)
                if (at is not None and candidate > moment) or (at is None and day > moment.date()):
                    return candidate
            day += timedelta(days=1)
        raise RepeatError("no occurrence within a year")  # unreachable for the kinds above

    def first(self, now: datetime) -> datetime:
        """The first occurrence after `now` of a record that has no due yet."""
        if self.kind == "days":  # "every other day" starts with the next one
            return Repeat("daily", (), self.at).next_after(now)
        return self.next_after(now)

    def has_time(self, anchor_has_time: bool = False) -> bool:
        return self.at is not None or anchor_has_time


_ZH_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:每个?|所有)?工作日(?:每天)?|(?:每)?周一(?:到|至)周五(?:每天)?"), "weekdays"),
    (re.compile(rf"每隔\s*({NUM})\s*天|每\s*([2-9]|[两二三四五六七八九十])\s*天|隔天"), "days"),
    (re.compile(r"每一?天|每日|天天|每个?早上|每个?晚上|每晚"), "daily"),
    (re.compile(r"每个?(?:周|星期|礼拜)末"), "weekend"),
    (re.compile(r"每个?(?:周|星期|礼拜)\s*([一二三四五六日天](?:\s*[、和,，及与]?\s*(?:周|星期)?[一二三四五六日天])*)?"), "weekly"),
    (re.compile(rf"每个?月\s*(?:的)?\s*(?:({NUM})\s*[号日]|(底|末|最后一天))?"), "monthly"),
)
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                "tenth": 10, "eleventh": 11, "twelfth": 12, "fifteenth": 15, "twentieth": 20, "twenty-fifth": 25, "thirtieth": 30}
_ORDINAL_WORDS = "|".join(sorted(_ORDINALS_EN, key=len, reverse=True))
_EN_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_EN_PLURAL = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days"  # "on Mondays": every Monday
_EN_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:every|each)\s+(?:week\s*day|weekday|workday|working day|business day)s?\b|\bon weekdays\b|"
                r"\bweekdays\b|\bmonday (?:to|through|thru) friday\b", re.I), "weekdays"),
    (re.compile(r"\bevery (?:other|second) day\b|\bevery (\d+|two|three|four|five|six|seven|ten) days\b", re.I), "days"),
    (re.compile(r"\bevery other week\b", re.I), "fortnight"),
    (re.compile(r"\b(?:every|each) (?:day|morning|evening|night)\b|\bdaily\b|\bnightly\b", re.I), "daily"),
    (re.compile(r"\b(?:every weekend|on weekends)\b", re.I), "weekend"),
    (re.compile(rf"\b(?:every|each)\s+({_EN_WD}(?:\s*(?:,\s*and|,|and|&)\s*{_EN_WD})*)"
                rf"|\bon\s+({_EN_PLURAL}(?:\s*(?:,\s*and|,|and|&)\s*{_EN_PLURAL})*)\b"
                rf"|\bweekly(?: on ({_EN_WD}))?"
                rf"|\bevery week(?: on ({_EN_WD}))?", re.I), "weekly"),
    (re.compile(rf"\b(?:on the (\d{{1,2}}|{_ORDINAL_WORDS})(?:st|nd|rd|th)? (?:day )?of )?every month(?: on the (\d{{1,2}})(?:st|nd|rd|th)?)?"
                r"|\bmonthly(?: on the (\d{1,2})(?:st|nd|rd|th)?)?|\bat the end of every month\b", re.I), "monthly"),
)
_ZH_TIME = re.compile(rf"^\s*(?:的)?\s*((?:凌晨|早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里)\s*(?:{NUM}\s*[点點时:：]"
                      rf"\s*(?:半|一刻|三刻|{NUM}\s*分?)?)?|{NUM}\s*[点點时:：]\s*(?:半|一刻|三刻|{NUM}\s*分?)?)")
_EN_TIME = re.compile(r"^\s*,?\s*(?:at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?|\d{1,2}(?::\d{2})?\s*(?:am|pm)"
                      r"|at noon|in the (?:morning|evening)|(?:morning|afternoon|evening|night)s?)\b", re.I)
_EN_TIME_BEFORE = re.compile(r"(?:at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?|\d{1,2}(?::\d{2})?\s*(?:am|pm))\s*$", re.I)
_ZH_TIME_BEFORE = re.compile(rf"(?:(?:早上|早晨|上午|中午|下午|傍晚|晚上)\s*)?{NUM}\s*[点點]\s*(?:半|{NUM}\s*分?)?\s*$")


def _count(text: str | None) -> int | None:
    if not text:
        return None
    if text.casefold() in _EN_COUNT:
        return _EN_COUNT[text.casefold()]
    if text.casefold() in _ORDINALS_EN:  # "on the first of every month"
        return _ORDINALS_EN[text.casefold()]
    value = parse_number(text)
    return int(value) if value else None


def _time(phrase: str) -> time | None:
    """The time of day in `phrase` as the recurrence means it: "at 8" is 08:00 here
    (a daily routine), 晚上8点 is 20:00."""
    low = phrase.casefold().strip()
    m = re.fullmatch(r",?\s*at\s+(\d{1,2})", low)
    if m and int(m.group(1)) < 24:
        return time(int(m.group(1)), 0)
    return clock_time(low)


def _rule(kind: str, m: re.Match[str], at: time | None) -> Repeat | None:
    groups = [g for g in m.groups() if g]
    if kind == "weekend":
        return Repeat("weekly", (6, 7), at)
    if kind == "fortnight":
        return Repeat("days", (14,), at)
    if kind == "days":
        n = _count(groups[0]) if groups else 2
        if n is not None and "隔" in m.group(0) and groups:
            n += 1  # 每隔一天: every other day
        return Repeat("days", (n or 2,), at) if (n or 2) > 1 else Repeat("daily", (), at)
    if kind == "weekly":
        if not groups:
            return Repeat("weekly", (), at)
        text = groups[0].casefold()
        days = sorted({_WD_ZH[ch] for ch in text if ch in _WD_ZH} | {v for k, v in _WD_EN.items() if k in text})
        return Repeat("weekly", tuple(days), at)
    if kind == "monthly":
        if "底" in m.group(0) or "末" in m.group(0) or "最后" in m.group(0) or "end of" in m.group(0):
            return Repeat("monthly", (31,), at)
        n = _count(groups[0]) if groups else None
        if n is not None and not 1 <= n <= 31:
            return None
        return Repeat("monthly", (n,) if n else (), at)
    return Repeat(kind, (), at)  # type: ignore[arg-type]


def find_repeat(text: str) -> tuple[Repeat, tuple[int, int]] | None:
    """A recurrence in free words, with the span it covers (its time of day included)."""
    for rules, time_re, before_re in ((_ZH_RULES, _ZH_TIME, _ZH_TIME_BEFORE), (_EN_RULES, _EN_TIME, _EN_TIME_BEFORE)):
        for rx, kind in rules:
            m = rx.search(text)
            if m is None or not m.group(0).strip():
                continue
            start, end = m.span()
            at = None
            after = time_re.match(text[end:])
            if after and after.group(0).strip():
                at = _time(after.group(0))
                end += after.end()
            else:
                before = before_re.search(text[:start])
                if before and before.group(0).strip():
                    at = _time(before.group(0))
                    start = before.start()
            if kind == "daily" and at is None:
                part = re.search(r"早上|早晨|晚上|morning|evening|night", m.group(0), re.I)
                at = clock_time(part.group(0).casefold()) if part else None
            rule = _rule(kind, m, at)
            if rule is not None:
                return rule, (start, end)
    return None


def show_repeat(code: str, lang: str = "zh") -> str:
    """A stored recurrence as a list shows it: 重复：每个工作日 07:00 / repeats every weekday at 07:00."""
    try:
        shown = parse_repeat(code).show(lang)
    except RepeatError:
        shown = code
    return f"重复：{shown}" if lang == "zh" else f"repeats {shown}"


_CODE_RE = re.compile(r"(daily|weekdays|weekly|monthly|days)(?::([\d,]+))?(?:@(\d{2}):(\d{2}))?")


def parse_repeat(value: str) -> Repeat:
    """An action's `repeat` argument: the stored form or the user's words."""
    raw = str(value).strip()
    m = _CODE_RE.fullmatch(raw)
    if m:
        values = tuple(int(v) for v in m.group(2).split(",")) if m.group(2) else ()
        at = time(int(m.group(3)), int(m.group(4))) if m.group(3) else None
        return Repeat(m.group(1), values, at)  # type: ignore[arg-type]
    found = find_repeat(raw)
    if found is None:
        found = find_repeat(("每" if re.match(r"[周月天]", raw) else "every ") + raw)
    if found is None:
        raise RepeatError(f"cannot read the recurrence {raw!r}; {REPEAT_HINT}")
    return found[0]


__all__ = ["REPEAT_HINT", "Repeat", "RepeatError", "find_repeat", "parse_repeat", "show_repeat"]
