"""A set of skills in one Action run (the ``skills`` input): each skill's paths and the set's outputs. Pure.

Each skill's stored receipt, new receipt and badge live at its own path: ``receipt-path`` and ``badge-path``
with ``{skill}`` replaced by the skill's folder name, or, when they hold no ``{skill}``, with that folder put
before the file name (``.driftproof/receipt.json`` → ``.driftproof/alpha/receipt.json``). The set's status is
its worst skill's; ``regressed`` and ``improved`` add up; ``lift`` is the one skill's, or ``n/a`` for several.
A push that runs no skill (every one kept its stored receipt) takes its status from the kept receipts' own; a
pull request that runs none reads ``skipped``: nothing was measured.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from driftproof.core.decision import Decision
from driftproof.core.words import SKIPPED, Status

__all__ = ["SKILL_FIELD", "WORST_FIRST", "set_folder", "set_outputs", "skill_path", "worst"]

SKILL_FIELD = "{skill}"
"""The placeholder of ``receipt-path`` and ``badge-path`` that a skill's folder name replaces."""

WORST_FIRST = (Status.REGRESSED, Status.UNDERPOWERED, Status.NO_VERDICT, Status.NO_SEPARATION, Status.PASSING)
"""The set's status is the first of these that any skill has."""


def skill_path(pattern: str, name: str) -> str:
    """One skill's path from a ``receipt-path``, ``badge-path`` or ``junit`` input.

    >>> skill_path(".driftproof/{skill}.json", "alpha"), skill_path(".driftproof/receipt.json", "alpha")
    ('.driftproof/alpha.json', '.driftproof/alpha/receipt.json')
    >>> skill_path("receipt.json", "alpha")
    'alpha/receipt.json'
    """
    if SKILL_FIELD in pattern:
        return pattern.replace(SKILL_FIELD, name)
    head, _, tail = pattern.rpartition("/")
    return f"{head}/{name}/{tail}" if head else f"{name}/{tail}"


def set_folder(pattern: str) -> str:
    """Where the set's own report goes: the folder of ``receipt-path`` before any ``{skill}``.

    >>> set_folder(".driftproof/{skill}/receipt.json"), set_folder(".driftproof/receipt.json")
    ('.driftproof', '.driftproof')
    >>> set_folder("{skill}.json")
    '.'
    """
    head = pattern.split(SKILL_FIELD, 1)[0]
    return head.rpartition("/")[0] or "."


def worst(statuses: Sequence[Status]) -> Status:
    """The set's status: its worst skill's (an empty set passes: nothing ran that could fail).

    >>> worst([Status.PASSING, Status.UNDERPOWERED]), worst([])
    (<Status.UNDERPOWERED: 'underpowered'>, <Status.PASSING: 'passing'>)
    """
    return next((s for s in WORST_FIRST if s in statuses), Status.PASSING)


def set_outputs(decisions: Mapping[str, Decision], kept: Sequence[Status] = ()) -> dict[str, str]:
    """The step outputs of the whole set, from each skill's decision (skill name → decision); when no skill ran,
    the status is the worst of ``kept``, the statuses of the stored receipts a push kept (a store run's status
    is its receipt's own, so it is what drawing them again would most likely say), else ``skipped`` (a pull
    request that touches no skill: nothing measured, never a ``passing``)."""
    if len(decisions) == 1:
        return next(iter(decisions.values())).outputs()
    each = list(decisions.values())
    stands = [d.baseline_stands for d in each if d.baseline_stands is not None]
    return {
        "status": str(worst(statuses)) if (statuses := [d.status for d in each] or list(kept)) else SKIPPED,
        "regressed": str(sum(d.regressed for d in each)),
        "improved": str(sum(d.improved for d in each)),
        "lift": "n/a",
        "lift-per-1k": "n/a",
        "draws-needed": "",
        "baseline-stands": str(all(stands)).lower() if stands else "",
    }
