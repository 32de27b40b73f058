"""Life-tool actions: shopping, wishlist, countdowns, memos, channels, trajectories, the
day's summary and web search."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from homeagent.actions.base import (
    ID,
    LIST,
    PAGE,
    ActionRegistry,
    Call,
    Category,
    Deps,
    boolean,
    enum,
    i,
    num,
    s,
    when,
)
from homeagent.actions.money import Money
from homeagent.actions.sql import Where, delete, find, insert, page, rows, show_when, update
from homeagent.errors import ToolError, ToolValidationError
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("life")
SHOP = ("购物项", "shopping items")
WISH = ("心愿", "wishlist items")
COUNTDOWN = ("倒计时", "countdowns")
MEMO = ("便签", "memos")


@CATEGORY.define(
    "add_shopping_item",
    "往购物清单里加东西 / Add something to the shopping list",
    {"item": s("要买的东西 / what to buy"), "quantity": s("数量，如 2盒 / how many"),
     "category": s("分类 / category"), "note": s("备注 / note")},
    required=["item"],
    examples=[("我要买牛奶", {"item": "牛奶"}), ("Add eggs to the shopping list", {"item": "eggs"}),
              ("购物清单加两盒酸奶", {"item": "酸奶", "quantity": "两盒"})],
    featured=1,
)
async def add_shopping_item(c: Call) -> ToolOutput:
    name = c.need("item")
    dup = await rows(c.db, "SELECT id FROM shopping_items WHERE name = ? AND status = 'pending'", (name,))
    if dup:
        # The row that is there is the one a follow-up ("再加一个…", "delete it") then means.
        return c.done(f"「{name}」已经在购物清单里了（#{dup[0]['id']}）。", f"{name} is already on the list (#{dup[0]['id']}).",
                      {"id": dup[0]["id"], "name": name, "existing": True})
    row = {"name": name, "quantity": c.text("quantity", ""), "category": c.text("category", ""),
           "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "shopping_items", row)
    return c.done(f"已加入购物清单 #{row_id}：{name} {row['quantity']}".rstrip() + "。",
                  f"Added to the shopping list #{row_id}: {name} {row['quantity']}".rstrip() + ".", {"id": row_id, **row})


@CATEGORY.define(
    "list_shopping",
    "查看购物清单，默认未买的 / Show the shopping list, by default what is still to buy",
    {"status": enum("pending 待买（默认）、bought 已买、all", "pending", "bought", "all"), "query": s("关键词 / keyword"), **PAGE},
    permission=Permission.READ,
    examples=[("购物清单上还有什么", {}), ("What do I need to buy?", {}), ("我最近买过哪些东西", {"status": "bought"})],
)
async def list_shopping(c: Call) -> ToolOutput:
    status = c.text("status", "pending")
    where = Where().equal("status", None if status == "all" else status).keyword(["name", "category", "note"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "shopping_items", where, "status, id", limit, offset)
    return c.listing(SHOP, found, total, lambda r: f"#{r['id']} {r['name']} {r['quantity']}".rstrip()
                     + (f" ✓ {r['bought_day']}" if r["status"] == "bought" else ""), offset=offset)


@CATEGORY.define(
    "mark_shopping_bought",
    "把购物清单上的东西标记为已经买了 / Mark a shopping-list item as bought (got it)",
    {"id": ID, "item": s("东西的名字 / the item"), "price": num("实际花费 / what it cost")},
    examples=[("牛奶买好了", {"item": "牛奶"}), ("I bought the eggs", {"item": "eggs"})],
)
async def mark_shopping_bought(c: Call) -> ToolOutput:
    price = c.money("price")
    item = await find(c, "shopping_items", "name", text_key="item", noun=SHOP, order="status = 'pending' DESC, id DESC")
    await update(c.db, "shopping_items", item["id"], {
        "status": "bought", "bought_day": c.today.isoformat(),
        "price_minor": price.minor if price else None, "currency": price.currency if price else None})
    return c.done(f"已标记为已买：{item['name']}。", f"Marked as bought: {item['name']}.", {"id": item["id"]})


@CATEGORY.define(
    "add_wishlist_item",
    "加入心愿单（想要的东西）/ Add something to the wishlist",
    {"item": s("想要的东西 / what is wished for"), "price": num("价格 / price"), "url": s("链接 / link"),
     "priority": enum("优先级 / priority", "high", "medium", "low"), "note": s("备注 / note")},
    required=["item"],
    examples=[("我好想要一台Switch，加到心愿单", {"item": "Switch"}), ("Put a new bike on my wishlist", {"item": "new bike"})],
)
async def add_wishlist_item(c: Call) -> ToolOutput:
    name = c.need("item")
    price = c.money("price")
    row = {"name": name, "price_minor": price.minor if price else None, "currency": price.currency if price else None,
           "url": c.text("url", ""), "priority": c.text("priority", "medium"), "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "wishlist_items", row)
    return c.done(f"已加入心愿单 #{row_id}：{name}。", f"Added to the wishlist #{row_id}: {name}.", {"id": row_id, **row})


@CATEGORY.define(
    "list_wishlist",
    "查看心愿单 / Show the wishlist",
    {"query": s("关键词 / keyword"), **PAGE},
    permission=Permission.READ,
    examples=[("我的心愿单里有什么", {}), ("Show my wishlist", {})],
)
async def list_wishlist(c: Call) -> ToolOutput:
    where = Where().keyword(["name", "note"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "wishlist_items", where,
                              "CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, id", limit, offset)
    return c.listing(WISH, found, total, lambda r: f"#{r['id']} {r['name']}" + (
        f" {Money(r['price_minor'], r['currency']).format()}" if r["price_minor"] is not None else ""), offset=offset)


def _days_until(day: str, today: date) -> int:
    return (date.fromisoformat(day) - today).days


@CATEGORY.define(
    "list_countdowns",
    "查看倒计时（距离某天还有几天）/ Show countdowns (days until a date)",
    {"include_past": boolean("包含已过去的 / include past ones"), **PAGE},
    permission=Permission.READ,
    examples=[("距离放假还有几天", {}), ("Show my countdowns", {})],
)
async def list_countdowns(c: Call) -> ToolOutput:
    where = Where().between("day", None if c.args.get("include_past") else c.today, None)
    limit, offset = c.page()
    found, total = await page(c.db, "countdowns", where, "day", limit, offset)

    def render(r: Any) -> str:
        n = _days_until(r["day"], c.today)
        return c.t(f"#{r['id']} {r['title']}（{r['day']}）：还有 {n} 天" if n >= 0 else f"#{r['id']} {r['title']}（{r['day']}）：已过 {-n} 天",
                   f"#{r['id']} {r['title']} ({r['day']}): {n} days to go" if n >= 0 else f"#{r['id']} {r['title']} ({r['day']}): {-n} days ago")

    return c.listing(COUNTDOWN, found, total, render, offset=offset)


@CATEGORY.define(
    "create_countdown",
    "创建倒计时（纪念日、考试、旅行）/ Start a countdown to a date (trip, exam, anniversary)",
    {"title": s("倒计时名称 / what it counts down to"), "date": when("目标日期 / the date"), "note": s("备注 / note")},
    required=["title", "date"],
    examples=[("帮我建个倒计时，6月7日高考", {"title": "高考", "date": "6月7日"}),
              ("Count down to our trip to Japan on July 20", {"title": "trip to Japan", "date": "July 20"})],
)
async def create_countdown(c: Call) -> ToolOutput:
    title = c.need("title")
    day = c.day("date")
    if day is None:
        raise ToolValidationError("date: required, e.g. 2026-06-07 or 6月7日")
    row_id = await insert(c.db, "countdowns", {"title": title, "day": day.isoformat(), "note": c.text("note", ""), **c.stamp()})
    n = _days_until(day.isoformat(), c.today)
    return c.done(f"已创建倒计时 #{row_id}：距离{title}（{day.isoformat()}）还有 {n} 天。",
                  f"Created countdown #{row_id}: {n} days until {title} ({day.isoformat()}).", {"id": row_id, "days": n})


@CATEGORY.define(
    "delete_countdown",
    "删除一个倒计时 / Delete a countdown",
    {"id": ID, "title": s("倒计时名称 / its title")},
    permission=Permission.DELETE,
    examples=[("把高考倒计时删掉", {"title": "高考"}), ("Remove the Japan trip countdown", {"title": "Japan"})],
)
async def delete_countdown(c: Call) -> ToolOutput:
    row = await find(c, "countdowns", "title", noun=COUNTDOWN)
    undo = await delete(c.db, "countdowns", row["id"])
    return c.done(f"已删除倒计时：{row['title']}。", f"Deleted the countdown: {row['title']}.", {"id": row["id"], "undo": undo})


@CATEGORY.define(
    "create_memo",
    "贴一张便签（简短的提醒，可置顶）/ Stick a short memo on the board (can be pinned)",
    {"content": s("便签内容 / the memo"), "pinned": boolean("置顶 / pin it")},
    required=["content"],
    examples=[("贴个便签：钥匙在鞋柜上", {"content": "钥匙在鞋柜上"}), ("Leave a memo: dog already fed", {"content": "dog already fed"})],
)
async def create_memo(c: Call) -> ToolOutput:
    content = c.need("content")
    row_id = await insert(c.db, "memos", {"content": content, "pinned": 1 if c.args.get("pinned") else 0,
                                          "day": c.today.isoformat(), **c.stamp()})
    return c.done(f"已贴便签 #{row_id}：{content}", f"Posted memo #{row_id}: {content}", {"id": row_id})


@CATEGORY.define(
    "list_memos",
    "查看便签 / Show memos",
    {"query": s("关键词 / keyword"), **PAGE},
    permission=Permission.READ,
    examples=[("便签上都写了什么", {}), ("Any memos for me?", {})],
)
async def list_memos(c: Call) -> ToolOutput:
    where = Where().keyword(["content"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "memos", where, "pinned DESC, id DESC", limit, offset)
    return c.listing(MEMO, found, total, lambda r: ("📌 " if r["pinned"] else "") + f"#{r['id']} {r['content']}", offset=offset)


@CATEGORY.define(
    "list_channels",
    "查询连接到我的频道和设备（控制台、手机、语音音箱）/ List the channels and devices that talk to me",
    {},
    permission=Permission.READ,
    examples=[("有哪些设备连着你", {}), ("Which devices are connected?", {})],
)
async def list_channels(c: Call) -> ToolOutput:
    if c.deps.channels is None:
        raise ToolError("list_channels: the device registry is not available in this process")
    devices = await c.deps.channels.list()
    found = [{"channel": d.channel, "device_id": d.device_id, "name": d.name,
              "last_seen": datetime.fromtimestamp(d.last_seen, c.now.tzinfo).isoformat(timespec="seconds")}
             for d in devices]
    return c.listing(("设备", "devices"), found, len(found),
                     lambda d: f"[{d['channel']}] {d['name'] or d['device_id']} · {show_when(d['last_seen'])}")


@CATEGORY.define(
    "record_trajectory",
    "记录到了、去了哪里（轨迹、足迹）/ Record where I am or a place visited (arrived at, I'm at)",
    {"place": s("地点 / the place"), "time": when("时间，默认现在 / when, default now"),
     "latitude": {"type": "number", "minimum": -90, "maximum": 90, "description": "纬度 / latitude"},
     "longitude": {"type": "number", "minimum": -180, "maximum": 180, "description": "经度 / longitude"},
     "note": s("备注 / note")},
    required=["place"],
    examples=[("记录一下，我今天去了西湖", {"place": "西湖"}), ("I visited the Louvre this afternoon", {"place": "the Louvre", "time": "this afternoon"})],
)
async def record_trajectory(c: Call) -> ToolOutput:
    place = c.need("place")
    found = c.when("time", prefer="past")
    at = found.iso() if found else c.now.isoformat(timespec="seconds")
    day = (found.day if found else c.today).isoformat()
    row = {"place": place, "at": at, "day": day, "latitude": c.args.get("latitude"),
           "longitude": c.args.get("longitude"), "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "trajectories", row)
    return c.done(f"已记录足迹 #{row_id}：{place}（{show_when(at)}）。", f"Recorded #{row_id}: {place} ({show_when(at)}).",
                  {"id": row_id, **row})


@CATEGORY.define(
    "list_trajectories",
    "查询去过的地方（轨迹），默认最近 30 天 / List places visited, by default the last 30 days",
    LIST,
    permission=Permission.READ,
    examples=[("我这个月去过哪些地方", {"from": "本月"}), ("Where did I go last week?", {"from": "last week"})],
)
async def list_trajectories(c: Call) -> ToolOutput:
    start, end = c.range(default_days=30)
    where = Where().between("day", start, end).keyword(["place", "note"], c.text("query"))
    limit, offset = c.page()
    found, total = await page(c.db, "trajectories", where, "at DESC", limit, offset)
    return c.listing(("地点", "places"), found, total, lambda r: f"#{r['id']} {show_when(r['at'])} {r['place']}", offset=offset)


@CATEGORY.define(
    "get_today_summary",
    "今日摘要：任务、日程、习惯、收支、健康、目标、购物、生日等所有记录的汇总 / Today's summary across every record: tasks, events, habits, money, health, goals, shopping, birthdays",
    {"date": when("哪一天，默认今天 / which day, default today")},
    permission=Permission.READ,
    examples=[("总结一下我今天的情况", {}), ("Give me today's summary", {}), ("今天过得怎么样，帮我汇总一下", {})],
)
async def get_today_summary(c: Call) -> ToolOutput:
    from homeagent.actions.summary import summarize_day

    day = c.day("date", prefer="past") or c.today
    lines, data = await summarize_day(c, day)
    head = c.t(f"{day.isoformat()} 摘要：", f"Summary for {day.isoformat()}:")
    return ToolOutput("\n".join([head, *(f"- {x}" for x in lines)]), None) if lines else c.done(
        f"{head}今天还没有任何记录。", f"{head} nothing recorded yet.", data)


@CATEGORY.define(
    "web_search",
    "联网搜索（需要配置搜索服务并联网）/ Search the web (needs a configured search backend and the network)",
    {"query": s("搜索词 / what to search for"), "limit": i("结果条数 / how many results", 1, 10)},
    required=["query"],
    permission=Permission.NETWORK,
    examples=[("帮我搜一下明天杭州的天气", {"query": "明天杭州天气"}), ("Search the web for the best pizza recipe", {"query": "best pizza recipe"})],
)
async def web_search(c: Call) -> ToolOutput:
    query = c.need("query")
    if c.deps.search is None:
        raise ToolError(c.t(
            "web_search 需要搜索服务和网络：本机没有配置搜索后端（actions.search_url），离线时无法联网搜索。请告诉用户需要联网并配置搜索服务。",
            "web_search needs a search backend and the network: none is configured (actions.search_url), "
            "so I cannot search the web offline. Tell the user that searching needs a network connection and a configured search service."))
    results = await c.deps.search.search(query, int(c.args.get("limit") or c.settings.search_results))
    if not results:
        return c.done(f"没有搜到与「{query}」相关的结果。", f"No results for {query!r}.")
    lines = [f"{n}. {r['title']} — {r['url']}\n   {r['content']}" for n, r in enumerate(results, 1)]
    return ToolOutput(c.t(f"「{query}」的搜索结果：\n", f"Results for {query!r}:\n") + "\n".join(lines), None)


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the life-tool actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        add_shopping_item,
        list_shopping,
        mark_shopping_bought,
        add_wishlist_item,
        list_wishlist,
        list_countdowns,
        create_countdown,
        delete_countdown,
        create_memo,
        list_memos,
        list_channels,
        record_trajectory,
        list_trajectories,
        get_today_summary,
        web_search,
    )
