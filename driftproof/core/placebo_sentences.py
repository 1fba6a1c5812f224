"""The sentences of the placebo arm (``--placebo``): the view's and the comparison report's section, the diff's
note when only one receipt has a placebo arm. Written once, here (`driftproof.core.sentences` is at its cap)."""

from __future__ import annotations

PLACEBO_HEADING = "Lift vs more context (placebo)"
"""The heading of the placebo section in the view, the first-run report and the PR comment."""

PLACEBO_RULE = (
    "Lift vs no skill is with skill − baseline; lift vs more context is with skill − placebo. Each is called "
    "under the same rule (bands apart and a gap of at least 0.05); the status and the gate read lift vs no skill."
)


def placebo_lead(tokens: int, sha256: str) -> str:
    """What the placebo arm was given, by size and hash.

    >>> placebo_lead(400, "ab" * 32).split("; ")
    ["The placebo arm was given 400 tokens of neutral text (the skill's size), delivered as the skill is", \
'text sha256 abababababab.']
    """
    return (
        f"The placebo arm was given {tokens} tokens of neutral text (the skill's size), delivered as the skill is; "
        f"text sha256 {sha256[:12]}."
    )


def only_one_placebo(has: str, lacks: str) -> str:
    """A diff whose receipts disagree on ``--placebo``: the comparison is unchanged, the placebo shown for one.

    >>> only_one_placebo("after", "before").split(": ")[0]
    'Only after has a placebo arm (before was run without --placebo)'
    """
    return (
        f"Only {has} has a placebo arm ({lacks} was run without --placebo): lift vs more context is shown for "
        f"{has} alone; the comparison reads the with-skill arms as always."
    )


PLACEBO_NOT_REGRADED = (
    "a receipt drawn with --placebo has a third arm, which regrade does not grade yet; run the suite again with "
    "--placebo and the grader you want"
)
"""Why ``driftproof regrade`` refuses a ``--placebo`` receipt (one line: ``RECEIPT: placebo: regrade refused: …``)."""
