"""What is said beside a record's name lands in its own slot: tags said at the end, what the
money went on, a trailing clause about the record, whose reading or medicine it is, the
record's number in English. The sentences are this file's own, in both languages; the
layer is not trained (`fill` reads the schemas and templates only)."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from homeagent.intent.asides import take_tags
from homeagent.intent.listing import asked_again, ordinal


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("加个待办：周六去洗车，标签家里", "create_task", {"content": "去洗车", "tags": ["家里"]}),
    ("新建任务 续签护照 打个标签 证件和出行", "create_task", {"content": "续签护照", "tags": ["证件", "出行"]}),
    ("Task: book the MOT, tag it car", "create_task", {"content": "book the MOT", "tags": ["car"]}),
    ("note that the loft ladder key is in the blue tin, tagged house", "create_note", {"tags": ["house"]}),
])
def test_tags_said_at_the_end_are_tags_not_words_of_the_name(filler: IntentLayer, text: str, action: str,
                                                               expected: dict) -> None:
    assert _has(filler.fill(action, text), expected), filler.fill(action, text)


def test_a_word_about_tags_inside_the_text_is_left_alone() -> None:
    props = {"tags": {"type": "array"}}
    assert take_tags("buy price tags for the stall", props) == ("buy price tags for the stall", [])
    assert take_tags("标签打印机没纸了", props) == ("标签打印机没纸了", [])
    assert take_tags("call Tom, tag it work", {}) == ("call Tom, tag it work", [])


@pytest.mark.parametrize(("text", "expected"), [
    ("早饭花了12块", {"note": "早饭"}),
    ("记账 加油 300", {"note": "加油"}),
    ("前天在药店买药花了56.8", {"note": "药店买药"}),
    ("给女儿交了舞蹈课学费2400", {"note": "舞蹈课学费"}),
    ("视频会员每个月自动扣30", {"note": "视频会员", "recurring": "monthly"}),
    ("spent £8.40 on parking", {"note": "parking"}),
    ("log a $60 expense for the gas bill", {"note": "gas bill"}),
    ("income: 90 from selling the old bike on the weekend", {"note": "selling the old bike"}),
])
def test_what_the_money_went_on_is_the_note(filler: IntentLayer, text: str, expected: dict) -> None:
    assert _has(filler.fill("record_transaction", text), expected), filler.fill("record_transaction", text)


def test_money_with_no_word_for_what_it_was_gets_no_note(filler: IntentLayer) -> None:
    assert "note" not in filler.fill("record_transaction", "花了35块")
    assert "note" not in filler.fill("record_transaction", "spent 20 dollars today")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("买点洗衣液，要薰衣草味的", "add_shopping_item", {"item": "洗衣液", "note": "要薰衣草味的"}),
    ("记录用药：感冒灵一袋，嗓子疼", "record_medicine", {"medicine": "感冒灵", "note": "嗓子疼"}),
    ("心情：低落，项目又延期了", "record_mood", {"mood": "低落", "note": "项目又延期了"}),
    ("could you add wipes, the sensitive ones, to the shopping?", "add_shopping_item",
     {"item": "wipes", "note": "the sensitive ones"}),
    ("finished Piranesi – 8/10, the ending was lovely", "add_book", {"title": "Piranesi", "note": "the ending was lovely"}),
])
def test_a_trailing_clause_about_the_record_is_its_note(filler: IntentLayer, text: str, action: str,
                                                          expected: dict) -> None:
    assert _has(filler.fill(action, text), expected), filler.fill(action, text)


def test_a_clause_that_only_commands_or_holds_another_slot_is_no_note(filler: IntentLayer) -> None:
    assert "note" not in filler.fill("add_shopping_item", "买点洗衣液，记一下")
    assert "note" not in filler.fill("record_medicine", "布洛芬，一片")
    assert "note" not in filler.fill("add_shopping_item", "add bin bags to the shopping list, thanks")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("给女儿量了体温 37.8度", "record_health", {"note": "女儿"}),
    ("Record Sam's weight, 31 kg", "record_body", {"note": "Sam"}),
    ("Grandma took her aspirin at 8, 75mg", "record_medicine", {"medicine": "aspirin", "dose": "75mg", "note": "Grandma"}),
    ("饭后血糖7.9", "record_health", {"note": "饭后"}),
    ("took 2 ibuprofen for a sore knee", "record_medicine", {"medicine": "ibuprofen", "note": "sore knee"}),
])
def test_whose_reading_it_is_and_when_it_was_taken_are_the_note(filler: IntentLayer, text: str, action: str,
                                                                  expected: dict) -> None:
    assert _has(filler.fill(action, text), expected), filler.fill(action, text)


def test_the_speaker_s_own_reading_names_nobody(filler: IntentLayer) -> None:
    assert "note" not in filler.fill("record_health", "my resting heart rate is 58")
    assert "note" not in filler.fill("record_body", "I weigh 70kg today")


@pytest.mark.parametrize(("text", "action", "record"), [
    ("mark number 4 done", "complete_task", 4),
    ("tick item 2 off the shopping list", "mark_shopping_bought", 2),
    ("第三个任务删了吧", "delete_task", 3),
])
def test_a_record_s_number_is_its_id(filler: IntentLayer, text: str, action: str, record: int) -> None:
    assert filler.fill(action, text).get("id") == record


def test_a_time_or_a_first_time_is_no_record_number(filler: IntentLayer) -> None:
    assert "id" not in filler.fill("update_task", "move the dentist task to 3 pm")
    assert filler.fill("update_task", "第一次体检改到下周").get("id") is None


@pytest.mark.parametrize(("text", "row"), [
    ("把第二个删了", 2), ("第十个呢", 10), ("最后一个做完了", -1), ("delete the last one", -1),
    ("the third one is done", 3), ("第一次去游泳", None), ("first thing tomorrow", None),
])
def test_ordinals_name_a_row_of_what_was_shown(text: str, row: int | None) -> None:
    assert ordinal(text) == row


@pytest.mark.parametrize(("text", "rest"), [
    ("那昨天呢", "昨天"), ("上个月呢？", "上个月"), ("and last week?", "last week"), ("what about breakfast", "breakfast"),
    ("我今天好累", None), ("and then delete it", "then delete it"),
])
def test_the_same_question_asked_of_something_else(text: str, rest: str | None) -> None:
    assert asked_again(text) == rest


@pytest.mark.parametrize(("text", "action", "status"), [
    ("我放弃过哪些目标", "list_goals", "abandoned"), ("what goals did I give up on", "list_goals", "abandoned"),
    ("列出进行中的目标", "list_goals", "active"), ("我还有哪些任务没做", "list_tasks", "open"),
    ("what did we already buy", "list_shopping", "bought"),
])
def test_a_question_s_state_words_are_its_status(filler: IntentLayer, text: str, action: str, status: str) -> None:
    assert filler.fill(action, text).get("status") == status
