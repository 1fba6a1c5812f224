"""The model-drift verdict: did an arm move although neither the skill nor the suite changed? Pure.

The sentinel re-runs the default branch with no code change and compares today's receipt (AFTER) with the
stored one (BEFORE). Drift applies only when both record the same skill sha256 and the same suite sha256;
otherwise the two are a normal diff (``driftproof diff``), and the result says so. Each case whose prompt and
rubric hashes are the same on both sides is compared arm by arm, **each arm under the rule the diff uses
between receipts** (R-1 … R-6, then R-7: `driftproof.core.between.compare_between`), with-skill against
with-skill and baseline against baseline. An arm *moved* when that rule calls it ``improved`` (up) or
``regressed`` (down); the result is ``drifted`` when any arm moved, ``steady`` when none did. No second rule:
an arm whose bands do not separate, or separate by less than the effect floor, or lack R-7's draws, never
moved. A side with no verdict (a smoke run, below TESTED, a shard) or two receipts not graded like for like
(`driftproof.core.diff.like_for_like`) give ``no_verdict``.

The answering model ids of both sides are named: the lane's ``models_reported`` (dated ids), and per case the
draws' ``reported_model`` / ``served_model``. When the model requested is the same alias on both sides but the
ids it answered as differ, the result names the change (``answered_as``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from driftproof.core.between import DIFF_RULE, compare_between
from driftproof.core.compare import Comparison
from driftproof.core.diff import like_for_like
from driftproof.core.drift_sentences import (
    DRIFT_NOT_RECORDED,
    DRIFT_STEADY,
    answered_as,
    answered_by,
    drift_headline,
    drift_no_verdict,
    drift_not_applicable,
)
from driftproof.core.export import arm_json
from driftproof.core.models import Arm, Case, Receipt
from driftproof.core.reading import ArmSummary, evidence, no_verdict, summarize
from driftproof.core.sentences import side_is
from driftproof.core.words import ArmName, CaseVerdict

#: The verdicts of the between-receipts rule that mean an arm moved, with the direction each names.
MOVED = {CaseVerdict.IMPROVED: "up", CaseVerdict.REGRESSED: "down"}


class DriftStatus(StrEnum):
    """The drift verdict of two receipts of one skill and one suite."""

    DRIFTED = "drifted"
    """An arm moved (R-1 … R-7 called it) although neither the skill nor the suite changed."""
    STEADY = "steady"
    """No arm moved at this sample size."""
    NOT_APPLICABLE = "not_applicable"
    """The skill or the suite changed (or is not recorded on both sides): a normal diff, not drift."""
    NO_VERDICT = "no_verdict"
    """A side has no verdict, or the two were not graded like for like."""


@dataclass(frozen=True, slots=True)
class ArmDrift:
    """One arm of one case, BEFORE's against AFTER's under the between-receipts rule."""

    arm: ArmName
    comparison: Comparison
    before: ArmSummary
    after: ArmSummary

    @property
    def direction(self) -> str | None:
        """``up`` or ``down`` when the arm moved, else ``None``."""
        return MOVED.get(self.comparison.verdict)


@dataclass(frozen=True, slots=True)
class CaseDrift:
    """One case compared arm by arm, with the model ids its draws reported on each side."""

    id: str
    with_skill: ArmDrift
    baseline: ArmDrift
    models_before: tuple[str, ...]
    models_after: tuple[str, ...]

    @property
    def arms(self) -> tuple[ArmDrift, ArmDrift]:
        return (self.with_skill, self.baseline)

    @property
    def moved(self) -> tuple[ArmDrift, ...]:
        return tuple(a for a in self.arms if a.direction is not None)


@dataclass(frozen=True, slots=True)
class Models:
    """The answering models of both sides: the model requested and the ids the replies reported."""

    requested_before: str | None
    requested_after: str | None
    reported_before: tuple[str, ...]
    reported_after: tuple[str, ...]

    @property
    def changed(self) -> bool:
        """The ids reported (or, when none was, the model requested) differ between the two sides."""
        if self.reported_before and self.reported_after:
            return self.reported_before != self.reported_after
        return self.requested_before != self.requested_after

    @property
    def sentence(self) -> str:
        """``alias answered as X then, Y now`` under one alias; else ``answered by ... then, ... now``.

        >>> Models("s-5", "s-5", ("s-5-20261001",), ("s-5-20261120",)).sentence
        's-5 answered as s-5-20261001 then, s-5-20261120 now'
        >>> Models("s-5", "s-5", ("s-5-20261001",), ("s-5-20261001",)).sentence
        'answered by s-5-20261001 both times'
        >>> Models("a", "b", (), ()).sentence
        'answered by a then, b now'
        """
        before = ", ".join(self.reported_before) or self.requested_before or "an unrecorded model"
        after = ", ".join(self.reported_after) or self.requested_after or "an unrecorded model"
        alias = self.requested_before
        if alias is not None and alias == self.requested_after and before != after:
            return answered_as(alias, before, after)
        return answered_by(before, after)


@dataclass(frozen=True, slots=True)
class DriftResult:
    """The drift verdict of two receipts, with what each arm did and which models answered."""

    status: DriftStatus
    headline: str
    models: Models
    cases: tuple[CaseDrift, ...] = ()
    changed_cases: tuple[str, ...] = ()
    """Cases in both receipts whose prompt or rubric hash differs (or is unrecorded): left out of drift."""
    unmatched_before: tuple[str, ...] = ()
    unmatched_after: tuple[str, ...] = ()
    rule: str = DIFF_RULE

    @property
    def drifted(self) -> bool:
        return self.status == DriftStatus.DRIFTED

    @property
    def moved(self) -> tuple[tuple[CaseDrift, ArmDrift], ...]:
        """Every arm that moved, with its case, in AFTER's case order, with-skill before baseline."""
        return tuple((c, a) for c in self.cases for a in c.moved)


def models_of(receipt: Receipt) -> tuple[str | None, tuple[str, ...]]:
    """The model requested and the ids the answering replies reported (the lane's sorted list)."""
    lane = receipt.run.lane
    return lane.model_requested, tuple(lane.models_reported)


def draw_models(case: Case) -> tuple[str, ...]:
    """The ids a case's draws reported (``reported_model``, and ``served_model`` where apart), sorted, each once."""
    ids = {m for a in (case.with_skill, case.baseline) for d in a.draws for m in (d.reported_model, d.served_model)}
    return tuple(sorted(i for i in ids if i))


def _unchanged(what: str, before: str | None, after: str | None) -> str | None:
    """``None`` when both sides record the same value; else why drift does not apply."""
    if before is None or after is None:
        return drift_not_applicable(what, DRIFT_NOT_RECORDED, "")
    if before != after:
        return drift_not_applicable(what, before[:12], after[:12])
    return None


def applies(before: Receipt, after: Receipt) -> str | None:
    """``None`` when the two receipts measured the same skill and the same suite; else why drift does not apply.

    >>> from driftproof.core.models import Skill, Suite
    >>> def made(skill: str, suite: str | None) -> Receipt:
    ...     parts = {"skill": Skill.model_construct(sha256=skill), "suite": Suite.model_construct(sha256=suite)}
    ...     return Receipt.model_construct(**parts)
    >>> applies(made("a" * 64, "b" * 64), made("a" * 64, "b" * 64)) is None
    True
    >>> applies(made("a" * 64, "b" * 64), made("c" * 64, "b" * 64))
    'drift does not apply: the skill sha256 changed (aaaaaaaaaaaa → cccccccccccc); compare them with driftproof diff'
    """
    skills = (before.skill.sha256 if before.skill else None, after.skill.sha256 if after.skill else None)
    return _unchanged("skill sha256", *skills) or _unchanged("suite sha256", before.suite.sha256, after.suite.sha256)


def _same_task(before: Case, after: Case) -> bool:
    """The case's prompt and rubric hashes are recorded and equal on both sides."""
    pairs = ((before.prompt_sha256, after.prompt_sha256), (before.rubric_sha256, after.rubric_sha256))
    return all(b is not None and b == a for b, a in pairs)


def _arm(name: ArmName, before: Arm, after: Arm, threshold: float | None) -> ArmDrift:
    comparison = compare_between(evidence(after), evidence(before))
    return ArmDrift(name, comparison, summarize(before, threshold), summarize(after, threshold))


def drift(before: Receipt, after: Receipt) -> DriftResult:
    """The drift verdict of AFTER (today's receipt) against BEFORE (the stored one), case by case (by id)."""
    requested_b, reported_b = models_of(before)
    requested_a, reported_a = models_of(after)
    models = Models(requested_b, requested_a, reported_b, reported_a)
    if (why := applies(before, after)) is not None:
        return DriftResult(DriftStatus.NOT_APPLICABLE, why, models)
    withheld = [side_is(side, w.short) for side, r in (("before", before), ("after", after)) if (w := no_verdict(r))]
    if (mismatch := like_for_like(before, after)) is not None:
        withheld.append(mismatch.reason)
    if withheld:
        return DriftResult(DriftStatus.NO_VERDICT, drift_no_verdict(withheld), models)
    before_cases = {c.id: c for c in before.cases}
    after_ids = {c.id for c in after.cases}
    matched = [(before_cases[c.id], c) for c in after.cases if c.id in before_cases]
    cases = tuple(
        CaseDrift(
            id=a.id,
            with_skill=_arm(ArmName.WITH_SKILL, b.with_skill, a.with_skill, a.threshold),
            baseline=_arm(ArmName.BASELINE, b.baseline, a.baseline, a.threshold),
            models_before=draw_models(b),
            models_after=draw_models(a),
        )
        for b, a in matched
        if _same_task(b, a)
    )
    moved = sum(len(c.moved) for c in cases)
    return DriftResult(
        status=DriftStatus.DRIFTED if moved else DriftStatus.STEADY,
        headline=drift_headline(moved) if moved else DRIFT_STEADY,
        models=models,
        cases=cases,
        changed_cases=tuple(a.id for b, a in matched if not _same_task(b, a)),
        unmatched_before=tuple(i for i in before_cases if i not in after_ids),
        unmatched_after=tuple(c.id for c in after.cases if c.id not in before_cases),
    )


def _arm_json(arm: ArmDrift) -> dict[str, Any]:
    delta = arm.comparison.delta
    return {
        "verdict": str(arm.comparison.verdict),
        "moved": arm.direction is not None,
        "direction": arm.direction,
        "delta": None if delta is None else round(delta, 4),
        "reason": arm.comparison.reason,
        "before": arm_json(arm.before),
        "after": arm_json(arm.after),
    }


def drift_json(result: DriftResult) -> dict[str, Any]:
    """``driftproof drift --format json``: the verdict, the models on both sides, every case's two arms."""
    m = result.models
    return {
        "status": str(result.status),
        "drifted": result.drifted,
        "headline": result.headline,
        "rule": result.rule,
        "models": {
            "before": {"requested": m.requested_before, "reported": list(m.reported_before)},
            "after": {"requested": m.requested_after, "reported": list(m.reported_after)},
            "changed": m.changed,
            "sentence": m.sentence,
        },
        "cases": [
            {
                "id": c.id,
                "models": {"before": list(c.models_before), "after": list(c.models_after)},
                "with_skill": _arm_json(c.with_skill),
                "baseline": _arm_json(c.baseline),
            }
            for c in result.cases
        ],
        "changed_cases": list(result.changed_cases),
        "unmatched": {"before": list(result.unmatched_before), "after": list(result.unmatched_after)},
    }
