"""Which skills a change touches (``driftproof run --changed``, the Action's ``skills`` input): the pure rule.

Every path is repository-relative POSIX text, as ``git diff --name-only`` prints it. A skill is touched when
a changed path is its SKILL.md, lies anywhere inside its skill folder, is its suite file, or is a file the
suite references (its ``skill:``, a neighbour skill); a skill none of whose files changed is never selected,
and a run's own output (anything under a ``.driftproof`` folder) touches none.

>>> alpha = SkillFiles("alpha", "skills/alpha/SKILL.md", "skills/alpha/suite.yaml", ())
>>> beta = SkillFiles("beta", "skills/beta/SKILL.md", "skills/beta/suite.yaml", ())
>>> [(s.skill.name, s.touched, s.because) for s in select_touched((alpha, beta), ["skills/beta/notes.md"])]
[('alpha', False, None), ('beta', True, 'skills/beta/notes.md')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["OUTPUT_FOLDER", "Selection", "SkillFiles", "folder_of", "normal", "select_touched", "touches"]


@dataclass(frozen=True, slots=True)
class SkillFiles:
    """One skill of a repository and the files that decide whether a change touches it."""

    name: str
    """The skill's name as reports show it (its folder's name)."""
    skill: str
    """Its SKILL.md, repository-relative."""
    suite: str | None
    """Its suite file, repository-relative; ``None`` when none was found beside it (the run refuses it)."""
    references: tuple[str, ...]
    """Other files the suite names (a ``skill:`` elsewhere, neighbour skills), repository-relative."""


@dataclass(frozen=True, slots=True)
class Selection:
    """Whether one skill runs for this change, and the first changed path that made it run."""

    skill: SkillFiles
    touched: bool
    because: str | None
    """The first changed path (in the order given) that touches the skill; ``None`` when untouched."""


def normal(path: str) -> str:
    """A path as compared: no ``./`` segments, no doubled or trailing slashes.

    >>> normal("./skills//alpha/./SKILL.md/")
    'skills/alpha/SKILL.md'
    """
    return "/".join(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


def folder_of(path: str) -> str:
    """The folder a repository path lies in (``""`` for the repository root).

    >>> folder_of("skills/alpha/SKILL.md"), folder_of("SKILL.md")
    ('skills/alpha', '')
    """
    head, _, _ = normal(path).rpartition("/")
    return head


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it; a root-level skill's folder is the whole repository."""
    return folder == "" or path == folder or path.startswith(folder + "/")


OUTPUT_FOLDER = ".driftproof"
"""Where runs write receipts, reports and journals: a path with this segment is output, never input."""


def touches(skill: SkillFiles, path: str) -> bool:
    """Whether one changed path touches the skill (a run's own output, under a ``.driftproof`` folder, never
    does: the receipt written beside a suite must not make its skill look edited).

    >>> s = SkillFiles("a", "skills/a/SKILL.md", "suites/a.yaml", ("shared/style.md",))
    >>> [touches(s, p) for p in ("skills/a/ref/x.md", "suites/a.yaml", "shared/style.md", "skills/ab/SKILL.md")]
    [True, True, True, False]
    >>> touches(s, "skills/a/.driftproof/receipt.json")
    False
    """
    changed = normal(path)
    if OUTPUT_FOLDER in changed.split("/"):
        return False
    exact = {normal(skill.skill), *(normal(r) for r in skill.references)}
    if skill.suite is not None:
        exact.add(normal(skill.suite))
    return changed in exact or _inside(changed, folder_of(skill.skill))


def select_touched(skills: Sequence[SkillFiles], changed: Iterable[str]) -> list[Selection]:
    """Each skill, in the order given, with whether the changed paths touch it (and the first that did)."""
    paths = [normal(p) for p in changed if normal(p)]
    out = []
    for skill in skills:
        because = next((p for p in paths if touches(skill, p)), None)
        out.append(Selection(skill, because is not None, because))
    return out
