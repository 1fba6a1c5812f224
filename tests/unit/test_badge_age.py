"""The badge's age rule (core/badge_age.py, badge_age.py): "verified DAY on MODEL", grey when older than
``stale-after`` days, when no day is recorded, when an arm no longer stands, or when the sentinel found drift."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from driftproof.badge_age import badge_verified
from driftproof.cli import main
from driftproof.core.badge import badge_json
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.receipts import write_receipt
from tests.support.builders import receipt, reseal

UP = {"a": ([0.60, 0.65, 0.70], [0.20, 0.25, 0.30])}  # passing, lift +0.40 (tests/unit/test_badge_and_decision.py)
FINISHED = "2026-12-01T09:30:00Z"


def dated(finished: str | None = FINISHED, model: str = "claude-sonnet-5-5") -> Receipt:
    def edit(body: dict[str, Any]) -> None:
        body["run"]["finished_at"] = finished
        body["run"]["lane"]["model_requested"] = model
        body["run"]["lane"]["models_reported"] = [f"{model}-20261120"]

    return reseal(receipt(UP), edit)


@pytest.mark.parametrize(
    ("today", "color"),
    [
        (date(2026, 12, 30), "brightgreen"),  # 29 days after 2026-12-01
        (date(2026, 12, 31), "brightgreen"),  # 30 days: not older than 30
        (date(2027, 1, 1), "lightgrey"),  # 31 days: older than 30
    ],
    ids=["29-days", "30-days", "31-days"],
)
def test_badge_age_turns_grey_only_past_stale_after(today: date, color: str) -> None:
    made = dated()
    badge = badge_json(read_receipt(made), badge_verified(made, today, 30))
    assert badge == {
        "schemaVersion": 1,
        "label": "fixture",
        "message": "passing · lift +0.40 · verified 2026-12-01 on claude-sonnet-5-5",
        "color": color,
    }


@pytest.mark.parametrize(
    ("kwargs", "grey"),
    [({"stands": False}, "not_standing"), ({"drifted": True}, "drifted"), ({"stands": True}, None)],
    ids=["an-arm-no-longer-stands", "drifted", "stands"],
)
def test_badge_age_grey_when_the_receipt_no_longer_holds(kwargs: dict[str, bool], grey: str | None) -> None:
    made = dated()
    verified = badge_verified(made, date(2026, 12, 2), 30, **kwargs)
    assert verified.grey == grey
    assert badge_json(read_receipt(made), verified)["color"] == ("brightgreen" if grey is None else "lightgrey")


def test_badge_age_unknown_when_no_day_is_recorded() -> None:
    made = receipt(UP)  # the builder records no time
    verified = badge_verified(made, date(2026, 12, 2), 30)
    assert (verified.day, verified.grey) == (None, "no_day")
    assert badge_json(read_receipt(made), verified)["message"] == "passing · lift +0.40"


def test_badge_age_names_no_day_below_tested() -> None:
    # an import (DECLARED) or a stub run (UNVERIFIED) was never verified: its day is when it was written
    made = reseal(dated(), lambda body: body.update(verification="DECLARED", verification_reason="imported"))
    verified = badge_verified(made, date(2026, 12, 2), 30)
    assert (verified.day, verified.grey) == (None, "no_day")
    assert badge_json(read_receipt(made), verified) == {
        "schemaVersion": 1,
        "label": "fixture",
        "message": "no verdict · lift +0.40",
        "color": "lightgrey",
    }


def test_badge_command_takes_stale_after_and_today(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_receipt(dated(), tmp_path / "receipt.json")
    assert main(["badge", str(path), "--today", "2026-12-31"]) == 0
    assert json.loads(capsys.readouterr().out)["color"] == "brightgreen"
    assert main(["badge", str(path), "--today", "2026-12-31", "--stale-after", "29"]) == 0
    badge = json.loads(capsys.readouterr().out)
    assert (set(badge), badge["color"]) == ({"schemaVersion", "label", "message", "color"}, "lightgrey")


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--today", "31/12/2026"], "driftproof: error: --today: expected a date as YYYY-MM-DD, got '31/12/2026'"),
        (["--stale-after", "-1"], "driftproof: error: --stale-after: expected a whole number of days from 0, got -1"),
    ],
)
def test_badge_command_refuses_a_bad_date_or_age(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    path = write_receipt(dated(), tmp_path / "receipt.json")
    assert main(["badge", str(path), *argv]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", line + "\n")


def test_a_receipt_dated_after_today_is_not_read_as_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """probe-core #12: --today 2020-01-01 before the receipt's 2026-12-01 still gave brightgreen: an age of
    -1,796 days read as fresh. A day after today is no known age: grey, as a receipt that records no day."""
    made = dated()
    verified = badge_verified(made, date(2026, 11, 30), 30)  # the day before the run finished: age -1
    assert (verified.day, verified.grey) == ("2026-12-01", "after_today")
    path = write_receipt(made, tmp_path / "receipt.json")
    assert main(["badge", str(path), "--today", "2020-01-01"]) == 0
    assert json.loads(capsys.readouterr().out)["color"] == "lightgrey"
    assert badge_verified(made, date(2026, 12, 1), 30).grey is None  # the same day: 0 days old, current
