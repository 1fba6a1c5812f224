"""Pay once per merge: the store job promotes the pull request's last receipt instead of drawing again.

On a push to the default branch with the ``promote`` input set, the receipt at that path (the PR job's, handed
over as an artifact: docs/action.md) is read with its seal checked, and asked ``driftproof stale``'s question for
exactly the run the store job would make. When `driftproof.core.carry.promotion_refusal` finds nothing (every
arm stands with no advisory, the suite bytes are the same, it was drawn to the reference rule), it is written at
``receipt-path`` with ``promotion`` recording where it came from, sealed again; otherwise the store job draws.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from driftproof.core import carry_sentences
from driftproof.core.carry import promotion_refusal
from driftproof.core.models import Promotion, Receipt
from driftproof.core.seal import seal_receipt
from driftproof.core.stale import stale
from driftproof.errors import ReceiptError
from driftproof.receipts import load_receipt, write_receipt
from driftproof.run import RunRequest
from driftproof.stale import gather_today

__all__ = ["Promoted", "promote"]

_SHA256 = re.compile(r"\b([0-9a-f]{12})[0-9a-f]{52}\b")


def short_digests(why: str) -> str:
    """``why`` with each sha256 shown by its first 12 digits, as the promote line and the others show one.

    >>> short_digests("seal mismatch: recorded " + "a" * 64 + ", content gives " + "b" * 64)
    'seal mismatch: recorded aaaaaaaaaaaa, content gives bbbbbbbbbbbb'
    """
    return _SHA256.sub(r"\1", why)


class Promoted:
    """The outcome of a promotion attempt: the receipt written, or why not (then the store job draws)."""

    def __init__(self, receipt: Receipt | None, line: str) -> None:
        self.receipt, self.line = receipt, line


def promote(candidate_path: Path, shown: str, request: RunRequest, out: Path, commit: str | None) -> Promoted:
    """Promote the receipt at ``candidate_path`` to ``out`` when it stands for ``request`` (the store run)."""
    if candidate_path.is_dir():
        return Promoted(None, carry_sentences.not_promoted(shown, carry_sentences.PROMOTE_DIRECTORY))
    if not candidate_path.is_file():
        return Promoted(None, carry_sentences.not_promoted(shown, carry_sentences.PROMOTE_MISSING))
    try:
        candidate = load_receipt(candidate_path, read_restamped_smoke=True)
    except ReceiptError as exc:  # a tampered or unreadable receipt is never promoted: the store job draws
        said = str(exc).removeprefix(f"{candidate_path}: ")  # the path is said once, as in the repository
        return Promoted(None, carry_sentences.not_promoted(shown, short_digests(said)))
    why = refusal(candidate, request)
    if why is not None:
        return Promoted(None, carry_sentences.not_promoted(shown, why))
    body = candidate.model_dump(mode="json", by_alias=True, exclude={"seal", "schema_version"})
    body["promotion"] = Promotion(
        original_sha256=candidate.seal.sha256,
        commit=commit,
        source=shown,
        promoted_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    ).model_dump(mode="json")
    promoted = seal_receipt(body)
    write_receipt(promoted, out)
    return Promoted(promoted, carry_sentences.promoted(candidate.seal.sha256[:12], shown))


def refusal(candidate: Receipt, request: RunRequest) -> str | None:
    """Why ``candidate`` does not stand for ``request`` (the store run), in the promotion rule's words
    (`driftproof.core.carry.promotion_refusal`: every arm stands, the same suite bytes, the reference rule), or
    ``None``: the pull request's receipt promoted on a merge, or a skill's stored receipt kept on a push."""
    today = gather_today(request, candidate)
    return promotion_refusal(candidate, stale(candidate, today), today.suite_sha256, today.stopping_rule)
