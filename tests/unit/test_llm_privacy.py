"""homeagent.llm.privacy: what is scrubbed, stable placeholders, restoring (streamed too)."""

from __future__ import annotations

import json

import pytest

from homeagent.llm.base import ChatRequest, Message, ToolCall
from homeagent.llm.privacy import Scrubber

CASES = [
    ("PHONE", "电话 13812345678 找我", "13812345678"),
    ("PHONE", "call +86 139 1234 5678 now", "+86 139 1234 5678"),
    ("PHONE", "座机 010-62345678 转", "010-62345678"),
    ("PHONE", "ring (415) 555-0132 today", "(415) 555-0132"),
    ("PHONE", "UK office +44 20 7946 0958.", "+44 20 7946 0958"),
    ("EMAIL", "mail me at wang.xm+home@example.com.cn please", "wang.xm+home@example.com.cn"),
    ("IDCARD", "身份证号11010119900307123X，", "11010119900307123X"),
    ("BANKCARD", "card 4111 1111 1111 1111 expires", "4111 1111 1111 1111"),
    ("BANKCARD", "工资卡6222021234567890123到账", "6222021234567890123"),
    ("ADDRESS", "我家住在北京市朝阳区建国路88号3栋2单元501室，欢迎", "北京市朝阳区建国路88号3栋2单元501室"),
    ("ADDRESS", "寄到上海市浦东新区世纪大道100号", "上海市浦东新区世纪大道100号"),
    ("ADDRESS", "I live at 221B Baker Street, Apt 2 in London", "221B Baker Street, Apt 2"),
    ("ADDRESS", "send it to 1600 Pennsylvania Avenue today", "1600 Pennsylvania Avenue"),
]


@pytest.mark.parametrize(("kind", "text", "value"), CASES)
def test_each_kind_is_replaced_and_restored(kind: str, text: str, value: str) -> None:
    s = Scrubber()
    scrubbed = s.scrub(text)
    assert value not in scrubbed, scrubbed
    assert f"[{kind}_1]" in scrubbed, scrubbed
    assert s.restore(scrubbed) == text


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-01 10:00 开会，花了 35 元",
        "Order #12345 costs $1,299.99 on 2026/03/04",
        "温度 23.5 度，湿度 60%",
        "version 3.10.12 and port 8080",
        "我家住在附近，路很远",
        "1234 5678 9012 3456",  # fails the Luhn check and is not a UnionPay number
    ],
)
def test_ordinary_numbers_and_text_are_left_alone(text: str) -> None:
    assert Scrubber().scrub(text) == text


def test_configured_names_in_chinese_and_english() -> None:
    s = Scrubber(["王小明", "Alice Zhang", "Li"])
    out = s.scrub("王小明和Alice Zhang去公园, Li said hi; Lisa and Lily stay")
    assert "王小明" not in out and "Alice Zhang" not in out
    assert out.count("[NAME_") == 3 and "Lisa" in out and "Lily" in out
    assert s.restore(out) == "王小明和Alice Zhang去公园, Li said hi; Lisa and Lily stay"


def test_placeholders_are_stable_across_requests() -> None:
    s = Scrubber()
    a = s.scrub("first 13812345678, then a@b.cn")
    b = s.scrub("a@b.cn again, and 13812345678 again, and 13900001111")
    assert "[PHONE_1]" in a and "[PHONE_1]" in b and "[EMAIL_1]" in a and "[EMAIL_1]" in b
    assert "[PHONE_2]" in b  # a new number gets a new placeholder


def test_request_messages_and_history_tool_arguments_are_scrubbed() -> None:
    s = Scrubber(["王小明"])
    request = ChatRequest(
        messages=(
            Message("system", "Household: 王小明, phone 13812345678"),
            Message("user", "打给王小明"),
            Message("assistant", "", tool_calls=(ToolCall("c1", "call", '{"number": "13812345678"}'),)),
            Message("tool", "called 13812345678", tool_call_id="c1", name="call"),
        ),
        stable_prefix_chars=10,
    )
    out = s.scrub_request(request)
    blob = json.dumps([(m.content, [c.arguments for c in m.tool_calls]) for m in out.messages], ensure_ascii=False)
    assert "13812345678" not in blob and "王小明" not in blob
    assert out.stable_prefix_chars == 0


def test_tool_arguments_are_restored_json_escaped() -> None:
    s = Scrubber(['Bob "the builder"'])
    token = s.scrub('Bob "the builder"')
    args = json.dumps({"who": f"{token} at [PHONE_9]"})
    restored = json.loads(s.restore_arguments(args))
    assert restored == {"who": 'Bob "the builder" at [PHONE_9]'}  # unknown placeholders stay


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_streamed_answer_is_restored_even_when_a_placeholder_is_split(size: int) -> None:
    s = Scrubber(["王小明"])
    original = "给王小明打电话 13812345678 或发邮件 x@y.com。PHONE numbers are NAMES too."
    scrubbed = s.scrub(original)
    restorer = s.restorer()
    pieces = [scrubbed[i:i + size] for i in range(0, len(scrubbed), size)]
    out = "".join(restorer.feed(p) for p in pieces) + restorer.finish()
    assert out == original


def test_bare_placeholder_without_brackets_is_restored() -> None:
    s = Scrubber()
    s.scrub("13812345678")
    assert s.restore("The number PHONE_1 is saved") == "The number 13812345678 is saved"


def test_single_digit_house_numbers_and_cached_results() -> None:
    s = Scrubber()
    text = "住在杭州市西湖区文三路8号，or 1 Main Street"
    first = s.scrub(text)
    assert "文三路8号" not in first and "1 Main Street" not in first
    assert s.scrub(text) == first and s.restore(first) == text
