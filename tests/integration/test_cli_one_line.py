"""Every error a user can cause is one line on stderr naming the file and the field (README), and no flag is
ignored without a word: what probe-core found otherwise (#9, #10, #12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main
from driftproof.receipts import write_receipt
from tests.support.builders import receipt

NATIVE = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Write a.", "rubric": "Good."}]}
FAST = ["--provider", "stub", "--draws", "2", "--max-draws", "2", "--judge-samples", "1"]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per lane a run built (an empty list: no lane was built, so no model call was made)."""
    import driftproof.run as rs

    seen: list[str] = []
    real = rs.make_lanes

    def recording(req: Any) -> Any:
        seen.append("lanes")
        return real(req)

    monkeypatch.setattr(rs, "make_lanes", recording)
    return seen


@pytest.fixture
def native(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(NATIVE), encoding="utf-8")
    return tmp_path / "suite.yaml"


def one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run; assert exit 2 and one stderr line; return it."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    return err.rstrip("\n")


def test_no_canaries_beside_default_canaries_is_refused(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    line = one_line(capsys, "run", str(native), "--no-canaries", "--default-canaries", *FAST)
    assert line == (
        "driftproof: error: --no-canaries judges no canary and --default-canaries asks for the default set: "
        "drop one of them"
    )
    assert calls == [] and not (native.parent / ".driftproof").exists()


def test_a_suites_skill_that_is_a_directory_names_the_suite_and_its_key(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    native.write_text(yaml.safe_dump({**NATIVE, "skill": "."}), encoding="utf-8")
    line = one_line(capsys, "run", str(native), *FAST)
    folder = native.parent
    assert line == (
        f"driftproof: error: {native}: skill: {folder}: is a directory, not a SKILL.md "
        f"(did you mean {folder / 'SKILL.md'}?)"
    )
    assert calls == []


def test_a_missing_reference_says_it_came_from_the_flag(
    native: Path, capsys: pytest.CaptureFixture[str], calls: list[str]
) -> None:
    missing = native.parent / "nosuch.json"
    line = one_line(capsys, "run", str(native), "--reference", str(missing), *FAST)
    assert line == f"driftproof: error: --reference: {missing}: no such file"
    line = one_line(capsys, "plan", str(native), "--reference", str(missing), "--provider", "stub")
    assert line == f"driftproof: error: --reference: {missing}: no such file"


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["run", "s.yaml", "--draws", "abc"],
            "driftproof run: error: argument --draws: invalid int value: 'abc' (driftproof run --help lists the flags)",
        ),
        (
            ["run", "s.yaml", "--provider", "foo"],
            "driftproof run: error: argument --provider: invalid choice: 'foo' (choose from anthropic, openai, stub) "
            "(driftproof run --help lists the flags)",
        ),
        (
            ["view", "r.json", "--format", "html"],
            "driftproof view: error: argument --format: invalid choice: 'html' (choose from markdown, json) "
            "(driftproof view --help lists the flags)",
        ),
        (
            ["nosuch"],
            "driftproof: error: argument COMMAND: invalid choice: 'nosuch' (choose from validate, verify, view, "
            "diff, export, badge, drift, stale, regrade, merge, run, plan, import, schema, demo) "
            "(driftproof --help lists the commands)",
        ),
    ],
)
def test_a_flag_argparse_refuses_is_one_line(capsys: pytest.CaptureFixture[str], argv: list[str], line: str) -> None:
    """README: "Every error a user can cause is one line on stderr"; argparse printed its usage block first
    (21 lines for run)."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    captured = capsys.readouterr()
    # argparse's quoting of choices differs across Python versions: compared without quotes
    assert (exit_.value.code, captured.out, captured.err.replace("'", "")) == (2, "", line.replace("'", "") + "\n")


@pytest.mark.parametrize(
    ("seal", "reason"),
    [
        (None, 'schema 0.17: at (top level): "seal" is a required property'),
        ({"algorithm": "sha256"}, 'schema 0.17: at seal: "sha256" is a required property'),
        ({"algorithm": "sha256", "sha256": 5}, 'schema 0.17: at seal/sha256: 5 is not of type "string"'),
    ],
    ids=["no-seal", "no-digest", "digest-not-text"],
)
def test_verify_reads_a_receipt_without_a_usable_seal_as_no_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seal: dict[str, Any] | None, reason: str
) -> None:
    """It printed "seal mismatch: recorded None" and exit 1 (a tampered receipt); the schema requires the seal."""
    path = write_receipt(receipt({"a": ([0.5, 0.6], [0.4, 0.5])}), tmp_path / "r.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.pop("seal")
    if seal is not None:
        doc["seal"] = seal
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert one_line(capsys, "verify", str(path)) == f"driftproof: error: {path}: {reason}"


def test_run_and_diff_say_where_the_junit_went_on_the_same_stream(
    native: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, junit = native.parent / "r.json", native.parent / "j.xml"
    assert main(["run", str(native), "-o", str(out), "--junit", str(junit), *FAST]) == 0
    captured = capsys.readouterr()
    assert f"junit: {junit}\n" in captured.err and "junit:" not in captured.out  # as diff (stdout: its report)


def test_diff_help_states_the_default_fail_on(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default never: the exit status is 0 whatever the diff says)" in text


def test_a_git_skill_given_by_the_skill_flag_is_not_asked_for_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """probe-core #11: with --skill given, the notice still said "give --skill PATH to a local copy"."""
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    spec = tmp_path / "x.eval.yaml"
    spec.write_text(
        "skills:\n  - {repo: vercel-labs/agent-skills, path: skills/tdd/SKILL.md}\n"
        "tasks:\n  - {name: t, prompt: p, expect: e}\n",
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    assert main(["run", str(spec), "--skill", str(tmp_path / "SKILL.md"), "-o", str(out), *FAST]) == 0
    notice = (
        "skills[0]: a git source (repo: vercel-labs/agent-skills), which Driftproof does not fetch; "
        "--skill gave the SKILL.md measured in its place"
    )
    err = capsys.readouterr().err  # recheck1 N8: the skill was measured, so it is no "not run on this lane" line
    assert f"driftproof: skill: {notice}\n" in err and "not run on this lane" not in err
    assert json.loads(out.read_text(encoding="utf-8"))["suite"]["notices"] == [notice]
