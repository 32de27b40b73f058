"""Knowledge file names, decoding, atomic writes and query focusing."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeagent.knowledge.files import (
    BadFile,
    NotText,
    TooLarge,
    clean_filename,
    clean_topic,
    decode_text,
    is_knowledge_file,
    read_text,
    slugify,
    write_atomic,
)
from homeagent.knowledge.query import focus_query, focus_terms


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("cooking", "cooking"),
        ("Smart Home", "smart_home"),
        ("  急救 知识 ", "急救_知识"),
        ("plants & garden!", "plants_garden"),
        ("ｃｏｏｋｉｎｇ", "cooking"),  # full-width letters are NFKC-normalised
        ("v1.2", "v1_2"),
    ],
)
def test_clean_topic(raw: str, expected: str) -> None:
    assert clean_topic(raw) == expected


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "../etc", "a/b", "a\\b", "/abs", ".hidden", "..", "a\x00b", "x\ny", "!!!"],
)
def test_clean_topic_refuses(raw: str) -> None:
    with pytest.raises(BadFile):
        clean_topic(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("notes.md", "notes.md"),
        ("My Notes (v2).MD", "My_Notes_v2.md"),
        ("番茄炒蛋.txt", "番茄炒蛋.txt"),
        ("guide.markdown", "guide.markdown"),
        ("a..b.md", "a..b.md"),
    ],
)
def test_clean_filename(raw: str, expected: str) -> None:
    assert clean_filename(raw) == expected


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("../../etc/passwd.md", BadFile),
        ("/etc/hosts.md", BadFile),
        ("C:\\Windows\\x.md", BadFile),
        (".env.md", BadFile),
        ("..md", BadFile),
        ("bad\x00name.md", BadFile),
        ("evil\u202egnp.md", BadFile),  # right-to-left override: a control (Cf) character
        ("photo.png", NotText),
        ("script.md.exe", NotText),
        ("noext", NotText),
        ("___.md", BadFile),
    ],
)
def test_clean_filename_refuses(raw: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        clean_filename(raw)


def test_slugify() -> None:
    assert slugify("Oil fire!") == "oil-fire"
    assert slugify("番茄炒蛋 做法") == "番茄炒蛋-做法"
    assert slugify("???") == "note"
    assert len(slugify("x" * 500)) <= 60


def test_is_knowledge_file() -> None:
    assert is_knowledge_file(Path("cooking/content.md"))
    assert is_knowledge_file(Path("cooking/sub/notes.TXT"))
    assert not is_knowledge_file(Path("content.md"))  # no topic folder
    assert not is_knowledge_file(Path("cooking/.draft.md"))
    assert not is_knowledge_file(Path(".git/notes.md"))
    assert not is_knowledge_file(Path("cooking/notes.md~"))
    assert not is_knowledge_file(Path("cooking/photo.jpg"))


def test_decode_text() -> None:
    assert decode_text("\ufeff# 标题\r\nline".encode()) == "# 标题\nline"
    with pytest.raises(NotText, match="binary"):
        decode_text(b"PK\x03\x04\x00\x00")
    with pytest.raises(NotText, match="not UTF-8.*offset 2"):
        decode_text(b"ab" + "中".encode("gbk"))


def test_read_text_limits_and_errors(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_text("x" * 101, encoding="utf-8")
    with pytest.raises(TooLarge, match="over the limit of 100 bytes"):
        read_text(big, max_bytes=100)
    with pytest.raises(BadFile, match="cannot be read"):
        read_text(tmp_path / "missing.md", max_bytes=100)
    ok = tmp_path / "ok.md"
    ok.write_bytes("好".encode())
    assert read_text(ok, max_bytes=100) == ("好", "好".encode())


def test_write_atomic_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "topic" / "a.md"
    write_atomic(target, "# 你好\n")
    write_atomic(target, "# again\n")
    assert target.read_text(encoding="utf-8") == "# again\n"
    assert [p.name for p in target.parent.iterdir()] == ["a.md"]
    assert target.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("番茄炒蛋怎么做", ["番茄", "茄炒", "炒蛋"]),
        ("烫伤了怎么办", ["烫伤"]),
        ("how often should I test smoke alarms", ["test", "smoke", "alarms"]),
        ("Zigbee channel", ["zigbee", "channel"]),
        ("what is Matter 是什么", ["matter"]),
        ("how are you doing today", []),
        ("你好吗", []),
    ],
)
def test_focus_terms(query: str, terms: list[str]) -> None:
    assert focus_terms(query) == terms


def test_focus_query_round_trips_through_the_tokenizer() -> None:
    from homeagent.text import tokenize

    query = "Wi-Fi 路由器怎么设置 for IoT devices"
    assert tokenize(focus_query(query)) == focus_terms(query)
