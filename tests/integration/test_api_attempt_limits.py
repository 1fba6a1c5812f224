"""How long one API call may take, and what a 200 the lane cannot read is: both lanes, the real SDKs, loopback.

- ``timeout_s`` is a deadline for the whole attempt (connect, headers, body), not idle time between bytes:
  a server that trickles its reply one byte at a time is cut off at the deadline.
- A 200 whose body is not a reply (not JSON, no ``content``/``choices``) is the server's fault, retried
  like a 5xx, and named as such when the retries run out.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from driftproof.lanes.anthropic_api import AnthropicApiLane
from driftproof.lanes.base import FailureKind, Generation, GenerationRequest, Lane, RetryPolicy
from driftproof.lanes.openai_api import OpenAIApiLane
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer, FakeReply
from tests.support.fake_llm_wire import FakeUsage, anthropic_message, openai_chat_completion

KEY = "loopback-key-0123456789"
ONCE = RetryPolicy(max_retries=0)
FAST = RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=0.01)


pytestmark = pytest.mark.usefixtures("no_ambient_credentials")


def lane(provider: str, base_url: str, **kwargs: object) -> Lane:
    if provider == "anthropic":
        return AnthropicApiLane("m", base_url=base_url, environ={"ANTHROPIC_API_KEY": KEY}, **kwargs)  # type: ignore[arg-type]
    return OpenAIApiLane("m", base_url=f"{base_url}/v1", environ={"OPENAI_API_KEY": KEY}, **kwargs)  # type: ignore[arg-type]


def ask(target: Lane) -> tuple[Generation, float]:
    start = time.monotonic()
    generation = target.generate(GenerationRequest(prompt="hi"))
    return generation, time.monotonic() - start


class TrickleServer:
    """Answers every request with a valid reply, written ``step`` bytes at a time every ``pause_s`` seconds.

    ``headers_too``: the status line and headers trickle as well (else they arrive at once, then the body
    trickles). The connection is closed when the server is.
    """

    def __init__(self, provider: str, *, pause_s: float, step: int = 1, headers_too: bool = False) -> None:
        self.provider, self.pause_s, self.step, self.headers_too = provider, pause_s, step, headers_too
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _reply(self) -> tuple[bytes, bytes]:
        body = (
            anthropic_message(msg_id="msg_1", model="m", text="slow answer", stop_reason=None, usage=FakeUsage())
            if self.provider == "anthropic"
            else openai_chat_completion(
                completion_id="chatcmpl-1",
                created=0,
                model="m",
                text="slow answer",
                finish_reason=None,
                usage=FakeUsage(),
                system_fingerprint=None,
            )
        )
        payload = json.dumps(body).encode()
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(payload)}\r\n\r\n"
        return head.encode(), payload

    def _serve(self) -> None:
        self._listener.settimeout(0.1)
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(1.0)
            try:
                conn.recv(65536)  # the request (small enough to arrive in one read on loopback)
                head, payload = self._reply()
                if not self.headers_too:
                    conn.sendall(head)
                    head = b""
                data = head + payload
                for i in range(0, len(data), self.step):
                    if self._closing.wait(self.pause_s):
                        return
                    conn.sendall(data[i : i + self.step])
            except OSError:
                return

    def close(self) -> None:
        self._closing.set()
        self._listener.close()
        self._thread.join(timeout=2)


@pytest.fixture
def trickle() -> Iterator[list[TrickleServer]]:
    made: list[TrickleServer] = []
    yield made
    for server in made:
        server.close()


PROVIDERS = ["anthropic", "openai"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("headers_too", [False, True], ids=["body", "headers"])
def test_a_trickling_reply_is_cut_off_at_the_deadline(
    provider: str, headers_too: bool, trickle: list[TrickleServer]
) -> None:
    # One byte every 0.05 s: a reply of ~300 bytes would take ~15 s; each read waits far less than the
    # 1 s timeout, so an idle-time limit never fires. The deadline ends the attempt at 1 s.
    server = TrickleServer(provider, pause_s=0.05, headers_too=headers_too)
    trickle.append(server)
    target = lane(provider, server.base_url, timeout_s=1.0, policy=ONCE)
    try:
        generation, elapsed = ask(target)
    finally:
        target.close()
    assert generation.timed_out and generation.error == "timed out after 1s"
    assert generation.failure is not None and generation.failure.kind is FailureKind.TIMEOUT
    assert 0.9 <= elapsed < 1.6, elapsed


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_slow_but_timely_reply_is_read_whole(provider: str, trickle: list[TrickleServer]) -> None:
    # 64 bytes every 0.02 s: the reply (~300-500 bytes) is in within ~0.2 s, inside the 3 s deadline.
    server = TrickleServer(provider, pause_s=0.02, step=64)
    trickle.append(server)
    target = lane(provider, server.base_url, timeout_s=3.0, policy=ONCE)
    try:
        generation, _ = ask(target)
    finally:
        target.close()
    assert (generation.text, generation.error) == ("slow answer", None)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_attempt_gets_its_own_deadline(provider: str, trickle: list[TrickleServer]) -> None:
    # Two attempts (one retry), each cut off at 0.5 s: the call ends after ~1 s, with both counted.
    server = TrickleServer(provider, pause_s=0.05)
    trickle.append(server)
    policy = RetryPolicy(max_retries=1, base_delay_s=0.001, max_delay_s=0.001)
    target = lane(provider, server.base_url, timeout_s=0.5, policy=policy)
    try:
        generation, elapsed = ask(target)
    finally:
        target.close()
    assert (generation.attempts, generation.error) == (2, "timed out after 0.5s after 2 attempts")
    assert 0.9 <= elapsed < 1.8, elapsed


# -- a 200 the lane cannot read ----------------------------------------------------------------------------------

UNREADABLE = {
    "not JSON": b"<html>502 Bad Gateway</html>",
    "empty": b"",
    "a JSON list": b"[]",
}
ROUTES = {"anthropic": ANTHROPIC_MESSAGES, "openai": OPENAI_CHAT}
NO_REPLY = {
    "anthropic": [b'{"id": "msg_1", "type": "message", "model": "m"}', b'{"content": "text, not blocks"}'],
    "openai": [b'{"id": "chatcmpl-1", "model": "m"}', b'{"choices": []}', b'{"choices": [{"index": 0}]}'],
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("body", list(UNREADABLE.values()), ids=list(UNREADABLE))
def test_an_unreadable_200_is_retried_like_a_server_error(
    provider: str, body: bytes, fake_llm_server: FakeLLMServer
) -> None:
    fake_llm_server.queue(ROUTES[provider], FakeReply(raw_body=body), FakeReply(text="second"))
    target = lane(provider, fake_llm_server.base_url, policy=FAST)
    try:
        generation, _ = ask(target)
    finally:
        target.close()
    assert (generation.text, generation.attempts, generation.error) == ("second", 2, None)


@pytest.mark.parametrize(
    ("provider", "body"), [(p, b) for p, bodies in NO_REPLY.items() for b in bodies], ids=lambda v: str(v)[:30]
)
def test_a_200_without_a_reply_in_it_is_retried_then_named(
    provider: str, body: bytes, fake_llm_server: FakeLLMServer
) -> None:
    fake_llm_server.queue(ROUTES[provider], *[FakeReply(raw_body=body)] * 3)
    target = lane(provider, fake_llm_server.base_url, policy=FAST)
    try:
        generation, _ = ask(target)
    finally:
        target.close()
    assert generation.attempts == 3
    assert generation.failure is not None and generation.failure.kind is FailureKind.SERVER
    assert generation.error is not None and generation.error.startswith("200 with no reply in the body: ")
    assert generation.error.endswith(" after 3 attempts")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_unreadable_200_names_what_came_back(provider: str, fake_llm_server: FakeLLMServer) -> None:
    fake_llm_server.queue(ROUTES[provider], FakeReply(raw_body=b"<html>upstream gone</html>"))
    target = lane(provider, fake_llm_server.base_url, policy=ONCE)
    try:
        generation, _ = ask(target)
    finally:
        target.close()
    assert generation.error == "200 with a body that is not JSON: <html>upstream gone</html>"
