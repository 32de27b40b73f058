"""Why a provider failed, and what each reason means for retry, cooldown and failover.

    kind                  cause                                      retried   router
    missing_credential    no API key configured                      no        skipped, no network call
    auth_failed           HTTP 401/403: the key is wrong or revoked  no        disabled until the config changes
    billing               HTTP 402, quota exhausted                  no        disabled until the config changes
    model_not_found       HTTP 404: wrong base_url or model name     no        disabled until the config changes
    rate_limited          HTTP 429                                   yes       cooldown
    timeout               connect or read took too long              connect   cooldown
    upstream_unavailable  refused, reset, DNS, HTTP 5xx, stream cut  yes       cooldown
    malformed_response    not JSON, not the protocol                 no        cooldown
    bad_request           HTTP 400/413/422 (e.g. context too long)   no        next provider, no cooldown
    tools_unsupported     the model cannot do function calling       no        same provider via [ACTION]

A kind is the `kind` of the `StreamError` a provider yields, the `error_kind` in its
status (and so in /healthz), and a key of every `llm.provider.failed` log line.
"""

from __future__ import annotations

from dataclasses import dataclass

MISSING_CREDENTIAL = "missing_credential"
AUTH_FAILED = "auth_failed"
BILLING = "billing"
MODEL_NOT_FOUND = "model_not_found"
RATE_LIMITED = "rate_limited"
TIMEOUT = "timeout"
UPSTREAM_UNAVAILABLE = "upstream_unavailable"
MALFORMED_RESPONSE = "malformed_response"
BAD_REQUEST = "bad_request"
TOOLS_UNSUPPORTED = "tools_unsupported"

# Errors that say "this configuration cannot work": no point in trying again soon.
DISABLING = frozenset({MISSING_CREDENTIAL, AUTH_FAILED, BILLING, MODEL_NOT_FOUND})
# Errors that say "not now": the provider cools down and is probed again later.
TRANSIENT = frozenset({RATE_LIMITED, TIMEOUT, UPSTREAM_UNAVAILABLE, MALFORMED_RESPONSE})

_DESCRIPTIONS = {
    MISSING_CREDENTIAL: "no API key configured",
    AUTH_FAILED: "the API key was rejected",
    BILLING: "the account has no credit left",
    MODEL_NOT_FOUND: "the model or endpoint does not exist",
    RATE_LIMITED: "rate limited",
    TIMEOUT: "timed out",
    UPSTREAM_UNAVAILABLE: "unreachable or failing",
    MALFORMED_RESPONSE: "sent a malformed response",
    BAD_REQUEST: "refused the request",
    TOOLS_UNSUPPORTED: "the model does not support function calling",
}


def describe(kind: str) -> str:
    return _DESCRIPTIONS.get(kind, kind.replace("_", " "))


class UpstreamFailure(Exception):
    """Raised inside a provider; turned into a `StreamError` at its boundary.

    `connecting` is true when nothing was received yet (a retry cannot duplicate output);
    `retry_after` is the upstream's own hint in seconds (HTTP Retry-After).
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        connecting: bool = False,
    ):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retry_after = retry_after
        self.connecting = connecting

    @property
    def retryable(self) -> bool:
        """Worth another attempt on the same provider, after a backoff."""
        if self.kind in (RATE_LIMITED, UPSTREAM_UNAVAILABLE):
            return True
        # A connect timeout is retried; a read timeout means the upstream hangs mid-way,
        # and waiting for it again only doubles the user's wait.
        return self.kind == TIMEOUT and self.connecting


def classify_status(status: int, body: str = "") -> str:
    """The failure kind of an HTTP error status (and its body, for the ambiguous ones)."""
    lowered = body.lower()
    if status in (401, 403):
        return AUTH_FAILED
    if status == 402 or "insufficient_quota" in lowered or "insufficient balance" in lowered:
        return BILLING
    if status == 404:
        return MODEL_NOT_FOUND
    if status == 408:
        return TIMEOUT
    if status == 429:
        return RATE_LIMITED
    if status in (400, 413, 422):
        if "support" in lowered and ("tool" in lowered or "function" in lowered):
            return TOOLS_UNSUPPORTED
        return BAD_REQUEST
    return UPSTREAM_UNAVAILABLE


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # an HTTP date: rare from APIs, and the backoff covers it
    return max(0.0, seconds)


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff for in-place retries: base, 2×base, 4×base …, capped."""

    base: float = 0.5
    cap: float = 8.0
    max_retry_after: float = 20.0

    def delay(self, retry: int, retry_after: float | None = None) -> float | None:
        """Seconds to wait before retry number `retry` (1-based); None: do not retry."""
        if retry_after is not None:
            # A long Retry-After is better spent on the next provider of the chain.
            return retry_after if retry_after <= self.max_retry_after else None
        return min(self.cap, self.base * (2 ** (retry - 1)))
