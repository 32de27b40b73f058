"""The intent classifier: which action (or "none") an utterance asks for, and how sure.

Features are TF-IDF over character n-grams (1–3, inside word boundaries: Chinese needs
no segmenter and typos cost little) and over the shared tokens (`homeagent.text.tokenize`);
a linear SVM scores each class, and a softmax over the scores with a temperature fitted
on held-out data makes them probabilities (temperature scaling). The model is first
trained with a quarter of the templates held out: the temperature minimises the held-out
log loss, and the abstain thresholds come from what answering gains on the held-out answers
(a right one gains 1, a wrong one costs `cost`): the gain has a broad plateau (near the top
of it an answer is right about as often as not), and the threshold that maximises it is
anywhere on that plateau — one example more moved it from 0.58 to 0.39. So the thresholds
are read off the whole plateau (every cut whose gain is within one standard error of the
best): `threshold`, its cautious end, is what a change of the household's records needs;
`read_threshold`, its middle, is enough to read or to answer in words. Both are stable
(0.72 / 0.50, whichever the example set). Then the model is trained again on everything.

Training takes about two seconds for ~80 classes; callers run it in a worker thread. A
trained model is saved as plain arrays and JSON (`save`/`load`, no pickle), so a restart
with the same registry loads it in milliseconds without importing scikit-learn.
"""

from __future__ import annotations

import json
import math
import os
import re
import zipfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeagent.intent.mainland import read_as_mainland
from homeagent.intent.training import Example
from homeagent.text import normalize, tokenize

DEFAULT_COST = 3.0


FORMAT = 3  # of the saved model; a file of another format is trained again
_SPACES = re.compile(r"\s\s+")


def _words(text: str) -> list[str]:
    return tokenize(text)


def char_ngrams(text: str) -> list[str]:
    """Character 1-3-grams inside word boundaries, each word padded with one space: what
    scikit-learn's `analyzer="char_wb"` makes of `normalize(text)`, here so a loaded
    model needs no scikit-learn."""
    grams: list[str] = []
    for word in _SPACES.sub(" ", normalize(text)).split():
        padded = f" {word} "
        for n in range(1, 4):
            grams.extend(padded[i : i + n] for i in range(max(len(padded) - n + 1, 1)))
            if len(padded) <= n:  # a word shorter than n counts once
                break
    return grams


_ANALYZERS: tuple[Callable[[str], list[str]], ...] = (char_ngrams, _words)


class _Features:
    """Character n-grams and words side by side (sklearn's FeatureUnion, without its
    per-call job dispatch, which costs more than the transform itself). A text is read once as
    `read_as_mainland` reads it, for both: 今日摘要 and 今天摘要, 幫我 and 帮我 are one wording."""

    def __init__(self) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.parts = [TfidfVectorizer(analyzer=analyze, sublinear_tf=True) for analyze in _ANALYZERS]
        self._fast: list[tuple[Callable[[str], list[str]], dict[str, int], Any, int]] = []

    def fit_transform(self, texts: Sequence[str]) -> Any:
        from scipy.sparse import hstack

        read = [read_as_mainland(t) for t in texts]
        return hstack([p.fit_transform(read) for p in self.parts]).tocsr()

    def transform(self, texts: Sequence[str]) -> Any:
        from scipy.sparse import hstack

        read = [read_as_mainland(t) for t in texts]
        return hstack([p.transform(read) for p in self.parts]).tocsr()

    def prepare(self) -> None:
        """Keep what one utterance's features need: each part's analyzer, vocabulary and
        idf, with its column offset (sklearn's per-call checks cost ~10 ms on a busy box)."""
        offset = 0
        self._fast = []
        for analyze, part in zip(_ANALYZERS, self.parts, strict=True):
            vocabulary = {str(t): int(c) for t, c in part.vocabulary_.items()}
            self._fast.append((analyze, vocabulary, part.idf_, offset))
            offset += len(vocabulary)

    def state(self) -> tuple[list[dict[str, int]], list[Any]]:
        return [v for _, v, _, _ in self._fast], [idf for _, _, idf, _ in self._fast]

    @classmethod
    def from_state(cls, vocabularies: list[dict[str, int]], idfs: list[Any]) -> _Features:
        features = cls.__new__(cls)
        features.parts = []
        features._fast = []
        offset = 0
        for analyze, vocabulary, idf in zip(_ANALYZERS, vocabularies, idfs, strict=True):
            features._fast.append((analyze, vocabulary, idf, offset))
            offset += len(vocabulary)
        return features

    def one(self, text: str) -> tuple[list[int], list[float]]:
        """The sparse feature vector of one text: sublinear tf × idf, L2-normalised per part."""
        columns: list[int] = []
        values: list[float] = []
        text = read_as_mainland(text)
        for analyze, vocabulary, idf, offset in self._fast:
            counts = Counter(t for t in analyze(text) if t in vocabulary)
            part = [(vocabulary[t], (1.0 + math.log(n)) * idf[vocabulary[t]]) for t, n in counts.items()]
            norm = math.sqrt(sum(v * v for _, v in part)) or 1.0
            columns += [offset + c for c, _ in part]
            values += [v / norm for _, v in part]
        return columns, values


@dataclass(frozen=True)
class Prediction:
    ranked: list[tuple[str, float]]  # every class with its probability, best first

    @property
    def label(self) -> str:
        return self.ranked[0][0]

    @property
    def confidence(self) -> float:
        return self.ranked[0][1]

    def led_by(self, label: str, confidence: float) -> Prediction:
        """The same ranking with `label` first at `confidence` (a rule's choice over the classifier's)."""
        return Prediction([(label, confidence), *((n, p) for n, p in self.ranked if n != label)])


class IntentModel:
    def __init__(self, *, c: float = 1.0) -> None:
        self._c = c
        self._vectorizer: Any = None
        self._model: Any = None
        self.labels: list[str] = []
        self.threshold = 0.5
        self.read_threshold = 0.5
        self.temperature = 5.0
        self.heldout_accuracy = 0.0
        self.size = 0

    def _fit(self, examples: Sequence[Example]) -> tuple[Any, Any]:
        from sklearn.svm import LinearSVC

        vectorizer = _Features()
        matrix = vectorizer.fit_transform([e.text for e in examples])
        model = LinearSVC(C=self._c)
        model.fit(matrix, [e.action for e in examples])
        return vectorizer, model

    def train(self, examples: Sequence[Example], *, cost: float = DEFAULT_COST, calibrate: bool = True) -> None:
        if calibrate:
            held = [e for e in examples if _held_out(e)]
            kept = [e for e in examples if not _held_out(e)]
            if held and len({e.action for e in kept}) > 1:
                vectorizer, model = self._fit(kept)
                labels = list(model.classes_)
                scores = model.decision_function(vectorizer.transform([e.text for e in held]))
                truth = [labels.index(e.action) if e.action in labels else -1 for e in held]
                self.temperature = _temperature(scores, truth)
                probs = _softmax(scores, self.temperature)
                scored = sorted(
                    ((float(row.max()), labels[int(row.argmax())] == e.action) for row, e in zip(probs, held, strict=True)),
                    reverse=True,
                )
                self.heldout_accuracy = sum(ok for _, ok in scored) / len(scored)
                self.read_threshold, self.threshold = _plateau(scored, cost)
        self._vectorizer, model = self._fit(examples)
        self._vectorizer.prepare()
        # Features × classes, for one row at a time, in float32 (half the memory; the
        # scores differ in the seventh digit). The fitted estimator is not kept: predict
        # reads only these arrays, as for a loaded model.
        self._coef = model.coef_.T.astype("float32")
        self._intercept = model.intercept_.astype("float32")
        self.labels = list(model.classes_)
        self._model = "trained"
        self.size = len(examples)

    @property
    def ready(self) -> bool:
        return self._model is not None

    def save(self, path: Path, key: str) -> None:
        """Write the trained model (arrays in an .npz, the rest JSON inside it) atomically;
        `key` names what it was trained from, and `load` accepts only the same key."""
        import numpy as np

        vocabularies, idfs = self._vectorizer.state()
        meta = {"format": FORMAT, "key": key, "labels": self.labels, "threshold": self.threshold,
                "read_threshold": self.read_threshold, "temperature": self.temperature, "heldout_accuracy": self.heldout_accuracy, "size": self.size,
                "vocabularies": vocabularies}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as fh:
            np.savez(fh, meta=np.frombuffer(json.dumps(meta, ensure_ascii=False).encode(), dtype=np.uint8),
                     coef=self._coef, intercept=self._intercept, idf0=idfs[0], idf1=idfs[1])
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, key: str) -> IntentModel | None:
        """The model saved at `path` for `key`, or None (missing, another key or format,
        unreadable: the caller trains again)."""
        import numpy as np

        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["meta"]).decode())
                if meta.get("format") != FORMAT or meta.get("key") != key:
                    return None
                model = cls()
                model._vectorizer = _Features.from_state(meta["vocabularies"], [data["idf0"], data["idf1"]])
                model._coef, model._intercept = data["coef"], data["intercept"]
        except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile):
            return None
        model._model = "loaded"  # ready: predict reads only the arrays above
        model.labels = [str(label) for label in meta["labels"]]
        model.threshold, model.temperature = float(meta["threshold"]), float(meta["temperature"])
        model.read_threshold = float(meta["read_threshold"])
        model.heldout_accuracy, model.size = float(meta["heldout_accuracy"]), int(meta["size"])
        return model

    def predict(self, text: str) -> Prediction:
        import numpy as np

        columns, values = self._vectorizer.one(text)
        scores = self._intercept + (np.asarray(values) @ self._coef[columns] if columns else 0.0)
        probs = _softmax(np.asarray([scores]), self.temperature)[0]
        order = probs.argsort()[::-1]
        return Prediction([(self.labels[i], float(probs[i])) for i in order])


def _held_out(example: Example) -> bool:
    if example.group.startswith("learned:"):  # the household's own words: always trained on
        return False
    _, _, index = example.group.rpartition(":")
    return index.isdigit() and int(index) % 4 == 3


def _plateau(scored: list[tuple[float, bool]], cost: float) -> tuple[float, float]:
    """(middle, cautious end) of the confidences at which answering pays about as much as it
    can on held-out data: each right answer without the model gains 1, each wrong one costs
    `cost`; a cut is on the plateau when its total is within one standard error of the best
    (sqrt(answers) x (1 + cost) / 2). `scored` is best first."""
    import numpy as np

    if not scored:
        return 0.999, 0.999
    confidence = np.array([c for c, _ in scored], dtype=float)
    gain = np.cumsum(np.where([ok for _, ok in scored], 1.0, -cost))
    best = int(gain.argmax())
    if gain[best] <= 0:
        return 0.999, 0.999
    noise = math.sqrt(best + 1) * (1.0 + cost) / 2
    on = np.nonzero(gain >= gain[best] - noise)[0]
    cautious = float(confidence[on.min()])
    middle = float(np.median(confidence[on]))
    return min(max(middle, 0.05), 0.999), min(max(cautious, 0.05), 0.999)


def _softmax(scores: Any, temperature: float) -> Any:
    import numpy as np

    z = np.asarray(scores, dtype=float) * temperature
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _temperature(scores: Any, truth: list[int]) -> float:
    """The softmax temperature with the lowest held-out log loss."""
    import numpy as np

    rows = [i for i, t in enumerate(truth) if t >= 0]
    if not rows:
        return 5.0
    best, best_loss = 5.0, float("inf")
    for temperature in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 13.0, 16.0, 20.0):
        probs = _softmax(np.asarray(scores)[rows], temperature)
        loss = -float(np.mean(np.log(probs[np.arange(len(rows)), [truth[i] for i in rows]] + 1e-12)))
        if loss < best_loss:
            best, best_loss = temperature, loss
    return best
