"""Where a command says its words go: "加到购物清单", "放日历上", "记个待办", "add that as a
task", "put it down as income", "打车花了35".

A household often names the destination and leaves the rest loose ("妈妈让买一斤排骨，记上
清单", "Lily's school play is on the 27th at 2pm, pop it in the diary"); the classifier, which
weighs every word, can be unsure of such a line even though its destination decides it.
`destination(text)` returns the one write action whose destination the text names with a
verb that puts something there, or None when it names none or several. The layer asks it
only for a command (never a question) that the classifier is unsure of, or that it took for
the same domain's listing (a destination with a verb that adds is no request to see).
"""

from __future__ import annotations

import re

# A shopping list, not a wish list, a book list or the list of things at home.
_SHOP_LIST = r"(?:购物|采购|买菜)(?:清单|单子?|车)|(?<![愿望心书物品影歌办务])清单|要买的东西"
_ZH_PUT = r"(?:加|放|添|写|记|列)(?:到|进|在|入|上)?"
_ZH_ADDED = r"(?:里|上)?(?:加|添|写|记|放)"
_EN_SHOP = r"(?:the|my|our)\s+(?:shopping\s+|grocery\s+)?list\b"
# An amount of money, not a time, a count or a measure ("花了2小时", "spent 2 hours").
_ZH_AMOUNT = (r"\d(?![\d.,]*\s*(?:个?小时|分钟|天|次|页|公里|步|斤|杯|毫升|个月|周|点))"
              r"|[一二两三四五六七八九十百千万]+\s*(?:块|元|毛)")
_EN_AMOUNT = (r"[$¥£€]\s?\d|\d(?![\d,.]*\s*(?:h|hours?|hrs?|mins?|minutes?|days?|weeks?|times?|pages?|km|miles?|steps?"
              r"|kg|lbs?|cups?|glasses?|ml|am|pm|o'clock)\b)")

# Run out of something kept at home ("酱油又见底了", "outta coffee again"): it is to be bought;
# never time, breath, luck, a battery or a phone plan.
_RUN_OUT_ZH = r"(?<!电)(?<!时间)(?<!流量)(?<!话费)(?<!耐心)(?<!钱)(?:又|快|都|已经)?(?:见底|用完|用光|吃完|喝完|没货)了"
_NOT_GOODS_EN = (r"(?:time|breath|luck|ideas?|energy|patience|money|cash|space|storage|battery|order|sight|town|here|it|this|that"
                 r"|sorts|my mind|control|options|excuses|words|the office|the house|bed|data|gas money)\b")
_RUN_OUT_EN = rf"\b(?:out of|outta|ran out of|run out of|running (?:low on|out of)|low on)\s+(?!{_NOT_GOODS_EN})(?:the\s+)?[a-z]"
# A kind of record asked to be made ("create a goal of cycling 500 km", "新建一个目标"): the
# kind's own creating action, however the classifier weighed the rest.
_MAKE_ZH = r"(?<![打参固])(?:新建|创建|新增|建|设|定|立|加|添加)(?:一?个|一项|一条)?(?:新的?)?"
_MAKE_EN = r"(?:\b(?:create|set|make|add|start|set up)\s+(?:a|an|another|one)\s+(?:new\s+)?|^(?:a\s+)?new\s+)"

_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("add_shopping_item", re.compile(
        rf"{_ZH_PUT}(?:{_SHOP_LIST})|(?:{_SHOP_LIST}){_ZH_ADDED}"
        rf"|\b(?:add|put|stick|pop|throw|write|jot|bung)\b[^.?!。？！]*?\b(?:to|on|onto)\s+{_EN_SHOP}"
        rf"|[\u4e00-\u9fff]{{2}}{_RUN_OUT_ZH}|{_RUN_OUT_EN}", re.I)),
    ("create_goal", re.compile(rf"{_MAKE_ZH}目标(?!.{{0,3}}(?:完成|达成|进度|放弃))|{_MAKE_EN}goal\b", re.I)),
    ("create_habit", re.compile(rf"{_MAKE_ZH}习惯(?!.{{0,3}}(?:打卡|完成))|{_MAKE_EN}habit\b|养成.{{1,12}}(?:的)?习惯"
                                 r"|坚持.{1,12}[，,].{0,12}提醒我?(?:去)?打卡", re.I)),
    ("create_event", re.compile(
        r"(?:放|加|记|写|添|排|安排)(?:到|进|在|入)?(?:日历|日程|行程表?|calendar)(?:上|里)?"
        r"|(?:日历|日程)(?:上|里)(?:加|添|记|写)"
        r"|\b(?:put|pop|add|stick|pencil|block|book|enter)\b[^.?!。？！]*?\b(?:in|on|into|to)\s+(?:the|my|our)\s+"
        r"(?:diary|calendar|agenda|schedule)\b"
        r"|\bwrite\b[^.?!。？！]*?\b(?:in|on|into)\s+(?:the|my|our)\s+(?:calendar|agenda|schedule)\b", re.I)),
    ("create_task", re.compile(
        r"(?:加|添|建|新建|创建|记|列|来|设)(?:一?个|一条|条|一项|项)?(?:新的?)?(?:待办|任务|todo|to-?do)(?!.{0,3}(?:完成|做完|删|取消))"
        r"|(?:待办|任务)(?:清单|列表)?(?:里|上)(?:加|添|记|写)"
        r"|(?:记|加|放|列)(?:到|进|入)(?:待办|任务)"
        r"|\b(?:new|add\s+an?(?:other)?|create\s+an?|make\s+an?|set\s+up\s+an?|put\s+in\s+an?)\s+(?:[\w-]+\s+){0,2}?(?:task|to-?do)\b"
        r"|\b(?:as|to|on|onto)\s+(?:an?\s+|my\s+|the\s+)?(?:task|to-?do)s?(?:\s+list)?\s*(?:[,.!?]|$)"
        # a deadline and what must be done by then: "下周三之前要把疫苗本找出来"
        r"|(?:之前|以前|前)(?:一定)?(?:要|得|必须)(?:把|去|先)?[\u4e00-\u9fff]", re.I)),
    ("record_transaction", re.compile(
        # an amount (not a time or a count) and a word that spends or earns it
        rf"(?=.*(?:{_ZH_AMOUNT})).*(?:花了|花掉|花费|付了|付款|支付|消费|开销|支出|收入|进账|入账|到账|赚了|挣了|工资|奖金|红包|报销|AA|记一笔|记个?账)"
        rf"|(?=.*(?:{_EN_AMOUNT})).*\b(?:spent|spend|paid|cost|costs|came\s+to|set\s+me\s+back|earned|got\s+paid|blew|chuck(?:ed)?)\b"
        # "the taxi was 210", "dinner came to £80": the amount right after the verb, ending the clause
        r"|\b(?:was|were|came\s+to)\s+(?:about\s+|around\s+|like\s+)?(?:[$¥£€]\s?)?\d[\d,.]*\s*"
        r"(?:k|quid|bucks|dollars?|pounds?|euros?|yuan|rmb|元|块)?\s*(?:[.!,;]|$)"
        r"|记(?:成|为|作|到)(?:收入|支出|账)|\b(?:put|log|record|mark)\s+(?:it|that|this)\s+(?:down\s+)?as\s+(?:an?\s+)?(?:income|expense)\b",
        re.I)),
)
# What such a line must not also be: lent or owed money, a recurring charge, a wish, a
# removal or a completion (these have actions of their own the classifier knows better).
_NOT_TRANSACTION = re.compile(r"借|还我|还了|欠|每月|每年|每个月|订阅|续费|心愿|愿望|想要|预算|\blent\b|\bborrow|\bowe|pay\s+(?:me|him|her|them)\s+back"
                              r"|\bmonthly\b|subscription|per\s+(?:month|year)|a\s+(?:month|year)\b|wish|budget", re.I)
_NOT_ADDING = re.compile(r"删|去掉|划掉|勾掉|取消|完成|做完|买好|买了|\b(?:delete|remove|cross|tick|cancel|done|bought)\b"
                         r"|\bcheck(?:ed)?\s+(?:\S+\s+){0,3}?off\b"
                         r"|(?<!nearly )(?<!almost )\bfinished\b", re.I)


def destination(text: str) -> str | None:
    """The one write action whose destination `text` names with a putting verb, else None."""
    found = {action for action, rx in _CUES if rx.search(text)}
    if "record_transaction" in found and _NOT_TRANSACTION.search(text):
        found.discard("record_transaction")
    if found - {"record_transaction"} and _NOT_ADDING.search(text):
        found &= {"record_transaction"}
    return found.pop() if len(found) == 1 else None

