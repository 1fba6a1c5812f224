"""The runner: draws per arm, judge samples per draw, every call through one bounded pool.

The main thread runs an event loop over a completion queue: every call that comes back is journaled at once; a
finished answer sends its judge samples; a draw whose samples are all in is finalised, journaled and recorded by
index; a case whose round is complete asks the stopping rule for more draws, which take the smallest free
indices of their arm; at most `DRAWS_IN_FLIGHT` draws are under way at once. The draws of one arm that a round
asks for (one prompt, system, model and output limit) go in as few requests as the answering lane allows
(`Runner.draws_per_request`), each still its own logical call (`driftproof.judge_batch`). Results are stored by
index, so the receipt does not depend on timing. Ctrl-C (or a kill) leaves the journal and no receipt; ``--resume``
finishes the run from it (`driftproof.resume`) without asking again for any answer or judge sample that came
back.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from driftproof.answers import Finished, answer_record, judge_sample, judged_answer, lost_answer
from driftproof.core.compare import ArmEvidence
from driftproof.core.defaults import DEFAULTS
from driftproof.core.models import Draw, PairwiseResult
from driftproof.core.placebo import PLACEBO_ARM, placebo_draws
from driftproof.core.plan import Budget, Pricing
from driftproof.core.plan_sentences import STOPPED_AT_BUDGET
from driftproof.core.rounds import ArmDraws, CaseDraws, arm_draws, next_draws
from driftproof.core.stopping import StoppingRule
from driftproof.core.words import ArmName, Capture, JudgeMode
from driftproof.errors import RunInterrupted, RunStopped
from driftproof.journal import (
    AnswerRecord,
    DrawResult,
    Entry,
    Journal,
    SampleRecord,
    answer_entry,
    draw_entry,
    round_entry,
    sample_entry,
)
from driftproof.journal_passes import Spent
from driftproof.judge import judge_request
from driftproof.judge_batch import sample_groups, split_samples
from driftproof.lanes.base import FATAL, Generation, GenerationRequest, Lane
from driftproof.planning import arms_of, ledger_for
from driftproof.receipt_memory import FieldSets
from driftproof.resume import ANSWER, DrawCall, Restored, restore
from driftproof.stop_lines import stopped
from driftproof.suite import Suite, SuiteCase

ARMS = tuple(arm.value for arm in ArmName)  # ("with_skill", "baseline")
NOT_STARTED = Generation(text="", error="not started: the run is stopping")
"""What a worker returns for a call it did not start because the run is stopping (never counted)."""

__all__ = ["ARMS", "RunOptions", "Runner", "Tally"]

DRAWS_IN_FLIGHT = 256
"""At most this many draws (or four per worker, if more) are under way at once: an answer asked for beyond them
waits, unsent, until a draw finishes. Without the bound every case's first round went to the pool at once, and
the answers and judge replies of all of them waited in its queue together (issue 14: memory flat in the draws);
a run of fewer draws sends them all at once, as before."""


JUDGE_MAX_TOKENS = 1024
"""The output-token budget of every judge call. ``run.make_lanes`` builds an API judge lane with it as its ceiling,
so the sampling that lane reports before any call (what ``driftproof stale`` and ``driftproof regrade`` compare)
is the one a run records."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Everything that shapes how a suite is drawn and judged."""

    judge_model: str | None
    model: str | None = None
    judge_samples: int = DEFAULTS.judge_samples
    rule: StoppingRule = field(default_factory=StoppingRule)
    concurrency: int = DEFAULTS.concurrency
    max_tokens: int = DEFAULTS.max_tokens
    judge_max_tokens: int = JUDGE_MAX_TOKENS
    capture: Capture = DEFAULTS.capture
    max_consecutive_failures: int = DEFAULTS.max_consecutive_failures
    """Calls that may fail in a row (after their retries) before the run stops; 0 never stops."""
    reference: Mapping[str, ArmEvidence] | None = None
    """By case id, the reference receipt's with-skill arm the stopping rule settles this run against."""
    carried: Mapping[str, Sequence[Draw]] | None = None
    """By case id, the baseline draws carried from the reference (`core.carry`): fixed draws of the arm, never
    drawn, journaled or judged again; the stopping rule draws only what it wants beyond them."""
    budget: Budget | None = None
    """``--budget`` / ``--budget-usd``: no draw starts whose worst case could take the run past it."""
    pricing: Pricing = field(default_factory=Pricing)
    """What each kind of call is billed at (with ``--batch``, the batch price for the batched ones), which a dollar
    budget and the receipt's judge overhead read."""
    placebo_text: str | None = None
    """``--placebo``: the neutral text the third arm, ``placebo``, is given in the skill's place (`core.placebo`)."""
    judge_mode: JudgeMode = DEFAULTS.judge_mode
    """``--judge-mode``: ``pairwise`` also judges each draw pair side by side, after the draws
    (`driftproof.pairwise_pass`)."""


@dataclass(slots=True)
class _Pending:
    """An answer waiting for its judge samples (``None`` where one has not come back yet)."""

    record: AnswerRecord
    samples: list[SampleRecord | None]


@dataclass(slots=True)
class Tally:
    """Call counts: logical calls and endpoint attempts, apart, over the whole run (a resumed run's included)."""

    logical_calls: int = 0
    endpoint_attempts: int = 0
    lost: int = 0
    planned: int = 0
    """Calls committed to: each answer asked for, with the judge samples it will need."""
    retries: int | None = None
    """Retries counted apart (``--batch``: its batch requests' retries, this run's, for a batch has far fewer HTTP
    requests than calls); ``None``: the endpoint attempts beyond one a logical call."""

    def retried(self) -> int:
        """The retries the progress line shows."""
        return self.retries if self.retries is not None else max(0, self.endpoint_attempts - self.logical_calls)


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
        on_draw: Callable[[int, str, DrawResult], None] | None = None,
        keep_texts: bool = True,
    ) -> None:
        self.suite, self.skill_text, self.lane, self.judge, self.options = suite, skill_text, lane, judge, options
        #: The arms each case draws: with ``--placebo`` a third, drawn level with the with-skill arm.
        self.arms: tuple[str, ...] = arms_of(options)
        self.results: list[dict[str, dict[int, DrawResult]]] = [{a: {} for a in self.arms} for _ in suite.cases]
        self.tally = Tally()
        self._progress = progress or (lambda _event, _tally: None)
        self._log_answer = log_answer
        self._on_draw = on_draw
        self._keep_texts = keep_texts
        """Without it, a finished draw keeps no answer or judge reply in `results` once journaled and handed to
        ``on_draw`` (the transcripts spool): memory stays flat in the number of draws."""
        self._outstanding: dict[int, int] = {}
        self._done: queue.SimpleQueue[Future[Generation]] = queue.SimpleQueue()
        self._pending: dict[tuple[int, str, int], _Pending] = {}
        self._drawing: set[tuple[int, str, int]] = set()
        """The draws whose answer went to the pool and which are not finished (`DRAWS_IN_FLIGHT`)."""
        self._waiting: deque[tuple[Any, Any, tuple[Any, ...]]] = deque()
        """Answer requests asked for beyond `DRAWS_IN_FLIGHT`, in the order asked: each sent once its draws fit."""
        self._draws_in_flight = max(DRAWS_IN_FLIGHT, 4 * options.concurrency)
        self._field_sets = FieldSets()
        """The finished draws' models share their sets of field names (`driftproof.receipt_memory`)."""
        self._failed_in_a_row = 0
        self._spent: Spent[DrawCall] = Spent()
        """A resumed run: the journal's calls that failed (`Restored.spent`)."""
        self._asked_again: set[DrawCall] = set()
        """The keys of ``_spent`` this run asked again: the same logical calls, not counted twice."""
        self._stopping = threading.Event()
        self._journal: Journal | None = None
        self._held: list[Entry] = []
        """Journal entries held back since the last call that succeeded: the draws lost to failed calls, and the
        rounds decided after them. Journaled once a call succeeds; dropped when the run stops (`RunStopped`)."""
        self._held_draws = 0
        #: Why each case stopped drawing: the stopping rule's last word.
        self.stop_reasons: dict[int, str] = {}
        #: The budget's ledger: the worst case of every draw started (``None`` without a budget).
        self.ledger = ledger_for(options, suite.cases, skill_text)
        #: The provider batch ids the calls went through (``--batch``: `driftproof.batch_runner`), in order.
        self.batch_ids: list[str] = []
        #: With ``--judge-mode pairwise``, by case index, the pairs judged side by side (`driftproof.pairwise_pass`).
        self.pairwise: dict[int, list[PairwiseResult]] | None = None

    # -- calls (worker threads) -------------------------------------------------------------------
    def _generate(self, case: SuiteCase, arm: str, draws: tuple[int, ...]) -> Generation:
        return self.lane.generate(self.answers_request(case, arm, draws))

    def draws_per_request(self) -> int:
        """How many draws of one arm one answer request may ask for: what the answering lane allows (Chat
        Completions ``n`` on the OpenAI API lane, 1 elsewhere), never more than `DRAWS_IN_FLIGHT`."""
        return max(1, min(self.lane.samples_per_request(), self._draws_in_flight))

    def answers_request(self, case: SuiteCase, arm: str, draws: tuple[int, ...]) -> GenerationRequest:
        """The one request of the answers of ``draws`` (draw indices of one arm, the first its ``draw_index``)."""
        return replace(self.answer_request(case, arm, draws[0]), samples=len(draws))

    def answer_request(self, case: SuiteCase, arm: str, index: int) -> GenerationRequest:
        """The request of one answer."""
        texts = {"with_skill": self.skill_text, PLACEBO_ARM: self.options.placebo_text}  # delivered the same way
        return GenerationRequest(
            prompt=case.prompt,
            system=texts.get(arm),
            model=self.options.model,
            max_tokens=self.options.max_tokens,
            purpose="answer",
            case_id=case.id,
            arm=arm,
            draw_index=index,
        )

    def _judge_call(self, case: SuiteCase, arm: str, index: int, samples: tuple[int, ...], answer: str) -> Generation:
        """One judge request for the samples ``samples`` of a draw (one, or several where the lane allows)."""
        return self.judge.generate(self.judge_call_request(case, arm, index, samples, answer))

    def judge_call_request(
        self, case: SuiteCase, arm: str, index: int, samples: tuple[int, ...], answer: str
    ) -> GenerationRequest:
        """The request of one judge call for the samples ``samples`` of a draw."""
        request = judge_request(
            case,
            answer,
            model=self.options.judge_model,
            max_tokens=self.options.judge_max_tokens,
            arm=arm,
            draw_index=index,
            sample_index=samples[0],
        )
        return replace(request, samples=len(samples))

    # -- the event loop (main thread) --------------------------------------------------------------
    def run(self, journal: Journal | None = None, *, resume: bool = False) -> None:
        """Draw and judge every case until the stopping rule settles it or its arms reach ``max_draws``.

        Every call that comes back is journaled at once. Draws lost to failed calls are held back from the
        journal until a call succeeds again: when the run stops for a failure every call meets (`RunStopped`),
        those draws are dropped, so ``--resume`` does not keep them as lost: it draws again an answer whose call
        failed, and asks again for the judge samples of an answer whose every judge call failed.
        """
        restored = restore(journal.load(), [c.id for c in self.suite.cases], self.arms) if journal and resume else None
        if restored is not None:  # the calls of the whole run, the ones the journal holds included
            self._spent = restored.spent
            self.tally.logical_calls = restored.logical_calls
            self.tally.endpoint_attempts = restored.endpoint_attempts + restored.spent.attempts
            self.tally.planned = restored.logical_calls
        if journal is not None:
            journal.open(fresh=not resume)
        self._journal = journal
        pool = ThreadPoolExecutor(max_workers=self.options.concurrency, thread_name_prefix="driftproof")
        futures: Futures = {}
        try:
            for ci in range(len(self.suite.cases)):
                self._start_case(pool, futures, ci, restored)
            while futures:
                future = self._next_done()
                kind, key = futures.pop(future)
                gen = future.result()
                if gen is NOT_STARTED:
                    continue
                if kind == "judge":
                    self._on_request(pool, futures, key, gen)
                else:
                    self._on_answers(pool, futures, key, gen)
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
            where = f" in {journal.path}" if journal is not None else ""
            raise RunInterrupted(self.interrupted_line(where)) from None
        finally:  # the journal's failed calls this run did not ask again: each a logical call of its own
            self.tally.logical_calls += self._spent.calls_beyond(self._asked_again)
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
        """Submit one call; when it finishes, its future joins the completion queue (O(1) per call). An answer
        request whose new draws would take the draws under way past `DRAWS_IN_FLIGHT` waits in `_waiting` instead,
        as does every one asked for after it; one asking again for draws already under way is sent at once."""
        if kind == "answer":
            ci, arm, draws = key
            new = [(ci, arm, i) for i in draws if (ci, arm, i) not in self._drawing]
            if new and (self._waiting or len(self._drawing) + len(new) > self._draws_in_flight):
                self._waiting.append((key, fn, args))
                return
            self._drawing.update(new)
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

    def _count(self, gen: Generation, key: DrawCall) -> None:
        """One call that came back: a logical call, with its attempts. A failed call of the journal that it asks
        again is this same logical call; `run` adds, at its end, those it did not ask again."""
        if key in self._spent.keys:
            self._asked_again.add(key)
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
            raise stopped(lane, role, gen.failure, gen.error, self._failed_in_a_row)

    # -- the journal -------------------------------------------------------------------------------
    def interrupted_line(self, where: str) -> str:
        """What an interrupted run says it keeps (``where``: `` in PATH`` of its journal, or nothing)."""
        return f"interrupted: {self.finished_draws()} finished draws are kept{where}; add --resume to finish the run"

    def finished_draws(self) -> int:
        """Draws finished so far (measured or lost) that a journal keeps."""
        return sum(len(r[a]) for r in self.results for a in self.arms) - self._held_draws

    def _write(self, entry: Entry, *, hold: bool = False) -> None:
        """Journal an entry now, or hold it back (with everything after it) until a call succeeds."""
        if hold or self._held:
            self._held.append(entry)
        elif self._journal is not None:
            self._journal.write(entry)

    def _release_held(self) -> None:
        """Journal the entries held back (draws lost to failed calls, rounds after them) now that the run goes on."""
        held, self._held, self._held_draws = self._held, [], 0
        if self._journal is not None:
            for entry in held:
                self._journal.write(entry)

    def _answer_arrived(self, ci: int, arm: str, index: int, gen: Generation) -> AnswerRecord:
        """An answer that came back, journaled at once (before a failure can stop the run)."""
        record = answer_record(gen)
        if self._journal is not None:
            self._journal.write(answer_entry(self.suite.cases[ci].id, arm, index, record))
        return record

    def _sample_arrived(self, ci: int, arm: str, index: int, sample: int, gen: Generation) -> SampleRecord:
        """A judge sample that came back, journaled at once (before a failure can stop the run)."""
        judged = judge_sample(self.suite.cases[ci], gen)
        if self._journal is not None:
            self._journal.write(sample_entry(self.suite.cases[ci].id, arm, index, sample, judged))
        return judged

    # -- rounds ------------------------------------------------------------------------------------
    def _start_case(self, pool: ThreadPoolExecutor, futures: Futures, ci: int, restored: Restored | None) -> None:
        """Start case ``ci``: afresh, or from the journal, finishing the round it was in before asking for more.
        Carried baseline draws come first, in either case: a resumed run does not draw again what they hold."""
        for draw in (self.options.carried or {}).get(self.suite.cases[ci].id, ()):
            # a lost draw the source replaced reads as lost to a failed call, so R-6 reads the arm as it did there
            self.results[ci]["baseline"][draw.index] = DrawResult(draw, None, [], False, bool(draw.replaced))
        if restored is None:
            self._next_round(pool, futures, ci)
            return
        for (arm, index), result in restored.finished.get(ci, {}).items():
            self.results[ci][arm][index] = self._kept(ci, arm, result)
            if self.ledger is not None:
                self.ledger.commit(ci, arm)
            self.tally.lost += result.draw.score is None
        waiting = restored.waiting.get(ci, {})
        redraw = {arm: [i for i in restored.to_draw(ci, arm) if i not in self.results[ci][arm]] for arm in self.arms}
        self._outstanding[ci] = len(waiting) + sum(map(len, redraw.values()))
        if not self._outstanding[ci]:
            self._next_round(pool, futures, ci)
        for arm, indices in redraw.items():
            self._start_answers(pool, futures, ci, arm, indices)
        for (arm, index), answer in waiting.items():
            if self.ledger is not None:
                self.ledger.commit(ci, arm)
            self.tally.planned += self.options.judge_samples - len(answer.samples)
            self._judge(pool, futures, (ci, arm, index), answer.record, answer.samples)

    def case_draws(self, ci: int) -> CaseDraws:
        """Case ``ci`` as the stopping rule sees it: each arm's draws in index order, and the reference arm."""
        arms = {arm: self._arm_draws(ci, arm) for arm in ARMS}
        reference = (self.options.reference or {}).get(self.suite.cases[ci].id)
        return CaseDraws(arms["with_skill"], arms["baseline"], reference)

    def _arm_draws(self, ci: int, arm: str) -> ArmDraws:
        """One arm of case ``ci`` as the stopping rule sees it."""
        return arm_draws([(r.draw.score, r.failed_call) for _, r in sorted(self.results[ci][arm].items())])

    def _kept(self, ci: int, arm: str, result: DrawResult) -> DrawResult:
        """What `results` keeps of a finished draw: handed to ``on_draw`` first, then its texts dropped unless kept."""
        if self._on_draw is not None:
            self._on_draw(ci, arm, result)
        self._field_sets.share_draw(result.draw)
        return result if self._keep_texts else replace(result, answer=None, judge_replies=[])

    def _free_indices(self, ci: int, arm: str, count: int) -> list[int]:
        """The ``count`` smallest indices of ``arm`` that hold no draw: gaps first, so indices run 0, 1, 2, …"""
        taken = self.results[ci][arm].keys() | {i for c, a, i in self._pending if (c, a) == (ci, arm)}
        free: list[int] = []
        index = 0
        while len(free) < count:
            if index not in taken:
                free.append(index)
            index += 1
        return free

    def _next_round(self, pool: ThreadPoolExecutor, futures: Futures, ci: int) -> None:
        decision = next_draws(self.options.rule, self.case_draws(ci))
        case = self.suite.cases[ci]
        self.stop_reasons[ci] = decision.reason
        wants = {"with_skill": decision.add_with, "baseline": decision.add_baseline}
        if PLACEBO_ARM in self.arms:  # level with the with-skill arm once this round's draws are made
            placebo = self._arm_draws(ci, PLACEBO_ARM)
            made = self._arm_draws(ci, "with_skill").made + decision.add_with
            wants[PLACEBO_ARM] = placebo_draws(self.options.rule.max_draws, made, placebo)
        if self.ledger is not None:  # never start a draw whose worst case could take the run past the budget
            wants, refused = self.ledger.allow(ci, wants)
            if refused:
                self.stop_reasons[ci] = STOPPED_AT_BUDGET
        drawn = {arm: self._free_indices(ci, arm, count) for arm, count in wants.items()}
        self._outstanding[ci] = sum(map(len, drawn.values()))
        if self._outstanding[ci]:
            self._write(round_entry(case.id, drawn))
        for arm, indices in drawn.items():
            self._start_answers(pool, futures, ci, arm, indices)

    def _start_answers(self, pool: ThreadPoolExecutor, futures: Futures, ci: int, arm: str, indices: list[int]) -> None:
        """Start the draws ``indices`` of one arm: each draw's worst case is committed to the budget before any
        request that asks for it is sent (a request for several draws reserves for all of them)."""
        for _ in indices:
            if self.ledger is not None:
                self.ledger.commit(ci, arm)
            self.tally.planned += 1 + self.options.judge_samples
        self._ask_answers(pool, futures, ci, arm, indices)

    def _ask_answers(self, pool: ThreadPoolExecutor, futures: Futures, ci: int, arm: str, indices: list[int]) -> None:
        """Ask for the answers of draws ``indices`` of one arm, in as few requests as `draws_per_request` allows."""
        case = self.suite.cases[ci]
        for group in self.answer_groups(ci, arm, indices):
            self._submit(pool, futures, "answer", (ci, arm, group), self._generate, case, arm, group)

    def answer_groups(self, ci: int, arm: str, indices: list[int]) -> list[tuple[int, ...]]:
        """The draws ``indices`` of one arm of case ``ci``, in groups of at most `draws_per_request` (one request
        each)."""
        return sample_groups(indices, self.draws_per_request())

    # -- answers, samples, draws -------------------------------------------------------------------
    def _on_answers(self, pool: ThreadPoolExecutor, futures: Futures, key: Any, gen: Generation) -> None:
        """An answer request that came back: each draw it holds is a logical call, journaled at once, then judged;
        the draws a short reply left out (a server that ignores ``n``) are asked for again."""
        ci, arm, draws = key
        answers = split_samples(gen, len(draws))
        if self.ledger is not None:  # the reported usage in place of the worst case it reserved
            self.ledger.settle(ci, arm, "answer", gen.usage, len(answers))
        records = []
        for index, one in zip(draws, answers, strict=False):
            self._count(one, (ci, arm, index, ANSWER))
            records.append(self._answer_arrived(ci, arm, index, one))
        self._watch(gen, self.lane, "answer")
        for index, record in zip(draws, records, strict=False):
            self._on_answer(pool, futures, (ci, arm, index), record)
        if len(answers) < len(draws):
            self._ask_answers(pool, futures, ci, arm, list(draws[len(answers) :]))

    def _on_answer(
        self, pool: ThreadPoolExecutor, futures: Futures, key: tuple[int, str, int], record: AnswerRecord
    ) -> None:
        ci, arm, index = key
        if self._log_answer is not None and record.text:
            self._log_answer(self.suite.cases[ci].id, arm, index, record.text)
        self._judge(pool, futures, key, record, {})

    def _judge(
        self,
        pool: ThreadPoolExecutor,
        futures: Futures,
        key: tuple[int, str, int],
        record: AnswerRecord,
        samples: Mapping[int, SampleRecord],
    ) -> None:
        """Ask for the judge samples an answer is missing; a lost answer, or one with every sample, is finished."""
        ci, arm, index = key
        if record.lost_reason is not None:
            if self.ledger is not None:  # its judge samples are never asked for
                self.ledger.unused(ci, self.options.judge_samples - len(samples))
            self._finish(pool, futures, ci, arm, lost_answer(index, record))
            return
        pending = _Pending(record, [samples.get(j) for j in range(self.options.judge_samples)])
        if all(s is not None for s in pending.samples):
            self._finish(pool, futures, ci, arm, self._judged(ci, index, pending))
            return
        self._pending[key] = pending
        self._ask_samples(pool, futures, key, [j for j, got in enumerate(pending.samples) if got is None])

    def _ask_samples(
        self, pool: ThreadPoolExecutor, futures: Futures, key: tuple[int, str, int], missing: list[int]
    ) -> None:
        """Ask for samples ``missing`` of a pending draw, in as few requests as the judge lane allows."""
        ci, arm, index = key
        text = self._pending[key].record.text
        for group in self.sample_groups(key, missing):
            args = (self.suite.cases[ci], arm, index, group, text)
            self._submit(pool, futures, "judge", (ci, arm, index, group), self._judge_call, *args)

    def sample_groups(self, key: tuple[int, str, int], missing: list[int]) -> list[tuple[int, ...]]:
        """The judge samples ``missing`` of draw ``key``, in groups of at most what the judge lane allows in one
        request."""
        return sample_groups(missing, self.judge.samples_per_request())

    def _on_request(self, pool: ThreadPoolExecutor, futures: Futures, key: Any, gen: Generation) -> None:
        """A judge request that came back: each sample it holds is a logical call, journaled at once, then recorded;
        the samples a short reply left out (a server that ignores ``n``) are asked for again."""
        ci, arm, index, group = key
        samples = split_samples(gen, len(group))
        if self.ledger is not None:
            self.ledger.settle(ci, arm, "judge", gen.usage, len(samples))
        records = []
        for sample, one in zip(group, samples, strict=False):
            self._count(one, (ci, arm, index, sample))
            records.append(self._sample_arrived(ci, arm, index, sample, one))
        self._watch(gen, self.judge, "judge")
        left_out = list(group[len(samples) :])
        for sample, record in zip(group, records, strict=False):
            self._on_sample(pool, futures, (ci, arm, index, sample), record)
        if left_out:
            self._ask_samples(pool, futures, (ci, arm, index), left_out)

    def _judged(self, ci: int, index: int, pending: _Pending) -> Finished:
        samples = [s for s in pending.samples if s is not None]
        return judged_answer(self.suite.cases[ci], index, pending.record, samples)

    def _on_sample(
        self, pool: ThreadPoolExecutor, futures: Futures, key: tuple[int, str, int, int], record: SampleRecord
    ) -> None:
        ci, arm, index, sample = key
        pending = self._pending[(ci, arm, index)]
        pending.samples[sample] = record
        if any(s is None for s in pending.samples):
            return
        del self._pending[(ci, arm, index)]
        self._finish(pool, futures, ci, arm, self._judged(ci, index, pending))

    def _finish(self, pool: ThreadPoolExecutor, futures: Futures, ci: int, arm: str, finished: Finished) -> None:
        result = finished.result
        if result.draw.score is None:
            self.tally.lost += 1
        self._held_draws += finished.lost_to_a_failed_call
        self._write(draw_entry(self.suite.cases[ci].id, arm, result), hold=finished.lost_to_a_failed_call)
        self.results[ci][arm][result.draw.index] = self._kept(ci, arm, result)
        self._drawing.discard((ci, arm, result.draw.index))
        while self._waiting and len(self._drawing) + len(self._waiting[0][0][2]) <= self._draws_in_flight:
            key, fn, args = self._waiting.popleft()
            self._drawing.update((key[0], key[1], i) for i in key[2])  # under way now: sent at once
            self._submit(pool, futures, "answer", key, fn, *args)
        self._progress("draw", self.tally)
        self._outstanding[ci] -= 1
        if self._outstanding[ci] == 0:
            self._next_round(pool, futures, ci)
