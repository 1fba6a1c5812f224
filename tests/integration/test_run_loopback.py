"""Whole runs through the real anthropic and openai SDKs against the loopback server.

Arms, draws, judge samples, a lost draw, a 429 then success, and the receipt's numbers checked by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from driftproof.core.reading import read_receipt
from driftproof.run import RunOutcome, RunRequest, run_suite
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, OPENAI_CHAT, FakeLLMServer
from tests.support.suites import SKILL, two_case_suite

JUDGE = "claude-haiku-4-5"
KEY = (
    "sk-ant-" + "test-0123456789abcdefghijklmnop"
)  # a fake key, key-shaped for the redaction checks; split so secret scanners skip it


def responder(req: RecordedRequest) -> FakeReply:
    """Answers: 'feat: ...' with the skill, 'plain ...' without; case b's baseline answers empty on
    its second draw. The judge scores 0.9 a feat answer and 0.4 a plain one (dated judge id)."""
    prompt = req.prompt_text
    if "<<<ANSWER" in prompt:
        answer = prompt.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
        score = 0.9 if answer.startswith("feat:") else 0.4
        return json_text_reply(
            {"score": score, "reason": "graded"},
            model=f"{JUDGE}-20251001",
            usage=FakeUsage(input_tokens=200, output_tokens=20),
        )
    with_skill = SKILL in req.system_text
    text = "feat: add the retry header" if with_skill else "Retry header support for the client"
    return FakeReply(text=text, usage=FakeUsage(input_tokens=50 if with_skill else 30, output_tokens=10))


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return two_case_suite(tmp_path)


def run(suite: Path, server: FakeLLMServer, provider: str, model: str) -> RunOutcome:
    """3 draws per arm, 2 judge samples, one call at a time (a deterministic order), 2 retries."""
    request = RunRequest(
        suite=suite,
        provider=provider,
        model=model,
        judge_model=JUDGE,
        draws=3,
        max_draws=3,
        judge_samples=2,
        concurrency=1,
        environ=env_for(server),
        max_retries=2,
    )
    return run_suite(request)


def env_for(server: FakeLLMServer) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "sk-openai-test",
        "OPENAI_BASE_URL": server.openai_base_url,
    }


def test_anthropic_whole_run_reads_tested_with_hand_checked_numbers(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        # the very first request gets a 429 (retry-after 0); the retry succeeds and both attempts count
        server.queue(ANTHROPIC_MESSAGES, FakeReply.error(429, retry_after=0))
        outcome = run(suite, server, "anthropic", "claude-sonnet-4-6")
        requests = server.requests
    r = outcome.receipt
    assert r.verification == "TESTED" and r.verification_reason is None
    assert r.judge is not None and r.judge.models_reported == [f"{JUDGE}-20251001"]
    # 2 cases x 2 arms x 3 draws = 12 answers, each judged twice = 24 -> 36 logical calls, 37 attempts
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (36, 37)
    assert len(requests) == 37
    answers = [q for q in requests if "<<<ANSWER" not in q.prompt_text]
    # the first request (case a, with the skill, draw 1) was the 429: seven requests carry the skill text
    assert sum(1 for q in answers if q.system_text) == 7 and sum(1 for q in answers if not q.system_text) == 6
    assert all("temperature" not in q.body for q in requests)
    # every draw: with 0.9 (feat), baseline 0.4 -> bands [0.9, 0.9] vs [0.4, 0.4] (sd 0) separate, lift 0.5
    reading = read_receipt(r)
    assert [c.verdict for c in reading.cases] == ["improved", "improved"]
    assert reading.status == "passing" and reading.lift == pytest.approx(0.5, abs=1e-12)
    # skill 56 chars -> 14 tokens; lift per 1k = 0.5 / 0.014
    assert r.skill is not None and r.skill.tokens == 14 and reading.lift_per_1k == pytest.approx(0.5 / 0.014)
    # generation usage per arm: 6 draws x 50 in / 10 out with the skill, 6 x 30 / 10 without
    gen = r.economics.generation
    assert (gen.with_skill.input_tokens, gen.baseline.input_tokens, gen.with_skill.output_tokens) == (300, 180, 60)
    # judge overhead: 12 judged draws, 24 samples x (200 in, 20 out) = 4800 / 480 at 1 / 5 USD per Mtok
    jo = r.economics.judge_overhead
    assert (jo.judged_draws_counted, jo.judged_draws_missing_usage) == (12, 0)
    assert (jo.usage.input_tokens, jo.usage.output_tokens) == (4800, 480)
    assert jo.cost_usd == pytest.approx(0.0048 + 0.0024)
    assert r.run.lane.models_reported == ["claude-sonnet-4-6"] and r.run.sampling.get("max_tokens") == 2048
    draws = [d for c in r.cases for arm in (c.with_skill, c.baseline) for d in arm.draws]
    assert len(draws) == 12 and {d.model_source for d in draws} == {"reported"}  # every reply named its model
    assert KEY not in outcome.path.read_text(encoding="utf-8")


def test_openai_lane_with_a_lost_draw(suite: Path) -> None:
    def openai_then_judge(req: RecordedRequest) -> FakeReply:
        if req.path.endswith("/chat/completions") and not req.system_text and "Task b." in req.prompt_text:
            return FakeReply(text="")  # case b's baseline answers nothing: lost, never judged
        return responder(req)

    with FakeLLMServer(openai_then_judge) as server:
        server.queue(OPENAI_CHAT, FakeReply.error(500))  # one 5xx, retried
        outcome = run(suite, server, "openai", "gpt-5-mini")
    r = outcome.receipt
    b_base = r.cases[1].baseline.draws
    assert [d.status for d in b_base] == ["lost", "lost", "lost"] and b_base[0].lost_reason == "no answer"
    assert {d.model_source for d in b_base} == {"reported"}  # an empty reply still named its model
    # 12 answers + 9 judged draws x 2 samples = 30 logical calls; the attempts: the 12 answers in 4 requests (one
    # per case and arm, n 3), 18 judge requests (the Anthropic judge asks one sample each), and the retried 500
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (30, 4 + 18 + 1)
    assert [d.endpoint_attempts for d in r.cases[0].with_skill.draws] == [2, 0, 0]  # the 500 and its retry
    assert r.run.lane.provider == "openai" and r.run.lane.models_reported == ["gpt-5-mini"]
    reading = read_receipt(r)
    # case b: baseline has no measured draw -> underpowered; lift uses case a only: 0.9 - 0.4
    assert [c.verdict for c in reading.cases] == ["improved", "underpowered"]
    assert reading.lift == pytest.approx(0.5) and reading.status == "passing"


def test_each_judge_sample_seals_its_reported_ids_serving_id_and_request_id_apart(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: the evidence per sample, the judge's tool version, isolation and routing, no proxy password."""
    monkeypatch.setenv("HTTPS_PROXY", "http://alice:pr0xy-pa55@proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")  # the loopback server is reached directly
    with FakeLLMServer(responder) as server:
        outcome = run(suite, server, "anthropic", "claude-sonnet-4-6")
    r = outcome.receipt
    samples = [s for c in r.cases for arm in (c.with_skill, c.baseline) for d in arm.draws for s in d.judge_samples]
    assert len(samples) == 24  # 12 draws x 2 samples
    for s in samples:
        assert s.reported_ids == [f"{JUDGE}-20251001"] and s.serving_id == f"{JUDGE}-20251001"  # dates kept
        assert s.request_id is not None and s.request_id.startswith("req_") and s.evidence_refused is None
    assert len({s.request_id for s in samples}) == 24  # one request each, never a model id
    assert r.verification == "TESTED"
    import anthropic

    assert r.judge is not None and r.judge.tool_version == f"anthropic {anthropic.__version__}"
    assert r.judge.isolation == "none needed: an HTTP API call through the SDK, nothing runs on this machine"
    assert r.judge.routing == {"HTTPS_PROXY": "http://proxy.invalid:3128", "NO_PROXY": "127.0.0.1,localhost"}
    assert "pr0xy-pa55" not in outcome.path.read_text(encoding="utf-8")


def test_a_judge_answering_as_another_model_leaves_the_receipt_unverified_with_the_reason(suite: Path) -> None:
    def other_judge(req: RecordedRequest) -> FakeReply:
        reply = responder(req)
        if "<<<ANSWER" in req.prompt_text:
            return json_text_reply({"score": 0.9, "reason": "graded"}, model="claude-opus-5-20990101")
        return reply

    with FakeLLMServer(other_judge) as server:
        r = run(suite, server, "anthropic", "claude-sonnet-4-6").receipt
    assert r.verification == "UNVERIFIED"
    assert r.verification_reason == (
        f"a judge reply named 'claude-opus-5-20990101' as serving it, not the requested '{JUDGE}'"
    )
    assert r.judge is not None and r.judge.models_reported == ["claude-opus-5-20990101"]
