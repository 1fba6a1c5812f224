"""What the judge did beside the case arms, for a receipt merged from shards: the judge-anchor canaries pooled,
their cost and the pairwise calls' summed, the pairwise figures over every case again. Pure.

Each shard of a split judged the same canary set (``driftproof merge`` refuses shards whose ``canaries.set_sha256``,
``judge_samples``, ``tolerance`` or ``source`` differ: `driftproof.core.shards.SAME`), so the merged receipt's
``canaries`` pools every shard's judge-sample scores per canary and reads them with the one rule
(`driftproof.core.canaries.read_anchors`): each canary's mean over every shard's valid samples, then the mean
absolute deviation and ``judge_drifted``. Its ``judge_samples`` is the samples each canary was judged in all: the
shards × the run's judge samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from driftproof.core.canaries import AnchorSpec, canary_score, read_anchors
from driftproof.core.canary_models import Canaries, CanaryScore
from driftproof.core.economics import sum_usage, summed_cost
from driftproof.core.models import CanaryOverhead, Usage


def _spec(score: CanaryScore) -> AnchorSpec:
    return AnchorSpec(score.id, score.case_id, score.expected, score.answer_sha256, score.rubric_sha256)


def pooled_canaries(records: Sequence[Canaries | None]) -> Canaries | None:
    """Every shard's canaries as one record: per canary, the shards' valid scores in shard order and their invalid
    samples summed, read again by the rule; ``None`` when no shard judged canaries.

    >>> a = AnchorSpec("a", None, 1.0, "0" * 64, "1" * 64)
    >>> shard1 = read_anchors("suite", [a], [canary_score(a, [1.0, 0.9])], 2)
    >>> shard2 = read_anchors("suite", [a], [canary_score(a, [0.8, None])], 2)
    >>> p = pooled_canaries([shard1, shard2])  # mean of 1.0, 0.9, 0.8 = 0.9: |0.9 − 1| = 0.1, not above 0.10
    >>> p.canaries[0].scores, p.canaries[0].invalid, round(p.mean_abs_deviation, 9), p.judge_drifted, p.judge_samples
    ([1.0, 0.9, 0.8], 1, 0.1, False, 4)
    """
    shards = [r for r in records if r is not None]
    if not shards:
        return None
    first = shards[0]
    specs = [_spec(c) for c in first.canaries]
    scored = []
    for k, spec in enumerate(specs):
        samples: list[float | None] = [s for r in shards for s in r.canaries[k].scores]
        samples += [None] * sum(r.canaries[k].invalid for r in shards)
        failures: dict[str, int] = {}
        for r in shards:
            for reason, n in (r.canaries[k].identity_failures or {}).items():
                failures[reason] = failures.get(reason, 0) + n
        seen = [got for r in shards if (got := r.canaries[k].reported_ids) is not None]
        ids = list(dict.fromkeys(i for got in seen for i in got)) if seen else None
        scored.append(canary_score(spec, samples, failures, ids))
    return read_anchors(first.source, specs, scored, sum(r.judge_samples for r in shards), first.tolerance)


def summed_canary_overhead(overheads: Sequence[CanaryOverhead | None]) -> CanaryOverhead | None:
    """The shards' canary costs as one: usage, calls and cost summed (each shard priced its canaries at the
    judge's list price); ``None`` when no shard judged canaries.

    >>> o = CanaryOverhead(usage=Usage(input_tokens=600, output_tokens=40), cost_usd=0.0008, judge_calls=2)
    >>> m = summed_canary_overhead([o, o])  # 2 × (600 × 1 + 40 × 5) / 1e6 = 0.0016 at $1 / $5
    >>> m.usage.input_tokens, m.cost_usd, m.judge_calls
    (1200, 0.0016, 4)
    """
    shards = [o for o in overheads if o is not None]
    if not shards:
        return None
    usage = sum_usage([o.usage for o in shards])
    spent = summed_cost(o.cost_usd for o in shards)
    return CanaryOverhead(usage=usage, cost_usd=spent, judge_calls=sum(o.judge_calls for o in shards))


class PairwiseTotals(NamedTuple):
    """The pairwise calls of every shard: their usage and their count (``None`` each: none judged pairwise)."""

    usage: Usage | None
    calls: int | None


def summed_pairwise(usages: Sequence[Usage | None], calls: Sequence[int | None]) -> PairwiseTotals:
    """The shards' ``pairwise_usage`` and ``pairwise_calls`` summed.

    >>> summed_pairwise([Usage(input_tokens=5), Usage(input_tokens=7)], [2, 4])
    PairwiseTotals(usage=Usage(input_tokens=12, output_tokens=None, cache_read_tokens=None, \
cache_write_tokens=None, cost_usd=None), calls=6)
    >>> summed_pairwise([None, None], [None, None])
    PairwiseTotals(usage=None, calls=None)
    """
    given = [u for u in usages if u is not None]
    counted = [c for c in calls if c is not None]
    return PairwiseTotals(sum_usage(given) if given else None, sum(counted) if counted else None)
