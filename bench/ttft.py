#!/usr/bin/env python3
"""Time to first token and tokens/s: llama-cpp-python in-process vs HomeAgent vs llama_cpp.server.

All three paths evaluate the same tokens: the first-turn messages are built with
a real HomeAgent App on the daemon's own config (a capturing provider in place of the engine) and rendered
with LlamaCppProvider.render, exactly as the daemon does, and every path samples with
the same fixed settings (temperature 0, top_p, repeat_penalty, seed, max_tokens).

    (a) in-process   llama_cpp.Llama in a fresh worker process (this file, --worker);
                     optionally under other interpreters (--python LABEL=PATH), which is
                     how builds with other llama.cpp flags are compared.
    (b) homeagent    `homeagent serve` as a subprocess, streaming /v1/chat/completions.
    (c) llama-server `python -m llama_cpp.server` with the same model and settings.

Per run: turn 1 (cold for (a)/(c); HomeAgent has primed its stable prefix at start),
turn 2 with an unchanged prefix (history = turn 1), then for (a) and (b) an action request
the intent layer is unsure of (turn 3: the model is offered the layer's candidates, a
system message of the turn's own) and for (b) one the layer answers without the engine
(turn 4), and for HomeAgent a restart on the same data dir followed by a first turn that
restores the saved session state. (a)'s baseline for turn 3 has everything before the
turn's own sections evaluated, as HomeAgent's idle preparation leaves it. HomeAgent's
next turn is sent once /healthz says the daemon has prepared it while idle (as it does
while a user reads the answer; the wait is reported), the others' at once.

Definitions (identical for every path):
    TTFT     request sent (or create_completion called) -> first non-empty content delta
    gen tok/s  (completion_tokens - 1) / (last content delta - first content delta)
    pp tok/s   prompt tokens / time of one llm.eval() of the whole prompt (in-process only)

Figures are medians over --runs runs. Nothing here asserts a time; it only reports.

    .venv/bin/python bench/ttft.py                       # everything, 3 runs, shipped threads
    .venv/bin/python bench/ttft.py --threads 1,2 --python avx2=/tmp/venv-avx2/bin/python
    .venv/bin/python bench/ttft.py --only inprocess --json

The worker mode needs only llama_cpp and the standard library, so it runs under any
interpreter that has llama-cpp-python installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USER_1 = "Tell me a short story about a cat."
USER_2 = "Now tell me a short story about a dog."
USER_3 = "And one about a bird, please."
# An action request the intent layer is not sure of: the model is offered its candidates.
USER_ACTION = "Deal with the milk situation, please."
# An action request the intent layer answers itself: no engine call.
USER_INTENT = "Remind me to buy milk tomorrow at 9."
ANSWER_MARK = "\u2063BENCH_ANSWER\u2063"
PROC_TIMEOUT = 300.0  # upper bound for any one worker / request / daemon start


# -- worker: in-process llama_cpp.Llama (stdlib + llama_cpp only) ----------------------------


def _stream_inprocess(llm, tokens, sampling):
    """One streamed completion; returns ttft, gen tok/s, completion tokens, text."""
    from llama_cpp import StoppingCriteriaList

    # One call per sampled token, plus one after the loop that repeats an earlier length:
    # counting distinct lengths of the evaluated ids counts the sampled tokens exactly.
    lengths: set[int] = set()

    def counter(ids, _logits):
        lengths.add(len(ids))
        return False

    parts = []
    t_first = t_last = None
    t0 = time.perf_counter()
    for chunk in llm.create_completion(
        tokens,
        stream=True,
        max_tokens=sampling["max_tokens"],
        temperature=sampling["temperature"],
        top_p=sampling["top_p"],
        repeat_penalty=sampling["repeat_penalty"],
        seed=sampling["seed"],
        stop=sampling["stop"],
        stopping_criteria=StoppingCriteriaList([counter]),
    ):
        text = chunk["choices"][0]["text"]
        if text:
            now = time.perf_counter()
            if t_first is None:
                t_first = now
            t_last = now
            parts.append(text)
    return _figures(t0, t_first, t_last, len(lengths), "".join(parts))


def _figures(t0, t_first, t_last, n_tokens, text):
    ttft = (t_first - t0) if t_first is not None else None
    span = (t_last - t_first) if t_first is not None else 0.0
    tps = (n_tokens - 1) / span if n_tokens > 1 and span > 0 else None
    return {
        "ttft_ms": None if ttft is None else ttft * 1000,
        "gen_tps": tps,
        "tokens": n_tokens,
        "text": text,
    }


def worker_main() -> int:
    """Reads a spec (JSON) on stdin, prints results (JSON) on stdout."""
    import llama_cpp
    from llama_cpp import Llama

    spec = json.load(sys.stdin)
    sampling = spec["sampling"]
    runs = []
    for _ in range(spec["runs"]):
        t_load = time.perf_counter()
        llm = Llama(
            model_path=spec["model_path"],
            n_ctx=spec["n_ctx"],
            n_threads=spec["n_threads"],
            n_threads_batch=spec["n_threads"],
            n_batch=spec["n_batch"],
            seed=sampling["seed"],
            verbose=False,
        )
        load_ms = (time.perf_counter() - t_load) * 1000
        tok = lambda s, llm=llm: llm.tokenize(s.encode("utf-8"), special=True)  # noqa: E731 - as HomeAgent
        prompt1 = tok(spec["prompt1"])
        prefix = tok(spec["prefix"])
        # Warm-up: touch the weights and start the thread pool, as a loaded server would be.
        llm.eval(prompt1[:8])
        llm.reset()
        # Prompt processing throughput: one eval of the whole first-turn prompt.
        t0 = time.perf_counter()
        llm.eval(prompt1)
        pp_s = time.perf_counter() - t0
        llm.reset()
        # Turn 1, cold (nothing cached).
        turn1 = _stream_inprocess(llm, prompt1, sampling)
        # Turn 2: history holds turn 1, the prefix up to turn 1's answer is in the KV cache.
        prompt2 = tok(spec["prompt2"].replace(ANSWER_MARK, turn1["text"].strip()))
        turn2 = _stream_inprocess(llm, prompt2, sampling)
        answers = (turn1["text"].strip(), turn2["text"].strip())
        # Turn 1 again with only the stable prefix evaluated, as HomeAgent's prime() leaves it.
        llm.reset()
        llm.eval(prefix)
        primed = _stream_inprocess(llm, prompt1, sampling)
        # Turn 1 again with everything before the user's words evaluated (prefix, history,
        # clock line): the state HomeAgent's idle preparation leaves for the next turn.
        llm.reset()
        llm.eval(tok(spec["prepared"]))
        prepared = _stream_inprocess(llm, prompt1, sampling)
        # Turn 3, the action request, with prefix, history and clock line evaluated.
        llm.reset()
        llm.eval(tok(_answered(spec["prepared3"], answers)))
        prompt3 = tok(_answered(spec["prompt3"], answers))
        action = _stream_inprocess(llm, prompt3, sampling)
        runs.append(
            {
                "load_ms": load_ms,
                "prompt_tokens": len(prompt1),
                "prompt2_tokens": len(prompt2),
                "prefix_tokens": len(prefix),
                "pp_tps": len(prompt1) / pp_s,
                "turn1": turn1,
                "turn2": turn2,
                "primed": primed,
                "prepared": prepared,
                "prepared_tokens": len(tok(spec["prepared"])),
                "action": action,
                "prompt3_tokens": len(prompt3),
                "prepared3_tokens": len(tok(_answered(spec["prepared3"], answers))),
            }
        )
        llm.close()
    print(
        json.dumps(
            {"system_info": llama_cpp.llama_print_system_info().decode().strip(), "runs": runs}
        )
    )
    return 0


def _answered(text: str, answers) -> str:
    """The captured prompt with each turn's answer in place of its mark, in order."""
    for answer in answers:
        text = text.replace(ANSWER_MARK, answer, 1)
    return text


# -- helpers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 120.0) -> bool:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def stop_process(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


async def _stream_http(
    base_url: str, model: str, messages: list[dict], sampling: dict, extra: dict
) -> dict:
    """One streamed /v1/chat/completions request through aiohttp, parsed by hand."""
    import aiohttp

    body = {
        "model": model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": sampling["max_tokens"],
        "temperature": sampling["temperature"],
        "top_p": sampling["top_p"],
        "seed": sampling["seed"],
        **extra,
    }
    parts: list[str] = []
    usage = None
    chunks = 0
    t_first = t_last = None
    timeout = aiohttp.ClientTimeout(total=PROC_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        sent_at = time.time()
        t0 = time.perf_counter()
        async with session.post(f"{base_url}/v1/chat/completions", json=body) as resp:
            if resp.status != 200:
                raise RuntimeError(f"HTTP {resp.status}: {(await resp.text())[:300]}")
            buffer = b""
            async for data in resp.content.iter_any():
                buffer += data
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    for line in event.split(b"\n"):
                        line = line.strip()
                        if not line.startswith(b"data:"):
                            continue
                        payload = line[5:].strip()
                        if payload == b"[DONE]":
                            continue
                        obj = json.loads(payload)
                        if obj.get("usage"):
                            usage = obj["usage"]
                        for choice in obj.get("choices") or []:
                            text = (choice.get("delta") or {}).get("content")
                            if text:
                                now = time.perf_counter()
                                if t_first is None:
                                    t_first = now
                                t_last = now
                                chunks += 1
                                parts.append(text)
    n = usage["completion_tokens"] if usage else chunks
    result = _figures(t0, t_first, t_last, n, "".join(parts))
    result["usage"] = usage
    result["chunks"] = chunks
    result["sent_at"] = sent_at
    return result


def count_prompt(base_url: str, messages: list[dict]) -> dict:
    import urllib.request

    body = json.dumps(
        {"model": "bench", "messages": messages, "max_tokens": 1, "temperature": 0}
    ).encode()
    req = urllib.request.Request(
        f"{base_url}/v1/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=PROC_TIMEOUT) as resp:
        return json.load(resp)["usage"]


def stream_http(*args) -> dict:
    import asyncio

    warm_client(args[0])
    return asyncio.run(_stream_http(*args))


_CLIENT_WARM: list[bool] = []


def warm_client(base_url: str) -> None:
    """One untimed aiohttp request (the health check, which both servers had already
    answered many times while starting) before this process's first timed one: the first
    request pays for aiohttp's own first use, some 250 ms here, which is the bench's cost,
    not the server's."""
    if _CLIENT_WARM:
        return
    import asyncio

    import aiohttp

    async def once() -> None:
        async with aiohttp.ClientSession() as session, session.get(f"{base_url}/healthz") as resp:
            await resp.read()

    asyncio.run(once())
    _CLIENT_WARM.append(True)


# -- the prompt, built the way HomeAgent builds it -------------------------------------------


def build_prompts(personality_file: Path, model_path: Path, n_ctx: int, config_file: Path) -> dict:
    """The first- and second-turn messages exactly as the daemon builds them: a real App
    on the daemon's config (every tool registered, memory, knowledge, the actions offered
    for the message), with a capturing provider in place of the engine."""
    import asyncio
    import os
    import tempfile

    from homeagent.app import App
    from homeagent.config import load_config
    from homeagent.io import ask
    from homeagent.llm.base import Message
    from homeagent.llm.llama_cpp import _PREFIX_MARK, LlamaCppProvider
    from homeagent.llm.testing import FunctionProvider

    # Like the bundled engine: no native tools, grammars (the dialect offers it fewer actions).
    capture = FunctionProvider(lambda request: ANSWER_MARK, supports_tools=False, supports_grammar=True)

    async def capture_turns():
        with tempfile.TemporaryDirectory() as tmp:
            config = load_config(config_file, env={**os.environ, "HOMEAGENT_DATA_DIR": tmp})
            async with App(config, provider=capture) as app:
                import anyio

                async with anyio.create_task_group() as tg:
                    tg.start_soon(app.agent.run, app.inbox)
                    for text in (USER_1, USER_2, USER_ACTION):
                        interrupt = await ask(app.inbox, text, channel="bench")
                        async for _ in interrupt.reply.events:
                            pass
                    tg.cancel_scope.cancel()
                # The system message's stable head as the engine is sent it (the dialect's).
                first = capture.requests[0]
                return first.messages[0].content[: first.stable_prefix_chars]

    stable = asyncio.run(capture_turns())

    class _Built:
        def __init__(self, messages):
            self.messages = tuple(messages)

    turn1, turn2 = _Built(capture.requests[0].messages), _Built(capture.requests[1].messages)
    turn3 = capture.requests[2]
    if not turn3.tools and "## Actions for this message" not in str(turn3.messages):
        raise RuntimeError(f"the intent layer answered {USER_ACTION!r} itself: pick a vaguer request")
    provider = LlamaCppProvider(model_path=model_path, model="bench", n_ctx=n_ctx, n_threads=1)
    provider._load()  # only for the chat template and special tokens
    prompt1, stop = provider.render(turn1.messages)
    prompt2, _ = provider.render(turn2.messages)
    prompt3, _ = provider.render(turn3.messages)
    # The stable prefix exactly as LlamaCppProvider.prime() cuts it.
    rendered, _ = provider.render(
        [Message("system", stable + _PREFIX_MARK)], generation=False
    )
    prefix = rendered[: rendered.find(_PREFIX_MARK)]
    # What the daemon prepares while idle: every message before the turn's own sections
    # and words (the prefix, the history, the clock line).
    def head_of(messages) -> str:
        user_at = max(i for i, m in enumerate(messages) if m.role == "user")
        head = list(messages[:user_at])
        while len(head) > 1 and head[-1].role == "system" and not head[-1].content.startswith("Current date and time"):
            head.pop()  # the turn's memory sections and offered actions are the turn's own
        return provider.render(head, generation=False)[0]

    prepared, prepared3 = head_of(turn1.messages), head_of(turn3.messages)
    provider._llm.close()
    return {
        "messages1": [{"role": m.role, "content": m.content} for m in turn1.messages],
        "messages2": [{"role": m.role, "content": m.content} for m in turn2.messages],
        "prompt1": prompt1,
        "prompt2": prompt2,
        "prefix": prefix,
        "prepared": prepared,
        "prompt3": prompt3,
        "prepared3": prepared3,
        "stop": stop,
    }


# -- the three paths -------------------------------------------------------------------------


def run_inprocess(python: str, args, prompts, sampling, n_threads: int) -> dict:
    spec = {
        "model_path": str(args.model),
        "n_ctx": args.n_ctx,
        "n_batch": args.n_batch,
        "n_threads": n_threads,
        "runs": args.runs,
        "prompt1": prompts["prompt1"],
        "prompt2": prompts["prompt2"],
        "prefix": prompts["prefix"],
        "prepared": prompts["prepared"],
        "prompt3": prompts["prompt3"],
        "prepared3": prompts["prepared3"],
        "sampling": {**sampling, "stop": prompts["stop"]},
    }
    proc = subprocess.run(
        [python, str(Path(__file__).resolve()), "--worker"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=3 * PROC_TIMEOUT * args.runs,  # several cold evaluations on a loaded box
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker under {python} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_config(path: Path, args, sampling, n_threads: int) -> None:
    path.write_text(
        "daemon:\n"
        "  shutdown_timeout: 8s\n"
        "llm:\n"
        "  provider: llama_cpp\n"
        f"  model_path: {json.dumps(str(args.model))}\n"
        f"  temperature: {sampling['temperature']}\n"
        f"  top_p: {sampling['top_p']}\n"
        f"  repeat_penalty: {sampling['repeat_penalty']}\n"
        f"  max_tokens: {sampling['max_tokens']}\n"
        f"  n_ctx: {args.n_ctx}\n"
        f"  n_threads: {n_threads}\n"
        f"  n_batch: {args.n_batch}\n"
        "  prefix_cache: true\n"
        f"  seed: {sampling['seed']}\n"
        "agent:\n"
        f"  personality_file: {json.dumps(str(args.personality.resolve()))}\n"
        "knowledge:\n"
        f"  dir: {json.dumps(str((ROOT / 'knowledge').resolve()))}\n"
        "log:\n"
        "  level: warning\n"
        "  format: json\n",
        encoding="utf-8",
    )


def start_daemon(config: Path, data_dir: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    exe = Path(sys.executable).with_name("homeagent")
    cmd = [str(exe), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}"]
    env = {**os.environ, "HOMEAGENT_DATA_DIR": str(data_dir)}
    env.pop("HOMEAGENT_API_TOKEN", None)
    log = open(log_path, "ab")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=data_dir.parent,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    base = f"http://127.0.0.1:{port}"
    if not wait_http(f"{base}/healthz", proc):
        stop_process(proc)
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        raise RuntimeError(f"homeagent serve did not become healthy:\n{tail}")
    # HTTP answers while the turn path warms (engine prime, intent layer); a turn sent then
    # would wait for it and its TTFT would measure the prime. Wait for `engine: ready`.
    deadline = time.perf_counter() + 600
    while healthz(base).get("engine", "ready") != "ready":
        if time.perf_counter() > deadline or proc.poll() is not None:
            stop_process(proc)
            raise RuntimeError("homeagent serve never reported engine: ready")
        time.sleep(0.05)
    return proc, base


def healthz(base: str) -> dict:
    import urllib.request

    with urllib.request.urlopen(f"{base}/healthz", timeout=5) as resp:
        return json.load(resp)


def newest_trace(base: str) -> list[dict]:
    """The events of the daemon's newest run ([] before any)."""
    import urllib.request

    with urllib.request.urlopen(f"{base}/api/agent/runs?limit=1", timeout=5) as resp:
        runs = json.load(resp)["runs"]
    if not runs:
        return []
    with urllib.request.urlopen(f"{base}/api/agent/runs/{runs[0]['id']}/trace", timeout=5) as resp:
        return json.load(resp)["events"]


def first_model_call(base: str) -> dict | None:
    """The newest run's first model call as the daemon recorded it (prompt and cached
    tokens, its duration): an action request's answer streams only after the actions it
    asked for ran, so its TTFT over HTTP is not the engine's first token."""
    return next((e["data"] for e in newest_trace(base) if e["type"] == "model_call"), None)


def daemon_parts(base: str, sent: dict) -> dict | None:
    """Where the newest turn's time went inside the daemon, from its run trace: request
    sent -> the turn started (HTTP, the channel, the inbox), the turn's own steps before
    the model call (intent, history, context, prompt), and the engine: call -> first
    words (the shared wall clock of one machine)."""
    events = newest_trace(base)
    started = next((e["created_at"] for e in events if e["type"] == "turn_started"), None)
    call = next((e["data"] for e in events if e["type"] == "model_call"), None)
    if started is None:
        return None
    return {
        "to_turn_ms": (started - sent["sent_at"]) * 1000,
        "before_call_ms": ((call or {}).get("turn_ms") or {}).get("call"),
        "engine_first_ms": (call or {}).get("first_text_ms"),
        "evaluated": None if call is None else call["prompt_tokens"] - call["cached_tokens"],
    }


def wait_prepared(base: str, count: int, timeout: float = 120.0) -> float | None:
    """Wait until the daemon has prepared `count` next turns while idle (as it does while
    a user reads an answer); returns the seconds waited, None if it never did."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout:
        if healthz(base)["agent"].get("next_turns_prepared", 0) >= count:
            return time.perf_counter() - t0
        time.sleep(0.05)
    return None


def run_homeagent(args, sampling, n_threads: int, workdir: Path) -> list[dict]:
    runs = []
    config = workdir / f"homeagent-t{n_threads}.yaml"
    write_config(config, args, sampling, n_threads)
    user = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    for i in range(args.runs):
        data_dir = workdir / f"data-t{n_threads}-{i}"
        log_path = workdir / f"homeagent-t{n_threads}-{i}.log"
        t0 = time.perf_counter()
        proc, base = start_daemon(config, data_dir, log_path)
        try:
            start_ms = (time.perf_counter() - t0) * 1000
            prefix_source_1 = healthz(base)["provider"].get("prefix_source")
            # The daemon also prepares at start and as each minute turns: count from here.
            done = healthz(base)["agent"].get("next_turns_prepared", 0)
            turn1 = stream_http(base, "homeagent", user(USER_1), sampling, {})
            turn1["parts"] = daemon_parts(base, turn1)
            prepared_s = [wait_prepared(base, done + 1)]
            done = healthz(base)["agent"].get("next_turns_prepared", 0)
            turn2 = stream_http(base, "homeagent", user(USER_2), sampling, {})
            turn2["parts"] = daemon_parts(base, turn2)
            prepared_s.append(wait_prepared(base, done + 1))
            done = healthz(base)["agent"].get("next_turns_prepared", 0)
            action = stream_http(base, "homeagent", user(USER_ACTION), sampling, {})
            action["model_call"] = first_model_call(base)
            prepared_s.append(wait_prepared(base, done + 1))
            intent = stream_http(base, "homeagent", user(USER_INTENT), sampling, {})
            wait_prepared(base, healthz(base)["agent"].get("next_turns_prepared", 0) + 1)
        finally:
            stop_process(proc)
        t0 = time.perf_counter()
        proc, base = start_daemon(config, data_dir, log_path)
        try:
            restart_ms = (time.perf_counter() - t0) * 1000
            prefix_source_2 = healthz(base)["provider"].get("prefix_source")
            after = stream_http(base, "homeagent", user(USER_3), sampling, {})
            after["parts"] = daemon_parts(base, after)
        finally:
            stop_process(proc)
        runs.append(
            {
                "start_ms": start_ms,
                "restart_ms": restart_ms,
                "prefix_source": [prefix_source_1, prefix_source_2],
                "prepared_s": prepared_s,
                "turn1": turn1,
                "turn2": turn2,
                "action": action,
                "intent": intent,
                "after_restart": after,
            }
        )
    return runs


def run_llama_server(args, prompts, sampling, n_threads: int, workdir: Path) -> list[dict]:
    runs = []
    extra = {"repeat_penalty": sampling["repeat_penalty"]}
    for i in range(args.runs):
        port = free_port()
        cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(args.model), "--model_alias", "bench",
            "--n_ctx", str(args.n_ctx), "--n_batch", str(args.n_batch),
            "--n_threads", str(n_threads), "--n_threads_batch", str(n_threads),
            "--seed", str(sampling["seed"]), "--verbose", "False",
            "--host", "127.0.0.1", "--port", str(port),
        ]  # fmt: skip
        log_path = workdir / f"llama-server-{i}.log"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        base = f"http://127.0.0.1:{port}"
        try:
            if not wait_http(f"{base}/v1/models", proc):
                raise RuntimeError(f"llama_cpp.server did not start; see {log_path}")
            # Warm-up with a different, tiny conversation (shares only the template's first tokens).
            stream_http(
                base,
                "bench",
                [{"role": "user", "content": "Hi"}],
                {**sampling, "max_tokens": 1},
                extra,
            )
            turn1 = stream_http(base, "bench", prompts["messages1"], sampling, extra)
            messages2 = [
                {**m, "content": m["content"].replace(ANSWER_MARK, turn1["text"].strip())}
                for m in prompts["messages2"]
            ]
            turn2 = stream_http(base, "bench", messages2, sampling, extra)
            # The server sends no usage when streaming: ask once more, unstreamed, for the count.
            turn1["usage"] = count_prompt(base, prompts["messages1"])
        finally:
            stop_process(proc)
        runs.append({"turn1": turn1, "turn2": turn2})
    return runs


# -- report ----------------------------------------------------------------------------------


def fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per measurement; medians are reported"
    )
    parser.add_argument(
        "--threads", default="2", help="comma-separated n_threads values (default 2)"
    )
    parser.add_argument(
        "--python", action="append", default=[], metavar="LABEL=PATH",
        help="also run the in-process part under another interpreter (e.g. another llama.cpp build)",
    )  # fmt: skip
    parser.add_argument("--only", choices=["inprocess", "homeagent", "server"], action="append")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--top-p", type=float, default=0.9)
    parser.add_argument("--repeat-penalty", type=float, default=1.1)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--n-batch", type=int, default=512)
    parser.add_argument("--model", type=Path, help="GGUF file (default: the bundled SmolLM2)")
    parser.add_argument("--personality", type=Path, default=ROOT / "personal.md")
    parser.add_argument(
        "--homeagent-src", type=Path, help="import HomeAgent from this source tree instead"
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write every raw figure as JSON to FILE"
    )
    parser.add_argument(
        "--breakdown", action="store_true",
        help="only print where HomeAgent's time before the engine goes (bench/ttft_breakdown.py)",
    )  # fmt: skip
    args = parser.parse_args()

    if args.worker:
        return worker_main()

    if args.homeagent_src:
        # Run HomeAgent (bench imports and the daemon) from another source tree, e.g. an
        # exported commit while the work tree is mid-edit.
        src = str(args.homeagent_src.resolve())
        sys.path.insert(0, src)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [src, os.environ.get("PYTHONPATH")])
        )
    elif importlib.util.find_spec("homeagent") is None:
        sys.path.insert(0, str(ROOT))
    import homeagent

    print(f"homeagent from {Path(homeagent.__file__).parent}", file=sys.stderr)
    if args.model is None:
        from homeagent.llm.models import bundled_model_path

        args.model = bundled_model_path()
        if args.model is None:
            print("the bundled model is not installed; run `make venv`", file=sys.stderr)
            return 2
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    only = set(args.only or ["inprocess", "homeagent", "server"])
    sampling = {
        "max_tokens": args.max_tokens,
        "temperature": args.temperature,
        "top_p": args.top_p,
        "repeat_penalty": args.repeat_penalty,
        "seed": args.seed,
    }
    with tempfile.TemporaryDirectory(prefix="ttft-config-") as cfg_dir:
        # The daemon's own config (the thread count does not change the prompt).
        config_file = Path(cfg_dir) / "homeagent.yaml"
        write_config(config_file, args, sampling, threads[0] if threads else 1)
        if args.breakdown:
            sys.path.insert(0, str(ROOT / "bench"))
            from ttft_breakdown import breakdown, print_breakdown

            print_breakdown(breakdown(config_file, args.model, args.n_ctx, args.runs), args.runs)
            return 0
        prompts = build_prompts(args.personality, args.model, args.n_ctx, config_file)
    interpreters = [("this", sys.executable)] + [tuple(p.split("=", 1)) for p in args.python]
    results: dict = {
        "sampling": sampling,
        "threads": threads,
        "inprocess": {},
        "homeagent": {},
        "server": {},
    }

    with tempfile.TemporaryDirectory(prefix="ttft-") as tmp:
        workdir = Path(tmp)
        for t in threads:
            if "inprocess" in only:
                for label, python in interpreters:
                    print(f"[in-process {label}, {t} thread(s)] ...", file=sys.stderr, flush=True)
                    results["inprocess"][f"{label}/t{t}"] = run_inprocess(
                        python, args, prompts, sampling, t
                    )
            if "homeagent" in only:
                print(f"[homeagent, {t} thread(s)] ...", file=sys.stderr, flush=True)
                results["homeagent"][f"t{t}"] = run_homeagent(args, sampling, t, workdir)
            if "server" in only:
                print(f"[llama_cpp.server, {t} thread(s)] ...", file=sys.stderr, flush=True)
                results["server"][f"t{t}"] = run_llama_server(args, prompts, sampling, t, workdir)
            if args.json:  # keep what was measured so far if a later part fails or is cut
                Path(args.json).write_text(
                    json.dumps(results, ensure_ascii=False), encoding="utf-8"
                )

    report(results, args)
    if args.json:
        Path(args.json).write_text(
            json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8"
        )
    return 0


def report(results: dict, args) -> None:
    med = lambda runs, *keys: median([_dig(r, keys) for r in runs])  # noqa: E731
    print(f"\nmedians of {args.runs} runs; max_tokens={args.max_tokens}, temperature={args.temperature}, "
          f"top_p={args.top_p}, repeat_penalty={args.repeat_penalty}, seed={args.seed}")  # fmt: skip
    header = f"{'path':<40} {'thr':>3} {'prompt':>6} {'TTFT ms':>8} {'gen tok/s':>9} {'tokens':>6} {'turn2 TTFT':>10} {'t2/t1':>5} {'pp tok/s':>8}"
    print(header)
    print("-" * len(header))
    for key, res in results["inprocess"].items():
        label, t = key.split("/t")
        runs = res["runs"]
        for mode, name in (("turn1", "cold"), ("primed", "stable prefix primed"),
                           ("prepared", "prepared (prefix+clock)")):
            t1 = med(runs, mode, "ttft_ms")
            t2 = med(runs, "turn2", "ttft_ms")
            print(
                f"{'(a) in-process ' + label + ', ' + name:<40} {t:>3} {med(runs, 'prompt_tokens'):>6.0f} "
                f"{fmt(t1):>8} {fmt(med(runs, mode, 'gen_tps')):>9} {fmt(med(runs, mode, 'tokens'), 0):>6} "
                f"{fmt(t2):>10} {fmt(t2 / t1 if t1 and t2 else None, 2):>5} {fmt(med(runs, 'pp_tps'), 0):>8}"
            )
        print(
            f"{'(a) in-process ' + label + ', action, prepared':<40} {t:>3} {fmt(med(runs, 'prompt3_tokens'), 0):>6} "
            f"{fmt(med(runs, 'action', 'ttft_ms')):>8} {fmt(med(runs, 'action', 'gen_tps')):>9} "
            f"{fmt(med(runs, 'action', 'tokens'), 0):>6}   (prepared {fmt(med(runs, 'prepared3_tokens'), 0)}: "
            f"{fmt(med(runs, 'prompt3_tokens') - med(runs, 'prepared3_tokens'), 0)} evaluated; no grammar)"
        )

    def http_row(label: str, key: str, runs: list) -> float | None:
        """One HTTP path's row; returns its turn-2 TTFT."""
        t1 = med(runs, "turn1", "ttft_ms")
        t2 = med(runs, "turn2", "ttft_ms")
        prompt = med(runs, "turn1", "usage", "prompt_tokens")
        print(
            f"{label:<40} {key[1:]:>3} {fmt(prompt, 0):>6} {fmt(t1):>8} "
            f"{fmt(med(runs, 'turn1', 'gen_tps')):>9} {fmt(med(runs, 'turn1', 'tokens'), 0):>6} "
            f"{fmt(t2):>10} {fmt(t2 / t1 if t1 and t2 else None, 2):>5} {'-':>8}"
        )
        return t2

    for key, runs in results["homeagent"].items():
        t2 = http_row("(b) homeagent /v1/chat/completions", key, runs)
        cold = next((med(res["runs"], "turn1", "ttft_ms") for k, res in results["inprocess"].items()
                     if k.endswith("/" + key)), None)
        waits = [w for r in runs for w in r.get("prepared_s", []) if w is not None]
        print(f"    next turn prepared while idle in {fmt(median(waits), 2)} s (median of {len(waits)}); "
              f"turn 2 / cold in-process turn 1 = {fmt(t2 / cold if t2 and cold else None, 2)}")
        ar = med(runs, "after_restart", "ttft_ms")
        print(
            f"{'    first turn after restart':<40} {key[1:]:>3} {fmt(med(runs, 'after_restart', 'usage', 'prompt_tokens'), 0):>6} "
            f"{fmt(ar):>8} {fmt(med(runs, 'after_restart', 'gen_tps')):>9} "
            f"{fmt(med(runs, 'after_restart', 'tokens'), 0):>6}   (prefix {runs[0]['prefix_source'][1]}; /turn2 = "
            f"{fmt(ar / t2 if ar and t2 else None, 2)})"
        )
        for part, name in (("turn1", "turn 1"), ("turn2", "turn 2"), ("after_restart", "after restart")):
            print(f"    {name}, inside the daemon: request -> turn started {fmt(med(runs, part, 'parts', 'to_turn_ms'))} ms, "
                  f"turn's steps before the model call {fmt(med(runs, part, 'parts', 'before_call_ms'))} ms, "
                  f"engine: call -> first words {fmt(med(runs, part, 'parts', 'engine_first_ms'))} ms "
                  f"({fmt(med(runs, part, 'parts', 'evaluated'), 0)} tokens evaluated)")
        call = [r["action"].get("model_call") or {} for r in runs]
        evaluated = [c["prompt_tokens"] - c["cached_tokens"] for c in call
                     if c.get("prompt_tokens") is not None and c.get("cached_tokens") is not None]
        print(f"    action request, first model call: prompt {fmt(median([c.get('prompt_tokens') for c in call]), 0)} "
              f"tokens, {fmt(median(evaluated), 0)} evaluated (the rest prepared), "
              f"{fmt(median([c.get('duration_ms') for c in call]), 0)} ms in all (its answer streams after "
              "the action ran: the TTFT below is the user's, not the engine's)")
        for part, name in (("action", "action request (to the model)"),
                           ("intent", "action request (intent layer)")):
            print(
                f"{'    ' + name:<40} {key[1:]:>3} {fmt(med(runs, part, 'usage', 'prompt_tokens'), 0):>6} "
                f"{fmt(med(runs, part, 'ttft_ms')):>8} {fmt(med(runs, part, 'gen_tps')):>9} "
                f"{fmt(med(runs, part, 'tokens'), 0):>6}   {runs[0][part]['text'][:40]!r}"
            )
    for key, runs in results["server"].items():
        http_row("(c) llama_cpp.server", key, runs)
    for key, res in results["inprocess"].items():
        print(f"build {key.split('/')[0]}: {res['system_info']}")
    texts = {
        name: runs[0]["turn1"]["text"][:60]
        for name, runs in [*(("a:" + k, v["runs"]) for k, v in results["inprocess"].items()),
                           *(("b:" + k, v) for k, v in results["homeagent"].items()),
                           *(("c:" + k, v) for k, v in results["server"].items())]
    }  # fmt: skip
    if len(set(texts.values())) > 1:
        print("note: the paths did not produce the same first answer:")
        for name, text in texts.items():
            print(f"  {name}: {text!r}")


def _dig(obj, keys):
    for k in keys:
        if obj is None:
            return None
        obj = obj.get(k)
    return obj


if __name__ == "__main__":
    sys.exit(main())
