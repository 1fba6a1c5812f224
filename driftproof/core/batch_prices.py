"""What a call through a provider batch API costs (``--batch``): half the list price, every rate.

Anthropic Message Batches and the OpenAI Batch API both bill input, output and cached tokens at 50 % of the
standard price, so a ``--batch`` run freezes the halved price into its receipt (``judge_overhead.price``, its
``source`` saying so) and prices its budget with it.
"""

from __future__ import annotations

from driftproof.core.models import Price

BATCH_PRICE_FACTOR = 0.5
"""The share of the list price a batch call is billed at (Anthropic and OpenAI alike)."""
BATCH_PRICE_NOTE = "batch API: half price"
"""What a halved price's ``source`` adds to where the list price came from."""


def batch_price(price: Price | None) -> Price | None:
    """A list price as a batch call pays it: every rate halved; ``None`` stays ``None``.

    >>> p = batch_price(Price(input_per_mtok=1.0, output_per_mtok=5.0, cache_read_per_mtok=0.1, source="t: m"))
    >>> p.input_per_mtok, p.output_per_mtok, p.cache_read_per_mtok, p.cache_write_per_mtok, p.source
    (0.5, 2.5, 0.05, None, 't: m, batch API: half price')
    >>> batch_price(None) is None
    True
    """
    if price is None:
        return None
    rates = ("input_per_mtok", "output_per_mtok", "cache_read_per_mtok", "cache_write_per_mtok")
    halved = {
        name: None if getattr(price, name) is None else getattr(price, name) * BATCH_PRICE_FACTOR for name in rates
    }
    return price.model_copy(update={**halved, "source": f"{price.source}, {BATCH_PRICE_NOTE}"})


def list_price(price: Price | None) -> Price | None:
    """The list price a batch price was halved from (`batch_price` undone, for calls that are not batched: a
    regrade of a ``--batch`` run); any other price as it is.

    >>> listed = Price(input_per_mtok=1.0, output_per_mtok=5.0, cache_read_per_mtok=0.1, source="t: m")
    >>> list_price(batch_price(listed)) == listed, list_price(listed) is listed, list_price(None)
    (True, True, None)
    """
    suffix = f", {BATCH_PRICE_NOTE}"
    if price is None or not price.source.endswith(suffix):
        return price
    rates = ("input_per_mtok", "output_per_mtok", "cache_read_per_mtok", "cache_write_per_mtok")
    doubled = {
        name: None if getattr(price, name) is None else getattr(price, name) / BATCH_PRICE_FACTOR for name in rates
    }
    return price.model_copy(update={**doubled, "source": price.source[: -len(suffix)]})
