#!/usr/bin/env python3
"""Does the local engine answer small talk in the user's language, at which temperature?

personal.md asks for answers in the user's language. For every utterance of
bench/data/actions_eval_chat.jsonl (half Chinese, half English), the prompt is built as
the daemon builds it (a real App on config/homeagent.yaml: personality and action
protocol, date, memory and knowledge sections, the offered actions, which are none for
small talk; no history), and the bundled SmolLM2 answers once per temperature with the
same seeds. Printed per temperature: the share of answers in the user's language (a
Chinese answer has at least half of its letters CJK; an English one under a tenth) and
of empty answers, and the answers that repeat prompt text ("## Actions for this
message", "[ACTION"…). No judgement of content: only what a script can check.

    .venv/bin/python bench/chat_language.py                     # temperatures 0.7 and 0.2
    .venv/bin/python bench/chat_language.py --temperatures 0.7,0.4,0.2 --seeds 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from contextlib import aclosing
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.text import HAN_RE  # noqa: E402

_CJK = HAN_RE
_LATIN = re.compile(r"[A-Za-z]")


def cjk_share(text: str) -> float:
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    return cjk / (cjk + latin) if cjk + latin else 0.0


def in_language(lang: str, text: str) -> bool:
    share = cjk_share(text)
    return share >= 0.5 if lang == "zh" else bool(_LATIN.search(text)) and share < 0.1


# Prompt text an answer should never repeat.
_ECHOES = ("## Actions for this message", "Current date and time", "[ACTION", "[RESULTS", "(none: answer")


def echoes_prompt(text: str) -> bool:
    return any(marker in text for marker in _ECHOES)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/actions_eval_chat.jsonl")
    parser.add_argument("--temperatures", default="0.7,0.2")
    parser.add_argument("--seeds", type=int, default=1, help="answers per utterance and temperature")
    parser.add_argument("--first-seed", type=int, default=1, help="the sampler's seed of the first answer (then +1 each)")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()

    import anyio

    from homeagent.app import App
    from homeagent.config import load_config
    from homeagent.llm.base import ChatRequest, TextDelta
    from homeagent.llm.llama_cpp import LlamaCppProvider
    from homeagent.llm.models import bundled_model_path
    from homeagent.llm.testing import FunctionProvider

    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    temperatures = [float(t) for t in args.temperatures.split(",")]

    async def build_all() -> list:
        with tempfile.TemporaryDirectory() as tmp:
            config = load_config(ROOT / "config/homeagent.yaml", env={**os.environ, "HOMEAGENT_DATA_DIR": tmp})
            async with App(config, provider=FunctionProvider(lambda r: "", supports_tools=False)) as app:
                built = []
                stable = ""
                for row in rows:
                    interrupt = SimpleNamespace(text=row["text"], member="")  # what context sources read
                    prompt = app.prompt.build(
                        user_text=row["text"], history=[], now=app.clock.now(),
                        memory_sections=await app.agent._gather_context(interrupt),
                    )
                    # The prompt as the local engine is sent it, through the tool dialect.
                    sent = await app.provider.translate(ChatRequest(
                        messages=prompt.messages, tools=app.tools.definitions(),
                        stable_prefix_chars=prompt.stable_prefix_chars,
                    ))
                    built.append(sent.messages)
                    stable = sent.messages[0].content[: sent.stable_prefix_chars]
                return built, stable

    prompts, stable = anyio.run(build_all)
    model = bundled_model_path()
    if model is None:
        print("the bundled model is not installed; run `make venv`", file=sys.stderr)
        return 2

    async def answer(provider, messages, temperature: float) -> str:
        request = ChatRequest(messages=messages, temperature=temperature, max_tokens=args.max_tokens)
        async with aclosing(provider.stream(request)) as events:
            return "".join([e.text async for e in events if isinstance(e, TextDelta)]).strip()

    async def run_all() -> dict[float, list[tuple[str, str, str]]]:
        results: dict[float, list[tuple[str, str, str]]] = {t: [] for t in temperatures}
        for seed in range(args.seeds):
            provider = LlamaCppProvider(model_path=model, model="smollm2", n_ctx=4096, seed=args.first_seed + seed,
                                        max_tokens=args.max_tokens)
            await provider.start()
            await provider.prime(stable)
            try:
                for temperature in temperatures:
                    for row, messages in zip(rows, prompts, strict=True):
                        text = await answer(provider, messages, temperature)
                        results[temperature].append((row["lang"], row["text"], text))
                        if args.verbose:
                            print(f"[{temperature}] {row['text']} → {text[:100]!r}", file=sys.stderr)
            finally:
                await provider.aclose()
        return results

    results = anyio.run(run_all)
    print(f"\nchat_language: {len(rows)} small-talk utterances × {args.seeds} seed(s), max_tokens {args.max_tokens}")
    print(f"{'temperature':>11} {'zh ok':>7} {'en ok':>7} {'all ok':>7} {'empty':>6} {'echo':>5}")
    for temperature, answers in results.items():
        def share(lang: str | None, answers=answers) -> str:
            picked = [a for a in answers if lang is None or a[0] == lang]
            ok = sum(in_language(lang_, text) for lang_, _, text in picked)
            return f"{100 * ok / max(1, len(picked)):5.1f}%"
        empty = sum(not text for _, _, text in answers)
        echo = sum(echoes_prompt(text) for _, _, text in answers)
        print(f"{temperature:>11} {share('zh'):>7} {share('en'):>7} {share(None):>7} {empty:>6} {echo:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
