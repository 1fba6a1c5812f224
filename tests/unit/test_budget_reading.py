"""How a budget's stops read (`core.budget_reading`): a run the budget stopped is underpowered, with the budget named.

Receipts built by hand: main's with-skill arms 0.85 ± 0 on 12 draws; a budget record of 10 tokens that stopped every
case, whose refused draws needed 103,410 tokens.
"""

from __future__ import annotations

from typing import Any

from driftproof.core.badge import badge_json
from driftproof.core.decision import decide
from driftproof.core.diff import diff
from driftproof.core.models import Receipt
from driftproof.core.plan_sentences import EVERY_CASE_AT_BUDGET, STOPPED_AT_BUDGET
from driftproof.core.reading import no_verdict, read_receipt
from driftproof.core.words import CaseVerdict, FailOn, Status
from tests.support.builders import receipt, reseal

BASE = [0.20, 0.25, 0.30] * 4
MAIN = receipt({"a": ([0.85] * 12, BASE), "b": ([0.75] * 12, BASE)})
SAID = "stopped at the token budget: 2 of 2 cases (10 tokens); the draws they asked for needed at least 103,410 tokens"


def stopped(cases: dict[str, Any], *, verification: str = "TESTED", which: tuple[str, ...] = ("a", "b")) -> Receipt:
    """``cases`` with ``which`` stopped at the budget, and the run's budget record (10 tokens, nothing committed)."""

    def edit(body: dict[str, Any]) -> None:
        for case in body["cases"]:
            case["stop_reason"] = STOPPED_AT_BUDGET if case["id"] in which else "with vs baseline: settled"
        body["run"]["settings"] = {
            "budget": {"tokens": 10, "max_tokens": 2048, "committed_tokens": 0, "stopped_cases": len(which),
                       "needed_tokens": 103_410},
        }  # fmt: skip
        if verification != "TESTED":
            body["verification"], body["verification_reason"] = verification, EVERY_CASE_AT_BUDGET

    return reseal(receipt(cases), edit)


def test_a_run_the_budget_stopped_before_any_draw_reads_underpowered_with_the_budget_named() -> None:
    # nothing measured: the with-skill arm is empty, the baseline carried (here: 12 draws) or empty
    empty = stopped({"a": ([], BASE), "b": ([], [])}, verification="UNVERIFIED")
    assert no_verdict(empty) is None  # nothing to verify is no reason to withhold its status
    reading = read_receipt(empty)
    assert (reading.status, reading.status_reason, reading.lift) == (Status.UNDERPOWERED, SAID, None)
    assert {c.verdict for c in reading.cases} == {CaseVerdict.UNDERPOWERED}
    assert badge_json(reading)["message"].startswith("underpowered")
    result = diff(MAIN, empty)
    assert (result.status, result.status_reason) == (Status.UNDERPOWERED, SAID)
    decision = decide(reading, result)
    assert [decision.exit_code(f) for f in FailOn] == [0, 1, 0]  # regressed, underpowered, never
    assert decision.outputs()["draws-needed"] == ""  # no spread was measured: no count


def test_only_the_budgets_own_reason_lifts_no_verdict() -> None:
    """A stub or a smoke run keeps its no verdict: verify words the budget's reason only after both."""
    stub = reseal(stopped({"a": ([], BASE), "b": ([], [])}), _reason("stub lane: no model answered or judged"))
    assert read_receipt(stub).status == Status.NO_VERDICT


def _reason(why: str) -> Any:
    def edit(body: dict[str, Any]) -> None:
        body["verification"], body["verification_reason"] = "UNVERIFIED", why

    return edit


def test_in_a_diff_a_case_the_budget_stopped_reads_underpowered_unless_it_is_a_call() -> None:
    """a: 7 draws at 0.85 against main's 0.85 ± 0: no separation, but the budget stopped it, so underpowered;
    b: 7 draws at 0.50 against main's 0.75: apart by 0.25 with 7 draws a side, regressed even so."""
    after = stopped({"a": ([0.85] * 7, BASE), "b": ([0.50] * 7, BASE)})
    result = diff(MAIN, after)
    verdicts = {c.id: c.verdict for c in result.cases}
    assert verdicts == {"a": CaseVerdict.UNDERPOWERED, "b": CaseVerdict.REGRESSED}
    assert result.status == Status.REGRESSED
    only_a = stopped({"a": ([0.85] * 7, BASE), "b": ([0.75] * 7, BASE)}, which=("a",))
    result = diff(MAIN, only_a)  # b: 0.75 against 0.75, no separation; a stopped: the budget is why it is short
    assert (result.status, result.status_reason) == (
        Status.UNDERPOWERED,
        "stopped at the token budget: 1 of 2 cases (10 tokens); the draws it asked for needed at least 103,410 tokens",
    )


def test_the_budget_line_gives_a_dollar_figure_only_when_there_is_one() -> None:
    """The plan's budget line: the worst case in tokens, and in dollars when both models are priced (never "n/a")."""
    from driftproof.core.plan import Budget, CaseSizes, PlanSettings, Pricing, plan_suite
    from driftproof.core.plan_sentences import budget_line

    # one case: prompt 10, judge template 40; 3 draws, 1 judge sample, ceilings 100 and 1024. A with-skill draw:
    # 10 + 100 + (40 + 100) + 1024 = 1274 (no skill text); a baseline draw the same: 2 arms × 3 × 1274 = 7644
    plan = plan_suite([CaseSizes("a", 10, 40)], PlanSettings(3, 3, 1, 100, 1024), Pricing())
    assert budget_line(plan, Budget(tokens=10)) == (
        "budget: 10 tokens: the worst case of the run (7,644 tokens) does not fit; no call that could pass the "
        "budget is started, and a case it stops reads underpowered (stopped at the token budget)"
    )
