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
from typing import Any

from driftproof.core.defaults import DEFAULTS, LIMITS
from driftproof.core.words import Capture, Provider, Surface, Word
from driftproof.errors import InputError, LaneError
from driftproof.lanes.base import Lane, RetryPolicy

LANES: Mapping[tuple[Provider, Surface], tuple[str, str]] = {
    (Provider.ANTHROPIC, Surface.API): ("driftproof.lanes.anthropic_api", "AnthropicApiLane"),
    (Provider.OPENAI, Surface.API): ("driftproof.lanes.openai_api", "OpenAIApiLane"),
    (Provider.ANTHROPIC, Surface.CLI): ("driftproof.lanes.claude_cli", "ClaudeCliLane"),
    (Provider.OPENAI, Surface.CLI): ("driftproof.lanes.codex_cli", "CodexCliLane"),
    (Provider.STUB, Surface.NONE): ("driftproof.lanes.stub", "StubLane"),
}
"""The one table of lanes: each module is imported by name only when its lane is asked for, so a missing SDK or
CLI costs nothing until then."""


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

    _refuse_combination(provider, surface, capture, base_url)
    arguments: dict[str, Any] = {**kwargs}
    if surface != Surface.NONE:
        arguments |= {"policy": policy, "environ": environ}
        if surface == Surface.API and timeout is None:
            timeout = DEFAULTS.api_timeout_s  # a CLI lane's own default is longer: it retries inside
        given = {"timeout_s": timeout, "base_url": base_url, "capture": capture if surface == Surface.CLI else None}
        arguments |= {name: value for name, value in given.items() if value is not None}
    lane: Lane = _lane_class(provider, surface)(model, **arguments)
    return lane


def _refuse_combination(provider: Provider, surface: Surface, capture: Capture | None, base_url: str | None) -> None:
    """An `InputError` for a provider x surface x capture the lanes cannot run, saying what to drop."""
    if provider == Provider.STUB:
        if surface != Surface.NONE:
            raise InputError(f"the stub lane has no '{surface}' surface: it calls no endpoint; drop --surface")
        if capture == Capture.FILES:
            raise InputError("the stub lane cannot run 'files' capture: it writes no files; drop --capture files")
        if base_url is not None:
            raise InputError("the stub lane calls no endpoint, so it cannot use a base URL: drop --base-url")
    elif surface == Surface.NONE:
        raise InputError(f"provider '{provider}' needs surface 'api' or 'cli', got 'none'")
    elif surface == Surface.API and capture == Capture.FILES:
        raise InputError("capture 'files' needs the cli surface: an API lane returns text only")


def _lane_class(provider: Provider, surface: Surface) -> Any:
    """The lane class of the table's row, imported now; a `LaneError` when this build leaves it out."""
    module_name, class_name = LANES[(provider, surface)]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise LaneError(f"the {provider} {surface} lane ({class_name}) is not part of this Driftproof build") from None
    return getattr(module, class_name)


def default_model_of(provider: Provider, surface: Surface) -> str | None:
    """The model a lane asks for when none is named, read from its class without building it (so without a key);
    ``None`` for a lane whose tool picks its own (the CLI lanes)."""
    if (provider, surface) not in LANES:
        return None
    cls = _lane_class(provider, surface)
    model = getattr(cls, "DEFAULT_MODEL", None)
    return model if isinstance(model, str) else None


def samples_per_request_of(provider: str, surface: str) -> int:
    """How many answers to one prompt one request of a lane can ask for (`Lane.SAMPLES_PER_REQUEST`), read from its
    class without building it; 1 for a lane not in the table."""
    if (provider, surface) not in LANES:
        return 1
    most = getattr(_lane_class(Provider(provider), Surface(surface)), "SAMPLES_PER_REQUEST", 1)
    return most if isinstance(most, int) and most >= 1 else 1
