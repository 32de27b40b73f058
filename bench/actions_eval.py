"""Action-calling accuracy of the local engine on utterances in Chinese and English.

Each line of bench/data/actions_eval.jsonl is `{"id", "lang", "text", "action", "args"}`:
an utterance, the action it should call, and the key arguments it should carry (dates as
ISO values, resolved against the fixed "now" below). Every utterance goes through the
prompt a provider without native tools gets: personality, the block protocol and the
example dialogues (stable, primed once), the date, then the top-k actions the TF-IDF
selector picks for the utterance. The bundled SmolLM2 generates greedily, optionally
under a GBNF grammar built from the offered actions' schemas (`--grammar`).

Printed: selector recall@k, parse rate (replies that yield a call), action accuracy,
argument accuracy (per key, and whole calls), median latency and time to first token per
utterance, by language; and the engine's time to first token with the whole registry in
the prompt (what offering all 75 actions would cost).

    .venv/bin/python bench/actions_eval.py                 # every utterance, grammar on
    .venv/bin/python bench/actions_eval.py --limit 20 --grammar none
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.actions import action_specs  # noqa: E402
from homeagent.actions.dates import DateError, parse_when  # noqa: E402
from homeagent.actions.health import sleep_minutes, water_ml  # noqa: E402
from homeagent.actions.modes import ALIASES  # noqa: E402
from homeagent.actions.money import MoneyError, parse_money  # noqa: E402
from homeagent.llm.base import Message  # noqa: E402
from homeagent.llm.dialect.blocks import extract_actions  # noqa: E402
from homeagent.llm.dialect.grammar import action_grammar, copy_constrained, instruction_terms  # noqa: E402
from homeagent.llm.dialect.prompt import render_action_catalog, render_offered, render_protocol  # noqa: E402
from homeagent.llm.dialect.select import ActionSelector, Ranking  # noqa: E402
from homeagent.numbers import find_number, numbers_in, parse_number  # noqa: E402
from homeagent.tools.builtin import builtin_tools  # noqa: E402

NOW = datetime(2026, 3, 4, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # a Wednesday
WEEKDAYS_ZH = "一二三四五六日"


# -- scoring ----------------------------------------------------------------------------


def _norm(text: Any) -> str:
    return re.sub(r"[\s\W_]+", "", str(text)).casefold()


def _number(action: str, key: str, value: Any) -> float | None:
    if action == "record_water" and key == "amount":
        return water_ml(value, 250)
    if action == "record_sleep" and key == "hours":
        minutes = sleep_minutes(value)
        return None if minutes is None else minutes / 60
    if key in ("amount", "cost", "target", "add") and isinstance(value, str):
        try:
            return parse_money(value, "CNY").minor / 100
        except MoneyError:
            pass
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    return parse_number(str(value)) if parse_number(str(value)) is not None else find_number(str(value))


def arg_matches(action: str, key: str, expected: Any, actual: Any) -> bool:
    if actual is None:
        return False
    if isinstance(expected, bool):
        return actual is expected or str(actual).casefold() == str(expected).casefold()
    if isinstance(expected, int | float):
        value = _number(action, key, actual)
        return value is not None and abs(value - float(expected)) < 1e-6
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?|\d{2}:\d{2}", str(expected)):
        try:
            when = parse_when(str(actual), NOW)
        except DateError:
            return False
        if re.fullmatch(r"\d{2}:\d{2}", expected):
            return when.has_time and when.value.strftime("%H:%M") == expected
        if "T" in expected:
            return when.has_time and when.value.strftime("%Y-%m-%dT%H:%M") == expected
        return when.day.isoformat() == expected
    if action == "switch_mode" and key == "mode":
        # The executor reads 睡眠模式 / sleep mode as "sleep": score what it will do.
        word = str(actual).casefold().removesuffix("模式").removesuffix(" mode").strip()
        return ALIASES.get(word, word) == expected
    a, e = _norm(actual), _norm(expected)
    return bool(a) and (e in a or a in e)


# -- generation -------------------------------------------------------------------------


def generate(provider: Any, messages: list[Message], grammar_text: str | None, max_tokens: int) -> dict[str, Any]:
    """One greedy completion through the provider's template and model, with an optional
    GBNF grammar: what LlamaCppProvider does once ChatRequest carries `grammar`."""
    from llama_cpp import LlamaGrammar

    llm = provider._llm
    prompt, stop = provider.render(messages)
    tokens = provider._tokenize(prompt)
    grammar = LlamaGrammar.from_string(grammar_text, verbose=False) if grammar_text else None
    started = time.perf_counter()
    first = None
    pieces: list[str] = []
    n = 0
    for chunk in llm.create_completion(tokens, max_tokens=max_tokens, temperature=0.0, top_p=1.0,
                                       repeat_penalty=1.0, stop=stop, stream=True, grammar=grammar, seed=1):
        text = chunk["choices"][0]["text"]
        if text and first is None:
            first = time.perf_counter() - started
        pieces.append(text)
        n += 1
    total = time.perf_counter() - started
    return {"text": "".join(pieces), "ttft": first if first is not None else total, "total": total,
            "prompt_tokens": len(tokens), "completion_tokens": n}


def build_system(stable: str, offered: str) -> str:
    date_line = (f"Current date and time: {NOW.strftime('%Y-%m-%d %H:%M')} "
                 f"({NOW.strftime('%A')}, 星期{WEEKDAYS_ZH[NOW.weekday()]}, Asia/Shanghai)")
    return f"{stable}\n\n{date_line}\n\n{offered}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/actions_eval.jsonl")
    parser.add_argument("--limit", type=int, default=0, help="only the first N utterances (0: all)")
    parser.add_argument("--stride", type=int, default=1, help="every Nth utterance (a spread sample: 3 → 50, both languages)")
    parser.add_argument("--lang", choices=["zh", "en"], help="only one language")
    parser.add_argument("--k", type=int, default=8, help="actions offered per utterance")
    parser.add_argument("--chat", type=Path, default=ROOT / "bench/data/actions_eval_chat.jsonl",
                        help="small talk, to measure how often the force threshold would wrongly force an action")
    parser.add_argument("--force-threshold", type=float, default=0.15,
                        help="selector score above which a reply is forced to be an action block")
    parser.add_argument("--grammar", choices=["action", "action_or_text", "text_then_actions", "none"], default="action")
    parser.add_argument("--no-catalog-examples", action="store_true", help="offered actions without their example line")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--free-strings", action="store_true",
                        help="let string arguments be any text (default: pieces of the user's words)")
    parser.add_argument("--keep-instruction-words", action="store_true",
                        help="let string values be the request's own words too (delete, 笔记, …)")
    parser.add_argument("--max-blocks", type=int, default=1, help="blocks the grammar allows in one reply")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--personality", type=Path, default=ROOT / "personal.md")
    parser.add_argument("--skip-full-ttft", action="store_true", help="skip the whole-registry TTFT measurement")
    parser.add_argument("--json", type=Path, help="also write every reply and score to this file")
    parser.add_argument("--verbose", "-v", action="store_true", help="print each utterance's reply")
    parser.add_argument("--selector-only", action="store_true",
                        help="no model: the selector's recall@k and how it sorts small talk from requests")
    args = parser.parse_args()

    import anyio

    from homeagent.llm.llama_cpp import LlamaCppProvider
    from homeagent.llm.models import bundled_model_path

    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.lang:
        rows = [r for r in rows if r["lang"] == args.lang]
    rows = rows[:: max(1, args.stride)]
    if args.limit:
        rows = rows[: args.limit]
    specs = (*builtin_tools(), *action_specs(db=None, clock=None))
    selector = ActionSelector(specs)
    chat = [json.loads(line) for line in args.chat.read_text(encoding="utf-8").splitlines() if line.strip()]
    row_rankings = [selector.rank(r["text"]) for r in rows]
    chat_rankings = [selector.rank(r["text"]) for r in chat]

    def forced_share(rankings: list[Ranking]) -> float:
        return sum(not r.chat and r.top >= args.force_threshold for r in rankings) / max(1, len(rankings))

    def chat_share(rankings: list[Ranking]) -> float:
        return sum(r.chat for r in rankings) / max(1, len(rankings))

    forced = {
        "actions": forced_share(row_rankings),
        "chat": forced_share(chat_rankings),
        "n_chat": len(chat),
        "chat_as_chat": chat_share(chat_rankings),
        "actions_as_chat": chat_share(row_rankings),
    }
    if args.selector_only:
        report_selector(rows, row_rankings, forced, args.force_threshold)
        return 0
    personality = args.personality.read_text(encoding="utf-8").strip()
    stable = personality + "\n\n" + render_protocol(specs)

    model = bundled_model_path()
    if model is None:
        print("the bundled model is not installed; run `make venv`", file=sys.stderr)
        return 2
    provider = LlamaCppProvider(model_path=model, model="smollm2", n_ctx=args.n_ctx, n_threads=args.threads,
                                temperature=0.0, seed=1, max_tokens=args.max_tokens)
    anyio.run(provider.start)
    anyio.run(provider.prime, stable)
    print(f"stable prefix: {provider.prefix_tokens} tokens, primed ({provider.prefix_source})", file=sys.stderr)

    results = []
    for n, row in enumerate(rows, 1):
        selected = selector.select_sync(row["text"], args.k)
        offered = render_offered(selected, examples=not args.no_catalog_examples)
        messages = [Message("system", build_system(stable, offered)), Message("user", row["text"])]
        grammar = None if args.grammar == "none" or not selected else action_grammar(selected, mode=args.grammar, max_blocks=args.max_blocks)
        if grammar and not args.free_strings:
            exclude = frozenset() if args.keep_instruction_words else instruction_terms(selected)
            grammar = copy_constrained(grammar, row["text"], numbers_in(row["text"]), exclude=exclude)
        out = generate(provider, messages, grammar, args.max_tokens)
        parsed = extract_actions(out["text"])
        call = parsed.calls[0] if parsed.calls else None
        call_args = json.loads(call.arguments) if call else {}
        action_ok = call is not None and call.name == row["action"]
        keys = {k: action_ok and arg_matches(row["action"], k, v, call_args.get(k)) for k, v in row["args"].items()}
        results.append({**row, "reply": out["text"], "selected": [s.name for s in selected],
                        "recall": row["action"] in [s.name for s in selected], "parsed": call is not None,
                        "called": call.name if call else None, "arguments": call_args, "action_ok": action_ok,
                        "keys": keys, "ttft": out["ttft"], "total": out["total"], "prompt_tokens": out["prompt_tokens"]})
        if args.verbose:
            mark = "✓" if action_ok else "✗"
            print(f"{n:3} {mark} {row['text']}\n      → {out['text'].strip()[:160]!r}", file=sys.stderr)
        elif n % 10 == 0:
            print(f"  {n}/{len(rows)}", file=sys.stderr)

    full_ttft = None
    if not args.skip_full_ttft:
        full_ttft = whole_registry_ttft(provider, personality, specs, rows[0]["text"] if rows else "你好")
    anyio.run(provider.aclose)
    report(results, args, provider.prefix_tokens, full_ttft, forced)
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


def report_selector(rows: list[dict[str, Any]], rankings: list[Ranking], forced: dict[str, Any],
                    threshold: float) -> None:
    ranked = [[spec.name for spec, _ in ranking.scored] for ranking in rankings]
    recall = {k: sum(r["action"] in names[:k] for r, names in zip(rows, ranked, strict=True)) for k in (1, 3, 5, 8)}
    print(f"selector on {len(rows)} action utterances: " + ", ".join(
        f"recall@{k} {100 * n / max(1, len(rows)):.1f}%" for k, n in recall.items()))
    print(f"small talk: {100 * forced['chat_as_chat']:.1f}% of {forced['n_chat']} small-talk utterances and "
          f"{100 * forced['actions_as_chat']:.1f}% of the {len(rows)} action utterances are offered no actions")
    print(f"force threshold {threshold}: forced action grammar for {100 * forced['actions']:.1f}% of the action "
          f"utterances and {100 * forced['chat']:.1f}% of the small-talk ones")
    missed = [r["text"] for r, ranking in zip(rows, rankings, strict=True) if ranking.chat]
    if missed:
        print("action utterances taken for small talk: " + "; ".join(missed))


def whole_registry_ttft(provider: Any, personality: str, specs: Any, text: str) -> dict[str, Any]:
    """Time to first token when every action is in the prompt (nothing cached): the cost the
    selector avoids."""
    catalog = render_action_catalog(specs, examples=False)
    system = build_system(personality + "\n\n" + render_protocol(specs), "## Actions\n" + catalog)
    provider._llm.reset()
    out = generate(provider, [Message("system", system), Message("user", text)], None, 4)
    return {"ttft": out["ttft"], "prompt_tokens": out["prompt_tokens"]}


def report(results: list[dict[str, Any]], args: argparse.Namespace, prefix_tokens: int,
           full: dict[str, Any] | None, forced: dict[str, Any]) -> None:
    def pct(num: int, den: int) -> str:
        return f"{100 * num / den:5.1f}%" if den else "    -"

    print(f"\nactions_eval: {len(results)} utterances, k={args.k}, grammar={args.grammar}, "
          f"catalog examples={'off' if args.no_catalog_examples else 'on'}, "
          f"strings={'free' if args.free_strings else 'copied from the utterance'}, "
          f"max_tokens={args.max_tokens}, threads={args.threads}, greedy; stable prefix {prefix_tokens} tokens")
    header = f"{'lang':<5} {'n':>4} {'recall@k':>9} {'parse':>7} {'action':>7} {'args/key':>9} {'args/call':>9} {'median s':>9} {'TTFT s':>7} {'prompt':>7}"
    print(header)
    print("-" * len(header))
    for lang in ("zh", "en", "all"):
        rs = [r for r in results if lang == "all" or r["lang"] == lang]
        if not rs:
            continue
        keys = [ok for r in rs for ok in r["keys"].values()]
        whole = [r for r in rs if r["action_ok"] and all(r["keys"].values())]
        print(f"{lang:<5} {len(rs):>4} {pct(sum(r['recall'] for r in rs), len(rs)):>9} "
              f"{pct(sum(r['parsed'] for r in rs), len(rs)):>7} {pct(sum(r['action_ok'] for r in rs), len(rs)):>7} "
              f"{pct(sum(keys), len(keys)):>9} {pct(len(whole), len(rs)):>9} "
              f"{statistics.median(r['total'] for r in rs):>9.2f} {statistics.median(r['ttft'] for r in rs):>7.2f} "
              f"{statistics.median(r['prompt_tokens'] for r in rs):>7.0f}")
    print(f"force threshold {args.force_threshold}: the selector would force an action block for "
          f"{100 * forced['actions']:.1f}% of these utterances and {100 * forced['chat']:.1f}% of {forced['n_chat']} small-talk ones")
    print(f"small talk: {100 * forced['chat_as_chat']:.1f}% of {forced['n_chat']} small-talk utterances and "
          f"{100 * forced['actions_as_chat']:.1f}% of these action utterances are offered no actions")
    if full is not None:
        print(f"whole registry in the prompt (no selection, nothing cached): {full['prompt_tokens']} tokens, "
              f"time to first token {full['ttft']:.2f} s")


if __name__ == "__main__":
    sys.exit(main())
