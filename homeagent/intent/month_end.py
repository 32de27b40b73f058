"""A month's end said in words ("6月底", "the end of April") as that month's last day: read
by the slot filler and by `tidy`: a module of its own, since the slot filler may not import
`tidy` (tidy's last pass, `objects`, reads the slot filler)."""

from __future__ import annotations

import re
from datetime import date, datetime

MONTH_END_RE = re.compile(r"(?P<m>\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?:底|末)|(?:by\s+)?(?:the\s+)?end\s+of\s+(?P<en>"
                           r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?"
                           r"|nov(?:ember)?|dec(?:ember)?)", re.I)
_EN_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ZH_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11, "十二": 12}


def month_end(said: str, now: datetime) -> str | None:
    """"6月底" / "the end of April" → that month's last day (ISO), this year or, once past, next;
    the date words themselves read only 月底 (this month's)."""
    m = MONTH_END_RE.search(said)
    if m is None or m.group(0).strip() != said.strip() and not re.fullmatch(r"\s*(?:by\s+)?" + re.escape(m.group(0).strip())
                                                                            + r"\s*(?:前|之前|以前)?\s*", said):
        return None
    if m.group("en"):
        month = _EN_MONTHS.index(m.group("en")[:3].casefold()) + 1
    else:
        raw = m.group("m")
        month = int(raw) if raw.isdigit() else _ZH_DIGITS.get(raw, 0)
    if not 1 <= month <= 12:
        return None
    year = now.year if month >= now.month else now.year + 1
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return date.fromordinal(nxt.toordinal() - 1).isoformat()
