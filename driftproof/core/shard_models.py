"""The receipt's shard parts: a shard receipt's ``run.shard`` and a merged receipt's ``shards``. Pure.

Split from ``driftproof.core.models`` (which re-exports both) so that module stays under its size cap; the rules
that make and merge shards are in ``driftproof.core.shards``.
"""

from __future__ import annotations

from pydantic import Field

from driftproof.core.model_base import Count, Sha256
from driftproof.core.model_base import ReceiptPart as _Model
from driftproof.core.words import Verification


class Shard(_Model):
    """Which part of its suite a shard receipt holds (``driftproof run --shard INDEX/COUNT``)."""

    index: int = Field(ge=1)
    """This shard's number, from 1 to count."""
    count: int = Field(ge=1)
    """How many shards the suite was split into."""
    case_ids: list[str]
    """The ids of the cases this shard ran, in suite order (ranked by sha256 of their ids, dealt to shards in turn)."""
    suite_case_ids: list[str]
    """Every case id of the suite, in suite order, so a merge can name a case no shard ran."""


class ShardSeal(_Model):
    """One shard receipt a merged receipt was made from (``driftproof merge``)."""

    index: int = Field(ge=1)
    """The shard's number, from 1 to count."""
    count: int = Field(ge=1)
    """How many shards the suite was split into."""
    cases: Count
    """How many cases the shard held."""
    verification: Verification
    """The shard receipt's verification level; the merged receipt reads the lowest of them."""
    sha256: Sha256 = Field(description="The shard receipt's seal (seal.sha256), so each shard can be checked.")
