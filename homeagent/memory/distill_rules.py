"""Rule-based fact extraction for offline distillation, Chinese and English.

Covers the statements people make about themselves most often: names (我叫…, my name
is…), homes and moves (我住在…, 我搬到了…, I live in…, I moved to…), likes and
dislikes, workplaces, ages, pets with names (我有一只猫叫…, I have a dog named…),
"my X is Y" (我的生日是…), and plain "X 是 Y" / "X is a Y". Questions and negations do
not match. It is deliberately conservative: a missed fact costs less than a wrong one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# Sentence ends: CJK and Latin marks; a full stop only before a space (not in "5.5").
_SENTENCE_RE = re.compile(r"(?:[^。！？!?；;\n.]|\.(?!\s|$))+(?:[。！？!?；;.]|$)")
_CLAUSE_RE = re.compile(r"[，,]")
_PUNCT_TAIL = " \t\"'“”‘’「」.,，。!！?？:：;；、~～…"
_ZH_PARTICLES = ("了", "啦", "呀", "哦", "呢", "吧", "啊", "的")
_ZH_CUT = (
    "很多年",
    "好多年",
    "好几年",
    "已经",
    "一直",
    "的时候",
    "多年",
    "很久",
    "好久",
    "挺",
    "也",
)
_EN_CUT = re.compile(
    r"\s+(?:now|too|as well|a lot|very much|so much|since|for|with|because|but|which|who|"
    r"last|this|these days|recently|anymore)\b.*$",
    re.I,
)
_QUESTION_WORDS = re.compile(
    r"什么|哪|谁|吗|怎么|多少|几个|\b(?:what|where|who|which|how|whether)\b", re.I
)
_PRONOUNS = frozenset({
    "你", "您", "他", "她", "它", "你们", "他们", "她们", "它们", "这", "那", "这个", "那个",
    "这里", "那里", "家", "it", "you", "him", "her", "them", "this", "that", "there", "here",
})  # fmt: skip
PET_KINDS_ZH = "猫咪|小猫|猫|狗狗|小狗|狗|兔子|鹦鹉|仓鼠|金鱼|乌龟|鸟"
PET_KINDS_EN = (
    "dog|cat|puppy|kitten|parrot|rabbit|bunny|hamster|fish|bird|turtle|tortoise|pony|horse"
)
PET_KINDS = re.compile(f"{PET_KINDS_ZH}|{PET_KINDS_EN}", re.I)
_SELF_RELATION_MAP = {
    "名字": "name", "生日": "birthday", "工作": "occupation", "职业": "occupation",
    "电话": "phone", "手机": "phone", "邮箱": "email", "家乡": "hometown", "老家": "hometown",
    "老婆": "spouse", "妻子": "spouse", "太太": "spouse", "老公": "spouse", "丈夫": "spouse",
    "name": "name", "birthday": "birthday", "job": "occupation", "occupation": "occupation",
    "wife": "spouse", "husband": "spouse", "phone number": "phone", "email": "email",
    "hometown": "hometown", "age": "age",
}  # fmt: skip
_ZH_PETS = {"猫咪": "猫", "小猫": "猫", "狗狗": "狗", "小狗": "狗"}
MAX_VALUE_CHARS = 40


@dataclass(frozen=True)
class Extracted:
    subject: str
    relation: str
    object: str
    confidence: float = 0.9
    subject_type: str = ""
    object_type: str = ""


def clean_value(raw: str, *, zh: bool) -> str | None:
    """Trim a captured value to the thing itself, or None if it is not one."""
    value = raw.strip(_PUNCT_TAIL)
    if zh:
        for cut in _ZH_CUT:
            i = value.find(cut)
            if i > 0:
                value = value[:i]
        while value.endswith(_ZH_PARTICLES) and len(value) > 1:
            value = value[:-1]
    else:
        value = _EN_CUT.sub("", value)
        value = re.sub(r"^(?:the city of|in|at)\s+", "", value, flags=re.I)
    value = value.strip(_PUNCT_TAIL)
    if not value or len(value) > MAX_VALUE_CHARS or len(value.split()) > 6:
        return None
    if _QUESTION_WORDS.search(value) or value.casefold() in _PRONOUNS:
        return None
    return value


def _split_list(value: str, *, zh: bool) -> list[str]:
    parts = re.split(r"[、和跟与及]" if zh else r"\s*(?:,|\band\b|&)\s*", value)
    return [p for p in (q.strip() for q in parts) if p]


Rule = tuple[re.Pattern[str], Callable[[re.Match[str], str], list[Extracted]]]
_V = r"(?P<v>[^，,。！!？?；;、][^，,。！!？?；;]*)"  # the rest of the clause; clean_value trims it


def _simple(
    relation: str, object_type: str = "", confidence: float = 0.9, *, zh: bool, many: bool = False
):
    def make(m: re.Match[str], speaker: str) -> list[Extracted]:
        value = clean_value(m.group("v"), zh=zh)
        if value is None:
            return []
        values = _split_list(value, zh=zh) if many else [value]
        return [Extracted(speaker, relation, v, confidence, "person", object_type) for v in values]

    return make


def _pet(*, zh: bool):
    def make(m: re.Match[str], speaker: str) -> list[Extracted]:
        name = clean_value(m.group("v"), zh=zh)
        kind = m.group("kind")
        kind = _ZH_PETS.get(kind, kind) if zh else kind.lower()
        if name is None:
            return [Extracted(speaker, "has_pet", kind, 0.8, "person", "animal")]
        return [
            Extracted(speaker, "has_pet", name, 0.9, "person", "pet"),
            Extracted(name, "is_a", kind, 0.9, "pet", "animal"),
        ]

    return make


def _my_x_is(*, zh: bool):
    def make(m: re.Match[str], speaker: str) -> list[Extracted]:
        key = m.group("k").strip().lower()
        value = clean_value(m.group("v"), zh=zh)
        if value is None or not key or len(key) > 20 or PET_KINDS.fullmatch(key):
            return []
        relation = _SELF_RELATION_MAP.get(key, key)
        return [Extracted(speaker, relation, value, 0.85, "person", "")]

    return make


def _x_is_y(*, zh: bool):
    def make(m: re.Match[str], speaker: str) -> list[Extracted]:
        subject = clean_value(m.group("x"), zh=zh)
        value = clean_value(m.group("v"), zh=zh)
        if subject is None or value is None or subject.casefold() == value.casefold():
            return []
        return [Extracted(subject, "is_a", value, 0.6)]

    return make


def _x_is_my_y(m: re.Match[str], speaker: str) -> list[Extracted]:
    person = clean_value(m.group("x"), zh=True)
    role = clean_value(m.group("k"), zh=True)
    if person is None or role is None:
        return []
    return [Extracted(speaker, _SELF_RELATION_MAP.get(role, role), person, 0.8, "person", "person")]


_ZH_NAME = r"(?P<v>[\u4e00-\u9fffA-Za-z·]{1,8})"
ZH_RULES: tuple[Rule, ...] = (
    (re.compile(rf"我(?:家)?(?:有|养了|养着|养)(?:一|两|三|几)?(?:只|条|头|匹|个)(?P<kind>{PET_KINDS_ZH})[，,]?(?:它|牠)?(?:叫做|叫|名叫|名字叫|名字是)\s*{_ZH_NAME}"), _pet(zh=True)),
    (re.compile(rf"我的(?P<kind>{PET_KINDS_ZH})(?:叫做|叫|名叫|的名字是|名字叫)\s*{_ZH_NAME}"), _pet(zh=True)),
    (re.compile(rf"我(?:的名字)?(?:叫做|叫|是叫)\s*{_ZH_NAME}(?:$|[，,。！!])"), _simple("name", "name", zh=True)),
    (re.compile(rf"我的名字是\s*{_ZH_NAME}"), _simple("name", "name", zh=True)),
    (re.compile(rf"我(?:现在|目前|一直|还|也)?(?:住在|住于|家在){_V}"), _simple("lives_in", "place", zh=True)),
    (re.compile(rf"我(?:们家|家)?(?:已经|刚|刚刚|最近|上个月|去年)?搬(?:家)?(?:到|去)了?{_V}"), _simple("lives_in", "place", zh=True)),
    (re.compile(rf"我(?:很|非常|特别|最|也|还|真的|一直)?(?:不喜欢|讨厌|不爱吃|不爱喝|不爱){_V}"), _simple("dislikes", zh=True, many=True)),
    (re.compile(rf"我(?:很|非常|特别|最|也|还|真的|一直)?(?:喜欢|爱吃|爱喝|爱看|爱听|热爱){_V}"), _simple("likes", zh=True, many=True)),
    (re.compile(r"我(?:现在|目前)?在(?P<v>[^，,。！!？?]{2,20}?)(?:工作|上班)"), _simple("works_at", "organization", zh=True)),
    (re.compile(r"我(?:今年)?(?P<v>\d{1,3})岁"), _simple("age", "value", zh=True)),
    (re.compile(r"^(?P<x>[\u4e00-\u9fffA-Za-z·]{2,6})是我的?(?P<k>[\u4e00-\u9fff]{1,4})$"), _x_is_my_y),
    (re.compile(rf"我的(?P<k>[\u4e00-\u9fff]{{1,4}}?)(?:是|叫){_V}"), _my_x_is(zh=True)),
    (re.compile(r"^我是(?:一名|一个|一位|个)?(?P<v>[\u4e00-\u9fff]{2,8})$"), _simple("is_a", "", 0.6, zh=True)),
    (re.compile(r"^(?!(?:今天|明天|昨天|现在|这|那|哪|我|你|他|她|它|谁|什么))(?P<x>[\u4e00-\u9fffA-Za-z·]{2,10}?)是(?:一个|一只|一种|一家|一座)?(?!我)(?P<v>[\u4e00-\u9fff]{2,12})$"), _x_is_y(zh=True)),
)  # fmt: skip

_EN_NAME = r"(?P<v>[A-Za-z][\w'\-]*(?: [A-Z][\w'\-]*){0,2})"
EN_RULES: tuple[Rule, ...] = (
    (re.compile(rf"\bI(?: have|'ve got| have got| own)? (?:a|an|one|two|\d+) (?P<kind>{PET_KINDS_EN})s?,? (?:named|called) {_EN_NAME}", re.I), _pet(zh=False)),
    (re.compile(rf"\bmy (?P<kind>{PET_KINDS_EN})(?:'s name)? is (?:named |called )?{_EN_NAME}", re.I), _pet(zh=False)),
    (re.compile(rf"\b(?:my name is|my name's|i'm called|i am called|call me) {_EN_NAME}", re.I), _simple("name", "name", zh=False)),
    (re.compile(rf"\bI (?:currently |now |still |also )?live in {_V}", re.I), _simple("lives_in", "place", zh=False)),
    (re.compile(rf"\bI(?:'ve| have)? (?:just |recently |finally |already )?moved to {_V}", re.I), _simple("lives_in", "place", zh=False)),
    (re.compile(rf"\bI (?:really |totally )?(?:don't|do not) (?:like|enjoy|love) {_V}", re.I), _simple("dislikes", zh=False, many=True)),
    (re.compile(rf"\bI (?:really )?(?:hate|dislike|can't stand) {_V}", re.I), _simple("dislikes", zh=False, many=True)),
    (re.compile(rf"\bI (?:really |also |totally |just )?(?:like|love|enjoy|adore) {_V}", re.I), _simple("likes", zh=False, many=True)),
    (re.compile(rf"\bI (?:currently |now )?work (?:at|for) {_V}", re.I), _simple("works_at", "organization", zh=False)),
    (re.compile(r"\bI(?:'m| am) (?P<v>\d{1,3})(?: years old| years of age)?\b", re.I), _simple("age", "value", zh=False)),
    (re.compile(rf"\bmy (?P<k>[a-z]+(?: [a-z]+)??)(?:'s name)? is {_V}", re.I), _my_x_is(zh=False)),
    (re.compile(r"^(?:well |so |and )?I(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b|few\b)(?P<v>[a-z][a-z \-]{1,30})$", re.I), _simple("is_a", "", 0.6, zh=False)),
    (re.compile(r"^(?P<x>[A-Z][\w'\-]*(?: [A-Z][\w'\-]*){0,3}) is (?:a|an|the) (?P<v>[\w' \-]{2,40})$"), _x_is_y(zh=False)),
)  # fmt: skip


def _has_cjk(text: str) -> bool:
    return re.search(r"[\u4e00-\u9fff]", text) is not None


def extract_rules(text: str, speaker: str) -> list[Extracted]:
    """Facts `speaker` states about themselves (and "X is a Y" facts) in `text`."""
    out: list[Extracted] = []
    seen: set[tuple[str, str, str]] = set()
    for sentence in _SENTENCE_RE.findall(text):
        if sentence.rstrip().endswith(("?", "？")):
            continue
        body = sentence.strip().rstrip("。！!；;.").strip()
        if not body:
            continue
        clauses = [c.strip() for c in _CLAUSE_RE.split(body) if c.strip()]
        rules = ZH_RULES if _has_cjk(body) else EN_RULES
        for pattern, make in rules:
            # Anchored rules judge one clause as a whole; the others find their
            # statement anywhere (their values never cross a comma).
            units = clauses if pattern.pattern.startswith("^") else [body]
            for unit in units:
                for m in pattern.finditer(unit):
                    for fact in make(m, speaker):
                        key = (fact.subject.casefold(), fact.relation, fact.object.casefold())
                        if key not in seen:
                            seen.add(key)
                            out.append(fact)
    return out
