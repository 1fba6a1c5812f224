"""The budget settles each call by the usage the provider reported (issue 14, probe #3): ceil(chars / 4) is an
estimate of a prompt, not an upper bound, so a call that reported more than its worst case counts what it reported,
and no draw starts that the reported usage and the reservations together could take past the budget."""

from __future__ import annotations

from driftproof.core.models import Usage
from driftproof.core.plan import Budget, CaseSizes, PlanSettings, Pricing
from driftproof.planning import Ledger

# one case; a draw: its answer (prompt 100 + --max-tokens 100 = 200) and 1 judge sample (template 400 + the answer's
# 100 + the judge's 100 = 600): 800 at its worst, in either arm (no skill text)
SIZES = [CaseSizes("a", prompt=100, judge_template=400)]
SETTINGS = PlanSettings(2, 4, 1, max_tokens=100, judge_max_tokens=100)


def started(budget: int) -> Ledger:
    """A ledger whose first round (2 draws an arm) started: 4 × 800 = 3,200 committed."""
    ledger = Ledger(Budget(tokens=budget), Pricing(), SETTINGS, SIZES)
    take, refused = ledger.allow(0, {"with_skill": 2, "baseline": 2})
    assert (take, refused) == ({"with_skill": 2, "baseline": 2}, False)
    for arm, n in take.items():
        for _ in range(n):
            ledger.commit(0, arm)
    assert ledger.committed.tokens == 3_200
    return ledger


def test_reported_usage_above_the_worst_case_refuses_a_draw_the_estimate_would_start() -> None:
    ledger = started(4_000)
    for arm in ("with_skill", "baseline"):
        # one request for both draws (its usage is the request's): 600, where 2 × 200 were reserved
        ledger.settle(0, arm, "answer", Usage(input_tokens=580, output_tokens=20), calls=2)
        for _ in range(2):
            ledger.settle(0, arm, "judge", Usage(input_tokens=900, cache_read_tokens=50, output_tokens=50))  # 1,000
    # settled: 4 × 300 + 4 × 1,000 = 5,200, already past the 4,000; by the estimates 3,200 + 800 = 4,000 would fit
    assert ledger.settled.tokens == 5_200
    assert ledger.allow(0, {"with_skill": 1}) == ({"with_skill": 0, "baseline": 0}, True)
    assert ledger.passed() is not None and ledger.passed().tokens == 5_200  # type: ignore[union-attr]
    record = ledger.record({0: "stopped at the token budget"})
    # the receipt's committed figure is the larger: what the provider reported; needed adds the refused draw
    assert (record.committed_tokens, record.needed_tokens) == (5_200, 5_200 + 800)


def test_usage_below_the_worst_case_frees_nothing_and_a_call_without_usage_keeps_its_reservation() -> None:
    ledger = started(4_000)
    ledger.settle(0, "with_skill", "answer", Usage(input_tokens=90, output_tokens=10), calls=2)  # 100 for 2 × 200
    ledger.settle(0, "baseline", "answer", None, calls=2)  # a failed request: reported nothing, kept at 400
    # settled: 3,200 − 400 + 100 = 2,900, below the 3,200 of worst cases: a draw still needs 3,200 + 800 ≤ 4,000
    assert (ledger.settled.tokens, ledger.committed.tokens) == (2_900, 3_200)
    assert ledger.allow(0, {"with_skill": 2}) == ({"with_skill": 1, "baseline": 0}, True)
    assert ledger.passed() is None
    assert ledger.record({}).committed_tokens == 3_200


def test_a_lost_draw_settles_the_judge_samples_it_never_asks_for_at_nothing() -> None:
    ledger = started(3_200)
    ledger.settle(0, "with_skill", "answer", Usage(input_tokens=1_000, output_tokens=0))  # 800 above its 200
    ledger.unused(0, 1)  # that draw was lost: its one sample (600) is never asked for
    # settled: 3,200 − 200 + 1,000 − 600 = 3,400 > 3,200: the provider's count passed the budget
    assert ledger.settled.tokens == 3_400
    assert ledger.record({}).committed_tokens == 3_400
