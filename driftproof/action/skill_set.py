"""The Action over a set of skills (the ``skills`` input): select, run each, one comment, aggregate outputs.

On a pull request the skills the PR touches run (``driftproof.changed``, against the default branch's tip,
fetched: a shallow checkout has no merge base); on the store job's push, the skills the push touches (against
its previous commit, the payload's ``before``, fetched when the checkout lacks it) and any whose stored receipt
cannot be kept; every other skill keeps its stored receipt and badge, untouched. On any other event, or when
git cannot tell what changed, every skill runs. Each selected skill runs
exactly as a one-suite Action run would (its stored receipt, new receipt, report and badge at its own paths:
`driftproof.core.skill_set.skill_path`), without its own comment; then one comment (the sticky one, updated
in place) holds a summary table of every skill run and a section per skill, and the outputs aggregate.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import PurePosixPath
from typing import TextIO

from driftproof.action.activity import Activity
from driftproof.action.config import ActionConfig
from driftproof.action.github import Event
from driftproof.action.workflow import warning
from driftproof.atomic import write_text
from driftproof.changed import SkillSuite, changed_paths, find_skills
from driftproof.core.changed import select_touched
from driftproof.core.changed_sentences import (
    EVERY_SKILL_RUNS_ACTION,
    NO_PREVIOUS_COMMIT,
    TITLE_SKILLS,
    set_unknown_base,
    skill_not_standing,
    skill_runs,
    skill_skipped,
    skill_unkept,
)
from driftproof.core.decision import Decision
from driftproof.core.drift import DriftResult
from driftproof.core.models import Receipt
from driftproof.core.reading import ReceiptReading, read_receipt
from driftproof.core.skill_set import set_folder, set_outputs, skill_path
from driftproof.errors import DriftproofError, InputError
from driftproof.receipts import load_receipt
from driftproof.safe_text import printable
from driftproof.skill_set_report import SetRow, render_skill_set
from driftproof.targets import REPORT, Output, check_outputs

__all__ = ["SET_REPORT", "SetSteps", "SkillOutcome", "run_skill_set"]

SET_REPORT = "skills.report.md"
"""The set's report, in the folder of ``receipt-path`` before any ``{skill}`` (what the PR comment holds)."""


@dataclass(frozen=True)
class SkillOutcome:
    """What one suite's run left for the step: exit code, report, decision (``None``: a shard job's), paths."""

    code: int
    report: str
    decision: Decision | None
    reading: ReceiptReading
    paths: Mapping[str, str]
    drifted: DriftResult | None = None
    """The sentinel's drift comparison (input ``sentinel``); ``None`` otherwise."""


@dataclass(frozen=True)
class SetSteps:
    """What the Action's one-suite flow lends the set: run one suite, post the comment, close the step."""

    one: Callable[[ActionConfig], SkillOutcome]
    comment: Callable[[str, str], None]
    finish: Callable[[Mapping[str, str], int, bool], int]
    stands: Callable[[ActionConfig, Receipt], str | None]
    """Why a skill's stored receipt does not stand for the store run its config asks for, or ``None``."""


def _git(config: ActionConfig, args: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    """One git command in the workspace; `InputError` when git cannot be run."""
    git = ["git", "-c", f"safe.directory={config.workspace}"]
    try:
        return subprocess.run(
            [*git, *args], cwd=config.workspace, capture_output=True, text=True, check=False, timeout=timeout
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"git cannot be run ({exc})") from None


def _fetch(config: ActionConfig, what: str) -> None:
    """Fetch ``what`` (a refspec or a commit) from origin, shallow when the checkout is; `InputError` if not."""
    shallow = _git(config, ["rev-parse", "--is-shallow-repository"], 60)
    depth = ["--depth=1"] if shallow.stdout.strip() == "true" else []
    done = _git(config, ["fetch", "--no-tags", *depth, "origin", what], 120)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise InputError(f"git fetch failed: {said[-1] if said else done.returncode}")


def _fetched(config: ActionConfig, branch: str) -> str:
    """Fetch the default branch (shallow when the checkout is) and return its ref; raise `InputError` if not."""
    ref = f"refs/remotes/origin/{branch}"
    _fetch(config, f"+refs/heads/{branch}:{ref}")
    return ref


def _pushed_from(config: ActionConfig, before: str) -> str:
    """The push's previous commit, fetched when the checkout lacks it (a shallow one holds only the tip)."""
    if _git(config, ["cat-file", "-e", f"{before}^{{commit}}"], 60).returncode != 0:
        _fetch(config, before)
    return before


def _kept(
    config: ActionConfig, skill: SkillSuite, stands: Callable[[ActionConfig, Receipt], str | None]
) -> tuple[Receipt | None, str | None]:
    """An untouched skill's stored receipt in the checkout, or why it cannot be kept (``None``: there is none).

    Kept only when it stands for the run the store job would make of the skill today (the promotion rule): an
    untouched skill whose receipt was stored for another skill text (a store job that failed), another model or
    judge input, or an older judge template, runs."""
    path = config.in_workspace(skill_path(config.receipt_path, skill.files.name))
    if not path.is_file():
        return None, None
    try:
        receipt = load_receipt(path)
        why = stands(_config_for(config, skill), receipt)
    except DriftproofError as exc:
        return None, str(exc)
    return (receipt, None) if why is None else (None, skill_not_standing(why))


@dataclass(frozen=True)
class _Chosen:
    """One skill of the set: whether it runs, the line that says so, and the stored receipt it keeps if not."""

    skill: SkillSuite
    runs: bool
    line: str
    kept: Receipt | None = None


def _select(
    config: ActionConfig,
    event: Event,
    activity: Activity,
    skills: list[SkillSuite],
    out: TextIO,
    stands: Callable[[ActionConfig, Receipt], str | None],
) -> list[_Chosen]:
    """The skills a pull request or the store job's push touches; every skill otherwise, or when the change
    cannot be read (a warning says why)."""
    every = [_Chosen(s, True, skill_runs(s.files.name, None, EVERY_SKILL_RUNS_ACTION)) for s in skills]
    branch = event.default_branch or event.base_ref
    push = activity == Activity.STORE_RECEIPT and not event.is_pull_request
    if event.is_pull_request and branch:
        base: Callable[[], str] = partial(_fetched, config, branch)
    elif push and event.before is not None:
        base = partial(_pushed_from, config, event.before)
    else:
        if push:
            warning(printable(set_unknown_base(NO_PREVIOUS_COMMIT)), title=TITLE_SKILLS, stream=out)
        return every
    try:
        paths = changed_paths(base(), config.workspace, merge_base=False)
    except InputError as exc:
        warning(printable(set_unknown_base(str(exc))), title=TITLE_SKILLS, stream=out)
        return every
    chosen: list[_Chosen] = []
    for skill, selection in zip(skills, select_touched([s.files for s in skills], paths), strict=True):
        name = skill.files.name
        if selection.touched:
            chosen.append(_Chosen(skill, True, skill_runs(name, selection.because)))
            continue
        kept, problem = _kept(config, skill, stands) if push else (None, None)
        if push and kept is None:  # nothing to keep: it runs to store one
            chosen.append(_Chosen(skill, True, skill_unkept(name, skill_path(config.receipt_path, name), problem)))
        else:
            chosen.append(_Chosen(skill, False, skill_skipped(name), kept))
    return chosen


def _config_for(config: ActionConfig, skill: SkillSuite) -> ActionConfig:
    name = skill.files.name
    return config.model_copy(
        update={
            "skills": None,
            "suite": skill.files.suite,
            "skill": skill.files.skill,
            "receipt_path": skill_path(config.receipt_path, name),
            "badge_path": skill_path(config.badge_path, name),
            "junit": skill_path(config.junit, name) if config.junit is not None else None,
        }
    )


def run_skill_set(config: ActionConfig, event: Event, activity: Activity, steps: SetSteps, out: TextIO) -> int:
    """Every selected skill's run, then the one comment and the aggregate outputs; returns the exit code."""
    skills = find_skills(str(config.workspace / str(config.skills)), config.workspace)
    report_path = str(PurePosixPath(set_folder(config.receipt_path)) / SET_REPORT)
    report_out = Output(config.in_workspace(report_path), "input 'receipt-path'", REPORT, root=config.workspace)
    check_outputs([report_out])  # before the first skill's first call; each skill's own paths are checked as it runs
    chosen = _select(config, event, activity, skills, out, steps.stands)
    for each in chosen:
        out.write(printable(each.line) + "\n")
    outcomes: dict[str, SkillOutcome] = {}
    for each in chosen:
        if each.runs:
            outcomes[each.skill.files.name] = steps.one(_config_for(config, each.skill))
    skipped = [c.skill.files.name for c in chosen if not c.runs]
    kept = [read_receipt(c.kept).status for c in chosen if c.kept is not None]
    rows = [SetRow(n, o.decision, o.reading, o.report) for n, o in outcomes.items() if o.decision is not None]
    report = render_skill_set(rows, skipped)
    write_text(config.in_workspace(report_path), report)
    if activity == Activity.PR_COMMENT and config.comment:
        steps.comment(report, report_path)
    decisions = {row.name: row.decision for row in rows}
    outputs = {
        **set_outputs(decisions, kept),
        "receipt": " ".join(o.paths.get("receipt", "") for o in outcomes.values()),
        "report": report_path,
        "badge": " ".join(o.paths.get("badge", "") for o in outcomes.values()),
    }
    code = max((o.code for o in outcomes.values()), default=0)
    return steps.finish(outputs, code, any(d.compared for d in decisions.values()))
