"""The frame words a household puts around a record's name, read off for the actions where
the generic pass keeps them: a habit said as "a habit of reading" or "build a daily
flossing habit" and a check-in's note after its name; a plant given water in English; an
address's label; where someone is now; a birthday's
relation before the name.

Each function reads the utterance and the slots filled so far and fills or trims the
record's own keys; none invents a value the utterance does not say (the same contract as
`homeagent.intent.records`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from homeagent.text import has_han

_HABIT_OF_EN = re.compile(r"^(?:a\s+|the\s+)?(?:new\s+)?(?:daily\s+|weekly\s+)?habit\s+of\s+(?P<h>\S.*)$", re.I)
_BUILD_HABIT_EN = re.compile(
    r"^(?:(?:help me|i want to|i'd like to|let's|let me)\s+)?(?:build|start|form|make|create|begin|set up|track)\s+"
    r"(?:a\s+|an\s+|my\s+)?(?:new\s+)?(?:daily\s+|weekly\s+|nightly\s+|morning\s+|evening\s+)?(?P<h>\S.*?)(?:\s+habit)?$", re.I)
_FORGOT_EN = re.compile(r"^(?:i\s+)?(?:forgot|forget|didn't get)\s+to\s+(?:check\s+in\s+|log\s+)?(?=\S)", re.I)
_TO_TIMES_EN = re.compile(r"\s+to\s+(?:once|twice|thrice|\w+\s+times|\d+\s+times|\d+x)(?:\s+a\s+(?:day|week|month))?$", re.I)


def habit(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"a habit of reading 20 minutes" → reading 20 minutes; "help me build a daily flossing
    habit" → flossing; "I forgot to check in reading" → reading; "swimming to twice" →
    swimming; a check-in's note after its name ("meditation, felt really calm")."""
    name = out.get("habit")
    if not isinstance(name, str) or not name.strip():
        return
    name = name.strip()
    if not has_han(name):
        for rule in (_HABIT_OF_EN, _BUILD_HABIT_EN):
            m = rule.match(name)
            if m:
                name = m.group("h").strip()
        name = _FORGOT_EN.sub("", name) or name
        name = _TO_TIMES_EN.sub("", name) or name
    parts = re.split(r"\s*[，,；;]\s*", name, maxsplit=1)
    if len(parts) == 2 and "note" in props and not out.get("note") and len(parts[0]) >= 2 and len(parts[1]) >= 2:
        name, out["note"] = parts[0], parts[1]  # "meditation, felt really calm": the name, then how it went
    out["habit"] = name


_NOTE_AFTER_CHECK_IN_ZH = re.compile(r"打卡\s*[，,]\s*(?:今天|今儿|这次)?(?P<n>[^，,。]{2,20})[。!！]*$")


def check_in(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    habit(text, props, out)
    if "note" in props and not out.get("note") and (m := _NOTE_AFTER_CHECK_IN_ZH.search(text)):
        out["note"] = m.group("n").strip()  # "健身房打卡，今天练的是腿"


_WATERED_EN = re.compile(
    r"\b(?:watered|gave|give|given|threw|poured)\s+(?:the\s+|my\s+|our\s+)?(?P<p>[a-z][a-z' -]{1,30}?)\s+"
    r"(?:about\s+|around\s+|roughly\s+|some\s+|a\s+(?:bit|little|good|quick)\s+(?:of\s+)?|a\s+)?"
    r"(?:\d+(?:\.\d+)?\s*(?:ml|l|liters?|litres?|cups?)\s+(?:of\s+)?)?(?:water|drink|soak)\b", re.I)
_WATERING_FOR_EN = re.compile(r"\bwatering\s+(?:for|of)\s+(?:the\s+|my\s+|our\s+)?(?P<p>[a-z][a-z' -]{1,30}?)\s*[.!]*$", re.I)
_WATERED_PLAIN_EN = re.compile(r"\bwatered\s+(?:the\s+|my\s+|our\s+)?(?P<p>[a-z][a-z' -]{1,30}?)(?:\s+(?:today|this \w+|just now|"
                               r"with\b.*|again|already))?\s*[.!]*$", re.I)
_NOT_A_PLANT_EN = re.compile(r"\b(?:i|we|gave|give|threw|watered|watering|poured|log|logged|\d+)\b", re.I)
_TRAILING_SPEAKER_ZH = re.compile(r"(?<=\S{2})(?:我们|我|咱们|咱)$")


def plant(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"I gave the basil about 250 ml of water" → basil; "Log watering for the fiddle leaf fig";
    "阳台那几盆花我刚浇了" → 阳台那几盆花."""
    said = out.get("plant")
    if isinstance(said, str):
        said = out["plant"] = _TRAILING_SPEAKER_ZH.sub("", said.strip()) or said
    if has_han(text) or (isinstance(said, str) and said.strip() and not _NOT_A_PLANT_EN.search(said)):
        return  # (only where the generic pass kept the verb or the speaker, or found nothing)
    for rule in (_WATERED_EN, _WATERING_FOR_EN, _WATERED_PLAIN_EN):
        m = rule.search(text)
        if m:
            out["plant"] = m.group("p").strip()
            return


_ADDRESS_OF_ZH = re.compile(r"(?:把)?(?P<l>[^，,：:把]{2,10}?)的地址(?:记下来|记一下|存一下|存下来|保存一下|是)?\s*[：:，,]?\s*(?P<a>\S.*)$")
_ADDRESS_LEAD_ZH = re.compile(r"^(?:帮我)?(?:存|记|保存|添加|加)(?:个|一个|一下)?(?:新)?地址\s*[：:，,]\s*(?P<l>[^，,：:]{2,10}?)(?:在|是|[：:，,])\s*"
                              r"(?P<a>\S.*)$")
_ASKING_LEAD_ZH = re.compile(r"^(?:(?:帮我|麻烦|请)?(?:记一下|记个|记下|存一下|存个|保存一下|保存|添加|加个)\s*)+(?=\S{2})")
_ADDRESS_AS_EN = re.compile(r"\bas\s+[\"'“]?(?P<l>[^\"'”:]{1,20}?)[\"'”]?\s*[:：]\s*(?P<a>\S.*)$", re.I)


def address(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"把小宝学校的地址记下来：北京市…" → 小宝学校 / 北京市…; "存个地址，老王家在滨江区…" → 老王家;
    "save the vet's address as 'vet': 3 Harbour Way" → vet / 3 Harbour Way."""
    said = text.strip()
    m = _ADDRESS_LEAD_ZH.match(said) or _ADDRESS_OF_ZH.search(said) if has_han(said) else _ADDRESS_AS_EN.search(said)
    if m is None:
        return
    label, where = _ASKING_LEAD_ZH.sub("", m.group("l").strip()) or m.group("l").strip(), m.group("a").strip(" 。.")
    if "label" in props:
        out["label"] = label
    if "address" in props and where:
        out["address"] = where


_NOW_AT_ZH = re.compile(r"^(?:我)?(?:现在|目前|此刻|刚刚|刚)?(?:人)?(?:在|到了|到)(?=\S{2})")


_WENT_TO_ZH = re.compile(r"(?:去了|到了|来到|去过|在)(?P<p>[\u4e00-\u9fffA-Za-z0-9]{2,14}?)(?:打卡|玩|逛|看|吃)?[了啦]?[，,。！!]*$")


def place(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"记录一下，现在在上海虹桥站" → 上海虹桥站; "记录一下足迹，今天去了外滩" → 外滩 (足迹 names the
    record, not the place)."""
    said = out.get("place")
    if isinstance(said, str) and re.fullmatch(r"足迹|位置|定位|行程|轨迹", said.strip()) and (m := _WENT_TO_ZH.search(text)):
        said = out["place"] = m.group("p")
    if isinstance(said, str) and has_han(said):
        out["place"] = _NOW_AT_ZH.sub("", said.strip()) or said


_RELATION_ZH = re.compile(r"^(?P<rel>同事|同学|老同学|朋友|好朋友|邻居|客户|老师|领导|表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|儿子|女儿|侄子|侄女"
                          r"|外甥|外甥女|孙子|孙女)(?P<name>[\u4e00-\u9fff]{2,4})$")
_BIRTHDAY_COLON_ZH = re.compile(r"[：:]\s*(?P<p>[^，,：:]{2,8})\s*[，,]\s*(?P<d>\S.*?)\s*[。]?$")


_HAS_BIRTHDAY_EN = re.compile(r"\s+(?:has|have|had|is having|'s got)\s+(?:his|her|their|a)?\s*$|\s+(?:has|have)\s+(?:his|her|their)\b.*$", re.I)
_KIN_NAME_EN = re.compile(r"(?:my\s+)?(?P<rel>nephew|niece|cousin|son|daughter|brother|sister|uncle|aunt|auntie|grandson|granddaughter"
                          r"|friend|colleague|neighbou?r|boss|godson|goddaughter)\s+(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)")


def birthday(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"添加生日：同事陈晨，1993-11-02" → 陈晨 (同事) on 1993-11-02."""
    person = out.get("person")
    if isinstance(person, str) and (m := _HAS_BIRTHDAY_EN.search(person)):  # "nephew Lukas has his (birthday…)"
        person = out["person"] = person[:m.start()].strip() or person
    if isinstance(person, str) and (m := _KIN_NAME_EN.fullmatch(person.strip())):  # "nephew Lukas": Lukas
        out["person"] = m.group("name")
        if "relation" in props and not out.get("relation"):
            out["relation"] = m.group("rel")
    named = _RELATION_ZH.match(person.strip()) if isinstance(person, str) else None
    if named is not None:  # "女儿朵朵": 朵朵, with who she is as the note
        out["person"] = named.group("name")
        key = "relation" if "relation" in props else "note" if "note" in props else None
        if key is not None and not out.get(key):
            out[key] = named.group("rel")
    m = _BIRTHDAY_COLON_ZH.search(text)
    if m and has_han(text):
        who, day = m.group("p").strip(), m.group("d").strip()
        named = _RELATION_ZH.match(who)
        out["person"] = named.group("name") if named else who
        key = "relation" if "relation" in props else "note" if "note" in props else None
        if named and key is not None and not out.get(key):
            out[key] = named.group("rel")
        out["date"] = day
        if out.get("note") == day:
            del out["note"]


BY_ACTION = {"create_habit": habit, "update_habit": habit, "check_in_habit": check_in, "delete_habit": habit,
             "record_plant_watering": plant, "add_address": address,
             "record_trajectory": place, "add_birthday": birthday}
