"""The sentences of a JUnit report (``--junit FILE`` on ``run`` and ``diff``): why a case failed or was skipped.

Each is the message of a ``<failure>`` or ``<skipped>`` element, read in a CI test reporter's list of failed or
skipped tests, so each names the case and says why in one line.
"""

from __future__ import annotations

from driftproof.core.sentences import FLOOR, NO_VERDICT, VERDICT_WORDS
from driftproof.core.words import CaseVerdict


def regressed_against_baseline(case_id: str, with_skill: str, baseline: str, delta: float | None) -> str:
    """A run's regressed case: the skill made it worse than no skill.

    >>> regressed_against_baseline("a", "0.40 ± 0.05 (6/6)", "0.80 ± 0.04 (6/6)", -0.4)
    'case a regressed: with the skill 0.40 ± 0.05 (6/6), without it 0.80 ± 0.04 (6/6) (Δ -0.40); the bands are \
apart and |Δ| ≥ 0.05'
    """
    shown = "" if delta is None else f" (Δ {delta:+.2f})"
    return (
        f"case {case_id} regressed: with the skill {with_skill}, without it {baseline}{shown}; "
        f"the bands are apart and |Δ| ≥ {FLOOR}"
    )


def not_called(case_id: str, verdict: CaseVerdict, why: str) -> str:
    """A case with no call (underpowered, inconclusive): its verdict in words and why.

    >>> not_called("b", CaseVerdict.UNDERPOWERED, "9 draws per arm needed")
    'case b underpowered: 9 draws per arm needed'
    """
    return f"case {case_id} {VERDICT_WORDS[verdict]}: {why}"


def withheld(case_id: str, reason: str) -> str:
    """A case of a receipt (or a comparison) that readers give no verdict.

    >>> withheld("c", "smoke run")
    'case c: no verdict: smoke run'
    """
    return f"case {case_id}: {NO_VERDICT}: {reason}"


def only_on_one_side(case_id: str, side: str) -> str:
    """A case a diff could not compare: it is in one receipt only.

    >>> only_on_one_side("d", "before")
    'case d is only in the before receipt: nothing to compare it with'
    """
    return f"case {case_id} is only in the {side} receipt: nothing to compare it with"
