"""Token usage, the one model every part of the receipt that counts tokens shares. Pure.

Part of the receipt models (``driftproof.core.models`` re-exports it); kept apart so the pairwise models
(``driftproof.core.pairwise_models``) can use it without importing the receipt.
"""

from __future__ import annotations

from pydantic import Field

from driftproof.core.model_base import Count
from driftproof.core.model_base import ReceiptPart as _Model


class Usage(_Model):
    """Token usage as the provider or CLI reported it, normalised. ``null`` means not reported."""

    input_tokens: Count | None = None
    """Input tokens neither read from nor written to a prompt cache; null when not reported."""
    output_tokens: Count | None = None
    """Output tokens, reasoning tokens included; null when not reported."""
    cache_read_tokens: Count | None = None
    """Input tokens read from a prompt cache; null when not reported."""
    cache_write_tokens: Count | None = None
    """Input tokens written to a prompt cache; null when not reported."""
    cost_usd: float | None = Field(None, ge=0)
    """Cost in USD, only where the harness itself reported one; null otherwise."""
