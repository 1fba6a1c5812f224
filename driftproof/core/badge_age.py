"""The badge's age rule: "verified DAY on MODEL", and when the badge turns grey. Pure: the shell reads the clock
and hands in the receipt's age in days.

The day is the receipt's own (``run.finished_at``, else ``created_at``, else ``run.started_at``: its first ten
characters, ``YYYY-MM-DD``, UTC), named only on a TESTED receipt (nothing below it was verified). The model is
the one the run asked for (the alias, ``run.lane.model_requested``), else the one id its replies reported.

The badge turns ``lightgrey`` when the receipt is older than ``stale_after`` days (``age_days > stale_after``:
at exactly ``stale_after`` days it is still current), when it records no day or a day after today (an unknown
or negative age is never read as current), when ``driftproof stale`` says an arm of it no longer stands, or
when the sentinel found it drifted.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.core.models import Receipt
from driftproof.core.words import Verification

#: Why a badge is grey, each as its one word in the docs.
TOO_OLD, NO_DAY, NOT_STANDING, DRIFTED = "too_old", "no_day", "not_standing", "drifted"
AFTER_TODAY = "after_today"


@dataclass(frozen=True, slots=True)
class Verified:
    """What the badge says of when and on what the receipt was verified, and why it is grey (``None``: it is not)."""

    day: str | None
    model: str | None
    grey: str | None = None


def verified_day(receipt: Receipt) -> str | None:
    """The receipt's day, ``YYYY-MM-DD``: when its run finished, else when it was written, else when it began.

    >>> from driftproof.core.models import Run
    >>> r = Receipt.model_construct(created_at="2026-12-02T08:00:00Z",
    ...                             run=Run.model_construct(finished_at="2026-12-01T23:59:00Z", started_at=None))
    >>> verified_day(r)
    '2026-12-01'
    """
    for stamp in (receipt.run.finished_at, receipt.created_at, receipt.run.started_at):
        if stamp and is_day(stamp[:10]):
            return stamp[:10]
    return None


def is_day(text: str) -> bool:
    """``YYYY-MM-DD`` in shape (digits and dashes; the shell checks the calendar).

    >>> is_day("2026-12-01"), is_day("2026-12-1"), is_day("20261201xx")
    (True, False, False)
    """
    return len(text) == 10 and text[4] == text[7] == "-" and (text[:4] + text[5:7] + text[8:]).isdigit()


def badge_model(receipt: Receipt) -> str | None:
    """The model the badge names: the one requested, else the one id reported, else none."""
    lane = receipt.run.lane
    if lane.model_requested:
        return lane.model_requested
    return lane.models_reported[0] if len(lane.models_reported) == 1 else None


def too_old(age_days: int, stale_after: int) -> bool:
    """Older than ``stale_after`` days.

    >>> too_old(29, 30), too_old(30, 30), too_old(31, 30)
    (False, False, True)
    """
    return age_days > stale_after


def verified(
    receipt: Receipt, age_days: int | None, stale_after: int, *, stands: bool | None = None, drifted: bool = False
) -> Verified:
    """The badge's "verified" part of ``receipt``, ``age_days`` old (``None`` when it records no day).

    Only a TESTED receipt was verified: below it (a stub run, a smoke run, an import) the badge names no day.
    """
    day = verified_day(receipt) if receipt.verification == Verification.TESTED else None
    grey = None
    if day is None or age_days is None:
        grey = NO_DAY
    elif age_days < 0:  # dated after today (a clock behind, a --today before it): no age to read as current
        grey = AFTER_TODAY
    elif drifted:
        grey = DRIFTED
    elif stands is False:
        grey = NOT_STANDING
    elif too_old(age_days, stale_after):
        grey = TOO_OLD
    return Verified(day, badge_model(receipt), grey)
