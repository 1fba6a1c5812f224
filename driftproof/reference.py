"""The receipt a run is drawn against (``--reference``; the default branch's stored receipt in the Action).

The stopping rule settles this run's with-skill arms against the reference's (``driftproof.core.rounds``),
so the run draws more where the merge gate's verdict would still hinge on the spreads. A reference that could
give no verdict against this run is not drawn against: one below TESTED, a smoke run or one with aggregates
only, one whose answers came from another provider, or one graded by another judge (the diff gives those no
per-case verdict anyway). Each such decision is a line printed before the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from driftproof.core.compare import ArmEvidence
from driftproof.core.models import Receipt
from driftproof.core.reading import evidence, no_verdict
from driftproof.errors import ReceiptError
from driftproof.judge import TEMPLATE_SHA256
from driftproof.receipts import load_receipt
from driftproof.suite import Suite

PREFIX = "driftproof: reference: "


@dataclass(frozen=True, slots=True)
class Reference:
    """What a run takes from its reference: the with-skill arm per case id, the seal, and what was said."""

    arms: Mapping[str, ArmEvidence]
    """Empty when the reference is not drawn against."""
    sha256: str | None
    """The reference's seal, when it is drawn against."""
    lines: tuple[str, ...]
    """Printed before the first call."""


NONE = Reference({}, None, ())


def _unusable(ref: Receipt, provider: str, judge_provider: str, judge_model: str | None) -> str | None:
    """Why the diff against ``ref`` could give no verdict, or ``None``."""
    why = no_verdict(ref)
    if why is not None:
        return f"it gives no verdict ({why.reason})"
    if ref.run.lane.provider != provider:
        return f"its answers came from another provider ({ref.run.lane.provider}, this run {provider})"
    judge = ref.judge
    if judge is None or (judge.provider, judge.model_requested) != (judge_provider, judge_model):
        recorded = "no judge" if judge is None else f"{judge.provider}/{judge.model_requested}"
        return f"it was graded by another judge ({recorded}, this run {judge_provider}/{judge_model})"
    if judge.template_sha256 not in (None, TEMPLATE_SHA256):
        return "it was graded with another judge template"
    return None


def load_reference(path: Path) -> Receipt:
    """The receipt ``--reference`` names, read as a reader of a verdict reads it; a file that is not one is one
    `ReceiptError` line that says it came from ``--reference``."""
    try:
        return load_receipt(path, read_restamped_smoke=True)
    except ReceiptError as exc:
        raise ReceiptError(f"--reference: {exc}") from None


def drawing_against(sha256: str, matched: int) -> str:
    """The line of a run drawn against a reference: its seal by 12 digits, how many of the suite's cases it holds.

    >>> drawing_against("ab" * 32, 1), drawing_against("ab" * 32, 3)
    ('driftproof: reference: drawing against abababababab (1 case matches)', \
'driftproof: reference: drawing against abababababab (3 cases match)')
    """
    cases = "1 case matches" if matched == 1 else f"{matched} cases match"
    return f"{PREFIX}drawing against {sha256[:12]} ({cases})"


def reference_for(
    source: Path | Receipt | None, suite: Suite, provider: str, judge_provider: str, judge_model: str | None
) -> Reference:
    """The reference of a run, or `NONE`; a file that is not a valid receipt is a `ReceiptError` (exit 2)."""
    if source is None:
        return NONE
    ref = source if isinstance(source, Receipt) else load_reference(source)
    why = _unusable(ref, provider, judge_provider, judge_model)
    if why is not None:
        return Reference({}, None, (f"{PREFIX}not drawn against: {why}; the run draws as it would without one",))
    by_id = {c.id: evidence(c.with_skill) for c in ref.cases}
    missing = [c.id for c in suite.cases if c.id not in by_id]
    lines = [drawing_against(ref.seal.sha256, len(suite.cases) - len(missing))]
    if missing:
        lines.append(f"{PREFIX}not in the reference, drawn as without one: {', '.join(missing)}")
    arms = {c.id: by_id[c.id] for c in suite.cases if c.id in by_id}
    return Reference(arms, ref.seal.sha256, tuple(lines))
