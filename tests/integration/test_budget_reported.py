"""``--budget`` against a provider that counts more tokens than ceil(chars / 4) (issue 14, probe #3): the run
settles each call by the usage the provider reported, says on the terminal that the budget was passed, and the
receipt's budget record shows it; figures by hand, on the loopback server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.core.economics import estimate_tokens
from driftproof.judge import judge_prompt
from driftproof.run import RunRequest, run_suite
from driftproof.suite import load_suite
from tests.integration.test_run_loopback import JUDGE, env_for
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.fake_llm_wire import FakeUsage
from tests.support.suites import two_case_suite

HEAVY = FakeUsage(input_tokens=1_000, output_tokens=10)
"""What the provider reports for every call: 1,000 input tokens, far above any prompt's estimate here."""


def responder(req: RecordedRequest) -> FakeReply:
    if "<<<ANSWER" in req.prompt_text:
        return json_text_reply({"score": 0.8, "reason": "ok"}, model=JUDGE, usage=HEAVY)
    return FakeReply(text="feat: add it", usage=HEAVY)


def test_a_provider_counting_more_than_the_estimate_is_said_and_recorded(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("s" * 400, encoding="utf-8")  # 100 tokens
    suite = tmp_path / "suite.yaml"
    case = {"id": "a", "prompt": "p" * 40, "rubric": "Good."}  # 10 tokens
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": [case]}), encoding="utf-8")
    template = estimate_tokens(judge_prompt(load_suite(suite).cases[0], ""))
    # a draw's worst case, --max-tokens 100 and 1 judge sample: the answer (10 + 100 skill + 100) and the sample
    # (template + 100 + 1,024); the budget is the first round's 2 draws an arm exactly, so all 4 start on it
    w, b = 210 + template + 1_124, 110 + template + 1_124
    budget = 2 * w + 2 * b
    log = io.StringIO()
    with FakeLLMServer(responder) as server:
        request = RunRequest(
            suite=suite,
            out=tmp_path / "r.json",
            model="claude-sonnet-4-6",
            judge_model=JUDGE,
            environ=env_for(server),
            draws=2,
            max_draws=2,
            judge_samples=1,
            max_tokens=100,
            budget=budget,
        )
        receipt = run_suite(request, progress_stream=log).receipt
    # reported: 4 answers and 4 judge samples of 1,010 tokens each = 8,080, past the budget
    reported = 8 * 1_010
    assert reported > budget
    record = receipt.run.settings.budget
    assert record is not None and (record.tokens, record.committed_tokens) == (budget, reported)
    assert (
        f"budget: past the budget ({budget:,} tokens): the provider reported {reported:,} tokens for the calls made "
        f"(their worst case by the estimates: {budget:,}); a prompt's estimate, ceil(chars / 4), is not an upper "
        "bound on the tokens a provider counts, and the calls under way had started on it"
    ) in log.getvalue().splitlines()


def scored(req: RecordedRequest) -> FakeReply:
    """With the skill (its text in the system prompt) 'feat: …', scored 0.9; without it 'plain …', scored 0.4."""
    if "<<<ANSWER" in req.prompt_text:
        score = 0.9 if "feat:" in req.prompt_text.split("<<<ANSWER", 1)[1] else 0.4
        return json_text_reply({"score": score, "reason": "ok"}, model=JUDGE)
    return FakeReply(text="feat: add it" if "sss" in req.system_text else "plain: add it")


def one_case(tmp_path: Path) -> tuple[Path, int, int]:
    """A one-case suite (a 10-token prompt, a 100-token skill) and the worst case of a with-skill and a baseline
    draw with --max-tokens 100 and 1 judge sample."""
    (tmp_path / "SKILL.md").write_text("s" * 400, encoding="utf-8")
    suite = tmp_path / "suite.yaml"
    case = {"id": "a", "prompt": "p" * 40, "rubric": "Good."}
    suite.write_text(yaml.safe_dump({"name": "b", "skill": "SKILL.md", "cases": [case]}), encoding="utf-8")
    template = estimate_tokens(judge_prompt(load_suite(suite).cases[0], ""))
    return suite, 210 + template + 1_124, 110 + template + 1_124


def test_a_case_the_budget_stopped_says_so_in_the_headline_view_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14 (probe #5): a budget-stopped case with 2 draws an arm read "spread unknown: an arm has one draw"."""
    suite, w, b = one_case(tmp_path)
    out, junit = tmp_path / "r.json", tmp_path / "j.xml"
    with FakeLLMServer(scored) as server:
        for name, value in env_for(server).items():
            monkeypatch.setenv(name, value)
        # 3 draws an arm asked for; the budget fits 2 + 2 (draws start in turn: with, baseline, with, baseline)
        flags = ["--model", "claude-sonnet-4-6", "--judge-model", JUDGE, "--draws", "3", "--max-draws", "3"]
        more = ["--judge-samples", "1", "--max-tokens", "100", "--budget", str(2 * w + 2 * b)]
        assert main(["run", str(suite), *flags, *more, "-o", str(out), "--junit", str(junit)]) == 0
    said = capsys.readouterr().out
    # both arms measured 2 draws (0.9, 0.9 against 0.4, 0.4: they separate), and the budget stopped the case
    assert "1 underpowered (stopped at the token budget)" in said and "spread unknown" not in said
    assert main(["view", str(out)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| `a` |"))
    assert "| underpowered |" in row and "| stopped at the token budget |" in row
    assert 'message="case a underpowered: stopped at the token budget"' in junit.read_text(encoding="utf-8")
    assert main(["view", str(out), "--format", "json"]) == 0
    case = json.loads(capsys.readouterr().out)["cases"][0]
    assert (case["verdict"], case["draws_needed_reason"]) == ("underpowered", "stopped at the token budget")
    # a diff against a run the budget stopped at one draw an arm (w + b: a with-skill draw, then a baseline one):
    # one with-skill draw never separates, and the reason is the budget's, not "an arm has one draw"
    thin, diff_junit = tmp_path / "thin.json", tmp_path / "d.xml"
    with FakeLLMServer(scored) as server:
        for name, value in env_for(server).items():
            monkeypatch.setenv(name, value)
        more[-1] = str(w + b)
        assert main(["run", str(suite), *flags, *more, "-o", str(thin)]) == 0
    capsys.readouterr()
    assert main(["diff", str(out), str(thin), "--junit", str(diff_junit)]) == 0
    report = capsys.readouterr().out
    assert "| `a` | 0.90 ± 0.00 (2/2) | 0.90 sd unknown (1/1) | stopped at the token budget |" in report
    assert "stopped at the token budget" in diff_junit.read_text(encoding="utf-8")


def test_a_receipt_whose_draws_returned_no_judge_sample_is_not_tested_by_its_canaries_alone(tmp_path: Path) -> None:
    """Issue 14 (probe #6): the canaries' judge samples matched the requested judge, every draw was lost, and the
    receipt read TESTED. A receipt is TESTED by what its own draws' judge samples show."""
    canaries = [{"id": "good", "case": "a", "answer": "feat: add it", "expected": 0.9}]
    suite = two_case_suite(tmp_path, canaries=canaries)

    def no_answers(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER" in req.prompt_text:
            return json_text_reply({"score": 0.9, "reason": "ok"}, model=JUDGE)
        return FakeReply.error(500, message="boom", should_retry=False)

    with FakeLLMServer(no_answers) as server:
        request = RunRequest(
            suite=suite,
            out=tmp_path / "r.json",
            model="claude-sonnet-4-6",
            judge_model=JUDGE,
            environ=env_for(server),
            draws=2,
            max_draws=2,
            judge_samples=1,
            max_retries=0,
            max_consecutive_failures=0,
        )
        receipt = run_suite(request, progress_stream=io.StringIO()).receipt
    assert receipt.canaries is not None and receipt.canaries.scored == 1  # its one sample, from the judge asked for
    assert {d.status for c in receipt.cases for d in (*c.with_skill.draws, *c.baseline.draws)} == {"lost"}
    assert (receipt.verification, receipt.verification_reason) == (
        "UNVERIFIED",
        "no judge sample of a draw was returned: the judge-anchor canaries' alone never make a receipt TESTED",
    )


def test_no_headline_lift_from_a_subset_of_cases_when_a_case_drew_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14 (probe #7): the budget let case a draw and left case b none; the headline printed a's lift alone
    as the suite's, while view said below it that the suite lift was unavailable."""
    suite, w, b = one_case(tmp_path)
    body = yaml.safe_load(suite.read_text(encoding="utf-8"))
    body["cases"].append({"id": "z", "prompt": "p" * 40, "rubric": "Good."})  # the same sizes as case a
    suite.write_text(yaml.safe_dump(body), encoding="utf-8")
    out = tmp_path / "r.json"
    with FakeLLMServer(scored) as server:
        for name, value in env_for(server).items():
            monkeypatch.setenv(name, value)
        flags = ["--model", "claude-sonnet-4-6", "--judge-model", JUDGE, "--draws", "2", "--max-draws", "2"]
        # case a's first round (2 + 2 draws) fits, then nothing more: case z starts no draw
        more = ["--judge-samples", "1", "--max-tokens", "100", "--budget", str(2 * w + 2 * b)]
        assert main(["run", str(suite), *flags, *more, "-o", str(out)]) == 0
    said = capsys.readouterr().out.splitlines()
    unavailable = (
        "measured lift unavailable: case z: the with-skill arm records no draw, so the suite lift and every "
        "omitted-case lift are unavailable"
    )
    # case a separates (0.9 against 0.4): passing, by the status rule; the lift is not a's alone
    assert said[1] == "status  passing   lift n/a" and said[2] == f"        {unavailable}"
    assert main(["view", str(out)]) == 0
    view = capsys.readouterr().out
    assert "| lift (with − without) | n/a |" in view and unavailable in view
    assert main(["diff", str(out), str(out)]) in (0, 1)
    assert "| lift (with − without) | n/a | n/a |" in capsys.readouterr().out
