"""One day across every domain, for `get_today_summary`: each section is a small query;
a section with nothing to say is left out."""

from __future__ import annotations

from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from homeagent.actions.money import Money
from homeagent.actions.sql import private_to, rows, show_when

if TYPE_CHECKING:
    from homeagent.actions.base import Call


async def summarize_day(c: Call, day: date) -> tuple[list[str], dict[str, Any]]:
    d = day.isoformat()
    db = c.db
    mine, mp = private_to(c.member)
    lines: list[str] = []
    data: dict[str, Any] = {"date": d}

    if c.deps.modes is not None:
        mode = await c.deps.modes.current()
        data["mode"] = mode
        lines.append(c.t(f"当前模式：{mode}", f"mode: {mode}"))

    due = await rows(db, "SELECT id, content, due_day FROM tasks WHERE status = 'open' AND due_day <= ? ORDER BY due", (d,))
    done = await rows(db, "SELECT content FROM tasks WHERE completed_day = ?", (d,))
    data["tasks"] = {"due": len(due), "done": len(done)}
    if due or done:
        overdue = sum(1 for t in due if t["due_day"] < d)
        names = "、".join(t["content"] for t in due[:5]) if c.lang == "zh" else ", ".join(t["content"] for t in due[:5])
        lines.append(c.t(f"任务：完成 {len(done)} 个，待办到期 {len(due)} 个（逾期 {overdue}）{('：' + names) if names else ''}",
                         f"tasks: {len(done)} done, {len(due)} due ({overdue} overdue){(': ' + names) if names else ''}"))

    events = await rows(db, "SELECT title, start, all_day FROM events WHERE day = ? ORDER BY start", (d,))
    data["events"] = len(events)
    if events:
        items = [f"{'' if e['all_day'] else show_when(e['start'])[11:] + ' '}{e['title']}" for e in events]
        lines.append(c.t("日程：" + "；".join(items), "events: " + "; ".join(items)))

    from homeagent.actions.events import habit_stats

    habits = [h for h in await habit_stats(db, day) if h["status"] == "active"]
    if habits:
        checked = [h["name"] for h in habits if h["checked_today"]]
        missing = [h["name"] for h in habits if not h["checked_today"]]
        data["habits"] = {"checked": checked, "missing": missing}
        lines.append(c.t(f"习惯：已打卡 {len(checked)}/{len(habits)}" + (f"，未打卡：{'、'.join(missing)}" if missing else ""),
                         f"habits: {len(checked)}/{len(habits)} done" + (f", not yet: {', '.join(missing)}" if missing else "")))

    money = await rows(db, "SELECT currency, SUM(CASE WHEN kind = 'expense' THEN amount_minor ELSE 0 END) AS spent,"
                           " SUM(CASE WHEN kind = 'income' THEN amount_minor ELSE 0 END) AS earned, COUNT(*) AS n"
                           " FROM transactions WHERE day = ? GROUP BY currency", (d,))
    for m in money:
        lines.append(c.t(f"收支：{m['n']} 笔，支出 {Money(m['spent'], m['currency']).format()}，收入 {Money(m['earned'], m['currency']).format()}",
                         f"money: {m['n']} entries, spent {Money(m['spent'], m['currency']).format()}, received {Money(m['earned'], m['currency']).format()}"))

    water = (await rows(db, f"SELECT COALESCE(SUM(amount_ml), 0) AS ml FROM water_logs WHERE day = ? AND {mine}", (d, *mp)))[0]["ml"]
    if water:
        data["water_ml"] = water
        lines.append(c.t(f"喝水：{water}/{c.settings.water_goal_ml} 毫升", f"water: {water}/{c.settings.water_goal_ml} ml"))
    sleep = await rows(db, f"SELECT minutes FROM sleep_logs WHERE day = ? AND {mine} ORDER BY id DESC LIMIT 1", (d, *mp))
    if sleep:
        h, m = divmod(sleep[0]["minutes"], 60)
        lines.append(c.t(f"睡眠：{h} 小时 {m} 分", f"sleep: {h} h {m} min"))
    moods = await rows(db, f"SELECT mood FROM moods WHERE day = ? AND {mine} ORDER BY at", (d, *mp))
    if moods:
        lines.append(c.t("心情：" + "、".join(x["mood"] for x in moods), "mood: " + ", ".join(x["mood"] for x in moods)))
    meals = await rows(db, f"SELECT food FROM diets WHERE day = ? AND {mine} ORDER BY at", (d, *mp))
    if meals:
        lines.append(c.t("饮食：" + "、".join(x["food"] for x in meals), "meals: " + ", ".join(x["food"] for x in meals)))
    meds = await rows(db, f"SELECT name FROM medicine_logs WHERE day = ? AND {mine}", (d, *mp))
    if meds:
        lines.append(c.t("用药：" + "、".join(x["name"] for x in meds), "medicine: " + ", ".join(x["name"] for x in meds)))
    metrics = await rows(db, f"SELECT metric, value, unit FROM health_metrics WHERE day = ? AND {mine}", (d, *mp))
    if metrics:
        items = [f"{x['metric']} {x['value']}{x['unit']}" for x in metrics]
        lines.append(c.t("健康指标：" + "、".join(items), "health: " + ", ".join(items)))

    notes = await rows(db, f"SELECT COUNT(*) AS n FROM notes WHERE day = ? AND (private = 0 OR {mine})", (d, *mp))
    diary = await rows(db, f"SELECT COUNT(*) AS n FROM diary_entries WHERE day = ? AND {mine}", (d, *mp))
    if notes[0]["n"] or diary[0]["n"]:
        lines.append(c.t(f"笔记 {notes[0]['n']} 条，日记 {diary[0]['n']} 篇", f"{notes[0]['n']} notes, {diary[0]['n']} diary entries"))

    goals = await rows(db, "SELECT title, progress, target, unit FROM goals WHERE status = 'active'")
    if goals:
        items = [f"{g['title']} {g['progress']:g}/{g['target']:g}{g['unit']}" if g["target"] else g["title"] for g in goals[:5]]
        lines.append(c.t("进行中的目标：" + "；".join(items), "goals: " + "; ".join(items)))
    shopping = (await rows(db, "SELECT COUNT(*) AS n FROM shopping_items WHERE status = 'pending'"))[0]["n"]
    if shopping:
        lines.append(c.t(f"购物清单待买 {shopping} 项", f"{shopping} items on the shopping list"))

    week = (day + timedelta(days=7)).isoformat()
    soon = await rows(db, "SELECT title, day FROM countdowns WHERE day >= ? AND day <= ? ORDER BY day", (d, week))
    if soon:
        items = [f"{x['title']}（{(date.fromisoformat(x['day']) - day).days}天）" if c.lang == "zh"
                 else f"{x['title']} ({(date.fromisoformat(x['day']) - day).days} days)" for x in soon]
        lines.append(c.t("临近的倒计时：" + "、".join(items), "coming up: " + ", ".join(items)))
    from homeagent.actions.extras import upcoming_birthdays

    birthdays = [b for b in await upcoming_birthdays(db, day) if b["days"] <= 7]
    if birthdays:
        items = [f"{b['name']}（{'今天' if b['days'] == 0 else str(b['days']) + '天后'}）" if c.lang == "zh"
                 else f"{b['name']} ({'today' if b['days'] == 0 else 'in ' + str(b['days']) + ' days'})" for b in birthdays]
        lines.append(c.t("生日：" + "、".join(items), "birthdays: " + ", ".join(items)))
    lends = await rows(db, "SELECT item, person, due_day FROM item_lends WHERE returned_day IS NULL AND due_day IS NOT NULL AND due_day <= ?", (d,))
    if lends:
        items = [f"{x['item']}（{x['person']}）" for x in lends]
        lines.append(c.t("到期未还的物品：" + "、".join(items), "items due back: " + ", ".join(items)))
    places = await rows(db, "SELECT place FROM trajectories WHERE day = ? ORDER BY at", (d,))
    if places:
        lines.append(c.t("去过：" + "、".join(p["place"] for p in places), "places: " + ", ".join(p["place"] for p in places)))
    return lines, data
