"""Response bodies in the vendors' wire shapes, as pure functions (no sockets, no clock of their own).

Every shape follows ``/work/shared/reference/llm-wire-formats.md``: §1.2-§1.4 for the Anthropic Messages API,
§2.1-§2.3 for OpenAI Chat Completions and Responses. `fake_llm_server` turns a `FakeReply` into these.

>>> body = anthropic_message(
...     msg_id="msg_x", model="claude-haiku-4-5", text="hi", stop_reason=None, usage=FakeUsage(input_tokens=3)
... )
>>> body["usage"]["input_tokens"], body["content"], body["stop_reason"]
(3, [{'type': 'text', 'text': 'hi'}], 'end_turn')
>>> openai_usage(FakeUsage(input_tokens=10, cache_read_tokens=5, output_tokens=4))["prompt_tokens"]
15
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FakeUsage",
    "anthropic_error",
    "anthropic_message",
    "anthropic_sse",
    "openai_chat_completion",
    "openai_error",
    "openai_response",
    "openai_response_sse",
    "openai_usage",
    "sse",
]


@dataclass(frozen=True)
class FakeUsage:
    """Token counts in one neutral form, mapped onto each vendor's usage object.

    Anthropic: ``input_tokens`` is the uncached input, as the Messages API reports it (total input is
    ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``).
    OpenAI: ``prompt_tokens`` / ``input_tokens`` include the cached part, so the fake sends
    ``input_tokens + cache_read_tokens + cache_write_tokens`` there and ``cached_tokens = cache_read_tokens``.
    """

    input_tokens: int = 11
    """Uncached input tokens."""
    output_tokens: int = 9
    """Output tokens, reasoning included (OpenAI counts reasoning inside ``completion_tokens``)."""
    cache_read_tokens: int = 0
    """Anthropic ``cache_read_input_tokens``; OpenAI ``cached_tokens``."""
    cache_write_tokens: int = 0
    """Anthropic ``cache_creation_input_tokens`` (5-minute TTL); OpenAI Responses ``cache_write_tokens``."""
    reasoning_tokens: int = 0
    """OpenAI ``reasoning_tokens`` (part of ``output_tokens``)."""


# -- Anthropic ----------------------------------------------------------------------------------------------

ANTHROPIC_ERROR_TYPES = {
    400: ("invalid_request_error", "Invalid request (fake server)."),
    401: ("authentication_error", "invalid x-api-key"),
    402: ("billing_error", "Your credit balance is too low to access the Anthropic API (fake server)."),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "Not found (fake server)."),
    408: ("timeout_error", "Request timed out (fake server)."),
    409: ("conflict_error", "Conflict (fake server)."),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: (
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit (fake server).",
    ),
    500: ("api_error", "Internal server error"),
    504: ("timeout_error", "Request timed out (fake server)."),
    529: ("overloaded_error", "Overloaded"),
}


def _anthropic_usage(usage: FakeUsage, *, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "output_tokens": output_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": usage.cache_write_tokens,
            "ephemeral_1h_input_tokens": 0,
        },
        "service_tier": "standard",
    }


def anthropic_message(
    *, msg_id: str, model: str, text: str, stop_reason: str | None, usage: FakeUsage
) -> dict[str, Any]:
    """A non-streaming ``Message`` (§1.2)."""
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason or "end_turn",
        "stop_sequence": None,
        "usage": _anthropic_usage(usage, output_tokens=usage.output_tokens),
    }


def sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    """Server-sent events: ``event: <name>`` and one ``data:`` line of compact JSON each."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def anthropic_sse(*, msg_id: str, model: str, text: str, stop_reason: str | None, usage: FakeUsage) -> bytes:
    """The ``stream: true`` event sequence of §1.3 (the one Claude Code consumes)."""
    start = anthropic_message(msg_id=msg_id, model=model, text="", stop_reason=None, usage=usage)
    start["content"] = []
    start["stop_reason"] = None
    start["usage"] = _anthropic_usage(usage, output_tokens=1)
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        ("ping", {"type": "ping"}),
    ]
    if text:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
        events.append(("content_block_delta", delta))
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason or "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": usage.output_tokens},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return sse(events)


def anthropic_error(status: int, *, request_id: str, error_type: str | None, message: str | None) -> dict[str, Any]:
    """The error body of §1.4; type and message default from the status."""
    default_type, default_message = ANTHROPIC_ERROR_TYPES.get(
        status,
        ("api_error", "Internal server error") if status >= 500 else ("invalid_request_error", "Error"),
    )
    return {
        "type": "error",
        "error": {"type": error_type or default_type, "message": message or default_message},
        "request_id": request_id,
    }


# -- OpenAI -------------------------------------------------------------------------------------------------

OPENAI_ERRORS = {
    400: ("invalid_request_error", None, "Invalid request (fake server)."),
    401: ("invalid_request_error", "invalid_api_key", "Incorrect API key provided (fake server)."),
    403: ("invalid_request_error", "unsupported_country_region_territory", "Forbidden (fake server)."),
    404: ("invalid_request_error", None, "Not found (fake server)."),
    429: ("requests", "rate_limit_exceeded", "Rate limit reached for requests (fake server)."),
    500: ("server_error", None, "The server had an error while processing your request. Sorry about that!"),
    503: ("server_error", None, "The engine is currently overloaded, please try again later."),
}


def openai_usage(usage: FakeUsage) -> dict[str, Any]:
    """Chat Completions ``usage`` (§2.1)."""
    prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": usage.output_tokens,
        "total_tokens": prompt + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": usage.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def openai_chat_completion(
    *,
    completion_id: str,
    created: int,
    model: str,
    text: str,
    finish_reason: str | None,
    usage: FakeUsage,
    system_fingerprint: str | None,
    more: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` (§2.1); ``more`` are the texts of choices 1, 2, ... (``n`` > 1)."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": choice, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason or "stop",
            }
            for i, choice in enumerate((text, *more))
        ],
        "usage": openai_usage(usage),
        "service_tier": "default",
        "system_fingerprint": system_fingerprint,
    }


def openai_error(status: int, *, error_type: str | None, message: str | None, code: str | None) -> dict[str, Any]:
    """``{"error": {"message", "type", "param", "code"}}`` (§2.3); fields default from the status."""
    default_type, default_code, default_message = OPENAI_ERRORS.get(
        status,
        ("server_error", None, "Server error (fake server).")
        if status >= 500
        else ("invalid_request_error", None, "Error"),
    )
    return {
        "error": {
            "message": message or default_message,
            "type": error_type or default_type,
            "param": None,
            "code": code if code is not None else default_code,
        }
    }


def _response_usage(usage: FakeUsage) -> dict[str, Any]:
    prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        },
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
        "total_tokens": prompt + usage.output_tokens,
    }


def openai_response(
    *,
    response_id: str,
    item_id: str,
    created: int,
    model: str,
    text: str,
    usage: FakeUsage,
    status: str = "completed",
) -> dict[str, Any]:
    """A Responses API ``response`` (§2.2); ``status="in_progress"`` gives the empty stream snapshot."""
    done = status == "completed"
    message = {
        "id": item_id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": model,
        "output": [message] if done else [],
        "usage": _response_usage(usage) if done else None,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
    }


def openai_response_sse(
    *, response_id: str, item_id: str, created: int, model: str, text: str, usage: FakeUsage
) -> bytes:
    """The ``stream: true`` events Codex consumes (§2.2), each with ``type`` and ``sequence_number``."""
    in_progress = openai_response(
        response_id=response_id,
        item_id=item_id,
        created=created,
        model=model,
        text="",
        usage=usage,
        status="in_progress",
    )
    done = openai_response(
        response_id=response_id, item_id=item_id, created=created, model=model, text=text, usage=usage
    )
    part = {"type": "output_text", "text": "", "annotations": []}
    item = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    where = {"item_id": item_id, "output_index": 0, "content_index": 0}
    payloads: list[dict[str, Any]] = [
        {"type": "response.created", "response": in_progress},
        {"type": "response.in_progress", "response": in_progress},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.content_part.added", **where, "part": part},
        {"type": "response.output_text.delta", **where, "delta": text, "logprobs": []},
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": {**part, "text": text}},
        {"type": "response.output_item.done", "output_index": 0, "item": done["output"][0]},
        {"type": "response.completed", "response": done},
    ]
    return sse([(p["type"], {**p, "sequence_number": n}) for n, p in enumerate(payloads)])
