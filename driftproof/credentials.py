"""Credentials: where each one is read from, the values this process holds, and the one way text is redacted.

Every string Driftproof writes or sends anywhere (a lost draw's reason, the journal, the receipt, a report, the
job summary, a PR comment, a log line, an error message) goes through `redact` before it is cut to length, so
no character of a credential survives a cut that straddles it. `redact` replaces, longest first, every value
the process holds (`hold`: each lane holds its keys when it is built; `hold_environment` takes every variable
of `SECRET_ENV_NAMES`), each line of a multi-line value, and anything shaped like a key (``sk-…``, a Bearer
token, an ``x-api-key:`` header) with ``[REDACTED]``.

>>> hold("hunter22-not-a-key-shape")
>>> redact("the key hunter22-not-a-key-shape was refused; also sk-ant-api03-abcdefgh and Bearer abc.def")
'the key [REDACTED] was refused; also [REDACTED] and Bearer [REDACTED]'
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping

REDACTED = "[REDACTED]"

#: The variables a provider's lanes read a credential from (API keys, auth tokens, CLI OAuth tokens).
PROVIDER_CREDENTIALS: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY", "CODEX_API_KEY"),
    "stub": (),
}

#: The variables the API lanes (and so the Action, which runs them) take a key from; any one is enough.
API_CREDENTIALS: Mapping[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "stub": (),
}

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

_KEY_SHAPES = re.compile(
    r"(?i)\bsk-[a-z0-9][a-z0-9_\-]{6,}"  # sk-ant-..., sk-proj-..., sk-...
    r"|(?<=bearer )[a-z0-9._~+/=\-]{4,}"  # whatever follows "Bearer "
    r"|(?<=x-api-key: )\S{4,}"
)

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
    return _KEY_SHAPES.sub(REDACTED, text)
