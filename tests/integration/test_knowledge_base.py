"""The knowledge base on a real SQLite file and a copy of the preset knowledge dir."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from homeagent.errors import StartupError
from homeagent.knowledge import (
    MIGRATIONS as KNOWLEDGE_MIGRATIONS,
)
from homeagent.knowledge import (
    BadFile,
    KnowledgeBase,
    NameTaken,
    SyncReport,
    TooLarge,
    knowledge_tools,
)
from homeagent.llm.base import ToolCall
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.store import MIGRATIONS as STORE_MIGRATIONS
from homeagent.store import Database
from homeagent.text import estimate_tokens
from homeagent.tools.registry import Permission, ToolContext, ToolRegistry

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
MIGRATIONS = (*STORE_MIGRATIONS, *MEMORY_MIGRATIONS, *KNOWLEDGE_MIGRATIONS)
PRESET_FILES = sorted(
    p.relative_to(REPO / "knowledge").as_posix() for p in (REPO / "knowledge").glob("*/*.md")
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "knowledge", tmp_path / "knowledge")
    return tmp_path / "knowledge"


@asynccontextmanager
async def open_kb(
    tmp_path: Path, root: Path, **kwargs: Any
) -> AsyncIterator[tuple[KnowledgeBase, SyncReport]]:
    async with Database(tmp_path / "home.db", MIGRATIONS) as db:
        kb = KnowledgeBase(root, db, **kwargs)
        yield kb, await kb.open()


async def chunk_rows(kb: KnowledgeBase, path: str) -> list[str]:
    rows = await kb.db.fetchall(
        "SELECT id FROM knowledge_chunks WHERE path = ? ORDER BY ordinal", (path,)
    )
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    ("query", "topic", "heading", "fact"),
    [
        ("番茄炒蛋怎么做", "cooking", "番茄炒蛋", "撒葱花出锅"),
        ("how often should I test smoke alarms", "smart_home", "Smoke and CO detectors", "monthly"),
        ("Zigbee channel", "smart_home", "Zigbee", "channels 15, 20 and 25"),
        ("油锅起火怎么办", "cooking", "oil fire", "绝对不能用水浇"),
        ("烫伤了怎么办", "first_aid", "Burns", "20 分钟"),
        ("someone is choking", "first_aid", "Choking", "back blows"),
        ("流鼻血", "first_aid", "Nosebleeds", "10–15 minutes"),
        ("what should I do in a power cut", "smart_home", "Power cut", "48 hours"),
        ("冷藏剩菜能放几天", "cooking", "Fridge and freezer", "3–4 天"),
    ],
)
async def test_preset_queries_find_the_right_section(
    tmp_path: Path, root: Path, query: str, topic: str, heading: str, fact: str
) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        hits = await kb.search(query, 3)
        assert hits, query
        best = hits[0]
        assert best.topic == topic
        assert heading in best.heading[-1]
        assert fact in best.text
        assert 0 < best.score <= 1
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


async def test_small_talk_finds_nothing(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        for query in ("你好", "how are you doing today", "今天天气怎么样", "what time is it", ""):
            assert await kb.search(query, 5) == [], query
            assert await kb.prompt_section(query, 500) == "", query


async def test_topic_filter_and_listing(tmp_path: Path, root: Path) -> None:
    (root / "empty_topic").mkdir()
    async with open_kb(tmp_path, root) as (kb, _):
        assert {h.topic for h in await kb.search("minutes 分钟", 10)} == {
            "cooking",
            "first_aid",
            "smart_home",
        }
        hits = await kb.search("minutes 分钟", 5, topic="cooking")
        assert hits and all(h.topic == "cooking" for h in hits)
        topics = {t.name: t for t in await kb.topics()}
        assert set(topics) == {"cooking", "smart_home", "first_aid", "empty_topic"}
        assert topics["cooking"].files == 1 and topics["cooking"].chunks >= 7
        assert topics["empty_topic"].files == 0 and topics["empty_topic"].chunks == 0


async def test_restart_reuses_index_and_skips_unchanged_files(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, first):
        assert sorted(first.indexed) == PRESET_FILES
        total = first.chunks_added
        assert total == len(kb.index)
    async with open_kb(tmp_path, root) as (kb, again):
        assert again.indexed == () and again.unchanged == len(PRESET_FILES)
        assert again.chunks_added == 0 and len(kb.index) == total
        assert (await kb.search("Zigbee channel", 1))[0].topic == "smart_home"


async def test_same_bytes_new_mtime_is_not_rechunked(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        path = root / "cooking" / "content.md"
        os.utime(path, (1_000_000, 1_000_000))
        report = await kb.sync()
        assert (
            report.indexed == ()
            and report.chunks_added == 0
            and report.unchanged == len(PRESET_FILES)
        )
        # The new mtime was recorded: the next sync does not even read the file.
        row = await kb.db.fetchall(
            "SELECT mtime FROM knowledge_files WHERE path = 'cooking/content.md'"
        )
        assert row[0][0] == 1_000_000


async def test_edit_replaces_only_changed_chunks(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        path = root / "smart_home" / "content.md"
        before = await chunk_rows(kb, "smart_home/content.md")
        text = path.read_text(encoding="utf-8")
        text = text.replace(
            "Test smoke and carbon-monoxide alarms monthly", "Test smoke alarms every week"
        )
        text += (
            "\n## Robot vacuum\nEmpty the dust bin after every run. 扫地机器人每次用完倒尘盒。\n"
        )
        path.write_text(text, encoding="utf-8")
        report = await kb.sync([path])
        assert report.indexed == ("smart_home/content.md",)
        assert report.chunks_added == 2 and report.chunks_removed == 1
        after = await chunk_rows(kb, "smart_home/content.md")
        assert len(set(before) & set(after)) == len(before) - 1  # untouched chunks kept their ids
        hit = (await kb.search("扫地机器人", 1))[0]
        assert hit.heading[-1] == "Robot vacuum"
        smoke = (await kb.search("how often should I test smoke alarms", 1))[0]
        assert "every week" in smoke.text and "monthly" not in smoke.text


async def test_deleted_file_and_folder_lose_their_chunks(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        extra = root / "garden" / "roses.md"
        extra.parent.mkdir()
        extra.write_text(
            "# Roses\nPrune roses in late winter. 玫瑰在冬末修剪。\n", encoding="utf-8"
        )
        assert (await kb.sync()).indexed == ("garden/roses.md",)
        assert (await kb.search("prune roses", 1))[0].path == "garden/roses.md"
        n = len(kb.index)
        shutil.rmtree(root / "garden")
        report = await kb.sync([root / "garden"])  # the watcher passes the deleted folder
        assert report.removed == ("garden/roses.md",) and report.chunks_removed == 1
        assert len(kb.index) == n - 1
        assert await kb.search("prune roses", 3) == []
        (root / "first_aid" / "content.md").unlink()
        report = await kb.sync()
        assert report.removed == ("first_aid/content.md",)
        assert await chunk_rows(kb, "first_aid/content.md") == []
        assert all(h.topic != "first_aid" for h in await kb.search("流鼻血 nosebleed", 5))


async def test_bad_files_are_skipped_with_a_reason(tmp_path: Path, root: Path) -> None:
    topic = root / "misc"
    topic.mkdir()
    (topic / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (topic / "gbk.txt").write_bytes("番茄炒蛋的做法".encode("gbk"))
    (topic / "huge.md").write_text("x" * 40_000, encoding="utf-8")
    (topic / "good.txt").write_text(
        "Descale the kettle with vinegar. 用白醋除水垢。", encoding="utf-8"
    )
    (topic / "photo.jpg").write_bytes(b"\xff\xd8\xff")  # not a text suffix: not even considered
    (topic / ".hidden.md").write_text("secret", encoding="utf-8")
    (root / "loose.md").write_text("outside any topic", encoding="utf-8")
    async with open_kb(tmp_path, root, max_file_bytes=32_000) as (kb, report):
        reasons = dict(report.skipped)
        assert set(reasons) == {"misc/binary.md", "misc/gbk.txt", "misc/huge.md"}
        assert "binary" in reasons["misc/binary.md"]
        assert "not UTF-8" in reasons["misc/gbk.txt"]
        assert "over the limit of 32000 bytes" in reasons["misc/huge.md"]
        assert "misc/good.txt" in report.indexed
        assert (await kb.search("水垢", 1))[0].path == "misc/good.txt"
        assert await kb.search("secret", 3) == [] and await kb.search("outside topic", 3) == []
        # A good file that turns bad loses its old chunks instead of serving stale text.
        (topic / "good.txt").write_bytes(b"\x00\x01binary now")
        report = await kb.sync([topic / "good.txt"])
        assert report.removed == ("misc/good.txt",) and report.skipped
        assert await kb.search("水垢", 3) == []


async def test_fifo_named_like_a_text_file_does_not_block(tmp_path: Path, root: Path) -> None:
    os.mkfifo(root / "cooking" / "pipe.md")
    async with open_kb(tmp_path, root) as (kb, _):
        with anyio.fail_after(30):
            report = await kb.sync()
        assert dict(report.skipped) == {"cooking/pipe.md": "pipe.md is not a regular file"}
        assert report.unchanged == len(PRESET_FILES)


async def test_dangling_link_is_ignored_not_fatal(tmp_path: Path, root: Path) -> None:
    (root / "cooking" / "gone.md").symlink_to(tmp_path / "gone" / "nowhere.md")
    async with open_kb(tmp_path, root) as (kb, opened):
        assert opened.unchanged + len(opened.indexed) == len(PRESET_FILES)
        assert "cooking/gone.md" not in opened.indexed
        assert all(hit.path != "cooking/gone.md" for hit in await kb.search("番茄炒蛋", 10))
        assert "cooking" in {t.name for t in await kb.topics()}


async def test_index_is_repaired_when_vectors_went_missing(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        total = len(kb.index)
    async with Database(tmp_path / "home.db", MIGRATIONS) as db:
        await db.execute(
            "DELETE FROM vector_terms WHERE namespace = 'knowledge' AND doc_id LIKE 'cooking/%'"
        )
        await db.execute(
            "INSERT INTO vector_terms(namespace, doc_id, terms, counts, length) VALUES ('knowledge', 'gone.md#x', x'', x'', 0)"
        )
    async with open_kb(tmp_path, root) as (kb, _):
        assert len(kb.index) == total and "gone.md#x" not in kb.index
        assert (await kb.search("番茄炒蛋怎么做", 1))[0].topic == "cooking"


async def test_create_writes_indexes_and_never_overwrites(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        saved = await kb.create(
            "Plant Care",
            "Watering succulents",
            "Water only when the soil is dry. 多肉植物见干见湿。",
        )
        assert saved.path == "plant_care/watering-succulents.md" and saved.chunks == 1
        written = (root / saved.path).read_text(encoding="utf-8")
        assert (
            written
            == "# Watering succulents\n\nWater only when the soil is dry. 多肉植物见干见湿。\n"
        )
        hit = (await kb.search("多肉植物怎么浇水", 1))[0]
        assert hit.path == saved.path and hit.heading == ("Watering succulents",)
        again = await kb.create("plant care", "Watering succulents", "Second note.")
        assert again.path == "plant_care/watering-succulents-2.md"
        # An existing folder is reused whatever the case; a Chinese title keeps its characters.
        cn = await kb.create("COOKING", "蛋炒饭", "## 做法\n隔夜米饭先打散，鸡蛋炒散后下饭翻炒。")
        assert cn.path == "cooking/蛋炒饭.md"
        assert (await kb.search("蛋炒饭", 1))[0].heading == ("蛋炒饭", "做法")
        own = await kb.create("cooking", "ignored title", "# Own title\nbody")
        assert (root / own.path).read_text(encoding="utf-8") == "# Own title\nbody\n"


async def test_create_refuses_bad_input(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root, max_file_bytes=1000) as (kb, _):
        for topic in ("../outside", "/etc", ".git", "a/b", ""):
            with pytest.raises(BadFile):
                await kb.create(topic, "title", "content")
        with pytest.raises(BadFile, match="title is empty"):
            await kb.create("cooking", "  ", "content")
        with pytest.raises(BadFile, match="content is empty"):
            await kb.create("cooking", "t", " \n ")
        with pytest.raises(TooLarge, match="limit of 1000 bytes"):
            await kb.create("cooking", "big", "汉" * 400)
        assert not (tmp_path / "outside").exists()
        assert sorted([p.name async for p in anyio.Path(root).iterdir()]) == [
            "cooking",
            "first_aid",
            "smart_home",
        ]


async def test_concurrent_creates_get_distinct_files(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        results = []

        async def create(i: int) -> None:
            results.append(await kb.create("notes", "Same title", f"note number {i}"))

        async with anyio.create_task_group() as tg:
            for i in range(5):
                tg.start_soon(create, i)
        assert len({r.path for r in results}) == 5
        assert len(list((root / "notes").iterdir())) == 5
        topics = {t.name: t for t in await kb.topics()}
        assert topics["notes"].files == 5 and topics["notes"].chunks == 5


async def test_save_upload_overwrite_rules(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        first = await kb.save_upload("uploads", "guide.md", b"# Guide\nfirst version")
        assert not first.replaced and first.path == "uploads/guide.md"
        with pytest.raises(NameTaken, match="already exists"):
            await kb.save_upload("uploads", "guide.md", b"second")
        second = await kb.save_upload(
            "uploads", "guide.md", b"# Guide\nsecond version", overwrite=True
        )
        assert second.replaced
        assert (await kb.search("second version", 1))[0].text == "second version"
        rows = await kb.db.fetchall(
            "SELECT text FROM knowledge_chunks WHERE path = 'uploads/guide.md'"
        )
        assert [r[0] for r in rows] == ["second version"]


async def test_prompt_section_respects_the_budget(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root, prompt_k=3) as (kb, _):
        section = await kb.prompt_section("番茄炒蛋怎么做", 400)
        assert section.startswith("[cooking › Home Cooking Reference › 番茄炒蛋")
        assert "倒回鸡蛋翻匀" in section
        assert estimate_tokens(section) <= 400
        for budget in (20, 40, 80):
            small = await kb.prompt_section(
                "how often should I test smoke alarms and CO alarms", budget
            )
            assert small and estimate_tokens(small) <= budget
        cut = await kb.prompt_section("how often should I test smoke alarms", 40)
        assert cut.endswith("…") and "Smoke and CO detectors" in cut
        assert await kb.prompt_section("番茄炒蛋", 0) == ""


async def test_tools_through_the_registry(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root) as (kb, _):
        registry = ToolRegistry()
        for spec in knowledge_tools(kb):
            registry.register(spec)
        assert registry.get("knowledge_create").permission is Permission.WRITE  # type: ignore[union-attr]
        assert registry.get("knowledge_search").permission is Permission.READ  # type: ignore[union-attr]
        ctx = ToolContext(turn_id="t1", channel="test")

        async def call(name: str, args: dict) -> tuple[bool, dict | str]:
            result = await registry.execute(
                ToolCall("c1", name, json.dumps(args, ensure_ascii=False)), ctx
            )
            return result.ok, (json.loads(result.content) if result.ok else result.content)

        ok, found = await call("knowledge_search", {"query": "Zigbee channel", "k": 2})
        assert ok and found["results"][0]["topic"] == "smart_home"  # type: ignore[index]
        assert "Zigbee" in found["results"][0]["heading"]  # type: ignore[index]
        ok, found = await call(
            "knowledge_search", {"query": "番茄炒蛋怎么做", "topic": "smart_home"}
        )
        assert ok and found == {"results": [], "note": found["note"]}  # type: ignore[index]
        ok, listed = await call("knowledge_list", {})
        assert ok and {t["name"] for t in listed["topics"]} == {
            "cooking",
            "smart_home",
            "first_aid",
        }  # type: ignore[index]
        ok, saved = await call(
            "knowledge_create",
            {"topic": "园艺", "title": "月季施肥", "content": "春季萌芽前施一次有机肥。"},
        )
        assert ok and saved == {"saved": "园艺/月季施肥.md", "topic": "园艺", "chunks": 1}
        ok, found = await call("knowledge_search", {"query": "月季怎么施肥"})
        assert ok and found["results"][0]["file"] == "园艺/月季施肥.md"  # type: ignore[index]
        ok, error = await call(
            "knowledge_create", {"topic": "../../etc", "title": "x", "content": "y"}
        )
        assert not ok and "must be a plain name" in error  # type: ignore[operator]
        ok, error = await call("knowledge_search", {"query": "x", "k": 99})
        assert not ok and "k" in error  # type: ignore[operator]


async def test_changes_made_while_stopped_are_found_at_open(tmp_path: Path, root: Path) -> None:
    async with open_kb(tmp_path, root):
        pass
    (root / "first_aid" / "content.md").unlink()
    recipe = root / "cooking" / "content.md"
    recipe.write_text(
        recipe.read_text(encoding="utf-8") + "\n## 凉拌黄瓜\n黄瓜拍碎，加蒜末、醋、香油拌匀。\n",
        encoding="utf-8",
    )
    async with open_kb(tmp_path, root) as (kb, report):
        assert report.removed == ("first_aid/content.md",)
        assert report.indexed == ("cooking/content.md",) and report.chunks_added == 1
        assert (await kb.search("凉拌黄瓜怎么做", 1))[0].heading[-1] == "凉拌黄瓜"
        assert (
            len(kb.index) == (await kb.db.fetchall("SELECT COUNT(*) FROM knowledge_chunks"))[0][0]
        )


async def test_missing_dir_is_created_and_a_file_is_refused(tmp_path: Path) -> None:
    async with open_kb(tmp_path, tmp_path / "new" / "knowledge") as (kb, report):
        assert report == SyncReport() and await kb.topics() == []
        saved = await kb.create("notes", "First", "first note")
        assert (tmp_path / "new" / "knowledge" / saved.path).is_file()
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("x", encoding="utf-8")
    with pytest.raises(StartupError, match="not a directory"):
        async with open_kb(tmp_path, not_a_dir):
            pass
