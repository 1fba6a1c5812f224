"""The Action's ``shard`` input: where a shard job writes its receipt, and the merge job's shard receipts.

A matrix of N jobs runs ``shard: 1/N`` … ``shard: N/N``; each writes ``<receipt stem>.shard-I-of-N.json`` beside
``receipt-path`` and uploads it. The job after them downloads every one beside ``receipt-path`` and runs
``shard: merge``: `merge_in_workspace` merges them (``driftproof merge``'s checks) into the run's receipt, which is
then diffed, commented, badged and gated once, as a whole-suite run's is.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from driftproof.core.models import Receipt
from driftproof.errors import InputError
from driftproof.merge import merge_shards


def shard_receipt_path(receipt_path: str, shard: str) -> str:
    """``.driftproof/receipt.json`` and ``2/3`` give ``.driftproof/receipt.shard-2-of-3.json``.

    >>> shard_receipt_path(".driftproof/receipt.json", "2/3")
    '.driftproof/receipt.shard-2-of-3.json'
    """
    stored = PurePosixPath(receipt_path)
    index, count = shard.split("/")
    return str(stored.with_name(f"{stored.stem}.shard-{index}-of-{count}{stored.suffix or '.json'}"))


def shard_receipts(workspace: Path, receipt_path: str) -> list[Path]:
    """Every shard receipt beside ``receipt-path`` in the workspace, sorted by name."""
    stored = PurePosixPath(receipt_path)
    pattern = re.compile(rf"{re.escape(stored.stem)}\.shard-[0-9]+-of-[0-9]+{re.escape(stored.suffix or '.json')}")
    folder = workspace / str(stored.parent)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if pattern.fullmatch(p.name))


def merge_in_workspace(workspace: Path, receipt_path: str, out: Path) -> Receipt:
    """Merge the shard jobs' receipts into ``out``; none found is an input error that says what to do."""
    paths = shard_receipts(workspace, receipt_path)
    if not paths:
        stored = PurePosixPath(receipt_path)
        where = stored.with_name(f"{stored.stem}.shard-*-of-*{stored.suffix or '.json'}")
        raise InputError(
            f"input 'shard' is merge, but no shard receipt ({where}) is in the workspace: download every shard "
            "job's artifact beside receipt-path before this step"
        )
    return merge_shards(paths, out).receipt
