"""More ways of saying each action, for the intent classifier's training set.

Each action's own registered examples come first (`homeagent.intent.training` turns
them into templates by marking the argument values they contain); the templates here
add the everyday phrasings a household uses. A template is plain text with slots:
`{key:pool}` takes its values from `POOLS[pool]` in the template's language,
`{key=a|b|c}` lists its values inline, and a trailing `## key=value, …` gives
arguments the words imply (an enum such as priority=high). An action without templates
here still trains on its registered examples, so the set grows with the registry.

NONE holds what is no action: greetings, thanks, questions about the world, requests
for a story. Nothing here is evaluation data (bench/data/intent_eval.jsonl is kept apart).
"""

from __future__ import annotations

POOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (Chinese values, English values)
    "when": (("明天下午3点", "后天", "下周五", "今晚8点", "周三上午10点", "月底", "3天后", "明天早上",
              "下周一", "这周六", "5月20号", "明天中午"),
             ("tomorrow at 3pm", "the day after tomorrow", "next Friday", "tonight at 8", "Wednesday at 10am",
              "in 3 days", "tomorrow morning", "next Monday", "on Saturday", "May 20", "tomorrow at noon")),
    "past": (("昨天", "今天早上", "昨晚", "前天", "今天中午", "上周五"),
             ("yesterday", "this morning", "last night", "today", "on Monday")),
    "chore": (("交电费", "买菜", "给妈妈打电话", "修水管", "取快递", "交物业费", "写周报", "洗车", "缴话费",
               "预约体检", "还信用卡", "接孩子"),
              ("pay the electricity bill", "buy groceries", "call mom", "fix the sink", "pick up the parcel",
               "renew the car insurance", "submit the report", "wash the car", "book a checkup",
               "pay the credit card", "pick up the kids")),
    "event": (("开会", "看牙医", "家长会", "和老王吃饭", "面试", "同学聚会", "瑜伽课", "体检"),
              ("team meeting", "dentist appointment", "parent-teacher meeting", "dinner with Sam",
               "job interview", "yoga class", "piano lesson", "checkup")),
    "item": (("牛奶", "鸡蛋", "面包", "酸奶", "洗衣液", "苹果", "卫生纸", "大米", "酱油", "香蕉"),
             ("milk", "eggs", "bread", "yogurt", "laundry detergent", "apples", "toilet paper", "rice",
              "coffee", "bananas")),
    "habit": (("跑步", "冥想", "背单词", "早睡", "读书", "喝水", "练琴", "健身"),
              ("running", "meditation", "flossing", "reading", "yoga", "journaling", "push-ups")),
    "money": (("35块", "120元", "50块钱", "1.2万", "88元", "¥200", "三十块"),
              ("$20", "35 yuan", "12 dollars", "$4.99", "100 bucks", "50 euros")),
    "person": (("小王", "妈妈", "老李", "小张", "邻居", "表哥"),
               ("Tom", "Anna", "my brother", "Sarah", "the neighbor", "Mike")),
    "food": (("一碗面", "两个包子", "鸡胸肉沙拉", "米饭和青菜", "一个苹果", "饺子"),
             ("a chicken salad", "two eggs and toast", "a bowl of noodles", "pizza", "oatmeal", "a sandwich")),
    "medicine": (("布洛芬", "降压药", "维生素C", "感冒药", "钙片"),
                 ("ibuprofen", "my blood pressure pill", "vitamin D", "aspirin", "allergy medicine")),
    "place": (("西湖", "外婆家", "公司", "超市", "颐和园", "机场"),
              ("the park", "the Louvre", "grandma's house", "the office", "the beach", "the museum")),
    "plant": (("绿萝", "多肉", "发财树", "吊兰", "番茄"),
              ("tomatoes", "the fern", "the basil", "the orchid", "the cactus")),
    "pet": (("旺财", "咪咪", "小白", "猫", "狗"),
            ("the cat", "the dog", "Max", "Luna", "the fish")),
    "book": (("三体", "活着", "百年孤独", "人类简史"),
             ("Atomic Habits", "Dune", "Sapiens", "The Hobbit")),
    "movie": (("流浪地球2", "霸王别姬", "你好，李焕英", "狂飙"),
              ("Dune", "Oppenheimer", "Inception", "Breaking Bad")),
    "note": (("wifi密码贴在冰箱上", "车停在B2层36号", "明年要换车险", "门锁密码是2580"),
             ("the wifi password is on the fridge", "the car is parked on level B2",
              "the spare key is under the mat", "the boiler was serviced in May")),
    "thing": (("相机", "梯子", "充电宝", "电钻", "雨伞", "自行车"),
              ("camera", "ladder", "drill", "power bank", "umbrella", "tent")),
    "stuff": (("护照", "充电器", "户口本", "备用钥匙", "洗发水", "电池"),
              ("passport", "charger", "spare keys", "batteries", "olive oil", "extension cord")),
    "location": (("书房抽屉", "卧室衣柜", "厨房柜子", "阳台", "车库"),
                 ("the study drawer", "the bedroom closet", "the kitchen cabinet", "the garage", "the pantry")),
    "title": (("周报", "体检", "旅行", "年会"),
              ("report", "trip", "checkup", "party")),
    "goal": (("读完12本书", "减肥5公斤", "学会游泳", "存够5万块"),
             ("read 12 books", "lose 5 kg", "learn to swim", "run a marathon")),
    "mood": (("不错", "很烦", "有点累", "特别开心", "焦虑"),
             ("great", "tired", "anxious", "happy", "stressed")),
    "topic": (("明天杭州的天气", "红烧肉怎么做", "最近的电影", "iPhone价格"),
              ("the weather in Boston tomorrow", "the best pizza recipe", "flights to Tokyo", "how to fix a leaky tap")),
    "idea": (("做一个自动浇花器", "周末开个读书会", "给阳台装个吊椅"),
             ("a podcast about local history", "a board game night every month", "a herb garden on the balcony")),
    "dish": (("番茄炒蛋", "红烧肉", "可乐鸡翅"),
             ("pancakes", "banana bread", "chicken curry")),
    "subject": (("英语", "Python", "钢琴", "数学"),
                ("Python", "Spanish", "piano", "calculus")),
    "memo": (("钥匙在鞋柜上", "狗已经喂过了", "快递在门卫"),
             ("dog already fed", "keys are on the shelf", "the parcel is at the front desk")),
    "wish": (("Switch", "扫地机器人", "新手机", "咖啡机"),
             ("a new bike", "a Kindle", "noise-cancelling headphones", "a coffee machine")),
    "countdown": (("高考", "春节", "去日本旅行", "宝宝出生"),
                  ("our trip to Japan", "Christmas", "the wedding", "summer vacation")),
    "dream": (("梦见自己在飞", "梦到考试迟到了", "梦见和朋友去海边"),
              ("I was flying", "I was back at school", "I missed the train")),
    "diary": (("今天效率很高", "带孩子去了公园，很开心", "加班到很晚，有点累"),
              ("the kids built a snowman today", "work was busy but good", "we had a lovely picnic")),
    "address": (("幸福路88号", "人民路12号3单元", "中山北路100号"),
                ("1 Main Street", "42 Oak Avenue", "10 Downing Street")),
    "label": (("奶奶家", "公司", "学校"), ("office", "grandma's house", "school")),
    "store": (("星巴克", "肯德基", "盒马"), ("IKEA", "Starbucks", "Target")),
    "hospital": (("市一医院", "人民医院", "社区诊所"), ("City Hospital", "the clinic", "St. Mary's")),
    "reason": (("看牙", "感冒", "体检", "腰疼"), ("back pain", "a cold", "a checkup", "a sprained ankle")),
    "metric": (("血压", "血糖", "心率", "体温"), ("blood pressure", "blood sugar", "heart rate", "temperature")),
    "category": (("餐饮", "交通", "购物", "娱乐"), ("food", "transport", "shopping", "entertainment")),
}

# action → templates (Chinese and English mixed; the language is read from the text).
TEMPLATES: dict[str, tuple[str, ...]] = {
    "create_task": (
        "别让我忘了{content:chore}", "回头提醒我{content:chore}", "记得提醒我{content:chore}", "gotta remember to {content:chore}", "I have to {content:chore} {due:when}", "add a task to {content:chore} {due:when}",
        "提醒我{due:when}{content:chore}", "{due:when}记得{content:chore}", "帮我记一个任务：{content:chore}",
        "添加待办{content:chore}", "新建一个任务{content:chore}，{due:when}截止", "别忘了提醒我{content:chore}",
        "加个待办：{due:when}{content:chore}", "帮我创建一个任务：{content:chore}", "记个任务{content:chore}",
        "待办事项加上{content:chore}", "{due:when}要{content:chore}，帮我记下来",
        "添加一个高优先级任务：{content:chore} ## priority=high",
        "remind me to {content:chore} {due:when}", "add a task: {content:chore}", "create a task to {content:chore}",
        "I need to {content:chore} by {due:when}", "don't let me forget to {content:chore}",
        "put {content:chore} on my to-do list", "new to-do: {content:chore}", "create a task: {content:chore}",
        "add {content:chore} to my tasks", "remind me {due:when} to {content:chore}",
        "add a high priority task to {content:chore} ## priority=high",
        "{repeat=每个工作日早上七点|每天早上8点|每周一|每月1号|每隔一天}提醒我{content:chore}",
        "remind me to {content:chore} {repeat=every other day|every weekday|every Monday at 8|every day at 9pm}",
        "{repeat=every weekday at 7|every Monday|every morning}, remind me to {content:chore}",
    ),
    "complete_task": (
        "{content:chore}已经做完了", "把{content:chore}标记为完成", "{content:chore}搞定了", "任务{id=2|5|7}完成了",
        "我已经{content:chore}了，勾掉吧",
        "I finished {content:chore}", "mark {content:chore} as done", "{content:chore} is done",
        "check off task {id=2|5|7}", "done with {content:chore}",
    ),
    "list_tasks": (
        "有没有{query:chore}的任务", "do I have a task about {query:chore}", "还有啥要做的", "anything left to do",
        "我还有哪些任务", "看看我的待办", "我还有什么没做完", "今天有什么任务 ## from=今天", "列出所有任务 ## status=all",
        "我完成了哪些任务 ## status=done", "这周要做什么 ## from=本周", "待办清单给我看看", "我有什么要做的事",
        "what tasks do I have", "what's on my to-do list", "show my tasks", "what do I still have to do",
        "list my open tasks ## status=open", "which tasks did I finish ## status=done", "any tasks due today ## from=today",
        "what tasks do I still have open ## status=open",
    ),
    "update_task": (
        "把{content:chore}改到{due:when}", "{content:chore}的截止时间改成{due:when}", "把{content:chore}设为高优先级 ## priority=high",
        "任务{id=2|5}推迟到{due:when}",
        "move {content:chore} to {due:when}", "change the due date of {content:chore} to {due:when}",
        "make {content:chore} high priority ## priority=high", "push task {id=2|5} to {due:when}",
    ),
    "delete_task": (
        "删掉{content:chore}这个任务", "把{content:chore}任务删了", "删除任务{id=3|4|8}", "{content:chore}不用做了，删掉",
        "delete the task {content:chore}", "remove {content:chore} from my tasks", "delete task {id=3|4|8}",
        "get rid of the {content:chore} task",
    ),
    "create_event": (
        "{start:when}去{title:event}", "{start:when}要{title:event}", "{title:event} {start:when}, add it to the calendar", "I've got {title:event} {start:when}",
        "帮我安排{start:when}{title:event}", "{start:when}有{title:event}，记到日程里", "日程加一个{title:event}，{start:when}",
        "{start:when}{title:event}，帮我记一下", "约了{start:when}{title:event}",
        "schedule a {title:event} {start:when}", "add {title:event} to my calendar {start:when}",
        "I have a {title:event} {start:when}", "put {title:event} on the calendar for {start:when}",
        "book {title:event} for {start:when}",
    ),
    "list_events": (
        "{from:when}有空吗", "{from:when}忙不忙", "am I free {from:when}", "am I busy {from:when}",
        "我{from:when}有什么安排", "看看日程", "这周有哪些日程 ## from=本周", "今天有什么安排 ## from=今天",
        "我的日历上有什么", "最近有什么活动",
        "what's on my calendar", "what do I have {from:when}", "show my schedule", "any events this week ## from=this week",
        "what's planned for today ## from=today", "do I have anything on {from:when}",
    ),
    "update_event": (
        "把{title:event}改到{start:when}", "{title:event}推迟到{start:when}", "{title:event}提前到{start:when}",
        "move the {title:event} to {start:when}", "reschedule {title:event} to {start:when}",
        "push the {title:event} to {start:when}",
    ),
    "delete_event": (
        "取消{title:event}", "把{title:event}从日程里删掉", "{title:event}不去了，取消吧",
        "cancel the {title:event}", "delete the {title:event} from my calendar", "remove {title:event} from the calendar",
    ),
    "create_habit": (
        "我想养成{habit:habit}的习惯 ## frequency=daily", "帮我建个习惯：每天{habit:habit} ## frequency=daily",
        "开始打卡{habit:habit}", "新增习惯{habit:habit}",
        "I want to build a habit of {habit:habit}", "track a new habit: {habit:habit}",
        "start tracking {habit:habit} every day ## frequency=daily", "create a habit for {habit:habit}",
    ),
    "check_in_habit": (
        "{habit:habit}打卡", "今天{habit:habit}打卡了", "我今天完成了{habit:habit}", "{habit:habit}签到",
        "check in {habit:habit}", "I did my {habit:habit} today", "log {habit:habit} for today", "done {habit:habit} today",
    ),
    "list_habits": (
        "我有哪些习惯", "看看我的习惯打卡", "我在坚持哪些习惯", "习惯打卡情况怎么样",
        "which habits am I tracking", "show my habits", "how are my habits going", "list my habits",
    ),
    "update_habit": (
        "{habit:habit}改成每周三次 ## frequency=weekly, target=3", "暂停{habit:habit}这个习惯 ## status=paused",
        "把{habit:habit}的目标改成每天 ## frequency=daily",
        "pause my {habit:habit} habit ## status=paused", "change {habit:habit} to three times a week ## frequency=weekly, target=3",
        "resume the {habit:habit} habit ## status=active",
    ),
    "delete_habit": (
        "删掉{habit:habit}这个习惯", "不再记录{habit:habit}了", "把{habit:habit}习惯删除",
        "delete the habit {habit:habit}", "stop tracking {habit:habit}", "remove my {habit:habit} habit",
    ),
    "create_note": (
        "记下来：{content:note}", "帮我记住{content:note}", "备忘一下：{content:note}", "jot down: {content:note}", "remember that {content:note}",
        "记个笔记：{content:note}", "记一下：{content:note}", "帮我记下来，{content:note}", "新建笔记：{content:note}",
        "note that {content:note}", "make a note: {content:note}", "write down that {content:note}",
        "take a note: {content:note}",
    ),
    "list_notes": (
        "找一下关于{query:title}的笔记", "看看我的笔记", "我记过哪些笔记", "上周的笔记 ## from=上周",
        "find my notes about {query:title}", "show my notes", "what notes do I have", "search my notes for {query:title}",
    ),
    "update_note": (
        "在{title:title}笔记里加上：{append:item}", "把{title:title}那条笔记改成{content:note}",
        "add {append:item} to the {title:title} note", "update the {title:title} note to say {content:note}",
    ),
    "delete_note": (
        "把{title:title}那条笔记删了", "删除笔记{id=3|12}", "删掉关于{title:title}的笔记",
        "delete the {title:title} note", "delete note {id=3|12}", "remove my note about {title:title}",
    ),
    "write_diary": (
        "写日记：{content:diary}", "记日记：{content:diary}", "今天的日记：{content:diary}",
        "dear diary, {content:diary}", "diary entry: {content:diary}", "write in my diary: {content:diary}",
    ),
    "record_transaction": (
        "交了{amount:money}的物业费", "买衣服花了{amount:money}", "刚花了{amount:money}", "dropped {amount:money} on dinner", "{amount:money} for groceries",
        "午饭花了{amount=35块|28元|45块钱}", "打车花了{amount=23块|40元}", "买菜花了{amount=68元|120块}",
        "记一笔支出{amount:money}", "工资到账{amount=8000|12000元} ## type=income", "收到红包{amount=200|88元} ## type=income",
        "花了{amount:money}买衣服", "记账：{amount:money}",
        "I spent {amount:money} on lunch", "paid {amount:money} for a taxi", "spent {amount:money} on groceries",
        "log an expense of {amount:money}", "got paid {amount=3000 dollars|$2500} ## type=income",
        "record {amount:money} for dinner",
    ),
    "list_transactions": (
        "今天花了哪些钱 ## from=今天", "最近花钱多吗", "上个月开销多少 ## from=上个月", "what have I spent money on", "how much money did I spend",
        "这个月花了多少钱 ## from=本月", "看看今天的账 ## from=今天", "我这周花了多少 ## from=本周", "最近的支出",
        "上个月的账单 ## from=上个月", "我在吃饭上花了多少钱",
        "how much did I spend this week ## from=this week", "show my expenses", "what did I spend today ## from=today",
        "how much have I spent this month ## from=this month", "list my transactions", "show last month's spending ## from=last month",
    ),
    "record_mood": (
        "有点{mood:mood}", "感觉{mood:mood}", "心情{mood:mood}", "feeling {mood:mood}", "I feel {mood:mood} today",
        "今天心情{mood:mood}", "我现在{mood:mood}", "心情{mood:mood}，记一下",
        "I'm feeling {mood:mood}", "log my mood: {mood:mood}", "my mood today is {mood:mood}",
    ),
    "list_moods": (
        "我最近心情怎么样", "看看我的心情记录", "这个月心情如何 ## from=本月",
        "how has my mood been", "show my mood log", "what was my mood this week ## from=this week",
    ),
    "record_diet": (
        "中午吃了{food:food} ## meal=lunch", "晚上吃的{food:food} ## meal=dinner", "for dinner I had {food:food} ## meal=dinner", "I just had {food:food}",
        "早饭吃了{food:food} ## meal=breakfast", "午饭吃了{food:food} ## meal=lunch", "晚饭吃了{food:food} ## meal=dinner",
        "我吃了{food:food}",
        "I had {food:food} for lunch ## meal=lunch", "I ate {food:food} for breakfast ## meal=breakfast",
        "log my dinner: {food:food} ## meal=dinner", "just ate {food:food}",
    ),
    "list_diets": (
        "我今天都吃了什么 ## from=今天", "看看我的饮食记录", "昨天吃了什么 ## from=昨天",
        "what did I eat today ## from=today", "show my meals", "what did I have for lunch yesterday ## from=yesterday",
    ),
    "record_water": (
        "喝了{amount=一杯|两杯|三杯|半杯}水", "刚喝了{amount=500ml|300毫升|一瓶}水", "记录喝水{amount=一杯|500ml}",
        "I drank {amount=a glass|two glasses|500ml|a bottle} of water", "log {amount=a cup|two cups|300ml} of water",
        "had {amount=a glass|a bottle} of water",
    ),
    "list_water": (
        "我今天喝了多少水", "今天喝水够了吗", "这周喝水情况 ## from=本周",
        "how much water did I drink today", "how much water have I had", "show my water intake this week ## from=this week",
    ),
    "record_sleep": (
        "昨晚睡了{hours=7个小时|6个半小时|8小时}", "我睡了{hours=7小时|五个小时}", "昨天晚上只睡了{hours=5个小时|6小时}",
        "I slept {hours=7 hours|6 hours|8 hours} last night", "got {hours=6 hours|7.5 hours} of sleep", "slept {hours=5 hours|9 hours}",
    ),
    "record_body": (
        "我今天体重{weight_kg=65公斤|130斤|58kg}", "体重{weight_kg=70公斤|62.5kg}", "称了一下，{weight_kg=120斤|66公斤}",
        "my weight is {weight_kg=72 kg|68.5 kg}", "I weigh {weight_kg=70 kg|80kg} today", "weighed in at {weight_kg=75 kg|64kg}",
    ),
    "record_medicine": (
        "我吃了{medicine:medicine}", "刚吃了{dose=一片|两粒}{medicine:medicine}", "吃过{medicine:medicine}了",
        "I took {medicine:medicine}", "took {medicine:medicine} this morning", "log that I took {medicine:medicine}",
    ),
    "record_period": (
        "大姨妈今天来了 ## start=今天", "例假{start=今天|昨天}开始了", "月经{end=今天|昨天}结束了",
        "my period started {start=today|yesterday}", "my period ended {end=today|yesterday}", "period came today ## start=today",
    ),
    "record_health": (
        "量了{metric:metric}，{value=120/80|6.5|36.8}", "今天走了{value=8000|12000}步 ## metric=步数",
        "我的{metric:metric}是{value=130/85|5.8|37.2}",
        "my {metric:metric} is {value=72|120/80|98.6}", "log my {metric:metric}: {value=5.6|130/90}",
        "I walked {value=10000|6000} steps today ## metric=steps",
    ),
    "list_health": (
        "看看我最近的{metric:metric}记录 ## kind=metric", "我这个月的体重变化 ## kind=body, from=本月", "最近睡得怎么样 ## kind=sleep",
        "show my {metric:metric} readings ## kind=metric", "show my sleep for the last week ## kind=sleep", "how has my weight changed ## kind=body",
    ),
    "get_focus_today": (
        "今天我应该专注做什么", "今天最重要的事是什么", "今天先做什么好",
        "what should I focus on today", "what's most important today", "what should I do first today",
    ),
    "create_goal": (
        "定个目标：{title:goal}", "今年的目标是{title:goal}", "我要设定一个目标，{title:goal}",
        "set a goal to {title:goal}", "my goal is to {title:goal}", "new goal: {title:goal}",
    ),
    "list_goals": (
        "我的目标进展如何", "看看我的目标", "我有哪些目标",
        "show my goals", "how are my goals going", "what goals do I have",
    ),
    "update_goal_progress": (
        "我又读完了一本书 ## title=读书, add=1", "{title:goal}完成了 ## status=done", "{title:goal}的进度加{add=1|2|5}",
        "I've made progress on {title:goal}", "add {add=1|2|3} to my {title:goal} goal", "I finished my goal to {title:goal} ## status=done",
    ),
    "list_achievements": (
        "我获得了哪些成就", "看看我的勋章", "我解锁了什么成就",
        "what achievements have I unlocked", "show my achievements", "list my badges",
    ),
    "add_shopping_item": (
        "我要买{item:item}", "购物清单加{item:item}", "购物清单加上{item:item}", "把{item:item}加到购物清单", "记得买{item:item}",
        "家里没{item:item}了，记一下", "购物车加上{item:item}", "买{item:item}，加到清单上",
        "add {item:item} to the shopping list", "we need {item:item}", "put {item:item} on the shopping list",
        "I need to buy {item:item}", "we're out of {item:item}", "add {item:item} to my shopping list",
    ),
    "list_shopping": (
        "{query:item}在购物清单上吗", "are {query:item} on the shopping list", "还要买啥",
        "购物清单上还有什么", "我要买些什么", "看看购物清单", "清单上有{query:item}吗", "购物清单里有没有{query:item}",
        "what's on my shopping list", "what do I need to buy", "show the shopping list", "is {query:item} on the list",
        "do we still need {query:item}",
    ),
    "mark_shopping_bought": (
        "{item:item}买好了", "{item:item}已经买了", "买到{item:item}了，划掉吧",
        "I bought the {item:item}", "got the {item:item}", "mark {item:item} as bought", "cross {item:item} off the list",
    ),
    "add_wishlist_item": (
        "心愿单加一个{item:wish}", "想要{item:wish}，记到心愿单", "add {item:wish} to the wishlist",
        "我想要{item:wish}，加到心愿单", "心愿单加上{item:wish}", "把{item:wish}放进愿望清单",
        "put {item:wish} on my wishlist", "add {item:wish} to my wish list", "I wish I had {item:wish}, save it",
    ),
    "list_wishlist": (
        "我的心愿单里有什么", "看看愿望清单", "心愿单",
        "show my wishlist", "what's on my wish list", "what do I want to buy someday",
    ),
    "list_countdowns": (
        "距离{query:countdown}还有几天", "看看我的倒计时", "倒计时列表",
        "show my countdowns", "how many days until {query:countdown}", "list my countdowns",
    ),
    "create_countdown": (
        "帮我建个倒计时，{date:when}{title:countdown}", "倒计时：{title:countdown}，{date:when}", "设个{title:countdown}的倒计时，{date:when}",
        "count down to {title:countdown} on {date:when}", "create a countdown for {title:countdown} on {date:when}",
        "start a countdown to {title:countdown}, {date:when}",
    ),
    "delete_countdown": (
        "把{title:countdown}倒计时删掉", "删除{title:countdown}的倒计时",
        "remove the {title:countdown} countdown", "delete the countdown for {title:countdown}",
    ),
    "create_memo": (
        "留个便签给家里人：{content:memo}", "post a memo for everyone: {content:memo}",
        "贴个便签：{content:memo}", "留个便签：{content:memo}", "写张便条：{content:memo}",
        "leave a memo: {content:memo}", "post a memo: {content:memo}", "sticky note: {content:memo}",
    ),
    "list_memos": (
        "便签上都写了什么", "看看便签", "有给我的便条吗",
        "any memos for me", "show the memos", "what's on the memo board",
    ),
    "list_channels": (
        "有哪些设备连着你", "连接了哪些设备", "看看在线设备",
        "which devices are connected", "list the connected devices", "what devices are online",
    ),
    "record_trajectory": (
        "{time:past}去了趟{place:place}", "刚从{place:place}回来", "been to {place:place} {time:past}",
        "记录一下，我今天去了{place:place}", "我{time:past}去了{place:place}", "到{place:place}了，记一下",
        "I visited {place:place} {time:past}", "I went to {place:place} today", "log that I was at {place:place}",
    ),
    "list_trajectories": (
        "我这个月去过哪些地方 ## from=本月", "看看我的足迹", "上周去了哪里 ## from=上周",
        "where did I go last week ## from=last week", "show my trips", "which places have I been to this month ## from=this month",
    ),
    "get_today_summary": (
        "总结一下我今天的情况", "今天的汇总", "给我今日总结",
        "give me today's summary", "summarize my day", "how was my day, sum it up",
    ),
    "web_search": (
        "查一下{query:topic}", "网上搜搜{query:topic}", "search for {query:topic}", "find online {query:topic}",
        "帮我搜一下{query:topic}", "上网查查{query:topic}", "搜索{query:topic}",
        "search the web for {query:topic}", "look up {query:topic} online", "google {query:topic}",
    ),
    "list_inventory": (
        "{query:stuff}放哪了", "{query:stuff}收在哪了", "家里有没有{query:stuff}", "have we got any {query:stuff}", "where are the {query:stuff}",
        "{query:stuff}放在哪里了", "家里还有{query:stuff}吗", "{query:stuff}在哪", "看看家里的物品清单",
        "where is the {query:stuff}", "where did I put the {query:stuff}", "do we have any {query:stuff}",
        "what's in {location:location}",
    ),
    "create_inventory_item": (
        "{item:stuff}收在{location:location}了", "{item:stuff}在{location:location}", "we keep the {item:stuff} in {location:location}", "we have {item:stuff} in {location:location}",
        "把{item:stuff}放在{location:location}了，记一下", "{item:stuff}收在{location:location}", "{item:stuff}放到{location:location}了",
        "I put the {item:stuff} in {location:location}", "the {item:stuff} is in {location:location}",
        "store {item:stuff} in {location:location}",
    ),
    "delete_inventory_item": (
        "{item:stuff}扔了，从清单里删掉", "把{item:stuff}从物品清单删除",
        "remove the {item:stuff} from the inventory", "delete {item:stuff} from my inventory",
    ),
    "record_item_lend": (
        "{person:person}借走了我的{item:thing} ## direction=lent", "把{item:thing}借给{person:person}了 ## direction=lent",
        "我从{person:person}那借了{item:thing} ## direction=borrowed",
        "{person:person}把{item:thing}还回来了 ## returned=true",
        "I lent my {item:thing} to {person:person} ## direction=lent", "{person:person} borrowed my {item:thing} ## direction=lent",
        "I borrowed a {item:thing} from {person:person} ## direction=borrowed", "{person:person} returned my {item:thing} ## returned=true",
    ),
    "record_money_lend": (
        "借给{person:person}{amount:money} ## direction=lent", "{person:person}找我借了{amount:money} ## direction=lent",
        "我向{person:person}借了{amount:money} ## direction=borrowed", "{person:person}还了我{amount:money} ## repayment=true",
        "I lent {person:person} {amount:money} ## direction=lent", "I borrowed {amount:money} from {person:person} ## direction=borrowed",
        "{person:person} paid me back {amount:money} ## repayment=true",
    ),
    "list_subscriptions": (
        "我订阅了哪些服务", "每个月的会员费一共多少", "看看我的订阅",
        "what subscriptions am I paying for", "list my subscriptions", "show my recurring payments",
    ),
    "switch_mode": (
        "我出门了，切换到离家模式 ## mode=away", "开启睡眠模式 ## mode=sleep", "客人来了，开访客模式 ## mode=guest",
        "我回来了，切到在家模式 ## mode=home",
        "switch to away mode ## mode=away", "good night, switch to sleep mode ## mode=sleep", "turn on guest mode ## mode=guest",
        "I'm home, set home mode ## mode=home", "set the house to sleep mode ## mode=sleep",
    ),
    "get_current_mode": (
        "现在是什么模式", "家里是什么模式", "当前模式是什么",
        "what mode is the house in", "which mode are we in", "what's the current mode",
    ),
    "record_dream": (
        "我昨晚{content:dream}", "记个梦：{content:dream}", "做了个梦，{content:dream}",
        "I dreamt {content:dream}", "last night I dreamed {content:dream}", "log a dream: {content:dream}",
    ),
    "record_movie": (
        "刚看完《{title:movie}》，给{rating=8|9}分", "我想看《{title:movie}》 ## status=want", "看了{title:movie}",
        "I watched {title:movie}", "I want to watch {title:movie} ## status=want", "just finished {title:movie}, {rating=8|9} out of 10",
    ),
    "add_birthday": (
        "{person:person}的生日是{date=5月20日|10月3号|3月8日}", "记一下{person:person}生日，{date=6月1日|12月25日}",
        "{person:person}'s birthday is {date=March 3|June 5|October 12}", "add {person:person}'s birthday on {date=May 20|July 4}",
    ),
    "list_birthdays": (
        "最近有谁过生日", "{query:person}的生日是哪天", "看看生日列表",
        "whose birthday is coming up", "when is {query:person}'s birthday", "list the birthdays",
    ),
    "add_book": (
        "我想读《{title:book}》 ## status=want", "刚读完《{title:book}》 ## status=read", "书单加上{title:book}",
        "I want to read {title:book} ## status=want", "I just finished reading {title:book} ## status=read",
        "add {title:book} to my reading list",
    ),
    "create_study_plan": (
        "帮我做个学习计划：每天学30分钟{subject:subject} ## minutes_per_day=30", "制定一个{subject:subject}学习计划",
        "create a study plan for {subject:subject}", "make me a {subject:subject} study plan, one hour a day ## minutes_per_day=60",
    ),
    "create_idea": (
        "突然有个想法：{content:idea}", "记个点子：{content:idea}", "灵感：{content:idea}",
        "idea: {content:idea}", "I have an idea: {content:idea}", "save this idea: {content:idea}",
    ),
    "record_pet_activity": (
        "刚遛完{pet:pet} ## activity=遛狗", "给{pet:pet}喂了猫粮 ## activity=喂食", "带{pet:pet}去打了疫苗 ## activity=打疫苗",
        "fed {pet:pet} ## activity=fed", "walked {pet:pet} ## activity=walk", "took {pet:pet} to the vet ## activity=vet",
    ),
    "record_plant_watering": (
        "给{plant:plant}浇了水", "{plant:plant}浇过水了", "刚浇了{plant:plant}",
        "I watered {plant:plant}", "watered {plant:plant} today", "just watered {plant:plant}",
    ),
    "add_recipe": (
        "记个菜谱：{dish:dish}", "保存{dish:dish}的做法",
        "save a recipe for {dish:dish}", "add a recipe: {dish:dish}",
    ),
    "record_medical": (
        "今天去{hospital:hospital}{reason:reason}", "去医院{reason:reason}，花了{cost=300|150}",
        "I went to {hospital:hospital} for {reason:reason}", "saw the doctor for {reason:reason} yesterday ## date=yesterday",
    ),
    "add_person": (
        "加个联系人：{person:person}，电话{phone=13800138000|13912345678}", "添加联系人{person:person}",
        "add {person:person} to contacts", "save {person:person}'s number {phone=555-1234|555-9876}",
    ),
    "add_address": (
        "记一下{label:label}的地址：{address:address}", "{label:label}地址是{address:address}",
        "save the {label:label} address: {address:address}", "the {label:label} address is {address:address}",
    ),
    "add_coupon": (
        "存个优惠券：{store:store}买一送一 ## title=买一送一", "{store:store}有张满100减20的券 ## title=满100减20",
        "save a 20% off coupon for {store:store} ## title=20% off", "I have a coupon for {store:store}, buy one get one free ## title=buy one get one free",
    ),
}

# Not an action: the model answers these in words.
NONE: tuple[str, ...] = (
    "你好", "早上好", "晚安啊", "谢谢你", "谢谢", "辛苦了", "哈哈哈", "好的", "嗯嗯", "没事了", "再见",
    "给我讲个笑话", "讲个故事吧", "天空为什么是蓝色的", "中国的首都是哪里", "帮我写一首诗", "你喜欢什么颜色",
    "今天好无聊", "陪我聊聊天", "1加1等于几", "光速是多少", "什么是人工智能", "推荐一本好书", "你觉得我该怎么办",
    "怎么做蛋炒饭好吃", "为什么猫喜欢纸箱", "翻译一下hello", "地球离太阳多远", "明天会更好吗", "你吃饭了吗",
    "我好累啊", "周末去哪玩比较好", "解释一下量子力学", "圣诞节是哪天", "你真聪明", "不用了", "算了",
    "hello", "hi there", "good morning", "good morning.", "thanks", "thank you so much", "ok", "cool", "never mind",
    "bye", "tell me a joke", "tell me a story", "why is the sky blue", "what's the capital of France",
    "write me a poem", "what's your favorite color", "I'm bored", "let's chat", "what is 2 plus 2",
    "how far is the moon", "what is machine learning", "recommend a good movie", "what do you think I should do",
    "how do I make fried rice", "why do cats like boxes", "translate hello into Spanish", "explain quantum physics",
    "when is Christmas", "you're smart", "no thanks", "how are you", "how's it going", "that's funny",
    "I love you", "good night", "what time is it in London", "who wrote Hamlet", "what's the meaning of life",
)

# Asking who the assistant is, and what it can do: the layer answers these itself
# (`IntentLayer.who_am_i` / `help_text`), in every register a household uses, typos included.
WHO: tuple[str, ...] = (
    "你是谁", "你是谁啊", "你谁啊", "请问你是哪位", "你是哪位", "你叫啥", "你叫啥名字", "你叫什么来着", "怎么称呼你",
    "我该怎么叫你", "你有名字吗", "你的名字是什么", "你是什么东西", "你到底是什么", "你是个啥",
    "你是机器人吗", "你是不是机器人", "你是AI吗", "你是人工智能吗", "你是真人吗", "跟我说话的是谁", "我在跟谁说话",
    "自我介绍一下", "介绍下你自己", "说说你自己", "你是干嘛的", "你是做什么的", "你是哪家的助手", "你是啥助手",
    "你是谁呀？", "你四谁", "你是睡", "你角什么名字", "你是什么机器人",
    "who are you", "who r u", "who is this", "who am I talking to", "who's this", "what are you",
    "what exactly are you", "are you a robot", "are you a bot", "are you human", "are you a real person",
    "am I talking to a person or a machine", "are you an AI", "is this a bot", "what's your name", "whats ur name",
    "do you have a name", "what should I call you", "what do I call you", "tell me about yourself",
    "introduce yourself", "say something about yourself", "what kind of assistant are you", "who made you",
    "who ar you", "waht are you", "what is your name again",
)
HELP: tuple[str, ...] = (
    "你能做什么", "你能干啥", "你会干嘛", "你会干啥", "你都会啥", "你能帮我啥", "你能帮我干嘛", "你有什么功能",
    "有什么功能", "都有哪些功能", "你有哪些本事", "你的功能有哪些", "你能帮上什么忙", "我能让你做什么",
    "我可以叫你做什么", "我能跟你说什么", "可以问你些什么", "我该怎么用你", "怎么用", "这个怎么用", "这玩意怎么用",
    "怎么使用", "咋用", "这个咋用啊", "你咋用", "该咋使唤你", "用法是什么", "使用方法", "给我个使用指南", "说明书在哪", "有没有教程",
    "不会用，教教我", "教我怎么用你", "帮助", "求助", "帮助菜单", "功能列表",
    "说说你能做的事", "你能为我做些什么", "能不能说下你的功能", "你的本事都有啥", "你会做神魔", "你能做社么",
    "what can you do", "what can u do", "what do you do", "what are you good for", "what are your features",
    "what features do you have", "what can I ask you", "what can I say to you",
    "what kinds of things can you do", "which jobs do you handle", "how can you help me",
    "how do I use you", "how does this work", "how do I get started", "where do I start", "I'm new here, how do I use this",
    "show me what you can do", "list your commands", "what commands do you know", "give me some examples of what to say",
    "is there a manual", "is there a user guide", "any instructions", "help me out, what can you do", "help", "help!",
    "i need help using you", "what are you able to help with",
    "wat can you do", "what cna you do", "how do i use u",
)


def _merge() -> None:
    """Fold the per-language phrase books into POOLS, TEMPLATES and NONE."""
    global NONE
    global WHO, HELP
    from homeagent.intent import phrases_contrast, phrases_en, phrases_zh

    for book, side in ((phrases_zh, 0), (phrases_en, 1), (phrases_contrast, 0)):
        for name, values in book.POOLS.items():
            pair = list(POOLS.get(name, ((), ())))
            pair[side] = tuple(dict.fromkeys((*pair[side], *values)))
            POOLS[name] = (pair[0], pair[1])
        for action, texts in book.TEMPLATES.items():
            TEMPLATES[action] = tuple(dict.fromkeys((*TEMPLATES.get(action, ()), *texts)))
        NONE = tuple(dict.fromkeys((*NONE, *book.NONE)))
        WHO = tuple(dict.fromkeys((*WHO, *getattr(book, "WHO", ()))))
        HELP = tuple(dict.fromkeys((*HELP, *getattr(book, "HELP", ()))))


_merge()
