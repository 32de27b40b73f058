"""What a follow-up to a listing points at: "把第二个删了", "the last one's done", "第三个是
什么来着" name a row of what the last turn showed; "那昨天呢", "and last week?" ask the same
question of another period; "下一页", "show me more" the rows after it.

A listing is remembered for the next turn only (and for the turn after a row was picked
from it): the rows shown are what "the second one" means, never the record numbered 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from homeagent.numbers import parse_number


@dataclass(frozen=True)
class Listing:
    action: str
    args: dict[str, Any]
    ids: tuple[int, ...]
    lines: tuple[str, ...]  # each row as the listing said it
    rows: tuple[dict[str, Any], ...] = field(default=())
    offset: int = 0


def listing_of(name: str, args: Mapping[str, Any], content: str, data: Any) -> Listing | None:
    """The listing a read action's result showed (its rows carry ids; none found is a
    listing too: "那上周呢" asks the same of another period); a chart's rows ride along."""
    if isinstance(data, Mapping) and isinstance(data.get("rows"), list):
        data = data["rows"]
    if not isinstance(data, list) or not all(isinstance(r, Mapping) and isinstance(r.get("id"), int)
                                                         for r in data):
        return None
    lines = tuple(line[2:].strip() for line in content.splitlines() if line.startswith("- "))
    offset = args.get("offset")
    return Listing(name, dict(args), tuple(int(r["id"]) for r in data), lines if len(lines) == len(data) else (),
                   tuple(dict(r) for r in data), offset if isinstance(offset, int) else 0)


_ZH_ORDINAL = r"第\s*(?P<zh>[一二两三四五六七八九十]{1,3}|\d{1,2})\s*(?:个|条|项|件|笔|本|样|位)(?!次|天|周|月|年)"
_EN_WORDS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}
_EN_ORDINAL = (r"\b(?:the\s+|that\s+)?(?P<en>" + "|".join(_EN_WORDS) + r"|last)\s*(?:one|item|entry|task|row)\b"
               r"|\bthe\s+(?P<en2>" + "|".join(_EN_WORDS) + r"|last)\s*$")
ORDINAL_RE = re.compile(rf"{_ZH_ORDINAL}|(?P<last>最后(?:一个|一条|一项|那个|那条|一件))|{_EN_ORDINAL}", re.I)
_AGAIN_ZH_RE = re.compile(r"^(?:那|那么|还有)\s*(?P<rest>[^，,。!！]{1,14}?)\s*(?:的呢|呢|的)?\s*[？?]*$|"
                          r"^(?P<rest2>[^，,。!！]{1,14}?)\s*(?:的呢|呢)\s*[？?]*$")
_AGAIN_EN_RE = re.compile(r"^(?:and|what about|how about)\s+(?P<rest>[^?!.]{1,40}?)\s*[?？.]*$", re.I)
NEXT_PAGE_RE = re.compile(r"^(?:再)?(?:下一页|后面的?|往后翻|再来几条|还有呢|更多|继续)[吧呢啊]?[？?。!！]*$|"
                          r"^(?:(?:show|give)\s+(?:me\s+)?)?(?:the\s+)?(?:next page|more|the rest|next ones)\s*(?:please)?[?.!]*$",
                          re.I)


def ordinal(text: str) -> int | None:
    """The row a follow-up names, 1-based; -1 for the last one."""
    m = ORDINAL_RE.search(text)
    if m is None:
        return None
    if m.group("last") or (m.group("en") or m.group("en2") or "").casefold() == "last":
        return -1
    if m.group("zh"):
        number = parse_number(m.group("zh"))
        return int(number) if number is not None and number >= 1 else None
    word = (m.group("en") or m.group("en2") or "").casefold()
    return _EN_WORDS.get(word)


def row_of(listing: Listing, which: int) -> int | None:
    """The index into the listing of row `which` (1-based; -1 the last), if shown."""
    if which == -1:
        return len(listing.ids) - 1
    return which - 1 if 0 < which <= len(listing.ids) else None


# A row named by its words: "the one about the raffle", "the prom one", "周报那个", "交电费那条".
_NAMED_EN_RE = re.compile(
    r"\bthe\s+ones?\s+(?:about|for|with|called|named|from|on)\s+(?:the\s+|my\s+|a\s+)?(?P<a>[^,.;!?]{2,40}?)\s*(?=[,.;!?]|$)"
    r"|\bthe\s+(?P<b>(?!(?:other|same|next|new|old|previous|last|first|second|third|right|wrong)\b)[\w'’&-]+"
    r"(?:\s+[\w'’&-]+){0,3}?)\s+one\b", re.I)
_NAMED_ZH_RE = re.compile(r"(?P<c>[\u4e00-\u9fffA-Za-z0-9]{2,12}?)(?:的)?(?:那个|这个|那条|这条|那项|那件|那笔)")
_NAMED_LEAD_ZH = re.compile(r"^(?:还有|另外|然后|把|就|也|再|是|给|将|不是这个|不对)+")


def named_words(text: str) -> str | None:
    """The words a follow-up names a record by: "the prom one", "the one about the raffle",
    "周报那个"; None when it names none."""
    m = _NAMED_EN_RE.search(text)
    said = (m.group("a") or m.group("b")) if m else None
    if said is None and (zh := _NAMED_ZH_RE.search(text)) is not None:
        said = _NAMED_LEAD_ZH.sub("", zh.group("c"))
    return said.strip() if said and len(said.strip()) >= 2 else None


def named_row(listing: Listing, said: str) -> int | None:
    """The index of the one listed row that has every word of `said` (what `named_words` read
    of "delete the prom one" after the countdowns were shown), or None when no row, or more
    than one, has them."""
    words = said.casefold().split()
    hits = [k for k, row in enumerate(listing.rows)
            if all(any(w in str(v).casefold() for v in row.values() if isinstance(v, str)) for w in words)]
    return hits[0] if len(hits) == 1 else None


def asked_again(text: str) -> str | None:
    """The new words of "那昨天呢" / "and last week?": what the same question now asks about."""
    m = _AGAIN_ZH_RE.match(text.strip()) or _AGAIN_EN_RE.match(text.strip())
    return (m.group("rest") or m.groupdict().get("rest2") or "").strip() or None if m else None


def again_args(listing: Listing, new: Mapping[str, Any], when_keys: Sequence[str]) -> dict[str, Any]:
    """The listing's filters with what the follow-up says in their place: a new period
    replaces the old one whole."""
    args = {k: v for k, v in listing.args.items() if k != "offset"}
    if any(k in when_keys for k in new):
        args = {k: v for k, v in args.items() if k not in when_keys}
    return {**args, **new}
