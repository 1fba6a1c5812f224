"""``driftproof stale``: gather what a run with these flags would record today, and compare it with a receipt.

Today's facts come through the code a run uses: ``load_suite`` and ``read_skill`` read the suite and the skill,
``resolve_counts`` gives the stopping rule, ``make_lanes`` builds both lanes through the lane registry (a CLI lane
probes its binary's version there, as a run does). No model is called; the lanes are closed before the rule runs.
The rule itself is :func:`driftproof.core.stale.stale`. ``stale_against`` asks it of a receipt for one
``RunRequest``: the CLI's (``check_receipt``) or the run the Action is about to make.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driftproof.conditions_today import conditions_today
from driftproof.core import stale_sentences
from driftproof.core.models import Receipt
from driftproof.core.stale import StaleReport, Today, stale
from driftproof.core.words import JudgeMode, Provider
from driftproof.errors import InputError
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, make_lanes, resolve_counts
from driftproof.safe_text import printable
from driftproof.suite import load_suite, read_skill
from driftproof.today import today_of


def _recorded_path(given: Path | None, recorded: str | None, receipt_path: Path, field: str, flag: str) -> Path:
    """The path given by flag, else the one the receipt recorded; refused when there is neither."""
    if given is not None:
        return given
    if recorded is None:
        raise InputError(f"{receipt_path}: {field}: not recorded, so there is nothing to read today; give {flag}")
    if not Path(recorded).exists():  # say where the path came from: no flag named it
        raise InputError(stale_sentences.stale_recorded_path_missing(recorded, field, flag))
    return Path(recorded)


def gather_today(request: RunRequest, receipt: Receipt) -> Today:
    """What a run of ``request`` would record, as a run builds it; every refusal comes before a lane is built."""
    counts = resolve_counts(request)
    suite = load_suite(request.suite)
    _, skill_text = read_skill(request.skill, suite)
    lanes = make_lanes(request)
    try:
        return today_of(
            receipt,
            suite,
            skill_text,
            lanes,
            model=request.model,
            capture=request.capture,
            delivery=request.delivery,
            stopping_rule=counts.stopping_rule().describe(),
            judge_samples=counts.judge_samples,
            conditions=conditions_today(suite, skill_text, request),
        )
    finally:
        lanes[0].close()
        lanes[1].close()


def stale_against(receipt: Receipt, request: RunRequest) -> StaleReport:
    """Whether ``receipt`` still stands for a run of exactly ``request`` (the Action asks it of the stored
    receipt, with the request its pull request's run is about to make). No model call."""
    return stale(receipt, gather_today(request, receipt))


def check_receipt(receipt_path: Path, suite: Path | None, skill: Path | None, **flags: Any) -> StaleReport:
    """Load the receipt, default ``--suite`` and ``--skill`` to the paths it recorded, and compare with a run of
    ``flags`` (``RunRequest`` fields: the lane and judge flags, the counts)."""
    receipt = load_receipt(receipt_path)
    suite_path = _recorded_path(suite, receipt.suite.path, receipt_path, "suite.path", "--suite")
    if skill is None and receipt.skill is not None and (suite is None or load_suite(suite_path).skill is None):
        # a suite given brings the skill it names, as `run SUITE` reads it; else the SKILL.md the receipt recorded
        skill = _recorded_path(None, receipt.skill.path, receipt_path, "skill.path", "--skill")
    given = {name: value for name, value in flags.items() if value is not None}  # --no-as-reference is given
    recorded = recorded_flags(receipt)
    for provider, belongs in (("provider", LANE_FLAGS), ("judge_provider", JUDGE_FLAGS)):
        if provider in given and given[provider] != recorded.get(provider):  # another provider: its own lane
            recorded = {name: value for name, value in recorded.items() if name not in belongs}
    request = RunRequest(suite=suite_path, skill=skill, **{**recorded, **given})
    return stale_against(receipt, request)


LANE_FLAGS = ("surface", "model", "base_url")
"""What the receipt recorded of its lane that belongs to its provider: dropped when another provider is given."""
JUDGE_FLAGS = ("judge_model", "judge_base_url")


def recorded_flags(receipt: Receipt) -> dict[str, Any]:
    """The run flags the receipt recorded, so that ``stale`` asks about the same command run today: a flag left
    out takes the recorded value; one the receipt does not record (or an import's tool name) takes run's default.
    """
    run, judge, settings = receipt.run, receipt.judge, receipt.run.settings
    lane_provider = run.lane.provider if run.lane.provider in tuple(Provider) else None
    recorded: dict[str, Any] = {
        "provider": lane_provider,
        "surface": run.lane.surface if lane_provider not in (None, Provider.STUB) else None,
        "model": run.lane.model_requested if lane_provider != Provider.STUB else None,
        "base_url": run.lane.base_url,
        "capture": run.capture,
        "delivery": settings.delivery,
        "draws": settings.draws_min,
        "max_draws": settings.draws_max,
        "judge_samples": settings.judge_samples,
        "max_tokens": _sent_ceiling(run.sampling),
        "as_reference": bool(settings.as_reference),
        # beside the arms (`core.stale_conditions`): as the receipt was drawn, so the same command asks nothing new
        "placebo": receipt.placebo is not None,
        "judge_mode": JudgeMode.PAIRWISE if judge is not None and judge.pairwise is not None else None,
        "canaries": receipt.canaries is not None,
        "default_canaries": receipt.canaries is not None and receipt.canaries.source == "default",
    }
    if judge is not None and judge.provider in tuple(Provider):
        recorded |= {"judge_provider": judge.provider, "judge_base_url": judge.base_url}
        if judge.provider != Provider.STUB:
            recorded["judge_model"] = judge.model_requested
    return {name: value for name, value in recorded.items() if value is not None}


def _sent_ceiling(sampling: dict[str, Any]) -> int | None:
    """The answers' ``max_tokens`` the run sent (``--max-tokens``, recorded in ``run.sampling``); ``None`` when it
    sent none (a CLI lane, the stub, an older receipt), so run's default is asked about."""
    value = sampling.get("max_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stale_lines(report: StaleReport) -> list[str]:
    """The human output: a headline, one row per case (with-skill, baseline), the reasons, advisories, unknowns."""
    arms = [a for c in report.cases for a in (c.with_skill, c.baseline)]
    rerun = sum(a.status == "rerun" for a in arms)
    regrade = sum(a.status == "regrade" for a in arms)
    lines = [stale_sentences.STALE_ALL_STAND if report.stands else stale_sentences.stale_summary(rerun, regrade), ""]
    width = max([len("case"), *(len(printable(c.id)) for c in report.cases)])
    lines.append(f"{'case':<{width}}  {'with_skill':<10}  baseline")
    for case in report.cases:
        lines.append(f"{printable(case.id):<{width}}  {case.with_skill.status:<10}  {case.baseline.status}")
    for case in report.cases:
        for name, arm in (("with_skill", case.with_skill), ("baseline", case.baseline)):
            lines.extend(f"  {printable(case.id)} {name}: {printable(reason)}" for reason in arm.reasons)
    lines.extend(f"advisory: {printable(a)}" for a in report.advisories)
    if report.unknown:
        lines.append(f"unknown: {', '.join(printable(u) for u in report.unknown)}")
    return lines
