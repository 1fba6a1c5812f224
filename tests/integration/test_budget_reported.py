"""``--budget`` against a provider that counts more tokens than ceil(chars / 4) (issue 14, probe #3): the run
settles each call by the usage the provider reported, says on the terminal that the budget was passed, and the
receipt's budget record shows it; figures by hand, on the loopback server."""

from __future__ import annotations

import io
from pathlib import Path

import yaml

from driftproof.core.economics import estimate_tokens
from driftproof.judge import judge_prompt
from driftproof.run import RunRequest, run_suite
from driftproof.suite import load_suite
from tests.integration.test_run_loopback import JUDGE, env_for
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer
from tests.support.fake_llm_wire import FakeUsage

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
