"""homeagent.actions.dates and money: what people say, resolved exactly (numbers: test_numbers.py)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from homeagent.actions.dates import DateError, day_range, parse_when, period_end
from homeagent.actions.money import Money, MoneyError, parse_money

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 4, 10, 0, tzinfo=TZ)  # Wednesday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("今天", "2026-03-04"),
        ("明天", "2026-03-05"),
        ("后天", "2026-03-06"),
        ("大后天", "2026-03-07"),
        ("下周五", "2026-03-13"),
        ("周五", "2026-03-06"),
        ("本周一", "2026-03-02"),
        ("上周三", "2026-02-25"),
        ("周五下午3点", "2026-03-06T15:00:00+08:00"),
        ("昨晚", "2026-03-03T20:00:00+08:00"),
        ("明天下班前", "2026-03-05T18:00:00+08:00"),
        ("明早7点半", "2026-03-05T07:30:00+08:00"),
        ("后天晚上7点", "2026-03-06T19:00:00+08:00"),
        ("下周一上午十点", "2026-03-09T10:00:00+08:00"),
        ("3天后", "2026-03-07"),
        ("两小时后", "2026-03-04T12:00:00+08:00"),
        ("3月10日", "2026-03-10"),
        ("5月20号", "2026-05-20"),
        ("20号", "2026-03-20"),
        ("2026年5月20日", "2026-05-20"),
        ("月底", "2026-03-31"),
        ("tomorrow 5pm", "2026-03-05T17:00:00+08:00"),
        ("next Monday", "2026-03-09"),
        ("next friday", "2026-03-13"),
        ("Friday 3pm", "2026-03-06T15:00:00+08:00"),
        ("tomorrow at 5", "2026-03-05T17:00:00+08:00"),
        ("tomorrow afternoon", "2026-03-05T15:00:00+08:00"),
        ("in 3 days", "2026-03-07"),
        ("in 2 hours", "2026-03-04T12:00:00+08:00"),
        ("2 days ago", "2026-03-02"),
        ("last night", "2026-03-03T20:00:00+08:00"),
        ("March 3rd 2027", "2027-03-03"),
        ("July 20", "2026-07-20"),
        ("2026-03-10", "2026-03-10"),
        ("2026-03-10 15:00", "2026-03-10T15:00:00+08:00"),
        ("2026-03-05T07:00:00Z", "2026-03-05T15:00:00+08:00"),
        ("15:30", "2026-03-04T15:30:00+08:00"),
    ],
)
def test_relative_and_absolute_forms(text: str, expected: str) -> None:
    assert parse_when(text, NOW).iso() == expected


def test_a_passed_time_today_means_tomorrow_for_the_future_and_today_for_the_past() -> None:
    assert parse_when("早上8点", NOW).iso() == "2026-03-05T08:00:00+08:00"
    assert parse_when("早上8点", NOW, prefer="past").iso() == "2026-03-04T08:00:00+08:00"
    assert parse_when("周五", NOW, prefer="past").day == date(2026, 2, 27)


def test_timezone_of_the_clock_is_used() -> None:
    london = datetime(2026, 3, 4, 23, 30, tzinfo=ZoneInfo("Europe/London"))
    assert parse_when("明天", london).day == date(2026, 3, 5)
    assert parse_when("tomorrow 9am", london).iso() == "2026-03-05T09:00:00+00:00"


@pytest.mark.parametrize("text", ["下下下周八", "foo bar", "2月30日", "", "星期八"])
def test_unreadable_dates_name_the_accepted_forms(text: str) -> None:
    with pytest.raises(DateError) as err:
        parse_when(text, NOW)
    assert "YYYY-MM-DD" in str(err.value) and "明天" in str(err.value)


def test_day_ranges() -> None:
    assert day_range("本周", NOW) == (date(2026, 3, 2), date(2026, 3, 8))
    assert day_range("last week", NOW) == (date(2026, 2, 23), date(2026, 3, 1))
    assert day_range("上个月", NOW) == (date(2026, 2, 1), date(2026, 2, 28))
    assert day_range("最近7天", NOW) == (date(2026, 2, 26), date(2026, 3, 4))
    assert day_range("this month", NOW) == (date(2026, 3, 1), date(2026, 3, 31))
    assert day_range("昨天", NOW) == (date(2026, 3, 3), date(2026, 3, 3))


def test_weekends_and_a_period_said_with_de() -> None:
    # Saturday and Sunday of this, next and last week; "下周的" is next week.
    assert day_range("这周末", NOW) == (date(2026, 3, 7), date(2026, 3, 8))
    assert day_range("this weekend", NOW) == (date(2026, 3, 7), date(2026, 3, 8))
    assert day_range("next weekend", NOW) == (date(2026, 3, 14), date(2026, 3, 15))
    assert day_range("上周末", NOW) == (date(2026, 2, 28), date(2026, 3, 1))
    assert day_range("下周的", NOW) == (date(2026, 3, 9), date(2026, 3, 15))
    assert day_range("上个月的", NOW) == (date(2026, 2, 1), date(2026, 2, 28))


@pytest.mark.parametrize(
    ("value", "minor", "currency"),
    [
        (35, 3500, "CNY"), (35.5, 3550, "CNY"), ("35", 3500, "CNY"), ("35块", 3500, "CNY"),
        ("35块5", 3550, "CNY"), ("三十五元", 3500, "CNY"), ("一百二十块", 12000, "CNY"),
        ("五块五毛", 550, "CNY"), ("¥12.30", 1230, "CNY"), ("$4.99", 499, "USD"),
        ("12 dollars", 1200, "USD"), ("€3", 300, "EUR"), ("8 EUR", 800, "EUR"),
        ("1,200元", 120000, "CNY"), ("1000 JPY", 1000, "JPY"), (0.1, 10, "CNY"), ("50 quid", 5000, "GBP"),
    ],
)
def test_money_in_minor_units(value: object, minor: int, currency: str) -> None:
    assert parse_money(value, "CNY") == Money(minor, currency)


def test_explicit_currency_wins_and_formats() -> None:
    assert parse_money(15, "CNY", "usd") == Money(1500, "USD")
    assert parse_money("15", "CNY", "美元").format() == "$15.00"
    assert Money(123456, "CNY").format() == "¥1,234.56"
    assert Money(1000, "JPY").format() == "1,000 JPY"


@pytest.mark.parametrize("value", ["abc", "", None, True])
def test_bad_amounts_say_the_format(value: object) -> None:
    with pytest.raises(MoneyError) as err:
        parse_money(value, "CNY")
    assert "35" in str(err.value)


def test_unknown_currency() -> None:
    with pytest.raises(MoneyError):
        parse_money(5, "CNY", "dollarz")


def test_a_bare_chinese_hour_up_to_five_is_the_afternoon() -> None:
    # as "at 4" is: at 10:00, "4点提醒我" is 16:00 today, not 04:00 tomorrow
    assert parse_when("4点", NOW).value == datetime(2026, 3, 4, 16, 0, tzinfo=TZ)
    assert parse_when("3点半", NOW).value == datetime(2026, 3, 4, 15, 30, tzinfo=TZ)
    assert parse_when("明天4点", NOW).value == datetime(2026, 3, 5, 16, 0, tzinfo=TZ)
    # said with its part of the day, or 6 and later, it is as said
    assert parse_when("凌晨4点", NOW).value == datetime(2026, 3, 5, 4, 0, tzinfo=TZ)
    assert parse_when("6点", NOW).value == datetime(2026, 3, 5, 6, 0, tzinfo=TZ)
    assert parse_when("早上8点", NOW, prefer="past").value == datetime(2026, 3, 4, 8, 0, tzinfo=TZ)


def test_a_day_of_next_month() -> None:
    assert parse_when("下个月5号", NOW).day == date(2026, 4, 5)
    assert parse_when("下月20号", NOW).day == date(2026, 4, 20)
    with pytest.raises(DateError):
        parse_when("下个月31号", NOW)  # April has 30 days


@pytest.mark.parametrize(("said", "expected"), [
    ("the 12th", datetime(2026, 3, 12, 0, 0, tzinfo=TZ)),  # (once read as December)
    ("on the 12th at 9am", datetime(2026, 3, 12, 9, 0, tzinfo=TZ)),
    ("the 27th at 2pm", datetime(2026, 3, 27, 14, 0, tzinfo=TZ)),
    ("Saturday the 14th at 3pm", datetime(2026, 3, 14, 15, 0, tzinfo=TZ)),
    ("the 2nd", datetime(2026, 4, 2, 0, 0, tzinfo=TZ)),  # passed this month: next month's
])
def test_a_day_of_the_month_said_in_english(said: str, expected: datetime) -> None:
    assert parse_when(said, NOW).value == expected


@pytest.mark.parametrize(("said", "prefer", "expected"), [
    ("今晚12点", "future", datetime(2026, 3, 4, 23, 59, tzinfo=TZ)),  # midnight, as "midnight" is
    ("晚上12点", "past", datetime(2026, 3, 3, 23, 59, tzinfo=TZ)),
    ("凌晨12点半", "past", datetime(2026, 3, 4, 0, 30, tzinfo=TZ)),
    ("晚上12点半", "past", datetime(2026, 3, 4, 0, 30, tzinfo=TZ)),
    ("中午12点", "future", datetime(2026, 3, 4, 12, 0, tzinfo=TZ)),
])
def test_twelve_at_night_is_midnight_not_noon(said: str, prefer: str, expected: datetime) -> None:
    assert parse_when(said, NOW, prefer=prefer).value == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "first", "last"), [
    ("这礼拜", date(2026, 3, 2), date(2026, 3, 8)),
    ("上个礼拜", date(2026, 2, 23), date(2026, 3, 1)),
    ("这两天", date(2026, 3, 3), date(2026, 3, 4)),
    ("最近一周", date(2026, 2, 26), date(2026, 3, 4)),
    ("the past week", date(2026, 2, 26), date(2026, 3, 4)),
    ("the last two weeks", date(2026, 2, 19), date(2026, 3, 4)),
    ("最近两个月", date(2026, 1, 4), date(2026, 3, 4)),
    ("the rest of the month", date(2026, 3, 4), date(2026, 3, 31)),
    ("这个月剩下的", date(2026, 3, 4), date(2026, 3, 31)),
    ("for February", date(2026, 2, 1), date(2026, 2, 28)),
    ("2月份", date(2026, 2, 1), date(2026, 2, 28)),
    # a month still to come this year is last year's, asked about in a question
    ("十一月", date(2025, 11, 1), date(2025, 11, 30)),
    ("去年", date(2025, 1, 1), date(2025, 12, 31)),
])
def test_the_periods_a_question_names(said: str, first: date, last: date) -> None:
    assert day_range(said, NOW) == (first, last)


def test_a_period_found_in_a_question_and_not_in_a_date() -> None:
    from homeagent.actions.base import period
    from homeagent.actions.dates import PERIOD_RE

    found = [m.group(0) if (m := PERIOD_RE.search(t)) else None for t in (
        "这礼拜吃吃喝喝花了多少", "Pull up my mood log for February", "下个月5号有什么安排", "本周五开会吗",
        "What may I do?", "what did I spend in May")]
    assert found == ["这礼拜", "for February", None, None, None, "in May"]
    assert period("since February", None, NOW) == (date(2026, 2, 1), None)  # from then on


@pytest.mark.parametrize(("said", "month_day"), [
    ("腊月初八", "12-08"),
    ("农历正月初一", "01-01"),
    ("冬月廿三", "11-23"),
    ("八月初十", "08-10"),
    ("the 8th day of the 8th lunar month", "08-08"),
    ("15th day of the 1st month", "01-15"),
])
def test_a_lunar_birthday_said_by_its_own_month_and_day_names(said: str, month_day: str) -> None:
    # The birthday keeps the month and day as said, with its lunar flag.
    assert parse_when(said, NOW).day.strftime("%m-%d") == month_day


@pytest.mark.parametrize(("said", "end"), [
    ("今年", date(2026, 12, 31)), ("this year", date(2026, 12, 31)), ("明年", date(2027, 12, 31)),
    ("本月", date(2026, 3, 31)), ("next month", date(2026, 4, 30)), ("这周", date(2026, 3, 8)),
    ("下周内", date(2026, 3, 15)), ("by next week", date(2026, 3, 15)),
    ("周五", None), ("6月底", None), ("下周之前", None),
])
def test_a_period_said_as_a_deadline_ends_on_its_last_day(said: str, end: date | None) -> None:
    assert period_end(said, NOW) == end


def test_a_weekday_read_alone_is_that_day_and_next_month_is_its_days() -> None:
    from homeagent.actions.base import period

    # "下周三开会是几点": next Wednesday alone, not every day from it on.
    assert period("下周三", None, NOW) == (date(2026, 3, 11), date(2026, 3, 11))
    assert period("周五", None, NOW) == (date(2026, 3, 6), date(2026, 3, 6))
    assert period("上礼拜六", None, NOW) == (date(2026, 2, 28), date(2026, 2, 28))
    assert period("这周末", None, NOW) == (date(2026, 3, 7), date(2026, 3, 8))
    assert period("3月1日", None, NOW) == (date(2026, 3, 1), date(2026, 3, 1))
    # 下个月 said with 的, as 上个月的 already was: April's days.
    assert day_range("下个月", NOW) == (date(2026, 4, 1), date(2026, 4, 30))
    assert day_range("下个月的", NOW) == (date(2026, 4, 1), date(2026, 4, 30))
    assert day_range("next month", NOW) == (date(2026, 4, 1), date(2026, 4, 30))
    assert day_range("去年", NOW) == (date(2025, 1, 1), date(2025, 12, 31))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The small hours said with the night: after midnight, not the afternoon.
        ("夜里一点", "2026-03-04T01:00"),
        ("半夜两点", "2026-03-04T02:00"),
        ("后半夜三点", "2026-03-04T03:00"),
        ("晚上1点", "2026-03-04T01:00"),
        # The night's own hours are as before.
        ("夜里11点", "2026-03-03T23:00"),
        ("晚上8点", "2026-03-03T20:00"),
        ("半夜", "2026-03-03T23:59"),
    ],
)
def test_the_small_hours_of_the_night_are_after_midnight(text: str, expected: str) -> None:
    assert parse_when(text, NOW, prefer="past").value.strftime("%Y-%m-%dT%H:%M") == expected


@pytest.mark.parametrize(("said", "prefer", "expected"), [
    # A month and day in figures, as typed: 3/15, 3.12, with a time after it.
    ("3/10", "future", datetime(2026, 3, 10, 0, 0, tzinfo=TZ)),
    ("3.12", "future", datetime(2026, 3, 12, 0, 0, tzinfo=TZ)),  # (once read as 03:12)
    ("3.12号", "future", datetime(2026, 3, 12, 0, 0, tzinfo=TZ)),
    ("3/18上午10点", "future", datetime(2026, 3, 18, 10, 0, tzinfo=TZ)),  # (once today's 10:00)
    ("6.20", "future", datetime(2026, 6, 20, 0, 0, tzinfo=TZ)),
    ("3.1", "past", datetime(2026, 3, 1, 0, 0, tzinfo=TZ)),
    ("20/3", "future", datetime(2026, 3, 20, 0, 0, tzinfo=TZ)),  # the first cannot be a month: day first
    ("3/18 10am", "future", datetime(2026, 3, 18, 10, 0, tzinfo=TZ)),
    # A time with a point stays a time.
    ("3.30pm", "future", datetime(2026, 3, 4, 15, 30, tzinfo=TZ)),
])
def test_a_month_and_day_in_figures(said: str, prefer: str, expected: datetime) -> None:
    assert parse_when(said, NOW, prefer=prefer).value == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("said", "expected"), [
    # A 24-hour time in four figures (once read as the year 0300, or 1930 hrs as a day in May).
    ("at 0300", datetime(2026, 3, 5, 3, 0, tzinfo=TZ)),
    ("0830", datetime(2026, 3, 5, 8, 30, tzinfo=TZ)),
    ("1930 hrs", datetime(2026, 3, 4, 19, 30, tzinfo=TZ)),
    ("1930 today", datetime(2026, 3, 4, 19, 30, tzinfo=TZ)),
    ("before 0700 Mon", datetime(2026, 3, 9, 7, 0, tzinfo=TZ)),
    ("at 0700 tomorrow", datetime(2026, 3, 5, 7, 0, tzinfo=TZ)),
    ("after 1900", datetime(2026, 3, 4, 19, 0, tzinfo=TZ)),
])
def test_a_24_hour_time_in_four_figures(said: str, expected: datetime) -> None:
    when = parse_when(said, NOW)
    assert when.has_time and when.value == expected


@pytest.mark.parametrize("said", ["by 2030", "2026年5月20日", "$1200 today", "the 1930s"])
def test_four_figures_that_are_a_year_or_money_are_no_time(said: str) -> None:
    assert not parse_when(said, NOW).has_time


@pytest.mark.parametrize(("said", "expected"), [
    # A week past the coming weekday, as British and Irish households say it (once the coming one).
    ("Tuesday week", date(2026, 3, 17)),
    ("a week Friday", date(2026, 3, 13)),
    ("a week on Saturday", date(2026, 3, 14)),
    ("Monday after next", date(2026, 3, 16)),
    ("on Friday week", date(2026, 3, 13)),
    ("Tuesday", date(2026, 3, 10)),  # the coming one, as before
])
def test_a_weekday_week_is_a_week_past_the_coming_one(said: str, expected: date) -> None:
    assert parse_when(said, NOW).day == expected
