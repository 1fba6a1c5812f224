"""``driftproof run --skills GLOB --changed BASE_REF`` in a git repository made here (issue 15, monorepos)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main

SUITE = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Task a.", "rubric": "good"}]}
QUICK = ["--provider", "stub", "--quick"]


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
    done = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env={**env, "PATH": "/usr/bin:/bin"}
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two skills on main; branch ``pr`` changes only beta's reference file."""
    for name in ("alpha", "beta"):
        folder = tmp_path / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\n---\nBe brief.", encoding="utf-8")
        (folder / "suite.yaml").write_text(yaml.safe_dump({**SUITE, "name": name}), encoding="utf-8")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "two skills")
    git(tmp_path, "checkout", "-qb", "pr")
    (tmp_path / "skills" / "beta" / "style.md").write_text("Short lines.", encoding="utf-8")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "beta: a style note")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_only_the_touched_skill_runs(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--skills", "skills/*/SKILL.md", "--changed", "main", "-o", "out", *QUICK])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[:2] == [
        "driftproof: skips alpha: not touched by this change",
        "driftproof: runs beta: touched by this change (skills/beta/style.md)",
    ]
    assert lines[-1] == "driftproof: 1 skill run, 1 skipped (not touched since main)"
    assert sorted(p.name for p in (repo / "out").iterdir()) == ["beta.quick.json"]
    receipt = json.loads((repo / "out" / "beta.quick.json").read_text(encoding="utf-8"))
    assert receipt["suite"]["name"] == "beta"


def test_an_uncommitted_edit_counts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "skills" / "alpha" / "SKILL.md").write_text("---\nname: alpha\n---\nBe briefer.", encoding="utf-8")
    assert main(["run", "--skills", "skills/*/SKILL.md", "--changed", "main", "-o", "out", *QUICK]) == 0
    assert sorted(p.name for p in (repo / "out").iterdir()) == ["alpha.quick.json", "beta.quick.json"]
    assert "driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)" in capsys.readouterr().out


def test_nothing_touched_runs_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--skills", "skills/*/SKILL.md", "--changed", "pr", "-o", "out", *QUICK]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "driftproof: no skill is touched since pr: nothing to run"
    assert not (repo / "out").exists()


def test_a_single_suite_with_changed_is_skipped_when_untouched(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "skills/alpha/suite.yaml", "--changed", "main", "-o", "a.json", *QUICK]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "driftproof: skips alpha: not touched by this change"
    assert not (repo / "a.json").exists()


def test_a_single_suite_with_changed_writes_its_junit_when_it_runs_and_says_so_when_not(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--junit`` beside ``--changed`` and one SUITE was dropped without a word: the touched suite now writes its
    report (one testcase, its one case), and an untouched one says on stderr that no report was written."""
    argv = ["run", "skills/beta/suite.yaml", "--changed", "main", "--provider", "stub", "--draws", "2"]
    assert main([*argv, "--max-draws", "2", "--judge-samples", "1", "-o", "b.json", "--junit", "b.xml"]) == 0
    err = capsys.readouterr().err
    assert "junit: b.xml" in err.splitlines()
    assert (repo / "b.xml").read_text(encoding="utf-8").count("<testcase ") == 1
    assert main(["run", "skills/alpha/suite.yaml", "--changed", "main", *QUICK, "--junit", "a.xml"]) == 0
    err = capsys.readouterr().err
    assert "junit: a.xml not written: the suite did not run (not touched by this change)" in err.splitlines()
    assert not (repo / "a.xml").exists()


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert code == 2, captured
    assert len(lines) == 1, lines
    assert "plan:" not in captured.err and "driftproof: runs" not in captured.out  # before any call
    return lines[0].removeprefix("driftproof: error: ")


def test_an_unknown_base_ref_is_one_line(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = refused(capsys, "run", "--skills", "skills/*/SKILL.md", "--changed", "origin/nope", *QUICK)
    assert said.startswith("--changed: 'origin/nope' is not a commit in this repository (git: ")
    assert not (repo / "skills" / "beta" / ".driftproof").exists()


def test_not_a_git_repository_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bare = tmp_path / "plain"
    (bare / "skills" / "a").mkdir(parents=True)
    monkeypatch.chdir(bare)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    said = refused(capsys, "run", "--skills", "skills/*/SKILL.md", "--changed", "main", *QUICK)
    assert said == f"--changed: {bare.resolve()} is not inside a git repository; run it from a clone"


def test_a_skill_without_a_suite_is_refused_by_name(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "skills" / "gamma").mkdir()
    (repo / "skills" / "gamma" / "SKILL.md").write_text("Be kind.", encoding="utf-8")
    said = refused(capsys, "run", "--skills", "skills/*/SKILL.md", "--changed", "main", *QUICK)
    assert said.startswith("skills/gamma/SKILL.md: suite: none beside it (looked for suite.yaml, suite.yml")


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["skills/alpha/suite.yaml"], "--skills: give SUITE or --skills GLOB, not both"),
        (["--skill", "x.md"], "--skill: names one skill's run; it does not go with --skills (each skill runs alone)"),
        (["-o", "r.json"], "-o: with --skills, a directory for one receipt per skill (DIR/<skill>.json), found r.json"),
    ],
)
def test_flags_that_name_one_run_are_refused(
    repo: Path, capsys: pytest.CaptureFixture[str], extra: list[str], said: str
) -> None:
    assert refused(capsys, "run", "--skills", "skills/*/SKILL.md", *extra, *QUICK) == said


def test_a_glob_matching_nothing_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = refused(capsys, "run", "--skills", "nowhere/*/SKILL.md", *QUICK)
    assert (
        said
        == "--skills: 'nowhere/*/SKILL.md' matches no file; give a glob of SKILL.md files, e.g. 'skills/*/SKILL.md'"
    )


def test_a_receipt_written_beside_the_suite_does_not_touch_its_skill(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the first run writes skills/beta/.driftproof/receipt.quick.json, untracked, inside beta's folder
    assert main(["run", "--skills", "skills/*/SKILL.md", "--changed", "pr", *QUICK]) == 0
    assert not (repo / "skills" / "beta" / ".driftproof").exists()  # nothing touched since pr: nothing ran
    assert main(["run", "skills/beta/suite.yaml", *QUICK]) == 0
    assert (repo / "skills" / "beta" / ".driftproof" / "receipt.quick.json").is_file()
    capsys.readouterr()
    assert main(["run", "--skills", "skills/*/SKILL.md", "--changed", "pr", *QUICK]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "driftproof: no skill is touched since pr: nothing to run"
