"""Property tests of what reads untrusted text: JSON bodies, the SSE resume header and
the `[ACTION]` parser, driven by arbitrary input (hypothesis)."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from homeagent.api.bodies import (
    MAX_EVENT_ID,
    MAX_JSON_DEPTH,
    json_depth,
    parse_json,
    parse_last_event_id,
    scrub,
)
from homeagent.errors import RequestError
from homeagent.llm.dialect.blocks import ActionStreamFilter, extract_actions, quote_protocol

SURROGATE = re.compile("[\ud800-\udfff]")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def depth_of(value) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


def has_surrogate(value) -> bool:
    if isinstance(value, str):
        return bool(SURROGATE.search(value))
    if isinstance(value, list):
        return any(has_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in value.items())
    return False


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_are_parsed_or_refused_with_a_request_error(raw):
    try:
        value = parse_json(raw)
    except RequestError as err:
        assert str(err)
        return
    assert not has_surrogate(value)
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # storable and sendable


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_json_values_round_trip_unless_they_hold_a_surrogate(value):
    raw = json.dumps(value).encode()  # ASCII escapes: lone surrogates arrive as \\udXXX
    assert json_depth(raw) == depth_of(value)
    if has_surrogate(value):
        try:
            parse_json(raw)
        except RequestError as err:
            assert "surrogate" in str(err)
        else:
            raise AssertionError("a lone surrogate was let in")
    else:
        assert parse_json(raw) == value


@given(st.integers(min_value=MAX_JSON_DEPTH + 1, max_value=50_000), st.sampled_from(["[", '{"a":']))
@settings(max_examples=30, deadline=None)
def test_any_nesting_past_the_limit_is_refused_before_parsing(depth, opener):
    closer = "]" if opener == "[" else "}"
    raw = (opener * depth + "1" + closer * depth).encode()
    try:
        parse_json(raw)
    except RequestError as err:
        assert "nested deeper than" in str(err)
    else:
        raise AssertionError("deep JSON was parsed")


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_last_event_id_is_a_number_in_range_or_a_request_error(raw):
    try:
        value = parse_last_event_id(raw)
    except RequestError as err:
        assert "Last-Event-ID" in str(err)
        str(err).encode("utf-8")  # the message itself is sendable
        return
    assert value is None or 0 <= value <= MAX_EVENT_ID


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_scrub_makes_any_text_encodable(text):
    scrub(text).encode("utf-8")


action_soup = st.lists(
    st.sampled_from(["[ACTION]", "[/ACTION]", "[RESULTS]", "[/RESULTS]", '{"name": "create_task"', "}", ",",
                     '"content": "x"', "[action]", "Now answer me using these results."])
    | st.text(max_size=20),
    max_size=12,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(action_soup)
def test_action_parser_never_raises_and_hides_every_block(text):
    parsed = extract_actions(text)
    assert "[ACTION]" not in parsed.text
    for call in parsed.calls:
        assert isinstance(json.loads(call.arguments), dict)
    shown = ActionStreamFilter()
    streamed = "".join(shown.feed(piece) for piece in re.findall(r".{1,5}", text, re.S)) + shown.finish()
    assert "[ACTION]" not in streamed


@settings(max_examples=500, deadline=None)
@given(action_soup)
def test_quoted_tool_output_holds_no_block_to_obey(text):
    assert extract_actions(quote_protocol(text)).calls == ()
