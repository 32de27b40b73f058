"""A clock's colon is no heading ("at 7:30" is not "…: 30"), a morning after "tomorrow" is
part of the time, a day of next month is one date, and an example's words are the example's
arguments ("Add eggs and bread…" adds both)."""

from __future__ import annotations

import asyncio

from homeagent.intent import IntentLayer


def calls(layer: IntentLayer, text: str) -> list[tuple[str, dict]]:
    found = asyncio.run(layer.route(text, channel=text, tools=layer.registry.definitions()))
    return [(c.name, c.parsed_arguments()) for c in found.calls]


def test_a_clock_colon_is_no_heading(layer: IntentLayer) -> None:
    [(name, args)] = calls(layer, "remind Mom to sign Lily's permission slip tomorrow morning at 7:30")
    assert name == "create_task"
    assert args["due"] == "tomorrow morning at 7:30"
    assert "30" not in args["content"] and "permission slip" in args["content"]


def test_a_day_of_next_month_is_the_due_date(layer: IntentLayer) -> None:
    [(name, args)] = calls(layer, "下个月5号之前给小雨报名夏令营")
    assert name == "create_task" and args["due"] == "下个月5号" and args["content"] == "给小雨报名夏令营"


def test_two_things_to_buy_are_two_items(layer: IntentLayer) -> None:
    found = calls(layer, "Add eggs and bread to the shopping list")
    assert sorted(a["item"] for _, a in found) == ["bread", "eggs"]
