"""What is said beside a record's name: its tags, what money went on, and a trailing clause
about it ("猫砂，要豆腐砂那种", "布洛芬一片，牙疼", "Could you add nappies, size 4, to the
shopping?").

The name slots hold a short name; a clause after it that no other slot took is still the
household's words about that record, so it is kept in the record's note rather than lost or
glued to the name. Nothing here invents words: every value is cut from the utterance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from homeagent.intent.slots import command_clause, split_items
from homeagent.text import has_han

_HAN = r"\u4e00-\u9fff"

# "，标签家里", "标签 孩子爱吃", ", tag it admin", "tagged gifts", "tag: school": at the end.
TAGS_RE = re.compile(
    r"(?:^|[，,；;。]\s*|\s+)(?:(?:打|加|贴)?(?:个|上)?标签(?:是|为|设为|写|打上|加上|贴上|打个|加个|打|加)?|tag(?:ged)?\s+(?:it|this|that|them)(?:\s+(?:as|with))?"
    r"|tagged(?:\s+(?:as|with))?|tags?\s*[:：]|(?<=[,，])\s*tag)\s*[:：]?\s*(?P<t>[^，,。.；;!?！？]{1,40}?)\s*[。.!！]?$", re.I)
_TAG_SPLIT_RE = re.compile(r"\s*(?:、|/|和|及|，|,|\band\b|&)\s*", re.I)

# The name slots a trailing clause can run into, by the actions that keep a note.
_NAME_KEYS = ("item", "mood", "medicine", "habit", "place", "plant", "pet", "food", "person", "title", "dish",
              "reason", "date")
_CLAUSE_RE = re.compile(r"\s*(?:[，,；;]|\s[-–—]\s|(?<=[^\d])\.\s)\s*")
_NOT_A_NOTE_RE = re.compile(
    r"^(?:记(?:一下|下来?|上|着)|帮我记|存(?:一下|起来)|别忘了?|谢谢|thanks|thank you|please|pls|ok|okay|"
    r"write (?:it|that) down|log (?:it|that)|note (?:it|that)|can you log (?:it|that)|save (?:it|that))\b", re.I)
_CMD_END_RE = re.compile(r"[，,\s]*(?:帮我|给我|你)?(?:记(?:一下|下来?|上|着)?|存(?:一下|起来)?)(?:吧|啊|哦)?$|"
                         r"[,\s]*(?:(?:can|could) you\s+)?(?:write (?:it|that) down|log (?:it|that)|note (?:it|that)(?: down)?)"
                         r"(?:,?\s*please)?$", re.I)


_TAG_FIRST_EN = re.compile(r"\s*\b(?:with\s+)?(?:the\s+|a\s+)?tag(?:ged)?\s+(?:as\s+|with\s+)?[\"'“#]?(?P<t>[\w -]{1,20}?)[\"'”]?\s*[:：]\s*"
                           r"(?P<c>\S.*)$", re.I)
_TAG_MID_ZH = re.compile(r"(?:^|[，,])\s*(?:打个|加个|打上)?标签(?:就)?(?:是|为|写|叫|打)?\s*[“\"「#]?(?P<t>[^”\"」：:，,。]{1,10}?)[”\"」]?\s*(?=[，,])")
_TAG_FIRST_ZH = re.compile(r"[，,\s]*(?:打个|加个)?标签(?:是|为)?\s*[“\"「#]?(?P<t>[^”\"」：:，,]{1,10})[”\"」]?\s*[：:]\s*(?P<c>\S.*)$")


def take_tags(text: str, props: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The tags said at the end ("标签家里", "tag it admin") and the text without them."""
    if "tags" not in props:
        return text, []
    mid = _TAG_MID_ZH.search(text)
    if mid is not None:  # "记个灵感，标签视频，拍一期…": the tag said as a clause of its own, mid-line
        return (text[: mid.start()] + text[mid.end():]).strip(" ，,"), [
            t for t in _TAG_SPLIT_RE.split(mid.group("t").strip()) if t]
    first = _TAG_FIRST_ZH.search(text) or _TAG_FIRST_EN.search(text)
    if first is not None:
        # "记个灵感，标签“创业”：社区团购水果", "save this idea with the tag garden: grow…": the
        # tag said before the words, which follow a colon (or lead them, the command taken off).
        head = text[: first.start()].rstrip(" ，,；;")
        return (head + "：" if head else "") + first.group("c").strip(), [first.group("t").strip()]
    m = TAGS_RE.search(text)
    if m is None or m.start() == 0:
        return text, []
    tags = [t.strip(" '\"“”") for t in _TAG_SPLIT_RE.split(m.group("t").strip()) if t.strip(" '\"“”")]
    if not tags or any(len(t) > (24 if t.isascii() else 10) for t in tags):
        return text, []
    return text[: m.start()].rstrip(" ，,；;"), tags


def clause_note(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A clause after the record's name that no slot holds becomes the note: cut off a name
    that swallowed it ("猫砂，要豆腐砂那种"), or taken from the utterance ("布洛芬一片，牙疼")."""
    note_key = next((k for k in ("note", "notes") if k in props), None)
    if note_key is None or args.get(note_key):
        return args
    out = dict(args)
    for key in _NAME_KEYS:
        value = out.get(key)
        if key not in props or not isinstance(value, str) or not value.strip():
            continue
        head, *rest = _CLAUSE_RE.split(value.strip(), maxsplit=1)
        if rest and key == "item" and _more_items(rest[0]):
            continue  # "milk, eggs and bread": more items, each its own
        if rest and len(head) >= 2 and _noteworthy(rest[0], out, key):
            said = text.find(rest[0])  # the clause as said (a name's tidying may have cut its end)
            clause = re.split(r"[，,；;。.!！?？]", text[said:])[0] if said >= 0 else rest[0]
            out[key], out[note_key] = head.strip(), _tidy_note(clause if rest[0] in clause else rest[0])
            return out
    clauses = [c for c in _CLAUSE_RE.split(text.strip()) if c.strip()]
    if len(clauses) < 2:
        return out
    last = clauses[-1]
    if "item" in out and _more_items(last):
        return out
    if _noteworthy(last, out, None) and not any(_overlaps(last, v) or _said_within(text, last, v) for v in out.values()):
        out[note_key] = _tidy_note(last)
    return out


def _said_within(text: str, clause: str, value: Any) -> bool:
    """Whether a slot's value was cut from where the clause stands in the text."""
    if not isinstance(value, str) or not value.strip():
        return False
    start, at = text.rfind(clause), text.find(value.strip().split(",")[0].split("，")[0])
    end = at + len(value.strip())
    return start >= 0 and at >= 0 and at < start + len(clause) and start < end


_ABOUT_ONE_RE = re.compile(r"\d|的|要|那种|那个|这种|牌子|款|号|不|没|还|以后|之前|先|再|别|急|用|给|在|了|size|\bones?\b|\bfor\b|\bwith\b|\bkind\b|\btype\b|\bbrand\b"
                           r"|\bonly\b|\bnot\b", re.I)


def _more_items(rest: str) -> bool:
    """Whether what follows an item's comma names more items rather than saying which one."""
    rest = re.sub(r"\s+(?:on|to|onto|in|into)\s+(?:the|my|our)\s+(?:[\w-]+\s+)?(?:list|shopping|basket)\b.*$", "", rest,
                  flags=re.I)
    rest = re.sub(r"^(?:还有|另外|以及|再加|和|跟|and|also|plus)\s*", "", rest.strip(), flags=re.I)
    parts = split_items(rest)
    return not _ABOUT_ONE_RE.search(rest) and all(
        (len(p.split()) <= 3 if p.isascii() else len(p) <= 6) for p in parts if p)


def _noteworthy(clause: str, args: Mapping[str, Any], key: str | None) -> bool:
    clause = _tidy_note(clause)
    if len(clause) < 2 or _NOT_A_NOTE_RE.match(clause) or command_clause(clause):
        return False
    if re.fullmatch(r"[\d\s.,/:%￥¥$£€]+|\d+\s*(?:分|/\d+)|\d+(?:\.\d+)?\s*[A-Za-z\u4e00-\u9fff℃°]{0,6}", clause):
        return False  # a bare number or a measure is a score, an amount, a reading
    return not any(k != key and _overlaps(clause, v) for k, v in args.items())


def _overlaps(clause: str, value: Any) -> bool:
    if isinstance(value, list):
        return any(_overlaps(clause, v) for v in value)
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        return False
    said = str(value).strip()
    return bool(said) and (said in clause or (len(clause) >= 2 and clause in said))


def _tidy_note(clause: str) -> str:
    clause = clause.strip(" ，,。.；;!！—–-")  # ("… — got the promotion": the dash led into it)
    clause = re.sub(r"^(?:it's|it is|she's|she is|he's|he is|they're|that's)\s+(?=\S)", "", clause, flags=re.I)
    return _CMD_END_RE.sub("", clause).strip(" ，,。.；;") or clause


_DOSE_RE = re.compile(r"^\d+(?:\.\d+)?\s*(?:mg|mcg|ml|g|iu|片|粒|颗|毫克|毫升|puffs?|tablets?|pills?)$", re.I)
# Whose reading or medicine it is, when it is not the speaker's: "Lily's height", "Dad had
# his statin", "给儿子量了身高". The note keeps it (the records have no person of their own).
_WHOSE_EN_RE = re.compile(r"^(?i:(?:please\s+)?(?:record|log|note|save|write down)\s+(?:that\s+)?)?(?P<p>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
                          r"(?:'s|’s|\s+(?:took|had|has|is|was|weighs|measured))\s")
_NOT_WHOSE = frozenset({"I", "My", "We", "Our", "Record", "Log", "Note", "Save", "Please", "Just", "Today", "Yesterday",
                        "This", "That", "It", "The", "Took", "Had", "Blood", "Resting", "Morning", "Evening"})
# (a child's pet name said twice, 乐乐, 豆豆, is a person too; 天天, 刚刚 are no one)
_WHOSE_ZH_RE = re.compile(r"(?:^|给|帮)(?P<p>儿子|女儿|闺女|孩子|宝宝|老公|老婆|爸爸|妈妈|老爸|老妈|爷爷|奶奶|外公|外婆|姥姥|姥爷|老大|老二"
                          r"|(?!天天|常常|刚刚|慢慢|好好|早早|偷偷|渐渐|往往|统统|每每|稍稍|多多|平平|明明)(?P<r>[\u4e00-\u9fff])(?P=r))"
                          r"(?=量|测|称|吃|喝|服|用|去|打|喂|发烧|发热|咳嗽|的|今天|刚|早上|晚上|体温|血压|身高|体重)")
_CONTEXT_RE = re.compile(r"空腹|饭后|餐后|饭前|睡前|运动后|起床后|\b(?:after|before)\s+(?:dinner|lunch|breakfast|a meal|meals|"
                         r"exercise|my run|the gym|bed|waking up)\b|\bfasting\b", re.I)
_FOR_AILMENT_RE = re.compile(r"\bfor\s+(?:a|an|my|the|his|her|their)?\s*(?P<n>[a-z][a-z' -]{2,30}?)\s*$", re.I)
_WHOSE_ACTIONS = ("record_body", "record_health", "record_medicine", "record_medical")


def whose_note(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A reading's or a medicine's person and circumstance ("Ella's temperature", "空腹",
    "for a headache") into the note; a dose said after a comma into the dose."""
    if action not in _WHOSE_ACTIONS or "note" not in props:
        return args
    out = dict(args)
    last = _CLAUSE_RE.split(text.strip())[-1].strip(" 。.!！")
    if _DOSE_RE.match(last) and "dose" in props and not out.get("dose"):  # "…at 6 this morning, 3mg"
        out["dose"] = last
    if out.get("note"):
        return out
    m = _WHOSE_EN_RE.match(text.strip())
    person = m.group("p") if m is not None and m.group("p").split()[0] not in _NOT_WHOSE else None
    if person is None and (z := _WHOSE_ZH_RE.search(text)) is not None:
        person = z.group("p")
    said = [person] if person else []
    context = _CONTEXT_RE.search(text)
    if context is not None:
        said.append(context.group(0))
    ailment = _FOR_AILMENT_RE.search(text) if action == "record_medicine" else None
    if ailment is not None:
        said.append(ailment.group("n"))
    if person:
        for key in ("medicine", "reason"):  # "Grandad his warfarin": the medicine
            if isinstance(out.get(key), str):
                out[key] = re.sub(rf"^{re.escape(person)}\s*(?:his|her|their|的)?\s*", "", out[key]).strip() or out[key]
        dose = re.match(r"(?P<d>\d+(?:\.\d+)?\s*(?:mg|mcg|ml|g|iu))\s+(?=\S)", str(out.get("medicine", "")), re.I)
        if dose is not None and "dose" in props and not out.get("dose"):
            out["dose"], out["medicine"] = dose.group("d"), out["medicine"][dose.end():]
    if said:
        out["note"] = "，".join(said) if re.search(rf"[{_HAN}]", text) else ", ".join(said)
    return out


# What money went on: the words before "花了 35" or after "on"/"for" ("spent £12 on lunch").
_SPENT_ZH_RE = re.compile(rf"^(?P<w>[{_HAN}A-Za-z][{_HAN}A-Za-z0-9 ]{{0,20}}?)\s*(?:又|一共|总共|共)?\s*"
                          r"(?:花了|花掉了?|用了|付了|交了|扣了?|充了|消费了?|买了)?\s*(?:[¥￥$£€]\s*)?\d")
_FOR_EN_RE = re.compile(r"\b(?:on|for|from)\s+(?P<w>[^,.;!?]{2,40}?)(?=\s*(?:$|[,.;!?]|\b(?:today|yesterday|tonight|this|last|"
                        r"with|at|from|on|for|by|every|each|a month|per)\b))", re.I)
_MONEY_LEAD_RE = re.compile(r"^(?:(?:记账|记一笔|记笔账|记个账|帮我记|记一下|收入|支出|花销|账)[：:\s，,]*)+|"
                            r"^(?:今天|昨天|前天|刚刚?|刚才|上午|中午|下午|晚上|早上)\s*(?:的)?|^在\s*(?=\S{2})")
_MONEY_TAIL_RE = re.compile(r"(?:的钱|钱|费用|的)$|\s+(?:expense|charge|payment|bill)$", re.I)
_SPENT_VERB_RE = re.compile(r"(?:又|一共|总共|共)?(?:花了|花掉了?|用了|付了|交了|扣了?|充了|消费了?|买了|花)")
_NOT_WHAT_RE = re.compile(r"^(?:i|we|it|that|this|the|a|an|my|me|log|record|spent|paid|add|put|got|just)$|^\d", re.I)


def money_note(text: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """What the money was for, into the note ("午饭花了35块" → 午饭, "Log a $45 expense for
    gas" → gas), when no note holds it already: a category named by it keeps it too ("spent
    $42.50 on groceries": groceries, filed under groceries)."""
    note_key = "note" if "note" in props else None
    if note_key is None or args.get(note_key) or "amount" not in props:
        return args
    what = _spent_on(text)
    if what is None or any(isinstance(v, str) and v and what in v for k, v in args.items() if k not in (note_key, "category")):
        return args
    return {**args, note_key: what}


def _spent_on(text: str) -> str | None:
    text = text.strip()
    m = _FOR_EN_RE.search(text) if text.isascii() or re.search(r"\b(?:on|for)\s", text) else None
    if m is not None:
        what = re.sub(r"^(?:the|a|an|my|our|some)\s+", "", m.group("w").strip(), flags=re.I)
        what = re.sub(r"\s+(?:as a subscription|a month|per month|monthly)$", "", what, flags=re.I)
        if what and not _NOT_WHAT_RE.match(what) and not re.search(r"\d", what):
            return what
    if re.search(rf"[{_HAN}]", text):
        for _ in range(3):
            text = _MONEY_LEAD_RE.sub("", text).strip(" ，,")
        m = _SPENT_ZH_RE.match(text)
        if m is not None:
            what = _MONEY_TAIL_RE.sub("", m.group("w").strip())
            what = re.sub(r"(?:每个?月|每年|每周)(?:自动)?$|^给\S{1,3}?(?=交|买|付)", "", what).strip()
            what = re.sub(r"^(?:交了|买了|付了|充了)", "", what).strip()
            if len(what) >= 2 and not _NOT_WHAT_RE.match(what) and not _SPENT_VERB_RE.fullmatch(what):
                return what
    return None


# Who someone is to the household, said before the name: "表姐李娟", "cousin Aaron",
# "孩子的班主任周老师", "our new neighbour Helen". Kin words that are names of their own
# ("老公", "王叔", "陈姐") are left whole.
_REL_ZH = (r"同事|同学|老同学|朋友|好友|邻居|表姐|表妹|表哥|表弟|堂姐|堂妹|堂哥|堂弟|老师|班主任|医生|大夫|师傅|领导|老板|客户|室友|闺蜜|"
           r"发小|老乡|亲戚|保姆|阿姨|司机|房东|中介|律师|教练")
_RELATION_ZH_RE = re.compile(rf"^(?P<rel>(?:[{_HAN}]{{1,4}}的)?(?:新)?(?:{_REL_ZH}))(?P<name>[{_HAN}]{{2,4}}|[A-Za-z][A-Za-z ]{{1,20}})$")
_REL_EN = (r"cousin|neighbou?r|friend|colleague|co-?worker|boss|teacher|doctor|dentist|plumber|electrician|builder|sister|"
           r"brother|aunt|auntie|uncle|nephew|niece|landlord|landlady|babysitter|nanny|flatmate|roommate|coach|tutor|"
           r"childminder|vet|mechanic|cleaner|gardener")
_RELATION_EN_RE = re.compile(rf"^(?:(?:my|our)\s+)?(?:new\s+)?(?P<rel>(?:{_REL_EN}))\s+(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)$",
                             re.I)
_PERSON_LEAD_RE = re.compile(r"^(?:(?:please\s+)?(?:add|save|put|record|log|create|remember)\s+|new contact\s*[-–—:]?\s*)+", re.I)
_ABOUT_RE = re.compile(rf"(?:存|记|加|添加|保存)\S{{0,3}}?(?:新)?(?P<rel>{_REL_ZH})的(?:信息|资料|联系方式|电话)")
_BIRTHDAY_SAID_RE = re.compile(r"^(?:生日(?:是|为)?|birthday(?:\s+is)?|b-?day)\s*[:：]?\s*(?P<d>\S.*)$", re.I)
_PEOPLE_ACTIONS = ("add_person", "add_birthday", "add_address")


def people(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """The person's name without the command or who they are; who they are into the
    relation (a contact) or the note (a birthday, an address)."""
    if action not in _PEOPLE_ACTIONS or not isinstance(args.get("person"), str):
        return args
    out = dict(args)
    person = _PERSON_LEAD_RE.sub("", out["person"].strip()).strip() or out["person"]
    person = re.sub(r"(?<=\S{2})的$", "", person)  # "王叔的电话": 王叔
    # "Lucy的birthday", "jade's bday", "make a note of Mrs. Patel's": whose, not the word for it
    person = re.sub(r"\s*(?:的|['’]s)?\s*(?:生日|birthday|bday|b-day)$", "", person, flags=re.I) or person
    person = re.sub(r"^(?:make a note of|note down|remember)\s+", "", person, flags=re.I) or person
    person = re.sub(r"\s+(?:to|in|into|on)\s+(?:my|our|the)\s+(?:contacts?(?:\s+list)?|address book|phone(?:book)?)$", "", person,
                    flags=re.I) or person  # "Hannah to my contacts"
    about = _ABOUT_RE.search(person)
    relation = out.get("relation")
    if about is not None and isinstance(relation, str) and re.fullmatch(rf"[{_HAN}]{{2,4}}", relation.strip()):
        # "存一下新同事的信息，赵敏": the name came after the comma
        person, out["relation"] = relation.strip(), about.group("rel")
    m = _RELATION_ZH_RE.match(person) or _RELATION_EN_RE.match(person)
    if m is not None:
        person = m.group("name").strip()
        said = m.group("rel")
        if "relation" in props and not out.get("relation"):
            out["relation"] = said
        elif "relation" not in props and "note" in props and not out.get("note"):
            out["note"] = said
    date = out.get("date")
    if action == "add_birthday" and isinstance(date, str):
        # "老" + "公 1988年11月3日", "我" + "妈农历腊月初八": the name's last characters went with the date
        split = re.match(rf"^(?!农历|阴历)(?P<rest>[{_HAN}]{{1,2}}?)\s*(?=\d|农历|阴历|[正冬腊一二三四五六七八九十]{{1,2}}月)", date.strip())
        if split is not None and len(person) <= 2:
            person, out["date"] = person + split.group("rest"), date.strip()[split.end():]
    out["person"] = person
    note = out.get("note")
    if "birthday" in props and not out.get("birthday") and isinstance(note, str):
        b = _BIRTHDAY_SAID_RE.match(note.strip())
        if b is not None:
            out["birthday"] = b.group("d").strip()
            del out["note"]
    return out


_KEPT_EN_RE = re.compile(r"\b(?:(?:it's|it is|they're|they are|kept|stored|lives|goes)\s+)?in\s+(?:the|my|our)\s+"
                         r"(?P<loc>[a-z][a-z ]{1,30}?)(?=\s*(?:[,.;!]|$|\bbest before\b|\bexpir|\buse by\b))", re.I)
_KEPT_ZH_RE = re.compile(rf"(?:放在|放到|放进|放|收在|搁在|存放在|存在)(?P<loc>[{_HAN}]{{2,8}}?)(?:里面|里|上)?(?=[，,。；;]|$)")
_INTO_LIST_EN_RE = re.compile(r"\s+(?:to|into|onto|in|on)\s+(?:the\s+|my\s+|our\s+)?(?:inventory|stuff list|list of (?:stuff|things) we own)"
                              r"\b.*$", re.I)


def kept_at(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Where a household thing is kept ("it's in the garage", "放厨房吊柜"), not its note nor
    its name ("There are 12 AA batteries in the hallway cupboard" → AA batteries, 12, hallway
    cupboard; "储藏室有两箱牛奶" → 牛奶 in 储藏室)."""
    if action != "create_inventory_item" or "location" not in props:
        return args
    out = dict(args)
    han = has_han(text)
    if isinstance(out.get("item"), str):
        out["item"] = _INTO_LIST_EN_RE.sub("", out["item"]).strip() or out["item"]
        out["item"] = _INTO_LIST_ZH_RE.sub("", out["item"]).strip() or out["item"]
    location = out.get("location")
    if isinstance(location, str) and re.search(r"[，,]", location):
        location = out["location"] = re.split(r"\s*[，,]\s*", location.strip())[0] or location
    if isinstance(location, str):
        out["location"] = re.sub(r"(?<=\S{2})(?:里面|里头|里)?了?$", "", location.strip()) or location  # "客厅抽屉里了"
    if not out.get("location"):
        m = (_HAS_ZH_RE.search(text) or _PUT_AWAY_ZH_RE.search(text) or _KEPT_ZH_RE.search(text)) if han else _KEPT_EN_RE.search(text)
        if m is not None:
            out["location"] = m.group("loc").strip()
            note = out.get("note")
            if isinstance(note, str) and out["location"] in note:
                del out["note"]
    item, where = out.get("item"), out.get("location")
    if isinstance(item, str) and isinstance(where, str) and where and where in item:
        if han:
            cut = re.sub(rf"^\s*{re.escape(where)}(?:里面|里)?有|(?:(?:放在|放到|放进|收到|收在|搁在|存放在|存在|放|在)\s*)?{re.escape(where)}(?:里面|里头|里|上)?了?", " ",
                         item, count=1)
        else:
            cut = re.sub(rf"\s*(?:(?:are|is)\s+)?(?:(?:in|inside|on|at|under)\s+)?(?:(?:the|my|our)\s+)?(?:top\s+|bottom\s+)?{re.escape(where)}",
                         " ", item, count=1, flags=re.I)
        out["item"] = re.sub(r"\s+", " ", cut).strip(" ，,") or item
    if isinstance(out.get("item"), str):
        item = out["item"]
        if han:
            item = re.sub(r"^(?:买了|刚买了|新买了)\s*", "", item)
        else:
            item = _KEPT_LEAD_EN_RE.sub("", item)
            count = re.match(r"(?P<n>\d+)\s+(?=[A-Za-z])", item)
            if count and "quantity" in props and out.get("quantity") in (None, ""):
                out["quantity"] = int(count.group("n"))  # "12 AA batteries"
                item = item[count.end():]
        out["item"] = item.strip(" ，,") or out["item"]
    return out


# Where a thing is said to be first ("储藏室有两箱牛奶") or put away to ("收到衣柜顶上了").
_HAS_ZH_RE = re.compile(rf"^(?P<loc>[{_HAN}]{{1,6}}(?:室|柜|箱|屉|房|间|台|架|库|厅|阁楼|车库|阳台))(?:里|里面)?有(?=\S)")
_PUT_AWAY_ZH_RE = re.compile(rf"(?:收到|收进|放回|挪到)(?P<loc>[{_HAN}]{{2,8}}?)(?:里面|里)?了?(?=[，,。；;]|$)")
_INTO_LIST_ZH_RE = re.compile(r"(?:记进|记到|加到|加进|放进|存到|登记到|录入)\s*(?:家庭|家里的?)?物品(?:清单|列表|库)?(?:里面?|中)?")
# The command or the telling before an English thing's name ("Register the…", "There are…").
_KEPT_LEAD_EN_RE = re.compile(r"^(?:(?:please\s+)?(?:register|record|log|add|store|save|track|inventory)\s+|there(?:'s| is| are)\s+"
                              r"|we(?:'ve| have)(?: got)?\s+|i(?:'ve| have)(?: got)?\s+)(?:(?:the|a|an|our|my|some)\s+)?", re.I)


# What a loan was for, said after it ("from my sister for the deposit", "借了3万块买车").
_FOR_EN = re.compile(r"\bfor\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+|his\s+|her\s+)?(?P<n>(?!(?:\d|a\s+(?:week|month|day|year)|me\b|him\b|her\b|them\b"
                     r"|us\b|now\b|a\s+bit\b|a\s+while\b)|(?:\w+\s+)?(?:weeks?|months?|days?|years?|hours?)\b)[A-Za-z][^,.;!?]*?)(?=\s*(?:[,.;!?]|$))", re.I)
_BORROWED_FOR_ZH = re.compile(rf"借(?:了|给了?\S{{1,4}}?)?\s*(?:[\d.,]+|[零一二两三四五六七八九十百千万]+)\s*(?:万|千|w|k)?\s*(?:块钱|块|元|美元|刀)?"
                              rf"\s*(?:去|来|用来|拿去)?(?![零一二两三四五六七八九十百千万块元])(?P<n>[{_HAN}]{{2,8}}?)(?:用|的钱)?(?=[，,。；;]|$)")
# What is said of a walk or a watering after what was walked or watered ("Walked Buddy for
# 40 minutes around the park", "gave the tomatoes in the greenhouse 2 litres").
_WALKED_EN = re.compile(r"^(?i:i\s+|we\s+)?(?i:walked|took|ran|played with|fed|brushed|bathed|groomed)\s+(?P<pet>[A-Z][\w'-]*)\s+(?:for\s+)?"
                        r"(?P<n>\d[^,.;!?]*?)\s*[.!]?$")
_WATERED_IN_EN = re.compile(r"^(?P<plant>.+?)\s+(?P<n>(?:in|on|by)\s+the\s+[a-z][\w ]*?)$", re.I)


def purpose_note(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """What a loan was for ("for the deposit", "交首付"), how a walk went ("40 minutes around the
    park") and where the plant stands ("in the greenhouse"), into the note: not whose it is."""
    if "note" not in props:
        return args
    out = dict(args)
    if action == "record_money_lend":
        if has_han(text):
            m = _BORROWED_FOR_ZH.search(text)
            note = out.get("note")
            if m and (not note or (isinstance(note, str) and re.search(r"借", note))):
                out["note"] = m.group("n")
            return out
        m = _FOR_EN.search(text)
        person = out.get("person")
        if m is not None:
            if isinstance(person, str) and " for " in f" {person} ":
                out["person"] = re.split(r"\s+for\s+", person, maxsplit=1)[0].strip() or person
            if not out.get("note"):
                out["note"] = m.group("n").strip()
        return out
    if action == "record_pet_activity" and not out.get("note") and (m := _WALKED_EN.match(text.strip())):
        if str(out.get("pet", "")).casefold() == m.group("pet").casefold():
            out["note"] = m.group("n").strip()
        return out
    if action == "record_plant_watering" and not out.get("note") and isinstance(out.get("plant"), str):
        plant = re.sub(r"^(?:i|we)\s+(?:(?:the|my|our)\s+)?", "", out["plant"].strip(), flags=re.I).strip()
        out["plant"] = re.sub(r"^(?:the|my|our)\s+", "", plant, flags=re.I) or out["plant"]  # "I the tomatoes"
        m = _WATERED_IN_EN.match(out["plant"].strip())
        if m:
            out["plant"], out["note"] = m.group("plant"), m.group("n")
        elif text.isascii() and (at := re.search(rf"\b{re.escape(out['plant'].strip())}\s+(?P<n>(?:in|on|by)\s+the\s+[a-z][\w ]*?)"
                                                 r"(?=\s+\d|\s*[,.;!?]|$)", text, re.I)):
            out["note"] = at.group("n")  # ("the tomatoes in the greenhouse": the plant was read without it)
    return out


# A loan said in English as it is spoken: "Lent Priya my hair straighteners", "gave the camping
# stove back to Ben", "Lent my mate Callum …", "dave paid back the 300 he owed".
_LENT_TWO_EN = re.compile(r"^(?:i\s+)?(?:lent|loaned|lend)\s+(?P<who>[A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?:my|our|the|a|an|his|her)\s+"
                          r"(?P<item>[^,.;!?]+?)(?=\s+(?:on|last|this|yesterday|today|for|until|till|by)\b|\s*[,.;!?]|$)", re.I)
_GAVE_BACK_EN = re.compile(r"\b(?:gave|give|returned|handed)\s+(?:the|my|his|her|their|our)?\s*(?P<item>[^,.;!?]+?)\s+back\s+to\s+"
                           r"(?P<who>[A-Za-z][\w'-]*)", re.I)
_BORROWED_EN = re.compile(r"^(?:i\s+|we\s+)?borrowed\s+(?:a|an|the|some|his|her|their)\s+(?P<item>[^,.;!?]+?)\s+from\s+"
                          r"(?P<who>[A-Za-z][\w'-]*)(?=\s|[,.;!?]|$)", re.I)
_MATE_EN = re.compile(r"^(?:my\s+|our\s+)?(?:mate|pal|buddy|friend|bestie|bff)\s+(?=\S)", re.I)
_OWED_TAIL_EN = re.compile(r"\s+(?:he|she|they|i|we)\s+(?:owed|owes|owe|borrowed|lent)\b.*$", re.I)


# A loan said in Chinese: "相机借给表妹了", "借给同事郭婷婷800".
_LENT_TO_ZH = re.compile(rf"^(?:我的?|把)?(?P<item>[^，,。\d]{{1,12}}?)借给了?(?P<who>[{_HAN}A-Za-z]{{1,8}}?)了?(?=[，,。]|$)")
_LOAN_LEAD_ZH = re.compile(rf"^(?:借给了?|借了|从|向|跟)?(?:(?:{_REL_ZH})(?=[{_HAN}]{{2,4}}$))?")


_LENT_MONEY_ZH = re.compile(r"借给了?(?P<who>[^\d零一二两三四五六七八九十百千万，,。\s]{1,8}?)\s*(?=\d|[零一二两三四五六七八九十百千万]+\s*(?:块|元|万|千|百))")


def loan_zh(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Who and what of a Chinese loan: the thing before 借给, the person after it; the command
    and who they are to the household off the person's name."""
    if action not in ("record_item_lend", "record_money_lend") or not has_han(text):
        return args
    out = dict(args)
    said = re.sub(r"^(?:帮我|请|麻烦)?记(?:一笔|一下|个)?(?:借款|借条|借出)?[：:，,]?\s*", "", text.strip())
    item, person = str(out.get("item", "")), str(out.get("person", ""))
    if action == "record_item_lend" and (m := _LENT_TO_ZH.match(said)) and (
            not item or "给" in item or person in m.group("item")):
        out["item"], out["person"] = m.group("item").strip(), m.group("who").strip()
        out.setdefault("direction", "lent")
    if action == "record_money_lend" and person.strip() in ("", "我", "我们") and (m := _LENT_MONEY_ZH.search(said)):
        out["person"] = m.group("who")  # "我借给了小军三千块": 小军, not 我
        out.setdefault("direction", "lent")
    if isinstance(out.get("item"), str):
        out["item"] = re.sub(r"^(?:我们?|咱)家?的(?=\S)", "", out["item"].strip())  # "我的AirPods"
    who = out.get("person")
    if isinstance(who, str) and who.strip():
        out["person"] = _LOAN_LEAD_ZH.sub("", who.strip()) or who
        note = out.get("note")
        if isinstance(note, str) and re.fullmatch(rf"我?(?:借给|借|还给|还)了?{re.escape(out['person'])}", note.strip()):
            del out["note"]  # "借给小王500块", "我还了哥哥2000": the note said only who
    return out


def loan_en(text: str, action: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Who and what of an English loan said as people say it (see the patterns above); a day
    said with "on" after a loan made is when it was lent, not when it is due."""
    if action not in ("record_item_lend", "record_money_lend") or has_han(text):
        return args
    out = dict(args)
    said = text.strip()
    if action == "record_item_lend":
        item = str(out.get("item", ""))
        if (m := _LENT_TWO_EN.match(said)) and (not item or re.match(r"(?:i\s+)?(?:lent|loaned|lend)\b", item, re.I)):
            out["item"], out["person"] = m.group("item").strip(), m.group("who").strip()
        elif (m := _BORROWED_EN.match(said)) and (not item or item.casefold().startswith("borrowed")):
            out["item"], out["person"] = m.group("item").strip(), m.group("who").strip()
            out.setdefault("direction", "borrowed")
        elif (m := _GAVE_BACK_EN.search(said)) and "back" in item.split() + [str(out.get("person", ""))]:
            out["item"], out["person"] = m.group("item").strip(), m.group("who").strip()
            if "returned" in props:
                out["returned"] = True
            out.setdefault("direction", "borrowed")
    person = out.get("person")
    if isinstance(person, str):
        out["person"] = _OWED_TAIL_EN.sub("", _MATE_EN.sub("", person.strip())).strip() or person
    due = out.get("due")
    if (isinstance(due, str) and "date" in props and not out.get("date") and re.match(r"on\s+\S", due.strip(), re.I)
            and re.match(r"(?:i\s+)?(?:lent|loaned|borrowed)\b", said, re.I)):
        out["date"] = out.pop("due")  # "Lent Priya my straighteners on Saturday": lent then
    return out
