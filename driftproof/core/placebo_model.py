"""The receipt's placebo part: ``placebo`` at the top level, what the third arm was given. Pure.

Split from ``driftproof.core.models`` (which re-exports it) so that module stays under its size cap; the text
itself and the rules that read the third arm are in ``driftproof.core.placebo``.
"""

from __future__ import annotations

from pydantic import Field

from driftproof.core.model_base import Count, Sha256
from driftproof.core.model_base import ReceiptPart as _Model


class PlaceboText(_Model):
    """The neutral text the placebo arm was given in the skill's place (``--placebo``), recorded by hash."""

    sha256: Sha256 = Field(description="SHA-256 of the placebo text, which depends on the skill's tokens alone.")
    tokens: Count
    """ceil(chars / 4), the estimate skill.tokens uses; equal to skill.tokens."""
    chars: Count
    """Length of the placebo text in characters: 4 × tokens."""
    generator: str
    """Id and version of the text's generator (placebo-v1), so a change to it is never read as the same text."""
