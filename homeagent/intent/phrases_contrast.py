"""Phrasings that teach the classifier where neighbouring actions part, merged into
`homeagent.intent.phrases` (same format as its TEMPLATES).

Two kinds:
- Showing a domain's records ("把目标清单调出来", "pull up my grocery list"): every reading
  action's domain nouns in the frames a household uses to see a list, so a noun shared
  with a write ("购物清单" of add_shopping_item, "habit list" of delete_habit) no longer
  pulls a bare "open the list" to that write. The frames show, they never ask for a change
  (opening a list changes nothing: "打开" here is opening a page, not a mode).
- The cue that decides between two writes that share words: a note renamed though its
  title mentions shopping, money lent (an amount) against a thing lent, a goal's
  progress (a number reached, given up) against a question about goals, a meal with its
  calories against a recipe, a recurring charge against the list of subscriptions.
"""

from __future__ import annotations

# A reading action → (Chinese nouns, English nouns) for its records.
READ_NOUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "list_tasks": (("待办事项", "要做的事", "任务表"), ("to-dos", "task board", "things to do")),
    "list_events": (("日程", "行程", "安排表"), ("calendar", "agenda", "appointments")),
    "list_habits": (("打卡记录", "养成的习惯", "习惯打卡表"), ("habit tracker", "streaks", "routines")),
    "list_notes": (("笔记本", "记过的笔记", "所有笔记"), ("saved notes", "notebook", "notes I wrote")),
    "list_transactions": (("消费记录", "账本", "收支明细"), ("expenses", "transactions", "spending record")),
    "list_moods": (("情绪日志", "心情日记", "心情曲线"), ("mood log", "mood entries", "mood chart")),
    "list_diets": (("饮食日志", "吃饭记录", "三餐记录"), ("meal log", "diet log", "eating history")),
    "list_water": (("饮水记录", "喝水记录表", "饮水统计"), ("water log", "hydration record", "water chart")),
    "list_health": (("健康数据", "体检数据", "体重变化"), ("health data", "weight trend", "vitals")),
    "list_goals": (("目标进度", "年度目标", "定的目标"), ("goal board", "yearly goals", "targets I set")),
    "list_achievements": (("成就", "勋章墙", "徽章"), ("achievements", "badges", "trophies")),
    "list_shopping": (("采购单", "买菜单子", "要买的东西"), ("grocery list", "list of things to buy", "groceries to get")),
    "list_wishlist": (("心愿单", "愿望清单", "想买的东西"), ("wishlist", "gift ideas", "things I want someday")),
    "list_countdowns": (("倒数日", "倒计时列表", "纪念日倒数"), ("countdowns", "days-until list", "countdown timers")),
    "list_memos": (("留言", "便条", "留言板"), ("memos", "messages left", "memo board")),
    "list_trajectories": (("足迹", "去过的地方", "出行记录"), ("places I've been", "travel log", "trips I logged")),
    "list_inventory": (("家当清单", "收纳记录", "家里存的东西"), ("stock at home", "things in storage", "what we own")),
    "list_subscriptions": (("订阅", "会员订阅", "自动续费项目"), ("subscriptions", "recurring charges", "memberships")),
    "list_birthdays": (("生日表", "亲友生日", "生日清单"), ("birthdays", "birthday calendar", "upcoming birthdays")),
}
_ZH_FRAMES = ("{n}", "打开{n}", "把{n}调出来", "调出{n}", "{n}拉出来看看", "{n}列个表", "列一下{n}", "给我看看{n}",
              "{n}给我瞅瞅", "翻一下{n}", "显示{n}", "我的{n}", "把{n}列出来", "{n}发我看看", "看一眼{n}", "{n}打开看看")
_EN_FRAMES = ("{n}", "my {n}", "show me my {n}", "pull up the {n}", "open my {n}", "bring up the {n}", "let me see the {n}",
              "list my {n}", "go through my {n}", "display the {n}", "check my {n}", "read me my {n}", "the {n}, please",
              "give me the {n}")
_PER_NOUN = 5  # frames per noun, taken in turn: every frame is used, the set stays small


def _read_templates() -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    turn = 0
    for action, (zh, en) in READ_NOUNS.items():
        made: list[str] = []
        for nouns, frames in ((zh, _ZH_FRAMES), (en, _EN_FRAMES)):
            for noun in nouns:
                for k in range(_PER_NOUN):
                    made.append(frames[(turn + k * 3) % len(frames)].format(n=noun))
                turn += 1
        out[action] = tuple(dict.fromkeys(made))
    return out


_CONTRAST: dict[str, tuple[str, ...]] = {
    # A note renamed or added to, whatever its title says (a "shopping" title is no shopping item).
    "update_note": (
        "{title=买菜技巧|网购心得|超市优惠}这条笔记改个标题，叫{new_title=采购备忘|囤货清单}",
        "把{title:title}笔记的标题改成{new_title=搬家清单|家电说明书}",
        "给{title:title}这条笔记换个名字：{new_title=露营装备|年货备忘}",
        "change the title of my {title=grocery tips|buying guide} note to {new_title=Pantry staples|Bulk buys}",
        "the {title:title} note should be called {new_title=Holiday plans|Camping gear} from now on",
    ),
    # Money lent or borrowed: an amount of money is what changed hands.
    "record_money_lend": (
        "向{person:person}借了{amount=三千块|八千|一万五}交学费 ## direction=borrowed",
        "{person:person}管我借了{amount=五百|1500块}应急 ## direction=lent",
        "先借{person:person}{amount=两千|四百块}，下个月还我 ## direction=lent",
        "I got a loan of {amount=$800|600 dollars} from {person:person} for the deposit ## direction=borrowed",
        "{person:person} needed {amount=$40|120 bucks}, so I lent it ## direction=lent",
    ),
    # A thing lent: an object, no amount.
    "record_item_lend": (
        "{person:person}拿走了我的{item:thing}，说用完就还 ## direction=lent",
        "从{person:person}家借来一个{item:thing}，周末得还 ## direction=borrowed",
        "got the {item:thing} on loan from {person:person}, returning it next week ## direction=borrowed",
    ),
    # A goal's progress: a number reached, one more done, given up, achieved.
    "update_goal_progress": (
        "{title=攒首付|应急金}目标目前攒了{progress=五万|12000}", "{title=阅读|背单词}目标进度加{add=1|3}",
        "{title=瘦身|控糖}目标现在完成了{progress=一半|三成}", "{title=考驾照|练书法}这个目标算了，不做了 ## status=abandoned",
        "{title=马拉松|学日语}目标我放弃 ## status=abandoned", "{title=早起|存钱}目标终于完成了 ## status=done",
        "{title=阅读|观影}目标又多了一本 ## add=1",
        "my {title=emergency fund|reading} goal has reached {progress=4000|9} now",
        "add {add=1|2} to my {title=cycling|reading} goal progress", "{title=down payment|pushup} goal: I'm at {progress=20000|60} so far",
        "drop the {title=calligraphy|violin} goal, I'm done with it ## status=abandoned",
        "the {title=cycling|learn to cook} goal is finished ## status=done",
        "set the {title=drawing|cooking} goal to achieved ## status=done",
    ),
    # A meal with its calories is a meal eaten, not a recipe kept.
    "record_diet": (
        "午饭{food:food}，估计{calories=500|800}千卡 ## meal=lunch", "早饭是{food:food}，大约{calories=350|300}大卡 ## meal=breakfast",
        "{food:food}，热量{calories=550|900}卡左右，记一下饮食",
        "supper was {food:food}, around {calories=600|750} kcal ## meal=dinner",
        "{food:food} at lunch, maybe {calories=500|650} calories ## meal=lunch",
    ),
    # A recipe: how a dish is made, to keep.
    "add_recipe": (
        "{dish:dish}的做法：{steps=先焯水再炒|腌半小时再煎}，存成菜谱", "记个菜谱{dish:dish}，配料有{ingredients=鸡蛋和番茄|排骨和醋}",
        "save how to cook {dish:dish}: {steps=fry the onions first|bake 40 minutes}",
        "add {dish:dish} to my recipes, ingredients {ingredients=flour and butter|chicken and rice}",
    ),
    # A charge that recurs is spent money, recorded; the list of subscriptions only reads.
    "record_transaction": (
        "{category=网盘|外卖会员|音乐会员}每个月扣我{amount=15|12|9.9}块 ## recurring=monthly",
        "交了{amount=1500|2600}的年费，明年还要续 ## recurring=yearly",
        "{category=云存储|视频}会员续费了，每月{amount=19|25}元 ## recurring=monthly",
        "the {category=cloud storage|music app} charges me {amount=2.99|9.99} every month ## recurring=monthly",
        "{amount=$60|85 dollars} for the annual swim club fee, renews every year ## recurring=yearly",
        "{amount=$14|9 euros} on greeting cards", "{amount=600块|350}买了件外套，记账",
    ),
    # A new note, with its title and content said: new, not an edit.
    "create_note": (
        "写条新笔记，题目{title:title}，正文{content:note}", "新笔记：标题{title:title}，内容{content:note}",
        "start a new note called {title:title} saying {content:note}",
    ),
    # Things put away, registered: a new inventory record.
    "create_inventory_item": (
        "{item:stuff}放在{location:location}，登记到家里的物品", "{item:stuff}搁{location:location}了，录进库存",
        "we keep the {item:stuff} in {location:location} now, add it to the inventory",
    ),
    # Water drunk, counted loosely ("好几杯"): a record, not the question "喝了几杯".
    "record_water": (
        "上午喝了好几杯水了，差不多{amount=1000毫升|800ml}", "一下午灌了十几杯水，记一下",
        "I've had several glasses of water, about {amount=1.2 liters|900 ml}",
    ),
    # A mood to keep: the words that record it, ahead of the mood itself.
    "record_mood": (
        "今天的心情，记上：{mood:mood}", "把现在的心情记成{mood:mood}", "记个心情，{mood:mood}", "心情打个卡：{mood:mood}",
        "note my mood as {mood:mood}", "mood check-in: {mood:mood}",
    ),
    # Shown with their state: a listing, not a change of state.
    "list_tasks": ("做完了的待办给我列一下 ## status=done", "pull up the to-dos I've ticked off ## status=done",
                   "just the urgent to-dos, please ## priority=high"),
    "list_shopping": ("清单上买到了的有哪些", "show the items already crossed off the grocery list"),
    "list_habits": ("暂停了的习惯也显示出来", "show my routines, the archived ones too"),
}


def _merged() -> dict[str, tuple[str, ...]]:
    out = dict(_read_templates())
    for action, texts in _CONTRAST.items():
        out[action] = tuple(dict.fromkeys((*out.get(action, ()), *texts)))
    return out


POOLS: dict[str, tuple[str, ...]] = {}
TEMPLATES: dict[str, tuple[str, ...]] = _merged()
# Asking after the assistant itself: small talk, not a day's summary or a list.
NONE: tuple[str, ...] = (
    "how are you doing", "how's your day been", "how are things with you", "how have you been", "you doing okay?",
    "你今天过得怎么样", "你最近好吗", "你还好吗", "你今天心情好吗",
    "你最近过得怎么样", "你这阵子咋样", "你最近还好吧", "你过得好不好", "最近咋样啊你",
)
