"""Credentials: where each one is read from, the values this process holds, and the one way text is redacted.

Every string Driftproof writes or sends anywhere (a lost draw's reason, the journal, the receipt, a report, the
job summary, a PR comment, a log line, an error message) goes through `redact` before it is cut to length, so
no character of a credential survives a cut that straddles it. `redact` replaces, longest first, every value
the process holds (`hold`: each lane holds its keys when it is built; `hold_environment` takes every variable
of `SECRET_ENV_NAMES`), each line of a multi-line value, every run of `FRAGMENT_CHARS` or more characters of a
long held value (a key the provider echoed cut short), a masked echo (``abcd1234****wxyz``, as providers print a
wrong key), and anything shaped like a key (``sk-…``, a Bearer token, an ``x-api-key:`` header) with
``[REDACTED]``.

>>> hold("hunter22-not-a-key-shape")
>>> redact("the key hunter22-not-a-key-shape was refused; also sk-ant-api03-abcdefgh and Bearer abc.def")
'the key [REDACTED] was refused; also [REDACTED] and Bearer [REDACTED]'
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping

from driftproof.core.words import Provider, Surface

REDACTED = "[REDACTED]"

CREDENTIALS: Mapping[Provider, tuple[tuple[str, tuple[Surface, ...]], ...]] = {
    Provider.ANTHROPIC: (
        ("ANTHROPIC_API_KEY", (Surface.API, Surface.CLI)),
        ("ANTHROPIC_AUTH_TOKEN", (Surface.API, Surface.CLI)),
        ("CLAUDE_CODE_OAUTH_TOKEN", (Surface.CLI,)),
    ),
    Provider.OPENAI: (
        ("CODEX_API_KEY", (Surface.CLI,)),
        ("OPENAI_API_KEY", (Surface.API, Surface.CLI)),
    ),
    Provider.STUB: (),
}
"""The one table: each provider's credential variables, in the order a lane looks for them, with the surfaces
that read each. Everything else here (what a lane holds, what the Action masks, what it asks for) derives from it."""


def credential_names(provider: str, surface: str | None = None) -> tuple[str, ...]:
    """The variables ``provider``'s lanes on ``surface`` (``None``: any surface) read a credential from.

    >>> credential_names("openai", "api"), credential_names("openai", "cli")
    (('OPENAI_API_KEY',), ('CODEX_API_KEY', 'OPENAI_API_KEY'))
    """
    return tuple(name for name, surfaces in CREDENTIALS[Provider(provider)] if surface is None or surface in surfaces)


#: The variables a provider's lanes read a credential from (API keys, auth tokens, CLI OAuth tokens).
PROVIDER_CREDENTIALS: Mapping[Provider, tuple[str, ...]] = {p: credential_names(p) for p in Provider}

#: The variables the API lanes (and so the Action, which runs them) take a key from; any one is enough.
API_CREDENTIALS: Mapping[Provider, tuple[str, ...]] = {p: credential_names(p, Surface.API) for p in Provider}

#: GitHub's tokens, as the runner hands them to an Action.
GITHUB_CREDENTIALS = (
    "GITHUB_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)

#: Every variable whose value is a secret: masked in the Action's log, redacted from everything written.
SECRET_ENV_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys([*(n for names in PROVIDER_CREDENTIALS.values() for n in names), *GITHUB_CREDENTIALS])
)

MIN_SECRET_CHARS = 4
"""Shorter values are not secrets worth the name (and replacing them would garble ordinary text)."""

FRAGMENT_CHARS = 8
"""A run of this many characters of a held value is redacted wherever it appears, as the value itself is."""

MIN_FRAGMENTED_CHARS = 16
"""Held values at least this long are also redacted by fragment; shorter ones (a word-like password) only whole."""

_KEY_SHAPES = re.compile(
    r"(?i)\bsk-[a-z0-9][a-z0-9_\-]{6,}"  # sk-ant-..., sk-proj-..., sk-...
    r"|(?<=bearer )[a-z0-9._~+/=\-]{4,}"  # whatever follows "Bearer "
    r"|(?<=x-api-key: )\S{4,}"
)
_MASK = "****"
_KEPT = re.compile(r"[A-Za-z0-9_\-]{0,64}")
_KEPT_BEFORE = re.compile(r"[A-Za-z0-9_\-]{0,64}$")

_held: set[str] = set()
_lock = threading.Lock()


def _pieces(value: str) -> list[str]:
    """The value, stripped, and each of its lines: what could appear of it in text."""
    parts = [value, value.strip(), *value.splitlines()]
    return [p.strip() for p in parts if len(p.strip()) >= MIN_SECRET_CHARS]


def hold(*values: str | None) -> None:
    """Remember secret values for the rest of the process: `redact` replaces them wherever they appear."""
    with _lock:
        for value in values:
            if value:
                _held.update(_pieces(value))


def hold_environment(environ: Mapping[str, str]) -> list[str]:
    """Hold every secret variable's value in ``environ``; return the values held, each once, in table order."""
    found = [v for name in SECRET_ENV_NAMES if (v := environ.get(name) or "").strip()]
    hold(*found)
    return list(dict.fromkeys(found))


def held() -> tuple[str, ...]:
    """The values held so far, longest first."""
    with _lock:
        return tuple(sorted(_held, key=len, reverse=True))


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every held value, every value in ``extra`` and every key-shaped string replaced."""
    values = set(held())
    for value in extra:
        if value:
            values.update(_pieces(value))
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    text = _KEY_SHAPES.sub(REDACTED, _without_masks(text))
    return _without_fragments(text, _fragments(frozenset(values)))


def _without_masks(text: str) -> str:
    """``text`` with each masked echo of a key (four or more ``*`` touching a letter or digit) replaced.

    The stars are found first (`str.find`), then what the provider kept of either end, at most 64 characters
    each way, so a long run of letters costs no backtracking.

    >>> _without_masks("Incorrect API key provided: ab12cd34************wx9z. See …; **** and **bold**")
    'Incorrect API key provided: [REDACTED]. See …; **** and **bold**'
    """
    pieces, last, start = [], 0, text.find(_MASK)
    while start >= 0:
        end = start + len(_MASK)
        while end < len(text) and text[end] == "*":
            end += 1
        before = _KEPT_BEFORE.search(text, max(last, start - 64), start)
        after = _KEPT.match(text, end)
        head = before.start() if before else start
        tail = after.end() if after else end
        if head < start or tail > end:  # stars alone are markdown, not a mask
            pieces += [text[last:head], REDACTED]
            last = tail
        start = text.find(_MASK, max(tail, end))
    return "".join([*pieces, text[last:]]) if pieces else text


_fragment_cache: dict[frozenset[str], frozenset[str]] = {}


def _fragments(values: frozenset[str]) -> frozenset[str]:
    """Every `FRAGMENT_CHARS`-character window of every long value (computed once per set of values)."""
    found = _fragment_cache.get(values)
    if found is None:
        long_values = [v for v in values if len(v) >= MIN_FRAGMENTED_CHARS]
        found = frozenset(v[i : i + FRAGMENT_CHARS] for v in long_values for i in range(len(v) - FRAGMENT_CHARS + 1))
        _fragment_cache.clear()  # the held set only grows: the last set is the one asked for again
        _fragment_cache[values] = found
    return found


def _without_fragments(text: str, fragments: frozenset[str]) -> str:
    """``text`` with every stretch covered by windows of a held value replaced, once per stretch.

    >>> _without_fragments("id abcdefghij!", frozenset({"abcdefgh", "bcdefghi", "cdefghij"}))
    'id [REDACTED]!'
    """
    spans: list[tuple[int, int]] = []
    for fragment in fragments:
        start = text.find(fragment)
        while start >= 0:
            spans.append((start, start + FRAGMENT_CHARS))
            start = text.find(fragment, start + 1)
    if not spans:
        return text
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    pieces, last = [], 0
    for start, end in merged:
        pieces += [text[last:start], REDACTED]
        last = end
    return "".join([*pieces, text[last:]])
