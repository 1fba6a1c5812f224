"""A repository's skills and what a change touches: the shell around :mod:`driftproof.core.changed`.

``--skills GLOB`` (``skills/*/SKILL.md``) names the skills; each one's suite is found beside its SKILL.md by
one convention (`SUITE_FILES`, then a single ``*.eval.yaml``). ``--changed BASE_REF`` asks git which paths
changed: ``git diff --name-only BASE_REF...HEAD`` (the commits since the branch left BASE_REF), plus the work
tree's uncommitted and untracked files, so a local run sees the edit being made; a CI checkout has none. Every
problem is one ``InputError`` line, before any model call.
"""

from __future__ import annotations

import glob
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from driftproof.core.changed import Selection, SkillFiles, select_touched
from driftproof.core.changed_sentences import bad_ref, no_suite
from driftproof.errors import InputError
from driftproof.suite import load_suite

__all__ = [
    "SUITE_FILES",
    "SkillSuite",
    "changed_paths",
    "find_skills",
    "git_root",
    "one_skill",
    "select",
    "suite_beside",
]

SUITE_FILES = ("suite.yaml", "suite.yml", "suite.json", "evals/evals.json")
"""A skill's suite, looked for beside its SKILL.md in this order; else the one ``*.eval.yaml`` there."""


@dataclass(frozen=True, slots=True)
class SkillSuite:
    """One skill of the set: its files as the rule compares them (repository-relative), and on disk."""

    files: SkillFiles
    skill: Path
    suite: Path


def suite_beside(skill: Path) -> Path | None:
    """The suite of a SKILL.md by the convention, or ``None``."""
    folder = skill.parent
    for name in SUITE_FILES:
        if (folder / name).is_file():
            return folder / name
    calipers = sorted(folder.glob("*.eval.yaml"))
    return calipers[0] if len(calipers) == 1 else None


def _git(args: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"--changed: git cannot be run here ({exc})") from None


def git_root(cwd: Path) -> Path:
    """The top of the git work tree holding ``cwd``; refused when there is none."""
    result = _git(["rev-parse", "--show-toplevel"], cwd)
    if result.returncode != 0:
        raise InputError(f"--changed: {cwd.resolve()} is not inside a git repository; run it from a clone")
    return Path(result.stdout.strip())


def _said(result: subprocess.CompletedProcess[str]) -> str:
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.strip()]
    return lines[-1].removeprefix("fatal: ") if lines else f"exit status {result.returncode}"


def changed_paths(base: str, root: Path, *, merge_base: bool = True) -> list[str]:
    """Repository-relative paths changed since ``base`` (committed on this branch, uncommitted, untracked).

    ``merge_base=False`` compares with ``base`` itself (``git diff BASE HEAD``), for a shallow clone that holds
    no merge base (the Action's checkout): a path changed on ``base`` since the branch left it counts too, so a
    skill is run rather than missed."""
    if not base.strip() or base.startswith("-"):
        raise InputError(f"--changed: {base!r} is not a git ref; give the branch the change is compared with")
    verify = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}"], root)
    if verify.returncode != 0:
        raise InputError(bad_ref(base, _said(verify) if verify.stderr.strip() else "unknown revision"))
    paths: list[str] = []
    for args in (
        ["diff", "--name-only", "--no-renames", *([f"{base}...HEAD"] if merge_base else [base, "HEAD"]), "--"],
        ["diff", "--name-only", "--no-renames", "HEAD", "--"],
        ["ls-files", "--others", "--exclude-standard"],
    ):
        result = _git(["-c", "core.quotepath=off", *args], root)
        if result.returncode != 0:
            raise InputError(bad_ref(base, _said(result)))
        paths += [ln for ln in result.stdout.splitlines() if ln and ln not in paths]
    return paths


def _relative(path: Path, root: Path) -> str:
    """A path as git names it: relative to the work tree's top (left as given when it lies outside)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def find_skills(pattern: str, root: Path) -> list[SkillSuite]:
    """Every SKILL.md the glob matches (relative to the working directory), each with its suite; refused when
    it matches none, when a match has no suite beside it, or when two skills share a folder name."""
    matches = sorted(Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
    if not matches:
        raise InputError(
            f"--skills: {pattern!r} matches no file; give a glob of SKILL.md files, e.g. 'skills/*/SKILL.md'"
        )
    found: list[SkillSuite] = []
    for skill in matches:
        suite = suite_beside(skill)
        if suite is None:
            raise InputError(no_suite(str(skill)))
        loaded = load_suite(suite)
        refs = [p for p in (loaded.skill, *loaded.neighbours) if p is not None]
        name = skill.resolve().parent.name
        files = SkillFiles(
            name, _relative(skill, root), _relative(suite, root), tuple(_relative(p, root) for p in refs)
        )
        found.append(SkillSuite(files, skill, suite))
    names = [s.files.name for s in found]
    if spaced := next((n for n in names if n != "".join(n.split())), None):
        raise InputError(
            f"--skills: the skill folder {spaced!r} holds a space; each receipt is named after it: rename it"
        )
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise InputError(f"--skills: two skills share the folder name {twice[0]!r}; each receipt is named after it")
    return found


def one_skill(suite: Path, skill: Path | None, root: Path) -> SkillSuite:
    """A single suite (``driftproof run SUITE --changed``) as a set of one: its skill is ``--skill`` or the
    suite's; named after the skill's folder."""
    loaded = load_suite(suite)
    skill = skill if skill is not None else loaded.skill
    if skill is None:
        raise InputError(f"{suite}: names no skill, so --changed cannot tell whether it is touched; give --skill PATH")
    refs = tuple(_relative(p, root) for p in loaded.neighbours)
    name = skill.resolve().parent.name
    return SkillSuite(SkillFiles(name, _relative(skill, root), _relative(suite, root), refs), skill, suite)


def select(skills: Sequence[SkillSuite], base: str | None, root: Path) -> list[tuple[SkillSuite, Selection]]:
    """Each skill with its selection: every one runs without ``base``; with it, those the change touches
    (``root``: the git work tree's top, which the skills' paths are relative to)."""
    if base is None:
        return [(s, Selection(s.files, True, None)) for s in skills]
    chosen = select_touched([s.files for s in skills], changed_paths(base, root))
    return list(zip(skills, chosen, strict=True))
