"""Resume from the journal (issue 10): an answer is never drawn twice, indices have no holes, calls are counted
over the whole run, and draws lost to a failed call stay out of the journal's finished draws.

Every run here is one case on the stub lane (synthetic scores, a pure function of case, arm, draw and sample),
3 draws per arm and 2 judge samples per draw: 6 answers and 12 judge calls when nothing goes wrong. With
``--concurrency 1`` the pool runs calls in the order they were submitted, so the 6 answers of the first round
all come back before the first judge call, and judge calls then run draw by draw: with_skill 0, 1, 2, then
baseline 0, 1, 2, samples 0 and 1 of each.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

import driftproof.run as rs
from driftproof.errors import InputError, RunInterrupted, RunStopped
from driftproof.lanes.base import AttemptFailure, FailureKind, Generation, GenerationRequest
from driftproof.lanes.stub import StubLane
from driftproof.run import RunOutcome, RunRequest, run_suite

Call = tuple[str, str, int, int]
"""(purpose, arm, draw index, sample index); sample index -1 for an answer."""
Hook = Callable[[GenerationRequest, int], Generation | None]
"""Called before each call with its number in this lane pair (1-based); a Generation returned replaces it."""

JUDGE_CALLS = [("judge", arm, d, s) for arm in ("with_skill", "baseline") for d in range(3) for s in range(2)]
CONNECTION_REFUSED = Generation(
    text="",
    error="connection error: refused",
    failure=AttemptFailure(retryable=True, reason="refused", kind=FailureKind.CONNECTION),
)


class Recording(StubLane):
    """A stub lane that records its calls (shared by the answering lane and the judge) and runs a hook."""

    def __init__(self, calls: list[Call], hook: Hook | None = None, attempts: int = 0) -> None:
        super().__init__()
        self.calls, self.hook, self.attempts = calls, hook, attempts

    def generate(self, request: GenerationRequest) -> Generation:
        sample = request.sample_index if request.purpose == "judge" else -1
        self.calls.append((request.purpose, request.arm, request.draw_index, sample))
        got = self.hook(request, len(self.calls)) if self.hook is not None else None
        return got if got is not None else replace(super().generate(request), attempts=self.attempts)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "SKILL.md").write_text("Use conventional commits.\n", encoding="utf-8")
    body = {"skill": "SKILL.md", "cases": [{"id": "a", "prompt": "Write a.", "rubric": "Good a."}]}
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")
    return tmp_path / "suite.yaml"


def run(
    suite: Path,
    monkeypatch: pytest.MonkeyPatch,
    hook: Hook | None = None,
    *,
    answer_attempts: int = 0,
    judge_attempts: int = 0,
    **kw: Any,
) -> tuple[list[Call], RunOutcome | None]:
    """One run on recording stub lanes: the calls made, and the outcome when it finished."""
    calls: list[Call] = []
    lanes = (Recording(calls, hook, answer_attempts), Recording(calls, hook, judge_attempts), "stub-judge")
    monkeypatch.setattr(rs, "make_lanes", lambda _req: lanes)
    base: dict[str, Any] = {"draws": 3, "max_draws": 3, "judge_samples": 2, "concurrency": 1}
    request = RunRequest(suite=suite, provider="stub", out=suite.parent / "r.json", **{**base, **kw})
    return calls, run_suite(request)


def interrupt_at(number: int) -> Hook:
    """Ctrl-C during call ``number``."""

    def hook(_request: GenerationRequest, n: int) -> Generation | None:
        if n == number:
            raise KeyboardInterrupt
        return None

    return hook


def journal_lines(suite: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (suite.parent / "r.json.journal").read_text().splitlines()]


def test_an_answer_waiting_for_judge_samples_is_not_drawn_again(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # call 10 is the 4th judge call (with_skill draw 1, sample 1): all 6 answers, with_skill draw 0 (both
    # samples) and with_skill draw 1's sample 0 are in; draws 1 to 5 are not finished
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, interrupt_at(10))
    calls, outcome = run(suite, monkeypatch, resume=True)
    assert [c for c in calls if c[0] == "answer"] == []  # every answer came back: none is drawn again
    assert calls == JUDGE_CALLS[3:]  # only the 9 missing samples: with_skill draw 1's sample 0 is kept
    _, whole = run(suite, monkeypatch)  # an uninterrupted run of the same (deterministic) stub
    assert outcome is not None and whole is not None
    assert outcome.receipt.cases[0] == whole.receipt.cases[0]


def test_resume_fills_the_index_of_a_draw_that_did_not_finish(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With_skill draw 1's answer hangs until draws 0 and 2 are judged, then the run is interrupted."""
    judged = threading.Event()
    done: set[int] = set()

    def hook(request: GenerationRequest, _n: int) -> Generation | None:
        if request.arm != "with_skill":
            return None
        if request.purpose == "answer" and request.draw_index == 1:
            assert judged.wait(10)
            time.sleep(0.3)  # the main thread journals draws 0 and 2
            raise KeyboardInterrupt
        if request.purpose == "judge" and request.draw_index in (0, 2):
            done.add(request.draw_index)
            if done == {0, 2}:
                judged.set()
        return None

    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, hook, judge_samples=1, concurrency=3)
    finished = [e["draw"]["index"] for e in journal_lines(suite) if "draw" in e and e["arm"] == "with_skill"]
    assert sorted(finished) == [0, 2]
    calls, outcome = run(suite, monkeypatch, judge_samples=1, concurrency=3, resume=True)
    assert outcome is not None
    assert [d.index for d in outcome.receipt.cases[0].with_skill.draws] == [0, 1, 2]
    assert ("answer", "with_skill", 1, -1) in calls and ("answer", "with_skill", 3, -1) not in calls


def test_a_resumed_receipt_counts_the_calls_of_the_whole_run(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # each answer takes 2 endpoint attempts and each judge call 1: 6 x 2 + 12 x 1 = 24 attempts over 18 calls.
    # The call interrupted (the 10th) never came back, so it is not counted: it is made again on resume.
    attempts: dict[str, Any] = {"answer_attempts": 2, "judge_attempts": 1}
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, interrupt_at(10), **attempts)
    _, outcome = run(suite, monkeypatch, resume=True, **attempts)
    assert outcome is not None
    assert (outcome.receipt.run.logical_calls, outcome.receipt.run.endpoint_attempts) == (18, 24)
    _, whole = run(suite, monkeypatch, **attempts)
    assert whole is not None and (whole.receipt.run.logical_calls, whole.receipt.run.endpoint_attempts) == (18, 24)


def test_a_draw_held_back_by_a_dead_judge_keeps_its_answer_and_is_judged_again(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # calls 1-6 are the answers, 7-8 judge with_skill draw 0; from call 9 on the judge is unreachable: draw 1
    # loses both samples (held back: lost to failed calls), draw 2's sample 0 is the 3rd failure in a row
    def dead_judge(_request: GenerationRequest, n: int) -> Generation | None:
        return CONNECTION_REFUSED if n >= 9 else None

    attempts: dict[str, Any] = {"answer_attempts": 2, "judge_attempts": 1}
    with pytest.raises(RunStopped, match="the 1 finished draws are kept"):
        run(suite, monkeypatch, dead_judge, max_consecutive_failures=3, **attempts)
    finished = [e for e in journal_lines(suite)[1:] if "draw" in e]
    assert [(e["arm"], e["draw"]["index"]) for e in finished] == [("with_skill", 0)]
    calls, outcome = run(suite, monkeypatch, resume=True, **attempts)
    assert [c for c in calls if c[0] == "answer"] == []  # the answers are kept, draw 1's with them
    assert calls == JUDGE_CALLS[2:]  # the failed samples are asked again: draw 1 is not restored as lost
    assert outcome is not None
    draws = outcome.receipt.cases[0].with_skill.draws
    assert [d.status for d in draws] == ["measured"] * 3 and all(s.returned for s in draws[1].judge_samples)
    # the stopped run: 6 answers and 2 judge calls that came back, 3 judge calls that failed (with_skill draw 1's
    # samples 0 and 1, draw 2's sample 0); the resumed run: 10 judge calls, 3 of them those 3 asked again, which
    # are the same logical calls: 6 + 2 + 10 = 18, the 18 calls of an uninterrupted run (6 answers, 12 samples)
    assert outcome.receipt.run.logical_calls == 6 + 2 + 10
    # every attempt of both runs: 6 answers x 2, then 2 + 3 + 10 judge calls x 1 (a refused call is 1 attempt)
    assert outcome.receipt.run.endpoint_attempts == 6 * 2 + 2 + 3 + 10
    _, whole = run(suite, monkeypatch, **attempts)  # the same 18 calls, none failing: 6 x 2 + 12 x 1 attempts
    assert whole is not None and (whole.receipt.run.logical_calls, whole.receipt.run.endpoint_attempts) == (18, 24)


def test_a_call_asked_again_by_two_resumes_is_one_logical_call(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is dead from call 9 in the first run and from the first call in the second (a resume): both stop
    at 3 failures in a row, the same 3 samples (with_skill draw 1's samples 0 and 1, draw 2's sample 0); the third
    run (a resume) finds the judge back."""

    def dead_from(first: int) -> Hook:
        def hook(request: GenerationRequest, n: int) -> Generation | None:
            return CONNECTION_REFUSED if request.purpose == "judge" and n >= first else None

        return hook

    attempts: dict[str, Any] = {"answer_attempts": 2, "judge_attempts": 1, "max_consecutive_failures": 3}
    with pytest.raises(RunStopped, match="the 1 finished draws are kept"):
        run(suite, monkeypatch, dead_from(9), **attempts)
    with pytest.raises(RunStopped, match="the 1 finished draws are kept"):
        run(suite, monkeypatch, dead_from(1), resume=True, **attempts)
    failed = [(e["arm"], e["index"], e["sample"]) for e in journal_lines(suite) if e.get("kind") == "sample"]
    assert failed[2:] == [("with_skill", 1, 0), ("with_skill", 1, 1), ("with_skill", 2, 0)] * 2
    calls, outcome = run(suite, monkeypatch, resume=True, **attempts)
    assert calls == JUDGE_CALLS[2:] and outcome is not None
    # 6 answers, 2 + 10 judge calls: each of the 3 samples journaled twice as failed, then asked a third time, is
    # one logical call; its 3 attempts (one per run) all count: 6 x 2 + (2 + 3 + 3 + 10) x 1 = 30 attempts
    assert (outcome.receipt.run.logical_calls, outcome.receipt.run.endpoint_attempts) == (6 + 2 + 10, 30)


def test_a_failed_sample_of_a_finished_draw_is_its_own_logical_call(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With_skill draw 0's sample 0 (call 7) fails: the draw is measured on its sample 1 and finished, so no
    resume asks that sample again; the run is interrupted at call 12 (baseline draw 0's sample 1)."""

    def fails_7(_request: GenerationRequest, n: int) -> Generation | None:
        if n == 12:
            raise KeyboardInterrupt
        return CONNECTION_REFUSED if n == 7 else None

    attempts: dict[str, Any] = {"answer_attempts": 2, "judge_attempts": 1}
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, fails_7, **attempts)
    calls, outcome = run(suite, monkeypatch, resume=True, **attempts)
    assert calls == JUDGE_CALLS[5:] and outcome is not None  # the 7 calls from baseline draw 0's sample 1 on
    assert [d.status for d in outcome.receipt.cases[0].with_skill.draws] == ["measured"] * 3
    # 6 answers and 12 judge calls, the failed one among them: 18; 6 x 2 + 12 x 1 = 24 attempts (the failed
    # call's 1 included; the interrupted call 12 never came back and is not counted)
    assert (outcome.receipt.run.logical_calls, outcome.receipt.run.endpoint_attempts) == (18, 24)
    _, whole = run(suite, monkeypatch, lambda _r, n: CONNECTION_REFUSED if n == 7 else None, **attempts)
    assert whole is not None and (whole.receipt.run.logical_calls, whole.receipt.run.endpoint_attempts) == (18, 24)
    assert outcome.receipt.cases[0] == whole.receipt.cases[0]


def test_a_draw_held_back_by_a_dead_endpoint_is_drawn_again(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Baseline draw 2's answer fails once: a lost draw, kept once the judge calls succeed, and replaced by draw 3
    (up to 4 draws per arm). Uninterrupted, the run then draws with_skill draw 3 as well (the spreads are not
    settled): 8 answers and 7 judged draws x 2 samples, 22 calls. Here draw 3's answer meets a refused key and
    the run stops at it: draw 3 is held back, though its answer is journaled, and drawn again on resume."""

    def fails_once(request: GenerationRequest, _n: int) -> Generation | None:
        hit = (request.purpose, request.arm, request.draw_index) == ("answer", "baseline", 2)
        return CONNECTION_REFUSED if hit else None

    def then_refused(request: GenerationRequest, n: int) -> Generation | None:
        if (request.purpose, request.arm, request.draw_index) != ("answer", "baseline", 3):
            return fails_once(request, n)
        refused = AttemptFailure(retryable=False, reason="invalid x-api-key", kind=FailureKind.AUTHENTICATION)
        return Generation(text="", error="invalid x-api-key", failure=refused)

    with pytest.raises(RunStopped, match="the 6 finished draws are kept"):
        run(suite, monkeypatch, then_refused, max_draws=4)
    calls, outcome = run(suite, monkeypatch, fails_once, max_draws=4, resume=True)
    assert calls == [
        *[("answer", "baseline", 3, -1), ("judge", "baseline", 3, 0), ("judge", "baseline", 3, 1)],
        *[("answer", "with_skill", 3, -1), ("judge", "with_skill", 3, 0), ("judge", "with_skill", 3, 1)],
    ]
    assert outcome is not None
    draws = outcome.receipt.cases[0].baseline.draws
    assert [(d.index, d.status, d.replaced) for d in draws] == [
        (0, "measured", None),
        (1, "measured", None),
        (2, "lost", True),
        (3, "measured", None),
    ]
    # the stopped run: 7 answers (baseline draw 2's failed, never asked again: a call of its own; draw 3's
    # refused) and 5 judged draws x 2; the resumed run: 2 x (1 + 2), baseline draw 3's answer the refused call
    # asked again, one logical call with it: 7 + 10 + 6 - 1 = 22, as uninterrupted
    assert outcome.receipt.run.logical_calls == 7 + 10 + 6 - 1
    _, whole = run(suite, monkeypatch, fails_once, max_draws=4)
    assert whole is not None and whole.receipt.run.logical_calls == 22
    assert outcome.receipt.cases[0] == whole.receipt.cases[0]


def test_a_journal_of_an_older_version_is_refused(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, interrupt_at(10))
    journal = suite.parent / "r.json.journal"
    lines = journal.read_text().splitlines()
    header = json.loads(lines[0])
    journal.write_text("\n".join([json.dumps({**header, "journal": 1}), *lines[1:]]) + "\n")
    with pytest.raises(InputError) as caught:
        run(suite, monkeypatch, resume=True)
    assert str(caught.value) == (
        f"{journal}: this journal was written by another version of Driftproof (journal version 1, this one "
        "reads 2), so it cannot be resumed; run without --resume to start afresh"
    )


def test_a_line_cut_by_a_kill_is_dropped_and_the_next_run_appends_on_a_line_of_its_own(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, interrupt_at(10))
    journal = suite.parent / "r.json.journal"
    with journal.open("ab") as handle:
        handle.write(b'{"kind": "sample", "case": "a", "ar')  # a kill in the middle of a line
    with pytest.raises(RunInterrupted):  # the resumed run gets with_skill draw 1's sample 1 and draw 2's sample 0
        run(suite, monkeypatch, interrupt_at(3), resume=True)
    assert all(json.loads(line) for line in journal.read_text().splitlines())  # the cut line is gone
    calls, outcome = run(suite, monkeypatch, resume=True)
    assert calls == JUDGE_CALLS[5:]  # nothing the second run journaled is lost behind the cut line
    assert outcome is not None and outcome.receipt.run.logical_calls == 18


def test_an_answer_with_a_line_separator_in_it_stays_one_journal_line(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def answer(request: GenerationRequest, n: int) -> Generation | None:
        if n == 10:
            raise KeyboardInterrupt
        return Generation(text="feat: one\u2028two\u0085three") if request.purpose == "answer" else None

    with pytest.raises(RunInterrupted):
        run(suite, monkeypatch, answer)
    calls, _ = run(suite, monkeypatch, answer, resume=True)
    assert calls == JUDGE_CALLS[3:]
