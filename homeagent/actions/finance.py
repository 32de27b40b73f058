"""Finance actions: income and expenses in integer minor units, and the subscriptions
derived from recurring transactions."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from homeagent.actions.base import LIST, ActionRegistry, Call, Category, Deps, enum, s, when
from homeagent.actions.dates import add_months
from homeagent.actions.money import Money
from homeagent.actions.sql import Where, insert, page, rows
from homeagent.errors import ToolValidationError
from homeagent.store import Database
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("finance")
NOUN = ("收支", "transactions")
_PERIODS = ("none", "weekly", "monthly", "quarterly", "yearly")
# Category guesses from the note when the model gives none (keeps summaries useful).
_GUESS = {
    ("餐饮", "food"): ("饭", "餐", "吃", "咖啡", "奶茶", "外卖", "早点", "lunch", "dinner", "breakfast", "coffee", "meal", "food"),
    ("交通", "transport"): ("打车", "地铁", "公交", "油", "停车", "高铁", "taxi", "uber", "bus", "train", "fuel", "gas", "parking"),
    ("购物", "shopping"): ("买", "超市", "淘宝", "京东", "shopping", "supermarket", "groceries", "amazon"),
    ("居家", "home"): ("水电", "房租", "物业", "电费", "水费", "rent", "electricity", "utilities"),
    ("娱乐", "entertainment"): ("电影", "游戏", "会员", "movie", "game", "netflix", "spotify"),
    ("医疗", "medical"): ("药", "医院", "挂号", "medicine", "doctor", "pharmacy"),
    ("收入", "income"): ("工资", "奖金", "红包", "salary", "bonus", "paycheck"),
}


def guess_category(note: str, lang: str) -> str:
    low = note.casefold()
    found = next((cat for cat, words in _GUESS.items() if any(w in low for w in words)), None)
    return "" if found is None else found[0] if lang == "zh" else found[1]


def render(row: dict[str, Any], lang: str) -> str:
    money = Money(row["amount_minor"], row["currency"]).format()
    sign = "-" if row["kind"] == "expense" else "+"
    what = " ".join(x for x in (row["category"], row["note"]) if x) or ("未分类" if lang == "zh" else "uncategorised")
    rec = "" if row["recurring"] == "none" else (f" ({row['recurring']})")
    return f"#{row['id']} {row['day']} {sign}{money} {what}{rec}"


def totals_text(totals: list[dict[str, Any]], lang: str) -> str:
    parts = []
    for t in totals:
        spent = Money(t["expense"], t["currency"]).format()
        earned = Money(t["income"], t["currency"]).format()
        parts.append(f"支出 {spent}，收入 {earned}" if lang == "zh" else f"spent {spent}, received {earned}")
    return ("合计：" if lang == "zh" else "Totals: ") + "; ".join(parts) if parts else ""


@CATEGORY.define(
    "record_transaction",
    "记一笔支出或收入（记账）/ Record an expense or income",
    {
        "amount": {"type": ["number", "string"], "description": "金额，如 35 或 35.5 / amount, e.g. 35 or 35.5"},
        "type": enum("expense 支出（默认）或 income 收入 / expense (default) or income", "expense", "income"),
        "category": s("类别，如 餐饮、交通、工资 / category, e.g. food, transport, salary"),
        "note": s("用途说明 / what it was for"),
        "date": when("日期，默认今天 / the day, default today"),
        "currency": s("币种代码，默认 CNY / currency code, default CNY"),
        "recurring": enum("周期性扣费（订阅）/ repeats, e.g. a subscription", *_PERIODS),
    },
    required=["amount"],
    examples=[
        ("午饭花了35块", {"amount": 35, "category": "餐饮", "note": "午饭"}),
        ("I spent $12.50 on a taxi", {"amount": 12.5, "currency": "USD", "category": "transport", "note": "taxi"}),
        ("这个月工资到账8000", {"amount": 8000, "type": "income", "category": "工资"}),
        ("Netflix charges me 15 dollars every month", {"amount": 15, "currency": "USD", "note": "Netflix", "recurring": "monthly"}),
    ],
    featured=1,
)
async def record_transaction(c: Call) -> ToolOutput:
    money = c.money("amount")
    if money is None:
        raise ToolValidationError("amount: required; a number such as 35 or 35.5")
    if money.minor == 0:
        raise ToolValidationError("amount: must be more than 0")
    day = c.day("date", prefer="past") or c.today
    note = c.text("note", "") or ""
    kind = c.text("type", "expense")
    category = c.text("category") or guess_category(note, c.lang) or ("收入" if kind == "income" and c.lang == "zh" else "")
    row = {"kind": kind, "amount_minor": money.minor, "currency": money.currency, "category": category,
           "note": note, "day": day.isoformat(), "recurring": c.text("recurring", "none"), **c.stamp()}
    row_id = await insert(c.db, "transactions", row)
    what = " ".join(x for x in (category, note) if x)
    return c.done(
        f"已记{'支出' if kind == 'expense' else '收入'} #{row_id}：{money.format()} {what}（{day.isoformat()}）。",
        f"Recorded {kind} #{row_id}: {money.format()} {what} ({day.isoformat()}).",
        {"id": row_id, **row},
    )


async def totals(db: Database, where: Where) -> list[dict[str, Any]]:
    return await rows(
        db,
        "SELECT currency, SUM(CASE WHEN kind = 'expense' THEN amount_minor ELSE 0 END) AS expense,"
        " SUM(CASE WHEN kind = 'income' THEN amount_minor ELSE 0 END) AS income"
        f" FROM transactions{where.sql()} GROUP BY currency ORDER BY currency",
        where.params,
    )


@CATEGORY.define(
    "list_transactions",
    "查询收支记录和合计，默认本月 / List transactions with totals, by default this month",
    {"type": enum("expense 或 income", "expense", "income"), "category": s("类别 / category"), **LIST},
    permission=Permission.READ,
    examples=[
        ("这个月花了多少钱", {"from": "本月"}),
        ("Show what I spent on food last week", {"category": "food", "from": "last week"}),
        ("看看今天的账", {"from": "今天"}),
    ],
)
async def list_transactions(c: Call) -> ToolOutput:
    start, end = c.range()
    if start is None and end is None:
        start = c.today.replace(day=1)
    where = (Where().between("day", start, end).equal("kind", c.text("type")).equal("category", c.text("category"))
             .keyword(["note", "category"], c.text("query")))
    limit, offset = c.page()
    found, total = await page(c.db, "transactions", where, "day DESC, id DESC", limit, offset)
    summary = totals_text(await totals(c.db, where), c.lang)
    listed = c.listing(NOUN, found, total, lambda r: render(dict(r), c.lang), offset=offset, extra=summary)
    # The finance summary as a chart: spending per day over the whole range, in the home currency.
    currency = c.settings.currency
    daily = await rows(c.db, f"SELECT day, SUM(amount_minor) AS minor FROM transactions{where.sql()}"
                             f"{' AND' if where.clauses else ' WHERE'} kind = 'expense' AND currency = ?"
                             " GROUP BY day ORDER BY day", [*where.params, currency])
    points = [(str(r["day"]), float(Money(int(r["minor"]), currency).amount)) for r in daily]
    return c.series(listed, c.t("每日支出", "Spending per day"), currency, points) if points else listed


def next_charge(last: date, period: str, today: date) -> date:
    step = {"weekly": None, "monthly": 1, "quarterly": 3, "yearly": 12}[period]
    nxt = last
    while nxt <= today:
        nxt = nxt + timedelta(days=7) if step is None else add_months(nxt, step)
    return nxt


@CATEGORY.define(
    "list_subscriptions",
    "查询订阅（由周期性收支记录得出）和每月花费 / List subscriptions (from recurring transactions) and their monthly cost",
    {"query": s("关键词 / keyword")},
    permission=Permission.READ,
    category="mode_extras",
    examples=[("我订阅了哪些服务", {}), ("What subscriptions am I paying for?", {}),
              ("每个月的会员费一共多少", {})],
)
async def list_subscriptions(c: Call) -> ToolOutput:
    recurring = await rows(
        c.db,
        "SELECT * FROM transactions WHERE recurring != 'none' AND kind = 'expense' ORDER BY day, id",
    )
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in recurring:
        latest[((r["note"] or r["category"]).casefold(), r["currency"])] = r  # the last charge wins
    q = (c.text("query") or "").casefold()
    subs = []
    per_month: dict[str, int] = {}
    for r in latest.values():
        name = r["note"] or r["category"]
        if q and q not in name.casefold():
            continue
        monthly = {"weekly": r["amount_minor"] * 52 // 12, "monthly": r["amount_minor"],
                   "quarterly": r["amount_minor"] // 3, "yearly": r["amount_minor"] // 12}[r["recurring"]]
        per_month[r["currency"]] = per_month.get(r["currency"], 0) + monthly
        subs.append({"id": r["id"], "name": name, "amount_minor": r["amount_minor"], "currency": r["currency"],
                     "period": r["recurring"], "last_charge": r["day"],
                     "next_charge": next_charge(date.fromisoformat(r["day"]), r["recurring"], c.today).isoformat()})

    def render_sub(sub: Any) -> str:
        money = Money(sub["amount_minor"], sub["currency"]).format()
        return c.t(f"{sub['name']}：{money}/{sub['period']}，下次扣费 {sub['next_charge']}",
                   f"{sub['name']}: {money} {sub['period']}, next charge {sub['next_charge']}")

    extra = ""
    if per_month:
        total = "; ".join(Money(v, k).format() for k, v in sorted(per_month.items()))
        extra = c.t(f"每月约 {total}", f"About {total} a month")
    return c.listing(("订阅", "subscriptions"), subs, len(subs), render_sub, extra=extra)


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the finance actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        record_transaction,
        list_transactions,
        list_subscriptions,
    )
