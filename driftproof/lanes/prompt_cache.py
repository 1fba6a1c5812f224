"""Prompt caching on the Anthropic Messages API: which blocks of a request carry ``cache_control``.

The skill is sent as one ``system`` text block marked ``cache_control: {"type": "ephemeral"}``, so every
with-skill draw after the first reads that prefix from the cache at the cache-read price (the first writes it,
at the cache-write price); a baseline request has no ``system`` at all. A prompt with `cache breaks
<driftproof.lanes.base.GenerationRequest.cache_breaks>` (the judge's: its fixed instructions, then the case) is
sent as text blocks cut there, each block but the last marked. The API takes at most `MAX_BREAKPOINTS` marked
blocks in one request, and caches a prefix only from a model's minimum length on (shorter ones are sent and
billed as plain input, without an error). The OpenAI lane needs none of this: Chat Completions caches a
repeated leading prefix by itself, so the skill stays the first message there.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}
"""The one ``cache_control`` the lane sends: the default five-minute cache."""
MAX_BREAKPOINTS = 4
"""The Messages API refuses a request with more blocks marked ``cache_control`` than this."""


def system_blocks(system: str) -> list[dict[str, Any]]:
    """The skill as one cacheable ``system`` block.

    >>> system_blocks("Be terse.")
    [{'type': 'text', 'text': 'Be terse.', 'cache_control': {'type': 'ephemeral'}}]
    """
    return [{"type": "text", "text": system, "cache_control": dict(EPHEMERAL)}]


def user_content(prompt: str, breaks: tuple[int, ...], *, marks_left: int = MAX_BREAKPOINTS) -> str | list[Any]:
    """The user turn: the prompt as it is, or cut at ``breaks`` into text blocks, each but the last cacheable.

    A break outside the prompt (or at its ends) is ignored, as is any beyond ``marks_left``; the blocks joined
    are always exactly ``prompt``.

    >>> user_content("abcdef", ())
    'abcdef'
    >>> [(b["text"], "cache_control" in b) for b in user_content("abcdef", (2, 4, 9))]
    [('ab', True), ('cd', True), ('ef', False)]
    >>> [b["text"] for b in user_content("abcdef", (2, 4), marks_left=1)]
    ['ab', 'cdef']
    """
    cuts = sorted({b for b in breaks if 0 < b < len(prompt)})[: max(0, marks_left)]
    if not cuts:
        return prompt
    blocks: list[Any] = []
    start = 0
    for cut in cuts:
        blocks.append({"type": "text", "text": prompt[start:cut], "cache_control": dict(EPHEMERAL)})
        start = cut
    blocks.append({"type": "text", "text": prompt[start:]})
    return blocks
