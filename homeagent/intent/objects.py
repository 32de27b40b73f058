"""The object phrase's last pass, after `tidy`: the words people say around a record's
name that are not the name, and slots said in passing.

- vague time words ("待会儿", "回头"), a deadline's own word left behind once its date was
  taken out ("截止", "之前"), a forgotten/for-now aside ("忘了", "先", "一段时间"), the
  asking ("提醒一下我") and a "把…从日历上去掉" / "…放进日程" command around the name;
- a name introduced by 叫 ("加个叫冥想的习惯"), a record pointed at by 那活儿 / 那件事;
- a meal's word before its food ("午饭吃的麻辣烫");
- money: its direction from the words (花了, 买, 交了, 打车 → expense; 工资, 到账, 卖…回了,
  received → income; a write with neither is an expense, the action's default said out),
  a category named in the sentence ("记到礼物类", "category: gifts");
- an event: the end of a range ("两点到四点", "from 2 to 4pm"), a place said with 在 before
  what happens there ("在301会议室开项目评审会").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from homeagent.intent.categories import money_category
from homeagent.intent.changes import changes
from homeagent.intent.fuzzy import INTERJECTIONS_ZH
from homeagent.intent.records import record_words
from homeagent.intent.slots import INTO_LIST_RE, PROSE_ACTIONS, command_clause
from homeagent.numbers import NUM, parse_number

_HAN = r"\u4e00-\u9fff"
CREATES = ("create_", "add_", "record_", "write_")  # the actions that make a record
_NAME_KEYS = ("content", "title", "habit", "item", "dish", "food", "subject", "place", "plant", "pet", "medicine")
# A piece of a name that is only an aside: when, for how long, that it was forgotten, a deadline's word.
_ASIDE_ZH = re.compile(
    r"(?:待会儿?|等会儿?|等一下|等下|一会儿?|过会儿?|回头|稍后|晚点|晚些时候|到时候?|先|暂时|暂且|"
    r"一段时间|一阵子?|这几天|几天|新|新建|新的|截止(?:日期|时间)?|截至|到期|之前|以前|前|忘了|忘记了?|又|还|买了|囤了|放了|新买了|\d+(?:\.\d+)?)")
_LEAD_ZH = re.compile(r"^(?:待会儿?|等会儿?|等下|一会儿?|过会儿?|回头|稍后|晚点|忘了|忘记了?)\s*(?=\S{2})")
_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:先|暂时|截止(?:日期|时间)?|截至|到期)$")
_EVERY_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:一|每)(?:周|星期|礼拜|天|个月|月)$")  # what was left of "一周三次"
_ASKING_ZH = re.compile(r"^(?:记得|别忘了|提醒(?:一下)?(?:我)?|叫我|喊我|让我|一下我?|我(?=(?:给|去|要|把|跟|和|带|找|交|买|打)\S))"
                         r"\s*(?:去|要)?(?=\S{2})")
# "…从日历上去掉", "…放进日程", "…加进去": the command around the record, not its name.
_FROM_LIST_ZH = re.compile(r"(?<=\S{2})\s*从\s*\S{1,6}?(?:(?:上|里|中)\s*(?:去掉|删掉|删除|拿掉|移除|删了|划掉|撤掉|去除)?|"
                           r"(?:去掉|删掉|删除|拿掉|移除|删了|划掉|撤掉|去除))(?:吧|了)?$")
_INTO_LIST_ZH = re.compile(r"(?<=\S{2})\s*(?:放进|放到|加进|加到|加入|记到|存到|写进|添加到|放入)(?:去|里|里面)?$")
_CALLED_ZH = re.compile(rf"^(?:一个|个)?(?:叫做?|名叫|名为|叫作)\s*(?P<n>[{_HAN}A-Za-z0-9]{{1,12}}?)(?:的)?$")
_POINTER_ZH = re.compile(r"(?<=\S{2})\s*(?:那|这)(?:个)?(?:活儿?|事儿?|件事)$")
_MEAL_ZH = re.compile(r"^(?:早饭|早餐|早上|午饭|午餐|中饭|中午|晚饭|晚餐|晚上|夜宵|宵夜|加餐|下午茶|breakfast|lunch|dinner|supper|brunch)?\s*(?:吃的是|吃了|吃的|吃|是|：|:)\s*(?=\S)")
# The meal a time of day names, when a food was eaten then.
_MEAL_TIME_ZH = re.compile(r"(?P<breakfast>早饭|早餐|早点|早上|早晨|今早)|(?P<lunch>午饭|午餐|中饭|中午|晌午)"
                           r"|(?P<dinner>晚饭|晚餐|晚上|昨晚|今晚|傍晚)|(?P<snack>夜宵|宵夜|加餐|零食)")
_FOOD_COUNT_ZH = r"(?:[一两俩二三四五六七八九十半]|\d+)\s*(?:个|碗|杯|片|根|份|盘|块|瓶|串|颗|只|盒|袋|罐|勺)"
_ALSO_TAIL_ZH = re.compile(r"(?<=\S)\s*也(?:补上|记上|加上|补一下|记一下|补记一下|算上)了?$")
_MEAL_EN = re.compile(r"^(?:(?:for\s+)?(?:breakfast|lunch|dinner|supper)\s+(?:i\s+had|was|i\s+ate|:)\s*|(?:i\s+|we\s+)?(?:had|ate"
                      r"|scoffed|wolfed(?:\s+down)?|devoured|munched(?:\s+on)?|smashed|demolished|polished\s+off|inhaled|snacked\s+on)"
                      r"\s+(?:an?\s+(?!few\b|couple\b|bit\b|lot\b))?)(?=\S)", re.I)

_INCOME_RE = re.compile(
    r"工资|薪水|奖金|年终奖|到账|进账|收入|收到|入账|报销款|分红|利息|退款|退了|红包收|"
    r"卖(?:\S{0,12}?)(?:回了|得了|了|掉)|"
    r"\b(?:got paid|paid me|salary|wages?|income|earned|earnings|received|receive|sold|selling|refund(?:ed)?|bonus"
    r"|dividends?|interest)\b", re.I)
_EXPENSE_RE = re.compile(r"花了|花掉|支出|付了|交了|买|打车|消费|充值|缴|扣了|\b(?:spent|spend|spending|paid|bought|buy|cost|costs)\b",
                         re.I)
_CATEGORY_RE = re.compile(rf"[，,\s]*(?:记到|记在|归到|归为|归入|算到|算作|放到|放进|分到|放)\s*(?P<zh>[{_HAN}A-Za-z]{{1,6}}?)\s*(?:那一?类|类别?|分类)(?:里|下|中)?"
                          rf"|[，,\s]*(?:类别|分类)\s*(?:算是|算|是|为|放|选|[:：])\s*(?P<zh2>[{_HAN}A-Za-z]{{1,6}})"
                          rf"|[，,\s]*(?:归到|归入|归为|分到)\s*(?P<zh3>[{_HAN}A-Za-z]{{2,6}})(?=$|[，,。；;！!])"
                          rf"|[，,\s]*(?:记|算|放)(?:在|到)\s*(?P<zh4>[{_HAN}A-Za-z]{{2,6}}?)(?:下面|底下|名下|那一?栏|栏)(?=$|[，,。；;！!])"
                          r"|[,\s]*\b(?:category|under)\s*[:：]?\s*(?P<en>[a-z][a-z&-]*(?:\s+[a-z&-]+){0,2}?)(?:\s+category)?(?=\s*(?:[,.;!:]|$))"
                          r"|[,\s]*\bin\s+the\s+(?P<en2>[a-z][a-z&-]*(?:\s+[a-z&-]+){0,2}?)\s+category\b", re.I)

_CLOCK_ZH = r"(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上)?\s*[\d一二两三四五六七八九十]{1,3}\s*[点點:：]\s*(?:半|一刻|三刻|[\d一二三四五六七八九十]{1,3}\s*分?)?"
_RANGE_ZH = re.compile(rf"^\s*(?:到|至|~|～|-|—)\s*(?P<end>{_CLOCK_ZH})\s*")
_RANGE_EN = re.compile(r"^\s*(?:to|until|till|-|–)\s*(?P<end>\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?)(?![\w:])\s*", re.I)
_PLACE_SUFFIX = (r"(?:会议室|教室|办公室|室|厅|馆|店|楼|层|公园|医院|学校|中心|餐厅|饭店|酒店|广场|商场|影院|影城|球场|体育场|场|家|号|路|院|所|处"
                 r"|部|区|园|吧|站|机场|公司)")
_PLACE_HEAD = rf"^(?P<before>.*?)在\s*(?P<p>[{_HAN}A-Za-z0-9]{{1,12}}?{_PLACE_SUFFIX})\s*"
_PLACE_VERB = r"(?P<v>开|举行|举办|办|参加|有)"
_PLACE_ZH = (re.compile(_PLACE_HEAD + _PLACE_VERB + r"\s*(?P<t>[^，,。；;]*)$"),
             re.compile(_PLACE_HEAD + _PLACE_VERB + r"?\s*(?P<t>[^，,。；;]*)$"))
_COMPANY_ZH = re.compile(rf"(?:和|跟|与|同|陪)[{_HAN}A-Za-z0-9 ]{{1,10}}")
_MORE_PLACE_ZH = re.compile(rf"^(?P<x>[{_HAN}0-9]{{0,4}}?{_PLACE_SUFFIX}){_PLACE_VERB}\s*(?P<t>[^，,。；;]{{2,}})$")
# "在万达看电影": a place without a place's ending, then what is done there (the title, its verb kept)
_PLACE_DOING_ZH = re.compile(rf"^在\s*(?P<p>[{_HAN}A-Za-z0-9]{{2,8}}?)(?P<t>(?:看|吃|逛|打|玩|踢|唱|聚|游|拍|学|练|见|上)[{_HAN}A-Za-z0-9]{{1,10}})$")


# English: the command and the list around a record's words, and asides after them.
_EN_LEAD = re.compile(
    r"^(?:(?:(?:make\s+)?sure\s+(?:i|we)\s+(?:don't|do not|dont)\s+forget(?:\s+to)?|(?:i\s+)?must\s+remember(?:\s+to)?"
    r"|don't\s+let\s+me\s+forget(?:\s+to)?|\w+\s+says(?:\s+(?:we(?:'ve|\s+have)\s+run\s+out\s+of|we\s+need|that))?"
    r"|todo|to-?do|set up(?:\s+an?\s+\w+)?|(?:i\s+)?(?:want|need|'d like)\s+to\s+(?:track|start|build|do)(?:\s+an?)?|chuck|stick|throw"
    r"|(?:bin|trash|toss|ditch|scrap)(?=\s+(?:the|my|our|that|this)\b)|call off|get rid of|put down that|record that|remember that|log|add"
    # ("put the bins out", "put the washing on": a chore whose verb is put, not the command)
    r"|put(?!\s+(?:(?:the|a|an|my|our|some)\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:out|away|on|up|back|in|down|to\s+bed)\s*$)|save|jot down"
    r"|i\s+(?:just\s+)?(?:had|took)|(?:just\s+)?(?:had|took)|did|i\s+need|need|grab)\s+(?:(?:my|the|our|some|a|an|of)\s+)*"
    r"|(?:(?:set up an?\s+|add an?\s+|start an?\s+)?countdown\s+(?:for|to|until)|(?:just\s+)?(?:arrived|got)\s+(?:at|to)|online"
    r"|of|some)\s+)(?=\S)", re.I)
_EN_TRAIL = re.compile(
    r"(?:,?\s+(?:as\s+(?:an?|my)(?:\s+(?:habit|task|recipe|idea|note|reminder|todo|to-do))?|completely|entirely|for good"
    r"|(?:,\s*)?history and all|and all (?:its|of its|the) [\w-]+|on the(?:\s+[\w-]+)?\s+list|on the|on my(?:\s+[\w-]+)?\s+list"
    r"|(?:,\s*)?(?:high|low|medium|normal|top)\s+priority"
    r"|,?\s*(?:(?:and\s+)?(?:keep|make|mark|set)\s+(?:it|this|that)\s+(?:as\s+)?)?(?:private|pinned|secret|just for me)"
    r"|(?:to|on|in|into)\s+(?:the|my|our)\s+(?:groceries|shopping|grocery list|list)|goes(?:\s+on\b.*)?"
    r"|on the way (?:home|back)|at the moment|right now|just now|a (?:minute|moment) ago|for now|at some point|someday|anymore"
    r"|(?:'s|’s|\s+is)\s+(?:off|cancelled|canceled|a no-go|not happening)|\s+isn't happening|\s+doesn't repeat|\s+with the kids"
    r"|\s+to\s+(?:my|our|the)\s+(?:watch\s*list|want-to-watch\s+(?:shows|list)|list of shows (?:i|we) want to watch)"
    r"|(?:from|off)\s+(?:my|the|our)\s+(?:[\w-]+\s+)?(?:list|calendar|schedule|diary|planner|wishlist|wish list)\b.*))+$", re.I)
_EN_DASH = re.compile(r"^(?P<head>[^-–—:]{2,48}?)\s+[-–—]\s+(?P<rest>\S.*)$")
_EN_DASH_HEAD = re.compile(r"\b(?:jot|note|memo|idea|thought|habit|task|reminder|remember|sticky|everyone|down|set up|save|diary|journal|dream|brainstorm|capture"
                           r"|add|log|record|write)\b", re.I)
_EN_POSSESSIVE_DAY = re.compile(r"^(?:(?:yesterday|today|tonight|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)(?:'s|’s)"
                                r"|(?:this|last|next)\s+(?:week|month)(?:'s|’s))\s+(?=\S)", re.I)
_EN_WHEN_TAIL = re.compile(r"\s+(?:sometime\s+|some time\s+)?(?:on|before|by|after|until|till|for|at|from)?\s*$", re.I)


def _en_when_tail(value: str) -> str:
    """"piano lesson on Saturday", "the boiler serviced sometime before the 15th": the words
    before a date said at the end."""
    from homeagent.intent.slots import WHEN_EN_RE  # (slots reads tidy, tidy reads this module)

    for m in WHEN_EN_RE.finditer(value):
        if m.end() >= len(value.rstrip(" ,.")) and m.start() > 0:
            head = _EN_WHEN_TAIL.sub("", value[: m.start()])
            head = re.sub(r"\s+(?:sometime|some time)$", "", head, flags=re.I)
            return head.strip(" ,") or value
    day = re.search(r"\s+(?:sometime\s+)?(?:before|by|on)\s+the\s+\d{1,2}(?:st|nd|rd|th)$", value, re.I)
    return value[: day.start()].strip(" ,") if day else value


# More of a command's own words before an English name: a habit's making ("help me build a
# habit of…", "create a habit to…"), a change of plan ("give up on", "abandoning", "erase",
# "reopen"), an event set ("schedule"), a habit done ("went to the gym").
_EN_LEAD_MORE = re.compile(
    r"^(?:help\s+me\s+(?:build|start|form)\s+a\s+habit\s+of|(?:create|make|start|build)\s+a\s+habit\s+(?:to|of)"
    r"|schedule|reopen|erase|(?:i\s+)?give\s+up\s+on|(?:i'?m\s+|i\s+am\s+)?(?:abandoning|dropping|quitting)|went\s+to"
    r"|book\s+in|(?:i\s+)?(?:wanna|want\s+to)\s+(?:see|watch|read)|(?:i\s+)?(?:finally\s+)?got\s+through|(?:we\s+)?don't\s+need"
    r"|(?:we're|we\s+are|i'm|i\s+am)\s+not\s+going\s+to|throw\s+(?:away|out)|count\s+down\s+the\s+days\s+(?:to|till|until)"
    r"|how\s+many\s+days\s+(?:till|until|to|before))"
    r"\s+(?:(?:my|the|our|a|an)\s+)*(?=\S)", re.I)


def _edge_words(value: str, *, name: bool = False) -> str:
    """Less a function word the command or the date left at an edge ("piano lesson to",
    "of cough syrup"); of a `name` (not prose), a dangling "on", "for ?", "then" or
    "— it" the date or the command left ("vet appointment for Biscuit on —")."""
    if name:
        value = _name_tail(value)
    return re.sub(r"^(?:of|to|with|for|from)\s+(?=\S)|\s+(?:to|of|with|for|from|and|the)$", "", value, flags=re.I) or value


def _name_tail(value: str) -> str:
    value = re.sub(r"\s+(?:to|on|onto|in|into|from|off)\s+(?:my|our|the|his|her)$", "", value, flags=re.I) or value  # "Severance to my"
    value = re.sub(r"(?:\s+(?:on|for|at|from|by|then)\b|\s*[—–?]|\s+-)+\s*(?:\s+it\b)?[\s?!.—–-]*$", "", value, flags=re.I) or value
    return re.sub(r"\s+[—–]\s+it$", "", value, flags=re.I) or value  # "Coldplay concert — it": the "for it" of the command


def en_name_words(value: str, dated: bool, *, name: bool = False) -> str:
    """`dated`: the date is its own slot (said, or the record is looked up), not the record's words;
    `name`: a name, not prose (see `_edge_words`)."""
    out = re.sub(r"\s*[?!]+\s+(?=[A-Z]).*$", "", value.strip()) or value.strip()  # "…? It's been a while.": one sentence
    for _ in range(2):
        out = _EN_POSSESSIVE_DAY.sub("", out) or out
        out = re.sub(r"^['’]?s\s+(?=\S)", "", out) or out  # "Friday's team lunch" cut after its day: the "s" was the day's
        out = _EN_LEAD.sub("", out) or out
        out = _EN_LEAD_MORE.sub("", out) or out
        out = _EN_TRAIL.sub("", out).strip(" ,") or out
        if dated:
            out = _en_when_tail(out)
            out = re.sub(r"\s+(?:sometime\s+|some time\s+)?(?:on|before|by|after|until|till|at|from)(?:\s+the)?$", "", out, flags=re.I)
        out = _edge_words(out, name=name)
        out = re.sub(r"\s+(?:sometime|some time|at some point|whenever)$", "", out, flags=re.I) or out
    if sum(out.count(q) for q in "'\"‘’“”") == 1 and out[:1] in "'\"‘“":  # "'fix the gate": a quote cut in two
        out = out[1:].strip() or out
    return out

# "愿望单再添一个拍立得", "食谱里加一道番茄牛腩": the list and the adding before the name.
_ADD_LEAD_ZH = re.compile(r"^(?:\S{1,6}?(?:里|上|中)?\s*)?(?:再)?(?:添加|添|加)\s*(?:一个|一道|一本|一件|一台|一份|一条|一把|一双|一瓶|一盒|个|道|本)"
                          r"(?=\S{2})|^\S{1,6}?\s+(?:添加|添上|加上)(?=\S{2})")
_PUT_IN_ZH = re.compile(r"把(?P<x>[\u4e00-\u9fffA-Za-z0-9]{1,10}?)(?:也)?(?:加进去|加进来|加上|加到|加进|放进|放到|记上|添上|添进去|存进|存到|存入|收进|收藏到)")
_CMD_TAIL_ZH = re.compile(r"(?<=\S{2})(?:的)?\s+(?:存|记|加|放)\S{0,2}$")
_CMD_HEAD_ZH = re.compile(r"^(?:置顶|写上|写下|记下|记一下|记上|内容是?|内容为|(?:新增|新建|添加|登记|记录|保存)[\u4e00-\u9fff]{0,3})\s*[：:]\s*(?=\S)")
_LOOKUP_VERB_ZH = re.compile(r"^(?:取消|删除|删掉|去掉|划掉|暂停|恢复|放弃)(?=\S{2})")
_ENTITY_ZH = re.compile(r"(?<=\S{2})(?:的)?(?:那个|这个)?(?:目标|习惯|任务|待办|倒计时|笔记|便签)\S{0,4}$")
_PET_KIND_ZH = re.compile(r"^(?:狗子|狗狗|小狗|猫咪|小猫|猫猫|我家的?)(?=\S{2})")
_PERSON_TAIL_ZH = re.compile(r"(?<=\S)(?:总算|终于|已经|刚刚?|都)?把$")

_EN_ITEM_TRAIL = re.compile(r"(?:\s+for\s+(?:the|a|an|our|my)\s+[\w-]+(?:\s+[\w-]+)?|(?:'s|’s|\s+is|\s+are)\s+(?:gone\s+\w+|broken|empty"
                            r"|finished|worn out|running low|stored\b.*|kept\b.*)|\s+(?:lives|goes|stays|sits)\b.*)$", re.I)
_EN_MOOD_LEAD = re.compile(r"^(?:i\s+)?(?:felt|feel|feeling|am feeling|was feeling|i'm feeling|i'm|i am|was|am)\s+(?:so\s+|really\s+|very\s+|pretty\s+)?",
                           re.I)
_EN_MEDICINE_LEAD = re.compile(r"^(?:i\s+)?(?:just\s+)?(?:(?:had|took|taken|gave)\s+)?(?:my|the|some|a|an|his|her)\s+(?=\S)", re.I)
_RETURNED_RE = re.compile(r"\b(?:returned|gave (?:it |them |my \w+ )?back|brought (?:it |them )?back|handed (?:it )?back)\b"
                          r"|还(?:回来|给我|我)?了|已经还|归还了", re.I)
_REPAID_RE = re.compile(r"\b(?:paid (?:me |us )?back|repaid|settled up)\b|还(?:给)?(?:我|你)?了|还我了|还清了?", re.I)
# The command before a record said as a fact ("record that Tom owes me 1000"): not the person.
_EN_RECORD_THAT = re.compile(r"^(?:please\s+)?(?:record|log|note|remember|write down|put down|save)\s+(?:that\s+)?(?=\S)", re.I)
_EN_RELATION = re.compile(r"^(?:(?:my|our)\s+)?(?:sister|brother|mum|mom|mother|dad|father|friend|neighbou?r|colleague|cousin|aunt|uncle"
                          r"|boss|son|daughter|wife|husband|partner|flatmate|roommate)\s+(?=[A-Z])")


def _pieces_kept(value: str) -> str:
    """A Chinese value with holes ("待会儿 给房东打电话"): the pieces that are not asides."""
    if not re.search(f"[{_HAN}]", value):
        return value
    pieces = [p for p in re.split(r"\s+", value.strip()) if p]
    kept = [p for p in pieces if not _ASIDE_ZH.fullmatch(p)]
    if kept and len(kept) < len(pieces):
        joined = " ".join(kept)
        return re.sub(rf"(?<=[{_HAN}])\s+(?=[{_HAN}])", "", joined) if len(kept) > 1 else joined
    return value


def name_words(value: str, action: str, props: Mapping[str, Any], has_when: bool) -> str:
    out = _pieces_kept(value.strip())
    if not re.search(f"[{_HAN}]", out):
        return out
    for _ in range(2):
        out = _LEAD_ZH.sub("", out)
        if "due" in props or action.startswith("check_in"):
            out = _ASKING_ZH.sub("", out)
        out = _TAIL_ZH.sub("", out) if has_when or re.search(r"先$|暂时$", out) else out
        out = _FROM_LIST_ZH.sub("", out) or out
        out = _INTO_LIST_ZH.sub("", out) or out
        out = _POINTER_ZH.sub("", out) or out
        out = _EVERY_TAIL_ZH.sub("", out) or out
        out = _pieces_kept(out.strip())
    m = _CALLED_ZH.match(out)
    if m:
        out = m.group("n")
    if action.startswith(("add_", "create_")):
        out = _ADD_LEAD_ZH.sub("", out) or out
    out = _CMD_TAIL_ZH.sub("", out) or out
    out = _CMD_HEAD_ZH.sub("", out) or out
    if not action.startswith(CREATES):
        out = _LOOKUP_VERB_ZH.sub("", out) or out
        out = _ENTITY_ZH.sub("", out) or out
    return out.strip(" ，,。") or value


# What people say at a Chinese name's edges that is not the name: a sigh or an "also" before
# it ("哎哟，刚吃了…", "还有 维生素C"), who asked for it ("妈妈说…", "老师让…"), a measure
# before a food or a thing ("一碗牛肉面", "两片布洛芬"), a lack ("没有洗衣液"), what the food
# was for ("苹果当加餐"), a deed done to the record being looked up ("报销单填完", "鸡蛋勾掉").
_INTERJECTION_ZH = re.compile(rf"^(?:{INTERJECTIONS_ZH}|嗯|啊|还有|另外|再来|再)[\s，,]*(?=\S{{2}})")
_ASKED_BY_ZH = re.compile(r"^(?:妈妈|爸爸|老妈|老爸|妈|爸|老婆|老公|媳妇|奶奶|爷爷|外婆|外公|姥姥|姥爷|孩子|儿子|女儿|领导|老板"
                          rf"|[{_HAN}]老师)\s*(?:说|让我?|叫我?|要我|嘱咐|交代)\s*(?:要|得)?\s*(?=\S{{2}})")
_MEASURE_ZH = re.compile(r"^(?:[一两二三四五六七八九十几半]|\d+)\s*(?:大|小)?(?:碗|杯|个|份|盘|块|片|粒|颗|根|袋|瓶|盒|包|碟|串|勺|只|条|罐|支)"
                         r"(?=\S{2}|[\u4e00-\u9fff])")
_LACK_ZH = re.compile(r"^(?:没有|没了|缺)(?=\S{2})")
_FOR_MEAL_ZH = re.compile(r"(?<=\S)\s*当(?:加餐|早饭|早餐|午饭|午餐|晚饭|晚餐|宵夜|夜宵|零食|点心)$")
_DONE_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:填完|写完|寄出去|寄走|寄了|交好|交完|做完|弄完|弄好|搞定|办完|买着|买好|买到|勾掉|划掉"
                           r"|不去|不要|删掉|删了|完成)了?(?:吧|啦)?$")

# A command's own words before a name it makes ("建个背单词的习惯", "设一个存钱目标", "开始坚持冥想",
# "不想再记录俯卧撑了"); what a pet or a plant had done ("豆豆刚喂过", "带球球去打针", "给茉莉花浇水");
# what became of a thing looked up ("挂面吃完了", "旧的加湿器扔了"); a day's check-in missed ("背单词忘了").
_MAKE_LEAD_ZH = re.compile(r"^(?:(?:新|重新)?(?:建|设|定|立|开|添|加|搞|弄)(?:个|一个|一下|一项)|开始(?:坚持|每天)?|坚持|打算|准备)"
                           r"\s*(?=\S{2})")
_DONE_DAY_RE = re.compile(r"今天|昨天|前天|刚才|刚刚|今早|昨晚|today|yesterday|this morning|last night|earlier today"
                          r"|(?:on\s+|last\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|上(?:周|星期|礼拜)[一二三四五六日天]", re.I)
_HELD_LEAD_ZH = re.compile(r"^(?:[\u4e00-\u9fff]{1,3}\s+)?(?:有个|有一个|有场|有一场)(?=\S{2})|^[\u4e00-\u9fff]{1,3}\s+有(?=\S{2})"
                           r"|^开(?!个|一个|场|一场|次)(?=\S{1,8}会(?:议)?$)")
_MADE_FOR_ZH = re.compile(r"给(?P<x>[^，,。\s]{2,8}?)(?P<v>(?:新)?(?:建|设|定|开|加|弄|搞|立)(?:个|一个|一下)?)?")
_STOP_LEAD_ZH = re.compile(r"^(?:不想再|不想|不再|别再|不用再|不要再)(?:记录?|打卡|坚持|练|做)?\s*(?=\S{2})")
_HABIT_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:忘了?|忘记了?|打卡|这个习惯|的习惯|习惯|(?:练|去|跑|做|打|学|读|弄|背|写)(?:完|过)了?)$")
_WHO_TAIL_ZH = re.compile(r"(?<=\S{2})(?:(?:刚刚?|已经|又)(?:[\u4e00-\u9fff]{1,2}(?:过|完)了?)?|去|今天|昨天)$")
_TO_LEAD_ZH = re.compile(r"^(?:给|带|帮|替)(?=\S{2})")
# Where a pet or a plant is and how many pots of it, before its name: "阳台那几盆多肉", "咱家那绿萝";
# how it is or what was just done, after it: "绿萝蔫了吧唧", "君子兰浇过", "年糕这小祖宗刚干完饭".
_KEPT_LEAD_ZH = re.compile(r"^(?:咱家|我家|家里|咱们家|阳台上?|客厅里?|卧室里?|窗台上?|院子里?|门口)?(?:那|这)(?:[一两几]?[盆棵株颗只条])?(?=\S{2})"
                           r"|^(?:咱家|我家|家里|阳台上?|客厅里?|窗台上?|院子里?)的?(?:[一两几]?[盆棵株颗只条])?(?=\S{2})")
_STATE_TAIL_ZH = re.compile(r"(?<=\S{2})(?:(?:这|那)(?:小祖宗|小家伙|家伙|小东西|货|崽子?|小宝贝|宝贝)\S*"
                            r"|(?:蔫|黄|干|枯|死)了\S*|(?:刚|刚刚|已经|又)?(?:浇|喂|遛|洗)(?:过|完|好)\S*)$")
_THING_LEAD_ZH = re.compile(r"^(?:那台|那个|这个|那件|这台|旧的|坏掉的|坏了的|用坏的)(?=\S{2})")
_USED_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:吃完|用完|喝完|扔了|扔掉|卖了|卖掉|送人|坏了|没了)了?(?:吧|啦)?$")
_SEARCH_LEAD_ZH = re.compile(r"^(?:上网|联网|在网上|网上)\s*(?:搜索?|查查?|找找?)?\s*(?:一下)?\s*(?=\S{2})")
# An adverb the name runs into ("大米已经买回来了": the rice, not "大米已经").
_ADVERB_TAIL_ZH = re.compile(r"(?<=\S{2})(?:已经|早就|刚刚|终于|总算)$")
# How a looked-up record was kept or is to be marked: "记着租房合同的那条笔记", "电池标记为已买".
_KEPT_AS_ZH = re.compile(r"^(?:记着|写着|记了|存着)(?=\S{2})|(?<=\S{2})(?:标记为|标记成|标成|标为|改成)$")
# A record looked up by its words: the pointer, its day and the trip before them ("那条旧的WiFi密码",
# "周末去爬香山", "看牙医"); the record's own words hold what is left, and the lookup finds it by them.
_LOOKUP_LEAD_ZH = re.compile(r"^(?:(?:那条|这条|那个|这个|那件|那篇|旧的|之前的)\s*)*(?:(?:这|本|下)?周末|今天|明天|后天|周[一二三四五六日天])?"
                             r"\s*(?:的)?\s*(?:提醒我|叫我|去|看)?(?=\S{2})")
_DISPOSED_ZH = re.compile(r"把\s*(?P<x>[^，,。；;把]{2,12}?)\s*(?:那条|这条|那个|这个|那项|那件)\s*(?:任务|待办|日程|笔记|习惯|提醒)?\s*(?:给我)?\s*"
                          r"(?:勾掉|划掉|删掉|删了|删除|去掉|取消|标成|标记|标为|打勾|打钩)")
# A one-character adverb after a thing's name ("鸡蛋刚买了", "发财树也浇了"): not the name's.
_SHORT_ADVERB_TAIL_ZH = re.compile(r"(?<=\S{2})(?:刚|也|都|又)$")
# Whose kin a person is, said before their name: the name is the person ("侄子小军", "my nephew Lukas").
_KIN_NAME_ZH = re.compile(r"^(?:我|我们|我家|咱家|咱)?的?(?:外孙女?|孙子|孙女|侄子|侄女|外甥女?|儿子|女儿|表[姐妹哥弟]|堂[姐妹哥弟]|好?朋友"
                          r"|新?同桌|新?同学|新?同事|邻居|闺蜜|室友|发小)(?:叫)?(?P<n>[\u4e00-\u9fff]{2,3}|[A-Za-z][\w'-]+)$")
_KIN_NAME_EN = re.compile(r"^(?:my|our)\s+(?:best\s+)?(?:nephew|niece|cousin|son|daughter|friend|mate|colleague|neighbou?r|brother"
                          r"|sister|flatmate|roommate|grandson|granddaughter)\s+(?P<n>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)$", re.I)
_WENT_TO_ZH = re.compile(r"^(?:我|我要|要)?(?P<who>[^，,。\s]*?)(?:我要|要)?去(?P<p>[^，,。\s]{1,10}?(?:医院|市场|超市|菜场|体育馆|体育场"
                         r"|公园|学校|中心|广场|商场|餐厅|饭店|酒店|机场|车站|银行|球场|影院|图书馆|馆|店|楼|院|所|站|居))"
                         r"(?P<a>[\u4e00-\u9fff]{2,8})$")
_SAVED_TAIL_ZH = re.compile(r"(?<=\S{2})(?:存一下|存下|存|记一下|记下)$")


def names_apart(action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """What a name said with more than itself holds apart, read last (after the span model):
    - a person said with whose kin they are ("我外孙明明", "my nephew Lukas") is their name; a
      contact, which keeps who they are as its relation, reads them its own way;
    - an event said as going somewhere named to do something ("带奶奶去协和医院复查") is the
      doing (带奶奶复查) at the place (协和医院); a place not named ("去医院复查") stays."""
    person = out.get("person")
    if isinstance(person, str) and "relation" not in props:
        kin = _KIN_NAME_ZH.match(person.strip()) or _KIN_NAME_EN.match(person.strip())
        if kin is not None:
            out["person"] = kin.group("n")
    title = out.get("title")
    if action == "create_event" and "location" in props and not out.get("location") and isinstance(title, str):
        went = _WENT_TO_ZH.match(title.strip())
        if went is not None and len(went.group("p")) >= 3:
            out["title"], out["location"] = went.group("who").strip() + went.group("a"), went.group("p")


def zh_edges(value: str, key: str, action: str, props: Mapping[str, Any]) -> str:
    if not re.search(f"[{_HAN}]", value):
        return value
    out = _ADVERB_TAIL_ZH.sub("", _INTERJECTION_ZH.sub("", value))
    if key in ("content", "item", "title"):
        out = _ASKED_BY_ZH.sub("", out)
    if key in ("food", "medicine") or (key == "item" and "quantity" not in props):
        out = _MEASURE_ZH.sub("", out)
    if key == "item":
        out = _LACK_ZH.sub("", out)
    if key == "food":
        out = _FOR_MEAL_ZH.sub("", out)
    if not action.startswith(CREATES):
        out = _DONE_TAIL_ZH.sub("", out)
        out = _STOP_LEAD_ZH.sub("", out)
        if key == "item":
            out = _USED_TAIL_ZH.sub("", _THING_LEAD_ZH.sub("", out))
        if key in ("content", "title", "habit", "item"):
            out = _LOOKUP_LEAD_ZH.sub("", _KEPT_AS_ZH.sub("", out))
    elif key in ("habit", "title"):
        out = _MAKE_LEAD_ZH.sub("", out)
        if key == "title" and "start" in props:  # "开家长会", "有个dinner party", "孩子 有钢琴课": the event
            out = _HELD_LEAD_ZH.sub("", out.strip()) or out
        made_for = _MADE_FOR_ZH.fullmatch(out.strip())  # "给高考建个(倒计时)", "给跑步(定个目标)"
        if made_for and (made_for.group("v") or action in ("create_goal", "create_countdown")):
            out = made_for.group("x")
    if key == "habit":
        out = _HABIT_TAIL_ZH.sub("", out)
    if key in ("item", "plant", "pet", "habit"):
        out = _SHORT_ADVERB_TAIL_ZH.sub("", out)
    if key in ("pet", "plant"):
        out = _WHO_TAIL_ZH.sub("", _TO_LEAD_ZH.sub("", out))
        kept = re.sub(r"(?<=\S{2})(?:我们|我|俺)$", "", _STATE_TAIL_ZH.sub("", out.strip()))
        bare = _KEPT_LEAD_ZH.sub("", kept)  # ("阳台那几盆花" stays: 花 alone names no plant)
        out = bare if len(bare) >= 2 and not re.match(r"[一两几]?[盆棵株颗只条]", bare) else kept or out
    if key == "query":
        out = _SEARCH_LEAD_ZH.sub("", out)
    if key == "person":
        out = _SAVED_TAIL_ZH.sub("", out)
    return out.strip(" ，,。") or value


def category_said(text: str) -> tuple[str, str] | None:
    """The category the words give ("放到家务分类里", "under car stuff") and the words that gave it."""
    m = _CATEGORY_RE.search(text)
    if m is None:
        return None
    word = (m.group("zh") or m.group("zh2") or m.group("zh3") or m.group("zh4") or m.group("en") or m.group("en2") or "").strip()
    return (word, m.group(0)) if word else None


def _money(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    kinds = props.get("type", {}).get("enum", [])
    if "income" not in kinds or "expense" not in kinds:
        return
    write = action.startswith("record_")
    if out.get("type") not in ("income", "expense"):
        if _INCOME_RE.search(text):
            out["type"] = "income"
        elif write or _EXPENSE_RE.search(text):
            out["type"] = "expense"  # the action's default, said out ("打车89元", "超市买菜156.5")
    elif out.get("type") == "expense" and _INCOME_RE.search(text) and not _EXPENSE_RE.search(text):
        out["type"] = "income"
    if write and "category" in props and not out.get("category"):
        found = category_said(text)
        if found is not None:
            out["category"] = found[0]
            for key in ("note", "content"):
                if isinstance(out.get(key), str) and found[1].strip(" ，,") in out[key]:
                    out[key] = out[key].replace(found[1].strip(" ，,"), "").strip(" ，,") or out[key]
    note = out.get("note")
    if write and "note" in props and re.search(f"[{_HAN}]", _MONEY_SAID_ZH.sub("", text)) and (
            not isinstance(note, str) or not note.strip() or _MONEY_COMMAND_ZH.fullmatch(note.strip())
            or _MONEY_SAID_ZH.search(note)):
        picked = _what_for_zh(text, out)
        if picked:
            out["note"] = picked
        elif isinstance(note, str) and _MONEY_COMMAND_ZH.fullmatch(note.strip()):
            del out["note"]
    if write and "category" in props and not out.get("category") and (named := money_category(text)):
        out["category"] = named[0]  # "Spent 45 on groceries": filed under groceries, the note keeps the word
    note = out.get("note")
    if write and "note" in props and not re.search(f"[{_HAN}]", text) and (
            not isinstance(note, str) or not note.strip() or _MONEY_JUNK_EN.search(note)
            or _MONEY_COMMAND_EN.fullmatch(note.strip(" .!"))):
        picked = _what_for_en(text, str(out.get("category") or ""))
        if picked:
            out["note"] = picked
        elif isinstance(note, str) and _MONEY_COMMAND_EN.fullmatch(note.strip()):
            del out["note"]


def _what_for_zh(text: str, out: Mapping[str, Any]) -> str:
    """What the money went on, in a Chinese line: the clause that is neither the command nor
    the category, less its amount, its day and its verbs ("昨天超市买菜花了一百二十八，记在餐饮下面"
    → 超市买菜; "帮我计个账，打车30块" → 打车; "收到年终奖1.5万" → 年终奖)."""
    for clause in re.split(r"[，,。；;！!]\s*", text):
        clause = clause.strip()
        if not clause or _MONEY_COMMAND_ZH.fullmatch(clause) or re.match(r"记(?:成|在|到|为)", clause):
            continue
        words = _MONEY_SAID_ZH.sub(" ", clause)
        words = _MONEY_DAY_ZH.sub(" ", words)
        words = re.sub(r"^\s*(?:(?:帮我|给我)?\s*(?:记|计)\s*(?:个|一笔|一下)?\s*(?:账|帐)?\s*[：:]?|刚刚?|收到了?|又)\s*", "", words.strip())
        words = re.sub(r"^(?:在|给(?:孩子|儿子|女儿|宝宝|老婆|老公|爸妈|爸爸|妈妈|家里)\s*(?:交|付|充|缴)了?)(?=\S{2})", "", words.strip())
        words = re.sub(r"\s*(?:的钱|的|了|到账了?|记上|记一下)$", "", words.strip()).strip(" ：:")
        if len(words) >= 2 and words != str(out.get("category", "")):
            return " ".join(words.split())
    return ""


# An English line's parts that are not what the money went on: the command to keep it ("write
# that down", "chalk it up", "log as income"), the amount in figures or words with its currency,
# the day, how often, and the verbs and words around them.
_MONEY_COMMAND_EN = re.compile(
    r"(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:(?:help\s+me\s+)?(?:log|record|write|put|chalk|stick|save|enter|file|jot|"
    r"track|mark|note|add|book|keep|pop|bung|whack|chuck|throw)(?:\s+(?:it|that|this|them)\b(?:\s+\S+){0,5}|\s+(?:it\s+)?(?:down\s+)?as\b.*"
    r"|(?:\s+(?:an?\s+)?(?:expense|income|payment|transaction|it))?(?:\s+(?:please|pls|thanks|anyway|for\s+me))?)"
    r"|for\s+me|thanks?|ta|cheers|please|pls|i\s+guess|um+|uh+|er+|like|so|well|you\s+know|i\s+mean|(?:so\s+)?i\s+spent)", re.I)
_MONEY_JUNK_EN = re.compile(
    r"\b(?:spent|paid|bucks|quid|dollars?|euros?|pounds?|yuan|chalk|log|write|record)\b|[$£€¥]|^(?:it|that|this)\b", re.I)
_MONEY_WORDS_EN = re.compile(
    r"(?:(?:(?:\b(?:[SACR]|NZ|HK|US))?[$€£¥]|\bR|\bRs\.?|₹|\bRM|\bINR|\bEUR|\bGBP|\bUSD)\s*)?\d[\d,]*(?:\.\d+)?\s*(?:k\b|grand\b)?\s*"
    r"(?:bucks|dollars?|quid|pounds?|euros?|eur|gbp|usd|rand|yuan|rmb|rupees?|cents?|p\b)?"
    r"|\b(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety|hundred|thousand|fiver|tenner|grand|and|-)(?:\s+|-)*(?:bucks|dollars?|quid|pounds?|euros?|rand|grand)\b"
    r"|\b(?:a\s+)?(?:fiver|tenner|score)\b", re.I)
_MONEY_WHEN_EN = re.compile(
    r"\b(?:today|tonight|yesterday|this\s+(?:morning|afternoon|evening|arvo|week|month)|last\s+(?:night|week|month)|just\s+now"
    r"|earlier|(?:on|at|over)\s+the\s+weekend|(?:(?:on|last|this|next)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|(?:a|per|each|every)\s+(?:month|year|week|day)|monthly|yearly|annually|weekly"
    r"|for\s+(?:\d+|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|forty|half\s+an)\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?)"
    r")(?:'s|’s)?(?=\W|$)", re.I)
_MONEY_HEAD_EN = re.compile(
    r"^(?:(?:i|we|just|so|and|also|oh|ok|okay|right|the|annual|yearly|monthly)\s+)*(?:(?:record|log|add)\s+(?:an?\s+)?"
    r"(?:expense|income|payment|transaction)(?:\s+of)?|put\s+down|chalk\s+up|spent|paid(?:\s+out)?|pay(?:s|ing)?|got\s+paid|earned|"
    r"made|received|got|down|"
    r"lost|blew|dropped|added|add|log|record)?\s*(?:(?:at|on|for|from|to|the|a|an|my|our|annual|yearly|monthly)\s+)*", re.I)
_MONEY_TAIL_EN = re.compile(
    r"\s+(?:is|was|were|are|came\s+to|comes\s+to|come\s+to|cost|costs|paid(?:\s+out)?|in|charges?(?:\s+(?:us|me))?"
    r"|takes?(?:\s+off\s+(?:my|our|the)\s+(?:card|account))?|(?:has\s+|have\s+)?(?:come|came|gone|went)\s+(?:in|out|through)"
    r"|as\s+(?:a\s+|an\s+)?(?:(?:monthly|yearly|weekly|recurring|regular)\s+)?(?:expense|income|sub|subscription|payment|bill))\s*$", re.I)


def _what_for_en(text: str, category: str = "") -> str:
    """What the money went on, in an English line: a clause that is not the command, less its
    amount, its day, how often and its verbs ("Spent forty dollars at the hardware store,
    write that down" → hardware store; "Bridge toll, $7.25" → bridge toll; "Add Disney Plus as
    a monthly expense, 13.99" → Disney Plus; "paid the window cleaner 25 quid" → window
    cleaner). The clause the amount is in comes first; else the first clause, unless it is one
    word and a later one names a place ("Fuel, forty-five bucks, Shell on Route 9")."""
    text = re.sub(r"\([^()]*\)", " ", text)  # "(inc. VAT at 20%)": an aside
    text = re.sub(r"\b(?:category|dated|date)\s*[:：][^;,.]*", " ", text, flags=re.I)  # ("; category: home maintenance")
    # "Gym membership's £32", "Salary's come in", "rent's in from the lodger": the 's is a verb
    text = re.sub(r"(?<=\w)(?:'s|’s)(?=\s+(?:[$€£¥\d]|a\s+|an\s+|about|around|come|gone|in\b))", " is", text)
    found: list[tuple[str, bool]] = []
    for clause in re.split(r"[,;:!?]+|\.(?!\d)|\s+[-–—]\s+", text):
        clause = clause.strip()
        if (not clause or _MONEY_COMMAND_EN.fullmatch(clause) and not re.match(r"add\s+\S+.*\s+as\s+", clause, re.I)
                or re.fullmatch(r"(?:an?\s+)?(?:new\s+)?(?:income|expense|expenses|spending|earnings|transaction|payment)", clause, re.I)):
            continue
        words = _MONEY_WHEN_EN.sub(" ", clause)
        priced = _MONEY_WORDS_EN.search(words) is not None
        words = " ".join(_MONEY_WORDS_EN.sub(" ", words).split())
        words = re.sub(r"(?<=\w)\s+(?:is|was|were)\s+in\s+(?=from\b)|(?<=\w)\s+(?:is|was|were|came\s+to|cost)\s+(?=(?:at|from)\b)", " ",
                       words, flags=re.I)  # "rent is in from the lodger", "Gas was at Costco"
        for _ in range(2):
            words = _MONEY_TAIL_EN.sub("", _MONEY_HEAD_EN.sub("", words)).strip()
        words = re.sub(r"\s+(?:as\s+)?(?:an?\s+)?(?:(?:monthly|yearly|recurring)\s+)?(?:expense|income|sub|subscription)$", "",
                       words, flags=re.I)
        words = re.sub(r"^(?:at|on|for|to)\s+(?:the\s+)?", "", words, flags=re.I).strip(" '’")
        words = re.sub(r"\s+of\s+(?=(?:from|for|to|at)\b)", " ", words, flags=re.I)  # "a refund of (500) from …"
        words = re.sub(r"(?:\s+(?:for|at|on|of|to|from))+$", "", words, flags=re.I)  # "… on Facebook Marketplace for (80)"
        if category and words.casefold() != category.casefold():
            kind = re.escape(category)  # "Woolies on groceries", "groceries at Costco": filed under it already
            words = re.sub(rf"\s+(?:on|for|under)\s+{kind}$|^{kind}\s+(?:at|from|in)\s+", "", words, flags=re.I)
        if re.search(r"[A-Za-z]{2,}", words) and len(words.split()) <= 8 and not _MONEY_JUNK_EN.search(words):
            found.append((words, priced))
    if not found:
        return ""
    with_amount = [w for w, p in found if p]
    if with_amount:
        return with_amount[0]
    first = found[0][0]
    later = next((w for w, _ in found[1:] if re.search(r"\s(?:on|at|in)\s|\b[A-Z][a-z]", w)), None) if " " not in first else None
    return later or first


_MONEY_COMMAND_ZH = re.compile(r"(?:帮我|给我|再)?\s*(?:记|计|存)\s*(?:个|一笔|一下|上|下来?|好)?\s*(?:账|帐)?\s*(?:expense|income)?"
                               r"(?:\s*记上)*(?:吧|啊|哈|一哈)?|记成\S*|记在\S*|记到\S*|记为\S*", re.I)
_MONEY_SAID_ZH = re.compile(r"(?:花了|花掉|付了|交了|扣我|扣了|扣|用了|到账了?|收入)?\s*(?:[¥￥$€£]\s*)?"
                            r"(?:\d[\d,]*(?:\.\d+)?\s*(?:万|千|w|k)?|(?<=[花付交扣用])(?:了|掉|我)?[零一二两三四五六七八九十百千万]+|[零一二两三四五六七八九十百千万]{2,})"
                            r"\s*(?:块钱|块(?:\d|[一二两三四五六七八九半])(?:毛|角)?(?![\d零一二两三四五六七八九十])|块|快|元|日元|美元|美金|刀|欧元"
                            r"|英镑|港币|港元)?", re.I)
_MONEY_DAY_ZH = re.compile(r"(?:今天|昨天|前天|刚才|早上|中午|晚上|这个月|上个月|本月|每个月|每月|每年|每周)(?:自动)?")


def _category_said(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A category the words give a new record ("放到家务分类里", "归到医疗用品", "under car
    stuff", "category outdoor gear"), out of the name and the note it was read into. "under"
    is a place where the record has one ("under the bathroom sink")."""
    prop = props.get("category")
    if not prop or "enum" in prop or out.get("category") or not action.startswith(CREATES):
        return
    found = category_said(text)
    if found is None or (re.match(r"[,\s]*under\b", found[1], re.I) and "location" in props):
        return
    out["category"] = found[0]
    said = found[1].strip(" ，,")
    for key, value in list(out.items()):
        if key != "category" and isinstance(value, str) and said and said in value:
            out[key] = value.replace(said, "").strip(" ，,") or value


_RATING_RE = re.compile(r"(?P<n>\d{1,2}(?:\.\d)?)\s*(?:/\s*(?:10|5)\b|out of\s*(?:10|5|ten|five)\b|stars?\b|颗星)"
                        r"|\b(?:give|giving|gave|rate|rated|rating)\s+(?:it|this|that|them)?\s*(?:an?\s+)?(?P<n2>\d{1,2}(?:\.\d)?)\b(?!\s*(?:am|pm|:))"
                        r"|(?:打|给|评)\s*(?:了)?\s*(?P<n3>\d{1,2}(?:\.\d)?|[一二三四五六七八九十])\s*分(?!钟)", re.I)
_NOTE_LEAD = re.compile(r"^(?:因为|由于|because(?:\s+of)?|since|with)\s+(?=\S)|^(?:因为|由于)(?=\S)", re.I)
_NOTE_COMMAND_TAIL = re.compile(r"[，,]\s*(?:log|record|save|note|add|write)\s+(?:it|that|this|my\s+\w+)(?:\s+down)?[.!]?$", re.I)


def note_words(value: str) -> str:
    """A note without the "because" it was said with ("因为下午要答辩", "with some cramps") or
    a command after it (", log my mood")."""
    out = _NOTE_LEAD.sub("", value.strip()) or value
    return _NOTE_COMMAND_TAIL.sub("", out).strip(" ，,") or out


def _rating(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A score said in the words ("I'd give it a 9", "8 out of 10", "7/10", "打8分"): the
    rating, out of the note it was read into."""
    if "rating" not in props or out.get("rating") not in (None, ""):
        return
    m = _RATING_RE.search(text)
    if m is None:
        return
    said = m.group("n") or m.group("n2") or m.group("n3")
    number = parse_number(said)
    top = props["rating"].get("maximum", 10)
    if number is None or not 0 < number <= top:
        return
    out["rating"] = int(number) if float(number).is_integer() else number
    for key in ("note", "notes"):
        value = out.get(key)
        if isinstance(value, str) and m.group(0) in value:
            rest = re.sub(r"^(?:i'd|i would|we'd|i)\s*$", "", value.replace(m.group(0), "").strip(" ，,.。"), flags=re.I)
            if rest.strip(" ，,.。"):
                out[key] = rest.strip(" ，,.。")
            else:
                del out[key]


def _day_and_clock(text: str, out: dict[str, Any]) -> None:
    """"把明天的聚餐改到晚上7点", "move tomorrow's dinner to 7pm": a day said apart from the clock
    time is the start's day, the two one start (no event runs from a bare day to a bare hour)."""
    from homeagent.actions.dates import DateError, parse_when  # (actions read no intent module)

    said = [out.get("start"), out.get("end")]
    if isinstance(said[0], str) and said[1] is None:
        # "4月2号小姨生日宴，在望湖酒店，晚上六点": the hour a clause of its own
        m = re.search(rf"(?:^|[，,；;])\s*(?P<c>{_CLOCK_ZH}|at\s+\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm))\s*(?:[，,。.；;!！]|$)", text, re.I)
        if m is None or m.group("c").strip() in said[0]:
            return
        said[1] = m.group("c").strip()
        out["end"] = said[1]
    start, end = said
    if not (isinstance(start, str) and isinstance(end, str)):
        return
    pair: list[str] = [start, end]
    clock = re.compile(rf"(?:{_CLOCK_ZH})|(?:at\s+)?\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight", re.I)
    clocks = [bool(clock.fullmatch(v.strip())) for v in pair]
    if clocks.count(True) != 1:
        return
    if clocks[1] and re.search(rf"(?:\d|点|半|[ap]\.?m\.?)\s*(?:到|至|~|-|–|\bto|\buntil|\btill)\s*{re.escape(pair[1].strip())}", text, re.I):
        return  # "…from 10 to 11:30": an end said as one
    day = re.sub(r"\s*(?:的|'s|’s)$", "", pair[clocks.index(False)].strip())
    try:
        when = parse_when(day, datetime(2026, 1, 1))  # (only whether it holds a clock time is read)
    except DateError:
        return
    if not when.has_time:
        hour = pair[clocks.index(True)].strip()
        out["start"] = f"{day} {hour}" if day.isascii() else day + hour
        del out["end"]


_EN_HOUR = r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?"
_EN_RANGE_IN_TITLE = re.compile(rf"\s+(?:from\s+)?(?P<a>{_EN_HOUR})\s*(?:to|until|till|-|–)\s*(?P<b>{_EN_HOUR})$", re.I)
_EN_HOUR_IN_TITLE = re.compile(rf"\s+(?:at\s+)?(?P<h>{_EN_HOUR})$", re.I)


def _event_hours_en(text: str, out: dict[str, Any]) -> None:
    """English hours left in an event's title once its day was taken: "haircut 11" (of "move my
    haircut to 11 tomorrow"), "meeting with the bank from 10 to 11:30"; and "book in"'s "in"."""
    title, start = out.get("title"), out.get("start")
    if not isinstance(title, str) or not title.isascii():
        return
    if re.search(r"\bbook\s+in\b", text, re.I):
        title = re.sub(r"^in\s+(?=\S)", "", title, flags=re.I)
    out["title"] = title
    end = out.get("end")
    if not isinstance(start, str) or not start.isascii() or end is not None and not (
            isinstance(end, str) and re.fullmatch(_EN_HOUR, end.strip(), re.I)):
        return
    from homeagent.actions.dates import DateError, parse_when

    try:
        if parse_when(start, datetime(2026, 1, 1)).has_time:
            return
    except DateError:
        return
    day = re.sub(r"^(?:on|at)\s+", "", start.strip(), flags=re.I)
    m = _EN_RANGE_IN_TITLE.search(title) if end is None else re.search(rf"\s+from\s+(?P<h>{_EN_HOUR})$", title, re.I)
    if m and end is not None:  # "…from 10" in the title, "11:30" its end: one day for both
        out["start"], out["end"] = f"{day} at {m.group('h').strip()}", f"{day} at {end.strip()}"
    elif m:
        a, b = (x.strip().replace(".", ":") for x in (m.group("a"), m.group("b")))
        if not re.search(r"[ap]\.?m", a + b, re.I) and int(b.split(":")[0]) < int(a.split(":")[0]):
            b += "pm"  # "from 9 to 5": the end is in the afternoon
        out["start"], out["end"] = f"{day} at {a}", f"{day} at {b}"
    else:
        m = _EN_HOUR_IN_TITLE.search(title) if end is None else None
        if m is None or m.start() == 0:
            return
        out["start"] = f"{day} at {m.group('h').strip().replace('.', ':')}"
    out["title"] = title[: m.start()].strip(" ,")


def _event(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    _day_and_clock(text, out)
    _event_hours_en(text, out)
    title, start = out.get("title"), out.get("start")
    if "end" in props and not out.get("end") and isinstance(start, str) and isinstance(title, str):
        m = _RANGE_ZH.match(title) or _RANGE_EN.match(title)
        if m is None:
            # (the title may be past the range: "…两点到四点开会" with the range cut elsewhere)
            at = text.find(start)
            m = (_RANGE_ZH.match(text[at + len(start):]) or _RANGE_EN.match(text[at + len(start):])) if at >= 0 else None
            cut = False
        else:
            cut = True
        if m is not None:
            end = m.group("end").strip()
            clock = re.search(rf"{_CLOCK_ZH}$|\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm|a\.m\.|p\.m\.)?$", start.strip(), re.I)
            head = start.strip()[: clock.start()] if clock else start.strip() + " "
            if re.fullmatch(r"[\d一二两三四五六七八九十]{1,3}\s*[点點:：].*", end) and clock:
                # "下午两点到四点": the end keeps the start's part of the day
                part = re.match(r"(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上)", clock.group(0))
                head += part.group(0) if part else ""
            if re.fullmatch(r"\d{1,2}(?::\d{2})?", end) and clock and re.search(r"pm|p\.m\.", clock.group(0), re.I):
                end += "pm"
            out["end"] = (head + end).strip()
            if cut:
                out["title"] = title[m.end():].strip(" ，,") or title
    title = out.get("title")
    if "location" in props and isinstance(title, str):
        loc = out.get("location")
        if isinstance(loc, str) and title.strip() == "在" + loc.strip():  # "在公园野餐" whole in both: read again below
            del out["location"]
            loc = None
        if isinstance(loc, str) and loc and loc not in title:
            # "在301会议室开项目评审会" read whole as the place: the place, then what happens there
            m = _PLACE_ZH[0].match("在" + loc)
            if m and m.group("v") and len(m.group("t")) >= 2 and not m.group("before"):
                place, doing = m.group("p"), m.group("t")
            else:
                m = _PLACE_DOING_ZH.match("在" + loc)
                place, doing = (m.group("p"), m.group("t")) if m else ("", "")
            if place and (not title.strip() or _RANGE_ZH.match(title) or title.strip() in loc):
                out["location"], out["title"] = place, doing
            elif place and _COMPANY_ZH.fullmatch(title.strip()):  # "和老同学在海底捞吃饭": with whom, then what
                out["location"], out["title"] = place, title.strip() + doing
            elif (more := _MORE_PLACE_ZH.match(title)) and (loc + more.group("x")) in text:
                # "在公司三楼会议室开项目评审会": the place ran on past its first ending
                out["location"], out["title"] = loc + more.group("x"), more.group("t")
        elif not loc:
            m = _PLACE_ZH[0].match(title) or _PLACE_ZH[1].match(title)
            if m and m.group("t") and len(m.group("t")) >= 2:
                out["location"] = m.group("p")
                out["title"] = (m.group("before").strip(" ，,") + m.group("t")).strip() or title
            elif doing := _PLACE_DOING_ZH.match(title.strip()):  # "在万达看电影"
                out["location"], out["title"] = doing.group("p"), doing.group("t")


# A record's place changed: "家长会地点换成学校礼堂", "change the venue of book club to the library".
_NEW_PLACE_ZH = re.compile(r"^(?:把|将)?(?P<t>[^，,。]+?)(?:的|那个)?(?:地点|地方|位置|场地|会场)(?:也)?(?:改成|换成|改到|换到|挪到|改为|换为|定在|改在)"
                           r"(?P<l>[^，,。！!]+?)(?:了|吧)?[。！!]?$")
_NEW_PLACE_EN = re.compile(r"^(?:please\s+)?(?:change|move|switch|update)\s+(?:the\s+)?(?:location|venue|place)\s+(?:of|for)\s+"
                           r"(?:the\s+|my\s+|our\s+)?(?P<t>.+?)\s+to\s+(?:the\s+)?(?P<l>.+?)[.!]?$", re.I)


# "The book club moved to Maria's place", "parents' evening is in the hall now", "家长会改到学校礼堂":
# a move to a place (a move to a time is the start's).
_MOVED_EN = re.compile(r"^(?:the\s+|our\s+|my\s+)?(?P<t>.+?)\s+(?:(?:has|have|is|was|'s)\s+)?(?:been\s+)?(?:moved|moving|relocated|switched)\s+"
                       r"(?:over\s+)?to\s+(?:the\s+)?(?P<l>.+?)(?:\s+now)?(?:\s*,\s*update it)?[.!]?$"
                       r"|^(?:the\s+|our\s+|my\s+)?(?P<t2>.+?)\s+is\s+(?:in|at)\s+(?P<l2>.+?)\s+now\b.*$", re.I)
_MOVED_ZH = re.compile(rf"^(?:把|将)?(?P<t>[^，,。]+?)(?:的)?(?:也)?(?:改到|换到|挪到|搬到|改在|换在)(?P<l>[{_HAN}A-Za-z0-9]{{2,12}}?)(?:了|吧|去)?[。！!]?$")
# "and change the location to the community hall": the place only, of the record just touched.
_NEW_PLACE_ONLY_EN = re.compile(r"^(?:and\s+|also\s+)?(?:please\s+)?(?:change|move|switch|set|update)\s+(?:the\s+)?(?:location|venue|place)\s+"
                                r"(?:to|as)\s+(?:the\s+)?(?P<l>.+?)[.!]?$", re.I)
_NEW_PLACE_ONLY_ZH = re.compile(r"^(?:再|也|那)?(?:把)?(?:地点|地方|位置|场地)(?:也)?(?:改成|换成|改到|换到|挪到|改为|换为|定在|改在|在)\s*(?P<l>[^，,。！!]+?)(?:了|吧)?[。！!]?$")
_A_TIME = re.compile(r"\d|\b(?:\w+day|tomorrow|tonight|week|month|morning|afternoon|evening|noon|later|earlier)\b"
                     r"|[点號号周天月晚早]|[今明后昨]|上午|下午|中午|凌晨|以后|之后|下次|[一二三四五六七八九十两]", re.I)


def _new_place(text: str, out: dict[str, Any]) -> None:
    m = _NEW_PLACE_ZH.match(text.strip()) or _NEW_PLACE_EN.match(text.strip())
    only = _NEW_PLACE_ONLY_EN.match(text.strip()) or _NEW_PLACE_ONLY_ZH.match(text.strip())
    if m is None and only is not None:
        out["location"] = only.group("l").strip()
        out.pop("title", None)  # the words were the change's: the record is the one just touched
        out.pop("new_title", None)
        return
    if m is None:
        moved = _MOVED_EN.match(text.strip()) or _MOVED_ZH.match(text.strip())
        if moved is None:
            return
        title, place = (moved.group("t"), moved.group("l")) if moved.group("t") else (moved.group("t2"), moved.group("l2"))
        if _A_TIME.search(place) and not re.search(r"\broom\s+\d", place, re.I):
            return
        said_day = out.get("start")
        if isinstance(said_day, str) and said_day and title.startswith(said_day):  # "周五的聚餐": the day looks it up
            title = title[len(said_day):].removeprefix("的")
        out["title"], out["location"] = title.strip(), place.strip()
        out.pop("new_title", None)
        return
    out["title"], out["location"] = m.group("t").strip(), m.group("l").strip()
    out.pop("new_title", None)


# A goal's progress said in a sentence: the total reached ("I'm at 42 km on the running goal",
# "存钱目标现在已经存到2万了"), an amount added ("put another 300 toward the savings goal",
# "读书目标加一本"), or the goal given up ("abandon the Spanish goal", "减肥那个目标放弃吧").
_GOAL_N = rf"(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?|{NUM})\s*(?:[万千]|(?<=\d)[kK](?![a-jl-z])|(?<=\d)[wW](?![a-z]))?"
_GOAL_VERB_ZH = "减了|减到|存到|存了|跑了|跑到|读了|读到|到了|达到|攒了|攒到|是|有"
_GOAL_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("progress", re.compile(rf"\b(?:i'm|i am|we're|we are|now)\s+(?:at|up to)\s+\$?(?P<n>{_GOAL_N})\s*[a-z]*\s+(?:on|for|toward|towards)\s+"
                            r"(?:the|my|our)\s+(?P<t>.+?)\s+goal\b", re.I)),
    ("progress", re.compile(rf"\b(?:i've|i have|we've|we have)\s+(?:saved|run|ran|read|done|lost|cycled|swum)\s+\$?(?P<n>{_GOAL_N})\s*[a-z]*"
                            r"\s+(?:so far\s+)?(?:on|for|toward|towards|of)\s+(?:the|my|our)\s+(?P<t>.+?)\s+goal\b", re.I)),
    ("add", re.compile(rf"\b(?:put|add|log|count)\s+(?:another\s+)?\$?(?P<n>{_GOAL_N}|one|a)\s*(?:more\s+)?[a-z]*\s+(?:to|toward|towards|on|for)\s+"
                       r"(?:the|my|our)\s+(?P<t>.+?)\s+goal\b", re.I)),
    ("add", re.compile(rf"\b(?:ran|run|did|read|saved|cycled|swam|walked)\s+(?P<n>{_GOAL_N})\s*[a-z]*\b.*?\b(?:put|count|add|log)\s+"
                       r"(?:it|that|them)\s+(?:to|toward|towards|on)\s+(?:the|my|our)\s+(?P<t>.+?)\s+goal\b", re.I)),
    # (the goal named with 目标 or without: "攒钱那个现在攒到三千八了", "营业额目标更新一下 目前两万一")
    ("progress", re.compile(rf"^(?P<t>[^，,。\s]{{1,10}}?)(?:的)?(?:那个|这个)?(?:目标)?(?:(?:的)?进度)?(?:更新(?:一)?下)?[，,]?\s*"
                            rf"(?:(?:现在|目前)(?:已经)?(?:一共|总共|累计)?(?:{_GOAL_VERB_ZH})?|(?:已经)?(?:一共|总共|累计)?(?:{_GOAL_VERB_ZH}))"
                            rf"\s*(?P<n>{_GOAL_N})")),
    ("add", re.compile(rf"^(?P<t>[^，,。\s]{{1,10}}?)(?:的)?(?:那个|这个)?目标(?:又|再)?(?:加|存进去|存了|多了|增加)了?\s*(?P<n>{_GOAL_N})")),
    # the goal as "it", right after it was shown: "add 200 to it", "再加200", "又存了500"
    ("add", re.compile(rf"^(?:and\s+|ok\s+|okay\s+)?(?:put|add|log|count)\s+(?:another\s+)?\$?(?P<n>{_GOAL_N}|one|a)\s*(?:more\s+)?[a-z]*"
                       r"\s+(?:to|toward|towards|on)\s+(?:it|that|this)\s*[.!]*$", re.I)),
    ("add", re.compile(rf"^(?:那就|那)?(?:再|又)(?:加|存|存了|加了|多了|攒了)\s*(?P<n>{_GOAL_N})(?:块|元|公里|本|次|个)?[吧。!！]*$")),
)
_GOAL_GIVEN_UP = re.compile(r"\b(?:abandon(?:ing)?|giv(?:e|ing) up on|gave up on|drop(?:ping)?|scrap(?:ping)?)\s+(?:the|my|our)\s+"
                            r"(?P<t>.+?)\s+goal\b|^(?:把)?(?P<tz>[^，,。\s]{1,10}?)(?:的)?(?:那个|这个)?目标(?:就)?(?:放弃|不搞|不要|算了|取消|作废)", re.I)


def _goal_progress(text: str, out: dict[str, Any]) -> None:
    said = text.strip()
    for key, rule in _GOAL_RULES:
        m = rule.search(said)
        said_n = m.group("n").strip() if m else ""
        unit = said_n[-1:] if said_n[-1:] in ("万", "千", "k", "K", "w", "W") else ""
        number = parse_number(re.sub(r"(?<=\d),(?=\d{3})", "", said_n[: len(said_n) - len(unit)]).strip()) if m else None
        if m is None or number is None and said_n.casefold() not in ("one", "a"):
            continue
        value = 1.0 if number is None else number
        # (a 万 or a $…k is thousands; "ran 10k" is ten kilometres)
        value *= 10000 if unit in ("万", "w", "W") else 1000 if unit == "千" or unit and "$" in m.group(0) else 1
        out[key] = int(value) if float(value).is_integer() else value
        out.pop("progress" if key == "add" else "add", None)
        if key == "add" and out.get("status") == "done":
            del out["status"]  # "finished another book, add one": the book is done, not the goal
        if m.groupdict().get("t"):
            out["title"] = m.group("t").strip()
        else:
            out.pop("title", None)  # the goal is the one just shown (`IntentLayer._follow_up`)
        return
    m = _GOAL_GIVEN_UP.search(said)
    if m:
        out["status"], out["title"] = "abandoned", (m.group("t") or m.group("tz")).strip()


def refine(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    out = dict(args)
    if "location" in props and "title" in props and not action.startswith(CREATES):
        _new_place(text, out)
    has_when = any(isinstance(v, str) and "照抄用户的说法" in str(props.get(k, {}).get("description", ""))
                   for k, v in out.items())
    lookup = not action.startswith(CREATES)
    # (an English line may hold typographic dashes and quotes: "idea — turn the spare room…")
    dash = _EN_DASH.match(text.strip()) if re.sub(r"[–—‘’“”]", "", text).isascii() else None
    for key in _NAME_KEYS:
        value = out.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        if re.sub(r"[–—‘’“”]", "", value).isascii() and re.search("[A-Za-z]", value):
            if dash is not None and _EN_DASH_HEAD.search(dash.group("head")) and key in ("content", "habit", "title"):
                # "Jot this down - kids' shoe sizes, …", "Set up a habit - call Mum, once a week"
                rest = dash.group("rest").strip(" .")
                value = rest if key == "content" else re.split(r"\s*,\s*", rest)[0]
            out[key] = en_name_words(value, has_when or lookup, name=key != "content")
            if key == "title" and "kind" in props:  # "wanna see Dune" less its "wanna": the show is Dune
                out[key] = re.sub(r"^(?:see|watch)\s+(?=\S)", "", out[key], flags=re.I) or out[key]
            said_day = re.search(r"\b(?P<day>yesterday|today|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun)day)(?:'s|’s)\s+"
                                 + re.escape(out[key]), text, re.I)
            if said_day and "date" in props and not out.get("date"):  # "Log yesterday's meditation"
                out["date"] = said_day.group("day")
            if key == "item":
                out[key] = _EN_ITEM_TRAIL.sub("", out[key]).strip(" ,") or out[key]
            if key == "medicine":
                out[key] = _EN_MEDICINE_LEAD.sub("", out[key]) or out[key]
        else:
            out[key] = zh_edges(name_words(value, action, props, has_when), key, action, props)
            if has_when:  # "Lisa的wedding在5月1号": the 在 led into the date, taken out
                out[key] = re.sub(r"(?<=\S{2})(?:定在|定于|在|于|是)$", "", out[key])
    for key in ("query", "person"):  # not names to trim as the others; only their command words
        if isinstance(out.get(key), str) and out[key].strip():
            out[key] = zh_edges(out[key], key, action, props)
    _zh_more(text, action, props, out)
    _en_more(props, out)
    _en_count(text, props, out)
    _book(text, props, out)
    _body(text, props, out)
    _note_said_en(text, props, out)
    # What came back, said in the past ("Tom returned the drill", "小刘的200块钱我还了"); a
    # promise to give it back is no return.
    if "returned" in props and "returned" not in out and _RETURNED_RE.search(text):
        out["returned"] = True
    if "repayment" in props and "repayment" not in out and _REPAID_RE.search(text):
        out["repayment"] = True
    back = out.get("returned") is True or out.get("repayment") is True
    if back and "date" in props and not out.get("date") and isinstance(out.get("due"), str) and _DONE_DAY_RE.fullmatch(out["due"].strip()):
        out["date"] = out.pop("due")  # "Tom returned the ladder yesterday": the day it came back, not a due day
    if "hours" in props and out.get("hours") in (None, ""):  # "眯了4个钟", "睡了四个钟": hours
        m = re.search(rf"(?P<n>{NUM})\s*个\s*(?P<half>半)?\s*钟(?!点|头)", text)
        number = parse_number(m.group("n")) if m else None
        if m and number is not None:
            hours = number + (0.5 if m.group("half") else 0)
            out["hours"] = int(hours) if float(hours).is_integer() else hours
    if "frequency" in props and "weekly" in props["frequency"].get("enum", []) and re.search(rf"(?:一|每)(?:周|星期|礼拜)\s*{NUM}\s*次", text):
        out["frequency"] = "weekly"  # "一周三次"
        for key in ("remind_at", "time"):
            if isinstance(out.get(key), str) and re.fullmatch(r"(?:周|星期|礼拜)[一二三四五六日天]", out[key]):
                del out[key]  # (the 周三 of 一周三次 is no day)
    if isinstance(out.get("food"), str) and ("meal" in props):
        out["food"] = _MEAL_ZH.sub("", out["food"]) or out["food"]
        out["food"] = _MEAL_EN.sub("", out["food"]) or out["food"]
        out["food"] = _ALSO_TAIL_ZH.sub("", out["food"]) or out["food"]  # "饺子也补上"
        if re.search(_FOOD_COUNT_ZH, out["food"]):  # several foods, each counted: the first keeps its count too
            counted = re.search(rf"{_FOOD_COUNT_ZH}\s*{re.escape(out['food'])}", text)
            out["food"] = counted.group(0) if counted else out["food"]
        when = _MEAL_TIME_ZH.search(text) if not out.get("meal") else None
        if when is not None:  # "昨天中午吃的牛肉面": lunch
            out["meal"] = next(meal for meal, said in when.groupdict().items() if said)
    _money(text, action, props, out)
    _category_said(text, action, props, out)
    _rating(text, props, out)
    if "start" in props:
        _event(text, props, out)
    if "add" in props and "progress" in props:
        _goal_progress(text, out)
    record_words(text, action, props, out)
    if lookup and (disposed := _DISPOSED_ZH.search(text)):
        # "快递取回来了，把取快递那条勾掉吧": the record is the one the 把 clause points at
        named = next((k for k in ("content", "title", "item", "habit") if k in props and isinstance(out.get(k), str)), None)
        if named is not None:
            out[named] = zh_edges(re.sub(r"(?<=\S{2})的$", "", disposed.group("x").strip()), named, action, props) or out[named]
    if not action.startswith(CREATES):
        changes(text, action, props, out)
    if "mode" in props and "reason" in props and not out.get("reason"):
        _mode_reason(text, out)
    for key in _NAME_KEYS:  # (a dream or a diary is told in sentences: "an exam I hadn't revised for")
        if isinstance(out.get(key), str) and out[key].isascii() and not (key == "content" and action in PROSE_ACTIONS):
            out[key] = _edge_words(out[key].strip(), name=key not in ("content", "note"))
    return out


_MODE_CLAUSE = re.compile(r"模式|\bmode\b", re.I)
_REASON_LEAD = re.compile(r"^(?:(?:we're|we are|i'm|i am|because|since|as|cos|'cause)\s+|因为|我们|咱们|一会儿?|马上)", re.I)


def _mode_reason(text: str, out: dict[str, Any]) -> None:
    """Why the house changes mode, said beside the switch: "家里来客人了，切成访客模式" →
    家里来客人了; "we're off on holiday, switch to away mode" → off on holiday."""
    clauses = [c.strip() for c in re.split(r"\s*(?:[，,;；。]|\s[–—-]\s)\s*", text.strip()) if c.strip()]
    if len(clauses) < 2 or sum(bool(_MODE_CLAUSE.search(c)) for c in clauses) != 1:
        return
    said = [c for c in clauses if not _MODE_CLAUSE.search(c)]
    reason = "，".join(said) if re.search(f"[{_HAN}]", "".join(said)) else ", ".join(said)
    reason = _REASON_LEAD.sub("", reason.strip(" .!！。")).strip()
    if reason and len(reason) <= 60:
        out["reason"] = reason


def _zh_more(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """Slot-specific words around a Chinese name: a task's 把 clause is whole ("把车开去年检"),
    "把X加进去" adds X, a pet's kind before its name, a person before what they did."""
    content = out.get("content")
    if isinstance(content, str) and "due" in props and action.startswith("create_") and not content.startswith("把") \
            and ("把" + content) in text and len(content) >= 3 \
            and not INTO_LIST_RE.match(text[text.index("把" + content) + len(content) + 1:].lstrip()):  # (not "把X记到待办里")
        out["content"] = "把" + content
    if isinstance(content, str) and re.search(f"[{_HAN}]", content):
        parts = re.split(r"[，,]", content, maxsplit=1)
        if len(parts) == 2 and parts[1].strip() and command_clause(parts[0]):  # "记下来，阳台改成小书房"
            out["content"] = parts[1].strip()
    item = out.get("item")
    if isinstance(item, str) and action.startswith(("add_", "create_")):
        m = _PUT_IN_ZH.search(text)
        if m and (m.group("x") not in item or (item.startswith(m.group("x")) and len(item) - len(m.group("x")) <= 2)):
            out["item"] = re.sub(r"^(?:这个|那个|这件|那件|这款|那款)(?=\S{2})", "", m.group("x"))
        if out.get("location") and re.search(r"(?<=\S{2})(?:放|搁|收)$", str(out["item"])):
            out["item"] = str(out["item"])[:-1].strip(" ，,")
    pet = out.get("pet")
    if isinstance(pet, str) and re.search(f"[{_HAN}]", pet):
        pet = pet.split()[0] if " " in pet.strip() else pet
        out["pet"] = _PET_KIND_ZH.sub("", pet) or pet
    plant = out.get("plant")
    if isinstance(plant, str) and re.search(f"[{_HAN}]", plant):  # "窗台的绿萝": where it stands is not its name
        plant = plant.split()[0] if " " in plant.strip() else plant
        out["plant"] = re.sub(r"^(?:阳台|窗台|客厅|卧室|书房|院子|门口|楼下|办公室|桌上|桌子上)(?:上)?的(?=\S{2})", "", plant) or plant
    person = out.get("person")
    if isinstance(person, str) and re.search(f"[{_HAN}]", person):
        person = person.split()[0] if " " in person.strip() else person
        out["person"] = _PERSON_TAIL_ZH.sub("", person) or person
    amount = out.get("amount")
    if isinstance(amount, str) and out.get("currency"):
        m = re.fullmatch(r"\s*(?P<n>\d+(?:\.\d+)?)\s*(?:日元|円|美元|美金|刀|欧元|英镑|港币|港元|yen|dollars?|bucks?|euros?|pounds?)\s*",
                         amount, re.I)
        if m:  # the currency is its own slot: "8000日元" is 8000 in JPY
            number = float(m.group("n"))
            out["amount"] = int(number) if number.is_integer() else number


# The words before an author's name that are no name ("书单里加一本刘慈欣的…", "我在读余华的…"),
# and what an author's name never holds ("《三体》我想读", "给女儿睡前读的").
_BOOK_LEAD_ZH = re.compile(r"^.*(?:读|看|本|加|在|了|是|把|买|借|送|听|有|：|:)")
_NOT_AN_AUTHOR_ZH = re.compile(r"[我你他她给读看想了完在把加放记]")


def _book(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A book's author said beside its title: "《三体》，刘慈欣的", "Project Hail Mary by Andy Weir"."""
    title = out.get("title")
    if "author" not in props or out.get("author") or not isinstance(title, str):
        return
    m = re.search(r"(?P<a>[\u4e00-\u9fff·]{2,12})(?:的|写的|著的?)《(?P<t>[^》]+)》", text)  # "在读余华的《活着》"
    if m:
        author = _BOOK_LEAD_ZH.sub("", m.group("a"))
        if 2 <= len(author) <= 6:
            out["title"], out["author"] = m.group("t").strip(), author
            return
    m = re.search(r"《(?P<t>[^》]+)》\s*[，,]?\s*(?P<by>作者(?:是)?)?(?P<a>[\u4e00-\u9fff·]{2,6}?)(?P<of>的|写的|著)?(?:[，,。]|$)",
                  text)
    if m and (m.group("by") or m.group("of")) and not _NOT_AN_AUTHOR_ZH.search(m.group("a")):  # "《三体》，刘慈欣的"
        out["title"], out["author"] = m.group("t").strip(), m.group("a").strip()
        return
    m = re.match(r"^(?P<t>.+?)\s+by\s+(?P<a>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3})\b", title)
    if m is None:
        m = re.search(rf"{re.escape(title)}\s+by\s+(?P<a>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){{0,3}})", text)
        if m:
            out["author"] = m.group("a").strip()
        return
    out["title"], out["author"] = m.group("t").strip(), m.group("a").strip()


def _en_more(props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A mood said in a sentence ("felt calm after the walk"), a person said with who they are
    ("my sister Amy") or with what they did ("Kate the 60 she owed")."""
    mood = out.get("mood")
    if isinstance(mood, str) and mood.isascii() and " " in mood.strip():
        value = _EN_MOOD_LEAD.sub("", mood.strip())
        parts = re.split(r"\s+(?=(?:after|about|because|since|when|with|at|from|today|this|but|and)\b)|[,.;]\s*", value, maxsplit=1,
                         flags=re.I)
        out["mood"] = parts[0].strip() or mood
        if len(parts) == 2 and parts[1].strip() and "note" in props and not out.get("note"):
            # (the registry's own reading: "anxious about the exam" is the mood anxious, the note the exam)
            out["note"] = re.sub(r"^(?:about|because(?: of)?|since|over)\s+", "", parts[1].strip(), flags=re.I)
    person = out.get("person")
    if isinstance(person, str) and person.isascii() and "direction" in props:
        value = _EN_RELATION.sub("", _EN_RECORD_THAT.sub("", person.strip()))
        m = re.match(r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?", value)
        if m and m.end() < len(value) and re.search(r"\b(?:the|she|he|they|owed|owes|paying|back)\b|,", value[m.end():]):
            value = m.group(0)  # "Kate the she owed", "Priya, paying her back": the name
        out["person"] = value.strip() or person
    if isinstance(out.get("person"), str) and out["person"].isascii():  # "Lily was born 2015-08-21"
        out["person"] = re.sub(r"\s+(?:was|is|were)\s+born\b.*$", "", out["person"]).strip() or out["person"]
    item = out.get("item")
    if isinstance(item, str) and item.isascii():  # "toilet paper, the big pack": what it is, not which
        out["item"] = re.sub(r",\s*(?:the|a|an)\s+[\w -]+$", "", item).strip() or item


_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
               "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a dozen": 12, "dozen": 12, "a couple of": 2, "a couple": 2,
               "couple of": 2}
_EN_UNIT = (r"tins?|cans?|bottles?|cartons?|packs?|packets?|bags?|boxes?|jars?|loaves|loaf|bunch(?:es)?|rolls?|kg|kilos?|g|grams?"
            r"|lbs?|pounds?|litres?|liters?|l|ml|pairs?|sets?|pieces?|heads?|bars?|tubs?|punnets?|blocks?|sticks?|tubes?|sachets?|crates?")
_EN_COUNTED = re.compile(rf"^(?P<n>\d+|a dozen|a couple(?: of)?|couple of|dozen|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
                         rf"(?:(?P<u>{_EN_UNIT})\s+(?:of\s+)?)?(?P<item>[A-Za-z].*)$", re.I)


def _numeric(prop: Mapping[str, Any]) -> bool:
    kind = prop.get("type")
    return kind in ("number", "integer") or (isinstance(kind, list) and ("number" in kind or "integer" in kind))


def _en_count(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """How many, said before an English item: "two tins of chopped tomatoes" is chopped tomatoes,
    2 tins; "12 AA batteries" 12 of AA batteries; "one KitKat" eaten is a KitKat."""
    item = out.get("item")
    if isinstance(item, str) and item.isascii() and "quantity" in props and (m := _EN_COUNTED.match(item.strip())):
        n = int(m.group("n")) if m.group("n").isdigit() else _EN_NUMBERS[m.group("n").casefold()]
        unit = m.group("u") or ""
        said = out.get("quantity")
        if _numeric(props["quantity"]):
            if not isinstance(said, int | float) or isinstance(said, bool):
                out["quantity"] = n
                if unit and "unit" in props:
                    out["unit"] = unit
        elif not said or not re.search(r"\d", str(said)):
            out["quantity"] = f"{n} {unit}".strip()
        out["item"] = m.group("item").strip()
    if isinstance(out.get("quantity"), str) and out["quantity"].isascii():  # "2 cartons of" (milk)
        out["quantity"] = re.sub(r"\s+of$", "", out["quantity"].strip()) or out["quantity"]
        if "quantity" in props and _numeric(props["quantity"]) and not re.fullmatch(r"\d+(?:\.\d+)?", out["quantity"]):
            # "Log that we've got 3 bottles of olive oil": a template split the words, not the count
            item_said = re.escape(str(out.get("item", "")).strip())
            m = re.search(rf"\b(?P<n>\d+)\s+(?:(?P<u>{_EN_UNIT})\s+(?:of\s+)?)?{item_said}", text, re.I) if item_said else None
            if m:
                out["quantity"] = int(m.group("n"))
                if m.group("u") and "unit" in props:
                    out["unit"] = m.group("u")
                elif "unit" in props and isinstance(out.get("unit"), str) and re.search(r"\d", out["unit"]):
                    del out["unit"]
    food = out.get("food")
    if isinstance(food, str) and food.isascii():
        out["food"] = re.sub(r"^(?:one|an?)\s+(?=[A-Za-z])", "", food.strip(), flags=re.I) or food


_HEIGHT_RE = re.compile(r"(?:身高|个子|height|tall)\D{0,12}?(?P<n>\d{2,3}(?:\.\d+)?)\s*(?:cm|厘米|公分)"
                        r"|(?P<n2>\d{2,3}(?:\.\d+)?)\s*(?:cm|厘米|公分)\s*(?:tall|高)", re.I)
_FAT_RE = re.compile(r"(?:体脂率?|body fat)\D{0,16}?(?P<n>\d{1,2}(?:\.\d+)?)\s*(?:%|percent|个点)?", re.I)


_WEIGHT_EN = re.compile(r"\bweight\s*(?:is|was|of|:)?\s*(?P<n>\d{2,3}(?:\.\d+)?)\s*(?:kg|kilos?|kilograms?)?\b", re.I)
# "…, note it's after the holiday", "create a countdown and note that we should book": the note said.
_NOTE_SAID_EN = re.compile(r"(?:^|[,;.]\s*|\s+and\s+)(?:please\s+)?(?:add\s+a\s+)?note(?:\s+(?:that|it's|it is|down that|down))?\s*[:-]?\s*"
                           r"(?P<n>[^,;]{3,}?)\s*[.!]?$", re.I)


def _note_said_en(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    if "note" not in props or not text.isascii() or (m := _NOTE_SAID_EN.search(text)) is None:
        return
    note = out.get("note")
    if not note or (isinstance(note, str) and (m.group("n").strip() in note or re.match(r"(?:create|set up|add|make)\b", note, re.I))):
        out["note"] = m.group("n").strip()


def _body(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A height and a body fat said among body measurements are their own slots, not a weight;
    a weight said by name among them ("Waist 84 cm, weight 80.2") is the weight."""
    if "weight_kg" in props and out.get("weight_kg") in (None, "") and (w := _WEIGHT_EN.search(text)):
        out["weight_kg"] = float(w.group("n")) if "." in w.group("n") else int(w.group("n"))
        if isinstance(out.get("note"), str) and out["note"].strip().casefold() == w.group(0).strip().casefold():
            del out["note"]
    for key, rx in (("height_cm", _HEIGHT_RE), ("body_fat", _FAT_RE)):
        said = out.get(key)
        if key not in props or isinstance(said, int | float) or (isinstance(said, str) and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", said)):
            continue  # (a template's words around the number, "is 25 percent this week", are read again)
        m = rx.search(text)
        if m is None:
            continue
        raw = m.group("n") or m.groupdict().get("n2") or ""
        number = float(raw)
        out[key] = int(number) if number.is_integer() else number
        weight = out.get("weight_kg")
        if weight is not None and str(weight).strip() in (raw, m.group(0).strip()):
            del out["weight_kg"]  # (the number was read as the weight first)
