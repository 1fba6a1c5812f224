"""Carrying the standing baseline, and promoting a pull request's receipt on merge. Pure.

**Carry.** A pull request's run is drawn against the default branch's receipt. Where ``driftproof stale`` says
that receipt's baseline arm of a case stands for this run (`core.stale.stale`: nothing the arm depends on
changed), the run reuses its draws instead of drawing them: each carried draw is copied as the source recorded
it (its judge samples, answer sha256, usage: the seal evidence it was drawn with) and names the source receipt's
seal in ``carried_from``. The stopping rule reads carried draws as fixed draws of the arm, so it draws only the
difference when it wants more. Verification is not moved by them: the identity check applies to what this run
drew, and a receipt whose every judge sample was carried is not TESTED (`core.verification.verify`).

**Promote.** The store job on the default branch would draw again what the pull request's last run already
measured. It may promote that receipt instead when the merge commit's skill, suite and settings hash to what
the receipt recorded and it was drawn to the reference rule: `promotion_refusal` says why not, or ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from driftproof.core import carry_sentences
from driftproof.core.models import Arm, Draw, Receipt
from driftproof.core.stale import StaleReport
from driftproof.core.words import Staleness


def standing_baselines(report: StaleReport) -> tuple[str, ...]:
    """The ids of the cases whose baseline arm stands (only ``stands``: a ``regrade`` arm is drawn).

    >>> from driftproof.core.stale import ArmStaleness, CaseStaleness
    >>> ok, redo = ArmStaleness(Staleness.STANDS, ()), ArmStaleness(Staleness.RERUN, ("x",))
    >>> standing_baselines(StaleReport((CaseStaleness("a", redo, ok), CaseStaleness("b", ok, redo)), (), (), ()))
    ('a',)
    """
    return tuple(case.id for case in report.cases if case.baseline.status == Staleness.STANDS)


def carry_arm(arm: Arm, seal: str) -> tuple[Draw, ...]:
    """The draws of ``arm`` as carried from the receipt sealed ``seal``: unchanged but for ``carried_from``."""
    return tuple(draw.model_copy(update={"carried_from": seal}) for draw in arm.draws)


def why_not_carried(report: StaleReport) -> str | None:
    """Why some baseline arms are not carried: how many and the first reason; ``None`` when every one stands."""
    stale = [case.baseline for case in report.cases if case.baseline.status != Staleness.STANDS]
    if not stale:
        return None
    first = next((r for arm in stale for r in arm.reasons), "unknown")
    return carry_sentences.carry_stale_cases(len(stale), len(report.cases), first)


class CarriedSummary(NamedTuple):
    """What a receipt carried: from where, for how many cases, how many draws reused and drawn beside them."""

    source: str
    """The seal of the receipt carried from (the first, when draws name several)."""
    cases: int
    """Cases whose baseline arm holds a carried draw."""
    of: int
    """Cases of the receipt."""
    reused: int
    """Carried draws."""
    drawn: int
    """Baseline draws this run made, in every case: beside the carried ones (what the stopping rule asked beyond
    them), and in the cases whose baseline arm was drawn."""


def carried_summary(receipt: Receipt) -> CarriedSummary | None:
    """What ``receipt`` carried, or ``None`` when it carried nothing.

    >>> carried_summary(Receipt.model_construct(cases=[])) is None
    True
    """
    sources: list[str] = []
    cases = reused = drawn = 0
    for case in receipt.cases:
        carried = [d.carried_from for d in case.baseline.draws if d.carried_from is not None]
        drawn += len(case.baseline.draws) - len(carried)
        if not carried:
            continue
        cases += 1
        reused += len(carried)
        sources.extend(s for s in carried if s not in sources)
    if not sources:
        return None
    return CarriedSummary(sources[0], cases, len(receipt.cases), reused, drawn)


def own(draws: Iterable[Draw]) -> list[Draw]:
    """The draws this run made (not carried)."""
    return [d for d in draws if d.carried_from is None]


def promotion_refusal(candidate: Receipt, report: StaleReport, suite_sha256: str, rule: str) -> str | None:
    """Why the pull request's receipt ``candidate`` cannot stand for the merge commit's store run, or ``None``.

    ``report`` is ``driftproof stale`` of ``candidate`` against exactly the run the store job would make (drawn
    ``--as-reference``), ``suite_sha256`` today's suite bytes, ``rule`` the store job's stopping rule. Exact: every
    arm stands with no advisory and nothing unknown, the suite bytes are the same, and the rule is the reference
    rule, character for character.
    """
    if candidate.regrade is not None or candidate.source is not None:
        return carry_sentences.PROMOTE_NOT_A_RUN
    if candidate.run.settings.stopping_rule != rule:
        return carry_sentences.promote_rule(candidate.run.settings.stopping_rule, rule)
    if candidate.suite.sha256 != suite_sha256:
        return carry_sentences.PROMOTE_SUITE
    reasons: Sequence[str] = [r for c in report.cases for a in (c.with_skill, c.baseline) for r in a.reasons]
    if reasons:
        return reasons[0]
    if report.advisories:
        return report.advisories[0]
    if report.unknown:
        return f"not recorded: {', '.join(report.unknown)}"
    return None
