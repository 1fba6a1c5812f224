"""The badge JSON and the Action's decision: one table each, from receipts built by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from driftproof.cli import main
from driftproof.core.badge import badge_json
from driftproof.core.decision import decide
from driftproof.core.diff import diff
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.receipts import write_receipt
from tests.support.builders import receipt, reseal

BASE = [0.20, 0.25, 0.30]
UP = {"a": ([0.60, 0.65, 0.70], BASE)}  # lift +0.40, 400 skill tokens: +1.00 per 1k
DOWN = {"a": ([0.10, 0.10, 0.10], BASE)}  # 0.10 ± 0 under 0.25 ± 0.05: lift −0.15
FLAT = {"a": ([0.25, 0.25, 0.25], [0.25, 0.25, 0.25])}
CLOSE = {"a": ([0.70, 0.74, 0.78], [0.75, 0.75, 0.75])}  # underpowered: 65 draws per arm
NOISY = {"a": ([0.50, 0.70, 0.90], [0.60, 0.70, 0.80])}  # underpowered: s_a + s_b = 0.3 ≥ F
# The same two arms on 7 draws, as R-7 asks of a call between two receipts: with-skill 0.65 ± 0.029 (lift
# +0.40 still) and 0.10 ± 0 (lift −0.15 still); [0.621, 0.679] and [0.10, 0.10] are apart.
UP7 = {"a": ([0.60, 0.65, 0.70, 0.65, 0.65, 0.65, 0.65], BASE)}
DOWN7 = {"a": ([0.10] * 7, BASE)}


def r(cases: dict[str, Any], **kwargs: Any) -> Receipt:
    return receipt(cases, **kwargs)


@pytest.mark.parametrize(
    ("made", "message", "color"),
    [
        (r(UP), "passing · lift +0.40", "brightgreen"),
        (r(DOWN), "regressed · lift -0.15", "red"),
        (r(CLOSE), "underpowered · 65 draws per arm needed · lift -0.01", "yellow"),
        (r(NOISY), "underpowered · no draw count reaches the floor · lift +0.00", "yellow"),
        (r(FLAT), "no separation · lift +0.00", "lightgrey"),
        (r(UP, verification="UNVERIFIED", preset="quick"), "smoke run, no verdict · lift +0.40", "lightgrey"),
        (r(UP, verification="UNVERIFIED"), "no verdict · lift +0.40", "lightgrey"),
    ],
    ids=["passing", "regressed", "underpowered-n", "underpowered-floor", "no-separation", "smoke", "below-tested"],
)
def test_badge_reads_passing_or_regressed_only_on_a_separation(made: Receipt, message: str, color: str) -> None:
    badge = badge_json(read_receipt(made))
    # the builder's skill sits at SKILL.md with no directory, so the label is the suite's name
    assert badge == {"schemaVersion": 1, "label": "fixture", "message": message, "color": color}


def test_badge_command_writes_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finished = reseal(r(UP), lambda body: body["run"].update(finished_at="2026-12-01T09:30:00Z"))
    path = write_receipt(finished, tmp_path / "receipt.json")
    assert main(["badge", str(path), "--today", "2026-12-02"]) == 0
    assert json.loads(capsys.readouterr().out)["message"] == "passing · lift +0.40 · verified 2026-12-01 on model-1"
    out = tmp_path / "public" / "badge.json"
    assert main(["badge", str(path), "-o", str(out), "--today", "2026-12-02"]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["color"] == "brightgreen"
    assert [p.name for p in out.parent.iterdir()] == ["badge.json"]  # no temp file left behind


@pytest.mark.parametrize(
    ("before", "after", "outputs", "codes"),
    [
        # (regressed, underpowered, never) gate exit codes
        (None, r(UP), ("passing", "0", "0", "+0.400", "+1.000", ""), (0, 0, 0)),
        (r(UP7), r(DOWN7), ("regressed", "1", "0", "-0.150", "-0.375", ""), (1, 1, 0)),
        (r(DOWN7), r(UP7), ("passing", "0", "1", "+0.400", "+1.000", ""), (0, 0, 0)),
        # the same move on 3 draws a side, against a 3-draw default-branch receipt
        (r(UP), r(DOWN), ("underpowered", "0", "0", "-0.150", "-0.375", "7"), (0, 1, 0)),
        (r({"a": ([0.75] * 3, BASE)}), r({"a": ([0.70, 0.74, 0.78], BASE)}), ("underpowered",), (0, 1, 0)),
        (
            r(UP),
            r(UP, verification="UNVERIFIED", preset="quick"),
            ("no_verdict", "0", "0", "n/a", "n/a", ""),
            (0, 0, 0),
        ),
        (r(UP, verification="UNVERIFIED"), r(DOWN), ("no_verdict", "0", "0", "-0.150", "-0.375", ""), (0, 0, 0)),
        (None, r(DOWN), ("regressed", "0", "0", "-0.150", "-0.375", ""), (0, 0, 0)),
    ],
    ids=[
        "first-run",
        "regressed",
        "improved",
        "thin-reference",
        "underpowered",
        "smoke",
        "baseline-below-tested",
        "first-run-hurts",
    ],
)
def test_decision_outputs_and_gate(
    before: Receipt | None, after: Receipt, outputs: tuple[str, ...], codes: tuple[int, int, int]
) -> None:
    decision = decide(read_receipt(after), diff(before, after) if before is not None else None)
    names = ("status", "regressed", "improved", "lift", "lift-per-1k", "draws-needed")
    assert tuple(decision.outputs()[n] for n in names[: len(outputs)]) == outputs
    assert tuple(decision.exit_code(f) for f in ("regressed", "underpowered", "never")) == codes


@pytest.mark.parametrize(("stands", "output"), [(True, "true"), (False, "false"), (None, "")])
def test_baseline_stands_output_is_carried_as_given(stands: bool | None, output: str) -> None:
    before, after = r(UP7), r(UP7)
    decision = decide(read_receipt(after), diff(before, after), baseline_stands=stands)
    assert decision.outputs()["baseline-stands"] == output
    # it reports and never gates: the same exit codes whatever it says
    assert decision.exit_code("regressed") == decide(read_receipt(after), diff(before, after)).exit_code("regressed")


def test_draws_needed_is_the_largest_count_or_the_sentence() -> None:
    before = r({"a": ([0.75] * 3, BASE), "b": ([0.75] * 3, BASE)})
    numbers = r({"a": ([0.70, 0.74, 0.78], BASE), "b": ([0.74, 0.75, 0.76], BASE)})
    # a: 65 (see CLOSE); b: 0.75 ± 0.01 over 0.75 ± 0, r = 0.01 + 2·sqrt(0.0001/3) = 0.0215 < F: no_separation
    assert decide(read_receipt(numbers), diff(before, numbers)).draws_needed == "65"
    wide = r({"a": ([0.60, 0.75, 0.90], BASE), "b": ([0.70, 0.74, 0.78], BASE)})
    assert decide(read_receipt(wide), diff(before, wide)).draws_needed == "no draw count reaches the floor"
    cases = r({"a": ([0.3] * 3, [0.3] * 3), "b": ([0.8] * 3, [0.8] * 3)})
    assert decide(read_receipt(cases), diff(cases, cases)).draws_needed == (
        "More cases, not more draws, are needed to conclude at this effect floor."
    )


def test_the_draws_needed_output_is_a_number_or_empty_and_the_sentence_stays_in_the_report() -> None:
    """action.yml: draws-needed is the draws per arm needed, or empty. A sentence (no draw count reaches the floor,
    the spread unknown, more cases) is what the report's column says, never the output."""
    before = r({"a": ([0.75] * 3, BASE), "b": ([0.75] * 3, BASE)})
    numbers = r({"a": ([0.70, 0.74, 0.78], BASE), "b": ([0.74, 0.75, 0.76], BASE)})
    assert decide(read_receipt(numbers), diff(before, numbers)).outputs()["draws-needed"] == "65"  # as above
    wide = r({"a": ([0.60, 0.75, 0.90], BASE), "b": ([0.70, 0.74, 0.78], BASE)})
    decision = decide(read_receipt(wide), diff(before, wide))
    assert (decision.outputs()["draws-needed"], decision.draws_needed) == ("", "no draw count reaches the floor")
