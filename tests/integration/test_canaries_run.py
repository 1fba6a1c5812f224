"""Judge-anchor canaries end to end on the stub lane: suite validation, a run, the receipt, view and diff."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from driftproof.cli import main
from driftproof.receipts import load_receipt

FAST = ["--provider", "stub", "--draws", "3", "--max-draws", "3", "--judge-samples", "2"]
CASES = [{"id": "c1", "prompt": "Write a haiku about rain.", "rubric": "Three lines, 5-7-5, about rain."}]
CANARIES = [
    {"id": "good", "case": "c1", "answer": "Soft rain on the roof", "expected": 0.9},
    {"id": "own", "prompt": "Say hi.", "rubric": "Says hi.", "answer": "hi", "expected": 1.0},
]


def suite(tmp_path: Path, canaries: object, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    (tmp_path / "SKILL.md").write_text("# Haiku\nWrite 5-7-5.\n", encoding="utf-8")
    body = {"name": "s", "skill": "SKILL.md", "cases": CASES, "canaries": canaries}
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("canaries", "where"),
    [
        ([{**CANARIES[0], "expected": 1.5}], "canaries[0].expected: a number from 0 to 1"),
        ([{**CANARIES[0], "case": "nope"}], "canaries[0].case: 'nope' is not a case of this suite (cases: c1)"),
        ([CANARIES[0], CANARIES[0]], "canaries[1].id: canary id 'good' appears twice"),
        ([{"id": "x", "answer": "a", "expected": 0.5}], "canaries[0]: a canary needs 'case'"),
        ([{k: v for k, v in CANARIES[0].items() if k != "answer"}], "canaries[0].answer: missing; a canary needs"),
        ([], "canaries: an empty list; a suite needs at least one canary"),
    ],
)
def test_a_bad_canary_is_one_line_naming_its_field_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], canaries: object, where: str
) -> None:
    path = suite(tmp_path, canaries)
    out = tmp_path / "r.json"
    assert main(["run", str(path), "-o", str(out), *FAST]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"driftproof: error: {path}: {where}"), err
    assert not out.exists()


def test_a_stub_run_rejudges_the_canaries_and_view_and_diff_read_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = suite(tmp_path, CANARIES)
    held, drifted = tmp_path / "held.json", tmp_path / "drifted.json"
    assert main(["run", str(path), "-o", str(held), *FAST]) == 0
    record = load_receipt(held).canaries
    assert record is not None and record.source == "suite" and record.judge_drifted is False
    # the unscripted stub judge scores an anchor as pre-graded: 0.9 and 1.0, two samples each → MAD 0
    assert [(c.id, c.scores, c.case_id) for c in record.canaries] == [
        ("good", [0.9, 0.9], "c1"),
        ("own", [1.0, 1.0], None),
    ]
    overhead = load_receipt(held).economics.judge_overhead
    assert overhead.canaries is not None and overhead.canaries.judge_calls == 4  # 2 canaries × 2 samples, apart
    assert overhead.judged_draws_missing_usage == 6  # the case arms' 1 case × 2 arms × 3 draws only

    script = tmp_path / "script.yaml"  # a judge that now scores the anchors 0.5 and 0.6: MAD (0.4 + 0.4) / 2 = 0.4
    script.write_text(yaml.safe_dump({"canaries": {"good": {"scores": [0.5]}, "own": {"scores": [0.6]}}}))
    capsys.readouterr()
    assert main(["run", str(path), "-o", str(drifted), "--script", str(script), *FAST]) == 0
    said = capsys.readouterr().err
    assert (
        "driftproof: canaries: judge drifted: the canaries' mean absolute deviation from their expected scores "
        "is 0.400 (tolerance 0.10; mean difference -0.400; 2 canaries × 2 judge samples)" in said
    )

    assert main(["view", str(drifted), "--format", "markdown"]) == 0
    view = capsys.readouterr().out
    assert "| `c1` |" in view and "no verdict · judge drifted |" in view
    assert main(["diff", str(held), str(drifted), "--format", "markdown"]) == 0
    report = capsys.readouterr().out
    assert "the judge scored the anchors differently (after's judge drifted)" in report
    assert "no verdict · judge drifted |" in report
    assert main(["diff", str(held), str(drifted), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "no_verdict"


def test_no_canaries_and_the_default_set(tmp_path: Path) -> None:
    path = suite(tmp_path, CANARIES)
    assert main(["run", str(path), "-o", str(tmp_path / "none.json"), "--no-canaries", *FAST]) == 0
    none = load_receipt(tmp_path / "none.json")
    assert none.canaries is None and none.economics.judge_overhead.canaries is None
    plain = tmp_path / "plain.yaml"
    plain.write_text(yaml.safe_dump({"name": "s", "skill": "SKILL.md", "cases": CASES}), encoding="utf-8")
    assert main(["run", str(plain), "-o", str(tmp_path / "off.json"), *FAST]) == 0
    assert load_receipt(tmp_path / "off.json").canaries is None  # no canaries: in the suite: none unless asked
    assert main(["run", str(plain), "-o", str(tmp_path / "d.json"), "--default-canaries", *FAST]) == 0
    shipped = load_receipt(tmp_path / "d.json").canaries
    assert shipped is not None and shipped.source == "default" and len(shipped.canaries) == 4
    assert shipped.judge_drifted is False
