"""What an update or a delete says about the record it changes: that it stops repeating,
is archived, rises or falls in priority, gets a new deadline or a new name — and the words
around the name it is looked up by that are not the name ("戒糖不想记了", "日本旅行取消了",
"the cold shower habit and its history", "no-sugar while we're on holiday")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_NO_REPEAT_ZH = re.compile(r"(?:不用|不要|不必|别|无需|不需要|不想)\s*(?:再)?\s*(?:每\S{1,3}?)?\s*(?:重复|循环)(?:了)?|不再(?:重复|循环)|取消重复"
                           r"|(?:改成|变成|改为)(?:一次性|不重复)|只(?:做|提醒|办)?一次(?:就行|就好|就够)?")
_NO_REPEAT_EN = re.compile(r"\b(?:doesn't|does not|don't|do not|won't|will not|shouldn't|should not|no longer)\s+(?:need to\s+)?(?:repeat|recur)s?"
                           r"(?:\s+any\s?more)?|\bstop\s+(?:it\s+)?(?:repeating|recurring)\b|\bone-off\b|\bno longer recurring\b", re.I)
_ARCHIVE = re.compile(r"归档|存档|\barchive\b", re.I)
_PRIORITY_ZH = re.compile(r"优先级\s*(?:调|提|改|升|降|设)(?:得|到|成|为)?\s*(?P<a>高|低)|(?P<b>提高|调高|升高|提升|降低|调低)\s*(?:一下|一点)?\s*(?:它的|(?P<x>[^，,。的]{1,12})的)?优先级")
_A_BIT_ZH = re.compile(r"(?:高|低|多|少)一点")
_NEW_DUE_ZH = re.compile(r"(?:截止|到期|完成)(?:时间|日期|日)?\s*(?:改成|改到|换成|推到|延到|调到|提前到|定在|改为)\s*(?P<d>[^，,。；;]+)")
_RENAME_ZH = re.compile(r"(?:改个名字?|改名字?|换个名字?|名字改(?:一下)?)\s*[，,]?\s*(?:叫做?|叫作|为|成|改成)\s*[“\"《]?(?P<n>[^，,。；;”\"》]+)[”\"》]?")
_TAIL_WORDS_ZH = (r"(?:不想记了?|不想坚持了?|不想练了?|不练了?|不做了?|没用了?|用不上了?|取消了?|不要了?|不用了?|作废了?|泡汤了?"
                  r"|黄了|改个名字?|改名字?|以后|之后|就行|就好|彻底)")
_LOOKUP_TAIL_ZH = re.compile(rf"(?<=\S{{2}})\s*{_TAIL_WORDS_ZH}\s*$")
_LOOKUP_LEAD_ZH = re.compile(r"^(?:旧的|以前的|之前的|原来的|那个旧的)(?=\S{2})|^(?:甭管|别管|不管)(?:那个?|这个?)?(?=\S{2})")
_LOOKUP_LEAD_EN = re.compile(r"^(?:done|finished)\s+(?:tracking\s+|with\s+|doing\s+)?(?=\S)|^(?:the\s+)?(?:old|previous)\s+(?=\S+\s+\S)", re.I)
_LOOKUP_TAIL_EN = re.compile(r"\s+(?:and\s+(?:all\s+)?(?:its|the|their)\s+(?:history|records|check-?ins|entries|logs)|while\s+.+|for\s+(?:now|a\s+while|the\s+"
                             r"(?:summer|holidays?|week|month))|(?:does(?:n't| not)|do(?:n't| not)|no longer)\s+(?:repeat|recur).*)$", re.I)
# What follows the name in its sentence: another clause, the day it falls on, "it" or "thing"
# left over ("the Easter cards; it is no longer needed", "the dentist thing on the 18th").
_AFTER_NAME_EN = re.compile(r"\s*;.*$|\s+on\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b.*$|\s+it$|\s+(?:thing|stuff)$", re.I)
_LOOKUP_KEYS = ("content", "title", "habit", "item", "name")


def changes(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """Fill what an update says and trim the looked-up name of an update or delete."""
    if action == "update_note":
        note_update(text, props, out)
    zh = re.search("[\u4e00-\u9fff]", text) is not None
    if "repeat" in props and (_NO_REPEAT_ZH if zh else _NO_REPEAT_EN).search(text):
        out["repeat"] = "none"  # "不用再重复了", "doesn't repeat anymore": the rule is dropped
    status = props.get("status", {}).get("enum", [])
    if "archived" in status and not out.get("status") and _ARCHIVE.search(text):
        out["status"] = "archived"
    if "priority" in props and zh and (m := _PRIORITY_ZH.search(text)):
        word = m.group("a") or m.group("b")
        out["priority"] = "high" if word in ("高", "提高", "调高", "升高", "提升") else "low"
        name_key = next((k for k in ("content", "title") if k in props), None)
        if m.group("x") and name_key and (not out.get(name_key) or m.group("x") in str(out[name_key])):
            out[name_key] = m.group("x")  # "降低一下遛狗的优先级": the task is 遛狗
        for key in ("due", "time"):  # the 一点 of 调高一点 is no one o'clock
            if isinstance(out.get(key), str) and out[key].strip() == "一点" and _A_BIT_ZH.search(text):
                del out[key]
    if "due" in props and zh and (m := _NEW_DUE_ZH.search(text)):
        said = m.group("d").strip()
        out["due"] = said
        for key in ("new_content", "new_title"):
            if out.get(key) == said:
                del out[key]
    if out.get("repeat"):  # "把浇花改成每周重复": what is left of the rule is no new name
        for key in ("new_content", "new_title"):
            if isinstance(out.get(key), str) and re.fullmatch(r"\s*(?:重复|循环)(?:一次)?\s*", out[key]):
                del out[key]
        for key in _LOOKUP_KEYS:
            if isinstance(out.get(key), str):
                out[key] = re.sub(r"(?<=\S)\s+(?:重复|循环)$", "", out[key])
    new_key = next((k for k in ("new_title", "new_name", "new_content") if k in props), None)
    if new_key and zh and not out.get(new_key) and (m := _RENAME_ZH.search(text)):
        out[new_key] = m.group("n").strip()
    for key in _LOOKUP_KEYS:
        value = out.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        if re.search("[\u4e00-\u9fff]", value):
            value = _LOOKUP_LEAD_ZH.sub("", value.strip())
            # a word the lookup left behind after a gap ("旧的装修预算 没用"): the name is before it
            head, _, rest = value.partition(" ")
            if rest and re.fullmatch(_TAIL_WORDS_ZH, rest.strip()):
                value = head
            for _ in range(2):  # "钢琴课以后不用": two tail words
                value = _LOOKUP_TAIL_ZH.sub("", value).strip()
            if key == "item":  # "洗衣液和卫生纸都买好了": the 都 of the verb
                value = re.sub(r"(?<=\S)(?:都|也|全都|全)$", "", value)
            value = re.sub(r"(?<=\S{2})\s*也(?:打|要|来|记)?(?:一下|个卡|卡)?$", "", value)  # "冥想也打一下": one more of the same
        else:
            value = _LOOKUP_TAIL_EN.sub("", _LOOKUP_LEAD_EN.sub("", value.strip())).strip()
            value = re.sub(r"(?<=\S)\s+(?:too|as well|also)$", "", value, flags=re.I)  # "flossing too"
            if value.isascii():
                value = _AFTER_NAME_EN.sub("", _AFTER_NAME_EN.sub("", value)).strip() or value
        out[key] = value or out[key]


_NOTE_TITLE_ZH = re.compile(r"(?:给|在|把|将|往)?\s*[“\"「]?(?P<t>[^“”\"「」，,：:\s给在把将往]{1,12}?)[”\"」]?\s*(?:那条|这条|那个|这个|那篇|的)?\s*(?:笔记|便签|备忘)")
_NOTE_TITLE_EN = re.compile(r"\b(?:the|my|our)\s+['\"‘“]?(?P<t>[\w'’ -]{1,30}?)['\"’”]?\s+note\b", re.I)
_APPEND_ZH = re.compile(r"(?:后面|末尾|最后|里面?|上)?\s*(?:再)?(?:加|补|追加|添|写)(?:上|一句|一行|一条|一点|一下)?\s*[：:]\s*(?P<a>\S.*)$")
_APPEND_EN = re.compile(r"^(?:please\s+)?(?:add|append|put)\s+(?:to\s+(?:the|my)\s+.+?\bnote\s*[:,-]\s*(?P<a>\S.*)"
                        r"|(?P<b>['\"‘“].+?['\"’”]|.+?)\s+(?:to|onto|at the end of)\s+(?:the|my)\s+.+?\bnote)\s*$", re.I)
_REPLACE_ZH = re.compile(r"(?:内容)?\s*(?:换成|改成|改为|替换成|替换为|更新为|更新成)\s*[：:]?\s*(?P<c>\S.*)$")
_REPLACE_EN = re.compile(r"^(?:please\s+)?(?:update|change|rewrite|edit)\s+(?:the|my)\s+.+?\bnote\s*(?:,|:|-|to say|so it says|to read)\s*(?P<c>\S.*)$", re.I)
_TAGS_ZH = re.compile(r"(?:加上|加个|加|打上|打个|打|添加|添上|贴上)\s*(?:个|一个|两个|几个)?\s*(?:标签)?\s*(?P<x>.+?)\s*(?:这?(?:两|几|三)?个)?\s*标签\s*$"
                      r"|(?:加上|加|打上|添加)\s*标签\s*[：:]?\s*(?P<y>.+)$")
_TAGS_EN = re.compile(r"^(?:please\s+)?tag\s+(?:the|my)\s+.+?\bnote\s+(?:with|as)\s+(?P<x>.+)$", re.I)


def _tag_words(said: str) -> list[str]:
    quoted = re.findall(r"[“\"'‘「](.+?)[”\"'’」]", said)
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    return [w for w in re.split(r"\s*(?:和|、|跟|，|,|\band\b|&)\s*|\s+", said.strip(" 。.")) if w]


def note_update(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"给物业电话那条笔记加上“重要”和“家里”两个标签", "在“车辆信息”那条笔记后面加一句：…",
    "wifi那条笔记内容换成：…", "Tag the boiler note with 'a' and 'b'", "Add to the X note: …":
    the note looked up by its words, and what it gets."""
    said = text.strip()
    zh = re.search("[\u4e00-\u9fff]", said) is not None
    title = (_NOTE_TITLE_ZH if zh else _NOTE_TITLE_EN).search(said)
    if title is None:
        return
    name = title.group("t").strip()
    if not zh:
        name = re.sub(r"^(?:old|new)\s+", "", name, flags=re.I)
    rest = said[title.end():]
    tags = (_TAGS_ZH.search(rest) if zh else _TAGS_EN.search(said))
    appended = _APPEND_ZH.search(rest) if zh else _APPEND_EN.search(said)
    replaced = _REPLACE_ZH.search(rest) if zh else _REPLACE_EN.search(said)
    found: dict[str, Any] = {}
    if tags and "tags" in props:
        words = _tag_words(next(g for g in tags.groups() if g))
        if words:
            found["tags"] = words
    elif appended and "append" in props:
        found["append"] = (appended.group("a") or appended.group("b") or "").strip().strip("'\"‘’“”")
    elif replaced and "content" in props:
        found["content"] = replaced.group("c").strip()
    if not found:
        return
    for key in ("content", "append", "new_title", "tags"):
        if key not in found:
            out.pop(key, None)  # what the slots read off the changes is replaced by what was found
    out.update(found)
    out["title"] = name
