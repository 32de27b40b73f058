"""The OpenAPI 3.1 document of every HTTP route (served at /api/openapi.json).

Kept beside the routes by hand rather than generated, so it says what the API promises
(shapes, errors, SSE) instead of what a framework can infer. A test fails when a route
exists that this document does not describe.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from homeagent import __version__
from homeagent.api.bodies import NOT_BLANK
from homeagent.api.ollama import ollama_paths
from homeagent.api.voice import OPENAPI_PATHS as VOICE_PATHS
from homeagent.api.web_openapi import WEB_PATHS

JSON = "application/json"
SSE = "text/event-stream"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {400: "malformed request", 401: "missing or invalid token", 404: "not found", 409: "conflict",
            413: "body too large", 429: "rate limited", 502: "the model failed"}
    return {str(c): _json(_ref("Error"), text[c]) for c in codes}


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def _path_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}


_STR = {"type": "string"}
_NULLABLE_NUM = {"type": ["number", "null"]}

SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {
            "type": "object",
            "required": ["message", "type", "code"],
            "properties": {"message": _STR, "type": _STR, "code": {"type": ["string", "null"]},
                           "param": {"type": ["string", "null"]}},
        }},
    },
    "Health": {
        "type": "object",
        "required": ["status", "version", "db", "provider", "agent"],
        "properties": {"status": {"enum": ["ok", "degraded"]}, "version": _STR,
                       "uptime_s": {"type": "number"}, "engine": {"enum": ["warming", "ready"]},
                       "db": {"type": "object"},
                       "provider": {"type": "object"}, "agent": {"type": "object"},
                       "tools": {"type": "integer"},
                       "home_assistant": {"type": "object", "description": "the link to Home Assistant, when "
                                          "configured: state (connected, connecting, unreachable, auth_failed), "
                                          "url, detail, since, version, entities (exposed), connects, retry_in_s"}},
    },
    "ModelList": {
        "type": "object",
        "required": ["object", "data"],
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": {
            "type": "object", "required": ["id", "object", "created", "owned_by"],
            "properties": {"id": _STR, "object": {"const": "model"}, "created": {"type": "integer"},
                           "owned_by": _STR}}}},
    },
    "ChatCompletionRequest": {
        "type": "object",
        "description": "`tools` (OpenAI's function tools) are client-side tools: a call to one ends the "
                       "response with finish_reason tool_calls, and a request with `tools` whose messages end "
                       "with the `tool` results (by tool_call_id) resumes the same turn; 400 when none waits.",
        "required": ["model", "messages"],
        "properties": {
            "model": {"type": "string", "minLength": 1,
                      "description": "homeagent, or the loaded model's name (others: 404)"},
            "messages": {"type": "array", "minItems": 1, "items": _ref("ChatMessage"),
                         "contains": _ref("UserMessageWithText")},
            "stream": {"type": "boolean"},
            "stream_options": {"type": "object", "properties": {"include_usage": {"type": "boolean"}}},
            "user": _STR,
        },
    },
    "ChatMessage": {
        "type": "object", "required": ["role"],
        "properties": {"role": {"enum": ["system", "developer", "user", "assistant", "tool"]},
                       "content": {"anyOf": [{"type": "string"}, {"type": "null"},
                                             {"type": "array", "items": _ref("TextPart")}]}},
    },
    "TextPart": {
        "type": "object", "required": ["type", "text"],
        "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
    },
    "UserMessageWithText": {
        "type": "object", "required": ["role", "content"],
        "properties": {"role": {"const": "user"},
                       "content": {"anyOf": [
                           {"type": "string", "pattern": NOT_BLANK},
                           {"type": "array", "contains": {"type": "object", "required": ["text"],
                                                          "properties": {"text": {"type": "string", "pattern": NOT_BLANK}}}},
                       ]}},
    },
    "SSEEvent": {
        "type": "object", "required": ["data"],
        "properties": {"event": _STR, "data": _STR, "id": _STR, "retry": {"type": "integer"}},
    },
    "ChatCompletion": {
        "type": "object",
        "required": ["id", "object", "created", "model", "choices", "usage"],
        "properties": {"id": _STR, "object": {"const": "chat.completion"}, "created": {"type": "integer"},
                       "model": _STR, "choices": {"type": "array"}, "usage": {"type": "object"}},
    },
    "AgentChatRequest": {
        "type": "object",
        "required": ["message"],
        "properties": {"message": {"type": "string", "pattern": NOT_BLANK, "maxLength": 32000},
                       "device_id": _STR, "context": {"type": "string", "maxLength": 32000},
                       "channel": _STR, "cancel_running": {"type": "boolean"}, "member": _STR},
    },
    "Devices": {
        "type": "object", "required": ["devices"],
        "properties": {"devices": {"type": "array", "items": {"type": "object"}}},
    },
    "RunCreate": {
        "type": "object",
        "required": ["input"],
        "additionalProperties": False,
        "properties": {"input": {"type": "string", "pattern": NOT_BLANK, "maxLength": 32000}, "channel": _STR,
                       "device_id": _STR, "context": {"type": "string", "maxLength": 32000},
                       "cancel_running": {"type": "boolean"}, "member": _STR},
    },
    "RunCreated": {
        "type": "object", "required": ["id", "status", "events_url"],
        "properties": {"id": _STR, "status": {"const": "queued"}, "events_url": _STR},
    },
    "Run": {
        "type": "object",
        "required": ["id", "status", "input", "output", "created_at", "usage"],
        "properties": {
            "id": _STR, "channel": _STR, "device_id": _STR, "member": _STR, "input": _STR, "output": _STR,
            "status": {"enum": ["queued", "running", "waiting_permission", "completed", "failed",
                                "cancelled", "interrupted"]},
            "error": {"type": ["object", "null"]}, "provider": _STR, "model": _STR,
            "usage": {"type": "object"}, "created_at": {"type": "number"},
            "started_at": _NULLABLE_NUM, "finished_at": _NULLABLE_NUM, "duration_ms": _NULLABLE_NUM,
            "last_sequence": {"type": "integer"},
        },
    },
    "RunList": {
        "type": "object", "required": ["runs"],
        "properties": {"runs": {"type": "array", "items": _ref("Run")}, "next_before": _NULLABLE_NUM},
    },
    "Trace": {
        "type": "object", "required": ["run", "events", "stats", "has_more"],
        "properties": {"run": _ref("Run"), "events": {"type": "array", "items": {"type": "object"}},
                       "next_cursor": {"type": ["integer", "null"]}, "has_more": {"type": "boolean"},
                       "stats": {"type": "object"}, "config_snapshot": {"type": "object"}},
    },
    "CancelResult": {
        "type": "object", "required": ["id", "cancelled", "status"],
        "properties": {"id": _STR, "cancelled": {"type": "boolean"}, "status": _STR},
    },
    "Messages": {
        "type": "object", "required": ["messages"],
        "properties": {"messages": {"type": "array", "items": {"type": "object"}},
                       "next_before": {"type": ["integer", "null"]}},
    },
    "KnowledgeUpload": {
        "type": "object", "required": ["topic", "filename", "content"],
        "properties": {
            "topic": {"type": "string", "pattern": "^[A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9_\u4e00-\u9fff-]{0,40}$"},
            "filename": {"type": "string",
                         "pattern": "^[A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9_\u4e00-\u9fff-]{0,40}\\.(md|txt)$"},
            "content": {"type": "string", "pattern": "^[^\u0000]*" + NOT_BLANK + "[^\u0000]*$",
                        "description": "UTF-8 text; over knowledge.max_file_bytes gets 413"},
            "overwrite": {"type": "boolean"},
        },
        "description": "Also accepted as multipart/form-data with a 'file' part and a 'topic' field.",
    },
    "KnowledgeSaved": {
        "type": "object", "required": ["topic", "path", "chunks", "bytes", "replaced"],
        "properties": {"topic": _STR, "path": _STR, "chunks": {"type": "integer"}, "bytes": {"type": "integer"},
                       "replaced": {"type": "boolean"}},
    },
    "KnowledgeTopics": {
        "type": "object", "required": ["topics"],
        "properties": {"topics": {"type": "array", "items": {"type": "object"}}},
    },
    "KnowledgeResults": {
        "type": "object", "required": ["results"],
        "properties": {"results": {"type": "array", "items": {"type": "object"}}},
    },
    "Forgotten": {
        "type": "object", "required": ["id", "deleted", "forgotten"],
        "properties": {"id": {"type": "integer"}, "deleted": {"type": "boolean"},
                       "forgotten": {"type": "object"}},
    },
}

_SSE_RESPONSE = {"description": "Server-Sent Events", "content": {SSE: {"schema": _ref("SSEEvent")}}}
_RUN_ID = [_path_param("run_id")]

PATHS: dict[str, Any] = {
    "/healthz": {"get": {"summary": "Daemon health (never needs a token)", "security": [],
                         "responses": {"200": _json(_ref("Health"), "the daemon serves")}}},
    "/api/openapi.json": {"get": {"summary": "This document", "security": [],
                                  "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1")}}},
    "/v1/models": {"get": {"summary": "Models (OpenAI-compatible)",
                           "responses": {"200": _json(_ref("ModelList"), "models"), **_errors(401, 429)}}},
    "/v1/chat/completions": {"post": {
        "summary": "Chat with the agent (OpenAI-compatible; stream: true gives SSE)",
        "requestBody": {"required": True, "content": {JSON: {"schema": _ref("ChatCompletionRequest")}}},
        "responses": {"200": {"description": "a completion, or SSE chunks ending in [DONE]",
                              "content": {JSON: {"schema": _ref("ChatCompletion")},
                                          SSE: {"schema": _ref("SSEEvent")}}},
                      **_errors(400, 401, 404, 413, 429, 502)}}},
    "/api/chat": {"post": {
        "summary": "One turn as SSE of agent events",
        "requestBody": {"required": True, "content": {JSON: {"schema": _ref("AgentChatRequest")}}},
        "responses": {"200": _SSE_RESPONSE, **_errors(400, 401, 413, 429)}}},
    "/api/devices": {"get": {"summary": "Devices that have spoken to the agent",
                             "responses": {"200": _json(_ref("Devices"), "devices"), **_errors(401, 429)}}},
    "/api/agent/runs": {
        "post": {"summary": "Start a run; returns its id at once",
                 "requestBody": {"required": True, "content": {JSON: {"schema": _ref("RunCreate")}}},
                 "responses": {"202": _json(_ref("RunCreated"), "queued"), **_errors(400, 401, 413, 429)}},
        "get": {"summary": "List runs, newest first",
                "parameters": [
                    _query("status", {"enum": ["queued", "running", "waiting_permission", "completed",
                                               "failed", "cancelled", "interrupted"]}, "filter by status"),
                    _query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "page size"),
                    _query("before", {"type": "number"}, "only runs created before this time")],
                "responses": {"200": _json(_ref("RunList"), "runs"), **_errors(400, 401, 429)}},
    },
    "/api/agent/runs/{run_id}": {"get": {
        "summary": "One run", "parameters": _RUN_ID,
        "responses": {"200": _json(_ref("Run"), "the run"), **_errors(401, 404, 429)}}},
    "/api/agent/runs/{run_id}/events": {"get": {
        "summary": "The run's events as SSE (id: sequence), resumable",
        "parameters": [*_RUN_ID,
                       _query("after_sequence", {"type": "integer", "minimum": -1, "maximum": 2**62}, "resume after this event"),
                       {"name": "Last-Event-ID", "in": "header", "required": False,
                        "schema": {"type": "string", "pattern": "^-?[0-9]{1,18}$"}}],
        "responses": {"200": _SSE_RESPONSE, **_errors(400, 401, 404, 429)}}},
    "/api/agent/runs/{run_id}/trace": {"get": {
        "summary": "Flat trace page with stats",
        "parameters": [*_RUN_ID,
                       _query("after_sequence", {"type": "integer", "minimum": -1, "maximum": 2**62}, "cursor"),
                       _query("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, "page size")],
        "responses": {"200": _json(_ref("Trace"), "trace page"), **_errors(400, 401, 404, 429)}}},
    "/api/agent/runs/{run_id}/cancel": {"post": {
        "summary": "Cancel a queued or running run", "parameters": _RUN_ID,
        "responses": {"200": _json(_ref("CancelResult"), "cancel requested"), **_errors(401, 404, 429)}}},
    "/api/knowledge": {
        "get": {"summary": "Knowledge topics with file and chunk counts",
                "responses": {"200": _json(_ref("KnowledgeTopics"), "topics"), **_errors(401, 429)}},
        "post": {"summary": "Upload a text file into a knowledge topic",
                 "requestBody": {"required": True, "content": {JSON: {"schema": _ref("KnowledgeUpload")}}},
                 "responses": {"200": _json(_ref("KnowledgeSaved"), "replaced an existing file"),
                               "201": _json(_ref("KnowledgeSaved"), "saved and indexed"),
                               "409": _json(_ref("Error"), "the file exists (send overwrite: true)"),
                               "415": _json(_ref("Error"), "not a text upload"),
                               **_errors(400, 401, 413, 429)}},
    },
    "/api/knowledge/search": {"get": {
        "summary": "Search the knowledge base",
        "parameters": [{"name": "q", "in": "query", "required": True, "schema": {"type": "string", "pattern": NOT_BLANK}},
                       _query("k", {"type": "integer", "minimum": 1, "maximum": 50}, "how many hits"),
                       _query("topic", {"type": "string"}, "only this topic")],
        "responses": {"200": _json(_ref("KnowledgeResults"), "hits"), **_errors(400, 401, 429)}}},
    "/api/agent/runs/{run_id}/permissions/{request_id}": {"post": {
        "summary": "Answer a run's pending permission request",
        "parameters": [*_RUN_ID, _path_param("request_id")],
        "requestBody": {"required": True, "content": {JSON: {"schema": {
            "type": "object", "required": ["decision"],
            "properties": {"decision": {"enum": ["allow_once", "allow_session", "deny"]}}}}}},
        "responses": {"200": _json({"type": "object", "required": ["run_id", "request_id", "decision"],
                                    "properties": {"run_id": _STR, "request_id": _STR, "decision": _STR}},
                                   "the decision was delivered"),
                      **_errors(400, 401, 404, 429)}}},
    "/api/messages": {"get": {
        "summary": "The conversation, newest first",
        "parameters": [_query("before", {"type": "integer", "minimum": 0, "maximum": 2**62},
                              "only messages older than this id"),
                       _query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "page size")],
        "responses": {"200": _json(_ref("Messages"), "messages"), **_errors(400, 401, 429)}}},
    "/api/messages/{message_id}": {"delete": {
        "summary": "Forget a message everywhere memory holds it",
        "parameters": [{"name": "message_id", "in": "path", "required": True,
                        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}}],
        "responses": {"200": _json(_ref("Forgotten"), "forgotten"), **_errors(400, 401, 404, 429)}}},
}

PATHS.update(WEB_PATHS)  # the browser dashboard's routes


# The change tracker (homeagent/ext/changes.py): every file the agent wrote, newest first.
PATHS["/api/changes"] = {"get": {
    "summary": "Files the agent wrote, newest first (revert one with `homeagent changes revert ID`)",
    "parameters": [_query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "page size"),
                   _query("offset", {"type": "integer", "minimum": 0, "maximum": 10_000_000}, "skip this many")],
    "responses": {"200": _json({"type": "object", "required": ["changes"], "properties": {"changes": {
        "type": "array", "items": {
            "type": "object", "required": ["id", "path", "op", "reason", "reverts", "created_at"],
            "properties": {"id": {"type": "integer"}, "path": _STR, "op": {"enum": ["create", "modify", "delete"]},
                           "reason": _STR, "reverts": {"type": ["integer", "null"]}, "created_at": _STR,
                           "bytes_before": {"type": ["integer", "null"]},
                           "bytes_after": {"type": ["integer", "null"]}}}}}}, "changes"),
                  **_errors(400, 401, 429)}}}
# The push route (homeagent/api/push.py): messages the agent starts, per member.
SCHEMAS["PushEvent"] = {
    "description": "The `data` of one push event frame (`id: <id>`, `event: <type>`).",
    "type": "object",
    "required": ["id", "type", "text", "member", "ref", "due", "late", "created_at"],
    "properties": {
        "id": {"type": "integer", "description": "the frame's id; send it back as Last-Event-ID"},
        "type": {"type": "string", "description": "what it is: reminder, notice, ..."},
        "text": {"type": "string", "description": "the words to show or speak"},
        "member": {"type": "string", "description": "whose it is; '' for the household's"},
        "ref": {"type": "string", "description": "what it refers to, e.g. reminder:12"},
        "due": {"type": "string", "description": "when it fell due (ISO 8601), or ''"},
        "late": {"type": "boolean", "description": "it fell due while the daemon was down"},
        "created_at": {"type": "string", "description": "when it was delivered (ISO 8601)"},
    },
}
PATHS["/api/events"] = {"get": {
    "summary": "Push events for the token's member as SSE (reminders); resumable with Last-Event-ID",
    "description": (
        "With `Accept: text/event-stream` (EventSource) the stream stays open: missed events after "
        "Last-Event-ID or `after`, then new ones as they come, `: keepalive` comments in between; "
        "without a cursor it starts with the next new event; its opening frame is `id: <cursor>` (no data), "
        "so a client reconnecting before any event came resumes from there. Any other Accept: the stored events after "
        "`after` (at most `limit`), then the response ends. A browser's EventSource, which cannot send "
        "headers, passes the token as `access_token`."
    ),
    "parameters": [
        _query("after", {"type": "string", "pattern": "^[0-9]{1,18}$"}, "resume after this event id"),
        _query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "events per poll"),
        _query("access_token", {"type": "string"}, "the bearer token, for clients that cannot set headers"),
        {"name": "Last-Event-ID", "in": "header", "required": False,
         "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}},
    ],
    "responses": {"200": {"description": "Server-Sent Events of push events",
                          "content": {SSE: {"schema": _ref("PushEvent")}}},
                  **_errors(400, 401, 429)},
}}

SCHEMAS["Reminder"] = {
    "type": "object",
    "required": ["id", "kind", "member", "title", "about", "due", "status", "late", "urgent", "channels"],
    "properties": {
        "id": {"type": "integer"}, "kind": {"enum": ["task", "event", "habit", "birthday", "countdown"]},
        "member": _STR, "title": _STR, "about": {"type": "string", "description": "the due time, start or day"},
        "due": {"type": "string", "description": "when it fell due (ISO 8601)"},
        "status": {"enum": ["pending", "held", "delivered", "snoozed", "acknowledged", "dropped"]},
        "late": {"type": "boolean"}, "urgent": {"type": "boolean"},
        "channels": {"type": "array", "items": _STR, "description": "the channels that carried it"},
        "snoozed_from": {"type": ["integer", "null"]}, "delivered_at": {"type": ["string", "null"]},
        "acknowledged_at": {"type": ["string", "null"]}, "snoozed_until": {"type": ["string", "null"]},
    },
}
_REMINDER_ID = [{"name": "reminder_id", "in": "path", "required": True,
                 "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}}]
_ANSWERED = {"type": "object", "required": ["id", "status"],
             "properties": {"id": {"type": "integer"}, "status": _STR, "until": _STR}}
PATHS["/api/reminders"] = {"get": {
    "summary": "The member's reminders (theirs and the household's), the latest first",
    "parameters": [_query("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "how many")],
    "responses": {"200": _json({"type": "object", "required": ["reminders"],
                                "properties": {"reminders": {"type": "array", "items": _ref("Reminder")}}},
                               "reminders"), **_errors(400, 401, 429)}}}
PATHS["/api/reminders/{reminder_id}/snooze"] = {"post": {
    "summary": "Remind a delivered reminder again in `minutes` (default schedule.snooze_minutes)",
    "parameters": _REMINDER_ID,
    "requestBody": {"required": False, "content": {JSON: {"schema": {
        "type": "object", "properties": {"minutes": {"type": "integer", "minimum": 1, "maximum": 1440}}}}}},
    "responses": {"200": _json(_ANSWERED, "snoozed"), **_errors(400, 401, 404, 409, 429)}}}
PATHS["/api/reminders/{reminder_id}/acknowledge"] = {"post": {
    "summary": "Acknowledge a delivered reminder", "parameters": _REMINDER_ID,
    "responses": {"200": _json(_ANSWERED, "acknowledged"), **_errors(401, 404, 409, 429)}}}
# The Ollama protocol for Home Assistant (homeagent/api/ollama.py), under both prefixes.
PATHS.update(ollama_paths())


def build_document(extra_paths: dict[str, Any] | None = None,
                   extra_schemas: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "HomeAgent", "version": __version__,
                 "description": "The household agent's HTTP API."},
        "servers": [{"url": "/"}],
        "components": {
            "schemas": {**SCHEMAS, **(extra_schemas or {})},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}, {}],
        "paths": {**PATHS, **VOICE_PATHS, **(extra_paths or {})},
    }


async def openapi_document(request: web.Request) -> web.Response:
    return web.json_response(build_document())
