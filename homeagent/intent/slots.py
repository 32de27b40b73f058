"""Slot filling: an action's arguments from the user's words, read off its schema.

First the action's templates (`training.Template.pattern`) are matched against the
utterance with politeness stripped; the most specific match whose values check out
(dates parse, amounts parse) gives the arguments. Otherwise the generic rules read the
schema: date/time words go to the action's first date argument, amounts with currencies
to `amount`/`cost`/`price`, `#3` / 任务3 to `id`, enum values from their words, and what
is left once the command words (every literal part of the action's templates), dates
and amounts are taken out is the object phrase, the action's main text argument.

Values for dates stay in the user's words ("明天下午3点"): the action resolves them
against the home's clock, as for a model's call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from homeagent.actions.dates import DateError, parse_when
from homeagent.actions.modes import ALIASES as MODE_ALIASES
from homeagent.actions.money import MoneyError, parse_money
from homeagent.actions.repeat import find_repeat
from homeagent.intent.fuzzy import HEAD_COLON, INTERJECTIONS_ZH, closest
from homeagent.intent.month_end import month_end
from homeagent.intent.training import Template, fold_punct
from homeagent.numbers import NUM, find_number, parse_number
from homeagent.text import has_han

_PUNCT = "，,：:。.!！?？；;、 \"'“”‘’《》「」"
_LEAD_RE = re.compile(
    # (English words whole: "high priority tasks" keeps its "hi", "umbrella" its "um")
    rf"^(?:(?:请你?|帮我|帮忙|麻烦你?|能不能|可以|你能|嗯|{INTERJECTIONS_ZH}|那个啥|那啥|那个|好的|(?:oh|um|uh|hey|hi|ok|okay|please|can you|could you"
    r"|would you kindly|would you|will you|pls)(?![A-Za-z'’]))[\s，,：:]*)+",
    re.I,
)
_TAIL_RE = re.compile(r"(?:[\s，,]*(?:吧|呀|啊|哦|呢|好吗|好不好|谢谢你?|谢啦|please|thanks|thank you|pls))+[\s。.!！?？]*$", re.I)

_NUM = NUM
_CLOCK = (rf"(?:凌晨|早上|早晨|上午|中午|晌午|下午|傍晚|晚上|夜里)?\s*{_NUM}\s*[点點时:：]\s*(?:半|一刻|三刻|{_NUM}\s*分?)?"
          r"|(?:凌晨|早上|早晨|上午|中午|晌午|(?<!一)下午|傍晚|晚上|下班前|下班后|下班)")  # ("记一下午饭", "忙了一下午": no time)
_DAY_ZH = (r"(?:大后天|大前天|后天|前天|今天|今日|今晚|今早|今儿个|今儿|明天|明日|明晚|明早|明儿个|明儿|昨天|昨晚|昨日|"
           rf"(?:下下|下个?|上个?|这个?|本)?\s*(?:周|星期|礼拜)(?:[一二三四五六天末]|日(?![程历记志]))|下周|上周|本周|这周|下个?月\s*{_NUM}\s*[号日]|下个?月|"
           rf"(?:正|冬|腊|{_NUM})\s*月\s*(?:初(?:十|[一二三四五六七八九])|廿[一二三四五六七八九]?)|[正冬腊]月\s*{_NUM}|"
           rf"{_NUM}\s*月\s*(?:底|末)|月底|月末|年底|年末|(?:\d{{4}}\s*年\s*)?{_NUM}\s*月\s*{_NUM}\s*[日号]?|{_NUM}\s*[号日](?!\s*[后前元])|半\s*个?\s*(?:小时|钟头)\s*(?:后|以后|之后)|"
           rf"{_NUM}\s*个?\s*(?:分钟|小时|天|周|星期|个月)\s*(?:后|以后|之后|前|以前|之前)|本月|这个月|上个月|今年|"
           rf"最近\s*{_NUM}?\s*天?|过去\s*{_NUM}\s*天|"
           # a month and day in figures: 3/15 always; 3.12 where a day is meant (3.12之前, 3.1开始的,
           # 3.2去医院, 截止到3.20), never a decimal (体温38.5, 5.2k)
           r"(?<![\d./:])(?:1[0-2]|0?[1-9])\s*/\s*(?:3[01]|[12]\d|0?[1-9])(?![\d/])|"
           r"(?:(?<=[到至在于是从止])|(?<![\d.:]))(?:1[0-2]|0?[1-9])\.(?:3[01]|[12]\d|0?[1-9])(?![\d.])"
           r"(?=\s*(?:号|日|之前|以前|前|开始|到期|截止|那天|当天|晚上|上午|下午|早上|中午|凌晨|夜里|去|回来|出发)))")
WHEN_ZH_RE = re.compile(rf"(?:{_DAY_ZH}\s*(?:的)?\s*(?:{_CLOCK})?|{_CLOCK})")
_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_EN_COUNT = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty-five|ninety)"
_MON = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_EN_PART = (rf"(?:the day after tomorrow|day after tomorrow|(?:tomorrow|today|yesterday) (?:morning|afternoon|evening|night)"
            rf"|tomorrow|today|tonight|yesterday|last night|this (?:morning|afternoon|evening|week|month|year)"
            rf"|(?:a week (?:on )?{_WD}|{_WD} (?:week|after next))"
            rf"|(?:(?:next|last|this|on|coming) )?{_WD} (?:morning|afternoon|evening|night)|(?:next|last|this|on|coming) {_WD}|{_WD}|next (?:week|month)|last (?:week|month)|end of (?:the )?month"
            rf"|(?:by )?(?:the )?end of {_MON}"
            rf"|in (?:\d+|an?|half an?|{_EN_COUNT}) (?:minutes?|hours?|days?|weeks?|months?)"
            rf"|(?:\d+|{_EN_COUNT}) (?:days?|weeks?) (?:ago|from now)"
            rf"|(?:the )?\d{{1,2}}(?:st|nd|rd|th)? day of the \d{{1,2}}(?:st|nd|rd|th)? (?:lunar )?month"
            rf"|the \d{{1,2}}(?:st|nd|rd|th)(?: of {_MON})?|(?:last|past) \d+ days|{_MON}\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MON}(?:,? \d{{4}})?"
            r"|(?:at )?\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|at \d{1,2}(?::\d{2})?|at noon|noon|midnight"
            # a 24-hour time in four figures where it cannot be a year ("at 0700", "before 1930", "1930 hrs", "0830")
            r"|at (?:[01]\d|2[0-3])[0-5]\d|(?:by|before|after|from|until|till|b4) [01]\d[0-5]\d|0\d[0-5]\d"
            r"|(?:[01]\d|2[0-3])[0-5]\d\s*(?:hrs?|hours)\b"
            r"|(?:(?:next|this|on|by|before|b4|till|until|coming) |(?<=\d )|(?<=\d hrs ))(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?(?![a-z])"
            r"|in the (?:morning|afternoon|evening)|\d{4}-\d{2}-\d{2}(?:[ t]\d{1,2}:\d{2})?)")
MONTH = _MON
# Bounded by letters, not \b: "提醒我tomorrow交电费" has its date between two Han characters.
WHEN_EN_RE = re.compile(rf"(?<![A-Za-z0-9])(?:{_EN_PART})(?:\s*,?\s*(?:at\s+)?(?:{_EN_PART}))*(?![A-Za-z0-9])", re.I)
_MONEY_RE = re.compile(
    rf"(?:HK\$|US\$|[¥￥$€£])\s*(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?(?:\s*[万千kKwW])?|\d+(?:\.\d+)?\s*[万千kKwW](?![a-z])(?:\s*(?:块钱|块|元))?|(?:\d{{1,3}}(?:,\d{{3}})+|{_NUM})(?:\.\d+)?\s*(?:[万千kKwW](?![a-z]))?\s*(?:块钱|块(?:\d|[一二两三四五六七八九半])(?:毛|角)?(?![\d零一二两三四五六七八九十百千万])|块|元|美元|美金|刀|欧元|英镑|日元|港币|"
    r"yuan|kuai|rmb|dollars?|bucks?|euros?|pounds?|quid|yen|usd|cny|eur|gbp)|(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d.])",
    re.I,
)
_ID_RE = re.compile(r"(?:#|编号|第|(?:任务|笔记|日程|习惯|task|note|event|habit|item|number|no\.?)\s*#?)\s*(\d+)\s*(?:号|条|个)?"
                    # (a goal's or an item's number only where nothing measured follows: "目标100公里" is a target)
                    r"|(?:物品|目标|倒计时|goal|countdown)\s*#?\s*(\d{1,4})(?=\s*(?:$|[，,。.!！?？;；]|删|改|标|完成|达成|放弃|取消|的"
                    r"|\b(?:is|as|to|done|achieved|completed)\b))", re.I)
_ENUM_WORDS: dict[str, tuple[str, ...]] = {
    "high": ("高优先级", "优先级高", "重要", "紧急", "high priority", "urgent", "important"),
    "low": ("低优先级", "优先级低", "不急", "low priority"),
    "done": ("已完成", "完成了", "做完", "完成的", "达成", "done", "finished", "completed", "complete", "achieved",
             "accomplished"),
    "all": ("全部", "所有", "all of", "every"),
    "income": ("收入", "到账", "进账", "工资", "收到", "income", "got paid", "salary", "earned", "earn", "earnings"),
    "expense": ("花了", "支出", "花钱", "花哪", "花掉", "开销", "开支", "消费", "造了", "spent", "paid", "spend", "spending",
                "the damage"),
    "lent": ("借给", "借走", "拿走", "借去", "lent", "borrowed my", "borrowed from me"),
    "borrowed": ("借了", "向", "borrowed", "from"),
    "paused": ("暂停", "pause"),
    "want": ("想看", "想读", "want to", "wanna", "watch list", "watchlist", "want-to-watch"),
    "breakfast": ("早饭", "早餐", "breakfast"), "lunch": ("午饭", "午餐", "lunch"),
    "dinner": ("晚饭", "晚餐", "dinner", "supper"), "snack": ("零食", "加餐", "下午茶", "夜宵", "宵夜", "snack", "snacked", "snacks"),
    "daily": ("每天", "每日", "天天", "daily", "every day"), "weekly": ("每周", "每星期", "每个星期", "weekly", "every week"),
    "sleep": ("睡眠", "睡得", "sleep"), "body": ("体重", "weight"), "diary": ("日记", "diary"),
    "medium": ("中等优先级", "优先级中等", "普通优先级", "优先级普通", "优先级一般", "medium priority", "normal priority"),
    "read": ("读过", "读完", "看完这本", "啃完", "已读", "finished reading", "have read", "already read"),
    "reading": ("在读", "正在读", "在看这本", "在看", "currently reading", "reading"),
    "tv": ("电视剧", "连续剧", "美剧", "韩剧", "日剧", "剧集", "这部剧", "的剧", "部剧", "tv show", "tv series", "series", "show"),
    "anime": ("动漫", "动画", "番剧", "新番", "anime", "cartoon"),
    "documentary": ("纪录片", "documentary", "docuseries"),
    "watching": ("在看", "在追", "正在看", "追剧", "watching"),
    "watched": ("看完", "看过", "看了", "watched", "saw", "finished watching"),
    "heavy": ("量多", "量很多", "量大", "量比较多", "量挺多", "量特别多", "heavy"),
    "light": ("量少", "量很少", "量小", "量比较少", "量挺少", "light"),
    # Negated completion is the open ones ("没做完的", "not done yet"), longer than the done words.
    "open": ("没做完", "没完成", "未完成", "还没做", "没干完", "没弄完", "任务没做", "没做的", "unfinished", "not done", "not finished",
             "not completed", "outstanding", "incomplete", "haven't done", "still open"),
    "bought": ("已经买了", "买了的", "买过的", "已经买过", "买过了", "已买", "买好的", "买了哪些", "already bought", "already buy", "bought"),
    "abandoned": ("放弃过", "放弃了的", "放弃的", "放弃", "gave up on", "given up on", "give up on", "abandoned", "abandoning",
                  "abandon"),
    "active": ("进行中", "在进行的", "正在进行", "in progress", "ongoing"),
    "pending": ("还没买", "没买的", "待买", "还要买", "still need", "left to buy"),
}
ENUM_WORDS = _ENUM_WORDS
# Enum keys whose words are a setting, not part of the record's name: taken out of it.
_ENUM_OUT = ("status", "kind", "priority")
_TEXT_KEYS = ("content", "title", "item", "habit", "food", "medicine", "mood", "place", "plant", "pet",
              "dish", "subject", "person", "reason", "label", "metric", "query")
_WHEN_ORDER = ("due", "start", "date", "time", "deadline", "expires", "from", "end")
_FILLERS = re.compile(r"^(?:的|了|个|一下|一个|一条|一笔|一件|一台|一份|把)|^(?:to|the|a|an|my|that|on|for|about|of)\b\s*"
                      r"|\s*(?:的|了|一下|吧|啦|呀|啊|哈)$|\s+(?:to|on|for|at|by)$", re.I)
_PERIODS = ("本周", "这周", "上周", "下周", "本月", "这个月", "上个月", "今年")
_QUANTITY_RE = re.compile(
    # (a word is a whole word: the "a" and "ml" of "amlodipine" are no quantity)
    rf"(?:{NUM}|半|\b(?:an?|one|two|three|four|five)\b)\s*(?:个半|个)?\s*(?:杯|瓶|口|ml|毫升|升|公斤|kg|斤|小时|钟头|hours?|hrs?|片|粒|颗|盒|袋|"
    r"glass(?:es)?|cups?|bottles?|tablets?|pills?|bags?|boxes?)(?![a-z])(?:\s*(?:半|and a half))?",
    re.I,
)
# A reading said in Chinese numerals: "五十九点八" is 59.8, "三十八度五" 38.5, "一百三十" 130 (two characters at
# least: the 一 of 一下 is no reading).
_ZH_DECIMAL_RE = re.compile(r"[零一二两三四五六七八九十百千万]{2,}(?:[点度][零一二三四五六七八九]+)?|[一二两三四五六七八九十][点度][零一二三四五六七八九]+")
_ZH_DIGITS = {c: str(i) for i, c in enumerate("零一二三四五六七八九")}


def zh_reading(text: str, *, pressure: bool = False) -> str | None:
    """The one reading `text` says in Chinese numerals ("血糖七点二" → "7.2"), if it says one;
    with `pressure`, a blood pressure's two as one ("高压一百三十八，低压八十六" → 138/86)."""
    found = [_zh_decimal(x) for x in _ZH_DECIMAL_RE.findall(text)]
    if pressure and len(found) == 2 and re.search(r"血压|高压", text) and all(found):
        return f"{found[0]}/{found[1]}"
    return found[0] if len(found) == 1 else None


def _zh_decimal(said: str) -> str | None:
    whole, _, tenths = said.replace("度", "点").partition("点")  # (三十八度五: 38.5 degrees)
    number = parse_number(whole)
    if number is None or not all(c in _ZH_DIGITS for c in tenths):
        return None
    return f"{int(number)}" + (f".{''.join(_ZH_DIGITS[c] for c in tenths)}" if tenths else "")


_QUANTITY_KEYS = {"amount": "杯", "hours": "小时", "weight_kg": "公斤", "dose": "片", "quantity": "盒"}
_EN_NUMBERS = {"a": "1", "an": "1", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}


def _quantity(value: str) -> str:
    """"a glass" → "1 glass", "two glasses" → "2 glasses": the actions read digits."""
    return re.sub(r"^(an?|one|two|three|four|five)\b", lambda m: _EN_NUMBERS[m.group(1).casefold()], value.strip(), flags=re.I)


def _amount(value: str) -> Any:
    """"1.2万" → 12000, "3k" → 3000, "1.5w" → 15000 (w for 万, as typed in Chinese); other amounts stay as said (currency words included),
    less their thousands separators ("¥1,200" → "¥1200")."""
    value = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", value)
    m = re.fullmatch(r"[¥￥]?\s*(\d+(?:\.\d+)?)\s*([万千kKwW])\s*(?:块钱|块|元)?", value.strip())
    if m:
        number = float(m.group(1)) * {"万": 10_000, "千": 1000, "k": 1000, "w": 10_000}[m.group(2).casefold()]
        return int(number) if number.is_integer() else number
    return value.strip()
_TITLE_QUOTE_RE = re.compile(r"[《「“\"]([^》」”\"]+)[》」”\"]")
_GLUE = ("记得", "别忘了", "那个任务", "这个任务", "任务", "这个习惯", "习惯", "那条笔记", "笔记", "已经", "从日程里", "日程里", "记到日程",
         "到日程", "加到购物单", "加到清单", "划掉", "不要了", "删了", "取消掉", "删除掉", "去掉", "删掉", "打个卡", "打卡", "搞定啦", "搞定了", "做完了",
         "完成了", "加到", "记一下", "帮我记", "那个", "这个", "心愿单", "购物清单", "购物单", "shopping list", "清单",
         "加一个", "加个", "加上", "设成", "设为", "改成", "高优先级", "低优先级", "这件事", "那件事", "要买", "得买")
_SCHEDULE_KEYS = ("due", "start", "deadline", "end", "expires")
_NAME_KEYS = ("title", "item", "habit", "dish", "person", "place", "plant", "pet", "medicine", "label", "subject")


# English command frames around the object phrase: "Start a habit of …", "Note my mood as …",
# "… to my wishlist". What they wrap is the record's words.
_EN_LEAD_RE = re.compile(
    r"^(?:(?:please|just|also)\s+)?(?:i\s+)?(?:need to (?:grab|buy|get)|(?:add|put|log|record|note|save|make|create|start|track|set"
    r"|pause|resume|delete|remove|get rid of|mark|check off|cancel)\b(?:\s+(?:a|an|the|my|our|new))*"
    r"(?:\s+(?:habit|task|note|visit|mood|goal|reminder|item)s?(?:\s+(?:of|to|as|for|about|called|named))?)?)\s+",
    re.I,
)
_EN_FRAME_RE = re.compile(r"\s+(?:to|on|in|into|onto|from)\s+(?:my|the|our)\s+(?:[\w-]+\s+)?(?:list|wishlist|wish list|calendar"
                          r"|to-do list|todo list|notes?|habits?)$|\s+(?:habit|task|note)$", re.I)


# "…to the shopping list can?", "…can or not?": asking whether it can be done, at the end
_CAN_TAG_RE = re.compile(r"[\s,，]*\b(?:can(?: or not| anot| not)?|ok(?:ay)?)\s*[?？]+\s*$", re.I)


def strip_polite(text: str) -> str:
    core = _LEAD_RE.sub("", text.strip())
    core = _CAN_TAG_RE.sub("", core) if not re.match(r"(?:is|are|do|does|did|can|could|will|would)\b", core, re.I) else core
    core = _TAIL_RE.sub("", core)
    return core.strip(_PUNCT) or text.strip()


def is_when(prop: Mapping[str, Any]) -> bool:
    return "照抄用户的说法" in str(prop.get("description", ""))


# Slang said around a value, no part of it: "中考 dddd", "螺蛳粉yyds", "lowkey finish my chem lab".
_SLANG_END = re.compile(r"\s*(?:yyds|xswl|dddd|绝绝子|好耶|求求(?:你)?了?|哈哈+|嘿嘿|(?<![A-Za-z])(?:lol|lmao|haha+|hehe|ngl|tbh|no cap|lah|leh|lor))$",
                        re.I)
_SLANG_LEAD = re.compile(r"^(?:lowkey|highkey|ngl|tbh|srsly|honestly)\b[\s,]*", re.I)


def _clean(value: str) -> str:
    value = value.strip(_PUNCT)
    for _ in range(3):
        value = _FILLERS.sub("", value).strip(_PUNCT)
    # (a value that is all slang stays: a mood of 绝绝子 is what was felt)
    return _SLANG_LEAD.sub("", _SLANG_END.sub("", value)).strip(_PUNCT) or value


PLACE_END_ZH = re.compile(r"(?:会议室|教室|办公室|室|厅|馆|店|楼|层|园|院|所|中心|场|家|号|路|街|区|站|吧|部|门|口|村|镇|城|市|山|湖|边|里|上|下|旁|前|后"
                           r"|[A-Za-z0-9]|[^\u4e00-\u9fff]{2,})$")
_HOSPITAL_END_ZH = re.compile(r"(?:院|诊所|中心|门诊|卫生站|科|[A-Za-z0-9])$")


def _check(key: str, value: str, props: Mapping[str, Any], now: datetime) -> Any:
    """The value in the form the action takes, or None when it does not fit the key."""
    prop = props.get(key, {})
    value = _clean(value)
    if not value:
        return None
    if is_when(prop):
        if not (WHEN_ZH_RE.fullmatch(value) or WHEN_EN_RE.fullmatch(value)
                or re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}.*", value)):
            return None
        if value in _PERIODS or re.match(r"(?:this|last|next|past) ", value, re.I):
            return value
        try:
            parse_when(value, now)
        except DateError:
            if month_end(value, now) is None:
                return None
        return value
    if "enum" in prop:
        return value if value in prop["enum"] else None
    if ((key == "hospital" or (key == "location" and "start" in props)) and has_han(value)
            and not (_HOSPITAL_END_ZH if key == "hospital" else PLACE_END_ZH).search(value)):
        # An event's place or a hospital: "在公园野餐" is not 公 + 园野餐, "市一院" not 市 + 一院.
        return None
    if key == "repeat":  # a recurrence slot holds a recurrence, all of it
        found = find_repeat(value)
        return value if found is not None and found[1][1] - found[1][0] >= len(value) - 1 else None
    kind = prop.get("type")
    if kind == "integer":
        number = find_number(value)
        return int(number) if number is not None else None
    if key in _QUANTITY_KEYS and _QUANTITY_KEYS[key] in str(prop.get("description", "")):
        return _quantity(value) if _QUANTITY_RE.fullmatch(value) or re.fullmatch(r"\d+(?:\.\d+)?", value) else None
    if key in ("amount", "cost", "price") and kind != "string":
        if not _MONEY_RE.fullmatch(value):
            return None
        try:
            parse_money(value, "CNY")
        except MoneyError:
            return None
        return _amount(value)
    if kind == "array":
        return [p for p in (_clean(x) for x in re.split(r"[,，、]|\band\b|和", value)) if p]
    return value


def match_template(text: str, templates: Sequence[Template], props: Mapping[str, Any], now: datetime) -> dict[str, Any] | None:
    core = strip_polite(text)
    # "我借给小军三千元": a loan or payment said with its subject is the command ("借给{person}{amount}")
    bare = core[1:] if re.match(r"我(?=[借还欠给把买花收交付])\S{3}", core) else None
    for said in (core, bare):
        for strict in (True, False):
            found = _match(said, templates, props, now, strict) if said else None
            if found is not None:
                return _tidy(found, props)
    return None


def _match(core: str, templates: Sequence[Template], props: Mapping[str, Any], now: datetime,
           strict: bool) -> dict[str, Any] | None:
    best: tuple[int, dict[str, Any]] | None = None
    folded = fold_punct(core)
    for template in templates:
        m = template.pattern(strict).match(folded)
        if m is None:
            continue
        args: dict[str, Any] = dict(template.fixed)
        ok = True
        for key in m.groupdict():
            value = _check(key, core[m.start(key):m.end(key)], props, now)
            if value is None:
                ok = False
                break
            args[key] = value
        if not ok:
            continue
        weight = sum(len(p) for p in template.literal_parts())
        if best is None or weight > best[0]:
            best = (weight, args)
    return None if best is None else best[1]


def find_when(text: str) -> tuple[str, tuple[int, int]] | None:
    found = [m for m in (*WHEN_ZH_RE.finditer(text), *WHEN_EN_RE.finditer(text)) if m.group(0).strip()]
    if not found:
        return None
    m = max(found, key=lambda x: len(x.group(0)))
    return m.group(0).strip(), m.span()


def generic(text: str, name: str, props: Mapping[str, Any], required: Sequence[str],
            templates: Sequence[Template], now: datetime, *, read: bool) -> dict[str, Any]:
    """Arguments by the schema's rules (no template matched)."""
    core = strip_polite(text)
    args: dict[str, Any] = {}
    rest = core
    when_keys = sorted((k for k, v in props.items() if is_when(v)),
                       key=lambda k: _WHEN_ORDER.index(k) if k in _WHEN_ORDER else 99)
    quoted = _TITLE_QUOTE_RE.search(core)
    found = find_when(core)
    if "end" in when_keys and re.search(r"结束|完了|ended|is over|finished", core, re.I):
        when_keys.remove("end")
        when_keys.insert(0, "end")
    if found and "rating" in props and re.fullmatch(r"\d{1,2}\s*/\s*\d{1,2}", found[0]):
        found = None  # "10/10", "8/10" beside a film or a book: its score, not a day
    if found and when_keys:
        value = found[0]
        ok = read and (value in _PERIODS or bool(re.match(r"(?:this|last|next|past) ", value, re.I)))
        if not ok:
            try:
                parse_when(value, now)
                ok = True
            except DateError:
                ok = month_end(value, now) is not None
        if ok or (read and re.match(r"(?:this|last|next|past) ", value, re.I)):
            args[when_keys[0]] = value
            rest = rest.replace(found[0], " ")
    for key, unit in _QUANTITY_KEYS.items():
        if key in props and (key != "amount" or unit in str(props[key].get("description", ""))):
            m = _QUANTITY_RE.search(rest)
            if m:
                args[key] = _quantity(m.group(0))
                rest = rest.replace(m.group(0), " ")
    for key in ("amount", "cost", "price", "weight_kg", "value"):
        if key in props and key not in args and not is_when(props[key]):
            m = _MONEY_RE.search(rest) if key in ("amount", "cost", "price") else re.search(r"\d+(?:\.\d+)?(?:/\d+)?", rest)
            if m:
                args[key] = _amount(m.group(0)) if key in ("amount", "cost", "price") else m.group(0).strip()
                rest = rest.replace(m.group(0), " ")
            elif key == "value" or (key == "weight_kg" and re.search(r"体重|称|秤|磅|公斤|斤", core)):
                said = zh_reading(rest, pressure=True)  # "体重六十八点五", "血糖七点二", "高压一百三十八，低压八十六"
                if said is not None:
                    args[key] = said
    if "id" in props:
        m = _ID_RE.search(rest)
        if m:
            args["id"] = int(m.group(1) or m.group(2))
            rest = rest.replace(m.group(0), " ")
    low = core.casefold()
    if "mode" in props:
        mode = find_mode(low)
        if mode:
            args["mode"] = mode
    for key, prop in props.items():
        if "enum" not in prop or key in args:
            continue
        best_len, best_value = 0, None
        for value in prop["enum"]:
            words = [w for w in (*_ENUM_WORDS.get(value, ()), value) if re.search(
                rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w), low)]
            if words and max(map(len, words)) > best_len:
                best_len, best_value = max(map(len, words)), value
        if best_value is None:  # "brekfast", "compelted": a typo of a long enum value or of one of its words
            names = {w.casefold(): v for v in prop["enum"] if isinstance(v, str)
                     for w in (v, *_ENUM_WORDS.get(v, ())) if w.isascii() and w.isalpha() and len(w) >= 7}
            best_value = next((names[f] for w in re.findall(r"[a-z]{6,}", low) if (f := closest(w, names)) is not None),
                              None)
        if best_value is not None:
            args[key] = best_value
            if key in _ENUM_OUT and best_len >= 2:
                said = max((w for w in (*_ENUM_WORDS.get(best_value, ()), best_value) if len(w) == best_len
                            and (w.casefold() in low)), key=len, default="")
                if said and (len(said) >= 4 or not said.isascii()):
                    rest = re.sub(rf"(?<![a-z]){re.escape(said)}(?![a-z])" if said.isascii() else re.escape(said), " ",
                                  rest, count=1, flags=re.I)
    if read:
        return args
    if args.get("priority") in ("high", "low"):  # "…, high priority": the priority is not the title
        rest = re.sub(r"[，,]?\s*(?:优先级[高低]|[高低]优先级|(?:high|low) priority)", " ", rest, flags=re.I)
    main = next((k for k in required if props.get(k, {}).get("type") in ("string", None) and k not in args
                 and "enum" not in props.get(k, {}) and not is_when(props.get(k, {}))), None)
    if main is None:
        main = next((k for k in _TEXT_KEYS if k in props and k not in args and "id" not in args), None)
    if main is not None:
        colon = re.search(rf"{HEAD_COLON}\s*(.+)$", rest)
        if quoted:
            value = quoted.group(1).strip()
        elif colon:
            value = _clean(colon.group(1))
            if main in _NAME_KEYS and not (main == "item" and name.startswith("add_")):
                value = _clean(re.split(r"[，,。；;]", value)[0])
        else:
            value = _object_phrase(rest, templates, first=main in _NAME_KEYS)
            if main == "content" and name in PROSE_ACTIONS:
                value = _object_phrase(rest, templates, whole=True)  # a diary is the user's prose: all of it
            if main == "item" and name.startswith(("add_", "mark_")):
                # "bananas, spinach, greek yogurt and bread": a list, each piece an item
                listed = re.sub(r"\s+(?:to|on|onto|in|into)\s+(?:the|my|our)\s+(?:[\w-]+\s+)?list$|^(?:买点?|要买)(?=\S)", "",
                                _object_phrase(rest, templates, first=False, whole=True), flags=re.I)
                if _is_list(listed):
                    value = listed
        if value and value.isascii():
            value = _EN_FRAME_RE.sub("", _EN_LEAD_RE.sub("", value)).strip(_PUNCT) or value
        if value:
            args[main] = value
    return _tidy(args, props)


# Mode words besides the modes' own aliases, and words a typo of a mode must not be read as.
_MODE_MORE = {"vacation": "away", "holiday": "away", "度假": "away", "出差": "away", "good night": "sleep",
              "goodnight": "sleep", "night mode": "sleep", "夜间": "sleep", "company": "guest", "有客人": "guest",
              "i'm home": "home", "i'm back": "home", "back home": "home"}
_NOT_MODES = frozenset({"some", "come", "dome", "hole", "hose", "hope", "homes", "sheep", "steep", "slept", "sleet",
                        "guess", "quest", "sway", "awry", "aways"})


def find_mode(low: str) -> str | None:
    for word, mode in sorted({**MODE_ALIASES, **_MODE_MORE}.items(), key=lambda kv: -len(kv[0])):
        if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word), low):
            return mode
    m = re.search(r"(?<![a-z])(home|away|sleep|guest)(?![a-z])", low)
    if m:
        return m.group(1)
    for word in re.findall(r"[a-z]+", low):  # "slep mode", "awya": a typo of a mode's name
        if word not in _NOT_MODES:
            fixed = closest(word, ("home", "away", "sleep", "guest", "guests", "bedtime", "visitor", "leaving"))
            if fixed is not None:
                return {"guests": "guest", "bedtime": "sleep", "visitor": "guest", "leaving": "away"}.get(fixed, fixed)
    return None


def _tidy(args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
    """Text values that are really an id ("task 4"), a quoted title, or carry a date."""
    out = dict(args)
    if "mode" in out and "mode" in props and isinstance(out["mode"], str):
        out["mode"] = find_mode(out["mode"].casefold()) or out["mode"]
    when_keys = [k for k, v in props.items() if is_when(v) and k not in out and k in _SCHEDULE_KEYS]
    for key, value in list(out.items()):
        if not isinstance(value, str) or is_when(props.get(key, {})) or "enum" in props.get(key, {}):
            continue
        m = _ID_RE.fullmatch(value.strip())
        if m and "id" in props and "id" not in out:
            out["id"] = int(m.group(1) or m.group(2))
            del out[key]
            continue
        quoted = _TITLE_QUOTE_RE.fullmatch(value.strip())
        if quoted:
            out[key] = quoted.group(1)
        found = find_when(value)
        targets = when_keys + ([k for k in ("date", "time") if k in props and k not in out] if key in _NAME_KEYS else [])
        if found and targets and (value.startswith(found[0]) or value.endswith(found[0])):
            rest = _clean(value.replace(found[0], " ", 1))
            if rest:
                target = targets[0]
                out[target] = found[0]
                if target in when_keys:
                    when_keys.remove(target)
                out[key] = rest
    return out


_FUNCTION_WORDS_EN = frozenset({"to", "on", "in", "at", "by", "of", "for", "up", "as", "is", "it", "me", "my", "an", "the", "and",
                                "with", "from", "off", "out", "into", "onto"})


# The lone function words kept in the middle of an object phrase are left at its edges by
# the command words around them ("piano lesson to" of "move my piano lesson to 4").
_EDGE_FUNCTION_RE = re.compile(r"^(?:(?:to|of|on|in|at|by|for|with|from|and|into|onto)\s+)+|(?:\s+(?:to|of|on|in|at|by|for|with|from|and|into|onto))+$",
                               re.I)


def _object_phrase(rest: str, templates: Sequence[Template], first: bool = False, whole: bool = False) -> str:
    """What is left once the command words of the action's templates are taken out."""
    words: set[str] = set()
    for template in templates:
        for part in template.literal_parts():
            for piece in re.split(r"[，,：:。.!！?？；;]", part):
                piece = piece.strip()
                if piece.casefold() in _FUNCTION_WORDS_EN:
                    continue  # a lone "to", "on", "for" of a template is a word of the object too ("has to hand in")
                if len(piece) >= 2 or (piece and not piece.isascii()):
                    words.add(piece)
    out = INTO_LIST_RE.sub(" ", rest)  # "把交房租记到待办里", "酱油放到购物清单里": the list it goes on
    if out != rest:
        out = re.sub(r"^\s*把\s*(?=\S{2})", "", out)
    for word in _GLUE:  # the household's glue words first, then the templates' own
        out = re.sub(rf"(?<![a-z]){re.escape(word)}(?![a-z])", " ", out, flags=re.I) if word.isascii() else out.replace(word, " ")
    for word in sorted(words, key=lambda w: (-len(w), w)):  # (ties in one order: a set's varies by run)
        if word.isascii():
            out = re.sub(rf"(?<![a-z]){re.escape(word)}(?![a-z])", " ", out, flags=re.I)
        elif len(word) >= 2:
            out = out.replace(word, " ")
    out = re.sub(r"\s+", " ", out)
    pieces = [_clean(_EDGE_FUNCTION_RE.sub("", p.strip())) for p in re.split(r"[，,。；;！!]", out)]
    pieces = [p for p in pieces if p]
    if not pieces:
        return ""
    if whole:
        return ("，" if re.search(r"[\u4e00-\u9fff]", rest) else ", ").join(pieces)
    return pieces[0] if first else max(pieces, key=len)


INTO_LIST_RE = re.compile(r"(?:记到|记在|放到|放进|加到|加进|添到|存到|存进|写到|写进|列到|列进)\s*(?:我的|咱家的?)?"
                           r"(?:待办事项|待办|任务列表|任务|购物清单|购物单|采购清单|清单|日程表|日程|日历|笔记本|笔记|备忘录|备忘|心愿单|愿望单|愿望清单)"
                           r"(?:里面?|中|上|里头)?")
PROSE_ACTIONS = ("write_diary", "record_dream")


def _is_list(value: str) -> bool:
    """Whether `value` names several short things, the last joined by "and"/和 ("bananas,
    spinach, greek yogurt and bread", "牛奶、鸡蛋和面包"), not a name and a remark."""
    pieces = split_items(value)
    if len(pieces) < 3 and not re.search(r"、", value):
        return False
    if not re.search(r"(?:\band\b|&|和|还有|以及|、)[^,，]*$", value):
        return False
    return all(len(p.split()) <= 3 if p.isascii() else len(p) <= 6 for p in pieces)


def split_items(value: str) -> list[str]:
    """"milk and eggs", "牛奶和鸡蛋", "苹果、香蕉" → each item."""
    parts = [_clean(p) for p in re.split(r"\s*(?:,|、|\band\b|&|和|还有|以及)\s*", value)]
    return [p for p in parts if p]


_DAY_WORD_RE = re.compile(rf"{_DAY_ZH}|\b(?:today|tomorrow|tonight|yesterday|{_WD}|next|{_MON}\.? \d)", re.I)


def find_day(text: str) -> bool:
    """Whether `text` names a day (not only a time of day)."""
    return bool(re.search(r"\d{4}-\d{2}-\d{2}", text)) or any(
        m.group(0).strip() and not re.fullmatch(_CLOCK, m.group(0).strip()) for m in _DAY_WORD_RE.finditer(text))


# A clause that only tells the assistant to keep what the rest says ("，存一下", "帮我记住",
# "加进购物单", ", put him in contacts", ", calendar please"): what is left of it once its
# command words, the lists' own names and the particles are taken out is nothing.
_COMMAND_ZH_RE = re.compile(
    # (the longer forms first: "存一存" before "存")
    # the verb's other forms ("帮我存一存", "你记着点", "补上"); a record's kind stays, as the cue
    # it is ("记收入", "记一笔体温")
    r"记个就诊|记一下就诊|记就诊|记个看病|记一下看病|存一存|记一记|记着点|补上|补一下|补记|补|搁上|搁着|搁|买东西的单子|单子|忘记|忘了|把|这|她|他|只|"
    r"帮我|帮忙|给我|给|麻烦|劳烦|拜托|请|你|您|先|顺便|赶紧|记得|别忘了|可以|"
    r"记下来|记下|记住|记上|记一下|记一哈|记录下?|记着|记账|记|存起来|存着|存下|存一下|存|登记|录入|录|"
    r"加进去|加进|加到|加入|加上|加|放进|放到|放在|放|写进|写到|写上|写下|写|保存|收藏|标记|倒数|倒计时|打个点|打卡|"
    r"打个勾|打个钩|打勾|打钩|勾上|勾一下|勾掉|勾了|划掉|删掉|删了|删|筛出来|列出来|列一下|设置|设个|设一个|新建个?|建个|建一个|弄个|弄一个|整个|"
    r"购物清单|购物单|物品清单|心愿单|愿望清单|愿望单|清单|书单|片单|日历|日程|行程|通讯录|联系人|备忘录?|便签|笔记|库存|在看|"
    r"健康数据|健康记录|健康档案|账本|想法|点子|灵感|主意|待办事项|待办|任务|提醒|习惯|目标|添|一项|一条|一个|个|"
    r"一笔(?:支出|收入|开销|花销|账)|"
    r"此刻|心情|睡眠|一笔|这个|这条|它|下来|起来|一下|下|里面?|上面?|中|到|进|在|吧|哈|啊|呀|啦|了|着|我|的|哦|嗯|"
    r"[\s，,。.!！、~～]",
)
COMMAND_EN_WORDS = frozenset(re.findall(r"\S+",
    "put add save log write note jot record track store keep remember hang mark tick cross count it that this them him her "
    "one down in into on onto to my the our a please for me list lists calendar contacts contact watchlist wishlist "
    "inventory address birthday notes reading shopping grocery can you could would just and also off too thanks "
    "there here now stick pop pin file diary planner watch i i'd want like entry new journal"))


_MIXED_COMMAND_RE = re.compile(r"(?:帮我|给我|请|再)?\s*(?:set|add|create|make|new|建|设|加|开|新建|弄|搞|记)\s*(?:个|一个|一下|一条)?\s*(?:a\s+|new\s+)?"
                               r"(?:goal|countdown|to-?do|task|reminder|note|habit|event|memo|item)\s*(?:吧|呗)?", re.I)


def command_clause(clause: str) -> bool:
    """Whether `clause` only asks to keep something ("存一下", "先记下来", "add that to the list")."""
    words = clause.strip(_PUNCT)
    if not words:
        return False
    if re.search(r"[\u4e00-\u9fff]", words):
        if re.search(r"[A-Za-z0-9]", words):
            return _MIXED_COMMAND_RE.fullmatch(words) is not None  # "帮我set个goal", "设个countdown"
        return not _COMMAND_ZH_RE.sub("", words)
    tokens = re.findall(r"[a-z']+", words.casefold())
    return bool(tokens) and all(t in COMMAND_EN_WORDS for t in tokens) and not re.search(r"\d", words)


def strip_command_clauses(text: str) -> str:
    """`text` without a leading or trailing clause that is only a command to keep it
    ("公司地址是…，存一下" → "公司地址是…", "记录一下，早上8点去了菜市场" → "早上8点去了菜市场");
    a command that is all there is stays."""
    parts = re.split(r"(\s*[，,；;。!！]\s*|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])|(?<=[a-z])\.\s+(?=[A-Z]))", text.strip())
    # parts: clause, separator, clause, ...
    clauses = parts[::2]
    if len(clauses) < 2:
        return text
    start, end = 0, len(clauses)
    while end - start > 1 and command_clause(clauses[end - 1]):
        end -= 1
    while end - start > 1 and command_clause(clauses[start]):
        start += 1
    if (start, end) == (0, len(clauses)):
        return text
    kept = parts[2 * start: 2 * end - 1]
    out = "".join(kept).strip(" ，,；;")
    return out or text


def match_clauses(text: str, templates: Sequence[Template], props: Mapping[str, Any], now: datetime
                  ) -> dict[str, Any] | None:
    """A template matched by the first clauses of `text` ("帐篷借给表哥了，说好3月15号还": the
    first clause is a template's whole, the second holds the due). Only when the clauses after
    it hold a value of their own (a date, an amount, a quantity, an enum's word) for a key the
    template left empty: those are added; the record's name is the template's."""
    parts = re.split(r"(\s*[，,；;]\s*)", text.strip())
    clauses = parts[::2]
    for end in range(len(clauses) - 1, 0, -1):
        found = _match(strip_polite("".join(parts[: 2 * end - 1])), templates, props, now, True)
        if found is None:
            continue
        others = {k: v for k, v in props.items() if k not in found}
        more = generic("，".join(clauses[end:]), "", others, [], templates, now, read=True)
        return _tidy({**more, **found}, props) if more else None
    return None
