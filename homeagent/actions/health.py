"""Health actions: mood, diet, water, sleep, body, medicine, period and other metrics.

Every record is private to the member who made it. `get_focus_today` derives the day's
focus from tasks, events and habits (there is nothing to create for it).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from homeagent.actions.base import LIST, ActionRegistry, Call, Category, Deps, enum, i, num, s, when
from homeagent.actions.sql import Where, insert, page, private_to, rows, show_when, update
from homeagent.errors import ToolValidationError
from homeagent.numbers import NUM, find_number, parse_number
from homeagent.text import HAN
from homeagent.tools.registry import DisplayHint, Permission, ToolOutput

CATEGORY = Category("health")
_MOOD_SCORES = (
    (5, ("超开心", "非常好", "特别好", "太棒", "excellent", "amazing", "fantastic", "thrilled")),
    (1, ("很差", "糟糕", "崩溃", "terrible", "awful", "miserable", "depressed")),
    (4, ("开心", "不错", "很好", "高兴", "愉快", "good", "happy", "great", "cheerful", "nice")),
    (2, ("难过", "焦虑", "烦", "累", "郁闷", "低落", "sad", "anxious", "tired", "stressed", "upset", "down")),
    (3, ("一般", "还行", "平静", "ok", "okay", "fine", "calm", "so-so", "meh")),
)
_MEALS = ("breakfast", "lunch", "dinner", "snack")
_MEAL_WORDS = {"早": "breakfast", "breakfast": "breakfast", "午": "lunch", "lunch": "lunch",
               "晚": "dinner", "dinner": "dinner", "supper": "dinner", "宵夜": "snack", "零食": "snack",
               "snack": "snack", "加餐": "snack"}


def mood_score(mood: str) -> int | None:
    low = mood.casefold()
    return next((score for score, words in _MOOD_SCORES if any(w in low for w in words)), None)


def _moment(c: Call, key: str = "time") -> tuple[str, str]:
    found = c.when(key, prefer="past")
    if found is None:
        return c.now.isoformat(timespec="seconds"), c.today.isoformat()
    return found.iso(), found.day.isoformat()


def _range(c: Call, days: int, column: str = "day") -> Where:
    """The member's own records in the asked `from`/`to` range (default: the last `days`)."""
    clause, params = private_to(c.member)
    start, end = c.range(default_days=days)
    return Where().add(clause, *params).between(column, start, end)


TIME = when("时间，默认现在 / when, default now")


@CATEGORY.define(
    "record_mood",
    "记录心情（开心、难过、焦虑、累）/ Record how the user feels (happy, sad, anxious, stressed, tired)",
    {"mood": s("心情，用用户的话，如 开心、焦虑 / the mood in the user's words"),
     "score": i("1（很差）到 5（很好）/ 1 (awful) to 5 (great)", 1, 5),
     "note": s("原因或备注 / why"), "time": TIME},
    required=["mood"],
    examples=[
        ("今天心情不错", {"mood": "不错"}),
        ("I'm feeling anxious about the exam", {"mood": "anxious", "note": "the exam"}),
        ("有点烦，工作太多了", {"mood": "烦", "note": "工作太多了"}),
    ],
    featured=1,
)
async def record_mood(c: Call) -> ToolOutput:
    mood = c.need("mood")
    score = c.args.get("score") or mood_score(mood)
    at, day = _moment(c)
    row = {"mood": mood, "score": score, "note": c.text("note", ""), "day": day, "at": at, **c.stamp()}
    row_id = await insert(c.db, "moods", row)
    score_text = f"（{score}/5）" if score else ""
    return c.done(f"已记录心情 #{row_id}：{mood}{score_text}。", f"Recorded mood #{row_id}: {mood}{score_text}.",
                  {"id": row_id, **row})


@CATEGORY.define(
    "list_moods",
    "查询心情记录，默认最近 7 天 / List mood records, by default the last 7 days",
    LIST,
    permission=Permission.READ,
    examples=[("我最近心情怎么样", {"from": "最近7天"}), ("How has my mood been this month?", {"from": "this month"})],
)
async def list_moods(c: Call) -> ToolOutput:
    where = _range(c, 7)
    limit, offset = c.page()
    found, total = await page(c.db, "moods", where, "at DESC", limit, offset)
    scores = [r["score"] for r in found if r["score"]]
    extra = c.t(f"平均 {sum(scores) / len(scores):.1f}/5", f"average {sum(scores) / len(scores):.1f}/5") if scores else ""
    listed = c.listing(("心情", "mood records"), found, total,
                       lambda r: f"#{r['id']} {show_when(r['at'])} {r['mood']}" + (f" ({r['score']}/5)" if r["score"] else "")
                       + (f" — {r['note']}" if r["note"] else ""), offset=offset, extra=extra)
    points = [(str(r["at"])[:16], float(r["score"])) for r in reversed(found) if r["score"]]
    return c.series(listed, c.t("心情", "Mood"), "/5", points) if points else listed


@CATEGORY.define(
    "record_diet",
    "记录吃了什么（饮食）/ Record what was eaten",
    {"food": s("食物 / the food"), "meal": enum("餐次 / which meal", *_MEALS),
     "calories": i("热量（千卡）/ calories (kcal)", 0, 10000), "note": s("备注 / note"), "time": TIME},
    required=["food"],
    examples=[
        ("早饭吃了两个包子一杯豆浆", {"food": "两个包子一杯豆浆", "meal": "breakfast"}),
        ("I had a chicken salad for lunch", {"food": "chicken salad", "meal": "lunch"}),
    ],
)
async def record_diet(c: Call) -> ToolOutput:
    food = c.need("food")
    meal = c.text("meal") or next((m for w, m in _MEAL_WORDS.items() if w in (c.text("note") or "")), "")
    at, day = _moment(c)
    row = {"food": food, "meal": meal, "calories": c.args.get("calories"), "note": c.text("note", ""),
           "day": day, "at": at, **c.stamp()}
    row_id = await insert(c.db, "diets", row)
    return c.done(f"已记录饮食 #{row_id}：{meal + ' ' if meal else ''}{food}。",
                  f"Recorded #{row_id}: {meal + ' ' if meal else ''}{food}.", {"id": row_id, **row})


@CATEGORY.define(
    "list_diets",
    "查询饮食记录，默认今天 / List what was eaten, by default today",
    {"meal": enum("餐次 / which meal", *_MEALS), **LIST},
    permission=Permission.READ,
    examples=[("我今天都吃了什么", {"from": "今天"}), ("What did I eat yesterday?", {"from": "yesterday"})],
)
async def list_diets(c: Call) -> ToolOutput:
    where = _range(c, 1).equal("meal", c.text("meal"))
    limit, offset = c.page()
    found, total = await page(c.db, "diets", where, "at DESC", limit, offset)
    kcal = sum(r["calories"] or 0 for r in found)
    extra = c.t(f"热量合计 {kcal} 千卡", f"{kcal} kcal in all") if kcal else ""
    return c.listing(("饮食记录", "meals"), found, total,
                     lambda r: f"#{r['id']} {show_when(r['at'])} {r['meal']} {r['food']}".replace("  ", " "),
                     offset=offset, extra=extra)


def water_ml(value: Any, cup_ml: int) -> int | None:
    """250, "500ml", "一杯", "2 cups", "半瓶" → millilitres."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value * cup_ml) if value <= 10 else int(value)
    text = str(value).casefold()
    number = find_number(text)
    if number is None and re.search(r"\bhalf\b", text):
        number = 0.5  # "half a glass", as 半杯 is
    number = 1.0 if number is None else number
    known = r"ml|毫升|升|\bl\b|liter|litre|瓶|bottle|杯|cup|glass|口"
    counted = r"\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple|dozen|half)\b"
    if re.search(rf"[a-z{HAN}]", re.sub(rf"{counted}|{NUM}|个|半|{known}|of|water|水|e?s\b|\s", "", text)):
        return None  # a unit we do not know: ask for millilitres or cups
    if re.search(r"ml|毫升", text):
        return int(number)
    if re.search(r"升|\bl\b|liter|litre", text):
        return int(number * 1000)
    if re.search(r"瓶|bottle", text):
        return int(number * 500)
    if re.search(r"杯|cup|glass", text) or number <= 10:
        return int(number * cup_ml)
    return int(number)


@CATEGORY.define(
    "record_water",
    "记录喝水 / Record drinking water",
    {"amount": num("水量：毫升数，或 一杯、2 cups / millilitres, or e.g. one glass, 2 cups"), "time": TIME},
    examples=[("刚喝了一杯水", {"amount": "一杯"}), ("I drank 500ml of water", {"amount": "500ml"}),
              ("喝了两杯水", {"amount": "两杯"})],
    featured=1,
)
async def record_water(c: Call) -> ToolOutput:
    raw = c.args.get("amount")
    ml = c.settings.cup_ml if raw in (None, "") else water_ml(raw, c.settings.cup_ml)
    if not ml or ml <= 0 or ml > 5000:
        raise ToolValidationError("amount: expected millilitres (e.g. 250) or cups (e.g. 一杯, 2 cups)")
    at, day = _moment(c)
    row_id = await insert(c.db, "water_logs", {"amount_ml": ml, "day": day, "at": at, **c.stamp()})
    clause, params = private_to(c.member)
    total = (await rows(c.db, f"SELECT COALESCE(SUM(amount_ml), 0) AS ml FROM water_logs WHERE day = ? AND {clause}",
                        (day, *params)))[0]["ml"]
    goal = c.settings.water_goal_ml
    return c.done(f"已记录喝水 {ml} 毫升（#{row_id}），今天共 {total}/{goal} 毫升。",
                  f"Recorded {ml} ml of water (#{row_id}); {total}/{goal} ml today.", {"id": row_id, "ml": ml, "total": total})


@CATEGORY.define(
    "list_water",
    "查询喝水量，按天合计，默认今天 / Water drunk per day, by default today",
    {"from": LIST["from"], "to": LIST["to"]},
    permission=Permission.READ,
    examples=[("我今天喝了多少水", {}), ("How much water did I drink this week?", {"from": "this week"})],
)
async def list_water(c: Call) -> ToolOutput:
    where = _range(c, 1)
    found = await rows(c.db, f"SELECT day, SUM(amount_ml) AS ml, COUNT(*) AS times FROM water_logs"
                             f"{where.sql()} GROUP BY day ORDER BY day DESC", where.params)
    goal = c.settings.water_goal_ml
    listed = c.listing(("喝水记录（按天）", "days of water"), found, len(found),
                       lambda r: c.t(f"{r['day']}：{r['ml']}/{goal} 毫升（{r['times']} 次）",
                                     f"{r['day']}: {r['ml']}/{goal} ml ({r['times']} times)"))
    points = [(str(r["day"]), float(r["ml"])) for r in reversed(found)]
    return c.series(listed, c.t("喝水", "Water"), "ml", points) if points else listed


def sleep_minutes(value: Any) -> int | None:
    """7.5, "7个半小时", "7h30m", "450 minutes", "七小时二十分" → minutes."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(round(value * 60)) if value <= 24 else int(value)
    text = str(value).casefold()
    hours = re.search(rf"({NUM})\s*(个)?\s*(半)?\s*(?:小时|钟头|hours?|hrs?|h(?![a-z]))", text)
    rest = text[hours.end():] if hours else text
    minutes = re.search(rf"({NUM})\s*(?:分钟|分|minutes?|mins?|m(?![a-z]))", rest)
    if not hours and not minutes:
        number = find_number(text)
        if number is None:
            return None
        return int(round(number * 60)) if number <= 24 else int(number)
    total = 0.0
    if hours:
        total += ((parse_number(hours.group(1)) or 0) + (0.5 if hours.group(3) else 0)) * 60
    if minutes:
        total += parse_number(minutes.group(1)) or 0
    return int(round(total))


@CATEGORY.define(
    "record_sleep",
    "记录睡眠时长或作息 / Record a night's sleep",
    {"hours": num("睡了多久，如 7.5 或 7个半小时 / how long, e.g. 7.5 or 7h30m"),
     "bedtime": when("入睡时间 / when they fell asleep"), "wake": when("起床时间 / when they woke up"),
     "quality": s("睡眠质量 / how well"), "date": when("醒来的日期，默认今天 / the morning of waking, default today")},
    examples=[("昨晚睡了7个半小时", {"hours": "7个半小时"}), ("I slept 6 hours last night", {"hours": 6}),
              ("昨天晚上11点睡的，今天早上7点起", {"bedtime": "昨晚11点", "wake": "今天早上7点"})],
    featured=1,
)
async def record_sleep(c: Call) -> ToolOutput:
    bed, wake = c.when("bedtime", prefer="past"), c.when("wake", prefer="past")
    minutes = None if c.args.get("hours") in (None, "") else sleep_minutes(c.args["hours"])
    if c.args.get("hours") not in (None, "") and minutes is None:
        raise ToolValidationError("hours: expected hours such as 7.5 or text such as 7个半小时 / 7h30m")
    if minutes is None and bed and wake:
        span = wake.value - bed.value
        if span < timedelta(0):
            span += timedelta(days=1)
        minutes = int(span.total_seconds() // 60)
    if not minutes or minutes <= 0 or minutes > 24 * 60:
        raise ToolValidationError("hours: give how long they slept (e.g. 7.5), or both bedtime and wake")
    day = c.day("date", prefer="past") or (wake.day if wake else c.today)
    row = {"minutes": minutes, "bedtime": bed.iso() if bed else None, "wake": wake.iso() if wake else None,
           "quality": c.text("quality", ""), "note": "", "day": day.isoformat(), **c.stamp()}
    row_id = await insert(c.db, "sleep_logs", row)
    h, m = divmod(minutes, 60)
    return c.done(f"已记录睡眠 #{row_id}：{h} 小时 {m} 分（{day.isoformat()}）。",
                  f"Recorded sleep #{row_id}: {h} h {m} min ({day.isoformat()}).", {"id": row_id, **row})


def body_kg(said: Any, value: float) -> float:
    """A weight as record_body stores it: `value`, the number read out of `said`, in
    kilograms. 斤 is half a kilogram ("130斤" is 65); a pound is 0.4536 of one ("185 lb" 83.9)."""
    if not isinstance(said, str):
        return value
    if "斤" in said and "公斤" not in said:
        return value / 2
    if re.search(r"lb|pound|磅", said, re.I):
        return round(value * 0.4536, 1)
    return value


@CATEGORY.define(
    "record_body",
    "记录体重、身高、体脂、腰围等身体数据 / Record body measurements: weight, height, body fat, waist",
    {"weight_kg": num("体重（公斤）/ weight in kg"), "height_cm": num("身高（厘米）/ height in cm"),
     "body_fat": num("体脂率 % / body fat %"), "waist_cm": num("腰围（厘米）/ waist in cm"),
     "note": s("备注 / note"), "date": when("日期，默认今天 / the day")},
    examples=[("我今天体重65公斤", {"weight_kg": 65}), ("My weight is 72.4 kg this morning", {"weight_kg": 72.4}),
              ("体重130斤", {"weight_kg": "130斤"})],
)
async def record_body(c: Call) -> ToolOutput:
    values: dict[str, float] = {}
    for key, low, high in (("weight_kg", 2, 400), ("height_cm", 30, 260), ("body_fat", 1, 80), ("waist_cm", 20, 250)):
        raw = c.args.get(key)
        if raw in (None, ""):
            continue
        value = c.number(key)
        if key == "weight_kg" and value is not None:
            value = body_kg(raw, value)
        if value is None or not low <= value <= high:
            raise ToolValidationError(f"{key}: expected a number from {low} to {high}, got {raw!r}")
        values[key] = value
    if not values:
        raise ToolValidationError("weight_kg: give at least one of weight_kg, height_cm, body_fat, waist_cm")
    day = c.day("date", prefer="past") or c.today
    row = {**values, "note": c.text("note", ""), "day": day.isoformat(), **c.stamp()}
    row_id = await insert(c.db, "body_metrics", row)
    text = ", ".join(f"{k}={v:g}" for k, v in values.items())
    return c.done(f"已记录身体数据 #{row_id}：{text}（{day.isoformat()}）。",
                  f"Recorded body data #{row_id}: {text} ({day.isoformat()}).", {"id": row_id, **row})


@CATEGORY.define(
    "record_medicine",
    "记录吃药（用药）/ Record taking a medicine",
    {"medicine": s("药名 / the medicine"), "dose": s("剂量，如 1片、5ml / dose, e.g. 1 tablet"),
     "note": s("备注 / note"), "time": TIME},
    required=["medicine"],
    examples=[("我吃了一片布洛芬", {"medicine": "布洛芬", "dose": "一片"}),
              ("Took my blood pressure pill this morning", {"medicine": "blood pressure pill", "time": "this morning"})],
)
async def record_medicine(c: Call) -> ToolOutput:
    name = c.need("medicine")
    at, day = _moment(c)
    row = {"name": name, "dose": c.text("dose", ""), "note": c.text("note", ""), "day": day, "at": at, **c.stamp()}
    row_id = await insert(c.db, "medicine_logs", row)
    return c.done(f"已记录用药 #{row_id}：{name} {row['dose']}（{show_when(at)}）。",
                  f"Recorded medicine #{row_id}: {name} {row['dose']} ({show_when(at)}).", {"id": row_id, **row})


@CATEGORY.define(
    "record_period",
    "记录经期开始或结束 / Record a period starting or ending",
    {"start": when("开始日期，默认今天 / first day, default today"), "end": when("结束日期 / last day"),
     "flow": enum("流量 / flow", "light", "medium", "heavy"), "note": s("备注 / note")},
    examples=[("大姨妈今天来了", {"start": "今天"}), ("My period ended yesterday", {"end": "yesterday"})],
)
async def record_period(c: Call) -> ToolOutput:
    start, end = c.day("start", prefer="past"), c.day("end", prefer="past")
    clause, params = private_to(c.member)
    if end and not start:
        open_ = await rows(c.db, f"SELECT * FROM period_logs WHERE end_day IS NULL AND {clause} ORDER BY start_day DESC LIMIT 1", params)
        if open_:
            await update(c.db, "period_logs", open_[0]["id"], {"end_day": end.isoformat()})
            return c.done(f"已记录经期结束：{open_[0]['start_day']} 至 {end.isoformat()}。",
                          f"Recorded the period from {open_[0]['start_day']} to {end.isoformat()}.", {"id": open_[0]["id"]})
    start = start or c.today
    if end and end < start:
        raise ToolValidationError("end: the period cannot end before it starts")
    row = {"start_day": start.isoformat(), "end_day": end.isoformat() if end else None,
           "flow": c.text("flow", ""), "note": c.text("note", ""), **c.stamp()}
    row_id = await insert(c.db, "period_logs", row)
    return c.done(f"已记录经期 #{row_id}：{start.isoformat()} 开始。",
                  f"Recorded period #{row_id} starting {start.isoformat()}.", {"id": row_id, **row})


@CATEGORY.define(
    "record_health",
    "记录健康指标：血压、心率、血糖、体温、步数等 / Record a health metric: blood pressure, heart rate, blood sugar, temperature, steps",
    {"metric": s("指标，如 血压、心率、blood_sugar / which metric"),
     "value": {"type": ["string", "number"], "description": "数值，如 120/80、72 / the reading, e.g. 120/80"},
     "unit": s("单位，如 mmHg、bpm / unit"), "note": s("备注 / note"), "time": TIME},
    required=["metric", "value"],
    examples=[("量了血压，120/80", {"metric": "血压", "value": "120/80"}),
              ("My heart rate is 72", {"metric": "heart rate", "value": 72}),
              ("今天走了8000步", {"metric": "步数", "value": 8000})],
)
async def record_health(c: Call) -> ToolOutput:
    metric, value = c.need("metric"), c.need("value")
    if not re.search(r"\d", value):
        raise ToolValidationError("value: expected a reading with digits, e.g. 120/80 or 36.8")
    at, day = _moment(c)
    row = {"metric": metric, "value": value, "unit": c.text("unit", ""), "note": c.text("note", ""),
           "day": day, "at": at, **c.stamp()}
    row_id = await insert(c.db, "health_metrics", row)
    recorded = c.done(f"已记录{metric} #{row_id}：{value} {row['unit']}。",
                      f"Recorded {metric} #{row_id}: {value} {row['unit']}.", {"id": row_id, **row})
    risk = reading_risk(metric, value)
    if risk is None:
        return recorded
    # Seed 004 §6: a reading outside the usual range is shown as a warning, not a line.
    zh, en = risk
    message = c.t(zh, en)
    return ToolOutput(f"{recorded.content} {message}",
                      DisplayHint("risk_alert", metric, {"level": "warning", "message": message, "id": row_id}))


def reading_risk(metric: str, value: str) -> tuple[str, str] | None:
    """A warning for a blood pressure, heart rate or temperature reading outside the usual
    adult range, in Chinese and English; None when it is within it or not one of these."""
    name = metric.casefold().replace("_", " ")
    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", value)]
    if not numbers:
        return None
    if "血压" in name or "blood pressure" in name or name == "bp":
        high, low = numbers[0], numbers[1] if len(numbers) > 1 else 0.0
        if high >= 140 or low >= 90:
            return (f"血压 {value} 高于通常范围（140/90）；如果持续偏高，请咨询医生。",
                    f"Blood pressure {value} is above the usual range (140/90); if it stays high, see a doctor.")
        if high < 90 or (low and low < 60):
            return (f"血压 {value} 低于通常范围（90/60）。", f"Blood pressure {value} is below the usual range (90/60).")
    elif "心率" in name or "heart rate" in name or "pulse" in name:
        if numbers[0] > 120 or numbers[0] < 40:
            return (f"心率 {value} 超出通常的静息范围（40–120）。",
                    f"Heart rate {value} is outside the usual resting range (40–120).")
    elif ("体温" in name or "temperature" in name) and 38.5 <= numbers[0] < 45:
        return (f"体温 {value} 属于发烧。", f"A temperature of {value} is a fever.")
    return None


_HEALTH_TABLES = {
    "metric": ("health_metrics", "at DESC", lambda r: f"{show_when(r['at'])} {r['metric']} {r['value']} {r['unit']}"),
    "body": ("body_metrics", "day DESC", lambda r: f"{r['day']} " + ", ".join(
        f"{k}={r[k]:g}" for k in ("weight_kg", "height_cm", "body_fat", "waist_cm") if r[k] is not None)),
    "sleep": ("sleep_logs", "day DESC", lambda r: f"{r['day']} {r['minutes'] // 60}h{r['minutes'] % 60:02d}m {r['quality']}"),
    "medicine": ("medicine_logs", "at DESC", lambda r: f"{show_when(r['at'])} {r['name']} {r['dose']}"),
    "period": ("period_logs", "start_day DESC", lambda r: f"{r['start_day']} → {r['end_day'] or '…'} {r['flow']}"),
}


@CATEGORY.define(
    "list_health",
    "查询健康数据（指标、身体数据、睡眠、用药、经期），默认最近 30 天 / List health records, by default the last 30 days",
    {"kind": enum("metric 指标、body 身体、sleep 睡眠、medicine 用药、period 经期、all 全部",
                  "metric", "body", "sleep", "medicine", "period", "all"),
     "metric": s("指标名，如 血压 / metric name"), **LIST},
    permission=Permission.READ,
    examples=[("看看我最近的血压记录", {"kind": "metric", "metric": "血压"}),
              ("Show my sleep for the last week", {"kind": "sleep", "from": "last 7 days"}),
              ("我这个月的体重变化", {"kind": "body", "from": "本月"})],
)
async def list_health(c: Call) -> ToolOutput:
    kind = c.text("kind", "all") or "all"
    kinds = list(_HEALTH_TABLES) if kind == "all" else [kind]
    lines: list[dict[str, Any]] = []
    for k in kinds:
        table, order, render = _HEALTH_TABLES[k]
        where = _range(c, 30, "start_day" if k == "period" else "day")
        if k == "metric":
            where.contains("metric", c.text("metric"))
        found = await rows(c.db, f"SELECT * FROM {table}{where.sql()} ORDER BY {order} LIMIT 50", where.params)
        series_rows = found
        lines += [{"kind": k, "id": r["id"], "text": render(r)} for r in found]
    limit, offset = c.page()
    shown = lines[offset : offset + limit]
    listed = c.listing(("健康记录", "health records"), shown, len(lines),
                       lambda r: f"[{r['kind']}] #{r['id']} {r['text']}", offset=offset)
    if len(kinds) == 1 and kinds[0] in _SERIES and shown:
        title, unit, value = _SERIES[kinds[0]]
        points = [(p[0], float(p[1])) for p in reversed([value(r) for r in series_rows]) if p[1] is not None]
        if points:
            return c.series(listed, c.t(*title), unit, points)
    return listed


# A kind of health record shown as a chart: title, unit, row → (label, value).
_SERIES: dict[str, tuple[tuple[str, str], str, Any]] = {
    "sleep": (("睡眠", "Sleep"), "h", lambda r: (r["day"], round(r["minutes"] / 60, 2) if r["minutes"] else None)),
    "body": (("体重", "Weight"), "kg", lambda r: (r["day"], r["weight_kg"])),
    "metric": (("指标", "Metric"), "", lambda r: (str(r["at"])[:16], _numeric(r["value"]))),
}


def _numeric(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None  # "130/85" and the like are listed, not charted


@CATEGORY.define(
    "get_focus_today",
    "获取今天的专注事项：到期和逾期任务、今天的日程、未打卡的习惯 / Today's focus: due and overdue tasks, today's events, habits not yet done",
    {},
    permission=Permission.READ,
    examples=[("今天我应该专注做什么", {}), ("What should I focus on today?", {})],
)
async def get_focus_today(c: Call) -> ToolOutput:
    from homeagent.actions.events import habit_stats

    today = c.today.isoformat()
    due = await rows(c.db, "SELECT * FROM tasks WHERE status = 'open' AND due_day IS NOT NULL AND due_day <= ? "
                           "ORDER BY CASE priority WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, due", (today,))
    high = await rows(c.db, "SELECT * FROM tasks WHERE status = 'open' AND priority = 'high' AND (due_day IS NULL OR due_day > ?)", (today,))
    events = await rows(c.db, "SELECT * FROM events WHERE day = ? ORDER BY start", (today,))
    done = await rows(c.db, "SELECT COUNT(*) AS n FROM tasks WHERE completed_day = ?", (today,))
    habits = [h for h in await habit_stats(c.db, c.today) if h["status"] == "active" and not h["checked_today"]]
    lines = []
    for t in due:
        late = t["due_day"] < today
        lines.append(c.t(f"{'逾期' if late else '今天到期'}：{t['content']}（#{t['id']}）",
                         f"{'overdue' if late else 'due today'}: {t['content']} (#{t['id']})"))
    lines += [c.t(f"重要：{t['content']}（#{t['id']}）", f"important: {t['content']} (#{t['id']})") for t in high]
    lines += [c.t(f"日程：{show_when(e['start'])[11:] or '全天'} {e['title']}", f"event: {show_when(e['start'])[11:] or 'all day'} {e['title']}") for e in events]
    lines += [c.t(f"习惯未打卡：{h['name']}", f"habit not done yet: {h['name']}") for h in habits]
    head = c.t(f"今天（{today}）已完成 {done[0]['n']} 个任务。", f"Today ({today}): {done[0]['n']} tasks done.")
    if not lines:
        return c.done(head + "没有到期任务、日程或待打卡的习惯。", head + " Nothing due, scheduled or pending.")
    return ToolOutput("\n".join([head, *(f"- {x}" for x in lines)]), None)


def register(registry: ActionRegistry, deps: Deps | None) -> None:
    """Hand the health actions to `registry` (`deps` is None when they are only listed)."""
    registry.add(
        record_mood,
        list_moods,
        record_diet,
        list_diets,
        record_water,
        list_water,
        record_sleep,
        record_body,
        record_medicine,
        record_period,
        record_health,
        list_health,
        get_focus_today,
    )
