"""The sentences of ``driftproof stale`` about the conditions main's newer features add: the neighbour skills
installed in both arms, pairwise judging, the placebo arm and the judge-anchor canaries. Pure.

Beside ``driftproof.core.stale_sentences`` in the same manner: each string written once, as a small function of
parts its caller has already formatted. ``docs/stale.md`` quotes them: they are a public interface.
"""

from __future__ import annotations

from collections.abc import Sequence


def neighbours_changed(parts: Sequence[str]) -> str:
    """The reason both arms are drawn again: the neighbour skills installed beside the skill differ.

    >>> neighbours_changed(["beta 1a2b3c4d5e6f → 9f8e7d6c5b4a", neighbour_added("gamma", "0123456789ab")])
    'neighbour skills changed: beta 1a2b3c4d5e6f → 9f8e7d6c5b4a; gamma added (0123456789ab)'
    """
    return f"neighbour skills changed: {'; '.join(parts)}"


def neighbour_added(name: str, sha: str) -> str:
    """A neighbour installed today that the receipt's run did not install.

    >>> neighbour_added("gamma", "0123456789ab")
    'gamma added (0123456789ab)'
    """
    return f"{name} added ({sha})"


def neighbour_removed(name: str, sha: str) -> str:
    """A neighbour the receipt's run installed that today's run does not.

    >>> neighbour_removed("beta", "1a2b3c4d5e6f")
    'beta removed (1a2b3c4d5e6f)'
    """
    return f"{name} removed ({sha})"


def pairwise_changed(recorded: str, today: str) -> str:
    """The advisory of pairwise judging that differs: the arms' scores stand, the pairwise figures do not.

    >>> print(pairwise_changed("pairwise-v1 (0123456789ab)", "none"))  # doctest: +NORMALIZE_WHITESPACE
    pairwise judging changed: pairwise-v1 (0123456789ab) → none: pairwise is beside the verdict, so the arms
    stand, but the receipt's pairwise figures do not stand for this run
    """
    return (
        f"pairwise judging changed: {recorded} → {today}: pairwise is beside the verdict, so the arms stand,"
        " but the receipt's pairwise figures do not stand for this run"
    )


def placebo_dropped(recorded: str) -> str:
    """The advisory of a receipt with a placebo arm asked about a run without ``--placebo``.

    >>> print(placebo_dropped("0123456789ab"))  # doctest: +NORMALIZE_WHITESPACE
    placebo arm: the receipt has one (text 0123456789ab) and this run asks none (no --placebo): its lift vs more
    context does not stand for this run
    """
    return (
        f"placebo arm: the receipt has one (text {recorded}) and this run asks none (no --placebo):"
        " its lift vs more context does not stand for this run"
    )


PLACEBO_NEW = "placebo arm: this run asks --placebo and the receipt has none: the placebo arm is drawn"
"""The advisory of a run with ``--placebo`` asked about a receipt without a placebo arm."""


def placebo_changed(recorded: str, today: str) -> str:
    """The advisory of a placebo text that differs (the skill's token length or the generator changed).

    >>> print(placebo_changed("0123456789ab, 30 tokens, placebo-v1", "ba9876543210, 31 tokens, placebo-v1"))
    ... # doctest: +NORMALIZE_WHITESPACE
    placebo text changed: 0123456789ab, 30 tokens, placebo-v1 → ba9876543210, 31 tokens, placebo-v1: the placebo
    arm no longer stands (it is drawn again)
    """
    return f"placebo text changed: {recorded} → {today}: the placebo arm no longer stands (it is drawn again)"


def canaries_changed(recorded: str, today: str) -> str:
    """The advisory of judge-anchor canaries that differ: beside the verdict, but two receipts' anchors are
    compared only when they are the same set.

    >>> print(canaries_changed("suite set 0123456789ab", "none"))  # doctest: +NORMALIZE_WHITESPACE
    judge-anchor canaries changed: suite set 0123456789ab → none: the arms stand, but the receipt's canary
    figures do not stand for this run
    """
    return (
        f"judge-anchor canaries changed: {recorded} → {today}: the arms stand,"
        " but the receipt's canary figures do not stand for this run"
    )
