"""Canary credentials and the leak finder: any 8 characters in a row of a canary, anywhere, is a leak.

Canaries are random letters and digits (40 of them), not shaped like ``sk-...``, so a redaction that only
knows key shapes does not catch them by shape.

>>> canaries = {"K": "Ab3dE5gH9jKlMn0pQrStUvWxYz12345678901234"}
>>> [(l.name, l.text) for l in find_leaks("key=Ab3dE5gH9jKl!", canaries)]
[('K', 'Ab3dE5gH9jKl')]
>>> find_leaks("Ab3dE5g and ***", canaries)
[]
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

WINDOW = 8
LENGTH = 40
CANARY_NAMES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "GITHUB_TOKEN",
    "INPUT_GITHUB-TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
)
"""Every variable a lane or the Action reads a credential from (and the runner's own tokens)."""
_ALPHABET = string.ascii_letters + string.digits
_RUN = re.compile(rf"[A-Za-z0-9]{{{WINDOW},}}")


def make_canaries(seed: int) -> dict[str, str]:
    """One random canary per name, deterministic for the seed."""
    rng = random.Random(f"{seed}/canaries")
    return {name: "".join(rng.choice(_ALPHABET) for _ in range(LENGTH)) for name in CANARY_NAMES}


@dataclass(frozen=True)
class Leak:
    """A run of characters of one canary found in an output."""

    output: str
    name: str
    start: int
    text: str


def find_leaks(text: str, canaries: Mapping[str, str], output: str = "") -> list[Leak]:
    """Every maximal run of text covered by 8-character windows of one canary."""
    windows: dict[str, str] = {}
    for name, value in canaries.items():
        for i in range(len(value) - WINDOW + 1):
            windows.setdefault(value[i : i + WINDOW], name)
    leaks: list[Leak] = []
    for match in _RUN.finditer(text):
        run = match.group()
        owner: list[str | None] = [None] * len(run)
        for i in range(len(run) - WINDOW + 1):
            found = windows.get(run[i : i + WINDOW])
            if found is not None:
                owner[i : i + WINDOW] = [found] * WINDOW
        i = 0
        while i < len(run):
            who = owner[i]
            if who is None:
                i += 1
                continue
            j = i
            while j < len(run) and owner[j] == who:
                j += 1
            leaks.append(Leak(output, who, match.start() + i, run[i:j]))
            i = j
    return leaks


def without_mask_lines(log: str) -> str:
    """A log without its ``::add-mask::`` lines, which hand the runner each secret to mask, by design."""
    return "\n".join(line for line in log.split("\n") if not line.startswith("::add-mask::"))


def summarize(leaks: Iterable[Leak]) -> str:
    """``N occurrences (M characters)`` for the table."""
    found = list(leaks)
    chars = sum(len(leak.text) for leak in found)
    return f"{len(found)} occurrences ({chars} chars)" if found else "0"
