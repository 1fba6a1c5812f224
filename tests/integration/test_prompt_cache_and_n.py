"""Issue 14: prompt caching on the Anthropic lane, and judge samples in one request (Chat Completions ``n``).

Whole runs through the real SDKs against the loopback server, which reports cache tokens for a repeated prefix as
the real APIs do (``prompt_cache=True``: tokens are ``ceil(chars / 4)``) and answers ``n`` with n choices.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import pytest

from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.judge import RUBRIC_CASE, RUBRIC_INSTRUCTIONS
from driftproof.lanes.openai_api import OpenAIApiLane
from driftproof.run import RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, Responder, json_text_reply
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer
from tests.support.suites import two_case_suite

SKILL = "S" * 400  # 400 chars = 100 tokens at ceil(chars / 4)
PROMPTS = {"a": "Task a.", "b": "Task b."}  # 7 chars each: with the skill, 407 chars = 102 tokens
KEY = "sk-ant-" + "test-0123456789abcdefghijklmnop"  # split so secret scanners skip it


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return two_case_suite(tmp_path, skill=SKILL)  # cases a and b, prompts PROMPTS


def env_for(server: FakeLLMServer) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-openai-test",
        "OPENAI_BASE_URL": server.openai_base_url,
    }


def answer_of(req: RecordedRequest) -> str:
    return req.prompt_text.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]


def anthropic_responder(req: RecordedRequest) -> FakeReply:
    if "<<<ANSWER" in req.prompt_text:
        score = 0.9 if answer_of(req).startswith("feat:") else 0.4
        return json_text_reply({"score": score, "reason": "graded"}, usage=FakeUsage(output_tokens=20))
    text = "feat: add the header" if req.system_text else "Header support"
    return FakeReply(text=text, usage=FakeUsage(output_tokens=10))


def test_anthropic_skill_block_is_cached_on_every_with_skill_request_and_cache_tokens_are_priced(suite: Path) -> None:
    with FakeLLMServer(anthropic_responder, prompt_cache=True) as server:
        request = RunRequest(
            suite=suite,
            provider="anthropic",
            model="claude-sonnet-4-6",
            judge_model="claude-haiku-4-5",
            draws=3,
            max_draws=3,
            judge_samples=2,
            concurrency=1,
            environ=env_for(server),
        )
        r = run_suite(request).receipt
        sent = server.requests_to(ANTHROPIC_MESSAGES)
    answers = [q for q in sent if "<<<ANSWER" not in q.prompt_text]
    judged = [q for q in sent if "<<<ANSWER" in q.prompt_text]
    marked = [{"type": "text", "text": SKILL, "cache_control": {"type": "ephemeral"}}]
    with_skill = [q for q in answers if "system" in q.body]
    assert len(with_skill) == 6 and all(q.body["system"] == marked for q in with_skill)  # every with-skill request
    assert len(answers) - len(with_skill) == 6  # the baseline requests send no system, so nothing marked
    assert all(isinstance(q.body["messages"][0]["content"], str) for q in answers)
    # each judge request: instructions (marked), the case (marked), the answer (not marked)
    for q in judged:
        blocks = q.body["messages"][0]["content"]
        assert ["cache_control" in b for b in blocks] == [True, True, False]
        assert blocks[0]["text"] == RUBRIC_INSTRUCTIONS and blocks[2]["text"].startswith("\nANSWER\n<<<ANSWER\n")
    # the draws' usage: the first with-skill request writes the 100-token skill, the 5 after it read it;
    # each answer has 2 uncached tokens (102 - 100 with the skill; 7 chars = 2 without)
    draws = sorted((d for c in r.cases for d in c.with_skill.draws), key=lambda d: d.usage.cache_write_tokens or 0)
    assert [(d.usage.cache_read_tokens, d.usage.cache_write_tokens) for d in draws] == [(100, 0)] * 5 + [(0, 100)]
    gen = r.economics.generation
    assert (gen.with_skill.input_tokens, gen.with_skill.cache_read_tokens, gen.with_skill.cache_write_tokens) == (
        12,
        500,
        100,
    )
    assert (gen.baseline.input_tokens, gen.baseline.cache_read_tokens, gen.baseline.cache_write_tokens) == (12, 0, 0)
    # the judge: 24 requests, 12 per case. I = the instructions, A / B = a case's part, X = the rest.
    # Writes: I+A once, then (I+B) - I once (I is read from case a's request); reads: I+A 11 times, I+B 11 times,
    # I once. The answer part is uncached input on every request.
    i_tok = tokens(RUBRIC_INSTRUCTIONS)
    ia = {
        cid: tokens(RUBRIC_INSTRUCTIONS + RUBRIC_CASE.format(prompt=p, rubric="feat wins"))
        for cid, p in PROMPTS.items()
    }
    jo = r.economics.judge_overhead
    assert jo.usage.cache_write_tokens == ia["a"] + ia["b"] - i_tok
    assert jo.usage.cache_read_tokens == 11 * ia["a"] + 11 * ia["b"] + i_tok
    full = ["".join(b["text"] for b in q.body["messages"][0]["content"]) for q in judged]
    uncached = sum(tokens(text) for text in full) - 12 * (ia["a"] + ia["b"])
    assert (jo.usage.input_tokens, jo.usage.output_tokens) == (uncached, 24 * 20)
    # claude-haiku-4-5: 1 USD / Mtok in, 5 out, 0.10 cache read, 1.25 cache write
    price = jo.price
    assert price is not None and (price.cache_read_per_mtok, price.cache_write_per_mtok) == (0.1, 1.25)
    dollars = (uncached * 1 + 480 * 5 + jo.usage.cache_read_tokens * 0.1 + jo.usage.cache_write_tokens * 1.25) / 1e6
    assert jo.cost_usd == pytest.approx(dollars, abs=1e-8)
    assert [c.verdict for c in read_receipt(r).cases] == ["improved", "improved"]


def figures(r: Receipt) -> list[tuple[str, list[float | None], list[float | None]]]:
    """Each case's draw scores, per arm."""
    return [(c.id, [d.score for d in c.with_skill.draws], [d.score for d in c.baseline.draws]) for c in r.cases]


def scripted_judge() -> Responder:
    """The judge's scores for one answer text, in order: the k-th sample asked for it gets SCORES[k % 4]."""
    scores = {"feat": [0.9, 0.8, 0.85, 0.95], "plain": [0.4, 0.5, 0.45, 0.35]}
    asked: dict[str, int] = defaultdict(int)

    def respond(req: RecordedRequest) -> FakeReply:
        if "<<<ANSWER" not in req.prompt_text:
            text = "feat: add the header" if req.system_text else "plain header support"
            return FakeReply(text=text, usage=FakeUsage(input_tokens=30, output_tokens=10))
        answer = answer_of(req)
        kind = "feat" if answer.startswith("feat:") else "plain"
        key = req.prompt_text
        first, asked[key] = asked[key], asked[key] + req.n
        texts = tuple(f'{{"score": {scores[kind][(first + k) % 4]}, "reason": "r"}}' for k in range(req.n))
        return FakeReply(
            choices=texts, model="gpt-5-mini-2025-08-07", usage=FakeUsage(input_tokens=200, output_tokens=20)
        )

    return respond


def openai_run(suite: Path) -> tuple[Receipt, list[RecordedRequest]]:
    with FakeLLMServer(scripted_judge()) as server:
        request = RunRequest(
            suite=suite,
            provider="openai",
            model="gpt-5-mini",
            judge_provider="openai",
            judge_model="gpt-5-mini",
            draws=3,
            max_draws=3,
            judge_samples=2,
            concurrency=1,
            environ=env_for(server),
        )
        return run_suite(request).receipt, server.requests_to(OPENAI_CHAT)


def test_n_judge_samples_in_one_request_give_the_receipt_one_request_per_sample_gives(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batched, batched_sent = openai_run(suite)
    monkeypatch.setattr(OpenAIApiLane, "samples_per_request", lambda self: 1)
    single, single_sent = openai_run(suite)
    judge_requests = [q for q in batched_sent if "<<<ANSWER" in q.prompt_text]
    assert len(judge_requests) == 12 and {q.body.get("n") for q in judge_requests} == {2}  # one per draw
    assert all("n" not in q.body for q in single_sent)
    for r in (batched, single):
        # 12 answers + 24 samples, each its own logical call
        assert r.run.logical_calls == 36
    # endpoint attempts are the requests: 4 answer requests (a case's arm's 3 draws in one, n 3) + 12 judge
    # requests, against 12 + 24
    assert (batched.run.endpoint_attempts, single.run.endpoint_attempts) == (16, 36)
    assert len(batched_sent) == 16 and len(single_sent) == 36
    # the same scores, bands, verdicts and lift: with the skill every draw gets (0.9, 0.8), (0.85, 0.95), ...
    assert figures(batched) == figures(single)
    assert figures(batched)[0][1] == pytest.approx([0.85, 0.9, 0.85])  # (0.9+0.8)/2, (0.85+0.95)/2, (0.9+0.8)/2
    ra, rb = read_receipt(batched), read_receipt(single)
    assert [c.verdict for c in ra.cases] == [c.verdict for c in rb.cases] == ["improved", "improved"]
    assert ra.lift == pytest.approx(rb.lift, abs=1e-12)
    # usage once per request: 12 judge requests x (200 in, 20 out) against 24 x
    assert (
        batched.economics.judge_overhead.usage.input_tokens,
        single.economics.judge_overhead.usage.input_tokens,
    ) == (
        2400,
        4800,
    )
    assert batched.economics.judge_overhead.judged_draws_counted == 12
    for draw in (d for c in batched.cases for arm in (c.with_skill, c.baseline) for d in arm.draws):
        first, second = draw.judge_samples
        assert (first.request_samples, second.request_samples) == (2, 2)
        assert first.request_id == second.request_id and first.request_id is not None  # one request
        assert first.usage is not None and second.usage is None  # the request's usage, counted once
        assert first.reported_ids == second.reported_ids == ["gpt-5-mini-2025-08-07"]
    assert all(s.request_samples is None for c in single.cases for d in c.with_skill.draws for s in d.judge_samples)
    assert batched.verification == single.verification == "TESTED"


def test_a_server_that_ignores_n_gets_the_missing_samples_asked_again(suite: Path) -> None:
    with FakeLLMServer(scripted_judge(), honours_n=False) as server:
        request = RunRequest(
            suite=suite,
            provider="openai",
            model="gpt-5-mini",
            judge_provider="openai",
            judge_model="gpt-5-mini",
            draws=3,
            max_draws=3,
            judge_samples=3,
            concurrency=1,
            environ=env_for(server),
        )
        r = run_suite(request).receipt
        sent = server.requests_to(OPENAI_CHAT)
    judged = [q for q in sent if "<<<ANSWER" in q.prompt_text]
    # each draw's first judge request asks n=3 and gets one choice; once the lane saw n ignored it asks for one
    # sample per request, the two missing samples of every draw included (requests already sent asked n=3)
    asked = [q.body.get("n") for q in judged]
    assert set(asked) == {3, None} and asked[0] == 3 and asked.count(3) <= 12
    # 12 draws x 3 samples = 36 judge requests, every sample measured
    assert len(judged) == 36 and r.run.logical_calls == 12 + 36 and r.run.endpoint_attempts == 12 + 36
    assert all(len([s for s in d.judge_samples if s.valid]) == 3 for c in r.cases for d in c.with_skill.draws)
