"""The knowledge routes on a real aiohttp server on a free loopback port."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from homeagent.api.knowledge import add_routes
from homeagent.api.middleware import error_middleware
from homeagent.knowledge import MIGRATIONS as KNOWLEDGE_MIGRATIONS
from homeagent.knowledge import KnowledgeBase
from homeagent.memory.schema import MIGRATIONS as MEMORY_MIGRATIONS
from homeagent.store import MIGRATIONS as STORE_MIGRATIONS
from homeagent.store import Database

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
MIGRATIONS = (*STORE_MIGRATIONS, *MEMORY_MIGRATIONS, *KNOWLEDGE_MIGRATIONS)
LIMIT = 2048


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "knowledge", tmp_path / "knowledge")
    return tmp_path / "knowledge"


@asynccontextmanager
async def serving(
    tmp_path: Path, root: Path
) -> AsyncIterator[tuple[str, aiohttp.ClientSession, KnowledgeBase]]:
    async with Database(tmp_path / "home.db", MIGRATIONS) as db:
        kb = KnowledgeBase(root, db)
        await kb.open()
        web_app = web.Application(middlewares=[error_middleware])
        add_routes(web_app, kb, max_upload_bytes=LIMIT)
        async with (
            TestServer(web_app, host="127.0.0.1") as server,
            aiohttp.ClientSession() as session,
        ):
            yield f"http://127.0.0.1:{server.port}", session, kb


def form(
    content: bytes | None = "# 笔记\nhello".encode(),
    filename: str | None = "notes.md",
    topic: str | None = "uploads",
    **fields: str,
) -> aiohttp.FormData:
    data = aiohttp.FormData(default_to_multipart=True)
    if topic is not None:
        data.add_field("topic", topic)
    for name, value in fields.items():
        data.add_field(name, value)
    if content is not None:
        data.add_field("file", content, filename=filename, content_type="application/octet-stream")
    return data


async def post(session: aiohttp.ClientSession, url: str, **kwargs: Any) -> tuple[int, dict]:
    async with session.post(url + "/api/knowledge", **kwargs) as resp:
        return resp.status, await resp.json()


def snapshot(root: Path) -> set[str]:
    return {
        p.relative_to(root.parent).as_posix()
        for p in root.parent.rglob("*")
        if "home.db" not in p.name
    }


async def test_list_search_and_upload_round_trip(tmp_path: Path, root: Path) -> None:
    async with serving(tmp_path, root) as (url, session, kb):
        async with session.get(url + "/api/knowledge") as resp:
            listed = await resp.json()
        assert resp.status == 200
        assert {t["name"] for t in listed["topics"]} == {"cooking", "smart_home", "first_aid"}

        content = "# 阳台种菜\n\n小番茄每天至少需要 6 小时直射阳光。Cherry tomatoes need 6 hours of sun.\n"
        status, body = await post(
            session, url, data=form(content.encode(), filename="阳台 种菜.md", topic="Garden")
        )
        assert status == 201
        assert body == {
            "topic": "garden",
            "path": "garden/阳台_种菜.md",
            "chunks": 1,
            "bytes": len(content.encode()),
            "replaced": False,
        }
        assert (root / "garden" / "阳台_种菜.md").read_text(encoding="utf-8") == content

        async with session.get(
            url + "/api/knowledge/search", params={"q": "小番茄需要多少阳光"}
        ) as resp:
            found = await resp.json()
        assert resp.status == 200 and found["results"][0]["file"] == "garden/阳台_种菜.md"
        assert found["results"][0]["heading"] == ["阳台种菜"]

        status, body = await post(
            session,
            url,
            json={
                "topic": "cooking",
                "filename": "tea.txt",
                "content": "Green tea: 80 °C water, 2 minutes. 绿茶用 80 度水。",
            },
        )
        assert status == 201 and body["path"] == "cooking/tea.txt"
        hits = await kb.search("绿茶水温", 1)
        assert hits[0].path == "cooking/tea.txt"

        async with session.get(url + "/api/knowledge") as resp:
            topics = {t["name"]: t for t in (await resp.json())["topics"]}
        assert topics["garden"] == {"name": "garden", "files": 1, "chunks": 1}
        assert topics["cooking"]["files"] == 2


async def test_existing_name_needs_overwrite(tmp_path: Path, root: Path) -> None:
    async with serving(tmp_path, root) as (url, session, kb):
        assert (await post(session, url, data=form(b"first")))[0] == 201
        status, body = await post(session, url, data=form(b"second"))
        assert status == 409 and body["error"]["code"] == "conflict"
        assert "already exists" in body["error"]["message"]
        assert (root / "uploads" / "notes.md").read_text() == "first"
        status, body = await post(session, url, data=form(b"second", overwrite="true"))
        assert status == 200 and body["replaced"] is True
        assert (root / "uploads" / "notes.md").read_text() == "second"
        status, body = await post(
            session,
            url,
            json={
                "topic": "uploads",
                "filename": "notes.md",
                "content": "third",
                "overwrite": True,
            },
        )
        assert status == 200 and body["replaced"] is True
        rows = await kb.db.fetchall(
            "SELECT text FROM knowledge_chunks WHERE path = 'uploads/notes.md'"
        )
        assert [r[0] for r in rows] == ["third"]


MULTIPART_REJECTIONS = [
    # (case, form kwargs, status, param, message fragment)
    ("parent dirs", {"filename": "../../etc/passwd.md"}, 400, "filename", "plain name"),
    ("absolute", {"filename": "/etc/hosts.md"}, 400, "filename", "plain name"),
    ("windows path", {"filename": "C:\\Users\\x.md"}, 400, "filename", "plain name"),
    ("hidden", {"filename": ".bashrc.md"}, 400, "filename", "must not start with '.'"),
    ("dot dot", {"filename": "..md"}, 400, "filename", "must not start with '.'"),
    ("image", {"filename": "photo.png"}, 415, "filename", "only text files"),
    ("double suffix", {"filename": "notes.md.exe"}, 415, "filename", "only text files"),
    ("binary content", {"content": b"\x89PNG\r\n\x1a\n\x00\x00"}, 415, "file", "binary"),
    ("not utf-8", {"content": "番茄炒蛋".encode("gbk")}, 415, "file", "not UTF-8"),
    ("too large", {"content": b"x" * (LIMIT + 1)}, 413, "file", f"limit of {LIMIT} bytes"),
    ("empty", {"content": b"  \n"}, 400, "file", "empty"),
    ("topic traversal", {"topic": "../outside"}, 400, "topic", "plain name"),
    ("hidden topic", {"topic": ".git"}, 400, "topic", "must not start with '.'"),
    ("no topic", {"topic": None}, 400, "topic", "no 'topic' field"),
    ("no file", {"content": None}, 400, "file", "no 'file' part"),
]


@pytest.mark.parametrize(
    ("case", "kwargs", "status", "param", "fragment"),
    MULTIPART_REJECTIONS,
    ids=[r[0] for r in MULTIPART_REJECTIONS],
)
async def test_multipart_rejections(
    tmp_path: Path, root: Path, case: str, kwargs: dict, status: int, param: str, fragment: str
) -> None:
    async with serving(tmp_path, root) as (url, session, _):
        before = snapshot(root)
        got, body = await post(session, url, data=form(**kwargs))
        assert got == status, body
        assert set(body) == {"error"} and set(body["error"]) == {"message", "type", "param", "code"}
        assert body["error"]["param"] == param
        assert fragment in body["error"]["message"]
        assert snapshot(root) == before  # nothing written anywhere


JSON_REJECTIONS = [
    (
        "nul in name",
        {"topic": "t", "filename": "a\x00b.md", "content": "x"},
        400,
        "filename",
        "control characters",
    ),
    (
        "traversal",
        {"topic": "t", "filename": "../x.md", "content": "x"},
        400,
        "filename",
        "plain name",
    ),
    ("missing content", {"topic": "t", "filename": "a.md"}, 400, "content", "content is required"),
    (
        "wrong type",
        {"topic": "t", "filename": "a.md", "content": 5},
        400,
        "content",
        "must be a string",
    ),
    (
        "bad overwrite",
        {"topic": "t", "filename": "a.md", "content": "x", "overwrite": "maybe"},
        400,
        "overwrite",
        "true or false",
    ),
    (
        "too large",
        {"topic": "t", "filename": "a.md", "content": "汉" * LIMIT},
        413,
        "file",
        "limit",
    ),
    ("nul content", {"topic": "t", "filename": "a.md", "content": "a\x00b"}, 415, "file", "binary"),
]


@pytest.mark.parametrize(
    ("case", "payload", "status", "param", "fragment"),
    JSON_REJECTIONS,
    ids=[r[0] for r in JSON_REJECTIONS],
)
async def test_json_rejections(
    tmp_path: Path, root: Path, case: str, payload: dict, status: int, param: str, fragment: str
) -> None:
    async with serving(tmp_path, root) as (url, session, _):
        before = snapshot(root)
        got, body = await post(session, url, json=payload)
        assert got == status, body
        assert body["error"]["param"] == param and fragment in body["error"]["message"]
        assert snapshot(root) == before


async def test_malformed_bodies(tmp_path: Path, root: Path) -> None:
    async with serving(tmp_path, root) as (url, session, _):
        status, body = await post(
            session, url, data=b"hello", headers={"Content-Type": "text/plain"}
        )
        assert status == 415 and "multipart/form-data" in body["error"]["message"]
        status, body = await post(
            session, url, data=b"{not json", headers={"Content-Type": "application/json"}
        )
        assert status == 400 and "not valid JSON" in body["error"]["message"]
        status, body = await post(
            session, url, data=b"[1, 2]", headers={"Content-Type": "application/json"}
        )
        assert status == 400 and "JSON object" in body["error"]["message"]
        huge = json.dumps({"topic": "t", "filename": "a.md", "content": "x" * (7 * LIMIT)})
        status, body = await post(
            session, url, data=huge.encode(), headers={"Content-Type": "application/json"}
        )
        assert status == 413
        async with session.get(url + "/api/knowledge/search") as resp:
            assert resp.status == 400 and (await resp.json())["error"]["param"] == "q"
        async with session.get(
            url + "/api/knowledge/search", params={"q": "x", "k": "lots"}
        ) as resp:
            assert resp.status == 400 and (await resp.json())["error"]["param"] == "k"


def raw_multipart(
    disposition: str, content: bytes, topic: str = "uploads"
) -> tuple[bytes, dict[str, str]]:
    """A multipart body written by hand, the way browsers and curl send file names."""
    boundary = "----homeagent-test-boundary"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="topic"\r\n\r\n{topic}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; {disposition}\r\n'
            "Content-Type: text/markdown\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


@pytest.mark.parametrize(
    ("disposition", "status", "path"),
    [
        ('filename="阳台.md"', 201, "uploads/阳台.md"),
        ("filename*=UTF-8''%E9%98%B3%E5%8F%B0.md", 201, "uploads/阳台.md"),
        ('filename="../../x.md"', 400, None),
        ("filename*=UTF-8''..%2F..%2Fx.md", 400, None),
        ('filename="/tmp/x.md"', 400, None),
        ('filename=".x.md"', 400, None),
    ],
)
async def test_raw_multipart_file_names(
    tmp_path: Path, root: Path, disposition: str, status: int, path: str | None
) -> None:
    async with serving(tmp_path, root) as (url, session, _):
        before = snapshot(root)
        body, headers = raw_multipart(disposition, "# 阳台\n多肉放在朝南的阳台。".encode())
        got, reply = await post(session, url, data=body, headers=headers)
        assert got == status, reply
        if path is None:
            assert reply["error"]["param"] == "filename" and snapshot(root) == before
        else:
            assert reply["path"] == path and (root / path).is_file()
        assert not (tmp_path / "x.md").exists()
