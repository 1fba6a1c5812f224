"""Reading an API reply straight from its JSON, where that reads exactly what the SDK's models would.

Both SDKs read a reply into their pydantic models without validating it (``construct``), with two
exceptions a lane must not read past: a field typed as a union (``Optional[int]``, ``Optional[str]``) is
validated first, which converts some values (``"8"`` or ``8.0`` into ``8``), and an Anthropic content block
is built as the class its ``type`` names, or as a text block when the SDK knows no such type. Building the
models costs 0.3 to 0.5 ms of CPU a reply (about a sixth of an API lane's call: docs/performance.md), so a
lane reads a reply's JSON itself when every field it reads holds its plain JSON type (a string, an integer,
``null``): the SDK keeps those as they are. Any other reply is read through the SDK's models, as before.

>>> is_count(3), is_count(True), is_count("3"), is_optional_count(None), is_optional_text(None)
(True, False, False, True, True)
"""

from __future__ import annotations

from typing import Any


def json_body(response: Any) -> object:
    """The body of an ``httpx`` response as JSON, or ``None`` when it is not JSON (read then by the SDK's models)."""
    try:
        return response.json()
    except ValueError:
        return None


def is_count(value: object) -> bool:
    """A JSON integer (``true`` and ``false`` are not counts, though Python's ``bool`` is an ``int``)."""
    return type(value) is int


def is_optional_count(value: object) -> bool:
    """A JSON integer or ``null`` (an absent field reads as ``None``)."""
    return value is None or type(value) is int


def is_optional_text(value: object) -> bool:
    """A JSON string or ``null`` (an absent field reads as ``None``)."""
    return value is None or isinstance(value, str)
