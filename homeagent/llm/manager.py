"""The model manager: download, verify, choose and remove local GGUF models.

Files live in `<data_dir>/models/`, with `manifest.json` recording each installed
model's file, size and verified sha256, and which chat model the local engine loads
(`active_chat`; none means the bundled SmolLM2).

A download (`pull`) checks the free space first, streams into `<file>.part` with a
progress bar on stderr, resumes an interrupted `.part` with an HTTP Range request,
verifies the sha256 (the catalog's, else the one the server publishes in
`X-Linked-Etag`, as Hugging Face does) and the GGUF magic, and only then renames the
file into place, atomically. A failed verification deletes the `.part`, so no partial or
corrupt file is ever left where the engine would load it; an interrupted transfer keeps
its `.part` so the next `pull` resumes it.

One chat model is loaded at a time: `activate` swaps the local engine of a running
router (the old model is closed before the new one loads). Embedding models are not
chat engines and may stay resident beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import anyio

from homeagent.errors import ModelError
from homeagent.llm.catalog import HF, ModelInfo, find
from homeagent.log import get_logger

if TYPE_CHECKING:
    import aiohttp

log = get_logger("homeagent.llm.manager")

MANIFEST = "manifest.json"
FREE_SPACE_MARGIN = 64 * 1024 * 1024
CHUNK = 1024 * 1024
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class ModelState:
    info: ModelInfo
    installed: bool
    path: Path | None
    sha256: str = ""
    active: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.info.as_dict(),
            "installed": self.installed,
            "path": str(self.path) if self.path else "",
            "verified_sha256": self.sha256,
            "active": self.active,
        }


class Progress:
    """A download progress bar on a text stream (stderr): redrawn in place on a terminal,
    one line every 10 % otherwise (journald, CI logs)."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 0.2):
        self._stream = stream or sys.stderr
        self._tty = self._stream.isatty()
        self._interval = interval
        self._last = 0.0
        self._last_decile = -1
        self._started = time.monotonic()

    def update(self, label: str, done: int, total: int) -> None:
        now = time.monotonic()
        fraction = done / total if total else 0.0
        decile = int(fraction * 10)
        if self._tty and now - self._last < self._interval and done < total:
            return
        if not self._tty and decile == self._last_decile and done < total:
            return
        self._last, self._last_decile = now, decile
        rate = done / max(now - self._started, 1e-6) / (1024 * 1024)
        bar = "#" * int(fraction * 30)
        line = (
            f"{label} [{bar:<30}] {fraction * 100:5.1f}% "
            f"{done / 1048576:.1f}/{total / 1048576:.1f} MiB {rate:.1f} MiB/s"
        )
        self._stream.write(("\r" + line) if self._tty else line + "\n")
        self._stream.flush()

    def close(self) -> None:
        if self._tty:
            self._stream.write("\n")
            self._stream.flush()


def _mib(n: float) -> str:
    return f"{n / 1048576:.0f} MiB"


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_gguf(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(4) == b"GGUF"


class ModelManager:
    def __init__(
        self,
        models_dir: Path,
        catalog: tuple[ModelInfo, ...],
        *,
        mirror: str = "",
        progress: Progress | None = None,
        connect_timeout: float = 15.0,
        read_timeout: float = 60.0,
    ):
        self.dir = Path(models_dir)
        self.catalog = catalog
        self._mirror = mirror.rstrip("/")
        self._progress = progress
        self._timeouts = (connect_timeout, read_timeout)

    # -- manifest -----------------------------------------------------------------------

    def _manifest(self) -> dict[str, Any]:
        try:
            data = json.loads((self.dir / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"files": {}, "active_chat": ""}
        except (OSError, ValueError) as err:
            raise ModelError(
                f"{self.dir / MANIFEST} is unreadable ({err}); move it away and run "
                "`homeagent models verify ID` for each model to rebuild it"
            ) from err
        data.setdefault("files", {})
        data.setdefault("active_chat", "")
        return data

    def _save_manifest(self, data: dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        os.replace(tmp, self.dir / MANIFEST)

    # -- queries ------------------------------------------------------------------------

    def path_of(self, info: ModelInfo) -> Path:
        return self.dir / info.filename

    def url_of(self, info: ModelInfo) -> str:
        if self._mirror and info.url.startswith(HF + "/"):
            return self._mirror + info.url[len(HF):]
        return info.url

    def states(self) -> list[ModelState]:
        manifest = self._manifest()
        active = manifest["active_chat"]
        out = []
        for info in self.catalog:
            if info.bundled:
                from homeagent.llm.models import bundled_model_path

                path = bundled_model_path()
                out.append(ModelState(info, path is not None, path, active=not active))
                continue
            path = self.path_of(info)
            entry = manifest["files"].get(info.id, {})
            installed = path.is_file()
            out.append(
                ModelState(info, installed, path if installed else None, entry.get("sha256", ""), info.id == active)
            )
        return out

    def active_chat_path(self) -> tuple[str, Path] | None:
        """The chosen chat model (id, file), or None for the bundled one."""
        try:
            active = self._manifest()["active_chat"]
        except ModelError:
            return None
        if not active:
            return None
        info = next((m for m in self.catalog if m.id == active), None)
        if info is None or not self.path_of(info).is_file():
            return None
        return info.id, self.path_of(info)

    # -- pull ---------------------------------------------------------------------------

    async def pull(self, model_id: str) -> Path:
        info = find(self.catalog, model_id)
        if info.bundled:
            raise ModelError(f"{model_id} is the bundled model: it is always installed")
        dest = self.path_of(info)
        if dest.is_file() and self._manifest()["files"].get(info.id, {}).get("sha256"):
            return dest
        self.dir.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        url = self.url_of(info)
        import aiohttp  # here: `homeagent serve` asks for the active model before its HTTP client is imported

        connect, read = self._timeouts
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=connect, sock_read=read)
        async with aiohttp.ClientSession(timeout=timeout, trust_env=True) as session:
            sha, total = await self._download(session, info, url, part)
        await anyio.to_thread.run_sync(self._finish, info, part, dest, sha, total)
        log.info("llm.model.pulled", model=info.id, path=str(dest), size=total)
        return dest

    async def _download(
        self, session: aiohttp.ClientSession, info: ModelInfo, url: str, part: Path
    ) -> tuple[str, int]:
        import aiohttp

        offset = _size(part)
        headers = {"Range": f"bytes={offset}-"} if offset else {}
        try:
            async with session.get(url, headers=headers) as resp:
                if resp.status == 416 and offset:
                    # The .part may already be complete; let verification decide.
                    total = _total_from_range(resp.headers.get("Content-Range", "")) or offset
                    return self._expected_sha(info, resp), total
                if resp.status not in (200, 206):
                    raise ModelError(
                        f"downloading {info.id} from {url} failed: HTTP {resp.status}"
                        + (" (not found; check the URL or llm.model_mirror)" if resp.status == 404 else "")
                    )
                if resp.status == 200 and offset:
                    offset = 0  # the server ignored the Range: start over
                length = int(resp.headers.get("Content-Length", "0") or 0)
                total = _total_from_range(resp.headers.get("Content-Range", "")) or (offset + length)
                self._check_space(info, (total - offset) if total else info.size_bytes)
                expected = self._expected_sha(info, resp)
                await self._stream_to(resp, part, offset, total, info.id)
                return expected, total or _size(part)
        except (aiohttp.ClientError, TimeoutError) as err:
            have = _size(part)
            raise ModelError(
                f"downloading {info.id} was interrupted after {_mib(have)} ({type(err).__name__}); "
                f"run `homeagent models pull {info.id}` again to resume"
            ) from err

    def _expected_sha(self, info: ModelInfo, resp: aiohttp.ClientResponse) -> str:
        if info.sha256:
            return info.sha256
        for header in ("X-Linked-Etag", "ETag"):
            value = resp.headers.get(header, "").strip().strip('"').removeprefix("W/").strip('"').lower()
            if _SHA_RE.match(value):
                return value
        return ""

    def _check_space(self, info: ModelInfo, needed: int) -> None:
        free = shutil.disk_usage(self.dir).free
        if needed and free < needed + FREE_SPACE_MARGIN:
            raise ModelError(
                f"not enough free space for {info.id}: it needs {_mib(needed)} and {self.dir} has "
                f"{_mib(free)} free; free some space or remove a model (`homeagent models rm ID`)"
            )

    async def _stream_to(
        self, resp: aiohttp.ClientResponse, part: Path, offset: int, total: int, label: str
    ) -> None:
        import aiohttp

        done = offset
        progress = self._progress
        async with await anyio.open_file(part, "ab" if offset else "wb") as fh:
            async for chunk in resp.content.iter_chunked(CHUNK):
                await fh.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress.update(label, done, total or done)
            await fh.flush()
            await anyio.to_thread.run_sync(os.fsync, fh.wrapped.fileno())
        if progress is not None:
            progress.close()
        if total and done < total:
            raise aiohttp.ClientPayloadError(f"the transfer ended at {done} of {total} bytes")

    def _finish(self, info: ModelInfo, part: Path, dest: Path, expected: str, total: int) -> None:
        """Verify the finished `.part` and move it into place; a bad one is deleted."""
        size = part.stat().st_size
        problem = ""
        if total and size != total:
            problem = f"the file has {size} bytes, the server announced {total}"
        elif not _is_gguf(part):
            problem = "the file is not a GGUF model"
        sha = "" if problem else _sha256_file(part)
        if not problem and expected and sha != expected:
            problem = f"sha256 mismatch: expected {expected}, got {sha}"
        if problem:
            part.unlink(missing_ok=True)
            raise ModelError(
                f"{info.id}: verification failed ({problem}); the download was removed, "
                f"run `homeagent models pull {info.id}` to try again"
            )
        os.replace(part, dest)
        manifest = self._manifest()
        manifest["files"][info.id] = {
            "file": dest.name,
            "size": size,
            "sha256": sha,
            "sha256_source": "catalog" if info.sha256 else ("server" if expected else "computed"),
            "verified_at": time.time(),
        }
        self._save_manifest(manifest)

    # -- verify / use / rm --------------------------------------------------------------

    async def verify(self, model_id: str) -> str:
        info = find(self.catalog, model_id)
        if info.bundled:
            from homeagent.llm.models import resolve_model_path

            path = resolve_model_path("")
        else:
            path = self.path_of(info)
            if not path.is_file():
                raise ModelError(f"{model_id} is not installed; run `homeagent models pull {model_id}`")
        return await anyio.to_thread.run_sync(self._verify_sync, info, path)

    def _verify_sync(self, info: ModelInfo, path: Path) -> str:
        if not _is_gguf(path):
            raise ModelError(f"{path} is not a GGUF model; remove it with `homeagent models rm {info.id}`")
        sha = _sha256_file(path)
        if info.bundled:
            return sha
        manifest = self._manifest()
        entry = manifest["files"].get(info.id, {})
        expected = info.sha256 or entry.get("sha256", "")
        if expected and sha != expected:
            raise ModelError(
                f"{info.id}: sha256 mismatch (expected {expected}, file has {sha}); the file is "
                f"damaged: run `homeagent models rm {info.id}` and pull it again"
            )
        manifest["files"][info.id] = {
            **entry, "file": path.name, "size": path.stat().st_size, "sha256": sha, "verified_at": time.time()
        }
        self._save_manifest(manifest)
        return sha

    def use(self, model_id: str) -> ModelInfo:
        """Choose the chat model the local engine loads (from the next start, or `activate`)."""
        info = find(self.catalog, model_id)
        if info.type != "chat":
            raise ModelError(f"{model_id} is an embedding model; only a chat model can answer")
        if not info.bundled and not self.path_of(info).is_file():
            raise ModelError(f"{model_id} is not installed; run `homeagent models pull {model_id}` first")
        manifest = self._manifest()
        manifest["active_chat"] = "" if info.bundled else info.id
        self._save_manifest(manifest)
        return info

    def rm(self, model_id: str) -> list[Path]:
        info = find(self.catalog, model_id)
        if info.bundled:
            raise ModelError(f"{model_id} is the bundled model and cannot be removed")
        dest = self.path_of(info)
        removed = [p for p in (dest, dest.with_name(dest.name + ".part")) if p.exists()]
        for path in removed:
            path.unlink()
        manifest = self._manifest()
        manifest["files"].pop(info.id, None)
        if manifest["active_chat"] == info.id:
            manifest["active_chat"] = ""
        self._save_manifest(manifest)
        return removed

    async def activate(self, model_id: str, router: Any, route: str, build: Callable[[ModelInfo, Path], Any]) -> None:
        """`use` + swap the running local engine: the old model is closed, then the new loads."""
        info = self.use(model_id)
        path = self.path_of(info) if not info.bundled else None
        from homeagent.llm.models import resolve_model_path

        await router.switch(route, build(info, path or resolve_model_path("")))


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _total_from_range(value: str) -> int:
    match = re.match(r"bytes (?:\d+-\d+|\*)/(\d+)", value.strip())
    return int(match.group(1)) if match else 0
