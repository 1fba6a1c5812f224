"""Issue 14: the draws of one arm of one case that a round asks for go in one Chat Completions request (``n``).

Whole runs through the real openai SDK against the loopback server, which answers ``n`` with n choices (or,
``honours_n=False``, with one). Each draw stays its own logical call: its own answer, journal entry, identity
evidence and judge samples; the request's attempts and usage are its first draw's (`Draw.request_draws`).
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

import driftproof.run as rs
from driftproof import batch_runner, runner
from driftproof.cli import main
from driftproof.core.economics import cost, estimate_tokens
from driftproof.core.models import Draw, Receipt
from driftproof.core.reading import read_receipt
from driftproof.errors import RunInterrupted, RunStopped
from driftproof.judge import judge_prompt
from driftproof.lanes.base import Generation, GenerationRequest, Lane
from driftproof.lanes.openai_api import OpenAIApiLane
from driftproof.prices import price_for
from driftproof.run import RunRequest, run_suite
from driftproof.suite import load_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest
from tests.support.fake_llm_server import OPENAI_CHAT, FakeLLMServer
from tests.support.suites import two_case_suite

MODEL = "gpt-5-mini"
REPORTED = "gpt-5-mini-2025-08-07"
SKILL = "S" * 400  # 400 chars = 100 tokens at ceil(chars / 4)
PROMPTS = {"a": "Task a.", "b": "Task b."}  # 7 chars = 2 tokens


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return two_case_suite(tmp_path, skill=SKILL)  # cases a and b, prompts PROMPTS


def one_case(suite: Path) -> Path:
    """The suite cut to case a."""
    body = yaml.safe_load(suite.read_text(encoding="utf-8"))
    body["cases"] = body["cases"][:1]
    suite.write_text(yaml.safe_dump(body), encoding="utf-8")
    return suite


def is_judge(req: RecordedRequest) -> bool:
    return "<<<ANSWER" in req.prompt_text


def responder(req: RecordedRequest) -> FakeReply:
    """Answers: choice k is 'feat: header k' with the skill, 'plain header k' without (30 in per request, 10 out per
    choice). The judge scores 0.9 a feat answer and 0.4 a plain one (200 in per request, 20 out per choice)."""
    if is_judge(req):
        answer = req.prompt_text.split("<<<ANSWER\n", 1)[1]
        reply = json.dumps({"score": 0.9 if answer.startswith("feat:") else 0.4, "reason": "graded"})
        usage = FakeUsage(input_tokens=200, output_tokens=20 * req.n)
        return FakeReply(choices=(reply,) * req.n, model=REPORTED, usage=usage)
    word = "feat: header" if req.system_text else "plain header"
    texts = tuple(f"{word} {k}" for k in range(req.n))
    return FakeReply(choices=texts, model=REPORTED, usage=FakeUsage(input_tokens=30, output_tokens=10 * req.n))


def env_for(server: FakeLLMServer) -> dict[str, str]:
    return {"OPENAI_API_KEY": "sk-openai-test", "OPENAI_BASE_URL": server.openai_base_url}


def request_of(suite: Path, server: FakeLLMServer, **kw: Any) -> RunRequest:
    """3 draws per arm (all in the first round), 2 judge samples, one call at a time."""
    settings: dict[str, Any] = {
        "draws": 3, "max_draws": 3, "judge_samples": 2, "concurrency": 1, "out": suite.parent / "r.json", **kw
    }  # fmt: skip
    return RunRequest(
        suite=suite,
        provider="openai",
        model=MODEL,
        judge_provider="openai",  # type: ignore[arg-type]
        judge_model=MODEL,
        environ=env_for(server),
        **settings,
    )


def answers_sent(server: FakeLLMServer) -> list[RecordedRequest]:
    return [q for q in server.requests_to(OPENAI_CHAT) if not is_judge(q)]


def arms(r: Receipt) -> list[list[Draw]]:
    return [arm.draws for c in r.cases for arm in (c.with_skill, c.baseline)]


def figures(r: Receipt) -> list[tuple[str, list[float | None], list[float | None]]]:
    return [(c.id, [d.score for d in c.with_skill.draws], [d.score for d in c.baseline.draws]) for c in r.cases]


def test_the_draws_of_an_arms_round_go_in_one_request_each_its_own_logical_call(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(responder) as server:
        r = run_suite(request_of(suite, server)).receipt
        answers = answers_sent(server)
        judged = [q for q in server.requests_to(OPENAI_CHAT) if is_judge(q)]
    # one answer request per case and arm, n 3: 4 requests for 12 draws; the judge one request per draw, n 2
    assert [q.body.get("n") for q in answers] == [3, 3, 3, 3]
    assert [bool(q.system_text) for q in answers] == [True, False, True, False]
    assert len(judged) == 12 and {q.body.get("n") for q in judged} == {2}
    # 12 answers + 24 samples, each a logical call; the endpoint attempts are the requests: 4 + 12
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (36, 16)
    for draws in arms(r):
        assert [d.request_draws for d in draws] == [3, 3, 3]
        # the request's attempts and usage on its first draw only: nothing counted twice
        assert [d.endpoint_attempts for d in draws] == [1, 0, 0]
        assert draws[0].usage is not None and (draws[0].usage.input_tokens, draws[0].usage.output_tokens) == (30, 30)
        assert draws[1].usage is None and draws[2].usage is None
        # each draw its own answer (choice k) and its own two judge samples, one judge request each
        assert len({d.answer_sha256 for d in draws}) == 3
        assert [len(d.judge_samples) for d in draws] == [2, 2, 2]
        assert len({d.judge_samples[0].request_id for d in draws}) == 3
        assert {d.reported_model for d in draws} == {REPORTED}
    # generation usage per arm: 2 requests (one per case) x 30 in, 3 choices x 10 out -> 60 in, 60 out
    gen = r.economics.generation
    assert (gen.with_skill.input_tokens, gen.with_skill.output_tokens) == (60, 60)
    assert (gen.baseline.input_tokens, gen.baseline.output_tokens) == (60, 60)
    # gpt-5-mini, $0.25 in / $2 out per Mtok: 60 x 0.25 + 60 x 2 = 135 -> $0.000135 per arm
    # (one draw per request: 6 x 30 = 180 in, 60 out -> 45 + 120 = 165 -> $0.000165)
    price = price_for(MODEL)
    assert price is not None
    assert cost(gen.with_skill, price) == pytest.approx(0.000135, abs=1e-12)
    # the same scores, verdicts and lift as one draw per request (every lane's samples_per_request 1: as before)
    monkeypatch.setattr(OpenAIApiLane, "samples_per_request", lambda self: 1)
    with FakeLLMServer(responder) as server:
        single = run_suite(request_of(suite, server)).receipt
        assert all("n" not in q.body for q in server.requests_to(OPENAI_CHAT))
    assert (single.run.logical_calls, single.run.endpoint_attempts) == (36, 36)
    assert cost(single.economics.generation.with_skill, price) == pytest.approx(0.000165, abs=1e-12)
    assert all(d.request_draws is None and d.endpoint_attempts == 1 for draws in arms(single) for d in draws)
    assert figures(r) == figures(single)
    ra, rb = read_receipt(r), read_receipt(single)
    assert [c.verdict for c in ra.cases] == [c.verdict for c in rb.cases] == ["improved", "improved"]
    assert ra.lift == pytest.approx(rb.lift, abs=1e-12)
    assert r.verification == single.verification == "TESTED"


def test_a_server_that_ignores_n_gets_the_missing_draws_asked_again(suite: Path) -> None:
    with FakeLLMServer(responder, honours_n=False) as server:
        r = run_suite(request_of(suite, server)).receipt
        answers = answers_sent(server)
    # the 4 arm requests were grouped (n 3) before any reply; the first got one choice, so the lane, having seen n
    # ignored, sends the other 3 without it (one choice each); the 8 draws left out are asked one request each
    assert [q.body.get("n") for q in answers] == [3, None, None, None] + [None] * 8
    # 12 answer requests and 24 judge requests, each one logical call
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (36, 36)
    for draws in arms(r):
        assert [d.index for d in draws] == [0, 1, 2] and all(d.status == "measured" for d in draws)
        assert all(d.request_draws is None and d.endpoint_attempts == 1 and d.usage is not None for d in draws)
    assert [c.verdict for c in read_receipt(r).cases] == ["improved", "improved"]


@pytest.mark.parametrize(
    ("status", "message", "error_type"),
    [
        (500, "Only one completion choice is allowed", "server_error"),  # llama.cpp's server (older builds)
        (400, "Illegal param: only one completion choice is allowed", "invalid_request_error"),  # (newer builds)
    ],
)
def test_a_server_that_refuses_n_is_asked_again_without_it_and_loses_no_draw(
    suite: Path, status: int, message: str, error_type: str
) -> None:
    def refusing(req: RecordedRequest) -> FakeReply:
        if req.n > 1:
            return FakeReply.error(status, message=message, error_type=error_type)
        return responder(req)

    with FakeLLMServer(refusing) as server:
        r = run_suite(request_of(suite, server)).receipt
        sent = server.requests_to(OPENAI_CHAT)
    # Concurrency 1. Answers: the 4 arm requests were grouped (n 3) before any reply; the first is refused and
    # asked again at once without n (2 requests), the other 3 go without n; each got 1 draw, and the 2 left out
    # of each are asked one request apiece: 2 + 3 + 4 x 2 = 13. Judge (its own lane): the first draw's request
    # (n 2) is refused and asked again without n, then its second sample alone: 3; the 11 later draws are grouped
    # after the refusal, one sample a request: 22. 13 + 25 = 38 requests, 2 of them refused.
    assert len(sent) == 38 and sum(q.n > 1 for q in sent) == 2
    assert [q.n > 1 for q in sent if not is_judge(q)][:2] == [True, False]
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (36, 38)
    for draws in arms(r):
        assert [d.index for d in draws] == [0, 1, 2] and all(d.status == "measured" for d in draws)
        assert all(d.request_draws is None for d in draws)
    assert [c.verdict for c in read_receipt(r).cases] == ["improved", "improved"]
    assert r.verification == "TESTED"


def test_an_error_that_is_not_about_n_is_not_asked_again_without_it(suite: Path) -> None:
    def failing(req: RecordedRequest) -> FakeReply:
        return FakeReply.error(400, message="maximum context length exceeded", error_type="invalid_request_error")

    with FakeLLMServer(failing) as server:
        with pytest.raises(RunStopped, match="maximum context length exceeded"):  # every call meets the same 400
            run_suite(request_of(suite, server))
        sent = server.requests_to(OPENAI_CHAT)
    assert sent and all(q.n == 3 for q in sent if not is_judge(q))  # never read as a refusal of n: n kept


def stopped_at_the_budget_after_two_draws_an_arm(r: Receipt, w: int, b: int, usd: float) -> None:
    """The one case drew 2 draws an arm (one request, or one batch line, each), stopped by a budget of exactly
    their worst cases (``w`` with the skill, ``b`` without; ``usd`` in dollars), the third needed beyond it."""
    case = r.cases[0]
    assert (len(case.with_skill.draws), len(case.baseline.draws)) == (2, 2)
    assert case.stop_reason == "stopped at the token budget"
    record = r.run.settings.budget
    assert record is not None and (record.committed_tokens, record.needed_tokens) == (2 * w + 2 * b, 3 * w + 3 * b)
    assert record.committed_usd == pytest.approx(usd, abs=1e-9)
    assert [d.request_draws for d in case.with_skill.draws] == [2, 2]


def worst_cases(suite: Path) -> tuple[int, int]:
    """(with, baseline) worst case of one draw with --max-tokens 100 and one judge sample."""
    template = estimate_tokens(judge_prompt(load_suite(suite).cases[0], ""))
    judge = template + 100 + 1024  # the template, the answer at --max-tokens, the judge's ceiling
    return 2 + 100 + 100 + judge, 2 + 100 + judge


@pytest.mark.parametrize("kind", ["tokens", "usd"])
def test_a_grouped_request_under_a_budget_asks_only_for_the_draws_the_budget_reserved(suite: Path, kind: str) -> None:
    suite = one_case(suite)
    w, b = worst_cases(suite)
    template = w - 2 - 100 - 100 - 100 - 1024
    # draws start in turn (with, baseline, with, baseline): 2w + 2b fits, the third with-skill draw does not.
    # In dollars at gpt-5-mini ($0.25 in, $2 out per Mtok, answering and judging): the 2 + 2 draws' inputs,
    # 2 x 102 + 2 x 2 answer and 4 x (T + 100) judge, at 0.25, and their outputs, 4 x 100 + 4 x 1024, at 2
    usd = ((2 * 102 + 2 * 2 + 4 * (template + 100)) * 0.25 + (4 * 100 + 4 * 1024) * 2) / 1e6
    budget = {"budget": 2 * w + 2 * b} if kind == "tokens" else {"budget_usd": usd + 1e-9}
    with FakeLLMServer(responder) as server:
        r = run_suite(request_of(suite, server, judge_samples=1, max_tokens=100, **budget)).receipt
        answers = answers_sent(server)
    # one request per arm, for the 2 draws reserved: each draw's worst case (its input counted in full, as a
    # server that ignores n would be asked again for it) committed before the request starts
    assert [(bool(q.system_text), q.body.get("n")) for q in answers] == [(True, 2), (False, 2)]
    stopped_at_the_budget_after_two_draws_an_arm(r, w, b, usd)
    assert r.run.logical_calls == 4 * 2  # 4 draws x (1 answer + 1 judge sample)
    assert r.run.endpoint_attempts == 2 + 4  # 2 answer requests, 4 judge requests


def test_plan_counts_a_grouped_requests_input_once_in_its_floor_and_the_run_prints_the_same(
    suite: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = one_case(suite)
    w, b = worst_cases(suite)
    template = estimate_tokens(judge_prompt(load_suite(suite).cases[0], ""))
    flags = ["--provider", "openai", "--model", MODEL, "--judge-provider", "openai", "--judge-model", MODEL,
             "--judge-samples", "2", "--max-tokens", "100", "--draws", "3", "--max-draws", "3"]  # fmt: skip
    assert main(["plan", str(suite), *flags, "--format", "json"]) == 0  # no key: plan builds no lane
    doc = json.loads(capsys.readouterr().out)
    assert doc["total"]["calls"] == {"min": 18, "max": 18}  # 2 arms x 3 draws x (1 + 2): logical calls as before
    # floor: each arm's 3 answers in one request (102 with the skill, 2 without), each draw's 2 samples in one
    # (the template once): 102 + 2 + 6 T; one call per request it was 3 x 102 + 3 x 2 + 12 T
    low = 102 + 2 + 6 * template
    # worst case as before: a server that ignores n is asked again for every draw and sample, one per request
    high = 3 * (w + template + 100 + 1024) + 3 * (b + template + 100 + 1024)
    assert doc["total"]["tokens"] == {"min": low, "max": high}
    # gpt-5-mini $0.25 in per Mtok: the floor is its input alone
    assert doc["total"]["usd"]["min"] == pytest.approx(low * 0.25 / 1e6, abs=1e-12)
    assert main(["plan", str(suite), *flags, "--batch", "--format", "json"]) == 0
    batched = json.loads(capsys.readouterr().out)
    # --batch: the same requests, an arm's draws in one batch line, at the batch price ($0.125 per Mtok)
    assert batched["total"]["tokens"] == {"min": low, "max": high}
    assert batched["total"]["usd"]["min"] == pytest.approx(low * 0.125 / 1e6, abs=1e-12)
    assert main(["plan", str(suite), *flags]) == 0
    planned = capsys.readouterr().out.splitlines()
    with FakeLLMServer(responder) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
        assert main(["run", str(suite), *flags, "-o", str(suite.parent / "r.json")]) == 0
    err = capsys.readouterr().err
    assert planned[0] in err and f"~{low:,} to {high:,} tokens" in err  # the run's plan line reads the same


def wrapped(lanes: tuple[Lane, Lane, str | None], wrap: Any) -> tuple[Lane, Lane, str | None]:
    """The answering lane and the judge of ``make_lanes``, each wrapped."""
    return wrap(lanes[0]), wrap(lanes[1]), lanes[2]


class Interrupting:
    """The run's lanes, Ctrl-C at the first request ``stop`` matches, and at every one after it (none leaves)."""

    def __init__(self, stop: Any) -> None:
        self.stop = stop
        self.lock = threading.Lock()
        self.fired = False

    def wrap(self, lane: Lane) -> Lane:
        real = lane.generate

        def generate(request: GenerationRequest) -> Generation:
            with self.lock:  # once fired, no later call leaves either
                self.fired = self.fired or self.stop(request)
                fire = self.fired
            if fire:
                raise KeyboardInterrupt
            return real(request)

        lane.generate = generate  # type: ignore[method-assign]
        return lane


def interrupted_then_resumed(
    suite: Path, monkeypatch: pytest.MonkeyPatch, stop: Any
) -> tuple[Receipt, list[RecordedRequest], list[dict[str, Any]]]:
    """Run until ``stop``, then resume: the receipt, the requests the resumed run made, the journal it found."""
    real = rs.make_lanes
    interrupting = Interrupting(stop)
    with FakeLLMServer(responder) as server:
        with monkeypatch.context() as patch:
            patch.setattr(rs, "make_lanes", lambda req: wrapped(real(req), interrupting.wrap))
            with pytest.raises(RunInterrupted):
                run_suite(request_of(suite, server))
        journal = [json.loads(line) for line in (suite.parent / "r.json.journal").read_text().splitlines()[1:]]
        before = len(server.requests)
        r = run_suite(request_of(suite, server, resume=True)).receipt
        resumed = server.requests_to(OPENAI_CHAT)
        resumed = [q for q in resumed if q.index >= before]
    return r, resumed, journal


def test_resume_after_ctrl_c_keeps_the_journaled_draws_and_asks_only_for_the_missing_ones(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = one_case(suite)
    # Ctrl-C as the baseline's answer request is about to leave: the with-skill request's 3 answers are journaled
    r, resumed, journal = interrupted_then_resumed(
        suite, monkeypatch, lambda q: q.purpose == "answer" and q.arm == "baseline"
    )
    answered = [(e["arm"], e["index"], e["answer"]["request_draws"]) for e in journal if e["kind"] == "answer"]
    assert answered == [("with_skill", 0, 3), ("with_skill", 1, 3), ("with_skill", 2, 3)]
    # the resumed run asks for the baseline's 3 draws in one request, and for no with-skill answer again
    answers = [q for q in resumed if not is_judge(q)]
    assert [(bool(q.system_text), q.body.get("n")) for q in answers] == [(False, 3)]
    assert len([q for q in resumed if is_judge(q)]) == 6  # every draw's 2 samples in one request
    with_skill, baseline = r.cases[0].with_skill.draws, r.cases[0].baseline.draws
    # the journaled draws as they came back: the request's attempts and usage on draw 0 only
    assert [(d.request_draws, d.endpoint_attempts, d.usage is not None) for d in with_skill] == [
        (3, 1, True),
        (3, 0, False),
        (3, 0, False),
    ]
    assert [d.request_draws for d in baseline] == [3, 3, 3]
    # 6 answers + 12 samples; 2 answer requests (the interrupted one never left) + 6 judge requests
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (18, 8)
    assert r.economics.generation.with_skill.input_tokens == 30 and r.economics.generation.baseline.input_tokens == 30


def test_resume_after_ctrl_c_mid_judging_asks_no_answer_again(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    suite = one_case(suite)
    # Ctrl-C at the first baseline judge request: the with-skill draws are finished, the baseline's answered
    r, resumed, journal = interrupted_then_resumed(
        suite, monkeypatch, lambda q: q.purpose == "judge" and q.arm == "baseline"
    )
    assert Counter(e["kind"] for e in journal) == {"round": 1, "answer": 6, "sample": 6, "draw": 3}
    assert [q for q in resumed if not is_judge(q)] == []
    assert len(resumed) == 3  # the baseline draws' judge requests
    for draws in (r.cases[0].with_skill.draws, r.cases[0].baseline.draws):
        assert [(d.request_draws, d.endpoint_attempts) for d in draws] == [(3, 1), (3, 0), (3, 0)]
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (18, 2 + 6)


def test_a_carried_baseline_is_never_asked_and_the_with_skill_draws_go_in_one_request(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        reference = run_suite(request_of(suite, server, out=suite.parent / "main.json")).receipt
        (suite.parent / "SKILL.md").write_text(SKILL + "\nAlso be brief.\n", encoding="utf-8")  # a skill-only PR
        server.reset()
        r = run_suite(request_of(suite, server, reference=suite.parent / "main.json")).receipt
        answers = answers_sent(server)
    # one request per case, with the skill, for its 3 draws; no baseline answer is asked for
    assert [(bool(q.system_text), q.body.get("n")) for q in answers] == [(True, 3), (True, 3)]
    for case in r.cases:
        assert [d.carried_from for d in case.baseline.draws] == [reference.seal.sha256] * 3
        assert [d.request_draws for d in case.with_skill.draws] == [3, 3, 3]
    # 2 cases x 3 with-skill draws x (1 + 2) = 18 calls; 2 answer requests + 6 judge requests
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (18, 8)
    # the carried draws' usage is not counted again: the with-skill arm's 2 requests only
    assert r.economics.generation.with_skill.input_tokens == 60
    assert r.economics.generation.baseline.input_tokens is None


class UnderWay:
    """Counts the draws under way on the lanes: answers asked for whose judge samples are not all asked for yet."""

    def __init__(self, samples: int) -> None:
        self.samples, self.asked, self.most = samples, Counter[tuple[str, str, int]](), 0
        self.lock = threading.Lock()

    def wrap(self, lane: Lane) -> Lane:
        real = lane.generate

        def generate(request: GenerationRequest) -> Generation:
            with self.lock:
                if request.purpose == "judge":
                    self.asked[(request.case_id, request.arm, request.draw_index)] += request.samples
                else:
                    for i in range(request.draw_index, request.draw_index + request.samples):
                        self.asked[(request.case_id, request.arm, i)] += 0
                self.most = max(self.most, sum(n < self.samples for n in self.asked.values()))
            return real(request)

        lane.generate = generate  # type: ignore[method-assign]
        return lane


@pytest.mark.parametrize(("bound", "most"), [(4, 3), (1000, 12)])
def test_draws_in_flight_bounds_the_draws_under_way_and_keeps_an_arms_draws_in_one_request(
    suite: Path, monkeypatch: pytest.MonkeyPatch, bound: int, most: int
) -> None:
    # 2 cases x 2 arms x 3 draws = 12 draws in 4 requests of 3. One worker (the bound is max(bound, 4 x 1)): with
    # a bound of 4, the second request waits until it fits (3 + 3 > 4); without, all 12 draws are under way at once
    monkeypatch.setattr(runner, "DRAWS_IN_FLIGHT", bound)
    counting = UnderWay(samples=2)
    real = rs.make_lanes
    monkeypatch.setattr(rs, "make_lanes", lambda req: wrapped(real(req), counting.wrap))
    with FakeLLMServer(responder) as server:
        r = run_suite(request_of(suite, server)).receipt
        answers = answers_sent(server)
    assert [q.body.get("n") for q in answers] == [3, 3, 3, 3]
    assert counting.most == most
    assert figures(r) == [(c, [0.9] * 3, [0.4] * 3) for c in PROMPTS]
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (36, 16)


def batch_lines(server: FakeLLMServer) -> list[dict[str, Any]]:
    """Every line of every batch the server was sent, in upload order."""
    files = server.openai_batches.files
    inputs = [b.input_file_id for b in server.openai_batches.batches.values()]
    return [json.loads(line) for f in inputs for line in files[f].decode().splitlines()]


def test_a_batch_run_asks_for_an_arms_draws_in_one_line_as_without_batch(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)
    with FakeLLMServer(responder) as server:
        r = run_suite(request_of(one_case(suite), server, batch=True)).receipt
        lines = batch_lines(server)
    answers = [line for line in lines if line["custom_id"].startswith("answer-")]
    # one line per arm, its custom_id naming the 3 draws (as a judge line names its samples), n 3
    assert [line["custom_id"] for line in answers] == ["answer-0-with_skill-0_1_2", "answer-0-baseline-0_1_2"]
    assert [line["body"]["n"] for line in answers] == [3, 3]
    assert all(d.request_draws == 3 for draws in arms(r) for d in draws)
    # each draw its own answer (choice k) and its own logical call: 6 answers + 12 samples
    assert [len({d.answer_sha256 for d in draws}) for draws in arms(r)] == [3, 3]
    assert r.run.logical_calls == 6 + 12
    # the line billed once: 30 in per arm (one draw per line: 3 x 30)
    assert math.isclose(r.economics.generation.with_skill.input_tokens or 0, 30)


@pytest.mark.parametrize("kind", ["tokens", "usd"])
def test_a_batch_line_under_a_budget_asks_only_for_the_draws_the_budget_reserved(
    suite: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)
    suite = one_case(suite)
    w, b = worst_cases(suite)
    template = w - 2 - 100 - 100 - 100 - 1024
    # as without --batch (2w + 2b fits, a third with-skill draw does not), every dollar at the batch price: half
    # of ((2 x 102 + 2 x 2 + 4 x (T + 100)) x 0.25 + (4 x 100 + 4 x 1024) x 2) / 1e6
    usd = ((2 * 102 + 2 * 2 + 4 * (template + 100)) * 0.25 + (4 * 100 + 4 * 1024) * 2) / 1e6 / 2
    budget = {"budget": 2 * w + 2 * b} if kind == "tokens" else {"budget_usd": usd + 1e-9}
    with FakeLLMServer(responder) as server:
        r = run_suite(request_of(suite, server, judge_samples=1, max_tokens=100, batch=True, **budget)).receipt
        lines = batch_lines(server)
    # one line per arm, for the 2 draws reserved; then one judge line per draw (1 sample, no n)
    assert [(line["custom_id"], line["body"].get("n")) for line in lines] == [
        ("answer-0-with_skill-0_1", 2),
        ("answer-0-baseline-0_1", 2),
        *((f"judge-0-{arm}-{i}-0", None) for arm in ("with_skill", "baseline") for i in (0, 1)),
    ]
    stopped_at_the_budget_after_two_draws_an_arm(r, w, b, usd)
    # 4 draws x (1 answer + 1 judge sample); 2 batches x (upload, create, 2 polls, output)
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8, 2 * 5)
