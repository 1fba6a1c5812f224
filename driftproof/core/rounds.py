"""What the next round of a case draws: the stopping rule ``settle-v2`` over everything a case is compared with.

A case of a run is compared twice: its ``with_skill`` arm against its ``baseline`` inside the receipt, and,
when the run was given a reference receipt (``--reference``, the default branch's receipt in the Action), its
``with_skill`` arm against the reference's ``with_skill`` arm, which is the comparison the merge gate reads.
After each round this module decides how many more draws each arm gets, so that neither verdict still hinges
on where the true spreads lie:

1. **Within the receipt**: `driftproof.core.stopping.more_draws` (the spread-interval rule of ``settle-v1``).
2. **Replacement**: a draw lost to a failed call (no answer or score came back: a timeout, a refused or dropped
   connection, a 5xx after its retries, every judge call failing) is drawn again while the arm has budget;
   once a later draw of the arm is measured, the lost one is ``replaced`` and R-6 leaves it out. A draw lost
   for what the answer was (no answer, a pointer at a file the judge was not shown) is never replaced: R-6
   keeps it, and only more measured draws can narrow what it leaves open.
3. **R-6 inconclusive**: a case that separates but is inconclusive only because of lost draws gets one more
   draw in each arm that lost one, so that one loss does not decide the case.
4. **Against the reference**: the ``with_skill`` arm gets one more draw while the comparison with the fixed
   reference arm is fragile (the same spread-interval test, the reference's draws held), while it would be a
   call with fewer than R-7's ``CALL_MIN_DRAWS`` measured draws, or while R-6 makes it inconclusive. A
   reference arm with fewer than ``CALL_MIN_DRAWS`` measured draws can support no call, so nothing is drawn
   against it (the diff reads the case underpowered and says so).

Every draw made counts against ``max_draws`` per arm: measured, lost, and replaced. Pure: numbers in, a decision out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.between import compare_between
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.stopping import FRAGILE, StopDecision, StoppingRule, more_draws, settled_reason
from driftproof.core.words import CaseVerdict

INCONCLUSIVE = CaseVerdict.INCONCLUSIVE

REPLACING = "replacing draws lost to failed calls"
INCONCLUSIVE_LOST = "inconclusive only because of lost draws"
THIN_REFERENCE_ARM = "the reference arm is too thin for a call"
CALL_NEEDS_DRAWS = "a call needs more measured draws (R-7)"


@dataclass(frozen=True, slots=True)
class ArmDraws:
    """One arm of a case as the stopping rule sees it after a round.

    ``lost`` counts the lost draws R-6 reads (not replaced); ``pending`` how many of them were lost to a failed
    call and can still be replaced; ``replaced`` the ones a later measured draw already replaced.
    """

    scores: tuple[float, ...] = ()
    lost: int = 0
    pending: int = 0
    replaced: int = 0

    @property
    def made(self) -> int:
        """Every draw made in this arm: what ``max_draws`` bounds."""
        return len(self.scores) + self.lost + self.replaced

    def evidence(self) -> ArmEvidence:
        """What R-1 … R-7 read of this arm."""
        return ArmEvidence(self.scores, self.lost, replaced=self.replaced)


@dataclass(frozen=True, slots=True)
class CaseDraws:
    """A case after a round: its two arms, and the reference's with-skill arm when the run has one."""

    with_skill: ArmDraws
    baseline: ArmDraws
    reference: ArmEvidence | None = None


def replaced_flags(draws: Sequence[tuple[bool, bool]]) -> list[bool]:
    """Which draws of an arm are replaced lost draws, from (measured, lost to a failed call) in index order.

    Each measured draw replaces at most one earlier draw lost to a failed call, the earliest still waiting.

    >>> replaced_flags([(True, False), (False, True), (True, False), (False, True), (False, False)])
    [False, True, False, False, False]
    """
    flags = [False] * len(draws)
    waiting: deque[int] = deque()
    for index, (measured, failed_call) in enumerate(draws):
        if measured and waiting:
            flags[waiting.popleft()] = True
        elif not measured and failed_call:
            waiting.append(index)
    return flags


def arm_draws(draws: Sequence[tuple[float | None, bool]]) -> ArmDraws:
    """An arm from its draws in index order, each as (score or ``None`` when lost, lost to a failed call).

    >>> arm_draws([(0.5, False), (None, True), (0.6, False), (None, False)])
    ArmDraws(scores=(0.5, 0.6), lost=1, pending=0, replaced=1)
    """
    flags = replaced_flags([(score is not None, failed) for score, failed in draws])
    scores = tuple(score for score, _ in draws if score is not None)
    lost = [(failed, gone) for (score, failed), gone in zip(draws, flags, strict=True) if score is None]
    replaced = sum(1 for _, gone in lost if gone)
    pending = sum(1 for failed, gone in lost if failed and not gone)
    return ArmDraws(scores, len(lost) - replaced, pending, replaced)


def _room(rule: StoppingRule, arm: ArmDraws) -> int:
    return max(0, rule.max_draws - arm.made)


def _against_reference(rule: StoppingRule, arm: ArmDraws, reference: ArmEvidence) -> tuple[int, bool, str]:
    """Draws the with-skill arm needs for the comparison with the reference: (add, settled, reason)."""
    if reference.measured < rule.call_min:
        return 0, True, f"{THIN_REFERENCE_ARM} ({reference.measured} measured draws, a call needs {rule.call_min})"
    if len(arm.scores) < 2:
        return 0, False, "waiting for the within-receipt draws"
    verdict = compare_between(arm.evidence(), reference, rule.floor, rule.call_min)
    if verdict.verdict == INCONCLUSIVE:
        return rule.step, False, INCONCLUSIVE_LOST
    if verdict.verdict == CaseVerdict.UNDERPOWERED and verdict.thin == "after":
        return rule.step, False, CALL_NEEDS_DRAWS
    reason = settled_reason(rule, arm.scores, reference.scores)
    if reason is not None:
        return 0, True, reason
    return rule.step, False, FRAGILE


def next_draws(rule: StoppingRule, case: CaseDraws) -> StopDecision:
    """How many more draws each arm of ``case`` gets now; ``(0, 0)`` means the case is done.

    >>> from driftproof.core.stopping import DEFAULT_RULE
    >>> next_draws(DEFAULT_RULE, CaseDraws(ArmDraws(), ArmDraws()))
    StopDecision(add_with=3, add_baseline=3, settled=False, reason='with vs baseline: min_draws not reached')
    >>> wide = ArmDraws((0.5, 0.55, 0.6)); lost = ArmDraws((0.5, 0.6), lost=1, pending=1)
    >>> next_draws(DEFAULT_RULE, CaseDraws(wide, lost)).add_baseline  # the timed-out draw is drawn again
    1
    """
    w, b = case.with_skill, case.baseline
    within = more_draws(
        rule, w.scores, b.scores, lost_with=w.made - len(w.scores), lost_baseline=b.made - len(b.scores)
    )
    add_w, add_b = within.add_with, within.add_baseline
    settled, reasons = within.settled, [f"with vs baseline: {within.reason}"]
    if w.pending or b.pending:
        add_w, add_b = max(add_w, min(w.pending, _room(rule, w))), max(add_b, min(b.pending, _room(rule, b)))
        settled, reasons = False, [*reasons, REPLACING]
    measured = len(w.scores) >= 2 and len(b.scores) >= 2
    if within.stop and measured and compare(w.evidence(), b.evidence(), rule.floor).verdict == INCONCLUSIVE:
        add_w = max(add_w, min(rule.step if w.lost else 0, _room(rule, w)))
        add_b = max(add_b, min(rule.step if b.lost else 0, _room(rule, b)))
        settled, reasons = False, [*reasons, f"with vs baseline: {INCONCLUSIVE_LOST}"]
    if case.reference is not None:
        more, done, why = _against_reference(rule, w, case.reference)
        add_w = max(add_w, min(more, _room(rule, w)))
        settled, reasons = settled and done, [*reasons, f"against the reference: {why}"]
    return StopDecision(add_w, add_b, settled and add_w == add_b == 0, " · ".join(reasons))
