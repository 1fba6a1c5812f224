"""Anthropic Message Batches (``--batch``): many requests as one batch, polled until it ends, read back by custom_id.

`submit` is one HTTP request (``POST /v1/messages/batches``), `ended` one (``GET …/{id}``), `results` two (the
SDK reads the batch again for its ``results_url``, then the JSONL; a failed read is retried whole, and counts the
requests it made: one when the batch's read failed, two when the JSONL's did). Every item's reply becomes the
`Generation` an ordinary call would have returned; an item that errored, expired or was canceled comes back with
``error`` set, so the runner records a lost draw (or an invalid judge sample) with its reason, as for a failed call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from driftproof.credentials import redact
from driftproof.lanes.anthropic_api import AnthropicApiLane, generation_of
from driftproof.lanes.base import AttemptFailure, FailureKind, Generation, GenerationRequest, RetryPolicy
from driftproof.lanes.batch_api import NOT_RETURNED, BatchRequests, failed, missing

__all__ = ["NOT_RETURNED", "AnthropicBatches", "ended", "failed", "results", "submit"]


@dataclass(frozen=True, slots=True)
class AnthropicBatches:
    """Message Batches as a `driftproof.lanes.batch_api.BatchApi`: create 1 request, poll 1, results 2."""

    lane: AnthropicApiLane

    def submit(self, send: BatchRequests, items: Mapping[str, GenerationRequest]) -> str:
        """Create one batch (``POST /v1/messages/batches``)."""
        return send(lambda: submit(self.lane, items))

    def ended(self, send: BatchRequests, batch_id: str) -> bool:
        """Whether its ``processing_status`` is ``ended``."""
        return send(lambda: ended(self.lane, batch_id))

    def results(self, send: BatchRequests, batch_id: str, custom_ids: Sequence[str]) -> dict[str, Generation]:
        """Its results (the SDK reads the batch again for its ``results_url``, then the JSONL)."""
        return send(lambda: results(self.lane, batch_id, custom_ids), requests=2, made=results_requests_made)

    def classify(self, exc: BaseException) -> AttemptFailure:
        """As the lane classifies an exception of one request."""
        return self.lane.classify(exc)

    def policy(self) -> RetryPolicy:
        """The lane's retry policy."""
        return self.lane.retry_policy()


def results_requests_made(exc: BaseException) -> int:
    """The HTTP requests a failed read of a batch's results made: two when the JSONL's request failed (the
    exception's request is the ``…/results`` one), else one (the read of the batch before it).

    >>> results_requests_made(ValueError("no request"))
    1
    """
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    path = getattr(url, "path", "")
    return 2 if isinstance(path, str) and path.rstrip("/").endswith("/results") else 1


def submit(lane: AnthropicApiLane, items: Mapping[str, GenerationRequest]) -> str:
    """Create one batch of ``items`` (by custom_id); its id. Raises what the SDK raises."""
    requests: list[Any] = [
        {"custom_id": custom_id, "params": lane.message_params(request, lane.sent_max_tokens(request))}
        for custom_id, request in items.items()
    ]
    return lane.client.messages.batches.create(requests=requests).id


def ended(lane: AnthropicApiLane, batch_id: str) -> bool:
    """Whether the batch has ended (``processing_status: ended``). Raises what the SDK raises."""
    return lane.client.messages.batches.retrieve(batch_id).processing_status == "ended"


def results(lane: AnthropicApiLane, batch_id: str, custom_ids: Sequence[str]) -> dict[str, Generation]:
    """Each custom_id's `Generation`; one the results left out is a failed call. Raises what the SDK raises."""
    found: dict[str, Generation] = {}
    for line in lane.client.messages.batches.results(batch_id):
        found[line.custom_id] = _item(line.result, batch_id)
    gone = missing(batch_id)
    return {custom_id: found.get(custom_id, gone) for custom_id in custom_ids}


def _item(result: Any, batch_id: str) -> Generation:
    """One result line: the message, or why there is none."""
    kind = getattr(result, "type", None)
    if kind == "succeeded":
        return replace(generation_of(result.message, None), attempts=0)
    if kind == "errored":
        error = result.error.error
        reason = redact(f"the batch item errored: {error.type}: {error.message}")
        return failed(AttemptFailure(retryable=False, reason=reason, kind=FailureKind.OTHER, error_type=error.type))
    if kind == "expired":
        reason = f"timeout: the batch {batch_id} expired before this request was processed"
        return failed(AttemptFailure(retryable=False, reason=reason, timed_out=True, kind=FailureKind.TIMEOUT))
    return failed(AttemptFailure(retryable=False, reason=f"the batch item was {kind} (batch {batch_id})"))
