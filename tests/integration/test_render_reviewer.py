"""What a reviewer sees (issue 8): the first line, the order of the page, both sides' setups, notices.

Receipts are built by hand; the arithmetic behind each expected figure is in a comment beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from driftproof.core.decision import decide
from driftproof.core.diff import diff
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.core.seal import seal_receipt
from driftproof.core.sentences import (
    DIFFERENT_JUDGES,
    DIFFERENT_PROVIDERS,
    NO_SEPARATION_HEADLINE,
    NOT_ENOUGH_DRAWS,
    SMOKE_RUN,
)
from driftproof.render import render_diff, render_first_run, render_summary, render_view
from tests.support.builders import receipt, seven

BASE = [0.20, 0.25, 0.30]
# 0.90 ± 0.041 and 0.55 ± 0.041 on the 7 draws a side R-7 asks of a call between receipts: apart, Δ = −0.35
HIGH, LOW = seven([0.85, 0.90, 0.95]), seven([0.50, 0.55, 0.60])
TOKENS = ("no_verdict", "no_separation", "below_effect_floor")


def reseal(made: Receipt, edit: Callable[[dict[str, Any]], None]) -> Receipt:
    body = made.model_dump(mode="json")
    del body["seal"], body["schema_version"]
    edit(body)
    return seal_receipt(body)


def diff_md(before: Receipt, after: Receipt) -> str:
    return render_diff(before, after, diff(before, after), before_label="main", after_label="this PR")


def summary_md(before: Receipt, after: Receipt) -> str:
    reading, result = read_receipt(after), diff(before, after)
    return render_summary(
        after,
        reading,
        decide(reading, result),
        result=result,
        before=before,
        before_label="main",
        after_label="this PR",
    )


def first_line(text: str) -> str:
    return text.splitlines()[0]


def above_the_fold(text: str) -> str:
    """The page with every folded ``<details>`` block taken out."""
    return re.sub(r"<details>.*?</details>", "", text, flags=re.DOTALL)


def prose(text: str) -> str:
    """The page without its code spans (ids and output values are data, not prose)."""
    return re.sub(r"`[^`\n]*`", "", text)


# --- point 1: the first line -----------------------------------------------------------------------------


def test_first_line_names_the_regressed_case_its_delta_and_where() -> None:
    # subject-line: 0.90 ± 0.05 → 0.60 ± 0.05 (0.55, 0.60, 0.65): apart, Δ = 0.60 − 0.90 = −0.30
    before = receipt({"subject-line": (HIGH, BASE), "flat": ([0.7] * 3, BASE)})
    after = receipt({"subject-line": (seven([0.55, 0.60, 0.65]), BASE), "flat": ([0.7] * 3, BASE)})
    assert first_line(diff_md(before, after)) == (
        "**Driftproof · regressed** · `subject-line` -0.30 (0.90 → 0.60, with-skill arm, main → this PR)"
    )


def test_first_line_lists_several_cases_downward_first_capped_per_direction() -> None:
    # a…e: 0.90 → 0.55, Δ −0.35 each; f: 0.60 ± 0 → 0.85 ± 0.05, Δ +0.25
    before = receipt({**{k: (HIGH, BASE) for k in "abcde"}, "f": ([0.60] * 7, BASE)})
    after = receipt({**{k: (LOW, BASE) for k in "abcde"}, "f": (seven([0.80, 0.85, 0.90]), BASE)})
    assert first_line(diff_md(before, after)) == (
        "**Driftproof · regressed** · regressed `a` -0.35 (0.90 → 0.55), `b` -0.35 (0.90 → 0.55), "
        "`c` -0.35 (0.90 → 0.55) and 2 more; improved `f` +0.25 (0.60 → 0.85) (with-skill arm, main → this PR)"
    )


def test_first_line_when_nothing_separated_uses_the_spec_words() -> None:
    same = receipt({"a": ([0.70] * 3, BASE), "b": ([0.71] * 3, BASE)})  # r = 0 in each case; R-5: B = 0.01 < F
    assert first_line(diff_md(same, same)) == (
        f"**Driftproof · {NO_SEPARATION_HEADLINE}** · 2 cases, with-skill arm, main → this PR"
    )


def test_first_line_when_underpowered_uses_the_underpowered_sentence() -> None:
    # 0.75 ± 0 against 0.74 ± 0.04: r = 0.04 + 2·sqrt(0.0016/3) = 0.086 ≥ F, 65 draws per arm
    before, after = receipt({"close": ([0.75] * 3, BASE)}), receipt({"close": ([0.70, 0.74, 0.78], BASE)})
    report = diff_md(before, after)
    assert first_line(report) == (
        f"**Driftproof · underpowered** · {NOT_ENOUGH_DRAWS} (1 case, with-skill arm, main → this PR)"
    )
    fold = above_the_fold(report)
    assert "| `close` | 0.75 ± 0.00 (3/3) | 0.74 ± 0.04 (3/3) | 65 |" in fold  # means, spreads and the count


def test_no_draw_count_says_what_would_help_above_the_fold() -> None:
    # 0.70 ± 0.20 against 0.70 ± 0.10: s_a + s_b = 0.30 ≥ F, so no draw count reaches the floor
    before, after = receipt({"noisy": ([0.5, 0.7, 0.9], BASE)}), receipt({"noisy": ([0.6, 0.7, 0.8], BASE)})
    helped = "no draw count reaches the floor: the spreads alone reach it; more cases, or a less noisy case, would help"
    assert f"| `noisy` | 0.70 ± 0.20 (3/3) | 0.70 ± 0.10 (3/3) | {helped} |" in above_the_fold(diff_md(before, after))
    view = render_view(after, read_receipt(receipt({"noisy": ([0.5, 0.7, 0.9], [0.6, 0.7, 0.8])})))
    assert helped in view


def test_underpowered_cases_past_five_fold_the_rest() -> None:
    # seven cases of 0.75 ± 0 → 0.74 ± 0.04: each underpowered, 65 draws per arm (as above)
    ids = [f"c{i}" for i in range(7)]
    before = receipt({i: ([0.75] * 3, BASE) for i in ids})
    after = receipt({i: ([0.70, 0.74, 0.78], BASE) for i in ids})
    report = diff_md(before, after)
    fold = above_the_fold(report)
    assert [i for i in ids if f"| `{i}` | 0.75 ± 0.00 (3/3) | 0.74 ± 0.04 (3/3) | 65 |" in fold] == ids[:5]
    assert "<details><summary>2 more underpowered</summary>" in report
    assert "| `c6` | 0.75 ± 0.00 (3/3) | 0.74 ± 0.04 (3/3) | 65 |" in report


def full_pair() -> tuple[Receipt, Receipt]:
    before = receipt({"up": ([0.6] * 7, BASE), "floor": ([0.5] * 7, BASE), "down": (HIGH, BASE)})
    # up +0.25 improved; floor 0.50 ± 0 → 0.53 ± 0: apart, Δ 0.03 < F; down −0.35 regressed
    after = receipt({"up": (seven([0.8, 0.85, 0.9]), BASE), "floor": ([0.53] * 7, BASE), "down": (LOW, BASE)})
    return before, after


def test_metadata_table_sits_below_the_case_table() -> None:
    report = diff_md(*full_pair())
    assert report.index("**Separated**") < report.index("| lift (with − without) |")
    assert report.index("| `down` | 0.90 ± 0.04 (7/7) | 0.55 ± 0.04 (7/7) | -0.35 | regressed |") < report.index(
        "| skill size |"
    )


@pytest.mark.parametrize(
    "form",
    ["diff", "diff-smoke", "diff-judges", "view", "view-smoke", "summary", "summary-smoke", "first-run"],
)
def test_status_tokens_never_appear_in_prose(form: str) -> None:
    before, after = full_pair()
    smoke = receipt({"up": ([0.8, 0.85, 0.9], BASE)}, verification="UNVERIFIED", preset="quick")
    other_judge = reseal(after, lambda b: b["judge"].update(model_requested="judge-2"))
    text = {
        "diff": lambda: diff_md(before, after),
        "diff-smoke": lambda: diff_md(before, smoke),
        "diff-judges": lambda: diff_md(before, other_judge),
        "view": lambda: render_view(after, read_receipt(after)),
        "view-smoke": lambda: render_view(smoke, read_receipt(smoke)),
        "summary": lambda: summary_md(before, after),
        "summary-smoke": lambda: summary_md(before, smoke),
        "first-run": lambda: render_first_run(smoke, read_receipt(smoke), branch="main"),
    }[form]()
    found = [t for t in TOKENS if t in prose(text)]
    assert not found, f"status tokens in prose: {found}"
    assert "below effect floor" in text or form not in ("diff",)
    assert "drift " not in text.lower() and "no change" not in text.lower()


def test_summary_and_view_first_lines_use_words() -> None:
    before, after = full_pair()
    smoke = receipt({"up": ([0.8, 0.85, 0.9], BASE)}, verification="UNVERIFIED", preset="quick")
    assert summary_md(before, smoke).startswith("### Driftproof · no verdict\n\nthis PR is a smoke run")
    assert summary_md(before, after).startswith(
        "### Driftproof · regressed\n\nregressed `down` -0.35 (0.90 → 0.55); improved `up` +0.25 (0.60 → 0.85) "
        "(with-skill arm, main → this PR)\n"
    )
    assert first_line(render_view(smoke, read_receipt(smoke))) == f"**Driftproof · no verdict** · {SMOKE_RUN}"
    quiet = receipt({"a": ([0.30] * 3, [0.30] * 3), "b": ([0.31] * 3, [0.31] * 3)})  # Δ 0, r 0: no separation
    assert first_line(render_view(quiet, read_receipt(quiet))) == (
        f"**Driftproof · {NO_SEPARATION_HEADLINE}** · 2 cases, with skill against without it"
    )


# --- point 2: both sides' setups ----------------------------------------------------------------------


def cli_lane(model: str, harness: str, version: str, configured: bool = False) -> Callable[[dict[str, Any]], None]:
    def edit(body: dict[str, Any]) -> None:
        body["run"]["lane"] = {"provider": "openai", "surface": "cli", "model_requested": model}
        body["run"]["lane"]["models_reported"] = [model]
        body["run"]["harness"] = {"name": harness, "version": version}
        for case in body["cases"]:
            for arm in (case["with_skill"], case["baseline"]):
                for draw in arm["draws"]:
                    draw["reported_model"] = model
                    draw["model_source"] = "configured" if configured else "reported"

    return edit


def test_both_sides_show_answering_model_lane_harness_and_judge() -> None:
    before = reseal(receipt({"a": (HIGH, BASE)}), cli_lane("gpt-a", "codex", "0.39.0"))
    after = reseal(receipt({"a": (LOW, BASE)}), cli_lane("gpt-b", "codex", "0.40.1", configured=True))
    report = diff_md(before, after)
    configured = "gpt-b (configured: codex reports no served model)"
    assert (
        f"| answering model | openai/gpt-a (cli) · reported gpt-a | openai/gpt-b (cli) · reported {configured} |"
        in (report)
    )
    assert "| harness | codex 0.39.0 | codex 0.40.1 |" in report
    assert "| judge | anthropic/judge-1 (api) · none reported | anthropic/judge-1 (api) · none reported |" in report


def test_a_view_says_when_the_model_id_was_configured() -> None:
    made = reseal(receipt({"a": (HIGH, BASE)}), cli_lane("gpt-b", "codex", "0.40.1", configured=True))
    assert "openai/gpt-b (cli) · reported gpt-b (configured: codex reports no served model)" in render_view(
        made, read_receipt(made)
    )


# --- points 3 and 4: not like for like ------------------------------------------------------------------


def test_different_judges_report_gives_no_per_case_verdict_and_says_why() -> None:
    before, after = full_pair()
    other = reseal(after, lambda b: b["judge"].update(model_requested="judge-2"))
    report = diff_md(before, other)
    why = f"{DIFFERENT_JUDGES} (judge model requested: judge-1 → judge-2)"
    assert first_line(report) == f"**Driftproof · no verdict** · {why} (with-skill arm, main → this PR)"
    assert "**Separated**" not in report and "| regressed |" not in report and "| improved |" not in report
    assert "| `down` | 0.90 ± 0.04 (7/7) | 0.55 ± 0.04 (7/7) | -0.35 | no verdict |" in report  # raw move, no call


def test_different_providers_report_leads_with_each_sides_lift() -> None:
    before, after = full_pair()
    openai = reseal(after, lambda b: b["run"].update(lane={"provider": "openai", "surface": "api"}))
    report = diff_md(before, openai)
    # lifts: main (0.35 + 0.25 + 0.65) / 3 = 0.416667; this PR (0.60 + 0.28 + 0.30) / 3 = 0.393333
    assert first_line(report) == (
        "**Driftproof · no verdict** · answering models of different providers (anthropic → openai): "
        f"{DIFFERENT_PROVIDERS} · lift main +0.417, this PR +0.393"
    )
    assert "regressed" not in report and "improved" not in report
    assert "| `up` | 0.60 ± 0.00 (7/7) | 0.85 ± 0.04 (7/7) | +0.25 | no verdict |" in report


# --- point 6: not run on this lane ------------------------------------------------------------------------


def notices(*case_notices: str, suite: tuple[str, ...] = ()) -> Callable[[dict[str, Any]], None]:
    def edit(body: dict[str, Any]) -> None:
        body["suite"]["notices"] = list(suite)
        body["cases"][0]["notices"] = list(case_notices)

    return edit


SKIPPED = ("assert: not run on this lane", "activates: not run on this lane")
LEFT_OUT = "task-003 (unnamed): no expect:, nothing to grade; left out"


def test_not_run_section_in_view_and_diff_built_from_the_receipt() -> None:
    before, after = full_pair()
    noted = reseal(after, notices(*SKIPPED, suite=(LEFT_OUT,)))
    view = render_view(noted, read_receipt(noted))
    assert (
        "**Not run on this lane**\n\n- task-003 (unnamed): no expect:, nothing to grade; left out\n"
        "- `up`: assert: not run on this lane; activates: not run on this lane\n"
    ) in view
    report = diff_md(before, noted)  # the PR comment's body
    assert (
        "**Not run on this lane**\n\n- task-003 (unnamed): no expect:, nothing to grade; left out (this PR only)\n"
        "- `up`: assert: not run on this lane; activates: not run on this lane (this PR only)\n"
    ) in above_the_fold(report)
    both = diff_md(noted, noted)
    assert "- `up`: assert: not run on this lane; activates: not run on this lane\n" in both
    twice = reseal(after, notices(suite=(LEFT_OUT, LEFT_OUT)))  # one side saying it twice is still one side
    assert f"- {LEFT_OUT} (this PR only)\n" in diff_md(before, twice)


def test_no_notices_no_section_and_a_long_list_is_folded() -> None:
    before, after = full_pair()
    assert "Not run on this lane" not in diff_md(before, after) + render_view(after, read_receipt(after))
    many = reseal(after, notices(suite=tuple(f"task-{i:03d} (unnamed): left out" for i in range(6))))
    report = diff_md(many, many)
    assert "<details><summary>Not run on this lane (6)</summary>" in report
    assert "**Not run on this lane**" not in report


def test_notices_are_escaped() -> None:
    evil = reseal(receipt({"a": (HIGH, BASE)}), notices("<script>x</script> @team | [l](http://x)"))
    view = render_view(evil, read_receipt(evil))
    assert "- `a`: \\<script\\>x\\</script\\> @\u200bteam \\| \\[l\\](http://x)\n" in view
    assert "<script>" not in view and "@team" not in view and not re.search(r"(?<!\\)\]\(", view)
