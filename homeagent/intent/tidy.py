"""The last pass over an action's arguments: the object phrase less what only points at
it or commands it, and the slots people say inside it.

- a record looked up by its words is the words before what points at it ("交物业费那条待办",
  "减肥那个目标", "交房租的截止时间", "the flossing habit as done");
- a disposal 把 and the command verb before the object are not the object ("先把健身…",
  "push the dentist…", "take the…", "that the wifi password…");
- a quoted span is the record's words ("把“修水龙头”标成已完成");
- a copula at a name's edge belongs to the sentence ("王磊是", "是王磊");
- a score or rating ("打3分", "4 out of 5", "5 stars"), calories, a currency, a health
  reading's metric and value, an event's place and length, a waist in cm, said in the
  sentence, are their own slots and leave the name they were said in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from homeagent.intent.fuzzy import HEAD_COLON
from homeagent.intent.month_end import MONTH_END_RE, month_end
from homeagent.intent.objects import CREATES, names_apart, refine
from homeagent.intent.slots import COMMAND_EN_WORDS, INTO_LIST_RE, PLACE_END_ZH
from homeagent.intent.structured import duration_minutes
from homeagent.intent.training import PLACE_WORD_ZH
from homeagent.numbers import parse_number
from homeagent.text import has_han

_LOOKUP_KEYS = ("content", "title", "habit", "item", "dish", "person", "plant", "pet")
_NAME_KEYS = ("content", "title", "habit", "item", "dish", "person", "plant", "pet", "medicine", "food", "subject",
              "place", "label", "mood", "reason", "metric")
# What points at a record after its words: "X那条任务", "X这个习惯…", "X的截止时间".
_POINTER_ZH_RE = re.compile(r"(?:那|这)(?:一)?(?:条|个|篇|件|项|张|笔|次)|的\s*(?:截止时间|截止日期|时间|日期|安排|日程|提醒|地点|标题|内容|进度|优先级|状态|备注|标签)"
                            r"|(?:目标|习惯|任务|待办|倒计时|笔记|便签)(?=现在|已经|进度|放弃|完成|删|改|暂停|不要|可以|\s|$)")
_POINTER_EN_RE = re.compile(r"\s+(?:habit|task|todo|to-do|goal|countdown|note|memo|reminder)s?\b.*$", re.I)
# A name said before the kind of record ("爬山习惯", "读书这个目标").
_MARKED_NAME_ZH = re.compile(r"(?!这个|那个)(?P<x>[\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:这个|那个|的)?(?:习惯|目标)(?!打卡|记录|列表|清单)")
# The day a looked-up record is on, before its name ("the Tuesday week viewing", "tomorrow's
# dentist", "下周二那个看房"): the name alone finds it, the day is no word of it.
# (A weekday alone may be the name's own word, "the Friday movie night": kept.)
_ON_DAY_EN_RE = re.compile(
    r"^(?:(?:the|my|our)\s+)?(?:(?:today|tomorrow|tonight|yesterday)(?:'s|’s)|(?:next|this|last)\s+{d}(?:'s|’s)?"
    r"|{d}(?:'s|’s|\s+week(?:'s|’s)?))\s+(?=[a-z])".format(d=r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"), re.I)
_ON_DAY_ZH = r"(?:今天|明天|后天|昨天|(?:这|下下?|上)?(?:周|星期|礼拜)[一二三四五六日天])"
_ME_A_TODO_RE = re.compile(r"^(?:me|us)\s+an?\s+(?:(?:recurring|repeating|quick|new|weekly|daily)\s+)?(?:to-?do|task|reminder|job)"
                           r"\s+(?:to|for)\s+", re.I)
_TODO_TO_RE = re.compile(r"\b(?:to-?do|task|reminder|job)\s+(?:to|for)\s+", re.I)
_DISPOSAL_RE = re.compile(r"^(?:先|就|再|帮我|给我)?把\s*(?=\S)")
_EN_VERB_RE = re.compile(
    r"^(?:(?:please|just|now|also|ok|so)\s+)*(?:push|move|take|abandon|scrap|drop|nuke|ditch|cancel|delete|remove|rename|retitle"
    r"|change|update|reschedule|mark|tick|check|cross|close out|finish|complete|pause|resume|archive|stop|quit|get rid of"
    r"|postpone|bump|shift|throw away|throw out|toss(?: out)?|bin|trash|chuck(?: out)?|wipe|scratch|nix|axe|strike|zap)"
    r"(?:\s+(?:off|out|in))?\s+"
    r"(?:(?:the|my|our|a|an|that|this)\s+)?(?=\S)", re.I)
_ASKING_RE = re.compile(r"^(?:提醒我?|叫我|喊我|让我|记得|别忘了|要)\s*(?:去|要)?(?=\S{2})|^(?:i need|i want|i'd like)\s+(?:a\s+)?"
                        r"reminder\s+(?:to\s+)?", re.I)
_RECURRING = (("monthly", r"每月|每个月|包月|月付|月费|\ba month\b|per month|monthly|every month"),
              ("yearly", r"每年|年费|包年|\ba year\b|per year|yearly|annually|every year"),
              ("weekly", r"每周|每星期|\ba week\b|per week|weekly|every week"),
              ("quarterly", r"每季度|quarterly|every quarter"))
_HAN_AMOUNT_RE = re.compile(r"(?:花了|花掉|付了|交了|扣了?|用了|到账了?|[，,\s])\s*(?P<n>[零一二两三四五六七八九十百千万]{2,})(?:块钱?|元)?(?=$|[，,。！!\s])")
_COLON_RE = re.compile(rf"^(?P<head>[^：:]{{1,16}}){HEAD_COLON}\s*(?P<rest>.+)$")
_ITEM_COUNT_RE = re.compile(r"^(?P<q>(?:[一两二三四五六七八九十几半]|\d+)\s*(?:包|盒|瓶|袋|箱|斤|个|卷|罐|支|条|块|打|桶|提|把|双|副)"
                            r"|(?:\d+|a|an|one|two|three|four|five|six|a dozen|a couple of)\s+(?:packs?|boxes?|bottles?|bags?|cans?"
                            r"|cartons?|rolls?|jars?|loaves|bunch(?:es)?)\s+of|a dozen)\s*(?=\S)", re.I)
_ITEM_STATE_RE = re.compile(r"(?:快|都|又|已经)?(?:见底|用完|用光|吃完|没|不够)了?$|\s+(?:someday|next time|again)$", re.I)
_ITEM_LEAD_RE = re.compile(r"^(?:家里的?|我们?|咱家)?(?:好想要|想要|想买|要买|得买|该买)?\s*(?:一[个台件把双套只]|个)?(?=\S{2})")
_PER_SESSION_RE = re.compile(r"(?:每天|每日|一天|每次|每回)\s*(?P<d>[^，,。；;]{1,10}?(?:分钟|小时|钟头))"
                             r"|(?P<d2>(?:an?|\d+|half an?)\s*(?:hours?|minutes?|mins?))\s+(?:a|per|each|every)\s+(?:day|session)", re.I)
_SPEAKER_EN_RE = re.compile(r"^(?:(?:i'm|i am|im|we're|we are|i|we|just|currently|now|still|totally|in the middle of)\s+)+"
                            r"(?:(?:reading|watching|at|outta|out of|got to|arrived at|checked in at|checked in)\s+)?(?:the\s+)?(?=\S)"
                            r"|^(?:just\s+)?(?:got to|arrived at|checked in at|checked in)\s+(?:the\s+)?(?=\S)", re.I)
_LEND_MORE = (
    re.compile(r"\b(?:[Ll]ent|[Ll]oaned|[Gg]ave)\s+(?:my|our|the|a|an)\s+(?P<item>[\w' -]+?)\s+to\s+(?P<person>[A-Z][\w'-]*)"),
    re.compile(r"(?P<person>[A-Z][\w'-]*)\s+(?:returned|gave back|brought back|handed back)\s+(?:my|our|the|a|an)\s+"
               r"(?P<item>[\w' -]+?)(?=[,.!]|$|\s+(?:today|yesterday|this))"),
    re.compile(r"把(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,8}?)借给了?(?:楼下的?|隔壁的?|同事|朋友|邻居)?(?P<person>[\u4e00-\u9fff]{1,4}?)(?:了|[，,。]|$)"),
    re.compile(r"(?:从|向|跟|找)(?:邻居|同事|朋友|同学|楼下的?|隔壁的?|楼上的?)?(?P<person>(?!那|这)[\u4e00-\u9fff]{1,4}?)(?:家|那里|那儿|那|这)?借了?"
               r"(?:一[个把台本件辆只副套]|[个本把台])?《?(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,10}?)》?(?:[，,。]|$)"),
    re.compile(r"(?:我那|我的|我家的?)?(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,8}?)(?:让|被)(?P<person>[\u4e00-\u9fff]{1,4}?)(?:拿走|借走|借去|拿去)了?"),
)
_THAT_RE = re.compile(r"^(?:down\s+)?(?:that|saying|says|reading|to say)\s+(?=\S)", re.I)
_QUOTES_RE = re.compile(r"[“\"「『‘](?P<q>[^”\"」』’]{1,40})[”\"」』’]"
                        r"|(?<![\w'])'(?P<q2>(?:[^'\n]|'(?=[A-Za-z]))+?)'(?![\w'])")  # 'X', where X may hold "Mia's"
# (a score in Chinese numerals where a clause ends or after 打: "巴适得板 五分", "打九分"; never 十分开心)
_SCORE_RE = re.compile(r"(?:打|给|评)?\s*(?P<zh>\d+(?:\.\d+)?)\s*分(?![钟])"
                       r"|(?:(?<=打|给|评)|(?<=[\s，,：:]))(?P<hz>[一二两三四五六七八九十]{1,2}|满)分(?=\s*[！!。.，,~～]|\s*$)|(?P<en>\d+(?:\.\d+)?)\s*(?:out of|/)\s*(?:5|10|100)\b"
                       r"|(?P<st>\d)\s*(?:stars?|颗星|星)", re.I)
_CALORIES_RE = re.compile(r"[，,]?\s*(?:大概|大约|约|about|around|roughly|~)?\s*(?P<n>\d+)\s*(?:大卡|千卡|卡路里|卡|kcal|calories|cal)(?![a-z])",
                          re.I)
_CURRENCIES = (("USD", r"US\$|\$|美元|美金|刀|dollars?|bucks?|usd"), ("EUR", r"€|欧元|euros?|eur"),
               ("GBP", r"£|英镑|pounds?|quid|gbp"), ("JPY", r"日元|円|yen|jpy"), ("HKD", r"HK\$|港币|港元|hkd"),
               ("CNY", r"\byuan|\brmb|renminbi|\bcny"))  # said so in English: 35块 is the default already
_METRIC_WORDS = ("血压", "血糖", "体温", "心率", "血氧", "blood pressure", "blood sugar", "temperature", "heart rate", "pulse",
                 "blood oxygen")
_DEGREE_RE = re.compile(r"(?P<a>\d{2})\s*度\s*(?P<b>\d)(?!\d)")
_OVER_RE = re.compile(r"(?P<a>\d{2,3})\s*(?:over|/|／)\s*(?P<b>\d{2,3})", re.I)
_WAIST_RE = re.compile(r"(?:腰围|waist)\D{0,14}?(?P<n>\d+(?:\.\d+)?)\s*(?:cm|厘米|公分)?", re.I)
_PLACE_ZH_RE = re.compile(r"[，,\s]*在(?P<p>[\u4e00-\u9fffA-Za-z0-9]{2,12}?)(?:举行|开|见面|见)?(?=[，,。！!]|$)")
_PLACE_EN_RE = re.compile(r"\s+at\s+(?:the\s+)?(?P<p>(?:[A-Z][\w'’-]*)(?:\s+(?:[A-Z][\w'’-]*|of|and|&))*|[a-z]+ (?:center|centre|hall"
                          r"|park|school|office|library|gym|clinic|hospital|church|stadium)|school|church|college|kindergarten|nursery)(?=[,.!]|$|\s+(?:with|for)\s)")
_MINUTES_EN_RE = re.compile(r"(?P<n>\d+)\s*-\s*(?:minute|min)\b|(?P<h>\d+)\s*-\s*hour\b", re.I)
# What is said of a record being done, after its name: "lawn is finally mowed", "history
# essay, I finished it", "家长会回执交了", "物理卷子终于写完了家人们".
_DONE_SAID_EN = re.compile(
    r"(?:\s+(?:is|was|are|were|has\s+been|have\s+been|got)|'s|’s)\s+(?:\w+ly\s+|all\s+|now\s+)?"
    r"(?:done|finished|sorted|fixed|paid|handled|complete|completed|over|\w+ed)\b.*$"
    r"|\s*,\s*(?:i|we)\s+(?:(?:just|finally|already)\s+)?(?:finished|did|done|have|'ve|got|sorted|handed)\b.*$", re.I)
_DONE_SAID_ZH = re.compile(
    r"(?<=[\u4e00-\u9fffA-Za-z0-9]{2})\s*(?:(?:终于|已经|总算|刚刚?|都)?(?:写|做|交|办|弄|搞|修|洗|收|拿|领|买|还|剪|打扫|寄|送|填|缴)"
    r"(?:完|好|掉|到)?了.*|(?:交|写完|做完|办完|弄完|搞完|办好|弄好|搞定|填完|缴完))$")


def done_said(value: str) -> str:
    """A looked-up record's name without what is said of its being done."""
    cut = (_DONE_SAID_EN.sub("", value) if value.isascii() else _DONE_SAID_ZH.sub("", value)).strip(" ，,")
    # ("已经交了": nothing of a name is left, and the record is the one just made)
    return value if re.fullmatch(r"(?:已经|终于|总算|刚刚?|都|我们?|俺|你|这个?|那个?|it|that|this|\s)*", cut, re.I) else cut


def undated_name(value: str) -> str:
    """A looked-up record's name without the day said before it: "the Tuesday week viewing" is
    "viewing", "明天的牙医" 牙医 (a name that is only the day stays as said)."""
    value = re.sub(rf"^{_ON_DAY_ZH}的?\s*(?=\S{{2}})", "", value) or value
    value = _ON_DAY_EN_RE.sub("", value) or value
    return re.sub(r"^(?:the|my|our)\s+(?=\S)", "", value, flags=re.I) if value.isascii() else value


def _cut(value: str, span: str) -> str:
    out = value.replace(span, " ", 1)
    out = re.sub(r"\s*[，,]\s*[，,]+\s*", "，", out)
    return re.sub(r"\s+", " ", out).strip(" ，,。.:：;；-—")


_HAN_RE = re.compile(r"[\u4e00-\u9fff]")
_HEAD_WORDS_RE = re.compile(r"心情|情绪|待办|任务|加一条|加个|加|mood|memo|note|diary|journal|contact|address|地址|联系人|便签|笔记|日记|备忘|on the board|private|"
                            r"\b(?:pin|make|new|a|an|my|the|log|add|save|record|write)\b|新建|添加|保存|记录|记|存|贴个?|一张|一条|个|一下", re.I)


# A work's name in title marks: 《哪吒之魔童闹海》 asks nothing, though 哪 asks in a sentence.
_TITLE_MARKS_RE = re.compile(r"《[^》]{1,40}》")


def unquoted(text: str) -> str:
    """The text with what it quotes or names in title marks said as one neutral word: the
    frame around a name."""
    return _TITLE_MARKS_RE.sub("'X'", _QUOTES_RE.sub("'X'", text))


def quoted_names(text: str, args: dict[str, Any]) -> dict[str, Any]:
    """A name the household quoted is whole: "'no phone after 10pm'" keeps its time words."""
    quoted = [(m.group("q") or m.group("q2")).strip() for m in _QUOTES_RE.finditer(text)]
    out = dict(args)
    for key in _NAME_KEYS:
        value = out.get(key)
        if isinstance(value, str) and value.strip():
            whole = next((q for q in quoted if value.strip() in q and value.strip() != q), None)
            # (unless what it adds is another slot's value: "把“周五前交报告”加到待办" has its due)
            if whole is not None and not any(isinstance(v, str) and v.strip() and v in whole
                                             for k, v in out.items() if k != key):
                out[key] = whole
    return out


def _command_head(head: str) -> bool:
    """Whether what comes before a colon only names the command ("记录心情", "Log my mood")."""
    return not _HEAD_WORDS_RE.sub("", head).strip(" ，,")


# A record named before its kind ("the dentist task", "the Friday movie night event").
_MARKED_NAME_EN = re.compile(r"\b(?:the|my|our|that|this)\s+(?P<x>[A-Za-z0-9][\w'’ -]{1,40}?)\s+(?:task|to-?do|habit|event|goal|countdown"
                             r"|reminder|note)s?\b", re.I)
_NOT_A_NAME_EN = re.compile(r"(?:old|new|last|first|second|third|other|same|whole|next|previous|latest|daily|weekly)", re.I)


# Words that only command, point or name a kind: a sentence of them holds no record's name
# ("Put it down as high priority.", "Delete that habit and all its history.", "Keep that somewhere.").
_NO_NAME_EN = COMMAND_EN_WORDS | frozenset(re.findall(r"\S+",
    "as high low medium urgent priority delete remove drop push move keep somewhere all its history task to-do todo "
    "habit goal countdown event memo idea reminder"))
_ONE_SENTENCE_KEYS = ("title", "habit", "item", "dish", "person", "plant", "pet", "medicine", "food", "subject", "label",
                      "place")
_SENTENCE_END_EN = re.compile(r"\s*[.!?]+(?:\s+|$)")
# What a date taken out of a name leaves at its end ("Mia's parents' evening on", "… due by").
_DANGLING_EN = re.compile(r"\s+(?:on|at|by|from|until|till|due)$", re.I)


# The words around a thing on a list: running out of it, the list it goes on or off, the
# errand it was bought on, what became of it ("outta milk again", "washing-up liquid while
# you're at it", "the sourdough on my way home", "gave the old stroller away").
_ITEM_LEAD_EN = re.compile(r"^(?:(?:we're|we are|i'm|i am|we|i)\s+)?(?:(?:all\s+)?outta|(?:all\s+)?out\s+of|(?:have\s+)?(?:run|ran)\s+out\s+of"
                           r"|no\s+more)\s+", re.I)
_ITEM_TAIL_EN = re.compile(r"\s+(?:(?:to|on|onto|in|into|off|from)\s+(?:(?:the|my|our|[A-Z]\w*'s)\s+)?(?:wish\s?list|shopping list|grocery list|list"
                           r"|household items(?: list)?|inventory|list of (?:stuff|things) we own)\b.*"
                           r"|while you(?:'re| are) at it|on (?:my|our|the) way(?: home| back)?|as well|too|again)$", re.I)
_GONE_EN = re.compile(r"^(?:we\s+|i\s+)?(?:gave|threw|sold|donated|binned|tossed|chucked)\s+(?:(?:the|our|my)\s+)?(?P<x>.+?)\s+(?:away|out)$"
                      r"|^(?P<y>.+?)(?:'s|’s|\s+has|\s+is)\s+(?:gone|broken|died|dead|been\s+\w+)\b.*$", re.I)
_ITEM_LEAD_ZH = re.compile(r"^(?:wishlist|wish list|心愿单|愿望单|购物清单|清单|家庭物品|物品)(?:里面?|中)的?\s*"
                           r"|^从(?:家庭|家里的?)?物品(?:清单|列表)?(?:里面?|中)?\s*(?:移除|删除|删掉|去掉)?", re.I)


def item_edges(value: str, text: str, lookup: bool) -> str:
    """A thing on a list named without the words around it (`_ITEM_LEAD_EN`, `_ITEM_TAIL_EN`,
    `_GONE_EN`, "wishlist里", "从家庭物品里移除"); a record looked up, without "那台坏掉的"."""
    if value.isascii():
        for _ in range(2):
            value = _ITEM_TAIL_EN.sub("", _ITEM_LEAD_EN.sub("", value.strip())).strip() or value
        if re.search(r"\b(?:tick|cross|check|knock)\b", text, re.I):
            value = re.sub(r"\s+off$", "", value, flags=re.I) or value  # "Tick the rice off"
        gone = _GONE_EN.match(value)
        if lookup and gone:
            value = (gone.group("x") or gone.group("y")).strip() or value
        return value
    value = _ITEM_LEAD_ZH.sub("", value.strip()) or value
    if lookup:  # "那台坏掉的加湿器": the 加湿器
        value = re.sub(r"^(?:那|这)?[台个把张件只辆部]?(?:坏掉的|坏了的|旧的|不用的)(?=\S{2})|^(?:那|这)[台个把张件只辆部](?=\S{2})", "", value) or value
    return value


def one_sentence_en(value: str, text: str) -> str:
    """An English name said in one sentence of several: the sentence with the most words of
    its own, the first of equals ("I need to book the car in for its MOT. Put it down as high
    priority." → the MOT one), less a preposition a taken-out date left at its end."""
    sentences = [p for p in _SENTENCE_END_EN.split(value) if p.strip()]
    if len(sentences) < 2:
        return value
    def own(sentence: str) -> int:
        return sum(t not in _NO_NAME_EN for t in re.findall(r"[a-z0-9'’-]*[a-z][a-z0-9'’-]*", sentence.casefold()))
    best = max(sentences, key=own).strip()
    best = re.sub(r"^(?:i'm|i am|we're|we are)\s+(?:done|finished|through)\s+with\s+(?=\S)", "", best, flags=re.I)
    cut = _DANGLING_EN.sub("", best)
    at = text.find(cut)
    return cut if cut and at >= 0 and cut != best and re.match(r"\s+\w+\s+\S", text[at + len(cut):]) else best


def _said_of_it_en(value: str, text: str) -> str:
    """A looked-up English name without what is said of it: ", you can check that one off",
    "should end at 5 now", "not going to … anymore", "… thing"; or the name said before its
    kind when the generic pass kept another clause ("Make the dentist task high priority, it
    can't wait")."""
    out = re.sub(r"\s*,\s*(?:(?:you can|can you|please|just|so|and)\s+)?(?:check|tick|mark|cross|delete|remove|scrap|drop|cancel"
                 r"|get rid of|take)\b.*$", "", value, flags=re.I) or value
    out = re.sub(r"\s+(?:should|will|needs? to|has to|must|can wait|could wait|can be|could be)\b.*$", "", out, flags=re.I) or out
    out = re.sub(r"^(?:(?:we're|we are|i'm|i am)\s+)?not going to\s+(?:the\s+)?(?=\S)", "", out, flags=re.I) or out
    out = re.sub(r"\s+any\s?more$|\s+thing$", "", out, flags=re.I) or out
    marked = _MARKED_NAME_EN.search(text)
    if marked is not None and not _NOT_A_NAME_EN.fullmatch(marked.group("x")) and marked.group("x").casefold() != out.casefold():
        return marked.group("x")
    return out


_FRAME_LEAD_ZH = re.compile(r"^(?:帮我)?(?:(?:保存|收藏|set|设置)(?:一个|一张|一条|个|张|条)?|(?:存|记|加|建|设|弄|整)(?:一个|一张|一条|个|张|条))\s*"
                            r"(?:coupon|优惠券|券|countdown|倒计时|倒机时)?\s*[：:]?\s*(?:到|给)?(?=\S{2})", re.I)
# The frame an English request wraps the new record's name in (see `tidy`).
_FRAMED_KEYS = ("title", "habit", "item", "content", "dish", "subject", "store")
_FRAME_LEAD_EN = re.compile(
    r"^(?:(?:i|we)\s+)?(?:(?:would|should|'d|’d)\s+like\s+to|want\s+to|wanna|gonna|going\s+to|need\s+to)\s+"
    r"(?:(?:set(?:\s+up)?|make|create|begin|start|build|form)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:goal|habit|countdown)\s+(?:of|to|for)\s+"
    r"|start\s+(?=\w+ing\b))"
    r"|^(?:set(?:\s+up)?|make|create|start)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:goal|countdown)\s+(?:of|to|for|till|until)\s+"
    r"|^(?:new\s+)?(?:goal|countdown)\s+(?=[a-z])"
    r"|^(?:pop|stick|bung|chuck|put)\s+(?:a|an|some)\s+(?=\S)|^pin\s+(?:a\s+)?(?:memo|note)\s+"
    r"|^(?:book|pencil|put|get)\s+(?:me|us)\s+in\s+for\s+(?:a\s+|an\s+|the\s+)?"
    r"|^remind\s+(?:me|us)\s+to\s+|^(?:pls|please)\s*[:：]\s*", re.I)


def tidy(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any], now: datetime) -> dict[str, Any]:
    out = dict(args)
    value: Any
    lookup = not action.startswith(CREATES)
    quoted = [(m.group("q") or m.group("q2")).strip() for m in _QUOTES_RE.finditer(text)]
    keys = [k for k in _NAME_KEYS if isinstance(out.get(k), str) and out[k]]
    if len(quoted) >= 1 and keys:
        # "把“修水龙头”标成已完成": the quoted words; a second quote is the new words.
        main = keys[0]
        if quoted[0] in out[main] and out[main] != quoted[0]:
            out[main] = quoted[0]
        for new in ("new_content", "new_title"):
            if len(quoted) == 2 and new in props and not out.get(new) and out.get(main) == quoted[0]:
                out[new] = quoted[1]
    for key in keys:
        value = str(out[key])
        if value.isascii() and (key in _ONE_SENTENCE_KEYS or key == "content" and action.endswith(("_task", "_idea"))):
            value = one_sentence_en(value, text)  # (a note's, a diary's or a memo's words may be sentences)
        if lookup and key in _LOOKUP_KEYS:
            value = undated_name(value) if has_han(value) else value
            m = _POINTER_ZH_RE.search(value)
            if m and re.fullmatch(_ON_DAY_ZH + "的?", value[: m.start()]) and len(value) - m.end() >= 2:
                value = value[m.end():]  # "下周二那个看房": the day, then the record's name
            elif m and m.start() > 0:
                value = value[: m.start()]
            elif " " in value and re.search(r"[\u4e00-\u9fff]", value):
                # (the pointer may be gone already, "戒糖 目标放弃"): the words before it in the text
                at = text.find(value.split()[0])
                m = _POINTER_ZH_RE.search(text, at) if at >= 0 else None
                if m is not None and m.start() - at >= 2 and not re.search(r"[\s，,。]", text[at:m.start()]):
                    value = text[at:m.start()]
            if value.isascii():
                value = _said_of_it_en(value, text)
                value = re.sub(r"\s+as(?:\s+(?:done|finished|complete|completed))?$", "", value, flags=re.I)
                cut = _POINTER_EN_RE.sub("", value).strip()
                value = cut or value
                value = _EN_VERB_RE.sub("", value) or value
        if lookup and key in _LOOKUP_KEYS:
            # "the concert got cancelled", "with the old gate code", "周六看电影", "酱油到手": the record's words
            value = re.sub(r"\s+(?:got|is|was|has been|were|are)\s+\w+.*$", "", value, flags=re.I) or value
            value = re.sub(r"^(?:with|about|called|named)\s+(?:the\s+|my\s+)?(?:old\s+)?(?=\S)", "", value, flags=re.I) or value
            value = undated_name(value)
            if action.startswith(("complete_", "check_in_", "mark_")):
                value = done_said(value)
            if action.startswith("mark_"):
                value = re.sub(r"(?:已经)?(?:到手|买到|买好|买回来|买)了?$", "", value) or value
        if value.isascii() and key == "place":  # "landed at Pudong Airport", "the office now": where, not when
            value = re.sub(r"^(?:just\s+)?(?:landed|arrived|got|made it)\s+(?:at|in|to)\s+(?=\S)", "", value, flags=re.I) or value
            value = re.sub(r"\s+(?:just now|right now|now|just|at the moment)$", "", value, flags=re.I) or value
        if value.isascii() and key == "person":  # "Sam finally returned…": Sam
            value = re.sub(r"(?<=\w)\s+(?:finally|just|already|actually|eventually|has|had)$", "", value, flags=re.I) or value
        if key == "content" and action == "create_task":  # "a low-priority task to sort out the garage"
            value = re.sub(r"^(?:an?\s+)?(?:(?:low|high|medium|top|urgent)[- ]priority\s+)(?:task|to-?do|reminder)\s+(?:to|for)\s+",
                           "", value, flags=re.I) or value
        if key == "content" and "due" in props and not lookup:  # "提醒交房租": the asking is not the task
            value = _ASKING_RE.sub("", value) or value
        if lookup or (key in ("content", "item", "title") and INTO_LIST_RE.search(text)):
            value = _DISPOSAL_RE.sub("", value) or value  # (and "把交房租记到待办里": the 把 of putting it there)
        value = _THAT_RE.sub("", value) or value
        if value.isascii():  # "prepare the slides, due (next Tuesday)": the date went, its word stays
            value = re.sub(r",\s*(?:due|by|on|at)$", "", value, flags=re.I) or value
        if key == "item":
            value = item_edges(value, text, lookup)
        if key in ("person", "title", "dish", "label", "habit"):
            value = re.sub(r"^是(?=\S{2})|(?<=\S{2})是$", "", value)
        if lookup and key in _LOOKUP_KEYS:
            value = re.sub(r"(?<=[\u4e00-\u9fff]{2})的$", "", value)  # "把交报销单的任务改到…": no name ends in 的
            # what is said of the record, not its name: "钢琴课以后…", "冥想已完成✅", "给 羽毛球", "坏掉的微波炉"
            value = re.sub(r"[^\w\s\u4e00-\u9fff]+$", "", value).strip() or value
            value = re.sub(r"(?<=[\u4e00-\u9fff]{2})\s*(?:以后|之后|就行|就好|彻底|已|不用再?记着?了?|不再记了?)$", "", value) or value
            value = re.sub(r"(?<=\S)\s*给?\s*(?:cancel|delete|remove|del)\s*掉?了?$", "", value, flags=re.I) or value
            value = re.sub(r"^给\s+(?=\S{2})|^(?:那台|这台|那个|这个)?(?:坏掉的|坏了的|坏的|旧的|破的)(?=\S{2})", "", value) or value
            marked = _MARKED_NAME_ZH.search(text) if key in ("habit", "title") and has_han(value) else None
            if marked is not None and action.endswith(("_habit", "_goal_progress")):
                name = re.sub(r"^(?:先|就|再|帮我|给我|请)*把", "", marked.group("x"))
                pointer = re.fullmatch(r"(?:这|那)(?:一)?(?:个|条|项)?", name) is not None  # "把这个习惯删了" points back
                if not pointer and len(name) >= 2 and name != value and (name in value or not value.startswith(name[:1])):
                    value = name  # "最近膝盖疼，爬山习惯先暂停": the habit is the one named before its kind
        if key == "content" and action == "create_task" and (me := _ME_A_TODO_RE.match(value)):
            # "Set me a (recurring) to-do to put the bins out": what follows, as said
            rest, said_at = value[me.end():], _TODO_TO_RE.search(text)
            at = text.find(rest, said_at.end()) if said_at is not None and rest else -1
            value = text[said_at.end():at + len(rest)] if said_at is not None and at >= 0 else rest or value
        out[key] = value.strip(" ，,。.") or out[key]
    for key in ("date", "due", "start", "deadline", "expires"):
        if isinstance(out.get(key), str) and re.match(r"^是(?=\S)", out[key]):
            out[key] = out[key][1:]  # "生日是10月3号": the date, without its 是
    colon = _COLON_RE.match(text.strip())
    if colon is not None and _command_head(colon.group("head")):
        # "记录心情：有点焦虑，明天要面试", "Log my mood: stressed about…": after the command.
        rest = colon.group("rest").strip()
        first = re.split(r"[，,；;]", rest)[0].strip()
        for key in ("mood", "content", "person", "label"):
            said = out.get(key)
            if isinstance(said, str) and said not in rest and (colon.group("head") in said or said.endswith(rest)):
                out[key] = rest if key == "content" else first
            elif isinstance(said, str) and key in ("mood", "person", "label") and re.search(r"[，,；;]", said):
                out[key] = re.split(r"[，,；;]", said)[0].strip() or said
        pieces = [p.strip() for p in re.split(r"[，,；;]", rest) if p.strip()]
        if "address" in props and "label" in props and not out.get("address") and len(pieces) >= 2:
            out["label"], out["address"] = pieces[0], "，".join(pieces[1:]) if _HAN_RE.search(rest) else ", ".join(pieces[1:])
        if "relation" in props and not out.get("relation") and len(pieces) >= 2 and out.get("person") == pieces[0]:
            relation = re.sub(r"^(?:my|our|the)\s+", "", pieces[1], flags=re.I)
            if len(relation) <= (24 if relation.isascii() else 8) and not re.search(r"\d|@", relation):
                out["relation"] = relation
    if "relation" in props and not out.get("relation") and isinstance(out.get("person"), str):
        pieces = [p.strip() for p in re.split(r"[，,；;]", text) if p.strip()]
        where = next((i for i, p in enumerate(pieces) if out["person"] in p), None)
        if where is not None and where + 1 < len(pieces):
            relation = re.sub(r"^(?:my|our|the|his|her)\s+", "", pieces[where + 1], flags=re.I)
            if 1 < len(relation) <= 8 and not re.search(r"\d|@|电话|手机|邮箱|phone|email|number", relation, re.I):
                out["relation"] = relation
    if isinstance(out.get("person"), str) and "relation" in props:  # "李阿姨加进联系人": 李阿姨
        out["person"] = re.sub(r"(?:加进|加到|加入|存进|存到|放进)(?:联系人|通讯录).*$", "", out["person"]).strip() or out["person"]
    if isinstance(out.get("item"), str) and action.startswith(("add_", "create_inventory")):
        item = out["item"].strip()
        item = _ITEM_LEAD_RE.sub("", item) or item
        m = _ITEM_COUNT_RE.match(item)
        if m and len(item) > m.end():
            if "quantity" in props and not out.get("quantity") and props["quantity"].get("type") == "string":
                out["quantity"] = m.group("q").strip()
            item = item[m.end():]
        item = _ITEM_STATE_RE.sub("", item).strip() or item
        out["item"] = item
    if "recurring" in props and out.get("recurring") in (None, "", "none"):
        period = next((k for k, rx in _RECURRING if re.search(rx, text, re.I)), None)
        if period is not None and period in props["recurring"].get("enum", [period]):
            out["recurring"] = period
    if "amount" in props and out.get("amount") in (None, ""):
        m = _HAN_AMOUNT_RE.search(text)
        number = parse_number(m.group("n")) if m else None
        if m and number is not None and number >= 1:
            out["amount"] = int(number) if float(number).is_integer() else number
    if "minutes_per_day" in props and not out.get("minutes_per_day"):
        m = _PER_SESSION_RE.search(text)  # "每天一小时", "每次40分钟", "an hour a day"
        if m:
            minutes = duration_minutes(m.group("d") or m.group("d2"))
            if minutes is not None and minutes[0] > 0:
                out["minutes_per_day"] = minutes[0]
    if isinstance(out.get("subject"), str) and "minutes_per_day" in props:
        # "排个练钢琴的计划" is 钢琴; "学Python" is Python; "for Spanish" is Spanish.
        value = out["subject"]
        value = re.sub(r"[，,].*$", "", value)
        value = re.sub(r"^(?:给\S{1,3}?(?=排|做|定|制定))?(?:排个|做个|定个|订个|制定一个|制定个|制定|做一个)?", "", value)
        value = re.sub(r"(?:的)?(?:备考|学习|练习|复习)?计划$", "", value)
        value = re.sub(r"^(?:学习|学|练习|练|复习|背)(?=\S{2})|^(?:for\s+)?(?:learning\s+|studying\s+)?", "", value, flags=re.I)
        out["subject"] = value.strip(" ，,") or out["subject"]
    if "schedule" in props and not out.get("schedule"):
        m = re.search(r"每(?:周|星期)[一二三四五六日天、和]+|every (?:mon|tues|wednes|thurs|fri|satur|sun)day(?:,? (?:and )?\w+day)*", text,
                      re.I)
        if m:
            out["schedule"] = m.group(0)
            for key in ("start", "end"):
                if isinstance(out.get(key), str) and out[key] in m.group(0):
                    del out[key]
    if isinstance(out.get("location"), str):  # "在书房抽屉里": the place itself
        out["location"] = re.sub(r"(?:里面|里)了?$", "", re.sub(r"^(?:放在|收在|搁在|放到|放进|在)", "", out["location"].strip())
                                 ).strip(" ，,") or out["location"]
    for key in ("medicine", "plant", "pet", "activity"):
        # "ibuprofen for my headache", "basil on the balcony", "walked for 40 minutes": the name.
        value = out.get(key)
        if isinstance(value, str) and value.isascii():
            cut = re.sub(r"\s+(?:for|on|in|at|after|before|with|from|by|to)\b.*$", "", value, flags=re.I).strip()
            out[key] = cut or value
    for key in ("title", "item", "place", "mood", "habit"):
        value = out.get(key)
        if isinstance(value, str) and value.isascii():
            out[key] = _SPEAKER_EN_RE.sub("", value).strip() or value
    if isinstance(out.get("medicine"), str):
        value = out["medicine"]
        m = re.match(r"^(?P<dose>\d+(?:\.\d+)?\s*(?:mg|ml|mcg|g|片|粒|颗|毫升|毫克))\s*(?=\S)", value, re.I)
        if m:
            if "dose" in props and not out.get("dose"):
                out["dose"] = m.group("dose").strip()
            value = value[m.end():]
        value = re.sub(r"^(?:\d+|an?|one|two|three)\s+(?=[A-Za-z])", "", value)
        value = re.sub(r"^(?:给\S{1,4}?)?(?:喂了?|吃了|服了|用了)\s*|^(?:饭后|饭前|睡前|早上|晚上)\s*(?:吃了|服了)?\s*", "", value)
        m = re.match(r"^(?P<dose>[一两二三四五六七八九十半]\s*(?:片|粒|颗|袋|包|支))(?=\S{2})", value)
        if m:
            if "dose" in props and not out.get("dose"):
                out["dose"] = m.group("dose")
            value = value[m.end():]
        out["medicine"] = value.strip() or out["medicine"]
    if "person" in props and "direction" in props and isinstance(out.get("person"), str):
        # "我跟表哥", "同事小刘": the person
        person = re.sub(r"^(?:我|我们)?(?:跟|向|找|问|从)", "", out["person"].strip())
        person = re.sub(r"^(?:同事|朋友|邻居|楼下的?|隔壁的?|楼上的?)(?=\S{2})", "", person)
        person = re.sub(r"\s*(?:那里?|那儿|这里?)$", "", person)
        out["person"] = person.strip() or out["person"]
    for lend in _LEND_MORE:
        if not ("person" in props and "item" in props):
            break
        m = lend.search(text)
        if m:  # a lending said in one of its frames: the frame's thing and person
            out["item"], out["person"] = m.group("item").strip(), m.group("person").strip()
            break
    if "returned" in props and isinstance(out.get("item"), str):  # "把上次借的相机还回来了": the camera
        out["item"] = re.sub(r"^(?:上次|之前|前几天|那次)?借(?:走|去)?的(?=\S{2})", "", out["item"].strip()) or out["item"]
    _flags_and_parts(text, action, props, out)
    if lookup and "id" in props and "id" not in out:  # "remove countdown 2": the record's number
        for key in _LOOKUP_KEYS:
            if isinstance(out.get(key), str) and re.fullmatch(r"#?\d{1,6}", out[key].strip()):
                out["id"] = int(out.pop(key).strip().lstrip("#"))
                break
    if isinstance(out.get("dish"), str):  # "可乐鸡翅，鸡翅十个…", "banana bread: 3 bananas…": the dish is its name
        out["dish"] = re.split(r"\s*[：:，,；;]\s*", out["dish"].strip())[0] or out["dish"]
    for key in ("score", "rating"):
        if key in props and out.get(key) in (None, ""):
            m = _SCORE_RE.search(text)
            if m:
                raw = m.group("zh") or m.group("en") or m.group("st")
                if raw is None:  # in Chinese numerals; 满分 is the top of the scale
                    said = m.group("hz")
                    top = props[key].get("maximum", 5 if key == "score" else 10)
                    raw = str(top) if said == "满" else str(parse_number(said) or "")
                    if not raw or not 0 < float(raw) <= top:
                        continue
                number = float(raw)
                out[key] = int(number) if number.is_integer() else number
                for k in keys:
                    if isinstance(out.get(k), str) and m.group(0).strip() in out[k]:
                        out[k] = _cut(out[k], m.group(0).strip()) or out[k]
        elif key in props and isinstance(out.get(key), str) and re.fullmatch(r"\d+(?:\.\d+)?", out[key].strip()):
            number = float(out[key])
            out[key] = int(number) if number.is_integer() else number
    if "calories" in props and out.get("calories") in (None, ""):
        m = _CALORIES_RE.search(text)
        if m and re.search(r"大卡|千卡|卡路里|kcal|calories|cal\b", m.group(0), re.I):
            out["calories"] = int(m.group("n"))
            for k in keys:
                if isinstance(out.get(k), str) and m.group(0).strip(" ，,") in out[k]:
                    out[k] = _cut(out[k], m.group(0).strip(" ，,")) or out[k]
    if "currency" in props and not out.get("currency"):
        said = next((str(out[k]) for k in ("amount", "cost", "price") if isinstance(out.get(k), str)), "")
        for code, rx in _CURRENCIES:
            if said and re.search(rf"(?:{rx})(?![a-z])", said, re.I):
                out["currency"] = code
                break
    if "metric" in props and "value" in props:
        low = text.casefold()
        metric = next((w for w in _METRIC_WORDS if w in low), None)
        if metric is not None and (not out.get("metric") or metric not in str(out["metric"]).casefold()):
            out["metric"] = metric
        m = _DEGREE_RE.search(text)
        if m:
            out["value"] = f"{m.group('a')}.{m.group('b')}"
        m = _OVER_RE.search(text)
        if m:
            out["value"] = f"{m.group('a')}/{m.group('b')}"
    if "waist_cm" in props and not isinstance(out.get("waist_cm"), int | float):
        m = _WAIST_RE.search(text)
        if m:
            out["waist_cm"] = float(m.group("n")) if "." in m.group("n") else int(m.group("n"))
            if str(out.get("weight_kg", "")).strip() == m.group("n"):
                del out["weight_kg"]
    if "location" in props and not out.get("location") and "start" in props and isinstance(out.get("title"), str):
        title = out["title"]
        m = _PLACE_ZH_RE.search(text) if re.search(r"[\u4e00-\u9fff]", text) else _PLACE_EN_RE.search(title)
        if m and m.group("p") not in title[:2]:
            out["location"] = m.group("p").strip()
            if m.group(0).strip(" ，,") in title:
                out["title"] = _cut(title, m.group(0).strip(" ，,")) or title
            elif ("在" + m.group("p")) in title:
                out["title"] = _cut(title, "在" + m.group("p")) or title
    said_limit = _RESULTS_RE.search(str(out.get("query", ""))) if "limit" in props else None
    if said_limit is not None and said_limit.start() > 0:  # "…，给我三条结果就行", ", just the top 5 results"
        count = parse_number(said_limit.group("n") or said_limit.group("n2"))
        if count is not None and count >= 1:
            out["limit"] = int(count)
            out["query"] = str(out["query"])[:said_limit.start()].strip(" ，,")
    if "duration_minutes" in props and not out.get("duration_minutes"):
        m = _MINUTES_EN_RE.search(text)
        if m:
            out["duration_minutes"] = int(m.group("n")) if m.group("n") else int(m.group("h")) * 60
            for k in keys:
                if isinstance(out.get(k), str) and m.group(0) in out[k]:
                    out[k] = _cut(out[k], m.group(0)) or out[k]
    for key, prop in props.items():
        # "6月底" is read as this month's end by the date words: the month said is meant.
        said_when = out.get(key)
        if isinstance(said_when, str) and "照抄用户的说法" in str(prop.get("description", "")):
            found: str | None = month_end(said_when, now)
            if found is None:
                m = MONTH_END_RE.search(text)
                if m and re.search(r"月底|月末|end of", said_when, re.I) and m.group(0) not in said_when:
                    found = month_end(m.group(0), now)
            if found is not None:
                out[key] = found
    names_apart(action, props, out)
    return _unframed(action, refine(text, action, props, out))


def _unframed(action: str, out: dict[str, Any]) -> dict[str, Any]:
    """A new record's name without the frame it was said in: "would like to set a goal of …",
    "goal finish couch to 5k", "Pop a Kindle on…", "Book me in for a haircut", "remind us to …";
    "保存优衣库八折券", "存个coupon：…", "set一个countdown到WWDC", "从 开始 打羽毛球" (the start day
    taken out of "从下周二开始…"); a countdown to "我们结婚纪念日" is to 结婚纪念日."""
    if not action.startswith(CREATES):
        return out
    for key in _FRAMED_KEYS:
        value = out.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        if value.isascii():
            value = _FRAME_LEAD_EN.sub("", value.strip()).strip() or value
        else:
            value = _FRAME_LEAD_ZH.sub("", value.strip()).strip() or value
            value = re.sub(r"^从\s*(?:开始|起)\s*(?=\S{2})", "", value)
            if action == "create_countdown":
                value = re.sub(r"^(?:我们|咱们|我|咱)的?(?=\S{2})", "", value)
        out[key] = value
    place, title = out.get("location"), out.get("title")
    if (isinstance(place, str) and isinstance(title, str) and "start" in out
            and (m := _PLACE_THEN_DOING_ZH.fullmatch(place.strip())) and m.group("doing") not in title
            and not PLACE_END_ZH.search(m.group("doing"))):
        # "我妈在华山医院复查": the place is 华山医院, what happens there is the event's
        out["location"], out["title"] = m.group("place"), title.strip() + m.group("doing")
    return out


_PLACE_THEN_DOING_ZH = re.compile(rf"(?P<place>[\u4e00-\u9fffA-Za-z0-9]{{1,12}}?(?:{PLACE_WORD_ZH}|街|路|村))(?P<doing>[\u4e00-\u9fff]{{2,6}})")


# How many results a search is to show, said at its end.
_RESULTS_RE = re.compile(r"[，,]\s*(?:给我|只要|就要|要|看)?\s*(?:前)?(?P<n>\d+|[一二两三四五六七八九十]+)\s*条(?:结果)?(?:就行|就好|就够了?|吧)?$"
                         r"|[,;]?\s*(?:just\s+)?(?:give me\s+)?(?:the\s+)?(?:top|first)\s+(?P<n2>\d+|three|five|ten)\s*(?:results?)?"
                         r"(?:\s+please)?\.?$", re.I)
_PRIVATE_RE = re.compile(r"只有我能看|只给我看|仅自己可见|私密|私人的?|\bprivate\b|\bjust for me\b|\bonly (?:i|me) can see\b", re.I)
_PINNED_RE = re.compile(r"置顶|\bpin(?:ned)?\b|\bsticky\b|\bon top\b", re.I)
_LUNAR_RE = re.compile(r"农历|阴历|\blunar\b", re.I)
_APPEND_ZH_RE = re.compile(r"(?:在|往|给)?(?P<title>[\u4e00-\u9fffA-Za-z0-9 ]{1,16}?)(?:那条|这条|那篇|这篇)?(?:笔记)?(?:后面|末尾|最后|里)?"
                           r"(?:加|补|添|追加)(?:上)?(?:一句|一条|一行|一段|几句)?[：:]\s*(?P<append>.+)$")
_APPEND_EN_RE = re.compile(r"^(?:add|append|put)\s+[\"“](?P<append>[^\"”]+)[\"”]\s+(?:to|onto|at the end of)\s+(?:my|the|our)\s+"
                           r"(?P<title>.+?)\s+note\b", re.I)
_NEW_NAME_RE = re.compile(r"(?:重命名为|重命名成|改名为|改名成|标题改成|标题改为|改成|改为)[“\"「]?(?P<zh>[^”\"」，,。]+)[”\"」]?\s*$"
                          r"|\b(?:rename|retitle)\b.*?\b(?:to|as)\s+[\"“]?(?P<en>[^\"”]+?)[\"”]?\s*[.!]?$", re.I)
_TITLED_RE = re.compile(r"标题(?:叫|是|为)(?P<title>[^，,。]+)[，,]\s*(?:内容(?:是|为)?[：:]?)?(?P<content>.+)$"
                        r"|\btitled?\s+[\"“]?(?P<entitle>[^\"”,:：]+?)[\"”]?(?:\s*[:：]|,?\s+(?:saying|that says|with))\s*(?P<encontent>.+)$", re.I)
_WEATHER_RE = re.compile(r"天气(?:是|很)?(?P<zh>晴(?:天|朗)?|阴(?:天)?|多云|小雨|大雨|雨|雪|[\u4e00-\u9fff]{1,3}?)(?=[，,。]|$)"
                         r"|\bweather\s+(?:was\s+|is\s+)?(?P<en>sunny|rainy|cloudy|snowy|windy|clear|foggy|stormy|hot|cold)\b", re.I)
_DIARY_MOOD_RE = re.compile(r"\bmood\s+(?:was\s+|is\s+)?(?P<en>[a-z]+)\b|心情(?:是|很)?(?P<zh>[\u4e00-\u9fff]{1,3}?)(?=[，,。]|$)", re.I)


def _flags_and_parts(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """Booleans said in words (private, pinned, lunar), a note's title and its appended or new
    words, a diary's weather and mood."""
    if "private" in props and "private" not in out and _PRIVATE_RE.search(text):
        out["private"] = True
    if "pinned" in props and "pinned" not in out and _PINNED_RE.search(text):
        out["pinned"] = True
    if "lunar" in props and "lunar" not in out and _LUNAR_RE.search(text):
        out["lunar"] = True
    if "append" in props and "title" in props and not out.get("append"):
        m = _APPEND_ZH_RE.search(text.strip()) or _APPEND_EN_RE.search(text.strip())
        if m:
            title = re.sub(r"^(?:在|往|给|my|the)\s*", "", m.group("title").strip(), flags=re.I)
            title = re.sub(r"(?:那条|这条|那篇|这篇)?(?:笔记)?$", "", title).strip()
            if title:
                out["title"], out["append"] = title, m.group("append").strip()
                if out.get("content") == out["append"]:
                    del out["content"]
    for new in ("new_title", "new_content"):
        if new in props and not out.get(new):
            m = _NEW_NAME_RE.search(text.strip())
            if m:
                words = (m.group("zh") or m.group("en") or "").strip()
                if words and not re.fullmatch(r"[\d:：点半上下午晚早\s]+|(?:明天|后天|下周\S?|周\S).*", words):
                    out[new] = words
                    for key in ("due", "start"):  # "rename task 4 to call grandma on Sunday": the new words
                        if isinstance(out.get(key), str) and out[key].strip() in words and key in props:
                            del out[key]
    if action.startswith("create_") and "title" in props and "content" in props:
        m = _TITLED_RE.search(text.strip())
        if m:
            out["title"] = (m.group("title") or m.group("entitle") or "").strip() or out.get("title")
            out["content"] = (m.group("content") or m.group("encontent") or "").strip() or out.get("content")
    if "weather" in props and not out.get("weather"):
        m = _WEATHER_RE.search(text)
        if m:
            out["weather"] = (m.group("zh") or m.group("en") or "").strip()
    if "weather" in props and "mood" in props and not out.get("mood"):
        m = _DIARY_MOOD_RE.search(text)
        if m:
            out["mood"] = (m.group("zh") or m.group("en") or "").strip()
