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
- every ``answer`` and ``sample`` entry is a call that came back: one logical call, with its endpoint attempts.
  The resumed run adds its own calls to these, so the receipt counts the calls of the whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from driftproof.core.models import Draw, JudgeSample
from driftproof.journal import AnswerRecord, DrawResult, Entry, SampleRecord

ArmIndex = tuple[str, int]
"""(arm, draw index) within a case."""


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
    endpoint_attempts: int = 0

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
    state.logical_calls += 1
    waiting = state.waiting.setdefault(ci, {})
    if entry["kind"] == "answer":
        record = AnswerRecord.from_json(entry["answer"])
        state.endpoint_attempts += record.attempts
        waiting[at] = WaitingAnswer(record)  # an answer drawn again replaces the one before it
        return
    sample = SampleRecord(JudgeSample.model_validate(entry["judge_sample"]), entry["reply"], entry["attempts"])
    state.endpoint_attempts += sample.attempts
    if at in waiting and sample.sample.returned is not False:
        waiting[at].samples[int(entry["sample"])] = sample


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
