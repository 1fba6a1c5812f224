"""``driftproof run --skills GLOB [--changed BASE_REF] [-o DIR]``: the skills of a repository, one run each.

Which skills exist and which a change touches is :mod:`driftproof.changed` (rule: :mod:`driftproof.core.changed`).
Every skill's line (runs, and why; skips, and why) is printed first, and every suite and SKILL.md is read and
checked before the first skill's first call. Each selected skill then runs as ``driftproof run`` would run its
suite alone, writing ``DIR/<skill>.json`` (``-o DIR``) or the receipt beside its suite.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from driftproof.changed import SkillSuite, find_skills, git_root, one_skill, select
from driftproof.core.changed_sentences import skill_runs, skill_skipped, skills_tally
from driftproof.errors import InputError
from driftproof.run import RunOutcome, RunRequest, run_suite
from driftproof.safe_text import printable
from driftproof.suite import load_suite, read_skill

__all__ = ["receipt_in", "run_skills"]

MakeRequest = Callable[[argparse.Namespace, Path, Path | None, "str | Path | None"], RunRequest]


def receipt_in(folder: Path, name: str, quick: bool) -> Path:
    """A skill's receipt in ``-o DIR``: ``DIR/<skill>.json`` (``<skill>.quick.json`` for ``--quick``)."""
    return folder / (f"{name}.quick.json" if quick else f"{name}.json")


def _refuse_mixed(args: argparse.Namespace) -> None:
    """The flags that name one suite, one skill or one receipt do not go with ``--skills``."""
    if args.suite is not None:
        raise InputError("--skills: give SUITE or --skills GLOB, not both")
    for flag, value in (("--skill", args.skill), ("--reference", args.reference), ("--shard", args.shard)):
        if value is not None:
            raise InputError(f"{flag}: names one skill's run; it does not go with --skills (each skill runs alone)")
    out = args.output
    if out is not None and (Path(out).suffix == ".json" or Path(out).is_file()):
        raise InputError(f"-o: with --skills, a directory for one receipt per skill (DIR/<skill>.json), found {out}")


def _skills(args: argparse.Namespace, root: Path) -> list[SkillSuite]:
    if args.skills is None:
        if args.suite is None:
            raise InputError("--changed: give a SUITE file, or --skills GLOB for every skill of a repository")
        return [one_skill(Path(args.suite), Path(args.skill) if args.skill else None, root)]
    _refuse_mixed(args)
    return find_skills(args.skills, root)


def run_skills(args: argparse.Namespace, make_request: MakeRequest) -> list[RunOutcome]:
    """Select, say, check, then run each selected skill; the outcomes of the runs made, in order (the command
    exits 0: each run's gate is ``driftproof diff``'s)."""
    from driftproof.terminal import print_quick, print_run_summary

    root = git_root(Path.cwd()) if args.changed is not None else Path.cwd()
    chosen = select(_skills(args, root), args.changed, root)
    for skill, selection in chosen:
        line = skill_runs(skill.files.name, selection.because) if selection.touched else skill_skipped(skill.files.name)
        print(printable(line), flush=True)
    requests = []
    for skill, selection in chosen:
        if not selection.touched:
            continue
        if args.skills is None:
            out: str | Path | None = args.output
        else:
            out = receipt_in(Path(args.output), skill.files.name, args.quick) if args.output else None
        read_skill(skill.skill, load_suite(skill.suite))  # a bad SKILL.md stops the set before its first call
        requests.append(make_request(args, skill.suite, skill.skill, out))
    outcomes = []
    for request in requests:
        outcome = run_suite(request)
        if args.quick:
            print_quick(outcome)
        print_run_summary(outcome)
        outcomes.append(outcome)
    ran = len(requests)
    print(printable(skills_tally(ran, len(chosen) - ran, args.changed)), flush=True)
    return outcomes
