"""Structured slots read off the utterance where an action's schema has them: a phone
number and an email for a contact, a coupon's code and discount, a goal's target and its
unit, a stock item's quantity and unit, a duration in minutes, an amount said in words
("twenty bucks").

`structured(text, props, args)` adds what the schema asks for and the arguments lack, and
takes what it read out of the text arguments it had leaked into ("张三，电话138…" is the
person 张三); values the user's words set explicitly are kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from homeagent.numbers import NUM, parse_number
from homeagent.text import has_han

_PHONE_RE = re.compile(r"(?<![A-Za-z0-9+])(?:\+\d{1,3}[\s-]?)?(?:\(\d{2,4}\)\s?)?\d(?:[\s-]?\d){6,13}(?!\w)")
_PHONE_WORDS = re.compile(r"(?:手机号码?|电话号码?|手机|电话|联系方式|号码|phone(?: number)?|mobile|cell|tel|number)"
                          r"\s*(?:是|为|:|：|is)?\s*$", re.I)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_CODE_RE = re.compile(r"(?:券码|优惠码|兑换码|折扣码|码|(?:promo |coupon |discount )?code)\s*(?:是|为|:|：|is)?\s*"
                      r"(?P<code>[A-Za-z0-9][A-Za-z0-9-]{2,})", re.I)
_DISCOUNT_RE = re.compile(rf"满\s*{NUM}\s*减\s*{NUM}\s*元?|打?\s*{NUM}\s*折|立减\s*{NUM}\s*元?|减\s*{NUM}\s*元"
                          r"|\d+(?:\.\d+)?\s*%\s*off|[$¥€£]\s*\d+(?:\.\d+)?\s*off|buy one get one free|bogo", re.I)
_EXPIRY_WORDS = re.compile(r"[，,]?\s*(?:过期|到期|失效|截止)$|^(?:有效期至|有效期到|有效期|到期日?|expires?|expiring|valid until"
                           r"|valid till|good until)\s*", re.I)
_GOAL_UNITS = (r"公里|千米|km|kilometers?|kilometres?|miles?|本书|本|部|篇|次|斤|公斤|kg|小时|hours?|页|pages?|books?"
               r"|times|steps|步|元|块|dollars?")
_EN_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
           "sixty": 60, "hundred": 100, "a dozen": 12, "a couple of": 2}
_EN_NUM_RE = "|".join(sorted((re.escape(w) for w in _EN_NUM), key=len, reverse=True))
_GOAL_RE = re.compile(rf"(?P<n>\d+(?:\.\d+)?\s*[万千kK](?![a-z])|{NUM}|\b(?:{_EN_NUM_RE})\b)\s*(?P<u>{_GOAL_UNITS})(?![a-z])", re.I)
_STOCK_UNITS = (r"cans?|bottles?|boxes?|packs?|packets?|bags?|jars?|rolls?|cartons?|tins?|tubes?|bars?|loaves"
                r"|dozen|pieces?|kg|g|ml|l|瓶|罐|听|盒|袋|包|箱|卷|支|块|条|斤|公斤|升|毫升|个|只|颗|把|桶|提")
_STOCK_RE = re.compile(rf"(?P<n>{NUM}|\b(?:{_EN_NUM_RE})\b)\s*(?P<u>{_STOCK_UNITS})(?![a-z])(?:\s+of\b)?", re.I)
_DURATION_RE = re.compile(
    rf"(?:for\s+)?(?:(?P<half>half an? hour)|(?P<n>{NUM}|\b(?:{_EN_NUM_RE})\b)\s*(?P<zh_half>个半)?\s*个?\s*"
    r"(?P<and_half2>\s*and a half\s*)?(?P<u>小时|钟头|分钟|hours?|hrs?|minutes?|mins?)(?P<and_half>\s+and\s+a\s+half)?(?:\s*(?P<more>\d+)\s*(?:分钟|分|minutes?|mins?))?"
    r"|(?P<zh_only>半)\s*(?:个)?\s*小时)(?:的)?",
    re.I,
)
_WORD_MONEY_RE = re.compile(rf"\b(?P<n>{_EN_NUM_RE})\s+(?P<c>bucks?|dollars?|euros?|pounds?|quid|yuan|kuai)\b", re.I)
_TEXT_KEYS = ("title", "person", "item", "habit", "content", "subject", "dish", "label", "note", "reason")


def _number(raw: str) -> float | None:
    low = raw.strip().casefold()
    if low in _EN_NUM:
        return float(_EN_NUM[low])
    scaled = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([万千k])", low)
    if scaled:
        return float(scaled.group(1)) * {"万": 10_000, "千": 1000, "k": 1000}[scaled.group(2)]
    if re.fullmatch(r"[万千百亿]+", low):
        return None  # a bare 万 is a unit, not a number
    return parse_number(raw)


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def duration_minutes(text: str) -> tuple[int, str] | None:
    """"an hour and a half" / "一个半小时" / "90 minutes" / "1小时20分钟" → (90, the words)."""
    for m in _DURATION_RE.finditer(text):
        if m.group("half") or m.group("zh_only"):
            return 30, m.group(0)
        count = _number(m.group("n"))
        if count is None:
            continue
        if m.group("zh_half") or m.group("and_half") or m.group("and_half2"):
            count += 0.5
        hours = m.group("u").casefold().startswith(("小", "钟", "h"))
        minutes = count * 60 if hours else count
        if m.group("more"):
            minutes += int(m.group("more"))
        return round(minutes), m.group(0)
    return None


_LEAD_TIME_RE = re.compile(r"[，,\s]*(?:提前\s*(?P<zq>[^，,。提]{1,10}?)\s*(?:提醒|通知|叫)(?:我|一下)?"
                           r"|(?:and\s+)?remind\s+me\s+(?P<eq>[\w ]{1,30}?)\s+(?:before|ahead|early|in advance))", re.I)


def lead_minutes(said: str) -> int | None:
    """"半小时" / "15 minutes" / "一天" / "an hour" → minutes."""
    days = re.fullmatch(rf"\s*(?P<n>{NUM}|an?|one|two|three)\s*(?:个)?\s*(?:天|days?)\s*", said, re.I)
    if days:
        count = _number({"a": "1", "an": "1"}.get(days.group("n").casefold(), days.group("n")))
        return None if count is None else round(count * 24 * 60)
    found = duration_minutes(said)
    return found[0] if found is not None and found[1].strip() and len(found[1].strip()) >= len(said.strip()) - 4 else None


def _cut(args: dict[str, Any], said: str) -> None:
    """Take `said` out of the text arguments it leaked into."""
    said = said.strip()
    if said.casefold().startswith("for ") and not any(isinstance(v, str) and said in v for v in args.values()):
        said = said[4:]
    for key in _TEXT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and said in value:
            rest = value.replace(said, " ")
            rest = re.sub(r"\s*[，,；;]\s*[，,；;]*\s*", "，", rest)
            rest = re.sub(r"\s+", " ", rest).strip(" ，,。.：:")
            rest = _PHONE_WORDS.sub("", rest).strip(" ，,。.：:")
            rest = re.sub(r"[，,]\s*(?:(?:电话|手机|号码|phone|email|邮箱|券码|code)\s*[，,]?\s*)+$", "", rest, flags=re.I)
            if rest:
                args[key] = rest.strip(" ，,")


def structured(text: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    out = dict(args)
    if "phone" in props and isinstance(out.get("person"), str):  # "新建联系人李四": the contact is 李四
        out["person"] = re.sub(r"^(?:新建|添加|新增|加个|加一个|存个|存一下|保存)?联系人[：:\s]*", "", out["person"]) or out["person"]
    if "phone" in props and not out.get("phone"):
        m = _PHONE_RE.search(text)
        if m and sum(ch.isdigit() for ch in m.group(0)) >= 7:
            digits = re.sub(r"\D", "", m.group(0))
            # A mainland mobile said in groups ("138 1234 5678") is its 11 digits; others stay as said.
            out["phone"] = digits if len(digits) == 11 and digits[0] == "1" and "+" not in m.group(0) else m.group(0).strip()
            _cut(out, m.group(0))
            for key in _TEXT_KEYS:
                if isinstance(out.get(key), str):
                    out[key] = re.sub(r"[，,\s]*(?:电话|手机|phone|mobile|tel)(?:号码?)?\s*[:：]?\s*$", "", out[key],
                                      flags=re.I).strip() or out[key]
    if "email" in props and not out.get("email"):
        m = _EMAIL_RE.search(text)
        if m:
            out["email"] = m.group(0)
            _cut(out, m.group(0))
    if "code" in props and not out.get("code"):
        m = _CODE_RE.search(text)
        if m:
            out["code"] = m.group("code")
            _cut(out, m.group(0))
            _cut(out, m.group("code"))
    if "discount" in props and not out.get("discount"):
        m = _DISCOUNT_RE.search(text)
        if m:
            out["discount"] = m.group(0).strip()
            _cut(out, m.group(0).strip())
    if "expires" in props and isinstance(out.get("title"), str):
        out["title"] = _EXPIRY_WORDS.sub("", out["title"]).strip(" ，,") or out["title"]
    if "store" in props and isinstance(out.get("title"), str):
        m = re.fullmatch(r"(?:(?P<what>.+?)\s+)?(?:at|from)\s+(?P<store>[\w&' .-]+)", out["title"], re.I)
        if m and not out.get("store"):  # "20% off at Uniqlo": the store is Uniqlo
            out["store"] = m.group("store").strip()
            out["title"] = (m.group("what") or "").strip() or out["store"]
        if re.fullmatch(r"(?:存个|记个|加个|存一下|记一下|添加|保存|存|记|save|add|keep)", out["title"], re.I):
            out["title"] = out.get("store") or out.get("discount") or out.get("code") or out["title"]
    if "target" in props and "unit" in props and out.get("target") in (None, ""):
        m = _GOAL_RE.search(text)
        number = _number(m.group("n")) if m else None
        if m and number is not None:
            out["target"] = _plain(number)
            out.setdefault("unit", "本" if m.group("u") == "本书" else m.group("u"))
            if isinstance(out.get("title"), str):
                title = re.sub(r"^(?:目标|goal)[：:\s]*", "", out["title"], flags=re.I) or out["title"]
                # "读12本书" is 读书, 12 its target, 本 its unit; an English goal keeps its
                # number ("run 100 km", "lose 5 kg"), as households write it.
                cut = title.replace(m.group(0), "书" if m.group("u") == "本书" else " ", 1) if has_han(title) else title
                out["title"] = re.sub(r"\s+", " ", cut).strip(" ，,") or title
    if "quantity" in props and "unit" in props and out.get("quantity") in (None, ""):
        m = _STOCK_RE.search(text)
        number = _number(m.group("n")) if m else None
        if m and number is not None:
            out["quantity"] = _plain(number)
            out.setdefault("unit", m.group("u"))
            _cut(out, m.group(0))
            if isinstance(out.get("item"), str):  # the words the object phrase kept of it ("3 cans tuna")
                out["item"] = _STOCK_RE.sub(" ", out["item"]).strip() or out["item"]
    if "quantity" in props and "unit" in props and isinstance(out.get("quantity"), str) and not out.get("unit"):
        m = _STOCK_RE.fullmatch(out["quantity"].strip())  # "2 bottles": the number, and its unit
        number = _number(m.group("n")) if m else None
        if m and number is not None:
            out["quantity"], out["unit"] = _plain(number), m.group("u")
    if "location" in props and not out.get("location") and isinstance(out.get("item"), str):
        m = re.search(r"\s+(?:in|into|to|on)\s+(?:(?:the|my|our)\s+)?(?P<where>pantry|fridge|freezer|cupboard|closet|garage"
                      r"|basement|cabinet|drawer|shelf|attic|storage room|kitchen)$", out["item"], re.I)
        if m:
            out["location"] = m.group("where")
            out["item"] = out["item"][: m.start()].strip()
    if "remind_minutes" in props and out.get("remind_minutes") in (None, ""):
        lead = _LEAD_TIME_RE.search(text)
        minutes = lead_minutes(lead.group("zq") or lead.group("eq")) if lead else None
        if lead and minutes is not None:
            out["remind_minutes"] = minutes
            _cut(out, lead.group(0).strip(" ，,"))
            text = text.replace(lead.group(0), " ")  # the lead time is no duration
    if "duration_minutes" in props and not out.get("duration_minutes"):
        found = duration_minutes(text)
        if found is not None and found[0] > 0:
            out["duration_minutes"] = found[0]
            _cut(out, found[1])
    if "hours" in props and (out.get("hours") in (None, "") or isinstance(out.get("hours"), str) and re.search(
            r"and a half|half an hour", out["hours"], re.I)):
        found = duration_minutes(out["hours"] if isinstance(out.get("hours"), str) else text)
        if found is not None and found[0] > 0:
            out["hours"] = _plain(found[0] / 60)
    for key in ("amount", "cost", "price"):
        if key in props and props[key].get("type") != "string" and out.get(key) in (None, ""):
            m = _WORD_MONEY_RE.search(text)
            if m:
                currency = m.group("c").casefold()
                code = "CNY" if currency in ("yuan", "kuai") else "EUR" if currency.startswith("euro") else \
                    "GBP" if currency.startswith(("pound", "quid")) else "USD"
                out[key] = f"{_EN_NUM[m.group('n').casefold()]} {code}"
                break
    return out


_LEND_EN = (re.compile(r"\b(?:lent|loaned|gave)\s+(?P<person>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?:my|our|the|a|an|his|her)\s+"
                       r"(?P<item>[\w' -]+?)(?=\s+(?:until|till|today|yesterday|tomorrow|last|on|by|for)\b|[,.!]|$)"),
            re.compile(r"\b(?:[Bb]orrowed|[Gg]ot)\s+(?:a |an |the |)?(?P<item>[\w' -]+?)\s+from\s+(?P<person>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)"),
            re.compile(r"\b(?:borrowed)\s+(?P<person>[A-Z][\w'-]*)'s\s+(?P<item>[\w' -]+?)(?=[,.!]|$|\s+(?:until|today|yesterday))"))
_LEND_ZH = (re.compile(r"(?P<person>[\u4e00-\u9fff]{1,4}?)借(?:走)?了?我的(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,12})"),
            re.compile(r"借(?:了|走了|走)(?!我)(?P<person>[\u4e00-\u9fff]{1,4}?)的(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,12})"),
            re.compile(r"(?:借给|借给了)(?P<person>[\u4e00-\u9fff]{1,4}?)(?:一[本把个台件辆]|[一两三]?[本把个台件辆])"
                       r"(?P<item>[\u4e00-\u9fffA-Za-z0-9]{1,12})"))
_PET_EN = re.compile(r"^(?:i\s+|we\s+|just\s+)*(?P<verb>fed|walked|bathed|washed|groomed|brushed|trained|played with)\s+"
                     r"(?P<pet>[A-Z][\w-]*)(?:'s|’s)?\s*(?:(?:his|her|their|its)\s+)?(?P<what>.*)$", re.I)
_PET_ZH = re.compile(r"^(?:我|刚|刚刚|已经|今天)*(?:给|帮|带)(?P<pet>[\u4e00-\u9fffA-Za-z]{1,5}?)(?P<what>(?:喂|洗|打|剪|梳|遛|驱|铲|换)"
                     r"[\u4e00-\u9fff\w]{0,12})$")
_WHEN_TAIL = re.compile(r"\s*(?:this (?:morning|afternoon|evening)|tonight|today|yesterday|just now|早上|上午|下午|晚上|今天|刚才)\s*$",
                        re.I)


def pairs(text: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Two names in one phrase, a possessive between them: "I lent Tom my drill",
    "借了小李的伞", "I fed Max his dinner", "给旺财喂了狗粮"."""
    out = dict(args)
    core = text.strip().rstrip("。.!！")
    person, item = str(out.get("person") or ""), str(out.get("item") or "")
    unsure = not person or not item or person in item or bool(re.search(r"借|\blent\b|\bborrow|\bmy\b|\bi\b", item, re.I))
    if "person" in props and "item" in props and "direction" in props and unsure:
        for rx in (*_LEND_EN, *_LEND_ZH):
            m = rx.search(core)
            if m:
                out["person"], out["item"] = m.group("person").strip(), m.group("item").strip()
                break
    if "pet" in props and "activity" in props and (not out.get("pet") or " " in str(out.get("pet", ""))
                                                  or not out.get("activity")):
        m = _PET_EN.match(core) or _PET_ZH.match(core)
        if m:
            what = _WHEN_TAIL.sub("", m.group("what")).strip()
            verb = m.groupdict().get("verb") or ""
            out["pet"] = m.group("pet")
            out["activity"] = " ".join(p for p in (verb.casefold(), what) if p) or out.get("activity", "")
    return out


# "3 times a week", "一周三次", and "once a week" / "twice a day" (no "times" said)
_TIMES_RE = re.compile(rf"[，,\s]*(?:(?P<n>{NUM}|\b(?:{_EN_NUM_RE})\b|\bonce\b|\btwice\b)\s*(?:次|times?\b)"
                       r"|(?P<o>\bonce\b|\btwice\b)(?=\s*(?:a|per|every)\s+(?:week|day)))(?:\s*(?:a|per|every)\s+(?:week|day))?",
                       re.I)
_WEIGHT_RE = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<u>lbs?|pounds?|斤|公斤|kg|千克|kilos?)(?![a-z])", re.I)
_READING_UNIT_RE = re.compile(r"(?P<v>\d+(?:\.\d+)?(?:/\d+)?)\s*(?P<u>mmHg|bpm|mmol/L|mg/dL|°C|℃|%|次/分)", re.I)
_ML_RE = re.compile(rf"(?P<n>{NUM})\s*(?P<u>ml|mL|毫升|升|l|liters?|litres?)(?![a-z])", re.I)
_PER_DAY_RE = re.compile(rf"[，,\s]*(?:每天|每日|一天)\s*(?P<zh>{NUM})\s*(?:分钟|分)|[，,\s]*(?P<en>\d+)\s*(?:minutes?|mins?)\s+"
                         r"(?:a|per|each|every)\s+day", re.I)


def measures(text: str, props: Mapping[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Counts and readings with their units: a habit's times a week, a weight in pounds or
    斤 (to kg), a health reading's unit, millilitres of water for a plant, a study plan's
    minutes a day; the words they were said in taken out of the name beside them."""
    out = dict(args)
    if "target" in props and "unit" not in props and out.get("target") in (None, ""):
        m = _TIMES_RE.search(text)
        if m:
            raw = (m.group("n") or m.group("o")).casefold()
            number = {"once": 1.0, "twice": 2.0}.get(raw) or _number(raw)
            if number is not None and number >= 1:
                out["target"] = int(number)
                for key in ("habit", "name", "new_name"):
                    if isinstance(out.get(key), str):
                        out[key] = _TIMES_RE.sub("", out[key]).strip(" ，,") or out[key]
    if isinstance(out.get("medicine"), str):  # "吃了两片布洛芬" less 两片 is 布洛芬
        out["medicine"] = re.sub(r"^(?:吃了|服了|吃|服用了?|took|had)\s*", "", out["medicine"], flags=re.I) or out["medicine"]
    if "weight_kg" in props:
        m = _WEIGHT_RE.search(text)
        if m:
            value, unit = float(m.group("n")), m.group("u").casefold()
            kg = value * 0.45359237 if unit.startswith(("lb", "pound")) else value / 2 if unit == "斤" else value
            out["weight_kg"] = round(kg, 1)
    if "unit" in props and "value" in props:
        m = _READING_UNIT_RE.search(text)
        if m and isinstance(out.get("value"), str):  # "72 bpm": the reading is 72, its unit bpm
            reading = re.sub(rf"\s*{re.escape(m.group('u'))}\s*$", "", out["value"].strip(), flags=re.I)
            out["value"] = reading or out["value"]
        if m and not out.get("unit"):
            out["unit"] = m.group("u")
            if isinstance(out.get("metric"), str):
                out["metric"] = re.sub(rf"\s*{re.escape(m.group('u'))}\s*", " ", out["metric"]).strip() or out["metric"]
    if "amount_ml" in props and not out.get("amount_ml"):
        m = _ML_RE.search(text)
        number = _number(m.group("n")) if m else None
        if m and number is not None:
            litres = m.group("u").casefold() in ("升", "l") or m.group("u").casefold().startswith("lit")
            out["amount_ml"] = round(number * 1000 if litres else number)
    if "plant" in props:
        m = re.search(r"(?:浇了?|给)(?:\S*?水)?给?(?P<zh>[\u4e00-\u9fff]{1,6}?)(?:浇了?水|$)", text.strip(" 。.!！")) \
            or re.search(r"\bwatered\s+(?:the\s+|my\s+)?(?P<en>[\w' -]+?)(?:\s+with\b|[,.!]|$)", text, re.I)
        if m and (not out.get("plant") or re.search(r"浇|\bwith\b|\d", str(out["plant"]))):
            out["plant"] = (m.groupdict().get("zh") or m.groupdict().get("en") or "").strip() or out.get("plant")
    if "minutes_per_day" in props:
        m = _PER_DAY_RE.search(text)
        number = _number(m.group("zh") or m.group("en")) if m else None
        if m and number is not None:
            out["minutes_per_day"] = out.get("minutes_per_day") or int(number)
            if isinstance(out.get("subject"), str):
                # (a template may have put the minutes into the subject: "Spanish 20 minutes")
                out["subject"] = re.sub(r"\s*\d+\s*(?:minutes?|mins?|分钟|分)?$", "", out["subject"].strip()) or out["subject"]
                subject = _PER_DAY_RE.sub("", out["subject"])
                subject = re.sub(r"^(?:study|learn|学习?|练)\s*(?=\S)", "", subject.strip(), flags=re.I)
                out["subject"] = re.sub(r"\s*(?:每天|每日|一天)\s*\d*$", "", subject).strip(" ，,") or out["subject"]
    return out
