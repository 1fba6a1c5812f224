"""What a journal gives back to a resumed run: finished draws, answers still waiting for judge samples, the draws
the last rounds committed to, and the calls already made.

Read in journal order, the entries say:

- a ``draw`` entry is a finished draw: restored as it is, never drawn or judged again;
- an ``answer`` entry without a later ``draw`` entry is an answer whose draw did not finish: it is kept, and only
  its missing judge samples are asked for. A judge sample is missing when it was never journaled or its call
  failed (it returned no reply); a sample that returned a reply, valid or not, is kept. An answer lost before
  judging is finished from its entry alone. The one exception is an answer whose call failed: its draw was held
  back (``Runner._held``), so that a run stopped by a dead endpoint does not keep it, and it is drawn again;
- a ``round`` entry names the draw indices a round committed to: those neither finished nor answered are drawn
  again before the stopping rule is asked for more, so a resumed case gets the draws an uninterrupted one gets;
- every ``answer`` and ``sample`` entry is a call that came back, with its endpoint attempts. One that returned
  (a reply, or an answer lost for a reason other than its call) is one logical call. One whose call failed is
  `Spent`: its attempts count, but a call the resumed run asks again (an answer drawn again, a sample asked
  again) is the same logical call, counted once however many runs its attempts took; one not asked again (the
  failed answer of a lost draw, replaced by another index; a failed sample of a finished draw) is a logical call
  of its own (`Spent.calls_beyond`, as for the canary and pairwise calls: `driftproof.journal_passes`). The
  resumed run adds its own calls to these, so the receipt counts the calls of the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from driftproof.core.models import Draw, JudgeSample, Usage
from driftproof.journal import AnswerRecord, DrawResult, Entry, SampleRecord
from driftproof.journal_passes import Spent

ArmIndex = tuple[str, int]
"""(arm, draw index) within a case."""
DrawCall = tuple[int, str, int, int]
"""One logical call of a draw: (case index, arm, draw index, judge sample index or `ANSWER`)."""
ANSWER = -1
"""The sample index of a draw's answer in a `DrawCall`."""


@dataclass(slots=True)
class WaitingAnswer:
    """An answer whose draw did not finish, with the judge samples that came back, by sample index."""

    record: AnswerRecord
    samples: dict[int, SampleRecord] = field(default_factory=dict)


@dataclass(slots=True)
class Restored:
    """A journal read for a resumed run, by case index."""

    finished: dict[int, dict[ArmIndex, DrawResult]] = field(default_factory=dict)
    waiting: dict[int, dict[ArmIndex, WaitingAnswer]] = field(default_factory=dict)
    planned: dict[int, set[ArmIndex]] = field(default_factory=dict)
    """The draws the rounds of each case committed to."""
    logical_calls: int = 0
    """The calls that returned (a reply, or an answer lost for a reason other than its call)."""
    endpoint_attempts: int = 0
    """The attempts of ``logical_calls``."""
    spent: Spent[DrawCall] = field(default_factory=Spent)
    """The calls that failed: the attempts of all, the keys of those no later entry of theirs returned (the runner
    counts the ones it does not ask again: `Spent.calls_beyond`)."""

    def to_draw(self, ci: int, arm: str) -> list[int]:
        """The draws of ``arm`` of case ``ci`` to make afresh (answer and judge) before the stopping rule is asked
        again: those a round committed to, and any gap below the arm's highest index in the journal, that are
        neither finished nor waiting for judge samples; in index order."""
        have = {i for a, i in (*self.finished.get(ci, {}), *self.waiting.get(ci, {})) if a == arm}
        wanted = {i for a, i in self.planned.get(ci, set()) if a == arm} | set(range(max(have, default=-1)))
        return sorted(wanted - have)


def _draw_result(entry: Entry) -> DrawResult:
    return DrawResult(
        Draw.model_validate(entry["draw"]),
        entry.get("answer"),
        list(entry.get("judge_replies", [])),
        bool(entry.get("judged")),
        bool(entry.get("failed_call")),
    )


def _call(state: Restored, entry: Entry, ci: int, at: ArmIndex) -> None:
    """An answer or a judge sample that came back: count it, and keep what the draw needs of it."""
    waiting = state.waiting.setdefault(ci, {})
    if entry["kind"] == "answer":
        record = AnswerRecord.from_json(entry["answer"])
        _count(state, (ci, *at, ANSWER), record.attempts, record.usage, failed=record.call_error is not None)
        waiting[at] = WaitingAnswer(record)  # an answer drawn again replaces the one before it
        return
    sample = SampleRecord(JudgeSample.model_validate(entry["judge_sample"]), entry["reply"], entry["attempts"])
    failed = sample.sample.returned is False
    _count(state, (ci, *at, int(entry["sample"])), sample.attempts, sample.sample.usage, failed=failed)
    if at in waiting and not failed:
        waiting[at].samples[int(entry["sample"])] = sample


def _count(state: Restored, key: DrawCall, attempts: int, usage: Usage | None, *, failed: bool) -> None:
    """A call that failed is spent; one that returned is a logical call, and the same one as any failed call of
    its key before it (asked again by an earlier resume)."""
    if failed:
        state.spent.spend(key, attempts, usage)
        return
    state.logical_calls += 1
    state.endpoint_attempts += attempts
    state.spent.keys.discard(key)


def restore(entries: Sequence[Entry], case_ids: Sequence[str], arms: Sequence[str]) -> Restored:
    """Fold the entries of a journal, in order, into what the resumed run starts from."""
    index = {case_id: ci for ci, case_id in enumerate(case_ids)}
    state = Restored()
    for entry in entries:
        ci, kind = index.get(entry.get("case", "")), entry.get("kind")
        if ci is None:
            continue
        if kind == "round":
            drawn = {(arm, int(i)) for arm in arms for i in entry.get(arm, [])}
            state.planned.setdefault(ci, set()).update(drawn)
            continue
        arm = entry.get("arm")
        if not isinstance(arm, str) or arm not in arms:
            continue
        if kind == "draw":
            result = _draw_result(entry)
            state.finished.setdefault(ci, {})[(arm, result.draw.index)] = result
            state.waiting.get(ci, {}).pop((arm, result.draw.index), None)
        elif kind in ("answer", "sample"):
            _call(state, entry, ci, (arm, int(entry["index"])))
    for waiting in state.waiting.values():
        for at in [at for at, answer in waiting.items() if answer.record.call_error is not None]:
            del waiting[at]  # held back: drawn again, as if the stopped run had never journaled it
    return state
