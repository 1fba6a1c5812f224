"""``driftproof merge SHARD… -o RECEIPT``: the shard receipts of one split, checked and sealed as the whole suite's.

Every refusal (a file that is no receipt or no shard, shards that differ in a setting, overlap or leave a case
out) is one line naming the file and the field, before anything is written (rules in ``driftproof.core.shards``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from driftproof._version import __version__
from driftproof.core.models import Receipt, Tool
from driftproof.core.seal import seal_receipt
from driftproof.core.shard_sentences import merged_line
from driftproof.core.shards import merge_refusal, merged_body
from driftproof.errors import InputError
from driftproof.receipts import load_receipt, write_receipt
from driftproof.targets import RECEIPT_OUT, Output, check_outputs, receipt_inputs

MERGED = replace(RECEIPT_OUT, noun="the merged receipt")


class Merged(NamedTuple):
    """A merged receipt and where it was written."""

    receipt: Receipt
    path: Path

    def line(self) -> str:
        """What ``driftproof merge`` prints."""
        shards = len(self.receipt.shards or [])
        return merged_line(str(self.path), shards, len(self.receipt.cases), self.receipt.seal.sha256)


def merge_shards(paths: Sequence[Path], out: Path) -> Merged:
    """Load every shard receipt, refuse what cannot merge, and write the sealed merged receipt atomically."""
    named = [(str(p), load_receipt(p)) for p in paths]
    given = "one of the shard receipts given"  # and each one's answers archive, suite and skill
    reads = [
        i for p, (_, r) in zip(paths, named, strict=True) for i in receipt_inputs(p, r, given, f"shard receipt {p}")
    ]
    check_outputs([Output(out, "-o", MERGED)], reads)
    refusal = merge_refusal(named)
    if refusal is not None:
        raise InputError(refusal)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    receipt = seal_receipt(merged_body([r for _, r in named], Tool(name="driftproof", version=__version__), now))
    return Merged(receipt, write_receipt(receipt, out))
