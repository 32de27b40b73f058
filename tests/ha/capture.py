"""What Home Assistant sends a conversation model: captured from the real thing.

`CapturingOllama` is a tiny Ollama server on loopback (`GET /api/tags`, `POST /api/chat`
as NDJSON, `POST /api/pull`) that records every chat request Home Assistant's built-in
Ollama integration makes. Its first answer to a user message is a tool call, so Home
Assistant runs the tool and posts a second round with the result, which is captured too.

`configure_ollama(ha, url)` adds the integration through the config-flow REST API and
saves its options form with the Assist API (so the tools are sent); `capture(ha, texts)`
sends sentences to `/api/conversation/process` and returns the requests.

    python -m tests.ha.capture bench/data/ha_tools_ollama_2025.4.4.json   # redo the capture
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from tests.ha.harness import HA_VERSION, HomeAssistantProcess

MODEL = "homeagent:latest"


class CapturingOllama:
    def __init__(self, tool_call: dict[str, Any] | None = None):
        self.requests: list[dict[str, Any]] = []
        self.tool_call = tool_call or {"name": "HassTurnOn", "arguments": {"name": "Kitchen Light"}}
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/", self._root)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_post("/api/pull", self._pull)
        app.router.add_post("/api/chat", self._chat)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _root(self, request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    async def _pull(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "success"})

    async def _tags(self, request: web.Request) -> web.Response:
        return web.json_response({"models": [{
            "name": MODEL, "model": MODEL, "modified_at": "2026-01-01T00:00:00Z", "size": 1,
            "digest": "0" * 64, "details": {"format": "gguf", "family": "homeagent", "parameter_size": "135M",
                                             "quantization_level": "Q8_0"},
        }]})  # fmt: skip

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        last = (body.get("messages") or [{}])[-1]
        message: dict[str, Any] = {"role": "assistant", "content": ""}
        if last.get("role") == "user" and body.get("tools"):
            message["tool_calls"] = [{"function": self.tool_call}]
        else:
            message["content"] = "Done."
        now = datetime.now(UTC).isoformat()
        final = {"model": MODEL, "created_at": now, "message": message, "done": True, "done_reason": "stop",
                 "total_duration": 1_000_000, "load_duration": 0, "prompt_eval_count": 1,
                 "prompt_eval_duration": 1, "eval_count": 1, "eval_duration": 1}
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        await resp.write((json.dumps(final) + "\n").encode())
        await resp.write_eof()
        return resp


class CapturingOpenAI:
    """An OpenAI-compatible fake that lists one model and records Responses API requests.

    Home Assistant 2025.4's openai_conversation has no base-URL setting, but the `openai`
    client it uses reads OPENAI_BASE_URL, so Home Assistant started with it set talks here.
    Requests are answered with a 400: only what Home Assistant sends is of interest.
    """

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, port: int) -> str:
        app = web.Application()
        app.router.add_get("/v1/models", self._models)
        app.router.add_post("/v1/responses", self._responses)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}/v1"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [
            {"id": "gpt-4o-mini", "object": "model", "created": 0, "owned_by": "homeagent"}]})

    async def _responses(self, request: web.Request) -> web.Response:
        self.requests.append(await request.json())
        return web.json_response({"error": {"message": "capture only", "type": "invalid_request_error"}}, status=400)


async def configure_openai(ha: HomeAssistantProcess) -> str:
    """Add openai_conversation (its recommended options use the Assist API); the agent id."""
    before = await _agents(ha)
    flow = await ha.rest("POST", "/api/config/config_entries/flow", {"handler": "openai_conversation"})
    step = await ha.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"api_key": "sk-capture"})
    if step.get("type") != "create_entry":
        raise RuntimeError(f"the OpenAI config flow did not finish: {step}")
    return await _new_agent(ha, before, step["result"]["entry_id"])


async def _agents(ha: HomeAssistantProcess) -> set[str]:
    return {a["id"] for a in (await ha.admin({"type": "conversation/agent/list"}))["agents"]}


async def _new_agent(ha: HomeAssistantProcess, before: set[str], entry_id: str) -> str:
    """The conversation entity that was not there before, once its entry is loaded again
    (saving options reloads it)."""
    ids: set[str] = set()
    for _ in range(200):
        entries = await ha.rest("GET", "/api/config/config_entries/entry")
        state = next((e.get("state") for e in entries if e.get("entry_id") == entry_id), None)
        ids = await _agents(ha) if state == "loaded" else set()
        new = sorted(i for i in ids - before if i.startswith("conversation."))
        if new:
            return new[0]
        await asyncio.sleep(0.1)
    raise RuntimeError(f"no new conversation agent appeared (agents: {sorted(ids)})")


async def configure_ollama(ha: HomeAssistantProcess, url: str, model: str = MODEL) -> str:
    """Add the Ollama integration pointed at `url`, options saved; returns the agent id."""
    before = await _agents(ha)
    flow = await ha.rest("POST", "/api/config/config_entries/flow", {"handler": "ollama", "show_advanced_options": False})
    step = await ha.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"url": url})
    if step.get("type") == "form":  # the model list
        step = await ha.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"model": model})
    if step.get("type") != "create_entry":
        raise RuntimeError(f"the Ollama config flow did not finish: {step}")
    entry_id = step["result"]["entry_id"]
    options = await ha.rest("POST", "/api/config/config_entries/options/flow", {"handler": entry_id})
    saved = await ha.rest("POST", f"/api/config/config_entries/options/flow/{options['flow_id']}", {
        "llm_hass_api": "assist", "num_ctx": 8192, "max_history": 20, "keep_alive": -1,
    })  # fmt: skip
    if saved.get("type") != "create_entry":
        raise RuntimeError(f"the Ollama options flow did not save: {saved}")
    return await _new_agent(ha, before, entry_id)


async def capture(ha: HomeAssistantProcess, fake: CapturingOllama, agent_id: str, text: str) -> dict[str, Any]:
    start = len(fake.requests)
    answer = await ha.rest("POST", "/api/conversation/process", {"text": text, "agent_id": agent_id, "language": "en"})
    return {"text": text, "answer": answer, "requests": fake.requests[start:]}


async def _capture_fresh(out: Path) -> dict[str, Any]:
    from tests.ha.harness import free_port

    openai_port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        ha = HomeAssistantProcess(Path(tmp) / "ha", env={"OPENAI_BASE_URL": f"http://127.0.0.1:{openai_port}/v1"})
        ha.start()
        try:
            await ha.onboard()
            await ha.furnish()
            fake = CapturingOllama()
            await fake.start()
            agent_id = await configure_ollama(ha, fake.url)
            exchange = await capture(ha, fake, agent_id, "turn on the kitchen light")
            await fake.stop()
            openai_fake = CapturingOpenAI()
            await openai_fake.start(openai_port)
            openai_agent = await configure_openai(ha)
            try:
                await ha.rest("POST", "/api/conversation/process",
                              {"text": "turn on the kitchen light", "agent_id": openai_agent, "language": "en"})
            except RuntimeError:
                pass  # the fake refuses on purpose; the request is what we came for
            await openai_fake.stop()
        finally:
            ha.stop()
    first = exchange["requests"][0]
    system = next(m["content"] for m in first["messages"] if m["role"] == "system")
    data = {
        "home_assistant": HA_VERSION,
        "integration": "ollama (ollama client 0.4.7)",
        "how": "python -m tests.ha.capture " + str(out),
        "house": "tests/ha/harness.py configuration() and furnish()",
        "tools": first.get("tools"),
        "system_prompt": system,
        "exchange": exchange,
    }
    if openai_fake.requests:
        sent = openai_fake.requests[0]
        openai_out = out.with_name(out.name.replace("_ollama_", "_openai_"))
        data["_openai"] = (openai_out, {
            "home_assistant": HA_VERSION,
            "integration": "openai_conversation (Responses API, openai client; OPENAI_BASE_URL set)",
            "how": "python -m tests.ha.capture " + str(out),
            "tools": sent.get("tools"),
            "request": sent,
        })
    return data


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else f"bench/data/ha_tools_ollama_{HA_VERSION}.json")
    data = asyncio.run(_capture_fresh(out))
    openai = data.pop("_openai", None)
    out.parent.mkdir(parents=True, exist_ok=True)
    if openai is not None:
        openai[0].write_text(json.dumps(openai[1], ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"captured the OpenAI route's {len(openai[1]['tools'] or [])} tools -> {openai[0]}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    names = [t["function"]["name"] for t in data["tools"] or []]
    print(f"captured {len(names)} tools: {', '.join(names)} -> {out}")


if __name__ == "__main__":
    main()
