"""Resume after the canaries and in the pairwise pass (issue 15): their calls are journaled as they come back, so a
resumed run asks only for the ones missing, and its receipt equals an uninterrupted run's.

Every run here is one case on the stub lane, 3 draws per arm, 2 judge samples per draw, ``--concurrency 1`` (the
pool runs calls in submission order): 6 answers and 12 judge calls. With the suite's 2 canaries, their 2 × 2 = 4
samples come first; with ``--judge-mode pairwise``, 3 pairs × 2 orders = 6 pairwise calls come last.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import driftproof.run as rs
from driftproof.errors import RunInterrupted
from driftproof.lanes.base import GenerationRequest
from driftproof.run import RunOutcome, RunRequest, run_suite
from tests.integration.test_resume_journal import Call, Hook, Recording, interrupt_at

CANARIES = [
    {"id": "good", "case": "a", "answer": "a, well written", "expected": 0.9},
    {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": "hi", "expected": 1.0},
]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    body = {
        "skill": "SKILL.md",
        "cases": [{"id": "a", "prompt": "Write a.", "rubric": "Good a."}],
        "canaries": CANARIES,
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return tmp_path / "suite.yaml"


def run(
    suite: Path, monkeypatch: pytest.MonkeyPatch, hook: Hook | None = None, **kw: Any
) -> tuple[list[Call], RunOutcome]:
    calls: list[Call] = []
    lanes = (Recording(calls, hook, 1), Recording(calls, hook, 1), "stub-judge")
    monkeypatch.setattr(rs, "make_lanes", lambda _req: lanes)
    base: dict[str, Any] = {"draws": 3, "max_draws": 3, "judge_samples": 2, "concurrency": 1}
    request = RunRequest(suite=suite, provider="stub", out=suite.parent / "r.json", **{**base, **kw})
    return calls, run_suite(request)


def kinds(suite: Path) -> list[str]:
    lines = (suite.parent / "r.json.journal").read_text().splitlines()
    return [json.loads(line).get("kind", "header") for line in lines]


def test_a_run_stopped_after_the_canaries_resumes_without_judging_them_again(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # calls 1-4 are the canary samples, 5-10 the answers, 11-13 judge calls: Ctrl-C during call 13
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, interrupt_at(13))
    assert kinds(suite).count("canary") == 4
    calls, resumed = run(suite, monkeypatch, resume=True)
    assert [c for c in calls if c[1] == "canary"] == []  # the 4 canary samples are kept, none asked again
    assert len(calls) == 10  # 12 judge calls less the 2 journaled (calls 11 and 12)
    _, whole = run(suite, monkeypatch)
    assert resumed.receipt.canaries == whole.receipt.canaries
    assert resumed.receipt.cases == whole.receipt.cases
    canaried = resumed.receipt.economics.judge_overhead.canaries
    assert canaried is not None and canaried.judge_calls == 4  # 2 canaries × 2 samples, counted once
    assert canaried == whole.receipt.economics.judge_overhead.canaries
    # the draws' calls: 6 answers + 12 judge calls = 18, each 1 endpoint attempt, over both runs
    assert (resumed.receipt.run.logical_calls, resumed.receipt.run.endpoint_attempts) == (18, 18)
    assert (whole.receipt.run.logical_calls, whole.receipt.run.endpoint_attempts) == (18, 18)


def test_a_run_stopped_in_the_pairwise_pass_resumes_asking_only_the_missing_calls(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no canaries: 6 answers + 12 judge calls, then the pairwise calls 19-24: Ctrl-C during call 21, the 3rd
    # (pair 1, with-skill as A); pair 0's two calls are journaled
    with pytest.raises(RunInterrupted, match="the calls that came back are kept in"):
        run(suite, monkeypatch, interrupt_at(21), canaries=False, judge_mode="pairwise")
    assert kinds(suite).count("pairwise") == 2
    calls, resumed = run(suite, monkeypatch, canaries=False, judge_mode="pairwise", resume=True)
    asked = [(c[1], c[2], c[3]) for c in calls]
    assert asked == [("pairwise", 1, 0), ("pairwise", 1, 1), ("pairwise", 2, 0), ("pairwise", 2, 1)]
    _, whole = run(suite, monkeypatch, canaries=False, judge_mode="pairwise")
    assert resumed.receipt.cases == whole.receipt.cases  # scores, draws and the pairwise results alike
    assert resumed.receipt.cases[0].pairwise is not None and len(resumed.receipt.cases[0].pairwise) == 3
    # 18 draw calls + 6 pairwise calls, each 1 endpoint attempt, in both
    assert (resumed.receipt.run.logical_calls, resumed.receipt.run.endpoint_attempts) == (24, 24)
    assert (whole.receipt.run.logical_calls, whole.receipt.run.endpoint_attempts) == (24, 24)


def test_a_failed_pairwise_call_is_asked_again_on_resume(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pair 0's swapped call (call 20) fails, then Ctrl-C during call 21: on resume pair 0's call 1 is asked again
    def hook(request: GenerationRequest, n: int) -> Any:
        if n == 20:
            from tests.integration.test_resume_journal import CONNECTION_REFUSED

            return CONNECTION_REFUSED
        return interrupt_at(21)(request, n)

    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, hook, canaries=False, judge_mode="pairwise")
    calls, resumed = run(suite, monkeypatch, canaries=False, judge_mode="pairwise", resume=True)
    assert [(c[2], c[3]) for c in calls] == [(0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    # the failed call and the call asking it again are one logical call: 18 + 6 pairwise calls = 24; the failed
    # call's attempt was made all the same: 18 + 2 journaled + 5 on resume = 25 endpoint attempts
    assert (resumed.receipt.run.logical_calls, resumed.receipt.run.endpoint_attempts) == (24, 25)
    assert resumed.receipt.economics.judge_overhead.pairwise_calls == 6
    assert all(c.returned for r in resumed.receipt.cases[0].pairwise or [] for c in r.calls)
