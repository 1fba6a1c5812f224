"""What the real APIs do with a repeated prompt prefix, for `FakeLLMServer(prompt_cache=True)`.

Anthropic caches only where a request marks it: each ``system`` or message text block carrying ``cache_control``
ends a cacheable prefix. The longest marked prefix seen before is read from the cache
(``cache_read_input_tokens``); the rest up to the last mark is written (``cache_creation_input_tokens``);
``input_tokens`` is what follows the last mark. OpenAI Chat Completions caches by itself: every message before
the last one is the prefix, read (``cached_tokens``) when an earlier request sent the same one. Tokens are counted
as ``ceil(chars / 4)``; the real minimum cacheable length (1024 tokens and more) is not imposed, so that short test
prompts show the accounting.

>>> cache = FakePromptCache()
>>> body = {"system": [{"type": "text", "text": "x" * 40, "cache_control": {"type": "ephemeral"}}],
...         "messages": [{"role": "user", "content": "y" * 8}]}
>>> tuple(cache.anthropic(body)), tuple(cache.anthropic(body))
((2, 0, 10), (2, 10, 0))
"""

from __future__ import annotations

import math
import threading
from typing import Any, NamedTuple


class CacheUsage(NamedTuple):
    """Input tokens of one request: uncached, read from the cache, written to it."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _blocks(value: Any) -> list[tuple[str, bool]]:
    """(text, marked) of each text block of a ``system`` or ``content`` value (a string is one unmarked block)."""
    if isinstance(value, str):
        return [(value, False)]
    if isinstance(value, list):
        return [(str(b.get("text", "")), "cache_control" in b) for b in value if isinstance(b, dict)]
    return []


class FakePromptCache:
    """The prefixes one server has seen (thread-safe)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def anthropic(self, body: dict[str, Any]) -> CacheUsage:
        blocks = _blocks(body.get("system"))
        for message in body.get("messages") or []:
            blocks += _blocks(message.get("content") if isinstance(message, dict) else None)
        text, marks = "", []
        for block, marked in blocks:
            text += block
            if marked:
                marks.append(text)
        if not marks:
            return CacheUsage(tokens(text), 0, 0)
        with self._lock:
            read = max((m for m in marks if m in self._seen), key=len, default="")
            self._seen.update(marks)
        last = marks[-1]
        return CacheUsage(tokens(text) - tokens(last), tokens(read), tokens(last) - tokens(read))

    def openai(self, body: dict[str, Any]) -> CacheUsage:
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        texts = ["".join(t for t, _ in _blocks(m.get("content"))) for m in messages]
        prefix, total = "\x00".join(texts[:-1]), sum(tokens(t) for t in texts)
        if not prefix:
            return CacheUsage(total, 0, 0)
        with self._lock:
            seen = prefix in self._seen
            self._seen.add(prefix)
        cached = sum(tokens(t) for t in texts[:-1]) if seen else 0
        return CacheUsage(total - cached, cached, 0)
