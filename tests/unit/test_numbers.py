"""homeagent.numbers: numbers as people say them, in digits, Chinese numerals and words."""

from __future__ import annotations

import pytest

from homeagent.numbers import cn_to_int, find_number, numbers_in, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [("三十五", 35), ("十二", 12), ("一百零五", 105), ("一百五", 150), ("两万三", 23000), ("二〇二六", 2026), ("十", 10)],
)
def test_chinese_numerals(text: str, value: int) -> None:
    assert cn_to_int(text) == value


def test_parse_number_with_half() -> None:
    assert parse_number("七个半") == 7.5
    assert parse_number("7.5") == 7.5
    assert parse_number("半") == 0.5
    assert parse_number("abc") is None


def test_numbers_in_free_text() -> None:
    assert numbers_in("我的目标是今年存下5万块") == [50000.0, 5.0]
    assert numbers_in("三十五块和两杯") == [35.0, 2.0]
    assert numbers_in("I drank two glasses, then 1.5 more") == [1.5, 2.0]
    assert find_number("two glasses") == 2.0 and find_number("7个半小时") == 7.5
