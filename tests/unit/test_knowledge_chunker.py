"""Chunking knowledge files: heading paths, paragraphs, bounded size, nothing lost."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from homeagent.knowledge.chunker import Chunk, chunk_markdown
from homeagent.text import estimate_tokens

REPO = Path(__file__).resolve().parents[2]
PRESETS = sorted((REPO / "knowledge").glob("*/content.md"))


def _body_lines(text: str) -> list[str]:
    """Non-blank, non-heading lines of a document, whitespace-normalised."""
    out = []
    for line in text.splitlines():
        if line.strip() and not re.match(r"^ {0,3}#{1,6}\s", line):
            out.append(" ".join(line.split()))
    return out


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_sections_keep_their_heading_path() -> None:
    text = "# Guide\n\nIntro line.\n\n## Part A\nAlpha text.\n\n### Detail\nDeep text.\n\n## Part B\nBeta text.\n"
    chunks = chunk_markdown(text)
    assert [(c.heading, c.text) for c in chunks] == [
        (("Guide",), "Intro line."),
        (("Guide", "Part A"), "Alpha text."),
        (("Guide", "Part A", "Detail"), "Deep text."),
        (("Guide", "Part B"), "Beta text."),
    ]
    assert [c.ordinal for c in chunks] == [0, 1, 2, 3]
    assert chunks[2].index_text().startswith("Guide › Part A › Detail\nDetail\n")


def test_heading_without_body_or_children_is_kept_as_text() -> None:
    chunks = chunk_markdown("# Title\n\n## Empty section\n\n## Full\nbody\n")
    assert (("Title",), "Empty section") in [(c.heading, c.text) for c in chunks]
    assert (("Title", "Full"), "body") in [(c.heading, c.text) for c in chunks]


def test_hash_inside_code_fence_is_not_a_heading() -> None:
    text = "## Shell\n\n```sh\n# not a heading\n\necho hi\n```\n\nAfter.\n"
    chunks = chunk_markdown(text)
    assert all(c.heading == ("Shell",) for c in chunks)
    assert "# not a heading\n\necho hi" in chunks[0].text  # the fence stays one block


def test_closing_hashes_and_csharp_heading() -> None:
    chunks = chunk_markdown("## Tips ##\nx\n\n## C# notes\ny\n")
    assert [c.heading for c in chunks] == [("Tips",), ("C# notes",)]


def test_plain_text_has_no_heading() -> None:
    chunks = chunk_markdown("first paragraph\nstill first\n\nsecond paragraph\n")
    assert [c.heading for c in chunks] == [()]
    assert chunks[0].text == "first paragraph\nstill first\n\nsecond paragraph"


def test_small_paragraphs_are_packed_large_ones_split() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 40 for i in range(10)]
    chunks = chunk_markdown("## Many\n\n" + "\n\n".join(paragraphs), max_tokens=120)
    assert 1 < len(chunks) < 10  # packed, but bounded
    assert all(estimate_tokens(c.text) <= 120 for c in chunks)
    assert _compact("".join(c.text for c in chunks)) == _compact("".join(paragraphs))


def test_long_chinese_paragraph_splits_at_sentences_within_bound() -> None:
    sentence = "烟雾报警器每月按测试键检测一次，电池每年至少更换一次。"
    text = "## 报警器\n" + sentence * 30
    chunks = chunk_markdown(text, max_tokens=60)
    assert len(chunks) > 5
    assert all(estimate_tokens(c.text) <= 60 for c in chunks)
    # Cuts fall on sentence ends: every chunk ends with a full stop.
    assert all(c.text.endswith("。") for c in chunks)
    assert _compact("".join(c.text for c in chunks)) == _compact(sentence * 30)


def test_unpunctuated_cjk_and_huge_word_still_bounded() -> None:
    run = "番茄炒蛋" * 100  # no punctuation, no spaces
    word = "x" * 2000
    chunks = chunk_markdown(f"{run}\n\n{word}", max_tokens=50)
    assert all(estimate_tokens(c.text) <= 50 for c in chunks)
    assert "".join(c.text for c in chunks) == run + word


def test_crlf_and_bom_free_input() -> None:
    chunks = chunk_markdown("# T\r\n\r\nline one\r\nline two\r\n")
    assert chunks == [Chunk(("T",), "line one\nline two", 0)]


def test_rejects_absurd_bound() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        chunk_markdown("x", max_tokens=2)


@pytest.mark.parametrize("path", PRESETS, ids=lambda p: p.parent.name)
def test_preset_files_lose_nothing(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    chunks = chunk_markdown(text, max_tokens=300)
    assert chunks
    assert all(estimate_tokens(c.text) <= 300 for c in chunks)
    body = _compact("".join(_body_lines(text)))
    assert _compact("".join(c.text for c in chunks)) == body
    paths = {h for c in chunks for h in c.heading}
    for line in text.splitlines():
        if line.startswith("#"):
            assert line.lstrip("#").strip() in paths
    top = [c for c in chunks if c.heading]
    assert all(c.heading[0] == top[0].heading[0] for c in top)  # the file's title leads


def test_preset_recipe_is_one_chunk() -> None:
    text = (REPO / "knowledge" / "cooking" / "content.md").read_text(encoding="utf-8")
    recipe = [c for c in chunk_markdown(text) if c.heading[-1].startswith("番茄炒蛋")]
    assert len(recipe) == 1
    assert recipe[0].text.startswith("1. 鸡蛋 3 个") and "撒葱花出锅" in recipe[0].text
