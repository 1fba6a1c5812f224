"""Pairwise judging's rules (`driftproof.core.pairwise`): choices mapped to arms, agreement, the rates by hand, the
plan's extra calls, and a property: no pairwise result ever changes a status, a verdict, the Action's outputs or
its gate."""

from __future__ import annotations

from math import isclose
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.decision import decide, gate_fails
from driftproof.core.diff import diff
from driftproof.core.models import PairwiseCall, PairwiseResult, Receipt
from driftproof.core.pairwise import pair_result, pairwise_json, preference, summarize
from driftproof.core.pairwise_sentences import pairwise_line
from driftproof.core.plan import CaseSizes, PlanSettings, Pricing, plan_suite
from driftproof.core.reading import read_receipt
from driftproof.core.words import FailOn
from driftproof.judge_pairwise import parse_pairwise_reply
from tests.support.builders import receipt, reseal


def call(position: str, choice: str | None, invalid: str | None = None) -> PairwiseCall:
    return PairwiseCall(with_skill_position=position, choice=choice, returned=True, invalid_reason=invalid)


@pytest.mark.parametrize(
    ("choice", "position", "expected"),
    [
        ("A", "A", "with_skill"),
        ("B", "A", "baseline"),
        ("A", "B", "baseline"),
        ("B", "B", "with_skill"),
        ("tie", "A", "tie"),
        (None, "B", None),
    ],
)
def test_a_choice_of_position_maps_back_to_an_arm(choice: str | None, position: str, expected: str | None) -> None:
    assert preference(choice, position) == expected


@pytest.mark.parametrize(
    ("first", "second", "prefs", "agree"),
    [
        (("A", "A"), ("B", "B"), ("with_skill", "with_skill"), True),  # with-skill both times: no bias
        (("A", "A"), ("B", "A"), ("with_skill", "baseline"), False),  # A both times: the position won
        (("A", "tie"), ("B", "tie"), ("tie", "tie"), True),
        (("A", "B"), ("B", None), ("baseline", None), None),  # the second call gave no choice
    ],
)
def test_a_pair_agrees_only_when_both_calls_prefer_the_same_arm(
    first: tuple[str, str], second: tuple[str, str | None], prefs: tuple[str, str | None], agree: bool | None
) -> None:
    result = pair_result(0, call(*first), call(*second))
    assert (result.first, result.second, result.agree) == (*prefs, agree)


def test_a_call_that_failed_the_identity_check_yields_no_preference() -> None:
    result = pair_result(0, call("A", "A"), call("B", "B", invalid="a judge reply reported 'other'"))
    assert (result.first, result.second, result.agree) == ("with_skill", None, None)


def pair(i: int, first: str | None, second: str | None) -> PairwiseResult:
    agree = None if first is None or second is None else first == second
    return PairwiseResult(draw_index=i, first=first, second=second, agree=agree, calls=[])


def test_rates_by_hand() -> None:
    # 10 pairs: 6 prefer with-skill in both orders, 1 baseline in both, 1 tie in both, 1 moved with the positions
    # (with-skill first, baseline swapped), 1 incomplete. Complete: 9. Preferred rate 6 / 9; bias rate 1 / 9.
    pairs = [pair(i, "with_skill", "with_skill") for i in range(6)]
    pairs += [pair(6, "baseline", "baseline"), pair(7, "tie", "tie"), pair(8, "with_skill", "baseline")]
    pairs += [pair(9, None, "with_skill")]
    s = summarize(pairs)
    assert (s.pairs, s.complete, s.with_skill_preferred, s.baseline_preferred, s.ties, s.disagreed) == (
        10,
        9,
        6,
        1,
        1,
        1,
    )
    assert s.with_skill_preferred_rate is not None and isclose(s.with_skill_preferred_rate, 6 / 9, abs_tol=1e-12)
    assert s.position_bias_rate is not None and isclose(s.position_bias_rate, 1 / 9, abs_tol=1e-12)
    assert pairwise_line(s) == (
        "with-skill preferred in 6 of 9 pairs (baseline in 1, tie in 1); positions disagreed in 1 of 9 "
        "(position bias); 1 pair incomplete"
    )


def test_the_issue_example_reads_as_written() -> None:
    # 8 complete pairs: 7 with-skill in both orders, 1 that chose position A both times
    pairs = [pair(i, "with_skill", "with_skill") for i in range(7)] + [pair(7, "with_skill", "baseline")]
    s = summarize(pairs)
    assert (s.with_skill_preferred_rate, s.position_bias_rate) == (0.875, 0.125)  # 7 / 8, 1 / 8
    assert pairwise_line(s) == "with-skill preferred in 7 of 8 pairs; positions disagreed in 1 of 8 (position bias)"


def test_no_complete_pair_has_no_rate() -> None:
    s = summarize([pair(0, None, None)])
    assert (s.complete, s.with_skill_preferred_rate, s.position_bias_rate) == (0, None, None)


@pytest.mark.parametrize(
    ("reply", "choice", "reason"),
    [
        ('{"better": "A", "reason": "x"}', "A", None),
        ('Sure. {"better": "tie", "reason": "same"}', "tie", None),
        ('{"better": "a"}', None, "better is 'a', not A, B or tie"),
        ('{"score": 0.5}', None, "the reply holds no JSON object with a choice"),
        ('{"better": "A"}{"better": "B"}', None, "the reply holds 2 choices, not exactly one"),
        ("  ", None, "the judge's reply was empty"),
    ],
)
def test_pairwise_replies_parse_strictly(reply: str, choice: str | None, reason: str | None) -> None:
    assert tuple(parse_pairwise_reply(reply)) == (choice, reason)


def test_the_plan_counts_two_calls_per_pair() -> None:
    # 1 case, 3..10 draws per arm, 5 samples: absolute 2 × 3 × 6 = 36 .. 2 × 10 × 6 = 120 calls; pairwise adds
    # 2 × 3 = 6 .. 2 × 10 = 20. Worst tokens add, per with-skill draw, 2 × (450 + 2 × 2048 + 1024) = 11,140.
    base = PlanSettings(3, 10, 5, max_tokens=2048, judge_max_tokens=1024)
    sizes = [CaseSizes("a", 100, 400, pairwise_template=450)]
    absolute = plan_suite(sizes, base, Pricing())
    pairwise = plan_suite(sizes, PlanSettings(3, 10, 5, 2048, 1024, pairwise=True), Pricing())
    assert (absolute.total.calls.low, absolute.total.calls.high) == (36, 120)
    assert (pairwise.total.calls.low, pairwise.total.calls.high) == (42, 140)
    assert pairwise.total.tokens.high - absolute.total.tokens.high == 10 * 11_140  # type: ignore[operator]
    assert pairwise.total.tokens.low - absolute.total.tokens.low == 3 * 2 * 450  # type: ignore[operator]


def test_the_plan_pairs_only_the_baseline_draws_it_makes() -> None:
    # 4 baseline draws carried: the baseline arm draws 0..6, so 0..6 pairs: 2 × 0 .. 2 × 6 calls more
    carried = {"baseline": 4}
    absolute = plan_suite(
        [CaseSizes("a", 100, 400, 450)], PlanSettings(3, 10, 5, 2048, 1024, carried=carried), Pricing()
    )
    pairwise = plan_suite(
        [CaseSizes("a", 100, 400, 450)], PlanSettings(3, 10, 5, 2048, 1024, carried=carried, pairwise=True), Pricing()
    )
    assert pairwise.total.calls.low == absolute.total.calls.low  # type: ignore[operator]
    assert pairwise.total.calls.high - absolute.total.calls.high == 12  # type: ignore[operator]


# -- the property: pairwise results are never read by the band rule, a verdict, the status or the gate ------------

scores = st.lists(st.integers(min_value=0, max_value=20).map(lambda k: k / 20), min_size=1, max_size=5)
choices = st.sampled_from(["with_skill", "baseline", "tie", None])
pairs_of_case = st.lists(st.tuples(choices, choices), max_size=6)


def with_pairwise(r: Receipt, per_case: list[list[tuple[str | None, str | None]]]) -> Receipt:
    def edit(body: dict[str, Any]) -> None:
        results = []
        for case, raw in zip(body["cases"], per_case, strict=True):
            made = [pair(i, a, b) for i, (a, b) in enumerate(raw)]
            results.extend(made)
            case["pairwise"] = [m.model_dump(mode="json") for m in made]
            case["pairwise_summary"] = summarize(made).model_dump(mode="json")
        body["pairwise_summary"] = summarize(results).model_dump(mode="json")
        body["judge"]["pairwise"] = {"template_version": "pairwise-v1", "template_sha256": "a" * 64}

    return reseal(r, edit)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(scores, scores), min_size=1, max_size=3),
    st.lists(st.tuples(scores, scores), min_size=1, max_size=3),
    st.lists(pairs_of_case, min_size=3, max_size=3),
)
def test_pairwise_results_never_change_status_verdicts_or_gate(
    before_cases: list[tuple[list[float], list[float]]],
    after_cases: list[tuple[list[float], list[float]]],
    raw: list[list[tuple[str | None, str | None]]],
) -> None:
    before = receipt({f"c{i}": c for i, c in enumerate(before_cases)})
    after = receipt({f"c{i}": c for i, c in enumerate(after_cases)})
    judged = with_pairwise(after, raw[: len(after_cases)])
    assert pairwise_json(judged) is not None
    plain, paired = read_receipt(after), read_receipt(judged)
    assert (plain.status, plain.lift) == (paired.status, paired.lift)
    assert [c.verdict for c in plain.cases] == [c.verdict for c in paired.cases]
    d_plain, d_paired = diff(before, after), diff(before, judged)
    assert (d_plain.status, [c.verdict for c in d_plain.cases]) == (
        d_paired.status,
        [c.verdict for c in d_paired.cases],
    )
    assert d_plain.not_like_for_like == d_paired.not_like_for_like
    decision_plain, decision_paired = decide(plain, d_plain), decide(paired, d_paired)
    assert decision_plain.outputs() == decision_paired.outputs()
    for fail_on in FailOn:
        assert gate_fails(decision_plain.status, fail_on) == gate_fails(decision_paired.status, fail_on)
