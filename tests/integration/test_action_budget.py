"""The Action under a budget that stops every draw: it never reads as a green gate by accident.

A case the budget stops reads ``underpowered`` ("stopped at the token budget"), so a run the budget stopped before
any draw is an underpowered run: ``fail-on: underpowered`` fails it, and the comment, the job summary and the log
say the budget stopped it, how many cases and how many tokens its draws needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.action.github import COMMENT_MARKER
from driftproof.core.economics import estimate_tokens
from driftproof.judge import judge_prompt
from driftproof.receipts import load_receipt
from driftproof.suite import load_suite
from tests.integration.test_action_e2e import REGRESSION, pr_job, scripted, store_job
from tests.support.action_sim import SKILL, make_repos, run_job
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

MAX_TOKENS, JUDGE_MAX_TOKENS, JUDGE_SAMPLES = 2048, 1024, 2  # the lane's and the judge's ceilings; action_env's 2


def with_skill_worst(workspace: Path) -> list[int]:
    """Per case, the worst case of one with-skill draw: its prompt and the skill (ceil(chars / 4) each), the
    answer's 2,048-token ceiling, and per judge sample the judge prompt around an empty answer, the answer at its
    ceiling and the judge's 1,024."""
    suite = load_suite(workspace / "evals" / "suite.yaml")
    skill = estimate_tokens((workspace / "SKILL.md").read_text(encoding="utf-8"))
    worst = []
    for case in suite.cases:
        judge = estimate_tokens(judge_prompt(case, "")) + MAX_TOKENS + JUDGE_MAX_TOKENS
        worst.append(estimate_tokens(case.prompt) + skill + MAX_TOKENS + JUDGE_SAMPLES * judge)
    return worst


def first_line(text: str) -> str:
    return text.removeprefix(COMMENT_MARKER).lstrip("\n").split("\n", 1)[0]


def test_a_budget_that_stops_every_draw_reads_underpowered_and_fails_that_gate(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """The store job leaves main's receipt; a PR's 10-token budget refuses its first draw: nothing is measured.
    main's baseline arms stand and are carried, so the with-skill arm alone is asked for: 3 draws per case."""
    main = store_job(tmp_path, github, fake_llm_server)
    calls = len(fake_llm_server.requests)
    job = pr_job(tmp_path, github, fake_llm_server, main, inputs={"budget": "10", "fail-on": "underpowered"})
    repos_workspace = job.workspace

    assert len(fake_llm_server.requests) == calls  # no call fits 10 tokens
    receipt = load_receipt(job.workspace / job.outputs["receipt"])
    record = receipt.run.settings.budget
    assert record is not None and (record.stopped_cases, record.committed_tokens) == (2, 0)
    # nothing committed, so the least budget is the refused first round: 3 with-skill draws of each case
    needed = sum(3 * w for w in with_skill_worst(repos_workspace))
    assert record.needed_tokens == needed
    assert receipt.verification_reason == (
        "every case stopped at the token budget before a draw of this run returned a judge sample"
    )  # not "every judge sample was carried from another receipt"

    assert job.code == 1  # fail-on: underpowered fails a run that measured nothing
    assert (job.outputs["status"], job.outputs["regressed"]) == ("underpowered", "0")
    assert job.outputs["draws-needed"] == ""  # no count: no spread was measured
    said = (
        f"stopped at the token budget: 2 of 2 cases (10 tokens); the draws they asked for needed at least "
        f"{needed:,} tokens"
    )
    [comment] = [c for c in github.comments(7) if COMMENT_MARKER in str(c["body"])]
    assert first_line(str(comment["body"])) == (
        f"**Driftproof · underpowered** · {said} (2 cases, with-skill arm, main → this PR)"
    )
    assert job.summary.startswith(f"### Driftproof · underpowered\n\n{said} (2 cases, with-skill arm")
    assert "no judge sample" not in job.summary and "carried from another receipt" not in job.summary
    assert job.summary.count(said) == 2  # the short form's lead and the report's first line, not a third time
    assert f"::warning title=Driftproof budget::{said}\n" in job.log  # outside the run's collapsed group
    assert "Driftproof: status underpowered · 0 regressed · 0 improved · lift n/a · exit 1 (fail-on underpowered)" in (
        job.log
    )


def test_a_budget_that_stops_the_first_run_names_the_budget(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """No stored receipt: both arms are asked for, and the reason given is the budget, not an empty judge."""
    scripted(fake_llm_server, REGRESSION)
    repos = make_repos(tmp_path, None)
    job = run_job(tmp_path, repos, github, fake_llm_server, inputs={"budget": "10"})

    assert fake_llm_server.requests == []
    assert (job.code, job.outputs["status"], job.outputs["lift"]) == (0, "underpowered", "n/a")
    record = load_receipt(job.workspace / job.outputs["receipt"]).run.settings.budget
    # both arms' first round refused: 3 with-skill and 3 baseline draws a case, a baseline draw the with-skill
    # one without the skill's ceil(chars / 4) tokens
    skill = estimate_tokens(SKILL)
    assert record is not None and record.needed_tokens == sum(
        6 * w - 3 * skill for w in with_skill_worst(repos.workspace)
    )
    said = (
        f"stopped at the token budget: 2 of 2 cases (10 tokens); the draws they asked for needed at least "
        f"{record.needed_tokens:,} tokens"
    )
    assert job.summary.startswith("### Driftproof · underpowered\n\n")
    assert said in job.summary and said in job.file("report")
    assert job.summary.count(said) == 2  # below the first-run lead, and in the report after it
    assert "no judge sample was returned" not in job.summary + job.file("report")
