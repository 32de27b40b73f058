"""More Chinese ways of saying each action, merged into `homeagent.intent.phrases`.

Same format as `phrases.TEMPLATES` (`{key:pool}`, `{key=a|b}`, a trailing `## key=value`),
Chinese only. `POOLS` adds Chinese values to a shared pool (or starts a pool of its own);
`NONE` adds what is no action (small talk the model answers in words).

What the book covers, per action: commands in several registers (full sentences, terse
imperatives, slang, the object first, no verb at all, a past-tense report of what was
eaten, drunk or done) and, for every read action, questions about its domain's content
("did I / how many / how much / when was the last time / who has / is it on / how far
along"), each naming the domain, so a question about records goes to the reading action
of the right domain and never to a write. NONE holds remarks that mention household
things (chores, money, children, weather, food) but ask for nothing, feelings, opinions,
jokes and questions about the world.
"""

from __future__ import annotations

POOLS: dict[str, tuple[str, ...]] = {
    # Shared pools (phrases.POOLS): more Chinese values.
    "when": ("明天上午9点", "周五下午", "下周三晚上7点", "今天下午4点", "后天早上", "下个月1号", "周日晚上"),
    "past": ("今天下午", "刚才", "上周末"),
    "chore": ("倒垃圾", "交房租", "换灯泡", "修空调", "寄快递", "给车加油", "还图书馆的书", "交学费", "订机票",
              "打扫卫生间", "续签合同", "买生日礼物", "洗床单", "给爸爸打电话"),
    "event": ("部门会议", "牙科复诊", "团建", "钢琴课", "婚礼", "打羽毛球", "看电影", "产检"),
    "item": ("可乐", "洗洁精", "猪肉", "西红柿", "土豆", "纸巾", "牙膏", "咖啡", "矿泉水", "猫粮", "尿不湿", "食用油"),
    "habit": ("早起", "拉伸", "写日记", "练字", "学英语", "做俯卧撑"),
    "money": ("68块", "一百块", "2000元", "45.5元", "15块"),
    "person": ("小刘", "老张", "爸爸", "同事小陈", "闺蜜", "楼下阿姨"),
    "food": ("一碗牛肉面", "麻辣烫", "一份蛋炒饭", "两片面包", "一杯奶茶", "火锅", "煎饼果子", "一盒酸奶"),
    "medicine": ("阿莫西林", "感冒灵", "鱼油", "褪黑素", "胃药", "降糖药"),
    "place": ("动物园", "图书馆", "健身房", "上海", "海边", "商场"),
    "plant": ("月季", "仙人掌", "君子兰", "薄荷"),
    "pet": ("豆豆", "橘猫", "二哈", "小黑"),
    "book": ("红楼梦", "围城", "明朝那些事儿", "平凡的世界"),
    "movie": ("满江红", "繁花", "甄嬛传", "封神"),
    "note": ("物业电话是88886666", "热水器保修到明年6月", "孩子的疫苗本在书柜第二层", "路由器管理密码是admin123"),
    "thing": ("帐篷", "投影仪", "行李箱", "吸尘器", "折叠椅"),
    "stuff": ("身份证", "驾照", "螺丝刀", "剪刀", "医药箱", "充电线", "保修卡"),
    "location": ("客厅电视柜", "玄关抽屉", "储物间", "床底下", "冰箱冷冻层"),
    "title": ("装修", "密码", "停车", "菜谱", "保险"),
    "goal": ("跑完半马", "考过雅思", "每月存3000块", "减到60公斤"),
    "mood": ("郁闷", "挺平静的", "很难过", "压力很大", "很满足"),
    "topic": ("附近的川菜馆", "北京到上海的高铁票", "今年的个税政策", "周末的电影排片"),
    "idea": ("把储物间改成书房", "每周五搞一次家庭电影夜", "用旧衣服做个猫窝"),
    "dish": ("糖醋排骨", "酸辣土豆丝", "麻婆豆腐"),
    "subject": ("日语", "吉他", "画画", "编程"),
    "memo": ("冰箱里的剩菜今天吃掉", "晚上我不回来吃饭", "燃气费已经交了"),
    "wish": ("投影仪", "电动牙刷", "一双跑鞋", "空气炸锅"),
    "countdown": ("国庆假期", "婚礼", "开学", "搬新家"),
    "dream": ("梦见掉进了水里", "梦到老家的院子", "梦见中了彩票"),
    "diary": ("今天下雨，在家看了一天书", "和孩子一起做了蛋糕", "加了一天班，回家累坏了"),
    "address": ("建设路5号2栋", "滨江大道66号"),
    "label": ("爸妈家", "老房子", "幼儿园"),
    "store": ("麦当劳", "沃尔玛", "瑞幸"),
    "hospital": ("儿童医院", "中医院", "牙科诊所"),
    "reason": ("发烧", "拔牙", "复查", "过敏"),
    "metric": ("血氧", "步数"),
    "category": ("医疗", "教育", "水电"),
    # Pools of this book.
    "span": ("今天", "昨天", "这周", "本周", "上周", "这个月", "本月", "上个月", "今年"),
    "snack": ("一包薯片", "几块饼干", "一根香蕉", "一把坚果", "一块巧克力"),
    "drink": ("一杯", "两杯", "一瓶", "500ml", "300毫升", "半瓶"),
    "sleep": ("7个小时", "6个小时", "8小时", "五个半小时", "九个小时"),
    "weight": ("65公斤", "130斤", "58kg", "72.5公斤", "118斤"),
}

TEMPLATES: dict[str, tuple[str, ...]] = {
    # ---- tasks ----
    "create_task": (
        "{content:chore}，记到待办里", "待办：{content:chore}", "{due:when}之前得{content:chore}",
        "回头记得{content:chore}", "我得{content:chore}，帮我记着", "给我加个事儿：{content:chore}",
        "{due:when}前{content:chore}，记一下", "别忘了{due:when}{content:chore}", "记上：{content:chore}",
        "有个事儿，{content:chore}", "新任务，{content:chore}", "帮我记着{due:when}要{content:chore}",
        "{content:chore}这事儿记一下", "加待办{content:chore}，{due:when}", "到时候提醒我{content:chore}",
        "{content:chore}，急，赶紧记上 ## priority=high", "{content:chore}，不急，有空再做 ## priority=low",
        "记个要紧的事：{content:chore} ## priority=high", "{due:when}要记得{content:chore}",
        "清单上加一条：{content:chore}",
        "{content:chore}，{due:when}前搞定", "{due:when}得{content:chore}，别让我忘了", "记得{due:when}{content:chore}",
        "回头{content:chore}", "{content:chore}这事儿交给你记着", "给我记个{content:chore}", "待会儿要{content:chore}",
        "提醒一下，{due:when}{content:chore}",
    ),
    "complete_task": (
        "{content:chore}弄好了", "{content:chore}办完了", "{content:chore}整完了", "搞定{content:chore}了",
        "{content:chore}那个任务做完了", "把{content:chore}勾掉", "{content:chore}已经完成", "刚{content:chore}完",
        "{content:chore}，完事儿", "任务{id=1|3|6}搞定", "第{id=2|4}个任务做完了", "{content:chore}总算弄完了",
        "划掉{content:chore}这个待办",
        "{content:chore}ok了", "{content:chore}弄完啦", "{content:chore}做好了", "{content:chore}完成啦",
        "{content:chore}已经办好了", "{content:chore}处理完了", "任务{id=2|8}完成",
    ),
    "list_tasks": (
        "待办里还有什么", "还有几个任务没做", "我今天要干啥 ## from=今天", "有没有过期没做的任务",
        "{query:chore}做了没有", "{query:chore}那个任务完成了吗", "我的待办清单上都有啥",
        "明天有哪些任务要到期 ## from=明天", "还剩多少待办", "哪些任务还没完成 ## status=open",
        "我这周完成了几个任务 ## status=done, from=本周", "有什么重要的任务吗 ## priority=high",
        "高优先级的任务有哪些 ## priority=high", "我是不是还有任务没做完", "待办还剩几条",
        "我上周做完了哪些事 ## status=done, from=上周", "关于{query:chore}的任务有吗",
        "{query:chore}那事我弄了没", "今天截止的任务有几个 ## from=今天", "有啥任务拖着没做", "{query:chore}记到待办里了吗", "我有没有{query:chore}这个任务",
        "待办里还有{query:chore}吗", "明天有什么要做的 ## from=明天",
    ),
    "update_task": (
        "{content:chore}往后推到{due:when}", "{content:chore}改成{due:when}截止", "{content:chore}延期到{due:when}",
        "{content:chore}提前到{due:when}", "{content:chore}调成高优先级 ## priority=high",
        "{content:chore}不急了，改成低优先级 ## priority=low", "任务{id=2|5}的截止日期改到{due:when}",
        "{content:chore}截止时间挪到{due:when}", "把{content:chore}重新打开 ## status=open",
        "{content:chore}的期限往后延到{due:when}",
        "{content:chore}改到{due:when}做", "{content:chore}晚点再做，推到{due:when}", "{content:chore}提前，改成{due:when}截止",
        "{content:chore}换个时间，{due:when}", "{content:chore}的优先级调高 ## priority=high",
    ),
    "delete_task": (
        "{content:chore}那个任务不要了", "删了{content:chore}", "把{content:chore}从待办里去掉",
        "{content:chore}取消吧，删掉这个任务", "待办里的{content:chore}删掉", "第{id=3|4}个任务删了",
        "{content:chore}这条待办撤了", "任务{id=6|9}不用了，删除", "把{content:chore}这件事从清单里删除",
    ),
    # ---- events ----
    "create_event": (
        "日程：{start:when}，{title:event}", "{start:when}{title:event}，记到日历上", "日历上加上{start:when}的{title:event}",
        "{title:event}定在{start:when}", "{start:when}约了{title:event}", "安排一下，{start:when}{title:event}",
        "记个日程：{start:when}{title:event}", "{start:when}要去{title:event}，帮我排上", "排个日程，{title:event}，{start:when}",
        "{title:event}是{start:when}，记一下", "我{start:when}得去{title:event}", "帮我订个日程，{start:when}{title:event}",
        "{start:when}有个{title:event}", "把{start:when}的{title:event}加到日程", "{start:when}在{location:place}{title:event}",
        "{title:event}，时间是{start:when}",
        "{start:when}有约，{title:event}", "{title:event}，{start:when}，地点{location:place}",
    ),
    "list_events": (
        "{from:when}有啥安排", "{from:when}有会吗", "我{from:when}有没有约", "日程上{from:when}排了什么",
        "下周有什么活动 ## from=下周", "今天还有几个会 ## from=今天", "{query:event}是哪天",
        "{query:event}几点开始", "最近有没有{query:event}", "我这周的日程满不满 ## from=本周",
        "{from:when}日历上有东西吗", "周末有安排吗", "接下来有什么日程", "{query:event}定在什么时候",
        "明天下午我有空吗 ## from=明天下午",
        "今晚有事吗 ## from=今晚", "这周六忙吗 ## from=这周六", "下次{query:event}是什么时候", "{query:event}在哪儿", "我{from:when}约了谁",
    ),
    "update_event": (
        "{title:event}改期到{start:when}", "{title:event}挪到{start:when}", "{title:event}时间换成{start:when}",
        "{title:event}往后推到{start:when}", "把{title:event}的时间改成{start:when}", "{title:event}换个地方，改在{location:place}",
        "{title:event}的地点改成{location:place}", "{title:event}延到{start:when}", "{title:event}调整到{start:when}",
    ),
    "delete_event": (
        "{title:event}取消了", "{title:event}黄了，删掉", "{title:event}不办了，从日程删除", "日历上的{title:event}删掉",
        "删掉{title:event}这个日程", "{title:event}去不了了，取消日程", "把{title:event}这个安排撤了",
        "{title:event}不用去了，删了它", "日程里{title:event}那条删除",
    ),
    # ---- habits ----
    "create_habit": (
        "以后每天{habit:habit} ## frequency=daily", "我要开始{habit:habit}，帮我建个习惯", "加个习惯，{habit:habit}",
        "从今天起坚持{habit:habit}", "我想每天{habit:habit} ## frequency=daily", "{habit:habit}，每周三次，帮我记习惯 ## frequency=weekly, target=3",
        "新习惯：{habit:habit}", "建个打卡项目：{habit:habit}", "我打算养成{habit:habit}的好习惯",
        "帮我追踪{habit:habit}这个习惯", "每周{habit:habit}两次，设成习惯 ## frequency=weekly, target=2",
        "{habit:habit}也算一个习惯，开始记", "开个新习惯{habit:habit}，每天提醒 ## frequency=daily",
        "习惯里加上{habit:habit}", "想坚持{habit:habit}，建个习惯",
        "每天{habit:habit}，建成习惯 ## frequency=daily", "立个习惯：{habit:habit}",
    ),
    "check_in_habit": (
        "{habit:habit}完成，打卡", "今天的{habit:habit}做了", "{habit:habit}打卡✓", "{habit:habit}今天搞定了",
        "今天{habit:habit}了", "刚{habit:habit}完", "{habit:habit}，打个卡", "昨天的{habit:habit}补打卡 ## date=昨天",
        "{habit:habit}今日已完成", "给{habit:habit}打个卡", "今天也坚持{habit:habit}了", "刚做完{habit:habit}",
        "{habit:habit}又坚持了一天，打卡", "{habit:habit}签个到", "又{habit:habit}了一次，打卡",
        "今天跑了五公里 ## habit=跑步", "冥想了二十分钟 ## habit=冥想", "背了50个单词 ## habit=背单词", "看了半小时书 ## habit=读书",
        "练了一小时琴 ## habit=练琴", "去健身房练完了 ## habit=健身",
    ),
    "list_habits": (
        "{query:habit}连续打卡多少天了", "我今天打卡了吗", "今天还有哪些习惯没打卡", "我的习惯坚持了几天",
        "{query:habit}坚持得怎么样", "我{query:habit}打卡了没有", "哪个习惯坚持得最久",
        "习惯打卡记录给我看看", "我现在有几个习惯在打卡", "{query:habit}断了没有",
        "我的连续打卡天数是多少", "有没有习惯今天还没做", "我暂停的习惯有哪些 ## include_archived=true",
        "{query:habit}这个习惯我坚持了多久",
        "跑步这周跑了几次", "我冥想断了几天了", "今天还没打卡的习惯有哪些", "我最长连续打卡多少天",
    ),
    "update_habit": (
        "{habit:habit}先停一停 ## status=paused", "{habit:habit}暂停打卡 ## status=paused", "{habit:habit}恢复打卡 ## status=active",
        "{habit:habit}归档 ## status=archived", "{habit:habit}改成每天 ## frequency=daily",
        "{habit:habit}改成一周两次 ## frequency=weekly, target=2", "{habit:habit}改名叫{new_name:habit}",
        "{habit:habit}的提醒改到{remind_at=晚上9点|早上7点}", "{habit:habit}重新开始 ## status=active",
        "{habit:habit}这个习惯先放一放 ## status=paused",
    ),
    "delete_habit": (
        "{habit:habit}不打卡了，删掉", "删了{habit:habit}这个习惯", "{habit:habit}的习惯去掉", "习惯里的{habit:habit}删除",
        "{habit:habit}放弃了，把习惯删了", "把{habit:habit}从习惯列表里删掉", "{habit:habit}这项打卡不要了",
        "{habit:habit}这个习惯撤掉", "不用再追踪{habit:habit}了，删除",
    ),
    # ---- notes, diary ----
    "create_note": (
        "笔记：{content:note}", "记住，{content:note}", "帮我存个笔记，{content:note}", "记一笔：{content:note}",
        "这个记下：{content:note}", "留个笔记，{content:note}", "记到笔记里：{content:note}", "{content:note}，帮我记住",
        "{content:note}，记下来", "存一下：{content:note}", "写个笔记，{content:note}", "你帮我记着：{content:note}",
        "新笔记，{content:note}", "做个记录：{content:note}", "{content:note}，这个记到笔记里",
        "私密笔记：{content:note} ## private=true",
        "{content:note}，存一下", "记着：{content:note}", "存个备忘：{content:note}",
    ),
    "list_notes": (
        "我有没有记过{query:title}的笔记", "{query:title}的笔记写了什么", "笔记里有{query:title}吗",
        "我记的{query:title}笔记在哪", "翻一下{query:title}相关的笔记", "我的笔记都有啥",
        "{from:span}写了哪些笔记", "我今天写日记了吗 ## kind=diary, from=今天", "这周的日记给我看看 ## kind=diary, from=本周",
        "我上次写日记是哪天 ## kind=diary", "昨天的日记写了什么 ## kind=diary, from=昨天", "我一共记了多少条笔记",
        "关于{query:title}我记过什么", "最近写的日记 ## kind=diary",
        "我记过{query:title}没有", "{query:title}我写下来了吗", "我上周写了几篇日记 ## kind=diary, from=上周",
        "日记里有没有写到{query:title} ## kind=diary", "{query:title}那条笔记在哪",
    ),
    "update_note": (
        "{title:title}笔记里补一句：{append:item}", "往{title:title}那条笔记追加：{append:item}",
        "{title:title}笔记再加一条{append:item}", "{title:title}那条笔记改一下，{content:note}",
        "把{title:title}笔记的内容换成{content:note}", "{title:title}笔记更新一下：{content:note}",
        "笔记{id=3|7}里加上{append:item}", "{title:title}笔记改名叫{new_title:title}",
        "{title:title}的笔记后面加上：{append:item}",
    ),
    "delete_note": (
        "{title:title}那条笔记不要了", "删掉{title:title}笔记", "{title:title}的笔记删了", "笔记{id=5|9}删除",
        "把关于{title:title}的那条笔记删除", "{title:title}那个笔记没用了，删掉", "笔记里的{title:title}去掉",
        "第{id=2|6}条笔记删了", "{title:title}笔记清掉",
    ),
    "write_diary": (
        "日记：{content:diary}", "今天的日记，{content:diary}", "帮我写进日记：{content:diary}", "记在日记里：{content:diary}",
        "写一篇日记，{content:diary}", "{date=昨天|前天}的日记：{content:diary}", "日记本记一下，{content:diary}",
        "今天想写点日记：{content:diary}", "补一篇{date=昨天|前天}的日记，{content:diary}", "{content:diary}，写进今天的日记",
        "日记 {content:diary}", "记到日记：{content:diary}",
    ),
    # ---- money ----
    "record_transaction": (
        "早餐{amount:money}", "打车{amount:money}", "房租{amount:money}", "电费{amount:money}",
        "花了{amount:money}吃火锅", "刚付了{amount:money}停车费", "买菜用了{amount:money}", "交话费{amount:money}",
        "奶茶{amount:money}，记一下", "记账，午饭{amount:money}", "今天买了件衣服，{amount:money}", "加油花了{amount:money}",
        "给孩子交了{amount:money}学费", "水电费{amount:money}", "网购花了{amount:money}",
        "发工资了，{amount=8000元|1.2万|9500} ## type=income", "收入{amount:money} ## type=income",
        "奖金到账{amount=3000|5000元} ## type=income", "卖旧手机收了{amount:money} ## type=income",
        "理财收益{amount=120元|88块} ## type=income", "房租每月{amount=3500|2800元} ## recurring=monthly",
        "会员每个月{amount=25元|15块}自动扣费 ## recurring=monthly",
        "充了{amount:money}话费", "超市{amount:money}", "外卖{amount:money}", "给孩子买玩具花了{amount:money}", "停车费{amount:money}",
        "{amount:money}，午饭", "又花了{amount:money}买咖啡",
    ),
    "list_transactions": (
        "这个月一共花了多少", "{from:span}花了多少钱", "{from:span}开销大不大", "我{from:span}在吃饭上花了多少",
        "这个月收入多少 ## type=income, from=本月", "今年一共赚了多少 ## type=income, from=今年", "最近有什么大额支出",
        "上次记账是哪天", "{from:span}打车花了多少", "本月账单总共多少 ## from=本月", "钱都花哪儿去了",
        "{from:span}的支出明细", "这周吃饭花了多少钱 ## from=本周", "上个月交通费多少 ## from=上个月",
        "我这个月超支了吗 ## from=本月", "工资这个月到了吗 ## type=income, from=本月", "看看{from:span}的收支",
        "{category:category}花了多少钱", "这个月餐饮花了多少 ## category=餐饮, from=本月", "今天花钱了吗 ## from=今天", "昨天花了多少 ## from=昨天",
        "我最大的一笔开销是什么", "上次交电费是什么时候", "这周打车一共多少钱 ## from=本周",
    ),
    "list_subscriptions": (
        "我现在有几个会员在扣费", "每月自动扣费的有哪些", "订阅一个月要花多少钱", "我开了哪些会员",
        "有哪些自动续费", "视频会员是不是还在扣钱", "每个月固定支出有哪些", "{query=爱奇艺|腾讯视频|网易云音乐}的会员还在续吗",
        "我一共订阅了多少服务", "哪些订阅不常用", "订阅费一年多少钱",
        "每个月会员费花多少", "我是不是订了网易云会员", "视频网站会员一共几个",
    ),
    "record_money_lend": (
        "{person:person}借了我{amount:money} ## direction=lent", "借了{amount:money}给{person:person} ## direction=lent",
        "刚转给{person:person}{amount:money}，他说下个月还 ## direction=lent", "从{person:person}那借了{amount:money} ## direction=borrowed",
        "欠{person:person}{amount:money} ## direction=borrowed", "{person:person}把{amount:money}还我了 ## repayment=true",
        "{person:person}还钱了，{amount:money} ## repayment=true", "我还了{person:person}{amount:money} ## direction=borrowed, repayment=true",
        "找{person:person}借了{amount:money}应急 ## direction=borrowed", "{person:person}跟我借了{amount:money} ## direction=lent",
    ),
    # ---- mood ----
    "record_mood": (
        "今天{mood:mood}", "心情：{mood:mood}", "我心情{mood:mood}", "记下心情，{mood:mood}", "此刻心情{mood:mood}",
        "心情有点{mood:mood}", "今天一整天都{mood:mood}", "现在感觉{mood:mood}", "记录心情：{mood:mood}",
        "心情{mood:mood}，因为{note=工作太多|孩子生病了|考试过了}", "我今天的心情是{mood:mood}", "今天过得{mood:mood}",
        "心情不太好，{mood:mood}", "{mood:mood}，记一下心情", "心情打卡：{mood:mood}",
        "今天心情{mood:mood}，记上", "整个人{mood:mood}，记下今天的心情", "心情指数：{mood:mood}", "此刻{mood:mood}，帮我记录心情",
    ),
    "list_moods": (
        "我哪天心情最差", "我开心的时候多还是难过的时候多", "我这周心情怎么样 ## from=本周", "最近我是不是总是不开心", "我上次心情不好是什么时候", "{from:span}的心情记录",
        "我最近心情有什么变化", "这个月开心的日子多吗 ## from=本月", "心情记录里有几次焦虑", "我的情绪最近怎么样",
        "过去一周我的心情 ## from=最近7天", "我有没有记过心情", "{from:span}我心情如何",
        "上周我心情最好的是哪天", "最近有没有心情低落的时候", "我这个月焦虑了几次 ## from=本月", "心情记录显示我最近怎么样",
    ),
    # ---- diet, water ----
    "record_diet": (
        "刚吃了{food:food}", "吃了{food:food}", "早上吃的{food:food} ## meal=breakfast", "中午{food:food} ## meal=lunch",
        "晚饭{food:food} ## meal=dinner", "午饭是{food:food} ## meal=lunch", "今天早饭{food:food} ## meal=breakfast",
        "晚上吃了{food:food}，记一下 ## meal=dinner", "下午吃了{food:snack}当零食 ## meal=snack", "加餐：{food:snack} ## meal=snack",
        "宵夜吃了{food:food} ## meal=snack", "记录饮食：{food:food}", "刚干了{food:food}", "午餐吃的是{food:food} ## meal=lunch",
        "早餐：{food:food} ## meal=breakfast", "晚餐：{food:food} ## meal=dinner", "零食{food:snack} ## meal=snack",
        "刚炫了{food:food}", "中午整了{food:food} ## meal=lunch", "早上随便吃了{food:snack} ## meal=breakfast",
        "晚上撸串了 ## food=烤串, meal=dinner", "今天早饭就喝了杯豆浆 ## food=豆浆, meal=breakfast", "夜宵来了{food:food} ## meal=snack",
    ),
    "list_diets": (
        "我今天吃了多少卡路里 ## from=今天", "早饭吃了啥 ## meal=breakfast", "昨天晚饭吃的什么 ## meal=dinner, from=昨天",
        "我这周吃了几次火锅 ## from=本周", "今天的饮食记录 ## from=今天", "我上次吃{query:food}是什么时候",
        "今天吃零食了吗 ## meal=snack, from=今天", "这几天都吃了些什么", "中午吃的啥来着 ## meal=lunch",
        "我今天热量超了没有 ## from=今天", "{from:span}的饮食", "我吃过{query:food}吗",
        "我今天吃早饭了吗 ## meal=breakfast, from=今天", "中午吃的是什么 ## meal=lunch", "这周点了几次外卖 ## from=本周",
        "昨天一共吃了多少热量 ## from=昨天", "我最近吃得健康吗",
    ),
    "record_water": (
        "喝了{amount:drink}水", "水{amount:drink}", "刚灌了{amount:drink}水", "又喝了{amount:drink}水",
        "喝水{amount:drink}", "刚才喝了{amount:drink}水", "记喝水：{amount:drink}", "补了{amount:drink}水",
        "喝完{amount:drink}水了", "{amount:drink}水，记上", "今天又喝了{amount:drink}水", "喝水打卡{amount:drink}",
        "刚喝完{amount:drink}温水", "饮水{amount:drink}", "喝了{amount:drink}白开水",
        "咕咚喝了{amount:drink}水", "一口气喝了{amount:drink}水", "水喝了{amount:drink}", "{amount:drink}水下肚了",
    ),
    "list_water": (
        "今天喝水了吗", "今天喝了几杯水", "我喝够八杯了吗", "这周一共喝了多少水 ## from=本周", "昨天喝了多少水 ## from=昨天",
        "我今天的饮水量是多少", "喝水达标了没", "今天还差多少水", "这几天喝水怎么样", "今天喝水记录",
        "上周平均每天喝多少水 ## from=上周",
        "今天水喝得够吗", "今天喝了几瓶水", "上次喝水是什么时候", "今天喝了多少毫升水", "我今天喝水达标了吗",
    ),
    # ---- sleep, body, medicine, period, health ----
    "record_sleep": (
        "昨晚就睡了{hours:sleep}", "睡了{hours:sleep}", "昨天睡了{hours:sleep}", "睡眠{hours:sleep}",
        "昨晚{bedtime=11点|12点半|凌晨1点}睡的", "今天{wake=6点|7点半}起的", "昨晚{bedtime=11点|十二点}睡，{wake=7点|六点半}醒",
        "这一觉睡了{hours:sleep}", "记一下睡眠，{hours:sleep}", "昨晚熬夜了，只睡了{hours:sleep}", "午睡了{hours=一个小时|半小时}",
        "昨晚睡得很好，{hours:sleep} ## quality=好", "昨晚失眠了，就睡了{hours:sleep} ## quality=差", "睡眠记录：{hours:sleep}",
        "一觉睡了{hours:sleep}",
        "昨晚{hours:sleep}，还是困", "才睡了{hours:sleep}", "睡眠时长{hours:sleep}", "昨晚睡了整整{hours:sleep}",
    ),
    "record_body": (
        "体重{weight_kg:weight}", "今天称了{weight_kg:weight}", "早上称重{weight_kg:weight}", "现在{weight_kg:weight}了",
        "记一下体重，{weight_kg:weight}", "又胖了，{weight_kg:weight}", "瘦到{weight_kg:weight}了", "今早体重{weight_kg:weight}",
        "体脂率{body_fat=25%|18%}", "腰围{waist_cm=80厘米|75cm}", "身高{height_cm=170厘米|165cm}",
        "我现在体重是{weight_kg:weight}",
        "体重秤上显示{weight_kg:weight}", "今天体重是{weight_kg:weight}", "称重：{weight_kg:weight}",
    ),
    "record_medicine": (
        "{medicine:medicine}吃了", "刚吃过{medicine:medicine}", "{medicine:medicine}吃过了", "吃了{dose=一片|两粒|一袋}{medicine:medicine}",
        "今天的{medicine:medicine}已经吃了", "早上吃了{medicine:medicine}", "服了{dose=一片|两片}{medicine:medicine}",
        "记一下吃药：{medicine:medicine}", "晚上的{medicine:medicine}吃完了", "{medicine:medicine}，{dose=一粒|两片}，吃了",
        "用药记录：{medicine:medicine}", "刚把{medicine:medicine}吃了",
        "{medicine:medicine}按时吃了", "吃了药，{medicine:medicine}", "睡前吃了{medicine:medicine}",
    ),
    "record_period": (
        "今天来例假了 ## start=今天", "大姨妈{start=昨天|今天}来的", "经期{start=今天|昨天}开始", "月经来了 ## start=今天",
        "例假{end=今天|昨天}走了", "大姨妈结束了 ## end=今天", "经期{end=昨天|今天}结束", "姨妈期开始了，量有点多 ## start=今天, flow=heavy",
        "来月经了，量少 ## start=今天, flow=light", "生理期{start=今天|昨天}开始",
    ),
    "record_health": (
        "血压{value=120/80|135/90} ## metric=血压", "血糖{value=6.1|5.4} ## metric=血糖", "心率{value=72|88} ## metric=心率", "体温{value=37.5|38.2} ## metric=体温",
        "发烧了，{value=38.5度|37.8度} ## metric=体温", "今天走了{value=6000|15000}步 ## metric=步数", "量了下血压，{value=118/76|140/95} ## metric=血压",
        "测了{metric:metric}，{value=98|6.3|36.9}", "{metric:metric}{value=120/80|5.6|75}，记一下", "空腹血糖{value=5.8|6.6} ## metric=血糖",
        "血氧{value=97|95} ## metric=血氧", "今天步数{value=9000|12000} ## metric=步数",
        "今天量的血压是{value=125/82|110/70} ## metric=血压", "心跳{value=80|65} ## metric=心率",
        "测了体温，{value=36.6|37.3} ## metric=体温",
    ),
    "list_health": (
        "我上次吃{query:medicine}是什么时候 ## kind=medicine", "今天吃药了吗 ## kind=medicine", "我今天吃过{query:medicine}了吗 ## kind=medicine",
        "最近吃了哪些药 ## kind=medicine", "我的血压最近正常吗 ## kind=metric, metric=血压", "上次量血糖是哪天 ## kind=metric, metric=血糖",
        "我最近体重多少 ## kind=body", "这个月瘦了吗 ## kind=body, from=本月", "上次称体重是什么时候 ## kind=body",
        "我这周平均睡几个小时 ## kind=sleep, from=本周", "昨晚睡了多久 ## kind=sleep", "最近睡眠够不够 ## kind=sleep",
        "上次来例假是哪天 ## kind=period", "下次大姨妈大概什么时候来 ## kind=period", "经期记录给我看看 ## kind=period",
        "我的{metric:metric}记录 ## kind=metric", "最近{metric:metric}怎么样 ## kind=metric", "所有健康记录 ## kind=all",
        "我今天吃降压药了没 ## kind=medicine", "我最近血糖高不高 ## kind=metric, metric=血糖", "体重比上个月轻了吗 ## kind=body",
        "这周睡眠质量怎么样 ## kind=sleep, from=本周", "我今天走了多少步 ## kind=metric, metric=步数", "例假推迟了吗 ## kind=period",
    ),
    # ---- today, goals, achievements ----
    "get_focus_today": (
        "今天先干啥", "今天的重点是什么", "今天有什么要紧的", "今天该忙什么", "今天有啥急事",
        "我今天最该做什么", "今天的优先事项有哪些", "今天先抓哪件事", "今天有什么到期的和没打卡的", "今天要专注什么",
        "今天有什么必须做完的", "今天有啥逾期的", "今天该先忙哪件",
    ),
    "get_today_summary": (
        "今天我都做了什么", "今天记了哪些东西", "今天花了多少、吃了什么、做了什么", "今天完成得怎么样", "今天有什么进展", "今天一天过得如何", "今天过得怎么样，总结一下", "今天都干了啥，汇总一下", "今天的情况汇报一下", "今天有什么记录",
        "给我来个今日小结", "今天一天的总结", "今天的数据总览", "{date=昨天|前天}的汇总", "今天整体怎么样",
        "今天的摘要", "帮我回顾一下今天",
        "今天的总账", "今天都记了啥",
    ),
    "create_goal": (
        "目标：{title:goal}", "今年要{title:goal}", "我想{deadline=年底前|6月前}{title:goal}，设个目标", "新目标，{title:goal}",
        "立个flag：{title:goal}", "给自己定个目标，{title:goal}", "这个月的目标是{title:goal}", "我的新目标：{title:goal}",
        "{title:goal}，设成目标", "加个目标{title:goal}，{deadline=年底|月底}完成",
    ),
    "list_goals": (
        "{query:goal}完成多少了", "{query:goal}的进度怎么样", "离{query:goal}还差多少", "我的目标完成了几个 ## status=done",
        "还有哪些目标没完成 ## status=active", "目标进度给我看看", "我今年的目标进展到哪了", "读书目标读了几本了",
        "我放弃了哪些目标 ## status=abandoned", "所有目标 ## status=all", "我的目标达成率是多少", "{query:goal}还有希望吗",
        "今年的目标还差多少没完成", "存钱目标存到多少了", "减肥目标进展如何",
    ),
    "update_goal_progress": (
        "{title:goal}又进了一步，加{add=1|2}", "{title:goal}目标达成 ## status=done", "{title:goal}已经完成了 ## status=done",
        "{title:goal}放弃了 ## status=abandoned", "{title:goal}现在到{progress=30|50|8}了", "{title:goal}进度更新到{progress=60|10}",
        "今天又读了一本书 ## title=读书, add=1", "{title:goal}加{add=3|5}", "{title:goal}完成一半了 ## progress=50",
        "又跑了{add=5|10}公里 ## title=跑步",
    ),
    "list_achievements": (
        "我离下一个成就还差多少", "打卡多少天能拿勋章", "我最新的成就是什么", "我拿到几个勋章了", "有新成就吗", "最近解锁了什么徽章", "我的成就有哪些", "成就墙上有什么",
        "我一共获得了多少成就", "有没有新的徽章", "连续打卡得了什么成就", "我的奖章", "看看成就列表",
    ),
    # ---- shopping, wishlist ----
    "add_shopping_item": (
        "{item:item}没了", "{item:item}用完了，加清单", "家里{item:item}快没了", "买点{item:item}", "{item:item}，购物清单",
        "清单加{item:item}", "再买{quantity=两盒|一袋|三瓶}{item:item}", "下次去超市买{item:item}", "帮我记着买{item:item}",
        "{item:item}该买了", "要买{quantity=一箱|两斤|一包}{item:item}", "{item:item}得补货了", "待买：{item:item}",
        "购物单上加个{item:item}", "回来的时候买{item:item}", "记一下要买{item:item}", "缺{item:item}，记到购物清单",
        "{item:item}再来{quantity=两盒|一箱|一袋}", "顺手买点{item:item}", "{item:item}也要买", "家里缺{item:item}", "记着买{item:item}",
    ),
    "list_shopping": (
        "购物清单上有啥", "还有什么没买 ## status=pending", "要买的东西有哪些", "清单上还剩几样", "{query:item}买了吗",
        "我是不是要买{query:item}", "最近买了些什么 ## status=bought", "{query:item}在清单里了吗", "去超市要买什么",
        "购物清单里还有几样没买 ## status=pending", "上次买{query:item}是什么时候 ## status=bought", "购物清单全部给我看看 ## status=all",
        "{query:item}还用买吗",
        "家里还缺什么", "要买的还剩几样", "我上次买了什么 ## status=bought", "{query:item}买过没有", "去超市带什么", "清单上还有{query:item}没",
    ),
    "mark_shopping_bought": (
        "{item:item}买了", "{item:item}买回来了", "{item:item}到手了", "{item:item}已买", "把{item:item}划掉，买过了",
        "{item:item}买好了，花了{price=15块|30元}", "清单上的{item:item}买完了", "{item:item}搞定，已经买了",
        "买完{item:item}了", "{item:item}入手了，勾掉",
        "{item:item}拿到了", "{item:item}已经买到了", "{item:item}买齐了", "超市买了{item:item}，清单上勾了", "{item:item}不用买了，买过了",
    ),
    "add_wishlist_item": (
        "好想要{item:wish}", "心愿单：{item:wish}", "{item:wish}，放心愿单里", "种草了{item:wish}，记到心愿单",
        "心愿单再加个{item:wish}", "以后想买{item:wish}，先记在心愿单", "{item:wish}加心愿单，大概{price=2000元|500块}",
        "我的愿望清单加上{item:wish}", "{item:wish}进心愿单", "想买个{item:wish}，存到愿望单",
    ),
    "list_wishlist": (
        "心愿单里哪个最想要", "我想买的东西还有几样", "心愿单上有几件了", "心愿单上都有啥", "我想要的东西有哪些", "愿望清单里还有几样", "{query:wish}在心愿单上吗", "心愿单里最贵的是哪个",
        "我之前种草了什么", "心愿单里有没有{query:wish}", "我的愿望清单", "想买的东西清单给我看看", "心愿单一共多少钱",
    ),
    # ---- countdowns, memos ----
    "list_countdowns": (
        "离放假还有多少天", "离春节还剩几天", "还有几天到国庆", "我有哪些倒计时", "倒计时还剩多久",
        "离高考还有几天", "最近的倒计时是什么", "过去的倒计时也看看 ## include_past=true", "还有多久开学",
        "倒计时都有啥", "离婚礼还有多少天", "我的倒计时还剩几天", "离搬家还有几天", "哪个倒计时最快到",
        "离过年还有多久", "高考倒计时还有几天",
    ),
    "create_countdown": (
        "{title:countdown}倒计时，{date:when}", "{date:when}{title:countdown}，开个倒计时", "帮我数着{date:when}{title:countdown}",
        "给{title:countdown}建个倒计时，日期{date:when}", "倒数{title:countdown}，{date:when}", "新建倒计时：{date:when}{title:countdown}",
        "{title:countdown}在{date:when}，帮我倒计时", "加个倒计时，{title:countdown}，{date:when}",
    ),
    "delete_countdown": (
        "{title:countdown}的倒计时不要了", "删掉{title:countdown}倒计时", "{title:countdown}倒计时取消", "倒计时里的{title:countdown}删了",
        "把{title:countdown}那个倒计时去掉", "{title:countdown}过了，倒计时删除", "倒计时{id=2|4}删掉", "{title:countdown}倒计时撤掉",
    ),
    "create_memo": (
        "便签：{content:memo}", "给家里人留个言：{content:memo}", "贴张便条，{content:memo}", "留言板写上：{content:memo}",
        "便签贴一下，{content:memo}", "{content:memo}，贴个便签", "置顶便签：{content:memo} ## pinned=true", "便条：{content:memo}",
        "给大家留句话，{content:memo}", "家庭留言：{content:memo}",
    ),
    "list_memos": (
        "便签上写的是啥", "谁留的便签", "有人给我留言吗", "便签板上有什么", "家里人留了什么话", "有新的便条吗", "留言板上写了啥",
        "便签一共几张", "置顶的便签是什么", "{query:memo}的便签还在吗", "今天有人贴便签吗", "看看家庭留言",
    ),
    "list_channels": (
        "家里的音箱连上了吗", "现在几个设备在线", "哪些音箱连着", "手机连上了吗", "都有哪些终端", "连着你的设备有几个",
        "客厅音箱在线吗", "接入的频道有哪些", "有什么设备连接", "设备列表", "现在谁连着你",
    ),
    # ---- places ----
    "record_trajectory": (
        "到{place:place}了", "我在{place:place}", "刚到{place:place}", "去了{place:place}", "{time:past}在{place:place}逛了逛",
        "记下足迹：{place:place}", "{place:place}打卡", "今天逛了{place:place}", "人在{place:place}，记一下",
        "{time:past}去{place:place}玩了", "从{place:place}回来了，记个足迹",
        "我到{place:place}啦", "在{place:place}玩了一天",
    ),
    "list_trajectories": (
        "我都去过哪些地方", "我这周去了哪里 ## from=本周", "我上次去{query:place}是什么时候", "最近去过哪儿", "{from:span}去了哪些地方", "我去过{query:place}吗",
        "这个月跑了几个地方 ## from=本月", "足迹记录给我看看", "今年去过哪些城市 ## from=今年", "我一共去了几次{query:place}",
        "上周末我去哪了 ## from=上周", "我的行程轨迹",
        "我上个月去了几次健身房 ## from=上个月", "上次去{query:place}是哪天",
    ),
    # ---- web ----
    "web_search": (
        "搜一下{query:topic}", "上网找找{query:topic}", "百度一下{query:topic}", "查查{query:topic}", "网上找一下{query:topic}",
        "搜搜{query:topic}", "去网上搜{query:topic}", "联网查一下{query:topic}", "用搜索引擎查{query:topic}", "在网上搜索{query:topic}",
    ),
    # ---- inventory, lending ----
    "list_inventory": (
        "{query:stuff}搁哪儿了", "{query:stuff}在哪里", "{query:stuff}收哪了", "家里还有{query:stuff}没", "{query:stuff}还有几个",
        "我的{query:thing}在谁那儿", "{query:thing}借给谁了", "谁借走了我的{query:thing}", "{query:thing}还回来了没有",
        "{location:location}里放了什么", "{location:location}有啥东西", "家里有几把{query:stuff}", "{query:stuff}是不是放{location:location}了",
        "家里的东西清单", "{query:stuff}快过期了吗", "{query:stuff}还剩多少",
        "家里还有没有{query:stuff}", "{query:thing}借出去了吗", "{query:thing}在谁手上", "我的{query:thing}还在家吗",
        "储物间都放了啥 ## location=储物间", "还剩几卷卫生纸",
    ),
    "create_inventory_item": (
        "{item:stuff}放{location:location}了", "{item:stuff}搁在{location:location}", "{item:stuff}塞{location:location}了",
        "{item:stuff}，在{location:location}", "登记一下，{item:stuff}在{location:location}", "{location:location}放了{item:stuff}",
        "新买的{item:stuff}放在{location:location}", "家里有{quantity=两|三|五}瓶{item:stuff}，在{location:location}",
        "{item:stuff}收到{location:location}里了", "记一下{item:stuff}的位置：{location:location}",
    ),
    "delete_inventory_item": (
        "{item:stuff}丢了，从清单删掉", "{item:stuff}坏了，扔了", "物品清单里的{item:stuff}删除", "{item:stuff}送人了，删掉",
        "删掉{item:stuff}这件物品", "{item:stuff}没了，从物品里去掉", "{item:stuff}已经扔掉了，清单里删了", "把{item:stuff}从家里的物品里删掉",
    ),
    "record_item_lend": (
        "{item:thing}借给{person:person}了 ## direction=lent", "{person:person}拿走了我的{item:thing} ## direction=lent",
        "{person:person}把{item:thing}借走了 ## direction=lent", "借了{person:person}的{item:thing} ## direction=borrowed",
        "问{person:person}借了个{item:thing} ## direction=borrowed", "{item:thing}还给{person:person}了 ## direction=borrowed, returned=true",
        "{person:person}还我{item:thing}了 ## returned=true", "{item:thing}{person:person}已经还了 ## returned=true",
        "{person:person}借{item:thing}，说{due=下周|月底}还 ## direction=lent", "把{item:thing}借出去了，给了{person:person} ## direction=lent",
    ),
    # ---- mode ----
    "switch_mode": (
        "出门了 ## mode=away", "我走了，家里切离家模式 ## mode=away", "睡了，睡眠模式 ## mode=sleep", "准备睡觉了，开睡眠模式 ## mode=sleep",
        "到家了，切在家模式 ## mode=home", "回来了，在家模式 ## mode=home", "有客人，访客模式 ## mode=guest", "朋友来家里了，切访客模式 ## mode=guest",
        "离家模式 ## mode=away", "开启离家模式 ## mode=away", "切到睡眠模式 ## mode=sleep", "关掉访客模式，回到在家模式 ## mode=home",
        "我要出差了，开离家模式 ## mode=away", "晚安，家里进入睡眠模式 ## mode=sleep",
        "全家都睡了，切睡眠 ## mode=sleep", "家里没人了，离家模式 ## mode=away",
    ),
    "get_current_mode": (
        "现在是离家模式吗", "睡眠模式开着没", "访客模式还开着吗", "家里是不是在家模式", "现在开的什么模式",
        "家里现在啥模式", "离家模式开了吗", "当前是哪个模式", "模式切过去了吗", "现在还是睡眠模式吗",
        "家里是什么状态",
        "家里现在是睡眠模式吗", "访客模式关了没", "离家模式生效了吗", "在家模式开着吗",
    ),
    # ---- dreams, movies, books, study, ideas ----
    "record_dream": (
        "昨晚做梦了，{content:dream}", "梦境：{content:dream}", "记一下我的梦：{content:dream}", "昨天晚上{content:dream}",
        "今早醒来记得{content:dream}", "做了个怪梦，{content:dream}", "又做噩梦了，{content:dream} ## mood=害怕", "梦：{content:dream}",
    ),
    "record_movie": (
        "看完《{title:movie}》了", "{title:movie}看完了，{rating=7|8|9}分", "昨晚看了{title:movie}", "{title:movie}想看，先记着 ## status=want",
        "片单加上{title:movie} ## status=want", "正在追{title:movie} ## status=watching", "最近在追{title:movie} ## status=watching, kind=tv",
        "刚看完{title:movie}，打{rating=8|6}分", "看了部电影{title:movie} ## kind=movie", "{title:movie}二刷了",
    ),
    "add_book": (
        "想看{title:book} ## status=want", "{title:book}读完了 ## status=read", "在读{title:book} ## status=reading",
        "书单：{title:book}", "最近在看{title:book} ## status=reading", "{title:book}看完了，{rating=8|9}分 ## status=read",
        "把《{title:book}》加到想读 ## status=want", "刚开始读{title:book} ## status=reading", "读完了{title:book} ## status=read",
    ),
    "create_study_plan": (
        "我要学{subject:subject}，做个计划", "{subject:subject}学习计划，每天{minutes_per_day=20|45}分钟", "帮我规划一下怎么学{subject:subject}",
        "制定{subject:subject}的学习安排", "每天练{minutes_per_day=30|60}分钟{subject:subject}，排个计划", "想系统学{subject:subject}，定个学习计划",
        "给孩子做个{subject:subject}学习计划", "{subject:subject}，{end=年底|暑假前}学完，做个计划", "新的学习计划：{subject:subject}",
    ),
    "create_idea": (
        "有个点子，{content:idea}", "想法：{content:idea}", "脑洞：{content:idea}", "灵光一闪，{content:idea}", "记个想法：{content:idea}",
        "我琢磨着{content:idea}", "点子：{content:idea}", "存个灵感，{content:idea}", "有个主意：{content:idea}",
    ),
    # ---- pets, plants, recipes ----
    "record_pet_activity": (
        "{pet:pet}喂过了 ## activity=喂食", "喂了{pet:pet} ## activity=喂食", "{pet:pet}遛完了 ## activity=遛狗", "带{pet:pet}遛了一圈 ## activity=遛狗",
        "给{pet:pet}洗了个澡 ## activity=洗澡", "{pet:pet}洗澡了 ## activity=洗澡", "{pet:pet}今天去看兽医了 ## activity=看兽医",
        "带{pet:pet}打了疫苗 ## activity=打疫苗", "给{pet:pet}驱虫了 ## activity=驱虫", "{pet:pet}剪了指甲 ## activity=剪指甲",
        "刚给{pet:pet}铲了屎 ## activity=铲屎",
        "喂过{pet:pet}了 ## activity=喂食", "{pet:pet}的饭喂了 ## activity=喂食",
    ),
    "record_plant_watering": (
        "{plant:plant}浇了", "浇完{plant:plant}了", "{plant:plant}喝饱水了", "给{plant:plant}浇了{amount_ml=200|500}毫升水",
        "今天浇了{plant:plant}", "{plant:plant}已浇水", "刚给{plant:plant}浇过水", "阳台的{plant:plant}浇水了",
        "{plant:plant}刚浇", "{plant:plant}水浇好了",
    ),
    "add_recipe": (
        "菜谱：{dish:dish}", "{dish:dish}的做法记一下", "存个{dish:dish}的菜谱", "新菜谱，{dish:dish}", "记下{dish:dish}怎么做的",
        "收藏一个{dish:dish}的食谱", "{dish:dish}，记到菜谱里", "食谱加一道{dish:dish}",
    ),
    # ---- medical, people, places, coupons ----
    "record_medical": (
        "去医院{reason:reason}了", "{date=昨天|今天}去{hospital:hospital}{reason:reason}", "看医生了，{reason:reason}", "在{hospital:hospital}看了{reason:reason}",
        "去{hospital:hospital}{reason:reason}，花了{cost=200块|500元}", "就诊记录：{reason:reason}，{hospital:hospital}", "带孩子去{hospital:hospital}看{reason:reason}",
        "刚从{hospital:hospital}回来，{reason:reason}", "{reason:reason}去看了医生，花了{cost=120|80块}",
    ),
    "add_person": (
        "存个电话，{person:person}，{phone=13611112222|18900001111}", "{person:person}的手机号是{phone=13700001234|15888886666}",
        "通讯录加上{person:person}", "新联系人：{person:person}", "把{person:person}存到联系人里", "{person:person}是我{relation=同事|表姐|邻居}，加到联系人",
        "记一下{person:person}的邮箱：{email=xiaoli@example.com|zhang@example.com}", "联系人加个{person:person}，电话{phone=13500001111|13322223333}",
    ),
    "add_address": (
        "{label:label}在{address:address}", "存个地址，{label:label}，{address:address}", "{label:label}的地址：{address:address}",
        "地址簿加上{label:label}：{address:address}", "新地址：{label:label}，{address:address}", "记住{label:label}住{address:address}",
        "{label:label}搬到{address:address}了，记一下", "保存{label:label}地址{address:address}",
    ),
    "add_coupon": (
        "{store:store}有张优惠券，{title=满50减10|八折}", "存张{store:store}的券：{title=满200减30|买一送一}", "优惠券：{store:store}{title=九折|满30减5}",
        "{store:store}的{title=满100减20|第二杯半价}券，记一下", "收到个{store:store}的优惠券，{title=五折|满80减15}", "记个券，{store:store}{title=满60减10|免配送费}",
        "{store:store}{title=八折券|买一送一券}，{expires=月底|下周五}过期", "保存优惠券，{store:store}，{title=满99减20|七折}",
    ),
    "add_birthday": (
        "{person:person}生日{date=8月15日|11月2号|1月9日}", "{person:person}{date=4月1日|9月10号}过生日", "记住{person:person}的生日，{date=7月7日|2月14日}",
        "生日：{person:person}，{date=3月3日|12月1日}", "{person:person}的生日在{date=6月18日|10月1日}", "农历{date=八月十五|正月初五}是{person:person}生日 ## lunar=true",
        "添加生日，{person:person}{date=5月5日|9月9日}", "{person:person}是{date=11月11日|4月20日}生的，记一下生日",
    ),
    "list_birthdays": (
        "{query:person}生日几号", "{query:person}什么时候过生日", "这个月谁过生日 ## within_days=30", "下个月有人过生日吗",
        "最近有没有人要过生日", "{query:person}的生日快到了吗", "下一个过生日的是谁", "生日都有谁的",
        "一周内有谁过生日 ## within_days=7", "{query:person}生日是哪天来着",
        "{query:person}生日是几月几号", "谁的生日最近", "下周有谁生日 ## within_days=7",
    ),
}

NONE: tuple[str, ...] = (
    # greetings, thanks, goodbyes
    "嗨", "在吗", "哈喽", "你好呀", "下午好", "晚上好", "中午好", "早啊", "好久不见", "回来啦",
    "多谢", "太感谢了", "谢啦", "麻烦你了", "你真好", "好的好的", "知道了", "明白了", "收到", "行吧",
    "拜拜", "回头见", "我先走了", "明天见", "晚安，做个好梦",
    # feelings and moods (said, not asked to be recorded)
    "唉", "好烦啊", "今天好倒霉", "我好想哭", "心里有点空", "好开心啊", "真是累死我了", "最近压力好大",
    "有点想家了", "我失眠了好几天了", "感觉好孤单", "好紧张啊明天要面试",
    # jokes, stories, play
    "再讲一个笑话", "讲个冷笑话", "说个脑筋急转弯", "给孩子讲个睡前故事", "我们玩个成语接龙吧", "你会唱歌吗",
    "来首诗", "说段绕口令", "猜个谜语吧",
    # opinions, advice
    "你觉得咖啡和茶哪个好", "你怎么看这件事", "你觉得我胖吗", "周末在家待着好还是出去玩好", "养猫好还是养狗好",
    "你觉得这个名字怎么样", "我该不该换工作", "怎么才能不拖延", "怎样才能睡得好一点", "怎么跟孩子沟通比较好",
    "工作和家庭怎么平衡", "买房还是租房划算", "你有什么爱好",
    # world knowledge
    "长城有多长", "珠穆朗玛峰有多高", "一年有多少天", "水的沸点是多少度", "鲸鱼是鱼吗", "恐龙是怎么灭绝的",
    "月亮为什么会有阴晴圆缺", "端午节为什么吃粽子", "中秋节是哪天", "李白是哪个朝代的", "太阳系有几颗行星",
    "为什么会打雷", "人为什么要睡觉", "彩虹是怎么形成的", "日本的首都是哪里", "一斤等于多少克", "一公里是多少米",
    "世界上最大的海洋是哪个", "熊猫吃什么", "电脑是谁发明的", "什么是区块链", "地球为什么是圆的",
    # household words, but nothing asked
    "天天做家务真烦", "家务活永远干不完", "洗碗是最讨厌的家务", "钱总是不够花", "这个月又月光了",
    "物价涨得太快了", "房贷压力好大", "现在养个孩子真贵", "孩子太闹了，头疼", "孩子又不好好写作业",
    "熊孩子把墙画花了", "老公又忘了倒垃圾", "我老婆做饭特别好吃", "我妈又唠叨我了", "这天气热死了",
    "今天雨下得好大", "外面好冷啊", "又是雾霾天", "冰箱里的菜都坏了，真浪费", "厨房乱成一团",
    "猫又把沙发抓坏了", "狗狗今天特别乖", "家里的绿萝长得真好", "今天加班到好晚", "上班好累",
    "减肥好难啊", "唉，又胖了", "今天的晚饭真好吃", "好想吃火锅", "我不太会做饭",
    "周末又要大扫除了", "快递怎么还没到", "邻居家装修太吵了", "停车位太难找了", "地铁上人好多",
    "开会开得头都大了", "今天的菜有点咸", "早上差点迟到", "刚才堵车堵了一个小时",
    # about the assistant, chit-chat
    "你几岁了", "你是男的还是女的", "你会累吗", "你开心吗", "你喜欢吃什么", "你住在哪里", "你有朋友吗",
    "你觉得我怎么样", "我们聊点别的吧", "随便聊聊", "没什么事", "就想跟你说说话", "你说得对", "我不同意",
    "真的假的", "太好笑了", "厉害了", "无语", "呵呵", "没问题",
    # more
    "每天要喝多少水才够", "一天睡几个小时最好", "血压多少算正常", "布洛芬能和感冒药一起吃吗", "体重多少算胖", "猫一天要喂几次", "绿萝多久浇一次水", "狗能吃巧克力吗", "怎么记账比较好",
    "生日送什么礼物好", "怎么才能养成早起的习惯", "为什么我总是存不下钱", "水费怎么这么贵", "喝水真的能减肥吗", "熬夜对身体有什么坏处", "怎么哄孩子睡觉", "番茄炒蛋先放蛋还是先放番茄",
    "冰箱冷藏能放几天", "为什么家务总是我做", "存钱好难", "又要交房租了，心疼", "孩子考得不好，我有点生气", "今天下雨没法晒被子", "阳台的花都开了，真好看", "我家狗狗好像胖了", "这个月开销有点大",
    "每次购物都停不下来", "老人家总是舍不得扔东西", "周一真让人不想上班", "今天的会好无聊", "我觉得记账挺麻烦的", "打卡这种事我总坚持不下来", "喝水这件事我老忘", "减肥太难坚持了",
    "你觉得跑步和游泳哪个更减肥", "做饭好累，不想做了", "孩子的作业好难啊", "带娃真不容易", "婆婆今天来家里了", "今天天气真好", "明天好像要降温", "好热，空调都不管用", "说说你自己",
    "你觉得人工智能会取代人类吗", "给我讲讲三国的故事", "推荐几部好看的电视剧", "有什么好听的歌", "番茄是水果还是蔬菜",
)
