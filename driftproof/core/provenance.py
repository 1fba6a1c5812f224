"""Who graded and where a receipt came from: the judge, the tool, a regrade's record, an import's sources. Pure.

Part of the receipt models (``driftproof.core.models`` re-exports every one); kept apart so each module stays
small.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from driftproof.core.model_base import Count, Sha256
from driftproof.core.model_base import ReceiptPart as _Model
from driftproof.core.pairwise_models import PairwiseSettings
from driftproof.core.words import ArmName, Surface


class Judge(_Model):
    """The one fixed judge."""

    provider: str
    """The judge's provider: anthropic, openai or stub."""
    surface: Surface
    """The judge's surface: api, cli, or none (stub)."""
    model_requested: str | None = None
    """The judge model asked for; null when not recorded."""
    models_reported: list[str] = Field(default_factory=list)
    """Unique, sorted ids the judge replies reported; empty when none did."""
    sampling: dict[str, Any] = Field(default_factory=dict)
    """Sampling settings sent to the judge, as sent; empty when none was sent."""
    template_version: str | None = None
    """Version label of the judge prompt template (judge-v1); null when not recorded."""
    template_sha256: Sha256 | None = None
    """SHA-256 over the judge template's version, both templates and the criterion line; null when not recorded."""
    grading_code_sha256: Sha256 | None = None
    """SHA-256 of the code on the grading path (template, parsing, identity check); null when not recorded."""
    base_url: str | None = None
    """The judge endpoint's base URL when not the vendor default; null for the vendor default."""
    tool_version: str | None = None
    """The client the judge was called through and its version (the SDK package, or the stub); null before 0.16."""
    isolation: str | None = None
    """How each judge call was kept apart from the machine it ran on, in words; null before 0.16."""
    routing: dict[str, str] | None = None
    """The routing settings the judge's calls were handed (proxy variables, credentials removed); null before
    0.16, empty when none was set."""
    pairwise: PairwiseSettings | None = None
    """With --judge-mode pairwise, the pairwise template the side-by-side calls used (version and sha256); null
    for absolute judging alone. Since 0.17."""


class Tool(_Model):
    """The tool that wrote the receipt."""

    name: str
    """Name of the program that wrote the receipt: driftproof for this implementation."""
    version: str
    """That program's version string."""


class CarriedDraw(_Model):
    """A draw a regrade could not grade, copied from the original and named: it counts in no figure."""

    case: str
    """The case id."""
    arm: ArmName
    """with_skill or baseline."""
    index: Count
    """The draw's index in its arm."""
    reason: str
    """Why it was not graded: lost in the original (its reason), or its answer is missing from the archive."""


class RegradeCalls(_Model):
    """The calls a regrade made: logical judge calls apart from the runner's attempts."""

    judge_calls: Count
    """Logical judge calls: one per judge sample asked for."""
    endpoint_attempts: Count
    """Runner attempts those calls took (API requests), retries and timeouts in; 0 on the stub, which makes none."""


class Regrade(_Model):
    """What a regrade read and did: written by ``driftproof regrade``, sealed with the rest of its receipt."""

    kind: Literal["rubric", "judge"]
    """rubric (revised rubric or criteria, --suite REVISED) or judge (a plain judge regrade: same rubric, fresh
    judge samples)."""
    original_sha256: Sha256 | None = Field(
        description="The seal of the original receipt whose answers were graded again; null in a receipt driftproof "
        "merge wrote of regraded shards, where each shard receipt (named by seal in shards) records its own."
    )
    original_tool: Tool
    """The program and version that wrote the original receipt (the runner that drew the answers)."""
    answers_sha256: Sha256 | None = Field(
        description="SHA-256 of the answers archive read (the original's kept answers); null in a merged receipt "
        "of regraded shards, as original_sha256."
    )
    suite_sha256: Sha256 = Field(
        description="SHA-256 of the tasks graded against: the revised suite, or the original's own (judge regrade)."
    )
    original_judge: Judge
    """The original's grader as its receipt recorded it; this receipt's judge is held to it."""
    graded: Count
    """Answers that reached the grader."""
    carried: list[CarriedDraw] = Field(default_factory=list)
    """Every draw copied from the original without grading, each named with its reason; empty when none."""
    calls: RegradeCalls
    """The calls the regrade made."""


class SourceDocument(_Model):
    """One document an import was converted from."""

    name: str
    """The document as it was given to the import (its path), or its path in the source repository."""
    sha256: Sha256 = Field(description="SHA-256 of the document's bytes as read.")
    role: str | None = None
    """What the document is to the receipt (with_skill run, baseline run, card, index); null when it is the only one."""
    git_blob_sha1: str | None = Field(None, pattern=r"^[0-9a-f]{40}$")
    """Git's blob sha1 of the same bytes, for a document read at a commit of a repository; null otherwise."""
    recorded_at: str | None = None
    """The time the document itself records for its run, verbatim (Caliper: when the run finished); null if none."""


class Source(_Model):
    """For imports: what the receipt was converted from."""

    harness: str | None = None
    """The tool that produced the original results; null when not recorded."""
    version: str | None = None
    """That tool's version; null when the source did not record it."""
    document: str | None = None
    """The document the receipt was converted from (path or name), the first of documents since 0.16; null when not
    recorded."""
    document_sha256: Sha256 | None = None
    """SHA-256 of that document; null when not recorded."""
    documents: list[SourceDocument] = Field(default_factory=list)
    """Every document the receipt was converted from, each with its sha256, in the order read; empty before 0.16."""
    repository: str | None = None
    """The repository the documents were read from, for an import read at a commit; null otherwise. Since 0.16."""
    commit: str | None = None
    """The commit of that repository the documents were read at; null otherwise. Since 0.16."""
    unknown: list[str] = Field(default_factory=list)
    """What the source did not record, each left unknown rather than given a default; empty when none."""


class Promotion(_Model):
    """Where a promoted receipt came from: the pull request's last receipt, checked and sealed again on merge."""

    original_sha256: Sha256 = Field(description="The seal of the pull request's receipt that was promoted.")
    commit: str | None = None
    """The commit the store job promoted it at (GITHUB_SHA, the merge commit); null when not known."""
    source: str
    """Where the store job read it (the promote input's path), verbatim."""
    promoted_at: str
    """UTC ISO-8601 time of the promotion."""
