"""Mode and extras: the household mode, and the household's smaller records — dreams,
films, birthdays, books, study plans, ideas, pets, plants, recipes, medical visits,
people, addresses and coupons."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from homeagent.actions.base import (
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
    strings,
    when,
)
from homeagent.actions.money import Money
from homeagent.actions.sql import insert, rows, show_when, tags_of
from homeagent.errors import ToolError, ToolValidationError
from homeagent.store import Database
from homeagent.tools.registry import Permission, ToolOutput

CATEGORY = Category("mode_extras")


def _modes(c: Call) -> Any:
    if c.deps.modes is None:
        raise ToolError("the household mode is not available in this process")
    return c.deps.modes


@CATEGORY.define(
    "switch_mode",
    "切换家庭模式：home 在家、away 离家、sleep 睡眠、guest 访客 / Switch the household mode: home, away, sleep, guest",
    {"mode": s("模式名，如 home、away、sleep、guest，或 在家、离家、睡眠、访客 / the mode"),
     "reason": s("原因 / why")},
    required=["mode"],
    examples=[("我出门了，切换到离家模式", {"mode": "away"}), ("Good night, switch to sleep mode", {"mode": "sleep"}),
              ("客人来了，开启访客模式", {"mode": "guest"})],
)
async def switch_mode(c: Call) -> ToolOutput:
    modes = _modes(c)
    previous, new = await modes.set(c.need("mode"), reason=c.text("reason", "") or "", member=c.member)
    if previous == new:
        return c.done(f"现在已经是 {new} 模式了。", f"The household is already in {new} mode.", {"mode": new})
    return c.done(f"已从 {previous} 模式切换到 {new} 模式。", f"Switched from {previous} mode to {new} mode.",
                  {"mode": new, "previous": previous})


@CATEGORY.define(
    "get_current_mode",
    "查询当前家庭模式 / Tell the current household mode",
    {},
    permission=Permission.READ,
    examples=[("现在是什么模式", {}), ("What mode is the house in?", {})],
)
async def get_current_mode(c: Call) -> ToolOutput:
    modes = _modes(c)
    mode = await modes.current()
    others = ", ".join(modes.modes)
    return c.done(f"当前是 {mode} 模式（可选：{others}）。", f"The household is in {mode} mode (modes: {others}).", {"mode": mode})


async def _record(c: Call, table: str, row: dict[str, Any], zh: str, en: str) -> ToolOutput:
    row_id = await insert(c.db, table, {**row, **c.stamp()})
    return c.done(f"已记录{zh} #{row_id}。", f"Recorded {en} #{row_id}.", {"id": row_id, **row})


@CATEGORY.define(
    "record_dream",
    "记录梦境（梦见、梦到、做梦）/ Record a dream (dreamt, dreamed)",
    {"content": s("梦的内容 / the dream"), "mood": s("醒来的感受 / how it felt"), "date": when("哪天晚上，默认今天 / which night")},
    required=["content"],
    examples=[("我昨晚梦见自己在飞", {"content": "自己在飞", "date": "昨晚"}), ("I dreamt I was back at school", {"content": "back at school"})],
)
async def record_dream(c: Call) -> ToolOutput:
    content = c.need("content")
    day = c.day("date", prefer="past") or c.today
    return await _record(c, "dreams", {"content": content, "mood": c.text("mood", ""), "day": day.isoformat()},
                         f"梦境：{content[:30]}", f"the dream: {content[:40]}")


@CATEGORY.define(
    "record_movie",
    "记录看过或想看的电影、剧集 / Record a film or series watched or to watch",
    {"title": s("片名 / title"), "kind": enum("movie 电影、tv 剧集、anime 动画、documentary 纪录片", "movie", "tv", "anime", "documentary"),
     "status": enum("watched 看过（默认）、watching 在看、want 想看", "watched", "watching", "want"),
     "rating": num("评分 1–10 / rating 1–10"), "note": s("短评 / short review"), "date": when("日期，默认今天 / when")},
    required=["title"],
    examples=[("刚看完《流浪地球2》，给9分", {"title": "流浪地球2", "rating": 9}),
              ("I want to watch Dune", {"title": "Dune", "status": "want"})],
)
async def record_movie(c: Call) -> ToolOutput:
    title = c.need("title").strip("《》")
    rating = c.number("rating", minimum=0, maximum=10)
    day = c.day("date", prefer="past") or c.today
    return await _record(c, "media", {"title": title, "kind": c.text("kind", "movie"), "status": c.text("status", "watched"),
                                      "rating": rating, "note": c.text("note", ""), "day": day.isoformat()},
                         f"影视《{title}》" + (f"，{rating:g} 分" if rating is not None else ""),
                         f"{title}" + (f", rated {rating:g}" if rating is not None else ""))


async def upcoming_birthdays(db: Database, today: date) -> list[dict[str, Any]]:
    out = []
    for b in await rows(db, "SELECT * FROM birthdays"):
        year = today.year
        while True:
            try:
                nxt = date(year, b["month"], b["day"])
            except ValueError:  # 29 February outside a leap year: the 28th
                nxt = date(year, b["month"], 28)
            if nxt >= today:
                break
            year += 1
        age = nxt.year - b["year"] if b["year"] else None
        out.append({**b, "next": nxt.isoformat(), "days": (nxt - today).days, "age": age})
    return sorted(out, key=lambda b: b["days"])


@CATEGORY.define(
    "add_birthday",
    "添加某人的生日 / Add someone's birthday",
    {"person": s("谁的生日 / whose"), "date": s("生日，如 5月20日 或 1990-05-20 / birthday, e.g. May 20 or 1990-05-20"),
     "lunar": boolean("是否农历 / a lunar-calendar date"), "note": s("备注 / note")},
    required=["person", "date"],
    examples=[("妈妈的生日是5月20日", {"person": "妈妈", "date": "5月20日"}),
              ("Add Tom's birthday, March 3rd 1990", {"person": "Tom", "date": "1990-03-03"})],
)
async def add_birthday(c: Call) -> ToolOutput:
    name, raw = c.need("person"), c.need("date")
    day = c.day("date")
    assert day is not None
    year = day.year if re.search(r"\d{4}", raw) else None
    row = {"name": name, "month": day.month, "day": day.day, "year": year,
           "lunar": 1 if c.args.get("lunar") else 0, "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "birthdays", row)
    nxt = next(b for b in await upcoming_birthdays(c.db, c.today) if b["id"] == row_id)
    return c.done(f"已添加{name}的生日：{day.month}月{day.day}日（还有 {nxt['days']} 天）。",
                  f"Added {name}'s birthday: {day.strftime('%B')} {day.day} ({nxt['days']} days to go).", {"id": row_id, **row})


@CATEGORY.define(
    "list_birthdays",
    "查询生日，按最近的排序 / List birthdays, soonest first",
    {"within_days": i("只看多少天内的 / only those within this many days", 1, 366), "query": s("名字 / name"), **PAGE},
    permission=Permission.READ,
    examples=[("最近有谁过生日", {"within_days": 30}), ("When is Tom's birthday?", {"query": "Tom"})],
)
async def list_birthdays(c: Call) -> ToolOutput:
    found = await upcoming_birthdays(c.db, c.today)
    if c.args.get("within_days"):
        found = [b for b in found if b["days"] <= int(c.args["within_days"])]
    if c.text("query"):
        found = [b for b in found if (c.text("query") or "").casefold() in b["name"].casefold()]
    limit, offset = c.page()

    def render(b: Any) -> str:
        age = c.t(f"，满 {b['age']} 岁", f", turns {b['age']}") if b["age"] else ""
        when_ = c.t("今天" if b["days"] == 0 else f"{b['days']} 天后", "today" if b["days"] == 0 else f"in {b['days']} days")
        return f"{b['name']}：{b['month']}月{b['day']}日（{when_}{age}）" if c.lang == "zh" else f"{b['name']}: {b['next']} ({when_}{age})"

    return c.listing(("生日", "birthdays"), found[offset : offset + limit], len(found), render, offset=offset)


@CATEGORY.define(
    "add_book",
    "添加书籍到书单（想读、在读、读过）/ Add a book to the reading list (want, reading, read)",
    {"title": s("书名 / title"), "author": s("作者 / author"),
     "status": enum("want 想读（默认）、reading 在读、read 读过", "want", "reading", "read"),
     "rating": num("评分 1–10 / rating"), "note": s("备注 / note")},
    required=["title"],
    examples=[("我想读《三体》", {"title": "三体", "status": "want"}), ("I just finished reading Atomic Habits", {"title": "Atomic Habits", "status": "read"})],
)
async def add_book(c: Call) -> ToolOutput:
    title = c.need("title").strip("《》")
    return await _record(c, "books", {"title": title, "author": c.text("author", ""), "status": c.text("status", "want"),
                                      "rating": c.number("rating", minimum=0, maximum=10), "note": c.text("note", "")},
                         f"书籍《{title}》", f"the book {title}")


@CATEGORY.define(
    "create_study_plan",
    "创建学习计划 / Create a study plan",
    {"subject": s("学什么 / the subject"), "goal": s("目标 / the aim"), "start": when("开始日期，默认今天 / start"),
     "end": when("结束日期 / end"), "minutes_per_day": i("每天多少分钟 / minutes a day", 1, 1440),
     "schedule": s("安排，如 每周一三五 / schedule")},
    required=["subject"],
    examples=[("帮我做个学习计划：每天学30分钟英语，坚持到年底", {"subject": "英语", "minutes_per_day": 30, "end": "年底"}),
              ("Create a study plan for Python, one hour a day", {"subject": "Python", "minutes_per_day": 60})],
)
async def create_study_plan(c: Call) -> ToolOutput:
    subject = c.need("subject")
    start = c.day("start") or c.today
    end = c.day("end")
    minutes = c.args.get("minutes_per_day")
    row = {"subject": subject, "goal": c.text("goal", ""), "start_day": start.isoformat(),
           "end_day": end.isoformat() if end else None, "minutes_per_day": minutes, "schedule": c.text("schedule", "")}
    detail = c.t(f"，每天 {minutes} 分钟", f", {minutes} min a day") if minutes else ""
    return await _record(c, "study_plans", row, f"学习计划：{subject}{detail}", f"the study plan: {subject}{detail}")


@CATEGORY.define(
    "create_idea",
    "记录一个灵感或点子 / Capture an idea",
    {"content": s("灵感内容 / the idea"), "tags": strings("标签 / tags")},
    required=["content"],
    examples=[("突然有个想法：做一个自动浇花器", {"content": "做一个自动浇花器"}), ("Idea: a podcast about local history", {"content": "a podcast about local history"})],
)
async def create_idea(c: Call) -> ToolOutput:
    content = c.need("content")
    return await _record(c, "ideas", {"content": content, "tags": json.dumps(tags_of(c.args.get("tags")), ensure_ascii=False),
                                      "day": c.today.isoformat()}, f"灵感：{content[:30]}", f"the idea: {content[:40]}")


def _at(c: Call) -> tuple[str, str]:
    found = c.when("time", prefer="past")
    return (found.iso(), found.day.isoformat()) if found else (c.now.isoformat(timespec="seconds"), c.today.isoformat())


@CATEGORY.define(
    "record_pet_activity",
    "记录宠物（猫、狗）的活动：喂食、遛狗、洗澡、看兽医 / Record a pet (cat, dog) activity: fed, walked, bath, vet",
    {"pet": s("宠物名 / the pet"), "activity": s("做了什么 / what happened"), "note": s("备注 / note"),
     "time": when("时间，默认现在 / when")},
    required=["pet", "activity"],
    examples=[("刚遛完旺财", {"pet": "旺财", "activity": "遛狗"}), ("Fed the cat at 7am", {"pet": "cat", "activity": "fed", "time": "7am"})],
)
async def record_pet_activity(c: Call) -> ToolOutput:
    pet, activity = c.need("pet"), c.need("activity")
    at, day = _at(c)
    return await _record(c, "pet_activities", {"pet": pet, "activity": activity, "note": c.text("note", ""), "day": day, "at": at},
                         f"{pet}：{activity}（{show_when(at)}）", f"{pet}: {activity} ({show_when(at)})")


@CATEGORY.define(
    "record_plant_watering",
    "记录给植物浇水 / Record watering a plant",
    {"plant": s("植物 / the plant"), "amount_ml": i("浇水量（毫升）/ water in ml", 1, 20000), "note": s("备注 / note"),
     "time": when("时间，默认现在 / when")},
    required=["plant"],
    examples=[("给绿萝浇了水", {"plant": "绿萝"}), ("I watered the tomatoes", {"plant": "tomatoes"})],
)
async def record_plant_watering(c: Call) -> ToolOutput:
    plant = c.need("plant")
    at, day = _at(c)
    last = await rows(c.db, "SELECT day FROM plant_waterings WHERE plant = ? ORDER BY at DESC LIMIT 1", (plant,))
    out = await _record(c, "plant_waterings", {"plant": plant, "amount_ml": c.args.get("amount_ml"),
                                               "note": c.text("note", ""), "day": day, "at": at},
                        f"浇水：{plant}", f"watering: {plant}")
    if last:
        gap = (date.fromisoformat(day) - date.fromisoformat(last[0]["day"])).days
        return ToolOutput(str(out.content) + c.t(f" 距上次浇水 {gap} 天。", f" {gap} days since the last watering."), out.display)
    return out


@CATEGORY.define(
    "add_recipe",
    "添加食谱 / Save a recipe",
    {"dish": s("菜名 / the dish"), "ingredients": strings("食材 / ingredients"),
     "steps": s("做法 / how to make it"), "tags": strings("标签 / tags"), "note": s("备注 / note")},
    required=["dish"],
    examples=[("记个菜谱：番茄炒蛋，番茄两个鸡蛋三个", {"dish": "番茄炒蛋", "ingredients": ["番茄两个", "鸡蛋三个"]}),
              ("Save a recipe for pancakes: flour, milk, eggs", {"dish": "pancakes", "ingredients": ["flour", "milk", "eggs"]})],
)
async def add_recipe(c: Call) -> ToolOutput:
    name = c.need("dish")
    ingredients = tags_of(c.args.get("ingredients"))
    return await _record(c, "recipes", {"name": name, "ingredients": json.dumps(ingredients, ensure_ascii=False),
                                        "steps": c.text("steps", ""), "tags": json.dumps(tags_of(c.args.get("tags")), ensure_ascii=False),
                                        "note": c.text("note", "")}, f"食谱：{name}", f"the recipe: {name}")


@CATEGORY.define(
    "record_medical",
    "记录一次就诊（看医生、看牙、去医院）/ Record a visit to the doctor, dentist or hospital",
    {"reason": s("为什么看病 / why"), "hospital": s("医院 / hospital or clinic"), "department": s("科室 / department"),
     "doctor": s("医生 / doctor"), "diagnosis": s("诊断 / diagnosis"), "cost": num("花费 / cost"),
     "note": s("医嘱、备注 / advice, notes"), "date": when("日期，默认今天 / when")},
    required=["reason"],
    examples=[("今天去市一医院看了牙，花了300", {"reason": "看牙", "hospital": "市一医院", "department": "口腔科", "cost": 300}),
              ("Saw Dr. Lee for my back pain yesterday", {"reason": "back pain", "doctor": "Dr. Lee", "date": "yesterday"})],
)
async def record_medical(c: Call) -> ToolOutput:
    reason = c.need("reason")
    cost = c.money("cost")
    day = c.day("date", prefer="past") or c.today
    row = {"reason": reason, "hospital": c.text("hospital", ""), "department": c.text("department", ""),
           "doctor": c.text("doctor", ""), "diagnosis": c.text("diagnosis", ""),
           "cost_minor": cost.minor if cost else None, "currency": cost.currency if cost else None,
           "note": c.text("note", ""), "day": day.isoformat()}
    cost_text = f"，{Money(cost.minor, cost.currency).format()}" if cost else ""
    return await _record(c, "medical_visits", row, f"就诊：{reason}（{day.isoformat()}{cost_text}）",
                         f"the visit: {reason} ({day.isoformat()}{cost_text})")


@CATEGORY.define(
    "add_person",
    "添加联系人 / Add a contact",
    {"person": s("姓名 / name"), "relation": s("关系，如 同事、表姐 / relation"), "phone": s("电话 / phone"),
     "email": s("邮箱 / email"), "birthday": s("生日 / birthday"), "note": s("备注 / note")},
    required=["person"],
    examples=[("加个联系人：张医生，电话13800138000", {"person": "张医生", "phone": "13800138000"}),
              ("Add Sarah, my piano teacher, to contacts", {"person": "Sarah", "relation": "piano teacher"})],
)
async def add_person(c: Call) -> ToolOutput:
    name = c.need("person")
    phone = c.text("phone", "") or ""
    if phone and not re.fullmatch(r"[+\d][\d\s()-]{3,}", phone):
        raise ToolValidationError("phone: expected digits, e.g. 13800138000 or +44 20 7946 0958")
    email = c.text("email", "") or ""
    if email and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", email):
        raise ToolValidationError("email: expected an address such as name@example.com")
    return await _record(c, "people", {"name": name, "relation": c.text("relation", ""), "phone": phone, "email": email,
                                       "birthday": c.text("birthday"), "note": c.text("note", "")},
                         f"联系人：{name}", f"the contact: {name}")


@CATEGORY.define(
    "add_address",
    "保存一个地址 / Save an address",
    {"label": s("名称，如 公司、奶奶家 / label, e.g. office"), "address": s("详细地址 / the address"),
     "person": s("谁的地址 / whose"), "note": s("备注 / note")},
    required=["label", "address"],
    examples=[("记一下奶奶家的地址：幸福路88号", {"label": "奶奶家", "address": "幸福路88号"}),
              ("Save the office address: 1 Main Street", {"label": "office", "address": "1 Main Street"})],
)
async def add_address(c: Call) -> ToolOutput:
    label, address = c.need("label"), c.need("address")
    return await _record(c, "addresses", {"label": label, "address": address, "person": c.text("person", ""),
                                          "note": c.text("note", "")}, f"地址：{label}", f"the address: {label}")


@CATEGORY.define(
    "add_coupon",
    "保存优惠券 / Save a coupon",
    {"title": s("优惠券 / what it is"), "store": s("商家 / store"), "discount": s("优惠，如 满100减20 / discount"),
     "code": s("券码 / code"), "expires": when("有效期至 / valid until"), "note": s("备注 / note")},
    required=["title"],
    examples=[("存个优惠券：星巴克买一送一，月底过期", {"title": "买一送一", "store": "星巴克", "expires": "月底"}),
              ("Save a 20% off coupon for IKEA, code SAVE20", {"title": "20% off", "store": "IKEA", "code": "SAVE20"})],
)
async def add_coupon(c: Call) -> ToolOutput:
    title = c.need("title")
    expires = c.deadline("expires")
    row = {"title": title, "store": c.text("store", ""), "discount": c.text("discount", ""), "code": c.text("code", ""),
           "expires": expires.isoformat() if expires else None, "note": c.text("note", "")}
    until = c.t(f"，有效期至 {row['expires']}", f", valid until {row['expires']}") if expires else ""
    return await _record(c, "coupons", row, f"优惠券：{row['store']} {title}{until}".replace("  ", " "),
                         f"the coupon: {row['store']} {title}{until}".replace("  ", " "))


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the mode and extras actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        switch_mode,
        get_current_mode,
        record_dream,
        record_movie,
        add_birthday,
        list_birthdays,
        add_book,
        create_study_plan,
        create_idea,
        record_pet_activity,
        record_plant_watering,
        add_recipe,
        record_medical,
        add_person,
        add_address,
        add_coupon,
    )
