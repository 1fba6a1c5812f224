"""What a run would record today, from its suite, skill and built lanes: the facts ``driftproof stale`` compares.

One builder for both callers: ``driftproof stale`` (`driftproof.stale.gather_today`, which builds the lanes
itself and closes them) and a run that carries its reference's standing baseline (`driftproof.carry`, which
hands in the lanes it is about to draw with). No model is called.
"""

from __future__ import annotations

from driftproof.assemble import judge_setting
from driftproof.core.models import Receipt
from driftproof.core.seal import sha256_text
from driftproof.core.stale import CaseToday, Today
from driftproof.core.stale_conditions import ConditionsToday
from driftproof.judge import rubric_hash
from driftproof.lanes.base import Lane
from driftproof.suite import Suite


def today_of(
    receipt: Receipt,
    suite: Suite,
    skill_text: str,
    lanes: tuple[Lane, Lane, str | None],
    *,
    model: str | None,
    capture: str,
    delivery: str,
    stopping_rule: str,
    judge_samples: int,
    conditions: ConditionsToday,
) -> Today:
    """The facts a run with these lanes and settings records, each case hashed as a run hashes it (the rubric
    also under the template ``receipt`` recorded, so that a template change is reported once); ``conditions``:
    the neighbours, pairwise judging, placebo and canaries (`driftproof.conditions_today.conditions_today`)."""
    lane, judge, judge_model = lanes
    recorded_template = receipt.judge.template_sha256 if receipt.judge else None
    cases = tuple(
        CaseToday(
            id=case.id,
            prompt_sha256=sha256_text(case.prompt),
            rubric_sha256=rubric_hash(case),
            rubric_sha256_recorded_template=rubric_hash(case, recorded_template) if recorded_template else None,
        )
        for case in suite.cases
    )
    return Today(
        provider=lane.provider,
        surface=lane.surface,
        model_requested=model or lane.default_model(),
        base_url=lane.base_url(),
        harness=lane.harness(),
        capture=capture,
        delivery=delivery,
        sampling=lane.sampling(),
        skill_sha256=sha256_text(skill_text),
        suite_sha256=suite.sha256,
        stopping_rule=stopping_rule,
        judge=judge_setting(judge, judge_model),
        judge_samples=judge_samples,
        cases=cases,
        conditions=conditions,
    )
