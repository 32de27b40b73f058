"""Names and bytes of knowledge files: what counts as one, how it is read and written.

Everything that turns outside input (a tool argument, an uploaded file name) into a path
under the knowledge directory passes through here. Names are refused, not repaired,
when they try to leave their folder (`/`, `\\`, `..`, an absolute path, NUL or other
control characters, a leading dot); otherwise they are normalised (NFKC, runs of
anything but letters, digits, `_`, `-` and `.` become `_`). Chinese names stay Chinese.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from pathlib import Path

TEXT_SUFFIXES = frozenset({".md", ".markdown", ".txt"})
MAX_NAME_CHARS = 80

_UNSAFE_RUN_RE = re.compile(r"[^\w.\-]+")
_SLUG_RUN_RE = re.compile(r"[^\w]+")


class BadFile(ValueError):
    """A file or name that cannot be used as knowledge; the message says why."""


class NotText(BadFile):
    """The content is binary or not UTF-8, or the name has no text suffix."""


class TooLarge(BadFile):
    """The content is over the size limit."""


class NameTaken(BadFile):
    """A file of that name already exists and replacing it was not asked for."""


def is_knowledge_file(rel: Path) -> bool:
    """True for `<topic>/…/<name>.md|.txt` that is not hidden, a backup or a temp file."""
    parts = rel.parts
    if len(parts) < 2:
        return False
    if any(p.startswith(".") or p.endswith("~") or p.startswith("#") for p in parts):
        return False
    return rel.suffix.lower() in TEXT_SUFFIXES


def decode_text(data: bytes, *, name: str = "file") -> str:
    """UTF-8 text of `data` (a BOM is dropped), or BadFile naming the problem."""
    if b"\x00" in data:
        raise NotText(f"{name} looks binary (it contains NUL bytes); only UTF-8 text is accepted")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise NotText(
            f"{name} is not UTF-8 text (invalid byte at offset {err.start}); "
            "save it as UTF-8 and try again"
        ) from err
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path, *, max_bytes: int) -> tuple[str, bytes]:
    """(text, raw bytes) of a knowledge file, or BadFile when it is unusable."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise TooLarge(f"{path.name} is {size} bytes, over the limit of {max_bytes} bytes")
        data = path.read_bytes()
    except OSError as err:
        raise BadFile(f"{path.name} cannot be read: {err.strerror or err}") from err
    if len(data) > max_bytes:
        raise TooLarge(f"{path.name} is over the limit of {max_bytes} bytes")
    return decode_text(data, name=path.name), data


def _refuse_escape(raw: str, what: str) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise BadFile(f"{what} is empty: give a name such as 'cooking' or 'notes.md'")
    name = unicodedata.normalize("NFKC", raw).strip()
    if any(ch in name for ch in "/\\"):
        raise BadFile(f"{what} {raw!r} must be a plain name without '/' or '\\'")
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise BadFile(f"{what} {raw!r} contains control characters")
    if name.startswith("."):
        raise BadFile(f"{what} {raw!r} must not start with '.' (hidden files and '..' are refused)")
    return name


def clean_topic(raw: str) -> str:
    """A topic folder name: lower-case Latin, CJK kept, `_` for anything unsafe."""
    name = _refuse_escape(raw, "topic").casefold()
    name = _UNSAFE_RUN_RE.sub("_", name.replace(".", "_")).strip("_-")
    if not name:
        raise BadFile(
            f"topic {raw!r} has no letters or digits; use a name such as 'cooking' or '急救'"
        )
    return name[:MAX_NAME_CHARS]


def clean_filename(raw: str) -> str:
    """A safe file name with a text suffix (.md, .markdown, .txt), case kept."""
    name = _refuse_escape(raw, "filename")
    stem, dot, suffix = name.rpartition(".")
    if not dot or f".{suffix.lower()}" not in TEXT_SUFFIXES:
        allowed = ", ".join(sorted(TEXT_SUFFIXES))
        raise NotText(
            f"filename {raw!r} must end in one of {allowed} (only text files are accepted)"
        )
    stem = _UNSAFE_RUN_RE.sub("_", stem).strip("._-")
    if not stem:
        raise BadFile(f"filename {raw!r} has no letters or digits before the suffix")
    return f"{stem[: MAX_NAME_CHARS - len(suffix) - 1]}.{suffix.lower()}"


def slugify(title: str) -> str:
    """File stem for a title: 'Oil fire!' → 'oil-fire', '番茄炒蛋 做法' → '番茄炒蛋-做法'."""
    slug = _SLUG_RUN_RE.sub("-", unicodedata.normalize("NFKC", title).casefold()).strip("-_")
    return slug[:60].strip("-_") or "note"


def write_atomic(path: Path, text: str) -> None:
    """Write `text` as UTF-8 so that readers (and the watcher) never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # A hidden temp name in the same folder: ignored by scanning and watching, and
    # os.replace stays on one filesystem.
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide the file from other readers
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
