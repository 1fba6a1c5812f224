"""The model-drift sentinel end to end in the simulated GitHub job (issue 15): the shipped scheduled workflow's
inputs, a store job on ``main``, then scheduled runs that re-run ``main`` with no code change.

1. The push to ``main`` stores a receipt drawn ``--as-reference`` (12 draws per arm): subject-line with-skill
   [0.85, 0.85, 0.90] cycled (mean 0.8667), answered as ``claude-sonnet-5-5-20261001``.
2. A scheduled run whose answers, now reported as ``claude-sonnet-5-5-20261120``, score [0.50, 0.55, 0.60]:
   subject-line's with-skill arm moved down (0.55 against 0.87, bands apart, Δ −0.32), so ``drifted=true``,
   exit 1, and one issue is opened with the report.
3. A second scheduled run, the same: the issue is updated in place; there is still one.
4. A scheduled run that scores as the stored receipt did: ``drifted=false``, no issue written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.action.sentinel import SENTINEL_MARKER
from tests.support.action_sim import (
    RECEIPT,
    Job,
    ScoredResponder,
    make_repos,
    push_payload,
    run_job,
)
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import FakeReply, RecordedRequest
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "workflows" / "driftproof-sentinel.yml"
BASE = [0.20, 0.25, 0.30]
THEN, NOW = "claude-sonnet-5-5-20261001", "claude-sonnet-5-5-20261120"


def scores(subject: Sequence[float]) -> dict[str, dict[str, Sequence[float]]]:
    return {
        "subject-line": {"with_skill": subject, "baseline": BASE},
        "why-not-what": {"with_skill": [0.75], "baseline": BASE},
    }


STEADY = scores([0.85, 0.85, 0.90])
MOVED = scores([0.50, 0.55, 0.60])


@dataclass
class Dated(ScoredResponder):
    """Answers report ``answered_as`` (a dated id under the lane's alias); the judge's replies are untouched."""

    answered_as: str = THEN

    def __call__(self, request: RecordedRequest) -> FakeReply:
        reply = super().__call__(request)
        return reply if "<<<ANSWER" in request.prompt_text else replace(reply, model=self.answered_as)


def sentinel_step() -> dict[str, Any]:
    """The Driftproof step of the shipped scheduled workflow."""
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    [step] = [s for job in workflow["jobs"].values() for s in job["steps"] if "driftproof" in str(s.get("uses", ""))]
    return step


def schedule_payload() -> dict[str, Any]:
    return {"schedule": "17 6 * * 1", "repository": {"full_name": "acme/skills", "default_branch": "main"}}


def sentinel_inputs() -> dict[str, str]:
    """The step's ``with:`` as the runner hands it over; the suite paths of the simulated repository."""
    given = {k: str(v) for k, v in sentinel_step()["with"].items() if "${{" not in str(v)}
    return {**given, "suite": "evals/suite.yaml", "skill": "SKILL.md"}


def stored_on_main(tmp_path: Path, github: FakeGitHub, server: FakeLLMServer) -> bytes:
    """What the store job leaves on main: the receipt a push to main draws."""
    server.responder = Dated(STEADY, answered_as=THEN)
    repos = make_repos(tmp_path / "store", None)
    job = run_job(tmp_path / "store", repos, github, server, event_name="push", payload=push_payload())
    assert job.code == 0
    return (repos.workspace / RECEIPT).read_bytes()


def scheduled(
    tmp_path: Path, stored: bytes, github: FakeGitHub, server: FakeLLMServer, table: Mapping[str, Any], name: str
) -> Job:
    server.responder = Dated(table, answered_as=NOW)
    where = tmp_path / name
    where.mkdir()
    repos = make_repos(where, stored)
    return run_job(
        where, repos, github, server, event_name="schedule", payload=schedule_payload(), inputs=sentinel_inputs()
    )


def sentinel_issues(github: FakeGitHub) -> list[dict[str, Any]]:
    return [i for i in github.issues() if SENTINEL_MARKER in str(i["body"])]


def test_the_shipped_workflow_is_scheduled_with_the_sentinel_input_and_issue_permission() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    [job] = workflow["jobs"].values()
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    assert sentinel_step()["with"]["sentinel"] is True
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert set(sentinel_step()["with"]) <= set(action["inputs"])


def test_a_scheduled_run_that_drifted_opens_one_issue_and_a_second_updates_it(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    stored = stored_on_main(tmp_path, github, fake_llm_server)
    github.add_issue("someone else's issue", "unrelated")
    github.add_issue("a pull request", f"{SENTINEL_MARKER}\nquoted in a PR body", pull_request=True)

    first = scheduled(tmp_path, stored, github, fake_llm_server, MOVED, "first")

    assert (first.code, first.outputs["drifted"], first.outputs["status"]) == (1, "true", "regressed")
    [issue] = [i for i in sentinel_issues(github) if "pull_request" not in i]
    assert issue["title"] == "Driftproof sentinel: the stored receipt no longer holds"
    body = str(issue["body"])
    assert body.startswith(SENTINEL_MARKER)
    assert "drifted: 1 arm moved although neither the skill nor the suite changed" in body
    assert f"answered as {THEN} then, {NOW} now" in body
    assert "case subject-line: the with-skill arm moved down" in body
    assert "::warning title=Driftproof%3A drifted::drifted: 1 arm moved" in first.log
    assert f"sentinel issue opened: https://github.test/acme/skills/issues/{issue['number']}" in first.log
    badge = json.loads(first.file("badge"))
    assert badge["color"] == "lightgrey" and " · verified " in badge["message"]
    assert first.outputs["receipt"] == ".driftproof/receipt.new.json"  # never over the stored receipt

    second = scheduled(tmp_path, stored, github, fake_llm_server, MOVED, "second")

    assert (second.code, second.outputs["drifted"]) == (1, "true")
    [again] = [i for i in sentinel_issues(github) if "pull_request" not in i]
    assert again["number"] == issue["number"]  # updated in place, never a second issue
    assert f"sentinel issue updated: https://github.test/acme/skills/issues/{issue['number']}" in second.log
    opened = [r for r in github.writes() if r.method == "POST" and r.path.endswith("/issues")]
    assert len(opened) == 1


def test_a_scheduled_run_that_did_not_move_opens_no_issue(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    stored = stored_on_main(tmp_path, github, fake_llm_server)
    job = scheduled(tmp_path, stored, github, fake_llm_server, STEADY, "steady")

    assert (job.code, job.outputs["drifted"]) == (0, "false")
    assert "steady: no arm separated at this sample size" in job.file("report")
    assert f"answered as {THEN} then, {NOW} now" in job.file("report")  # a new dated id alone is not drift
    assert github.issues() == [] and github.writes() == []
    assert json.loads(job.file("badge"))["color"] != "lightgrey"


def test_the_sentinel_on_a_pull_request_is_refused_before_any_call(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server, inputs={"sentinel": "true"})
    assert job.code == 2 and job.outputs["status"] == "error"
    assert "input 'sentinel' is for scheduled (or workflow_dispatch) runs on the default branch" in job.log
    assert fake_llm_server.requests == []
