"""Which skill fired, per draw and per arm (``--delivery discover`` with neighbour skills installed). Pure.

A draw records ``skills_fired``: every installed skill, by the folder name it was installed under, that its
transcript shows firing. An arm's count per skill is over the draws that recorded it; comparing two receipts
shows, per case, each skill's count in the with-skill arm on both sides, so a change that makes a sibling skill
take the activations of the skill under test reads as one line ("a neighbour fired instead").

>>> slug(" Commit Writer! ")
'commit-writer'
>>> skill_name("---\\nname: Commit Writer\\ndescription: x\\n---\\nbody")
'commit-writer'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from driftproof.core.models import Arm, Receipt

__all__ = [
    "DEFAULT_SKILL_NAME",
    "FiredCount",
    "FiredShift",
    "arm_fired",
    "fired_shifts",
    "has_fired",
    "skill_name",
    "slug",
    "stolen",
]

DEFAULT_SKILL_NAME = "skill-under-test"
"""The folder a skill with no usable frontmatter ``name`` is installed under."""


def slug(name: str) -> str:
    """A skill name as a folder name: lower case, runs of other characters as one ``-``.

    >>> slug("Pr_Writer 2")
    'pr-writer-2'
    """
    kept = "".join(ch if ("a" <= ch <= "z" or "0" <= ch <= "9") else " " for ch in name.strip().strip("\"'").lower())
    return "-".join(kept.split())[:64].strip("-")


def skill_name(skill_text: str) -> str:
    """The folder name a skill is installed under: its frontmatter ``name``, as a `slug`.

    >>> skill_name("no frontmatter")
    'skill-under-test'
    """
    lines = skill_text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() == "---":
                break
            key, _, value = line.partition(":")
            if key.strip() == "name" and slug(value):
                return slug(value)
    return DEFAULT_SKILL_NAME


@dataclass(frozen=True, slots=True)
class FiredCount:
    """How many of an arm's recording draws one skill fired in."""

    name: str
    fired: int
    of: int


def arm_fired(arm: Arm, names: Sequence[str] = ()) -> tuple[FiredCount, ...]:
    """Each skill's count in the arm: ``names`` first (in that order, zeros kept), then any other that fired, by
    name; empty when no draw recorded which skill fired.

    >>> from driftproof.core.models import Draw
    >>> arm = Arm.model_construct(draws=[Draw.model_construct(skills_fired=s) for s in (["a", "b"], ["b"], [])])
    >>> [(c.name, c.fired, c.of) for c in arm_fired(arm, ["a"])]
    [('a', 1, 3), ('b', 2, 3)]
    """
    recorded = [d.skills_fired for d in arm.draws if d.skills_fired is not None]
    if not recorded:
        return ()
    seen = sorted({n for fired in recorded for n in fired} - set(names))
    return tuple(FiredCount(n, sum(1 for f in recorded if n in f), len(recorded)) for n in (*names, *seen))


def has_fired(receipt: Receipt) -> bool:
    """Whether any draw of the receipt recorded which skills fired."""
    return any(d.skills_fired is not None for c in receipt.cases for a in (c.with_skill, c.baseline) for d in a.draws)


@dataclass(frozen=True, slots=True)
class FiredShift:
    """One skill's count in one case's with-skill arm, before and after (``None``: not recorded on that side)."""

    case: str
    name: str
    before: FiredCount | None
    after: FiredCount | None


def _share(count: FiredCount | None) -> float:
    return count.fired / count.of if count is not None and count.of else 0.0


def fired_shifts(before: Receipt, after: Receipt) -> tuple[FiredShift, ...]:
    """Per case both receipts hold, every skill that fired in either with-skill arm, with both counts."""
    old = {c.id: c for c in before.cases}
    shifts = []
    for case in after.cases:
        if case.id not in old:
            continue
        was = {c.name: c for c in arm_fired(old[case.id].with_skill)}
        now = {c.name: c for c in arm_fired(case.with_skill)}
        for name in sorted(set(was) | set(now)):
            shifts.append(FiredShift(case.id, name, was.get(name), now.get(name)))
    return tuple(shifts)


def stolen(shifts: Sequence[FiredShift], under_test: str | None) -> tuple[FiredShift, ...]:
    """The neighbours that now fire more often in the with-skill arm of a case where the skill under test fires
    less often: the activations a sibling took.

    >>> a, b = FiredCount("mine", 4, 4), FiredCount("mine", 1, 4)
    >>> shifts = [FiredShift("c1", "mine", a, b), FiredShift("c1", "other", None, FiredCount("other", 3, 4))]
    >>> [s.name for s in stolen(shifts, "mine")]
    ['other']
    """
    if under_test is None:
        return ()
    fell = {s.case for s in shifts if s.name == under_test and _share(s.after) < _share(s.before)}
    return tuple(s for s in shifts if s.case in fell and s.name != under_test and _share(s.after) > _share(s.before))
