"""Builds the household retrieval evaluation set (deterministic; run to regenerate).

    python bench/data/build_household.py

Writes household_turns.jsonl ({"id","text","timestamp","speaker","session"}) and
household_questions.jsonl ({"id","query","now","answers","lang","kind","split"}).

A simulated household (Mei 妈妈, David 爸爸, their daughter Lily, the dog Lucky) talks to
the assistant over twelve weeks (5 Jan – 29 Mar 2026, Asia/Shanghai) in Chinese and
English. Story turns carry facts that questions ask about later, often in other words,
in the other language, or with a time expression ("last month", 上周); filler turns
(greetings, weather, dinner, chores) are the haystack, and several stories deliberately
share words (the dishwasher leaks, so does the washing machine; the fridge is noisy, so
is the dishwasher) so a question has near-miss distractors. Questions alternate between
a "dev" split (used while tuning the ranking) and a "test" split (not looked at while
tuning) so the reported gain is not fitted to the questions.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

TZ = ZoneInfo("Asia/Shanghai")
HERE = Path(__file__).resolve().parent


def at(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=TZ)


# (id, time, speaker, text): the facts questions are about.
STORY: list[tuple[str, str, str, str]] = [
    # dishwasher
    ("dw1", "2026-01-12 21:10", "mei", "The dishwasher makes a loud grinding noise when it drains. Can you remind me to look at it this weekend?"),
    ("dw2", "2026-02-09 20:30", "mei", "洗碗机底下一直在渗水，厨房地板都湿了，明天得打电话找人修。"),
    ("dw3", "2026-02-11 18:45", "david", "修洗碗机的师傅来过了，说是进水阀坏了，要等零件，下周再来换。"),
    ("dw4", "2026-03-03 19:20", "david", "The repairman replaced the inlet valve on the dishwasher today. No more puddles under it."),
    ("dw5", "2026-03-18 21:00", "mei", "Dishwasher tablets are almost gone, add them to the shopping list."),
    # washing machine (distractor: leaks too)
    ("wm1", "2026-02-16 10:05", "mei", "洗衣机脱水的时候晃得很厉害，还漏了一点水。"),
    ("wm2", "2026-02-17 09:30", "david", "I leveled the washing machine feet, it doesn't shake any more."),
    # fridge (distractor: noise)
    ("fr1", "2026-01-20 22:40", "david", "冰箱晚上嗡嗡响，声音比以前大多了。"),
    ("fr2", "2026-01-27 08:15", "mei", "The fridge noise went away after we cleaned the coils at the back."),
    ("fr3", "2026-03-10 17:50", "mei", "冰箱冷藏室的灯不亮了，灯泡要换一个。"),
    # heating
    ("ht1", "2026-01-08 07:30", "david", "The heating in Lily's room isn't working, the radiator is cold."),
    ("ht2", "2026-01-09 19:00", "david", "暖气片放了气之后就热了，原来是里面有空气。"),
    ("ht3", "2026-02-24 06:50", "mei", "燃气热水器早上打不着火，洗澡只有冷水。"),
    ("ht4", "2026-02-25 20:10", "david", "The gas water heater needed a new battery for the igniter. Hot water is back."),
    # car
    ("car1", "2026-01-15 08:40", "david", "车子仪表盘亮了胎压报警灯，左后轮气有点不足。"),
    ("car2", "2026-01-15 18:20", "david", "Pumped up the rear left tire at the gas station, the warning light is off."),
    ("car3", "2026-02-05 12:00", "david", "The car is due for an oil change at 45,000 km, book it for next Saturday."),
    ("car4", "2026-02-14 11:30", "david", "保养做完了，换了机油和机油滤芯，花了六百八十块。"),
    ("car5", "2026-03-16 09:10", "mei", "车的年检三月底到期，记得月底前去检测站。"),
    ("car6", "2026-03-27 15:40", "david", "Passed the annual car inspection this afternoon, the new sticker is on the windshield."),
    # Lily school
    ("sch1", "2026-01-13 16:30", "lily", "我数学单元测试考了九十二分！"),
    ("sch2", "2026-01-22 19:45", "mei", "Parent-teacher meeting for Lily is on Thursday the 29th at 4pm, Ms. Zhang's classroom."),
    ("sch3", "2026-01-29 18:30", "mei", "张老师说莉莉上课很认真，但是作文需要多练习，建议每周写一篇日记。"),
    ("sch4", "2026-02-26 20:00", "lily", "Our science fair project is about growing bean sprouts under different colored lights."),
    ("sch5", "2026-03-12 17:15", "lily", "科学展我们组得了二等奖！豆芽在红光下长得最快。"),
    ("sch6", "2026-03-24 21:10", "mei", "Lily needs to bring a signed permission slip for the museum field trip on April 2nd."),
    # health
    ("hl1", "2026-01-10 09:20", "mei", "妈妈最近血压有点高，早上量是一百五十五/九十五。"),
    ("hl2", "2026-01-17 10:00", "mei", "Took mom to the clinic, the doctor changed her blood pressure pills to amlodipine 5 mg."),
    ("hl3", "2026-02-20 08:00", "mei", "妈妈换药以后血压降到一百三十/八十五了，挺稳定的。"),
    ("hl4", "2026-02-03 13:30", "david", "I have a dentist appointment on February 12th at 10am for a filling."),
    ("hl5", "2026-02-12 12:10", "david", "补牙补好了，医生说右下的智齿以后可能要拔。"),
    ("hl6", "2026-03-05 20:40", "mei", "Lily has a rash after eating shrimp at the restaurant, maybe a seafood allergy."),
    ("hl7", "2026-03-07 11:00", "mei", "带莉莉去医院做了过敏原检测，结果是对虾过敏，以后不能吃虾。"),
    # pet Lucky
    ("pet1", "2026-01-18 10:30", "lily", "Lucky needs his rabies shot this month, the vet said any weekday afternoon."),
    ("pet2", "2026-01-23 16:00", "mei", "带Lucky去宠物医院打了狂犬疫苗，下次是明年一月。"),
    ("pet3", "2026-02-19 19:30", "david", "Lucky has been scratching his ears a lot, I think he has an ear infection."),
    ("pet4", "2026-02-21 12:40", "mei", "兽医说Lucky是耳螨，开了滴耳液，每天滴两次，滴一周。"),
    ("pet5", "2026-03-13 18:00", "mei", "Switched Lucky to the salmon dog food, the chicken one upset his stomach."),
    # money
    ("mon1", "2026-01-25 21:30", "david", "一月份电费四百二十块，比上个月多了一百多，可能是开暖气开得多。"),
    ("mon2", "2026-02-02 09:00", "mei", "The landlord says the rent goes up to 6,800 yuan from April."),
    ("mon3", "2026-02-28 22:00", "david", "二月的电费降到了三百一十块。"),
    ("mon4", "2026-03-09 20:20", "mei", "We bought accident insurance for the whole family, 1,200 yuan a year, it renews every March."),
    ("mon5", "2026-03-21 10:15", "david", "房东同意房租只涨到六千五，四月开始。"),
    # travel
    ("tr1", "2026-01-06 20:00", "mei", "We're going to grandma's in Hangzhou for Spring Festival, need train tickets for February 14th."),
    ("tr2", "2026-01-14 08:05", "mei", "抢到了二月十四号去杭州的高铁票，上午九点十分的G七五零一。"),
    ("tr3", "2026-02-22 21:00", "david", "Back from Hangzhou. Grandma gave Lily a jade bracelet."),
    ("tr4", "2026-03-19 20:30", "mei", "五一想去三亚，帮我看看海边的酒店，预算一晚一千以内。"),
    # food
    ("fd1", "2026-01-11 18:00", "mei", "今晚做红烧肉，先焯水再炒糖色，小火炖一个小时。"),
    ("fd2", "2026-01-31 17:30", "david", "My sourdough starter finally doubled overnight, baking bread tomorrow."),
    ("fd3", "2026-02-08 12:30", "mei", "David doesn't like cilantro, don't put it in his noodles."),
    ("fd4", "2026-03-08 18:20", "mei", "妇女节晚上去吃了那家新开的云南菜，汽锅鸡特别好吃。"),
    ("fd5", "2026-03-22 11:00", "david", "Made the red braised pork again with Mei's recipe, Lily ate two bowls of rice."),
    # garden / plants
    ("gd1", "2026-01-19 09:40", "mei", "客厅的绿萝叶子发黄了，是不是浇水太多了？"),
    ("gd2", "2026-02-27 10:30", "mei", "The pothos is recovering since I water it only once a week."),
    ("gd3", "2026-03-15 15:00", "david", "阳台上种了番茄和辣椒的种子，用的是育苗盒。"),
    ("gd4", "2026-03-26 08:30", "david", "The tomato seedlings sprouted! Six out of eight seeds came up."),
    # work
    ("wk1", "2026-01-21 22:30", "david", "项目上线时间定在二月六号，这两周要加班。"),
    ("wk2", "2026-02-06 23:10", "david", "The release went live tonight without any rollback. Finally!"),
    ("wk3", "2026-03-02 07:45", "david", "下周一到周三去深圳出差，住在南山区的酒店。"),
    ("wk4", "2026-03-11 22:00", "david", "Back from the Shenzhen business trip, the client signed the contract."),
    # social
    ("so1", "2026-01-28 20:15", "mei", "Tom's birthday party is on Saturday February 7th, Lily wants to give him a Lego set."),
    ("so2", "2026-02-07 19:30", "lily", "汤姆的生日派对好好玩，他很喜欢那套乐高。"),
    ("so3", "2026-03-06 21:00", "mei", "大学同学聚会定在三月二十八号，在老地方那家火锅店。"),
    ("so4", "2026-03-28 23:00", "mei", "Class reunion was great, twelve people came, Xiaoyu is moving to Chengdu."),
    # shopping / devices
    ("sh1", "2026-01-16 21:45", "mei", "买了一台扫地机器人，小米的，晚上自己出去扫地。"),
    ("sh2", "2026-01-26 19:00", "mei", "The robot vacuum keeps getting stuck under the sofa, we need to put a bar there."),
    ("sh3", "2026-02-13 20:30", "mei", "Returned the gray winter coat, it was too tight in the shoulders. Refund in 7 days."),
    ("sh4", "2026-02-23 18:00", "mei", "大衣的退款到账了，八百九十九。"),
    ("sh5", "2026-03-04 22:10", "david", "The Wi-Fi keeps dropping in the bedroom, I ordered a mesh router."),
    ("sh6", "2026-03-06 20:00", "david", "新的路由器装好了，卧室信号满格了。"),
    # fitness
    ("ft1", "2026-01-24 08:30", "mei", "Ran my first 5k without stopping this morning, 34 minutes."),
    ("ft2", "2026-02-18 19:00", "mei", "报了周二和周四晚上的瑜伽课，一共二十节。"),
    ("ft3", "2026-03-14 09:00", "mei", "5 km in 29 minutes today, new personal best!"),
    ("ft4", "2026-03-25 19:30", "mei", "瑜伽课换到了周三晚上七点半，因为老师时间变了。"),
    # misc household facts
    ("ms1", "2026-01-07 20:40", "david", "The spare house key is in the blue box in the garage, top shelf."),
    ("ms2", "2026-02-04 18:30", "mei", "莉莉的钢琴课从周六改到周日下午三点。"),
    ("ms3", "2026-03-01 10:00", "david", "We changed the Wi-Fi password to the name of the dog plus 2026."),
    ("ms4", "2026-03-17 21:20", "mei", "楼上在装修，这个月每天早上八点开始钻墙。"),
    ("ms5", "2026-03-23 07:30", "david", "The smoke alarm in the hallway chirps, its battery is low."),
]

# Haystack: everyday turns with no fact a question asks about.
FILLER_EN = [
    "Good morning! What's the weather like today?",
    "What should we have for dinner tonight?",
    "Play some relaxing music please.",
    "Set a timer for twenty minutes.",
    "Thanks, that's all for now.",
    "Remind me to call my sister tomorrow evening.",
    "How long should I boil an egg for a runny yolk?",
    "Turn off the living room lights.",
    "Is it going to rain this weekend?",
    "Tell me a joke for Lily.",
    "What time is it in London right now?",
    "I'm tired today, long day at work.",
    "Add milk and eggs to the shopping list.",
    "Can you read me the news headlines?",
    "Lily finished her homework early today.",
    "We watched a movie together tonight, it was fun.",
    "The kitchen is a mess after dinner.",
    "Remind me to water the plants on Sunday.",
    "How many grams of flour in a cup?",
    "Good night, see you tomorrow.",
    "The traffic this morning was terrible.",
    "What's a good board game for a family of three?",
    "I need to clean the bathroom this weekend.",
    "Lucky wants to go for a walk again.",
    "Turn the thermostat down a little.",
]
FILLER_ZH = [
    "早上好，今天天气怎么样？",
    "今天晚饭吃什么好呢？",
    "放点轻音乐吧。",
    "帮我定一个二十分钟的闹钟。",
    "谢谢，暂时没事了。",
    "明天提醒我给姐姐打电话。",
    "今天上班好累啊。",
    "客厅的灯关一下。",
    "这个周末会下雨吗？",
    "给莉莉讲个笑话吧。",
    "把牛奶和鸡蛋加到购物清单里。",
    "读一下今天的新闻。",
    "莉莉今天作业写得很快。",
    "晚上一家人一起看了电影。",
    "吃完饭厨房好乱。",
    "周日提醒我给花浇水。",
    "晚安，明天见。",
    "今天早上堵车堵得厉害。",
    "周末要打扫一下卫生间。",
    "Lucky又想出去遛弯了。",
    "空调温度调低一点。",
    "今天买菜花了一百多。",
    "下午有点困，喝杯咖啡。",
    "莉莉在练钢琴，弹得越来越好了。",
    "明天早上七点叫我起床。",
]

# (query, now, answers, kind); language is detected from the query.
QUESTIONS: list[tuple[str, str, list[str], str]] = [
    ("上个月我说洗碗机怎么了？", "2026-03-20 20:00", ["dw2", "dw3"], "time"),
    ("What did I say about the dishwasher last month?", "2026-03-20 20:00", ["dw2", "dw3"], "time"),
    ("What was wrong with the dishwasher in January?", "2026-03-20 20:00", ["dw1"], "time"),
    ("洗碗机修好了吗？", "2026-03-20 20:00", ["dw4", "dw3"], "topic"),
    ("Did we fix the leak under the dishwasher?", "2026-03-20 20:00", ["dw4", "dw2"], "topic"),
    ("洗衣机上个月出了什么问题？", "2026-03-20 20:00", ["wm1", "wm2"], "time"),
    ("Why was the washing machine shaking?", "2026-03-20 20:00", ["wm1", "wm2"], "topic"),
    ("冰箱的噪音是怎么解决的？", "2026-03-20 20:00", ["fr2", "fr1"], "topic"),
    ("What did I say about the fridge light this month?", "2026-03-20 20:00", ["fr3"], "time"),
    ("Lily's radiator was cold, what fixed it?", "2026-03-20 20:00", ["ht2", "ht1"], "topic"),
    ("热水器上个月怎么了？", "2026-03-20 20:00", ["ht3", "ht4"], "time"),
    ("Why was there no hot water last month?", "2026-03-20 20:00", ["ht3", "ht4"], "time"),
    ("车子的胎压报警是哪个轮胎？", "2026-03-20 20:00", ["car1", "car2"], "topic"),
    ("How much did the car service cost?", "2026-03-20 20:00", ["car4"], "crosslingual"),
    ("上个月车做保养了吗？", "2026-03-20 20:00", ["car3", "car4"], "time"),
    ("When does the car inspection expire?", "2026-03-20 20:00", ["car5"], "crosslingual"),
    ("年检通过了吗？", "2026-03-29 10:00", ["car6", "car5"], "topic"),
    ("莉莉数学考了多少分？", "2026-03-20 20:00", ["sch1"], "topic"),
    ("What did Ms. Zhang say at the parent-teacher meeting?", "2026-03-20 20:00", ["sch3", "sch2"], "crosslingual"),
    ("家长会是哪天？", "2026-03-20 20:00", ["sch2"], "crosslingual"),
    ("What was Lily's science fair project about?", "2026-03-20 20:00", ["sch4", "sch5"], "topic"),
    ("科学展的结果怎么样？", "2026-03-20 20:00", ["sch5"], "topic"),
    ("What does Lily need for the museum trip?", "2026-03-29 10:00", ["sch6"], "topic"),
    ("妈妈的血压药换成了什么？", "2026-03-20 20:00", ["hl2"], "crosslingual"),
    ("How is mom's blood pressure now?", "2026-03-20 20:00", ["hl3", "hl1"], "crosslingual"),
    ("上个月妈妈的血压怎么样？", "2026-03-20 20:00", ["hl3"], "time"),
    ("When was my dentist appointment?", "2026-03-20 20:00", ["hl4", "hl5"], "topic"),
    ("补牙的时候医生说了什么？", "2026-03-20 20:00", ["hl5"], "topic"),
    ("Is Lily allergic to anything?", "2026-03-20 20:00", ["hl7", "hl6"], "crosslingual"),
    ("莉莉吃了虾以后怎么了？", "2026-03-20 20:00", ["hl6", "hl7"], "topic"),
    ("When did Lucky get his rabies vaccine?", "2026-03-20 20:00", ["pet2", "pet1"], "crosslingual"),
    ("Lucky的耳朵怎么了？", "2026-03-20 20:00", ["pet3", "pet4"], "topic"),
    ("What did the vet prescribe for Lucky last month?", "2026-03-20 20:00", ["pet4"], "time"),
    ("Lucky现在吃什么狗粮？", "2026-03-20 20:00", ["pet5"], "crosslingual"),
    ("一月份电费多少钱？", "2026-03-20 20:00", ["mon1"], "time"),
    ("How much was the electricity bill in February?", "2026-03-20 20:00", ["mon3"], "time"),
    ("房租要涨到多少？", "2026-03-25 20:00", ["mon5", "mon2"], "topic"),
    ("What did the landlord agree to about the rent?", "2026-03-25 20:00", ["mon5"], "crosslingual"),
    ("我们买的保险多少钱一年？", "2026-03-20 20:00", ["mon4"], "crosslingual"),
    ("Which train did we take to Hangzhou?", "2026-03-20 20:00", ["tr2", "tr1"], "crosslingual"),
    ("外婆给莉莉送了什么？", "2026-03-20 20:00", ["tr3"], "crosslingual"),
    ("What's our budget for the Sanya hotel?", "2026-03-20 21:00", ["tr4"], "crosslingual"),
    ("红烧肉怎么做？", "2026-03-20 20:00", ["fd1", "fd5"], "topic"),
    ("What doesn't David like to eat?", "2026-03-20 20:00", ["fd3"], "topic"),
    ("妇女节那天去哪吃的饭？", "2026-03-20 20:00", ["fd4"], "topic"),
    ("Why were the pothos leaves turning yellow?", "2026-03-20 20:00", ["gd1", "gd2"], "crosslingual"),
    ("番茄种子发芽了吗？", "2026-03-29 10:00", ["gd4", "gd3"], "topic"),
    ("项目什么时候上线的？", "2026-03-20 20:00", ["wk1", "wk2"], "topic"),
    ("How did the Shenzhen trip go?", "2026-03-20 20:00", ["wk4", "wk3"], "topic"),
    ("上周出差住在哪里？", "2026-03-13 20:00", ["wk3"], "time"),
    ("What present did Lily give Tom?", "2026-03-20 20:00", ["so1", "so2"], "topic"),
    ("同学聚会在哪里？", "2026-03-29 10:00", ["so3", "so4"], "topic"),
    ("Who is moving to Chengdu?", "2026-03-29 10:00", ["so4"], "topic"),
    ("扫地机器人老是卡在哪里？", "2026-03-20 20:00", ["sh2", "sh1"], "crosslingual"),
    ("Did I get the refund for the coat?", "2026-03-20 20:00", ["sh4", "sh3"], "crosslingual"),
    ("卧室的Wi-Fi问题解决了吗？", "2026-03-20 20:00", ["sh6", "sh5"], "topic"),
    ("What's my best 5k time?", "2026-03-20 20:00", ["ft3", "ft1"], "topic"),
    ("瑜伽课现在是什么时间？", "2026-03-29 10:00", ["ft4", "ft2"], "topic"),
    ("Where is the spare key?", "2026-03-20 20:00", ["ms1"], "topic"),
    ("莉莉的钢琴课改到什么时候了？", "2026-03-20 20:00", ["ms2"], "topic"),
    ("What is the new Wi-Fi password?", "2026-03-20 20:00", ["ms3"], "topic"),
    ("楼上装修几点开始吵？", "2026-03-20 20:00", ["ms4"], "topic"),
    ("昨天我说烟雾报警器怎么了？", "2026-03-24 09:00", ["ms5"], "time"),
    ("What did I say yesterday about the dishwasher?", "2026-03-19 08:00", ["dw5"], "time"),
    ("上周家里修了什么？", "2026-03-09 20:00", ["dw4", "sh6", "sh5"], "time"),
    ("What happened with Lucky last week?", "2026-02-26 20:00", ["pet3", "pet4"], "time"),
    ("两周前车子怎么了？", "2026-01-29 20:00", ["car1", "car2"], "time"),
    ("What did Lily say about school in January?", "2026-03-20 20:00", ["sch1"], "time"),
    ("前天莉莉得了什么奖？", "2026-03-14 10:00", ["sch5"], "time"),
    ("What did we buy last week?", "2026-01-22 20:00", ["sh1"], "time"),
]


def main() -> None:
    rng = random.Random(20260105)
    turns: list[dict[str, object]] = []
    for doc_id, when, speaker, text in STORY:
        turns.append({"id": doc_id, "text": text, "timestamp": at(when).isoformat(), "speaker": speaker})
    # Filler: about three a day over the twelve weeks, at waking hours.
    day = at("2026-01-05 00:00")
    n = 0
    while day < at("2026-03-30 00:00"):
        for _ in range(rng.choice((2, 3, 3, 4))):
            pool = FILLER_ZH if rng.random() < 0.5 else FILLER_EN
            when = day + timedelta(hours=rng.randint(7, 22), minutes=rng.randint(0, 59))
            n += 1
            turns.append({"id": f"f{n:03d}", "text": rng.choice(pool), "timestamp": when.isoformat(),
                          "speaker": rng.choice(("mei", "david", "lily"))})
        day += timedelta(days=1)
    turns.sort(key=lambda t: (str(t["timestamp"]), str(t["id"])))
    # A session is a stretch of one speaker's turns with less than two hours between them.
    session, last = 0, None
    for t in turns:
        when = datetime.fromisoformat(str(t["timestamp"]))
        if last is None or when - last > timedelta(hours=2):
            session += 1
        t["session"] = f"s{session:03d}"
        last = when
    ids = {t["id"] for t in turns}
    questions = []
    for i, (query, now, answers, kind) in enumerate(QUESTIONS):
        assert set(answers) <= ids, (query, answers)
        lang = "zh" if any("\u4e00" <= c <= "\u9fff" for c in query) else "en"
        questions.append({"id": f"q{i + 1:02d}", "query": query, "now": at(now).isoformat(),
                          "answers": answers, "lang": lang, "kind": kind,
                          "split": "dev" if i % 2 == 0 else "test"})
    with open(HERE / "household_turns.jsonl", "w", encoding="utf-8") as fh:
        for t in turns:
            fh.write(json.dumps(t, ensure_ascii=False) + "\n")
    with open(HERE / "household_questions.jsonl", "w", encoding="utf-8") as fh:
        for q in questions:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    print(f"{len(turns)} turns ({len(STORY)} story), {len(questions)} questions")


if __name__ == "__main__":
    main()
