"""HTTP routes of the knowledge base.

    GET  /api/knowledge                 topics with file and chunk counts
    GET  /api/knowledge/search?q=&k=&topic=   best matching passages
    POST /api/knowledge                 upload one text file into a topic

An upload is either `multipart/form-data` with a `file` part (its filename is used) and a
`topic` field (optional `overwrite=true`), or JSON `{"topic", "filename", "content",
"overwrite"?}`. Only .md, .markdown and .txt files whose bytes are UTF-8 text are taken;
names that try to leave their folder are refused (400), oversized bodies get 413, other
types 415, an existing name without `overwrite` 409. Errors are raised as RequestError
subclasses, which the app's error middleware turns into OpenAI-shaped bodies.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError

from homeagent.api.bodies import int_param, parse_json, read_limited
from homeagent.errors import RequestError
from homeagent.knowledge.base import KnowledgeBase, SavedFile
from homeagent.knowledge.files import (
    BadFile,
    NameTaken,
    NotText,
    TooLarge,
    clean_filename,
    clean_topic,
)
from homeagent.log import get_logger

log = get_logger("homeagent.api.knowledge")

# What aiohttp's multipart reader raises on a body that is not well-formed multipart.
_MULTIPART_ERRORS = (ValueError, AssertionError, LookupError, HttpProcessingError)
_FIELD_LIMIT = 1024  # bytes for the small form fields (topic, overwrite)


class PayloadTooLarge(RequestError):
    status = 413
    code = "request_too_large"


class UnsupportedMediaType(RequestError):
    status = 415
    code = "unsupported_media_type"


class Conflict(RequestError):
    status = 409
    code = "conflict"


def _request_error(err: BadFile, param: str) -> RequestError:
    if isinstance(err, TooLarge):
        return PayloadTooLarge(str(err), param=param)
    if isinstance(err, NotText):
        return UnsupportedMediaType(str(err), param=param)
    if isinstance(err, NameTaken):
        return Conflict(str(err), param="filename")
    return RequestError(str(err), param=param)


_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off", ""})


def _flag(value: Any, param: str) -> bool:
    if isinstance(value, bool):
        return value
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise RequestError(f"{param} must be true or false", param=param)


async def _read_part(part: BodyPartReader, limit: int, param: str) -> bytes:
    data = bytearray()
    while True:
        try:
            chunk = await part.read_chunk(65536)
        except _MULTIPART_ERRORS as err:
            raise RequestError(f"malformed multipart body: {err}", param=param) from err
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise PayloadTooLarge(f"{param} is over the limit of {limit} bytes", param=param)
    return bytes(data)


def add_routes(
    web_app: web.Application, kb: KnowledgeBase, *, max_upload_bytes: int | None = None
) -> None:
    """Register the knowledge routes on `web_app`; uploads are capped at
    `max_upload_bytes` (default: the knowledge base's own file limit)."""
    limit = max_upload_bytes if max_upload_bytes is not None else kb.max_file_bytes

    async def list_topics(request: web.Request) -> web.Response:
        topics = await kb.topics()
        return web.json_response(
            {"topics": [{"name": t.name, "files": t.files, "chunks": t.chunks} for t in topics]}
        )

    async def search(request: web.Request) -> web.Response:
        query = request.query.get("q", "").strip()
        if not query:
            raise RequestError("query parameter q is missing: add ?q=<what to look up>", param="q")
        k = int_param(request, "k", 5, 1, 50)
        hits = await kb.search(query, k, topic=request.query.get("topic") or None)
        return web.json_response(
            {
                "results": [
                    {
                        "id": h.id,
                        "topic": h.topic,
                        "file": h.path,
                        "heading": list(h.heading),
                        "text": h.text,
                        "score": h.score,
                    }
                    for h in hits
                ]
            },
            dumps=lambda o: json.dumps(o, ensure_ascii=False),
        )

    async def upload(request: web.Request) -> web.Response:
        ctype = request.content_type
        if ctype == "multipart/form-data":
            topic, filename, data, overwrite = await _from_multipart(request, limit)
        elif ctype == "application/json":
            topic, filename, data, overwrite = await _from_json(request, limit)
        else:
            raise UnsupportedMediaType(
                f"content type {ctype or '(none)'} is not accepted: send multipart/form-data "
                "with a 'file' part and a 'topic' field, or JSON {topic, filename, content}"
            )
        saved = await _save(kb, topic, filename, data, overwrite, limit)
        log.info(
            "api.knowledge.uploaded", path=saved.path, bytes=saved.bytes, replaced=saved.replaced
        )
        return web.json_response(
            {
                "topic": saved.topic,
                "path": saved.path,
                "chunks": saved.chunks,
                "bytes": saved.bytes,
                "replaced": saved.replaced,
            },
            status=200 if saved.replaced else 201,
            dumps=lambda o: json.dumps(o, ensure_ascii=False),
        )

    web_app.router.add_get("/api/knowledge", list_topics)
    web_app.router.add_post("/api/knowledge", upload)
    web_app.router.add_get("/api/knowledge/search", search)


async def _from_multipart(request: web.Request, limit: int) -> tuple[str, str, bytes, bool]:
    try:
        reader = await request.multipart()
    except _MULTIPART_ERRORS as err:
        raise RequestError(f"malformed multipart body: {err}") from err
    topic: str | None = None
    filename: str | None = None
    data: bytes | None = None
    overwrite = False
    while True:
        try:
            part = await reader.next()
        except _MULTIPART_ERRORS as err:
            raise RequestError(f"malformed multipart body: {err}") from err
        if part is None:
            break
        if not isinstance(part, BodyPartReader):
            raise RequestError("nested multipart bodies are not accepted: send one 'file' part")
        if part.name == "file":
            if data is not None:
                raise RequestError("send one file per upload", param="file")
            if not part.filename:
                raise RequestError(
                    "the 'file' part has no filename: send it as notes.md or notes.txt",
                    param="filename",
                )
            # Some clients (aiohttp's among them) percent-encode the name; browsers and
            # curl send it raw. Decode first, so '%2F' cannot smuggle a '/' past the checks.
            filename = unquote(part.filename)
            if not filename.isprintable():
                raise RequestError("filename: contains control characters such as NUL", param="filename")
            data = await _read_part(part, limit, "file")
        elif part.name in ("topic", "overwrite"):
            raw = await _read_part(part, _FIELD_LIMIT, part.name)
            try:
                value = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise RequestError(f"{part.name} is not UTF-8 text", param=part.name) from err
            if part.name == "topic":
                topic = value
            else:
                overwrite = _flag(value, "overwrite")
        # Other parts are drained by reader.next() and ignored.
    if data is None or filename is None:
        raise RequestError(
            "no 'file' part in the upload: attach the file as field 'file'", param="file"
        )
    if topic is None:
        raise RequestError(
            "no 'topic' field in the upload: add topic=<folder>, e.g. cooking", param="topic"
        )
    return topic, filename, data, overwrite


async def _from_json(request: web.Request, limit: int) -> tuple[str, str, bytes, bool]:
    # JSON escapes can triple the size of Chinese text; the content itself is checked below.
    cap = 6 * limit + 4096
    if request.content_length is not None and request.content_length > cap:
        raise PayloadTooLarge(f"upload is over the limit of {limit} bytes", param="content")
    parsed = parse_json(await read_limited(request, cap, f"upload (file limit {limit} bytes)"))
    if not isinstance(parsed, dict):
        raise RequestError("request body must be a JSON object {topic, filename, content}")
    for key in ("topic", "filename", "content"):
        if not isinstance(parsed.get(key), str):
            raise RequestError(f"{key} is required and must be a string", param=key)
    overwrite = _flag(parsed.get("overwrite", False), "overwrite")
    return parsed["topic"], parsed["filename"], parsed["content"].encode("utf-8"), overwrite


async def _save(
    kb: KnowledgeBase, topic: str, filename: str, data: bytes, overwrite: bool, limit: int
) -> SavedFile:
    # Validate each field on its own so the error names the right one.
    for param, check in (("topic", clean_topic), ("filename", clean_filename)):
        try:
            check(topic if param == "topic" else filename)
        except BadFile as err:
            raise _request_error(err, param) from err
    if len(data) > limit:
        raise PayloadTooLarge(
            f"file is {len(data)} bytes, over the limit of {limit} bytes", param="file"
        )
    try:
        return await kb.save_upload(topic, filename, data, overwrite=overwrite)
    except BadFile as err:
        raise _request_error(err, "file") from err
