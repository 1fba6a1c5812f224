"""The sentences of carrying the standing baseline and of promoting a pull request's receipt on merge. Pure.

Beside ``driftproof.core.sentences`` (at its size cap), in the same manner: each string written once, as a
constant or a small function of parts its caller has already formatted. ``docs/action.md`` and ``docs/cost.md``
quote them: they are a public interface.
"""

from __future__ import annotations

CARRY_PREFIX = "driftproof: carry: "

CARRIED_ONLY = (
    "every judge sample was carried from another receipt: a carried arm never makes a receipt TESTED on its own"
)
"""Why a receipt whose every returned judge sample was carried is not TESTED."""


def baseline_carried(label: str, seal: str, cases: int, of: int, reused: int, drawn: int) -> str:
    """What the reports say of a receipt whose baseline arms were carried (``label``: where from, ``seal``: the
    source receipt's seal as shown).

    >>> baseline_carried("main", "017594ca9d76", 2, 2, 24, 0)
    'baseline carried from main (017594ca9d76) for 2 of 2 cases: 24 draws reused, 0 drawn'
    """
    return f"baseline carried from {label} ({seal}) for {cases} of {of} cases: {reused} draws reused, {drawn} drawn"


CARRIED_SOURCE = "its reference"
"""How ``driftproof view`` names the receipt a baseline was carried from: the view knows its seal, not its path."""


def carry_none(label: str, seal: str, why: str) -> str:
    """Printed before the first call when nothing is carried although carrying was asked for.

    >>> carry_none("main", "017594ca9d76", "1 of 1 cases need a rerun (prompt changed: a → b)")
    'driftproof: carry: nothing carried from main (017594ca9d76): 1 of 1 cases need a rerun (prompt changed: a → b)'
    """
    return f"{CARRY_PREFIX}nothing carried from {label} ({seal}): {why}"


def carry_plan(label: str, seal: str, cases: int, of: int, draws: int) -> str:
    """Printed before the first call: the baseline arms carried (the rest, if any, are drawn).

    >>> carry_plan("main", "017594ca9d76", 1, 2, 12)
    'driftproof: carry: baseline carried from main (017594ca9d76) for 1 of 2 cases (12 draws); the rest are drawn'
    >>> carry_plan("main", "017594ca9d76", 2, 2, 24)
    'driftproof: carry: baseline carried from main (017594ca9d76) for 2 of 2 cases (24 draws)'
    """
    rest = "; the rest are drawn" if cases < of else ""
    return f"{CARRY_PREFIX}baseline carried from {label} ({seal}) for {cases} of {of} cases ({draws} draws){rest}"


def carry_stale_cases(count: int, of: int, reason: str) -> str:
    """Why some baseline arms are not carried (``driftproof stale``'s first reason).

    >>> carry_stale_cases(2, 3, "prompt changed: a → b")
    '2 of 3 cases need their baseline drawn (prompt changed: a → b)'
    """
    return f"{count} of {of} cases need their baseline drawn ({reason})"


def promoted(seal: str, source: str) -> str:
    """The store job's line when it promotes the pull request's last receipt instead of drawing again.

    >>> for part in promoted("5f2c0e1d9a3b", "pr.json").split(": "):
    ...     print(part)
    promoted the pull request's receipt (5f2c0e1d9a3b) from pr.json
    the merge commit's skill, suite and settings hash to what it recorded; nothing drawn
    """
    return (
        f"promoted the pull request's receipt ({seal}) from {source}: the merge commit's skill, suite and settings "
        "hash to what it recorded; nothing drawn"
    )


def not_promoted(source: str, why: str) -> str:
    """The store job's line when the receipt it was given cannot be promoted: it draws instead.

    >>> not_promoted("pr.json", "skill sha256 changed: aaa → bbb")
    'not promoting pr.json: skill sha256 changed: aaa → bbb; drawing the receipt'
    """
    return f"not promoting {source}: {why}; drawing the receipt"


PROMOTE_MISSING = "the file is not there (no pull request run left a receipt for this commit)"
PROMOTE_DIRECTORY = "it is a directory, not a receipt file (name the receipt inside it)"
PROMOTE_ON_PR = (
    "input 'promote' is for the store job's push to the default branch, not for a pull request: drop it from this "
    "job (the pull request's job uploads its receipt; the store job promotes it)"
)
"""Why ``promote`` on a pull request is refused before any call, as ``sentinel`` is there."""


def promote_unused(branch: str, event: str, ref: str | None) -> str:
    """Why ``promote`` is not used by a run that stores nothing (not a push to the default branch).

    >>> promote_unused("main", "workflow_dispatch", "refs/heads/main")
    "input 'promote' is not used: it applies to a push to the default branch (main) only, and this run is a \
workflow_dispatch event on refs/heads/main"
    """
    on = f" on {ref}" if ref else ""
    return (
        f"input 'promote' is not used: it applies to a push to the default branch ({branch}) only, and this run is "
        f"a {event} event{on}"
    )


PROMOTE_NOT_A_RUN = "it is not a receipt a run drew (a regrade or an import)"
PROMOTE_SUITE = "the suite file changed"


def promote_rule(recorded: str | None, today: str) -> str:
    """The pull request's receipt was not drawn to the reference rule the store job draws to.

    >>> promote_rule("settle-v2(min=3)", "settle-v2(min=12)")
    'it was not drawn to the reference rule (recorded settle-v2(min=3), the store job draws settle-v2(min=12))'
    """
    return f"it was not drawn to the reference rule (recorded {recorded or 'none'}, the store job draws {today})"


TITLE_CARRIED = "Driftproof baseline carried"
TITLE_PROMOTED = "Driftproof promoted"
TITLE_PROMOTE = "Driftproof promote"

PAIRWISE_CARRY = (
    "--judge-mode: pairwise judges each draw pair's two answers side by side, and a baseline carried from "
    "--reference brings its scores but not its answers; add --no-carry-baseline (the baseline is drawn) "
    "or drop --judge-mode pairwise"
)
"""Why a run (or a plan) asking ``--judge-mode pairwise`` with a carried baseline is refused, before any call."""
