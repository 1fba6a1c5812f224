"""The lane contract: one ``generate()`` per lane, one retry policy for all of them.

A lane turns one request (system text or none, a prompt) into one ``Generation``: the reply text, the model id
the reply reported (or, where the surface names none, the one the lane was configured with), usage, and how
many endpoint attempts it took. A lane never raises for a failed call: an error after retries or a timeout
comes back as a ``Generation`` with ``error`` set, so the runner records a lost draw (or an invalid judge
sample) with its reason. Only a lane that cannot run at all (missing SDK, missing binary, another model
answering) raises ``LaneError``.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Literal, TypeVar
from urllib.parse import urlsplit

from driftproof.core.defaults import DEFAULTS
from driftproof.core.models import CapturedFileRecord, Harness, SideCall, Usage
from driftproof.core.words import Provider, Surface

Purpose = Literal["answer", "judge"]
T = TypeVar("T")
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class FailureKind(StrEnum):
    """What kind of failure ended a call: the runner stops a run at the first of the `FATAL` kinds."""

    AUTHENTICATION = "authentication"
    """401: the key is missing, wrong or expired."""
    PERMISSION = "permission"
    """403: the key may not use this model or endpoint."""
    NOT_FOUND = "not_found"
    """404: no such model or endpoint."""
    BAD_REQUEST = "bad_request"
    """400, 413, 422: the endpoint refused the request as written."""
    QUOTA = "quota"
    """A 429 that waiting does not cure: a spend limit or an exhausted quota."""
    RATE_LIMIT = "rate_limit"
    """429: retried; a failure only once the retries ran out."""
    SERVER = "server"
    """5xx and 529 (overloaded): retried."""
    TIMEOUT = "timeout"
    """No complete answer within the timeout: retried."""
    CONNECTION = "connection"
    """The endpoint could not be reached (refused, DNS, reset): retried."""
    OTHER = "other"
    """Anything else."""


FATAL = frozenset(
    {
        FailureKind.AUTHENTICATION,
        FailureKind.PERMISSION,
        FailureKind.NOT_FOUND,
        FailureKind.BAD_REQUEST,
        FailureKind.QUOTA,
    }
)
"""Failures that every later call would meet too: the run stops at the first one."""


def kind_of_status(status: int, *, final: bool = False) -> FailureKind:
    """The failure kind of an HTTP error status (``final``: a 429 that waiting does not cure).

    >>> kind_of_status(401), kind_of_status(429), kind_of_status(429, final=True), kind_of_status(529)
    (<FailureKind.AUTHENTICATION: 'authentication'>, <FailureKind.RATE_LIMIT: 'rate_limit'>, \
<FailureKind.QUOTA: 'quota'>, <FailureKind.SERVER: 'server'>)
    """
    if status == 429:
        return FailureKind.QUOTA if final else FailureKind.RATE_LIMIT
    named = {401: FailureKind.AUTHENTICATION, 403: FailureKind.PERMISSION, 404: FailureKind.NOT_FOUND}
    if status in named:
        return named[status]
    if status in (400, 413, 422):
        return FailureKind.BAD_REQUEST
    if status == 408:
        return FailureKind.TIMEOUT
    return FailureKind.SERVER if status >= 500 else FailureKind.OTHER


def url_host(url: str | None) -> str | None:
    """The host (and port, when given) of a URL.

    >>> url_host("https://api.anthropic.com/v1"), url_host("http://127.0.0.1:8080"), url_host(None)
    ('api.anthropic.com', '127.0.0.1:8080', None)
    """
    if not url:
        return None
    return urlsplit(url).netloc or None


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """One logical call."""

    prompt: str
    system: str | None = None
    model: str | None = None
    max_tokens: int = 2048
    purpose: Purpose = "answer"
    case_id: str = ""
    arm: str = ""
    draw_index: int = 0
    sample_index: int = 0
    cache_breaks: tuple[int, ...] = ()
    """Offsets in ``prompt`` that each end a prefix many calls share (the judge's fixed instructions, then the
    case): a lane that caches sends the prompt cut there, each piece but the last marked cacheable; any other
    lane sends ``prompt`` whole, as it is."""
    samples: int = 1
    """Answers asked for in this one request (Chat Completions ``n``): more than 1 only for a lane whose
    `Lane.samples_per_request` allows it."""
    anchor: float | None = None
    """A judge-anchor canary's expected score (``arm`` is ``canary``): read by the stub judge only, which scores an
    anchor at it unless its script says otherwise; no other lane sends it anywhere."""


@dataclass(frozen=True, slots=True)
class Generation:
    """What one logical call returned. ``error`` is set when the call failed after its retries."""

    text: str
    reported_model: str | None = None
    #: Where ``reported_model`` came from: the reply named it (``reported``), or the lane's configuration did
    #: because the surface names none (``configured``, Codex); ``None`` when there is no model id.
    model_source: Literal["reported", "configured"] | None = None
    served_model: str | None = None
    #: Every model id the reply itself reported, verbatim (dates kept), in the order it gave them; empty when it
    #: reported none (an anonymous reply: a configured id is not reported).
    reported_ids: tuple[str, ...] = ()
    #: The provider's id of the request or session (an HTTP ``request-id`` header, Claude Code's session, Codex's
    #: thread); never a model id.
    request_id: str | None = None
    usage: Usage | None = None
    attempts: int = 1
    error: str | None = None
    timed_out: bool = False
    captured_files: tuple[CapturedFileRecord, ...] | None = None
    skill_fired: bool | None = None
    skills_fired: tuple[str, ...] | None = None
    """With ``discover`` delivery, the installed skills (by folder name: the skill under test, its neighbours)
    the transcript shows firing, in the order they first fired; ``None`` where nothing was installed."""
    side_calls: tuple[SideCall, ...] | None = None
    lost_reason: str | None = None
    #: True when the lane applied the capture rules itself (the CLI lanes, whose model answers as an agent
    #: with tools): ``text`` is then the graded answer. An unassessed reply is graded as it stands.
    assessed: bool = False
    failure: AttemptFailure | None = None
    """How the last attempt failed, when ``error`` is set and the lane could classify it."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    choices: tuple[str, ...] | None = None
    """Every answer's text, in choice order, when one request asked for several (``samples`` > 1); ``text`` is the
    first. ``None`` for a request that asked for one."""


class Lane(ABC):
    """A provider x surface that answers requests."""

    provider: Provider
    surface: Surface
    SAMPLES_PER_REQUEST: ClassVar[int] = 1
    """The most answers to one prompt one request of this lane can ask for (read without building the lane, by
    ``driftproof plan``); `samples_per_request` says how many it asks for now."""

    @abstractmethod
    def generate(self, request: GenerationRequest) -> Generation:
        """Answer one request; never raise for a failed call (set ``error``)."""

    def sampling(self) -> dict[str, Any]:
        """The sampling settings this lane actually sends (not the ones wished for)."""
        return {}

    def samples_per_request(self) -> int:
        """How many answers to one prompt this lane can ask for in one request (``GenerationRequest.samples``)."""
        return self.SAMPLES_PER_REQUEST

    def harness(self) -> Harness | None:
        """The CLI harness and its printed version (CLI surface only)."""
        return None

    def base_url(self) -> str | None:
        """The endpoint base URL when it is not the vendor default."""
        return None

    def default_model(self) -> str | None:
        """The model this lane uses when none is requested."""
        return None

    def tool_version(self) -> str | None:
        """The client this lane calls through and its version; ``None`` when unknown."""
        return None

    def isolation(self) -> str | None:
        """How each call is kept apart from this machine, in words; ``None`` when not described."""
        return None

    def routing(self) -> dict[str, str]:
        """The routing settings this lane's calls are handed beyond the base URL, credentials removed."""
        return {}

    def timeout_s(self) -> float | None:
        """Seconds one attempt may take (``None``: the lane has no timeout, as the stub)."""
        return None

    def endpoint(self) -> str:
        """Where this lane's calls go, in words for an error message: a URL, or what the CLI talks to."""
        return self.base_url() or "its default endpoint"

    def credential_names(self) -> tuple[str, ...]:
        """The environment variables this lane reads a credential from (named in errors; never their values)."""
        return ()

    def install_neighbours(self, skills: Sequence[str]) -> None:  # noqa: B027 - only the CLI lanes install
        """The neighbour skills' texts to install beside the skill under test, in both arms (``discover``)."""

    def close(self) -> None:  # noqa: B027 - a no-op default; lanes with clients override it
        """Release clients and processes."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries with exponential backoff that honour ``retry-after`` (429, 529, 5xx, timeouts)."""

    max_retries: int = DEFAULTS.max_retries
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0
    """One wait is at most this long, whatever ``retry-after`` asks."""
    max_total_wait_s: float = 300.0
    """One logical call waits at most this long in all: a retry whose wait would pass it is not made."""

    def delay(self, attempt: int, retry_after_s: float | None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based).

        >>> RetryPolicy().delay(1, retry_after_s=2.5)
        2.5
        >>> 0.375 <= RetryPolicy().delay(1, None, random.Random(0)) <= 0.5
        True
        """
        if retry_after_s is not None and retry_after_s >= 0:
            return min(retry_after_s, self.max_retry_after_s)
        base = min(self.base_delay_s * 2.0 ** (attempt - 1), self.max_delay_s)
        jitter: float = (rng or random).random()
        return base * (0.75 + 0.25 * jitter)


@dataclass(frozen=True, slots=True)
class AttemptFailure:
    """One failed endpoint attempt, as a lane classified it."""

    retryable: bool
    reason: str
    retry_after_s: float | None = None
    timed_out: bool = False
    kind: FailureKind = FailureKind.OTHER
    status: int | None = None
    """The HTTP status, when the endpoint answered with one."""
    error_type: str | None = None
    """The provider's own error type (``authentication_error``, ``invalid_api_key``), when it named one."""


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds); ``None`` when absent or a date.

    >>> parse_retry_after({"retry-after": "3"}), parse_retry_after({"retry-after-ms": "250"})
    (3.0, 0.25)
    """
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = lower.get(key)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) * scale)
        except ValueError:
            continue
    return None


@dataclass(frozen=True, slots=True)
class Retried(Generic[T]):
    """What `retried` came back with: the call's value, or its last failure and the words for it; and the
    endpoint attempts made."""

    value: T | None
    attempts: int
    failure: AttemptFailure | None = None
    error: str | None = None
    """The last failure's reason, with how many attempts it took and why no more were made."""


def retried(
    call: Callable[[], T],
    classify: Callable[[BaseException], AttemptFailure],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> Retried[T]:
    """Run ``call`` until it returns, fails for good, or runs out of retries or of time to wait: the one retry
    loop, for a lane's call (`with_retries`) and for each request of a batch (`driftproof.lanes.batch_api`).

    ``classify`` maps an exception from one attempt to an ``AttemptFailure``; anything it marks not retryable
    ends the call at once. A retry whose wait would take the call past the policy's ``max_total_wait_s`` is not
    made, and the error says so (with what ``retry-after`` asked for).

    >>> failure = AttemptFailure(retryable=True, reason="529 overloaded_error: Overloaded", retry_after_s=0)
    >>> calls = iter([OSError(), OSError(), "ok"])
    >>> def call() -> str:
    ...     got = next(calls)
    ...     if isinstance(got, Exception):
    ...         raise got
    ...     return got
    >>> got = retried(call, lambda exc: failure, RetryPolicy(max_retries=4), sleep=lambda s: None)
    >>> got.value, got.attempts
    ('ok', 3)
    >>> calls = iter([OSError(), "ok"])
    >>> got = retried(call, lambda exc: failure, RetryPolicy(max_retries=0))
    >>> got.value, got.attempts, got.error
    (None, 1, '529 overloaded_error: Overloaded')
    """
    attempt = 0
    waited = 0.0
    while True:
        attempt += 1
        try:
            value = call()
        except Exception as exc:  # classified below
            failure = classify(exc)
            stopped = ""
            if failure.retryable and attempt <= policy.max_retries:
                wait = policy.delay(attempt, failure.retry_after_s, rng)
                if waited + wait <= policy.max_total_wait_s:
                    sleep(wait)
                    waited += wait
                    continue
                stopped = _out_of_wait(failure.retry_after_s, policy)
            tail = f" after {attempt} attempts" if attempt > 1 else ""
            return Retried(None, attempt, failure, f"{failure.reason}{tail}{stopped}")
        return Retried(value, attempt)


def with_retries(
    call: Callable[[], Generation],
    classify: Callable[[BaseException], AttemptFailure],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> Generation:
    """Run ``call`` until it succeeds, fails for good, or runs out of retries or of time to wait (`retried`).

    A lane never raises for a failed call: the failure comes back as a ``Generation`` with ``error`` set. The
    result's ``attempts`` counts every endpoint attempt.
    """
    got = retried(call, classify, policy, sleep=sleep, rng=rng)
    if got.failure is None:
        assert got.value is not None  # a call that returned
        return _with_attempts(got.value, got.attempts)
    return Generation(
        text="", attempts=got.attempts, error=got.error, timed_out=got.failure.timed_out, failure=got.failure
    )


def _out_of_wait(retry_after_s: float | None, policy: RetryPolicy) -> str:
    """Why a retryable failure was not retried: one more wait would pass the call's total."""
    cap = f"{policy.max_total_wait_s:g}s"
    if retry_after_s is not None:
        return f"; the provider asked to wait {retry_after_s:g}s, and one call waits at most {cap} in all"
    return f"; retries stopped at the {cap} one call waits at most"


def _with_attempts(result: Generation, attempts: int) -> Generation:
    from dataclasses import replace

    return replace(result, attempts=attempts)
