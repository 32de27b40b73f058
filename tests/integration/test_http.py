"""The HTTP API on a real aiohttp server, driven by aiohttp and the official openai client."""

from __future__ import annotations

import json

import aiohttp
import anyio
import openai
import pytest

from homeagent.errors import StartupError
from homeagent.llm.echo import EchoProvider
from homeagent.llm.testing import FunctionProvider, ScriptedProvider, ScriptedReply

from .helpers import running_app

pytestmark = pytest.mark.anyio


def base(app) -> str:
    return f"http://127.0.0.1:{app.health.port}"


def client(app, **kw) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=base(app) + "/v1", api_key=kw.pop("api_key", "unused"), max_retries=0, **kw
    )


async def test_healthz_models_and_openai_chat(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s, s.get(base(app) + "/healthz") as r:
            health = await r.json()
        assert r.status == 200 and health["status"] == "ok"
        assert health["db"]["status"] == "ok" and health["provider"]["state"] == "ready"

        async with client(app) as oa:
            await _openai_round_trip(oa)


async def _openai_round_trip(oa: openai.AsyncOpenAI) -> None:
    ids = [m.id for m in (await oa.models.list()).data]
    assert "homeagent" in ids

    reply = await oa.chat.completions.create(
        model="homeagent", messages=[{"role": "user", "content": "你好，世界 hello"}]
    )
    assert reply.choices[0].message.content == "你好，世界 hello"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage.completion_tokens > 0

    stream = await oa.chat.completions.create(
        model="homeagent",
        messages=[{"role": "user", "content": "stream me, please 流式"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    text, finish, usage = "", None, None
    async for chunk in stream:
        if chunk.choices:
            text += chunk.choices[0].delta.content or ""
            finish = chunk.choices[0].finish_reason or finish
        if chunk.usage:
            usage = chunk.usage
    assert text == "stream me, please 流式"
    assert finish == "stop" and usage is not None and usage.total_tokens > 0


async def test_system_message_is_context_for_that_turn(make_config):
    seen: list[str] = []

    def reply(request):
        seen.append("\n".join(m.content for m in request.messages if m.role == "system"))
        return "ok"

    async with running_app(make_config(), provider=FunctionProvider(reply), http=True) as app:
        async with client(app) as oa:
            await oa.chat.completions.create(
                model="homeagent",
                messages=[
                    {"role": "system", "content": "Speak like a pirate."},
                    {"role": "user", "content": "old question"},
                    {"role": "assistant", "content": "old answer"},
                    {"role": "user", "content": "new question"},
                ],
            )
    assert "Speak like a pirate." in seen[0]


async def test_fifty_concurrent_chats_get_their_own_answers(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        url = base(app) + "/v1/chat/completions"
        async with aiohttp.ClientSession() as s:

            async def one(i: int) -> tuple[int, str]:
                body = {
                    "model": "homeagent",
                    "messages": [{"role": "user", "content": f"message {i} 第{i}条"}],
                }
                async with s.post(url, json=body) as r:
                    data = await r.json()
                    return i, data["choices"][0]["message"]["content"]

            results: list[tuple[int, str]] = []

            async def run(i: int) -> None:
                results.append(await one(i))

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tg:
                    for i in range(50):
                        tg.start_soon(run, i)
        assert len(results) == 50
        assert all(text == f"message {i} 第{i}条" for i, text in results)
        assert await app.conversation.count() == 100


async def test_api_chat_streams_agent_events(make_config):
    provider = ScriptedProvider([ScriptedReply(tool_calls=[("current_time", {})]), "It is now."])
    async with running_app(make_config(), provider=provider, http=True) as app:
        async with (
            aiohttp.ClientSession() as s,
            s.post(base(app) + "/api/chat", json={"message": "time?"}) as r,
        ):
            assert r.headers["Content-Type"].startswith("text/event-stream")
            frames = []
            event = None
            async for raw in r.content:
                line = raw.decode().strip()
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    frames.append((event, json.loads(line[6:])))
    kinds = [k for k, _ in frames]
    assert kinds[0] == "turn_started" and kinds[-1] == "done"
    assert "tool_call" in kinds and "tool_result" in kinds
    assert "".join(d["text"] for k, d in frames if k == "text_delta") == "It is now."


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b"", 400, "empty"),
        (json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode(), 400, "model"),
        (json.dumps({"model": "homeagent"}).encode(), 400, "messages"),
        (
            json.dumps(
                {"model": "homeagent", "messages": [{"role": "wizard", "content": "x"}]}
            ).encode(),
            400,
            "role",
        ),
        (
            json.dumps(
                {"model": "homeagent", "messages": [{"role": "assistant", "content": "x"}]}
            ).encode(),
            400,
            "user message",
        ),
        (
            json.dumps({"model": "gpt-9", "messages": [{"role": "user", "content": "x"}]}).encode(),
            404,
            "gpt-9",
        ),
        (
            json.dumps(
                {
                    "model": "homeagent",
                    "stream": "yes",
                    "messages": [{"role": "user", "content": "x"}],
                }
            ).encode(),
            400,
            "stream",
        ),
        (
            json.dumps(
                {
                    "model": "homeagent",
                    "messages": [{"role": "user", "content": "x"}],
                    "tools": [{"type": "function"}],
                }
            ).encode(),
            400,
            "tools",
        ),
        (b"{" + b'"pad": "' + b"x" * 5000 + b'"}', 413, "too large"),
    ],
)
async def test_bad_requests_get_openai_shaped_errors(make_config, body, status, needle):
    config = make_config(api={"max_body_bytes": 4096})
    async with running_app(config, provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(
                base(app) + "/v1/chat/completions",
                data=body,
                headers={"Content-Type": "application/json"},
            ) as r:
                data = await r.json()
            # The daemon keeps serving after every bad request.
            async with s.get(base(app) + "/healthz") as ok:
                assert ok.status == 200
    assert r.status == status
    assert set(data["error"]) >= {"message", "type", "code"}
    assert needle in data["error"]["message"]


async def test_openai_client_sees_errors_as_exceptions(make_config):
    async with running_app(make_config(), provider=EchoProvider(), http=True) as app:
        async with client(app) as oa:
            with pytest.raises(openai.NotFoundError):
                await oa.chat.completions.create(
                    model="nope", messages=[{"role": "user", "content": "x"}]
                )


async def test_token_is_required_everywhere_but_healthz(make_config):
    config = make_config(api={"token": "s3cret-token-value"})
    async with running_app(config, provider=EchoProvider(), http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.get(base(app) + "/healthz") as r:
                assert r.status == 200
            for path in ("/v1/models", "/api/devices"):
                async with s.get(base(app) + path) as r:
                    body = await r.json()
                    assert r.status == 401 and body["error"]["code"] == "invalid_api_key"
                    assert "s3cret" not in json.dumps(body)
            async with s.get(
                base(app) + "/v1/models", headers={"Authorization": "Bearer wrong"}
            ) as r:
                assert r.status == 401
        async with client(app, api_key="wrong") as oa:
            with pytest.raises(openai.AuthenticationError):
                await oa.models.list()
        async with client(app, api_key="s3cret-token-value") as oa:
            assert (await oa.models.list()).data


async def test_non_loopback_listen_requires_a_token(make_config):
    config = make_config(daemon={"listen_addr": "0.0.0.0:0"})
    with pytest.raises(ExceptionGroup) as info:
        async with running_app(config, provider=EchoProvider(), http=True):
            pass
    errors = info.value.exceptions
    while errors and isinstance(errors[0], ExceptionGroup):
        errors = errors[0].exceptions
    assert any(isinstance(e, StartupError) and "api.token" in str(e) for e in errors)


async def test_client_disconnect_cancels_the_turn(make_config):
    long_text = " ".join(f"w{i}" for i in range(500))
    provider = ScriptedProvider([ScriptedReply(text=long_text, delay=0.02)])
    async with running_app(make_config(), provider=provider, http=True) as app:
        async with aiohttp.ClientSession() as s:
            async with s.post(base(app) + "/api/chat", json={"message": "go"}) as r:
                async for raw in r.content:
                    if raw.startswith(b"event: text_delta"):
                        break
        with anyio.fail_after(5):
            while app.agent.stats.turns_cancelled == 0:  # noqa: ASYNC110 - polls a counter
                await anyio.sleep(0.02)
        assert await app.conversation.count() == 0
