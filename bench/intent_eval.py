"""The intent layer on household utterances: right action, right arguments, no writes on
questions, and how fast, without a model call.

bench/data/intent_eval.jsonl holds 412 utterances (half Chinese, half English; every
action; paraphrases, typos, mixed language, colloquial forms, questions, small talk,
who-are-you/help, follow-ups with the turns `before` them). They are written for this
bench and never used for training. Each line: `{"id", "lang", "kind", "text", "action",
"args", "before"?}`; `action` is an action name, "none" (small talk: the model answers),
"who_am_i" or "help"; `args` are the key arguments (dates as ISO values against the fixed
now below; a list for several items).

Every utterance runs as a real turn of a real App (SQLite in a temp dir, the fixed clock,
a scripted model that only says "(model)"), each on a channel of its own; the turn's
intent route is read back. A follow-up's turns run on its channel first; the records they
(and the follow-up's expected change) look up by name are made first, as the household made
them earlier ("删掉订机票那个任务" presumes that task). Printed:
- action accuracy: the route's action (what ran, what was asked back, or "none" for an
  utterance the model answers with no action offered) is the expected one; the model
  path counts as right only for "none";
- coverage: answered by the layer without the model; accuracy on the covered part;
- argument accuracy: of the right actions the layer ran, those whose every expected
  argument matches (text equal after normalising, dates resolved, amounts numeric; a
  record looked up by its words, as the action looks it up: see `finds_same`; a read's
  query that searches the category asked for: see `query_covers`);
- writes on questions: question/small-talk utterances that ran a write or delete (must be
  0); web searches on them apart (a search stores nothing; one nobody asked for is counted);
- p50/p95 latency of the route and of the whole turn; RSS;
- the learning curve: templates per action → action accuracy (--curve).

    .venv/bin/python bench/intent_eval.py                # in process
    .venv/bin/python bench/intent_eval.py --http         # through the daemon's /api/chat
    .venv/bin/python bench/intent_eval.py --curve --show-errors
    .venv/bin/python bench/intent_eval.py --local-model  # the bundled model answers what the layer leaves

With --local-model the lines the layer leaves to the model run on the bundled model (the
shipped default engine, offered the layer's ranked candidates) instead of the scripted one,
so action accuracy is the whole system's: a model reply that calls an action is that action,
one in words alone is "none". Its writes on questions are counted like the layer's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.actions.base import NO_REPEAT, period  # noqa: E402
from homeagent.actions.dates import DateError, parse_when, period_end  # noqa: E402
from homeagent.actions.health import body_kg, sleep_minutes, water_ml  # noqa: E402
from homeagent.actions.modes import ALIASES  # noqa: E402
from homeagent.actions.money import MoneyError, parse_money  # noqa: E402
from homeagent.actions.repeat import RepeatError, parse_repeat  # noqa: E402
from homeagent.numbers import find_number, parse_number  # noqa: E402

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday
_ARTICLES = re.compile(r"^(?:the|a|an|my|some|our)\s+|[了的]$", re.I)


def _norm(text: Any) -> str:
    value = str(text).strip().strip("\"'“”《》")
    for _ in range(2):
        value = _ARTICLES.sub("", value.strip())
    return re.sub(r"[\s\W_]+", "", value).casefold()


def _number(action: str, key: str, value: Any) -> float | None:
    if action == "record_water" and key == "amount":
        return water_ml(value, 250)
    if action == "record_sleep" and key == "hours":
        minutes = sleep_minutes(value)
        return None if minutes is None else minutes / 60
    if key == "weight_kg" and isinstance(value, str):  # stored in kilograms: 128斤 is 64, "185 lb" 83.9
        said = find_number(value)
        return None if said is None else body_kg(value, said)
    if key in ("amount", "cost") and isinstance(value, str):
        try:
            return parse_money(value, "CNY").minor / 100
        except MoneyError:
            return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    parsed = parse_number(str(value))
    return parsed if parsed is not None else find_number(str(value))


# The actions that record what happened read its day and time as past ones
# (`c.when(key, prefer="past")` in homeagent/actions): "早上8点" is this morning, "at 7" today's 7:00.
# The value is graded as the action stores it, resolved the same way.
_PAST_ACTIONS = ("record_", "check_in_", "write_", "mark_")
_PAST_KEYS = ("date", "time", "bedtime", "wake", "start", "end")


def _prefer(action: str, key: str) -> Literal["future", "past"]:
    return "past" if action.startswith(_PAST_ACTIONS) and key in _PAST_KEYS else "future"


def arg_matches(action: str, key: str, expected: Any, actual: Any) -> bool:
    if actual is None:
        return False
    if isinstance(expected, bool):
        return actual is expected or str(actual).casefold() == str(expected).casefold()
    if isinstance(expected, int | float) or (key == "weight_kg" and isinstance(expected, str)):
        if not isinstance(expected, int | float) and (expected := _number(action, key, expected)) is None:
            return False
        value = _number(action, key, actual)
        return value is not None and abs(value - float(expected)) < 1e-6
    if key == "repeat":  # "每月1号" and "每个月1号" are one rule: graded as the action stores it
        if str(expected).strip() in NO_REPEAT:  # no rule: the action ends the repeat for each of these
            return str(actual).strip().casefold() in NO_REPEAT
        got, want = _repeat_code(actual), _repeat_code(expected)
        if got is not None and want is not None and "@" not in want:
            got = got.split("@")[0]  # "每周四晚上8点" for "每周四": the rule is right; its hour is the start's to grade
        return got is not None and got == want
    if action == "record_water" and key == "amount":  # stored as millilitres: "一杯" is "1杯" is 250
        got = water_ml(actual, 250)
        return got is not None and got == water_ml(expected, 250)
    if re.fullmatch(r"\d{2}:\d{2}|\d{2}-\d{2}", str(expected)):
        # A time of day (a habit's reminder) or a day of the year (a birthday), as stored.
        try:
            when = parse_when(str(actual), NOW)
        except DateError:
            return False
        if ":" in str(expected):
            return when.has_time and when.value.strftime("%H:%M") == expected
        return when.day.strftime("%m-%d") == expected
    if key in ("deadline", "expires") and (end := period_end(str(actual), NOW)) is not None:
        return end.isoformat() == str(expected)[:10]  # "今年" by 31 December, as the action stores it
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?", str(expected)):
        try:
            when = parse_when(str(actual), NOW, prefer=_prefer(action, key))
        except DateError:
            return False
        if "T" in expected:
            return when.has_time and when.value.strftime("%Y-%m-%dT%H:%M") == expected
        return when.day.isoformat() == expected
    if action == "switch_mode" and key == "mode":
        word = str(actual).casefold().removesuffix("模式").removesuffix(" mode").strip()
        return ALIASES.get(word, word) == expected
    if key in ("dose", "quantity") and isinstance(actual, str):
        return _counted(actual) == _counted(str(expected))  # "两粒" and "2粒" are one dose
    return _norm(actual) == _norm(expected)


def _repeat_code(value: Any) -> str | None:
    try:
        return parse_repeat(str(value)).code()
    except RepeatError:
        return None


_COUNT_WORDS_EN = {"a": "1", "an": "1", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}


def _counted(value: str) -> str:
    def digits(m: re.Match[str]) -> str:
        number = parse_number(m.group(0))
        return m.group(0) if number is None else f"{number:g}"
    value = re.sub(r"^(?:an?|one|two|three|four|five|six)\b", lambda m: _COUNT_WORDS_EN[m.group(0).casefold()], value.strip(), flags=re.I)
    return _norm(re.sub(r"[零一二两三四五六七八九十百千万半]+(?=\s*[\u4e00-\u9fff])", digits, value))


def args_right(item: dict[str, Any], calls: list[tuple[str, dict[str, Any]]]) -> bool:
    return bool(calls) and all(key_right(item, calls, key) for key in item["args"])


_LOOKUP_KEYS = ("content", "title", "habit", "item", "person", "dish", "label", "plant", "pet")
_LOOKUP_ACTIONS = ("update_", "delete_", "complete_", "check_in_", "mark_")


# The columns a read's `query` also searches (its `Where.keyword` in homeagent/actions): a
# query of a category's name finds that category's records, so it reads what the category
# filter reads (and what notes also name it).
_QUERY_COVERS = {"list_transactions": ("category",), "list_inventory": ("category", "location"),
                 "list_shopping": ("category",), "list_tasks": ("category",)}


def query_covers(action: str, key: str, expected: Any, args: dict[str, Any]) -> bool:
    """A category (or an item's place) asked for as the read's query: "这个月在餐饮上花了多少"
    read as query 餐饮 finds every 餐饮 expense, as category 餐饮 would."""
    said = args.get("query")
    return (key in _QUERY_COVERS.get(action, ()) and key not in args and isinstance(said, str)
            and isinstance(expected, str) and _norm(said) == _norm(expected))


def finds_same(action: str, key: str, expected: Any, actual: Any) -> bool:
    """An update, delete, completion, check-in or mark names an existing record, and the
    action finds it as `homeagent.actions.sql.find` does: the exact text, else every word of
    the text within the record's own (SQLite LIKE, case-blind for ASCII). The words are right
    when they find the record the expected words name: "dentist" finds "dentist appointment";
    "看牙医" does not find "牙医", nor "dentist 掉" anything. A word shorter than two
    characters (three letters) would find too much to count."""
    if not (action.startswith(_LOOKUP_ACTIONS) and key in _LOOKUP_KEYS and isinstance(expected, str)
            and isinstance(actual, str)):
        return False
    record, words = expected.strip().casefold(), actual.strip().casefold().split()
    return bool(words) and all(word in record and len(word) >= (3 if word.isascii() else 2) for word in words)


_SAID_NUMBER = re.compile(r"\d[\d,.]*\s*(?:万|k\b)?|[零一二两三四五六七八九十百千万]+")


def goal_title_same(action: str, key: str, expected: Any, args: dict[str, Any]) -> bool:
    """A goal's title with or without the number its target stores: "read 24 books" and
    "read books" with target 24 are one goal, as are 减重5公斤 and 减重 with target 5 公斤
    (writers put the number in the title about as often as they leave it out)."""
    title, target = args.get("title"), args.get("target")
    if action != "create_goal" or key != "title" or not isinstance(expected, str) or not isinstance(title, str):
        return False
    value = None if target is None else _number(action, "target", target)
    if value is None:
        return False
    unit = str(args.get("unit") or "").strip()

    def bare(text: str) -> str:
        def drop(m: re.Match[str]) -> str:
            number = parse_number(m.group(0).replace(",", "").strip())
            return "" if number is not None and abs(number - value) < 1e-6 else m.group(0)
        rest = _SAID_NUMBER.sub(drop, text)
        if unit:  # ("read books" with unit books, "read 24 books": the unit went with its number)
            rest = re.sub(rf"(?<![^\W\d_])\s*{re.escape(unit)}\b|{re.escape(unit)}(?=[\u4e00-\u9fff]|$)", "", rest,
                          count=1, flags=re.I)
        return _norm(rest)
    return bare(expected) == bare(title)


def key_right(item: dict[str, Any], calls: list[tuple[str, dict[str, Any]]], key: str) -> bool:
    expected, first = item["args"][key], calls[0][1]
    if isinstance(first.get("id"), int) and item.get("before") and (key == "id" or key in _LOOKUP_KEYS):
        # A follow-up may name its record by the id the earlier turns showed: right when that
        # record is the one the expected words name, or the n-th row of the listing shown.
        named = [r for r in item.get("_seen", []) if r.get("id") == first["id"]]
        if key == "id":
            listed = item.get("_listed", [])
            return first["id"] == expected or (isinstance(expected, int) and 0 < expected <= len(listed)
                                               and listed[expected - 1].get("id") == first["id"])
        if any(_norm(expected) in _norm(v) for r in named for v in r.values() if isinstance(v, str) and v):
            return True
    if key in ("from", "to") and item["action"].startswith("list_"):
        # A read's range is graded as the action reads it (`Call.range`): "明天" alone in
        # `from` covers that day, "this week" Monday to Sunday, "from March 1" is open.
        try:
            start, end = period(first.get("from"), first.get("to"), NOW)
        except DateError:
            return False
        day = start if key == "from" else end
        return day is not None and day.isoformat() == str(expected)[:10]
    if isinstance(expected, list) and isinstance(first.get(key), list):  # a list slot (ingredients, tags)
        return sorted(_norm(v) for v in first[key]) == sorted(_norm(e) for e in expected)
    if isinstance(expected, list):  # one call per value ("milk and eggs": two items)
        got = sorted(_norm(args.get(key, "")) for _, args in calls)
        return got == sorted(_norm(e) for e in expected)
    return (arg_matches(item["action"], key, expected, first.get(key))
            or finds_same(item["action"], key, expected, first.get(key))
            or query_covers(item["action"], key, expected, first)
            or goal_title_same(item["action"], key, expected, first))


def key_misses(ran: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    """Per argument key: (key, expected, wrong, missing) over the runs of the right action,
    most often wrong or missing first: where the argument accuracy goes."""
    counts: dict[str, list[int]] = {}
    for r in ran:
        for key in r["item"]["args"]:
            c = counts.setdefault(key, [0, 0, 0])
            c[0] += 1
            if r["calls"] and not key_right(r["item"], r["calls"], key):
                c[1 if key in r["calls"][0][1] else 2] += 1
    return sorted(((k, *c) for k, c in counts.items()), key=lambda row: -(row[2] + row[3]))


def pct(a: int, b: int) -> str:
    return f"{100 * a / b:5.1f} % ({a}/{b})" if b else "  n/a"


def rss_mb() -> tuple[float, float]:
    current = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            current = int(line.split()[1]) / 1024
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- running the turns ----------------------------------------------------------------


_MAKERS = ("create", "add", "record", "write")
_SEED_DAY = "2026-03-05"


async def _seed(app: Any, item: dict[str, Any]) -> None:
    """A follow-up presumes the records its turns name exist: "删掉订机票那个任务", then "不是这个，
    是订酒店那个" deletes a task the household has. Each record the turns before it (as the layer
    routes them) and the follow-up's own expected change look up by name is made first, in its
    simplest form (the name, a day where one is required), as the household made it earlier."""
    from homeagent.chat import ToolCall
    from homeagent.tools.registry import ToolContext

    if not item.get("before"):
        return
    wanted: list[tuple[str, dict[str, Any]]] = []
    for text in item["before"]:
        route = await app.intent.route(text, channel=f"seed-{item['id']}", tools=app.intent.registry.definitions())
        wanted += [(c.name, json.loads(c.arguments or "{}")) for c in route.calls]
    if isinstance(item.get("args"), dict):
        wanted.append((item["action"], item["args"]))
    names = [d.name for d in app.tools.definitions()]
    for name, args in wanted:
        verb, _, entity = name.partition("_")
        if verb in _MAKERS or not entity:
            continue
        makers = [n for n in names if n.partition("_")[0] in _MAKERS and (
            n.partition("_")[2] == entity or n.partition("_")[2].split("_")[0] == entity.split("_")[0])]
        spec = app.tools.get(makers[0]) if len(makers) == 1 else None
        if spec is None:
            continue
        props = dict(spec.parameters).get("properties", {})
        key = next((k for k in _LOOKUP_KEYS if isinstance(args.get(k), str) and args[k].strip() and k in props), None)
        if key is None:
            continue
        made: dict[str, Any] = {key: args[key]}
        for need in dict(spec.parameters).get("required", []):
            if need not in made:
                kind = props.get(need, {}).get("type")
                made[need] = 1 if kind in ("number", "integer") or kind == ["number", "string"] else _SEED_DAY
        result = await app.tools.execute(ToolCall("seed", spec.name, json.dumps(made, ensure_ascii=False)),
                                         ToolContext(turn_id="seed", channel=f"seed-{item['id']}"))
        data = result.display.data if result.ok and result.display is not None else None
        if isinstance(data, dict) and isinstance(data.get("id"), int):
            item.setdefault("_seen", []).append(dict(data))  # (a record the follow-up may name by its id)


async def run_in_process(items: list[dict[str, Any]], app: Any) -> list[dict[str, Any]]:
    from homeagent.io import ask

    out = []
    for item in items:
        channel = f"eval-{item['id']}"
        await _seed(app, item)
        for before in item.get("before", []):
            _saw(item, [e.display for e in await _turn(ask, app, before, channel) if e.type == "tool_result"])
        started = time.perf_counter()
        events = await _turn(ask, app, item["text"], channel)
        total_ms = (time.perf_counter() - started) * 1000
        route = app.intent.last_route
        calls = [(e.name, json.loads(e.arguments or "{}")) for e in events if e.type == "tool_call"]
        out.append(_outcome(item, route.path, route.label, calls, app, route.duration_ms, total_ms,
                            "".join(getattr(e, "text", "") for e in events if e.type == "text_delta"),
                            [t.name for t in route.tools]))
    return out


def _saw(item: dict[str, Any], displays: list[Any]) -> None:
    """The records the turns before a follow-up showed: those made or changed, and the rows
    of the last listing, in its order (what "the second one" points at)."""
    for display in displays:
        data = display.get("data") if isinstance(display, dict) else None
        if isinstance(data, dict) and isinstance(data.get("rows"), list):  # a chart's rows
            data = data["rows"]
        if isinstance(data, dict) and isinstance(data.get("id"), int):
            item.setdefault("_seen", []).append(data)
        elif isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
            item.setdefault("_seen", []).extend(data)
            item["_listed"] = data


async def _turn(ask: Any, app: Any, text: str, channel: str) -> list[Any]:
    interrupt = await ask(app.inbox, text, channel=channel)
    return [event async for event in interrupt.reply.events]


LOCAL_MODEL = False  # --local-model: the model path is the bundled model's, graded as it answered


def _outcome(item: dict[str, Any], path: str, label: str, calls: list[tuple[str, dict[str, Any]]], app: Any,
             route_ms: float, total_ms: float, answer: str, offered: list[str]) -> dict[str, Any]:
    if calls:
        predicted = calls[0][0]
    elif path == "intent":
        predicted = label  # an answer of its own or a missing-slot question
    elif LOCAL_MODEL or not any(name in app.intent.templates for name in offered):
        predicted = "none"  # the model answers in words, offered no action
    else:
        predicted = "model"
    # A write changes the household's records (write/delete permission); a web search reads
    # the world and stores nothing: it is counted apart, as what went out of the house.
    perms = {name: spec.permission.value for name, _ in calls if (spec := app.tools.get(name)) is not None}
    writes = [name for name, perm in perms.items() if perm in ("write", "delete")]
    searches = [name for name, perm in perms.items() if perm == "network"]
    route = app.intent.last_route
    return {"item": item, "predicted": predicted, "path": path, "label": route.label, "confidence": route.confidence, "calls": calls, "writes": writes,
            "searches": searches,
            "route_ms": route_ms, "total_ms": total_ms, "answer": answer}


async def run_http(items: list[dict[str, Any]], app: Any) -> list[dict[str, Any]]:
    import aiohttp

    base = f"http://{app.config.daemon.listen_addr}"
    out = []
    async with aiohttp.ClientSession() as session:
        for item in items:
            channel = f"eval-{item['id']}"
            await _seed(app, item)
            for before in item.get("before", []):
                frames = await _post(session, base, before, channel)
                _saw(item, [f.get("display") for t, f in frames if t == "tool_result"])
            started = time.perf_counter()
            frames = await _post(session, base, item["text"], channel)
            total_ms = (time.perf_counter() - started) * 1000
            route = app.intent.last_route
            calls = [(f["name"], json.loads(f.get("arguments") or "{}")) for t, f in frames if t == "tool_call"]
            answer = "".join(f.get("text", "") for t, f in frames if t == "text_delta")
            out.append(_outcome(item, route.path, route.label, calls, app, route.duration_ms, total_ms, answer,
                                [t.name for t in route.tools]))
    return out


async def _post(session: Any, base: str, text: str, channel: str) -> list[tuple[str, dict[str, Any]]]:
    frames: list[tuple[str, dict[str, Any]]] = []
    async with session.post(f"{base}/api/chat", json={"message": text, "channel": channel}) as resp:
        kind = ""
        async for raw in resp.content:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                frames.append((kind, json.loads(line[5:])))
    return frames


# -- report ------------------------------------------------------------------------------


def report(results: list[dict[str, Any]], show_errors: bool) -> dict[str, Any]:
    n = len(results)
    right = [r for r in results if r["predicted"] == r["item"]["action"]]
    covered = [r for r in results if r["path"] == "intent"]
    covered_right = [r for r in covered if r["predicted"] == r["item"]["action"]]
    ran = [r for r in right if r["calls"] and r["item"]["args"]]
    args_ok = [r for r in ran if args_right(r["item"], r["calls"])]
    asks = [r for r in results if r["item"]["kind"] in ("question", "smalltalk", "who")]
    wrote = [r for r in asks if r["writes"]]
    route_ms = sorted(r["route_ms"] for r in results)
    total_ms = sorted(r["total_ms"] for r in results)
    print(f"utterances: {n} ({sum(r['item']['lang'] == 'zh' for r in results)} zh, "
          f"{sum(r['item']['lang'] == 'en' for r in results)} en)")
    print(f"action accuracy:          {pct(len(right), n)}")
    for lang in ("zh", "en"):
        sub = [r for r in results if r["item"]["lang"] == lang]
        print(f"  {lang}:                     {pct(sum(r['predicted'] == r['item']['action'] for r in sub), len(sub))}")
    kinds = sorted({r["item"]["kind"] for r in results})
    for kind in kinds:
        sub = [r for r in results if r["item"]["kind"] == kind]
        print(f"  {kind:<12}            {pct(sum(r['predicted'] == r['item']['action'] for r in sub), len(sub))}")
    top = [r for r in results if r["label"] == r["item"]["action"] or r["predicted"] == r["item"]["action"]]
    print(f"top label right:          {pct(len(top), n)}  (the classifier's first choice, before the threshold)")
    print(f"coverage (no model call): {pct(len(covered), n)}")
    print(f"accuracy on covered:      {pct(len(covered_right), len(covered))}")
    print(f"argument accuracy:        {pct(len(args_ok), len(ran))}  (right action run, with expected arguments)")
    worst = key_misses(ran)[:8]
    print("  keys most often wrong:   " + ", ".join(f"{k} {w}+{m}/{n}" for k, n, w, m in worst)
          + "  (wrong+missing/expected)")
    questions = [r for r in asks if r["item"]["kind"] == "question"]
    print(f"writes on questions:      {sum(bool(r['writes']) for r in questions)} of {len(questions)} questions; "
          f"on small talk / who: {len(wrote) - sum(bool(r['writes']) for r in questions)} of {len(asks) - len(questions)}")
    searched = [r for r in asks if r["searches"]]
    print(f"web searches on them:     {sum(r['item']['action'] != 'web_search' for r in searched)} unasked "
          f"({len(searched)} in all; a search writes nothing)")
    print(f"route latency:            p50 {statistics.median(route_ms):.1f} ms, p95 {route_ms[int(0.95 * (n - 1))]:.1f} ms")
    print(f"turn latency:             p50 {statistics.median(total_ms):.1f} ms, p95 {total_ms[int(0.95 * (n - 1))]:.1f} ms")
    current, peak = rss_mb()
    print(f"RSS:                      {current:.0f} MB now, {peak:.0f} MB peak")
    if show_errors:
        for r in results:
            item = r["item"]
            if r["predicted"] != item["action"]:
                print(f"  ACTION {item['id']} {item['text']!r}: want {item['action']}, got {r['predicted']} "
                      f"({r['path']}, top {r['label']} {r['confidence']:.2f})")
            elif r in ran and r not in args_ok:
                off = [k for k in item["args"] if not key_right(item, r["calls"], k)]
                print(f"  ARGS   {item['id']} {item['text']!r}: want {item['args']}, got {[a for _, a in r['calls']]}"
                      f"  [off: {', '.join(off)}]")
        for r in wrote:
            print(f"  WRITE  {r['item']['id']} {r['item']['text']!r}: {r['writes']}")
        for r in searched:
            if r["item"]["action"] != "web_search":
                print(f"  SEARCH {r['item']['id']} {r['item']['text']!r}: asked for {r['item']['action']}")
    return {"action": len(right) / n, "args": len(args_ok) / max(1, len(ran)), "coverage": len(covered) / n,
            "writes": sum(bool(r["writes"]) for r in questions)}


def either_label(results: list[dict[str, Any]], path: Path) -> None:
    """On the lines a second labeller labelled again (bench/label_agreement.py), the arguments
    graded against the set's labels and against either label: a value two careful labellers
    wrote differently is right when it is what either wrote."""
    second = {row["id"]: row for row in load(path)}
    ran = [r for r in results if r["item"]["id"] in second and r["predicted"] == r["item"]["action"]
           and r["calls"] and r["item"]["args"]]

    def right(r: dict[str, Any]) -> bool:
        other = second[r["item"]["id"]]
        return args_right(r["item"], r["calls"]) or (
            other["action"] == r["item"]["action"] and args_right({**r["item"], "args": other["args"]}, r["calls"]))
    n = sum(1 for r in results if r["item"]["id"] in second)
    print(f"relabelled lines ({n}):     arguments {pct(sum(args_right(r['item'], r['calls']) for r in ran), len(ran))} "
          f"against the set's labels, {pct(sum(right(r) for r in ran), len(ran))} against either label")


def curve(items: list[dict[str, Any]], app: Any) -> None:
    """Templates per action → the classifier's top label accuracy (before thresholds)."""
    layer = app.intent
    sample = [i for i in items if i["kind"] not in ("followup", "who")]
    print("learning curve (templates per action → label accuracy, examples):")
    for k in (1, 2, 3, 5, 8, None):
        layer.train_sync(limit_per_action=k)
        right = 0
        for item in sample:
            label = layer.predict(item["text"]).label
            right += label == item["action"]
        print(f"  {('all' if k is None else k):>4}: {pct(right, len(sample))}  ({layer.model.size} examples)")
    layer.train_sync()


async def main_async(args: argparse.Namespace) -> int:
    import anyio

    from homeagent.app import App
    from homeagent.clock import FakeClock
    from homeagent.config import load_config
    from homeagent.llm.testing import ScriptedProvider
    from tests.conftest import write_config

    items = load(args.data)
    if args.limit:
        items = items[: args.limit]
    tmp = Path(tempfile.mkdtemp(prefix="intent-eval-"))
    # Deletes run without a confirmation here (over /api/chat one would wait for an answer).
    config = load_config(write_config(tmp, actions={"intent": True}, permissions={"classes": {"delete": "allow"}}), env={})
    provider = None if args.local_model else ScriptedProvider(["(model)"] * 5000)
    started = time.perf_counter()
    async with App(config, provider=provider, clock=FakeClock(NOW)) as app, anyio.create_task_group() as tg:
        if args.cost is not None:
            from dataclasses import replace

            app.intent.settings = replace(app.intent.settings, cost=args.cost)
            app.intent.train_sync()
        print(f"start with training: {time.perf_counter() - started:.1f} s; {app.intent.model.size} examples, "
              f"{len(app.intent.templates)} actions, threshold {app.intent.threshold:.3f}, "
              f"held-out accuracy {app.intent.model.heldout_accuracy:.3f}, temperature {app.intent.model.temperature}")
        if args.http:
            ready = anyio.Event()
            tg.start_soon(lambda: app.run(on_ready=ready.set))
            await ready.wait()
            results = await run_http(items, app)
        else:
            tg.start_soon(app.agent.run, app.inbox)
            results = await run_in_process(items, app)
        modelled = [r for r in results if r["path"] == "model"]
        print(f"model turns: {len(modelled)}" + (
            f"; right action on them {pct(sum(r['predicted'] == r['item']['action'] for r in modelled), len(modelled))}"
            f" (the bundled model)" if args.local_model else ""))
        summary = report(results, args.show_errors)
        second = args.data.parent / args.data.name.replace("intent_blind", "relabel_blind")
        if second != args.data and second.exists():
            either_label(results, second)
        if args.curve:
            curve(items, app)
        tg.cancel_scope.cancel()
    return 0 if summary["writes"] == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/intent_eval.jsonl")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--http", action="store_true", help="through the daemon's /api/chat")
    parser.add_argument("--curve", action="store_true", help="also print the learning curve")
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument("--local-model", action="store_true", help="the bundled model answers what the layer leaves")
    parser.add_argument("--cost", type=float, default=None, help="calibration cost of a wrong action (default: the layer's)")
    args = parser.parse_args()
    import logging

    logging.disable(logging.INFO)
    global LOCAL_MODEL
    LOCAL_MODEL = args.local_model
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
