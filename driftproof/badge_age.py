"""The clock side of the badge's age rule: today's UTC date, a receipt's age in days, ``--today`` read.

The rule itself is pure (`driftproof.core.badge_age`); only this module reads the clock.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from driftproof.core.badge_age import Verified, verified, verified_day
from driftproof.core.models import Receipt
from driftproof.errors import InputError

__all__ = ["badge_verified", "parse_day", "today_utc"]


def today_utc() -> date:
    """Today's date in UTC, the one place the badge reads the clock."""
    return datetime.now(UTC).date()


def parse_day(text: str, flag: str = "--today") -> date:
    """A ``YYYY-MM-DD`` date, or an ``InputError`` naming ``flag``."""
    try:
        return date.fromisoformat(text) if len(text) == 10 else date.fromisoformat("")
    except ValueError:
        raise InputError(f"{flag}: expected a date as YYYY-MM-DD, got {text!r}") from None


def badge_verified(
    receipt: Receipt, today: date, stale_after: int, *, stands: bool | None = None, drifted: bool = False
) -> Verified:
    """The badge's "verified" part of ``receipt`` on ``today``: its day, its model, and why it is grey."""
    day = verified_day(receipt)
    try:
        age = (today - date.fromisoformat(day)).days if day is not None else None
    except ValueError:  # shaped like a day but not one on the calendar (2026-13-40): unknown, never current
        age = None
    return verified(receipt, age, stale_after, stands=stands, drifted=drifted)
