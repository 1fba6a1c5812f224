"""``view`` of a receipt whose run went past its budget by the provider's count says so, as the run's stderr did:
``committed_tokens`` above ``tokens`` (the reported usage of calls started on the estimate). Nothing is said
within the budget, nor for a merged receipt, whose ``committed_tokens`` is its shards' sum."""

from __future__ import annotations

from typing import Any

from driftproof.core.reading import read_receipt
from driftproof.render import render_view
from tests.support.builders import receipt, reseal

CASES = {"a": ([0.8, 0.82, 0.84], [0.5, 0.52, 0.54])}


def with_budget(tokens: int, committed: int) -> Any:
    def edit(body: dict[str, Any]) -> None:
        body["run"]["settings"] = {"budget": {"tokens": tokens, "max_tokens": 100, "committed_tokens": committed}}

    return reseal(receipt(CASES), edit)


def test_a_run_past_its_budget_says_so_in_view() -> None:
    r = with_budget(20_000, 21_536)  # the probe's figures: a server counting 8x the estimate
    text = render_view(r, read_receipt(r))
    assert (
        "budget: past the budget (20,000 tokens): the provider reported 21,536 tokens for the calls made; a "
        "prompt's estimate, ceil(chars / 4), is not an upper bound on the tokens a provider counts"
    ) in text


def test_within_the_budget_view_says_nothing_of_it() -> None:
    r = with_budget(20_000, 16_388)
    assert "past the budget" not in render_view(r, read_receipt(r))
