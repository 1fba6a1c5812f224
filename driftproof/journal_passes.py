"""The journal entries of the calls a run makes outside its draws, and what ``--resume`` keeps of them.

Two passes call the judge outside the draws: the judge-anchor canaries before the first draw
(`driftproof.canaries`) and, with ``--judge-mode pairwise``, the pairwise pass after the last
(`driftproof.pairwise_pass`). Each of their calls is journaled the moment it comes back, in the run's journal
(`driftproof.journal`, same header and fingerprint), as one more entry kind:

- ``canary``: one canary judge sample (`JudgeSample`), by canary id and sample index, with its call's attempts;
- ``pairwise``: one pairwise call (`PairwiseCall`), by case, draw index and call (0: the with-skill answer shown
  as A, 1: swapped), with its attempts.

A resumed run keeps every journaled call that returned a reply (valid or not, its identity checked again as it
was the first time) and asks only for the others: the ones never journaled, and the ones whose call failed (no
reply), as it does for a draw's judge samples (`driftproof.resume`). The calls it does not keep were made and
paid all the same: `Spent` keeps their attempts and usage, so the receipt counts the requests of the whole run.
A call asked again is the same logical call as the one whose attempts all failed (one key, one call): a spent
entry adds a logical call only when its key is neither kept nor asked again (`Spent.calls_beyond`). A draw's
answers and judge samples are counted the same way (`driftproof.resume`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from driftproof.core.models import JudgeSample, Usage
from driftproof.core.pairwise_models import PairwiseCall
from driftproof.journal import Entry

CanaryKey = tuple[str, int]
"""(canary id, sample index)."""
PairKey = tuple[str, int, int]
"""(case id, draw index, call: 0 with-skill as A, 1 swapped)."""
K = TypeVar("K", CanaryKey, PairKey)
Key = TypeVar("Key", bound=Hashable)
V = TypeVar("V", JudgeSample, PairwiseCall)


def canary_entry(canary_id: str, sample: int, judged: JudgeSample, attempts: int) -> Entry:
    """One canary judge sample as it came back."""
    return {
        "kind": "canary",
        "canary": canary_id,
        "sample": sample,
        "judge_sample": judged.model_dump(mode="json"),
        "attempts": attempts,
    }


def pairwise_entry(case_id: str, draw_index: int, call: int, result: PairwiseCall, attempts: int) -> Entry:
    """One pairwise call as it came back."""
    return {
        "kind": "pairwise",
        "case": case_id,
        "index": draw_index,
        "call": call,
        "pairwise_call": result.model_dump(mode="json"),
        "attempts": attempts,
    }


@dataclass(slots=True)
class Spent(Generic[Key]):
    """Journaled calls a resumed run keeps no reply of (their call failed): their requests were made and paid, so
    their attempts and usage count; their keys say which logical calls they were. Shared by the passes and the
    draws' answers and judge samples (`driftproof.resume`)."""

    keys: set[Key] = field(default_factory=set)
    attempts: int = 0
    usages: list[Usage | None] = field(default_factory=list)

    def calls_beyond(self, asked: Collection[Key]) -> int:
        """The logical calls these entries add to the calls of ``asked`` (the keys kept or asked by the resumed
        run): none for a key asked again, which is one logical call however many runs its attempts took.

        >>> spent = Spent[PairKey](keys={("a", 0, 1), ("b", 2, 0)}, attempts=4)
        >>> spent.calls_beyond({("a", 0, 0), ("a", 0, 1)})  # ("a", 0, 1) was asked again; ("b", 2, 0) was not
        1
        """
        return len(self.keys - set(asked))

    def spend(self, key: Key, attempts: int, usage: Usage | None) -> None:
        """One journaled call not kept: its key, its attempts and its usage."""
        self.keys.add(key)
        self.attempts += attempts
        self.usages.append(usage)


@dataclass(slots=True)
class PassesRestored:
    """What a journal holds of the canary and pairwise passes: the calls to keep, by key, with their attempts."""

    canaries: dict[CanaryKey, tuple[JudgeSample, int]] = field(default_factory=dict)
    pairwise: dict[PairKey, tuple[PairwiseCall, int]] = field(default_factory=dict)
    canary_spent: Spent[CanaryKey] = field(default_factory=Spent)
    pairwise_spent: Spent[PairKey] = field(default_factory=Spent)


def restore_passes(entries: Sequence[Entry]) -> PassesRestored:
    """Fold the ``canary`` and ``pairwise`` entries of a journal, in order; a later entry of a key replaces an
    earlier one (its call was asked again), and a call that failed is not kept."""
    state = PassesRestored()
    for entry in entries:
        kind = entry.get("kind")
        if kind == "canary":
            sample = JudgeSample.model_validate(entry["judge_sample"])
            _keep(state.canaries, state.canary_spent, (str(entry["canary"]), int(entry["sample"])), sample, entry)
        elif kind == "pairwise":
            call = PairwiseCall.model_validate(entry["pairwise_call"])
            key = (str(entry["case"]), int(entry["index"]), int(entry["call"]))
            _keep(state.pairwise, state.pairwise_spent, key, call, entry)
    return state


def _keep(kept: dict[K, tuple[V, int]], spent: Spent[K], key: K, value: V, entry: Entry) -> None:
    attempts = int(entry.get("attempts", 0))
    gone = kept.pop(key, None)
    if gone is not None:  # asked again after it came back: the earlier one was made all the same
        spent.spend(key, gone[1], gone[0].usage)
    if value.returned is False:
        spent.spend(key, attempts, value.usage)
        return
    kept[key] = (value, attempts)
