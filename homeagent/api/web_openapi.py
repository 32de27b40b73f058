"""The OpenAPI description of the dashboard's routes (homeagent/api/web.py, records.py),
merged into the one document by homeagent/api/openapi.py."""

from __future__ import annotations

from typing import Any

JSON = "application/json"
_ERR = {"$ref": "#/components/schemas/Error"}
_TEXT = {400: "malformed request", 401: "missing or invalid token", 403: "not allowed",
         404: "not found", 409: "needs confirmation", 413: "body too large", 429: "rate limited"}
_OBJ = {"type": "object"}
_ARR = {"type": "array", "items": _OBJ}
_INT = {"type": "integer", "minimum": 0, "maximum": 2**31}


def _ok(properties: dict[str, Any], required: list[str], description: str) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": properties}
    return {"200": {"description": description, "content": {JSON: {"schema": schema}}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(c): {"description": _TEXT[c], "content": {JSON: {"schema": _ERR}}} for c in codes}


def _q(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def _path(name: str, pattern: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    return {"name": name, "in": "path", "required": True, "schema": schema}


_FLAG = {"enum": ["true", "false", "1", "0"]}
_DECISION = {"type": "object", "required": ["decision"],
             "properties": {"decision": {"enum": ["allow_once", "allow_session", "deny"]}}}
_PAGE = {"limit": {"type": "integer", "minimum": 1, "maximum": 1000}, "offset": _INT}
_FILE = {"description": "a file of the dashboard",
         "content": {"text/html": {"schema": {"type": "string"}}, "text/javascript": {"schema": {"type": "string"}},
                     "text/css": {"schema": {"type": "string"}}}}

WEB_PATHS: dict[str, Any] = {
    "/": {"get": {"summary": "The browser dashboard (its shell loads without a token; its data does not)",
                  "security": [], "responses": {"200": _FILE, **_errors(404)}}},
    "/web/{name}": {"get": {"summary": "A script or style of the dashboard", "security": [],
                            "parameters": [_path("name")], "responses": {"200": _FILE, **_errors(401, 404, 429)}}},
    "/api/me": {"get": {"summary": "Whom the token speaks for; admin: the household token",
                        "responses": {**_ok({"member": {"type": "string"}, "admin": {"type": "boolean"}},
                                            ["member", "admin"], "the speaker"), **_errors(401, 429)}}},
    "/api/records": {"get": {"summary": "The kinds of records, with their list action and filters",
                             "responses": {**_ok({"kinds": _ARR}, ["kinds"], "kinds"), **_errors(401, 429)}}},
    "/api/records/{kind}": {"get": {
        "summary": "Records of one kind (tasks, events, habits, shopping, water, sleep, mood, health, money, "
                   "subscriptions, notes, goals, countdowns, memos, inventory, birthdays), through its list "
                   "action: the action's arguments (status, from, to, query, limit, offset, …) are the filters",
        "parameters": [_path("kind"), _q("status", {"type": "string"}, "tasks: open, done or all"),
                       _q("from", {"type": "string"}, "start of the date range (words or a date)"),
                       _q("to", {"type": "string"}, "end of the date range"),
                       _q("query", {"type": "string"}, "keyword"),
                       _q("limit", {"type": "string", "pattern": "^[0-9]{1,3}$"}, "page size"),
                       _q("offset", {"type": "string", "pattern": "^[0-9]{1,6}$"}, "rows to skip")],
        "responses": {**_ok({"kind": {"type": "string"}, "tool": {"type": "string"}, "items": _ARR,
                             "text": {"type": "string"}, "display": {"type": ["object", "null"]},
                             "offset": {"type": "integer"}, "next_offset": {"type": ["integer", "null"]}},
                            ["kind", "tool", "items"], "one page of records"),
                      **_errors(400, 401, 404, 429)}}},
    "/api/actions/{tool}": {"post": {
        "summary": "Run an action as the agent would: validated, under the permission policy, audited",
        "parameters": [_path("tool")],
        "requestBody": {"required": True, "content": {JSON: {"schema": {
            "type": "object", "properties": {"arguments": _OBJ, "confirmed": {"type": "boolean"}}}}}},
        "responses": {**_ok({"tool": {"type": "string"}, "ok": {"type": "boolean"}, "content": {"type": "string"},
                             "display": {"type": ["object", "null"]}}, ["tool", "ok", "content"],
                            "the action ran (ok false: it reported a failure)"),
                      **_errors(400, 401, 403, 404, 409, 413, 429)}}},
    "/api/permissions": {"get": {
        "summary": "Confirmations waiting, from any channel, that this token may answer",
        "responses": {**_ok({"requests": _ARR}, ["requests"], "pending requests"), **_errors(401, 429)}}},
    "/api/permissions/{request_id}": {"post": {
        "summary": "Answer a pending confirmation",
        "parameters": [_path("request_id")],
        "requestBody": {"required": True, "content": {JSON: {"schema": _DECISION}}},
        "responses": {**_ok({"run_id": {"type": "string"}, "request_id": {"type": "string"},
                             "decision": {"type": "string"}}, ["run_id", "request_id", "decision"],
                            "the decision was delivered"), **_errors(400, 401, 404, 413, 429)}}},
    "/api/memory/graph": {"get": {
        "summary": "Graph facts with their validity, and the entities they name",
        "parameters": [_q("q", {"type": "string"}, "words of a subject, relation or object"),
                       _q("include_past", _FLAG, "also facts that no longer hold (default true)"),
                       _q("limit", _PAGE["limit"], "page size"), _q("offset", _INT, "facts to skip")],
        "responses": {**_ok({"facts": _ARR, "entities": _ARR, "next_offset": {"type": ["integer", "null"]}},
                            ["facts", "entities"], "facts"), **_errors(400, 401, 429)}}},
    "/api/memory/facts/{fact_id}": {"delete": {
        "summary": "Forget one fact",
        "parameters": [_path("fact_id", "^[0-9]{1,18}$")],
        "responses": {**_ok({"id": {"type": "integer"}, "deleted": {"type": "boolean"}}, ["id", "deleted"],
                            "forgotten"), **_errors(400, 401, 404, 429)}}},
    "/api/memory/documents": {"get": {
        "summary": "Documents with their access counts, newest first, or the best matches of q",
        "parameters": [_q("q", {"type": "string"}, "search words"),
                       _q("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "page size"),
                       _q("offset", _INT, "documents to skip")],
        "responses": {**_ok({"documents": _ARR}, ["documents"], "documents"), **_errors(400, 401, 429)}}},
    "/api/memory/context": {"get": {
        "summary": "The working context the next turn starts from",
        "responses": {**_ok({"entries": _ARR}, ["entries"], "entries"), **_errors(401, 429)}}},
    "/api/status": {"get": {
        "summary": "The provider chain and cooldowns, the model, usage and budget, heartbeat history",
        "responses": {**_ok({"provider": _OBJ, "model": {"type": "string"}, "usage": _ARR, "budget": _OBJ,
                             "heartbeats": _ARR, "tools": {"type": "integer"}},
                            ["provider", "model", "usage", "budget", "heartbeats"], "status"),
                      **_errors(401, 429)}}},
    "/api/settings": {"get": {
        "summary": "The running configuration, secrets masked, and the members (household token only)",
        "responses": {**_ok({"config": _OBJ, "members": _ARR}, ["config", "members"], "settings"),
                      **_errors(401, 403, 429)}}},
}
