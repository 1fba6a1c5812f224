"""What the two API lanes share: reading the environment, keeping keys out of text, wording failures.

Pure helpers, no SDK: each lane maps its own SDK's exceptions onto `status_failure`,
`timeout_failure` and `connection_failure`, so both lanes retry and word failures the same way.

>>> status_failure(429, {"retry-after": "0"}, "429 rate_limit_error: slow down")
AttemptFailure(retryable=True, reason='429 rate_limit_error: slow down', retry_after_s=0.0, timed_out=False, \
kind=<FailureKind.RATE_LIMIT: 'rate_limit'>, status=429, error_type=None)
>>> status_failure(400, {}, "400 invalid_request_error: bad").retryable
False
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Mapping
from urllib.parse import urlsplit

from driftproof import safe_text
from driftproof.credentials import redact
from driftproof.lanes.base import RETRYABLE_STATUS, AttemptFailure, FailureKind, kind_of_status, parse_retry_after

MAX_MESSAGE_CHARS = 300
"""An error message from the endpoint is cut to this many characters in a failure reason (after redaction)."""


class SentMaxTokens:
    """The output-token limits a lane actually sent, so that ``sampling()`` reports them and not a wish.

    ``ceiling`` is the lane's own ``max_tokens``: a request may ask for less (the judge's smaller budget),
    never more. Thread-safe: the runner calls one lane from several workers.

    >>> sent = SentMaxTokens(2048)
    >>> sent.recorded(), sent.take(1024), sent.take(4096), sent.recorded()
    (2048, 1024, 2048, [1024, 2048])
    """

    def __init__(self, ceiling: int) -> None:
        self.ceiling = ceiling
        self._sent: set[int] = set()
        self._lock = threading.Lock()

    def take(self, requested: int) -> int:
        """The limit to send for a request asking ``requested``, remembered."""
        value = min(requested, self.ceiling)
        with self._lock:
            self._sent.add(value)
        return value

    def recorded(self) -> int | list[int]:
        """The one limit sent, the sorted limits when they differed, or the ceiling before any call."""
        with self._lock:
            sent = sorted(self._sent)
        if not sent:
            return self.ceiling
        return sent[0] if len(sent) == 1 else sent


def env_value(environ: Mapping[str, str], name: str) -> str | None:
    """The variable's value without surrounding whitespace; ``None`` when unset or blank.

    >>> env_value({"A": " k \\n", "B": "  "}, "A"), env_value({"B": "  "}, "B"), env_value({}, "C")
    ('k', None, None)
    """
    value = environ.get(name)
    if value is None:
        return None
    return value.strip() or None


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


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, ``127.0.0.0/8``, ``::1``).

    >>> is_loopback_url("http://localhost:11434/v1"), is_loopback_url("http://127.0.0.1:8000/v1")
    (True, True)
    >>> is_loopback_url("http://[::1]:8080/v1"), is_loopback_url("https://api.openai.com/v1")
    (True, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def same_url(a: str, b: str) -> bool:
    """Whether two base URLs name the same endpoint, ignoring a trailing slash and the scheme/host case.

    >>> same_url("https://API.anthropic.com/", "https://api.anthropic.com")
    True
    """
    return a.rstrip("/").lower() == b.rstrip("/").lower()
