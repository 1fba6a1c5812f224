"""A smoke receipt restamped TESTED and sealed again (issue 8; seed 000, "A smoke run gives no verdict").

``validate`` refuses it, since the schema refuses a receipt that names a preset and reads TESTED; every reader
of a verdict (view, diff, badge) reads it as the smoke run it is: below TESTED, that side named a smoke run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.core.models import SCHEMA_VERSION
from driftproof.core.seal import sealed
from driftproof.receipts import receipt_json, write_receipt
from tests.support.builders import receipt

UP = ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])


@pytest.fixture
def restamped(tmp_path: Path) -> Path:
    honest = json.loads(receipt_json(receipt({"a": UP}, verification="UNVERIFIED", preset="quick")))
    forged = sealed({**honest, "verification": "TESTED", "verification_reason": None})
    path = tmp_path / "restamped.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    return path


def test_validate_refuses_it(restamped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(restamped)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{restamped}: schema {SCHEMA_VERSION}: at verification" in err


def test_diff_counts_it_below_tested_and_names_it_a_smoke_run(
    restamped: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    honest = tmp_path / "main.json"
    write_receipt(receipt({"a": UP}), honest)
    code = main(["diff", str(honest), str(restamped), "--fail-on", "regressed"])
    out = capsys.readouterr().out
    assert code == 0 and "Smoke run, no verdict" in out and "after is a smoke run" in out
    assert main(["diff", str(honest), str(restamped), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "no_verdict" and result["no_verdict"] == {"after": "Smoke run, no verdict"}


def test_view_and_badge_read_it_as_a_smoke_run(restamped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(restamped), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["no_verdict_reason"] == "Smoke run, no verdict"
    assert main(["badge", str(restamped)]) == 0
    assert json.loads(capsys.readouterr().out)["message"].startswith("smoke run, no verdict")
