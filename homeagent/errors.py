"""The one error tree of HomeAgent.

    HomeAgentError                  base of everything raised on purpose
    ├── ConfigError                 the config file or an override is wrong (start-up)
    ├── StartupError                a resource needed to start is missing or broken
    │   ├── PersonalityError        personal.md missing or empty
    │   ├── ModelError              the model file is missing or cannot be loaded
    │   └── SchemaVersionError      the database comes from a newer HomeAgent
    ├── ProviderError               an LLM provider failed (carries `retryable`)
    ├── ToolError                   a tool failed; the message is shown to the model
    │   ├── ToolValidationError     tool arguments do not match the tool's schema
    │   └── HomeUnavailable         Home Assistant cannot be reached or refused HomeAgent's token
    └── RequestError                a client sent something unusable (HTTP 4xx)
        ├── AuthError               missing or wrong API token (401)
        └── NotFoundError           no such resource (404)

Every error carries a message written for its audience: the operator for start-up errors,
the model for tool errors, the client for request errors. None of them ever includes a
secret.
"""

from __future__ import annotations


class HomeAgentError(Exception):
    """Base of every error HomeAgent raises on purpose."""


class ConfigError(HomeAgentError):
    """The configuration is invalid; the message names the key path and the fix."""


class StartupError(HomeAgentError):
    """Something needed to start the daemon is missing or broken."""


class PersonalityError(StartupError):
    """personal.md is missing or empty."""


class ModelError(StartupError):
    """The model file is missing or cannot be loaded."""


class SchemaVersionError(StartupError):
    """The database was written by a newer version of HomeAgent."""


class ProviderError(HomeAgentError):
    """An LLM provider failed to produce a reply."""

    def __init__(self, message: str, *, retryable: bool = False, kind: str = "provider_error"):
        super().__init__(message)
        self.retryable = retryable
        self.kind = kind


class ToolError(HomeAgentError):
    """A tool failed; the message is fed back to the model so it can explain or retry."""


class ToolValidationError(ToolError):
    """The arguments of a tool call do not match the tool's JSON Schema."""


class HomeUnavailable(ToolError):
    """Home Assistant is unreachable (or rejects the token); the message says so plainly."""


class RequestError(HomeAgentError):
    """A client request cannot be served; maps to an HTTP 4xx."""

    status = 400
    code = "invalid_request_error"

    def __init__(self, message: str, *, param: str | None = None):
        super().__init__(message)
        self.param = param


class AuthError(RequestError):
    status = 401
    code = "invalid_api_key"


class NotFoundError(RequestError):
    status = 404
    code = "not_found"
