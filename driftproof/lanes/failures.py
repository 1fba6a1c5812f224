"""How a failed attempt is worded and classified, on every lane that calls an endpoint.

Pure helpers, no SDK: each API lane maps its own SDK's exceptions onto `status_failure`, `timeout_failure`,
`connection_failure` and `unreadable_failure`, and the CLI lanes word what their CLI reported with
`status_reason` and `one_line`, so every lane retries and words failures the same way.

>>> status_failure(429, {"retry-after": "0"}, "429 rate_limit_error: slow down")
AttemptFailure(retryable=True, reason='429 rate_limit_error: slow down', retry_after_s=0.0, timed_out=False, \
kind=<FailureKind.RATE_LIMIT: 'rate_limit'>, status=429, error_type=None)
>>> status_failure(400, {}, "400 invalid_request_error: bad").retryable
False
"""

from __future__ import annotations

from collections.abc import Mapping

from driftproof import safe_text
from driftproof.credentials import redact
from driftproof.lanes.base import RETRYABLE_STATUS, AttemptFailure, FailureKind, kind_of_status, parse_retry_after

MAX_MESSAGE_CHARS = 300
"""An error message from the endpoint is cut to this many characters in a failure reason (after redaction)."""


def one_line(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` redacted, then on one printable line (`safe_text.one_line`) of at most ``limit`` characters.

    Redaction comes first, so a credential that straddles the cut leaves no character behind.

    >>> one_line("a\\n  b"), one_line("x" * 10, limit=4)
    ('a b', 'xxx…')
    """
    return safe_text.one_line(redact(message), limit)


def status_reason(status: int, error_type: str | None, message: str | None) -> str:
    """``<status> <error type>: <message>``, as a lost draw's reason shows it.

    >>> status_reason(529, "overloaded_error", "Overloaded")
    '529 overloaded_error: Overloaded'
    >>> status_reason(502, None, None)
    '502 error: (no message)'
    """
    return f"{status} {error_type or 'error'}: {one_line(message or '(no message)')}"


def status_failure(
    status: int, headers: Mapping[str, str], reason: str, *, final: bool = False, error_type: str | None = None
) -> AttemptFailure:
    """Classify an HTTP error status the way both SDKs would, with their own retries off.

    Retryable: 408, 409, 429 and every 5xx (529 overloaded included). A server's ``x-should-retry``
    header overrides the status, as it does in both SDKs. ``final`` (a spend limit) is never retried.
    The wait comes from ``retry-after-ms`` / ``retry-after`` when the response carries one.
    """
    should_retry = {k.lower(): v for k, v in headers.items()}.get("x-should-retry", "").strip().lower()
    if final:
        retryable = False
    elif should_retry in ("true", "false"):
        retryable = should_retry == "true"
    else:
        retryable = status in RETRYABLE_STATUS or status >= 500
    return AttemptFailure(
        retryable=retryable,
        reason=reason,
        retry_after_s=parse_retry_after(headers),
        kind=kind_of_status(status, final=final),
        status=status,
        error_type=error_type,
    )


def timeout_failure(timeout_s: float) -> AttemptFailure:
    """A request that got no complete answer within the lane's timeout: retryable, ``timed_out``."""
    return AttemptFailure(
        retryable=True, reason=f"timed out after {timeout_s:g}s", timed_out=True, kind=FailureKind.TIMEOUT
    )


def connection_failure(detail: str) -> AttemptFailure:
    """The endpoint could not be reached or hung up: retryable."""
    return AttemptFailure(retryable=True, reason=f"connection error: {one_line(detail)}", kind=FailureKind.CONNECTION)


class UnreadableReply(Exception):
    """A 200 whose body is not a reply the lane can read: the server's fault, retried like a 5xx."""

    @classmethod
    def not_json(cls, body: str) -> UnreadableReply:
        """The body does not parse as JSON (a proxy's HTML page, an empty or cut-off body)."""
        return cls(f"200 with a body that is not JSON: {one_line(body) or '(empty)'}")

    @classmethod
    def no_reply(cls, body: str) -> UnreadableReply:
        """The body is JSON, but holds no reply (no ``content`` blocks, no ``choices`` with a message)."""
        return cls(f"200 with no reply in the body: {one_line(body) or '(empty)'}")


def unreadable_failure(exc: UnreadableReply) -> AttemptFailure:
    """A 200 the lane could not read: retryable, as a 5xx is.

    >>> unreadable_failure(UnreadableReply.not_json("")).reason
    '200 with a body that is not JSON: (empty)'
    """
    return AttemptFailure(retryable=True, reason=str(exc), kind=FailureKind.SERVER, status=200)
