"""Slot filling on forms households used in the development sets (blind 7-9): each case was
wrong before its rule. The layer is trained as the daemon trains it; nothing is run."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A lunar birthday by the calendar's own names; the name's characters stay the name's.
    ("添加生日：我妈腊月初八", "add_birthday", {"person": "我妈", "date": "腊月初八"}),
    ("添加生日：我妈农历八月十五", "add_birthday", {"person": "我妈", "date": "农历八月十五", "lunar": True}),
    ("外婆过农历生日，冬月廿三", "add_birthday", {"person": "外婆", "date": "冬月廿三", "lunar": True}),
    # A year said with the day stays with the day, not the name.
    ("老公 1988年11月3日生日", "add_birthday", {"person": "老公", "date": "1988年11月3日"}),
    ("新建倒计时：宝宝预产期2026年8月12日", "create_countdown", {"title": "宝宝预产期", "date": "2026年8月12日"}),
])
def test_dates_said_the_household_way(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args
