"""``--batch`` on the OpenAI API lane against the loopback fake of the Files and Batch APIs: counts checked by hand."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from driftproof import batch_runner
from driftproof.batch_runner import BatchRunner
from driftproof.core.reading import read_receipt
from driftproof.errors import RunStopped
from driftproof.run import RunOutcome, RunRequest, run_suite
from driftproof.runner import ARMS
from tests.integration.test_run_loopback import SKILL, env_for
from tests.integration.test_run_loopback import suite as suite  # the fixture
from tests.support.batch_resume import cancel_then_resume
from tests.support.fake_llm_script import FakeReply, FakeUsage, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import OPENAI_CHAT, FakeLLMServer
from tests.support.fake_message_batches import BATCHES
from tests.support.fake_openai_batches import FILES, OPENAI_BATCHES

MODEL = "gpt-5-mini"


@pytest.fixture(autouse=True)
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)


def responder(req: RecordedRequest) -> FakeReply:
    """'feat: ...' with the skill (50 in, 40 of them read from the cache), 'plain ...' without (30 in); the judge
    scores 0.9 a feat answer and 0.4 a plain one (200 in, 20 out per request)."""
    prompt = req.prompt_text
    if "<<<ANSWER" in prompt:
        answer = prompt.split("<<<ANSWER\n", 1)[1].split("\nANSWER>>>", 1)[0]
        score = 0.9 if answer.startswith("feat:") else 0.4
        usage = FakeUsage(input_tokens=200, output_tokens=20)
        return json_text_reply({"score": score, "reason": "graded"}, usage=usage)
    if SKILL in req.system_text:
        usage = FakeUsage(input_tokens=50, output_tokens=10, cache_read_tokens=40)
        return FakeReply(text="feat: add the retry header", usage=usage)
    return FakeReply(text="Retry header support for the client", usage=FakeUsage(input_tokens=30, output_tokens=10))


def run(
    suite: Path, server: FakeLLMServer, *, batch: bool = True, provider: str = "openai", **kw: object
) -> RunOutcome:
    """2 draws per arm (both in the first round), 2 judge samples (one request each draw: ``n`` 2)."""
    settings: dict[str, object] = {"draws": 2, "max_draws": 2, "judge_samples": 2, **kw}
    request = RunRequest(
        suite=suite,
        provider=provider,
        model=MODEL if provider == "openai" else "claude-sonnet-4-6",
        judge_provider="openai",  # type: ignore[arg-type]
        judge_model=MODEL,
        environ=env_for(server),
        batch=batch,
        **settings,  # type: ignore[arg-type]
    )
    return run_suite(request)


def uploaded(server: FakeLLMServer) -> list[dict[str, object]]:
    """Every line of every uploaded input file, in upload order."""
    files = server.openai_batches.files
    inputs = [b.input_file_id for b in server.openai_batches.batches.values()]
    return [json.loads(line) for file_id in inputs for line in files[file_id].decode().splitlines()]


def test_openai_batch_run_uploads_a_round_then_its_judge_calls_same_numbers_as_without_batch(suite: Path) -> None:
    # a batch line asks for an arm's round of draws (n 2), as a run without --batch asks for them in one request
    with FakeLLMServer(responder) as server:
        plain = run(suite, server, batch=False)
        sent = sorted(json.dumps(r.body, sort_keys=True) for r in server.requests if r.path == OPENAI_CHAT)
    with FakeLLMServer(responder) as server:
        outcome = run(suite, server)
        requests = [(r.method, r.path) for r in server.requests]
        lines = uploaded(server)
        batches = server.openai_batches.batches
    r = outcome.receipt
    # answers: 2 cases x 2 arms, an arm's 2 draws in one line (n 2) = 4 lines; judge: 8 draws, their 2 samples in
    # one line each (n 2) = 8 lines
    assert [len(b.custom_ids) for b in batches.values()] == [4, 8]
    assert [line["custom_id"] for line in lines[:4]] == [
        "answer-0-with_skill-0_1",
        "answer-0-baseline-0_1",
        "answer-1-with_skill-0_1",
        "answer-1-baseline-0_1",
    ]
    assert [line["body"]["n"] for line in lines] == [2] * 12  # type: ignore[index]
    assert r.run.batch_ids == ["batch_fake0001", "batch_fake0002"]
    # each draw its own logical call: 8 answers + 8 x 2 samples, as without --batch
    assert r.run.logical_calls == plain.receipt.run.logical_calls == 8 + 8 * 2
    # per batch: upload 1 + create 1 + a poll in progress 1 + the poll that sees it completed 1 + the output file 1
    # (without --batch: 4 answer requests + 8 judge requests = 12)
    assert r.run.endpoint_attempts == 2 * 5 == len(requests)
    assert plain.receipt.run.endpoint_attempts == 4 + 8
    assert requests[:5] == [
        ("POST", FILES),
        ("POST", OPENAI_BATCHES),
        ("GET", f"{OPENAI_BATCHES}/batch_fake0001"),
        ("GET", f"{OPENAI_BATCHES}/batch_fake0001"),
        ("GET", f"{FILES}/file-batch_fake0001-output/content"),
    ]
    assert ("POST", OPENAI_CHAT) not in requests
    # each line: POST /v1/chat/completions with exactly the body the lane sends without --batch
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    assert sorted(json.dumps(line["body"], sort_keys=True) for line in lines) == sent
    assert lines[4]["custom_id"] == "judge-0-with_skill-0-0_1"
    # the same numbers as without --batch: with-skill 0.9, baseline 0.4; bands separate, lift 0.5
    for case, other in zip(r.cases, plain.receipt.cases, strict=True):
        assert [d.score for d in case.with_skill.draws] == [d.score for d in other.with_skill.draws] == [0.9, 0.9]
        assert [d.score for d in case.baseline.draws] == [d.score for d in other.baseline.draws] == [0.4, 0.4]
        for draws in (case.with_skill.draws, case.baseline.draws):
            # the line's usage on its first draw only; its attempts too (the batch's HTTP requests on its last line)
            assert [d.request_draws for d in draws] == [2, 2]
            assert draws[0].usage is not None and draws[1].usage is None and draws[1].endpoint_attempts == 0
    assert [d.endpoint_attempts for d in r.cases[1].baseline.draws] == [5, 0]  # the answer batch's last line
    reading = read_receipt(r)
    assert [c.verdict for c in reading.cases] == ["improved", "improved"]
    assert reading.lift == pytest.approx(0.5, abs=1e-12)
    # usage as without --batch, one line per arm and case: 2 x 50 uncached + 2 x 40 cached with the skill,
    # 2 x 30 without; the judge: 8 requests x 200 in, counted once per request
    gen = r.economics.generation
    assert (gen.with_skill.input_tokens, gen.with_skill.cache_read_tokens, gen.baseline.input_tokens) == (100, 80, 60)
    assert gen == plain.receipt.economics.generation
    assert r.economics.judge_overhead.usage == plain.receipt.economics.judge_overhead.usage
    assert r.economics.judge_overhead.usage.input_tokens == 1600
    # at half price: gpt-5-mini $0.25 in / $2 out -> $0.125 / $1 per million: 1600 x 0.125 + 160 x 1 = 360 / 1e6
    judge = r.economics.judge_overhead
    assert judge.price is not None and judge.price.source.endswith("gpt-5-mini, batch API: half price")
    assert judge.cost_usd == pytest.approx(0.00036, abs=1e-12)
    assert plain.receipt.economics.judge_overhead.cost_usd == pytest.approx(0.00072, abs=1e-12)
    # identity evidence from the output line: the model the body reports, the line's response.request_id
    draw = r.cases[0].with_skill.draws[0]
    assert draw.reported_model == MODEL
    assert draw.judge_samples[0].request_id == draw.judge_samples[1].request_id
    assert str(draw.judge_samples[0].request_id).startswith("req_batch_fake0002_")
    assert not outcome.path.with_name(outcome.path.name + ".journal").exists()


def test_a_line_with_fewer_choices_than_draws_gives_those_and_the_rest_are_asked_again(suite: Path) -> None:
    def one_choice(req: RecordedRequest) -> FakeReply:  # an answer line gets one choice, whatever its n
        reply = responder(req)
        return reply if "<<<ANSWER" in req.prompt_text else replace(reply, choices=(reply.text,))

    with FakeLLMServer(one_choice) as server:
        outcome = run(suite, server)
        lines = uploaded(server)
        batches = server.openai_batches.batches
    r = outcome.receipt
    # B1: the 4 arm lines (n 2), each gives draw 0; B2: draw 1 of each arm asked again, one line each (no n),
    # then B3: the judge lines of the draws 0 (n 2); B4: those of the draws 1
    assert [len(b.custom_ids) for b in batches.values()] == [4, 4, 4, 4]
    assert [line["custom_id"] for line in lines[4:8]] == [f"answer-{c}-{a}-1" for c in (0, 1) for a in ARMS]
    assert [line["body"].get("n") for line in lines[:8]] == [2] * 4 + [None] * 4  # type: ignore[attr-defined]
    # 8 answers + 16 samples; 4 batches x 5 HTTP requests
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (24, 20)
    for case in r.cases:
        for draws in (case.with_skill.draws, case.baseline.draws):
            assert [(d.index, d.status, d.request_draws) for d in draws] == [
                (0, "measured", None),
                (1, "measured", None),
            ]
            assert all(d.usage is not None for d in draws)
    # every line billed once: with the skill 4 lines x 50 in; the judge 8 lines x 200
    assert r.economics.generation.with_skill.input_tokens == 200
    assert r.economics.judge_overhead.usage.input_tokens == 1600


def test_an_expired_an_errored_and_a_missing_line_are_lost_draws_naming_the_batch(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        server.openai_batches.expire = {"answer-0-with_skill-0_1"}
        server.openai_batches.drop = {"answer-1-baseline-0_1"}
        # the first line the fake answers (case a, baseline: its 2 draws) is answered by this error: errored
        server.queue(OPENAI_CHAT, FakeReply.error(500, message="boom"))
        outcome = run(suite, server, max_consecutive_failures=0)
        batches = server.openai_batches.batches
        requests = [(r.method, r.path) for r in server.requests]
    r = outcome.receipt
    expired = "timeout: the batch batch_fake0001 expired before this request was processed"
    # a line fails each of its draws
    assert [d.lost_reason for d in r.cases[0].with_skill.draws] == [expired, expired]
    assert [d.lost_reason for d in r.cases[0].baseline.draws] == ["the batch item errored: 500 server_error: boom"] * 2
    # a line neither file holds, in a batch that expired: it expired too
    assert [d.lost_reason for d in r.cases[1].baseline.draws] == [expired, expired]
    assert [d.status for d in r.cases[1].with_skill.draws] == ["measured", "measured"]
    # 8 answers in 4 lines, 6 lost (never judged): 2 judge lines (n 2) = 4 judge calls; max_draws 2 leaves no room
    # to redraw
    assert [len(b.custom_ids) for b in batches.values()] == [4, 2]
    # the expired batch has both files: upload, create, 2 polls, output, errors = 6; the judge batch 5
    assert ("GET", f"{FILES}/file-batch_fake0001-errors/content") in requests
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 4, 6 + 5) == (12, len(requests))


def test_a_line_a_completed_batch_left_out_is_a_lost_draw_naming_the_batch(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        server.openai_batches.drop = {"answer-1-baseline-0_1"}
        outcome = run(suite, server, max_consecutive_failures=0)
    r = outcome.receipt
    lost = [d for c in r.cases for arm in (c.with_skill, c.baseline) for d in arm.draws if d.status == "lost"]
    assert [d.lost_reason for d in lost] == [
        "the batch ended without a result for this request (batch batch_fake0001)"
    ] * 2
    # 8 answers, 2 lost (case b's baseline line): 6 judge lines x 2 samples; upload, create, 2 polls, output = 5
    # HTTP requests per batch
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 12, 5 + 5)


def test_resume_polls_the_journaled_openai_batch_instead_of_uploading_again(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(responder) as server:
        _, journal, outcome, requests = cancel_then_resume(
            run, suite, server, monkeypatch, polls_before_cancel=0
        )  # the job is cancelled at its first wait
    assert '"kind": "batch"' in journal and "batch_fake0001" in journal
    posts = [r.path for r in requests if r.method == "POST"]
    r = outcome.receipt
    # the answers uploaded and created before the cancel, polled after it (the resumed run grouped the round's
    # draws as the first job did: the same 4 custom_ids); the judge calls: 2 uploads, 2 creates
    assert posts == [FILES, OPENAI_BATCHES, FILES, OPENAI_BATCHES]
    assert [len(b.custom_ids) for b in server.openai_batches.batches.values()] == [4, 8]
    assert server.openai_batches.batches["batch_fake0001"].custom_ids[0] == "answer-0-with_skill-0_1"
    assert r.run.batch_ids == ["batch_fake0001", "batch_fake0002"] and r.run.logical_calls == 24
    assert [d.request_draws for d in r.cases[0].with_skill.draws] == [2, 2]
    # first job: upload + create (2, journaled); resumed: the answers' 2 polls + output 1, the judge batch's 5
    assert len(requests) == 2 + 3 + 5 == r.run.endpoint_attempts


def test_a_batch_journaled_one_draw_a_line_is_polled_after_resume_not_asked_again(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first job asks one draw a line (as every --batch run did before draws were grouped in a line); the
    # resumed run groups the draws of the journal's unread batch as that batch did, so it polls the same batch
    monkeypatch.setattr(BatchRunner, "draws_per_request", lambda self: 1)  # undone before the resume
    with FakeLLMServer(responder) as server:
        _, journal, outcome, requests = cancel_then_resume(run, suite, server, monkeypatch, polls_before_cancel=0)
    assert '"answer-0-with_skill-1"' in journal
    assert [r.path for r in requests if r.method == "POST"] == [FILES, OPENAI_BATCHES, FILES, OPENAI_BATCHES]
    assert [len(b.custom_ids) for b in server.openai_batches.batches.values()] == [8, 8]
    r = outcome.receipt
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (24, 2 + 3 + 5) == (24, len(requests))
    assert all(d.request_draws is None for c in r.cases for d in (*c.with_skill.draws, *c.baseline.draws))


def test_polls_made_before_the_cancel_are_counted_after_resume(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer(responder) as server:
        server.openai_batches.polls_in_progress = 3  # every batch reads in progress 3 times, ended at the 4th poll
        first, journal, outcome, requests = cancel_then_resume(
            run, suite, server, monkeypatch, polls_before_cancel=2
        )  # K = 2
    # resumed: the answers' 3rd poll (in progress) and 4th (completed) + output 1 = 3; the judge batch: upload +
    # create 2 + 4 polls + output 1 = 7. Every request counted: 4 + 3 + 7 = 14 (without the polls journaled: 12)
    assert len(requests) == 4 + 3 + 7 == 14 == outcome.receipt.run.endpoint_attempts
    # the first job: upload + create (2) and 2 polls in progress = 4, each poll journaled with the count so far
    assert first == 4 and journal.count('"kind": "batch_poll"') == 2
    assert '{"kind": "batch_poll", "id": "batch_fake0001", "http": 4}' in journal
    assert outcome.receipt.run.batch_ids == ["batch_fake0001", "batch_fake0002"]


def test_mixed_providers_each_go_through_their_own_batch_api(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        outcome = run(suite, server, provider="anthropic")
        paths = [r.path for r in server.requests]
    r = outcome.receipt
    # the answers through Message Batches (create, 2 polls, 2 result reads = 5), the judge calls through the
    # OpenAI Batch API (upload, create, 2 polls, output = 5)
    assert r.run.batch_ids == ["msgbatch_fake0001", "batch_fake0001"]
    assert paths.count(BATCHES) == 1 and paths.count(FILES) == 1 and paths.count(OPENAI_BATCHES) == 1
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 16, 5 + 5) == (24, len(paths))
    assert [[d.score for d in c.with_skill.draws] for c in r.cases] == [[0.9, 0.9], [0.9, 0.9]]


def test_a_batch_line_is_split_where_its_custom_id_would_pass_64_characters(suite: Path) -> None:
    """20 draws in one round and 20 judge samples a draw: one line each would name 20 draws (or samples) in a
    custom_id longer than the 64 characters Message Batches accepts, which the OpenAI Batch API is held to too."""
    with FakeLLMServer(responder) as server:
        outcome = run(suite, server, draws=20, max_draws=20, judge_samples=20)
        lines = uploaded(server)
    n_of = {str(line["custom_id"]): line["body"].get("n", 1) for line in lines}  # type: ignore[attr-defined]
    assert max(map(len, n_of)) == 64
    # "0_1_..._9" is 19 characters, then 3 a draw (or sample). Answers: "answer-0-with_skill-" is 20, so
    # 20 + 19 + 8 x 3 = 63: draws 0..17 in one line, 18 and 19 in the next; "answer-0-baseline-" is 18:
    # 18 + 19 + 9 x 3 = 64, draws 0..18, then 19 alone (no n)
    first, rest = "_".join(map(str, range(18))), "_".join(map(str, range(19)))
    assert (n_of[f"answer-0-with_skill-{first}"], n_of["answer-0-with_skill-18_19"]) == (18, 2)
    assert (n_of[f"answer-1-baseline-{rest}"], n_of["answer-1-baseline-19"]) == (19, 1)
    # judge: "judge-0-with_skill-0-" is 21: 21 + 19 + 8 x 3 = 64, samples 0..17 then 18, 19; at draw 10 the
    # prefix is 22: 22 + 19 + 7 x 3 = 62, samples 0..16 then 17, 18, 19
    assert (n_of[f"judge-0-with_skill-0-{first}"], n_of["judge-0-with_skill-0-18_19"]) == (18, 2)
    seventeen = "_".join(map(str, range(17)))
    assert (n_of[f"judge-0-with_skill-10-{seventeen}"], n_of["judge-0-with_skill-10-17_18_19"]) == (17, 3)
    receipt = outcome.receipt
    assert all(len(d.judge_samples) == 20 for c in receipt.cases for a in (c.with_skill, c.baseline) for d in a.draws)
    assert receipt.run.logical_calls == 80 * (1 + 20)  # each draw and each sample one logical call


def test_each_request_of_an_openai_batch_is_retried_on_its_own(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14 (probe #1): a failed upload, create or file read is retried by the run's policy; a create that
    failed does not upload the file again, and the batch is read once it is made."""
    slept: list[float] = []
    monkeypatch.setattr(batch_runner.time, "sleep", slept.append)
    with FakeLLMServer(responder) as server:
        batches = server.openai_batches
        batches.fail("upload", FakeReply.error(500, message="internal", retry_after=0))
        batches.fail("create", FakeReply.error(429, message="slow down", retry_after=3))
        batches.fail("content", FakeReply.error(503, message="unavailable", retry_after=0))
        outcome = run(suite, server)
        requests = [(r.method, r.path) for r in server.requests]
    r = outcome.receipt
    assert len(batches.files) == 2 + 2  # one input file per batch (not one per attempt), and the output files
    assert r.run.batch_ids == ["batch_fake0001", "batch_fake0002"]
    assert all(d.status == "measured" for c in r.cases for d in (*c.with_skill.draws, *c.baseline.draws))
    # the answers' batch: upload 2, create 2, polls 2 (in progress, completed), output file 2 = 8; the judge batch
    # as usual: upload, create, 2 polls, output file = 5
    assert r.run.endpoint_attempts == 8 + 5 == len(requests)
    assert requests[:4] == [("POST", FILES), ("POST", FILES), ("POST", OPENAI_BATCHES), ("POST", OPENAI_BATCHES)]
    assert slept[:2] == [0.0, 3.0]  # each retry-after honoured


def test_a_failed_read_of_an_openai_batch_stops_the_run_and_resume_reads_it(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recheck 3 N6: the output file's read failing past its retries dropped a batch already run (and billed);
    the run now stops with its journal kept, and ``--resume`` polls and reads the same batch."""
    monkeypatch.setattr(batch_runner.time, "sleep", lambda _s: None)
    with FakeLLMServer(responder) as server:
        unavailable = FakeReply.error(503, message="unavailable", retry_after=0)
        server.openai_batches.fail("content", unavailable, unavailable)  # --max-retries 1: both attempts 503
        with pytest.raises(RunStopped) as stopped:
            run(suite, server, max_retries=1)
        first = len(server.requests)
        outcome = run(suite, server, resume=True)
        requests = len(server.requests)
    assert "reading the results of batch batch_fake0001 failed: 503" in str(stopped.value)
    assert "driftproof run … --resume polls it again" in str(stopped.value)
    # the first job: upload, create, 2 polls (in progress, completed), 2 failed reads = 6; resumed: 1 poll (the
    # fake reads completed from then on) + the output file 1 = 2, then the judge batch as usual: 5
    assert first == 6 and requests == 6 + 2 + 5 == outcome.receipt.run.endpoint_attempts
    assert outcome.receipt.run.batch_ids == ["batch_fake0001", "batch_fake0002"]
    assert len(server.openai_batches.batches) == 2
