"""A loopback fake of Anthropic Message Batches (§1.8 of the wire reference), served by `FakeLLMServer`.

- ``POST /v1/messages/batches``: each item is answered at once, as ``POST /v1/messages`` would answer its
  ``params`` (the server's queue for that route, then its responder); the batch reads ``in_progress``.
- ``GET /v1/messages/batches/{id}``: ``in_progress`` for the first ``polls_in_progress`` polls, then ``ended``
  with its ``results_url``.
- ``GET /v1/messages/batches/{id}/results``: the JSONL, one line per item, in reverse order (order is not
  guaranteed: a reader must join on ``custom_id``). An item whose custom_id is in ``expire`` reads ``expired``;
  one answered by an error reply reads ``errored``.

`FakeMessageBatches.fail` scripts the replies of a step's next requests (``create``, ``poll``, ``results``) before
the fake answers them: a 529, a 500, a dropped connection, each answering one request.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .fake_llm_script import FakeReply, RecordedRequest
from .fake_llm_wire import anthropic_message

if TYPE_CHECKING:
    from .fake_llm_server import FakeLLMServer

BATCHES = "/v1/messages/batches"


@dataclass
class FakeBatch:
    """One batch: its custom_ids and result lines, and how many times it was polled."""

    id: str
    custom_ids: list[str]
    lines: list[dict[str, Any]]
    polls: int = 0


@dataclass
class FakeMessageBatches:
    """The batches a server holds. ``polls_in_progress``: polls that still read ``in_progress``."""

    polls_in_progress: int = 1
    expire: set[str] = field(default_factory=set)
    batches: dict[str, FakeBatch] = field(default_factory=dict)
    script: dict[str, deque[FakeReply]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, step: str, *replies: FakeReply) -> None:
        """Answer the next requests of ``step`` (``create``, ``poll``, ``results``) with ``replies``, in order."""
        self.script.setdefault(step, deque()).extend(replies)

    def handle(self, request: RecordedRequest, server: FakeLLMServer) -> FakeReply:
        """The reply to one request under ``/v1/messages/batches``."""
        if not (request.headers.get("x-api-key") or request.headers.get("authorization")):
            return FakeReply.error(401, message="x-api-key header is required")
        rest = request.path[len(BATCHES) :].strip("/")
        step = "create" if request.method == "POST" else "results" if rest.endswith("/results") else "poll"
        with self._lock:
            scripted = self.script.get(step)
            if scripted:
                return scripted.popleft()
        if request.method == "POST" and not rest:
            return self._create(request, server)
        batch_id, _, tail = rest.partition("/")
        batch = self.batches.get(batch_id)
        if request.method != "GET" or batch is None or tail not in ("", "results"):
            return FakeReply.error(404, message=f"no such batch: {batch_id}", error_type="not_found_error")
        if tail == "results":
            body = "".join(json.dumps(line) + "\n" for line in reversed(batch.lines))
            return FakeReply(raw_body=body.encode())
        with self._lock:
            batch.polls += 1
            ended = batch.polls > self.polls_in_progress
        return FakeReply(raw_body=json.dumps(_batch_body(batch, server.base_url, ended=ended)).encode())

    def _create(self, request: RecordedRequest, server: FakeLLMServer) -> FakeReply:
        items = request.body.get("requests") if isinstance(request.body, dict) else None
        if not isinstance(items, list) or not items:
            return FakeReply.error(400, message="requests: Field required")
        with self._lock:
            batch_id = f"msgbatch_fake{len(self.batches) + 1:04d}"
        lines = [self._line(item, request, server) for item in items]
        batch = FakeBatch(batch_id, [str(item["custom_id"]) for item in items], lines)
        with self._lock:
            self.batches[batch_id] = batch
        return FakeReply(raw_body=json.dumps(_batch_body(batch, server.base_url, ended=False)).encode())

    def _line(self, item: dict[str, Any], request: RecordedRequest, server: FakeLLMServer) -> dict[str, Any]:
        custom_id = str(item["custom_id"])
        if custom_id in self.expire:
            return {"custom_id": custom_id, "result": {"type": "expired"}}
        params = item["params"]
        one = replace(request, path="/v1/messages", body=params, raw_body=json.dumps(params).encode())
        reply = server._reply_for(one)
        if reply.status >= 400:
            error = {"type": reply.error_type or "api_error", "message": reply.error_message or "error"}
            return {"custom_id": custom_id, "result": {"type": "errored", "error": {"type": "error", "error": error}}}
        model = reply.model if reply.model is not None else params.get("model", "fake-model")
        message = anthropic_message(
            msg_id=f"msg_{custom_id}", model=model, text=reply.text, stop_reason=reply.stop_reason, usage=reply.usage
        )
        return {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}


def _batch_body(batch: FakeBatch, base_url: str, *, ended: bool) -> dict[str, Any]:
    """A ``MessageBatch``; ``results_url`` only once it has ended."""
    kinds = [line["result"]["type"] for line in batch.lines]
    counts = {k: kinds.count(k) if ended else 0 for k in ("succeeded", "errored", "canceled", "expired")}
    return {
        "id": batch.id,
        "type": "message_batch",
        "processing_status": "ended" if ended else "in_progress",
        "request_counts": {"processing": 0 if ended else len(kinds), **counts},
        "created_at": "2026-12-01T00:00:00Z",
        "expires_at": "2026-12-02T00:00:00Z",
        "ended_at": "2026-12-01T00:01:00Z" if ended else None,
        "archived_at": None,
        "cancel_initiated_at": None,
        "results_url": f"{base_url}{BATCHES}/{batch.id}/results" if ended else None,
    }
