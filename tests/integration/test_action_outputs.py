"""The Action's output paths (``receipt-path``, ``badge-path``, ``junit`` and the report beside the receipt): a
bad one is refused before any model call, in one line naming the input and the path as the workflow wrote it,
exit 2, nothing written (probe-action defects 1 and 4). Stub lane, real git, the fake GitHub API."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.action_sim import Job, make_repos, push_payload, run_job
from tests.support.fake_github import FakeGitHub

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

STUB = {"provider": "stub", "judge-provider": "stub", "draws": "2"}


def error_line(job: Job) -> str:
    """The one ``::error::`` line's message, without its title and its fix."""
    lines = [line for line in job.log.splitlines() if line.startswith("::error")]
    assert len(lines) == 1, job.log
    return lines[0].split("::", 2)[2].split(" · Fix: ")[0]


def refused(tmp_path: Path, github: FakeGitHub, inputs: dict[str, str], **kwargs: object) -> tuple[str, Job]:
    """A job refused with exit 2 before its first call (no plan printed), with nothing written in the workspace."""
    repos = make_repos(tmp_path, None)
    prepare = kwargs.pop("prepare", None)
    if callable(prepare):
        prepare(repos.workspace)
    before = sorted(str(p.relative_to(repos.workspace)) for p in repos.workspace.rglob("*") if ".git" not in p.parts)
    texts = {p: p.read_bytes() for p in repos.workspace.rglob("*") if p.is_file() and ".git" not in p.parts}
    job = run_job(tmp_path, repos, github, None, inputs={**STUB, **inputs}, **kwargs)
    assert job.code == 2 and job.outputs["status"] == "error"
    assert "plan:" not in job.log  # refused before the first call
    after = sorted(str(p.relative_to(repos.workspace)) for p in repos.workspace.rglob("*") if ".git" not in p.parts)
    assert after == before  # no .driftproof/, no receipt, report, badge or JUnit file
    assert all(p.read_bytes() == raw for p, raw in texts.items())  # every file the workspace held is unchanged
    line = error_line(job)
    assert str(repos.workspace) not in line  # the path as the input names it, not the container's
    return line, job


def test_badge_path_that_is_a_directory(tmp_path: Path, github: FakeGitHub) -> None:
    line, _ = refused(tmp_path, github, {"badge-path": "evals"})
    assert line == "input 'badge-path': evals is a directory; name a file such as evals/badge.json"


def test_badge_path_under_a_file(tmp_path: Path, github: FakeGitHub) -> None:
    line, _ = refused(tmp_path, github, {"badge-path": "SKILL.md/badge.json"})
    assert line == (
        "input 'badge-path': SKILL.md/badge.json: SKILL.md is a file, not a directory, so the badge cannot go there"
    )


@pytest.mark.parametrize(
    ("name", "value", "what", "noun"),
    [
        ("badge-path", "SKILL.md", "the skill file of the run (input 'skill')", "the badge"),
        ("badge-path", "evals/suite.yaml", "the suite of the run (input 'suite')", "the badge"),
        ("junit", "SKILL.md", "the skill file of the run (input 'skill')", "the JUnit report"),
        ("junit", "./evals/../evals/suite.yaml", "the suite of the run (input 'suite')", "the JUnit report"),
    ],
)
def test_an_output_input_that_names_the_runs_skill_or_suite(
    tmp_path: Path, github: FakeGitHub, name: str, value: str, what: str, noun: str
) -> None:
    line, _ = refused(tmp_path, github, {name: value})
    shown = value.removeprefix("./").replace("evals/../", "")  # the input as config.py normalises it
    assert line == f"input '{name}': {shown} is {what}; write {noun} elsewhere"


def test_the_skill_the_suite_names_is_protected_too(tmp_path: Path, github: FakeGitHub) -> None:
    """No ``skill`` input: the suite's ``skill: ../SKILL.md`` is the file the run reads."""
    line, _ = refused(tmp_path, github, {"skill": "", "badge-path": "SKILL.md"})
    assert (
        line
        == "input 'badge-path': SKILL.md is the skill file of the run (the suite's skill:); write the badge elsewhere"
    )


def _readme(workspace: Path) -> None:
    (workspace / "README.md").write_text("# My skills\n\n![badge](...)\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("badge-path", "a shields.io endpoint JSON (a Driftproof badge)"),
        ("junit", "a JUnit XML report"),
    ],
)
def test_an_existing_file_of_another_kind_is_not_written_over(
    tmp_path: Path, github: FakeGitHub, name: str, kind: str
) -> None:
    line, _ = refused(tmp_path, github, {name: "README.md"}, prepare=_readme)
    assert line == f"input '{name}': README.md exists and is not {kind}, so it is not written over; name another file"


def test_receipt_path_over_a_file_that_is_no_receipt_on_the_store_job(tmp_path: Path, github: FakeGitHub) -> None:
    line, _ = refused(
        tmp_path, github, {"receipt-path": "README.md"}, prepare=_readme, event_name="push", payload=push_payload()
    )
    assert line == (
        "input 'receipt-path': README.md exists and is not a Driftproof receipt (a JSON object with schema_version "
        "and seal), so it is not written over; name another file"
    )


def test_a_fifo_as_junit(tmp_path: Path, github: FakeGitHub) -> None:
    line, _ = refused(tmp_path, github, {"junit": "reports.xml"}, prepare=lambda w: os.mkfifo(w / "reports.xml"))
    assert line.startswith("input 'junit': reports.xml is a FIFO (a named pipe), not a regular file")


def test_its_own_files_are_written_over_run_after_run(tmp_path: Path, github: FakeGitHub) -> None:
    """A second PR run finds its receipt, report, badge and JUnit file of the first: each of its kind, replaced."""
    repos = make_repos(tmp_path, None)
    inputs = {**STUB, "junit": "reports/junit.xml"}
    first = run_job(tmp_path, repos, github, None, inputs=inputs)
    assert first.code == 0
    badge = json.loads(first.file("badge"))
    assert badge["schemaVersion"] == 1
    second = run_job(tmp_path, repos, github, None, inputs=inputs)
    assert second.code == 0, second.log
    assert (repos.workspace / "reports" / "junit.xml").read_bytes().startswith(b"<?xml")
    assert second.outputs["receipt"] == ".driftproof/receipt.new.json"
    assert "seal" in json.loads(second.file("receipt"))
