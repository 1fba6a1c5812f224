"""The Action over a set of skills (the ``skills`` input): select, run each, one comment, aggregate outputs.

On a pull request the skills the PR touches run (``driftproof.changed``, against the default branch's tip,
fetched: a shallow checkout has no merge base); on any other event every skill runs. Each selected skill runs
exactly as a one-suite Action run would (its stored receipt, new receipt, report and badge at its own paths:
`driftproof.core.skill_set.skill_path`), without its own comment; then one comment (the sticky one, updated
in place) holds a summary table of every skill run and a section per skill, and the outputs aggregate.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TextIO

from driftproof.action.activity import Activity
from driftproof.action.config import ActionConfig
from driftproof.action.github import Event
from driftproof.action.workflow import warning
from driftproof.atomic import write_text
from driftproof.changed import SkillSuite, changed_paths, find_skills
from driftproof.core.changed import Selection, select_touched
from driftproof.core.changed_sentences import set_unknown_base, skill_runs, skill_skipped
from driftproof.core.decision import Decision
from driftproof.core.drift import DriftResult
from driftproof.core.reading import ReceiptReading
from driftproof.core.skill_set import set_folder, set_outputs, skill_path
from driftproof.errors import InputError
from driftproof.safe_text import printable
from driftproof.skill_set_report import SetRow, render_skill_set

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


def _fetched(config: ActionConfig, branch: str) -> str:
    """Fetch the default branch (shallow when the checkout is) and return its ref; raise `InputError` if not."""
    ref = f"refs/remotes/origin/{branch}"
    git = ["git", "-c", f"safe.directory={config.workspace}"]
    try:
        shallow = subprocess.run(
            [*git, "rev-parse", "--is-shallow-repository"],
            cwd=config.workspace,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        depth = ["--depth=1"] if shallow.stdout.strip() == "true" else []
        fetch = [*git, "fetch", "--no-tags", *depth, "origin", f"+refs/heads/{branch}:{ref}"]
        done = subprocess.run(fetch, cwd=config.workspace, capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"git cannot be run ({exc})") from None
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        raise InputError(f"git fetch failed: {said[-1] if said else done.returncode}")
    return ref


def _select(
    config: ActionConfig, event: Event, skills: list[SkillSuite], out: TextIO
) -> list[tuple[SkillSuite, Selection]]:
    """On a pull request, the skills it touches; every skill otherwise, or when the change cannot be read."""
    branch = event.default_branch or event.base_ref
    every = [(s, Selection(s.files, True, None)) for s in skills]
    if not event.is_pull_request or not branch:
        return every
    try:
        paths = changed_paths(_fetched(config, branch), config.workspace, merge_base=False)
    except InputError as exc:
        warning(printable(set_unknown_base(str(exc))), stream=out)
        return every
    return list(zip(skills, select_touched([s.files for s in skills], paths), strict=True))


def _config_for(config: ActionConfig, skill: SkillSuite) -> ActionConfig:
    name = skill.files.name
    return config.model_copy(
        update={
            "skills": None,
            "suite": skill.files.suite,
            "skill": skill.files.skill,
            "receipt_path": skill_path(config.receipt_path, name),
            "badge_path": skill_path(config.badge_path, name),
        }
    )


def run_skill_set(config: ActionConfig, event: Event, activity: Activity, steps: SetSteps, out: TextIO) -> int:
    """Every selected skill's run, then the one comment and the aggregate outputs; returns the exit code."""
    skills = find_skills(str(config.workspace / str(config.skills)), config.workspace)
    chosen = _select(config, event, skills, out)
    for skill, selection in chosen:
        name = skill.files.name
        out.write(printable(skill_runs(name, selection.because) if selection.touched else skill_skipped(name)) + "\n")
    outcomes: dict[str, SkillOutcome] = {}
    for skill, selection in chosen:
        if selection.touched:
            outcomes[skill.files.name] = steps.one(_config_for(config, skill))
    skipped = [s.files.name for s, sel in chosen if not sel.touched]
    rows = [SetRow(n, o.decision, o.reading, o.report) for n, o in outcomes.items() if o.decision is not None]
    report = render_skill_set(rows, skipped)
    report_path = str(PurePosixPath(set_folder(config.receipt_path)) / SET_REPORT)
    write_text(config.in_workspace(report_path), report)
    if activity == Activity.PR_COMMENT and config.comment:
        steps.comment(report, report_path)
    decisions = {row.name: row.decision for row in rows}
    outputs = {
        **set_outputs(decisions),
        "receipt": " ".join(o.paths.get("receipt", "") for o in outcomes.values()),
        "report": report_path,
        "badge": " ".join(o.paths.get("badge", "") for o in outcomes.values()),
    }
    code = max((o.code for o in outcomes.values()), default=0)
    return steps.finish(outputs, code, any(d.compared for d in decisions.values()))
