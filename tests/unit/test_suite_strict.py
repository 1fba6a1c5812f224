"""Nothing a suite says is dropped or reinterpreted: an unknown key of any format is refused with the nearest key, a
quoted number or a blank text is refused as a wrong value, a duplicate key as a duplicate, a check argument its kind
does not take as one it ignores (probe-core #4, #5, #6, #9, #11)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.errors import InputError
from driftproof.suite import load_suite, notice_lines
from tests.unit.test_suite import CALIPER

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def refused(tmp_path: Path, name: str, text: str) -> str:
    """The one line a suite file ``name`` holding ``text`` is refused with, its path replaced by ``FILE``."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_suite(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message, message
    return message.replace(str(path), "FILE")


EVAL_KEYS = "id, name, prompt, expected_output, expectations, assertions, files"
EVAL_KEYS += ", expected_skill, acceptable_skills, acceptable_alternates, expected_script"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (  # the probe's typo: both expectations were dropped without a word
            {"evals": [{"id": 1, "prompt": "p", "expected_output": "haiku", "expectatons": ["three lines"]}]},
            f"FILE: evals[0].expectatons: not a key of an eval (its keys: {EVAL_KEYS}); did you mean 'expectations'?",
        ),
        (
            {"evals": [{"id": 1, "prompt": "p", "expected_output": "e", "weird": 3}]},
            f"FILE: evals[0].weird: not a key of an eval (its keys: {EVAL_KEYS})",
        ),
        (
            {"skill-name": "x", "evals": [{"id": 1, "prompt": "p", "expected_output": "e"}]},
            "FILE: skill-name: not a key of an evals.json (its keys: skill_name, evals); did you mean 'skill_name'?",
        ),
        (
            {"skill_name": 5, "evals": [{"id": 1, "prompt": "p", "expected_output": "e"}]},
            "FILE: skill_name: text, found 5",
        ),
        (
            {"evals": [{"id": 1, "name": ["x"], "prompt": "p", "expected_output": "e"}]},
            "FILE: evals[0].name: text, found a list",
        ),
        (  # #10: the id that appears twice is named
            {
                "evals": [
                    {"id": 1, "prompt": "p", "expected_output": "e"},
                    {"id": "1", "prompt": "q", "expected_output": "e"},
                ]
            },
            "FILE: evals[1].id: eval id '1' appears twice (evals[0] has it too)",
        ),
    ],
)
def test_skill_creator_refuses_what_it_would_drop(tmp_path: Path, data: object, message: str) -> None:
    assert refused(tmp_path, "evals.json", json.dumps(data)) == message


def test_skill_creator_keys_of_nvidias_reader_are_noticed_not_dropped(tmp_path: Path) -> None:
    data = {"evals": [{"id": "neg-1", "name": "no pdf", "prompt": "p", "expected_output": "e", "expected_skill": None}]}
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    suite = load_suite(path)
    assert suite.cases[0].notices == ("expected_skill: (which skill should take the task) is not checked",)


TASK_KEYS = "name, prompt, history, expect, assert, activates, setup, cleanup"
SPEC_KEYS = "skills, sandbox, mcp, user_customizations, tasks"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "skills: [./SKILL.md]\ntasks:\n  - name: a\n    prompt: p\n    expect: e\n    expct: typo\n",
            f"FILE: tasks[0].expct: not a key of a task (its keys: {TASK_KEYS}); did you mean 'expect'?",
        ),
        (
            "skills: [./SKILL.md]\nsandboxes: {}\ntasks: [{name: a, prompt: p, expect: e}]\n",
            f"FILE: sandboxes: not a key of a Caliper spec (its keys: {SPEC_KEYS}); did you mean 'sandbox'?",
        ),
        (  # removed in Caliper, refused with a migration message as skill: is
            "skills: [./SKILL.md]\njudge: {model: haiku}\ntasks: [{name: a, prompt: p, expect: e}]\n",
            "FILE: judge: no longer a spec key: Caliper chooses the judge at run time (--judge-model), never in the "
            "spec; give driftproof run --judge-provider and --judge-model",
        ),
        (
            "skills: [./SKILL.md]\ntasks: [{prompt: p, expect: e}]\n",
            "FILE: tasks[0].name: missing; a task needs a name, unique in the spec (Caliper's rule)",
        ),
        (
            "skills: [./SKILL.md]\ntasks: [{name: '  ', prompt: p, expect: e}]\n",
            "FILE: tasks[0].name: empty; a task needs a name, unique in the spec (Caliper's rule)",
        ),
        (
            "skills: [./SKILL.md]\ntasks: [{name: 7, prompt: p, expect: e}]\n",
            "FILE: tasks[0].name: text, found 7",
        ),
        (
            "skills: [./SKILL.md]\ntasks:\n  - {name: a, prompt: p, expect: e}\n  - {name: b, prompt: q, expect: e}\n"
            "  - {name: a, prompt: r, expect: e}\n",
            "FILE: tasks[2].name: 'a' is also the name of tasks[0]; task names are unique (Caliper's rule)",
        ),
    ],
)
def test_caliper_refuses_what_it_would_drop(tmp_path: Path, text: str, message: str) -> None:
    assert refused(tmp_path, "x.eval.yaml", text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (  # #5: the probe's quoted threshold became 0.5 in the receipt
            "name: x\nthreshold: '0.5'\ncases:\n  - {id: a, prompt: p, rubric: r}\n",
            "FILE: threshold: a number from 0 to 1, found '0.5'",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, threshold: '0.5'}\n",
            "FILE: cases[0].threshold: a number from 0 to 1, found '0.5'",
        ),
        (
            "cases:\n  - id: a\n    prompt: p\n    criteria: [{id: c, weight: '2', description: d}]\n",
            "FILE: cases[0].criteria[0].weight: a number above 0, at most 1000, found '2'",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: conventional_commit, max_subject: '50'}]}\n",
            "FILE: cases[0].checks[0].max_subject: a whole number, at least 1, found '50'",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: contains, value: x, ignore_case: 'yes'}]}\n",
            "FILE: cases[0].checks[0].ignore_case: true or false, found 'yes'",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: contains, value: x, ignore_case: 1}]}\n",
            "FILE: cases[0].checks[0].ignore_case: true or false, found 1",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r}\ncanaries:\n  - {id: k, case: a, answer: x, expected: '0.9'}\n",
            "FILE: canaries[0].expected: a number from 0 to 1 (the score the answer should get), found '0.9'",
        ),
        # #6: blank texts, refused as empty ones are
        ("cases:\n  - {id: a, prompt: '   ', rubric: r}\n", "FILE: cases[0].prompt: empty; write the text"),
        ('cases:\n  - {id: a, prompt: p, rubric: "\\t \\n"}\n', "FILE: cases[0].rubric: empty; write the text"),
        (
            "cases:\n  - id: a\n    prompt: p\n    criteria: [{id: c, weight: 1, description: '  '}]\n",
            "FILE: cases[0].criteria[0].description: empty; write the text",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r}\ncanaries:\n  - {id: k, prompt: ' ', rubric: r, answer: x, "
            "expected: 0.9}\n",
            "FILE: canaries[0].prompt: empty; write the text",
        ),
        # #9: an argument its kind does not take would be ignored
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: json, value: 1}]}\n",
            "FILE: cases[0].checks[0]: a json check takes no 'value' (it takes: name)",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: max_chars, value: 9, ignore_case: true}]}\n",
            "FILE: cases[0].checks[0]: a max_chars check takes no 'ignore_case' (it takes: name, value)",
        ),
        (
            "cases:\n  - {id: a, prompt: p, rubric: r, checks: [{kind: regex, pattern: x, max_subject: 50}]}\n",
            "FILE: cases[0].checks[0]: a regex check takes no 'max_subject' (it takes: name, pattern, ignore_case)",
        ),
        # #9: a key written twice kept the last one without a word
        (
            "name: x\nskill: SKILL.md\nskill: other.md\ncases:\n  - {id: a, prompt: p, rubric: r}\n",
            "FILE: the key 'skill' appears twice in one mapping (line 3, column 1); write each key once",
        ),
        (
            "cases:\n  - id: a\n    prompt: p\n    rubric: r\n    prompt: q\n",
            "FILE: the key 'prompt' appears twice in one mapping (line 5, column 5); write each key once",
        ),
    ],
)
def test_native_suite_refuses_what_it_would_reinterpret(tmp_path: Path, text: str, message: str) -> None:
    assert refused(tmp_path, "suite.yaml", text) == message


def test_a_json_key_written_twice_is_refused(tmp_path: Path) -> None:
    text = '{"skill": "SKILL.md", "skill": "other.md", "cases": [{"id": "a", "prompt": "p", "rubric": "r"}]}'
    assert refused(tmp_path, "suite.json", text) == (
        "FILE: the key 'skill' appears twice in one object; write each key once"
    )


def test_a_yaml_merge_key_still_overrides_what_it_merges(tmp_path: Path) -> None:
    text = "cases:\n  - &a {id: a, prompt: p, rubric: r}\n  - <<: *a\n    id: b\n    rubric: s\n"
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    suite = load_suite(path)
    assert [(c.id, c.rubric) for c in suite.cases] == [("a", "r"), ("b", "s")]


def test_numbers_and_checks_that_were_right_still_load(tmp_path: Path) -> None:
    text = (
        "threshold: 1\ncases:\n  - id: a\n    prompt: p\n    threshold: 0.5\n"
        "    criteria: [{id: c, weight: 2, description: d}]\n    checks:\n"
        "      - {kind: contains, value: '429', ignore_case: true}\n      - {kind: max_chars, value: 800}\n"
        "      - {kind: conventional_commit, max_subject: 50, name: subject}\n      - {kind: json}\n"
        "      - {kind: regex, pattern: x, ignore_case: false}\n"
    )
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    (case,) = load_suite(path).cases
    assert case.threshold == 0.5 and case.criteria is not None and case.criteria[0].weight == 2.0
    assert [c.kind for c in case.checks] == ["contains", "max_chars", "conventional_commit", "json", "regex"]


def test_caliper_case_notices_name_the_task_by_its_name_too(tmp_path: Path) -> None:
    """#11: README: "every notice names the task by that id and its name:"; a case's own notices did not."""
    path = tmp_path / "commit-writer.eval.yaml"
    path.write_text(CALIPER, encoding="utf-8")
    lines = notice_lines(load_suite(path))
    assert lines[-4:] == [
        "driftproof: not run on this lane: task-001 (Writes a conventional commit message): activates: "
        "(which skills the agent loads) is not checked",
        "driftproof: not run on this lane: task-004 (Graded and asserted): assert: (a Python assertion) is not run",
        "driftproof: not run on this lane: task-004 (Graded and asserted): setup: (a shell command before each "
        "attempt) is not run",
        "driftproof: not run on this lane: task-004 (Graded and asserted): cleanup: (a shell command after each "
        "attempt) is not run",
    ]


def test_caliper_skill_path_is_kept_as_written_beside_the_spec(tmp_path: Path) -> None:
    """#11: the skill and its neighbours relative to where the run was made, as for the other formats."""
    path = tmp_path / "commit-writer.eval.yaml"
    path.write_text(CALIPER, encoding="utf-8")
    suite = load_suite(path)
    assert suite.skill == tmp_path / "SKILL.md"
    assert suite.neighbours == (tmp_path / ".." / "changelog-writer" / "SKILL.md",)


def test_the_neighbours_real_files_still_load() -> None:
    """The Caliper spec of the fixtures, and every suite shipped in examples/, load as before."""
    tidy = load_suite(FIXTURES / "imports" / "caliper" / "tidy.eval.yaml")
    assert [c.id for c in tidy.cases] == ["task-002"] and tidy.format == "caliper"
    examples = sorted((Path(__file__).resolve().parents[2] / "examples").rglob("suite.yaml"))
    assert examples and all(load_suite(p).cases for p in examples)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        # #9: an empty list gave the draw the stub's synthetic scores; a lost draw's answer was ignored
        (
            "{answer: a, scores: []}",
            "FILE: cases.a.with_skill[0].scores: an empty list; give a score, or leave scores out for the stub's own",
        ),
        (
            "{lost: timeout, answer: x}",
            "FILE: cases.a.with_skill[0]: a lost draw has no answer: drop 'answer' or 'lost'",
        ),
        (
            "{lost: timeout, scores: [0.5]}",
            "FILE: cases.a.with_skill[0]: a lost draw has no scores: drop 'scores' or 'lost'",
        ),
    ],
)
def test_a_stub_script_refuses_what_it_would_ignore(tmp_path: Path, entry: str, message: str) -> None:
    from driftproof.lanes.stub import load_script

    path = tmp_path / "script.yaml"
    path.write_text(f"cases:\n  a:\n    with_skill: [{entry}]\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_script(path)
    assert str(info.value).replace(str(path), "FILE") == message


def test_a_stub_script_key_written_twice_is_refused(tmp_path: Path) -> None:
    from driftproof.lanes.stub import load_script

    path = tmp_path / "script.yaml"
    path.write_text(
        "cases:\n  a:\n    with_skill: [{answer: a}]\n  a:\n    baseline: [{answer: b}]\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        load_script(path)
    assert (
        str(info.value) == f"{path}: the key 'a' appears twice in one mapping (line 4, column 3); write each key once"
    )
