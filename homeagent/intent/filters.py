"""A read action's filters read off a question: what it is about (`query`), where
(`location`), how far ahead (`within_days`), whether past or archived records count,
which kind of health record, a metric's name, a category or a tag.

`read_filters(text, props, args, literal)` adds what the schema asks for and the
arguments lack. The query is what is left of the question once the question words, the
command words (`literal`: every literal part of the action's templates), the lists' own
names, dates and possessives are taken out; a question that only asks for the whole list
("我还有哪些任务", "what's on my shopping list") leaves nothing and gets no query, so it is
never narrowed by a word of its own phrasing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from homeagent.actions.dates import PERIOD_RE
from homeagent.intent.categories import is_money, money_category
from homeagent.intent.fuzzy import closest
from homeagent.intent.slots import ENUM_WORDS, MONTH, WHEN_EN_RE, WHEN_ZH_RE
from homeagent.numbers import NUM, find_number, parse_number


def _words(text: str) -> list[str]:
    return text.split()


# Question and command words around a read's subject (Chinese): taken out, longest first.
_ZH_WORDS = sorted(_words("""
我们 我的 我 咱家 家里的 家里 还在 还有 还剩 还 有没有 有没 是不是 是否 是什么时候 什么时候 是哪天 哪天 哪一天 哪里 哪儿 哪个
哪些 哪 在哪 放哪 放在 收在 搁在 放了 放 几点 几次 几个 几卷 几盒 几瓶 几袋 几包 几天 几 多少 什么 啥 吗 呢 了 过 的 都 现在 在谁手上
谁 上次 上一次 最近 记过 写过 关于 有关 跟 和 与 相关 查查 查一下 查看 查 搜一下 搜搜 搜 找一下 找找 找 看看 看一下 看 列一下 列出来 列出
给我 帮我 调出 一下 来着 大概 平均 已经 连续 坚持 进度 到哪了 到哪 到了 怎么样 如何 情况 记录 历史 明细 清单 列表 东西 事情 事 内容
条 带 里面 里 上面 上 中 是 在 有 要 没 还要 需要 买 打卡 笔记 便签 备忘 任务 待办 日程 安排 习惯 目标 订阅 会员 物品 东西 购物清单
购物单 心愿单 愿望清单 生日 倒计时 足迹 一共 总共 全部 所有 高不高 多不多 好不好 扣钱 扣费 续费 吃了 吃 去了 去过 去
拉出来 翻出来 调出来 筛出来 拿出来 找出来 查出来 列个表 排个序 排序 按日子 念一遍 读一遍 瞅瞅 瞧瞧 打开 单独 一起 连 花了 花 多少钱 钱
开销 支出 收入 进账 最贵 最大 最差 最好 最多 最少 地方 哪些地方 服务 做完 干完 完成 没完 完 定的 之前 以前 记的 写了 篇 快到期 到期
多久 离 这些 那些 咋样 咋 日志 饮食 行程 心情 一遍 筛一下 筛 过期 归档 每个月 每月 每周 每天 礼拜 个月 月 周 天 些 下 个 件 次 遍
那笔账 那笔 那件事 那个 那条 这个 这条 今儿 到底 还在订 在订 标的 想要的 加进 加到 记到 记了没 记了 做了没有 吃了没
你那儿 你那里 您给 叫你 让你 您 你 记着 没有 请问 好像 老实说 上头 挂着 定在 几号 几时 那顿 那次 那张 那套 这套 那 这
啊 吧 呀 嘛 啦 哦 㗎 嚟 咩
"""), key=len, reverse=True)
_EN_WORDS = frozenset(_words("""
a an the my our your his her their its me i we you it is are am was were be been do does did have has had any some
what what's whats which who whom whose where when how how's hows many much long close far still already yet again
right now today there here this that these those of on in at to for from with about around by into
find show list pull up search look looking check tell give get got see display bring view
write wrote written put kept keep stored store left going doing paying pay mentioned mention said say
note notes task tasks todo todos to-do event events calendar habit habits goal goals list lists item items
shopping grocery wish wishlist watchlist memo memos moods mood entries entry record records history log logs
inventory subscription subscriptions streak progress birthday birthdays location locations place places
anything everything something stuff things thing all every else only just let gimme open read go through overview
upcoming break down coming along free lot damage cost costs per month monthly week weekly spend spent earn earned
complete completed done finished finish haven't i've we've included including include priority high-priority
morning afternoon evening night next last recent recently times time often ever please me
calender archived archive included and or visited visit household recurring off from stored kept
add added adding anyone someone somebody logged checked recorded reminder reminders ticked
track tracking tracked feeling felt pill pills meds medicine medicines tablets appointment appointments somewhere
s t m d ll re ve since so end ended up costing according wondering whether suppose remember know anywhere lately
ah lah lor leh eh dear lowkey ngl fr tho though actually really between until till lend lent borrow borrowed loaned
"""))
_HAN = re.compile(r"[\u4e00-\u9fff]")
_EN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’.-]*|\d+")

_WITHIN_RE = re.compile(
    rf"(?:接下来|未来|今后|之后|最近|近|这|next|within|coming|upcoming|in the next)\s*(?P<n>{NUM}|\d+|an?|one|two|three)?\s*"
    r"(?P<u>天|日|周|个?星期|个?礼拜|个?月|days?|weeks?|months?)(?:内|之内|以内)?", re.I)
_PAST_RE = re.compile(r"过期|过去了?的|已过|以前的|以往|包括过去|连.{0,4}过|already passed|past ones|expired|including past"
                      r"|passed|gone by|old ones", re.I)
_ARCHIVED_RE = re.compile(r"归档|存档|archived|archive", re.I)
_METRICS = ("血压", "血糖", "体温", "心率", "血氧", "胆固醇", "尿酸", "blood pressure", "blood sugar", "blood glucose",
            "glucose", "temperature", "heart rate", "pulse", "blood oxygen", "oxygen", "cholesterol")
_STEPS_RE = re.compile(r"(?:\d+|[零一二两三四五六七八九十百千万]{2,})\s*步|步数|\bsteps?\b", re.I)


def metric_named(text: str) -> str | None:
    """The health metric the words name ("血压138/90", "12480 steps", "走了12000步"), or None."""
    low = text.casefold()
    found = next((m for m in _METRICS if m in low), None)
    if found is None and _STEPS_RE.search(text):
        found = "步数" if re.search(r"[\u4e00-\u9fff]", text) else "steps"
    return found


_HEALTH_KINDS = (
    ("period", re.compile(r"例假|月经|经期|大姨妈|\bperiods?\b|menstrua", re.I)),
    ("sleep", re.compile(r"睡|\bsleep|\bslept\b", re.I)),
    ("medicine", re.compile(r"药|\b(?:took|take|taken)\b|medic|\bpills?\b|\bmeds\b|吃.{1,8}(?:是什么时候|是哪天|几次|多少次)", re.I)),
    ("body", re.compile(r"体重|腰围|体脂|\bweigh|\bwaist\b|body fat|\bbmi\b", re.I)),
)
_ZH_LOCATION_RE = re.compile(
    r"(?<![我家])(?:列出来|列出|列一下|看看|看一下|看下|查查|查一下|查下|查看|显示|说说|把)?(?P<loc>[\u4e00-\u9fff]{2,6}?)(?:里面|里|上)"
    r"(?=放的|放了|都有|有什么|有啥|有哪些|的东西|存的|收的|都放了|那|的)")
_EN_LOCATION_RE = re.compile(
    r"\b(?:stored|kept|put|is|are|keep|store|have|has|got)\s+(?:\w+\s+)?(?:up\s+|down\s+|out\s+)?(?:in|at|inside)\s+(?:the|my|our)\s+"
    r"(?P<loc>[a-z]+(?: [a-z]+)?)\s*[?.!]*$"
    r"|\bwhat(?:'s| is) in (?:the|my|our) (?P<loc2>[a-z]+(?: [a-z]+)?)\s*[?.!]*$", re.I)
# Which rows a status filter keeps, read off the question: the ones also asked for widen it
# to all ("买过的也要", "bought stuff included"); words of the default ("还有什么没买", "what's
# still on my to-do list", "goals I have going") name the default, which is what is read.
_ALSO_RE = re.compile(r"也要|也算|也列|也一起|都要|也包括|包括|包含|连同|\bincluded\b|\bincluding\b|\btoo\b|\bas well\b"
                      r"|\bwhole\b|\bfull\b", re.I)
_DEFAULT_STATUS = (
    ("pending", re.compile(r"没买|还要买|还得买|待买|\bstill\b|\bleft\b|need to (?:buy|get)", re.I)),
    ("open", re.compile(r"还有|还剩|没做|没完成|\bstill\b|\bleft\b|\bopen\b|\bto do\b", re.I)),
    ("active", re.compile(r"进行中|在进行|正在|在做|\bgoing\b|on the go|\bcurrent(?:ly)?\b|\bactive\b|\bongoing\b", re.I)),
)
# How many rows: the latest n things ("最近获得的5个成就", "my last five transactions"), never
# a count of days or months ("最近3天", "the last 2 weeks": a period).
# A cap said as one ("最多十条", "一页显示5条", "at most 10", "just 3 of them") is one too.
_LIMIT_ZH_RE = re.compile(r"(?:最近|最新|最后|前|最多|至多|顶多|只要|只看|只列|只显示|一页|每页)[^\d零一二两三四五六七八九十，,。？?]{0,6}?"
                          r"(?P<n>\d+|[一二两三四五六七八九十]+)\s*"
                          r"(?:个|条|笔|项|件|篇|本|样|部|次|张)(?!月|小时|钟头|星期|礼拜|周)")
# Where a page starts: "从第6条开始" is the rows after the fifth.
_OFFSET_ZH_RE = re.compile(r"从第\s*(?P<n>\d+|[一二两三四五六七八九十]+)\s*(?:个|条|笔|项|件|篇|张)(?:开始|起)")
_LIMIT_EN_RE = re.compile(r"\b(?:latest|last|newest|most recent|recent|top|first|at most|max(?:imum)?|no more than|only|just)\s+"
                          r"(?P<n>\d+|one|two|three|four|five|six|seven"
                          r"|eight|nine|ten|eleven|twelve)\b(?!\s*(?:days?|weeks?|months?|years?|hours?|minutes?|mins?|nights?"
                          r"|dollars?|bucks?|quid|pounds?|euros?|yuan|kg|km|miles?|cups?|glasses?|ml|times?)\b)",
                          re.I)
_CATEGORY_RE = re.compile(r"(?P<c>[\u4e00-\u9fff]{2,4}?)类|\bin\s+the\s+(?P<en>[a-z][\w&-]*(?:\s+[\w&-]+){0,2}?)\s+category\b"
                          r"|\btagged\s+(?:as\s+|with\s+)?[#\"']?(?P<tag>[\w-]+)", re.I)
_TAG_RE = re.compile(r"\btagged\s+(?:as\s+|with\s+)?[#\"']?(?P<en>[\w-]+)|标签(?:是|为)?[#“\"]?(?P<zh>[\u4e00-\u9fffA-Za-z0-9]{1,8})"
                     r"|带(?:有)?[#“\"]?(?P<zh2>[\u4e00-\u9fffA-Za-z0-9]{1,8}?)[”\"]?标签", re.I)
# (an apostrophe quotes only between words: "When's Biscuit's vet…" holds no quote)
_QUOTED_RE = re.compile(r"[“\"「‘](?P<q>[^”\"」’']{1,30})[”\"」’']|(?<![A-Za-z])'(?P<q2>[^'\"]{1,30})'(?![A-Za-z])")


def _count(raw: str | None) -> float | None:
    if not raw:
        return 1.0
    low = raw.casefold()
    if low in ("a", "an", "one"):
        return 1.0
    return {"two": 2.0, "three": 3.0}.get(low) or parse_number(raw)


_WITHIN_BARE_RE = re.compile(rf"(?P<n>{NUM}|\d+)\s*(?P<u>天|日|周|个?星期|个?礼拜|个?月)(?:内|之内|以内)")


def within_days(text: str) -> int | None:
    """"接下来30天内" → 30, "最近一个月" → 30, "in the next 2 weeks" → 14, "30天内" → 30."""
    m = _WITHIN_RE.search(text) or _WITHIN_BARE_RE.search(text)
    if m is None:
        return None
    count = _count(m.group("n"))
    if count is None:
        return None
    unit = m.group("u").casefold()
    days = 30 if "月" in unit or unit.startswith("month") else 7 if re.search(r"周|星期|礼拜|week", unit) else 1
    return int(count * days) if m.group("n") or days > 1 else None


@lru_cache(maxsize=256)
def _zh_literal(literal: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({w for w in literal if _HAN.search(w) and len(w) >= 2}, key=len, reverse=True))


@lru_cache(maxsize=256)
def _en_literal(literal: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.casefold() for part in literal for w in _EN_TOKEN.findall(part)) | _EN_WORDS


def _strip_zh(piece: str, literal: tuple[str, ...]) -> list[str]:
    # "满不满", "多不多", "贵不贵": a yes-or-no question said as A不A asks, it names nothing
    # ("吃了几回", "老记焦虑": how often, asked)
    out = re.sub(r"([\u4e00-\u9fff])不\1|几[回趟顿遍]|(?:老|总)是?记(?=\S)", " ", piece)
    for word in _zh_literal(literal):
        out = out.replace(word, " ")
    for word in _ZH_WORDS:
        out = out.replace(word, " ")
    return [p for p in re.split(r"[\s\W_]+", out) if p]


def _strip_en(piece: str, literal: tuple[str, ...]) -> list[str]:
    words = _en_literal(literal)
    runs: list[list[str]] = [[]]
    for token in _EN_TOKEN.findall(piece):
        low = token.casefold().rstrip(".")
        base = re.sub(r"(?:'s|’s)$", "", low)
        if low in words or base in words or (
                len(low) >= 6 and closest(low, words, shortest=6) is not None):  # "compelted"
            runs.append([])
        else:
            runs[-1].append(re.sub(r"(?:'s|’s|')$", "", token.rstrip(".")))
    return [" ".join(r) for r in runs if r]


def subject(text: str, literal: Iterable[str] = ()) -> str:
    """What a question is about, or "" when it only asks for a whole list."""
    quoted = _QUOTED_RE.search(text)
    if quoted:
        return (quoted.group("q") or quoted.group("q2")).strip()
    literal = tuple(literal)
    text = WHEN_EN_RE.sub(" ", WHEN_ZH_RE.sub(" ", text))
    text = re.sub(rf"(?<![a-z]){MONTH}(?![a-z])", " ", text, flags=re.I)
    if _HAN.search(text):
        # (a lead that only points or says who was paid: "那盒", "把视频…", "给爱奇艺", "记车位号")
        pieces = [re.sub(r"^(?:(?:那|这)[一两几]?[盒瓶个袋包卷本台件张条把支双罐箱]?|把|给|对|记)(?=\S\S)", "", p)
                  for p in _strip_zh(text, literal)]
        pieces = [p for p in pieces if (len(p) >= 2 and _HAN.search(p)) or (not _HAN.search(p) and len(p) >= 2 and _strip_en(p, literal))]
        return pieces[0] if pieces else ""
    for sentence in re.split(r"(?<=[?!.])\s+", text):  # the question, before a remark: "…? I've gone blank."
        pieces = [p for p in _strip_en(sentence, literal) if len(p) >= 2 and not p.isdigit()]
        if pieces:
            return max(pieces, key=len)
    return ""


def read_filters(text: str, props: Mapping[str, Any], args: dict[str, Any], literal: Iterable[str] = (),
                 when: str = "") -> dict[str, Any]:
    """`args` with the filters `text` names that `props` has and `args` lack; `when` (the
    date words already read) is no part of the query."""
    out = dict(args)
    rest = text.replace(when, " ") if when else text
    for key in ("category",):
        said = out.get(key)
        if key in props and isinstance(said, str) and said.strip() and not subject(said, literal):
            del out[key]  # "我这个月" of "我这个月花了多少钱": who and when, no filter
    said_from = out.get("from")
    if "to" in props and isinstance(said_from, str) and said_from.strip() and not out.get("to"):
        # "周五之前还有哪些任务", "anything due before Friday": the day ends the range
        day = re.escape(said_from.strip())
        if re.search(rf"{day}\s*(?:之前|以前|前)(?!天)", text) or re.search(rf"\b(?:before|until|till|by)\s+{day}", text, re.I):
            out["to"] = out.pop("from")
    if "from" in props and not out.get("from") and not out.get("to"):
        # A period the date rules leave alone ("这礼拜", "the past two weeks", "for February"):
        # the action reads it as its days (`actions.base.period`).
        m = PERIOD_RE.search(rest)
        if m:
            out["from"] = m.group(0).strip()
            rest = rest.replace(m.group(0), " ")
            said = out.get("query")
            if isinstance(said, str) and said.strip() and said.strip().casefold() in m.group(0).casefold():
                del out["query"]  # "weekend" of "last weekend" is no query
    status = props.get("status", {}).get("enum", [])
    if status:
        if "all" in status and out.get("status") not in (None, "all") and _ALSO_RE.search(text):
            out["status"] = "all"  # "买过的也要": the bought ones as well as the rest
        elif not out.get("status"):
            out["status"] = next((value for value, rx in _DEFAULT_STATUS if value in status and rx.search(text)), None)
            if out["status"] is None:
                del out["status"]
    if "limit" in props and out.get("limit") is None:
        m = _LIMIT_ZH_RE.search(text) or _LIMIT_EN_RE.search(text)
        count = find_number(m.group("n")) if m else None
        if m and count is not None and count >= 1:
            out["limit"] = int(count)
            rest = rest.replace(m.group(0), " ")
    if "offset" in props and out.get("offset") is None and (m := _OFFSET_ZH_RE.search(text)) is not None:
        first = find_number(m.group("n"))
        if first is not None and first >= 1:
            out["offset"] = int(first) - 1
            rest = rest.replace(m.group(0), " ")
    if "within_days" in props and out.get("within_days") is None:
        days = within_days(text)
        if days:
            out["within_days"] = days
            rest = _WITHIN_BARE_RE.sub(" ", _WITHIN_RE.sub(" ", rest))
    if "include_past" in props and not out.get("include_past") and _PAST_RE.search(text):
        out["include_past"] = True
    if "include_archived" in props and not out.get("include_archived") and _ARCHIVED_RE.search(text):
        out["include_archived"] = True
    low = text.casefold()
    if "metric" in props and not out.get("metric"):
        metric = next((m for m in _METRICS if m in low), None)
        if metric is not None:
            out["metric"] = metric
            rest = re.sub(re.escape(metric), " ", rest, flags=re.I)
    kind = props.get("kind", {}).get("enum", [])
    if "metric" in kind and not out.get("kind"):
        if out.get("metric"):
            out["kind"] = "metric"
        else:
            out["kind"] = next((k for k, rx in _HEALTH_KINDS if k in kind and rx.search(text)), None)
            if out["kind"] is None:
                del out["kind"]
    if "location" in props and not out.get("location"):
        m = _ZH_LOCATION_RE.search(text) or _EN_LOCATION_RE.search(text)
        if m:
            out["location"] = (m.groupdict().get("loc") or m.groupdict().get("loc2") or "").strip()
            rest = rest.replace(m.group(0), " ")
    if "category" in props and not out.get("category"):
        m = _CATEGORY_RE.search(re.sub(r"^(?:查查|查一下|查看|查|看看|看一下|列出|列一下|搜一下)", "", text))
        if m and not (m.group("tag") and ("tag" in props or "tags" in props)):
            out["category"] = next(g for g in (m.group("c"), m.group("en"), m.group("tag")) if g).strip()
            rest = rest.replace(m.group(0), " ")
        elif is_money(props) and (named := money_category(text)):
            out["category"] = named[0]  # "spent on groceries", "吃饭花了多少": the category's rows
            if named[1].casefold() != named[0].casefold():
                rest = rest.replace(named[1], " ")  # ("groceries" stays the keyword too: it finds those rows)
            said = out.get("query")
            if isinstance(said, str) and named[1].casefold() in said.casefold() and said.casefold() != named[0].casefold():
                del out["query"]  # 交通费 would miss the rows filed under 交通
    if "tag" in props and not out.get("tag"):
        m = _TAG_RE.search(text)
        if m:
            out["tag"] = next(g for g in (m.group("en"), m.group("zh"), m.group("zh2")) if g)
            rest = rest.replace(m.group(0), " ")
    if "query" in props and not (out.get("kind") == "metric" or out.get("metric")):
        literal = (*literal, *(w for prop in props.values() for v in prop.get("enum", ()) for w in (v, *ENUM_WORDS.get(v, ()))))
        said = out.get("query")
        found = subject(str(said) if isinstance(said, str) and said else rest, literal)
        if found and not (isinstance(said, str) and said and found not in said):
            out["query"] = found
        elif not found:  # (a template's slot that held only question words is no query either)
            out.pop("query", None)
    return out
