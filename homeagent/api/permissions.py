"""A permission answer's domain result, as HTTP: 200 with the decision, 400 naming the
field, 404 for a request that no longer waits. The error middleware writes the bodies."""

from __future__ import annotations

from aiohttp import web

from homeagent.errors import NotFoundError, RequestError
from homeagent.tools.permissions import AnswerResult, InvalidDecision, NoPendingRequest


def answer_response(result: AnswerResult) -> web.Response:
    if isinstance(result, InvalidDecision):
        raise RequestError(result.message, param="decision")
    if isinstance(result, NoPendingRequest):
        raise NotFoundError(result.message)
    return web.json_response({"run_id": result.run_id, "request_id": result.request_id, "decision": result.decision})
