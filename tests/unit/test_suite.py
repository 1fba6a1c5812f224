"""Suites: the native format and the two formats skill authors already have; one-line errors per field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof import suite as suite_module
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
    assert second.notices == ("files: 1 attached input file is not supplied (a.pdf)",)


def test_skill_creator_eval_without_expectations_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "evals.json", json.dumps({"evals": [{"id": 1, "prompt": "p"}]}))
    with pytest.raises(InputError, match=r"evals\[0\]: neither expected_output nor expectations"):
        load_suite(path)


CALIPER = """
skills:
  - ./SKILL.md
  - ../changelog-writer/SKILL.md
tasks:
  - name: Writes a conventional commit message
    prompt: "Summarize the staged git diff as a commit message."
    expect: The response is a conventional-commit message.
    activates: [commit-writer]
  - name: Keeps the subject short
    prompt: "Commit the staged changes."
    assert: |
      assert True
  - name: A release summary belongs to changelog-writer
    prompt: "What changed since v2.1?"
    activates: [changelog-writer]
  - name: Graded and asserted
    prompt: "Write it."
    expect: A message.
    assert: ./check.py
    setup: git init -q
    cleanup: rm -rf .git
"""


def test_caliper_eval_yaml(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, "commit-writer.eval.yaml", CALIPER))
    assert suite.format == "caliper" and [c.id for c in suite.cases] == ["task-001", "task-004"]
    assert suite.cases[0].rubric == "The response is a conventional-commit message."
    assert suite.skill == tmp_path / "SKILL.md"


def test_caliper_notices_name_every_task_left_out_and_every_key_not_run(tmp_path: Path) -> None:
    """Each notice names the task by Caliper's id and its name:, and says what is not run and why."""
    suite = load_suite(write(tmp_path, "commit-writer.eval.yaml", CALIPER))
    assert suite.notices == (
        "skills[1]: ../changelog-writer/SKILL.md, a neighbour skill, is not installed",
        "task-002 (Keeps the subject short): left out: it has no expect: for the judge, "
        "and assert: (a Python assertion) is not run",
        "task-003 (A release summary belongs to changelog-writer): left out: it has no expect: for the judge, "
        "and activates: (which skills the agent loads) is not checked",
    )
    # a case's own notices leave its id out: every reader says it beside them (the id is Caliper's task id)
    assert suite.cases[0].notices == ("activates: (which skills the agent loads) is not checked",)
    assert suite.cases[1].notices == (
        "assert: (a Python assertion) is not run",
        "setup: (a shell command before each attempt) is not run",
        "cleanup: (a shell command after each attempt) is not run",
    )
    assert suite_module.notice_lines(suite) == [f"driftproof: not run on this lane: {n}" for n in suite.notices] + [
        f"driftproof: not run on this lane: {c.label}: {n}" for c in suite.cases for n in c.notices
    ]  # printed, a case's notice names it by its id and its name: (the receipt keeps the id beside it)
    assert len(suite_module.notice_lines(suite)) == 7


def test_caliper_git_source_and_top_level_blocks_are_noticed(tmp_path: Path) -> None:
    body = (
        "skills:\n  - {repo: vercel-labs/agent-skills, path: skills/tdd/SKILL.md}\n"
        "mcp:\n  weather: {command: python3}\n  notes: {command: node}\n"
        "sandbox: {forbidden_files: ['x']}\n"
        "tasks:\n  - {name: t, prompt: p, expect: e, history: ./turns.yaml}\n"
    )
    suite = load_suite(write(tmp_path, "x.eval.yaml", body))
    assert suite.skill is None
    assert suite.notices == (
        "skills[0]: a git source (repo: vercel-labs/agent-skills), which Driftproof does not fetch; "
        "give --skill PATH to a local copy of its SKILL.md",
        "mcp: 2 MCP servers (weather, notes) are not started",
        "sandbox: forbidden_files and extra_path are not applied",
    )
    assert suite.cases[0].notices == ("history: (planted earlier turns) is not supplied",)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("skills: ./SKILL.md\ntasks: [{name: t, prompt: p, expect: e}]\n", "skills: a list of skills"),
        ("skills: [5]\ntasks: [{name: t, prompt: p, expect: e}]\n", "skills[0]: a path (text) or a git source"),
        ("tasks: [{name: t, prompt: p, expect: [a, b]}]\n", "tasks[0].expect: text (the condition the judge"),
        ("tasks: [{name: t, prompt: p, expect: '  '}]\n", "tasks[0].expect: empty"),
        ("tasks: [{name: t, prompt: p}]\n", "tasks[0]: a task needs expect:, assert: or activates:"),
        ("tasks: [{name: t, prompt: p, activates: [a]}]\n", "tasks: no task has an expect:"),
    ],
)
def test_caliper_refusals_name_file_and_key(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, "x.eval.yaml", body)
    with pytest.raises(InputError) as info:
        load_suite(path)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text, text


def test_caliper_pre_v0_10_skill_key_gets_calipers_migration_hint(tmp_path: Path) -> None:
    path = write(tmp_path, "x.eval.yaml", "skill: ./SKILL.md\ntasks: [{name: t, prompt: p, expect: e}]\n")
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value) == f"{path}: skill: became skills: in v0.10; see Caliper's docs/MIGRATING-to-skills.md"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("Hasaname", "evals[0].expectations: a list of strings, found 'Hasaname'"),
        (None, "evals[0].expectations: a list of strings, found null"),
        ({"Has a name": True}, "evals[0].expectations: a list of strings, found a mapping"),
        (["ok", 3], "evals[0].expectations[1]: a non-empty string, found 3"),
        (["ok", " "], "evals[0].expectations[1]: a non-empty string, found ' '"),
    ],
)
def test_skill_creator_expectations_are_a_list_of_strings(tmp_path: Path, value: object, message: str) -> None:
    for key in ("expectations", "assertions"):
        path = write(tmp_path, "evals.json", json.dumps({"evals": [{"id": 1, "prompt": "p", key: value}]}))
        with pytest.raises(InputError) as info:
            load_suite(path)
        assert str(info.value) == f"{path}: {message.replace('expectations', key)}"


def test_skill_creator_files_notice_names_the_eval_and_the_files(tmp_path: Path) -> None:
    data = {"evals": [{"id": 7, "prompt": "Merge", "expectations": ["ok"], "files": ["a.pdf", "b.pdf"]}]}
    suite = load_suite(write(tmp_path, "evals.json", json.dumps(data)))
    assert suite.cases[0].notices == ("files: 2 attached input files are not supplied (a.pdf, b.pdf)",)
    assert suite_module.notice_lines(suite) == [  # the case id is the eval's id
        "driftproof: not run on this lane: 7: files: 2 attached input files are not supplied (a.pdf, b.pdf)"
    ]


def test_read_skill_reads_the_suites_skill_or_the_flag(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("# Use conventional commits\n", encoding="utf-8")
    (tmp_path / "other.md").write_text("# Other\n", encoding="utf-8")
    suite = load_suite(write(tmp_path, "s.yaml", "skill: SKILL.md\ncases: [{id: a, prompt: p, rubric: r}]\n"))
    assert suite_module.read_skill(None, suite) == (tmp_path / "SKILL.md", "# Use conventional commits\n")
    assert suite_module.read_skill(tmp_path / "other.md", suite) == (tmp_path / "other.md", "# Other\n")


@pytest.mark.parametrize(
    ("name", "body", "message"),
    [
        (
            "s.yaml",
            "cases: [{id: a, prompt: p, rubric: r}]\n",
            "{suite}: skill: missing, and no --skill given: a run with no skill measures nothing;"
            " add 'skill: SKILL.md' to the suite or give --skill PATH",
        ),
        (
            "x.eval.yaml",
            "tasks: [{name: t, prompt: p, expect: e}]\n",
            "{suite}: skills: no local SKILL.md path in skills[0], and no --skill given:"
            " a run with no skill measures nothing; give --skill PATH",
        ),
        (
            "evals.json",
            '{"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}',
            "{suite}: no SKILL.md at {root}/SKILL.md (beside evals/), and no --skill given:"
            " a run with no skill measures nothing; give --skill PATH",
        ),
        (
            "s.yaml",
            "skill: gone.md\ncases: [{id: a, prompt: p, rubric: r}]\n",
            "{suite}: skill: {dir}/gone.md does not exist",
        ),
    ],
)
def test_a_run_with_no_skill_is_refused(tmp_path: Path, name: str, body: str, message: str) -> None:
    (tmp_path / "evals").mkdir()
    suite = load_suite(write(tmp_path / "evals", name, body))
    with pytest.raises(InputError) as info:
        suite_module.read_skill(None, suite)
    expected = message.format(suite=suite.path, root=tmp_path, dir=tmp_path / "evals")
    assert str(info.value) == expected


@pytest.mark.parametrize("text", ["", "   \n\t\n"])
def test_an_empty_skill_is_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / "SKILL.md").write_text(text, encoding="utf-8")
    suite = load_suite(write(tmp_path, "s.yaml", "skill: SKILL.md\ncases: [{id: a, prompt: p, rubric: r}]\n"))
    with pytest.raises(InputError) as info:
        suite_module.read_skill(None, suite)
    assert str(info.value) == f"{tmp_path / 'SKILL.md'}: SKILL.md is empty: a run with an empty skill measures nothing"


def test_a_skill_that_is_a_directory_or_missing_is_refused(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, "s.yaml", "cases: [{id: a, prompt: p, rubric: r}]\n"))
    (tmp_path / "skill").mkdir()
    with pytest.raises(InputError) as info:
        suite_module.read_skill(tmp_path / "skill", suite)
    assert str(info.value) == f"{tmp_path / 'skill'}: is a directory, not a SKILL.md"
    (tmp_path / "skill" / "SKILL.md").write_text("# s", encoding="utf-8")
    with pytest.raises(InputError) as info:
        suite_module.read_skill(tmp_path / "skill", suite)
    assert str(info.value) == (
        f"{tmp_path / 'skill'}: is a directory, not a SKILL.md (did you mean {tmp_path / 'skill' / 'SKILL.md'}?)"
    )
    with pytest.raises(InputError) as info:
        suite_module.read_skill(tmp_path / "nope.md", suite)
    assert str(info.value) == f"{tmp_path / 'nope.md'}: no such SKILL.md (given by --skill)"
    (tmp_path / "bin.md").write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match=r"bin\.md: SKILL\.md is not UTF-8 text$"):
        suite_module.read_skill(tmp_path / "bin.md", suite)


@pytest.mark.parametrize("blank", ["", "  ", "\t\n"])
def test_skill_creator_blank_expected_output_is_refused_as_empty(tmp_path: Path, blank: str) -> None:
    """recheck1 N6: a blank expected_output is there, only empty: said so, as other blank texts are."""
    path = write(tmp_path, "evals.json", json.dumps({"evals": [{"id": 1, "prompt": "p", "expected_output": blank}]}))
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert str(info.value) == f"{path}: evals[0].expected_output: empty; write the text"


@pytest.mark.parametrize(
    ("entry", "k", "repo"),
    [
        ("https://github.com/foo/bar.git", 0, "foo/bar"),
        ("https://github.com/foo/bar", 1, "foo/bar"),
        ("git@github.com:foo/bar.git", 0, "foo/bar"),
        ("ssh://git.example.org/team/skills", 0, "owner/name"),
    ],
)
def test_caliper_skill_written_as_a_git_url_is_refused_with_the_git_entry(
    tmp_path: Path, entry: str, k: int, repo: str
) -> None:
    """recheck1 N7: a URL read as a path said "https:/github.com/... does not exist" (the slash collapsed)."""
    skills = [entry] if k == 0 else ["./SKILL.md", entry]
    body = f"skills: {json.dumps(skills)}\ntasks: [{{name: t, prompt: p, expect: e}}]\n"
    path = write(tmp_path, "x.eval.yaml", body)
    with pytest.raises(InputError) as info:
        load_suite(path)
    local = "; give --skill PATH to a local copy of its SKILL.md" if k == 0 else ""
    assert str(info.value) == (
        f"{path}: skills[{k}]: {entry!r} is a URL, not a path: Caliper writes a git source as a mapping,"
        f" {{repo: {repo}, ref: REF, path: DIR/SKILL.md}}, which Driftproof does not fetch{local}"
    )
