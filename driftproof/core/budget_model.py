"""The budget a run was given and what it committed to: ``run.settings.budget`` of the receipt. Pure.

Part of the receipt models (``driftproof.core.models`` re-exports it); kept apart so ``core/models.py`` stays
under its size cap.
"""

from __future__ import annotations

from pydantic import Field

from driftproof.core.model_base import Count
from driftproof.core.model_base import ReceiptPart as _Model


class RunBudget(_Model):
    """``--budget TOKENS`` or ``--budget-usd``: no call was started that could take the run past it, counting
    each started call at its worst case (its prompt estimate, ceil(chars / 4), plus its output ceiling) and each
    call that came back at the usage the provider reported where that is more. The estimate is not an upper bound
    on a prompt's tokens, so the calls under way can still take the run past it: committed_tokens then says so."""

    tokens: Count | None = None
    """The token budget given (--budget); null when none was."""
    usd: float | None = Field(default=None, ge=0)
    """The dollar budget given (--budget-usd), at the recorded prices; null when none was."""
    max_tokens: Count
    """The output ceiling of each answer (--max-tokens), which the worst case of every call counts."""
    committed_tokens: Count
    """Tokens of the worst cases of every draw the run started (its answer, its judge samples and, with
    --judge-mode pairwise, a with-skill draw's pair of side-by-side calls) and of the canaries' judge calls; or,
    when the provider reported more, the usage it reported for the calls that came back with the worst cases of the
    rest. Above tokens only when the provider's count took the run past the budget."""
    committed_usd: float | None = None
    """The same in USD at the answering model's and the judge's prices; null without both prices."""
    canaries_tokens: Count | None = None
    """Of committed_tokens, the worst case of the judge-anchor canaries' judge calls (each judge sample its prompt
    plus the judge's output ceiling), reserved before they were judged; null when the run judged none. Since 0.17."""
    stopped_cases: Count = 0
    """Cases the budget stopped (their stop_reason: "stopped at the token budget"); each reads underpowered."""
    needed_tokens: Count | None = None
    """When a case was stopped: the committed tokens plus the worst cases of the draws the budget refused, the
    least budget the draws asked for would have needed; null when none was refused."""
    needed_usd: float | None = None
    """The same in USD; null without both prices or when none was refused."""
