"""The Action under a budget too small for a single draw: it never reads as a green gate by accident.

A budget that cannot start even one draw beside the canaries is refused before any call (exit 2, status
``error``), as ``driftproof run`` refuses it, naming the input and the least a draw needs; the sticky comment is
updated to the error, so an earlier verdict is not left standing. (A case a budget stops after its first draws
reads ``underpowered``, "stopped at the token budget": tests/unit/test_budget_reading.py and the run's tests.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.action.github import COMMENT_MARKER
from driftproof.core.economics import estimate_tokens
from driftproof.judge import judge_prompt
from driftproof.suite import load_suite
from tests.integration.test_action_e2e import REGRESSION, pr_job, scripted, store_job
from tests.support.action_sim import make_repos, run_job
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


def least_draw(workspace: Path) -> int:
    """The least budget a draw needs: the smallest case's worst with-skill draw (`with_skill_worst`)."""
    return min(with_skill_worst(workspace))


def test_a_budget_that_cannot_start_a_draw_is_refused_and_the_comment_says_so(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """The store job leaves main's receipt; a PR's 10-token budget cannot start its first with-skill draw (main's
    baseline arms stand and are carried): refused before any call, the step fails (exit 2, status ``error``), and
    the one comment says why, in the Action's words."""
    main = store_job(tmp_path, github, fake_llm_server)
    calls = len(fake_llm_server.requests)
    job = pr_job(tmp_path, github, fake_llm_server, main, inputs={"budget": "10", "fail-on": "underpowered"})

    assert len(fake_llm_server.requests) == calls  # no call was made
    assert (job.code, job.outputs["status"]) == (2, "error")
    least = least_draw(job.workspace)
    said = "input 'budget': the budget (10 tokens) cannot start a single draw, so the run would make no call"
    [comment] = [c for c in github.comments(7) if COMMENT_MARKER in str(c["body"])]
    body = str(comment["body"])
    assert "**Driftproof · error** · the run failed, so this push has no verdict." in body
    assert said in body and f"the least a draw needs is {least:,} tokens" in body
    assert said in job.log and "--budget" not in body


def test_a_budget_that_cannot_start_the_first_run_is_refused(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """No stored receipt: a first run that could make no draw is refused too, never a green first run."""
    scripted(fake_llm_server, REGRESSION)
    repos = make_repos(tmp_path, None)
    job = run_job(tmp_path, repos, github, fake_llm_server, inputs={"budget": "10"})

    assert fake_llm_server.requests == []
    assert (job.code, job.outputs["status"], job.outputs["receipt"]) == (2, "error", "")
    assert f"the least a draw needs is {least_draw(repos.workspace):,} tokens" in job.log
