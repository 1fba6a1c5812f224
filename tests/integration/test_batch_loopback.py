"""``--batch`` on the Anthropic API lane against the loopback fake of Message Batches: counts checked by hand."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

from driftproof import batch_runner
from driftproof.cli import main
from driftproof.core.reading import read_receipt
from driftproof.errors import InputError, RunInterrupted, RunStopped
from driftproof.plan_command import plan_for, plan_text
from driftproof.run import RunOutcome, RunRequest, run_suite
from tests.integration.test_run_loopback import JUDGE, env_for, responder
from tests.integration.test_run_loopback import suite as suite  # the fixture
from tests.support.batch_resume import cancel_then_resume
from tests.support.fake_llm_script import FakeReply, RecordedRequest
from tests.support.fake_llm_server import ANTHROPIC_MESSAGES, FakeLLMServer
from tests.support.fake_message_batches import BATCHES


@pytest.fixture(autouse=True)
def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_runner, "POLL_S", 0.001)


def request_of(suite: Path, server: FakeLLMServer, **kw: object) -> RunRequest:
    """2 draws per arm (both in the first round), 2 judge samples, through batches."""
    settings: dict[str, object] = {"draws": 2, "max_draws": 2, "judge_samples": 2, "batch": True, **kw}
    return RunRequest(
        suite=suite,
        provider="anthropic",
        model="claude-sonnet-4-6",
        judge_model=JUDGE,
        environ=env_for(server),
        **settings,  # type: ignore[arg-type]
    )


def run(suite: Path, server: FakeLLMServer, **kw: object) -> RunOutcome:
    """A run of `request_of`."""
    return run_suite(request_of(suite, server, **kw))


def test_batch_run_sends_a_round_of_answers_then_its_judge_calls_as_two_batches(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        outcome = run(suite, server)
        requests = [(r.method, r.path) for r in server.requests]
        batches = server.batches.batches
    r = outcome.receipt
    # answers: 2 cases x 2 arms x 2 draws = 8, one batch; judge calls: 8 answers x 2 samples = 16, one batch
    assert [len(b.custom_ids) for b in batches.values()] == [8, 16]
    # Message Batches has no n: one draw a line (`samples_per_request` 1), a draw's samples one line each
    answers = batches["msgbatch_fake0001"].custom_ids
    assert sorted(answers) == sorted(
        f"answer-{c}-{a}-{i}" for c in (0, 1) for a in ("with_skill", "baseline") for i in (0, 1)
    )
    assert "judge-0-with_skill-0-1" in batches["msgbatch_fake0002"].custom_ids
    assert all(d.request_draws is None for c in r.cases for d in (*c.with_skill.draws, *c.baseline.draws))
    assert r.run.batch_ids == ["msgbatch_fake0001", "msgbatch_fake0002"]
    assert r.run.logical_calls == 8 + 16
    # per batch: create 1 + a poll in progress 1 + the poll that sees it ended 1 + results 2 (retrieve, JSONL) = 5
    assert r.run.endpoint_attempts == 2 * 5 == len(requests)
    assert ("POST", ANTHROPIC_MESSAGES) not in requests
    assert requests[:5] == [
        ("POST", BATCHES),
        ("GET", f"{BATCHES}/msgbatch_fake0001"),
        ("GET", f"{BATCHES}/msgbatch_fake0001"),
        ("GET", f"{BATCHES}/msgbatch_fake0001"),
        ("GET", f"{BATCHES}/msgbatch_fake0001/results"),
    ]
    # the same numbers as a run without --batch: with-skill answers 'feat:' score 0.9, baseline 0.4
    for case in r.cases:
        assert [d.score for d in case.with_skill.draws] == [0.9, 0.9]
        assert [d.score for d in case.baseline.draws] == [0.4, 0.4]
    # bands [0.9, 0.9] vs [0.4, 0.4] separate: lift 0.5
    reading = read_receipt(r)
    assert [c.verdict for c in reading.cases] == ["improved", "improved"]
    assert reading.lift == pytest.approx(0.5, abs=1e-12)
    # usage as without --batch: 4 draws x 50 in with the skill, 4 x 30 without; 16 samples x 200 in for the judge
    gen = r.economics.generation
    assert (gen.with_skill.input_tokens, gen.baseline.input_tokens) == (200, 120)
    assert r.economics.judge_overhead.usage.input_tokens == 3200
    assert not outcome.path.with_name(outcome.path.name + ".journal").exists()


def test_an_expired_and_an_errored_item_are_lost_draws_with_their_reasons(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        server.batches.expire = {"answer-0-with_skill-0"}
        # the first item the fake answers (case a, with the skill, draw 1) is answered by this error: errored
        server.queue(ANTHROPIC_MESSAGES, FakeReply.error(500, message="boom"))
        outcome = run(suite, server, max_consecutive_failures=0)
        batches = server.batches.batches
    r = outcome.receipt
    a_with = r.cases[0].with_skill.draws
    reasons = sorted(d.lost_reason or "" for d in a_with if d.status == "lost")
    assert len(reasons) == 2
    assert "expired" in reasons[1] and "msgbatch_fake0001" in reasons[1]
    assert "errored" in reasons[0] and "boom" in reasons[0]
    assert [d.status for d in r.cases[0].baseline.draws] == ["measured", "measured"]
    # 8 answers, 2 lost (never judged): 6 x 2 = 12 judge calls; max_draws 2 leaves no room to draw them again
    assert [len(b.custom_ids) for b in batches.values()] == [8, 12]
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 12, 2 * 5)


def test_resume_polls_the_journaled_batch_instead_of_submitting_again(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLMServer(responder) as server:
        _, journal, outcome, requests = cancel_then_resume(
            run, suite, server, monkeypatch, polls_before_cancel=0
        )  # the job is cancelled at its first wait
    assert '"kind": "batch"' in journal and "msgbatch_fake0001" in journal
    created = [r for r in requests if r.method == "POST"]
    r = outcome.receipt
    # one batch of 8 answers (submitted before the cancel, polled after it), one of 16 judge calls: 2 created
    assert len(created) == 2 and [len(b.custom_ids) for b in server.batches.batches.values()] == [8, 16]
    assert r.run.batch_ids == ["msgbatch_fake0001", "msgbatch_fake0002"]
    assert r.run.logical_calls == 24
    # first job: the create (1); resumed: the answers' polls 2 + results 2, the judge batch's 5 -> 10 requests
    assert len(requests) == 1 + 4 + 5 == r.run.endpoint_attempts


def test_batch_on_the_stub_lane_is_refused_in_one_line_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code = main(["run", "examples/commit-writer/suite.yaml", "--provider", "stub", "--batch", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists() and not out.with_name("r.json.journal").exists()
    assert err == [
        "driftproof: error: --batch: the answering model goes through stub/none, which has no batch API; "
        "--batch needs the anthropic or openai API lane"
    ]


def test_the_stopping_rule_runs_round_by_round_a_replacement_in_a_batch_of_its_own(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        server.batches.expire = {"answer-0-with_skill-0"}
        outcome = run(suite, server, max_draws=3)
        batches = server.batches.batches
    r = outcome.receipt
    # round 1: 8 answers, one expired; 7 judged x 2 = 14 calls. Round 2: only case a's with-skill arm wants a draw
    # (its lost draw may be replaced, max_draws 3 leaves room): 1 answer, then its 2 judge calls
    assert [len(b.custom_ids) for b in batches.values()] == [8, 14, 1, 2]
    assert list(batches["msgbatch_fake0003"].custom_ids) == ["answer-0-with_skill-2"]
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 14 + 1 + 2, 4 * 5)
    a_with = r.cases[0].with_skill.draws
    assert [d.status for d in a_with] == ["lost", "measured", "measured"] and a_with[0].replaced


def test_plan_with_batch_is_the_plan_a_batch_run_prints_and_the_dollars_its_budget_commits(suite: Path) -> None:
    with FakeLLMServer(responder) as server:
        request = request_of(suite, server, budget_usd=1.0, plan_by_case=True)
        log = io.StringIO()
        outcome = run_suite(request, progress_stream=log)
    plan = plan_for(request)
    listed = plan_for(replace(request, batch=False))
    # the plan command's lines are the ones the run printed before its first call, at the batch price
    shown = plan_text(plan, "text").splitlines()
    printed = log.getvalue().splitlines()
    assert shown == printed[printed.index(shown[0]) : printed.index(shown[0]) + len(shown)]
    assert shown[-1] == "budget: $1.00: the worst case of the run fits"
    # every draw ran (2 per arm, none lost): the run committed the plan's worst case, at half the list price
    budget = outcome.receipt.run.settings.budget
    assert budget is not None and plan.plan.total.usd.high is not None and listed.plan.total.usd.high is not None
    assert budget.committed_usd == pytest.approx(plan.plan.total.usd.high, abs=1e-12)
    assert plan.plan.total.usd.high == pytest.approx(listed.plan.total.usd.high / 2, abs=1e-12)


def test_polls_made_before_the_cancel_are_counted_after_resume(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer(responder) as server:
        server.batches.polls_in_progress = 3  # every batch reads in progress 3 times, ended at the 4th poll
        first, journal, outcome, requests = cancel_then_resume(
            run, suite, server, monkeypatch, polls_before_cancel=2
        )  # K = 2
    # resumed: the answers' 3rd poll (in progress) and 4th (ended) + results 2 = 4; the judge batch: create 1 +
    # 4 polls + results 2 = 7. Every request counted: 3 + 4 + 7 = 14 (without the polls journaled: 12)
    assert len(requests) == 3 + 4 + 7 == 14 == outcome.receipt.run.endpoint_attempts
    # the first job: the create (1) and 2 polls in progress = 3, each poll journaled with the batch's count so far
    assert first == 3 and journal.count('"kind": "batch_poll"') == 2
    assert '{"kind": "batch_poll", "id": "msgbatch_fake0001", "http": 3}' in journal
    assert outcome.receipt.run.batch_ids == ["msgbatch_fake0001", "msgbatch_fake0002"]


def recorded_sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the batch runner makes (polls, and retries of a batch request), recorded, none slept."""
    slept: list[float] = []
    monkeypatch.setattr(batch_runner.time, "sleep", slept.append)
    return slept


def test_a_transient_failure_of_a_batch_request_is_retried_and_the_batch_kept(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14 (probe #1): one 529 on a poll failed every item of a batch the provider had already run (and
    billed), and the next round submitted it again. Each batch request is now retried by the run's policy."""
    slept = recorded_sleeps(monkeypatch)
    log = io.StringIO()
    with FakeLLMServer(responder) as server:
        server.batches.fail("create", FakeReply.error(500, message="internal", retry_after=0))
        server.batches.fail(
            "poll", FakeReply.error(529, message="Overloaded", error_type="overloaded_error", retry_after=2)
        )
        server.batches.fail("results", FakeReply.dropped())  # the JSONL read: the connection drops
        outcome = run_suite(request_of(suite, server), progress_stream=log)
        requests = [(r.method, r.path) for r in server.requests]
        batches = server.batches.batches
    r = outcome.receipt
    # nothing lost, nothing submitted twice: the same two batches as a run without a failure
    assert [len(b.custom_ids) for b in batches.values()] == [8, 16]
    assert r.run.batch_ids == ["msgbatch_fake0001", "msgbatch_fake0002"]
    assert all(d.status == "measured" for c in r.cases for d in (*c.with_skill.draws, *c.baseline.draws))
    assert r.run.logical_calls == 8 + 16
    # the answers' batch: create 500 + create = 2; poll 529 + poll (in progress) + poll (ended) = 3; results:
    # retrieve + JSONL dropped (2), then retrieve + JSONL (2) = 4: 9. The judge batch as usual: 1 + 2 + 2 = 5
    assert r.run.endpoint_attempts == 9 + 5 == len(requests) == 14
    assert requests[:3] == [("POST", BATCHES), ("POST", BATCHES), ("GET", f"{BATCHES}/msgbatch_fake0001")]
    # the create retried at once (retry-after 0), the poll after the 2 s retry-after asked, the results read
    # after the policy's backoff (0.5 s × 0.75 to 1, no retry-after); polls at 0.001 s, doubling
    assert slept[:4] == [0.0, 0.001, 2.0, 0.002]
    assert 0.375 <= slept[4] <= 0.5
    assert slept[5:] == [0.001, 0.002]
    # a batch run says what it waits on: the batch id, once submitted
    lines = [line for line in log.getvalue().splitlines() if line.startswith("batch: ")]
    assert lines == [
        "batch: msgbatch_fake0001 submitted (8 answer requests); waiting for it to end: first poll in 0 s, then at "
        "twice the wait, up to 10 min (a batch may take up to 24 h)",
        "batch: msgbatch_fake0002 submitted (16 judge requests); waiting for it to end: first poll in 0 s, then at "
        "twice the wait, up to 10 min (a batch may take up to 24 h)",
    ]


def test_a_poll_that_fails_for_good_stops_the_run_and_keeps_the_batch_for_resume(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recheck 3 N6: a poll that failed past its retries failed every item of a batch the provider was already
    running (and billing), wrote the receipt and removed the journal. It now stops the run (no receipt), keeps the
    journal, and ``--resume`` polls the same batch again."""
    recorded_sleeps(monkeypatch)
    log = io.StringIO()
    journal = suite.parent / ".driftproof" / "receipt.json.journal"
    with FakeLLMServer(responder) as server:
        internal = FakeReply.error(500, message="internal", retry_after=0)
        server.batches.fail("poll", internal, internal, internal)  # --max-retries 2: three attempts, all 500
        with pytest.raises(RunStopped) as stopped:
            run_suite(request_of(suite, server, max_retries=2), progress_stream=log)
        first = len(server.requests)
        kept = journal.read_text(encoding="utf-8")
        assert not (suite.parent / ".driftproof" / "receipt.json").exists()
        outcome = run(suite, server, resume=True)
        requests = [(r.method, r.path) for r in server.requests]
    message = str(stopped.value)
    assert "polling batch msgbatch_fake0001 failed: 500 api_error: internal after 3 attempts" in message
    assert "driftproof run … --resume polls it again" in message and str(journal) in message
    assert stopped.value.in_a_row and "\n" not in message
    assert "done:" not in log.getvalue()
    # the first job: the create 1 + three failed polls 3 = 4, journaled so the resumed run counts on from them
    assert first == 4 and '{"kind": "batch_poll", "id": "msgbatch_fake0001", "http": 4}' in kept
    # resumed: no second create of the answers; their poll in progress, then ended, results 2 = 4; the judge
    # batch as usual: create 1 + 2 polls + results 2 = 5. Every request counted: 4 + 4 + 5 = 13
    assert requests[first] == ("GET", f"{BATCHES}/msgbatch_fake0001")
    assert [len(b.custom_ids) for b in server.batches.batches.values()] == [8, 16]
    r = outcome.receipt
    assert r.run.batch_ids == ["msgbatch_fake0001", "msgbatch_fake0002"]
    assert all(d.status == "measured" for c in r.cases for d in (*c.with_skill.draws, *c.baseline.draws))
    assert (r.run.logical_calls, r.run.endpoint_attempts) == (8 + 16, 13) and len(requests) == 13


def test_a_failed_read_of_the_results_stops_the_run_too(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recheck 3 N6: reading the results of an ended batch that fails for good stops the run as a poll does."""
    recorded_sleeps(monkeypatch)
    with FakeLLMServer(responder) as server:
        server.batches.fail("results", FakeReply.dropped(), FakeReply.dropped())  # --max-retries 1: both dropped
        with pytest.raises(RunStopped, match=r"reading the results of batch msgbatch_fake0001 failed: .*--resume"):
            run(suite, server, max_retries=1)
    assert (suite.parent / ".driftproof" / "receipt.json.journal").exists()


def test_batch_progress_counts_the_retries_of_batch_requests_and_nothing_else(suite: Path) -> None:
    """Recheck 3 N4: under --batch the retries were endpoint attempts minus logical calls: 0 after retried polls
    (a batch has far fewer requests than calls), and more than 0 when nothing failed."""
    log = io.StringIO()
    with FakeLLMServer(responder) as server:
        overloaded = FakeReply.error(529, message="Overloaded", error_type="overloaded_error", retry_after=0)
        server.batches.fail("poll", overloaded, overloaded, overloaded)  # three polls retried, the 4th answers
        run_suite(request_of(suite, server), progress_stream=log)
    done = [line for line in log.getvalue().splitlines() if line.startswith("done: ")]
    # 24 calls through 5 + 3 = 8 and 5 requests: attempts 13 - calls 24 read as 0 retries; the 3 retried polls are 3
    assert len(done) == 1 and done[0].startswith("done: 24/24 calls · 3 retries · 0 lost draws")
    log = io.StringIO()
    with FakeLLMServer(responder) as server:  # 1 draw, 1 sample: 2 cases x 2 arms = 4 answers + 4 samples = 8
        run_suite(request_of(suite, server, draws=1, max_draws=1, judge_samples=1), progress_stream=log)
        attempts = len(server.requests)
    done = [line for line in log.getvalue().splitlines() if line.startswith("done: ")]
    # nothing failed: 2 batches x 5 requests = 10 attempts for 8 calls, which read as 2 retries
    assert attempts == 10 and done[0].startswith("done: 8/8 calls · 0 retries · 0 lost draws")


def test_a_permanent_failure_of_a_batch_request_is_not_retried_and_stops_the_run(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recorded_sleeps(monkeypatch)
    with FakeLLMServer(responder) as server:
        server.batches.fail("create", FakeReply.error(401, message="invalid x-api-key"))
        out = suite.parent / "r.json"
        argv = ["run", str(suite), "--model", "claude-sonnet-4-6", "--judge-model", JUDGE, "--batch", "-o", str(out)]
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
        code = main([*argv, "--draws", "2", "--max-draws", "2", "--judge-samples", "2"])
        requests = len(server.requests)
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and requests == 1  # a 401 is not retried
    assert "creating the batch failed: 401 authentication_error: invalid x-api-key" in err


def test_a_long_wait_between_polls_is_said_with_the_next_poll_time(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slept = recorded_sleeps(monkeypatch)
    monkeypatch.setattr(batch_runner, "POLL_S", 30.0)
    log = io.StringIO()
    with FakeLLMServer(responder) as server:
        server.batches.polls_in_progress = 3  # in progress at the 1st, 2nd and 3rd poll, ended at the 4th
        run_suite(request_of(suite, server), progress_stream=log)
    assert slept == [30.0, 60.0, 120.0, 240.0] * 2
    lines = [line for line in log.getvalue().splitlines() if "still in progress" in line]
    # before the 60 s, 120 s and 240 s waits: after 30, 30 + 60 = 90 and 90 + 120 = 210 s
    pattern = r"batch: msgbatch_fake000[12] still in progress after (.*); next poll in (.*) \(at \d\d:\d\d:\d\d UTC\)"
    import re

    found = [re.fullmatch(pattern, line) for line in lines]
    assert all(found) and len(found) == 6
    assert [m.groups() for m in found[:3] if m] == [("30 s", "1 min"), ("1 min 30 s", "2 min"), ("3 min 30 s", "4 min")]


def test_resume_refuses_a_journal_of_the_other_batch_setting(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14 (probe #2): --batch changes the prices, the batch ids and the attempts a receipt records, so a
    journal of a --batch run is not finished without it, nor one of a plain run with it."""

    def cancel(_s: float) -> None:
        raise KeyboardInterrupt

    with FakeLLMServer(responder) as server:
        monkeypatch.setattr(batch_runner.time, "sleep", cancel)  # cancelled at its first wait: the batch journaled
        with pytest.raises(RunInterrupted) as interrupted:
            run(suite, server)
        monkeypatch.undo()
        journal = suite.parent / ".driftproof" / "receipt.json.journal"
        assert '"kind": "batch"' in journal.read_text(encoding="utf-8")
        # Recheck 3 N7: the line said only "0 finished draws are kept", though the submitted batch is kept too
        assert str(interrupted.value) == (
            f"interrupted: 0 finished draws and the calls that came back are kept in {journal}, with batch "
            "msgbatch_fake0001, submitted and not yet read, which --resume polls instead of submitting it again; "
            "add --resume to finish the run"
        )
        # Recheck 3 N5: the refusal named no setting and advised starting afresh, which pays for the batch again
        with pytest.raises(InputError) as refused:
            run(suite, server, batch=False, resume=True)
        assert str(refused.value) == (
            f"{journal}: this journal was made by a run with --batch, and this run is without it; it holds batch "
            "msgbatch_fake0001, which the provider runs (and bills) once submitted: add --batch to resume it and "
            "poll that batch (without --resume, the run would submit and pay for it again)"
        )
        assert len(server.requests) == 1  # the create; nothing sent since
        journal.unlink()

        seen = 0

        def refuse_after_two_draws(req: RecordedRequest) -> FakeReply:
            nonlocal seen
            seen += 1  # one call at a time, in the order asked: the 8 answers, then 2 judge samples each
            return responder(req) if seen <= 8 + 2 * 2 else FakeReply.error(401, message="invalid x-api-key")

        server.responder = refuse_after_two_draws
        with pytest.raises(RunStopped):  # 2 finished draws kept in the journal
            run(suite, server, batch=False, concurrency=1)
        sent = len(server.requests)
        with pytest.raises(InputError) as refused:
            run(suite, server, resume=True)
        assert str(refused.value) == (
            f"{journal}: this journal was made by a run without --batch, and this run has it; drop --batch to "
            "resume it, or run without --resume to start afresh"
        )
        assert len(server.requests) == sent
