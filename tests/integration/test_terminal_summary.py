"""What ``driftproof run`` prints at the end, line by line: the terminal says what the core's ``Decision`` says.

The verdict line ends with the decision's draws per arm needed when the status is underpowered: a number (R-4),
"no draw count reaches the floor" with what would help, or the status's own sentence when no case names a count
(R-5's wide band, or an inconclusive case whose lost draws stopped the call); after a call, nothing.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from driftproof.core.sentences import MORE_CASES, NO_DRAW_COUNT_EXPLAINED, NOT_ENOUGH_DRAWS
from driftproof.terminal import print_run_summary
from tests.support.builders import receipt

CASES = {
    # s_w = s_b = 0.02: n > 4·(0.0004 + 0.0004)/(0.05 − 0.04)² = 32, so 33 draws per arm (core.decision's doctest)
    "count": ({"a": ([0.70, 0.72, 0.74], [0.71, 0.73, 0.75])}, "1 underpowered (33 draws per arm needed)"),
    # s_w + s_b = 0.2 + 0.1 ≥ F: the spreads alone reach the floor
    "no count": ({"a": ([0.5, 0.9, 0.7], [0.6, 0.8, 0.7])}, f"1 underpowered ({NO_DRAW_COUNT_EXPLAINED})"),
    # each case reads no separation (r = 0), but the case means disagree: B = 0.5 ≥ F, all of it between cases
    "wide band": (
        {"low": ([0.3] * 3, [0.3] * 3), "high": ([0.8] * 3, [0.8] * 3)},
        f"2 no separation detected at this sample size ({MORE_CASES})",
    ),
    # apart on the measured draws (0.90 ± 0 over 0.20 ± 0), not with the lost draw at 0
    "lost draws": ({"a": ([0.9, 0.9, None], [0.2, 0.2, 0.2])}, f"1 inconclusive ({NOT_ENOUGH_DRAWS})"),
    # a call: the status is regressed, and the decision (like the Action's draws-needed output) names no draws
    "a call beside": (
        {"down": ([0.20, 0.22, 0.24], [0.80, 0.82, 0.84]), "close": ([0.70, 0.72, 0.74], [0.71, 0.73, 0.75])},
        "1 regressed · 1 underpowered",
    ),
}


def summary(cases: dict, capsys: pytest.CaptureFixture[str]) -> list[str]:
    print_run_summary(SimpleNamespace(receipt=receipt(cases), path=Path("out/r.json")))  # type: ignore[arg-type]
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("name", CASES)
def test_the_verdict_line_ends_with_what_the_decision_says(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    cases, verdicts = CASES[name]
    assert summary(cases, capsys)[2] == f"        {verdicts}"


def test_every_line_of_an_underpowered_wide_band(capsys: pytest.CaptureFixture[str]) -> None:
    r = receipt(CASES["wide band"][0])
    lines = summary(CASES["wide band"][0], capsys)
    assert lines == [
        "fixture · anthropic/model-1 (api) · judge anthropic/judge-1 · 2 cases",
        "status  underpowered   lift +0.000 (±0.00 across cases)   +0.000 per 1k skill tokens",
        f"        2 no separation detected at this sample size ({MORE_CASES})",
        f"receipt out/r.json  (TESTED, seal {r.seal.sha256[:12]})",
        "next    driftproof view out/r.json   ·   driftproof diff <main receipt> out/r.json",
    ]
