"""Suites: the native format and the two formats skill authors already have; one-line errors per field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.errors import InputError
from driftproof.suite import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "commit-writer" / "suite.yaml"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_bundled_example_loads() -> None:
    suite = load_suite(EXAMPLE)
    assert suite.format == "native" and [c.id for c in suite.cases] == ["subject-line", "why-not-what", "retry-429"]
    assert suite.skill == EXAMPLE.parent / "SKILL.md"
    assert suite.cases[0].threshold == 0.7 and suite.cases[0].mode == "rubric"
    crit = suite.cases[1].criteria
    assert crit is not None and [c.weight for c in crit] == [1, 2, 1] and suite.cases[1].mode == "criteria"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("cases:\n  - id: a\n    prompt: p\n", "cases[0]: neither 'rubric' nor 'criteria'"),
        ("cases:\n  - id: a\n    prompt: p\n    criteria: []\n", "cases[0]: an empty 'criteria' list"),
        ("cases:\n  - id: a\n    prompt: p\n    rubric: r\n    criteria: [{id: c, description: d}]\n", "not both"),
        ("cases:\n  - id: a\n    prompt: ''\n    rubric: r\n", "cases[0].prompt"),
        ("cases:\n  - id: 'bad id!'\n    prompt: p\n    rubric: r\n", "cases[0].id"),
        ("cases:\n  - {id: a, prompt: p, rubric: r}\n  - {id: a, prompt: q, rubric: r}\n", "'a' appears twice"),
        ("cases:\n  - {id: a, prompt: p, rubric: r, threshold: 1.5}\n", "cases[0].threshold"),
        ("cases:\n  - {id: a, prompt: p, rubric: r, surprise: 1}\n", "cases[0].surprise"),
        ("cases:\n  - {id: a, prompt: p, criteria: [{id: c, weight: 0, description: d}]}\n", "criteria[0].weight"),
        ("cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: regex}]}\n", "needs 'pattern'"),
        ("cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: regex, pattern: '('}]}\n", "regular expression"),
        ("cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: spell}]}\n", "checks[0].kind"),
        ("cases: []\n", "cases"),
        ("cases: [\n", "not valid YAML"),
    ],
)
def test_native_refusals_name_file_and_field(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, "suite.yaml", body)
    with pytest.raises(InputError) as info:
        load_suite(path)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_criteria_bounded_at_fifty(tmp_path: Path) -> None:
    crit = [{"id": f"c{i}", "description": "d"} for i in range(51)]
    path = write(tmp_path, "s.json", json.dumps({"cases": [{"id": "a", "prompt": "p", "criteria": crit}]}))
    with pytest.raises(InputError, match="criteria"):
        load_suite(path)
    crit.pop()
    path.write_text(json.dumps({"cases": [{"id": "a", "prompt": "p", "criteria": crit}]}), encoding="utf-8")
    assert len(load_suite(path).cases[0].criteria or ()) == 50


def test_default_threshold_and_missing_file(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "threshold: 0.6\ncases:\n  - {id: a, prompt: p, rubric: r}\n")
    assert load_suite(path).cases[0].threshold == 0.6
    with pytest.raises(InputError, match="no such suite file"):
        load_suite(tmp_path / "nope.yaml")


def test_skill_creator_evals_json(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("# skill", encoding="utf-8")
    (tmp_path / "evals").mkdir()
    data = {
        "skill_name": "pdf",
        "evals": [
            {"id": 1, "prompt": "Fill the form", "expected_output": "A filled PDF", "expectations": ["Has a name"]},
            {"id": 2, "prompt": "Merge", "assertions": ["Two files merged", "Order kept"], "files": ["a.pdf"]},
        ],
    }
    path = write(tmp_path / "evals", "evals.json", json.dumps(data))
    suite = load_suite(path)
    assert suite.format == "skill-creator" and suite.name == "pdf" and suite.skill == tmp_path / "SKILL.md"
    first, second = suite.cases
    assert first.id == "1" and [c.id for c in first.criteria or ()] == ["expected-output", "e1"]
    assert [c.description for c in second.criteria or ()] == ["Two files merged", "Order kept"]
    assert second.notices and "files" in second.notices[0]


def test_skill_creator_eval_without_expectations_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "evals.json", json.dumps({"evals": [{"id": 1, "prompt": "p"}]}))
    with pytest.raises(InputError, match=r"evals\[0\]: neither expected_output nor expectations"):
        load_suite(path)


def test_caliper_eval_yaml(tmp_path: Path) -> None:
    body = """
skills:
  - ./SKILL.md
tasks:
  - name: Writes a conventional commit message
    prompt: "Summarize the staged git diff as a commit message."
    expect: The response is a conventional-commit message.
    activates: [commit-writer]
  - name: Keeps the subject short
    prompt: "Commit the staged changes."
    assert: |
      assert True
  - name: Graded and asserted
    prompt: "Write it."
    expect: A message.
    assert: ./check.py
"""
    suite = load_suite(write(tmp_path, "commit-writer.eval.yaml", body))
    assert suite.format == "caliper" and [c.id for c in suite.cases] == ["task-001", "task-003"]
    assert suite.cases[0].rubric == "The response is a conventional-commit message."
    assert suite.cases[0].notices == ("activates: not run on this lane",)
    assert suite.cases[1].notices == ("assert: not run on this lane",)
    assert any("task-002" in n and "left out" in n for n in suite.notices)
    assert suite.skill == (tmp_path / "SKILL.md").resolve()
