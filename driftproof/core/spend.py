"""Tokens and what they are billed at: a run's spend by kind of call, the prices it is billed at, and a call's
reported usage as spend. Pure. The plan and the budget (`driftproof.core.plan`) count in it; kept apart so that
module stays under its size cap.
"""

from __future__ import annotations

from dataclasses import dataclass

from driftproof.core.batch_prices import batch_price
from driftproof.core.economics import priced
from driftproof.core.models import Price, Usage


@dataclass(frozen=True, slots=True)
class Spend:
    """Tokens, kept apart by who is called (the answering model, the judge), by direction, and, for the judge, by
    whether the call can go through a batch (a draw's judge sample) or never does (a canary's judge sample, a
    pairwise call), so each prices at what it is billed (`Pricing`)."""

    answer_input: int = 0
    answer_output: int = 0
    judge_input: int = 0
    judge_output: int = 0
    unbatched_input: int = 0
    """Judge input tokens of the calls sent one by one even with ``--batch``: the canaries', the pairwise calls."""
    unbatched_output: int = 0
    """Their output tokens."""

    def __add__(self, other: Spend) -> Spend:
        return Spend(
            self.answer_input + other.answer_input,
            self.answer_output + other.answer_output,
            self.judge_input + other.judge_input,
            self.judge_output + other.judge_output,
            self.unbatched_input + other.unbatched_input,
            self.unbatched_output + other.unbatched_output,
        )

    def __sub__(self, other: Spend) -> Spend:
        return Spend(
            self.answer_input - other.answer_input,
            self.answer_output - other.answer_output,
            self.judge_input - other.judge_input,
            self.judge_output - other.judge_output,
            self.unbatched_input - other.unbatched_input,
            self.unbatched_output - other.unbatched_output,
        )

    def times(self, n: int) -> Spend:
        """``n`` of these.

        >>> Spend(1, 2, 3, 4, 5, 6).times(3).tokens
        63
        """
        return Spend(
            self.answer_input * n,
            self.answer_output * n,
            self.judge_input * n,
            self.judge_output * n,
            self.unbatched_input * n,
            self.unbatched_output * n,
        )

    @property
    def tokens(self) -> int:
        """Every token, in and out, answering model and judge."""
        return (
            self.answer_input
            + self.answer_output
            + self.judge_input
            + self.judge_output
            + self.unbatched_input
            + self.unbatched_output
        )

    def usd(self, prices: Pricing) -> float | None:
        """USD, each call at the price it is billed (`Pricing`); ``None`` when the answering model or the judge has
        no price.

        >>> p = Price(input_per_mtok=1, output_per_mtok=5, source="t")
        >>> Spend(1_000_000, 0, 0, 200_000).usd(Pricing(p, p))  # 1 + 0.2 × 5
        2.0
        >>> Spend(0, 0, 1_000_000, 0, 1_000_000, 0).usd(Pricing(p, p, batch=True))  # 0.5 batched + 1 not
        1.5
        """
        return priced(
            (Usage(input_tokens=self.answer_input, output_tokens=self.answer_output), prices.answer),
            (Usage(input_tokens=self.judge_input, output_tokens=self.judge_output), prices.judge),
            (Usage(input_tokens=self.unbatched_input, output_tokens=self.unbatched_output), prices.unbatched_judge),
        )


@dataclass(frozen=True, slots=True)
class Pricing:
    """What each kind of call is billed at: the one place that says. From the answering model's and the judge's
    list prices (the price table; ``None``: not in it) and ``batch`` (``--batch``: the run's answers and its
    draws' judge samples go through a provider batch API, billed at the batch price, `batch_price`). The judge
    calls no run batches, the canaries' and the pairwise calls, are billed at the judge's list price."""

    answer_list: Price | None = None
    """The answering model's list price."""
    judge_list: Price | None = None
    """The judge's list price."""
    batch: bool = False
    """``--batch``: answers and draws' judge samples at the batch price."""

    @property
    def answer(self) -> Price | None:
        """An answer call's price: the batch price with ``--batch``, the list price without."""
        return batch_price(self.answer_list) if self.batch else self.answer_list

    @property
    def judge(self) -> Price | None:
        """A draw's judge sample's price (the receipt's ``judge_overhead.price``): the batch price with ``--batch``,
        the list price without.

        >>> p = Price(input_per_mtok=1, output_per_mtok=5, source="t: j")
        >>> q = Pricing(p, p, batch=True)
        >>> q.judge.input_per_mtok, q.judge.source, q.unbatched_judge.input_per_mtok, q.unbatched_judge.source
        (0.5, 't: j, batch API: half price', 1.0, 't: j')
        """
        return batch_price(self.judge_list) if self.batch else self.judge_list

    @property
    def unbatched_judge(self) -> Price | None:
        """A judge call never sent through a batch (a canary's judge sample, a pairwise call): the list price."""
        return self.judge_list


def spend_of(usage: Usage | None, role: str) -> Spend | None:
    """What a call's reported usage weighs in a budget: its input (cache reads and writes included) and output, as
    an ``answer``, a batchable ``judge`` sample or an ``unbatched`` judge call; ``None`` when it reported neither.

    >>> spend_of(Usage(input_tokens=10, cache_read_tokens=90, output_tokens=5), "answer")
    Spend(answer_input=100, answer_output=5, judge_input=0, judge_output=0, unbatched_input=0, unbatched_output=0)
    >>> spend_of(Usage(), "judge") is None
    True
    """
    if usage is None:
        return None
    parts = (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
    if usage.output_tokens is None and all(p is None for p in parts):
        return None
    tokens_in, tokens_out = sum(p or 0 for p in parts), usage.output_tokens or 0
    if role == "answer":
        return Spend(answer_input=tokens_in, answer_output=tokens_out)
    if role == "judge":
        return Spend(judge_input=tokens_in, judge_output=tokens_out)
    return Spend(unbatched_input=tokens_in, unbatched_output=tokens_out)
