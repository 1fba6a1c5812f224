"""The rules moved into the core in issue 11: verification, economics and the seal of a new receipt."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.economics import cost, estimate_tokens, judge_overhead
from driftproof.core.models import Price, Usage
from driftproof.core.seal import check_seal, seal_receipt
from driftproof.core.verification import verify
from driftproof.core.words import Verification
from tests.support.builders import receipt


def test_judge_overhead_by_hand() -> None:
    price = Price(input_per_mtok=1.0, output_per_mtok=5.0, source="test")
    judged = [
        [Usage(input_tokens=400_000, output_tokens=20_000)],
        [],  # judged, but no sample reported usage: counted apart, never as free
        [Usage(input_tokens=100_000), Usage(input_tokens=500_000, output_tokens=80_000)],
    ]
    overhead = judge_overhead("claude-haiku-4-5", price, judged)
    # input 400k + 100k + 500k = 1,000,000 → $1.00; output 20k + 80k = 100,000 at $5/Mtok → $0.50
    assert (overhead.usage.input_tokens, overhead.usage.output_tokens) == (1_000_000, 100_000)
    assert overhead.cost_usd == 1.5
    assert (overhead.judged_draws_counted, overhead.judged_draws_missing_usage) == (2, 1)


def test_cached_tokens_cost_at_their_price_else_the_input_price() -> None:
    usage = Usage(input_tokens=0, cache_read_tokens=1_000_000, cache_write_tokens=1_000_000)
    # read 1M × $0.10 + write 1M × $1.25 = $1.35; without cache prices both at the $1 input price = $2
    assert (
        cost(
            usage,
            Price(input_per_mtok=1, output_per_mtok=5, cache_read_per_mtok=0.1, cache_write_per_mtok=1.25, source="t"),
        )
        == 1.35
    )
    assert cost(usage, Price(input_per_mtok=1, output_per_mtok=5, source="t")) == 2.0


@given(st.lists(st.text(max_size=50), max_size=5))
def test_estimate_tokens_is_ceil_of_a_quarter_of_the_characters(texts: list[str]) -> None:
    chars = sum(len(t) for t in texts)
    assert estimate_tokens(*texts) == -(-chars // 4)


def test_verify_names_why_a_run_is_not_tested() -> None:
    assert verify(None, "openai", "anthropic", [True, True, True]) == (Verification.TESTED, None)
    assert verify(None, "stub", "stub", [True]) == (Verification.UNVERIFIED, "stub lane: no model answered or judged")
    assert verify(None, "stub", "anthropic", [True]) == (Verification.UNVERIFIED, "stub lane: no model answered")
    assert verify(None, "openai", "stub", [True]) == (Verification.UNVERIFIED, "stub judge: no model judged")
    assert verify(None, "openai", "anthropic", []) == (Verification.UNVERIFIED, "no judge sample was returned")
    level, why = verify(None, "openai", "anthropic", [True, False], "a judge sample reported 'x'")
    assert (level, why) == (Verification.UNVERIFIED, "a judge sample reported 'x'")


def test_seal_receipt_seals_what_it_returns() -> None:
    sealed = receipt({"a": ([0.8, 0.9, 0.85], [0.5, 0.6, 0.55])})
    body = sealed.model_dump(mode="json")
    again = seal_receipt({k: v for k, v in body.items() if k not in ("seal", "schema_version")})
    assert again == sealed and check_seal(again.model_dump(mode="json")).ok
