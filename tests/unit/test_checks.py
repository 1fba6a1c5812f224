"""Deterministic post-checks: each kind on real answers."""

from __future__ import annotations

import pytest

from driftproof.checks import conventional_commit, run_check, subject_line
from driftproof.suite import CheckSpec

COMMIT = "```\nfix(cart): return 0 for an empty cart\n\nThe total divided by len(items) and raised.\n```"


@pytest.mark.parametrize(
    ("spec", "answer", "passed"),
    [
        ({"kind": "regex", "pattern": r"^fix\("}, COMMIT, True),  # ^ matches at every line start (re.M)
        ({"kind": "regex", "pattern": r"\Afix\("}, COMMIT, False),  # \A: the fence line comes first
        ({"kind": "regex", "pattern": "RAISED", "ignore_case": True}, COMMIT, True),
        ({"kind": "contains", "value": "429"}, "Retry after a 429.", True),
        ({"kind": "contains", "value": "429"}, "Retry later.", False),
        ({"kind": "not_contains", "value": "TODO"}, "All done.", True),
        ({"kind": "not_contains", "value": "todo", "ignore_case": True}, "TODO: later", False),
        ({"kind": "max_chars", "value": 10}, "0123456789", True),
        ({"kind": "max_chars", "value": 10}, "0123456789!", False),
        ({"kind": "json"}, '{"a": 1}', True),
        ({"kind": "json"}, '```json\n{"a": 1}\n```', True),
        ({"kind": "json"}, "{a: 1}", False),
        ({"kind": "conventional_commit"}, COMMIT, True),
        ({"kind": "conventional_commit"}, "Fixed the cart", False),
        ({"kind": "conventional_commit"}, "feat!: drop Python 3.10", True),
        ({"kind": "conventional_commit", "max_subject": 20}, "feat(api): add retry-after support", False),
    ],
)
def test_check_kinds(spec: dict, answer: str, passed: bool) -> None:
    result = run_check(CheckSpec.model_validate(spec), answer)
    assert result.passed is passed and result.kind == spec["kind"]
    assert result.model_dump(mode="json")["pass"] is passed


def test_check_names() -> None:
    assert run_check(CheckSpec(kind="contains", value="429"), "429").name == "contains: 429"
    assert run_check(CheckSpec(kind="json", name="is json"), "1").name == "is json"


def test_subject_line_skips_blank_lines_and_fence() -> None:
    assert subject_line("\n\n```text\nchore: bump deps\n```") == "chore: bump deps"
    assert conventional_commit("x" * 5) is False
