"""The Action end to end in a simulated GitHub job: real git, the anthropic lane against the loopback fake
LLM (TESTED receipts), a loopback fake of the GitHub REST API, and the runner's environment files.

Stored receipts on ``main`` (tests/support/builders.py), with-skill scores per case:
``subject-line`` 0.85 ± 0 and ``why-not-what`` 0.75 ± 0 (12 draws each, as a store job drawn ``--as-reference``
leaves them; baselines 0.25 ± 0.04).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof import action
from driftproof.action.github import COMMENT_MARKER
from driftproof.core.defaults import DEFAULTS
from driftproof.receipts import load_receipt, receipt_json
from driftproof.run import RunRequest
from tests.support.action_sim import (
    KEY,
    RECEIPT,
    SKILL,
    Job,
    ScoredResponder,
    make_repos,
    pr_payload,
    push_payload,
    run_job,
)
from tests.support.builders import receipt
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import FakeReply
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
BASE = [0.20, 0.25, 0.30]
# what a store job drawn --as-reference leaves on main: 12 draws per arm (R-7 needs 7 of a call's arms)
STORED = {"subject-line": ([0.85] * 12, BASE * 4), "why-not-what": ([0.75] * 12, BASE * 4)}


def scores(subject: Sequence[float], why: Sequence[float]) -> dict[str, dict[str, Sequence[float]]]:
    return {
        "subject-line": {"with_skill": subject, "baseline": BASE},
        "why-not-what": {"with_skill": why, "baseline": BASE},
    }


REGRESSION = scores([0.50, 0.55, 0.60], [0.75])  # subject-line: 0.55 ± 0.05 against 0.85 ± 0: apart, Δ −0.30
IMPROVEMENT = scores([0.95, 1.0, 0.95], [0.75])  # subject-line, 7 draws: 0.964 ± 0.024, lo 0.940 > 0.85
# why-not-what: 0.74 ± 0.04 against 0.75 ± 0 overlaps; r = 0.04 + 2·sqrt(0.0016/3) = 0.086 ≥ 0.05:
# underpowered; n > 4·0.0016/0.01² = 64, so 65 draws per arm (0.04 + 2·sqrt(0.0016/65) = 0.0496 < 0.05).
UNDERPOWERED = scores([0.85], [0.70, 0.74, 0.78])


#: The judge these runs use: a stored receipt graded by another judge is not like for like (no verdict).
SAME_JUDGE = {
    "judge": {"provider": str(DEFAULTS.judge_provider), "surface": "api", "model_requested": DEFAULTS.judge_model}
}


def stored(cases: Mapping[str, tuple[list[float], list[float]]] = STORED, **kwargs: object) -> bytes:
    kwargs.setdefault("extra", SAME_JUDGE)
    return receipt_json(receipt(cases, **kwargs)).encode()  # type: ignore[arg-type]


def scripted(server: FakeLLMServer, table: Mapping[str, Mapping[str, Sequence[float]]]) -> ScoredResponder:
    responder = ScoredResponder(table)
    server.responder = responder
    return responder


def marked(github: FakeGitHub) -> list[dict[str, object]]:
    return [c for c in github.comments(7) if COMMENT_MARKER in str(c["body"])]


# --- the cases of issue 4 ---------------------------------------------------------------------------------


def test_first_run_says_so_plainly_and_passes(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server)

    assert job.code == 0
    assert job.outputs["status"] == "passing"  # the new receipt's own reading: with skill above without
    assert (job.outputs["regressed"], job.outputs["improved"]) == ("0", "0")
    assert job.outputs["lift"].startswith("+")
    first = "No receipt is stored on `main` yet: this is the first run; nothing to compare against."
    assert first in job.file("report") and first in job.summary
    assert "::notice title=Driftproof first run::No receipt is stored on main yet" in job.log
    [comment] = marked(github)
    assert first in str(comment["body"])
    assert load_receipt(job.workspace / job.outputs["receipt"]).verification == "TESTED"
    assert job.outputs["receipt"] == ".driftproof/receipt.new.json"  # never over receipt-path on a PR
    assert not (job.workspace / RECEIPT).exists()


def test_regression_fails_the_gate_with_outputs_and_an_annotation(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    responder = scripted(fake_llm_server, REGRESSION)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)

    assert job.code == 1
    assert {k: job.outputs[k] for k in ("status", "regressed", "improved", "draws-needed")} == {
        "status": "regressed",
        "regressed": "1",
        "improved": "0",
        "draws-needed": "",
    }
    # the run drew subject-line's with-skill arm to the 7 draws R-7 asks of a call against main: 0.50, 0.55,
    # 0.60 cycled, mean 3.8 / 7 = 0.5429; its baseline took a fourth draw (0.20): mean 0.2375. Lift: the mean of
    # (0.5429 − 0.2375) and (0.75 − 0.25) = 0.4027
    assert job.outputs["lift"] == "+0.403"
    assert set(job.outputs) == set(action.OUTPUTS)
    annotation = "::error title=Driftproof%3A case regressed::case subject-line: with-skill 0.85 ± 0.00 (12/12) on main"
    assert annotation in job.log
    report = job.file("report")
    assert report.startswith(
        "**Driftproof · regressed** · `subject-line` -0.31 (0.85 → 0.54, with-skill arm, main → this PR)\n"
    )
    # 7 draws against main's 12: 0.5429 ± 0.045 (sd of 0.50, 0.55, 0.60 ×2 and 0.50) under 0.85 ± 0
    assert "| `subject-line` | 0.85 ± 0.00 (12/12) | 0.54 ± 0.04 (7/7) | -0.31 | regressed |" in report
    assert json.loads(job.file("badge"))["color"] in ("brightgreen", "red", "yellow", "lightgrey")
    # raw model output sits between ::stop-commands:: and its resume token
    start = job.log.index("::stop-commands::")
    token = job.log[start:].split("\n", 1)[0].removeprefix("::stop-commands::")
    assert job.log.index(responder.answers[0].splitlines()[0]) > start
    assert job.log.index(responder.answers[0].splitlines()[0]) < job.log.index(f"::{token}::")


def test_improvement_passes(tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)

    assert job.code == 0
    assert (job.outputs["status"], job.outputs["regressed"], job.outputs["improved"]) == ("passing", "0", "1")
    # subject-line drawn to 7 against main: 0.95, 1.0, 0.95 cycled, (5 · 0.95 + 2 · 1.0) / 7 = 0.9643:
    # Δ = 0.9643 − 0.85 = +0.114
    assert job.file("report").startswith(
        "**Driftproof · passing** · `subject-line` +0.11 (0.85 → 0.96, with-skill arm, main → this PR)\n"
    )
    assert json.loads(job.file("badge"))["message"].startswith("passing · lift +")


def test_underpowered_names_the_draws_needed_and_fails_when_asked(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, UNDERPOWERED)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server, inputs={"fail-on": "underpowered"})

    assert job.code == 1
    assert (job.outputs["status"], job.outputs["draws-needed"]) == ("underpowered", "65")
    report = job.file("report")
    assert report.startswith(
        "**Driftproof · underpowered** · Not enough draws to conclude at this effect floor. (2 cases, with-skill arm"
    )
    assert "| `why-not-what` | 0.75 ± 0.00 (12/12) | 0.74 ± 0.04 (3/3) | 65 |" in report


def test_underpowered_passes_the_default_gate(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, UNDERPOWERED)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)
    assert (job.code, job.outputs["status"]) == (0, "underpowered")


def test_smoke_run_gets_no_verdict_and_lift_na(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Action has no quick input: the test forces the preset to see a smoke receipt on the PR side."""
    scripted(fake_llm_server, IMPROVEMENT)

    def quick(**kw: Any) -> RunRequest:  # the preset fixes the counts, so the Action's inputs for them are dropped
        counts = {"draws": None, "max_draws": None, "judge_samples": None, "concurrency": None}
        return RunRequest(**{**kw, **counts, "quick": True})

    monkeypatch.setattr(action, "RunRequest", quick)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)

    assert job.code == 0
    assert (job.outputs["status"], job.outputs["lift"], job.outputs["lift-per-1k"]) == ("no_verdict", "n/a", "n/a")
    report = job.file("report")
    assert "> **this PR: Smoke run, no verdict.** No verdict is given; the lift below is context only." in report
    # quick: the first case only, 2 draws: (0.95 + 1.0)/2 − (0.20 + 0.25)/2 = +0.750, kept with its sign as context
    assert "| lift (with − without) | +0.550 | +0.750 |" in report
    assert json.loads(job.file("badge"))["message"].startswith("smoke run, no verdict · lift +")


def test_smoke_receipt_stored_on_main_is_named(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, REGRESSION)
    smoke = stored(verification="UNVERIFIED", preset="quick")
    job = run_job(tmp_path, make_repos(tmp_path, smoke), github, fake_llm_server)

    assert (job.code, job.outputs["status"], job.outputs["regressed"]) == (0, "no_verdict", "0")
    assert job.outputs["lift"] == "+0.400"  # this PR's receipt is TESTED: its own lift stands
    assert "> **main: Smoke run, no verdict.**" in job.file("report")


def test_stub_lane_pr_is_below_tested(tmp_path: Path, github: FakeGitHub) -> None:
    repos = make_repos(tmp_path, stored())
    job = run_job(tmp_path, repos, github, None, inputs={"provider": "stub", "judge-provider": "stub"})

    assert (job.code, job.outputs["status"], job.outputs["lift"]) == (0, "no_verdict", "n/a")
    assert "this PR is below TESTED (UNVERIFIED)" in job.file("report")
    assert json.loads(job.file("badge"))["message"].startswith("no verdict · lift ")


def test_fork_pr_without_secrets_is_skipped_with_a_notice(tmp_path: Path, github: FakeGitHub) -> None:
    repos = make_repos(tmp_path, stored())
    job = run_job(tmp_path, repos, github, None, payload=pr_payload(fork=True))

    assert job.code == 0
    assert job.outputs == {
        "status": "skipped",
        "regressed": "0",
        "improved": "0",
        "lift": "n/a",
        "lift-per-1k": "n/a",
        "draws-needed": "",
        "baseline-stands": "",
        "drifted": "",
        "receipt": "",
        "report": "",
        "badge": "",
    }
    assert "::notice title=Driftproof skipped::Driftproof skipped this pull request" in job.log
    assert "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is not set" in job.summary
    assert github.requests == []


def test_comment_is_updated_in_place_not_duplicated(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    for i in range(120):  # the sticky comment lands on the second page of 100
        github.add_comment(7, f"review comment {i}")
    repos = make_repos(tmp_path, stored())
    scripted(fake_llm_server, IMPROVEMENT)
    first = run_job(tmp_path, repos, github, fake_llm_server)
    scripted(fake_llm_server, REGRESSION)
    second = run_job(tmp_path, repos, github, fake_llm_server)

    assert [r.method for r in github.writes()] == ["POST", "PATCH"]
    [comment] = marked(github)
    assert "regressed" in str(comment["body"]).split("\n")[1]
    assert str(comment["body"]).startswith(COMMENT_MARKER)
    assert (first.code, second.code) == (0, 1)
    assert "Driftproof: comment updated:" in second.log
    pages = [r.query.get("page") for r in github.requests if r.method == "GET" and r.path.endswith("/comments")]
    assert pages.count("2") == 2


@pytest.mark.parametrize(
    ("status", "said"), [(500, "returned 500 Internal Server Error"), (403, "pull-requests: write")]
)
def test_comment_refused_by_github_is_a_warning_and_outputs_still_land(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer, status: int, said: str
) -> None:
    github.fail("POST", "create", status, "Resource not accessible by integration" if status == 403 else "boom")
    scripted(fake_llm_server, REGRESSION)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)

    assert job.code == 1  # the gate still decides
    assert job.outputs["status"] == "regressed"
    warn = next(line for line in job.log.splitlines() if line.startswith("::warning title=Driftproof comment::"))
    assert "the PR comment was not posted: GitHub API POST /repos/acme/skills/issues/7/comments" in warn
    assert said in warn
    assert "The report is in the job summary" in warn


def test_baseline_unreadable_is_a_clear_error_with_exit_2(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    repos = make_repos(tmp_path, stored())
    shutil.rmtree(repos.upstream)  # git fetch fails: the contents API is asked, and it answers 500
    github.fail("GET", "contents", 500, "Server Error")
    scripted(fake_llm_server, REGRESSION)
    job = run_job(tmp_path, repos, github, fake_llm_server)

    assert job.code == 2
    [line] = [line for line in job.log.splitlines() if line.startswith("::error")]
    assert line.startswith("::error title=Driftproof failed::GitHub API GET /repos/acme/skills/contents/.driftproof/")
    assert "returned 500 Internal Server Error: Server Error" in line and "Fix: Give the job" in line
    assert "### Driftproof · error" in job.summary and "**Fix:**" in job.summary
    assert job.outputs["status"] == "error" and job.outputs["regressed"] == ""


def test_baseline_through_the_contents_api_when_git_cannot_fetch(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    repos = make_repos(tmp_path, None)
    shutil.rmtree(repos.upstream)
    github.serve_file("main", RECEIPT, stored())
    scripted(fake_llm_server, REGRESSION)
    job = run_job(tmp_path, repos, github, fake_llm_server)
    assert (job.code, job.outputs["status"]) == (1, "regressed")


def test_push_to_main_stores_the_receipt_and_badge_without_a_comment(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    repos = make_repos(tmp_path, stored())
    job = run_job(tmp_path, repos, github, fake_llm_server, event_name="push", payload=push_payload())

    assert job.code == 0
    assert (job.outputs["receipt"], job.outputs["badge"]) == (RECEIPT, ".driftproof/badge.json")
    assert load_receipt(repos.workspace / RECEIPT).verification == "TESTED"
    badge = json.loads(job.file("badge"))
    assert (set(badge), badge["color"]) == ({"schemaVersion", "label", "message", "color"}, "brightgreen")
    assert github.writes() == []


def test_missing_key_on_a_trusted_pr_is_an_error_naming_the_variable(tmp_path: Path, github: FakeGitHub) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, None)
    assert job.code == 2
    said = "::error title=Driftproof failed::no API key for this run: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"
    assert said in job.log


def test_bad_input_is_named_in_one_error_line(tmp_path: Path, github: FakeGitHub) -> None:
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, None, inputs={"draws": "many"})
    assert job.code == 2
    assert "::error title=Driftproof failed::input 'draws' must be a positive integer, got 'many'" in job.log
    assert "### Driftproof · error" in job.summary


@pytest.mark.slow
def test_a_report_over_65536_characters_is_cut_in_the_comment_and_whole_elsewhere(
    tmp_path: Path, github: FakeGitHub
) -> None:
    ids = [f"case-{i:03d}-" + "x" * 110 for i in range(330)]  # about 210 characters of report per case
    repos = make_repos(tmp_path, None, case_ids=ids)
    job = run_job(tmp_path, repos, github, None, inputs={"provider": "stub", "judge-provider": "stub", "draws": "2"})

    report = job.file("report")
    assert len(report) > 65_536
    [write] = github.writes()
    body = write.body["body"]
    assert len(body) <= 65_536 and body.startswith(COMMENT_MARKER)
    assert "This comment was cut to fit GitHub's 65,536-character limit." in body
    assert ids[-1] in report and ids[-1] in job.summary and ids[-1] not in body


def test_an_unexpected_failure_is_one_error_line_not_a_traceback(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"boom with {KEY}")

    monkeypatch.setattr(action, "run_suite", boom)
    job = run_job(tmp_path, make_repos(tmp_path, stored()), github, fake_llm_server)
    assert job.code == 2
    error = "::error title=Driftproof failed::unexpected RuntimeError: boom with [REDACTED] · Fix: This is a bug"
    assert error in job.log
    assert "::debug::" not in job.log  # the trace is printed only when the runner's debug logging is on


def test_entrypoint_runs_main_and_explains_a_missing_suite(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GITHUB_WORKSPACE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "::error title=Driftproof failed::input 'suite' is required" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


# --- issue 8: the gate must actually work -----------------------------------------------------------------


def test_a_wrong_key_fails_the_step_with_status_error_and_no_verdict(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """A run that cannot reach its model is an error, never a green gate: exit 2, status=error, one ::error
    line with the provider, host, status and error type, no receipt, and the sticky comment says so."""
    repos = make_repos(tmp_path, stored())
    scripted(fake_llm_server, IMPROVEMENT)
    first = run_job(tmp_path, repos, github, fake_llm_server)  # an earlier push's comment: passing
    assert first.code == 0 and "passing" in str(marked(github)[0]["body"]).split("\n")[1]
    (tmp_path / "output").unlink()
    earlier = (repos.workspace / first.outputs["receipt"]).read_bytes()
    fake_llm_server.responder = lambda _req: FakeReply.error(401, error_type="authentication_error", message="bad")
    job = run_job(tmp_path, repos, github, fake_llm_server)

    assert job.code == 2
    assert job.outputs["status"] == "error" and job.outputs["lift"] == "n/a"
    assert job.outputs["regressed"] == job.outputs["receipt"] == ""  # an error is not "0 regressed"
    [line] = [x for x in job.log.splitlines() if x.startswith("::error")]
    host = fake_llm_server.base_url.split("://", 1)[1].rstrip("/")
    assert f"anthropic api at {host}" in line and "HTTP 401 authentication_error" in line
    assert (repos.workspace / first.outputs["receipt"]).read_bytes() == earlier  # nothing overwritten
    [comment] = marked(github)  # the same comment, updated: the earlier verdict no longer stands
    body = str(comment["body"])
    assert "**Driftproof · error**" in body and "passing" not in body and "HTTP 401" in body
    assert "### Driftproof · error" in job.summary


# --- issue 9: an honest merge gate ----------------------------------------------------------------------------


class FirstWithSkillTimesOut:
    """Wraps a responder: the first with-skill answer of every case waits past the step's 0.5 s timeout."""

    def __init__(self, inner: ScoredResponder) -> None:
        self.inner, self.seen, self.timed_out = inner, set[str](), 0

    def __call__(self, request: Any) -> FakeReply:
        reply = self.inner(request)
        if "<<<ANSWER" in request.prompt_text or not request.system_text:
            return reply
        case = next(cid for cid in ("subject-line", "why-not-what") if cid in reply.text)
        if case in self.seen:
            return reply
        self.seen.add(case)
        self.timed_out += 1
        return FakeReply(text=reply.text, delay_s=2.0)


NOISY_MAIN = {"subject-line": ([0.80, 0.85, 0.90] * 4, BASE * 4), "why-not-what": ([0.70, 0.75, 0.80] * 4, BASE * 4)}


def test_an_unchanged_skill_passes_the_gate(tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer) -> None:
    """A/A: the PR's with-skill arms score as main's did (0.85 ± 0.05 and 0.75 ± 0.05 over main's ± 0.0426 on 12).

    No call: |Δ| 0 < F settles both cases at the minimum 3 draws. They read underpowered, not no_separation:
    R-4's resolution 0.05 + 0.0426 + 2·sqrt(0.05²/3 + 0.0426²/12) = 0.156 ≥ F, and the spreads alone sum to
    0.0926 ≥ F, so no draw count reaches the floor. The gate (fail-on regressed) passes."""
    scripted(fake_llm_server, scores([0.80, 0.85, 0.90], [0.70, 0.75, 0.80]))
    job = run_job(tmp_path, make_repos(tmp_path, stored(NOISY_MAIN)), github, fake_llm_server)
    assert job.code == 0
    assert (job.outputs["status"], job.outputs["regressed"], job.outputs["improved"]) == ("underpowered", "0", "0")
    assert job.outputs["draws-needed"] == ""  # a number or empty (action.yml); the sentence is in the summary
    assert " | no draw count reaches the floor |\n" in job.summary  # the table's last column
    assert "drawn against" in job.summary  # the run was settled against main's receipt
    receipt = load_receipt(job.workspace / job.outputs["receipt"])
    assert [len(c.with_skill.draws) for c in receipt.cases] == [3, 3]


def test_a_regression_is_caught_although_every_case_lost_a_draw_to_a_timeout(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """Every case's first with-skill answer times out (0.5 s timeout, no retries). The run draws again in its
    place, the timed-out draw is marked replaced, and the drop 0.85 → 0.54 is still called: exit 1."""
    wrapped = FirstWithSkillTimesOut(ScoredResponder(REGRESSION))
    fake_llm_server.responder = wrapped
    job = run_job(
        tmp_path,
        make_repos(tmp_path, stored()),
        github,
        fake_llm_server,
        inputs={"timeout": "0.5", "max-retries": "0"},
    )
    assert wrapped.timed_out == 2
    assert job.code == 1 and (job.outputs["status"], job.outputs["regressed"]) == ("regressed", "1")
    receipt = load_receipt(job.workspace / job.outputs["receipt"])
    for case in receipt.cases:
        [lost] = [d for d in case.with_skill.draws if d.status == "lost"]
        assert lost.replaced is True and lost.lost_reason is not None and "timed out" in lost.lost_reason
    report = job.file("report")
    assert report.startswith("**Driftproof · regressed** · `subject-line` ")
    assert "lost to a failed call and replaced (timed out after 0.5s)" in report


# --- issue 12: does the stored receipt's baseline arm stand for this PR? ---------------------------------------


def store_job(tmp_path: Path, github: FakeGitHub, llm: FakeLLMServer) -> bytes:
    """What the store job leaves on main: the push run of the same skill and suite, drawn --as-reference."""
    scripted(llm, scores([0.85, 0.85, 0.90], [0.75]))
    where = tmp_path / "store"
    where.mkdir()
    job = run_job(where, make_repos(where, None), github, llm, event_name="push", payload=push_payload())
    assert job.code == 0 and job.outputs["baseline-stands"] == ""  # a push reads no stored receipt
    assert "Baseline:" not in job.log + job.summary + job.file("report")
    return (job.workspace / RECEIPT).read_bytes()


def pr_job(tmp_path: Path, github: FakeGitHub, llm: FakeLLMServer, stored_bytes: bytes, **kwargs: Any) -> Job:
    """A PR job over main's stored receipt; ``edit`` changes the PR's workspace first."""
    edit = kwargs.pop("edit", None)
    where = tmp_path / "pr"
    where.mkdir()
    repos = make_repos(where, stored_bytes)
    if edit is not None:
        edit(repos.workspace)
    scripted(llm, scores([0.85, 0.85, 0.90], [0.75]))
    return run_job(where, repos, github, llm, **kwargs)


def test_a_skill_only_pr_says_mains_baseline_stands(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    """main's receipt was drawn --as-reference (12 to 12 draws per arm), the PR's run draws 3 to 10: the deeper
    rule is no reason to redraw, and the baseline arm contains no skill text, so every baseline arm stands."""
    main = store_job(tmp_path, github, fake_llm_server)
    seal = json.loads(main)["seal"]["sha256"][:12]

    def edit_skill(workspace: Path) -> None:
        (workspace / "SKILL.md").write_text(SKILL + "Keep the subject in the imperative mood.\n", encoding="utf-8")

    job = pr_job(tmp_path, github, fake_llm_server, main, edit=edit_skill)
    line = f"Baseline: main's receipt ({seal}) still stands for every case — nothing the baseline arm contains changed."
    assert job.outputs["baseline-stands"] == "true"
    assert line in job.file("report") and line in job.summary
    assert line in str(marked(github)[0]["body"])
    notice_line = f"::notice title=Driftproof baseline::{line}"
    assert notice_line in job.log
    assert job.log.index(notice_line) < job.log.index("::group::")  # known before the run's first call


def _edit_rubric(workspace: Path) -> None:
    suite = workspace / "evals" / "suite.yaml"
    doc = yaml.safe_load(suite.read_text(encoding="utf-8"))
    doc["cases"][1]["rubric"] = "Why, not what; and name the provider."
    suite.write_text(yaml.safe_dump(doc), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"edit": _edit_rubric}, "no longer stands for 1 of 2 cases (rerun: rubric or criteria changed: "),
        (
            {"inputs": {"judge-model": "claude-judge-2"}},
            f"no longer stands for 2 of 2 cases (rerun: judge model changed: {DEFAULTS.judge_model} → claude-judge-2).",
        ),
    ],
)
def test_a_rubric_or_judge_change_says_mains_baseline_no_longer_stands(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer, change: dict[str, Any], said: str
) -> None:
    main = store_job(tmp_path, github, fake_llm_server)
    job = pr_job(tmp_path, github, fake_llm_server, main, **change)
    assert job.outputs["baseline-stands"] == "false"
    [line] = [x for x in job.file("report").splitlines() if x.startswith("Baseline: main's receipt (")]
    assert said in line
    assert line in job.summary and line in str(marked(github)[0]["body"])
    assert "::notice title=Driftproof baseline::Baseline: main's receipt (" in job.log


def test_no_stored_receipt_no_baseline_line_and_an_empty_output(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    scripted(fake_llm_server, IMPROVEMENT)
    job = run_job(tmp_path, make_repos(tmp_path, None), github, fake_llm_server)
    assert job.code == 0 and job.outputs["baseline-stands"] == ""
    assert "baseline-stands" in job.outputs  # set, and empty
    assert "Baseline:" not in job.log + job.summary + job.file("report")
    assert "Baseline:" not in str(marked(github)[0]["body"])


def test_the_action_prints_driftproof_plan_before_its_first_call_and_takes_a_budget(
    tmp_path: Path, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """The plan the log shows is the one ``driftproof plan`` prints for the same settings (issue 14)."""
    from driftproof.cli import main

    repos = make_repos(tmp_path, stored())
    inputs = {"provider": "stub", "judge-provider": "stub", "budget": "20000"}
    job = run_job(tmp_path, repos, github, None, inputs=inputs)
    suite = repos.workspace / "evals" / "suite.yaml"
    flags = ["--provider", "stub", "--judge-provider", "stub", "--judge-samples", "2", "--budget", "20000"]
    assert main(["plan", str(suite), "--skill", str(repos.workspace / "SKILL.md"), *flags]) == 0
    planned = capsys.readouterr().out.splitlines()
    log = job.log.splitlines()
    start = log.index(planned[0])
    assert log[start : start + len(planned)] == planned
    assert not any(line.startswith("progress:") for line in log[:start])  # before the first call
    receipt_file = load_receipt(job.workspace / job.outputs["receipt"])
    assert receipt_file.run.settings.budget is not None and receipt_file.run.settings.budget.tokens == 20000
    assert {c.stop_reason for c in receipt_file.cases} == {"stopped at the token budget"}
