"""Argument filling, the classes of error unseen sets showed: the words around a record's
name that are not the name (vague times, a deadline's word, asides, the asking, commands
on the list), money's direction and category, an event's end and place. The sentences
are this file's own, in both languages.

The layer here is not trained: `fill` reads the registry's schemas and the templates
only, so the templates are built and the classifier is left untouched (fast)."""

from __future__ import annotations

import pytest

from homeagent.intent import IntentLayer
from tests.unit.conftest import INTENT_NOW, has_args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # vague time words and the asking are not the task
    ("等会儿三点记得去银行取钱", "create_task", {"content": "去银行取钱"}),
    ("回头周五提醒一下我给物业打电话", "create_task", {"content": "给物业打电话"}),
    # a deadline's own word stays with the date
    ("新待办 交水费 截止4月2号", "create_task", {"content": "交水费"}),
    # what points at a record, and the command around it
    ("换灯泡那活儿做完了", "complete_task", {"content": "换灯泡"}),
    ("把体检从日程上删掉", "delete_event", {"title": "体检"}),
    ("下周三上午10点的面试放进日程", "create_event", {"title": "面试"}),
    # a name introduced by 叫; an aside about forgetting or for how long
    ("加个叫拉伸的习惯", "create_habit", {"habit": "拉伸"}),
    ("前天忘了打卡练字", "check_in_habit", {"habit": "练字"}),
    ("游泳先暂停一段时间", "update_habit", {"status": "paused", "habit": "游泳"}),
    # a meal's word before the food
    ("记一下早饭吃的煎饼果子", "record_diet", {"meal": "breakfast", "food": "煎饼果子"}),
])
def test_the_name_is_only_the_record_s_words_zh(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "expected"), [
    ("坐地铁去公司6元", {"type": "expense"}),
    ("记账：菜市场买肉80", {"type": "expense"}),
    ("交了物业费1200", {"type": "expense"}),
    ("二手书卖了回了60块", {"type": "income"}),
    ("年终奖到账20000", {"type": "income"}),
    ("Received 150 for the old bike", {"type": "income"}),
    ("Bus fare 3 dollars", {"type": "expense"}),
    ("买蛋糕花了128，记到生日类", {"type": "expense", "category": "生日"}),
])
def test_money_s_direction_and_category_come_from_the_words(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("record_transaction", text)
    assert has_args(args, expected), args


def test_a_question_about_money_gets_a_direction_only_when_said(filler: IntentLayer) -> None:
    assert filler.fill("list_transactions", "How much have I been spending this week?").get("type") == "expense"
    assert "type" not in filler.fill("list_transactions", "show this week's transactions")


@pytest.mark.parametrize(("text", "expected"), [
    ("后天上午九点到十一点在二号教室开家长会",
     {"start": "后天上午九点", "end": "后天上午十一点", "location": "二号教室", "title": "家长会"}),
    ("周六下午3点到5点在市图书馆参加读书会", {"end": "周六下午5点", "location": "市图书馆", "title": "读书会"}),
])
def test_an_event_s_range_and_place(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("create_event", text)
    assert has_args(args, expected), args


def test_a_place_that_is_all_there_is_stays_whole(filler: IntentLayer) -> None:
    args = filler.fill("update_event", "把例会的地点改成5楼会议室")
    assert args.get("location") == "5楼会议室", args


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a date said after the record's words is its own slot
    ("Delete the dentist visit on Thursday", "delete_event", {"title": "dentist visit"}),
    ("I have to renew the car insurance sometime before the 20th, make it a task", "create_task",
     {"content": "renew the car insurance"}),
    ("Add a task for Friday afternoon at 3: return the library books", "create_task",
     {"content": "return the library books", "due": "Friday afternoon at 3"}),
    # the command, the list and asides around the words
    ("todo clean the gutters", "create_task", {"content": "clean the gutters"}),
    ("I want to track journaling every day as a habit", "create_habit", {"habit": "journaling"}),
    ("Set up a habit - stretch, twice a week", "create_habit", {"habit": "stretch"}),
    ("Remove the yoga habit completely, history and all", "delete_habit", {"habit": "yoga"}),
    ("Log yesterday's piano practice as done", "check_in_habit", {"habit": "piano practice"}),
    ("bin the wifi note, it's old", "delete_note", {"title": "wifi"}),
    ("Could you add dish soap to the groceries?", "add_shopping_item", {"item": "dish soap"}),
    ("I grabbed the bin bags on the way home", "mark_shopping_bought", {"item": "bin bags"}),
    ("Memo for the family - the car is in for repair", "create_memo", {"content": "the car is in for repair"}),
    ("new task - book the MOT, high priority", "create_task", {"content": "book the MOT", "priority": "high"}),
])
def test_the_name_is_only_the_record_s_words_en(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


def test_what_a_note_says_keeps_its_own_dates_and_places(filler: IntentLayer) -> None:
    assert filler.fill("create_memo", "Stick a memo: the window cleaner comes Friday")["content"] in (
        "the window cleaner comes Friday", "window cleaner comes Friday")
    assert filler.fill("create_idea", "Idea: a herb garden on the balcony")["content"] in (
        "a herb garden on the balcony", "herb garden on the balcony")


@pytest.mark.parametrize(("text", "action", "key", "value"), [
    ("Got my bonus today, 3,500", "record_transaction", "amount", 3500),
    ("I'd love a new sofa one day, about 4,800, add it to the wishlist", "add_wishlist_item", "price", 4800),
])
def test_an_amount_with_thousands_separators_is_read_whole(filler: IntentLayer, text: str, action: str, key: str,
                                                          value: int) -> None:
    assert float(filler.fill(action, text).get(key, 0)) == value


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("后天早上七点提醒我把快递寄出去", "create_task", {"content": "把快递寄出去"}),  # a 把 clause is whole
    ("一会儿去菜场，帮我把葱加进去", "add_shopping_item", {"item": "葱"}),
    ("心愿单再加一个投影仪", "add_wishlist_item", {"item": "投影仪"}),
    ("菜谱里加一道糖醋排骨", "add_recipe", {"dish": "糖醋排骨"}),
    ("灵感记一下，周末带娃去露营", "create_idea", {"content": "周末带娃去露营"}),
    ("便签写上：水表在楼道左边", "create_memo", {"content": "水表在楼道左边"}),
    ("充电宝放在玄关抽屉", "create_inventory_item", {"item": "充电宝"}),
    ("囤了4袋大米在储物间，登记一下", "create_inventory_item", {"item": "大米"}),
    ("取消去成都那个倒计时", "delete_countdown", {"title": "成都"}),  # finds "去成都" as it finds "成都"
    ("读书的目标再加5", "update_goal_progress", {"title": "读书"}),
    ("喂过猫咪年糕了", "record_pet_activity", {"pet": "年糕"}),
    ("窗台的绿萝浇了300毫升水", "record_plant_watering", {"plant": "绿萝"}),
    ("在韩国买化妆品花了50000韩元", "record_transaction", {"type": "expense"}),
    ("在香港吃饭花了300港币", "record_transaction", {"amount": 300, "currency": "HKD"}),
])
def test_more_words_around_a_chinese_name(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("Log yesterday's reading as done", "check_in_habit", {"habit": "reading", "date": "yesterday"}),
    ("Write down that the spare key is under the mat, keep it private", "create_note",
     {"content": "the spare key is under the mat", "private": True}),
    ("Make a note titled Bike sizes: Leo 20 inch, Emma 24 inch", "create_note",
     {"title": "Bike sizes", "content": "Leo 20 inch, Emma 24 inch"}),
    ("Note that I felt proud after the recital", "record_mood", {"mood": "proud"}),
    ("I just had my vitamins", "record_medicine", {"medicine": "vitamins"}),
    ("we need 4 packs of napkins for the picnic, list it", "add_shopping_item", {"item": "napkins"}),
    ("The kettle's broken, we need a new one", "add_shopping_item", {"item": "kettle"}),
    ("countdown for Leo's recital, 3rd of May", "create_countdown", {"title": "Leo's recital"}),
    ("The spare tyre lives in the garage", "create_inventory_item", {"item": "spare tyre"}),
    ("Lent my ladder to Greg", "record_item_lend", {"item": "ladder", "person": "Greg"}),
    ("I borrowed 300 from my brother Sam", "record_money_lend", {"person": "Sam"}),
    ("Nina paid me back the 40 she owed", "record_money_lend", {"person": "Nina"}),
])
def test_more_words_around_an_english_name(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("周日上午十点到十二点在奥体打羽毛球", "create_event", {"location": "奥体", "title": "打羽毛球", "end": "周日上午十二点"}),
    ("新增物品：灭火器，放在厨房门后", "create_inventory_item", {"item": "灭火器"}),
    ("dinner吃的牛肉面", "record_diet", {"meal": "dinner", "food": "牛肉面"}),
    ("书单加一本《活着》，余华的", "add_book", {"title": "活着", "author": "余华"}),
    ("Add Circe by Madeline Miller to my reading list", "add_book", {"title": "Circe", "author": "Madeline Miller"}),
    ("前天晚上只睡了五个钟", "record_sleep", {"hours": 5}),
    ("新建习惯 游泳 一周两次", "create_habit", {"habit": "游泳", "frequency": "weekly"}),
])
def test_places_authors_hours_and_times_a_week(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


def test_a_week_s_count_is_no_day(filler: IntentLayer) -> None:
    assert "remind_at" not in filler.fill("create_habit", "新建习惯 游泳 一周两次")


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("Start a habit of calling Grandpa, once a week", "create_habit", {"target": 1}),
    ("Sam gave back my tent", "record_item_lend", {"returned": True}),
    ("老李把扳手还回来了", "record_item_lend", {"returned": True}),
    ("Jo paid me back the 30", "record_money_lend", {"repayment": True}),
    ("小周的300我还了", "record_money_lend", {"repayment": True}),
    ("Borrowed a tent from Nick", "record_item_lend", {"item": "tent", "person": "Nick"}),
    ("Max was born 2019-04-02, save his birthday", "add_birthday", {"person": "Max"}),
    ("we need dish soap, the lemon one", "add_shopping_item", {"item": "dish soap"}),
])
def test_counts_returns_and_names_said_in_passing(filler: IntentLayer, text: str, action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


def test_a_promise_to_give_back_is_no_return(filler: IntentLayer) -> None:
    assert "returned" not in filler.fill("record_item_lend", "Borrowed a tent from Nick, I'll give it back on Sunday")


@pytest.mark.parametrize(("text", "expected"), [
    ("女儿身高量了一下，121cm", {"height_cm": 121}),
    ("Tom is 140 cm tall now", {"height_cm": 140}),
    ("腰围80厘米，体脂18%", {"waist_cm": 80, "body_fat": 18}),
    ("body fat is 25 percent this week", {"body_fat": 25}),
    ("我身高165cm，体重55公斤", {"height_cm": 165, "weight_kg": 55}),
])
def test_a_height_and_a_body_fat_are_no_weight(filler: IntentLayer, text: str, expected: dict) -> None:
    args = filler.fill("record_body", text)
    assert {k: args.get(k) for k in expected} == expected, args
    assert "weight_kg" not in args or "weight_kg" in expected


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("把2号任务标成完成", "complete_task", {"id": 2}),
    ("7号任务的内容改成“买新门锁”", "update_task", {"id": 7, "new_content": "买新门锁"}),
    ("清单第4项已经买了", "mark_shopping_bought", {"id": 4}),
    ("把5号笔记标题改成“车险”", "update_note", {"id": 5, "new_title": "车险"}),
    ("1号习惯删了吧", "delete_habit", {"id": 1}),
])
def test_a_record_s_number_is_its_id_not_a_day_or_a_price(filler: IntentLayer, text: str, action: str,
                                                         expected: dict) -> None:
    assert filler.fill(action, text) == expected


def test_a_day_before_a_record_stays_a_day(filler: IntentLayer) -> None:
    args = filler.fill("update_task", "把3号的任务改到5号")
    assert "id" not in args and args.get("due") == "5号"


@pytest.mark.parametrize(("text", "action", "expected"), [
    # a command's own words before the name it makes
    ("帮我建个练口语的习惯，每天早上7点", "create_habit", {"habit": "练口语"}),
    ("开始坚持每天跳绳", "create_habit", {"habit": "跳绳"}),
    ("设一个减肥目标，年底前瘦10斤", "create_goal", {"title": "减肥"}),
    # a check-in missed, a habit stopped
    ("前天的跳绳忘了打卡，补一下", "check_in_habit", {"habit": "跳绳"}),
    ("不想再坚持早起了，这个习惯删掉", "delete_habit", {"habit": "早起"}),
    # what became of a thing looked up
    ("那个旧电饭煲扔了，物品里删掉", "delete_inventory_item", {"item": "旧电饭煲"}),
    ("洗衣液用完了，从物品里去掉", "delete_inventory_item", {"item": "洗衣液"}),
    # what a pet or a plant had done to it, and by whom
    ("旺财刚遛过了", "record_pet_activity", {"pet": "旺财"}),
    ("给绿萝浇了点水", "record_plant_watering", {"plant": "绿萝"}),
    # a search's own words are not what is searched
    ("上网查一下明天北京天气", "web_search", {"query": "明天北京天气"}),
    ("把同事老周存一下，电话13800001111", "add_person", {"person": "老周", "relation": "同事"}),
])
def test_the_command_s_words_at_a_name_s_edges_are_not_the_name(filler: IntentLayer, text: str, action: str,
                                                                expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "expected"), [
    ("Help me build a habit of stretching before bed", "create_habit", {"habit": "stretching before bed"}),
    ("Please erase my flossing habit", "delete_habit", {"habit": "flossing"}),
    ("I'm abandoning the marathon goal", "update_goal_progress", {"title": "marathon"}),
    ("Reopen the 'clean the gutters' task", "update_task", {"content": "clean the gutters"}),
    # a reading is its number, whatever words come with it
    ("Blood pressure was 128/84 this morning", "record_health", {"value": "128/84"}),
    ("Resting heart rate 61 bpm after yoga", "record_health", {"value": "61"}),
    ("体温是38.2度，孩子的", "record_health", {"value": "38.2"}),
])
def test_english_command_words_are_not_the_name_and_a_reading_is_its_number(filler: IntentLayer, text: str,
                                                                           action: str, expected: dict) -> None:
    args = filler.fill(action, text)
    assert has_args(args, expected), args


@pytest.mark.parametrize(("text", "action", "days"), [
    ("这礼拜在外面吃饭花了多少", "list_transactions", ("2026-03-02", "2026-03-08")),
    ("看看这周的日程", "list_events", ("2026-03-02", "2026-03-08")),
    ("Show my mood entries for January", "list_moods", ("2026-01-01", "2026-01-31")),
    ("What did I eat over the past week?", "list_diets", ("2026-02-26", "2026-03-04")),
    ("What's on the calendar for the rest of the month?", "list_events", ("2026-03-04", "2026-03-31")),
    ("我今天有什么安排", "list_events", ("2026-03-04", "2026-03-04")),
])
def test_a_question_s_period_is_read_as_its_days(filler: IntentLayer, text: str, action: str, days: tuple) -> None:
    from homeagent.actions.base import period

    args = filler.fill(action, text)
    first, last = period(args.get("from"), args.get("to"), INTENT_NOW)
    assert (str(first), str(last)) == days, args
    assert "weekend" not in str(args.get("query", "")) and args.get("query") != "rest"


@pytest.mark.parametrize(("text", "person"), [("小刘总算把上个月借的200块还了", "小刘"), ("老王终于把500还给我了", "老王")])
def test_a_repayer_s_name_ends_before_the_ba(filler: IntentLayer, text: str, person: str) -> None:
    assert filler.fill("record_money_lend", text).get("person") == person
