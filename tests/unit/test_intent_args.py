"""Argument filling on the real registry's schemas (the layer trained as the daemon trains
it; nothing is run): the object phrase without the commands around it, a read's filters
read off the question, what points at a record, the slots said inside a name. The
sentences are this file's own, in both languages."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from homeagent.intent.filters import subject, within_days
from homeagent.intent.month_end import month_end
from homeagent.intent.slots import command_clause, strip_command_clauses
from tests.unit.conftest import INTENT_NOW


def _has(got: dict, expected: dict) -> bool:
    return {k: got.get(k) for k in expected} == expected


@pytest.mark.parametrize(("text", "kept"), [
    ("车库门的密码是4321，帮我存一下", "车库门的密码是4321"),
    ("登记一下，阳台柜子里有两桶机油", "阳台柜子里有两桶机油"),
    ("酱油快没了 加进清单", "酱油快没了"),
    ("The plumber's number is 555-0102, put it in my contacts", "The plumber's number is 555-0102"),
    ("Book club moved to Friday 7pm, calendar please", "Book club moved to Friday 7pm"),
    # A clause with words of its own stays; a command that is all there is stays.
    ("买鸡蛋，放冰箱", "买鸡蛋，放冰箱"),
    ("记一下", "记一下"),
])
def test_a_clause_that_only_commands_is_cut(text: str, kept: str) -> None:
    assert strip_command_clauses(text) == kept


def test_command_clause_knows_commands_from_content() -> None:
    assert command_clause("先记下来") and command_clause("add that to the list")
    assert not command_clause("放冰箱") and not command_clause("call the vet")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("阳台洗衣机的保修卡在电视柜第二格，记一下", "create_inventory_item", {"location": "电视柜第二格"}),
    ("表舅的生日是8月9号，帮我记住", "add_birthday", {"person": "表舅"}),
    ("My gym locker code is 7731, write it down", "create_note", {"content": "gym locker code is 7731"}),
    ("换机油整完了 给我打个勾", "complete_task", {"content": "换机油"}),  # (was 给我打个勾)
    ("交电费，打个勾", "complete_task", {"content": "交电费"}),
])
def test_command_tails_stay_out_of_the_values(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("购物单上有没有洗衣液？", "list_shopping", {"query": "洗衣液"}),
    ("Is toothpaste on the shopping list?", "list_shopping", {"query": "toothpaste"}),
    ("Where did we put the camping stove?", "list_inventory", {"query": "camping stove"}),
    ("剪刀放在哪个柜子了", "list_inventory", {"query": "剪刀"}),
    ("未来两周内谁过生日", "list_birthdays", {"within_days": 14}),
    ("birthdays within the next 10 days", "list_birthdays", {"within_days": 10}),
    ("把已经过期的倒计时也列出来", "list_countdowns", {"include_past": True}),
    ("show every countdown, including the ones that already passed", "list_countdowns", {"include_past": True}),
    ("还有哪些没完成的待办", "list_tasks", {"status": "open"}),
    ("阁楼里放的东西都有啥", "list_inventory", {"location": "阁楼"}),
    ("上回吃感冒药是哪天", "list_health", {"kind": "medicine"}),
    ("我最近的心率怎么样", "list_health", {"kind": "metric", "metric": "心率"}),
    ("How has my heart rate been?", "list_health", {"kind": "metric", "metric": "heart rate"}),
    # Which records: the bought ones too is all of them; still to do is the open ones.
    ("购物清单全部列出来，买过的也要", "list_shopping", {"status": "all"}),
    ("show the whole shopping list, bought stuff included", "list_shopping", {"status": "all"}),
    ("show me all my tasks, done ones too", "list_tasks", {"status": "all"}),
    ("还有什么东西没买", "list_shopping", {"status": "pending"}),
    ("清单上哪些已经买过了", "list_shopping", {"status": "bought"}),
    ("what's still on my to-do list?", "list_tasks", {"status": "open"}),
    ("what goals do I have going?", "list_goals", {"status": "active"}),
    # How many: the latest n.
    ("显示我最近获得的5个成就", "list_achievements", {"limit": 5}),
    ("list my latest 3 achievements", "list_achievements", {"limit": 3}),
    ("最近10笔账", "list_transactions", {"limit": 10}),
    ("show my last five transactions", "list_transactions", {"limit": 5}),
    # a cap said as one, and where a page starts
    ("列一下已经完成的任务，最多十条", "list_tasks", {"status": "done", "limit": 10}),
    ("列出最近三张便签", "list_notes", {"limit": 3}),
    ("日程一页显示5条，从第6条开始给我看", "list_events", {"limit": 5, "offset": 5}),
    ("show at most 10 tasks", "list_tasks", {"limit": 10}),
    # Where: the place the things are kept, not the words that ask for them.
    ("列出储藏室里放了哪些东西", "list_inventory", {"location": "储藏室"}),
    ("list everything we keep in the garage", "list_inventory", {"location": "garage"}),
    ("what do we have up in the attic?", "list_inventory", {"location": "attic"}),
    ("阁楼上都有什么", "list_inventory", {"location": "阁楼"}),
    ("看下仓库里的货", "list_inventory", {"location": "仓库"}),  # (was 看下仓库)
    ("把冰箱里的东西列给我", "list_inventory", {"location": "冰箱"}),  # (was 把冰箱)
])
def test_a_reads_filters_come_from_the_question(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action"), [
    ("我还有哪些任务", "list_tasks"), ("what's on my shopping list", "list_shopping"),
    ("看看心愿单", "list_wishlist"), ("open the wishlist", "list_wishlist"), ("upcoming birthdays", "list_birthdays"),
])
def test_a_question_for_the_whole_list_gets_no_query(layer: IntentLayer, text: str, action: str) -> None:
    assert "query" not in layer.fill(action, text)


def test_subject_and_within_days() -> None:
    assert subject("有没有关于车险的笔记") == "车险"
    assert subject("do I have anything about the boiler") == "boiler"
    assert within_days("接下来一个月") == 30 and within_days("in the next 3 weeks") == 21 and within_days("下周") is None


def test_ten_fen_before_a_word_is_very_and_no_score(layer: IntentLayer) -> None:
    assert "score" not in layer.fill("record_mood", "今天十分开心")
    assert "score" not in layer.fill("record_mood", "心情五分钟就好了")


@pytest.mark.parametrize(("text", "action", "absent"), [
    # A count of days is a period, never how many rows; a count of things is not a range.
    ("最近3天花了多少", "list_transactions", "limit"),
    ("show my events for the last 2 weeks", "list_events", "limit"),
    ("what did I eat in the last 3 days", "list_diets", "limit"),
    ("did I spend just 5 dollars on coffee", "list_transactions", "limit"),
    ("I only have 3 tasks left?", "list_tasks", "limit"),
])
def test_a_count_of_days_is_no_limit(layer: IntentLayer, text: str, action: str, absent: str) -> None:
    assert absent not in layer.fill(action, text)


@pytest.mark.parametrize(("text", "action", "absent"), [
    # "我这个月" is who and when, no category: narrowed by it, the month's spending was "none found".
    ("我这个月花了多少钱", "list_transactions", "category"),
    ("我上个月花了多少钱", "list_transactions", "category"),
])
def test_a_filter_of_only_question_and_date_words_is_none(layer: IntentLayer, text: str, action: str,
                                                          absent: str) -> None:
    assert absent not in layer.fill(action, text)


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("缴燃气费那条待办可以划掉了", "complete_task", {"content": "缴燃气费"}),
    ("戒糖那个目标放弃吧", "update_goal_progress", {"title": "戒糖"}),
    ("先把背单词这个习惯暂停一下", "update_habit", {"habit": "背单词", "status": "paused"}),
    ("把交水费的截止时间改到下周三", "update_task", {"content": "交水费"}),
    ("postpone the passport task to next Friday", "update_task", {"content": "passport"}),
    ("把“换灯泡”标成已完成", "complete_task", {"content": "换灯泡"}),
])
def test_what_points_at_a_record_is_not_its_words(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("今天心情打4分，还行", "record_mood", {"score": 4}),
    ("Mood is 3 out of 5 today", "record_mood", {"score": 3}),
    ("Finished reading Circe, 4 stars", "add_book", {"title": "Circe", "rating": 4}),
    ("早饭：燕麦粥，大概300大卡", "record_diet", {"meal": "breakfast", "calories": 300}),
    ("dinner was a veggie burger, about 700 calories", "record_diet", {"calories": 700}),
    ("taxi to the airport was 40 euros", "record_transaction", {"currency": "EUR"}),
    ("在东京吃拉面花了1200日元", "record_transaction", {"currency": "JPY"}),
    ("量了体温37度8", "record_health", {"metric": "体温", "value": "37.8"}),
    ("blood pressure 118 over 76", "record_health", {"value": "118/76"}),
    ("腰围量出来81厘米", "record_body", {"waist_cm": 81}),
    ("下周二晚上8点同学聚会，在老码头", "create_event", {"location": "老码头"}),
    ("Friday 6pm, 45-minute swim lesson at the Aquatic Center", "create_event",
     {"duration_minutes": 45, "location": "Aquatic Center"}),
    ("晚饭吃了个下午茶蛋糕", "record_diet", {"meal": "dinner"}),
    ("下午茶吃了两块饼干", "record_diet", {"meal": "snack"}),
])
def test_slots_said_inside_the_sentence_are_their_own(layer: IntentLayer, text: str, action: str,
                                                      expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


def test_a_month_end_is_that_months_last_day() -> None:
    # The date words read "6月底" as this month's end; the month said is meant.
    assert month_end("6月底", INTENT_NOW) == "2026-06-30"
    assert month_end("by the end of August", INTENT_NOW) == "2026-08-31"
    assert month_end("2月底", INTENT_NOW) == "2027-02-28"  # already past this year: next year's
    assert month_end("明天", INTENT_NOW) is None


def test_a_goals_month_end_deadline_is_resolved(layer: IntentLayer) -> None:
    args = layer.fill("create_goal", "定个目标，9月底前跑完200公里")
    assert args.get("deadline") == "2026-09-30" and args.get("target") == 200, args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("记录心情：有点烦躁，工作太多", "record_mood", {"mood": "烦躁"}),
    ("Log my mood: anxious about the exam", "record_mood", {"mood": "anxious", "note": "the exam"}),
    ("保存地址：外婆家，鼓楼区中山路12号", "add_address", {"label": "外婆家", "address": "鼓楼区中山路12号"}),
    ("添加联系人：赵磊，邻居，电话13700001234", "add_person", {"person": "赵磊", "relation": "邻居"}),
    ("Add a contact: Nina Park, our piano teacher, 555-0133", "add_person",
     {"person": "Nina Park", "relation": "piano teacher"}),
    ("把周阿姨加进通讯录", "add_person", {"person": "周阿姨"}),
])
def test_what_follows_a_command_and_a_colon_is_the_value(layer: IntentLayer, text: str, action: str,
                                                         expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("记得买三袋猫粮", "add_shopping_item", {"item": "猫粮", "quantity": "三袋"}),
    ("洗衣液快用完了，加到购物单", "add_shopping_item", {"item": "洗衣液"}),
    ("我想要一个投影仪，放心愿单里", "add_wishlist_item", {"item": "投影仪"}),
    ("add 2 bags of rice to the list", "add_shopping_item", {"item": "rice"}),
    ("健身卡每月自动扣199", "record_transaction", {"recurring": "monthly"}),
    ("iCloud storage, 2.99 a month", "record_transaction", {"recurring": "monthly"}),
    ("周末加油花了三百二", "record_transaction", {"amount": 320}),
    ("Got a bonus, 1,500 dollars", "record_transaction", {"amount": 1500, "currency": "USD", "type": "income"}),
    ("Mark the piano goal as done", "update_goal_progress", {"title": "piano"}),
    ("存钱目标现在已经存到8000了", "update_goal_progress", {"title": "存钱"}),
    # the total reached, the goal named with 目标 or without, in 万, w and spoken thousands
    ("攒钱那个现在攒到三千八了", "update_goal_progress", {"title": "攒钱", "progress": 3800}),
    ("盖房攒钱那个目标，现在攒到2w了", "update_goal_progress", {"progress": 20000}),
    ("营业额目标更新一下 目前两万一", "update_goal_progress", {"title": "营业额", "progress": 21000}),
    ("跑步那个目标跑到120公里了", "update_goal_progress", {"title": "跑步", "progress": 120}),
    # a score in Chinese numerals where its clause ends, or after 打
    ("心情：巴适得板 五分", "record_mood", {"mood": "巴适得板", "score": 5}),
    ("今天还行 3分", "record_mood", {"mood": "还行", "score": 3}),
    ("番剧 葬送的芙莉莲 十分！", "record_movie", {"rating": 10}),
    ("看了流浪地球 满分", "record_movie", {"title": "流浪地球", "rating": 10}),
])
def test_counts_states_periods_and_amounts_in_words(layer: IntentLayer, text: str, action: str,
                                                    expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "expected"), [
    ("做个学习计划：练书法，每天半小时", {"subject": "书法", "minutes_per_day": 30}),
    ("给女儿排个学英语的计划，每周一三五，每次25分钟", {"subject": "英语", "minutes_per_day": 25}),
    ("a study plan for chemistry, an hour a day", {"subject": "chemistry", "minutes_per_day": 60}),
])
def test_a_study_plans_subject_and_minutes(layer: IntentLayer, text: str, expected: dict) -> None:
    args = layer.fill("create_study_plan", text)
    assert _has(args, expected), args


def test_a_typo_of_a_filter_word_is_no_query(layer: IntentLayer) -> None:
    assert "query" not in layer.fill("list_tasks", "show my finsihed tasks")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("took aspirin for my back", "record_medicine", {"medicine": "aspirin"}),
    ("just took 200mg ibuprofen", "record_medicine", {"medicine": "ibuprofen", "dose": "200mg"}),
    ("睡前吃了一片褪黑素", "record_medicine", {"medicine": "褪黑素"}),
    ("I watered the ferns in the hallway", "record_plant_watering", {"plant": "ferns"}),
    ("I'm currently reading Piranesi", "add_book", {"title": "Piranesi"}),
    ("lent my ladder to Omar", "record_item_lend", {"item": "ladder", "person": "Omar"}),
    ("Priya returned the tent", "record_item_lend", {"item": "tent", "person": "Priya"}),
    ("把投影仪借给了隔壁小王", "record_item_lend", {"item": "投影仪", "person": "小王"}),
    ("从阿杰那借了一个帐篷", "record_item_lend", {"item": "帐篷", "person": "阿杰"}),
    ("借给朋友老陈500块，下周还", "record_money_lend", {"person": "老陈"}),
])
def test_names_without_their_speaker_dose_or_place(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("记一条只有我能看的笔记：网银U盾在书桌抽屉", "create_note", {"private": True}),
    ("置顶一张便签：周五前交水电费", "create_memo", {"pinned": True}),
    ("记一下外公的生日，农历腊月初八", "add_birthday", {"lunar": True}),
    ("在露营清单那条笔记后面加一句：带驱蚊水", "update_note", {"title": "露营清单", "append": "带驱蚊水"}),
    ('append "check tyre pressure" to my road trip note', "update_note",
     {"title": "road trip", "append": "check tyre pressure"}),
    ("rename task 7 to book the vet for Saturday", "update_task", {"id": 7, "new_content": "book the vet for Saturday"}),
    ("旅行计划那篇笔记重命名为京都行程", "update_note", {"new_title": "京都行程"}),
    ("新建一条笔记，标题叫车险，内容是五月到期，记得比价", "create_note", {"title": "车险", "content": "五月到期，记得比价"}),
    ("今天的日记，天气多云，下午去爬了山", "write_diary", {"weather": "多云"}),
])
def test_flags_and_a_notes_parts_said_in_words(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("待办加一条：修自行车", "create_task", {"content": "修自行车"}),
    ("存个菜谱：糖醋排骨，排骨一斤醋两勺", "add_recipe", {"dish": "糖醋排骨"}),
    ("save a recipe for lemon bars: lemons, butter, flour", "add_recipe", {"dish": "lemon bars"}),
])
def test_a_name_before_its_details(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


def _grader():  # bench/intent_eval.py's argument grading
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "intent_eval.py"
    spec = importlib.util.spec_from_file_location("intent_eval_grading", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_grader_resolves_a_recorded_time_as_the_action_stores_it() -> None:
    grade = _grader()
    # A record of what happened reads "早上8点" / "at 7" as past (this morning), as the action does.
    assert grade.arg_matches("record_trajectory", "time", "2026-03-04T08:00", "早上8点")
    assert grade.arg_matches("record_pet_activity", "time", "2026-03-04T07:00", "at 7")
    assert not grade.arg_matches("record_trajectory", "time", "2026-03-04T08:00", "明天早上8点")
    # What is planned stays in the future: Thursday is tomorrow's, 6月底 is June's end.
    assert grade.arg_matches("create_event", "start", "2026-03-05T20:00", "周四晚上8点")
    assert not grade.arg_matches("create_event", "start", "2026-02-26T20:00", "周四晚上8点")


def test_the_grader_reads_an_ended_repeat_as_the_action_does() -> None:
    grade = _grader()
    # "以后不用重复了" → repeat "none": the action ends the rule for none / no / 不重复 alike.
    assert grade.arg_matches("update_task", "repeat", "none", "none")
    assert grade.arg_matches("update_event", "repeat", "none", "不重复")
    assert not grade.arg_matches("update_task", "repeat", "none", "每天")
    assert not grade.arg_matches("update_task", "repeat", "每天", "none")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("the picnic got rained out, drop its countdown", "delete_countdown", {"title": "picnic"}),
    ("delete the note with the old alarm code", "delete_note", {"title": "alarm code"}),
    ("取消周日爬山的安排", "delete_event", {"title": "爬山"}),
    ("香油到手了", "mark_shopping_bought", {"item": "香油"}),
    ("remove countdown 5", "delete_countdown", {"id": 5}),
])
def test_a_looked_up_record_is_its_words(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


def test_the_grader_finds_a_looked_up_record_as_the_action_does() -> None:
    grade = _grader()
    # Every word of the given text within the record's name: the action finds that record.
    assert grade.finds_same("delete_event", "title", "dentist appointment", "dentist")
    assert grade.finds_same("check_in_habit", "habit", "Spanish practice", "spanish")
    assert grade.finds_same("update_task", "content", "交房租", "房租")
    # Words the record's name does not hold find nothing, or another record.
    assert not grade.finds_same("delete_event", "title", "牙医", "看牙医")
    assert not grade.finds_same("delete_event", "title", "dentist appointment", "dentist 掉")
    assert not grade.finds_same("delete_event", "title", "dentist appointment", "")
    # A new record is stored as said: the rule is for records looked up, not made.
    assert not grade.finds_same("create_event", "title", "dentist appointment", "dentist")


def test_the_grader_reads_a_category_asked_as_the_query_as_the_action_reads_it() -> None:
    grade = _grader()
    # list_transactions' query searches the note and the category: 餐饮 finds the 餐饮 expenses.
    assert grade.query_covers("list_transactions", "category", "餐饮", {"query": "餐饮", "type": "expense"})
    # Another word, a category given as well, or a read whose query skips the category: no.
    assert not grade.query_covers("list_transactions", "category", "餐饮", {"query": "交通"})
    assert not grade.query_covers("list_transactions", "category", "餐饮", {"query": "餐饮", "category": "交通"})
    assert not grade.query_covers("list_events", "category", "work", {"query": "work"})


def test_the_grader_reads_water_as_the_millilitres_the_action_stores() -> None:
    grade = _grader()
    # record_water stores millilitres: "一杯" and "1杯", "两杯" and "2 glasses" are one amount.
    assert grade.arg_matches("record_water", "amount", "1杯", "一杯")
    assert grade.arg_matches("record_water", "amount", "2杯", "两杯")
    assert grade.arg_matches("record_water", "amount", "2 glasses", "two glasses")
    assert not grade.arg_matches("record_water", "amount", "2杯", "一杯")
    assert grade.arg_matches("record_water", "amount", "2 glasses", "500ml")  # two 250 ml cups, as stored
    assert not grade.arg_matches("record_water", "amount", "2 glasses", "300ml")
    assert not grade.arg_matches("record_water", "amount", "2杯", "两碗")  # a unit the action does not know


def test_the_grader_takes_a_goals_title_with_or_without_the_number_it_stores() -> None:
    grade = _grader()
    # The target and unit are stored beside the title: "read 24 books" and "read books" with
    # target 24 are one goal, as are 减重5公斤 and 减重 with target 5 公斤.
    assert grade.goal_title_same("create_goal", "title", "read 24 books", {"title": "read books", "target": 24})
    assert grade.goal_title_same("create_goal", "title", "cycle 300 km",
                                 {"title": "cycle", "target": 300, "unit": "km"})
    assert grade.goal_title_same("create_goal", "title", "减重5公斤", {"title": "减重", "target": 5, "unit": "公斤"})
    assert grade.goal_title_same("create_goal", "title", "read books", {"title": "read 24 books", "target": 24})
    # The unit stored beside a title that never held the number ("read books", unit books).
    assert grade.goal_title_same("create_goal", "title", "read 24 books",
                                 {"title": "read books", "target": 24, "unit": "books"})
    assert grade.goal_title_same("create_goal", "title", "run 100 km", {"title": "run", "target": 100, "unit": "km"})
    # Without the target stored, another number, or other words: no.
    assert not grade.goal_title_same("create_goal", "title", "read 24 books", {"title": "read books"})
    assert not grade.goal_title_same("create_goal", "title", "read 24 books", {"title": "read books", "target": 12})
    assert not grade.goal_title_same("create_goal", "title", "lose 5 kg",
                                     {"title": "lose before summer", "target": 5, "unit": "kg"})
    assert not grade.goal_title_same("update_goal_progress", "title", "read 24 books",
                                     {"title": "read books", "target": 24})


def test_the_grader_reads_a_weight_in_jin_as_the_kilograms_record_body_stores() -> None:
    grade = _grader()
    assert grade.arg_matches("record_body", "weight_kg", 64, "一百二十八斤")
    assert grade.arg_matches("record_body", "weight_kg", 65, "130斤")
    assert not grade.arg_matches("record_body", "weight_kg", 128, "一百二十八斤")
    assert grade.arg_matches("record_body", "weight_kg", 64, "64公斤")


def test_the_grader_reads_a_weight_in_pounds_as_record_body_stores_it_and_a_label_so_said_too() -> None:
    grade = _grader()
    assert grade.arg_matches("record_body", "weight_kg", 83.9, "185 lb")
    assert grade.arg_matches("record_body", "weight_kg", "185 lb", "185 pounds")  # one weight, as stored
    assert grade.arg_matches("record_body", "weight_kg", "185 lb", 83.9)
    assert not grade.arg_matches("record_body", "weight_kg", "185 lb", 185)  # 185 kg is another weight
    assert grade.arg_matches("record_body", "weight_kg", "130斤", 65)


@pytest.mark.parametrize(("text", "action", "expected"), [
    # w is 万 as typed in Chinese: 1.5w, 1w.
    ("工资到了，1.5w，记到收入", "record_transaction", {"amount": 15000, "type": "income"}),
    ("俺从俺姐那借了1w买化肥", "record_money_lend", {"amount": 10000, "direction": "borrowed"}),
    ("房租2.2W", "record_transaction", {"amount": 22000}),
])
def test_an_amount_in_wan_typed_as_w(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "key"), [
    # A closing clause that only asks to keep the record is no note: 帮我存一存, 你记着点.
    ("沈大成有张八五折的券，下礼拜天到期，帮我存一存", "add_coupon", "note"),
    ("那个电池，五号电池，你给我放到买东西的单子上", "add_shopping_item", "note"),
    ("二甲双胍早上吃了两片，你记着点", "record_medication", "note"),
])
def test_a_closing_command_clause_is_no_note(layer: IntentLayer, text: str, action: str, key: str) -> None:
    args = layer.fill(action, text)
    assert key not in args or not any(w in str(args[key]) for w in ("记", "存", "放到")), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # The kind of record named in the closing clause is its cue, not a command word to drop.
    ("今天流水一共八千六百四十块五毛，记收入", "record_transaction", {"type": "income"}),
    ("小囡今天凌晨两点烧到39.2度，记一笔体温", "record_health", {"metric": "体温"}),
])
def test_a_closing_clause_that_names_the_kind_keeps_it(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # A month and day typed in figures is the record's day, not part of its name.
    ("交房租那个待办改到3/10", "update_task", {"due": "3/10"}),
    ("3.12之前把房租5.2k转给房东，加到待办里", "create_task", {"due": "3.12", "content": "把房租5.2k转给房东"}),
    ("例假是3.1开始的，忘记记了，补上", "record_period", {"start": "3.1"}),
    ("3.2去社区医院量了眼压，医生说没事，记个就诊", "record_medical", {"date": "3.2", "note": "医生说没事"}),
    # A decimal is no day: a temperature, an amount.
    ("体温38.5", "record_health", {"value": "38.5"}),
    ("打车花了5.2", "record_transaction", {"amount": "5.2"}),
    # Beside a film or a book, 10/10 and 8/10 are its score.
    ("just binged all of The Bear, 10/10 no notes", "record_movie", {"rating": 10, "date": None}),
    ("watched 流浪地球2 last night, 8/10", "record_movie", {"rating": 8, "date": "last night"}),
])
def test_a_month_and_day_typed_in_figures(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # Slang around a value is no part of it.
    ("帮我建个中考倒计时 6月20号 dddd", "create_countdown", {"title": "中考"}),
    ("昨天晚饭螺蛳粉yyds，大概六百大卡", "record_diet", {"food": "螺蛳粉"}),
    ("lowkey finish my chem lab report by friday", "create_task", {"content": "finish my chem lab report"}),
    ("心愿单加个switch2 求求了", "add_wishlist_item", {"item": "switch2"}),
    # A value that is all slang stays what was said.
    ("心情绝绝子", "record_mood", {"mood": "绝绝子"}),
])
def test_slang_around_a_value_is_no_part_of_it(layer: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = layer.fill(action, text)
    assert _has(args, expected), args


@pytest.mark.parametrize(("text", "action", "key", "value", "kept"), [
    # a 24-hour time in four figures is the record's time, out of its words
    ("task: renew BLS cert before 0700 Mon", "create_task", "due", "2026-03-09T07:00", {"content": "renew BLS cert"}),
    ("water 750 ml at 0200", "record_water", "time", "2026-03-04T02:00", {}),
    ("metoprolol 25mg taken 0830", "record_medicine", "time", "2026-03-04T08:30", {"medicine": "metoprolol"}),
    # four figures that are money stay money
    ("paid 1200 today for rent", "record_transaction", "date", "2026-03-04", {"amount": "1200"}),
])
def test_a_24_hour_time_is_read_where_it_cannot_be_a_year_or_money(layer: IntentLayer, text: str, action: str, key: str,
                                                                   value: str, kept: dict) -> None:
    grade = _grader()
    args = layer.fill(action, text)
    assert grade.arg_matches(action, key, value, args.get(key)), args
    assert {k: args.get(k) for k in kept} == kept


@pytest.mark.parametrize(("text", "action", "key", "value"), [
    ("add a to-do: chase flat 2 about access for the gas safety check, Tuesday week", "create_task", "due", "2026-03-17"),
    ("viewing with the new tenants Tuesday week at 6pm", "create_event", "start", "2026-03-17T18:00"),
    ("dentist a week Friday", "create_event", "start", "2026-03-13"),
])
def test_a_weekday_week_is_read_whole(layer: IntentLayer, text: str, action: str, key: str, value: str) -> None:
    args = layer.fill(action, text)
    assert _grader().arg_matches(action, key, value, args.get(key)), args
    assert "week" not in str(args.get("title", args.get("content", "")))


@pytest.mark.parametrize(("text", "expected"), [
    # a contact said in spaced parts: the name, who they are, the number
    ("添加联系人 张嬢嬢 隔壁邻居 13908231234", {"person": "张嬢嬢", "relation": "隔壁邻居", "phone": "13908231234"}),
    ("存个电话 老刘 钓友 15045678901", {"person": "老刘", "relation": "钓友", "phone": "15045678901"}),
    ("加个联系人，王老师，小宝的班主任", {"person": "王老师", "relation": "小宝的班主任"}),
])
def test_a_contacts_spaced_parts(layer: IntentLayer, text: str, expected: dict) -> None:
    args = layer.fill("add_person", text)
    assert {k: args.get(k) for k in expected} == expected


def test_a_greeting_word_is_only_a_whole_word() -> None:
    from homeagent.intent.slots import strip_polite
    assert strip_polite("high priority tasks. list.").startswith("high")  # (was "gh priority tasks")
    assert strip_polite("umbrella on the list") == "umbrella on the list"
    assert strip_polite("okra please") == "okra"
    assert strip_polite("hi, ok, can you remind me to call mum") == "remind me to call mum"


def test_a_priority_listing_said_as_a_ticket(layer: IntentLayer) -> None:
    assert layer.fill("list_tasks", "high priority tasks. list.") == {"priority": "high"}  # (was query "gh")
