"""A scripted loopback HTTP server speaking the Anthropic and OpenAI wire formats, for tests without network.

Routes (query strings are ignored, so Claude Code's ``/v1/messages?beta=true`` lands on the first):

- ``POST /v1/messages``: Anthropic Messages, JSON or ``stream: true`` SSE (§1.2-§1.4 of the wire reference).
- ``POST /v1/chat/completions``: OpenAI Chat Completions, JSON only (§2.1, §2.3).
- ``POST /v1/responses``: OpenAI Responses, JSON or ``stream: true`` SSE as Codex consumes it (§2.2).
- ``/v1/messages/batches``: Anthropic Message Batches (§1.8), `fake_message_batches` (``server.batches``).
- ``/v1/files``, ``/v1/batches``: the OpenAI Files and Batch APIs (§2.4), `fake_openai_batches`
  (``server.openai_batches``).

Each request is answered by the next reply queued for its route (`FakeLLMServer.queue`), else by the
``responder`` callable (default `echo_responder`). Requests the real API would refuse are refused before
either is asked, and are still recorded: a missing API key (401), a missing ``anthropic-version`` header or
required field (400), and ``temperature``/``top_p``/``top_k`` under ``anthropic-version: 2026-10-21`` (400).

>>> with FakeLLMServer() as server:
...     server.queue(OPENAI_CHAT, json_text_reply({"score": 0.8, "reason": "ok"}))
...     server.base_url.startswith("http://127.0.0.1:"), server.pending(OPENAI_CHAT)
(True, 1)
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections import deque
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any

from .fake_llm_script import FakeReply, RecordedRequest, Responder, echo_responder, json_text_reply
from .fake_llm_wire import (
    FakeUsage,
    anthropic_error,
    anthropic_message,
    anthropic_sse,
    openai_chat_completion,
    openai_error,
    openai_response,
    openai_response_sse,
)
from .fake_message_batches import BATCHES, FakeMessageBatches
from .fake_openai_batches import FILES, OPENAI_BATCHES, FakeOpenAIBatches
from .fake_prompt_cache import FakePromptCache

__all__ = [
    "ANTHROPIC_MESSAGES",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "FakeLLMServer",
    "FakeReply",
    "FakeServerError",
    "FakeUsage",
    "RecordedRequest",
    "Responder",
    "echo_responder",
    "json_text_reply",
]

ANTHROPIC_MESSAGES = "/v1/messages"
OPENAI_CHAT = "/v1/chat/completions"
OPENAI_RESPONSES = "/v1/responses"
ROUTES = (ANTHROPIC_MESSAGES, OPENAI_CHAT, OPENAI_RESPONSES)

SAMPLING_FREE_ANTHROPIC_VERSION = "2026-10-21"
"""From this ``anthropic-version`` on, the Messages API refuses ``temperature``, ``top_p`` and ``top_k``."""
REMOVED_SAMPLING_PARAMS = ("temperature", "top_p", "top_k")
REQUIRED_FIELDS = {
    ANTHROPIC_MESSAGES: ("model", "max_tokens", "messages"),
    OPENAI_CHAT: ("model", "messages"),
    OPENAI_RESPONSES: ("model",),
}


class FakeServerError(RuntimeError):
    """A responder raised while the server was answering; raised again by `FakeLLMServer.close`."""


class FakeLLMServer:
    """The server, started on construction on 127.0.0.1 and a free port; close it (or use ``with``).

    ``delay_s`` is added before every scripted or responder reply (a fixed per-request latency).
    ``require_auth=False`` accepts requests without an API key header.
    ``port`` fixes the port (0, the default, takes a free one), e.g. to record cassettes whose URIs name it.
    ``prompt_cache=True`` reports the input tokens of every 200 as the real APIs do with a repeated prefix
    (`fake_prompt_cache`), in place of the reply's own input counts. ``honours_n=False`` answers a Chat
    Completions request for ``n`` choices with one, as servers that ignore ``n`` do.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        delay_s: float = 0.0,
        require_auth: bool = True,
        port: int = 0,
        prompt_cache: bool = False,
        honours_n: bool = True,
    ) -> None:
        self.responder: Responder = responder or echo_responder
        self.prompt_cache = FakePromptCache() if prompt_cache else None
        self.honours_n = honours_n
        self.delay_s = delay_s
        self.require_auth = require_auth
        self.batches = FakeMessageBatches()
        """The Message Batches this server holds (set ``polls_in_progress``, ``expire`` on it)."""
        self.openai_batches = FakeOpenAIBatches()
        """The OpenAI files and batches this server holds (set ``polls_in_progress``, ``expire``, ``drop``)."""
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._queues: dict[str, deque[FakeReply]] = {route: deque() for route in ROUTES}
        self._errors: list[BaseException] = []
        self._counter = 0
        self._closing = threading.Event()
        self._connections: set[socket.socket] = set()
        self._handler_threads: set[threading.Thread] = set()
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-llm-server",
            daemon=True,
        )
        self._thread.start()
        self.port: int = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        """The Anthropic base URL (``ANTHROPIC_BASE_URL``); OpenAI clients want `openai_base_url`."""

    @property
    def openai_base_url(self) -> str:
        """``base_url + "/v1"``, the form ``OpenAI(base_url=...)`` and Codex providers expect."""
        return f"{self.base_url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, route: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == route]

    @property
    def responder_errors(self) -> list[BaseException]:
        with self._lock:
            return list(self._errors)

    def queue(self, route: str, *replies: FakeReply | str) -> None:
        """Append replies (a str is a 200 text reply) to the route's FIFO; the responder answers after."""
        if route not in self._queues:
            raise ValueError(f"unknown route {route!r}; expected one of {', '.join(ROUTES)}")
        with self._lock:
            self._queues[route].extend(FakeReply(text=r) if isinstance(r, str) else r for r in replies)

    def pending(self, route: str) -> int:
        with self._lock:
            return len(self._queues[route])

    def reset(self) -> None:
        """Forget recorded requests, queued replies and responder errors."""
        with self._lock:
            self._requests.clear()
            self._errors.clear()
            for q in self._queues.values():
                q.clear()

    def close(self) -> None:
        """Stop serving, cut open keep-alive connections; raise `FakeServerError` if a responder raised."""
        if not self._closing.is_set():
            self._closing.set()
            self._httpd.shutdown()
            with self._lock:
                connections, threads = list(self._connections), list(self._handler_threads)
            for conn in connections:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
            for thread in threads:
                thread.join(timeout=5)
            self._httpd.server_close()
            self._thread.join(timeout=5)
        if self._errors:
            errors, self._errors = self._errors, []
            raise FakeServerError(f"{len(errors)} responder call(s) raised; first: {errors[0]!r}") from errors[0]

    def __enter__(self) -> FakeLLMServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- called from handler threads ------------------------------------------------------------------

    def _record(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> RecordedRequest:
        path, _, query = target.partition("?")
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            request = RecordedRequest(len(self._requests), method, path.rstrip("/") or "/", query, headers, body, raw)
            self._requests.append(request)
        return request

    def _with_cache(self, request: RecordedRequest, reply: FakeReply) -> FakeReply:
        """The reply with the input counts a repeated prefix gives (``prompt_cache``), and the choices ``n`` asks."""
        if request.path == OPENAI_CHAT and reply.choices is None and request.n > 1:
            reply = replace(reply, choices=(reply.text,) * request.n)
        if request.path == OPENAI_CHAT and reply.choices and not self.honours_n:
            reply = replace(reply, choices=reply.choices[:1])  # a server that ignores n answers once
        if self.prompt_cache is None or not isinstance(request.body, dict):
            return reply
        if request.path == ANTHROPIC_MESSAGES:
            counted = self.prompt_cache.anthropic(request.body)
        elif request.path == OPENAI_CHAT:
            counted = self.prompt_cache.openai(request.body)
        else:
            return reply
        return replace(reply, usage=replace(reply.usage, **counted._asdict()))

    def _next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _reply_for(self, request: RecordedRequest) -> FakeReply:
        with self._lock:
            queued = self._queues[request.path]
            if queued:
                return queued.popleft()
        try:
            reply = self.responder(request)
        except Exception as exc:
            with self._lock:
                self._errors.append(exc)
            return FakeReply.error(500, message=f"fake responder raised {exc!r}", should_retry=False)
        return FakeReply(text=reply) if isinstance(reply, str) else reply


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    owner: FakeLLMServer

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # skip HTTPServer's getfqdn() reverse lookup
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: clients hanging up mid-reply are normal in tests."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        owner = self.server.owner
        with owner._lock:
            owner._connections.add(self.request)
            owner._handler_threads.add(threading.current_thread())
        if owner._closing.is_set():  # accepted while close() was cutting connections
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.request.shutdown(socket.SHUT_RDWR)

    def finish(self) -> None:
        owner = self.server.owner
        with owner._lock:
            owner._connections.discard(self.request)
            owner._handler_threads.discard(threading.current_thread())
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        """No access log."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            raw = b"".join(chunks)
        else:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.headers.get("content-encoding", "").lower() == "gzip":
            raw = gzip.decompress(raw)
        return raw

    def _serve(self) -> None:
        owner = self.server.owner
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = owner._record(self.command, self.path, headers, self._read_body())
        anthropic = request.path.startswith(ANTHROPIC_MESSAGES)
        if request.path.startswith(BATCHES):
            self._deliver(request, owner.batches.handle(request, owner), anthropic)
            return
        if request.path.startswith((FILES, OPENAI_BATCHES)):
            self._deliver(request, owner.openai_batches.handle(request, owner), False)
            return
        refusal = self._refusal(request, anthropic)
        if refusal is not None:
            self._send_reply(request, refusal, anthropic)
            return
        self._deliver(request, owner._reply_for(request), anthropic)

    def _deliver(self, request: RecordedRequest, reply: FakeReply, anthropic: bool) -> None:
        """Send ``reply`` after its delay, or close the connection without a response (``disconnect``)."""
        owner = self.server.owner
        delay = reply.delay_s + owner.delay_s
        if delay > 0:
            owner._closing.wait(delay)
        if reply.disconnect or owner._closing.is_set():
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.request.shutdown(socket.SHUT_RDWR)
            return
        self._send_reply(request, reply, anthropic)

    def _refusal(self, request: RecordedRequest, anthropic: bool) -> FakeReply | None:
        """The 4xx the real API gives before any model runs, or None."""
        if request.method != "POST" or request.path not in ROUTES:
            return FakeReply.error(404, message=f"Invalid URL ({request.method} {request.path})")
        h = request.headers
        if self.server.owner.require_auth and not (h.get("authorization") or (anthropic and h.get("x-api-key"))):
            message = "x-api-key header is required" if anthropic else "You didn't provide an API key."
            return FakeReply.error(401, message=message)
        if not isinstance(request.body, dict):
            return FakeReply.error(400, message="The request body is not valid JSON.")
        if anthropic and not h.get("anthropic-version"):
            return FakeReply.error(400, message="anthropic-version: header is required")
        for name in REQUIRED_FIELDS[request.path]:
            if name not in request.body:
                message = f"{name}: Field required" if anthropic else f"Missing required parameter: '{name}'."
                return FakeReply.error(400, message=message, code=None if anthropic else "missing_required_parameter")
        if anthropic and h.get("anthropic-version") == SAMPLING_FREE_ANTHROPIC_VERSION:
            for name in REMOVED_SAMPLING_PARAMS:
                if name in request.body:
                    return FakeReply.error(400, message=f"{name}: Extra inputs are not permitted")
        if request.path == OPENAI_CHAT and request.stream:
            return FakeReply.error(400, message="The fake server does not stream Chat Completions.")
        return None

    def _send_reply(self, request: RecordedRequest, reply: FakeReply, anthropic: bool) -> None:
        n = self.server.owner._next_id()
        request_id = f"req_fake{n:016x}"
        model = reply.model if reply.model is not None else (request.model or "fake-model")  # "": names none
        content_type = "application/json"
        if reply.raw_body is not None:
            payload: bytes = reply.raw_body
        elif reply.status >= 400:
            if anthropic:
                body = anthropic_error(
                    reply.status,
                    request_id=request_id,
                    error_type=reply.error_type,
                    message=reply.error_message,
                )
            else:
                body = openai_error(
                    reply.status,
                    error_type=reply.error_type,
                    message=reply.error_message,
                    code=reply.error_code,
                )
            payload = json.dumps(body).encode()
        else:
            payload, content_type = _success_body(request, self.server.owner._with_cache(request, reply), n, model)
        try:
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type or content_type)
            self.send_header("content-length", str(len(payload)))
            self.send_header("request-id" if anthropic else "x-request-id", request_id)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            self.close_connection = True


def _success_body(request: RecordedRequest, reply: FakeReply, n: int, model: str) -> tuple[bytes, str]:
    """The 200 body for the request's route, as (payload, content type)."""
    text, usage, created = reply.text, reply.usage, int(time.time())
    if request.path == ANTHROPIC_MESSAGES:
        msg_id, stop = f"msg_fake{n:016x}", reply.stop_reason
        if request.stream:
            sse = anthropic_sse(msg_id=msg_id, model=model, text=text, stop_reason=stop, usage=usage)
            return sse, "text/event-stream"
        message = anthropic_message(msg_id=msg_id, model=model, text=text, stop_reason=stop, usage=usage)
        return json.dumps(message).encode(), "application/json"
    if request.path == OPENAI_CHAT:
        completion = openai_chat_completion(
            completion_id=f"chatcmpl-fake{n:016x}",
            created=created,
            model=model,
            text=reply.choices[0] if reply.choices else text,
            finish_reason=reply.stop_reason,
            usage=usage,
            system_fingerprint=reply.system_fingerprint,
            more=tuple(reply.choices[1:]) if reply.choices else (),
        )
        return json.dumps(completion).encode(), "application/json"
    response_id, item_id = f"resp_fake{n:016x}", f"msg_fake{n:016x}"
    if request.stream:
        sse = openai_response_sse(
            response_id=response_id, item_id=item_id, created=created, model=model, text=text, usage=usage
        )
        return sse, "text/event-stream"
    response = openai_response(
        response_id=response_id, item_id=item_id, created=created, model=model, text=text, usage=usage
    )
    return json.dumps(response).encode(), "application/json"
