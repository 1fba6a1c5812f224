"""Lift by case: each case's part in a receipt's measured lift, from its recorded draw scores alone. Pure.

For every case: each arm's mean and sample spread across answers (the measured draw scores, one per answer; a
draw's extra judge samples are not separate answers, and a legacy band's judge samples never stand in for draws),
the difference, the measured, drawn and lost counts, and the lift without the case. Lost draws are left out of
the means and spreads. Every included case weighs the same; removing a case removes both of its arms and averages
the rest (leave-one-out). A case *carries* the positive measured lift when the lift is positive and the lift
without it is zero or below, decided on the unrounded figures (with the one float tolerance, ``TOLERANCE``).

*Helps* and *hurts* are the upward and downward separations of with_skill against baseline under R-1 … R-4 and
R-6 (`compare`). These comparative labels, and the carrier, need the receipt's one recorded grader to have given
every score of both arms, and the case's rubric hash; they are withheld, with the reason, from a smoke run, a
receipt below TESTED, a non-model, narrowed or incomplete receipt; lost draws withhold the carrier. Nothing here
changes a verdict, a band or a published number: the breakdown only reads the receipt.

A receipt whose evidence cannot be read as recorded (a bad hash, malformed draws, contradictory draw counts, or a
size past ``BREAKDOWN_LIMITS``) gets no breakdown, and says why; its sheet and its diff report are unaffected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from driftproof.core import breakdown_sentences as say
from driftproof.core.bands import mean, sample_sd
from driftproof.core.compare import ArmEvidence, compare
from driftproof.core.lift import missing_arm
from driftproof.core.models import Arm, Receipt
from driftproof.core.reading import evidence, no_verdict
from driftproof.core.sentences import AGGREGATES_ONLY
from driftproof.core.words import TOLERANCE, BandSource, CaseVerdict, DrawStatus, Provider, Separation, Surface

HEX = frozenset("0123456789abcdef")
ARM_WORDS = {"with_skill": "with-skill", "baseline": "baseline"}
LABELS = {CaseVerdict.IMPROVED: Separation.HELPS, CaseVerdict.REGRESSED: Separation.HURTS}


@dataclass(frozen=True, slots=True)
class BreakdownLimits:
    """The most a breakdown computes over. Past either, the breakdown reads unavailable, naming the limit."""

    cases: int = 1_000
    draws: int = 100_000
    """Draws recorded over every arm of every case (measured, lost and replaced)."""


BREAKDOWN_LIMITS = BreakdownLimits()


@dataclass(frozen=True, slots=True)
class ArmFigures:
    """One arm in a breakdown: mean and sample sd of its measured draw scores, and its counts."""

    mean: float | None
    sd: float | None
    measured: int
    drawn: int
    """Measured plus lost (replaced draws left out, as R-6 reads them)."""
    lost: int
    recorded: int
    """Every draw the arm records, replaced ones included; 0 means no draw evidence at all."""


@dataclass(frozen=True, slots=True)
class CaseShare:
    """One case's row of the breakdown."""

    id: str
    with_skill: ArmFigures
    baseline: ArmFigures
    difference: float | None
    """m_with − m_base; ``None`` unless both arms measured a draw."""
    excluded_reason: str | None
    """Why the case is left out of the lift, both arms together (an arm measured none of its draws)."""
    lift_without: float | None
    lift_without_reason: str | None
    separation: Separation | None
    separation_reason: str | None
    """Why this case takes no comparative label while the receipt could give one; ``None`` otherwise."""
    carrier: bool | None
    """Whether the case carries the positive measured lift; ``None`` when no carrier assertion is made."""


@dataclass(frozen=True, slots=True)
class LiftBreakdown:
    """The breakdown of one receipt, or why it has none (``unavailable_reason``)."""

    unavailable_reason: str | None
    cases: tuple[CaseShare, ...] = ()
    lift: float | None = None
    lift_reason: str | None = None
    """Why ``lift`` is ``None``."""
    labels_reason: str | None = None
    """Why the receipt carries no helps, hurts or carrier assertion; ``None`` when it may."""
    carrier_reason: str | None = None
    """Why no carrier assertion is made (``labels_reason`` among others); ``None`` when it is made."""
    limits: BreakdownLimits = BREAKDOWN_LIMITS

    @property
    def included(self) -> int:
        """Cases that enter the lift (not left out for a failed arm)."""
        return sum(1 for c in self.cases if c.excluded_reason is None)

    @property
    def lift_positive(self) -> bool:
        """The measured lift is positive (beyond float residue): the first half of the carrier rule."""
        return self.lift is not None and self.lift > TOLERANCE

    @property
    def downward(self) -> tuple[str, ...]:
        """The cases that separate downward (hurt), in receipt order."""
        return tuple(c.id for c in self.cases if c.separation == Separation.HURTS)

    @property
    def carriers(self) -> tuple[str, ...]:
        """The cases that carry the positive measured lift, in receipt order."""
        return tuple(c.id for c in self.cases if c.carrier)


def draw_evidence(arm: Arm) -> ArmEvidence:
    """An arm's evidence from its draws alone: a legacy arm's judge samples never stand in for draws."""
    return replace(evidence(arm), source=BandSource.GENERATION, legacy_samples=())


def figures(arm: Arm, ev: ArmEvidence) -> ArmFigures:
    """Mean and sample sd over the measured draw scores (lost draws left out), with the counts."""
    return ArmFigures(
        mean=mean(ev.scores) if ev.scores else None,
        sd=sample_sd(ev.scores),
        measured=ev.measured,
        drawn=ev.drawn,
        lost=ev.lost,
        recorded=len(arm.draws),
    )


def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= HEX


def _bad_hash(receipt: Receipt) -> str | None:
    """The first hash the breakdown relies on (the seal, each case's prompt and rubric hash) that is not a digest."""
    if not _is_sha256(receipt.seal.sha256):
        return say.invalid_hash("seal.sha256")
    for i, case in enumerate(receipt.cases):
        for name in ("prompt_sha256", "rubric_sha256"):
            value = getattr(case, name)
            if value is not None and not _is_sha256(value):
                return say.invalid_hash(f"cases[{i}].{name}")
    return None


def _bad_draw(draw: object) -> str | None:
    """What is wrong with one recorded draw, by the schema's cross-field rules; ``None`` when nothing is."""
    status, score = getattr(draw, "status", None), getattr(draw, "score", None)
    if status == DrawStatus.LOST:
        return None if score is None else "a lost draw carries a score"
    if status != DrawStatus.MEASURED:
        return f"status {status!r} is neither measured nor lost"
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return "a measured draw has no numeric score"
    return None if 0.0 <= score <= 1.0 else f"score {score!r} lies outside [0, 1]"


def _malformed(receipt: Receipt) -> str | None:
    """Repeated case ids, or a draw that breaks the schema's cross-field rules."""
    seen: set[str] = set()
    for i, case in enumerate(receipt.cases):
        if case.id in seen:
            return say.malformed("cases", f"case id {case.id!r} appears more than once")
        seen.add(case.id)
        for name in ARM_WORDS:
            for j, draw in enumerate(getattr(case, name).draws):
                if (why := _bad_draw(draw)) is not None:
                    return say.malformed(f"cases[{i}].{name}.draws[{j}]", why)
    return None


def _contradictory(receipt: Receipt) -> str | None:
    """Draw indices that do not run 0, 1, 2, …, or recorded draws per arm that the draws do not give."""
    sizes = []
    for i, case in enumerate(receipt.cases):
        for name in ARM_WORDS:
            draws = getattr(case, name).draws
            indices = [d.index for d in draws]
            if indices != list(range(len(draws))):
                return say.contradictory_counts(f"cases[{i}].{name}.draws", "indices out of order", str(indices[:10]))
            sizes.append(len(draws))
    counts = receipt.counts
    for key, found in (
        ("draws_per_arm_min", min(sizes, default=None)),
        ("draws_per_arm_max", max(sizes, default=None)),
    ):
        recorded = getattr(counts, key)
        if recorded is not None and found is not None and recorded != found:
            return say.contradictory_counts(f"counts.{key}", str(recorded), str(found))
    return None


def unsupported(receipt: Receipt, limits: BreakdownLimits = BREAKDOWN_LIMITS) -> str | None:
    """Why ``receipt`` cannot supply a breakdown at all, or ``None``: sizes first, then the evidence itself."""
    if len(receipt.cases) > limits.cases:
        return say.over_limit(len(receipt.cases), "cases", limits.cases)
    draws = sum(len(c.with_skill.draws) + len(c.baseline.draws) for c in receipt.cases)
    if draws > limits.draws:
        return say.over_limit(draws, "draws", limits.draws)
    if receipt.uncertainty_unavailable == "aggregates_only":  # no per-run score: nothing to break down
        return AGGREGATES_ONLY
    return _bad_hash(receipt) or _malformed(receipt) or _contradictory(receipt)


def recorded_grader(receipt: Receipt) -> str | None:
    """The one grader identity the receipt records (``judge.models_reported``), or ``None`` when not exactly one."""
    judge = receipt.judge
    return judge.models_reported[0] if judge is not None and len(judge.models_reported) == 1 else None


def graded_by(arm: Arm, grader: str) -> bool:
    """Every measured draw of ``arm`` was scored, and only scored, by ``grader`` (its valid judge samples)."""
    for draw in arm.draws:
        if draw.status != DrawStatus.MEASURED:
            continue
        valid = [s for s in draw.judge_samples if s.valid]
        if not valid or any(s.reported_model != grader for s in valid):
            return False
    return True


def labels_withheld(receipt: Receipt, rows: list[CaseShare]) -> str | None:
    """Why ``receipt`` carries no helps, hurts or carrier assertion at all, or ``None`` when it may."""
    if (why := no_verdict(receipt)) is not None:  # a smoke run, aggregates only, below TESTED
        return why.reason
    lane = receipt.run.lane
    if lane.provider == Provider.STUB or lane.surface == Surface.NONE:
        return say.non_model(lane.provider, str(lane.surface))
    notices = len(receipt.suite.notices) + sum(len(c.notices) for c in receipt.cases)
    if notices:
        return say.narrowed(notices)
    for row in rows:
        if row.difference is None:
            return say.incomplete(row.id)
    return None if recorded_grader(receipt) is not None else say.NO_GRADER


def _case_row(case_id: str, arms: tuple[Arm, Arm]) -> tuple[CaseShare, tuple[ArmEvidence, ArmEvidence]]:
    """A case's figures and difference, or why it is left out (a failed arm); its lift and labels come later."""
    w_ev, b_ev = draw_evidence(arms[0]), draw_evidence(arms[1])
    w, b = figures(arms[0], w_ev), figures(arms[1], b_ev)
    excluded = None
    for name, fig in zip(ARM_WORDS.values(), (w, b), strict=True):
        if fig.recorded and not fig.measured and excluded is None:
            excluded = say.failed_arm(name, fig.recorded)
    difference = w.mean - b.mean if w.mean is not None and b.mean is not None else None
    row = CaseShare(case_id, w, b, difference, excluded, None, None, None, None, None)
    return row, (w_ev, b_ev)


def _lift(receipt: Receipt, rows: list[CaseShare]) -> tuple[float | None, str | None]:
    """The measured lift over the included cases, each weighing the same; or why it is unavailable."""
    if (missing := missing_arm(receipt.cases)) is not None:  # no draw evidence: the lift over the suite cannot be said
        return None, missing
    diffs = [r.difference for r in rows if r.excluded_reason is None and r.difference is not None]
    return (mean(diffs), None) if diffs else (None, say.NO_INCLUDED_CASE)


def leave_one_out(diffs: Sequence[float]) -> list[float | None]:
    """Each case's lift without it: the other cases' differences averaged, each weighing the same (exact ``fsum``
    of the rest, never the total less one); ``None`` for a lone case, which leaves no case to average.

    >>> leave_one_out([0.3, 0.05, -0.05])  # (0.05 − 0.05)/2, (0.3 − 0.05)/2, (0.3 + 0.05)/2
    [0.0, 0.125, 0.175]
    >>> leave_one_out([0.2])
    [None]
    """
    if len(diffs) < 2:
        return [None] * len(diffs)
    return [_mean_without(diffs, i) for i in range(len(diffs))]


def _mean_without(diffs: Sequence[float], i: int) -> float:
    rest = [*diffs[:i], *diffs[i + 1 :]]
    return math.fsum(rest) / len(rest)


def carries(lift: float, without: float | None) -> bool:
    """A case carries the positive measured lift when the lift is positive and the lift without it is zero or
    below: decided on the unrounded figures, a value within ``TOLERANCE`` of zero being zero (float residue).

    >>> carries(0.1, 0.0), carries(0.1, -0.02), carries(0.1, 4e-7), carries(-0.1, -0.2), carries(0.1, None)
    (True, True, False, False, False)
    """
    return lift > TOLERANCE and without is not None and without <= TOLERANCE  # TOLERANCE: float residue only


def _without(rows: list[CaseShare], lift_reason: str | None) -> list[CaseShare]:
    """Each included case's leave-one-out lift, or why it has none."""
    included = [i for i, r in enumerate(rows) if r.excluded_reason is None and r.difference is not None]
    found = dict(zip(included, leave_one_out([rows[i].difference or 0.0 for i in included]), strict=True))
    out = []
    for i, row in enumerate(rows):
        if row.excluded_reason is not None:
            out.append(replace(row, lift_without_reason=row.excluded_reason))
        elif lift_reason is not None:
            out.append(replace(row, lift_without_reason=lift_reason))
        elif found.get(i) is None:
            out.append(replace(row, lift_without_reason=say.NO_OTHER_CASE))
        else:
            out.append(replace(row, lift_without=found[i]))
    return out


def _case_label_reason(receipt: Receipt, index: int, grader: str) -> str | None:
    """Why one case of a receipt that may give labels takes none: another grader, no rubric hash."""
    case = receipt.cases[index]
    for name in ARM_WORDS:
        if not graded_by(getattr(case, name), grader):
            return say.not_the_grader(ARM_WORDS[name], grader)
    return None if case.rubric_sha256 is not None else say.NO_RUBRIC_HASH


def _labels(receipt: Receipt, rows: list[CaseShare], evs: list[tuple[ArmEvidence, ArmEvidence]]) -> list[CaseShare]:
    """Helps and hurts: R-1 … R-4 and R-6 on the draws alone, for each case that may take a label."""
    grader = recorded_grader(receipt)
    assert grader is not None  # labels_withheld said the receipt may give labels
    out = []
    for i, (row, (w_ev, b_ev)) in enumerate(zip(rows, evs, strict=True)):
        why = _case_label_reason(receipt, i, grader)
        if why is not None:
            out.append(replace(row, separation_reason=why))
            continue
        case = receipt.cases[i]
        legacy = any(
            a.band_source == BandSource.LEGACY and len(e.scores) == 1
            for a, e in ((case.with_skill, w_ev), (case.baseline, b_ev))
        )
        label = LABELS.get(compare(w_ev, b_ev).verdict)
        out.append(replace(row, separation=label, separation_reason=say.LEGACY_NO_SPREAD if legacy else None))
    return out


def _carrier_withheld(rows: list[CaseShare], lift: float | None, lift_reason: str | None) -> str | None:
    """Why no carrier assertion is made over a receipt that may give labels, or ``None`` when it is made."""
    for row in rows:
        if row.separation_reason is not None and row.separation_reason != say.LEGACY_NO_SPREAD:
            return say.case_withheld(row.id, row.separation_reason)
    for row in rows:
        if row.with_skill.lost or row.baseline.lost:
            return say.lost_prevent_carrier(row.id, row.with_skill.lost + row.baseline.lost)
    if lift is None:
        return lift_reason
    return say.NO_OTHER_CASE if sum(1 for r in rows if r.lift_without is not None) < 2 else None


def lift_breakdown(receipt: Receipt, limits: BreakdownLimits = BREAKDOWN_LIMITS) -> LiftBreakdown:
    """The lift breakdown of one receipt (see the module's docstring), or why it has none."""
    if (refused := unsupported(receipt, limits)) is not None:
        return LiftBreakdown(refused, limits=limits)
    made = [_case_row(c.id, (c.with_skill, c.baseline)) for c in receipt.cases]
    rows, evs = [row for row, _ in made], [ev for _, ev in made]
    lift, lift_reason = _lift(receipt, rows)
    rows = _without(rows, lift_reason)
    labels_reason = labels_withheld(receipt, rows)
    if labels_reason is not None:
        return LiftBreakdown(None, tuple(rows), lift, lift_reason, labels_reason, labels_reason, limits)
    rows = _labels(receipt, rows, evs)
    carrier_reason = _carrier_withheld(rows, lift, lift_reason)
    if carrier_reason is None and lift is not None:
        rows = [replace(r, carrier=carries(lift, r.lift_without)) for r in rows]
    return LiftBreakdown(None, tuple(rows), lift, lift_reason, None, carrier_reason, limits)
