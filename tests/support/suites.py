"""The loopback tests' two-case suite: a one-line skill, cases ``a`` and ``b`` whose rubric favours a ``feat:``
answer, written as ``suite.yaml`` beside ``SKILL.md``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

SKILL = "Always answer with a Conventional Commits subject line."


def two_case_suite(folder: Path, *, skill: str = SKILL, **extra: Any) -> Path:
    """Write the skill (``skill``, the one-line skill unless given) and the suite (with any further top-level keys,
    ``canaries=…`` say) into ``folder``."""
    (folder / "SKILL.md").write_text(skill, encoding="utf-8")
    body = {
        "skill": "SKILL.md",
        "cases": [
            {"id": "a", "prompt": "Task a.", "rubric": "feat wins"},
            {"id": "b", "prompt": "Task b.", "rubric": "feat wins"},
        ],
        **extra,
    }
    (folder / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return folder / "suite.yaml"
