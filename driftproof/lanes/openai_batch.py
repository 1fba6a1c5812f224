"""The OpenAI Batch API (``--batch``): Chat Completions requests as one uploaded file, polled, read back by custom_id.

`OpenAIBatches.submit` is two HTTP requests, each retried on its own: the JSONL upload (``POST /v1/files``,
``purpose=batch``; each line ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``, the body
the OpenAI lane sends) and the create (``POST /v1/batches``, ``completion_window: 24h``). `ended` is one
(``GET /v1/batches/{id}``): a batch has ended once it is ``completed``, ``failed``, ``expired`` or ``cancelled``.
`results` reads the batch's output file and its error file (``GET /v1/files/{id}/content``), one request each that
exists.

Every output line's ``response.body`` is a Chat Completions object, read as the lane reads a reply (text,
model, usage with ``cached_tokens``; the request id is the line's ``response.request_id``). A line that errored
(a non-200 ``response`` or an ``error``), a request the batch expired before running (``batch_expired``) and a
request neither file holds come back with ``error`` set, so the runner records a lost draw (or an invalid judge
sample) with its reason, as for a failed call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from driftproof.credentials import redact
from driftproof.lanes.base import AttemptFailure, FailureKind, Generation, GenerationRequest, RetryPolicy
from driftproof.lanes.batch_api import BatchRequests, failed, missing
from driftproof.lanes.failures import UnreadableReply, one_line, status_reason
from driftproof.lanes.openai_api import OpenAIApiLane, generation_of

CHAT_COMPLETIONS: Final[Literal["/v1/chat/completions"]] = "/v1/chat/completions"
"""The endpoint of every line of a batch, and of the batch."""
COMPLETION_WINDOW: Final[Literal["24h"]] = "24h"
"""The only completion window the Batch API offers."""
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
"""The statuses after which a batch changes no more (``validating``, ``in_progress``, ``finalizing`` and
``cancelling`` are still moving)."""
EXPIRED_CODE = "batch_expired"
"""The ``error.code`` of a line the batch expired before running."""


@dataclass
class OpenAIBatches:
    """The OpenAI Batch API as a `driftproof.lanes.batch_api.BatchApi`, through the OpenAI lane's client."""

    lane: OpenAIApiLane
    _seen: dict[str, Any] = field(default_factory=dict)
    """The last ``Batch`` each poll read, by id: its file ids are read from it."""

    def submit(self, send: BatchRequests, items: Mapping[str, GenerationRequest]) -> str:
        """Upload the requests as JSONL, then create the batch from the file (each request retried on its own: a
        create that fails does not upload the file again)."""
        lines = [
            {
                "custom_id": custom_id,
                "method": "POST",
                "url": CHAT_COMPLETIONS,
                "body": self.lane.chat_body(request, self.lane.sent_max_tokens(request)),
            }
            for custom_id, request in items.items()
        ]
        jsonl = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()
        client = self.lane.client
        upload = send(
            lambda: client.files.create(file=("driftproof-batch.jsonl", jsonl, "application/jsonl"), purpose="batch")
        )
        batch = send(
            lambda: client.batches.create(
                input_file_id=upload.id, endpoint=CHAT_COMPLETIONS, completion_window=COMPLETION_WINDOW
            )
        )
        return str(batch.id)

    def ended(self, send: BatchRequests, batch_id: str) -> bool:
        """Whether the batch's status is one it ends in."""
        batch = send(lambda: self.lane.client.batches.retrieve(batch_id))
        self._seen[batch_id] = batch
        return batch.status in ENDED

    def results(self, send: BatchRequests, batch_id: str, custom_ids: Sequence[str]) -> dict[str, Generation]:
        """The output and error files joined on custom_id (one request each that exists); a request in neither is a
        failed call."""
        batch = self._seen.get(batch_id)
        if batch is None:  # not polled by this object: read it first
            batch = send(lambda: self.lane.client.batches.retrieve(batch_id))
        found: dict[str, Generation] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for text in self._content(send, file_id).splitlines():
                line = json.loads(text) if text.strip() else None
                if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
                    found[line["custom_id"]] = self._line(line, batch_id)
        gone = _not_run(batch, batch_id)
        return {custom_id: found.get(custom_id, gone) for custom_id in custom_ids}

    def _content(self, send: BatchRequests, file_id: str) -> str:
        """One file's text (``GET /v1/files/{id}/content``)."""
        return send(lambda: str(self.lane.client.files.content(file_id).text))

    def classify(self, exc: BaseException) -> AttemptFailure:
        """As the lane classifies an exception of one request."""
        return self.lane.classify(exc)

    def policy(self) -> RetryPolicy:
        """The lane's retry policy."""
        return self.lane.retry_policy()

    def _line(self, line: Mapping[str, Any], batch_id: str) -> Generation:
        """One line of the output or error file: the reply, or why there is none."""
        error, response = line.get("error"), line.get("response")
        if isinstance(error, Mapping):
            return _errored(error, batch_id, None)
        if not isinstance(response, Mapping):
            return missing(batch_id)
        body, status = response.get("body"), response.get("status_code")
        if status != 200:
            inner = body.get("error") if isinstance(body, Mapping) else None
            return _errored(inner if isinstance(inner, Mapping) else {}, batch_id, status)
        choices = body.get("choices") if isinstance(body, Mapping) else None
        if not isinstance(body, Mapping) or not isinstance(choices, list) or not choices:
            return failed(self.lane.classify(UnreadableReply.no_reply(json.dumps(body))))
        from openai.types.chat import ChatCompletion

        completion = ChatCompletion.construct(**body)
        request_id = response.get("request_id")
        gen = generation_of(completion, request_id if isinstance(request_id, str) else None, max(1, len(choices)))
        return replace(gen, attempts=0)


def _errored(error: Mapping[str, Any], batch_id: str, status: object) -> Generation:
    """A line that errored: a ``batch_expired`` code is a timeout, as Anthropic's expired item."""
    code = error.get("code") or error.get("type")
    message = error.get("message")
    if code == EXPIRED_CODE:
        return _expired(batch_id)
    label = str(code) if code else None
    if isinstance(status, int):
        reason = status_reason(status, label, message if isinstance(message, str) else None)
    else:
        reason = f"{label or 'error'}: {one_line(str(message or '(no message)'))}"
    failure = AttemptFailure(
        retryable=False, reason=redact(f"the batch item errored: {reason}"), kind=FailureKind.OTHER, error_type=label
    )
    return failed(failure)


def _expired(batch_id: str) -> Generation:
    reason = f"timeout: the batch {batch_id} expired before this request was processed"
    return failed(AttemptFailure(retryable=False, reason=reason, timed_out=True, kind=FailureKind.TIMEOUT))


def _not_run(batch: Any, batch_id: str) -> Generation:
    """A request neither file holds: expired with an expired batch, the batch's own error with a failed one."""
    if batch.status == "expired":
        return _expired(batch_id)
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    if batch.status == "failed" and errors:
        first = errors[0]
        detail = f"{first.code or 'error'}: {one_line(first.message or '(no message)')}"
        reason = redact(f"the batch {batch_id} failed: {detail}")
        return failed(AttemptFailure(retryable=False, reason=reason, kind=FailureKind.OTHER))
    return missing(batch_id)
