"""What a run cost and what its skill weighs: the arithmetic behind ``economics`` and ``lift per 1k tokens``.

Pure: prices come in as `Price` (the shell reads the bundled table or ``--price-table``), usage as `Usage`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from driftproof.core.models import CanaryOverhead, JudgeOverhead, Price, Usage

CHARS_PER_TOKEN = 4
"""The coarse yardstick for text whose tokens no endpoint counted: ceil(chars / 4)."""


def estimate_tokens(*texts: str | None) -> int:
    """ceil(chars / 4) over ``texts``: the skill's size in a receipt, a CLI draw's prompt estimate.

    >>> estimate_tokens("abcde", None), estimate_tokens("x" * 1601)
    (2, 401)
    """
    return math.ceil(sum(len(t) for t in texts if t) / CHARS_PER_TOKEN)


def cost(usage: Usage, price: Price | None) -> float | None:
    """USD for a usage at a price; ``None`` without a price. Cached tokens at their own price, else the input's.

    >>> price = Price(input_per_mtok=1, output_per_mtok=5, source="t")
    >>> cost(Usage(input_tokens=1_000_000, output_tokens=200_000), price)  # 1 + 0.2 * 5
    2.0
    >>> free_reads = Price(input_per_mtok=1, output_per_mtok=5, cache_read_per_mtok=0.0, source="t")
    >>> cost(Usage(cache_read_tokens=1_000_000), free_reads)  # a rate of 0 is a rate, not a missing one
    0.0
    """
    return priced((usage, price))


def priced(*parts: tuple[Usage, Price | None]) -> float | None:
    """USD for usages each at its own price (`cost`'s rates), rounded once; ``None`` when any has no price: a
    ``--batch`` run's judge samples at the batch price and its pairwise calls at the list price.

    >>> listed = Price(input_per_mtok=1, output_per_mtok=5, source="t")
    >>> half = Price(input_per_mtok=0.5, output_per_mtok=2.5, source="t, batch")
    >>> samples, pairs = Usage(input_tokens=3200, output_tokens=320), Usage(input_tokens=2400, output_tokens=80)
    >>> priced((samples, half), (pairs, listed))  # (1,600 + 800) + (2,400 + 400) = 5,200 / 1e6
    0.0052
    >>> priced((Usage(input_tokens=1), listed), (Usage(input_tokens=1), None)) is None
    True
    """
    total = 0.0
    for usage, price in parts:
        if price is None:
            return None
        read = price.input_per_mtok if price.cache_read_per_mtok is None else price.cache_read_per_mtok
        write = price.input_per_mtok if price.cache_write_per_mtok is None else price.cache_write_per_mtok
        total += (usage.input_tokens or 0) * price.input_per_mtok + (usage.output_tokens or 0) * price.output_per_mtok
        total += (usage.cache_read_tokens or 0) * read + (usage.cache_write_tokens or 0) * write
    return round(total / 1_000_000, 8)


def summed_cost(costs: Iterable[float | None]) -> float | None:
    """Costs already priced, added up (a merged receipt's shards'); ``None`` when any is unknown.

    >>> summed_cost([0.0026, 0.0026]), summed_cost([0.1, None])
    (0.0052, None)
    """
    values = list(costs)
    if any(v is None for v in values):
        return None
    return round(sum(v for v in values if v is not None), 8)


def sum_usage(usages: Sequence[Usage | None]) -> Usage:
    """Field-wise sum; a field stays ``None`` only when no usage reported it.

    >>> sum_usage([Usage(input_tokens=3), None, Usage(input_tokens=4, output_tokens=1)]).input_tokens
    7
    """
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd")
    totals: dict[str, int | float | None] = {}
    for name in fields:
        values = [getattr(u, name) for u in usages if u is not None and getattr(u, name) is not None]
        totals[name] = sum(values) if values else None
    return Usage.model_validate(totals)


def judge_overhead(model: str | None, price: Price | None, judged: Iterable[Sequence[Usage]]) -> JudgeOverhead:
    """Grading cost over every draw sent to the judge, each once (``judged``: the usages its samples reported).

    A floor: only answered samples' usage counts, and a judged draw none of whose samples reported usage is
    counted apart (``judged_draws_missing_usage``) rather than as free.

    >>> o = judge_overhead("j", None, [[Usage(input_tokens=10)], [], [Usage(input_tokens=5), Usage(input_tokens=5)]])
    >>> o.usage.input_tokens, o.judged_draws_counted, o.judged_draws_missing_usage, o.cost_usd
    (20, 2, 1, None)
    """
    counted = missing = 0
    usages: list[Usage | None] = []
    for reported in judged:
        if reported:
            counted += 1
            usages.extend(reported)
        else:
            missing += 1
    usage = sum_usage(usages)
    return JudgeOverhead(
        model=model,
        price=price,
        usage=usage,
        cost_usd=cost(usage, price),
        judged_draws_counted=counted,
        judged_draws_missing_usage=missing,
    )


def canary_overhead(price: Price | None, usages: Sequence[Usage | None], calls: int) -> CanaryOverhead:
    """What re-judging the canaries cost: their judge samples' usage summed and priced, held apart.

    >>> price = Price(input_per_mtok=1, output_per_mtok=5, source="t")
    >>> o = canary_overhead(price, [Usage(input_tokens=600, output_tokens=40), None], 2)
    >>> o.usage.input_tokens, o.cost_usd, o.judge_calls  # (600 * 1 + 40 * 5) / 1e6 = 0.0008
    (600, 0.0008, 2)
    """
    usage = sum_usage(usages)
    return CanaryOverhead(usage=usage, cost_usd=cost(usage, price), judge_calls=calls)


def with_pairwise(
    overhead: JudgeOverhead, usages: Sequence[Usage | None], calls: int, price: Price | None
) -> JudgeOverhead:
    """The judge's overhead with the pairwise calls' usage added to it (and kept apart as ``pairwise_usage``), and
    their cost at ``price``: the judge's list price, since they never go through a batch
    (`driftproof.core.plan.Pricing.unbatched_judge`), while ``overhead.price`` is the judge samples' price.

    >>> listed = Price(input_per_mtok=1, output_per_mtok=5, source="t")
    >>> o = judge_overhead("j", listed, [[Usage(input_tokens=10)]])
    >>> p = with_pairwise(o, [Usage(input_tokens=30, output_tokens=2), None], 2, listed)
    >>> p.usage.input_tokens, p.usage.output_tokens, p.pairwise_usage.input_tokens, p.pairwise_calls, p.cost_usd
    (40, 2, 30, 2, 5e-05)
    >>> half = Price(input_per_mtok=0.5, output_per_mtok=2.5, source="t, batch API: half price")
    >>> o = judge_overhead("j", half, [[Usage(input_tokens=10)]])
    >>> with_pairwise(o, [Usage(input_tokens=30, output_tokens=2)], 1, listed).cost_usd  # (10 × 0.5 + 30 + 2 × 5) / 1e6
    4.5e-05
    """
    pairwise = sum_usage(usages)
    usage = sum_usage([overhead.usage, pairwise])
    return overhead.model_copy(
        update={
            "usage": usage,
            "cost_usd": priced((overhead.usage, overhead.price), (pairwise, price)),
            "pairwise_usage": pairwise,
            "pairwise_calls": calls,
        }
    )
