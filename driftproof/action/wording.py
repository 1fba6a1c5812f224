"""An error in the Action's words: the run code shared with the CLI names its flags and the absolute paths it was
given; the Action's user wrote inputs and paths relative to the repository root.

`in_action_words` rewrites each flag that is also an Action input (``--shard`` → ``input 'shard'``, with the flag's
metavar dropped: ``--budget TOKENS`` → ``input 'budget'``) and each path under the workspace as the path relative to
it, so the ``::error::`` line, the job summary and the comment name what the user can change. A flag with no input
(``--resume``, ``--max-tokens``) is left as it is. Pure.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SHARED_NAMES", "in_action_words"]

SHARED_NAMES = frozenset(
    {
        "as-reference",
        "base-url",
        "budget",
        "budget-usd",
        "carry-baseline",
        "concurrency",
        "draws",
        "fail-on",
        "judge-base-url",
        "judge-mode",
        "judge-model",
        "judge-provider",
        "judge-samples",
        "junit",
        "max-consecutive-failures",
        "max-draws",
        "max-retries",
        "model",
        "placebo",
        "price-table",
        "provider",
        "shard",
        "skill",
        "skills",
        "stale-after",
        "timeout",
    }
)
"""The CLI flags that are Action inputs of the same name (``tests/unit/test_action_contract.py`` holds both sides)."""

_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)(?: [A-Z][A-Z0-9_]*(?:/[A-Z][A-Z0-9_]*)*\b)?")


def in_action_words(message: str, workspace: Path) -> str:
    """``message`` with each shared flag named as its input and each path under ``workspace`` made relative.

    >>> in_action_words("--shard: COUNT (5) is more than 3; or give --budget TOKENS", Path("/w"))
    "input 'shard': COUNT (5) is more than 3; or give input 'budget'"
    >>> in_action_words("/w/SKILLS.md: no such SKILL.md (given by --skill); --resume", Path("/w"))
    "SKILLS.md: no such SKILL.md (given by input 'skill'); --resume"
    """

    def named(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"input '{name}'" if name in SHARED_NAMES else match.group(0)

    text = _FLAG.sub(named, message)
    for root in dict.fromkeys([str(workspace), str(workspace.resolve())]):
        if root not in ("", ".", "/"):
            text = text.replace(root.rstrip("/") + "/", "")
    return text
