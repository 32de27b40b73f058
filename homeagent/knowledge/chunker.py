"""Splitting a knowledge file into search-sized chunks.

A Markdown file is cut at its ATX headings (`#` … `######`, not inside fenced code) into
sections; each section's body is cut at blank lines into blocks (a fenced code block or a
table stays one block), and consecutive blocks are packed into chunks of at most
`max_tokens` (estimated with `homeagent.text.estimate_tokens`, so a Chinese
character weighs as much as four Latin letters). A block that alone exceeds the bound is
split at sentence ends (。！？.!?;；), then at line ends, then at spaces, and as a last
resort at a character count. Every chunk carries the path of headings above it.

No text is lost: every non-blank line of the file is either a heading (kept in the
heading paths, or as the text of a chunk when the heading has no body and no
subsections) or part of exactly one chunk, in file order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeagent.text import estimate_tokens

DEFAULT_MAX_TOKENS = 300

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A sentence ends at CJK or Latin terminal punctuation (Latin ones need a following space).
_SENTENCE_RE = re.compile(r"(?<=[。！？；!?])|(?<=[.;:])(?=\s)")


@dataclass(frozen=True)
class Chunk:
    heading: tuple[str, ...]  # the headings above the text, outermost first
    text: str
    ordinal: int  # position in the file, 0-based

    def index_text(self) -> str:
        """What the search index sees: the heading path, the nearest heading once more
        (a section's own title is its strongest signal), then the text."""
        if not self.heading:
            return self.text
        return " › ".join(self.heading) + "\n" + self.heading[-1] + "\n" + self.text


def chunk_markdown(text: str, *, max_tokens: int = DEFAULT_MAX_TOKENS) -> list[Chunk]:
    """Chunks of a Markdown (or plain text) document, in file order."""
    if max_tokens < 8:
        raise ValueError(f"max_tokens must be at least 8, got {max_tokens}")
    pieces: list[tuple[tuple[str, ...], str]] = []
    for heading, body, has_children in _sections(text):
        blocks = _blocks(body)
        if not blocks:
            # A heading with nothing under it would vanish from the index otherwise.
            if heading and not has_children:
                pieces.append((heading[:-1], heading[-1]))
            continue
        for part in _pack(blocks, max_tokens):
            pieces.append((heading, part))
    return [Chunk(h, t, i) for i, (h, t) in enumerate(pieces)]


def _sections(text: str) -> list[tuple[tuple[str, ...], str, bool]]:
    """(heading path, body, has subsections) for each heading, and the text before the first."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sections: list[tuple[tuple[str, ...], list[str], int]] = [((), [], 0)]
    stack: list[tuple[int, str]] = []
    fence: str | None = None
    for line in lines:
        fence_match = _FENCE_RE.match(line)
        if fence is not None:
            if (
                fence_match
                and fence_match.group(1)[0] == fence[0]
                and len(fence_match.group(1)) >= len(fence)
            ):
                fence = None
            sections[-1][1].append(line)
            continue
        if fence_match:
            fence = fence_match.group(1)
            sections[-1][1].append(line)
            continue
        match = _HEADING_RE.match(line)
        if match is None:
            sections[-1][1].append(line)
            continue
        level, title = len(match.group(1)), match.group(2).strip()
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        sections.append((tuple(t for _, t in stack), [], level))
    result = []
    for i, (heading, body, level) in enumerate(sections):
        nxt = sections[i + 1][2] if i + 1 < len(sections) else 0
        has_children = bool(heading) and nxt > level
        result.append((heading, "\n".join(body), has_children))
    return result


def _blocks(body: str) -> list[str]:
    """Paragraph-level blocks: split at blank lines, but never inside a code fence."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        fence_match = _FENCE_RE.match(line)
        if fence is None and fence_match:
            fence = fence_match.group(1)
        elif fence is not None and fence_match and fence_match.group(1)[0] == fence[0]:
            fence = None
        elif fence is None and not line.strip():
            if current:
                blocks.append("\n".join(current).strip("\n"))
                current = []
            continue
        current.append(line.rstrip())
    if current:
        blocks.append("\n".join(current).strip("\n"))
    return [b for b in blocks if b.strip()]


def _pack(blocks: list[str], max_tokens: int) -> list[str]:
    """Join consecutive blocks into chunks within the bound; split blocks that exceed it."""
    parts: list[str] = []
    for block in blocks:
        parts.extend(_split(block, max_tokens) if estimate_tokens(block) > max_tokens else [block])
    chunks: list[str] = []
    current = ""
    for part in parts:
        candidate = f"{current}\n\n{part}" if current else part
        if current and estimate_tokens(candidate) > max_tokens:
            chunks.append(current)
            current = part
        else:
            current = candidate
    if current:
        chunks.append(current)
    return chunks


def _split(block: str, max_tokens: int) -> list[str]:
    """Cut one oversized block into pieces within the bound, coarsest boundary first."""
    for splitter in (_by_sentence, _by_line, _by_space):
        units = splitter(block)
        if len(units) > 1:
            out: list[str] = []
            current = ""
            for unit in units:
                if estimate_tokens(unit) > max_tokens:
                    if current.strip():
                        out.append(current.strip())
                    current = ""
                    out.extend(_split(unit, max_tokens))
                    continue
                if current and estimate_tokens(current + unit) > max_tokens:
                    out.append(current.strip())
                    current = unit
                else:
                    current += unit
            if current.strip():
                out.append(current.strip())
            return [p for p in out if p]
    return _by_count(block, max_tokens)


def _by_sentence(text: str) -> list[str]:
    return [s for s in _SENTENCE_RE.split(text) if s]


def _by_line(text: str) -> list[str]:
    return [line for line in text.splitlines(keepends=True) if line]


def _by_space(text: str) -> list[str]:
    return [w for w in re.split(r"(?<=\s)(?=\S)", text) if w]


def _by_count(text: str, max_tokens: int) -> list[str]:
    """Last resort (a run of CJK without punctuation, a very long word): fixed slices."""
    out: list[str] = []
    start = 0
    while start < len(text):
        end = start + 1
        # Grow the slice while it fits; CJK characters count one token each.
        step = max_tokens
        while step >= 1:
            while (
                end + step <= len(text) and estimate_tokens(text[start : end + step]) <= max_tokens
            ):
                end += step
            step //= 2
        out.append(text[start:end])
        start = end
    return [p for p in out if p.strip()]
