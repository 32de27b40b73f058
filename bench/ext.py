"""Costs of the extensions, printed: what a turn pays for skills, a Lua adapter call, an
MCP plugin call, and what a database backup takes.

    .venv/bin/python bench/ext.py            # (needs the `ext` extra: make ext-deps)

- skill ranking: median time to rank the shipped skills for one message (after the index
  is built), and how many of the bench utterances pick the expected skill;
- Lua: median time of one sandboxed call (a tiny script, no I/O), and of a call that
  runs into a 1,000,000-instruction budget;
- MCP: median round trip of one tool call to the test server over stdio;
- backup: time and size of an online backup of a database of 20,000 messages.
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from homeagent.ext.skills import SkillSet, discover  # noqa: E402

UTTERANCES = [
    ("帮我安排下周的菜单", "meal_plan"), ("plan our dinners for next week", "meal_plan"),
    ("what should we cook this week?", "meal_plan"), ("这周晚饭吃什么好", "meal_plan"),
    ("how much did we spend this month", "budget_review"), ("帮我做一下本月预算回顾", "budget_review"),
    ("where did our money go in March?", "budget_review"), ("这个月的开销分析一下", "budget_review"),
    ("hello, how are you?", None), ("remind me to call mum at 6", None), ("今天天气怎么样", None),
    ("tell me a story", None),
]


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 3)


def bench_skills() -> None:
    found, _ = discover([(ROOT / "skills", "repo")])
    skills = SkillSet(list(found.values()))
    skills.prepare_sync()
    hits, times = 0, []
    for text, expected in UTTERANCES:
        skills._last = None  # measure the ranking, not the per-message cache
        started = time.perf_counter()
        chosen = skills.relevant_sync(text)
        times.append(time.perf_counter() - started)
        got = chosen[0].name if chosen else None
        hits += got == expected
    print(f"skills: rank per message median {median_ms(times)} ms; "
          f"right skill (or none) for {hits}/{len(UTTERANCES)} utterances")


def bench_lua(tmp: Path) -> None:
    from homeagent.ext.lua import LuaAdapter
    from homeagent.tools.registry import ToolRegistry

    folder = tmp / "adapters" / "bench"
    folder.mkdir(parents=True)
    (folder / "adapter.yaml").write_text(
        "name: bench\nscript: adapter.lua\nhosts: []\ntools:\n"
        "  - {name: add, function: add, permission: read, parameters: {type: object}}\n"
        "  - {name: spin, function: spin, permission: read, parameters: {type: object}}\n", encoding="utf-8")
    (folder / "adapter.lua").write_text(
        "function add(a) return {sum = (a.x or 1) + 2} end\nfunction spin(a) while true do end end\n", encoding="utf-8")
    adapter = LuaAdapter(folder, ToolRegistry(), tmp / "state", instruction_budget=1_000_000)
    adapter.load()
    times = []
    for _ in range(200):
        started = time.perf_counter()
        adapter.call_sync("add", {"x": 1})
        times.append(time.perf_counter() - started)
    spins = []
    for _ in range(5):
        started = time.perf_counter()
        try:
            adapter.call_sync("spin", {})
        except Exception:  # noqa: BLE001 - the budget stops it: that is what is timed
            pass
        spins.append(time.perf_counter() - started)
    print(f"lua: one sandboxed call median {median_ms(times)} ms; "
          f"an infinite loop stopped by a 1,000,000-instruction budget after median {median_ms(spins)} ms")


async def bench_mcp() -> None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("mcp: not installed (make ext-deps)")
        return
    from homeagent.chat import ToolCall
    from homeagent.config import PluginConfig
    from homeagent.ext.mcp_client import McpPlugin
    from homeagent.tools.registry import ToolContext, ToolRegistry

    registry = ToolRegistry()
    server = ROOT / "tests" / "integration" / "mcp_fake_server.py"
    plugin = McpPlugin("fake", PluginConfig(command=sys.executable, args=(str(server),)), registry)
    async with anyio.create_task_group() as tg:
        started = time.perf_counter()
        tg.start_soon(plugin.run)
        while plugin.status.state != "ready":  # noqa: ASYNC110 - a benchmark polls
            await anyio.sleep(0.01)
        start_s = time.perf_counter() - started
        ctx = ToolContext(turn_id="bench", channel="bench")
        times = []
        for i in range(100):
            t0 = time.perf_counter()
            result = await registry.execute(ToolCall(f"c{i}", "fake__add", '{"a": 1, "b": 2}'), ctx)
            times.append(time.perf_counter() - t0)
            assert result.ok
        tg.cancel_scope.cancel()
    print(f"mcp: server start to tools registered {round(start_s, 2)} s; one tool call median {median_ms(times)} ms")


def bench_backup(tmp: Path) -> None:
    from homeagent.store.backup import backup_now

    db = tmp / "homeagent.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT)")
    conn.executemany("INSERT INTO messages (content) VALUES (?)",
                     [(f"message {i} " + "家里的记录 household record " * 8,) for i in range(20_000)])
    conn.commit()
    conn.close()
    started = time.perf_counter()
    made = backup_now(db, tmp / "backups", keep=3)
    print(f"backup: 20,000 messages ({made.bytes // 1024} KiB) backed up and checked in "
          f"{round((time.perf_counter() - started) * 1000, 1)} ms")


def main() -> None:
    bench_skills()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            bench_lua(Path(tmp))
        except ImportError:
            print("lua: lupa not installed (make ext-deps)")
        anyio.run(bench_mcp)
        bench_backup(Path(tmp))


if __name__ == "__main__":
    main()
