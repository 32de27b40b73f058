"""Recurrences read from Chinese and English words, stored, shown and stepped."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.actions.repeat import RepeatError, find_repeat, parse_repeat

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday


@pytest.mark.parametrize(
    ("text", "phrase", "code", "first"),
    [
        ("每个工作日早上七点提醒我吃药", "每个工作日早上七点", "weekdays@07:00", "2026-03-05T07:00"),
        ("每天早上7点提醒我跑步", "每天早上7点", "daily@07:00", "2026-03-05T07:00"),
        ("每周一开周会", "每周一", "weekly:1", "2026-03-09"),
        ("每月1号交房租", "每月1号", "monthly:1", "2026-04-01"),
        ("每周一三五晚上8点健身", "每周一三五晚上8点", "weekly:1,3,5@20:00", "2026-03-04T20:00"),
        ("每隔一天浇花", "每隔一天", "days:2", "2026-03-05"),
        ("每个月底交报告", "每个月底", "monthly:31", "2026-03-31"),
        ("every weekday remind me to stretch", "every weekday", "weekdays", "2026-03-05"),
        ("every Monday at 8 team sync", "every Monday at 8", "weekly:1@08:00", "2026-03-09T08:00"),
        ("every other day water the plants", "every other day", "days:2", "2026-03-05"),
        ("remind me every day at 9pm to floss", "every day at 9pm", "daily@21:00", "2026-03-04T21:00"),
        ("pay rent on the 1st of every month", "on the 1st of every month", "monthly:1", "2026-04-01"),
    ],
)
def test_a_recurrence_is_found_with_its_time_and_steps_to_its_first_occurrence(text, phrase, code, first) -> None:
    found = find_repeat(text)
    assert found is not None
    rule, (a, b) = found
    assert text[a:b].strip() == phrase
    assert rule.code() == code
    moment = rule.first(NOW)
    assert (moment.strftime("%Y-%m-%dT%H:%M") if rule.at else moment.date().isoformat()) == first
    assert parse_repeat(code) == rule  # the stored form reads back


@pytest.mark.parametrize("text", ["明天下午3点开会", "the meeting on Monday", "this weekend", "下周三交报告"])
def test_a_one_off_time_is_not_a_recurrence(text) -> None:
    assert find_repeat(text) is None


def test_weekdays_skip_the_weekend_and_every_other_day_keeps_its_phase() -> None:
    weekdays = parse_repeat("每个工作日早上7点")
    friday = datetime(2026, 3, 6, 7, 0, tzinfo=NOW.tzinfo)
    assert weekdays.next_after(friday) == datetime(2026, 3, 9, 7, 0, tzinfo=NOW.tzinfo)
    other = parse_repeat("every other day")
    assert other.next_after(NOW, date(2026, 3, 3)).date() == date(2026, 3, 5)
    assert other.next_after(datetime(2026, 3, 5, 12, 0, tzinfo=NOW.tzinfo), date(2026, 3, 3)).date() == date(2026, 3, 7)
    month_end = parse_repeat("monthly:31")
    assert month_end.next_after(datetime(2026, 3, 31, 12, 0, tzinfo=NOW.tzinfo)).date() == date(2026, 4, 30)


def test_shown_in_the_users_language_and_bad_words_name_the_forms() -> None:
    rule = parse_repeat("weekdays@07:00")
    assert rule.show("zh") == "每个工作日 07:00" and rule.show("en") == "every weekday at 07:00"
    assert parse_repeat("weekly:1@08:00").show("en") == "every Monday at 08:00"
    with pytest.raises(RepeatError, match="every weekday"):
        parse_repeat("whenever I feel like it")


@pytest.mark.parametrize(("text", "code"), [
    ("on Mondays, Wednesdays and Fridays", "weekly:1,3,5"),
    ("on Tuesdays and Fridays", "weekly:2,5"),
    ("every Monday, Wednesday, and Friday", "weekly:1,3,5"),
    ("on Sundays", "weekly:7"),
])
def test_several_weekdays_said_in_a_list_are_all_kept(text: str, code: str) -> None:
    assert parse_repeat(text).code() == code
    found = find_repeat(f"piano practice {text}")
    assert found is not None and found[0].code() == code


@pytest.mark.parametrize(("text", "phrase", "code"), [
    ("pay the rent on the first of every month", "on the first of every month", "monthly:1"),
    ("water the orchid on the fifteenth of every month", "on the fifteenth of every month", "monthly:15"),
    ("take the bins out every Tuesday night", "every Tuesday night", "weekly:2@20:00"),
    ("yoga every Saturday morning", "every Saturday morning", "weekly:6@08:00"),
])
def test_an_ordinal_day_of_the_month_and_a_weekday_s_part_of_the_day(text: str, phrase: str, code: str) -> None:
    found = find_repeat(text)
    assert found is not None
    rule, (a, b) = found
    assert (rule.code(), text[a:b]) == (code, phrase)
