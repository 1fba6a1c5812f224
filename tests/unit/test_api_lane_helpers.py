"""The pure helpers both API lanes share: redaction, failure wording and retry classification."""

from __future__ import annotations

import doctest

import pytest

from driftproof.credentials import redact
from driftproof.lanes import _api_common, registry
from driftproof.lanes._api_common import status_failure, timeout_failure


def test_doctests() -> None:
    for module in (_api_common, registry):
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
