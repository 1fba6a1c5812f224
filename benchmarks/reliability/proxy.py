"""A loopback HTTP proxy in front of `FakeLLMServer` that injects the faults the fake cannot make itself.

The fake renders every reply (its wire formats, its scripted errors via `FakeReply`); the proxy sits between
the SDK and it, classifies each request (an ``answer`` call, or a ``judge`` call: the judge prompt carries the
answer between ``<<<ANSWER`` markers), asks the part's plan for a fault, and records every exchange: whether
the whole response reached a live client, and how long it took. Faults on top of the fake's own:

- ``trickle_s``: the body is sent a few bytes at a time, spread over that many seconds;
- ``reset_mid_body``: half the body, then a TCP reset;
- ``down_s``: the proxy stops listening (connections are refused) and cuts every open connection, for that
  many seconds; ``math.inf`` for good.

A fault's ``reply`` (a `FakeReply`) is queued on the fake just before the request is forwarded, which is
exact when the client makes one call at a time (``--concurrency 1``), as the parts that use it do.
"""

from __future__ import annotations

import contextlib
import http.client
import math
import os
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from tests.support.fake_llm_script import FakeReply
from tests.support.fake_llm_server import FakeLLMServer

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "proxy-connection"}


@dataclass(frozen=True)
class Fault:
    """What the proxy does to one request instead of relaying it plainly."""

    name: str
    reply: FakeReply | None = None
    trickle_s: float = 0.0
    reset_mid_body: bool = False
    down_s: float | None = None


@dataclass
class Exchange:
    """One request the proxy received, and what became of its response."""

    index: int
    kind: str
    """``answer``, ``judge`` or ``other``."""
    nth: int
    """Arrival order among requests of the same kind, from 0."""
    path: str
    body: bytes = field(repr=False)
    fault: str | None = None
    delivered: bool = False
    """The whole response was written to the client, and the client was alive right after."""
    client: int | None = None
    """Which client process sent it, when the part's ``on_request`` hook says (its pid)."""
    seq: int = 0
    """Its place (from 1) among that client's requests, when the hook says."""
    client_gone: bool = False
    """The client hung up before the whole response was written."""
    seconds: float = 0.0


Plan = Callable[[Exchange], Fault | None]


def kind_of(body: bytes) -> str:
    """``judge`` when the request carries an answer to grade, ``answer`` for any other model call."""
    if b"<<<ANSWER" in body:
        return "judge"
    return "answer" if body else "other"


class FaultProxy:
    """The proxy on 127.0.0.1 and a free port; close it (or use ``with``)."""

    def __init__(
        self,
        upstream: FakeLLMServer,
        plan: Plan | None = None,
        *,
        alive: Callable[[], bool] | None = None,
        on_request: Callable[[Exchange], None] | None = None,
    ) -> None:
        self.upstream = upstream
        self.plan: Plan = plan or (lambda _exchange: None)
        self.alive = alive or (lambda: True)
        self.on_request = on_request
        self._lock = threading.Lock()
        self.exchanges: list[Exchange] = []
        self._counts: dict[str, int] = {}
        self._conns: set[socket.socket] = set()
        self._closed = threading.Event()
        self._listener: socket.socket | None = None
        self._timers: list[threading.Timer] = []
        self.port = 0
        self._listen()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    def of_kind(self, kind: str) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if e.kind == kind]

    # -- up and down -------------------------------------------------------------------------------

    def _listen(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        sock.listen(64)
        sock.settimeout(0.05)
        self.port = sock.getsockname()[1]
        self._listener = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True, name="fault-proxy").start()

    def go_down(self, for_s: float) -> None:
        """Refuse connections and cut the open ones; come back after ``for_s`` seconds (never for ``inf``)."""
        with self._lock:
            listener, self._listener = self._listener, None
            conns = list(self._conns)
        if listener is not None:
            listener.close()
        for conn in conns:
            _cut(conn)
        if math.isfinite(for_s) and not self._closed.is_set():
            timer = threading.Timer(for_s, self._come_back)
            timer.daemon = True
            self._timers.append(timer)
            timer.start()

    def _come_back(self) -> None:
        if not self._closed.is_set() and self._listener is None:
            self._listen()

    def close(self) -> None:
        self._closed.set()
        for timer in self._timers:
            timer.cancel()
        self.go_down(math.inf)

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- serving -----------------------------------------------------------------------------------

    def _accept(self, sock: socket.socket) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                if self._listener is not sock:
                    return
                continue
            except OSError:
                return
            conn.settimeout(30)
            with self._lock:
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True, name="fault-proxy-conn").start()

    def _serve(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        try:
            while self._exchange(conn, reader):
                pass
        except OSError:
            pass
        finally:
            with self._lock:
                self._conns.discard(conn)
            with contextlib.suppress(OSError):
                reader.close()
                conn.close()

    def _exchange(self, conn: socket.socket, reader: BinaryIO) -> bool:
        """Serve one request on ``conn``; False when the connection is done."""
        line = reader.readline()
        if not line.strip():
            return False
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers = http.client.parse_headers(reader)
        body = _read_body(reader, headers)
        path = target.split("?", 1)[0].rstrip("/")
        exchange = self._record(path, body)
        started = time.monotonic()
        if self.on_request is not None:
            self.on_request(exchange)
        fault = self.plan(exchange)
        exchange.fault = fault.name if fault else None
        if fault is not None and fault.down_s is not None:
            self.go_down(fault.down_s)
            return False
        if fault is not None and fault.reply is not None:
            self.upstream.queue(path, fault.reply)
        forwarded = {k: v for k, v in headers.items() if k.lower() not in HOP_BY_HOP}
        try:
            status, reason, reply_headers, payload = self._forward(method, target, forwarded, body)
        except (OSError, http.client.HTTPException):  # the fake hung up (FakeReply.dropped): so does the proxy
            exchange.seconds = time.monotonic() - started
            return False
        head = [f"HTTP/1.1 {status} {reason}"]
        head += [f"{k}: {v}" for k, v in reply_headers if k.lower() not in HOP_BY_HOP]
        head += [f"content-length: {len(payload)}", "connection: keep-alive", "", ""]
        keep = self._send(conn, "\r\n".join(head).encode("latin-1"), payload, fault, exchange)
        exchange.seconds = time.monotonic() - started
        return keep

    def _record(self, path: str, body: bytes) -> Exchange:
        kind = kind_of(body)
        with self._lock:
            nth = self._counts.get(kind, 0)
            self._counts[kind] = nth + 1
            exchange = Exchange(len(self.exchanges), kind, nth, path, body)
            self.exchanges.append(exchange)
        return exchange

    def _forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, list[tuple[str, str]], bytes]:
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream.port, timeout=60)
        try:
            upstream.request(method, target, body=body, headers=headers)
            response = upstream.getresponse()
            return response.status, response.reason, response.getheaders(), response.read()
        finally:
            upstream.close()

    def _send(self, conn: socket.socket, head: bytes, payload: bytes, fault: Fault | None, ex: Exchange) -> bool:
        try:
            if fault is not None and fault.reset_mid_body:
                conn.sendall(head + payload[: len(payload) // 2])
                time.sleep(0.05)
                _reset(conn)
                return False
            if fault is not None and fault.trickle_s > 0:
                conn.sendall(head)
                chunks = [payload[i : i + 16] for i in range(0, len(payload), 16)] or [b""]
                pause = fault.trickle_s / len(chunks)
                for chunk in chunks:
                    if self._closed.is_set():
                        return False
                    time.sleep(pause)
                    conn.sendall(chunk)
            else:
                conn.sendall(head + payload)
        except OSError:
            ex.client_gone = True
            return False
        ex.delivered = self.alive()
        return True


def _read_body(reader: BinaryIO, headers: http.client.HTTPMessage) -> bytes:
    if "chunked" in (headers.get("transfer-encoding") or "").lower():
        chunks = []
        while size := int(reader.readline().split(b";")[0].strip() or b"0", 16):
            chunks.append(reader.read(size))
            reader.readline()
        while reader.readline() not in (b"\r\n", b"\n", b""):
            pass
        return b"".join(chunks)
    return reader.read(int(headers.get("content-length") or 0))


def _reset(conn: socket.socket) -> None:
    """Close at once with a TCP reset (linger 0), from the thread serving ``conn``."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        os.close(conn.detach())  # the reader's file object would otherwise keep the descriptor open


def _cut(conn: socket.socket) -> None:
    """Cut a connection another thread is serving: its read wakes up, its close then sends a reset."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.shutdown(socket.SHUT_RDWR)
