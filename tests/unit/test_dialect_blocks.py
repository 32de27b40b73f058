"""homeagent.llm.dialect.blocks: [ACTION] parsing with JSON repair, and the stream filter."""

from __future__ import annotations

import json
import random
import re

import pytest

from homeagent.llm.dialect.blocks import CLOSE, OPEN, ActionStreamFilter, extract_actions


def args_of(reply: str) -> list[tuple[str, dict]]:
    parsed = extract_actions(reply)
    assert parsed.errors == ()
    return [(c.name, json.loads(c.arguments)) for c in parsed.calls]


# -- extract_actions --------------------------------------------------------------------


def test_one_block() -> None:
    reply = 'Let me check.\n[ACTION]\n{"name": "current_time", "timezone": "Asia/Shanghai"}\n[/ACTION]'
    parsed = extract_actions(reply)
    assert parsed.text == "Let me check."
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [
        ("current_time", {"timezone": "Asia/Shanghai"})
    ]
    assert parsed.errors == ()


def test_several_blocks_keep_order_and_unique_ids() -> None:
    reply = (
        "First. [ACTION]{\"name\": \"a_tool\"}[/ACTION] then "
        "[ACTION]{\"name\": \"b_tool\", \"x\": 1}[/ACTION] and "
        "[ACTION]{\"name\": \"c_tool\", \"y\": [1, 2]}[/ACTION] done."
    )
    parsed = extract_actions(reply)
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [
        ("a_tool", {}),
        ("b_tool", {"x": 1}),
        ("c_tool", {"y": [1, 2]}),
    ]
    assert len({c.id for c in parsed.calls}) == 3
    assert "ACTION" not in parsed.text
    assert parsed.text.startswith("First.") and parsed.text.endswith("done.")


def test_nested_arguments_form() -> None:
    assert args_of('[ACTION]{"name": "add_note", "arguments": {"text": "你好"}}[/ACTION]') == [
        ("add_note", {"text": "你好"})
    ]


def test_arguments_as_json_string() -> None:
    reply = '[ACTION]{"name": "add_note", "arguments": "{\\"text\\": \\"牛奶\\"}"}[/ACTION]'
    assert args_of(reply) == [("add_note", {"text": "牛奶"})]


def test_non_object_arguments_are_kept_for_the_validator() -> None:
    assert args_of('[ACTION]{"name": "add_note", "arguments": [1, 2]}[/ACTION]') == [
        ("add_note", {"arguments": [1, 2]})
    ]


def test_chinese_punctuation_is_repaired() -> None:
    reply = "好的。[ACTION]｛“name”：“current_time”，“timezone”：“Asia/Tokyo”｝[/ACTION]"
    parsed = extract_actions(reply)
    assert parsed.errors == ()
    assert [(c.name, json.loads(c.arguments)) for c in parsed.calls] == [
        ("current_time", {"timezone": "Asia/Tokyo"})
    ]
    assert parsed.text == "好的。"


def test_chinese_punctuation_inside_values_is_preserved() -> None:
    reply = "[ACTION]｛“name”：“add_note”，“text”：“买牛奶，鸡蛋：两打”｝[/ACTION]"
    assert args_of(reply) == [("add_note", {"text": "买牛奶，鸡蛋：两打"})]
    # Valid JSON with Chinese punctuation in a value is never touched.
    reply = '[ACTION]{"name": "add_note", "text": "他说：“你好，世界”"}[/ACTION]'
    assert args_of(reply) == [("add_note", {"text": "他说：“你好，世界”"})]


def test_repair_keeps_chinese_values_when_fixing_other_errors() -> None:
    reply = '[ACTION]{"name": "add_note", "text": "买牛奶，鸡蛋",}[/ACTION]'
    assert args_of(reply) == [("add_note", {"text": "买牛奶，鸡蛋"})]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"name": "t", "a": 1,}', {"a": 1}),
        ('{"name": "t", "a": [1, 2,],}', {"a": [1, 2]}),
        ('{"name": "t", "a": {"b": 1,},\n}', {"a": {"b": 1}}),
        ('{"name": "t", "a": "x, }"}', {"a": "x, }"}),
    ],
)
def test_trailing_commas(body: str, expected: dict) -> None:
    assert args_of(f"{OPEN}{body}{CLOSE}") == [("t", expected)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"name": "t", "a": 1', {"a": 1}),
        ('{"name": "t", "a": {"b": 1}', {"a": {"b": 1}}),
        ('{"name": "t", "a": [1, 2', {"a": [1, 2]}),
        ('{"name": "t", "a": "cut of', {"a": "cut of"}),
    ],
)
def test_missing_closing_brace(body: str, expected: dict) -> None:
    assert args_of(f"{OPEN}{body}{CLOSE}") == [("t", expected)]


@pytest.mark.parametrize(
    "body",
    [
        '```json\n{"name": "t", "a": 1}\n```',
        '\n```\n{"name": "t", "a": 1}\n```\n',
        '```json\n{"name": "t", "a": 1,}\n```',
    ],
)
def test_code_fence_inside_block(body: str) -> None:
    assert args_of(f"ok {OPEN}{body}{CLOSE}") == [("t", {"a": 1})]


def test_unterminated_block_at_the_end() -> None:
    parsed = extract_actions('Checking now.\n[ACTION]\n{"name": "current_time"}\n')
    assert parsed.text == "Checking now."
    assert [c.name for c in parsed.calls] == ["current_time"]
    parsed = extract_actions('Checking now. [ACTION]{"name": "current_time", "timezone": "UTC"')
    assert [json.loads(c.arguments) for c in parsed.calls] == [{"timezone": "UTC"}]


def test_unterminated_block_followed_by_another() -> None:
    parsed = extract_actions(
        'a [ACTION]{"name": "one", "x": 1} [ACTION]{"name": "two"}[/ACTION] b'
    )
    assert [c.name for c in parsed.calls] == ["one", "two"]
    assert parsed.errors == ()
    assert "ACTION" not in parsed.text


@pytest.mark.parametrize(
    "body",
    ["this is not json at all", "", '["current_time"]', '{"tool": "current_time"}',
     '{"name": 5}'],
)
def test_garbage_block_is_an_error_and_text_is_kept(body: str) -> None:
    parsed = extract_actions(f"你好！{OPEN}{body}{CLOSE}我在这里。")
    assert parsed.calls == ()
    assert len(parsed.errors) == 1
    assert "[ACTION]" in parsed.errors[0]
    assert parsed.text == "你好！我在这里。"


def test_garbage_and_good_blocks_together() -> None:
    parsed = extract_actions(
        f'{OPEN}oops{CLOSE} text {OPEN}{{"name": "current_time"}}{CLOSE}'
    )
    assert [c.name for c in parsed.calls] == ["current_time"]
    assert len(parsed.errors) == 1 and "oops" in parsed.errors[0]
    assert parsed.text == "text"


def test_reply_without_blocks_is_untouched() -> None:
    reply = "现在是下午三点。It's 3 pm [not an action] {\"name\": \"x\"}"
    parsed = extract_actions(reply)
    assert parsed == type(parsed)(reply, (), ())


def test_error_message_is_bounded() -> None:
    parsed = extract_actions(f"{OPEN}{'x' * 5000}{CLOSE}")
    assert len(parsed.errors[0]) < 300


# -- ActionStreamFilter -----------------------------------------------------------------

BLOCK = '[ACTION]\n{"name": "current_time", "timezone": "Asia/Shanghai"}\n[/ACTION]'
REPLIES = [
    ("Sure, one moment. " + BLOCK, "Sure, one moment. "),
    ("好的，我查一下。" + BLOCK + "\n稍等。", "好的，我查一下。\n稍等。"),
    ("A" + BLOCK + "B" + BLOCK + "C", "ABC"),
    (BLOCK + BLOCK, ""),
    ("no blocks here [ACT but not really] [A", "no blocks here [ACT but not really] [A"),
    ("[[[ACTION]x[/ACTION]]]", "[[]]"),
    ("arrays [1,2] and [/ACTIO stay", "arrays [1,2] and [/ACTIO stay"),
    ("trailing open [ACTION]{\"name\": \"x\"", "trailing open "),
    ("inside [ACTION] has [/ACTIO and [ACTION] again [/ACTION]end", "inside end"),
    ("emoji 😀 " + BLOCK + " 👍🏽", "emoji 😀  👍🏽"),
    # A small model echoing the results message instead of answering: protocol, not answer.
    ("\n[RESULTS]\n- create_note: 已保存笔记 #1\n[/RESULTS]\nNow answer me using these results.", "\n\n"),
    ('\n[RESULTS]{"success", "Done"]\nNow answer me using these results.', "\n"),
    ("已记下。[RESULTS]\n- a: b", "已记下。"),
    ("Now you know. Now answer me", "Now you know. Now answer me"),
    ("- #1 交电费\n[/RESULTS]", "- #1 交电费\n"),
    ("done [/ACTION] here", "done  here"),
]


def run_filter(chunks: list[str]) -> tuple[str, list[str]]:
    f = ActionStreamFilter()
    emitted = [f.feed(chunk) for chunk in chunks]
    emitted.append(f.finish())
    return "".join(emitted), emitted


@pytest.mark.parametrize(("reply", "expected"), REPLIES)
def test_filter_whole_reply(reply: str, expected: str) -> None:
    assert run_filter([reply])[0] == expected


@pytest.mark.parametrize(("reply", "expected"), REPLIES)
def test_filter_character_by_character(reply: str, expected: str) -> None:
    text, _ = run_filter(list(reply))
    assert text == expected
    if OPEN not in expected:
        # No emitted piece carries any part of a block's tags or body.
        assert OPEN not in text and "current_time" not in text


@pytest.mark.parametrize("seed", range(20))
def test_filter_random_chunkings(seed: int) -> None:
    rng = random.Random(seed)
    for reply, expected in REPLIES:
        cuts = sorted(rng.sample(range(1, len(reply)), k=min(len(reply) - 1, rng.randint(1, 8))))
        chunks = [reply[a:b] for a, b in zip([0, *cuts], [*cuts, len(reply)], strict=True)]
        assert "".join(chunks) == reply
        assert run_filter(chunks)[0] == expected


def test_filter_never_emits_a_tag_prefix_before_the_block() -> None:
    # A consumer printing each piece as it arrives must never show "[", "[A", ... of a tag.
    reply = "Hello " + BLOCK + " bye"
    f = ActionStreamFilter()
    shown = ""
    for ch in reply:
        shown += f.feed(ch)
        assert not any(shown.endswith(OPEN[:n]) for n in range(1, len(OPEN) + 1))
        assert "{" not in shown
    shown += f.finish()
    assert shown == "Hello  bye"


def _random_text(rng: random.Random) -> str:
    alphabet = list("ab [ACTION]/你好，\n{}\"") + ["[", "[A", "[ACT", "[/ACT", "[/", "ACTION]"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))


def test_filter_fuzz_agrees_with_block_removal() -> None:
    rng = random.Random(20260101)
    checked = 0
    while checked < 1500:
        parts: list[str] = []
        for _ in range(rng.randint(1, 5)):
            parts.append(_random_text(rng))
            if rng.random() < 0.6:
                parts.append(OPEN + _random_text(rng).replace(CLOSE, "") + CLOSE)
        reply = "".join(parts)
        expected = re.sub(r"\[ACTION\].*?\[/ACTION\]", "", reply, flags=re.S)
        if OPEN in expected or CLOSE in expected:
            continue  # random text formed an unbalanced tag; not this test's subject
        checked += 1
        chunks, i = [], 0
        while i < len(reply):
            step = rng.randint(1, 7)
            chunks.append(reply[i : i + step])
            i += step
        assert run_filter(chunks)[0] == expected, reply


def test_filter_is_reusable_after_finish() -> None:
    f = ActionStreamFilter()
    assert f.feed("x [ACTION]{") == "x "
    assert f.finish() == ""
    assert f.feed("plain") == "plain"
    assert f.finish() == ""
