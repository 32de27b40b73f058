"""What a health or diary record says besides its name: when someone went to bed and got
up and how they slept, a medicine's dose, a mood's score and its degree words, what a dream
was and how it felt on waking.

Each function reads the utterance and the slots filled so far and fills or trims the
record's own keys; none invents a value the utterance does not say."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from homeagent.intent.frames import BY_ACTION as FRAMES
from homeagent.numbers import NUM, parse_number
from homeagent.text import has_han

_CLOCK_ZH = r"[\d一二两三四五六七八九十]{1,3}\s*[点點:：]\s*(?:半|一刻|三刻|[\d一二三四五六七八九十]{1,3}\s*分?)?"
_NIGHT_ZH = r"(?:昨晚|昨天晚上|昨夜|今晚|晚上|夜里|半夜|凌晨)"
_MORNING_ZH = r"(?:今天早上|今早|早上|早晨|上午|中午|凌晨)"
_BED_ZH = re.compile(rf"(?P<w>{_NIGHT_ZH}?\s*{_CLOCK_ZH})\s*(?:多)?(?:才|就)?(?:上床|入睡|睡着|睡觉|睡的|睡)")
_WAKE_ZH = re.compile(rf"(?P<w>{_MORNING_ZH}?\s*{_CLOCK_ZH})\s*(?:多)?(?:才|就)?(?:起床|起来|起的|醒的|醒来|醒了|醒|起)")
_EN_CLOCK = r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?(?![\w:])"
_BED_EN = re.compile(rf"\b(?:went to bed|go to bed|to bed|in bed|bed|fell asleep|asleep|lights out|slept)\s+(?:at|around|about|by)\s+"
                     rf"(?:around\s+|about\s+)?(?P<w>{_EN_CLOCK})", re.I)
_WAKE_EN = re.compile(rf"\b(?:woke(?:\s+up)?|wake(?:\s+up)?|got up|get up|up|awake|rose)\s+(?:at|around|about|by)\s+"
                      rf"(?:around\s+|about\s+)?(?P<w>{_EN_CLOCK})", re.I)
_QUALITY_ZH = re.compile(r"(?:睡得|睡眠质量|质量)\s*(?P<q>(?:很|挺|特别|非常|不太|比较|超级?|还算|还|真)?(?:不错|一般|糟糕|不好|好|差|香|烂|沉|浅|踏实))")
_QUALITY_EN = re.compile(r"\bslept\s+(?P<a>great|well|badly|poorly|terribly|fine|okay|ok|awfully|soundly|like a log|so-so)\b"
                         r"|\b(?P<b>terrible|bad|good|great|awful|rough|restless|poor|decent|lovely|broken|solid)\s+(?:night|sleep)\b"
                         r"|\b(?:sleep\s+)?quality\s+(?:was\s+|is\s+)?(?P<c>\w+)", re.I)


def _hour(clock: str) -> int | None:
    m = re.match(r"\s*(\d{1,2}|[一二两三四五六七八九十]{1,3})", clock)
    number = parse_number(m.group(1)) if m else None
    return None if number is None else int(number)


def sleep(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"昨晚11点睡的，早上6点半起" → bedtime 昨晚11点, wake 早上6点半; "went to bed at 11:30,
    up at 7" → bedtime 11:30 pm, wake 7 am; "睡得很差" / "terrible night" → the quality."""
    said_date = out.get("date")
    if "bedtime" in props and not out.get("bedtime"):
        m = _BED_ZH.search(text)
        if m:
            value = m.group("w").strip()
            if not re.match(_NIGHT_ZH, value):  # a bare hour to bed: at night, or the small hours
                hour = _hour(value)
                value = ("凌晨0" + re.sub(r"^\s*(?:12|十二)", "", value) if hour == 12
                         else ("凌晨" if hour is not None and hour < 5 else "晚上") + value)
            out["bedtime"] = value
        elif m := _BED_EN.search(text):
            value = m.group("w").strip()
            if not re.search(r"[ap]\.?m\.?$", value, re.I):
                hour = _hour(value)
                value += " am" if hour is not None and (hour < 5 or hour == 12) else " pm"
            out["bedtime"] = value
    if "wake" in props and not out.get("wake"):
        m = _WAKE_ZH.search(text)
        if m and not (out.get("bedtime") and m.group("w").strip() in str(out["bedtime"])):
            value = m.group("w").strip()
            out["wake"] = value if re.match(_MORNING_ZH, value) else "早上" + value
        elif m := _WAKE_EN.search(text):
            value = m.group("w").strip()
            out["wake"] = value if re.search(r"[ap]\.?m\.?$", value, re.I) else value + " am"
    if isinstance(said_date, str) and (out.get("bedtime") or out.get("wake")) and re.search(r"\d|[点點]", said_date):
        del out["date"]  # the day slot took the hour of going to bed ("昨晚11点", "at 11:30"): no day
    if "hours" in props and out.get("hours") in (None, "") and (h := re.search(r"(?<![\w.])(\d{1,2}(?:\.\d)?)\s*(?:h|hrs?)\b", text, re.I)):
        out["hours"] = h.group(1) + " hours"  # "Record sleep 8h"
    if "quality" in props and not out.get("quality"):
        if m := _QUALITY_ZH.search(text):
            out["quality"] = m.group("q")
        elif m := _QUALITY_EN.search(text):
            out["quality"] = next(g for g in m.groups() if g)


_DOSE_UNIT_EN = (r"(?:capsules?|tablets?|pills?|drops?|puffs?|sprays?|spoonfuls?|teaspoons?|tablespoons?|tsp|tbsp|sachets?|doses?"
                 r"|gummies|gummy|lozenges?|patch(?:es)?|injections?|shots?)")
_DOSE_EN = re.compile(rf"\b(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|six|half a|an?)\s+(?P<u>{_DOSE_UNIT_EN})\b", re.I)
_MASS_DOSE_EN = re.compile(r"\b\d+(?:\.\d+)?\s*(?:mg|mcg|µg|ml|milligrams?|millilit(?:re|er)s?|iu|units)\b", re.I)
_COUNT_BEFORE_NAME_EN = re.compile(r"\b(?:took|take|taken|had|gave\s+\w+|give\s+\w+|swallowed)\s+(?P<n>\d+|one|two|three|four|five|six)\s+(?=[a-z])",
                                   re.I)
_GAVE_SOMEONE_EN = re.compile(r"^(?i:i\s+)?(?i:just\s+)?(?i:gave|give)\s+(?:[A-Z][a-z]+|him|her|them|(?:the|my|our) \w+)\s+"
                              r"(?:(?:some|his|her|their)\s+)?(?:\d+(?:\.\d+)?\s*(?i:mg|ml)\s+)?(?:of\s+)?")
_WHO_LEAD_ZH = re.compile(r"^(?:我|爸爸|妈妈|老爸|老妈|爸|妈|奶奶|爷爷|外婆|外公|姥姥|姥爷|孩子|宝宝|小宝|老人|老公|老婆)?\s*"
                          r"(?:今天|今早|早上|中午|晚上|刚才|刚刚|刚|已经)?\s*(?:的)?\s*(?=\S{2})")
_TAKEN_TAIL_ZH = re.compile(r"(?<=\S{2})\s*(?:已经|刚刚?|都|也)?\s*(?:吃过了|吃了|吃过|服了|服过|喝了|用了|抹了|滴了|打过了|打了|打过|打|注射了|喷了|贴了)?\s*(?:已经)?$")


_FED_ZH = re.compile(r"(?:喂了|喂|给.{1,4}吃了|吃了|服了|喝了|用了)(?:一|两|半)?(?:片|粒|颗|袋|支|勺)?(?P<m>[\u4e00-\u9fffA-Za-z]{2,8}?)"
                     r"(?=\s*(?:\d|[一二两三四五六七八九十半]\s*(?:片|粒|颗|袋|支|勺|毫升|ml|滴|次))|[，,。]|$)")


def medicine(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"我刚吃了一片布洛芬" → 布洛芬; "爸今天的降压药已经吃了" → 降压药; "one capsule" → that
    dose; "took two paracetamol" → a dose of two; "gave Lily 5ml of Calpol" → Calpol."""
    name = out.get("medicine")
    fed = _FED_ZH.search(text)
    if fed is not None and isinstance(name, str) and name.strip() not in fed.group("m"):
        name = out["medicine"] = fed.group("m")  # "孩子咳嗽，刚喂了止咳糖浆10毫升": what was given, not why
    if isinstance(name, str) and name.strip():
        if re.search("[\u4e00-\u9fff]", name):
            trimmed = _TAKEN_TAIL_ZH.sub("", _WHO_LEAD_ZH.sub("", name.strip())).strip()
            out["medicine"] = trimmed or name
        else:
            out["medicine"] = _GAVE_SOMEONE_EN.sub("", name.strip()).strip() or name
    if "dose" in props and not out.get("dose") and text.isascii():
        if m := _MASS_DOSE_EN.search(text):
            out["dose"] = m.group(0)  # "Metformin 500 mg", "5ml of Calpol"
            name = out.get("medicine")
            if isinstance(name, str) and m.group(0) in name:  # "amlodipine 5mg": the name alone
                out["medicine"] = " ".join(name.replace(m.group(0), " ").split()).strip(" ,") or name
        elif m := _DOSE_EN.search(text):
            out["dose"] = m.group(0)  # as said: "one capsule"
        elif m := _COUNT_BEFORE_NAME_EN.search(text):
            out["dose"] = m.group("n")


_DEGREE_ZH = re.compile(r"^(?:今天|现在|此刻|这会儿|最近|这两天|今晚|早上)?\s*(?:心情|感觉|觉得)?\s*"
                        r"(?:有点儿?|有些|很|挺|特别|非常|比较|超级?|好|太|蛮|真的?)\s*(?=\S)")
_RECORD_AS_ZH = re.compile(r"^(?:心情)?(?:记成|记为|记作|写成|算是?)\s*(?=\S)")
_MOOD_AS_EN = re.compile(r"\bmood\s+(?:as|is|was|to|at)\s+(?P<m>[a-z][\w '-]*?)\s*[.!]?$", re.I)
_SCORE_EN = re.compile(r"\b(?:maybe\s+|like\s+|about\s+|around\s+)?(?:a|an)\s+(?P<n>[1-5])(?:\s*(?:/|out of)\s*5)?\s*[.!]?$"
                       r"|\b(?P<m>[1-5])\s*(?:/|out of)\s*5\b|\b(?:score|rating|rate(?:\s+it)?)\s*(?:of|is|:)?\s*(?P<k>[1-5])\b", re.I)


_MOOD_HEAD = re.compile(r"^(?:(?:心情|情绪)?(?:记录一下|记录|记一下|记下)\s*[：:]\s*|(?:今天|现在|此刻)?\s*mood\s*(?=\S))", re.I)
_BARE_SCORE_EN = re.compile(r"^[^,]*\bmood\b[^,]*,\s*(?P<n>[1-5])\s*[.!]?$", re.I)


def mood(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"今天很开心" → 开心, "记成平静" → 平静, "put down my mood as content" → content,
    "maybe a 2" → a score of 2."""
    value = out.get("mood")
    if isinstance(value, str):  # what the score's words left ("like a — …", "maybe a")
        value = re.sub(r"\s*\b(?:maybe|like|about|around)\s+an?\b\s*(?=[—–-]|[,，]|$)", "", value, flags=re.I).strip()
        out["mood"] = value or out["mood"]
    if isinstance(value, str):  # "心情记录：难过", "今天mood有点down": the command and the word "mood" are not the mood
        value = out["mood"] = _MOOD_HEAD.sub("", value.strip()) or value
    head = re.split(r"[，,。；;！!]", value)[0] if isinstance(value, str) else ""
    if isinstance(value, str) and re.search("[\u4e00-\u9fff]", text) and not re.search(_MOODS_ZH, head):
        # "心情打个4分吧，挺开心的，…": the slot took the command; the mood is the clause that names one
        for clause in re.split(r"[，,。；;！!]", text):
            # (who and when lead it, whom it is said to ends it: "我心情挺低落的", "今天心情特别好", "emo了家人们")
            bare = _MOOD_FRAME_ZH.sub("", clause.strip())
            said = _MOOD_CLAUSE_ZH.fullmatch(bare) or _MOOD_NAMED_ZH.fullmatch(bare)
            if said:
                taken = value
                out["mood"] = value = said.group("m")
                note = out.get("note")
                if isinstance(note, str) and clause.strip() in note:
                    out["note"] = note.replace(clause.strip(), "").strip(" ，,") or note
                elif ("note" in props and not note and len(taken.strip()) >= 2 and taken.strip() not in clause
                      and not re.search(r"[，,]|记|心情", taken)):
                    # "刚才和老公吵了一架，心情很差": what happened is the note (its time is the record's)
                    out["note"] = re.sub(r"^(?:刚才|刚刚|今天|早上|晚上)\s*(?=\S{2})", "", taken.strip())
                break
    elif isinstance(value, str) and re.search(_MOODS_ZH, head) and head != value:
        value = out["mood"] = head  # "开心，心情(打5分)": the mood is the clause that names it
    if isinstance(value, str) and (said_alone := _MOOD_CLAUSE_ZH.fullmatch(_MOOD_FRAME_ZH.sub("", value.strip()))):
        value = out["mood"] = said_alone.group("m")  # "emo了家人们": emo
    if isinstance(value, str) and value.strip():
        if re.search("[\u4e00-\u9fff]", value):
            trimmed = _DEGREE_ZH.sub("", _RECORD_AS_ZH.sub("", value.strip()))
            # "很开心" is 开心, but "挺好" stays whole: a one-character mood keeps its degree word.
            out["mood"] = trimmed if len(trimmed) >= 2 else _RECORD_AS_ZH.sub("", value.strip())
        elif m := _MOOD_AS_EN.search(text):
            out["mood"] = m.group("m")
        elif re.match(r"(?:record|log|note|put down|write down)\b", value, re.I) and (m := _MOOD_CLAUSE_EN.search(text)):
            out["mood"] = m.group("m")  # "Record that I'm feeling happy": the slot took the command
        else:  # "great today": the day is the record's time, not its mood
            out["mood"] = re.sub(r"\s+(?:today|tonight|right now|this morning|this evening)(?=\s*(?:[,;—–-]|$))", "", value.strip(),
                                 count=1, flags=re.I) or value
    if "score" in props and out.get("score") in (None, "") and text.isascii() and (m := _BARE_SCORE_EN.search(text)):
        out["score"] = int(m.group("n"))  # "Mood check: tired, 3"
        if str(out.get("note", "")).strip() == m.group("n"):
            del out["note"]
    if "score" in props and out.get("score") in (None, "") and text.isascii() and (m := _SCORE_EN.search(text)):
        out["score"] = int(next(g for g in m.groups() if g))
        note = out.get("note")
        if isinstance(note, str) and _SCORE_EN.search(note) and len(note) < 20:
            del out["note"]


_DREAMT_ZH = re.compile(r"^(?:昨晚|昨天晚上|昨夜|今早|晚上)?\s*(?:我)?\s*(?:又|做梦)?(?:梦见|梦到|梦里|梦着|做了个梦，?)\s*(?:了)?\s*(?=\S)")
_DREAMT_EN = re.compile(r"^(?:last night\s*,?\s*)?(?:i\s+)?(?:dreamt|dreamed|dream|had a dream|had this dream)\s+(?:that\s+|about\s+|of\s+)?"
                        r"|^(?:i\s+was\s+|i\s+am\s+|i'm\s+)(?=\w+ing\b)", re.I)
# The word that names a dream, with what is said of it before the dream itself ("I dreamt
# (that)", "a weird dream on Sunday night about", "Record my dream from last night,", "Dream
# journal:", "a nightmare that"); "I was …" and "my teeth …" are the dream, as households
# write it (blinds 1-10 keep "I was" ten times in twelve).
_DREAM_TOLD_EN = re.compile(r"\b(?:dreamt|dreamed|dream|nightmare)(?:\s+(?:journal|diary|log))?"
                            r"(?:\s+(?:last night|again|from last night|on \w+(?: night)?|the other night))*"
                            r"(?:\s+(?:that|about|where|of))?\s*(?:[:,—–-]\s*)?(?=\S)", re.I)
# Asking for it to be kept, said after the dream: none of the dream.
_DREAM_KEEP_EN = re.compile(r"[,.;!\s]*(?:(?:please|can you|could you)\s+)?(?:write (?:it|that) down|log (?:it|that)|note (?:it|that)(?: down)?"
                            r"|save (?:it|that)(?: to my dream (?:journal|diary|log))?|record (?:it|that)|keep (?:it|that))[.!\s]*$", re.I)
# A feeling said last, on its own ("…, pretty unsettling"): the dream's mood.
_FELT_AFTER_EN = re.compile(r"[,.;]\s*(?:pretty|really|so|very|quite|kinda|kind of|a bit|super)\s+(?P<m>[a-z]+)\s*[.!]?$", re.I)
_WOKE_ZH = re.compile(r"[，,。\s]*(?:醒来|醒了以后|醒了|醒后|感觉|觉得)(?:以后|之后)?\s*(?:有点儿?|有些|很|挺|特别|非常|好|超级?)?\s*"
                      r"(?P<m>[\u4e00-\u9fff]{1,4}?)(?:了|的)?\s*(?=[，,。]|$)")
# A feeling said last, on its own ("…，挺开心的", "还挺好玩的"): the dream's mood.
_FELT_AFTER_ZH = re.compile(r"[，,。]\s*(?:还|真|也)?(?:挺|很|特别|非常|好|超级?|有点儿?|蛮)(?P<m>[\u4e00-\u9fff]{1,4}?)(?:的|了|啊|呀)?\s*$")
_WOKE_EN = re.compile(r"[,.;\s]+(?:and\s+)?(?:it\s+)?(?:felt|feeling|woke\s+up|woke|i\s+woke\s+up|i\s+felt)\s+(?:so\s+|really\s+|very\s+|pretty\s+|kind of\s+)?"
                      r"(?P<m>[a-z][a-z -]{1,20}?)\s*[.!]?$", re.I)


def dream(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"梦见自己在考试" → 自己在考试; "醒来有点难过" → mood 难过 (and out of the dream);
    "I dreamt I was late for an exam" → late for an exam; "it felt amazing" → mood amazing."""
    content = out.get("content")
    if not isinstance(content, str) or not content.strip():
        return
    content = re.sub(r"^.{0,30}?\bdream\b\s*[—–:-]\s*", "", content.strip(), flags=re.I) or content.strip()  # "Record my dream — …"
    if re.search("[\u4e00-\u9fff]", content):
        said = re.search(r"(?:梦见|梦到)(?P<c>[^，,。；;]+?)(?:了)?(?=[，,。；;]|$)", text)
        if said and not re.search(r"梦见|梦到", content) and said.group("c").strip() not in content:
            content = said.group("c").strip()  # the slot took the wrong clause ("醒来有点难过")
        woke = _WOKE_ZH.search(content) or _WOKE_ZH.search(text) or _FELT_AFTER_ZH.search(content)
        if woke and "mood" in props and not out.get("mood"):
            out["mood"] = woke.group("m")
        if woke and woke.group(0) in content:
            content = content.replace(woke.group(0), "").strip(" ，,。") or content
        content = _DREAMT_ZH.sub("", content) or content
        out["content"] = content.removesuffix("了") if len(content) > 3 and content.endswith("了了") else content
        return
    told = _DREAM_TOLD_EN.search(text)
    if told:  # the dream as it was told, from the words after the one that names it
        content = _DREAM_KEEP_EN.sub("", text[told.end():]).strip(" ,.;") or content
    woke_en = _WOKE_EN.search(content) or _FELT_AFTER_EN.search(content)
    if woke_en and "mood" in props and not out.get("mood"):
        out["mood"] = woke_en.group("m").strip()
    if woke_en:
        content = content[:woke_en.start()].strip(" ,.;") or content
    if not told:
        content = _DREAMT_EN.sub("", content).strip()
    out["content"] = re.sub(r"[,;]?\s*(?:log|save|record|note) it\.?$", "", content, flags=re.I).strip() or content


_HOWTO_ZH = re.compile(r"(?:把|记下|记一下|存一下)?\s*(?P<d>[^，,：:。把]{2,12}?)的(?:做法|菜谱|食谱)(?:记下来|记一下|存一下|存下来|记住|写下来)?\s*[：:，,]\s*")
_HEAD_ZH = re.compile(r"(?P<kw>菜谱|食谱|配方)\s*[：:，,]\s*")
_COMMAND_ZH = re.compile(r"[帮我给存记个一下新加添保写录把个道份]")
_HEAD_EN = re.compile(r"\b(?P<kw>recipe)\b(?:\s+for\s+|\s*[:,]\s*)", re.I)
_COMMAND_EN = re.compile(r"\b(?:please|can you|could you|save|add|keep|store|new|a|an|this|my|log|record|write down|jot down|here'?s|here is)\b", re.I)
_STEP_ZH = re.compile(r"先|再|然后|最后|炒|煎|煮|焯|炖|蒸|烤|倒|腌|切|拌|收汁|翻|焖|下锅|出锅|分钟|小火|大火")
_STEP_EN = re.compile(r"\b(?:melt|add|cook|bake|mix|stir|fry|boil|chop|preheat|then|first|simmer|whisk|pour|blend|roast|grill"
                      r"|season|serve|minutes?|heat|saut[eé]|knead|marinate)\b", re.I)
_INGREDIENTS_LEAD = re.compile(r"^(?:要|需要|用|材料|食材|用料|配料)\s*(?:是|有)?\s*[：:]?\s*|^(?:ingredients|you need|you'll need)\s*[:,-]?\s*",
                               re.I)


def _recipe_body(text: str) -> tuple[str, str] | None:
    """(dish, what follows it) when the dish is said after the recipe's command words."""
    if m := _HOWTO_ZH.search(text):
        return m.group("d").strip(), text[m.end():]
    zh = re.search("[\u4e00-\u9fff]", text) is not None
    m = (_HEAD_ZH if zh else _HEAD_EN).search(text)
    if m is None:
        return None
    before = (_COMMAND_ZH if zh else _COMMAND_EN).sub("", text[:m.start()])
    if re.search(r"\w", before):
        return None  # "Add my mum's shepherd's pie recipe": the dish came first
    body = text[m.end():].strip()
    if zh:
        dish, _, rest = (re.split(r"([：:，,])", body, maxsplit=1) + ["", ""])[:3]
    elif ":" in body:
        dish, _, rest = body.partition(":")
    elif m2 := re.search(r"\s+with\s+", body):
        dish, rest = body[:m2.start()], body[m2.end():]
    else:
        dish, _, rest = body.partition(",")
    return (dish.strip(" ，,"), rest.strip(" ，,")) if dish.strip(" ，,") else None


def recipe(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"存个菜谱：番茄炒蛋，番茄和鸡蛋，先炒蛋再炒番茄" → the dish 番茄炒蛋, ingredients 番茄 and
    鸡蛋, steps 先炒蛋再炒番茄; "save a recipe for banana bread: bananas, flour, eggs" → the
    dish and its ingredients; "…的做法记下来：鸡翅焯水，…" → the steps."""
    found = _recipe_body(text.strip().rstrip("。.!！"))
    if found is None:
        return
    dish, rest = found
    out["dish"] = dish
    zh = re.search("[\u4e00-\u9fff]", text) is not None
    clauses = [c for c in re.split(r"[，,；;]\s*", rest) if c.strip()]
    step_at = next((i for i, c in enumerate(clauses) if (_STEP_ZH if zh else _STEP_EN).search(c)), None)
    if zh and step_at is not None and step_at > 0 and not re.search(r"[、和及]", "".join(clauses[:step_at])) \
            and not _INGREDIENTS_LEAD.match(clauses[0]):
        step_at = 0  # (one clause before the steps that lists nothing is a step too)
    if step_at is not None and "steps" in props and not out.get("steps"):
        said = rest.find(clauses[step_at])
        out["steps"] = rest[said:].strip(" ，,。.")
    listed = clauses[:step_at] if step_at is not None else clauses
    if listed and "ingredients" in props and not out.get("ingredients"):
        words = _INGREDIENTS_LEAD.sub("", "，".join(listed))
        parts = [p.strip(" .") for p in re.split(r"[、，,]\s*|\s*(?:和|及|以及)\s*|\s+(?:and|&)\s+|,\s*and\s+", words) if p and p.strip(" .")]
        if len(parts) >= 2:
            out["ingredients"] = parts
    note = out.get("note")
    if isinstance(note, str) and note.strip() and note.strip(" ，,。.") in rest:
        del out["note"]  # the note was a piece of the steps or the list


_HAN = "\u4e00-\u9fff"
_HOSPITAL_ZH = re.compile(rf"(?:在|去|到|上)?\s*(?P<h>[{_HAN}A-Za-z0-9]{{2,10}}?(?:医院|诊所|卫生院|门诊部|卫生服务中心|医疗中心|体检中心|牙科|口腔|(?<=[市省区县])[一二三四五六七八九]院))"
                          rf"(?P<d>[{_HAN}]{{1,5}}?科)?(?=看|就诊|挂|复查|检查|做|拍|拿|开|输|打|的|了|，|,|$)")
_DEPARTMENT_ZH = re.compile(rf"(?:挂了?|去|在|看了?)\s*(?P<d>[{_HAN}]{{1,5}}?科)(?:的)?(?:号|门诊)?")
_DOCTOR_ZH = re.compile(rf"(?P<doc>[{_HAN}]{{1,3}}(?:医生|大夫|主任))(?=说|讲|建议|嘱咐|让|看|开)")
_DIAGNOSIS_ZH = re.compile(r"(?:医生|大夫|主任)?(?:说是|说是个|诊断(?:为|是)|确诊(?:为|是|了)?|查出(?:来)?(?:是|了)?)\s*(?P<x>[^，,。；;]{2,16})")
_SAID_ZH = re.compile(r"(?:医生|大夫|主任)(?:说|讲|建议|嘱咐|让)(?!是)\s*(?P<n>[^，,。；;]{2,30})")
_BECAUSE_ZH = re.compile(rf"因为\s*(?P<r>[{_HAN}A-Za-z0-9]{{1,10}}?)(?:去|到|在|看|上|挂|，|,|$)")
_PATIENT_ZH = re.compile(r"^(?:我|爸爸|妈妈|老爸|老妈|爸|妈|奶奶|爷爷|外婆|外公|姥姥|姥爷|孩子|宝宝|小宝|儿子|女儿|老公|老婆)\s*"
                         r"(?:今天|昨天|前天|早上|上午|下午)?\s*(?:去|又|带\S{1,3}去)?\s*(?=\S{2})")
_DOCTOR_EN = re.compile(r"\b(?P<doc>(?:Dr\.?|Doctor)\s+[A-Z][\w'-]+)")
_HOSPITAL_EN = re.compile(r"\b(?:at|to)\s+(?:the\s+)?(?P<h>(?:[A-Z][\w'.-]*\s+){1,4}(?:Clinic|Hospital|Medical Cent(?:er|re)|Health Cent(?:er|re)|Surgery|Infirmary))\b")
_DIAGNOSIS_EN = re.compile(r"\b(?:said it(?:'s| is| was)|diagnosed (?:with|as)|turned out to be|it's|it was)\s+(?:a\s+|an\s+)?(?P<x>[a-z][\w -]{1,30}?)\s*[.!]?$",
                           re.I)
_SPECIALIST_EN = r"(?:eye doctor|dentist|dermatologist|orthodontist|optician|optometrist|pediatrician|paediatrician|cardiologist|physio|physiotherapist|GP|ENT)"
_SAW_EN = re.compile(rf"\b(?:saw|seen|see|visited|went to|go to|at)\s+(?:the|a|an|our|my|his|her)?\s*(?P<d>{_SPECIALIST_EN})\b", re.I)
_FOR_EN = re.compile(r"\bfor\s+(?:a\s+|an\s+|my\s+|his\s+|her\s+|their\s+|the\s+)?(?P<r>[a-z][a-z -]{1,30}?)"
                     r"(?=\s+(?:today|yesterday|this|last|on|at|with|and)\b|\s*[,.;]|$)", re.I)


_TRIP_ZH = re.compile(r"(?:今天|昨天|前天|上午|下午|早上)?\s*(?:去|到|在|上)?")
_DONE_THERE_ZH = re.compile(rf"(?P<v>做|看|拍|查|打|拔|补|洗)了?(?P<r>[{_HAN}]{{1,6}}?)(?=[，,。；;]|$)")


def medical(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A visit's hospital, department, doctor and diagnosis out of its reason: "在儿童医院
    呼吸科看的，医生说是支原体感染", "Dr. Patel at Riverside Clinic said it's strep"; the reason
    without the patient ("小宝发烧" → 发烧) or the trip ("因为湿疹去…" → 湿疹)."""
    if re.search(f"[{_HAN}]", text):
        if (m := _HOSPITAL_ZH.search(text)) and not out.get("hospital"):
            out["hospital"] = re.split(r"去|在|到|因为", m.group("h"))[-1]
            if m.group("d") and not out.get("department"):
                out["department"] = m.group("d")
        if not out.get("department") and (m := _DEPARTMENT_ZH.search(text)):
            out["department"] = m.group("d")
        if not out.get("doctor") and (m := _DOCTOR_ZH.search(text)):
            out["doctor"] = m.group("doc")
        if not out.get("diagnosis") and (m := _DIAGNOSIS_ZH.search(text)):
            out["diagnosis"] = m.group("x").strip()
        said = _SAID_ZH.search(text)
        if said and out.get("doctor") and not out.get("note"):
            out["note"] = said.group("n").strip()  # what the doctor said
        note = out.get("note")
        if isinstance(note, str) and (out.get("hospital") or out.get("diagnosis") or out.get("doctor")):
            kept = [c for c in re.split(r"[，,]\s*", note) if c and not any(str(out.get(k, "")) and str(out[k]) in c
                                                                               for k in ("hospital", "department", "diagnosis"))]
            if said and out.get("doctor"):
                kept = [said.group("n").strip() if said.group("n") in c else c for c in kept]
            if kept:
                out["note"] = "，".join(kept)
            else:
                del out["note"]
        reason = out.get("reason")
        if isinstance(reason, str) and reason.strip():
            if m := _BECAUSE_ZH.search(text):
                reason = m.group("r")
            elif isinstance(out.get("doctor"), str) and out["doctor"] in reason:
                # The slot took what the doctor said: the reason is the visit's own clause.
                first = next((c for c in re.split(r"[，,。；;]", text) if c.strip() and out["doctor"] not in c), "")
                reason = re.sub(r"^.*?[：:]", "", first).strip() or reason
            for key in ("hospital", "department"):  # "…去市一医院皮肤科": the trip is no reason
                place = out.get(key)
                if isinstance(place, str) and place and place in reason and reason.index(place) > 0:
                    before = reason[:reason.index(place)]
                    if not _TRIP_ZH.fullmatch(before.strip()):
                        reason = before
                    elif after := _DONE_THERE_ZH.match(text[text.index(place) + len(place):] if place in text else ""):
                        # "去社区医院做了体检", "去市一院看了牙": what was done there is the reason
                        reason = after.group("v").replace("做", "", 1) if after.group("v").startswith("做") else after.group("v")
                        reason += after.group("r")
            reason = re.sub(r"(?:去|到|在|上)$", "", _PATIENT_ZH.sub("", reason.strip()).strip()).strip(" ，,")
            out["reason"] = reason or out["reason"]
        return
    if not out.get("doctor") and (m := _DOCTOR_EN.search(text)):
        out["doctor"] = m.group("doc")
    if not out.get("hospital") and (m := _HOSPITAL_EN.search(text)):
        out["hospital"] = m.group("h").strip()
    if not out.get("diagnosis") and (out.get("doctor") or out.get("hospital")) and (m := _DIAGNOSIS_EN.search(text)):
        out["diagnosis"] = m.group("x").strip()
    if not out.get("department") and (m := _SAW_EN.search(text)) and m.group("d").casefold() not in ("dentist", "gp"):
        out["department"] = m.group("d")
    reason = out.get("reason")
    for key in ("doctor", "hospital"):  # "sore throat, Dr. Patel at …": the reason is what came before
        said = out.get(key)
        if isinstance(reason, str) and isinstance(said, str) and said and said in reason and reason.index(said) > 0:
            reason = out["reason"] = re.split(r"\s*[,;]\s*", reason[:reason.index(said)])[0].strip(" ,") or reason
    for_ = _FOR_EN.search(text)
    # "Saw Dr. Lee for my back pain": what the visit was for, when the slot holds a piece of the rest
    if for_ and (not isinstance(reason, str) or not reason or " " in reason.strip() or len(reason.strip()) <= 3):
        out["reason"] = for_.group("r").strip()
    note = out.get("note")
    if isinstance(note, str) and any(isinstance(out.get(k), str) and out[k] and out[k] in note for k in ("doctor", "hospital")):
        rest = note
        for key in ("doctor", "hospital", "diagnosis", "reason"):
            if isinstance(out.get(key), str) and out[key]:
                rest = rest.replace(out[key], " ")
        rest = re.sub(r"\b(?:at|said|it's|it is|for|my|the)\b", " ", rest)
        if re.search(r"[A-Za-z]{3,}", rest):
            out["note"] = re.sub(r"\s{2,}", " ", rest).strip(" ,.")
        else:
            del out["note"]


_SEARCH_ZH = re.compile(r"(?:上网|联网|在网上|网上|去网上)\s*(?:帮我)?\s*(?:搜索?|查查?|找找?|搜搜|查询)\s*(?:一下)?\s*(?P<q>\S.*)$")
_SEARCH_EN = re.compile(r"\b(?:look\s+up\s+online|look\s+online\s+for|search\s+online\s+for|(?:do|run)\s+an?\s+(?:web|online|internet)\s+search\s+(?:for|on)"
                        r"|search\s+the\s+(?:web|internet|net)\s+(?:for|about)|google)\s+(?P<q>\S.*)$", re.I)


def search(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """"上网搜一下明天杭州的天气" → 明天杭州的天气; "do a web search for flights…" → flights…:
    the words after the search's own, when the slot kept a piece of the command."""
    query = out.get("query")
    m = (_SEARCH_ZH if re.search("[\u4e00-\u9fff]", text) else _SEARCH_EN).search(text.strip().rstrip("?？。.!！"))
    if m is None:
        return
    found = m.group("q").strip()
    if not isinstance(query, str) or not query.strip() or query.strip() not in found or re.search(r"\b(?:online|web)\b", query):
        out["query"] = found


_WEATHER_ZH = re.compile(r"(?:今天|今儿|外面|天气)?(?:是|很)?(?P<w>(?:大|小|毛毛|中)?(?:晴转多云|阴转晴|雷阵雨|阵雨|多云|晴天?|阴天?|下雨天?|雨天|下雪天?|雪天|大风天?|雾霾天?|闷热|降温了?))(?:天气)?")
_WEATHER_EN = re.compile(r"(?:it was\s+|it's\s+)?(?:a\s+)?(?P<w>rainy|sunny|cloudy|snowy|windy|foggy|stormy|grey|gray|hot|freezing|cold|wet|drizzly)"
                         r"(?:\s+(?:day|morning|afternoon|evening|out))?", re.I)
_MOODS_ZH = (r"低落|开心|高兴|难过|伤心|焦虑|烦躁|郁闷|满足|疲惫|平静|兴奋|沮丧|失落|幸福|充实|崩溃|紧张|无聊|感动|生气|委屈|放松|愉快|轻松"
             r"|破防|emo|累|烦|丧|爽")
_MOOD_CLAUSE_ZH = re.compile(rf"(?:心情|感觉|觉得|人)?(?:有点儿?|有些|很|挺|特别|非常|比较|超级?|好|太|蛮|真)?(?P<m>(?:{_MOODS_ZH})(?:又(?:{_MOODS_ZH}))?)"
                             r"(?:得很|得要命|死了|极了|坏了)?(?:了|的|啊)?", re.I)
_MOOD_FRAME_ZH = re.compile(r"^(?:我们?|俺|今天|今儿个?|今早|今晚|昨天|昨晚|早上|晚上|这会儿|现在)+|(?<=\S)(?:家人们|姐妹们|兄弟们|宝子们|朋友们)$")
# "心情特别好", "mood is great": the mood named as such.
_MOOD_NAMED_ZH = re.compile(r"心情(?:是|还|也)?(?P<m>(?:很|特别|非常|挺|超级?|真|不太|有点儿?)?(?:好|不错|不好|差|一般|糟糕?|美丽))"
                            r"(?:得很|得要命|极了|透了)?(?:的|啊|呀)?")
_MOOD_NAMED_EN = re.compile(r"(?:my\s+)?mood(?:'s|\s+is|\s+was|:)\s*(?P<m>[a-z]+(?:\s+[a-z]+)?)", re.I)
_MOODS_EN = (r"happy|sad|tired|exhausted|proud|anxious|stressed|calm|content|cosy|cozy|grateful|lonely|angry|upset|relaxed|excited|bored"
             r"|drained|hopeful|frustrated|overwhelmed|peaceful|joyful|down|low|great|good|fine|awful|miserable|nervous|thankful|satisfied")
_MOOD_CLAUSE_EN = re.compile(rf"(?:i\s+)?(?:felt|feel|feeling|i'm|i am|was|am)\s+(?:so\s+|really\s+|very\s+|pretty\s+|a bit\s+|kind of\s+)?"
                             rf"(?P<m>(?:{_MOODS_EN})(?:\s+(?:but|and|yet)\s+(?:so\s+|really\s+|very\s+)?(?:{_MOODS_EN}))?)", re.I)


# The head that asks for a diary entry or a memo, and whom or which day it is for, before the
# entry's own words ("Leave a quick memo for everyone that …", "Put up a sticky note saying
# …", "I want to write today's diary. …", "给老公留个便条，…").
_TOLD_EN = {
    "write_diary": re.compile(r"^.{0,60}?\b(?:dear diary|diary(?:\s+entry)?|journal(?:\s+entry)?)\b", re.I),
    "create_memo": re.compile(r"^.{0,60}?\b(?:memo|sticky(?:\s+note)?|note on the fridge)\b", re.I),
}
_TOLD_FOR_EN = re.compile(r"^(?:\s+(?:for|to)\s+(?:today|yesterday|everyone|everybody|the family|the kids|all of us|[A-Z]\w+"
                          r"|(?:my|our)\s+\w+))?(?:\s+(?:at the top|on the fridge|on the board))?"
                          r"\s*(?:that|saying|which says|:|,|—|–|-|\.)\s+(?=\S)", re.I)
_TOLD_ZH = {
    "write_diary": re.compile(r"^.{0,12}?日记\s*[：:，,。]\s*"),
    "create_memo": re.compile(r"^.{0,12}?(?:便签|便条|留言条?|备忘)\s*[：:，,。]\s*"),
}
_PIN_SAID = re.compile(r"[，,。.;；]?\s*(?:置顶|顶上|(?:and\s+)?pin (?:it|that)(?: to the top)?)[.!。]?$", re.I)


def told(text: str, action: str, out: dict[str, Any]) -> None:
    """A diary entry's or a memo's words: every word after the head that asks for it."""
    if has_han(text):
        m = _TOLD_ZH[action].match(text)
        rest = text[m.end():] if m else ""
    else:
        head = _TOLD_EN[action].match(text)
        lead = _TOLD_FOR_EN.match(text[head.end():]) if head else None
        rest = text[head.end() + lead.end():] if head and lead else ""
    rest = _PIN_SAID.sub("", rest.strip()).strip(" ，,")
    if rest:
        out["content"] = rest


def memo(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    told(text, "create_memo", out)


def diary(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A diary entry's weather, mood and day said as clauses of their own ("今天阴天，有点低落，…",
    "rainy day, …, felt cosy", "Mood: a bit flat. Weather: rainy.", "3月1号，…") fill their slots
    and leave the entry's words: what is kept in its own field is not said twice. The rest of
    the entry is the user's prose, every word of it."""
    told(text, "write_diary", out)
    content = out.get("content")
    if not isinstance(content, str):
        return
    zh = re.search("[\u4e00-\u9fff]", content) is not None
    parts = re.split(r"([，,；;。]\s*)" if zh else r"(\s*[,;]\s*|(?<=[a-z])\.\s+)", content)
    clauses, seps = parts[::2], parts[1::2]
    said = sum(1 for c in clauses if c.strip())
    if said < 2:
        if isinstance(out.get("mood"), str) and zh:
            out["mood"] = _DEGREE_ZH.sub("", out["mood"]) if len(_DEGREE_ZH.sub("", out["mood"])) >= 2 else out["mood"]
        return
    kept: list[int] = []
    for i, raw in enumerate(clauses):
        clause = raw.strip().rstrip("!.！")
        labelled = _LABELLED_EN.fullmatch(clause) if not zh else None
        weather = (_WEATHER_ZH if zh else _WEATHER_EN).fullmatch(clause)
        mood_said = ((_MOOD_CLAUSE_ZH if zh else _MOOD_CLAUSE_EN).fullmatch(clause)
                     or (_MOOD_NAMED_ZH if zh else _MOOD_NAMED_EN).fullmatch(clause))
        day = _DAY_CLAUSE.fullmatch(clause)
        if labelled and labelled.group("k").casefold() in props and not out.get(labelled.group("k").casefold()):
            out[labelled.group("k").casefold()] = labelled.group("v").strip()
        elif weather and "weather" in props and (not out.get("weather") or out["weather"] == weather.group("w")):
            out["weather"] = weather.group("w")
        elif mood_said and "mood" in props and (not out.get("mood") or str(out["mood"]) in clause):
            out["mood"] = mood_said.group("m")
        elif day and i == 0 and "date" in props:
            out.setdefault("date", day.group(0).strip())
        elif clause:
            kept.append(i)
    if kept and len(kept) < said:  # each kept clause after the first with the separator said before it
        words = clauses[kept[0]].strip() + "".join(seps[i - 1] + clauses[i].strip() for i in kept[1:])
        out["content"] = words.strip(" ，,;；") or content


# "Mood: a bit flat", "Weather: rainy": a field said by its name; "3月1号", "yesterday": the entry's day.
_LABELLED_EN = re.compile(r"(?P<k>mood|weather)\s*:\s*(?P<v>[a-z][a-z ,'-]{0,30})", re.I)
_DAY_CLAUSE = re.compile(r"(?:\d{1,2}\s*月\s*\d{1,2}\s*[日号]|昨天|前天|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
                         r"(?:\s*的日记)?", re.I)
_FAMILY_ZH = r"(?:我|妈妈|爸爸|老妈|老爸|妈|爸|老婆|老公|媳妇|奶奶|爷爷|外婆|外公|姥姥|姥爷|孩子|儿子|女儿|宝宝|小[\u4e00-\u9fff]|[\u4e00-\u9fff]{1,2}老师)"
_ITEM_LEAD_ZH = re.compile(rf"^(?:(?:给|帮|替){_FAMILY_ZH}?\s*买|{_FAMILY_ZH}\s*(?:让|叫|要)(?:我)?\s*买|{_FAMILY_ZH}\s*(?:想要|要|需要)"
                           r"|(?:购物)?(?:清单|单子|列表)(?:里|上)?\s*(?:再)?(?:加|添)|(?:里|上)(?=\s|个|一))\s*(?:个|一个|一台|一件|一本|一双|一套|点|些)?\s*(?=\S)"
                           r"|^(?:一个|一台|一件|一本|一双|一套)(?=\S{2})")
_ITEM_LEAD_EN = re.compile(r"^(?:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?|my\s+\w+|the kids|we|I)\s+(?:needs?|wants?|would like|asked for)\s+(?:some\s+|a\s+|an\s+|more\s+)?(?=\S)")
_ITEM_TRAIL_EN = re.compile(r"(?:'s|’s|\s+is|\s+are)\s+(?:nearly|almost|all|about to|running|run|getting)\s+(?:finished|gone|out|empty|used up|low)\b.*$"
                            r"|\s+(?:on|to|onto)\s+(?:the|my|our)?\s*(?:for\s+me)?$|\s+for\s+me$"
                            r"|\s+(?:to|on|onto)\s+(?:[A-Z][a-z]+(?:'s|’s)|my|our|the)\s+(?:wish\s?list|shopping list|list)$"
                            r"|\s+for\s+[A-Z][a-z]+$", re.I)


def items(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """An item without who asked for it or the list's words: "给小雨买个书包" → 书包, "妈妈让买
    一斤排骨" → 排骨, "Grandma Lee needs denture tablets" → denture tablets, "the dish soap's
    nearly finished" → dish soap, "… to Jake's wishlist" → …."""
    value = out.get("item")
    if not isinstance(value, str) or not value.strip():
        return
    value = value.strip()
    if re.search("[\u4e00-\u9fff]", value):
        trimmed = _ITEM_LEAD_ZH.sub("", value).strip()
        gap = re.fullmatch(r"(?P<who>\S{1,3})\s+(?P<i>\S{2,})", trimmed)
        if gap and re.search(re.escape(gap.group("who")) + r"\s*(?:想要|要|让|需要|叫|说要)", text):
            # "小雨想要乐高城堡" read as "小雨 乐高城堡": the one who wants it is no part
            trimmed = _ITEM_LEAD_ZH.sub("", gap.group("i")).strip() or gap.group("i")
        out["item"] = trimmed or value
        return
    trimmed = value
    for _ in range(2):
        trimmed = _ITEM_TRAIL_EN.sub("", _ITEM_LEAD_EN.sub("", trimmed)).strip(" ,")
    out["item"] = trimmed or value


_DISCOUNT_ZH = re.compile(r"满\s*\d+\s*减\s*\d+|(?<![\d.])[一二三四五六七八九\d](?:\.\d)?\s*折|买一送一|第二(?:杯|份|件)半价|半价|立减\s*\d+元?"
                          r"|(?<![\d.])\d+(?:\.\d+)?\s*元(?=券|红包|优惠|$|[，,])")
_DISCOUNT_EN = re.compile(r"\d+\s*%\s*off|\$\s*\d+(?:\.\d+)?\s*off(?:\s+(?:orders?\s+)?(?:over\s+)?\$\s*\d+)?|\b\d+\s+off\s+orders?\s+over\s+\$?\d+"
                          r"|\bbuy[- ]one[- ]get[- ]one(?:[- ]free)?|\bBOGO\b|\bhalf off\b", re.I)
_CODE = re.compile(r"(?:券码|优惠码|兑换码|折扣码|\bcode)\s*(?:是|为|is)?\s*[:：]?\s*(?P<c>[A-Za-z0-9-]{4,})"
                   r"|(?<![A-Za-z0-9])(?P<b>(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9-]{5,})(?![A-Za-z0-9])")
_COUPON_HEAD_ZH = re.compile(r"^.*?(?:优惠券|券码|代金券|折扣券|红包)\s*[：:，,]\s*|^(?:帮我)?(?:收到|领了|拿到|有|存|保存|收藏|记)(?:了)?(?:一)?张\s*(?:(?:优惠)?券\s*[，,：:]\s*)?|^.*?领了张\s*")
_PRODUCT_ZH = r"(?:早餐|午餐|晚餐|家电|全家桶|饮品|甜品|电器|数码|生鲜|超市|会员)"
_STORE_ZH = re.compile(rf"^(?P<s>[\u4e00-\u9fffA-Za-z]{{2,8}}?)(?={_PRODUCT_ZH}|的|给|满|买一|[一二三四五六七八九\d](?:\.\d)?\s*折|半价|红包|券|\d|第二|立减)")
_STORE_EN = re.compile(r"\b(?:at|for|from)\s+(?P<s>[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*)"
                       r"|(?P<t>[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*)\s+(?:(?:buy[- ]one[- ]get[- ]one(?:[- ]free)?|\S+\s+off)\s+)?"
                       r"(?:coupon|voucher|promo)\b")
_NOT_A_STORE_EN = re.compile(r"^(?:Save|Keep|Store|Add|I|I've|Log|Record|Put|This|The|A|Coupon)$")


def coupon(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A coupon's shop, offer and code: "盒马满100减20" → 盒马 and 满100减20, "瑞幸的咖啡券，券码
    LK8890" → 瑞幸 and LK8890, "20% off at Target, code SPRING20" → Target, 20% off, SPRING20."""
    zh = re.search("[\u4e00-\u9fff]", text) is not None
    if "discount" in props and not out.get("discount") and (m := (_DISCOUNT_ZH if zh else _DISCOUNT_EN).search(text)):
        out["discount"] = m.group(0).strip()
    if "code" in props and (m := _CODE.search(text)):
        said = m.group("c") or m.group("b")
        if said and re.search(r"\d", said) and said not in str(out.get("discount", "")):
            out["code"] = said
    store = None
    if zh:
        body = _COUPON_HEAD_ZH.sub("", text.strip())
        m = _STORE_ZH.match(body)
        store = m.group("s") if m else None
    else:
        for m in _STORE_EN.finditer(text):
            said = (m.group("s") or m.group("t") or "").strip()
            said = re.sub(r"^(?:Save|Keep|Store|Add|This|The)\s+", "", said)
            if said and not _NOT_A_STORE_EN.match(said):
                store = said
                break
    if store and "store" in props:
        out["store"] = store
    title = out.get("title")
    said_store, offer = str(out.get("store") or ""), str(out.get("discount") or "")
    if zh:
        # The coupon as said, in its first clause: "肯德基早餐五折", "瑞幸的咖啡券" → 瑞幸咖啡券.
        first = re.split(r"[，,。；;]", _COUPON_HEAD_ZH.sub("", text.strip()))[0]
        first = re.sub(r"的|给了张|给的|(?:的)?券码.*$|\s+.*$", "", first).strip()
        if len(first) >= 2 and (not isinstance(title, str) or title not in first or len(title) < len(first)):
            out["title"] = first if first != said_store else first + offer
    elif (not isinstance(title, str) or len(title.strip()) <= 2 or title == said_store or "$" in title and not offer.startswith(title)
          or re.match(r"(?:I've|I have|store|save|keep|add|this)\b", title, re.I)):
        made = f"{offer} at {said_store}" if offer and said_store else offer or (f"{said_store} coupon" if said_store else "")
        if made:
            out["title"] = made
    for key in ("note",):  # a code or offer said after a comma is no note
        note = out.get(key)
        if isinstance(note, str) and any(str(out.get(k, "")) and str(out[k]) in note for k in ("code", "discount")) and len(note) <= 24:
            del out[key]


_GOAL_ZH = re.compile(rf"(?P<v>读|看|跑|走|骑|游|存|攒|减|瘦)(?:完|满|够|到|掉)?\s*(?P<n>\d+(?:\.\d+)?|{NUM})\s*"
                      r"(?P<u>万|千|本书|本|公里|千米|km|斤|公斤|kg|部电影|部|场|次|小时)")
_GOAL_ACTIVITY_ZH = {"读": "读书", "看": "读书", "跑": "跑步", "走": "走路", "骑": "骑行", "游": "游泳", "存": "存钱", "攒": "存钱",
                     "减": "减肥", "瘦": "减肥"}
_SAVE_EN = re.compile(r"\bsave\s+(?:up\s+)?(?P<a>[$£€¥]\s*[\d,]+(?:\.\d+)?\s*k?"
                      r"|[\d,]+(?:\.\d+)?\s*k?(?:\s*(?:dollars|pounds|euros|yuan|bucks)|(?=\s+for\b)))"
                      r"(?:\s+(?P<rest>for\s+.+?))?(?=\s+(?:by|before|until)\b|[,.]|$)", re.I)
# The time a goal is due by, said after its name ("lose 5 kg before summer", "read 24 books
# this year"): the deadline's, or no date at all, but never the name.
_GOAL_DUE_EN = re.compile(r"\s+(?:(?:by|before|until|till)\s+.+|(?:this|next)\s+(?:year|month|week|summer|spring|autumn|winter)"
                          r"|in\s+(?:the\s+)?(?:summer|spring|autumn|fall|winter|January|February|March|April|May|June|July|August"
                          r"|September|October|November|December))$", re.I)
_COUNTED_EN = re.compile(r"\b(?P<v>read|watch|finish|write|visit|bake|cook)\s+(?P<n>\d+)\s+(?P<u>books|novels|films|movies|pages|countries|recipes)\b", re.I)


def goal(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A goal named by what is done: "跑满100公里" → 跑步, 100 公里; "存够10万" → 存钱,
    100,000; "读完24本书" → 读书, 24 本; "read 30 books" → read books; "save $5,000 for the
    vacation" → save for the vacation, 5,000."""
    if re.search("[\u4e00-\u9fff]", text):
        m = _GOAL_ZH.search(text)
        if m is None:
            return
        number = parse_number(m.group("n"))
        if number is None:
            return
        unit = m.group("u")
        if unit in ("万", "千"):
            number *= 10000 if unit == "万" else 1000
            if out.get("unit") in ("万", "千"):
                del out["unit"]  # ("5万块": the 块 stays the unit)
        else:
            out["unit"] = {"本书": "本", "部电影": "部", "千米": "公里"}.get(unit, unit)
        out["target"] = int(number) if float(number).is_integer() else number
        title = out.get("title")
        activity = _GOAL_ACTIVITY_ZH[m.group("v")]
        if not isinstance(title, str) or len(title) <= 2 or m.group(0)[:2] in title or re.search(r"\d|[，,]", title):
            out["title"] = activity
        said_end = next((w for w in ("年底", "年末", "月底", "月末", "这个月", "本月", "下个月", "今年", "明年") if w in text), None)
        if "deadline" in props and not out.get("deadline") and said_end:
            out["deadline"] = said_end  # ("…，年底前完成" was in the title; the nearer end first)
        return
    if m := _SAVE_EN.search(text):
        amount = re.sub(r"[^\d.k]", "", m.group("a").casefold())
        value = float(amount.rstrip("k")) * (1000 if amount.endswith("k") else 1) if amount.rstrip("k") else None
        if value is not None:
            out["target"] = int(value) if value.is_integer() else value
            out["title"] = "save " + m.group("rest").strip() if m.group("rest") else "save money"
            out.pop("unit", None)
    elif (m := _COUNTED_EN.search(text)) and isinstance(out.get("title"), str) and out["title"].casefold().startswith(m.group("v").casefold()):
        out["title"] = m.group(0)  # "read 30 books" (a count of things, not a measure)
        if out.get("target") in (None, ""):
            out["target"] = int(m.group("n"))
        out.setdefault("unit", m.group("u"))
    if isinstance(out.get("title"), str):
        out["title"] = _GOAL_DUE_EN.sub("", out["title"]).strip(" ,") or out["title"]


_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_ROLE_NAME_ZH = re.compile(r"^(?P<rel>[\u4e00-\u9fff]{2,4}?)(?P<name>[\u4e00-\u9fff](?:师傅|老师|医生|大夫|阿姨|叔叔|叔|经理|主任|律师))$")
# A trade and then the name it goes by: "装修师傅老马", "物业小张".
_TRADE_NAME_ZH = re.compile(r"^(?P<rel>[\u4e00-\u9fff]{1,4}(?:师傅|老师|阿姨|医生|大夫|经理|物业|保姆|司机|教练))(?P<name>(?:老|小|阿)[\u4e00-\u9fff]"
                            r"|[\u4e00-\u9fff][\u4e00-\u9fff](?:师傅|老师|阿姨|姐|哥))$")
# Who they are and their birthday, said in clauses after the name: "是我表姐，生日9月9号".
_IS_MY_ZH = re.compile(r"^是(?:我|我们|我家|咱|咱家)的?(?P<rel>[\u4e00-\u9fff]{1,6})$")
_BIRTHDAY_CLAUSE_ZH = re.compile(r"^生日(?:是|在)?(?P<d>\S.*)$")
_CONTACT_WORDS_ZH = re.compile(r"^(?:联系人|通讯录|新联系人|个联系人)$")
_RELATION_EN = re.compile(r"\b(?i:my|our)\s+(?P<rel>(?i:cousin|sister|brother|aunt|uncle|friend|neighbou?r|colleague|boss|nephew|niece|son"
                          r"|daughter|mum|mom|dad|grandma|grandpa|coach|dentist|doctor|teacher|landlord|plumber))\s+"
                          r"(?P<name>[A-Z][\w'’-]*?)(?:['’]s)?(?:\s+(?P<last>[A-Z][\w'’-]*?)(?:['’]s)?)?\b(?!['’])")
TITLE_EN = re.compile(r"\b(?P<t>Mr|Mrs|Ms|Dr|Prof)\.?\s+(?P<n>[A-Z][\w'’-]+)")


_WHO_THEN_NUMBER_ZH = re.compile(r"(?P<w>[\u4e00-\u9fff]{2,6})\s+(?P<n>\+?\d[\d\s()-]*\d)")
_WHO_WORD_ZH = re.compile(r"(?!.*(?:微信|同号|手机|电话|号码|邮箱|地址))[\u4e00-\u9fff]{2,6}")


def contact(text: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """A contact's name and who they are: "物业刘师傅" → 刘师傅 (物业); "加个联系人，王老师，小宝的
    班主任" → 王老师 (小宝的班主任); "my cousin Rachel's email" → Rachel (cousin); "Mr. Thompson"
    stays whole; an email without its label."""
    if isinstance(out.get("email"), str) and (m := _EMAIL.search(out["email"])):
        out["email"] = m.group(0)  # "邮箱lina@163.com"
    phone = out.get("phone")
    if isinstance(phone, str) and (number := re.match(r"\s*\+?\d[\d\s()-]*\d", phone)) and number.end() < len(phone.rstrip(" .")):
        # "07700 900123, she's a mate from work": the number, and who they are after it
        out["phone"] = number.group(0).strip()
        rest = phone[number.end():].strip(" ,，.")
        said = re.match(r"(?:(?:he|she|they)(?:['’]s| is| are)|他是|她是)\s*(?:(?:a|an|our|my|the)\s+)?(?P<rel>\S.*)$", rest, re.I)
        if said is not None and "relation" in props and not out.get("relation"):
            out["relation"] = said.group("rel").strip()
    if isinstance(phone, str) and (m := _WHO_THEN_NUMBER_ZH.fullmatch(phone.strip())):
        out["phone"] = m.group("n")  # "钓友 15045678901": who they are, then the number
        if "relation" in props and not out.get("relation"):
            out["relation"] = m.group("w")
    person = out.get("person")
    if not isinstance(person, str):
        return
    person = person.strip()
    if ("relation" in props and not out.get("relation") and re.fullmatch(r"[\u4e00-\u9fff]{2,4}", person)
            and (m := re.search(rf"{re.escape(person)}[\s，,]+(?P<w>[\u4e00-\u9fff]{{2,6}})[\s，,]+\+?\d", text))
            and _WHO_WORD_ZH.fullmatch(m.group("w"))):
        out["relation"] = m.group("w")  # "添加联系人 张嬢嬢 隔壁邻居 13908231234": the name, who they are, the number
    if _CONTACT_WORDS_ZH.match(person) and isinstance(out.get("relation"), str):
        # "加个联系人，王老师，小宝的班主任": the name came after the command, who they are after it
        person, said = out.pop("relation"), out.pop("note", None)
        if isinstance(said, str) and said and "relation" in props:
            out["relation"] = said
    if (m := _ROLE_NAME_ZH.match(person) or _TRADE_NAME_ZH.match(person)) and "relation" in props and not out.get("relation"):
        person, out["relation"] = m.group("name"), m.group("rel")
    relation = out.get("relation")
    if isinstance(relation, str) and (m := re.fullmatch(r"(?:叫|名字叫|姓名)(?P<n>[\u4e00-\u9fff]{2,4})", relation.strip())):
        person, out["relation"] = m.group("n"), person  # "乐乐的钢琴老师…，叫吴雪": 吴雪 is the name
    note = out.get("note")
    if isinstance(note, str) and has_han(note):
        kept = []
        for clause in re.split(r"[，,；;]\s*", note.strip(" 。")):
            if (m := _IS_MY_ZH.match(clause)) and "relation" in props and not out.get("relation"):
                out["relation"] = m.group("rel")
            elif (m := _BIRTHDAY_CLAUSE_ZH.match(clause)) and "birthday" in props and not out.get("birthday"):
                out["birthday"] = m.group("d")
            elif clause:
                kept.append(clause)
        if kept:
            out["note"] = "，".join(kept)
        else:
            del out["note"]
    if isinstance(out.get("relation"), str):
        out["relation"] = re.sub(r"^新(?=\S{2})", "", out["relation"])  # "新同事": a colleague
    if (m := _RELATION_EN.search(text)) and "relation" in props and not out.get("relation"):
        person, out["relation"] = " ".join(p for p in (m.group("name"), m.group("last")) if p), m.group("rel")
    if (m := TITLE_EN.search(text)) and person.rstrip(".") in (m.group("t"), m.group("n")):
        person = f"{m.group('t')}. {m.group('n')}"  # "Mr. Thompson", not "Mr"
        if isinstance(out.get("note"), str) and out["note"].strip(" .") == m.group("n"):
            del out["note"]
    out["person"] = re.sub(r"(?<=\w)['’]s$", "", person)
    note = out.get("note")
    if isinstance(note, str):
        digits = re.sub(r"\D", "", note)
        if (digits and digits == re.sub(r"\D", "", str(out.get("phone", "")))) or (out.get("email") and str(out["email"]) in note):
            del out["note"]  # "手机号 139-1234-5678": the phone said again


_BY_ACTION = {"record_sleep": sleep, "record_medicine": medicine, "record_mood": mood, "record_dream": dream,
              "add_recipe": recipe, "record_medical": medical,
              "web_search": search, "write_diary": diary, "create_memo": memo,
              "add_shopping_item": items, "add_wishlist_item": items, "mark_shopping_bought": items,
              "add_coupon": coupon, "create_goal": goal}


def record_words(text: str, action: str, props: Mapping[str, Any], out: dict[str, Any]) -> None:
    """The record's own words, for the actions that have them."""
    fill = _BY_ACTION.get(action) or FRAMES.get(action)
    if fill is not None:
        fill(text, props, out)
