"""The model manager against a local aiohttp file server: progress, resume via Range,
free-space check, sha256 verification, atomic install, no partial file on failure, and
the `homeagent models` commands as a subprocess. Never the internet."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from aiohttp import web

from homeagent.errors import ModelError
from homeagent.llm.catalog import CATALOG, ModelInfo, load_catalog
from homeagent.llm.manager import ModelManager, Progress
from tests.conftest import write_config

pytestmark = pytest.mark.anyio
BLOB = b"GGUF" + os.urandom(3 * 1024 * 1024 + 123)
SHA = hashlib.sha256(BLOB).hexdigest()


class FileServer:
    """Serves BLOB in several manners; records the Range headers it was asked for."""

    def __init__(self, blob: bytes = BLOB, publish_sha: str = ""):
        self.blob = blob
        self.publish_sha = publish_sha
        self.ranges: list[str] = []
        self.cut_after: int | None = None  # bytes sent before the connection is dropped (once)
        self.url = ""

    async def serve(self, request: web.Request) -> web.StreamResponse:
        rng = request.headers.get("Range", "")
        self.ranges.append(rng)
        headers = {"X-Linked-Etag": f'"{self.publish_sha}"'} if self.publish_sha else {}
        start = int(rng.removeprefix("bytes=").split("-")[0]) if rng else 0
        body = self.blob[start:]
        if start >= len(self.blob) and rng:
            return web.Response(status=416, headers={"Content-Range": f"bytes */{len(self.blob)}"})
        status = 206 if rng else 200
        if rng:
            headers["Content-Range"] = f"bytes {start}-{len(self.blob) - 1}/{len(self.blob)}"
        resp = web.StreamResponse(status=status, headers=headers)
        resp.content_length = len(body)
        await resp.prepare(request)
        if self.cut_after is not None:
            cut, self.cut_after = self.cut_after, None
            await resp.write(body[:cut])
            await anyio.sleep(0.05)
            request.transport.close()  # type: ignore[union-attr]
            return resp
        for i in range(0, len(body), 256 * 1024):
            await resp.write(body[i:i + 256 * 1024])
        await resp.write_eof()
        return resp

    async def huge(self, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Length": str(10**16)})
        await resp.prepare(request)
        request.transport.close()  # type: ignore[union-attr]
        return resp

    async def __aenter__(self) -> FileServer:
        app = web.Application()
        app.router.add_get("/repo/resolve/main/model.gguf", self.serve)
        app.router.add_get("/huge.gguf", self.huge)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._runner.cleanup()


def entry(url: str, sha: str = "", **kw) -> ModelInfo:
    return ModelInfo(id="tiny-test", name="Tiny", description="测试模型", url=url, size="~3MB", parameters="1M",
                     type=kw.pop("type", "chat"), quantization="Q4_0", sha256=sha, size_bytes=len(BLOB), **kw)


def manager(tmp_path: Path, info: ModelInfo, **kw) -> ModelManager:
    return ModelManager(tmp_path / "models", (CATALOG[0], info), **kw)


def leftovers(tmp_path: Path) -> list[str]:
    d = tmp_path / "models"
    return sorted(p.name for p in d.iterdir()) if d.exists() else []


async def test_pull_verifies_installs_atomically_and_reports_progress(tmp_path: Path):
    progress = io.StringIO()
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf", SHA), progress=Progress(progress))
        path = await m.pull("tiny-test")
    assert path.read_bytes() == BLOB and leftovers(tmp_path) == ["manifest.json", "model.gguf"]
    lines = progress.getvalue().splitlines()
    assert lines[-1].startswith("tiny-test [") and "100.0%" in lines[-1] and len(lines) >= 2
    states = {s.info.id: s for s in m.states()}
    assert states["tiny-test"].installed and states["tiny-test"].sha256 == SHA
    assert await m.verify("tiny-test") == SHA


async def test_sha_published_by_the_server_is_checked_when_the_catalog_has_none(tmp_path: Path):
    async with FileServer(publish_sha="0" * 64) as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf"))
        with pytest.raises(ModelError, match="sha256 mismatch"):
            await m.pull("tiny-test")
    assert leftovers(tmp_path) == []  # no partial file, no .part


async def test_wrong_catalog_sha_removes_the_download(tmp_path: Path):
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf", "f" * 64))
        with pytest.raises(ModelError) as info:
            await m.pull("tiny-test")
    assert "verification failed" in str(info.value) and "pull tiny-test" in str(info.value)
    assert leftovers(tmp_path) == []


async def test_not_a_gguf_file_is_refused(tmp_path: Path):
    async with FileServer(blob=b"<html>not a model</html>" * 100) as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf"))
        with pytest.raises(ModelError, match="not a GGUF"):
            await m.pull("tiny-test")
    assert leftovers(tmp_path) == []


async def test_interrupted_download_resumes_with_a_range_request(tmp_path: Path):
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf", SHA))
        srv.cut_after = 1024 * 1024
        with pytest.raises(ModelError, match="interrupted after 1 MiB.*again to resume"):
            await m.pull("tiny-test")
        assert leftovers(tmp_path) == ["model.gguf.part"]
        path = await m.pull("tiny-test")
    assert srv.ranges == ["", "bytes=1048576-"]
    assert path.read_bytes() == BLOB and leftovers(tmp_path) == ["manifest.json", "model.gguf"]


async def test_free_space_is_checked_before_anything_is_written(tmp_path: Path):
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/huge.gguf"))
        with pytest.raises(ModelError, match="not enough free space"):
            await m.pull("tiny-test")
    assert leftovers(tmp_path) == []


async def test_missing_file_and_unreachable_server_are_clear_errors(tmp_path: Path):
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/nope.gguf"))
        with pytest.raises(ModelError, match="HTTP 404 .*not found"):
            await m.pull("tiny-test")
    m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf"))
    with pytest.raises(ModelError, match="interrupted|ClientConnector"):
        await m.pull("tiny-test")
    assert leftovers(tmp_path) == []


async def test_mirror_replaces_the_hugging_face_address(tmp_path: Path):
    async with FileServer() as srv:
        info = entry("https://huggingface.co/repo/resolve/main/model.gguf", SHA)
        m = manager(tmp_path, info, mirror=srv.url)
        assert m.url_of(info) == srv.url + "/repo/resolve/main/model.gguf"
        await m.pull("tiny-test")


async def test_use_and_rm_and_their_guards(tmp_path: Path):
    async with FileServer() as srv:
        m = manager(tmp_path, entry(srv.url + "/repo/resolve/main/model.gguf", SHA))
        with pytest.raises(ModelError, match="not installed"):
            m.use("tiny-test")
        await m.pull("tiny-test")
    m.use("tiny-test")
    assert m.active_chat_path() == ("tiny-test", tmp_path / "models" / "model.gguf")
    (tmp_path / "models" / "model.gguf").write_bytes(b"GGUF" + b"\0" * 100)  # damage it
    with pytest.raises(ModelError, match="damaged"):
        await m.verify("tiny-test")
    assert [p.name for p in m.rm("tiny-test")] == ["model.gguf"]
    assert m.active_chat_path() is None  # back to the bundled model
    with pytest.raises(ModelError, match="bundled"):
        m.rm(CATALOG[0].id)
    emb = manager(tmp_path, entry("http://x/e.gguf", type="embedding"))
    with pytest.raises(ModelError, match="embedding"):
        emb.use("tiny-test")


async def test_models_commands_as_a_subprocess(tmp_path: Path):
    async with FileServer() as srv:
        catalog = tmp_path / "catalog.json"
        catalog.write_text(json.dumps([{"id": "tiny-test", "name": "Tiny", "type": "chat",
                                        "url": srv.url + "/repo/resolve/main/model.gguf", "sha256": SHA}]))
        config = write_config(tmp_path, llm={"model_catalog": str(catalog)})

        async def cli(*args: str):
            return await anyio.run_process(
                [sys.executable, "-m", "homeagent.cli.models", "models", *args, "--config", str(config)], check=False)

        with anyio.fail_after(120):
            pulled = await cli("pull", "tiny-test")
            assert pulled.returncode == 0, pulled.stderr.decode()
            assert pulled.stdout.decode().strip().endswith("model.gguf") and b"100.0%" in pulled.stderr
            listed = json.loads((await cli("list", "--json")).stdout)
            tiny = next(m for m in listed if m["id"] == "tiny-test")
            assert tiny["installed"] and tiny["verified_sha256"] == SHA
            assert {m["id"] for m in listed} >= {"qwen2.5-0.5b", "bge-small-zh", "smollm2-135m-instruct"}
            verified = await cli("verify", "tiny-test")
            assert verified.returncode == 0 and SHA in verified.stdout.decode()
            used = await cli("use", "tiny-test")
            assert used.returncode == 0 and "next start" in used.stdout.decode()
            table = (await cli("list")).stdout.decode()
            assert "* tiny-test" in table
            unknown = await cli("pull", "no-such-model")
            assert unknown.returncode == 1 and b"unknown model" in unknown.stderr and b"Traceback" not in unknown.stderr
            removed = await cli("rm", "tiny-test")
            assert removed.returncode == 0 and "removed" in removed.stdout.decode()


def test_catalog_file_entries_reach_the_manager(tmp_path: Path):
    extra = tmp_path / "c.yaml"
    extra.write_text("- {id: x, url: 'http://127.0.0.1:1/x.gguf'}\n")
    assert load_catalog(extra)[-1].id == "x"


@pytest.mark.llama
async def test_a_pulled_model_is_loaded_and_switching_unloads_the_previous(tmp_path: Path, make_config):
    from homeagent.llm.factory import build_provider
    from homeagent.llm.llama_cpp import LlamaCppProvider
    from homeagent.llm.models import bundled_model_path
    from homeagent.llm.router import Route, Router

    bundled = bundled_model_path()
    if bundled is None:
        pytest.skip("the bundled model is not installed")
    blob = bundled.read_bytes()
    async with FileServer(blob=blob, publish_sha=hashlib.sha256(blob).hexdigest()) as srv:
        catalog = tmp_path / "catalog.yaml"
        catalog.write_text(f"- {{id: smol-copy, url: '{srv.url}/repo/resolve/main/model.gguf', type: chat}}\n")
        config = make_config(llm={"model_catalog": str(catalog), "max_tokens": 8, "n_ctx": 1024})
        m = ModelManager(config.data_dir / "models", load_catalog(catalog))
        await m.pull("smol-copy")
    m.use("smol-copy")
    engine = build_provider(config).inner  # the engine inside its tool dialect
    assert isinstance(engine, LlamaCppProvider) and engine.model == "smol-copy"
    assert engine.model_path == config.data_dir / "models" / "model.gguf"

    first = LlamaCppProvider(model_path=bundled, model="smollm2-135m-instruct", n_ctx=1024, max_tokens=8)
    router = Router([Route("local", first, type="llama_cpp")])
    await router.start()
    assert first.status().state == "ready"

    def build(info: ModelInfo, path: Path) -> LlamaCppProvider:
        return LlamaCppProvider(model_path=path, model=info.id, n_ctx=1024, max_tokens=8)

    with anyio.fail_after(120):
        await m.activate("smol-copy", router, "local", build)
    assert first._llm is None and first.status().state == "loading"  # the previous one is unloaded
    assert router.model == "smol-copy" and router.routes[0].provider.status().state == "ready"
    await router.aclose()
