"""The API document's string patterns mean one thing in every regex dialect.

OpenAPI patterns are ECMA regexes; the server checks text with Python (`str.strip()`).
A shorthand class such as `\\S` differs between them (the API fuzzer generated "\\x1d"
for `\\S`, which Python strips as whitespace, and the server rightly refused it — a body
the document had promised to take). So the document spells its classes out, and the one
it uses for "not blank" is exactly what `str.strip()` keeps."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

from homeagent.api.bodies import NOT_BLANK
from homeagent.api.openapi import build_document

_SHORTHAND = re.compile(r"(?<!\\)(?:\\\\)*\\[sSwWdDbB]")


def _patterns(node: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield where, value
            else:
                yield from _patterns(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _patterns(value, f"{where}/{i}")


def test_no_pattern_in_the_document_uses_a_dialect_dependent_shorthand() -> None:
    found = list(_patterns(build_document()))
    assert len(found) > 10  # the walk reaches the document's patterns
    offenders = [(where, pattern) for where, pattern in found if _SHORTHAND.search(pattern)]
    assert offenders == []


def test_not_blank_matches_exactly_what_strip_keeps() -> None:
    one = re.compile(NOT_BLANK)
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        assert bool(one.fullmatch(char)) == bool(char.strip()), hex(code)


def test_the_document_refuses_what_the_server_refuses() -> None:
    """Every route whose text must not be blank documents it: whitespace Python strips
    ("\\x1d", "\\x85", "\\u3000") is schema-invalid, text with something in it is valid."""
    import jsonschema

    document = build_document()
    speech = document["paths"]["/v1/audio/speech"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    chat = document["paths"]["/api/chat"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    for schema, field in ((speech, "input"), (chat, "message")):
        # (a route's schema refers to the document's components: resolve them from its root)
        check = jsonschema.Draft202012Validator({**schema, "components": document.get("components", {})})
        for blank in ("\r", " ", "\x1d", "\x85", "\u3000", "\n\t\x1c "):
            assert not check.is_valid({field: blank}), (field, repr(blank))
        for text in ("Hi", " 你好 ", "\rok", "\x1dx"):
            assert check.is_valid({field: text}), (field, repr(text))
