"""Carrying the standing baseline: which of the reference's baseline arms a run reuses instead of drawing.

The rule is pure (`driftproof.core.carry`); this module asks ``driftproof stale``'s question of the reference
for exactly the run about to be made, with the lanes that run built (`driftproof.today.today_of`: no model call,
no second lane), and hands the runner the draws it carries, by case id, with the lines said before the first
call. A case whose baseline arm does not stand (a changed prompt, rubric, judge, lane, ...) is drawn as usual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from driftproof.conditions_today import conditions_today
from driftproof.core import carry_sentences
from driftproof.core.carry import carry_arm, standing_baselines, why_not_carried
from driftproof.core.models import Draw, Receipt
from driftproof.core.stale import stale
from driftproof.core.words import JudgeMode
from driftproof.errors import InputError
from driftproof.lanes.base import Lane
from driftproof.suite import Suite
from driftproof.today import today_of


@dataclass(frozen=True, slots=True)
class Carry:
    """What a run carries: the baseline draws by case id, the source's seal, and what was said of it."""

    draws: Mapping[str, tuple[Draw, ...]]
    """Empty when nothing is carried."""
    sha256: str | None
    """The seal of the receipt carried from, when something is."""
    lines: tuple[str, ...]
    """Printed before the first call."""
    label: str = "the reference"
    """How the reports name the source (the Action: the default branch)."""


NONE = Carry({}, None, ())


def carried_counts(carry: Carry) -> dict[str, dict[str, int]]:
    """By case id, the draws each arm carries (the baseline only), for a plan: what the run does not draw.

    >>> carried_counts(NONE)
    {}
    """
    return {case: {"baseline": len(draws)} for case, draws in carry.draws.items() if draws}


RUN_CONDITIONS = ("judge_mode", "placebo", "canaries", "default_canaries")
"""The ``RunRequest`` fields `RunFacts` takes beside the five it starts with (the same names)."""


@dataclass(frozen=True, slots=True)
class RunFacts:
    """The settings of the run about to be made that ``driftproof stale`` compares."""

    model: str | None
    capture: str
    delivery: str
    stopping_rule: str
    judge_samples: int
    judge_mode: str = JudgeMode.ABSOLUTE
    placebo: bool = False
    canaries: bool = False
    default_canaries: bool = False
    """The run's ``--judge-mode``, ``--placebo`` and canaries: compared beside the arms (advisories only)."""


def refuse_pairwise_carry(judge_mode: str, carry_baseline: bool, reference: object) -> None:
    """Refuse ``--judge-mode pairwise`` with a baseline to carry: a carried draw's answer is not in this run, so
    its pair could not be judged (docs/stale.md). ``reference``: the run's ``--reference``, ``None`` for none."""
    if judge_mode == JudgeMode.PAIRWISE and carry_baseline and reference is not None:
        raise InputError(carry_sentences.PAIRWISE_CARRY)


def carry_for(
    source: Receipt,
    suite: Suite,
    skill_text: str,
    lanes: tuple[Lane, Lane, str | None],
    facts: RunFacts,
    label: str,
) -> Carry:
    """The baseline arms of ``source`` that stand for this run, carried; the rest are drawn."""
    today = today_of(
        source,
        suite,
        skill_text,
        lanes,
        model=facts.model,
        capture=facts.capture,
        delivery=facts.delivery,
        stopping_rule=facts.stopping_rule,
        judge_samples=facts.judge_samples,
        conditions=conditions_today(suite, skill_text, facts),
    )
    report = stale(source, today)
    seal = source.seal.sha256
    by_id = {case.id: case for case in source.cases}
    draws = {cid: carry_arm(by_id[cid].baseline, seal) for cid in standing_baselines(report)}
    draws = {cid: arm for cid, arm in draws.items() if arm}
    why = why_not_carried(report)
    if not draws:
        return Carry({}, None, (carry_sentences.carry_none(label, seal[:12], why or "no baseline draws"),), label)
    reused = sum(map(len, draws.values()))
    lines = [carry_sentences.carry_plan(label, seal[:12], len(draws), len(suite.cases), reused)]
    if why is not None:
        lines.append(f"{carry_sentences.CARRY_PREFIX}{why}")
    return Carry(draws, seal, tuple(lines), label)
