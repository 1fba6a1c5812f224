"""Judge-anchor canaries: the drift rule, the diff's no verdict when two receipts' anchors disagree, the cost apart.

Every figure is worked by hand in a comment; floats compare with ``isclose(abs_tol=1e-12)``.
"""

from __future__ import annotations

from math import isclose

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.canaries import AnchorSpec, anchors_disagree, canary_score, read_anchors
from driftproof.core.canary_models import Canaries
from driftproof.core.canary_sentences import ANCHORS_DIFFER, JUDGE_DRIFTED
from driftproof.core.diff import diff
from driftproof.core.economics import canary_overhead
from driftproof.core.models import Price, Usage
from driftproof.core.reading import read_receipt
from driftproof.core.words import Status
from tests.support.builders import receipt, seven

H0, H1 = "0" * 64, "1" * 64
SPECS = [
    AnchorSpec("full", None, 1.0, H0, H1),
    AnchorSpec("half", None, 0.5, H0, H1),
    AnchorSpec("slip", None, 0.5, H0, H1),
    AnchorSpec("wrong", None, 0.0, H0, H1),
]


def anchors(per_canary: list[list[float | None]], samples: int = 5) -> Canaries:
    return read_anchors("default", SPECS, [canary_score(s, x) for s, x in zip(SPECS, per_canary, strict=True)], samples)


def test_a_judge_within_the_tolerance_held() -> None:
    # means 0.9, 0.55, 0.5, 0.05 against 1.0, 0.5, 0.5, 0.0: |dev| 0.1, 0.05, 0, 0.05 → MAD 0.2 / 4 = 0.05 ≤ 0.10
    c = anchors([[0.9], [0.55], [0.5], [0.05]])
    assert c.judge_drifted is False
    assert isclose(c.mean_abs_deviation or 0, 0.05, abs_tol=1e-12)
    assert isclose(c.mean_difference or 0, 0.0, abs_tol=1e-12)  # (−0.1 + 0.05 + 0 + 0.05) / 4 = 0
    assert c.sentence.startswith("judge held: ")


def test_a_deviation_of_exactly_the_tolerance_is_within_it() -> None:
    # every canary 0.10 off: 0.9, 0.6, 0.4, 0.1 → MAD (0.1 + 0.1 + 0.1 + 0.1) / 4 = 0.10, not above 0.10
    c = anchors([[0.9], [0.6], [0.4], [0.1]])
    assert c.judge_drifted is False
    assert isclose(c.mean_abs_deviation or 0, 0.10, abs_tol=1e-12)


def test_a_judge_that_moved_drifted_and_the_sentence_gives_the_figures() -> None:
    # a judge that squeezes the scores toward the middle: means (0.7 + 0.8) / 2 = 0.75, 0.5, 0.5, (0.2 + 0.3) / 2 = 0.25
    # MAD = (0.25 + 0 + 0 + 0.25) / 4 = 0.125 > 0.10
    c = anchors([[0.7, 0.8], [0.5, 0.5], [0.5, 0.5], [0.2, 0.3]], samples=2)
    assert c.judge_drifted is True
    assert isclose(c.mean_abs_deviation or 0, 0.125, abs_tol=1e-12)
    assert isclose(c.mean_difference or 0, 0.0, abs_tol=1e-12)  # the squeeze cancels in the signed mean: MAD sees it
    assert c.sentence == (
        "judge drifted: the canaries' mean absolute deviation from their expected scores is 0.125 "
        "(tolerance 0.10; mean difference +0.000; 4 canaries × 2 judge samples)"
    )


def test_invalid_samples_leave_the_mean_and_an_unscored_set_is_not_a_held_judge() -> None:
    one = canary_score(SPECS[0], [None, 0.8, None])  # mean of the valid 0.8 alone, 2 invalid
    assert (one.scores, one.invalid, one.mean) == ([0.8], 2, 0.8)
    c = anchors([[None], [None], [None], [None]])
    assert c.judge_drifted is None and c.mean_abs_deviation is None and c.scored == 0
    assert c.sentence.startswith("judge anchors unscored: none of the 4 canaries")


HELD = anchors([[1.0], [0.5], [0.5], [0.0]])
MOVED_A_LITTLE = anchors([[0.95], [0.45], [0.45], [0.05]])  # MAD 0.05 from expected; 0.05 from HELD
DRIFTED = anchors([[0.6], [0.3], [0.3], [0.0]])  # MAD (0.4 + 0.2 + 0.2 + 0) / 4 = 0.2


def test_anchors_agree_within_the_tolerance_and_older_receipts_diff_as_before() -> None:
    assert anchors_disagree(HELD, MOVED_A_LITTLE) is None
    assert anchors_disagree(None, None) is None
    assert anchors_disagree(None, HELD) is None


def test_anchors_disagree_when_one_judge_drifted() -> None:
    assert anchors_disagree(HELD, DRIFTED) == f"{ANCHORS_DIFFER} (after's judge drifted)"
    assert anchors_disagree(DRIFTED, None) == f"{ANCHORS_DIFFER} (before's judge drifted)"


def test_anchors_disagree_when_the_means_are_apart_though_each_held() -> None:
    # before 0.95, 0.55, 0.55, 0.05: MAD (0.05 · 4) / 4 = 0.05, held
    # after  1.0, 0.35, 0.35, 0.1:   MAD (0 + 0.15 + 0.15 + 0.1) / 4 = 0.10, held (not above)
    # between them |Δ| 0.05, 0.2, 0.2, 0.05 → 0.5 / 4 = 0.125 > 0.10: the anchors disagree
    before = anchors([[0.95], [0.55], [0.55], [0.05]])
    after = anchors([[1.0], [0.35], [0.35], [0.1]])
    assert before.judge_drifted is False and after.judge_drifted is False
    assert anchors_disagree(before, after) == (
        f"{ANCHORS_DIFFER} (the 4 canaries' means differ by 0.125 on average, above the tolerance 0.10)"
    )


def _with(canaries: Canaries | None) -> dict[str, object]:
    return {"canaries": canaries.model_dump(mode="json")} if canaries is not None else {}


CASES = {"a": (seven([0.85, 0.90, 0.95]), [0.2, 0.25, 0.3])}
LOWER = {"a": (seven([0.50, 0.55, 0.60]), [0.2, 0.25, 0.3])}  # regressed by 0.35 on 7 draws a side


def test_diff_between_receipts_whose_canaries_disagree_reads_no_verdict_with_the_exact_words() -> None:
    before, after = receipt(CASES, extra=_with(HELD)), receipt(LOWER, extra=_with(DRIFTED))
    assert diff(before, receipt(LOWER, extra=_with(HELD))).status == Status.REGRESSED  # the same anchors: a call
    result = diff(before, after)
    assert result.status == Status.NO_VERDICT
    assert "the judge scored the anchors differently" in result.headline
    assert [c.verdict for c in result.cases] == [None]
    assert result.not_like_for_like is not None and result.not_like_for_like.differs[-1].field == "canaries"
    assert read_receipt(after).judge_drift == JUDGE_DRIFTED and read_receipt(before).judge_drift is None


def test_receipts_without_canaries_diff_as_today() -> None:
    assert diff(receipt(CASES), receipt(LOWER)).status == Status.REGRESSED


scores = st.sampled_from([i / 20 for i in range(21)])
sets = st.lists(st.lists(scores, min_size=1, max_size=3), min_size=4, max_size=4).map(lambda x: anchors(list(x), 3))


@given(before=sets, after=sets)
def test_diff_never_yields_a_verdict_when_the_canaries_disagree(before: Canaries, after: Canaries) -> None:
    result = diff(receipt(CASES, extra=_with(before)), receipt(LOWER, extra=_with(after)))
    if anchors_disagree(before, after) is not None:
        assert result.status == Status.NO_VERDICT
        assert all(c.verdict is None for c in result.cases)
        assert ANCHORS_DIFFER in result.headline
    else:
        assert result.status == Status.REGRESSED


def test_the_canaries_cost_is_priced_apart() -> None:
    # 20 samples of 600 in + 40 out at $1 / $5 per Mtok: 12,000 in and 800 out → 0.012 + 0.004 = $0.016
    price = Price(input_per_mtok=1, output_per_mtok=5, source="test")
    o = canary_overhead(price, [Usage(input_tokens=600, output_tokens=40)] * 20, 20)
    assert (o.usage.input_tokens, o.usage.output_tokens, o.judge_calls) == (12_000, 800, 20)
    assert isclose(o.cost_usd or 0, 0.016, abs_tol=1e-12)
