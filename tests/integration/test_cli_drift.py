"""``driftproof drift OLD NEW``: markdown or JSON, exit 1 when drifted, 0 otherwise, 2 on bad input (one line).

The receipts are those of tests/unit/test_drift.py: stored with-skill 0.85 × 12; today [0.50, 0.55, 0.60] × 3
(0.55 ± 0.043, apart, Δ −0.30) under a new dated id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.receipts import write_receipt
from tests.unit.test_drift import BASE, NOW, STORED, STORED_RECEIPT, THEN, sentinel_receipt

MOVED = {"subject-line": ([0.50, 0.55, 0.60] * 3, BASE), "why-not-what": ([0.75] * 12, BASE)}


@pytest.fixture
def old(tmp_path: Path) -> Path:
    return write_receipt(STORED_RECEIPT, tmp_path / "old.json")


def test_drift_command_exits_1_when_drifted_and_names_the_dated_ids(
    old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = write_receipt(sentinel_receipt(MOVED, reported=NOW), tmp_path / "new.json")
    assert main(["drift", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert "**drifted: 1 arm moved although neither the skill nor the suite changed**" in out
    assert f"claude-sonnet-5-5 answered as {THEN} then, {NOW} now" in out
    assert main(["drift", str(old), str(new), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["drifted"], doc["cases"][0]["with_skill"]["direction"]) == ("drifted", True, "down")
    assert doc["cases"][0]["with_skill"]["delta"] == -0.3  # 0.55 − 0.85


def test_drift_command_exits_0_when_steady_or_not_applicable(
    old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = write_receipt(sentinel_receipt(STORED, reported=NOW), tmp_path / "same.json")
    assert main(["drift", str(old), str(same), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "steady"
    other_skill = write_receipt(sentinel_receipt(MOVED, skill="2" * 64), tmp_path / "skill.json")
    assert main(["drift", str(old), str(other_skill), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["status"], doc["drifted"], doc["cases"]) == ("not_applicable", False, [])


def test_drift_command_bad_input_is_one_line_and_exit_2(
    old: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    assert main(["drift", str(old), str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"driftproof: error: {missing}: no such file\n"
