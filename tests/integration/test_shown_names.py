"""The skill's name as the badge, ``export`` and the JUnit report show it (probe-core #7, #8): one rule for the
three, and no control or format character of a suite name reaches a README through shields.io."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driftproof.cli import main
from driftproof.receipts import write_receipt
from tests.support.builders import receipt, reseal

UP = {"a": ([0.60, 0.65, 0.70], [0.20, 0.25, 0.30])}
HOSTILE = "évals | <b>bold</b> `x` \u202e rtl \u0007 bell\u200b"


def named(suite_name: str, skill_path: str) -> Any:
    def edit(body: dict[str, Any]) -> None:
        body["suite"]["name"] = suite_name
        body["skill"]["path"] = skill_path

    return reseal(receipt(UP), edit)


def shown(tmp_path: Path, capsys: pytest.CaptureFixture[str], made: Any) -> tuple[str, str | None, str | None]:
    """The badge's label, export's skill.name and the JUnit classname of one receipt."""
    path = write_receipt(made, tmp_path / "r.json")
    assert main(["badge", str(path)]) == 0
    label = json.loads(capsys.readouterr().out)["label"]
    assert main(["export", str(path)]) == 0
    name = json.loads(capsys.readouterr().out)["skill"]["name"]
    junit = tmp_path / "j.xml"
    assert main(["diff", str(path), str(path), "--junit", str(junit)]) == 0
    capsys.readouterr()
    text = junit.read_text(encoding="utf-8")
    classname = text.split('classname="', 1)[1].split('"', 1)[0]
    return label, name, classname


def test_a_hostile_suite_name_is_shown_without_its_control_and_format_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/security.md: every control and format character (bidi overrides, zero-width) is removed from suite
    text that is shown. The terminal and the JUnit file did; the badge and export kept U+202E and BEL."""
    label, name, _ = shown(tmp_path, capsys, named(HOSTILE, "SKILL.md"))
    assert label == name == "évals | <b>bold</b> `x` rtl bell"


@pytest.mark.parametrize(
    ("skill_path", "expected"),
    [
        ("skills/commit-writer/SKILL.md", "commit-writer"),  # the folder the recorded path names
        ("SKILL.md", "haiku"),  # run beside the skill: the path names no folder, so the suite's name
        ("../SKILL.md", "haiku"),
    ],
)
def test_badge_export_and_junit_name_the_skill_by_one_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], skill_path: str, expected: str
) -> None:
    assert shown(tmp_path, capsys, named("haiku", skill_path)) == (expected, expected, expected)
