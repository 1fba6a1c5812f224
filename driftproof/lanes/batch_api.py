"""What ``--batch`` needs of a provider's batch API, one protocol both batch lanes implement.

`BatchApi` is submit, poll, read: `driftproof.batch_runner` drives it the same way for Anthropic Message Batches
(`anthropic_batch`) and the OpenAI Batch API (`openai_batch`), so an Anthropic answerer and an OpenAI judge
each go through their own. Each step says how many HTTP requests it made (the run's endpoint attempts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

from driftproof.lanes.base import AttemptFailure, Generation, GenerationRequest

NOT_RETURNED = "the batch ended without a result for this request"
"""Why a request the batch's results left out is a failed call (followed by the batch id)."""


class Submitted(NamedTuple):
    """A batch created: its id and the HTTP requests that took (Anthropic 1; OpenAI 2, the upload and the create)."""

    batch_id: str
    http: int


class Read(NamedTuple):
    """A batch's results by custom_id, and the HTTP requests reading them took."""

    generations: dict[str, Generation]
    http: int


class BatchApi(Protocol):
    """One provider's batch API, through its lane's SDK client. Each method raises what the SDK raises."""

    def submit(self, items: Mapping[str, GenerationRequest]) -> Submitted:
        """Create one batch of ``items`` (by custom_id)."""

    def ended(self, batch_id: str) -> bool:
        """Whether the batch has ended (one HTTP request): its results can be read."""

    def results(self, batch_id: str, custom_ids: Sequence[str]) -> Read:
        """Each custom_id's `Generation`; one the results left out is a failed call."""

    def classify(self, exc: BaseException) -> AttemptFailure:
        """How a batch request (create, poll, read) failed."""


def failed(failure: AttemptFailure) -> Generation:
    """The `Generation` of a request the batch did not answer (no attempts of its own: the batch's are counted)."""
    return Generation(text="", attempts=0, error=failure.reason, timed_out=failure.timed_out, failure=failure)


def missing(batch_id: str) -> Generation:
    """The `Generation` of a request the batch's results left out."""
    return failed(AttemptFailure(retryable=False, reason=f"{NOT_RETURNED} (batch {batch_id})"))
