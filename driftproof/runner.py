"""The runner: draws per arm, judge samples per draw, every call through one bounded pool.

The main thread runs an event loop over a completion queue: a finished answer sends its judge samples; a draw whose
samples are all in is finalised, journaled and recorded by index; a case whose round is complete asks the
stopping rule for more draws. Results are stored by index, so the receipt does not depend on timing.
Ctrl-C leaves the journal (every finished draw) and no receipt; ``--resume`` finishes the run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from driftproof.checks import run_checks
from driftproof.core.build import lost_draw, measured_draw, sha256_text
from driftproof.core.compare import ArmEvidence
from driftproof.core.models import Draw, JudgeSample
from driftproof.core.rounds import CaseDraws, arm_draws, next_draws
from driftproof.core.stopping import StoppingRule
from driftproof.core.words import ArmName
from driftproof.errors import RunInterrupted, RunStopped
from driftproof.journal import DrawResult, Journal
from driftproof.judge import judge_prompt, parse_reply
from driftproof.lanes.base import FATAL, AttemptFailure, FailureKind, Generation, GenerationRequest, Lane, url_host
from driftproof.suite import Suite, SuiteCase

ARMS = tuple(arm.value for arm in ArmName)  # ("with_skill", "baseline")
NOT_STARTED = Generation(text="", error="not started: the run is stopping")
"""What a worker returns for a call it did not start because the run is stopping (never counted)."""
DEFAULT_MAX_CONSECUTIVE_FAILURES = 10

__all__ = ["ARMS", "DEFAULT_MAX_CONSECUTIVE_FAILURES", "RunInterrupted", "RunOptions", "Runner", "Tally"]

_HINTS = {
    FailureKind.AUTHENTICATION: "check the key in {keys}",
    FailureKind.PERMISSION: "the key in {keys} may not use this model or endpoint",
    FailureKind.NOT_FOUND: "check the model name and the endpoint",
    FailureKind.BAD_REQUEST: "the endpoint refused the request as written",
    FailureKind.QUOTA: "the account's spend limit or quota is reached",
}


def _where(lane: Lane, role: str) -> str:
    """``the judge (anthropic api at api.anthropic.com)``."""
    endpoint = lane.endpoint()
    at = url_host(endpoint) if "://" in endpoint else endpoint
    return f"the {role} ({lane.provider} {lane.surface} at {at})"


def stop_message(lane: Lane, role: str, failure: AttemptFailure | None, reason: str, streak: int) -> str:
    """The one line a stopped run ends with: provider, endpoint host, status, the provider's error type; no key."""
    keys = " or ".join(lane.credential_names()) or "the environment"
    if failure is not None and failure.kind in FATAL:
        # the reason already reads "<status> <provider's error type>: <message>", as the lanes word it
        said = f"HTTP {reason}" if failure.status is not None else f"{failure.kind.value.replace('_', ' ')}: {reason}"
        hint = _HINTS[failure.kind].format(keys=keys)
        return (
            f"{_where(lane, role)} refused the call: {said}; {hint}. Every later call would fail the same way, "
            "so the run stopped at the first one and wrote no receipt"
        )
    return (
        f"{streak} calls in a row failed; the last, to {_where(lane, role)}: {reason}. The run stopped and wrote "
        "no receipt: check the network and the endpoint (--base-url), or raise --max-consecutive-failures"
    )


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything that shapes how a suite is drawn and judged."""

    judge_model: str | None
    model: str | None = None
    judge_samples: int = 5
    rule: StoppingRule = field(default_factory=StoppingRule)
    concurrency: int = 8
    max_tokens: int = 2048
    judge_max_tokens: int = 1024
    capture: str = "text"
    max_consecutive_failures: int = DEFAULT_MAX_CONSECUTIVE_FAILURES
    """Calls that may fail in a row (after their retries) before the run stops; 0 never stops."""
    reference: Mapping[str, ArmEvidence] | None = None
    """By case id, the reference receipt's with-skill arm the stopping rule settles this run against."""


@dataclass(slots=True)
class _Pending:
    case: int
    arm: str
    index: int
    gen: Generation
    answer: str
    samples: list[JudgeSample | None]
    replies: list[str]


@dataclass(slots=True)
class Tally:
    """Call counts: logical calls and endpoint attempts, apart."""

    logical_calls: int = 0
    endpoint_attempts: int = 0
    lost: int = 0
    planned: int = 0
    """Calls this process has committed to: each answer asked for, with the judge samples it will need."""


Progress = Callable[[str, Tally], None]
Futures = dict[Future[Generation], tuple[str, Any]]


class Runner:
    """Draws and judges one suite on one lane with one judge."""

    def __init__(
        self,
        suite: Suite,
        skill_text: str | None,
        lane: Lane,
        judge: Lane,
        options: RunOptions,
        *,
        progress: Progress | None = None,
        log_answer: Callable[[str, str, int, str], None] | None = None,
    ) -> None:
        self.suite, self.skill_text, self.lane, self.judge, self.options = suite, skill_text, lane, judge, options
        self.results: list[dict[str, dict[int, DrawResult]]] = [{a: {} for a in ARMS} for _ in suite.cases]
        self.tally = Tally()
        self._progress = progress or (lambda _event, _tally: None)
        self._log_answer = log_answer
        self._outstanding: dict[int, int] = {}
        self._done: queue.SimpleQueue[Future[Generation]] = queue.SimpleQueue()
        self._pending: dict[tuple[int, str, int], _Pending] = {}
        self._failed_in_a_row = 0
        self._stopping = threading.Event()
        self._journal: Journal | None = None
        self._held: list[tuple[int, str, DrawResult]] = []
        """Draws lost to failed calls since the last call that succeeded: journaled once one succeeds."""
        #: Why each case stopped drawing: the stopping rule's last word.
        self.stop_reasons: dict[int, str] = {}

    # -- calls (worker threads) -------------------------------------------------------------------
    def _generate(self, case: SuiteCase, arm: str, index: int) -> Generation:
        request = GenerationRequest(
            prompt=case.prompt,
            system=self.skill_text if arm == "with_skill" else None,
            model=self.options.model,
            max_tokens=self.options.max_tokens,
            purpose="answer",
            case_id=case.id,
            arm=arm,
            draw_index=index,
        )
        return self.lane.generate(request)

    def _judge_call(self, case: SuiteCase, arm: str, index: int, sample: int, answer: str) -> Generation:
        request = GenerationRequest(
            prompt=judge_prompt(case, answer),
            model=self.options.judge_model,
            max_tokens=self.options.judge_max_tokens,
            purpose="judge",
            case_id=case.id,
            arm=arm,
            draw_index=index,
            sample_index=sample,
        )
        return self.judge.generate(request)

    # -- the event loop (main thread) --------------------------------------------------------------
    def run(self, journal: Journal | None = None, *, resume: bool = False) -> None:
        """Draw and judge every case until the stopping rule settles it or its arms reach ``max_draws``.

        Draws lost to failed calls are held back from the journal until a call succeeds again: when the run
        stops for a failure every call meets (`RunStopped`), those draws are dropped, so ``--resume`` draws
        them again instead of keeping them as lost.
        """
        if journal is not None:
            if resume:
                self._restore(journal.load())
            journal.open(fresh=not resume)
        self._journal = journal
        pool = ThreadPoolExecutor(max_workers=self.options.concurrency, thread_name_prefix="driftproof")
        futures: Futures = {}
        try:
            for ci in range(len(self.suite.cases)):
                self._next_round(pool, futures, ci)
            while futures:
                future = self._next_done()
                kind, key = futures.pop(future)
                gen = future.result()
                if gen is NOT_STARTED:
                    continue
                self._count(gen)
                self._watch(gen, self.lane if kind == "answer" else self.judge, kind)
                if kind == "answer":
                    self._on_answer(pool, futures, key, gen, journal)
                else:
                    self._on_sample(pool, futures, key, gen, journal)
            self._release_held()
        except BaseException as exc:  # Ctrl-C, or a lane that cannot go on: leave the journal, stop the pool
            self._stopping.set()
            # A stopped run lets the calls already in flight end (queued ones never start), so no connection is
            # left open under a closed client; Ctrl-C does not wait for them.
            pool.shutdown(wait=isinstance(exc, RunStopped), cancel_futures=True)
            if not isinstance(exc, RunStopped):
                self._release_held()
            if journal is not None:
                journal.close()
            if not isinstance(exc, KeyboardInterrupt):
                raise
            done_draws = self.finished_draws()
            where = f" in {journal.path}" if journal is not None else ""
            raise RunInterrupted(
                f"interrupted: {done_draws} finished draws are kept{where}; add --resume to finish the run"
            ) from None
        pool.shutdown(wait=True)
        if journal is not None:
            journal.close()

    def _guarded(self, fn: Callable[..., Generation], *args: Any) -> Generation:
        """One call in a worker: not started once the run is stopping; a failure every call would meet stops
        the calls still queued at once, before the main thread has even read it."""
        if self._stopping.is_set():
            return NOT_STARTED
        gen = fn(*args)
        if gen.failure is not None and gen.failure.kind in FATAL:
            self._stopping.set()
        return gen

    def _submit(self, pool: ThreadPoolExecutor, futures: Futures, kind: str, key: Any, fn: Any, *args: Any) -> None:
        """Submit one call; when it finishes, its future joins the completion queue (O(1) per call)."""
        future: Future[Generation] = pool.submit(self._guarded, fn, *args)
        futures[future] = (kind, key)
        future.add_done_callback(self._done.put)

    def _next_done(self) -> Future[Generation]:
        """The next finished call, in completion order; wakes regularly so Ctrl-C is seen at once."""
        while True:
            try:
                return self._done.get(timeout=0.25)
            except queue.Empty:
                continue

    def _count(self, gen: Generation) -> None:
        self.tally.logical_calls += 1
        self.tally.endpoint_attempts += gen.attempts
        self._progress("call", self.tally)

    def _watch(self, gen: Generation, lane: Lane, kind: str) -> None:
        """Stop the run at a failure every later call would meet too, or after too many failed calls in a row."""
        if gen.error is None:
            self._failed_in_a_row = 0
            self._release_held()
            return
        self._failed_in_a_row += 1
        role = "answering model" if kind == "answer" else "judge"
        limit = self.options.max_consecutive_failures
        fatal = gen.failure is not None and gen.failure.kind in FATAL
        if fatal or (limit and self._failed_in_a_row >= limit):
            raise RunStopped(stop_message(lane, role, gen.failure, gen.error, self._failed_in_a_row))

    def finished_draws(self) -> int:
        """Draws finished so far (measured or lost) that a journal keeps."""
        return sum(len(r[a]) for r in self.results for a in ARMS) - len(self._held)

    def _release_held(self) -> None:
        """Journal the draws held back (lost to failed calls) now that the run goes on."""
        held, self._held = self._held, []
        if self._journal is not None:
            for ci, arm, result in held:
                self._journal.append(self.suite.cases[ci].id, arm, result)

    def _restore(self, entries: list[dict[str, Any]]) -> None:
        ids = {c.id: i for i, c in enumerate(self.suite.cases)}
        for e in entries:
            ci = ids.get(e.get("case", ""))
            if ci is None or e.get("arm") not in ARMS:
                continue
            draw = Draw.model_validate(e["draw"])
            self.results[ci][e["arm"]][draw.index] = DrawResult(
                draw,
                e.get("answer"),
                list(e.get("judge_replies", [])),
                bool(e.get("judged")),
                bool(e.get("failed_call")),
            )

    def case_draws(self, ci: int) -> CaseDraws:
        """Case ``ci`` as the stopping rule sees it: each arm's draws in index order, and the reference arm."""
        arms = {
            arm: arm_draws([(r.draw.score, r.failed_call) for _, r in sorted(self.results[ci][arm].items())])
            for arm in ARMS
        }
        reference = (self.options.reference or {}).get(self.suite.cases[ci].id)
        return CaseDraws(arms["with_skill"], arms["baseline"], reference)

    def _next_round(self, pool: ThreadPoolExecutor, futures: Futures, ci: int) -> None:
        decision = next_draws(self.options.rule, self.case_draws(ci))
        case = self.suite.cases[ci]
        self._outstanding[ci] = 0
        for arm, add in (("with_skill", decision.add_with), ("baseline", decision.add_baseline)):
            start = max(self.results[ci][arm], default=-1) + 1
            for index in range(start, start + add):
                self._submit(pool, futures, "answer", (ci, arm, index), self._generate, case, arm, index)
                self._outstanding[ci] += 1
                self.tally.planned += 1 + self.options.judge_samples
        self.stop_reasons[ci] = decision.reason

    def _on_answer(
        self,
        pool: ThreadPoolExecutor,
        futures: Futures,
        key: tuple[int, str, int],
        gen: Generation,
        journal: Journal | None,
    ) -> None:
        ci, arm, index = key
        case = self.suite.cases[ci]
        reason = gen.lost_reason or gen.error or ("timeout" if gen.timed_out else None)
        answer = gen.text
        if reason is None and not gen.assessed and not gen.text.strip():
            # a bare reply (API, stub) is the answer itself; only an empty one holds none. Agent lanes
            # apply the capture rules themselves and mark the draw assessed.
            reason = "no answer"
        if self._log_answer is not None and gen.text:
            self._log_answer(case.id, arm, index, gen.text)
        if reason is not None:
            draw = lost_draw(
                index,
                reason,
                usage=gen.usage,
                reported_model=gen.reported_model,
                model_source=gen.model_source,
                endpoint_attempts=gen.attempts,
                captured_files=list(gen.captured_files) if gen.captured_files is not None else None,
                skill_fired=gen.skill_fired,
                side_calls=list(gen.side_calls) if gen.side_calls is not None else None,
                harness_overhead=gen.extra.get("harness_overhead"),
            )
            failed_call = gen.error is not None and gen.failure is not None  # the endpoint failed, not the answer
            self._finish(
                pool,
                futures,
                ci,
                arm,
                DrawResult(draw, gen.text or None, [], False, failed_call),
                journal,
                lost_to_a_failed_call=gen.error is not None,
            )
            return
        pending = _Pending(
            ci, arm, index, gen, answer, [None] * self.options.judge_samples, [""] * self.options.judge_samples
        )
        self._pending[(ci, arm, index)] = pending
        for sample in range(self.options.judge_samples):
            self._submit(
                pool, futures, "judge", (ci, arm, index, sample), self._judge_call, case, arm, index, sample, answer
            )

    def _on_sample(
        self,
        pool: ThreadPoolExecutor,
        futures: Futures,
        key: tuple[int, str, int, int],
        gen: Generation,
        journal: Journal | None,
    ) -> None:
        ci, arm, index, sample = key
        pending = self._pending[(ci, arm, index)]
        pending.replies[sample] = gen.text
        pending.samples[sample] = self._sample(self.suite.cases[ci], gen)
        if any(s is None for s in pending.samples):
            return
        del self._pending[(ci, arm, index)]
        g = pending.gen
        samples = [s for s in pending.samples if s is not None]
        draw = measured_draw(
            index,
            samples,
            checks=run_checks(self.suite.cases[ci].checks, pending.answer),
            usage=g.usage,
            reported_model=g.reported_model,
            model_source=g.model_source,
            answer_sha256=sha256_text(pending.answer),
            served_model=g.served_model,
            endpoint_attempts=g.attempts,
            captured_files=list(g.captured_files) if g.captured_files is not None else None,
            skill_fired=g.skill_fired,
            side_calls=list(g.side_calls) if g.side_calls is not None else None,
            harness_overhead=g.extra.get("harness_overhead"),
        )
        no_reply = draw.score is None and all(sample.returned is False for sample in samples)  # every judge call failed
        self._finish(
            pool,
            futures,
            ci,
            arm,
            DrawResult(draw, pending.answer, pending.replies, True, no_reply),
            journal,
            lost_to_a_failed_call=no_reply,
        )

    @staticmethod
    def _sample(case: SuiteCase, gen: Generation) -> JudgeSample:
        if gen.error is not None or gen.timed_out:
            return JudgeSample(
                score=None,
                valid=False,
                invalid_reason=f"judge call failed: {gen.error or 'timeout'}",
                returned=False,
                reported_model=gen.reported_model,
                serving_id=gen.serving_id,
                score_text_sha256=sha256_text(gen.text) if gen.text else None,
                usage=gen.usage,
            )
        parsed = parse_reply(case, gen.text)
        return JudgeSample(
            score=parsed.score,
            valid=parsed.score is not None,
            invalid_reason=parsed.invalid_reason,
            returned=True,
            reported_model=gen.reported_model,
            serving_id=gen.serving_id,
            score_text_sha256=sha256_text(gen.text),
            usage=gen.usage,
            criteria=list(parsed.criteria) if parsed.criteria is not None else None,
        )

    def _finish(
        self,
        pool: ThreadPoolExecutor,
        futures: Futures,
        ci: int,
        arm: str,
        result: DrawResult,
        journal: Journal | None,
        *,
        lost_to_a_failed_call: bool = False,
    ) -> None:
        self.results[ci][arm][result.draw.index] = result
        if result.draw.score is None:
            self.tally.lost += 1
        if lost_to_a_failed_call:
            self._held.append((ci, arm, result))
        elif journal is not None:
            journal.append(self.suite.cases[ci].id, arm, result)
        self._progress("draw", self.tally)
        self._outstanding[ci] -= 1
        if self._outstanding[ci] == 0:
            self._next_round(pool, futures, ci)
