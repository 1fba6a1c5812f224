"""What every importer shares: the document read, the source record, empty arms, counts and the sealed receipt."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from driftproof.core.economics import sum_usage
from driftproof.core.fields import Fields
from driftproof.core.import_sentences import declared_reason, looks_like
from driftproof.core.models import (
    Arm,
    ArmUsage,
    Case,
    Counts,
    Economics,
    Judge,
    Receipt,
    Run,
    Skill,
    SkillFired,
    Source,
    SourceDocument,
    Suite,
    Tool,
)
from driftproof.core.seal import seal_receipt
from driftproof.core.words import BandSource, ImportKind, Verification


@dataclass(frozen=True, slots=True)
class SourceDoc:
    """One document as the shell read it: its name, the digests of its bytes, and its parsed JSON."""

    name: str
    sha256: str
    data: Any
    git_blob_sha1: str | None = None


@dataclass(frozen=True, slots=True)
class Written:
    """What the shell supplies that an importer may not make itself: the writing tool and the time."""

    tool: Tool
    created_at: str | None


def document(doc: SourceDoc, role: str | None = None, recorded_at: str | None = None) -> SourceDocument:
    """The receipt's record of one document."""
    return SourceDocument(
        name=doc.name, sha256=doc.sha256, role=role, git_blob_sha1=doc.git_blob_sha1, recorded_at=recorded_at
    )


def source(
    harness: str,
    version: str | None,
    documents: Sequence[SourceDocument],
    unknown: Sequence[str],
    *,
    repository: str | None = None,
    commit: str | None = None,
) -> Source:
    """The source record: the harness and version, every document (the first also as ``document``), the unknowns."""
    return Source(
        harness=harness,
        version=version,
        document=documents[0].name,
        document_sha256=documents[0].sha256,
        documents=list(documents),
        repository=repository,
        commit=commit,
        unknown=list(unknown),
    )


def empty_arm(skill_fired: SkillFired | None = None) -> Arm:
    """An arm the source holds no run of (a single run's baseline, a trigger probe, an aggregates-only card)."""
    return Arm(band_source=BandSource.GENERATION, draws=[], skill_fired=skill_fired)


def drawn_counts(cases: Sequence[Case]) -> Counts:
    """Draws per arm over the arms that hold draws; judge samples per draw never (no source here defines them).

    An importer calls this only where its source format defines its runs per arm; an arm with no draws (no such
    arm in the source) is not an arm of zero draws, so it is left out; with none, every count stays unknown.
    """
    drawn = [len(a.draws) for c in cases for a in (c.with_skill, c.baseline) if a.draws]
    if not drawn:
        return Counts()
    return Counts(draws_per_arm_min=min(drawn), draws_per_arm_max=max(drawn))


def declared_receipt(
    written: Written,
    *,
    harness: str,
    run: Run,
    skill: Skill | None,
    suite: Suite,
    judge: Judge | None,
    counts: Counts,
    cases: Sequence[Case],
    source_record: Source,
    source_figures: dict[str, Any] | None = None,
) -> Receipt:
    """The sealed DECLARED receipt at the current schema version; aggregates only when ``source_figures`` is given."""
    generation = ArmUsage(
        with_skill=sum_usage([c.with_skill.usage for c in cases]),
        baseline=sum_usage([c.baseline.usage for c in cases]),
    )
    body = {
        "tool": written.tool,
        "created_at": written.created_at,
        "verification": Verification.DECLARED,
        "verification_reason": declared_reason(harness),
        "uncertainty_unavailable": "aggregates_only" if source_figures is not None else None,
        "run": run,
        "skill": skill,
        "suite": suite,
        "judge": judge,
        "counts": counts,
        "cases": list(cases),
        "economics": Economics(generation=generation),
        "source": source_record,
        "source_figures": source_figures,
    }
    return seal_receipt(body)


def sniff(data: Any) -> ImportKind | None:
    """Which source a parsed document looks like, from its top-level keys; ``None`` when none.

    >>> sniff({"run": {}, "task_results": []}), sniff({"schemaVersion": 1, "cases": [], "claudeVersion": "2"})
    (<ImportKind.CALIPER: 'caliper'>, <ImportKind.PLUGIN_EVAL: 'plugin-eval'>)
    >>> sniff([]) is None
    True
    """
    if not isinstance(data, dict):
        return None
    keys = set(data)
    if {"run", "task_results"} <= keys:
        return ImportKind.CALIPER
    if {"cases", "schemaVersion"} <= keys:
        return ImportKind.PLUGIN_EVAL
    if {"metadata", "runs"} <= keys:
        return ImportKind.SKILL_CREATOR
    if {"skills", "results", "schema_version"} <= keys:
        return ImportKind.NVIDIA_CARD
    results = data.get("results")
    if isinstance(results, dict) and "results" in results:
        return ImportKind.PROMPTFOO
    return None


def top_of(doc: SourceDoc, kind: ImportKind, what: str, required: Sequence[str]) -> Fields:
    """The top level of ``doc`` for ``kind``: a JSON object holding ``required``, or a refusal that names the first
    key missing and, when the document is another source's, which importer reads it."""
    top = Fields.top(doc.name, doc.data, what)
    for key in required:
        if key not in top.data:
            other = sniff(doc.data)
            hint = f"; {looks_like(other)}" if other is not None and other != kind else ""
            raise top.refuse(key, f"missing; {what} holds {', '.join(required)}{hint}")
    return top
