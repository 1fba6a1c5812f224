"""What the fake server is told to answer (`FakeReply`) and what it recorded (`RecordedRequest`).

>>> FakeReply.error(429, retry_after=0).headers
{'retry-after': '0'}
>>> req = RecordedRequest(0, "POST", "/v1/messages", "", {}, {"system": "be terse",
...     "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}, b"")
>>> req.system_text, req.prompt_text
('be terse', 'hi')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .fake_llm_wire import FakeUsage

__all__ = ["FakeReply", "FakeUsage", "RecordedRequest", "Responder", "echo_responder", "json_text_reply"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    index: int
    """Arrival order, from 0, across all routes."""
    method: str
    path: str
    """The path without its query string, e.g. ``/v1/messages``."""
    query: str
    headers: Mapping[str, str]
    """Header names lower-cased (a repeated header keeps its last value)."""
    body: Any
    """The parsed JSON body, or None when the body was empty or not JSON."""
    raw_body: bytes = field(repr=False)

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def n(self) -> int:
        """Chat Completions ``n``: how many choices the request asked for (1 when it sent none)."""
        value = self.body.get("n") if isinstance(self.body, dict) else None
        return value if isinstance(value, int) and value > 0 else 1

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and self.body.get("stream") is True

    @property
    def system_text(self) -> str:
        """Anthropic ``system``, OpenAI ``system``/``developer`` messages, Responses ``instructions``."""
        if not isinstance(self.body, dict):
            return ""
        parts = _texts(self.body.get("system")) + _texts(self.body.get("instructions"))
        for message in _messages(self.body):
            if message.get("role") in ("system", "developer"):
                parts += _texts(message.get("content"))
        return "\n".join(parts)

    @property
    def prompt_text(self) -> str:
        """The text of the last user message (or a plain-string Responses ``input``)."""
        if isinstance(self.body, dict) and isinstance(self.body.get("input"), str):
            return str(self.body["input"])
        users = [m for m in _messages(self.body) if m.get("role") == "user"]
        return "\n".join(_texts(users[-1].get("content"))) if users else ""

    @property
    def all_text(self) -> str:
        """System text and every message's text, joined: handy for telling a judge call apart."""
        texts = [self.system_text] + ["\n".join(_texts(m.get("content"))) for m in _messages(self.body)]
        if isinstance(self.body, dict) and isinstance(self.body.get("input"), str):
            texts.append(self.body["input"])
        return "\n".join(t for t in texts if t)


def _messages(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict):
        return []
    items = body.get("messages", body.get("input"))
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []


def _texts(value: Any) -> list[str]:
    """Strings of a ``content``/``system`` value: a string, or blocks carrying ``text`` or ``content``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return _texts(value.get("text")) + _texts(value.get("content"))
    return []


@dataclass(frozen=True)
class FakeReply:
    """What the server answers one request with, rendered in the wire format of the request's route."""

    status: int = 200
    text: str = "FAKE-REPLY"
    model: str | None = None
    """The model id the reply reports; None echoes the request's ``model``."""
    usage: FakeUsage = field(default_factory=FakeUsage)
    stop_reason: str | None = None
    """Anthropic ``stop_reason`` (default ``end_turn``) or OpenAI ``finish_reason`` (default ``stop``)."""
    system_fingerprint: str | None = "fp_fake0000"
    """Chat Completions only."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers (``retry-after``, ``x-should-retry``, rate-limit headers, ...)."""
    delay_s: float = 0.0
    """Seconds to wait before answering (cut short when the server closes)."""
    error_type: str | None = None
    error_message: str | None = None
    error_code: str | None = None
    """OpenAI ``error.code``; ignored on Anthropic routes."""
    raw_body: bytes | None = None
    """Sent verbatim instead of a rendered body (malformed or nonstandard replies)."""
    content_type: str | None = None
    """The ``content-type`` sent instead of the route's own (``application/json``, or SSE for a stream)."""
    disconnect: bool = False
    """Close the connection without answering (the SDKs raise ``APIConnectionError``)."""
    choices: tuple[str, ...] | None = None
    """Chat Completions only: the text of each choice, in order (``text`` is then ignored). None answers a request
    for ``n`` choices with ``text`` n times, as many as asked when the server honours ``n``."""

    @classmethod
    def error(
        cls,
        status: int,
        *,
        message: str | None = None,
        error_type: str | None = None,
        code: str | None = None,
        retry_after: float | None = None,
        retry_after_ms: float | None = None,
        should_retry: bool | None = None,
        headers: Mapping[str, str] | None = None,
        delay_s: float = 0.0,
    ) -> FakeReply:
        """An error reply; type and message default from the status (429 rate_limit_error, 529 overloaded...).

        ``should_retry`` sends ``x-should-retry: true|false``, which both SDKs and Claude Code obey over
        the status (send False to make the real ``claude`` CLI fail after one request).
        """
        extra = dict(headers or {})
        if retry_after is not None:
            extra["retry-after"] = f"{retry_after:g}"
        if retry_after_ms is not None:
            extra["retry-after-ms"] = f"{retry_after_ms:g}"
        if should_retry is not None:
            extra["x-should-retry"] = "true" if should_retry else "false"
        return cls(
            status=status,
            text="",
            headers=extra,
            delay_s=delay_s,
            error_type=error_type,
            error_message=message,
            error_code=code,
        )

    @classmethod
    def dropped(cls, *, delay_s: float = 0.0) -> FakeReply:
        """Close the connection without a response."""
        return cls(disconnect=True, delay_s=delay_s)


Responder = Callable[[RecordedRequest], "FakeReply | str"]


def echo_responder(request: RecordedRequest) -> FakeReply:
    """The default responder: ``FAKE-REPLY: <last user message>``, reporting the requested model."""
    return FakeReply(text=f"FAKE-REPLY: {request.prompt_text}")


def json_text_reply(obj: Any, **kwargs: Any) -> FakeReply:
    """A reply whose text is ``obj`` as JSON, e.g. a judge verdict.

    >>> json_text_reply({"score": 0.8, "reason": "covers the rubric"}).text
    '{"score": 0.8, "reason": "covers the rubric"}'
    """
    return FakeReply(text=json.dumps(obj), **kwargs)
