"""``view``'s lift by case, ``diff --lift-breakdown`` and ``export`` end to end: output, size limits, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.core.breakdown import BREAKDOWN_LIMITS
from driftproof.receipts import write_receipt
from driftproof.summary_file import summary_text
from tests.integration.test_render_golden import by_case, by_case_before
from tests.support.builders import receipt


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    write_receipt(by_case_before(), before)
    write_receipt(by_case(), after)
    return before, after


def test_view_json_carries_the_breakdown_under_its_documented_keys(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "view", str(pair[1]), "--format", "json")
    b = json.loads(out)["lift_breakdown"]
    assert code == 0 and b["available"] is True and b["unavailable_reason"] is None
    # (0.40 + 0 − 0.25)/3 = 0.05; without subject-line (0 − 0.25)/2 = −0.125
    assert b["lift"] == 0.05 and b["included_cases"] == 3 and b["labels_reason"] is None
    assert b["downward"] == ["retry-429"] and b["carriers"] == ["subject-line"]
    assert b["limits"] == {"max_cases": 1000, "max_draws": 100000}
    first = b["cases"][0]
    assert first["with_skill"] == {"mean": 0.85, "sd": 0.05, "measured": 3, "drawn": 3, "lost": 0}
    assert first["difference"] == 0.4 and first["lift_without"] == -0.125 and first["lift_without_reason"] is None
    assert first["separation"] == "helps" and first["carrier"] is True and first["included"] is True
    # the skill-fired rate per arm is beside the score in the view's own case rows, never in it
    fired = json.loads(out)["cases"][0]["with_skill"]["skill_fired"]
    assert fired == {"fired": 2, "of": 3} and json.loads(out)["cases"][0]["with_skill"]["mean"] == 0.85


def test_view_shows_the_skill_fired_rate_beside_the_score_only_where_recorded(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "view", str(pair[1]))
    assert "| checks (with skill) | skill fired (with skill · baseline) |" in out
    assert "| `subject-line` | 0.85 ± 0.05 (3/3) | 0.45 ± 0.05 (3/3) | +0.40 | improved | – | – | – | 2/3 · – |" in out
    _, out, _ = run(capsys, "view", str(pair[0]))  # no draw records skill_fired: no column
    assert "skill fired" not in out


def test_diff_lift_breakdown_adds_both_breakdowns_and_nothing_else(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, plain, _ = run(capsys, "diff", str(pair[0]), str(pair[1]))
    code, flagged, _ = run(capsys, "diff", str(pair[0]), str(pair[1]), "--lift-breakdown")
    assert code == 0
    head, tail = plain.rsplit("\n<sub>", 1)
    assert flagged.startswith(head) and flagged.endswith("\n<sub>" + tail)  # the report itself is untouched
    added = flagged[len(head) : -len(tail)]
    assert "**Lift by case · before** · measured lift +0.067 over 3 cases" in added
    assert "**Lift by case · after** · measured lift +0.050 over 3 cases" in added
    _, plain_json, _ = run(capsys, "diff", str(pair[0]), str(pair[1]), "--format", "json")
    _, flagged_json, _ = run(capsys, "diff", str(pair[0]), str(pair[1]), "--format", "json", "--lift-breakdown")
    plain_doc, flagged_doc = json.loads(plain_json), json.loads(flagged_json)
    both = flagged_doc.pop("lift_breakdown")
    assert flagged_doc == plain_doc and "lift_breakdown" not in plain_doc
    # before: subject-line +0.20 alone; without it (0 + 0)/2 = 0 exactly, at or below zero: it carries the lift
    assert both["before"]["carriers"] == ["subject-line"] and both["before"]["cases"][0]["lift_without"] == 0.0
    assert both["after"]["downward"] == ["retry-429"]


def test_a_receipt_over_the_size_limit_keeps_its_sheet_and_its_diff_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = BREAKDOWN_LIMITS.cases + 1
    big = tmp_path / "big.json"
    write_receipt(receipt({f"case-{i}": ([0.6, 0.7], [0.4, 0.5]) for i in range(n)}), big)
    code, out, _ = run(capsys, "view", str(big))
    limit = "over the breakdown's size limit: 1,001 cases; a breakdown computes over at most 1,000 cases"
    assert code == 0 and f"**Lift by case** · unavailable: {limit}." in out
    assert (
        "| lift (with − without) | +0.200 (sd 0.000 across cases) |" in out
        and "| `case-1000` | 0.65 ± 0.07 (2/2) |" in out
    )
    _, doc, _ = run(capsys, "view", str(big), "--format", "json")
    view = json.loads(doc)
    assert view["lift"] == 0.2 and len(view["cases"]) == n
    assert view["lift_breakdown"]["available"] is False and view["lift_breakdown"]["unavailable_reason"] == limit
    _, plain, _ = run(capsys, "diff", str(big), str(big))
    _, flagged, _ = run(capsys, "diff", str(big), str(big), "--lift-breakdown")
    head, _tail = plain.rsplit("\n<sub>", 1)
    assert flagged.startswith(head) and flagged.count(f"unavailable: {limit}.") == 2


def test_export_prints_the_summary_or_writes_it_atomically(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "export", str(pair[1]), "--format", "summary-json")
    doc = json.loads(out)
    assert code == 0 and err == "" and out == summary_text(doc)
    assert doc["status"] == "regressed" and doc["lift"] == 0.05 and doc["lift_signed"] == "+0.050000"
    target = tmp_path / "out" / "summary.json"
    code, said, _ = run(capsys, "export", str(pair[1]), "-o", str(target))
    assert code == 0 and said == f"summary: {target}\n" and target.read_text(encoding="utf-8") == out
    assert [p.name for p in target.parent.iterdir()] == ["summary.json"]  # no temp file left beside it


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "{dir}/missing.json"], "{dir}/missing.json: no such file"),
        (
            ["export", "{after}", "--format", "csv"],
            "--format: 'csv' is not a format export writes (it writes summary-json)",
        ),
        (["export", "{dir}"], "{dir}: is a directory, not a receipt file"),
        (["export", "{after}", "-o", "{dir}"], "-o: {dir} is a directory; name a file such as {dir}/summary.json"),
        (
            ["export", "{after}", "-o", "{after}"],
            "-o: {after} is the receipt being exported; write the summary elsewhere",
        ),
    ],
)
def test_export_refusals_are_one_line_with_exit_2_and_write_nothing(
    argv: list[str], message: str, pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = {"dir": str(tmp_path), "after": str(pair[1])}
    before = sorted(p.name for p in tmp_path.iterdir())
    kept = pair[1].read_bytes()
    code, out, err = run(capsys, *(a.format(**names) for a in argv))
    assert code == 2 and out == "" and err == f"driftproof: error: {message.format(**names)}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before and pair[1].read_bytes() == kept


def test_a_summary_that_would_not_validate_is_never_written(
    pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import driftproof.core.summary as summary

    real = summary.summary_json
    monkeypatch.setattr(summary, "summary_json", lambda r, reading: {**real(r, reading), "lift_signed": "0.05"})
    target = tmp_path / "summary.json"
    old = '{"summary_version": "1", "receipt": {"sha256": "old"}}\n'  # an older summary: of the kind, replaceable
    target.write_text(old, encoding="utf-8")
    code, _, err = run(capsys, "export", str(pair[1]), "-o", str(target))
    assert code == 2 and err.startswith(
        f"driftproof: error: {target}: the summary does not match summary-1.schema.json"
    )
    assert err.count("\n") == 1 and target.read_text(encoding="utf-8") == old
