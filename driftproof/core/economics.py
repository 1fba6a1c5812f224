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
    if price is None:
        return None
    total = (usage.input_tokens or 0) * price.input_per_mtok + (usage.output_tokens or 0) * price.output_per_mtok
    read = price.input_per_mtok if price.cache_read_per_mtok is None else price.cache_read_per_mtok
    write = price.input_per_mtok if price.cache_write_per_mtok is None else price.cache_write_per_mtok
    total += (usage.cache_read_tokens or 0) * read + (usage.cache_write_tokens or 0) * write
    return round(total / 1_000_000, 8)


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


def with_pairwise(overhead: JudgeOverhead, usages: Sequence[Usage | None], calls: int) -> JudgeOverhead:
    """The judge's overhead with the pairwise calls' usage added to it (and kept apart as ``pairwise_usage``).

    >>> o = judge_overhead("j", Price(input_per_mtok=1, output_per_mtok=5, source="t"), [[Usage(input_tokens=10)]])
    >>> p = with_pairwise(o, [Usage(input_tokens=30, output_tokens=2), None], 2)
    >>> p.usage.input_tokens, p.usage.output_tokens, p.pairwise_usage.input_tokens, p.pairwise_calls, p.cost_usd
    (40, 2, 30, 2, 5e-05)
    """
    pairwise = sum_usage(usages)
    usage = sum_usage([overhead.usage, pairwise])
    return overhead.model_copy(
        update={
            "usage": usage,
            "cost_usd": cost(usage, overhead.price),
            "pairwise_usage": pairwise,
            "pairwise_calls": calls,
        }
    )
