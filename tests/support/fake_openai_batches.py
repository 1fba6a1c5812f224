"""A loopback fake of the OpenAI Files and Batch APIs (§2.4 of the wire reference), served by `FakeLLMServer`.

- ``POST /v1/files`` (multipart, ``purpose=batch``): the JSONL is kept as a file; a ``file`` object comes back.
- ``POST /v1/batches``: each line of the input file is answered at once, as ``POST /v1/chat/completions``
  would answer its ``body`` (the server's queue for that route, then its responder); the batch reads
  ``validating``.
- ``GET /v1/batches/{id}``: ``in_progress`` for the first ``polls_in_progress`` polls, then ``completed`` (or
  ``expired`` when a line's custom_id is in ``expire``), with its ``output_file_id`` and ``error_file_id``.
- ``GET /v1/files/{id}/content``: the output file (answered lines), or the error file: a line answered by an
  error reply (``response.status_code`` >= 400, the error body), a line in ``expire`` (``error.code:
  batch_expired``, no response). Lines in reverse order (a reader must join on ``custom_id``); a custom_id in
  ``drop`` is in neither file.

`FakeOpenAIBatches.fail` scripts the replies of a step's next requests (``upload``, ``create``, ``poll``,
``content``) before the fake answers them.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field, replace
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING, Any

from .fake_llm_script import FakeReply, RecordedRequest
from .fake_llm_wire import openai_chat_completion, openai_error

if TYPE_CHECKING:
    from .fake_llm_server import FakeLLMServer

FILES = "/v1/files"
OPENAI_BATCHES = "/v1/batches"
CHAT = "/v1/chat/completions"
EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."


@dataclass
class FakeOpenAIBatch:
    """One batch: its custom_ids, its output and error lines, and how many times it was polled."""

    id: str
    input_file_id: str
    custom_ids: list[str]
    output: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    expired: bool
    polls: int = 0


@dataclass
class FakeOpenAIBatches:
    """The files and batches a server holds. ``polls_in_progress``: polls that still read ``in_progress``."""

    polls_in_progress: int = 1
    expire: set[str] = field(default_factory=set)
    drop: set[str] = field(default_factory=set)
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, FakeOpenAIBatch] = field(default_factory=dict)
    script: dict[str, deque[FakeReply]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, step: str, *replies: FakeReply) -> None:
        """Answer the next requests of ``step`` (``upload``, ``create``, ``poll``, ``content``) with ``replies``."""
        self.script.setdefault(step, deque()).extend(replies)

    def _step(self, request: RecordedRequest) -> str:
        if request.method == "POST":
            return "upload" if request.path == FILES else "create"
        return "content" if request.path.endswith("/content") else "poll"

    def handle(self, request: RecordedRequest, server: FakeLLMServer) -> FakeReply:
        """The reply to one request under ``/v1/files`` or ``/v1/batches``."""
        if not request.headers.get("authorization"):
            return FakeReply.error(401, message="You didn't provide an API key.")
        with self._lock:
            scripted = self.script.get(self._step(request))
            if scripted:
                return scripted.popleft()
        if request.method == "POST" and request.path == FILES:
            return self._upload(request)
        if request.method == "POST" and request.path == OPENAI_BATCHES:
            return self._create(request, server)
        if request.method == "GET" and request.path.startswith(FILES + "/") and request.path.endswith("/content"):
            data = self.files.get(request.path[len(FILES) + 1 : -len("/content")])
            return _not_found("file") if data is None else FakeReply(raw_body=data)
        batch = self.batches.get(request.path[len(OPENAI_BATCHES) + 1 :])
        if request.method != "GET" or batch is None:
            return _not_found("batch")
        with self._lock:
            batch.polls += 1
            ended = batch.polls > self.polls_in_progress
        return _json(_batch_body(batch, "in_progress" if not ended else "expired" if batch.expired else "completed"))

    def _upload(self, request: RecordedRequest) -> FakeReply:
        head = f"content-type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
        message = BytesParser(policy=HTTP).parsebytes(head + request.raw_body)
        parts = {part.get_param("name", header="content-disposition"): part for part in message.iter_parts()}
        purpose = parts.get("purpose")
        upload = parts.get("file")
        if upload is None or purpose is None or purpose.get_content().strip() != "batch":
            return FakeReply.error(400, message="file and purpose=batch are required")
        data = upload.get_payload(decode=True)
        with self._lock:
            file_id = f"file-fake{len(self.files) + 1:04d}"
            self.files[file_id] = data
        body = {"id": file_id, "object": "file", "bytes": len(data), "created_at": 1796083200}
        return _json({**body, "filename": upload.get_filename(), "purpose": "batch", "status": "processed"})

    def _create(self, request: RecordedRequest, server: FakeLLMServer) -> FakeReply:
        body = request.body if isinstance(request.body, dict) else {}
        data = self.files.get(str(body.get("input_file_id")))
        if data is None or body.get("endpoint") != CHAT or body.get("completion_window") != "24h":
            return FakeReply.error(400, message="input_file_id, endpoint and completion_window 24h are required")
        lines = [json.loads(text) for text in data.decode().splitlines() if text.strip()]
        with self._lock:
            batch_id = f"batch_fake{len(self.batches) + 1:04d}"
        batch = FakeOpenAIBatch(batch_id, str(body["input_file_id"]), [], [], [], expired=False)
        for n, line in enumerate(lines):
            self._answer(batch, line, request, server, n)
        with self._lock:
            self.batches[batch_id] = batch
            for kind, held in (("output", batch.output), ("errors", batch.errors)):
                if held:
                    self.files[f"file-{batch_id}-{kind}"] = "".join(json.dumps(x) + "\n" for x in held[::-1]).encode()
        return _json(_batch_body(batch, "validating"))

    def _answer(
        self, batch: FakeOpenAIBatch, line: dict[str, Any], request: RecordedRequest, server: FakeLLMServer, n: int
    ) -> None:
        custom_id, params = str(line["custom_id"]), line["body"]
        assert line["method"] == "POST" and line["url"] == CHAT, line
        batch.custom_ids.append(custom_id)
        head = {"id": f"batch_req_{batch.id}_{n}", "custom_id": custom_id}
        if custom_id in self.drop:
            return
        if custom_id in self.expire:
            batch.expired = True
            error = {"code": "batch_expired", "message": EXPIRED_MESSAGE}
            batch.errors.append({**head, "response": None, "error": error})
            return
        one = replace(request, path=CHAT, body=params, raw_body=json.dumps(params).encode())
        reply = server._with_cache(one, server._reply_for(one))
        request_id = f"req_{batch.id}_{n}"
        if reply.status >= 400:
            err = openai_error(reply.status, error_type=reply.error_type, message=reply.error_message, code=None)
            response = {"status_code": reply.status, "request_id": request_id, "body": err}
            batch.errors.append({**head, "response": response, "error": None})
            return
        completion = openai_chat_completion(
            completion_id=f"chatcmpl-{custom_id}",
            created=1796083200,
            model=reply.model if reply.model is not None else params.get("model", "fake-model"),
            text=reply.choices[0] if reply.choices else reply.text,
            finish_reason=reply.stop_reason,
            usage=reply.usage,
            system_fingerprint=reply.system_fingerprint,
            more=tuple(reply.choices[1:]) if reply.choices else (),
        )
        batch.output.append({**head, "response": {"status_code": 200, "request_id": request_id, "body": completion}})


def _batch_body(batch: FakeOpenAIBatch, status: str) -> dict[str, Any]:
    """A ``Batch``; its file ids once it has ended."""
    ended = status in ("completed", "expired")
    return {
        "id": batch.id,
        "object": "batch",
        "endpoint": CHAT,
        "errors": None,
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": status,
        "output_file_id": f"file-{batch.id}-output" if ended and batch.output else None,
        "error_file_id": f"file-{batch.id}-errors" if ended and batch.errors else None,
        "created_at": 1796083200,
        "expires_at": 1796169600,
        "completed_at": 1796083260 if status == "completed" else None,
        "expired_at": 1796169600 if status == "expired" else None,
        "request_counts": {
            "total": len(batch.custom_ids),
            "completed": len(batch.output) if ended else 0,
            "failed": len(batch.errors) if ended else 0,
        },
        "metadata": None,
    }


def _json(body: dict[str, Any]) -> FakeReply:
    return FakeReply(raw_body=json.dumps(body).encode())


def _not_found(what: str) -> FakeReply:
    return FakeReply.error(404, message=f"No such {what}", error_type="invalid_request_error")
