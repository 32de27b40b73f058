"""Members and tokens are live: the CLI changes them while the daemon runs, at once."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from .conftest import Daemon


def _get(daemon: Daemon, path: str, token: str) -> int:
    request = urllib.request.Request(daemon.url + path, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def _add(daemon: Daemon, *args: str) -> str:
    done = daemon.cli("members", *args, "--json", "--config", str(daemon.config))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["token"]


def test_add_rotate_revoke_take_effect_in_the_running_daemon(daemon_factory):
    daemon = daemon_factory(llm={"provider": "echo"})
    alice = _add(daemon, "add", "alice")
    assert _get(daemon, "/api/messages", alice) == 200  # added while running: works at once
    # With a member active, a request without a token is refused at once too.
    with urllib.request.urlopen(daemon.url + "/healthz", timeout=10) as resp:
        assert resp.status == 200
    assert _get(daemon, "/api/messages", "not-a-token") == 401

    rotated = _add(daemon, "rotate", "alice")
    assert _get(daemon, "/api/messages", rotated) == 200
    assert _get(daemon, "/api/messages", alice) == 401  # the old token stopped at once

    # Another member stays, so the daemon keeps requiring tokens (with none at all, an
    # open loopback daemon needs none).
    bob = _add(daemon, "add", "bob")
    done = daemon.cli("members", "revoke", "alice", "--config", str(daemon.config))
    assert done.returncode == 0, done.stderr
    assert _get(daemon, "/api/messages", rotated) == 401
    assert _get(daemon, "/v1/models", rotated) == 401
    assert _get(daemon, "/api/messages", bob) == 200
