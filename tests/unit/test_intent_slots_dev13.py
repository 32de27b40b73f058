"""Slot filling on forms households used in blind 13 once it became a development set:
each case was wrong before its rule."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A clause of polite command words alone is no value: 请帮我记一笔支出, 麻烦你帮我添一项待办事项.
    ("请帮我记一笔支出，买菜花了八十五块", "record_transaction", {"note": "买菜", "type": "expense"}),
    ("麻烦你帮我添一项待办事项，周五之前交物业费", "create_task", {"content": "交物业费"}),
    # The command clause taken off, the tags are still taken out of the name: said after it,
    # or leading the words after a colon.
    ("记个点子，周末带孩子去做陶艺，标签亲子", "create_idea", {"content": "周末带孩子去做陶艺", "tags": ["亲子"]}),
    ("记个灵感，标签“创业”：社区团购水果", "create_idea", {"content": "社区团购水果", "tags": ["创业"]}),
    ("存个笔记，标签是汽车：每5000公里换一次机油", "create_note", {"content": "每5000公里换一次机油", "tags": ["汽车"]}),
])
def test_command_words_and_tags_are_no_part_of_the_value(filler: IntentLayer, text: str, action: str,
                                                         expected: dict) -> None:
    args = filler.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "query"), [
    # What a question is about, without who it asks, its particles or a remark after it.
    ("您给瞅瞅，我这太极拳坚持了多少天了？", "list_habits", "太极拳"),
    ("家里还有没有退烧药啊？孩子脑门儿有点烫。", "list_inventory", "退烧药"),
    ("How much did the plumber end up costing us?", "list_transactions", "plumber"),
    ("When's Chloe's birthday again? I've gone blank.", "list_birthdays", "Chloe"),
    ("Did I lend my DSLR to someone? Cannot find it anywhere.", "list_inventory", "DSLR"),
    # (an apostrophe quotes nothing between words; a quote is still the query)
    ("When's Biscuit's vet appointment again?", "list_events", "Biscuit vet"),
    ("is 'call mum' still on my list?", "list_tasks", "call mum"),
])
def test_a_questions_query_is_what_it_asks_about(filler: IntentLayer, text: str, action: str, query: str) -> None:
    assert filler.fill(action, text).get("query") == query


@pytest.mark.parametrize(("text", "action", "record"), [
    # A record named by its kind and number, in digits or words: the number is its id.
    ("任务五不要了 删掉", "delete_task", 5),
    ("把任务12删了", "delete_task", 12),
    ("mark task twelve done", "complete_task", 12),
    # (a count of a unit or a time after the kind is no number of a record)
    ("任务三点前做完", "update_task", None),
])
def test_a_record_named_by_its_number(filler: IntentLayer, text: str, action: str, record: int | None) -> None:
    assert filler.fill(action, text).get("id") == record


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Whose kin a person is, said before the name: the name is the person.
    ("我外孙明明的生日是二〇一八年七月二十二日，请帮我添加到生日里", "add_birthday", {"person": "明明"}),
    ("My nephew Lukas has his birthday at the 3rd of May, please save it", "add_birthday", {"person": "Lukas"}),
    ("借给同事小王一把伞", "record_item_lend", {"person": "小王", "item": "伞"}),
    # A person right before an amount ends where the amount begins; the amount is no purpose.
    ("我借给小军三千元", "record_money_lend", {"person": "小军", "direction": "lent", "note": None}),
    ("我借给了小军三千块，说月底还", "record_money_lend", {"person": "小军", "note": None}),
    ("借给老李五百块买药", "record_money_lend", {"person": "老李", "note": "买药"}),
])
def test_a_person_is_their_name(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Yuan and jiao said the spoken way are one amount, and no part of the note.
    ("收了十二块八毛", "record_transaction", {"amount": "十二块八毛", "note": None}),
    ("早饭点的外卖三十八块五，贵死了", "record_transaction", {"amount": "三十八块五"}),
    ("洗洁精买到了，二十三块九", "mark_shopping_bought", {"price": "二十三块九", "item": "洗洁精"}),
    # An event said as going to a named place to do something: the doing, at the place.
    ("下周二上午十点带奶奶去协和医院复查", "create_event", {"title": "带奶奶复查", "location": "协和医院"}),
    ("周六下午两点和阿杰去体育馆打篮球 加进日程", "create_event", {"title": "和阿杰打篮球", "location": "体育馆"}),
    ("下周二下午2点带妈妈去医院复查", "create_event", {"title": "带妈妈去医院复查", "location": None}),
])
def test_amounts_and_places_said_the_chinese_way(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "expected"), [
    # A dose in milligrams or millilitres is the dose, out of the medicine's name; the "a" and
    # "ml" inside "amlodipine" are no quantity.
    ("Kindly record: took Metformin 500 mg after breakfast.", {"medicine": "Metformin", "dose": "500 mg"}),
    ("Log my blood pressure tablet, amlodipine 5mg", {"medicine": "amlodipine", "dose": "5mg"}),
    ("Gave Noah 5ml of Calpol", {"medicine": "Calpol", "dose": "5ml"}),
])
def test_a_medicines_dose(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("record_medicine", text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A restart mid-line: the value said again is the one meant.
    ("周四，不对，周五之前要交小宝的春游回执，记个待办", "create_task", {"due": "周五", "content": "交小宝的春游回执"}),
    ("remind me at 5 no 6 to call mum", "create_task", {"due": "at 6", "content": "call mum"}),
    # A reading in Chinese numerals is its number.
    ("体重又涨了，六十八点五，愁死了，记吧", "record_body", {"weight_kg": "68.5"}),
    ("血糖七点二", "record_health", {"metric": "血糖", "value": "7.2"}),
    ("心率，静息的，六十八", "record_health", {"value": "68"}),
    ("孩子发烧了，刚量的体温三十八度五，记下来", "record_health", {"metric": "体温", "value": "38.5"}),
    ("早上量的血压，高压一百三十八，低压八十六", "record_health", {"value": "138/86"}),
    ("昨天走了一万二千步", "record_health", {"metric": "步数", "value": "12000"}),
    # (digits stay as said; a height is no weight)
    ("早上空腹血糖6.1", "record_health", {"value": "6.1"}),
    ("量了下身高一米七八，比高中长了两厘米", "record_body", {"weight_kg": None}),
    # ("哦不是今天" is no restart: it says which day)
    ("冥想打卡。哦不是今天，是昨天的", "check_in_habit", {"habit": "冥想"}),
])
def test_restarts_and_chinese_readings(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize("text", ["不对，是下周四，时间不变", "我觉得不对，你再看看", "give me 5 no more"])
def test_a_correction_of_the_last_turn_or_a_plain_no_is_no_restart(text: str) -> None:
    from homeagent.intent.spoken import without_restarts

    assert without_restarts(text) == text
