"""What ``--batch`` needs of a provider's batch API, one protocol both batch lanes implement.

`BatchApi` is submit, poll, read: `driftproof.batch_runner` drives it the same way for Anthropic Message Batches
(`anthropic_batch`) and the OpenAI Batch API (`openai_batch`), so an Anthropic answerer and an OpenAI judge
each go through their own. Each step sends its HTTP requests through a `BatchRequests` (``send``): each request
is retried by the run's retry policy (``--max-retries``, honouring ``retry-after``, backing off) as a lane's call
is (`driftproof.lanes.base.retried`), and every attempt is counted (the run's endpoint attempts). A request that
fails for good (not retryable, or its retries ran out) raises `BatchRequestFailed`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast

from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest, RetryPolicy, retried

T = TypeVar("T")

NOT_RETURNED = "the batch ended without a result for this request"
"""Why a request the batch's results left out is a failed call (followed by the batch id)."""


class BatchRequestFailed(Exception):
    """A request of a batch (its create, a poll, a read of its results) failed for good: not retryable, or its
    retries ran out. ``error`` words it as a lost draw's reason does, with the attempts it took."""

    def __init__(self, failure: AttemptFailure, error: str) -> None:
        super().__init__(error)
        self.failure = failure
        self.error = error


@dataclass
class BatchRequests:
    """Sends each HTTP request of a batch's steps, retried by ``policy`` (`retried`), and counts every attempt
    in ``http``. ``requests``: the HTTP requests one SDK call makes when it returns; ``made``: how many it made
    when it raised (one by default)."""

    classify: Callable[[BaseException], AttemptFailure]
    policy: RetryPolicy
    sleep: Callable[[float], None]
    http: int = 0
    """Every HTTP request sent so far, the failed attempts included."""
    retries: int = 0
    """The attempts beyond the first of each request (its retries), the last failed ones included."""

    def __call__(
        self, request: Callable[[], T], *, requests: int = 1, made: Callable[[BaseException], int] | None = None
    ) -> T:
        """``request()``, retried; raises `BatchRequestFailed` when it fails for good."""

        tries = 0

        def attempt() -> T:
            nonlocal tries
            tries += 1
            try:
                value = request()
            except Exception as exc:
                self.http += made(exc) if made is not None else 1
                raise
            self.http += requests
            return value

        got = retried(attempt, self.classify, self.policy, sleep=self.sleep)
        self.retries += max(0, tries - 1)
        if got.failure is not None:
            raise BatchRequestFailed(got.failure, got.error or got.failure.reason)
        return cast(T, got.value)


class BatchApi(Protocol):
    """One provider's batch API, through its lane's SDK client. Each request goes through ``send``."""

    def submit(self, send: BatchRequests, items: Mapping[str, GenerationRequest]) -> str:
        """Create one batch of ``items`` (by custom_id); its id."""

    def ended(self, send: BatchRequests, batch_id: str) -> bool:
        """Whether the batch has ended (one HTTP request): its results can be read."""

    def results(self, send: BatchRequests, batch_id: str, custom_ids: Sequence[str]) -> dict[str, Generation]:
        """Each custom_id's `Generation`; one the results left out is a failed call."""

    def classify(self, exc: BaseException) -> AttemptFailure:
        """How a batch request (create, poll, read) failed."""

    def policy(self) -> RetryPolicy:
        """The retry policy of the lane's calls (``--max-retries``), which each batch request is retried by."""


def failed(failure: AttemptFailure) -> Generation:
    """The `Generation` of a request the batch did not answer (no attempts of its own: the batch's are counted)."""
    return Generation(text="", attempts=0, error=failure.reason, timed_out=failure.timed_out, failure=failure)


def missing(batch_id: str) -> Generation:
    """The `Generation` of a request the batch's results left out."""
    return failed(AttemptFailure(retryable=False, reason=f"{NOT_RETURNED} (batch {batch_id})"))
