"""A batch call's price (`driftproof.core.batch_prices`): every rate halved, so every cost halves."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from driftproof.core.batch_prices import batch_price
from driftproof.core.economics import cost
from driftproof.core.models import Price, Usage

rates = st.floats(min_value=0, max_value=100, allow_nan=False)
tokens = st.integers(min_value=0, max_value=10_000_000)


def test_a_batch_price_halves_each_rate_and_says_so() -> None:
    # claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache write -> 0.5, 2.5, 0.05, 0.625
    p = Price(
        input_per_mtok=1.0, output_per_mtok=5.0, cache_read_per_mtok=0.1, cache_write_per_mtok=1.25, source="b: h"
    )
    half = batch_price(p)
    assert half is not None
    assert (half.input_per_mtok, half.output_per_mtok, half.cache_write_per_mtok) == (0.5, 2.5, 0.625)
    assert math.isclose(half.cache_read_per_mtok or 0, 0.05, abs_tol=1e-12)
    assert half.source == "b: h, batch API: half price"
    # 1M in, 200k out, 1M cache reads: 0.5 + 0.5 + 0.05 = 1.05 against 2.1 at list price
    usage = Usage(input_tokens=1_000_000, output_tokens=200_000, cache_read_tokens=1_000_000)
    assert cost(usage, half) == 1.05 and cost(usage, p) == 2.1


@given(rates, rates, st.none() | rates, tokens, tokens, tokens)
def test_a_batch_call_costs_half_of_the_list_price(
    inp: float, out: float, cached: float | None, n_in: int, n_out: int, n_cached: int
) -> None:
    price = Price(input_per_mtok=inp, output_per_mtok=out, cache_read_per_mtok=cached, source="t")
    usage = Usage(input_tokens=n_in, output_tokens=n_out, cache_read_tokens=n_cached)
    full, half = cost(usage, price), cost(usage, batch_price(price))
    assert full is not None and half is not None
    assert math.isclose(half, full / 2, abs_tol=1e-8)  # both rounded to 8 decimals
