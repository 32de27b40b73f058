"""Inventory and lending actions: what the household owns and where it is, things lent
or borrowed, and money lent or borrowed (with repayments)."""

from __future__ import annotations

from typing import Any

from homeagent.actions.base import (
    ID,
    PAGE,
    ActionRegistry,
    Call,
    Category,
    Deps,
    boolean,
    enum,
    num,
    s,
    when,
)
from homeagent.actions.money import Money
from homeagent.actions.sql import Where, delete, find, insert, page, rows, update
from homeagent.errors import ToolValidationError
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("inventory")
ITEM = ("物品", "items")
_DIRECTION = enum("lent 借出给别人（默认）或 borrowed 从别人那借来 / lent (to someone, default) or borrowed (from someone)",
                  "lent", "borrowed")


def _unit(unit: str) -> str:
    return f" {unit}" if unit[:1].isascii() and unit[:1].isalpha() else unit


@CATEGORY.define(
    "list_inventory",
    "查询家里的物品清单和存放位置（含借出状态）/ List what the household owns and where it is kept (with lending state)",
    {"query": s("物品名或关键词 / item or keyword"), "location": s("存放位置 / where it is kept"),
     "category": s("分类 / category"), **PAGE},
    permission=Permission.READ,
    examples=[("充电器放在哪里了", {"query": "充电器"}), ("What's in the garage?", {"location": "garage"}),
              ("家里还有几瓶洗发水", {"query": "洗发水"})],
)
async def list_inventory(c: Call) -> ToolOutput:
    where = (Where().keyword(["name", "category", "note", "location"], c.text("query"))
             .contains("location", c.text("location")).contains("category", c.text("category")))
    limit, offset = c.page()
    found, total = await page(c.db, "inventory_items", where, "name, id", limit, offset)
    lent = {r["item"]: r for r in await rows(c.db, "SELECT * FROM item_lends WHERE returned_day IS NULL")}

    def render(r: Any) -> str:
        text = f"#{r['id']} {r['name']} ×{r['quantity']:g}{_unit(r['unit'])}"
        if r["location"]:
            text += c.t(f" @ {r['location']}", f" @ {r['location']}")
        if r["expires"]:
            text += c.t(f" · 到期 {r['expires']}", f" · expires {r['expires']}")
        if r["name"] in lent:
            text += c.t(f" · 借给了{lent[r['name']]['person']}", f" · lent to {lent[r['name']]['person']}")
        return text

    return c.listing(ITEM, found, total, render, offset=offset)


@CATEGORY.define(
    "create_inventory_item",
    "登记一件物品及其存放位置 / Record an item the household owns and where it is kept",
    {"item": s("物品名 / the item"), "quantity": num("数量 / how many"), "unit": s("单位，如 瓶、个 / unit"),
     "location": s("存放位置 / where it is kept"), "category": s("分类 / category"),
     "expires": when("过期日期 / expiry date"), "note": s("备注 / note")},
    required=["item"],
    examples=[("把护照放在书房抽屉里了，记一下", {"item": "护照", "location": "书房抽屉"}),
              ("We have 3 bottles of olive oil in the pantry", {"item": "olive oil", "quantity": 3, "unit": "bottles", "location": "pantry"})],
)
async def create_inventory_item(c: Call) -> ToolOutput:
    name = c.need("item")
    qty = c.number("quantity", minimum=0)
    expires = c.deadline("expires")
    row: dict[str, Any] = {"name": name, "quantity": 1 if qty is None else qty, "unit": c.text("unit", ""),
           "location": c.text("location", ""), "category": c.text("category", ""),
           "expires": expires.isoformat() if expires else None, "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "inventory_items", row)
    where = c.t(f"，放在{row['location']}", f", kept in {row['location']}") if row["location"] else ""
    amount = f"×{row['quantity']:g}{_unit(row['unit'])}"
    return c.done(f"已登记物品 #{row_id}：{name} {amount}{where}。",
                  f"Recorded item #{row_id}: {name} {amount}{where}.", {"id": row_id, **row})


@CATEGORY.define(
    "delete_inventory_item",
    "从物品清单删除一件物品 / Remove an item from the inventory",
    {"id": ID, "item": s("物品名 / the item")},
    permission=Permission.DELETE,
    examples=[("旧电饭煲扔了，从清单里删掉", {"item": "电饭煲"}), ("Remove the broken lamp from the inventory", {"item": "lamp"})],
)
async def delete_inventory_item(c: Call) -> ToolOutput:
    row = await find(c, "inventory_items", "name", text_key="item", noun=ITEM)
    undo = await delete(c.db, "inventory_items", row["id"])
    return c.done(f"已删除物品 #{row['id']}：{row['name']}。", f"Removed item #{row['id']}: {row['name']}.", {"id": row["id"], "undo": undo})


@CATEGORY.define(
    "record_item_lend",
    "记录物品借出、借走、借入或归还 / Record lending (lent, loaned) or borrowing a thing, or its return",
    {"item": s("物品 / the item"), "person": s("对方是谁 / who"), "direction": _DIRECTION,
     "date": when("日期，默认今天 / when"), "due": when("约定归还日期 / when it should come back"),
     "returned": boolean("是否是归还 / true when the item came back"), "note": s("备注 / note")},
    required=["item"],
    examples=[("小李借走了我的相机，说下周还", {"item": "相机", "person": "小李", "direction": "lent", "due": "下周"}),
              ("Tom returned my drill", {"item": "drill", "person": "Tom", "returned": True}),
              ("我从邻居那借了个梯子", {"item": "梯子", "person": "邻居", "direction": "borrowed"})],
)
async def record_item_lend(c: Call) -> ToolOutput:
    item = c.need("item")
    if c.args.get("returned"):
        where = ["returned_day IS NULL"]
        params: list[Any] = []
        if c.text("person"):
            where.append("person LIKE ?")
            params.append(f"%{c.text('person')}%")
        row = await find(c, "item_lends", "item", noun=("借用记录", "lending records"), text_key="item",
                         where=where, params=params)
        await update(c.db, "item_lends", row["id"], {"returned_day": (c.day("date", prefer="past") or c.today).isoformat()})
        return c.done(f"已记录归还：{row['item']}（{row['person']}）。", f"Recorded the return of {row['item']} ({row['person']}).",
                      {"id": row["id"]})
    person = c.text("person")
    if not person:
        raise ToolValidationError("person: required when lending or borrowing (who has it / who lent it)")
    day = c.day("date", prefer="past") or c.today
    due = c.day("due")
    direction = c.text("direction", "lent")
    row = {"item": item, "person": person, "direction": direction, "day": day.isoformat(),
           "due_day": due.isoformat() if due else None, "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "item_lends", row)
    due_text = c.t(f"，约定 {due.isoformat()} 归还", f", due back {due.isoformat()}") if due else ""
    if direction == "lent":
        return c.done(f"已记录 #{row_id}：{item} 借给了{person}{due_text}。", f"Recorded #{row_id}: {item} lent to {person}{due_text}.",
                      {"id": row_id, **row})
    return c.done(f"已记录 #{row_id}：从{person}借来{item}{due_text}。", f"Recorded #{row_id}: borrowed {item} from {person}{due_text}.",
                  {"id": row_id, **row})


@CATEGORY.define(
    "record_money_lend",
    "记录借钱给别人、向别人借钱，或还款 / Record money lent or borrowed, or a repayment",
    {"person": s("对方是谁 / who"), "amount": num("金额 / amount"), "direction": _DIRECTION,
     "currency": s("币种，默认 CNY / currency"), "date": when("日期，默认今天 / when"),
     "due": when("约定还款日期 / when it should be repaid"),
     "repayment": boolean("是否是还款 / true when this is money paid back"), "note": s("备注 / note")},
    required=["person", "amount"],
    examples=[("借给小王500块", {"person": "小王", "amount": 500, "direction": "lent"}),
              ("I borrowed 200 dollars from Anna", {"person": "Anna", "amount": 200, "currency": "USD", "direction": "borrowed"}),
              ("小王还了我200", {"person": "小王", "amount": 200, "repayment": True})],
)
async def record_money_lend(c: Call) -> ToolOutput:
    person = c.need("person")
    money = c.money("amount")
    if money is None or money.minor == 0:
        raise ToolValidationError("amount: required and more than 0, e.g. 500")
    day = c.day("date", prefer="past") or c.today
    if c.args.get("repayment"):
        row = await find(c, "money_lends", "person", noun=("借款", "loans"), text_key="person",
                         where=["settled_day IS NULL", "currency = ?"], params=[money.currency])
        repaid = row["repaid_minor"] + money.minor
        changes: dict[str, Any] = {"repaid_minor": repaid}
        if repaid >= row["amount_minor"]:
            changes["settled_day"] = day.isoformat()
        await update(c.db, "money_lends", row["id"], changes)
        left = Money(max(0, row["amount_minor"] - repaid), money.currency).format()
        return c.done(f"已记录还款 {money.format()}（{row['person']}），还剩 {left}。",
                      f"Recorded a repayment of {money.format()} ({row['person']}); {left} left.", {"id": row["id"], **changes})
    due = c.day("due")
    direction = c.text("direction", "lent")
    row = {"person": person, "direction": direction, "amount_minor": money.minor, "currency": money.currency,
           "day": day.isoformat(), "due_day": due.isoformat() if due else None, "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "money_lends", row)
    if direction == "lent":
        return c.done(f"已记录 #{row_id}：借给{person} {money.format()}。", f"Recorded #{row_id}: lent {money.format()} to {person}.",
                      {"id": row_id, **row})
    return c.done(f"已记录 #{row_id}：向{person}借了 {money.format()}。", f"Recorded #{row_id}: borrowed {money.format()} from {person}.",
                  {"id": row_id, **row})


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the inventory and lending actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        list_inventory,
        create_inventory_item,
        delete_inventory_item,
        record_item_lend,
        record_money_lend,
    )
