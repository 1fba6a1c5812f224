"""``--batch`` with the calls that are not batched: the judge-anchor canaries (judged one by one before the first
draw) and the pairwise calls (``--judge-mode pairwise``, one by one after the draws). Against the loopback fakes
of Message Batches and the OpenAI Batch API, they go to ``POST /v1/messages`` and ``/v1/chat/completions``, so the
provider bills them at the list price: the receipt, the plan and the budget count them at it, and only the
answers and the draws' judge samples at the batch price (half). Dollars checked by hand."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from driftproof import batch_runner
from driftproof.cli import main
from driftproof.core.words import JudgeMode, Provider
from driftproof.errors import InputError
from driftproof.merge import merge_shards
from driftproof.plan_command import plan_for, plan_text
from driftproof.run import RunRequest, run_suite
from tests.integration.test_openai_batch_loopback import responder as openai_responder
from tests.integration.test_run_loopback import JUDGE, env_for, responder
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer
from tests.support.suites import two_case_suite

CANARIES = [
    {"id": "good", "case": "a", "answer": "feat: add the retry header", "expected": 0.9},
    {"id": "plain", "case": "b", "answer": "Retry header support for the client", "expected": 0.4},
]


@pytest.fixture(autouse=True)
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """Two cases, as tests/integration/test_run_loopback.py's suite, and two canaries graded with their rubrics."""
    return two_case_suite(tmp_path, canaries=CANARIES)


def with_pairs(
    answer: Callable[[RecordedRequest], FakeReply], model: str | None
) -> Callable[[RecordedRequest], FakeReply]:
    """``answer``'s replies, and a pairwise prompt's: 'A' is better, 300 input and 10 output tokens a call."""

    def reply(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER_A" in req.prompt_text:
            usage = FakeUsage(input_tokens=300, output_tokens=10)
            return json_text_reply({"better": "A", "reason": "closer"}, model=model, usage=usage)
        return answer(req)

    return reply


def request_of(suite: Path, server: FakeLLMServer, provider: str, **kw: object) -> RunRequest:
    """2 draws per arm (one round), 2 judge samples, pairwise, through batches; the judge on ``provider``."""
    openai = {"judge_provider": "openai", "judge_model": "gpt-5-mini"}
    judge = {"judge_model": JUDGE} if provider == "anthropic" else openai
    settings: dict[str, object] = {"draws": 2, "max_draws": 2, "judge_samples": 2, "judge_mode": "pairwise", **kw}
    return RunRequest(
        suite=suite,
        provider=provider,  # type: ignore[arg-type]
        model="claude-sonnet-4-6" if provider == "anthropic" else "gpt-5-mini",
        environ=env_for(server),
        batch=True,
        **judge,  # type: ignore[arg-type]
        **settings,  # type: ignore[arg-type]
    )


def test_anthropic_batch_run_bills_canaries_and_pairwise_calls_at_the_list_price(suite: Path) -> None:
    with FakeLLMServer(with_pairs(responder, f"{JUDGE}-20251001")) as server:
        outcome = run_suite(request_of(suite, server, "anthropic"))
        one_by_one = [r for r in server.requests if r.path == ANTHROPIC_MESSAGES]
        batches = server.batches.batches
    r = outcome.receipt
    # batched: 2 cases × 2 arms × 2 draws = 8 answers, then their 16 judge samples; not batched: 2 canaries × 2
    # judge samples = 4 calls, and 2 cases × 2 draw pairs × 2 orders = 8 pairwise calls, each POST /v1/messages
    assert [len(b.custom_ids) for b in batches.values()] == [8, 16]
    assert len(one_by_one) == 4 + 8
    overhead = r.economics.judge_overhead
    # the recorded price is the judge samples': claude-haiku-4-5 $1 / $5 per million, halved: $0.5 / $2.5
    assert overhead.price is not None
    assert (overhead.price.input_per_mtok, overhead.price.output_per_mtok) == (0.5, 2.5)
    assert overhead.price.source == "bundled price table 2026-11-01: claude-haiku-4-5, batch API: half price"
    # canaries: 4 samples × (200 in, 20 out) = 800 in, 80 out at the list price: 800 × 1 + 80 × 5 = 1,200 / 1e6
    # (at the batch price it would read 600 / 1e6)
    assert overhead.canaries is not None and overhead.canaries.judge_calls == 4
    assert (overhead.canaries.usage.input_tokens, overhead.canaries.usage.output_tokens) == (800, 80)
    assert overhead.canaries.cost_usd == pytest.approx(0.0012, abs=1e-12)
    # the judge samples: 16 × (200, 20) = 3,200 in, 320 out at $0.5 / $2.5: 1,600 + 800 = 2,400 / 1e6;
    # the pairwise calls: 8 × (300, 10) = 2,400 in, 80 out at $1 / $5: 2,400 + 400 = 2,800 / 1e6 -> 5,200 / 1e6
    # (every token at the batch price would read 5,600 × 0.5 + 400 × 2.5 = 3,800 / 1e6)
    assert overhead.pairwise_calls == 8 and overhead.pairwise_usage is not None
    assert (overhead.pairwise_usage.input_tokens, overhead.pairwise_usage.output_tokens) == (2400, 80)
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (3200 + 2400, 320 + 80)
    assert overhead.cost_usd == pytest.approx(0.0052, abs=1e-12)


def test_openai_batch_run_bills_canaries_and_pairwise_calls_at_the_list_price(suite: Path) -> None:
    with FakeLLMServer(with_pairs(openai_responder, None)) as server:
        outcome = run_suite(request_of(suite, server, "openai"))
        one_by_one = [r for r in server.requests if r.path == OPENAI_CHAT]
        batches = server.openai_batches.batches
    overhead = outcome.receipt.economics.judge_overhead
    # batched: 8 answers in 4 lines (an arm's 2 draws in one, n 2), then 8 judge lines (the 2 samples of a draw in
    # one, n 2); not batched: each canary's 2 samples in one request (n 2) = 2 requests, and the 8 pairwise calls
    assert [len(b.custom_ids) for b in batches.values()] == [4, 8]
    assert len(one_by_one) == 2 + 8
    # gpt-5-mini $0.25 / $2 per million; the judge samples' recorded price halved: $0.125 / $1
    assert overhead.price is not None and (overhead.price.input_per_mtok, overhead.price.output_per_mtok) == (0.125, 1)
    # canaries: 2 requests × (200 in, 20 out) at the list price: 400 × 0.25 + 40 × 2 = 180 / 1e6 (batch: 90)
    assert overhead.canaries is not None and overhead.canaries.cost_usd == pytest.approx(0.00018, abs=1e-12)
    # judge samples 8 × (200, 20) at $0.125 / $1: 200 + 160 = 360; pairwise 8 × (300, 10) at $0.25 / $2:
    # 600 + 160 = 760 -> 1,120 / 1e6 (all at the batch price: 4,000 × 0.125 + 240 × 1 = 740)
    assert overhead.pairwise_calls == 8
    assert overhead.cost_usd == pytest.approx(0.00112, abs=1e-12)


def test_merging_batch_shards_keeps_each_shards_canary_and_pairwise_dollars(suite: Path, tmp_path: Path) -> None:
    outs = [tmp_path / "s1.json", tmp_path / "s2.json"]
    with FakeLLMServer(with_pairs(responder, f"{JUDGE}-20251001")) as server:
        for index, out in enumerate(outs, 1):
            run_suite(request_of(suite, server, "anthropic", shard=f"{index}/2", out=out))
    merged = merge_shards(outs, tmp_path / "merged.json").receipt.economics.judge_overhead
    # each shard: 1 case, so 8 judge samples × (200, 20) at $0.5 / $2.5 = 800 + 400 = 1,200; 2 pairs × 2 calls
    # × (300, 10) at $1 / $5 = 1,200 + 200 = 1,400 -> 2,600 / 1e6; both shards: 5,200 / 1e6, as one run
    # (priced again at the judge samples' price: 5,600 × 0.5 + 400 × 2.5 = 3,800 / 1e6)
    assert merged.pairwise_calls == 8 and merged.cost_usd == pytest.approx(0.0052, abs=1e-12)
    # each shard judged both canaries: 2 × 1,200 / 1e6 at the list price (priced again: 2 × 600)
    assert merged.canaries is not None and merged.canaries.judge_calls == 8
    assert merged.canaries.cost_usd == pytest.approx(0.0024, abs=1e-12)


PROMPT = "p" * 40  # 10 tokens
PLAN_SKILL = "s" * 400  # 100 tokens
PLAN_CANARIES = [
    {"id": "good", "case": "a", "answer": "g" * 80, "expected": 1.0},
    {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": "hi", "expected": 1.0},
]
PLAN_FLAGS = ["--model", "claude-sonnet-4-6", "--judge-samples", "1", "--max-tokens", "100", "--draws", "3",
              "--max-draws", "3"]  # fmt: skip


def plan_suite_file(d: Path) -> Path:
    """tests/integration/test_plan_budget.py's one-case suite, with tests/integration/
    test_budget_canaries_pairwise.py's two canaries (judge prompts of 201 and 174 tokens)."""
    (d / "SKILL.md").write_text(PLAN_SKILL, encoding="utf-8")
    suite = {"name": "b", "skill": "SKILL.md", "cases": [{"id": "a", "prompt": PROMPT, "rubric": "Good."}],
             "canaries": PLAN_CANARIES}  # fmt: skip
    (d / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    return d / "suite.yaml"


# The plan's figures (claude-sonnet-4-6 $3 / $15 answering, claude-haiku-4-5 $1 / $5 judging, per million):
# the case, 3 draws per arm, 1 judge sample, --max-tokens 100 (tests/integration/test_plan_budget.py): at most
# 42,486 / 1e6 at the list price, 21,243 / 1e6 at the batch price; at least 2,166 and 1,083.
# The canaries: 2 × 1 judge sample, prompts 201 + 174 = 375 tokens in, at most 2 × 1,024 = 2,048 out:
# at the list price at most 375 × 1 + 2,048 × 5 = 10,615 / 1e6, at least 375 / 1e6 (halved: 5,307.5 and 187.5).
CANARIES_LIST = {"min": 0.000375, "max": 0.010615}
CASE_BATCH = {"min": 0.001083, "max": 0.021243}


def test_plan_with_batch_prices_the_canaries_at_the_list_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = plan_suite_file(tmp_path)
    docs = {}
    for batch in ([], ["--batch"]):
        assert main(["plan", str(suite), *PLAN_FLAGS, "--format", "json", *batch]) == 0
        docs[bool(batch)] = json.loads(capsys.readouterr().out)
    # the canaries are judged one by one with or without --batch: the same dollars
    assert docs[True]["canaries"]["usd"] == docs[False]["canaries"]["usd"] == CANARIES_LIST
    assert docs[True]["cases"][0]["usd"] == CASE_BATCH
    # the total: 1,083 + 375 = 1,458 and 21,243 + 10,615 = 31,858 / 1e6 (all at the batch price: 26,550.5)
    assert docs[True]["total"]["usd"] == {"min": 0.001458, "max": 0.031858}
    unbatched = docs[True]["prices"]["judge_unbatched"]
    assert unbatched["model"] == "claude-haiku-4-5"
    assert unbatched["price"]["source"] == "bundled price table 2026-11-01: claude-haiku-4-5"
    assert (unbatched["price"]["input_per_mtok"], unbatched["price"]["output_per_mtok"]) == (1, 5)
    assert main(["plan", str(suite), *PLAN_FLAGS, "--batch"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "  canaries: 2 calls · ~375 to 2,423 tokens · $0.0004 to $0.0106 (2 × 1 judge sample, before the " \
        "first draw)" in out  # fmt: skip
    assert out[-1] == (
        "price of the judge claude-haiku-4-5 for the canary and pairwise calls, which are not batched: $1 in, $5 out "
        "per million tokens (bundled price table 2026-11-01: claude-haiku-4-5)"
    )


def test_a_dollar_budget_with_batch_weighs_the_canaries_at_the_list_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = plan_suite_file(tmp_path)
    # $0.008 lies between the canaries' worst case at the batch price ($0.0053075) and at the list price
    # ($0.010615): the canaries alone do not fit, so the run is refused before any call, and the plan alike
    refusal = (
        "driftproof: error: --budget-usd: the 2 judge-anchor canaries × 1 judge samples need up to 2,423 tokens "
        "($0.0106) at their worst case (each judge sample its prompt + 1024 output tokens), judged before the first "
        "draw; the budget is $0.0080: raise --budget-usd, or skip the canaries with --no-canaries\n"
    )
    assert main(["plan", str(suite), *PLAN_FLAGS, "--batch", "--budget-usd", "0.008"]) == 2
    assert capsys.readouterr().err == refusal
    with FakeLLMServer(responder) as server:
        request = RunRequest(suite=suite, provider=Provider.ANTHROPIC, model="claude-sonnet-4-6", judge_model=JUDGE,
                             environ=env_for(server), batch=True, judge_samples=1, max_tokens=100, draws=3,
                             max_draws=3, budget_usd=0.008)  # fmt: skip
        with pytest.raises(InputError) as caught:
            run_suite(request)
        assert server.requests == []
    assert f"driftproof: error: {caught.value}\n" == refusal


def test_a_batch_run_under_a_dollar_budget_commits_pairs_and_canaries_at_the_list_price(tmp_path: Path) -> None:
    suite = plan_suite_file(tmp_path)
    with FakeLLMServer(with_pairs(responder, f"{JUDGE}-20251001")) as server:
        request = RunRequest(suite=suite, provider=Provider.ANTHROPIC, model="claude-sonnet-4-6", judge_model=JUDGE,
                             environ=env_for(server), batch=True, judge_samples=1, max_tokens=100, draws=3,
                             max_draws=3, budget_usd=1.0, judge_mode=JudgeMode.PAIRWISE)  # fmt: skip
        outcome = run_suite(request)
    report = plan_for(request)
    # every draw ran (3 per arm, none lost), so the run committed the plan's worst case:
    # the draws at the batch price 21,243 / 1e6; each with-skill draw's pair at the list price: 2 calls ×
    # (pairwise template 197 + 2 answers × 100) = 794 in, 2 × 1,024 = 2,048 out -> 794 + 10,240 = 11,034, × 3 draws
    # = 33,102; the canaries at the list price 10,615 -> 21,243 + 33,102 + 10,615 = 64,960 / 1e6
    # (all at the batch price: 21,243 + 16,551 + 5,307.5 = 43,101.5 / 1e6)
    budget = outcome.receipt.run.settings.budget
    assert budget is not None and outcome.receipt.economics.judge_overhead.pairwise_calls == 6
    assert budget.committed_usd == pytest.approx(0.06496, abs=1e-12)
    assert report.plan.total.usd.high == pytest.approx(0.06496, abs=1e-12)
    assert plan_text(report, "text").splitlines()[-2:] == [
        "price of the judge claude-haiku-4-5 for the canary and pairwise calls, which are not batched: $1 in, $5 out "
        "per million tokens (bundled price table 2026-11-01: claude-haiku-4-5)",
        "budget: $1.00: the worst case of the run fits",
    ]
