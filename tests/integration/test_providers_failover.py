"""Failover end to end through the daemon's HTTP API: the in-process App runs on a Router
whose cloud is the fault-injecting upstream and whose local engine is a scripted one."""

from __future__ import annotations

import json

import aiohttp
import anyio
import openai
import pytest

from homeagent.clock import FakeClock
from homeagent.llm.credentials import Secret
from homeagent.llm.failures import Backoff
from homeagent.llm.fake_upstream import FakeUpstream, Fault
from homeagent.llm.http import HttpOptions
from homeagent.llm.openai_compat import OpenAICompatProvider
from homeagent.llm.privacy import Scrubber
from homeagent.llm.router import Route, Router
from homeagent.llm.testing import FunctionProvider
from homeagent.llm.usage import UsageMeter
from tests.integration.helpers import running_app

pytestmark = pytest.mark.anyio


def cloud(up: FakeUpstream, *, retries: int = 0, read_timeout: float = 10) -> OpenAICompatProvider:
    return OpenAICompatProvider(
        name="deepseek", base_url=up.base_url, model="deepseek-v4-flash", api_key=Secret("sk-test-0000000000"),
        options=HttpOptions(connect_timeout=2, read_timeout=read_timeout, max_retries=retries, backoff=Backoff(base=0.01)),
    )


def local_engine() -> FunctionProvider:
    def reply(request):
        last = request.messages[-1].content
        if "cut off" in last or "中断" in last:
            return " and the local engine finished it."
        return "本地回答 local answer."

    return FunctionProvider(reply, name="local", model="smollm2-135m-instruct", supports_tools=False)


def router(up: FakeUpstream, clock: FakeClock | None = None, **kw) -> Router:
    return Router(
        [Route("deepseek", cloud(up, **{k: kw.pop(k) for k in ("retries", "read_timeout") if k in kw}),
               cloud=True, type="openai_compatible"),
         Route("local", local_engine(), type="llama_cpp")],
        clock=clock or FakeClock(), **kw,
    )


async def chat(app, message: str) -> tuple[str, list[tuple[str, dict]]]:
    frames: list[tuple[str, dict]] = []
    event = ""
    url = f"http://127.0.0.1:{app.health.port}/api/chat"
    with anyio.fail_after(60):
        async with aiohttp.ClientSession() as s, s.post(url, json={"message": message}) as r:
            assert r.status == 200
            async for raw in r.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    frames.append((event, json.loads(line[6:])))
    text = "".join(d["text"] for e, d in frames if e == "text_delta")
    return text, frames


async def health(app) -> dict:
    async with aiohttp.ClientSession() as s, s.get(f"http://127.0.0.1:{app.health.port}/healthz") as r:
        return await r.json()


async def test_cloud_answers_when_healthy_then_fails_over_and_cools_down(make_config):
    clock = FakeClock()
    async with FakeUpstream(default=Fault(text="云端回答 cloud answer.")) as up:
        r = router(up, clock)
        async with running_app(make_config(), provider=r, http=True) as app:
            text, frames = await chat(app, "你好")
            assert text == "云端回答 cloud answer." and frames[-1][0] == "done"
            assert (await health(app))["status"] == "ok"

            up.default = Fault("status", status=503)
            text, frames = await chat(app, "你好，还在吗？")
            assert text.startswith("（云端模型暂时不可用") and text.endswith("本地回答 local answer.")
            assert frames[-1][0] == "done"
            h = await health(app)
            cloud_state = h["provider"]["providers"][0]
            assert h["status"] == "degraded" and h["provider"]["active"] == "local"
            assert cloud_state["state"] == "cooling" and cloud_state["error_kind"] == "upstream_unavailable"
            assert cloud_state["cooldown_s"] == 60

            calls = len(up.chat_requests)
            text, _ = await chat(app, "still there?")
            assert text == "本地回答 local answer." and len(up.chat_requests) == calls  # no notice, no call

            up.default = Fault(text="back online")
            clock.advance(seconds=61)
            text, _ = await chat(app, "and now?")
            assert text == "back online"
            assert (await health(app))["provider"]["providers"][0]["state"] == "ready"


async def test_mid_stream_drop_keeps_the_partial_answer_over_the_openai_api(make_config):
    async with FakeUpstream() as up:
        up.push(Fault("drop", text="The cloud began the answer", piece=5, drop_after=5))
        async with running_app(make_config(), provider=router(up), http=True) as app:
            base = f"http://127.0.0.1:{app.health.port}/v1"
            async with openai.AsyncOpenAI(base_url=base, api_key="unused", max_retries=0, timeout=60) as oa:
                stream = await oa.chat.completions.create(
                    model="homeagent", messages=[{"role": "user", "content": "Tell me"}], stream=True)
                text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text.startswith("The cloud began\n")  # what arrived before the cut is kept
    assert "broke" in text and text.endswith(" and the local engine finished it.")


@pytest.mark.parametrize("status", [401, 402])
async def test_rejected_key_or_unpaid_bill_disables_the_cloud(make_config, status: int):
    clock = FakeClock()
    async with FakeUpstream(default=Fault("status", status=status)) as up:
        async with running_app(make_config(), provider=router(up, clock), http=True) as app:
            text, _ = await chat(app, "hello")
            assert text.endswith("local answer.")
            clock.advance(days=2)
            await chat(app, "hello again")
            assert len(up.chat_requests) == 1
            state = (await health(app))["provider"]["providers"][0]
            assert state["state"] == "disabled"
            assert state["error_kind"] == ("auth_failed" if status == 401 else "billing")
            assert "sk-test" not in json.dumps(await health(app))


async def test_hanging_cloud_times_out_and_the_turn_runs_locally(make_config):
    async with FakeUpstream(default=Fault("hang")) as up:
        async with running_app(make_config(), provider=router(up, read_timeout=0.5), http=True) as app:
            text, frames = await chat(app, "hello")
    assert text.endswith("local answer.") and frames[-1][0] == "done"


async def test_cloud_tool_calls_run_and_pii_never_reaches_the_cloud(make_config):
    phone = "13812345678"
    async with FakeUpstream() as up:
        up.push(Fault(text="", tool_calls=(("current_time", "{}"),)), Fault(text=None))  # then echo
        r = router(up, scrubber=Scrubber(["王小明"]))
        async with running_app(make_config(), provider=r, http=True) as app:
            text, frames = await chat(app, f"王小明的电话是 {phone}")
    assert [e for e, _ in frames].count("tool_result") == 1
    assert phone in text and "王小明" in text  # restored for the user
    seen = json.dumps([req.body for req in up.chat_requests], ensure_ascii=False)
    assert phone not in seen and "王小明" not in seen and "[PHONE_1]" in seen


async def test_budget_over_sends_turns_local_with_one_notice(make_config):
    clock = FakeClock()
    async with FakeUpstream(default=Fault(text="cloud")) as up:
        r = router(up, clock, meter=UsageMeter(clock=clock), daily_cloud_tokens=5)
        async with running_app(make_config(), provider=r, http=True) as app:
            assert (await chat(app, "one"))[0] == "cloud"
            second, _ = await chat(app, "two")
            third, _ = await chat(app, "three")
            h = await health(app)
    assert "budget" in second and second.endswith("local answer.") and third == "本地回答 local answer."
    assert h["provider"]["cloud_tokens_today"] >= 5 and h["provider"]["providers"][0]["state"] == "over_budget"
