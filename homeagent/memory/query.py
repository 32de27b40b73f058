"""Query analysis for memory search: time, question scaffolding, bilingual expansion.

A household asks its memory questions, not keyword lists: "what did I say about the
dishwasher last month?", "洗碗机修好了吗？". `plan_query` turns one into what the index
should match:

1. the time expression (homeagent.memory.timecues) becomes a window and leaves the text;
2. question scaffolding (what did I say about, 怎么了, 是什么, 了吗 …) is removed, since
   those words match chatter ("今天晚饭吃什么") far more often than the answer;
3. household words get their equivalents in the other language and common synonyms from
   a small glossary ("dishwasher" ↔ "洗碗机", "tire" ↔ "轮胎", "vet" ↔ "兽医"), matched
   with a lower weight: a Chinese question finds the English turn that answers it.

The glossary covers everyday household topics (appliances, repairs, car, health, pets,
school, money, travel, food, plants, work, family). `GLOSSARY` is plain data; callers
can pass their own groups (graph entity aliases, for instance).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from homeagent.memory.timecues import TimeCue, parse_time_cue
from homeagent.text import CJK_CLASS, CJK_RE, normalize

# Each group is a set of interchangeable terms; English entries are matched as whole
# words or phrases, Chinese ones as substrings.
GLOSSARY: tuple[tuple[str, ...], ...] = (
    # appliances and the house
    ("dishwasher", "洗碗机"), ("washing machine", "washer", "洗衣机"),
    ("fridge", "refrigerator", "冰箱"), ("oven", "烤箱"), ("microwave", "微波炉"),
    ("stove", "cooker", "灶台", "燃气灶"), ("air conditioner", "aircon", "空调"),
    ("heating", "radiator", "暖气", "暖气片"), ("water heater", "boiler", "热水器"),
    ("hot water", "热水"), ("vacuum", "吸尘器"), ("robot vacuum", "扫地机器人", "扫地机"),
    ("router", "路由器"), ("wi-fi", "wifi", "无线网", "网络"), ("tv", "television", "电视"),
    ("light bulb", "bulb", "灯泡"), ("lamp", "light", "灯"), ("smoke alarm", "烟雾报警器", "烟感"),
    ("battery", "batteries", "电池"), ("key", "keys", "钥匙"), ("password", "密码"),
    ("window", "窗户"), ("lock", "锁"), ("faucet", "tap", "水龙头"),
    ("toilet", "马桶"), ("shower", "洗澡", "淋浴"), ("sofa", "couch", "沙发"),
    ("kitchen", "厨房"), ("bedroom", "卧室"), ("living room", "客厅"), ("bathroom", "卫生间", "浴室"),
    ("balcony", "阳台"), ("garage", "车库"), ("floor", "地板"), ("upstairs", "楼上"),
    ("renovation", "renovating", "装修"), ("landlord", "房东"), ("rent", "房租"),
    # trouble and repair
    ("leak", "leaking", "leaks", "puddle", "puddles", "漏水", "渗水", "漏"),
    ("noise", "noisy", "loud", "噪音", "声音", "吵"), ("broken", "broke", "坏了", "坏"),
    ("fix", "fixed", "repair", "repaired", "修好", "维修", "修理"),
    ("repairman", "technician", "师傅", "维修工"), ("part", "parts", "零件"), ("valve", "阀"),
    ("stuck", "卡住"), ("shaking", "shakes", "晃", "抖"),
    # car
    ("car", "汽车", "车子", "车"), ("tire", "tyre", "tires", "轮胎"),
    ("tire pressure", "胎压"), ("oil change", "换机油", "机油"),
    ("car service", "maintenance", "service", "保养"), ("inspection", "年检", "检测"),
    ("gas station", "加油站"), ("insurance", "保险"),
    # health
    ("doctor", "医生", "大夫"), ("hospital", "医院"), ("clinic", "诊所", "门诊"),
    ("dentist", "牙医"), ("tooth", "teeth", "牙", "牙齿"), ("filling", "补牙"),
    ("wisdom tooth", "智齿"), ("blood pressure", "血压"), ("medicine", "pills", "pill", "药"),
    ("allergy", "allergic", "过敏"), ("rash", "疹子", "红疹"), ("fever", "发烧"),
    ("cough", "咳嗽"), ("vaccine", "vaccination", "shot", "疫苗", "打针"),
    # pets
    ("dog", "puppy", "狗", "小狗", "狗狗"), ("cat", "猫"), ("vet", "veterinarian", "兽医", "宠物医院"),
    ("dog food", "狗粮"), ("ear", "ears", "耳朵"), ("rabies", "狂犬"),
    # school
    ("school", "学校"), ("teacher", "老师"), ("homework", "作业"),
    ("exam", "test", "quiz", "考试", "测试"), ("math", "maths", "数学"),
    ("score", "grade", "分数", "成绩"), ("parent-teacher meeting", "家长会"),
    ("science fair", "科学展"), ("prize", "award", "奖"), ("field trip", "春游", "参观"),
    ("museum", "博物馆"), ("piano", "钢琴"), ("lesson", "class", "课"),
    ("essay", "writing", "作文"), ("diary", "journal", "日记"),
    # money and shopping
    ("electricity", "electric", "电费"), ("bill", "账单"), ("water bill", "水费"),
    ("refund", "退款"), ("return", "returned", "退货"), ("cost", "price", "花了", "多少钱"),
    ("budget", "预算"), ("salary", "工资"), ("bank", "银行"), ("coat", "jacket", "大衣", "外套"),
    ("shopping list", "购物清单"), ("bought", "buy", "买"),
    # travel and work
    ("train", "高铁", "火车"), ("ticket", "tickets", "票"), ("flight", "plane", "航班", "飞机"),
    ("hotel", "酒店"), ("trip", "travel", "旅行", "旅游"), ("business trip", "出差"),
    ("beach", "seaside", "海边"), ("spring festival", "chinese new year", "春节"),
    ("project", "项目"), ("release", "launch", "went live", "上线"), ("overtime", "加班"),
    ("client", "customer", "客户"), ("contract", "合同"), ("meeting", "会议", "开会"),
    # family and social
    ("mom", "mother", "妈妈", "母亲"), ("dad", "father", "爸爸", "父亲"),
    ("grandma", "grandmother", "外婆", "奶奶", "姥姥"), ("grandpa", "grandfather", "外公", "爷爷"),
    ("daughter", "女儿"), ("son", "儿子"), ("wife", "老婆", "妻子"), ("husband", "老公", "丈夫"),
    ("birthday", "生日"), ("party", "派对"), ("present", "gift", "礼物"),
    ("reunion", "聚会"), ("classmate", "classmates", "同学"), ("friend", "friends", "朋友"),
    ("lego", "乐高"), ("bracelet", "手镯"),
    # food
    ("dinner", "晚饭", "晚餐"), ("breakfast", "早饭", "早餐"), ("lunch", "午饭", "午餐"),
    ("recipe", "做法", "菜谱"), ("pork", "猪肉"), ("red braised pork", "红烧肉"),
    ("rice", "米饭"), ("noodles", "面条"), ("bread", "面包"), ("shrimp", "prawn", "虾"),
    ("seafood", "海鲜"), ("chicken", "鸡"), ("cilantro", "coriander", "香菜"),
    ("restaurant", "餐厅", "饭店"), ("milk", "牛奶"), ("eggs", "egg", "鸡蛋"),
    # plants and fitness
    ("plant", "plants", "植物"), ("pothos", "绿萝"), ("leaves", "leaf", "叶子"),
    ("yellow", "发黄"), ("watering", "overwatering", "浇水"), ("seeds", "seed", "种子"),
    ("tomato", "tomatoes", "番茄", "西红柿"), ("pepper", "peppers", "辣椒"),
    ("seedlings", "sprouted", "sprout", "发芽", "幼苗"), ("run", "ran", "running", "跑步", "跑"),
    ("yoga", "瑜伽"), ("gym", "健身房"),
)

def _words(text: str) -> list[str]:
    return text.split()


_EN_STOP = frozenset(_words(
    "a an the and or but of to in on at for with about from by as is are was were be been "
    "being do does did done have has had i me my mine we us our you your he him his she her "
    "it its they them their this that these those what what's which who whom whose when where "
    "why how any anything something there here now still again say said tell told ask asked "
    "happen happened happening get got can could would should will shall may might please "
    "know remember mention mentioned talk talked much many"
))
# Chinese question scaffolding, removed as whole phrases (longest first) before the
# text is cut into bigrams, so no bigram straddles the gap.
_ZH_STOP = sorted(
    _words(
        "是怎么解决的 怎么解决的 怎么样了 怎么样 怎么了 怎么回事 怎么做 怎么 是什么 什么时候 "
        "为什么 什么 多少钱 多少 哪里 哪儿 哪天 哪个 哪家 几点 有没有 是不是 了吗 吗 呢 吧 "
        "我说过 我说的 我说 说过 说了 提到过 提到 跟你说 告诉你 我们 我的 的 了 "
        "出了 现在 以前 之前 那次 我 你"
    ),
    key=len,
    reverse=True,
)
_ZH_STOP_RE = re.compile("|".join(re.escape(w) for w in _ZH_STOP))
_CJK_RE = CJK_RE
_TOKEN_RE = re.compile(rf"{CJK_CLASS}+|[^\W_]+(?:['\-][^\W_]+)*")


# How much an expansion term counts against a word the user wrote (tuned on the dev
# split of bench/data: 0.4 → 0.6 raised recall@5 there; 1.0 would treat a guess as a fact).
EXPANSION_WEIGHT = 0.6


@dataclass(frozen=True)
class QueryPlan:
    text: str  # the words to match
    expansion: str  # equivalents from the glossary, matched with a lower weight
    cue: TimeCue | None  # the time window the question names, if any


def strip_scaffolding(text: str) -> str:
    """The query without question words ("" when nothing else is left)."""
    norm = _ZH_STOP_RE.sub(" ", normalize(text))
    kept = [
        token for token in _TOKEN_RE.findall(norm)
        if _CJK_RE.match(token) or token not in _EN_STOP
    ]  # fmt: skip
    return " ".join(kept)


def _compile(groups: Iterable[Sequence[str]]) -> list[tuple[re.Pattern[str], tuple[str, ...]]]:
    compiled = []
    for group in groups:
        terms = tuple(normalize(t) for t in group)
        parts = [
            re.escape(t) if _CJK_RE.search(t) else rf"(?<![^\W_]){re.escape(t)}(?![^\W_])"
            for t in sorted(terms, key=len, reverse=True)
        ]
        compiled.append((re.compile("|".join(parts)), terms))
    return compiled


class QueryPlanner:
    """Builds `QueryPlan`s; one instance compiles its glossary once."""

    def __init__(self, glossary: Iterable[Sequence[str]] = GLOSSARY, *, expand: bool = True):
        self._glossary = tuple(tuple(g) for g in glossary)
        self._expand = expand
        self._groups = _compile(self._glossary) if expand else []

    def with_groups(self, groups: Iterable[Sequence[str]]) -> QueryPlanner:
        """A planner that also expands `groups`: the household's own names and their
        aliases from the graph (["Lily", "莉莉"], ["Hangzhou", "杭州"])."""
        extra = tuple(tuple(g) for g in groups if len(g) > 1)
        return QueryPlanner((*self._glossary, *extra), expand=self._expand)

    def expansion(self, text: str) -> str:
        norm = normalize(text)
        extra: list[str] = []
        for pattern, terms in self._groups:
            found = {m.group(0) for m in pattern.finditer(norm)}
            if found:
                extra.extend(t for t in terms if t not in found and t not in norm)
        return " ".join(dict.fromkeys(extra))

    def plan(self, query: str, now: datetime | None) -> QueryPlan:
        cue = parse_time_cue(query, now) if now is not None else None
        rest = cue.rest if cue is not None else query
        text = strip_scaffolding(rest)
        if not text and cue is None:
            text = rest  # only question words ("what is it?"): match them after all
        return QueryPlan(text=text, expansion=self.expansion(text) if text else "", cue=cue)


_DEFAULT = QueryPlanner()


def plan_query(query: str, now: datetime | None) -> QueryPlan:
    return _DEFAULT.plan(query, now)
