"""The pure helpers both API lanes share: redaction, failure wording and retry classification."""

from __future__ import annotations

import doctest
import random
from collections.abc import Callable

import pytest

from driftproof.credentials import redact
from driftproof.lanes import api, endpoints, failures, registry
from driftproof.lanes.base import AttemptFailure, Generation, RetryPolicy, with_retries
from driftproof.lanes.failures import status_failure, timeout_failure


def test_doctests() -> None:
    for module in (api, endpoints, failures, registry):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-ant-api03-AbC_def-123 refused", "key [REDACTED] refused"),
        ("project key sk-proj-xyz0123456789", "project key [REDACTED]"),
        ("Authorization: Bearer abc.def-ghi", "Authorization: Bearer [REDACTED]"),
        ("x-api-key: secretvalue", "x-api-key: [REDACTED]"),
        ("my-own-secret appears twice: my-own-secret", "[REDACTED] appears twice: [REDACTED]"),
        ("nothing to hide", "nothing to hide"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text, ["my-own-secret"]) == expected


@pytest.mark.parametrize(
    ("status", "headers", "retryable", "retry_after_s"),
    [
        (429, {"retry-after": "3"}, True, 3.0),
        (429, {"retry-after-ms": "250"}, True, 0.25),
        (529, {}, True, None),
        (500, {}, True, None),
        (501, {}, True, None),  # any 5xx, as both SDKs do
        (503, {}, True, None),
        (408, {}, True, None),
        (409, {}, True, None),
        (400, {}, False, None),
        (401, {}, False, None),
        (403, {}, False, None),
        (404, {}, False, None),
        (413, {}, False, None),
        (422, {}, False, None),
        (500, {"x-should-retry": "false"}, False, None),  # the server's word wins, as in both SDKs
        (400, {"X-Should-Retry": "true"}, True, None),
    ],
)
def test_status_failure(status: int, headers: dict[str, str], retryable: bool, retry_after_s: float | None) -> None:
    failure = status_failure(status, headers, "reason")
    assert (failure.retryable, failure.retry_after_s, failure.timed_out) == (retryable, retry_after_s, False)


def test_a_final_failure_is_never_retried() -> None:
    assert not status_failure(429, {"retry-after": "0"}, "spend limit", final=True).retryable


def test_timeout_failure() -> None:
    failure = timeout_failure(0.25)
    assert (failure.retryable, failure.timed_out, failure.reason) == (True, True, "timed out after 0.25s")


# -- how long one logical call may wait in retries -----------------------------------------------------------------


def _always(failure: AttemptFailure) -> Callable[[], Generation]:
    def call() -> Generation:
        raise RuntimeError("fails")

    return call


def test_a_long_retry_after_is_capped_per_wait_and_in_all() -> None:
    # retry-after 3600: each wait is capped at 120 s, and one call waits at most 300 s in all.
    # Waits 120 (total 120), 120 (total 240); a third 120 would make 360 > 300, so the call ends after
    # 3 attempts, having waited 240 s, and says the provider asked for longer.
    failure = AttemptFailure(retryable=True, reason="429 rate_limit_error: slow down", retry_after_s=3600.0)
    slept: list[float] = []
    g = with_retries(_always(failure), lambda exc: failure, RetryPolicy(max_retries=10), sleep=slept.append)
    assert slept == [120.0, 120.0]
    assert g.attempts == 3
    assert g.error == (
        "429 rate_limit_error: slow down after 3 attempts; the provider asked to wait 3600s, "
        "and one call waits at most 300s in all"
    )


def test_backoff_alone_stops_at_the_total_wait() -> None:
    # No retry-after: backoff 1, 2, 4, 8 s, times 0.75 with no jitter (rng 0.0): 0.75, 1.5, 3, 6;
    # with a 5 s total: 0.75 + 1.5 = 2.25, + 3 = 5.25 > 5, so two waits and three attempts.
    failure = AttemptFailure(retryable=True, reason="503 error: busy")
    slept: list[float] = []
    policy = RetryPolicy(max_retries=10, base_delay_s=1.0, max_total_wait_s=5.0)

    class NoJitter(random.Random):
        def random(self) -> float:
            return 0.0

    g = with_retries(_always(failure), lambda exc: failure, policy, sleep=slept.append, rng=NoJitter())
    assert slept == [0.75, 1.5]
    assert g.error == "503 error: busy after 3 attempts; retries stopped at the 5s one call waits at most"


def test_retries_inside_the_budget_are_unchanged() -> None:
    failure = AttemptFailure(retryable=True, reason="529 overloaded_error: Overloaded", retry_after_s=1.0)
    slept: list[float] = []
    g = with_retries(_always(failure), lambda exc: failure, RetryPolicy(max_retries=4), sleep=slept.append)
    assert slept == [1.0, 1.0, 1.0, 1.0]
    assert g.error == "529 overloaded_error: Overloaded after 5 attempts"
