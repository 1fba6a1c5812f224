"""``claude plugin eval --json`` output (result ``schemaVersion`` 1) → a DECLARED receipt. Pure.

Each case is a case; its ``arms.with`` runs are the ``with_skill`` arm and its ``arms.without`` runs (the plugin not
installed, ``suite.ablation: with-without``) the baseline; with ``ablation: none`` there is one arm and no
comparison. A run's score is its ``score`` (the weighted share of its scored graders that passed); a run with an
``error`` is lost with that error and kept out of the figures; a partial result (``partial: true``, with its
``partialReason``) is marked on the suite, and each run it never made (fewer than ``runsPerCase``) is lost as
``not_run``. The skill-fired indicator is the case's ``tool_used`` grader on the ``Skill`` tool, which the CLI runs
on the with arm only and never scores: how often it passed is recorded per arm beside the score, never in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.core.build import arm_of
from driftproof.core.fields import Fields
from driftproof.core.import_sentences import one_of
from driftproof.core.import_source_sentences import (
    NO_REASON,
    PLUGIN_EVAL_SINGLE_ARM,
    PLUGIN_EVAL_UNKNOWN,
    PLUGIN_NOT_INSTALLED,
    errored,
    not_run_partial,
    one_file,
    partial_run,
)
from driftproof.core.imports.common import (
    SourceDoc,
    Written,
    declared_receipt,
    document,
    drawn_counts,
    empty_arm,
    source,
    top_of,
)
from driftproof.core.models import (
    Arm,
    Case,
    CheckResult,
    Draw,
    Harness,
    Lane,
    Receipt,
    Run,
    RunSettings,
    SkillFired,
    Suite,
    Usage,
)
from driftproof.core.seal import sha256_text
from driftproof.core.words import DrawStatus, ImportKind, Surface

HARNESS = "claude-plugin-eval"
WHAT = "a claude plugin eval --json result"
SCHEMA_VERSION = 1
ABLATIONS = ("with-without", "none")
#: The tool whose use the CLI's skill-fired grader checks.
SKILL_TOOL = "Skill"


def _indicator(case: Fields) -> str | None:
    """The name of the case's skill-fired grader (``tool_used`` on the Skill tool), or ``None`` when it has none."""
    for grader in case.objs("graders", optional=True):
        config = grader.opt_obj("config")
        if grader.opt_text("type") == "tool_used" and config is not None and config.opt_text("tool") == SKILL_TOOL:
            return grader.text("name")
    return None


def _fired(run: Fields, indicator: str | None) -> bool | None:
    """Whether the skill-fired grader passed on this run; ``None`` when the run records no such grader."""
    if indicator is None:
        return None
    for grader in run.objs("graders", optional=True):
        if grader.opt_text("name") == indicator:
            return grader.opt_flag("passed")
    return None


def _checks(run: Fields, indicator: str | None, types: dict[str, str]) -> list[CheckResult]:
    """The run's other graders as checks (kind: the grader's type in the case), beside the score."""
    checks = []
    for grader in run.objs("graders", optional=True):
        name = grader.text("name")
        passed = grader.opt_flag("passed")
        if name == indicator or passed is None:
            continue
        checks.append(CheckResult(name=f"plugin-eval.{name}", kind=types.get(name, "grader"), passed=passed))
    return checks


def _draw(index: int, run: Fields, indicator: str | None, types: dict[str, str], installed: bool) -> Draw:
    error = run.opt_text("error")
    usage = Usage(cost_usd=run.opt_number("costUsd"))
    fired = _fired(run, indicator) if installed else None
    if error is not None:
        return Draw(
            index=index, status=DrawStatus.LOST, lost_reason=errored(error), usage=usage, source_outcome="error"
        )
    score = run.number("score")
    if not 0.0 <= score <= 1.0:
        raise run.refuse("score", f"{score!r} is outside 0..1, the weighted share of graders passed")
    passed = run.opt_flag("passed")
    return Draw(
        index=index,
        status=DrawStatus.MEASURED,
        score=score,
        usage=usage,
        checks=_checks(run, indicator, types),
        skill_fired=fired,
        source_outcome=None if passed is None else ("passed" if passed else "failed"),
    )


def _arm(case: Fields, key: str, runs_per_case: int, partial: str | None, installed: bool) -> Arm:
    arms = case.obj("arms")
    runs = arms.objs(key, optional=True)
    if len(runs) > runs_per_case:
        raise arms.refuse(key, f"{len(runs)} runs, more than runsPerCase = {runs_per_case}")
    if len(runs) < runs_per_case and partial is None:
        raise arms.refuse(key, f"{len(runs)} runs of runsPerCase = {runs_per_case}, and the result is not partial")
    indicator = _indicator(case)
    types = {g.text("name"): g.opt_text("type") or "grader" for g in case.objs("graders", optional=True)}
    draws = [_draw(i, r, indicator, types, installed) for i, r in enumerate(runs)]
    draws += [
        Draw(
            index=i, status=DrawStatus.LOST, lost_reason=not_run_partial(partial or NO_REASON), source_outcome="not_run"
        )
        for i in range(len(runs), runs_per_case)
    ]
    clean = [r for r in runs if r.opt_text("error") is None]
    if not installed:
        fired = SkillFired(fired=None, observed=len(clean), not_applicable=PLUGIN_NOT_INSTALLED)
    elif indicator is None:
        fired = None
    else:
        seen = [f for r in clean if (f := _fired(r, indicator)) is not None]
        fired = SkillFired(fired=sum(seen), observed=len(seen))
    arm = arm_of(draws) if draws else empty_arm()
    return arm.model_copy(update={"skill_fired": fired})


def import_plugin_eval(docs: Sequence[SourceDoc], written: Written) -> Receipt:
    """One ``claude plugin eval --json`` result as a DECLARED receipt: a case per case, a draw per run."""
    if len(docs) != 1:
        raise top_of(docs[1], ImportKind.PLUGIN_EVAL, WHAT, ()).refuse("", one_file("plugin-eval", "the --json result"))
    doc = docs[0]
    top = top_of(doc, ImportKind.PLUGIN_EVAL, WHAT, ("schemaVersion", "cases"))
    if top.count("schemaVersion") != SCHEMA_VERSION:
        raise top.refuse("schemaVersion", f"{top.data['schemaVersion']!r}; this Driftproof reads schemaVersion 1")
    suite = top.obj("suite")
    ablation = suite.text("ablation")
    if ablation not in ABLATIONS:
        raise suite.refuse(
            "ablation", f"{ablation!r} is not a with/without comparison; expected {one_of(list(ABLATIONS))}"
        )
    partial = (top.opt_text("partialReason") or NO_REASON) if top.opt_flag("partial") else None
    cases = []
    seen: set[str] = set()
    runs_counts = []
    for case in top.objs("cases"):
        name = case.text("name")
        if not name or name in seen:
            raise case.refuse("name", f"{name!r} is empty or appears twice; a case id is unique")
        seen.add(name)
        runs_per_case = case.count("runsPerCase", 1)
        runs_counts.append(runs_per_case)
        with_skill = _arm(case, "with", runs_per_case, partial, installed=True)
        if ablation == "with-without":
            baseline = _arm(case, "without", runs_per_case, partial, installed=False)
        else:
            baseline = empty_arm()
        prompt = case.opt_text("promptMarkdown")
        cases.append(
            Case(
                id=name,
                prompt_sha256=sha256_text(prompt) if prompt is not None else None,
                with_skill=with_skill,
                baseline=baseline,
            )
        )
    notices = []
    if partial is not None:
        notices.append(partial_run(f"partialReason: {partial}" if partial != NO_REASON else NO_REASON))
    if ablation == "none":
        notices.append(PLUGIN_EVAL_SINGLE_ARM)
    plugins = suite.objs("plugins", optional=True)
    version = top.opt_text("claudeVersion")
    settings = RunSettings(draws_min=min(runs_counts), draws_max=max(runs_counts)) if runs_counts else None
    return declared_receipt(
        written,
        harness=HARNESS,
        run=Run(
            lane=Lane(provider=HARNESS, surface=Surface.CLI),
            harness=Harness(name="claude-code", version=version),
            **({"settings": settings} if settings is not None else {}),
        ),
        skill=None,
        suite=Suite(
            path=suite.opt_text("root"),
            format=ImportKind.PLUGIN_EVAL,
            name=plugins[0].opt_text("name") if plugins else None,
            notices=notices,
        ),
        judge=None,
        counts=drawn_counts(cases),
        cases=cases,
        source_record=source(HARNESS, version, [document(doc, None, top.opt_text("startedAt"))], PLUGIN_EVAL_UNKNOWN),
    )
