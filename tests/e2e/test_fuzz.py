"""Property-based fuzzing of the HTTP API against its own OpenAPI document (loopback only).

schemathesis generates valid and invalid requests for every documented operation and
checks that the daemon never answers 5xx, that status codes and content types are the
documented ones and that JSON bodies match their schemas. Every generation mode and
phase runs (positive and negative data, unicode and header edge cases); bounded in
examples per operation so the run stays short. The daemon must still be healthy after.
"""

from __future__ import annotations

import json
import urllib.request

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from homeagent.api.openapi import build_document

from .conftest import start_daemon


@pytest.fixture(scope="module")
def daemon_url(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    # espeak-ng speaks English here too: it speaks generated text in well under the
    # timeout, where piper needs minutes for a long one (test_voice_http.py runs piper).
    daemon = start_daemon(
        tmp, llm={"provider": "echo"}, api={"max_body_bytes": 65536}, voice={"tts_en": "espeak_ng:en"},
    )
    yield daemon.url
    daemon.stop()


AUDIO_UPLOADS = frozenset({"/v1/audio/transcriptions", "/api/voice"})
# The smallest body limit of a JSON route (the Ollama routes' 64 KiB; documented as 413):
# a schema-valid body at least this large is rightly refused, not a rejected valid request.
SMALLEST_BODY_LIMIT = 64 * 1024

# The document the daemon serves at /api/openapi.json (a test checks they are the same).
schema = schemathesis.openapi.from_dict(build_document())
# Every strategy: valid and invalid data, the coverage phase's edge cases (boundaries,
# unicode, NUL bytes, wrong types, missing and extra headers and parameters) and fuzzing.
schema.config.generation.update(
    modes=list(GenerationMode), allow_x00=True, codec="utf-8", with_security_parameters=True,
)
schema.config.phases.update(phases=["examples", "coverage", "fuzzing"])


def test_served_document_is_the_fuzzed_one(daemon_url):
    with urllib.request.urlopen(daemon_url + "/api/openapi.json", timeout=10) as resp:
        assert json.load(resp) == json.loads(json.dumps(build_document()))


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_never_fails_and_matches_its_document(case, daemon_url):
    # Every check but "reject anything off-schema": some routes deliberately accept and
    # clean up input the document describes more narrowly (a topic name is sanitised).
    excluded = [schemathesis.checks.negative_data_rejection]
    if case.path in AUDIO_UPLOADS or _body_size(case.body) >= SMALLEST_BODY_LIMIT:
        # A binary body's schema cannot say "a WAV file": random bytes are rightly a 400;
        # and a body over its route's size limit is rightly a 413, however valid its shape.
        excluded.append(schemathesis.checks.positive_data_acceptance)
    case.call_and_validate(base_url=daemon_url, timeout=30, excluded_checks=excluded)


def _body_size(body) -> int:
    """The JSON body's size as sent (ASCII-escaped: an upper bound of its UTF-8 form)."""
    if body is None or isinstance(body, bytes | bytearray):
        return len(body or b"")
    try:
        return len(json.dumps(body))
    except (TypeError, ValueError):
        return 0


def test_daemon_is_healthy_after_the_fuzzing(daemon_url):
    with urllib.request.urlopen(daemon_url + "/healthz", timeout=10) as resp:
        health = json.load(resp)
    assert health["status"] == "ok", health
