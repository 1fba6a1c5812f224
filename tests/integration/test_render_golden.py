"""Rendered markdown against golden files in tests/golden/, plus the exact sentences and the escaping.

Regenerate the golden files after an intended change with ``DRIFTPROOF_UPDATE_GOLDEN=1 pytest ...`` and
read the diff before committing it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from driftproof.core.breakdown import lift_breakdown
from driftproof.core.build import arm_of, measured_draw
from driftproof.core.decision import decide
from driftproof.core.diff import diff
from driftproof.core.models import Arm, JudgeSample, Receipt
from driftproof.core.reading import read_receipt
from driftproof.core.seal import seal_receipt
from driftproof.core.sentences import DIFFERENT_SOURCES, MORE_CASES, NO_SEPARATION_HEADLINE, NOT_ENOUGH_DRAWS, SMOKE_RUN
from driftproof.core.stale import BaselineStanding
from driftproof.render import render_diff, render_first_run, render_summary, render_view
from tests.support.builders import graded, legacy_arm, receipt, seven

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("DRIFTPROOF_UPDATE_GOLDEN") == "1"
BASE = [0.20, 0.25, 0.30]

# before → after, with-skill arms (baselines BASE throughout); the calls on 7 draws a side:
BEFORE = {
    "subject-line": (seven([0.85, 0.90, 0.95]), BASE),
    "up": ([0.60] * 7, BASE),
    "floor": ([0.50] * 7, BASE),
    "flat": ([0.70, 0.70, 0.70], BASE),
    "noisy": ([0.50, 0.70, 0.90], BASE),
    "close": ([0.75, 0.75, 0.75], BASE),
    "retry-429": (seven([0.85, 0.90, 0.95]), BASE),
    "only-before": ([0.5, 0.6, 0.7], BASE),
}
AFTER = {
    "subject-line": (seven([0.50, 0.55, 0.60]), BASE),  # 0.55 ± 0.041 under 0.90 ± 0.041: regressed, Δ −0.35
    "up": (seven([0.80, 0.85, 0.90]), BASE),  # improved, Δ +0.25
    "floor": ([0.53] * 7, BASE),  # apart, but Δ 0.03 < 0.05: below_effect_floor
    "flat": ([0.70, 0.70, 0.70], BASE),  # no_separation: r = 0
    "noisy": ([0.60, 0.70, 0.80], BASE),  # underpowered, s_a + s_b = 0.3 ≥ F: no draw count
    "close": ([0.70, 0.74, 0.78], BASE),  # underpowered, n > 4·0.0016/0.01² = 64: 65 draws per arm
    "retry-429": ([0.50, 0.55, None], BASE),  # apart on measured draws, not with the lost draw at 1
    "only-after": ([0.5, 0.6, 0.7], BASE),
}
WIDE = {"low": ([0.3] * 3, [0.3] * 3), "high": ([0.8] * 3, [0.8] * 3)}  # the cases disagree


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run with DRIFTPROOF_UPDATE_GOLDEN=1 to write it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs: DRIFTPROOF_UPDATE_GOLDEN=1 rewrites it"


def diff_md(
    before: Receipt, after: Receipt, baseline: BaselineStanding | None = None, lift_breakdowns: bool = False
) -> str:
    breakdowns = (lift_breakdown(before), lift_breakdown(after)) if lift_breakdowns else None
    return render_diff(
        before,
        after,
        diff(before, after),
        before_label="main",
        after_label="this PR",
        baseline=baseline,
        breakdowns=breakdowns,
    )


def view_md(r: Receipt, title: str) -> str:
    """What ``driftproof view`` prints: the sheet, with its lift by case."""
    return render_view(r, read_receipt(r), title=title, breakdown=lift_breakdown(r))


def fired(scores: list[float], fired: list[bool]) -> Arm:
    """A with-skill arm delivered with ``--delivery discover``: each draw records whether the skill fired."""
    js = [[JudgeSample(score=s, valid=True, reported_model="judge-1")] for s in scores]
    return arm_of([measured_draw(i, js[i], skill_fired=f) for i, f in enumerate(fired)])


def by_case() -> Receipt:
    """A TESTED receipt that may give comparative labels: one case helps and carries the lift, one hurts."""
    return graded(
        receipt(
            {
                # +0.40: apart (0.80 > 0.50), helps; the lift without it (0 − 0.25)/2 = −0.125: it carries the lift
                "subject-line": (fired([0.80, 0.85, 0.90], [True, True, False]), [0.40, 0.45, 0.50]),
                "why-not-what": ([0.60, 0.65, 0.70], [0.60, 0.65, 0.70]),  # 0, overlapping; without it +0.075
                "retry-429": ([0.30, 0.35, 0.40], [0.55, 0.60, 0.65]),  # −0.25, apart downward: hurts; without it +0.2
            }
        )
    )  # lift (0.40 + 0 − 0.25)/3 = +0.05


def by_case_before() -> Receipt:
    """The same cases on main: subject-line lifts +0.20 alone; without it the lift is exactly 0, so it carries it."""
    flat = [0.60, 0.65, 0.70]
    cases = {"subject-line": (flat, [0.40, 0.45, 0.50]), "why-not-what": (flat, flat), "retry-429": (flat, flat)}
    return graded(receipt(cases))  # type: ignore[arg-type]


def summary_md(
    after: Receipt, before: Receipt | None, first_run: bool = False, baseline: BaselineStanding | None = None
) -> str:
    reading = read_receipt(after)
    result = diff(before, after) if before is not None else None
    return render_summary(
        after,
        reading,
        decide(reading, result),
        result=result,
        before=before,
        before_label="main",
        after_label="this PR",
        first_run_branch="main" if first_run else None,
        paths={"receipt": ".driftproof/receipt.new.json", "report": ".driftproof/receipt.report.md"},
        baseline=baseline,
    )


#: Whether main's baseline arms stand for this PR (the Action's ``driftproof stale`` question): the full report
#: as a PR whose rubric of one case changed, the short summary as a skill-only PR.
RUBRIC_CHANGED = BaselineStanding(
    cases=8, rerun=1, regrade=0, reasons=("rubric or criteria changed: 444444444444 → 888888888888",), more=0
)
STANDS = BaselineStanding(cases=8, rerun=0, regrade=0, reasons=(), more=0)


def full_pair() -> tuple[Receipt, Receipt]:
    return receipt(BEFORE), receipt(AFTER, thresholds={"subject-line": 0.7})  # type: ignore[arg-type]


def other_judge_pair() -> tuple[Receipt, Receipt]:
    """Another judge and another provider on this PR, which also records notices: not like for like."""
    before, after = full_pair()
    body = after.model_dump(mode="json")
    del body["seal"], body["schema_version"]
    body["judge"].update(model_requested="judge-2", template_sha256="b" * 64)
    body["run"].update(
        lane={"provider": "openai", "surface": "cli", "model_requested": "gpt-x", "models_reported": ["gpt-x"]},
        harness={"name": "codex", "version": "0.40.1"},
    )
    for case in body["cases"]:
        for draw in case["with_skill"]["draws"] + case["baseline"]["draws"]:
            draw.update(reported_model="gpt-x", model_source="configured")
    body["suite"]["notices"] = ["task-009 (unnamed): no expect:, nothing to grade; left out"]
    body["cases"][0]["notices"] = ["assert: not run on this lane"]
    return before, seal_receipt(body)


CASES: dict[str, Callable[[], str]] = {
    "diff_full.md": lambda: diff_md(*full_pair(), baseline=RUBRIC_CHANGED),
    "diff_smoke.md": lambda: diff_md(receipt(BEFORE), receipt(AFTER, verification="UNVERIFIED", preset="quick")),  # type: ignore[arg-type]
    "diff_wide_band.md": lambda: diff_md(receipt(WIDE), receipt(WIDE)),  # type: ignore[arg-type]
    "diff_not_like_for_like.md": lambda: diff_md(*other_judge_pair()),
    "view_notices.md": lambda: view_md(other_judge_pair()[1], "r.json"),
    "diff_sources.md": lambda: diff_md(
        receipt({"a": (legacy_arm([0.80, 0.85, 0.90]), legacy_arm([0.3, 0.35, 0.4]))}),
        receipt({"a": ([0.5, 0.55, 0.6], BASE)}),
    ),
    "view_full.md": lambda: view_md(full_pair()[1], "receipt.json"),
    "view_smoke.md": lambda: view_md(
        receipt(AFTER, verification="UNVERIFIED", preset="quick"),  # type: ignore[arg-type]
        "receipt.quick.json",
    ),
    "view_by_case.md": lambda: view_md(by_case(), "receipt.json"),
    "diff_lift_breakdown.md": lambda: diff_md(by_case_before(), by_case(), lift_breakdowns=True),
    "first_run.md": lambda: render_first_run(
        r := receipt(AFTER),
        read_receipt(r),
        branch="main",
        title=".driftproof/receipt.new.json",  # type: ignore[arg-type]
    ),
    "summary_regressed.md": lambda: summary_md(full_pair()[1], full_pair()[0], baseline=STANDS),
    "summary_first_run.md": lambda: summary_md(receipt(AFTER), None, first_run=True),  # type: ignore[arg-type]
    "summary_smoke.md": lambda: summary_md(
        receipt(AFTER, verification="UNVERIFIED", preset="quick"),  # type: ignore[arg-type]
        receipt(BEFORE),  # type: ignore[arg-type]
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str) -> None:
    check_golden(name, CASES[name]())


def test_no_golden_file_is_left_unchecked() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.md")) == sorted(CASES)


# --- exact sentences ----------------------------------------------------------------------------------


def test_diff_headline_names_each_direction_and_counts_below_floor_apart() -> None:
    report = CASES["diff_full.md"]()
    # subject-line 0.90 → 0.55 (Δ −0.35) downward first, then up 0.60 → 0.85 (Δ +0.25)
    assert report.startswith(
        "**Driftproof · regressed** · regressed `subject-line` -0.35 (0.90 → 0.55); improved `up` +0.25 "
        "(0.60 → 0.85) (with-skill arm, main → this PR)\n"
    )
    assert (
        f"**Not called**: 1 {NO_SEPARATION_HEADLINE} · 1 below effect floor · 2 underpowered · "
        "1 inconclusive (lost draws)"
    ) in report
    assert f"**Underpowered** (2): {NOT_ENOUGH_DRAWS}" in report
    assert "| `close` | 0.75 ± 0.00 (3/3) | 0.74 ± 0.04 (3/3) | 65 |" in report
    assert (
        "| `noisy` | 0.70 ± 0.20 (3/3) | 0.70 ± 0.10 (3/3) | no draw count reaches the floor: the spreads alone "
        "reach it; more cases, or a less noisy case, would help |"
    ) in report
    assert (
        "- `retry-429`: this PR lost 1 of 3 draws (timeout); main lost 0 of 7 draws. Inconclusive: separated on "
        "measured draws, but not at every score the lost draws could have had."
    ) in report
    assert "Unmatched cases, left out: only in main: `only-before`; only in this PR: `only-after`." in report
    # main: (0.65 + 0.35 + 0.25 + 0.45 + 0.45 + 0.50 + 0.65 + 0.35) / 8 = 0.45625
    # this PR: (0.30 + 0.60 + 0.28 + 0.45 + 0.45 + 0.49 + 0.275 + 0.35) / 8 = 0.399375; per 1k: ÷ 0.4
    assert "| lift (with − without) | +0.456 | +0.399 |" in report
    assert "| lift per 1k skill tokens | +1.141 | +0.998 |" in report
    assert "Grading cost of this PR, kept apart from the skill's figures:" in report
    assert (
        "| case | main (generation) | this PR (generation) | Δ | verdict | checks (main) | checks (this PR) |" in report
    )


def test_no_separation_headline_when_nothing_separated() -> None:
    same = receipt({"a": ([0.70] * 3, BASE), "b": ([0.71] * 3, BASE)})  # B = 0.01 < 0.05
    assert diff_md(same, same).startswith(f"**Driftproof · {NO_SEPARATION_HEADLINE}** · 2 cases, with-skill arm")


def test_wide_band_reads_the_more_cases_sentence() -> None:
    report = CASES["diff_wide_band.md"]()
    assert report.startswith(f"**Driftproof · underpowered** · {MORE_CASES} (2 cases, with-skill arm, main → this PR)")
    # S = sd(0.3, 0.8) = 0.354 per arm, B = sqrt(2) · 0.354 = 0.500
    assert "the comparison band over 2 cases is 0.500, at or above the 0.05 floor; no draw count is given" in report


def test_different_sources_sentence_and_legend_only_when_present() -> None:
    mixed, same = CASES["diff_sources.md"](), CASES["diff_full.md"]()
    assert DIFFERENT_SOURCES in mixed and "- legacy: one draw per arm" in mixed and "- generation:" in mixed
    assert DIFFERENT_SOURCES not in same
    assert "legacy" not in same and "- generation: mean ± sd across the arm's draws" in same
    assert "| band source | legacy | generation |" in mixed


def test_smoke_side_is_named_and_keeps_its_signed_lift() -> None:
    report = CASES["diff_smoke.md"]()
    assert report.startswith("**Driftproof · no verdict** · this PR is a smoke run (Smoke run, no verdict)")
    assert f"> **this PR: {SMOKE_RUN}.** No verdict is given; the lift below is context only." in report
    assert "| lift (with − without) | +0.456 | +0.399 |" in report
    assert "**Not called**" not in report and "regressed |" not in report
    view = CASES["view_smoke.md"]()
    assert view.startswith(f"**Driftproof · no verdict** · {SMOKE_RUN}\n")
    summary = CASES["summary_smoke.md"]()
    assert "| `no_verdict` | 0 | 0 | n/a | n/a | – |" in summary and "its lift, +0.399, is context only" in summary


def test_first_run_sentence() -> None:
    assert CASES["first_run.md"]().startswith(
        "**Driftproof · first run** · No receipt is stored on `main` yet: this is the first run; "
        "nothing to compare against.\n"
    )


# --- escaping -----------------------------------------------------------------------------------------

EVIL = "a|b <img src=x> @team **x**\nnext"
EVIL_REASON = "timeout | <script>alert(1)</script> @org/admins [link](http://x)"


def evil_pair() -> tuple[Receipt, Receipt]:
    from tests.support.builders import arm

    before = receipt({EVIL: ([0.85, 0.9, 0.95], BASE)}, extra={"verification_reason": None})
    after = receipt(
        {EVIL: (arm([0.5, 0.55, None], reason=EVIL_REASON), BASE)},
        verification="UNVERIFIED",
        extra={"verification_reason": "made by @someone <b>by hand</b> | twice"},
    )
    return before, after


def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


@pytest.mark.parametrize("form", ["diff", "view", "summary", "first_run"])
def test_receipt_strings_cannot_inject_markdown_html_mentions_or_break_tables(form: str) -> None:
    before, after = evil_pair()
    evil_standing = BaselineStanding(cases=1, rerun=1, regrade=0, reasons=(EVIL_REASON,), more=0)
    text = {
        "diff": lambda: diff_md(before, after, baseline=evil_standing),
        "view": lambda: render_view(after, read_receipt(after), title="r.json"),
        "summary": lambda: summary_md(after, before, baseline=evil_standing),
        "first_run": lambda: render_first_run(after, read_receipt(after), branch="ma|in @x"),
    }[form]()
    assert "<img" not in text.replace("`a\\|b <img src=x> @\u200bteam **x** next`", "").replace(
        "`a|b <img src=x> @\u200bteam **x** next`", ""
    )
    assert "<script>" not in text and "<b>" not in text
    assert not re.search(r"@(team|org|someone|x)\b", text)  # every mention is broken with a zero-width space
    assert not re.search(r"(?<!\\)\]\(", text)  # no live link
    assert "\nnext" not in text
    for block in text.split("\n\n"):
        rows = table_rows(block)
        if rows:
            assert len({unescaped_pipes(row) for row in rows}) == 1, rows
