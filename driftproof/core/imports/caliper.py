"""Caliper 0.21 saved results → a DECLARED receipt (docs/interop.md, "Caliper results"). Pure.

A full run is the ``with_skill`` arm and its ``--ablate <skill>`` run the ``baseline``; a single full run imports
as one arm with no comparison. The pair is checked first (era, spec, k, backend, model, CLI version, judge,
customizations, MCP servers; the baseline ablates exactly the skill; the neighbours' text unchanged) and refused
with the reason. Each attempt is a draw: ``pass`` 1.0, ``task_fail`` 0.0, ``cheat`` 0.0 flagged; ``timeout``,
``infra_error``, ``judge_error`` and attempts never run are lost with Caliper's reason; a trigger-only task
(``not_checked``) has no draw, only its skill-fired count. Caliper's stored scores are checked against its
attempts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.bands import mean
from driftproof.core.build import arm_of
from driftproof.core.economics import CHARS_PER_TOKEN
from driftproof.core.fields import Fields, Refusal
from driftproof.core.import_sentences import (
    CALIPER_ERA,
    CALIPER_UNKNOWN,
    NOT_RUN_INTERRUPTED,
    NOT_RUN_STOPPED,
    PROBE_AND_CHECKED,
    SINGLE_RUN,
    SKILL_ABLATED,
    TRIGGER_ONLY,
    ablated_alone,
    ablates_not_one_skill,
    cheat_flag,
    differs_from,
    legacy_era,
    lost_with,
    neighbour_text_changed,
    neighbours_differ,
    not_a_pair,
    not_bare,
    one_of,
    only_in,
    score_disagrees,
    skill_not_installed,
    skill_not_named,
    unknown_era,
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
    Judge,
    Lane,
    Receipt,
    Run,
    RunSettings,
    Skill,
    SkillFired,
    Source,
    Suite,
    Usage,
)
from driftproof.core.seal import sha256_text
from driftproof.core.words import TOLERANCE, ArmName, Delivery, DrawStatus, ImportKind, Surface

HARNESS = "caliper"
WHAT = "a Caliper results file"
SCORED = {"pass": 1.0, "task_fail": 0.0, "cheat": 0.0}
#: Lost outcomes and the attempt field that holds Caliper's reason.
LOST = {"timeout": "assert_evidence", "infra_error": "assert_evidence", "judge_error": "autorater_reasoning"}
NOT_CHECKED = "not_checked"
OUTCOMES = (*SCORED, *LOST, NOT_CHECKED)
#: Outcomes in which Caliper saw nothing of the skill firing (the stream was cut or never began).
UNOBSERVED = frozenset({"timeout", "infra_error"})
#: Outcomes with no recorded error: the denominator of the skill-fired rate.
CLEAN = frozenset({*SCORED, NOT_CHECKED})
#: Run fields the two files of a pair must share (compared as written).
SHARED = ("spec", "k", "backend", "model", "cli_version", "judge_backend", "judge_model", "user_customizations")
HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class CaliperRun:
    """One results file, its top level checked."""

    doc: SourceDoc
    run: Fields
    k: int
    ablated: tuple[str, ...]
    snapshots: dict[str, Fields]
    tasks: tuple[Fields, ...]


def read_run(doc: SourceDoc) -> CaliperRun:
    """One Caliper results file: its run, its skill snapshots and its tasks, each checked."""
    top = top_of(doc, ImportKind.CALIPER, WHAT, ("run", "task_results"))
    run = top.obj("run")
    for key in ("spec", "backend"):
        run.text(key)
    k = run.count("k", 1)
    era = run.opt_text("era")
    if era is None:
        raise run.refuse("era", legacy_era())
    if era != CALIPER_ERA:
        raise run.refuse("era", unknown_era(era))
    snapshots: dict[str, Fields] = {}
    for snap in top.objs("skill_snapshots", optional=True):
        snapshots[snap.text("name")] = snap
    tasks = tuple(top.objs("task_results"))
    seen: set[str] = set()
    for task in tasks:
        name = task.text("task_name")
        if not name or name in seen:
            raise task.refuse("task_name", f"{name!r} is empty or appears twice; a case id is unique")
        seen.add(name)
        _check_task(task, k)
    return CaliperRun(doc, run, k, tuple(run.opt_texts("ablated") or ()), snapshots, tasks)


def _check_task(task: Fields, k: int) -> None:
    """Outcomes known, attempt numbers 1..k once each, and Caliper's stored score what the attempts give."""
    numbers: set[int] = set()
    for attempt in task.objs("attempts"):
        n = attempt.count("attempt", 1)
        if n > k or n in numbers:
            raise attempt.refuse("attempt", f"{n} is above k = {k} or appears twice")
        numbers.add(n)
        outcome = attempt.text("outcome")
        if outcome not in OUTCOMES:
            raise attempt.refuse("outcome", f"expected {one_of(OUTCOMES)}, found {outcome!r}")
    outcomes = [a.text("outcome") for a in task.objs("attempts")]
    if NOT_CHECKED in outcomes and any(o in SCORED for o in outcomes):
        at = outcomes.index(NOT_CHECKED)
        raise task.objs("attempts")[at].refuse("outcome", PROBE_AND_CHECKED)
    stored = task.opt_number("score")
    scores = [SCORED[a.text("outcome")] for a in task.objs("attempts") if a.text("outcome") in SCORED]
    if stored is not None and scores and not math.isclose(stored, mean(scores), abs_tol=TOLERANCE):
        raise task.refuse("score", score_disagrees(stored, mean(scores)))


def _pair(runs: Sequence[CaliperRun]) -> tuple[CaliperRun, CaliperRun | None]:
    """The full run and its ablated partner (in either order), or the single full run."""
    if len(runs) == 1:
        if runs[0].ablated:
            raise runs[0].run.refuse("ablated", ablated_alone())
        return runs[0], None
    if len(runs) != 2:
        raise Refusal(runs[2].doc.name, "(top level)", "a Caliper import reads one full run, or it and its ablated run")
    full = [r for r in runs if not r.ablated]
    if len(full) != 1:
        raise runs[1].run.refuse("ablated", not_a_pair("[]" if len(full) == 2 else "an ablation"))
    return full[0], next(r for r in runs if r.ablated)


def _check_pair(full: CaliperRun, base: CaliperRun) -> str:
    """The pair checks, in order; the skill the baseline ablates."""
    for key in SHARED:
        here, there = base.run.data.get(key), full.run.data.get(key)
        if here != there:
            raise base.run.refuse(key, differs_from(repr(here), full.doc.name, repr(there)))
    for key in ("loaded_user_customizations", "mcp_servers"):  # compared when both recorded them
        here, there = base.run.opt_texts(key), full.run.opt_texts(key)
        if here is not None and there is not None and sorted(here) != sorted(there):
            raise base.run.refuse(key, differs_from(repr(here), full.doc.name, repr(there)))
    if len(base.ablated) != 1 or base.ablated[0].startswith("mcp:"):
        raise base.run.refuse("ablated", ablates_not_one_skill(base.ablated))
    skill = base.ablated[0]
    if skill not in full.snapshots:
        raise base.run.refuse("ablated", skill_not_installed(skill, sorted(full.snapshots)))
    expected = sorted(n for n in full.snapshots if n != skill)
    if sorted(base.snapshots) != expected:
        raise Refusal(base.doc.name, "skill_snapshots", neighbours_differ(expected, sorted(base.snapshots)))
    for name, snap in base.snapshots.items():
        if _file_hashes(snap) != _file_hashes(full.snapshots[name]):
            raise snap.refuse("files", neighbour_text_changed(name, full.doc.name))
    return skill


def _file_hashes(snap: Fields) -> dict[str, str]:
    files = snap.opt_obj("files")
    return {} if files is None else {rel: files.obj(rel).text("hash") for rel in files.data}


def _skill(snap: Fields) -> Skill | None:
    """The skill measured, from its snapshot; ``None`` when its SKILL.md text or hash was not kept."""
    files = snap.opt_obj("files")
    entry = files.opt_obj("SKILL.md") if files is not None else None
    if entry is None:
        return None
    written = entry.text("hash")
    digest = written.removeprefix("sha256:")
    if not written.startswith("sha256:") or len(digest) != 64 or not set(digest) <= HEX:
        raise entry.refuse("hash", f"expected sha256:<64 lower-case hex digits>, found {written!r}")
    content = entry.opt_text("content")
    if content is None:
        return None
    path, repo = snap.text("path"), snap.opt_text("git_repo")
    if repo and path.startswith(repo.rstrip("/") + "/"):
        path = path[len(repo.rstrip("/")) + 1 :]
    return Skill(path=path, sha256=digest, chars=len(content), tokens=math.ceil(len(content) / CHARS_PER_TOKEN))


def _usage(attempt: Fields) -> Usage | None:
    usage = attempt.opt_obj("usage")
    if usage is None:
        return None
    return Usage(
        input_tokens=usage.opt_count("input_tokens"),
        output_tokens=usage.opt_count("output_tokens"),
        cache_read_tokens=usage.opt_count("cache_read_tokens"),
        cache_write_tokens=usage.opt_count("cache_creation_tokens"),
    )


def _checks(attempt: Fields) -> list[CheckResult]:
    found = []
    for name, kind, key in (
        ("caliper.assert", "assert", "assert_passed"),
        ("caliper.autorater", "llm_judge", "autorater_passed"),
    ):
        passed = attempt.opt_flag(key)
        if passed is not None:
            found.append(CheckResult(name=name, kind=kind, passed=passed))
    return found


def _fired(attempt: Fields, skill: str | None) -> bool | None:
    """Whether ``skill`` fired in this attempt; ``None`` when not installed or not observable."""
    activated = attempt.opt_texts("activated")
    if skill is None or activated is None or attempt.text("outcome") in UNOBSERVED:
        return None
    return skill in activated


def _draw(index: int, attempt: Fields, skill: str | None) -> Draw:
    outcome = attempt.text("outcome")
    common = {
        "index": index,
        "usage": _usage(attempt),
        "checks": _checks(attempt),
        "skill_fired": _fired(attempt, skill),
        "source_outcome": outcome,
    }
    if outcome in SCORED:
        flag = cheat_flag(attempt.opt_texts("cheat_evidence") or []) if outcome == "cheat" else None
        return Draw.model_validate({**common, "status": DrawStatus.MEASURED, "score": SCORED[outcome], "flagged": flag})
    reason = lost_with(outcome, attempt.opt_text(LOST[outcome]))
    return Draw.model_validate({**common, "status": DrawStatus.LOST, "lost_reason": reason})


def _arm(task: Fields | None, run: CaliperRun, skill: str, installed: bool) -> Arm:
    """One arm of one case from a task's attempts: a draw per attempt number 1..k, none for a trigger probe."""
    if task is None:
        return empty_arm()
    attempts = {a.count("attempt", 1): a for a in task.objs("attempts")}
    outcomes = [a.text("outcome") for a in attempts.values()]
    clean = [a for a in attempts.values() if a.text("outcome") in CLEAN]
    if installed:
        seen = [f for a in clean if (f := _fired(a, skill)) is not None]
        fired = SkillFired(fired=sum(seen), observed=len(seen))
    else:
        fired = SkillFired(fired=None, observed=len(clean), not_applicable=SKILL_ABLATED)
    if NOT_CHECKED in outcomes and not any(o in SCORED for o in outcomes):
        return empty_arm(fired)
    interrupted = run.run.opt_flag("interrupted")
    draws = []
    for n in range(1, run.k + 1):
        if n in attempts:
            draws.append(_draw(n - 1, attempts[n], skill if installed else None))
        else:
            why = NOT_RUN_INTERRUPTED if interrupted else NOT_RUN_STOPPED
            draws.append(Draw(index=n - 1, status=DrawStatus.LOST, lost_reason=why, source_outcome="not_run"))
    return arm_of(draws).model_copy(update={"skill_fired": fired})


def _case(
    name: str, full: Fields | None, base: Fields | None, runs: tuple[CaliperRun, CaliperRun | None], skill: str
) -> Case:
    with_run, base_run = runs
    task = full or base
    notices = []
    with_skill = _arm(full, with_run, skill, installed=True)
    baseline = _arm(base, base_run, skill, installed=False) if base_run is not None else empty_arm()
    if (full is not None and not with_skill.draws) or (base is not None and not baseline.draws):
        notices.append(TRIGGER_ONLY)
    if base_run is not None and (full is None or base is None):
        notices.append(only_in(ArmName.WITH_SKILL if full is not None else ArmName.BASELINE))
    prompt = task.opt_text("prompt") if task is not None else None
    return Case(
        id=name,
        prompt_sha256=sha256_text(prompt) if prompt is not None else None,
        notices=notices,
        with_skill=with_skill,
        baseline=baseline,
    )


def import_caliper(docs: Sequence[SourceDoc], written: Written, *, skill: str | None = None) -> Receipt:
    """A full Caliper run and its ``--ablate <skill>`` run (either order), or one full run, as a DECLARED receipt."""
    runs = [read_run(d) for d in docs]
    full, base = _pair(runs)
    names = sorted(full.snapshots)
    if base is not None:
        measured = _check_pair(full, base)
        if skill is not None and skill != measured:
            raise base.run.refuse("ablated", skill_not_installed(skill, [measured]))
    elif skill is not None:
        if skill not in full.snapshots:
            raise full.run.refuse("skill_snapshots", skill_not_installed(skill, names))
        measured = skill
    elif len(names) == 1:
        measured = names[0]
    else:
        raise Refusal(full.doc.name, "skill_snapshots", skill_not_named(names))
    full_tasks = {t.text("task_name"): t for t in full.tasks}
    base_tasks = {t.text("task_name"): t for t in base.tasks} if base else {}
    order = [*full_tasks, *(n for n in base_tasks if n not in full_tasks)]
    cases = [_case(n, full_tasks.get(n), base_tasks.get(n), (full, base), measured) for n in order]
    return declared_receipt(
        written,
        harness=HARNESS,
        run=_run(full),
        skill=_skill(full.snapshots[measured]),
        suite=_suite(full, base, measured),
        judge=_judge(full, base),
        counts=drawn_counts(cases),
        cases=cases,
        source_record=_source(full, base),
    )


def _run(full: CaliperRun) -> Run:
    run = full.run
    return Run(
        lane=Lane(provider=HARNESS, surface=Surface.CLI, model_requested=run.opt_text("model")),
        harness=Harness(name=run.text("backend"), version=run.opt_text("cli_version")),
        settings=RunSettings(draws_min=full.k, draws_max=full.k, delivery=Delivery.DISCOVER),
    )


def _suite(full: CaliperRun, base: CaliperRun | None, skill: str) -> Suite:
    notices = []
    if base is None:
        notices.append(SINGLE_RUN)
    else:
        bare = not_bare(
            sorted(base.snapshots),
            sorted(base.run.opt_texts("mcp_servers") or []),
            bool(base.run.opt_flag("user_customizations")),
        )
        if bare:
            notices.append(bare)
    return Suite(format=HARNESS, name=full.run.text("spec"), notices=notices)


def _judge(full: CaliperRun, base: CaliperRun | None) -> Judge | None:
    """Caliper's judge, when one ran (an attempt records judge time); ``None`` when no task asked one."""
    runs = [full] if base is None else [full, base]
    ran = any(a.opt_number("judge_seconds") is not None for r in runs for t in r.tasks for a in t.objs("attempts"))
    backend = full.run.opt_text("judge_backend")
    if not ran or backend is None:
        return None
    return Judge(
        provider=backend,
        surface=Surface.CLI,
        model_requested=full.run.opt_text("judge_model"),
        template_version=full.run.opt_text("judge_prompt_version"),
    )


def _source(full: CaliperRun, base: CaliperRun | None) -> Source:
    docs = [document(full.doc, ArmName.WITH_SKILL, full.run.opt_text("timestamp"))]
    if base is not None:
        docs.append(document(base.doc, ArmName.BASELINE, base.run.opt_text("timestamp")))
    return source(HARNESS, None, docs, CALIPER_UNKNOWN)
