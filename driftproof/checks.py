"""Deterministic post-checks: they simply hold or not, with no model judging. Never part of a verdict."""

from __future__ import annotations

import json
import re

from driftproof.core.models import CheckResult
from driftproof.suite import CheckSpec

CONVENTIONAL = re.compile(
    r"^(feat|fix|docs|style|refactor|perf|test|tests|build|ci|chore|revert)(\([^()\r\n]+\))?!?: \S.*$"
)
_FENCE = re.compile(r"^\s*```[^\n]*\n(.*?)\n\s*```\s*$", re.S)


def _unfenced(text: str) -> str:
    match = _FENCE.match(text)
    return match.group(1) if match else text


def subject_line(answer: str) -> str:
    """The first non-empty line, outside a code fence that wraps the whole answer.

    >>> subject_line("```\\nfix(cart): handle empty carts\\n\\nbody\\n```")
    'fix(cart): handle empty carts'
    """
    for line in _unfenced(answer.strip()).splitlines():
        if line.strip():
            return line.strip()
    return ""


def conventional_commit(answer: str, max_subject: int = 72) -> bool:
    """Whether the answer's subject line is a Conventional Commits subject of at most ``max_subject`` chars.

    >>> conventional_commit("feat(api): add retry-after support"), conventional_commit("Added stuff")
    (True, False)
    """
    subject = subject_line(answer)
    return bool(CONVENTIONAL.match(subject)) and len(subject) <= max_subject


def _is_json(answer: str) -> bool:
    try:
        json.loads(_unfenced(answer.strip()))
    except ValueError:
        return False
    return True


def run_check(spec: CheckSpec, answer: str) -> CheckResult:
    """Run one check on one answer."""
    flags = re.I if spec.ignore_case else 0
    if spec.kind == "regex":
        passed = re.search(spec.pattern or "", answer, flags | re.M) is not None
    elif spec.kind in ("contains", "not_contains"):
        needle, hay = str(spec.value), answer
        if spec.ignore_case:
            needle, hay = needle.casefold(), hay.casefold()
        passed = (needle in hay) == (spec.kind == "contains")
    elif spec.kind == "max_chars":
        passed = len(answer) <= int(spec.value or 0)
    elif spec.kind == "json":
        passed = _is_json(answer)
    else:
        passed = conventional_commit(answer, spec.max_subject)
    return CheckResult.model_validate({"name": spec.label, "kind": spec.kind, "pass": passed})


def run_checks(specs: tuple[CheckSpec, ...], answer: str) -> list[CheckResult]:
    """Every check of a case on one answer, in suite order."""
    return [run_check(s, answer) for s in specs]
