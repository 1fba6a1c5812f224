"""One place that turns provider x surface into a `Lane`, importing only the lane asked for.

=============  =====================  ==========================================
provider       surface                lane
=============  =====================  ==========================================
``anthropic``  ``api``                `AnthropicApiLane` (``anthropic`` SDK)
``openai``     ``api``                `OpenAIApiLane` (``openai`` SDK)
``anthropic``  ``cli``                ``ClaudeCliLane`` (``claude -p``)
``openai``     ``cli``                ``CodexCliLane`` (``codex exec``)
``stub``       ``none`` (or ``api``)  ``StubLane`` (no endpoint)
=============  =====================  ==========================================

>>> make_lane("mistral", "api", None)
Traceback (most recent call last):
...
driftproof.errors.InputError: unknown provider 'mistral': expected one of anthropic, openai, stub
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from driftproof.errors import InputError, LaneError
from driftproof.lanes.base import Lane, RetryPolicy

PROVIDERS = ("anthropic", "openai", "stub")
SURFACES = ("api", "cli", "none")
STUB_SURFACES = ("none", "api")
CAPTURES = ("text", "files")
CLI_LANES = {
    "anthropic": ("driftproof.lanes.claude_cli", "ClaudeCliLane"),
    "openai": ("driftproof.lanes.codex_cli", "CodexCliLane"),
}
"""Imported by name only when asked for: each CLI lane lives in its own module."""
DEFAULT_TIMEOUT_S = 120.0
"""Seconds per attempt on an API lane when no timeout is given; a CLI lane has its own (``DEFAULT_TIMEOUT_S`` on
its class), long enough for the CLI's own retries."""
DEFAULT_MAX_RETRIES = RetryPolicy().max_retries


def make_lane(
    provider: str,
    surface: str,
    model: str | None,
    *,
    base_url: str | None = None,
    timeout_s: float | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    environ: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> Lane:
    """The lane for ``provider`` x ``surface``, answering with ``model`` (``None``: the lane's default).

    ``max_retries`` becomes the lane's `RetryPolicy` (retries after the first attempt). ``timeout_s`` ``None``
    means the lane's default: `DEFAULT_TIMEOUT_S` on an API lane, the CLI lane's own on a CLI lane.
    ``capture`` (``text`` or ``files``) is for the CLI surface; an API lane takes ``text`` only. Other keyword
    arguments go to the lane's constructor unchanged (``max_tokens`` for an API lane, ``script`` for the stub).
    Raises `InputError` for an unknown provider, surface or combination, `LaneError` when the lane cannot
    run (SDK or CLI missing, no key).
    """
    if provider not in PROVIDERS:
        raise InputError(f"unknown provider {provider!r}: expected one of {', '.join(PROVIDERS)}")
    if surface not in SURFACES:
        raise InputError(f"unknown surface {surface!r}: expected one of {', '.join(SURFACES)}")
    capture = kwargs.pop("capture", None)
    if capture is not None and capture not in CAPTURES:
        raise InputError(f"unknown capture {capture!r}: expected one of {', '.join(CAPTURES)}")
    if max_retries < 0:
        raise InputError(f"max_retries must be 0 or more, got {max_retries}")
    if timeout_s is not None and timeout_s <= 0:
        raise InputError(f"timeout must be a positive number of seconds, got {timeout_s:g}")
    policy = RetryPolicy(max_retries=max_retries)

    if provider == "stub":
        if surface not in STUB_SURFACES:
            raise InputError(f"the stub lane has no {surface!r} surface: use surface 'none'")
        from driftproof.lanes.stub import StubLane

        return StubLane(kwargs.pop("script", None), model=model, **kwargs)

    if surface == "none":
        raise InputError(f"provider {provider!r} needs surface 'api' or 'cli', got 'none'")

    if surface == "api":
        if capture == "files":
            raise InputError("capture 'files' needs the cli surface: an API lane returns text only")
        common: dict[str, Any] = {"base_url": base_url, "policy": policy, "environ": environ}
        common["timeout_s"] = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
        if provider == "anthropic":
            from driftproof.lanes.anthropic_api import AnthropicApiLane

            return AnthropicApiLane(model, **common, **kwargs)
        from driftproof.lanes.openai_api import OpenAIApiLane

        return OpenAIApiLane(model, **common, **kwargs)

    cli_kwargs: dict[str, Any] = {"timeout_s": timeout_s, "policy": policy, "environ": environ, **kwargs}
    if base_url is not None:
        cli_kwargs["base_url"] = base_url
    if capture is not None:
        cli_kwargs["capture"] = capture
    module_name, class_name = CLI_LANES[provider]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise LaneError(f"the {provider} cli lane ({class_name}) is not part of this Driftproof build") from None
    lane: Lane = getattr(module, class_name)(model, **cli_kwargs)
    return lane
