"""The relevant-action index, the generated prompt parts and the action grammar."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from homeagent.actions import CATEGORIES, action_definitions, action_specs
from homeagent.llm.dialect.blocks import CLOSE, OPEN, extract_actions, render_block
from homeagent.llm.dialect.grammar import action_grammar, call_schema
from homeagent.llm.dialect.prompt import (
    render_action_catalog,
    render_example_dialogues,
    render_offered,
    render_protocol,
)
from homeagent.llm.dialect.select import (
    ActionSelector,
    featured_examples,
    parse_example,
    select_actions,
    small_talk_documents,
)
from homeagent.tools.registry import ToolRegistry, ToolSpec

SPECS = action_specs(db=None, clock=None)
SEED_DIALOGUES = [
    ("帮我记一个任务，明天下班前提交周报", "create_task"), ("把提交周报这个任务标记完成", "complete_task"),
    ("我还有哪些没完成的任务", "list_tasks"), ("帮我安排周五下午3点开会", "create_event"),
    ("我今天冥想打卡", "check_in_habit"), ("今天心情不错", "record_mood"),
    ("帮我记个笔记：数据库连接字符串", "create_note"), ("午饭花了35块", "record_transaction"),
    ("我要买牛奶", "add_shopping_item"), ("刚喝了一杯水", "record_water"),
    ("昨晚睡了7个半小时", "record_sleep"), ("写个日记：今天效率很高", "write_diary"),
]


def test_seventy_five_actions_in_nine_categories() -> None:
    defs = action_definitions()
    assert len(defs) == 75 and len({d.name for d in defs}) == 75
    counts = Counter(d.category for d in defs)
    assert set(counts) == set(CATEGORIES)
    assert counts == {"task": 5, "event_habit": 9, "note_diary": 5, "finance": 2, "health": 13, "goal": 4,
                      "life": 15, "inventory": 5, "mode_extras": 17}
    registry = ToolRegistry()
    for spec in SPECS:
        registry.register(spec)  # every schema is valid JSON Schema with type object


def test_every_action_has_bilingual_descriptions_and_examples() -> None:
    for spec in SPECS:
        zh, _, en = spec.description.rpartition("/")
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh) and en.strip()[:1].isascii(), spec.name
        assert spec.examples, spec.name
        for prop, schema in dict(spec.parameters)["properties"].items():
            assert schema.get("description"), (spec.name, prop)
            assert prop != "name", f"{spec.name}: an argument called name collides with the block protocol"
        langs = {"zh" if any("\u4e00" <= ch <= "\u9fff" for ch in e.split("→")[0]) else "en" for e in spec.examples}
        assert langs == {"zh", "en"}, spec.name


def test_every_example_is_a_valid_call_of_its_action() -> None:
    registry = ToolRegistry()
    for spec in SPECS:
        registry.register(spec)
    for spec in SPECS:
        for line in spec.examples:
            example = parse_example(line)
            assert example is not None and example.name == spec.name, line
            registry.validate(spec.name, example.arguments)


def test_the_twelve_seed_dialogues_come_from_registered_examples() -> None:
    featured = featured_examples(SPECS)
    assert [(e.text, e.name) for e in featured] != []
    assert sorted((e.text, e.name) for e in featured) == sorted(SEED_DIALOGUES)
    text = render_example_dialogues(SPECS)
    for utterance, name in SEED_DIALOGUES:
        assert f"User: {utterance}" in text and f'"name": "{name}"' in text
    # The rendered examples parse back into the calls they show.
    parsed = extract_actions(text)
    assert [c.name for c in parsed.calls] == [e.name for e in featured]


def test_registering_an_action_puts_it_in_the_prompt_and_the_index() -> None:
    async def run(_ctx, _args):
        return "ok"

    extra = ToolSpec("water_lawn", "给草坪浇水 / Water the lawn", {"type": "object", "properties": {}},
                     run, examples=("给草坪浇水 → water_lawn {}", "water the lawn → water_lawn {}"),
                     featured_examples=1)
    registry = ToolRegistry()
    for spec in SPECS[:5]:
        registry.register(spec)
    selector = ActionSelector(registry)
    assert "water_lawn" not in [s.name for s in selector.select_sync("please water the lawn", 3)]
    registry.register(extra)
    assert selector.select_sync("please water the lawn", 3)[0].name == "water_lawn"
    assert "User: 给草坪浇水" in render_protocol(registry)


@pytest.mark.parametrize(("utterance", "name"), SEED_DIALOGUES + [
    ("I watered the basil", "record_plant_watering"), ("Switch to away mode", "switch_mode"),
    ("Put bananas on the shopping list", "add_shopping_item"), ("小王借了我500块", "record_money_lend"),
    ("What's on my calendar tomorrow?", "list_events"), ("给多肉浇了水", "record_plant_watering"),
])
def test_selector_ranks_the_right_action_in_the_top_eight(utterance: str, name: str) -> None:
    assert name in [s.name for s in select_actions(SPECS, utterance, 8)]


@pytest.mark.parametrize(("utterance", "name"), [
    ("Create a habit to drink tea every morning", "create_habit"),
    ("把背单词的习惯改成每周五次", "update_habit"),
    ("I walked the dog this morning", "record_pet_activity"),
])
def test_an_actions_examples_do_not_pull_a_neighbours_requests_to_it(utterance: str, name: str) -> None:
    # With one action offered (the shipped k), the model calls the top one: a create_habit
    # example that shares 背单词/习惯 with update_habit's requests, or lengthens its document
    # past its English words, hands these to update_habit's neighbour or record_medicine.
    assert [s.name for s in select_actions(SPECS, utterance, 1)] == [name]


def test_selector_offers_nothing_for_small_talk() -> None:
    assert select_actions(SPECS, "hello", 8) == []


def test_small_talk_class_is_bilingual_paragraphs_without_comments() -> None:
    docs = small_talk_documents()
    assert len(docs) >= 10
    assert not any(line.startswith("#") for doc in docs for line in doc.splitlines())
    assert all(doc == doc.strip() and "\n\n" not in doc for doc in docs)
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in doc) for doc in docs)
    assert any(doc[:1].isascii() and doc[:1].isalpha() for doc in docs)


# Phrasings that are not in small_talk.txt: the class must generalise, not memorise.
@pytest.mark.parametrize("utterance", [
    "Tell me a short story about a cat.", "给我讲个关于小猫的故事", "Why is the sky blue?",
    "为什么天空是蓝色的", "How long should I boil an egg?", "你叫什么名字",
])
def test_conversation_is_offered_no_actions(utterance: str) -> None:
    selector = ActionSelector(SPECS)
    ranking = selector.rank(utterance)
    assert ranking.chat and ranking.small_talk >= ranking.top
    assert selector.select_sync(utterance, 8) == []


@pytest.mark.parametrize(("utterance", "name"), SEED_DIALOGUES)
def test_requests_for_actions_are_not_taken_for_small_talk(utterance: str, name: str) -> None:
    ranking = ActionSelector(SPECS).rank(utterance)
    assert not ranking.chat and ranking.scored[0][0].name == name


def test_without_the_small_talk_class_every_message_ranks_actions() -> None:
    ranking = ActionSelector(SPECS, small_talk=()).rank("Tell me a short story about a cat.")
    assert ranking.small_talk == 0.0 and not ranking.chat and ranking.top > 0


def test_a_message_sharing_no_word_with_any_action_is_small_talk() -> None:
    ranking = ActionSelector(SPECS, small_talk=()).rank("哈哈哈")
    assert ranking.top == 0.0 and ranking.chat


@pytest.mark.anyio
async def test_async_select_runs_off_the_loop() -> None:
    selected = await ActionSelector(SPECS).select("午饭花了35块", 3)
    assert selected[0].name == "record_transaction"


def test_catalog_lists_required_arguments_first_with_hints() -> None:
    spec = next(s for s in SPECS if s.name == "create_task")
    text = render_action_catalog([spec])
    assert text.startswith("- create_task(content, priority?: high|medium|low, due?, category?, tags?: […], repeat?)")
    assert f"e.g. 帮我记一个任务，明天下班前提交周报 → {OPEN}" in text
    assert "## Actions for this message" in render_offered([spec])
    assert render_offered([]) == ""  # nothing offered: no section a small model could repeat


def test_block_for_a_tool_with_its_own_name_argument_is_nested() -> None:
    block = render_block("greet", {"name": "小明"})
    assert block == f'{OPEN}{{"name": "greet", "arguments": {{"name": "小明"}}}}{CLOSE}'
    call = extract_actions(block).calls[0]
    assert (call.name, json.loads(call.arguments)) == ("greet", {"name": "小明"})


@pytest.mark.parametrize("mode", ["action", "action_or_text", "text_then_actions"])
def test_grammar_compiles_for_every_category(mode: str) -> None:
    from llama_cpp import LlamaGrammar

    for category in CATEGORIES:
        specs = [s for s in SPECS if s.category == category][:8]
        grammar = action_grammar(specs, mode=mode)
        assert LlamaGrammar.from_string(grammar, verbose=False) is not None
        assert '"\\"create_task\\""' in action_grammar(SPECS[:1], mode=mode)


def test_call_schema_accepts_examples_and_rejects_other_actions() -> None:
    import jsonschema

    specs = [s for s in SPECS if s.name in ("record_water", "create_task")]
    validator = jsonschema.Draft202012Validator(call_schema(specs))
    assert validator.is_valid({"name": "record_water", "amount": "一杯"})
    assert validator.is_valid({"name": "create_task", "content": "x", "due": "明天"})
    assert not validator.is_valid({"name": "delete_task", "content": "x"})
    assert not validator.is_valid({"name": "create_task"})


def test_copy_constrained_grammar_only_allows_the_users_words_and_numbers() -> None:
    from llama_cpp import LlamaGrammar

    from homeagent.llm.dialect.grammar import copy_constrained, utterance_spans
    from homeagent.numbers import numbers_in

    text = "午饭花了35块"
    spans = utterance_spans(text)
    assert {"午饭", "35块", "午饭花了35块"} <= set(spans) and "饭花了35块钱" not in spans
    assert "Mike tomorrow" in utterance_spans("Lunch with Mike tomorrow at noon.")
    assert all(not s.endswith(".") for s in utterance_spans("Lunch with Mike tomorrow at noon."))
    specs = [s for s in SPECS if s.name in ("record_transaction", "create_goal")]
    grammar = copy_constrained(action_grammar(specs), "目标是存下5万块", numbers_in("目标是存下5万块"))
    lines = {line.split(" ::= ")[0]: line for line in grammar.splitlines() if " ::= " in line}
    assert lines["number"] == 'number ::= ( "50000" | "5" ) space'
    assert '"\\"存下5万块\\""' in lines["string"] and "char*" not in lines["string"]
    assert LlamaGrammar.from_string(grammar, verbose=False) is not None
    # Nothing to copy: the free rules stay, so a required value is still possible.
    free = copy_constrained(action_grammar(specs), "")
    assert free == action_grammar(specs)


def test_the_requests_own_words_are_not_argument_values() -> None:
    from homeagent.llm.dialect.grammar import copy_constrained, instruction_terms, utterance_spans

    by_name = {s.name: s for s in SPECS}
    note = instruction_terms([by_name["delete_note"]])
    spans = utterance_spans("Delete the note about the old car", exclude=note)
    assert "Delete the note" not in spans and "note" not in spans
    assert {"old car", "the old car", "Delete the note about the old car"} <= set(spans)
    coupon = utterance_spans("存一张优惠券：麦当劳满50减10", exclude=instruction_terms([by_name["add_coupon"]]))
    assert "优惠券" not in coupon and "麦当劳满50减10" in coupon
    # Values listed in a description (after a colon, in brackets) stay values.
    mode = instruction_terms([by_name["switch_mode"]])
    assert "mode" in mode and "away" not in mode and "睡眠" not in mode
    assert "away" in utterance_spans("Switch to away mode", exclude=mode)
    # When every piece is the request's own words, the free rule stays.
    specs = [by_name["delete_note"]]
    assert copy_constrained(action_grammar(specs), "delete the note", exclude=note) == action_grammar(specs)


def test_quotes_in_the_utterance_stay_valid_json() -> None:
    import re

    from homeagent.llm.dialect.grammar import copy_constrained

    text = 'note "quoted" \\ back'
    grammar = copy_constrained(action_grammar(SPECS[:1]), text)
    string_rule = next(line for line in grammar.splitlines() if line.startswith("string ::="))
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', string_rule.split("::=", 1)[1])
    values = [json.loads(re.sub(r"\\(.)", r"\1", lit)) for lit in literals]  # GBNF unescape, then JSON
    assert 'note "quoted' in values and "back" in values and all(v in text for v in values)


@pytest.mark.anyio
async def test_prepare_builds_the_index_once_ahead_of_the_first_message() -> None:
    selector = ActionSelector(SPECS)
    await selector.prepare()
    built = selector._vectorizer
    assert built is not None
    assert selector.rank("午饭花了35块").scored[0][0].name == "record_transaction"
    assert selector._vectorizer is built  # the message used the prepared index


@pytest.mark.parametrize("utterance", [
    "提醒我明天下午3点交电费", "add milk and eggs to the shopping list", "I watered the plants",
    "喂狗了", "How much did I spend this week?", "hello", "", "Tell me a short story about a cat.",
    "zzz qqq", "记一笔：午饭35块", "my mood is great today",
])
def test_the_selectors_tfidf_is_scikit_learns(utterance: str) -> None:
    # The selector's index is its own code (a start needs no scikit-learn); its scores are
    # what TfidfVectorizer(analyzer=analyzer, sublinear_tf=True) gives on the same texts.
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from homeagent.llm.dialect.select import Tfidf, analyzer, document, small_talk_documents

    documents = [document(d) for d in SPECS] + list(small_talk_documents())
    vectorizer = TfidfVectorizer(analyzer=analyzer, sublinear_tf=True)
    matrix = vectorizer.fit_transform(documents)
    want = (matrix @ vectorizer.transform([utterance]).T).toarray().ravel()
    assert np.allclose(Tfidf(documents).similarities(utterance), want)
