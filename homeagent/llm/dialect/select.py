"""Which actions to offer a model that reads them from its prompt (the `[ACTION]` dialect).

The full catalog of 75 actions costs thousands of prompt tokens, which the local engine
evaluates at about 140 tokens/s; so a provider without native tools is offered only the
top k actions for the utterance (8 by default), ranked by TF-IDF cosine over each action's
name, description and example utterances. Providers with native tools get the full list.

Tokens are the shared ones (`homeagent.text.tokenize`: CJK bigrams, Latin words)
plus the 4-character pieces of longer Latin words, so "watered" still meets "water", and
single CJK characters, so 喂 still meets 喂食.
Beside the actions the index holds one more class: small talk (`small_talk.txt`:
greetings, thanks, stories, questions about the world). A message closer to small talk
than to any action is offered none (`Ranking.chat`), so a small local model answers in
words instead of writing a record nobody asked for.

The index is rebuilt only when the set of offered tools changes (each request carries
them); queries run in a worker thread (`select`) or inline for callers already off the
loop (`select_sync`).
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import anyio

from homeagent.llm.base import ToolDef
from homeagent.text import CJK_RE, normalize, tokenize

DEFAULT_TOP_K = 8
# Tool names: HomeAgent's own (snake_case) and a client's (Home Assistant's `HassTurnOn`).
_EXAMPLE_RE = re.compile(r"^(?P<text>.*?)\s*→\s*(?P<name>[A-Za-z][A-Za-z0-9_.-]*)\s*(?P<args>\{.*\})?\s*$", re.S)
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_LATIN_RE = re.compile(r"^[a-z][a-z'-]{4,}$")
_CJK_RE = CJK_RE


@dataclass(frozen=True)
class Example:
    text: str
    name: str
    arguments: dict[str, Any]


def parse_example(line: str) -> Example | None:
    """`user words → tool_name {"arg": "value"}` as registered in a tool's examples."""
    match = _EXAMPLE_RE.match(line.strip())
    if not match:
        return None
    try:
        args = json.loads(match.group("args")) if match.group("args") else {}
    except json.JSONDecodeError:
        return None
    return Example(match.group("text").strip(), match.group("name"), args if isinstance(args, dict) else {})


def featured_examples(specs: Iterable[ToolDef]) -> list[Example]:
    """The prompt's example dialogues: each tool's leading `featured_examples` examples."""
    out = []
    for spec in specs:
        for line in spec.examples[: spec.featured_examples]:
            example = parse_example(line)
            if example is not None and example.name == spec.name:
                out.append(example)
    return out


@dataclass(frozen=True)
class Ranking:
    """Every action with its score, best first, and the score of the small-talk class."""

    scored: list[tuple[ToolDef, float]]
    small_talk: float

    @property
    def top(self) -> float:
        return self.scored[0][1] if self.scored else 0.0

    @property
    def chat(self) -> bool:
        """The message is conversation: no action is closer to it than small talk (or
        nothing in the index shares a word with it)."""
        return self.small_talk >= self.top


@cache
def small_talk_documents() -> tuple[str, ...]:
    """The paragraphs of `small_talk.txt`, comments dropped."""
    text = resources.files("homeagent.llm.dialect").joinpath("small_talk.txt").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if not line.lstrip().startswith("#")]
    return tuple(p.strip() for p in "\n".join(lines).split("\n\n") if p.strip())


def analyzer(text: str) -> list[str]:
    terms = tokenize(text)
    pieces = [f"~{t[i:i + 4]}" for t in terms if _LATIN_RE.match(t) for i in range(len(t) - 3)]
    # Single CJK characters too: 喂 meets 喂食 though the bigrams differ.
    chars = [f"~{ch}" for ch in _CJK_RE.findall(normalize(text))]
    return terms + pieces + chars


class Tfidf:
    """TF-IDF cosine over a few hundred short documents, as scikit-learn's
    `TfidfVectorizer(analyzer=analyzer, sublinear_tf=True)` computes it (smooth idf
    ln((1+n)/(1+df))+1, tf 1+ln(count), rows L2-normalised), in plain Python: the
    selector's index is small, and a start then needs no scikit-learn (1.7 s of import)."""

    def __init__(self, documents: Sequence[str]):
        counts = [Counter(analyzer(text)) for text in documents]
        df = Counter(term for c in counts for term in c)
        n = len(documents)
        self.idf = {term: math.log((1 + n) / (1 + f)) + 1 for term, f in df.items()}
        self.size = n
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for row, c in enumerate(counts):
            for term, weight in self._vector(c).items():
                self.postings.setdefault(term, []).append((row, weight))

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        v = {t: (1 + math.log(c)) * self.idf[t] for t, c in counts.items() if t in self.idf}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {t: x / norm for t, x in v.items()}

    def similarities(self, text: str) -> list[float]:
        """The cosine of `text` with every document, in their order."""
        out = [0.0] * self.size
        for term, weight in self._vector(Counter(analyzer(text))).items():
            for row, w in self.postings[term]:
                out[row] += weight * w
        return out


def document(spec: ToolDef) -> str:
    """What a tool is known by in the index."""
    utterances = [e.text for e in map(parse_example, spec.examples) if e is not None]
    name = _CAMEL_RE.sub(" ", spec.name).replace("_", " ")
    return "\n".join([name, spec.description, *utterances])


class ActionSelector:
    """TF-IDF index over a set of tools; `select(utterance, k)` gives the most relevant.

    `source` is read on every query (a registry stays current as tools come and go);
    `rank(utterance, tools)` ranks a request's own tools instead."""

    def __init__(
        self,
        source: Iterable[ToolDef] = (),
        *,
        min_score: float = 0.0,
        small_talk: Sequence[str] | None = None,
    ):
        self._source = source
        self._min_score = min_score
        self._small_talk = tuple(small_talk_documents() if small_talk is None else small_talk)
        self._lock = threading.Lock()
        self._names: tuple[str, ...] = ()
        self._specs: list[ToolDef] = []
        self._vectorizer: Tfidf | None = None

    def _index(self, tools: Sequence[ToolDef] | None = None) -> None:
        specs = list(self._source) if tools is None else list(tools)
        names = tuple(s.name for s in specs)
        if names == self._names and self._vectorizer is not None:
            return
        documents = [document(s) for s in specs] + list(self._small_talk)
        vectorizer = Tfidf(documents) if specs else None
        self._specs, self._names, self._vectorizer = specs, names, vectorizer

    def prepare_sync(self, tools: Sequence[ToolDef] | None = None) -> None:
        """Build the index now (~90 documents: tens of milliseconds)."""
        with self._lock:
            self._index(tools)

    async def prepare(self, tools: Sequence[ToolDef] | None = None) -> None:
        await anyio.to_thread.run_sync(self.prepare_sync, tools)

    def rank(self, utterance: str, tools: Sequence[ToolDef] | None = None) -> Ranking:
        with self._lock:
            self._index(tools)
            if self._vectorizer is None:
                return Ranking([], 0.0)
            sims = self._vectorizer.similarities(utterance)
            n = len(self._specs)
            ranked = sorted(range(n), key=lambda i: (-sims[i], i))
            small_talk = max(sims[n:], default=0.0)
            # The request's own definitions: same names may carry this request's schemas.
            current = {t.name: t for t in tools} if tools is not None else {}
            return Ranking(
                [(current.get(self._specs[i].name, self._specs[i]), float(sims[i])) for i in ranked], small_talk
            )

    def select_sync(self, utterance: str, k: int = DEFAULT_TOP_K) -> list[ToolDef]:
        """The top k actions for the utterance; none when it is small talk."""
        ranking = self.rank(utterance)
        if ranking.chat:
            return []
        return [spec for spec, score in ranking.scored[:k] if score > self._min_score]

    async def select(self, utterance: str, k: int = DEFAULT_TOP_K) -> list[ToolDef]:
        return await anyio.to_thread.run_sync(self.select_sync, utterance, k)


def select_actions(
    source: Iterable[ToolDef], utterance: str, k: int = DEFAULT_TOP_K
) -> list[ToolDef]:
    """One-off ranking (builds an index each call; keep an ActionSelector for a daemon)."""
    return ActionSelector(source).select_sync(utterance, k)
