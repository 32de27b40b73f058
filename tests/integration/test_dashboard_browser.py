"""The dashboard in a real browser: Debian's chromium driven by playwright, headless,
against the daemon's HTTP server on a free port. A function-driven provider makes the
agent's replies deterministic. A failing test leaves a screenshot of every open page in
build/test-artifacts/dashboard/. `make browser-deps` installs the browser and playwright.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import aiohttp
import anyio
import pytest
from openai import AsyncOpenAI
from playwright import async_api as playwright_api

from homeagent.chat import ToolCall
from homeagent.clock import FakeClock
from homeagent.llm.testing import FunctionProvider, ScriptedReply
from homeagent.memory.graph import FactInput
from homeagent.tools.registry import ToolContext

from .helpers import running_app

pytestmark = pytest.mark.anyio

CHROMIUM = os.environ.get("HOMEAGENT_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "build" / "test-artifacts" / "dashboard"
ANSWER = "Hello there, this answer streams to the page word by word."

if not shutil.which(CHROMIUM):
    pytest.fail(f"{CHROMIUM} is missing: run `make browser-deps` (apt-get install chromium)", pytrace=False)


def household_agent(request):
    """Deterministic replies: a tool call for a request that names one, then its result."""
    last = request.messages[-1]
    if last.role == "tool":
        return f"Done: {last.content}"
    text = last.content.strip()
    if m := re.match(r"add task (.+)", text):
        return ScriptedReply(tool_calls=[("create_task", {"content": m.group(1)})])
    if m := re.match(r"delete task (.+)", text):
        return ScriptedReply(tool_calls=[("delete_task", {"content": m.group(1)})])
    if m := re.match(r"i drank (\d+)ml", text):
        return ScriptedReply(tool_calls=[("record_water", {"amount": f"{m.group(1)}ml"})])
    if text == "show water":
        return ScriptedReply(tool_calls=[("list_water", {"from": "last 7 days"})])
    if m := re.match(r"bp (.+)", text):
        return ScriptedReply(tool_calls=[("record_health", {"metric": "blood pressure", "value": m.group(1)})])
    if m := re.match(r"i feel (.+)", text):
        return ScriptedReply(tool_calls=[("record_mood", {"mood": m.group(1), "score": 2})])
    return ScriptedReply(text=ANSWER, delay=0.08)


@contextlib.asynccontextmanager
async def browser(tmp_path, request):
    async with playwright_api.async_playwright() as pw:
        b = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        pages: list = []
        async def shoot() -> None:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for i, page in enumerate(pages):
                with contextlib.suppress(Exception):
                    await page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{i}.png"), full_page=True)

        try:
            yield b, pages
            if os.environ.get("HOMEAGENT_SCREENSHOTS"):  # to look at the pages of a passing run
                await shoot()
        except BaseException:
            await shoot()
            raise
        finally:
            await b.close()


async def open_page(b, pages, url: str, token: str, *, width: int = 412, height: int = 860):
    """A fresh profile (its own localStorage) on a phone-sized screen, signed in."""
    context = await b.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = await context.new_page()
    pages.append(page)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    await page.goto(url)
    await page.fill("#token", token)
    await page.click("#sign-in")
    await page.wait_for_selector("body[data-ready='1']")
    page.errors = errors  # type: ignore[attr-defined]
    return page


async def send(page, text: str) -> None:
    await page.fill("#chat-input", text)
    await page.click("#chat-send")


async def test_chat_streams_confirms_and_feeds_today(make_config, tmp_path, request):
    config = make_config(api={"token": "house-secret"})
    async with running_app(config, provider=FunctionProvider(household_agent), http=True) as app:
        url = f"http://127.0.0.1:{app.health.port}/"
        async with browser(tmp_path, request) as (b, pages):
            page = await open_page(b, pages, url, "house-secret")
            # The token is kept: a reload needs no second sign-in.
            await page.reload()
            await page.wait_for_selector("body[data-ready='1']")
            assert await page.locator("#token").count() == 0

            # Streaming: part of the answer is on the page before the turn is done.
            await send(page, "hello")
            answer = page.locator(".msg.assistant").last
            await page.wait_for_function(
                "() => { const m = [...document.querySelectorAll('.msg.assistant')].pop();"
                " return m && m.classList.contains('streaming') && m.querySelector('.text').textContent.length > 5; }")
            partial = await answer.locator(".text").text_content()
            assert partial and partial != ANSWER and ANSWER.startswith(partial.strip()[:5])
            await page.wait_for_selector(".msg.assistant.done")
            assert (await answer.locator(".text").text_content()) == ANSWER

            # A task created by chat: the tool call is shown compactly, and Today has it.
            await send(page, "add task water the plants")
            await page.wait_for_selector(".msg.assistant.done >> nth=1")
            tool = page.locator("details.tool").last
            assert "create_task" in await tool.locator("summary").text_content()
            assert not await tool.locator(".result").is_visible()  # compact until opened
            await tool.locator("summary").click()
            assert "water the plants" in await tool.locator(".args").text_content()
            await page.click("#tab-today")
            await page.wait_for_selector("#today-tasks li:has-text('water the plants')")

            # A delete asks first: the request arrives as buttons, the click confirms it.
            await page.click("#tab-chat")
            await send(page, "delete task water the plants")
            card = page.locator(".msg.assistant .permission").last
            await card.wait_for()
            assert "delete_task" in await card.text_content()
            assert len(await app.db.fetchall("SELECT id FROM tasks")) == 1  # it waits
            await card.locator("button.confirm").click()
            await page.wait_for_selector(".msg.assistant.done >> nth=2")
            assert "Deleted task" in await page.locator(".msg.assistant .text").last.text_content()
            assert await app.db.fetchall("SELECT id FROM tasks") == []
            audit = await app.db.fetchall("SELECT decision FROM tool_call_log WHERE name = 'delete_task'")
            assert [r[0] for r in audit] == ["allow_once"]
            await page.click("#tab-today")
            await page.wait_for_selector("#today-tasks p.empty")

            # Runs with their traces, and the box: the provider in use.
            await page.click("#tab-runs")
            await page.locator("li.run", has_text="hello").click()
            await page.wait_for_selector(".trace li:has-text('model_call'):has-text('function/function')")
            await page.click("#tab-box")
            await page.wait_for_selector("section.box .card:has-text('function')")

            # Forget this: a message leaves the conversation.
            await page.click("#tab-chat")
            first = page.locator(".msg.user").first
            await first.hover()
            await first.locator("button.forget").click()
            await page.wait_for_selector(".msg.user.forgotten")
            remaining = await app.conversation.page(limit=50)
            assert "hello" not in [m.content for m in remaining]
            assert page.errors == []  # type: ignore[attr-defined]


async def test_graph_forget_and_members_sealed(make_config, tmp_path, request):
    async with running_app(make_config(), provider=FunctionProvider(household_agent), http=True) as app:
        alice, bob = await app.members.add("alice"), await app.members.add("bob")
        await app.memory.graph.commit(FactInput("alice", "likes", "jasmine tea", member="alice"))
        await app.memory.graph.commit(FactInput("alice", "works_at", "the library", member="alice"))
        url = f"http://127.0.0.1:{app.health.port}/"
        async with browser(tmp_path, request) as (b, pages):
            page = await open_page(b, pages, url, alice)
            await send(page, "i feel anxious")
            await page.wait_for_selector(".msg.assistant.done")
            await page.click("#tab-today")
            await page.wait_for_selector("#today-mood svg.chart :is(circle, rect)")

            # The graph: open it, find the fact, forget it.
            await page.click("#tab-memory")
            row = page.locator("table.facts tr", has_text="jasmine tea")
            await row.wait_for()
            await page.wait_for_selector("svg.graph-svg")
            await row.locator("button.forget-fact").click()
            await row.wait_for(state="detached")
            await page.wait_for_selector("table.facts tr:has-text('the library')")
            left = await app.memory.graph.facts_page(reader=None)
            assert [f.object for f in left] == ["the library"]

            # Bob's page shows none of it: not her words, not her mood, not her facts.
            other = await open_page(b, pages, url, bob)
            await other.wait_for_selector("#messages")
            assert await other.locator(".msg").count() == 0
            await other.click("#tab-today")
            await other.wait_for_selector("#today-mood p.empty")
            await other.click("#tab-memory")
            await other.wait_for_selector(".tab-graph p.summary")
            assert "the library" not in await other.locator("main").text_content()
            body = await other.locator("body").text_content()
            assert "anxious" not in body and "alice" not in body
            assert await other.locator("#tab-settings").count() == 0  # a member sees no settings


async def test_language_follows_the_browser_and_switches(make_config, tmp_path, request):
    async with running_app(make_config(api={"token": "house-secret"}), provider=FunctionProvider(household_agent),
                           http=True) as app:
        url = f"http://127.0.0.1:{app.health.port}/"
        async with browser(tmp_path, request) as (b, pages):
            context = await b.new_context(locale="zh-CN", viewport={"width": 390, "height": 800})
            page = await context.new_page()
            pages.append(page)
            await page.goto(url)
            assert await page.locator("#sign-in").text_content() == "进入"
            await page.fill("#token", "house-secret")
            await page.click("#sign-in")
            await page.wait_for_selector("body[data-ready='1']")
            assert await page.locator("#tab-today").text_content() == "今天"
            assert await page.locator("#tab-settings").count() == 1  # the household token sees settings
            await page.click("#lang")
            await page.wait_for_selector("#tab-today:has-text('Today')")
            # A phone screen: nothing runs off the side.
            overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0


async def test_display_hints_render_and_a_refused_delete_is_confirmed_from_its_run(make_config, tmp_path, request):
    async with running_app(make_config(api={"token": "house-secret"}), provider=FunctionProvider(household_agent),
                           http=True) as app:
        base = f"http://127.0.0.1:{app.health.port}"
        # Asked over the OpenAI API with no page open: the delete cannot be confirmed there.
        async with AsyncOpenAI(base_url=base + "/v1", api_key="house-secret") as client:
            await client.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": "add task mow"}])
            await client.chat.completions.create(model="homeagent", messages=[{"role": "user", "content": "delete task mow"}])
        assert len(await app.db.fetchall("SELECT id FROM tasks")) == 1
        async with browser(tmp_path, request) as (b, pages):
            page = await open_page(b, pages, base + "/", "house-secret")
            await send(page, "i drank 300ml")
            await page.wait_for_selector(".msg.assistant.done")
            await send(page, "show water")
            await page.wait_for_selector(".msg.assistant.done >> nth=1")
            await page.wait_for_selector(".msg.assistant .hint-series svg.chart rect")  # data_series as a chart
            await send(page, "bp 150/95")
            alert = page.locator(".msg.assistant .risk").last  # risk_alert, highlighted
            await alert.wait_for()
            assert "140/90" in await alert.text_content()

            await page.click("#tab-runs")
            await page.locator("li.run", has_text="delete task mow").click()
            action = page.locator(".trace .confirm-action")
            await action.wait_for()
            await action.locator("button.primary").click()
            await action.locator(".status:has-text('Deleted task')").wait_for()
        assert await app.db.fetchall("SELECT id FROM tasks") == []


async def test_a_pushed_reminder_appears_on_its_members_page_and_is_answered_there(make_config, tmp_path, request):
    """The scheduler delivers through GET /api/events while two members' pages are open."""
    clock = FakeClock(datetime(2026, 3, 2, 8, 0, tzinfo=ZoneInfo("Asia/Shanghai")))

    async def act(name: str, member: str = "", **args) -> None:
        ctx = ToolContext(turn_id="t", channel="test", member=member)
        result = await app.tools.execute(ToolCall("c", name, json.dumps(args, ensure_ascii=False)), ctx)
        assert result.ok, result.content

    config = make_config(schedule={"check_interval": "1h", "keepalive": "200ms"})
    async with running_app(config, provider=FunctionProvider(household_agent), clock=clock, http=True) as app:
        alice, bob = await app.members.add("alice"), await app.members.add("bob")
        url = f"http://127.0.0.1:{app.health.port}/"
        async with browser(tmp_path, request) as (b, pages):
            page = await open_page(b, pages, url, alice)
            other = await open_page(b, pages, url, bob)
            # Alice switches the page's language and back: still one subscription per page.
            await page.click("#lang")
            await page.wait_for_selector("#tab-today:has-text('今天')")
            await page.click("#lang")
            await page.wait_for_selector("#tab-today:has-text('Today')")
            await other.click("#lang")  # Bob reads Chinese
            await other.wait_for_selector("#tab-today:has-text('今天')")

            # One open stream per page (a left one ends at the server's next keepalive).
            for _ in range(300):
                if sorted(app.push.subscribers) == ["alice", "bob"]:
                    break
                await anyio.sleep(0.05)
            assert sorted(app.push.subscribers) == ["alice", "bob"]
            await act("create_task", member="alice", content="alice's pills", due="2026-03-02 08:01")
            await act("create_task", member="bob", content="bob's dentist call", due="2026-03-02 08:01")
            clock.advance(seconds=70)  # 08:01:10: both are due, on time
            assert len(await app.scheduler.check()) == 2
            pills = page.locator(".msg.pushed", has_text="alice's pills")
            await pills.wait_for()
            assert "Reminder: alice's pills (due 08:01)" in await pills.locator(".text").text_content()
            assert "late" not in (await pills.get_attribute("class") or "")
            dentist = other.locator(".msg.pushed", has_text="bob's dentist call")
            await dentist.wait_for()
            assert await dentist.locator(".kind").text_content() == "提醒"
            assert await dentist.locator("button.acknowledge").text_content() == "知道了"
            assert await dentist.locator("button.snooze").text_content() == "稍后提醒"

            # Late: due at 08:03, checked ten minutes after (past schedule.late_after).
            await act("create_task", member="alice", content="alice's yoga", due="2026-03-02 08:03")
            await act("create_task", content="family dinner booking", due="2026-03-02 08:03")
            clock.advance(minutes=12)
            assert len(await app.scheduler.check()) == 2
            yoga = page.locator(".msg.pushed.late", has_text="alice's yoga")
            await yoga.wait_for()
            assert "late" in (await yoga.locator(".kind").text_content()).lower()
            # The household's reminder reaches both pages; bob's shows nothing of alice's.
            await page.locator(".msg.pushed", has_text="family dinner booking").wait_for()
            dinner = other.locator(".msg.pushed.late", has_text="family dinner booking")
            await dinner.wait_for()
            assert await dinner.locator(".kind").text_content() == "提醒 · 迟到"
            assert "alice" not in await other.locator("#messages").text_content()
            assert await page.locator(".msg.pushed", has_text="bob's dentist").count() == 0
            assert await page.locator(".msg.pushed", has_text="alice's pills").count() == 1  # not twice
            assert await page.locator("#token").count() == 0  # no reload, no second sign-in

            # Answered from the page: "Got it" acknowledges, "Later" snoozes.
            await yoga.locator("button.acknowledge").click()
            await yoga.locator(".status:has-text('Acknowledged')").wait_for()
            await pills.locator("button.snooze").click()
            await pills.locator(".status:has-text('Snoozed until')").wait_for()
            async with aiohttp.ClientSession() as s, s.get(
                    url + "api/reminders", headers={"Authorization": f"Bearer {alice}"}) as r:
                listed = {(x["title"], x["status"]) for x in (await r.json())["reminders"]}
            assert ("alice's yoga", "acknowledged") in listed and ("alice's pills", "snoozed") in listed
            # The snoozed one comes back to the same page when its time comes.
            clock.advance(minutes=30)
            await app.scheduler.check()
            await page.wait_for_function(
                "() => [...document.querySelectorAll('.msg.pushed')]"
                ".filter((m) => m.textContent.includes(\"alice's pills\")).length === 2")
            assert page.errors == [] and other.errors == []  # type: ignore[attr-defined]


async def test_a_page_open_across_restarts_resumes_its_reminders_from_the_last_event_id(
        make_config, tmp_path, request):
    """The daemon restarts twice under an open page: before any event reached it (it resumes
    from the stream's opening id), and after one did (from that event's id)."""
    clock = FakeClock(datetime(2026, 3, 2, 8, 0, tzinfo=ZoneInfo("Asia/Shanghai")))
    config = make_config(schedule={"check_interval": "1h", "keepalive": "200ms"})

    async def subscribed(app) -> None:
        for _ in range(300):
            if app.push.subscribers == ["alice"]:
                return
            await anyio.sleep(0.05)
        raise AssertionError(f"subscriptions: {app.push.subscribers}")

    page = None
    async with browser(tmp_path, request) as (b, pages):
        for due, content in [("", ""), ("2026-03-02 08:01", "stretch"), ("2026-03-02 08:03", "drink water")]:
            async with running_app(config, provider=FunctionProvider(household_agent), clock=clock,
                                   http=True) as app:
                if page is None:
                    alice = await app.members.add("alice")
                    page = await open_page(b, pages, f"http://127.0.0.1:{app.health.port}/", alice)
                    await subscribed(app)
                else:
                    # Due while no page is connected: the page's attempts to reconnect fail until
                    # the scheduler has delivered it, then it reconnects by itself.
                    ctx = ToolContext(turn_id="t", channel="test", member="alice")
                    call = ToolCall("c", "create_task", json.dumps({"content": content, "due": due}))
                    assert (await app.tools.execute(call, ctx)).ok
                    clock.advance(minutes=2)
                    assert len(await app.scheduler.check()) == 1
                    assert app.push.subscribers == []
                    await page.unroute("**/api/events")
                    await page.locator(".msg.pushed", has_text=content).wait_for()
                    await subscribed(app)
                await page.route("**/api/events", lambda route: route.abort())
        assert await page.locator(".msg.pushed", has_text="stretch").count() == 1  # nothing twice
        assert await page.locator(".msg.pushed", has_text="drink water").count() == 1
        assert await page.locator("#token").count() == 0  # no reload, no second sign-in
