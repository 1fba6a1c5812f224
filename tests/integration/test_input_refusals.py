"""``driftproof run`` end to end on the stub lane: what a suite does not run is said before the first call and
kept in the receipt; every user mistake is one line, exit 2, before any call, with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.lanes.base import Generation, GenerationRequest, Lane
from driftproof.lanes.stub import StubLane
from driftproof.receipts import load_receipt, receipt_json
from tests.support.builders import receipt

CALIPER = """
skills:
  - ./SKILL.md
tasks:
  - name: Writes a conventional commit message
    prompt: "Summarize the staged git diff as a commit message."
    expect: The response is a conventional-commit message.
    activates: [commit-writer]
  - name: Keeps the subject short
    prompt: "Commit the staged changes."
    assert: "assert True"
"""
NATIVE = {"skill": "SKILL.md", "cases": [{"id": c, "prompt": f"Write {c}.", "rubric": "Good."} for c in "abc"]}
FAST = ["--provider", "stub", "--draws", "2", "--max-draws", "2", "--judge-samples", "1"]


class Recording(StubLane):
    """The run's own stub lane, recording stderr as it was when the first model call came."""

    def __init__(self, inner: Lane, capsys: pytest.CaptureFixture[str], seen: list[str]) -> None:
        super().__init__()
        self.inner, self.capsys, self.seen = inner, capsys, seen

    def generate(self, request: GenerationRequest) -> Generation:
        if not self.seen:
            self.seen.append(self.capsys.readouterr().err)
        return self.inner.generate(request)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Stderr at the first model call (an empty list: no call was made)."""
    import driftproof.run as rs

    seen: list[str] = []
    real = rs.make_lanes

    def recording(req: Any) -> Any:
        lane, judge, model = real(req)
        return Recording(lane, capsys, seen), Recording(judge, capsys, seen), model

    monkeypatch.setattr(rs, "make_lanes", recording)
    return seen


@pytest.fixture
def native(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(NATIVE), encoding="utf-8")
    return tmp_path / "suite.yaml"


def refused(capsys: pytest.CaptureFixture[str], calls: list[str], *argv: str) -> str:
    """Run; assert exit 2, one stderr line, no model call; return the message after the prefix."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("driftproof: error: "), err
    assert "Traceback" not in err and calls == []
    return err.removeprefix("driftproof: error: ").rstrip("\n")


def test_caliper_notices_are_printed_before_the_first_call_and_kept_in_the_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    suite = tmp_path / "commit.eval.yaml"
    suite.write_text(CALIPER, encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["run", str(suite), "-o", str(out), *FAST]) == 0
    suite_notices = [
        "task-002 (Keeps the subject short): left out: it has no expect: for the judge,"
        " and assert: (a Python assertion) is not run",
    ]
    case_notices = ["activates: (which skills the agent loads) is not checked"]
    prefix = "driftproof: not run on this lane: "
    before_first_call = calls[0].splitlines()
    assert [line for line in before_first_call if line.startswith(prefix)] == [
        *(prefix + n for n in suite_notices),
        *(prefix + "task-001 (Writes a conventional commit message): " + n for n in case_notices),
    ]
    # the notices come first, then what the run may cost (the plan: its head line, its total, sizes and prices)
    plan_at = next(i for i, line in enumerate(before_first_call) if line.startswith("plan: "))
    assert not any(line.startswith(prefix) for line in before_first_call[plan_at:])
    assert before_first_call[-1].startswith("price of the judge ")
    r = load_receipt(out)
    assert r.suite.notices == suite_notices and [c.id for c in r.cases] == ["task-001"]
    assert r.cases[0].notices == case_notices


def test_a_native_suite_prints_no_notice(native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]) -> None:
    assert main(["run", str(native), "-o", str(native.parent / "r.json"), *FAST]) == 0
    assert len(calls) == 1 and "not run on this lane" not in calls[0]
    assert load_receipt(native.parent / "r.json").suite.notices == []


def test_a_run_with_no_skill_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[str]) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"cases": NATIVE["cases"]}), encoding="utf-8")
    message = refused(capsys, calls, "run", str(suite), *FAST)
    assert message == (
        f"{suite}: skill: missing, and no --skill given: a run with no skill measures nothing;"
        " add 'skill: SKILL.md' to the suite or give --skill PATH"
    )
    bare = tmp_path / "bare.eval.yaml"
    bare.write_text("tasks: [{name: t, prompt: p, expect: e}]\n", encoding="utf-8")
    assert refused(capsys, calls, "run", str(bare), *FAST).startswith(f"{bare}: skills: no local SKILL.md path")
    assert not (tmp_path / ".driftproof").exists()


def test_an_empty_skill_or_a_directory_is_refused(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    skill = native.parent / "SKILL.md"
    skill.write_text("  \n\n", encoding="utf-8")
    message = refused(capsys, calls, "run", str(native), *FAST)
    assert message == f"{skill}: SKILL.md is empty: a run with an empty skill measures nothing"
    message = refused(capsys, calls, "run", str(native), "--skill", str(native.parent), *FAST)
    assert message == f"{native.parent}: is a directory, not a SKILL.md (did you mean {skill}?)"
    assert not (native.parent / ".driftproof").exists()


@pytest.mark.parametrize(
    ("script", "message"),
    [
        (
            {"cases": {"typo-case": {"with_skill": [{"scores": [0.5]}]}}},
            "cases.typo-case: no such case in {suite} (cases: a, b, c)",
        ),
        (
            {"cases": {"a": {"with_skill": [{"scores": [0.5, 1.5]}]}}},
            "cases.a.with_skill[0].scores[1]: a score from 0 to 1 (or null for an invalid sample), found 1.5",
        ),
        (
            {"cases": {"a": {"baseline": [{"scores": [True]}]}}},
            "cases.a.baseline[0].scores[0]: a score from 0 to 1 (or null for an invalid sample), found true",
        ),
        (
            {"default": {"scores": [-0.5]}},
            "default.scores[0]: a score from 0 to 1 (or null for an invalid sample), found -0.5",
        ),
        ({"default": {"scores": 0.5}}, "default.scores: a list of scores from 0 to 1, found 0.5"),
        (  # a typo of cases: nothing would be scripted, the run would read the stub's synthetic scores
            {"case": {"a": {"with_skill": [{"scores": [0.9]}]}}},
            "case: not a key of a stub script (its keys: default, cases, pairwise_choice, canaries);"
            " did you mean 'cases'?",
        ),
        (  # an arm at the top level, not under cases.<id>
            {"with_skill": [{"answer": "a", "scores": [0.9]}]},
            "with_skill: not a key of a stub script (its keys: default, cases, pairwise_choice, canaries)",
        ),
    ],
)
def test_a_wrong_stub_script_is_refused(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str], script: dict[str, Any], message: str
) -> None:
    path = native.parent / "stub.yaml"
    path.write_text(yaml.safe_dump(script), encoding="utf-8")
    got = refused(capsys, calls, "run", str(native), "--script", str(path), *FAST)
    assert got == f"{path}: {message.format(suite=native)}"


@pytest.mark.parametrize(("value", "shown"), [(".nan", "nan"), (".inf", "inf"), ("-.inf", "-inf")])
def test_a_non_finite_stub_score_is_refused(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str], value: str, shown: str
) -> None:
    path = native.parent / "stub.yaml"
    path.write_text(f"cases:\n  a:\n    with_skill:\n      - scores: [{value}]\n", encoding="utf-8")
    got = refused(capsys, calls, "run", str(native), "--script", str(path), *FAST)
    expected = "a score from 0 to 1 (or null for an invalid sample)"
    assert got == f"{path}: cases.a.with_skill[0].scores[0]: {expected}, found {shown}"


def test_script_case_ids_written_as_numbers_match_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    """skill-creator ids are numbers: a YAML script key 1 names the suite's case '1'."""
    (tmp_path / "SKILL.md").write_text("# skill\n", encoding="utf-8")
    (tmp_path / "evals").mkdir()
    evals = tmp_path / "evals" / "evals.json"
    evals.write_text(json.dumps({"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}), encoding="utf-8")
    script = tmp_path / "stub.yaml"
    script.write_text("cases:\n  1:\n    with_skill:\n      - {answer: scripted, scores: [0.25]}\n", encoding="utf-8")
    out = tmp_path / "r.json"
    assert main(["run", str(evals), "--script", str(script), "-o", str(out), "--keep-transcripts", *FAST]) == 0
    answers = [json.loads(line) for line in (tmp_path / "r.answers.jsonl").read_text().splitlines()]
    assert [(a["arm"], a["answer"]) for a in answers][:2] == [("with_skill", "scripted")] * 2
    assert [d.score for d in load_receipt(out).cases[0].with_skill.draws] == [0.0, 0.0]  # 1 criterion: round(0.25)


def test_a_bad_price_table_is_refused_before_any_call(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    prices = native.parent / "prices.json"
    prices.write_text('{"stub-judge": ' + "[" * 5000 + "]" * 5000 + "}", encoding="utf-8")
    message = refused(capsys, calls, "run", str(native), "--price-table", str(prices), *FAST)
    assert message == f"--price-table: {prices}: nested deeper than 64 levels; a price table nests at most 64"
    prices.write_text('{"stub-judge": 5}', encoding="utf-8")
    message = refused(capsys, calls, "run", str(native), "--price-table", str(prices), *FAST)
    assert (
        message
        == f"--price-table: {prices}: stub-judge: a price is a mapping (input_per_mtok, output_per_mtok, ...), found 5"
    )
    prices.write_text('{"stub-judge": {"input_per_mtok": -1, "output_per_mtok": 0}}', encoding="utf-8")
    message = refused(capsys, calls, "run", str(native), "--price-table", str(prices), *FAST)
    assert message == f"--price-table: {prices}: stub-judge.input_per_mtok: a number of USD, at least 0, found -1"
    prices.write_text('{"stub-judge": {"input_per_mtok": "3", "output_per_mtok": 0}}', encoding="utf-8")
    message = refused(capsys, calls, "run", str(native), "--price-table", str(prices), *FAST)
    assert message == f"--price-table: {prices}: stub-judge.input_per_mtok: a number of USD, at least 0, found '3'"
    assert not (native.parent / ".driftproof").exists()


def test_deep_suite_and_script_given_to_run_are_one_line(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    deep = native.parent / "deep.yaml"
    deep.write_text("cases: " + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    assert refused(capsys, calls, "run", str(deep), *FAST).startswith(f"{deep}: nested deeper than 64 levels")
    message = refused(capsys, calls, "run", str(native), "--script", str(deep), *FAST)
    assert message == f"{deep}: nested deeper than 64 levels (at line 1, column 71); a stub script nests at most 64"


@pytest.mark.parametrize("command", ["view", "validate", "badge", "diff"])
def test_receipt_commands_refuse_a_deep_receipt_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[str], command: str
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"cases": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text(receipt_json(receipt({"a": ([0.5], [0.4])})), encoding="utf-8")
    argv = [command, str(good), str(deep)] if command == "diff" else [command, str(deep)]
    assert refused(capsys, calls, *argv) == f"{deep}: nested deeper than 64 levels; a receipt nests at most 64"


def test_evals_json_run_from_inside_its_evals_folder_finds_the_skill_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """recheck1 N3: `run evals.json` in evals/ reads the SKILL.md above it, as `run ../evals/evals.json` does, and
    records the same relative skill path and skill name."""
    skill = tmp_path / "my-skill"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("# skill\n", encoding="utf-8")
    evals = {"evals": [{"id": 1, "prompt": "p", "expectations": ["e"]}]}
    (skill / "evals" / "evals.json").write_text(json.dumps(evals), encoding="utf-8")
    monkeypatch.chdir(skill / "evals")
    recorded = []
    for i, given in enumerate(["evals.json", "./evals.json", "../evals/evals.json"]):
        out = tmp_path / f"r{i}.json"
        assert main(["run", given, "-o", str(out), *FAST]) == 0, capsys.readouterr().err
        r = load_receipt(out)
        recorded.append((r.skill.path, r.suite.name))
    assert recorded == [("../SKILL.md", "my-skill")] * 3
    monkeypatch.chdir(skill)  # from the skill's folder, as before; the name is the folder's, not '' (Path('.'))
    assert main(["run", "evals/evals.json", "-o", str(tmp_path / "r.json"), *FAST]) == 0
    r = load_receipt(tmp_path / "r.json")
    assert (r.skill.path, r.suite.name, r.suite.path) == ("SKILL.md", "my-skill", "evals/evals.json")
