"""The receipt's neighbour skills (``skill.neighbours``, since 0.17): what a ``discover`` run installed beside
the skill under test, in every draw of every arm. Pure.

Split from ``driftproof.core.models`` (which re-exports it) so that module stays under its size cap. The baseline
arm contains no skill text but does contain these: ``driftproof stale`` compares them for both arms
(`driftproof.core.stale_conditions`).
"""

from __future__ import annotations

from pydantic import Field

from driftproof.core.model_base import Count, Sha256
from driftproof.core.model_base import ReceiptPart as _Model


class NeighbourSkill(_Model):
    """One neighbour SKILL.md installed beside the skill under test (``--delivery discover``)."""

    name: str
    """The folder name it was installed under (its frontmatter name as a slug), the name draws[].skills_fired
    gives it."""
    path: str
    """Path of the neighbour SKILL.md as the suite declares it, relative to where the run was made."""
    sha256: Sha256 = Field(description="SHA-256 of the neighbour SKILL.md text installed.")
    chars: Count
    """Length of the neighbour SKILL.md in characters."""
