"""A retried call of the passes outside the draws (the pairwise pass, the judge-anchor canaries) is one logical call
and as many endpoint attempts as requests were made for it: when the lane retries it within a run, and when its
attempts all failed and ``--resume`` asks it again.

Every run here is one case on the anthropic SDK against the loopback server, 2 draws per arm, 2 judge samples per
draw, ``--concurrency 1``, ``--max-retries 1`` (a call is at most 2 requests within a run): 4 answers and 8 judge
samples, 12 requests when nothing fails. With ``--judge-mode pairwise``, 2 pairs × 2 orders = 4 pairwise calls
come last; with the one canary below, its 2 judge samples come first (counted apart from the run's calls).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

import driftproof.run as rs
from driftproof.core.pairwise import PAIRWISE_ARM
from driftproof.errors import RunInterrupted
from driftproof.lanes.base import Generation, GenerationRequest
from driftproof.run import RunOutcome, RunRequest, run_suite
from tests.integration.test_pairwise_runs import JUDGE, KEY, SKILL, responder
from tests.support.fake_llm_script import FakeReply, RecordedRequest
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, FakeLLMServer

CANARY_ANSWER = "hi, from the canary"
"""The canary's answer: its judge requests are the ones whose prompt holds it."""

Kind = Callable[[RecordedRequest], bool]


def pairwise(req: RecordedRequest) -> bool:
    return "<<<ANSWER_A" in req.prompt_text


def canary(req: RecordedRequest) -> bool:
    return CANARY_ANSWER in req.prompt_text


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text(SKILL, encoding="utf-8")
    body = {
        "skill": "SKILL.md",
        "cases": [{"id": "a", "prompt": "Task a.", "rubric": "feat wins"}],
        "canaries": [
            {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": CANARY_ANSWER, "expected": 0.4}
        ],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return tmp_path / "suite.yaml"


def failing(server: FakeLLMServer, kind: Kind, numbers: set[int], failure: FakeReply) -> None:
    """The server answers the requests of ``kind`` numbered ``numbers`` (1-based, over every run against it) with
    ``failure``, and everything else as `responder` does."""
    seen = {"n": 0}

    def reply(req: RecordedRequest) -> FakeReply:
        if kind(req):
            seen["n"] += 1
            if seen["n"] in numbers:
                return failure
        return responder(req)

    server.responder = reply


def ctrl_c_at(monkeypatch: pytest.MonkeyPatch, stop: Callable[[GenerationRequest], bool]) -> None:
    """Build the run's real lanes, then press Ctrl-C (in the worker, before any request) at every call ``stop``
    names, as the user would in the middle of the run."""
    real = rs.make_lanes

    def make(request: RunRequest) -> Any:
        lane, judge, model = real(request)
        for built in (lane, judge):
            generate = built.generate

            def guarded(req: GenerationRequest, generate: Callable[[GenerationRequest], Generation] = generate) -> Any:
                if stop(req):
                    raise KeyboardInterrupt
                return generate(req)

            monkeypatch.setattr(built, "generate", guarded)
        return lane, judge, model

    monkeypatch.setattr(rs, "make_lanes", make)


def run(server: FakeLLMServer, suite: Path, **kw: Any) -> RunOutcome:
    request = RunRequest(
        suite=suite,
        provider="anthropic",
        model="claude-sonnet-4-5",
        judge_model=JUDGE,
        draws=2,
        max_draws=2,
        judge_samples=2,
        concurrency=1,
        max_retries=1,
        out=suite.parent / "r.json",
        environ={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url},
        **kw,
    )
    return run_suite(request)


ERRORS = [
    pytest.param(FakeReply.error(500, retry_after=0), id="500"),
    pytest.param(FakeReply.error(429, retry_after=0), id="429"),
    pytest.param(FakeReply.dropped(), id="dropped"),
]


@pytest.mark.parametrize("failure", ERRORS)
def test_a_pairwise_call_retried_within_the_run_is_one_logical_call(suite: Path, failure: FakeReply) -> None:
    with FakeLLMServer(responder) as server:
        failing(server, pairwise, {1}, failure)  # the first pairwise request fails; its retry succeeds
        outcome = run(server, suite, judge_mode="pairwise", canaries=False)
        requests = len(server.requests_to(ANTHROPIC_MESSAGES))
    r = outcome.receipt
    # logical: 4 answers + 8 judge samples + 4 pairwise calls = 16; attempts: 16 + the 1 retry = 17, the requests
    assert (r.run.logical_calls, r.run.endpoint_attempts, requests) == (16, 17, 17)
    assert r.economics.judge_overhead.pairwise_calls == 4
    assert r.pairwise_summary is not None and r.pairwise_summary.complete == 2


def test_a_failed_pairwise_call_asked_again_on_resume_is_one_logical_call(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(responder) as server:
        # pairwise requests 1 and 2 (the first call and its retry: both 500) and 3 (its first request again, on
        # resume) fail; request 4 succeeds
        failing(server, pairwise, {1, 2, 3}, FakeReply.error(500, retry_after=0))
        asked = {"n": 0}

        def second_pairwise_call(req: GenerationRequest) -> bool:  # and every call after it
            if req.arm == PAIRWISE_ARM:
                asked["n"] += 1
            return asked["n"] >= 2

        ctrl_c_at(monkeypatch, second_pairwise_call)  # the first call is journaled, failed, with 2 attempts
        with pytest.raises(RunInterrupted):
            run(server, suite, judge_mode="pairwise", canaries=False)
        monkeypatch.undo()  # the resumed run: no Ctrl-C
        outcome = run(server, suite, judge_mode="pairwise", canaries=False, resume=True)
        requests = len(server.requests_to(ANTHROPIC_MESSAGES))
    r = outcome.receipt
    # the stopped run: 4 answers + 8 judge samples = 12 calls of 1 request each, and pairwise call (pair 0, with
    # skill as A) failed after 2 requests; on resume that call is asked again (2 requests: a 500, then a reply)
    # and the 3 others once each. Logical calls: 12 + 4 pairwise calls = 16, the failed call and the call that
    # asked it again being one; endpoint attempts: 12 + 2 + 2 + 3 = 19, every request the server saw
    assert (r.run.logical_calls, r.run.endpoint_attempts, requests) == (16, 19, 19)
    assert r.economics.judge_overhead.pairwise_calls == 4  # two per draw pair
    assert r.pairwise_summary is not None and r.pairwise_summary.complete == 2
    assert all(c.returned for p in r.cases[0].pairwise or [] for c in p.calls)


def test_a_canary_sample_retried_within_the_run_is_one_judge_call(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        failing(server, canary, {1}, FakeReply.error(500, retry_after=0))  # sample 0's first request fails
        outcome = run(server, suite)
        requests = server.requests_to(ANTHROPIC_MESSAGES)
    r = outcome.receipt
    overhead = r.economics.judge_overhead.canaries
    # the canary's 2 samples are 2 judge calls, 3 requests (sample 0 retried once), apart from the run's 12
    assert overhead is not None and overhead.judge_calls == 2
    assert (sum(canary(q) for q in requests), len(requests)) == (3, 15)
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (12, 12)
    # usage of the 2 replies only (the 500 reports none): 2 × 200 in, 2 × 20 out
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (400, 40)


def test_a_failed_canary_sample_asked_again_on_resume_is_one_judge_call(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(responder) as server:
        # canary requests 1 and 2 (sample 0 and its retry) fail, so does 4 (sample 0's first request on resume);
        # 3 (sample 1) and 5 succeed
        failing(server, canary, {1, 2, 4}, FakeReply.error(500, retry_after=0))
        ctrl_c_at(monkeypatch, lambda req: req.purpose == "answer")  # Ctrl-C at the first answer
        with pytest.raises(RunInterrupted):
            run(server, suite)
        monkeypatch.undo()  # the resumed run: no Ctrl-C
        outcome = run(server, suite, resume=True)
        requests = server.requests_to(ANTHROPIC_MESSAGES)
    r = outcome.receipt
    overhead = r.economics.judge_overhead.canaries
    # the canary's 2 samples are 2 judge calls, however many requests: 2 + 1 in the stopped run, 2 on resume
    assert overhead is not None and overhead.judge_calls == 2
    assert sum(canary(q) for q in requests) == 5
    assert r.canaries is not None and r.canaries.canaries[0].scores == [0.4, 0.4]
    # usage of the 2 replies only: 2 × 200 in, 2 × 20 out; the run's own calls: 4 answers + 8 samples
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (400, 40)
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (12, 12)
