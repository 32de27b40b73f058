"""The intent classifier's saved model: the same predictions after a load, refused when it
was trained from something else or is damaged, never unpickled; and the character
n-grams that let a loaded model run without scikit-learn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from homeagent.intent.classifier import IntentModel, char_ngrams
from homeagent.intent.training import Example
from homeagent.text import normalize

TEXTS = [
    "提醒我明天下午3点交电费", "add milk and eggs to the shopping list", "a", "I  am\tHERE  ",
    "把客厅的灯打开 please", "ＡＢＣ full-width", "ok", "e-mail me at 5:30pm!", "", "  ", "一",
    "Straße café naïve", "提醒我下周一submit那个report", "x y z",
]


@pytest.mark.parametrize("text", TEXTS)
def test_character_ngrams_are_scikit_learns_char_wb(text: str) -> None:
    sklearn = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), preprocessor=normalize).build_analyzer()
    assert char_ngrams(text) == sklearn(text)


def _examples() -> list[Example]:
    rows = [("提醒我明天交电费", "create_task"), ("新建任务：洗车", "create_task"), ("remind me to call mum", "create_task"),
            ("add a task: water the plants", "create_task"), ("买牛奶", "add_shopping_item"),
            ("add eggs to the shopping list", "add_shopping_item"), ("put bread on the list", "add_shopping_item"),
            ("购物清单加上苹果", "add_shopping_item"), ("你好", "none"), ("how are you", "none"),
            ("今天天气不错", "none"), ("tell me a joke", "none")]
    return [Example(text, action, {}, f"t:{i}") for i, (text, action) in enumerate(rows)]


def _trained() -> IntentModel:
    model = IntentModel()
    model.train(_examples(), cost=1.0)
    return model


def test_a_loaded_model_predicts_what_the_trained_one_did(tmp_path: Path) -> None:
    model = _trained()
    path = tmp_path / "intent-model.npz"
    model.save(path, "key-1")
    assert path.stat().st_mode & 0o777 == 0o600
    loaded = IntentModel.load(path, "key-1")
    assert loaded is not None and loaded.ready
    assert (loaded.labels, loaded.threshold, loaded.temperature, loaded.size) == (
        model.labels, model.threshold, model.temperature, model.size)
    for text in ("提醒我后天去银行", "add butter to the list", "hello there", "随便聊聊", ""):
        want, got = model.predict(text).ranked, loaded.predict(text).ranked
        assert [label for label, _ in got] == [label for label, _ in want]
        assert np.allclose([p for _, p in got], [p for _, p in want])


def test_a_model_saved_for_other_examples_or_damaged_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "intent-model.npz"
    assert IntentModel.load(path, "key-1") is None  # none saved yet
    _trained().save(path, "key-1")
    assert IntentModel.load(path, "key-2") is None  # trained from something else
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert IntentModel.load(path, "key-1") is None  # torn
    path.write_bytes(b"not a model at all")
    assert IntentModel.load(path, "key-1") is None


def test_a_file_with_pickled_objects_is_refused_not_unpickled(tmp_path: Path) -> None:
    path = tmp_path / "intent-model.npz"
    with path.open("wb") as fh:  # what a tampered file could hold: objects that run code when unpickled
        np.savez(fh, meta=np.array([{"format": 1}], dtype=object), coef=np.zeros(1))
    assert IntentModel.load(path, "key-1") is None


def test_the_fingerprint_covers_every_phrase_book() -> None:
    """A saved model trained before a phrase book changed must not be loaded: every
    module the training text comes from is part of the fingerprint."""
    import homeagent.intent as package
    from homeagent.intent import layer

    here = Path(package.__file__).parent
    books = sorted(p.name for p in here.glob("phrases*.py"))
    assert len(books) >= 3
    hashed = layer.fingerprint_sources()
    assert set(books) <= set(hashed)
