"""One place that turns provider x surface into a `Lane`, importing only the lane asked for.

=============  =====================  ==========================================
provider       surface                lane
=============  =====================  ==========================================
``anthropic``  ``api``                `AnthropicApiLane` (``anthropic`` SDK)
``openai``     ``api``                `OpenAIApiLane` (``openai`` SDK)
``anthropic``  ``cli``                ``ClaudeCliLane`` (``claude -p``)
``openai``     ``cli``                ``CodexCliLane`` (``codex exec``)
``stub``       ``none``               ``StubLane`` (no endpoint)
=============  =====================  ==========================================

>>> make_lane("mistral", "api", None)
Traceback (most recent call last):
...
driftproof.errors.InputError: unknown provider 'mistral': expected one of anthropic, openai, stub
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, TypeVar

from driftproof.core.defaults import DEFAULTS, LIMITS
from driftproof.core.words import Capture, Provider, Surface
from driftproof.errors import InputError, LaneError
from driftproof.lanes.base import Lane, RetryPolicy

CLI_LANES = {
    Provider.ANTHROPIC: ("driftproof.lanes.claude_cli", "ClaudeCliLane"),
    Provider.OPENAI: ("driftproof.lanes.codex_cli", "CodexCliLane"),
}
"""Imported by name only when asked for: each CLI lane lives in its own module."""


Word = TypeVar("Word", bound=StrEnum)


def check_choice(name: str, value: str, words: type[Word]) -> Word:
    """``value`` as one of ``words``, or an `InputError` naming the ones there are.

    >>> str(check_choice("capture", "files", Capture))
    'files'
    >>> check_choice("capture", "email", Capture)
    Traceback (most recent call last):
    ...
    driftproof.errors.InputError: unknown capture 'email': expected one of text, files
    """
    if value not in tuple(words):
        raise InputError(f"unknown {name} {value!r}: expected one of {', '.join(words)}")
    return words(value)


def check_timeout(timeout_s: object) -> float:
    """A timeout is a finite number of seconds above 0 and at most a day; anything else is an `InputError`.

    >>> check_timeout(30), check_timeout(0.5)
    (30.0, 0.5)
    >>> check_timeout(float("nan"))
    Traceback (most recent call last):
    ...
    driftproof.errors.InputError: --timeout must be a number of seconds above 0 and at most 86400, got nan
    """
    ok = isinstance(timeout_s, (int, float)) and not isinstance(timeout_s, bool)
    value = float(timeout_s) if ok else math.nan  # type: ignore[arg-type]
    if not (math.isfinite(value) and 0.0 < value <= LIMITS.timeout_s):
        raise InputError(
            f"--timeout must be a number of seconds above 0 and at most {LIMITS.timeout_s:g}, got {timeout_s}"
        )
    return value


def check_retries(max_retries: object) -> int:
    """Retries are a whole number from 0 to 100.

    >>> check_retries(0), check_retries(4)
    (0, 4)
    """
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or not 0 <= max_retries <= LIMITS.retries:
        raise InputError(f"--max-retries must be a whole number from 0 to {LIMITS.retries}, got {max_retries}")
    return max_retries


def make_lane(
    provider: str,
    surface: str,
    model: str | None,
    *,
    base_url: str | None = None,
    timeout_s: float | None = None,
    max_retries: int = DEFAULTS.max_retries,
    environ: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> Lane:
    """The lane for ``provider`` x ``surface``, answering with ``model`` (``None``: the lane's default).

    This is the only way a lane is built, the stub and the judge included, so every lane gets the same checks.
    ``timeout_s`` (``None``: the lane's own default) must be finite and above 0, ``max_retries`` a whole number
    from 0 to 100; ``max_retries`` becomes the lane's `RetryPolicy` (retries after the first attempt).
    ``capture`` (``text`` or ``files``) is for the CLI surface; an API lane takes ``text`` only, and the stub
    neither ``files`` capture nor a base URL, which it could not apply. Other keyword arguments go to the
    lane's constructor unchanged (``max_tokens`` for an API lane, ``script`` for the stub).
    Raises `InputError` for an unknown provider, surface or combination, `LaneError` when the lane cannot
    run (SDK or CLI missing, no key).
    """
    provider = check_choice("provider", provider, Provider)
    surface = check_choice("surface", surface, Surface)
    capture = kwargs.pop("capture", None)
    if capture is not None:
        capture = check_choice("capture", capture, Capture)
    policy = RetryPolicy(max_retries=check_retries(max_retries))
    timeout = None if timeout_s is None else check_timeout(timeout_s)

    if provider == Provider.STUB:
        if surface != Surface.NONE:
            raise InputError(f"the stub lane has no '{surface}' surface: it calls no endpoint; drop --surface")
        if capture == Capture.FILES:
            raise InputError("the stub lane cannot run 'files' capture: it writes no files; drop --capture files")
        if base_url is not None:
            raise InputError("the stub lane calls no endpoint, so it cannot use a base URL: drop --base-url")
        from driftproof.lanes.stub import StubLane

        return StubLane(kwargs.pop("script", None), model=model, **kwargs)

    if surface == Surface.NONE:
        raise InputError(f"provider '{provider}' needs surface 'api' or 'cli', got 'none'")

    if surface == Surface.API:
        if capture == Capture.FILES:
            raise InputError("capture 'files' needs the cli surface: an API lane returns text only")
        common: dict[str, Any] = {
            "base_url": base_url,
            "timeout_s": DEFAULTS.api_timeout_s if timeout is None else timeout,
            "policy": policy,
            "environ": environ,
        }
        if provider == Provider.ANTHROPIC:
            from driftproof.lanes.anthropic_api import AnthropicApiLane

            return AnthropicApiLane(model, **common, **kwargs)
        from driftproof.lanes.openai_api import OpenAIApiLane

        return OpenAIApiLane(model, **common, **kwargs)

    cli_kwargs: dict[str, Any] = {"policy": policy, "environ": environ, **kwargs}
    if timeout is not None:
        cli_kwargs["timeout_s"] = timeout
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
