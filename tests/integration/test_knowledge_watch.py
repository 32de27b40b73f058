"""The watcher: real file writes in a temp knowledge dir reach the index within seconds."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from homeagent.knowledge import MIGRATIONS as KNOWLEDGE_MIGRATIONS
from homeagent.knowledge import KnowledgeBase, KnowledgeWatcher, watching
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.store import MIGRATIONS as STORE_MIGRATIONS
from homeagent.store import Database

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
MIGRATIONS = (*STORE_MIGRATIONS, *MEMORY_MIGRATIONS, *KNOWLEDGE_MIGRATIONS)
WAIT = 30  # generous: the machine is shared; a healthy run takes about a second


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "knowledge", tmp_path / "knowledge")
    return tmp_path / "knowledge"


@asynccontextmanager
async def watched(
    tmp_path: Path, root: Path, **kwargs
) -> AsyncIterator[tuple[KnowledgeBase, KnowledgeWatcher]]:
    async with Database(tmp_path / "home.db", MIGRATIONS) as db:
        kb = KnowledgeBase(root, db)
        await kb.open()
        async with watching(kb, **kwargs) as watcher:
            yield kb, watcher


async def eventually(check: Callable[[], Awaitable[bool]]) -> None:
    with anyio.fail_after(WAIT):
        while not await check():  # noqa: ASYNC110 - polls the index, no event to wait on
            await anyio.sleep(0.05)


async def paths_for(kb: KnowledgeBase, query: str) -> set[str]:
    return {h.path for h in await kb.search(query, 5)}


async def test_added_changed_and_deleted_files_are_picked_up(tmp_path: Path, root: Path) -> None:
    async with watched(tmp_path, root, debounce=0.2) as (kb, _):
        note = root / "cooking" / "dumplings.md"
        note.write_text(
            "# 饺子\n水开下饺子，点三次凉水。Boil dumplings, add cold water three times.\n",
            encoding="utf-8",
        )

        async def added() -> bool:
            return "cooking/dumplings.md" in await paths_for(kb, "饺子怎么煮")

        await eventually(added)

        note.write_text("# 饺子\nSteam the dumplings for 12 minutes instead.\n", encoding="utf-8")

        async def changed() -> bool:
            hits = await kb.search("steam dumplings", 1)
            return bool(hits) and "12 minutes" in hits[0].text

        await eventually(changed)
        assert "cooking/dumplings.md" not in await paths_for(kb, "点三次凉水")

        note.unlink()

        async def deleted() -> bool:
            return "cooking/dumplings.md" not in await paths_for(kb, "steam dumplings 饺子")

        await eventually(deleted)
        rows = await kb.db.fetchall(
            "SELECT COUNT(*) FROM knowledge_chunks WHERE path = 'cooking/dumplings.md'"
        )
        assert rows[0][0] == 0


async def test_topic_folder_moved_in_and_removed(tmp_path: Path, root: Path) -> None:
    staging = tmp_path / "staging" / "garden"
    staging.mkdir(parents=True)
    (staging / "roses.md").write_text(
        "# Roses\nPrune roses in late winter. 玫瑰冬末修剪。\n", encoding="utf-8"
    )
    (staging / "lawn.txt").write_text(
        "Mow the lawn no shorter than 5 cm. 草坪不要剪得太短。\n", encoding="utf-8"
    )
    async with watched(tmp_path, root, debounce=0.2) as (kb, _):
        os.rename(staging, root / "garden")  # a folder appears with files already inside

        async def moved_in() -> bool:
            topics = {t.name: t for t in await kb.topics()}
            return "garden" in topics and topics["garden"].files == 2

        await eventually(moved_in)
        assert await paths_for(kb, "玫瑰修剪") == {"garden/roses.md"}

        shutil.rmtree(root / "garden")

        async def removed() -> bool:
            return not await paths_for(kb, "prune roses lawn")

        await eventually(removed)


async def test_save_burst_is_one_sync_and_editor_rename_works(tmp_path: Path, root: Path) -> None:
    async with watched(tmp_path, root, debounce=1.0, max_delay=10.0) as (kb, watcher):
        baseline = watcher.syncs
        target = root / "smart_home" / "notes.md"
        for i in range(20):
            target.write_text(
                f"# Notes\nrevision {i} of the hallway sensor notes\n", encoding="utf-8"
            )

        async def settled() -> bool:
            hits = await kb.search("hallway sensor notes", 1)
            return bool(hits) and "revision 19" in hits[0].text

        await eventually(settled)
        # Twenty writes in a burst, far fewer syncs (one on a quiet machine).
        assert watcher.syncs - baseline < 5

        # Editors save to a temp file and rename it over the original.
        tmp = root / "smart_home" / ".notes.md.swp"
        tmp.write_text("# Notes\nmotion sensor moved to the landing\n", encoding="utf-8")
        os.replace(tmp, target)

        async def renamed() -> bool:
            hits = await kb.search("motion sensor landing", 1)
            return bool(hits) and hits[0].text == "motion sensor moved to the landing"

        await eventually(renamed)
        rows = await kb.db.fetchall(
            "SELECT text FROM knowledge_chunks WHERE path = 'smart_home/notes.md'"
        )
        assert [r[0] for r in rows] == ["motion sensor moved to the landing"]
        assert not (root / "smart_home" / ".notes.md.swp").exists()


async def test_created_knowledge_is_not_indexed_twice(tmp_path: Path, root: Path) -> None:
    async with watched(tmp_path, root, debounce=0.2) as (kb, watcher):
        baseline = watcher.syncs
        saved = await kb.create(
            "cooking", "Boiled eggs", "Soft: 6 minutes. Hard: 10 minutes. 溏心蛋煮 6 分钟。"
        )
        await eventually(lambda: _gt(watcher, baseline))  # the watcher saw the write …
        rows = await kb.db.fetchall(
            "SELECT COUNT(*) FROM knowledge_chunks WHERE path = ?", (saved.path,)
        )
        assert rows[0][0] == saved.chunks == 1  # … and found nothing new to index
        assert (
            len(kb.index) == (await kb.db.fetchall("SELECT COUNT(*) FROM knowledge_chunks"))[0][0]
        )


async def _gt(watcher: KnowledgeWatcher, baseline: int) -> bool:
    return watcher.syncs > baseline


async def test_watcher_stops_its_threads(tmp_path: Path, root: Path) -> None:
    before = {t.ident for t in threading.enumerate()}
    async with watched(tmp_path, root):
        # The observer and its emitter (anyio's idle worker threads are not ours to stop).
        started = [
            t
            for t in threading.enumerate()
            if t.ident not in before and not t.name.startswith("AnyIO")
        ]
        assert started
    with anyio.fail_after(WAIT):
        while any(t.is_alive() for t in started):  # noqa: ASYNC110 - threads have no event
            await anyio.sleep(0.05)


async def test_watcher_as_a_task_in_a_task_group(tmp_path: Path, root: Path) -> None:
    async with Database(tmp_path / "home.db", MIGRATIONS) as db:
        kb = KnowledgeBase(root, db)
        await kb.open()
        watcher = KnowledgeWatcher(kb, debounce=0.2)
        async with anyio.create_task_group() as tg:
            await tg.start(watcher.run)
            (root / "first_aid" / "bee.md").write_text(
                "# Bee sting\nScrape the sting out sideways.\n", encoding="utf-8"
            )

            async def seen() -> bool:
                return "first_aid/bee.md" in await paths_for(kb, "bee sting")

            await eventually(seen)
            tg.cancel_scope.cancel()
