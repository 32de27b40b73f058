"""homeagent.api: a permission request on the wire says where its answer goes, whether
or not the agent put a URL in the event; a permission answer's result maps to HTTP."""

from __future__ import annotations

import pytest

from homeagent.api.permissions import answer_response
from homeagent.api.sse import event_payload, with_answer_url
from homeagent.errors import NotFoundError, RequestError
from homeagent.io.events import PermissionRequested, TurnStarted
from homeagent.tools.permissions import Answered, InvalidDecision, NoPendingRequest

pytestmark = pytest.mark.anyio


def test_a_permission_request_carries_its_answer_url() -> None:
    asked = PermissionRequested("perm_1", "wipe_list", "delete", {"what": "x"})
    payload = event_payload(asked, "turn_9")
    assert payload["answer_url"] == "/api/agent/runs/turn_9/permissions/perm_1"
    assert payload["type"] == "permission_request" and payload["arguments"] == {"what": "x"}
    stored = {"request_id": "perm_2", "tool": "wipe_list"}  # a run's recorded event, without a URL
    assert with_answer_url("permission_request", stored, "turn_9")["answer_url"] == (
        "/api/agent/runs/turn_9/permissions/perm_2")
    assert "answer_url" not in event_payload(TurnStarted("turn_9"), "turn_9")


def test_a_permission_answer_result_maps_to_http() -> None:
    ok = answer_response(Answered("turn_9", "perm_1", "allow_once"))
    assert ok.status == 200 and b'"decision": "allow_once"' in ok.body
    with pytest.raises(RequestError) as bad:
        answer_response(InvalidDecision("maybe"))
    assert bad.value.status == 400 and bad.value.param == "decision" and "'maybe'" in str(bad.value)
    with pytest.raises(NotFoundError) as gone:
        answer_response(NoPendingRequest("turn_9", "perm_1"))
    assert gone.value.status == 404 and "perm_1" in str(gone.value)
