"""``--budget`` with judge-anchor canaries and pairwise judging (issue 14 × issue 15) on the stub lane: every call
the run starts is counted at its worst case, the canaries' before they are judged, a pair's with its with-skill
draw; canaries that alone pass the budget refuse the run before any call; the progress total counts every call."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof.cli import main
from driftproof.core.economics import estimate_tokens
from driftproof.judge import judge_prompt
from driftproof.judge_pairwise import pairwise_parts
from driftproof.lanes.base import Generation, GenerationRequest
from driftproof.lanes.stub import StubLane
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite
from driftproof.suite import load_suite

PROMPT = "p" * 40  # 10 tokens
SKILL = "s" * 400  # 100 tokens
CANARIES = [
    {"id": "good", "case": "a", "answer": "g" * 80, "expected": 1.0},
    {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": "hi", "expected": 1.0},
]


def make_suite(d: Path) -> Path:
    (d / "SKILL.md").write_text(SKILL, encoding="utf-8")
    suite = {"name": "b", "skill": "SKILL.md", "cases": [{"id": "a", "prompt": PROMPT, "rubric": "Good."}],
             "canaries": CANARIES}  # fmt: skip
    (d / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    return d / "suite.yaml"


class Worst:
    """Each worst case with --max-tokens 100, one judge sample, the judge's ceiling 1024."""

    def __init__(self, suite: Path) -> None:
        loaded = load_suite(suite)
        case = loaded.cases[0]
        judge = estimate_tokens(judge_prompt(case, "")) + 100 + 1024  # template, the answer at --max-tokens, ceiling
        self.with_skill = 10 + 100 + 100 + judge  # prompt, skill, --max-tokens; one judge sample
        self.baseline = 10 + 100 + judge
        # a pair's two calls: the template with both answers (each at most 100) + 1024 each
        self.pair = 2 * (estimate_tokens(pairwise_parts(case, "", "").text) + 2 * 100 + 1024)
        # each canary once (one judge sample): its judge prompt + 1024
        self.canaries = sum(estimate_tokens(judge_prompt(c.grading, c.answer)) + 1024 for c in loaded.canaries)


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[GenerationRequest]]:
    """Every request the stub lanes (answering and judging) receive, in order."""
    seen: list[GenerationRequest] = []
    generate = StubLane.generate

    def spy(self: StubLane, request: GenerationRequest) -> Generation:
        seen.append(request)
        return generate(self, request)

    monkeypatch.setattr(StubLane, "generate", spy)
    yield seen


def request_worst(r: GenerationRequest) -> int:
    """A request's worst case as it was sent: its texts' estimate + its output ceiling, per sample asked for."""
    return (estimate_tokens(r.system) + estimate_tokens(r.prompt) + r.max_tokens) * r.samples


def run_args(suite: Path, out: Path, *extra: str) -> list[str]:
    return ["run", str(suite), "--provider", "stub", "-o", str(out), "--judge-samples", "1", "--max-tokens", "100",
            "--draws", "3", "--max-draws", "3", *extra]  # fmt: skip


def test_the_plan_prices_the_canaries_apart_and_in_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = make_suite(tmp_path)
    w = Worst(suite)
    assert main(["plan", *run_args(suite, tmp_path / "r.json")[1:], "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # 2 canaries × 1 judge sample; the case: 2 arms × 3 draws × (1 + 1) = 12 calls
    assert doc["canaries"]["calls"] == {"min": 2, "max": 2} and doc["canaries"]["tokens"]["max"] == w.canaries
    assert doc["total"]["calls"] == {"min": 14, "max": 14}
    assert doc["total"]["tokens"]["max"] == 3 * (w.with_skill + w.baseline) + w.canaries
    assert main(["plan", *run_args(suite, tmp_path / "r.json")[1:], "--no-canaries", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["canaries"] is None


def test_canaries_that_alone_pass_the_budget_refuse_the_run_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[GenerationRequest]
) -> None:
    suite = make_suite(tmp_path)
    w = Worst(suite)
    out = tmp_path / "r.json"
    assert main(run_args(suite, out, "--budget", str(w.canaries - 1))) == 2
    err = capsys.readouterr().err
    assert err == (
        f"driftproof: error: --budget: the 2 judge-anchor canaries × 1 judge samples need up to {w.canaries:,} tokens "
        "at their worst case (each judge sample its prompt + 1024 output tokens), judged before the first draw; the "
        f"budget is {w.canaries - 1:,} tokens: raise --budget, or skip the canaries with --no-canaries\n"
    )
    assert calls == []  # no model call
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SKILL.md", "suite.yaml"]  # nothing written
    assert main(["plan", *run_args(suite, out, "--budget", str(w.canaries - 1))[1:]]) == 2  # plan refuses alike
    assert capsys.readouterr().err == err


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_budget_that_cannot_start_one_draw_beside_the_canaries_is_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[GenerationRequest], command: str
) -> None:
    """Issue 14 (probe #6): the canaries fit, then no draw did: the run spent the canary calls and wrote a TESTED
    receipt of 0 draws. It is refused before any call, naming the least the budget needs: the canaries + one
    with-skill draw (the first a round starts)."""
    suite = make_suite(tmp_path)
    w = Worst(suite)
    out = tmp_path / "r.json"
    least = w.canaries + w.with_skill
    assert main([command, *run_args(suite, out, "--budget", str(least - 1))[1:]]) == 2
    assert capsys.readouterr().err == (
        f"driftproof: error: --budget: the budget ({least - 1:,} tokens) cannot start a single draw, so the run "
        f"would make no call: the least a draw needs is {w.with_skill:,} tokens at its worst case (case a's "
        f"with-skill answer and its 1 judge sample), beside the {w.canaries:,} tokens the judge-anchor canaries are "
        f"reserved; raise --budget to at least {least:,} tokens\n"
    )
    assert calls == []  # no model call
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SKILL.md", "suite.yaml"]  # nothing written
    assert main([command, *run_args(suite, out, "--budget", str(least))[1:]]) == 0  # one draw fits: it runs


def test_the_canaries_are_reserved_first_and_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: list[GenerationRequest]
) -> None:
    suite = make_suite(tmp_path)
    w = Worst(suite)
    # the canaries, then draws in turn (with, baseline, with, ...): 2 with + 2 baseline fit, the third with does not
    budget = w.canaries + 2 * (w.with_skill + w.baseline)
    assert main(run_args(suite, tmp_path / "r.json", "--budget", str(budget))) == 0
    receipt = load_receipt(tmp_path / "r.json")
    record = receipt.run.settings.budget
    assert record is not None and record.canaries_tokens == w.canaries
    assert (len(receipt.cases[0].with_skill.draws), len(receipt.cases[0].baseline.draws)) == (2, 2)
    assert record.committed_tokens == budget
    assert record.needed_tokens == w.canaries + 3 * (w.with_skill + w.baseline)
    assert [c.arm for c in calls[:2]] == ["canary", "canary"]  # judged before the first draw
    assert sum(request_worst(c) for c in calls) <= budget
    # progress: 4 draws × (1 answer + 1 judge sample) = 8 logical calls, + 2 canary judge calls
    assert receipt.run.logical_calls == 8
    assert "done: 10/10 calls" in capsys.readouterr().err


def test_a_pairs_worst_case_is_reserved_with_its_with_skill_draw(
    tmp_path: Path, calls: list[GenerationRequest]
) -> None:
    suite = make_suite(tmp_path)
    w = Worst(suite)
    # canaries + with (and its pair) + baseline + with (and its pair) fits; the second baseline does not
    budget = w.canaries + 2 * (w.with_skill + w.pair) + w.baseline
    assert main(run_args(suite, tmp_path / "r.json", "--budget", str(budget), "--judge-mode", "pairwise")) == 0
    receipt = load_receipt(tmp_path / "r.json")
    case = receipt.cases[0]
    assert (len(case.with_skill.draws), len(case.baseline.draws)) == (2, 1)
    record = receipt.run.settings.budget
    assert record is not None and record.committed_tokens == budget
    # one pair (draw 0 of each arm): 2 pairwise calls, each within the share reserved for it
    assert receipt.economics.judge_overhead.pairwise_calls == 2
    pairwise = [c for c in calls if c.arm == "pairwise"]
    assert len(pairwise) == 2 and sum(request_worst(c) for c in pairwise) <= w.pair
    assert sum(request_worst(c) for c in calls) <= budget


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(min_value=0.0, max_value=1.2), max_draws=st.integers(3, 5), pairwise=st.booleans())
def test_property_no_call_takes_a_run_with_canaries_and_pairs_past_its_budget(
    calls: list[GenerationRequest], fraction: float, max_draws: int, pairwise: bool
) -> None:
    """Every call the run started, at the worst case it was sent with, adds up to no more than the committed tokens,
    which never pass the budget; the committed tokens are the canaries' and each draw's (a pair with its
    with-skill draw) worst cases, exactly."""
    with tempfile.TemporaryDirectory() as d:
        suite = make_suite(Path(d))
        w = Worst(suite)
        with_share = w.with_skill + (w.pair if pairwise else 0)
        # below the canaries and one with-skill draw, the run is refused before any call (a test of its own)
        budget = w.canaries + max(with_share, int(fraction * max_draws * (with_share + w.baseline)))
        calls.clear()
        request = RunRequest(suite=suite, provider="stub", out=Path(d) / "r.json", judge_samples=1, max_tokens=100,
                             draws=3, max_draws=max_draws, budget=budget,
                             judge_mode="pairwise" if pairwise else "absolute")  # fmt: skip
        with (Path(d) / "log").open("w", encoding="utf-8") as log:
            receipt = run_suite(request, progress_stream=log).receipt
        case = receipt.cases[0]
        record = receipt.run.settings.budget
        assert record is not None and record.canaries_tokens == w.canaries
        reserved = w.canaries + len(case.with_skill.draws) * with_share + len(case.baseline.draws) * w.baseline
        assert reserved == record.committed_tokens <= budget
        assert sum(request_worst(c) for c in calls) <= record.committed_tokens
