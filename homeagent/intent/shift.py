"""Relative shifts of a record's time: "push it back an hour", "提前半小时", "晚两天", "推迟到下周".

`find_shift(text)` reads the shift a person asks for (signed minutes, days and months)
and what is left of the words once the shift is taken out (the record's name, when the
command names one: "把交电费往后推一天" leaves "交电费"). `apply_shift(value, shift)` moves
a record's stored ISO due/start by it, keeping its form (a day stays a day).

A lead time for a reminder ("提前半小时提醒我", "remind me 30 minutes before") is not a
shift: it is the event's reminder, and `find_shift` leaves it alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from homeagent.actions.dates import add_months
from homeagent.numbers import NUM, parse_number

_EN_WORDS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0,
             "seven": 7.0, "eight": 8.0, "nine": 9.0, "ten": 10.0, "twelve": 12.0, "fifteen": 15.0, "twenty": 20.0,
             "thirty": 30.0, "forty-five": 45.0, "a couple of": 2.0, "a few": 3.0}
_EN_COUNT = "|".join(sorted((re.escape(w) for w in _EN_WORDS), key=len, reverse=True))
_ZH_UNIT = {"分钟": "m", "分": "m", "小时": "h", "钟头": "h", "天": "d", "日": "d", "周": "w", "星期": "w", "礼拜": "w",
            "月": "mo"}
_EN_UNIT = {"min": "m", "minute": "m", "hour": "h", "hr": "h", "day": "d", "week": "w", "month": "mo"}
# 一个小时, 半小时, 一个半小时, 两天, 三周, 一个星期, 两个月, 半天
_ZH_QTY = (rf"(?:(?P<zq>[一二两三])\s*刻钟|(?P<zn>{NUM}|半)?\s*个?\s*(?P<zh>半)?\s*(?P<zu>分钟|小时|钟头|天|日|周|星期|礼拜|个?月)"
           rf"(?P<zt>半)?(?:\s*(?:零|又)?\s*(?P<zm>{NUM})\s*分钟?)?)")
# an hour, 30 minutes, 1.5 hours, half an hour, an hour and a half, two days
_EN_QTY = (rf"(?:(?P<quarter>(?:a\s+)?quarter(?:\s+of)?\s+an?\s+hour|a\s+quarter\s+hour)|(?:(?P<half>half an?)"
           rf"|(?P<en>\d+(?:\.\d+)?|{_EN_COUNT}))\s*(?P<eu>min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?)"
           r"(?P<et>\s+and\s+a\s+half)?(?:\s+and\s+(?P<em>\d+)\s*(?:minutes?|mins?))?)")
_ZH_LATER = r"往后推迟?|向后推迟?|往后挪|向后挪|往后延|往后拖|推迟|延后|延迟|顺延|推后|挪后|拖后|晚"
_ZH_EARLIER = r"往前挪|向前挪|往前推|向前推|往前提|提前|提早|挪前|早"
_ZH_RE = re.compile(rf"(?P<dir>{_ZH_LATER}|{_ZH_EARLIER})\s*了?\s*(?:{_ZH_QTY})")
# 推迟到下周 / 延到下个月: the same day of the week, a week (a month) on.
_ZH_TO_RE = re.compile(r"(?:往后推迟?|向后推迟?|往后挪|推迟|延后|延期|延迟|顺延|推|挪|延|拖)\s*到\s*(?P<to>下下周|下周|下个?星期|下个?礼拜"
                       r"|下个?月)(?![一二三四五六日天末\d])")
_EN_VERB = (r"(?:push(?:ed)?|move[ds]?|bump(?:ed)?|shift(?:ed)?|put|make|set|reschedule[ds]?|delay(?:ed)?|postpone[ds]?"
            r"|slide|bring|do)")
_EN_RE = re.compile(rf"\b(?:by\s+)?(?:{_EN_QTY})\b(?:\s+(?P<after>later|earlier|sooner|back|forward|ahead))?", re.I)
_EN_TO_RE = re.compile(rf"\b{_EN_VERB}\b.*?\b(?:(?:back|off)\s+)?(?:to|until|till)\s+next\s+(?P<to>week|month)\b", re.I)
_EN_LATER = re.compile(r"\b(?:later|back|out|delay(?:ed)?|postpone[ds]?|put off)\b", re.I)
_EN_EARLIER = re.compile(r"\b(?:earlier|sooner|forward|ahead|up)\b", re.I)
_EN_VERB_RE = re.compile(rf"\b{_EN_VERB}\b", re.I)
_REMINDER_RE = re.compile(r"提醒|通知|叫我|\bremind|\bbefore\b|\bin advance\b", re.I)
_LEFT_RE = re.compile(r"\b(?:it|that|this|one|the|my|by|back|forward|ahead|up|out|later|earlier|sooner|off|please|again|too|also"
                      r"|let's|let us|can we|could we|can you|could you|we"
                      r"|another|task|event|appointment|reminder|just)\b|[把将再又也还给帮我它这那个条件吧了呢啊哦下的再]",
                      re.I)


@dataclass(frozen=True)
class Shift:
    """A signed move of a record's time; `rest` is what the words said besides it."""

    minutes: int = 0
    days: int = 0
    months: int = 0
    rest: str = ""

    @property
    def has_time(self) -> bool:
        return self.minutes % (24 * 60) != 0


def _amount(count: float, unit: str) -> tuple[int, int, int]:
    if unit == "m":
        return round(count), 0, 0
    if unit == "h":
        return round(count * 60), 0, 0
    if unit == "d":
        whole = int(count)
        return round((count - whole) * 24 * 60), whole, 0
    if unit == "w":
        return 0, round(count * 7), 0
    return 0, 0, round(count)


def find_shift(text: str) -> Shift | None:
    """The shift `text` asks for, or None (an absolute time, a reminder's lead time)."""
    if _REMINDER_RE.search(text):
        return None
    m = _ZH_TO_RE.search(text)
    if m:
        to = m.group("to")
        minutes, days, months = (0, 14, 0) if to == "下下周" else (0, 0, 1) if to.endswith("月") else (0, 7, 0)
        return Shift(minutes, days, months, _rest(text, m.span()))
    m = _ZH_RE.search(text)
    if m and m.group("zq"):
        sign = -1 if re.fullmatch(_ZH_EARLIER, m.group("dir")) else 1
        return Shift(sign * 15 * int(parse_number(m.group("zq")) or 1), 0, 0, _rest(text, m.span()))
    if m:
        if m.group("zu") in ("分", "日") and not m.group("zn"):
            return None
        count = 0.5 if m.group("zn") == "半" else parse_number(m.group("zn")) if m.group("zn") else 1.0
        if count is None:
            return None
        count += 0.5 if (m.group("zh") or m.group("zt")) and m.group("zn") != "半" else 0.0
        unit = _ZH_UNIT[m.group("zu").lstrip("个")]
        sign = -1 if re.fullmatch(_ZH_EARLIER, m.group("dir")) else 1
        minutes, days, months = _amount(count, unit)
        if m.group("zm") and unit == "h":  # 一个小时二十分钟
            minutes += round(parse_number(m.group("zm")) or 0)
        return Shift(sign * minutes, sign * days, sign * months, _rest(text, m.span()))
    m = _EN_TO_RE.search(text)
    if m:
        minutes, days, months = (0, 7, 0) if m.group("to").casefold() == "week" else (0, 0, 1)
        return Shift(minutes, days, months, _rest(text, m.span("to"), verb=True))
    if not _EN_VERB_RE.search(text):
        return None
    m = _EN_RE.search(text)
    if m is None or re.search(r"\bin\s+$", text[: m.start()], re.I):
        return None  # "in an hour" is a time, not a shift
    outside = text[: m.start()] + " " + (m.group("after") or "") + " " + text[m.end():]
    later, earlier = bool(_EN_LATER.search(outside)), bool(_EN_EARLIER.search(outside))
    if later == earlier:
        return None
    sign = -1 if earlier else 1
    if m.group("quarter"):
        return Shift(sign * 15, 0, 0, _rest(text, m.span(), verb=True))
    count = 0.5 if m.group("half") else _EN_WORDS.get((m.group("en") or "").casefold()) or float(m.group("en"))
    count += 0.5 if m.group("et") else 0.0
    unit = _EN_UNIT[re.sub(r"(?:ute)?s?$", "", m.group("eu").casefold()).replace("minute", "min")]
    minutes, days, months = _amount(count, unit)
    if m.group("em") and unit == "h":  # an hour and 20 minutes
        minutes += int(m.group("em"))
    return Shift(sign * minutes, sign * days, sign * months, _rest(text, m.span(), verb=True))


def _rest(text: str, span: tuple[int, int], *, verb: bool = False) -> str:
    rest = text[: span[0]] + " " + text[span[1]:]
    if verb:
        rest = _EN_VERB_RE.sub(" ", rest)
        rest = re.sub(r"\b(?:to|until|till)\s+next\b", " ", rest, flags=re.I)
    rest = re.sub(r"[，,。.!！?？；;]", " ", rest)
    return re.sub(r"\s+", " ", rest).strip()


def bare(shift: Shift) -> bool:
    """Whether the words name no record of their own ("把它往后推一个小时", "push it back")."""
    return not _LEFT_RE.sub(" ", shift.rest).split()


def name_of(shift: Shift) -> str:
    """The record's words in a command naming it: "把交电费往后推一天" → 交电费."""
    words = re.sub(r"^(?:把|将|给)\s*|\s*(?:那个任务|这个任务|任务|那个日程|日程|那个|这个|的)$", "", shift.rest)
    words = re.sub(r"\b(?:back|forward|ahead|up|out|later|earlier|sooner|off|by|again|please|let's|can we|could we)\b", " ",
                   words, flags=re.I)
    words = re.sub(r"^\s*(?:(?:the|my|our)\s+)+|\s+(?:task|event|one)\s*$", "", words.strip(), flags=re.I)
    return words.strip(" ，,。.")


def apply_shift(value: str, shift: Shift) -> str | None:
    """A stored ISO date or datetime moved by `shift`, in the words the actions read;
    None when it cannot be (an hour on an all-day record)."""
    value = value.strip()
    try:
        if "T" in value or " " in value:
            when = datetime.fromisoformat(value)
            moved = when + timedelta(days=shift.days, minutes=shift.minutes)
            if shift.months:
                day = add_months(moved.date(), shift.months)
                moved = moved.replace(year=day.year, month=day.month, day=day.day)
            return moved.strftime("%Y-%m-%d %H:%M")
        day = date.fromisoformat(value[:10])
    except ValueError:
        return None
    if shift.has_time:
        return None
    day = add_months(day + timedelta(days=shift.days + shift.minutes // (24 * 60)), shift.months)
    return day.isoformat()
