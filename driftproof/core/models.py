"""The receipt: pydantic v2 models of the sealed, schema-versioned JSON document.

Every model is frozen and refuses unknown keys. The JSON Schema in ``schemas/`` is generated from
these models (``driftproof.core.schema``) and a test checks the committed file against them. The
cross-field rules (a lost draw has a reason and no score; a valid judge sample has a score; a preset
receipt is never TESTED) live in the schema, which every write and every read applies; the models
repeat only the receipt-level one, so that 100,000 judge samples load without a Python callback each.
The field descriptions here are the contract in brief; ``docs/receipt-spec.md`` says it in full.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from driftproof.core.words import BandSource, Capture, Delivery, DrawStatus, Surface, Verification

#: The one schema version Driftproof writes. Readers accept every version in ``schemas/``.
SCHEMA_VERSION = "0.15"

#: Every version these models can hold: the current one and the older ones whose fields are a subset.
READABLE_VERSIONS = ("0.13", "0.14", "0.15")

Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="Lower-case hex SHA-256.")]
Score = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, serialize_by_alias=True, use_enum_values=True
    )


class Usage(_Model):
    """Token usage as the provider or CLI reported it, normalised. ``null`` means not reported."""

    input_tokens: Count | None = Field(None, description="Uncached input tokens.")
    output_tokens: Count | None = Field(None, description="Output tokens, reasoning included.")
    cache_read_tokens: Count | None = Field(None, description="Input tokens read from a prompt cache.")
    cache_write_tokens: Count | None = Field(None, description="Input tokens written to a prompt cache.")
    cost_usd: float | None = Field(None, ge=0, description="Cost in USD as the CLI reported it, if it did.")


class CheckResult(_Model):
    """One deterministic post-check on one draw's answer. Never part of a verdict."""

    name: str = Field(description="The check's name in the suite.")
    kind: str = Field(description="regex, contains, not_contains, max_chars, json, conventional_commit, ...")
    passed: bool = Field(alias="pass", description="Whether the answer satisfied the check.")


class CriterionDecision(_Model):
    """The judge's decision on one weighted criterion, in criteria mode."""

    id: str = Field(description="Criterion id from the suite.")
    met: bool = Field(description="Whether the judge said the criterion is met.")
    reason: str = Field(description="The judge's reason; holds at least one letter or digit.")


class JudgeSample(_Model):
    """One score the judge gave one draw. Invalid samples are kept with their evidence, out of the mean."""

    score: Score | None = Field(description="The score in [0, 1]; null when the sample is invalid.")
    valid: bool = Field(description="True when the reply yielded exactly one score in [0, 1].")
    returned: bool | None = Field(
        None,
        description="True when the judge call returned a reply; false when it failed (timeout, error) with none. "
        "Only returned samples are held to the judge identity check. Null in receipts before 0.14.",
    )
    invalid_reason: str | None = Field(None, description="Why the sample is invalid; null when valid.")
    reported_model: str | None = Field(None, description="Model id the judge reply reported, verbatim.")
    serving_id: str | None = Field(None, description="Serving or request id the reply carried.")
    score_text_sha256: Sha256 | None = Field(None, description="SHA-256 of the judge's reply text.")
    usage: Usage | None = Field(None, description="Tokens this judge call reported.")
    criteria: list[CriterionDecision] | None = Field(None, description="Per-criterion decisions.")


class CapturedFileRecord(_Model):
    """A file the agent left in its working directory (``files`` capture)."""

    path: str = Field(description="Path relative to the draw's working directory.")
    size: Count = Field(description="Size in bytes.")
    included: bool = Field(description="Whether its text was shown to the judge.")
    reason: str | None = Field(None, description="Why it was not shown; null when included.")


class SideCall(_Model):
    """A call a harness made on another model beside the answer (Claude Code's own side calls)."""

    model: str = Field(description="The other model's id as the harness reported it.")
    usage: Usage = Field(description="Tokens of that call.")


class HarnessOverhead(_Model):
    """What a CLI harness added beyond the prompt and skill, as the CLI reported it (CLI surface only)."""

    input_tokens_reported: Count | None = Field(None, description="Input tokens the CLI reported, cache in.")
    prompt_tokens_estimate: Count | None = Field(None, description="ceil(chars / 4) of prompt plus skill.")
    overhead_tokens_estimate: Count | None = Field(None, description="Reported input minus the estimate.")
    total_cost_usd: float | None = Field(None, ge=0, description="Cost the CLI reported for the draw.")
    num_turns: Count | None = Field(None, description="Agent turns the CLI reported.")
    duration_ms: Count | None = Field(None, description="Wall time the CLI reported.")
    reasoning_output_tokens: Count | None = Field(None, description="Reasoning tokens (Codex).")


class Draw(_Model):
    """One generated answer in one arm: ``measured`` with a score, or ``lost`` with a reason."""

    index: Count = Field(description="0-based position of the draw in its arm.")
    status: DrawStatus = Field(description="measured or lost.")
    lost_reason: str | None = Field(None, description="Why the draw is lost; null when measured.")
    replaced: bool | None = Field(
        None,
        description="A lost draw whose call failed (no answer or score came back) and that a later measured draw "
        "of the same arm replaced; R-6 leaves it out. False or null: R-6 counts it. Since 0.15.",
    )
    score: Score | None = Field(None, description="Mean of the valid judge samples; null when lost.")
    judge_samples: list[JudgeSample] = Field(default_factory=list, description="In reply order.")
    checks: list[CheckResult] = Field(default_factory=list, description="Post-check results.")
    usage: Usage | None = Field(None, description="Generation tokens of this draw.")
    reported_model: str | None = Field(None, description="Model id the answering reply reported.")
    served_model: str | None = Field(None, description="Server-side model id where it differs in source.")
    model_source: Literal["reported", "configured"] | None = Field(
        None,
        description="Where reported_model came from: the reply itself, or the lane's configuration when the "
        "surface reports no model (Codex). Null in receipts before 0.14.",
    )
    answer_sha256: Sha256 | None = Field(None, description="SHA-256 of the graded answer text.")
    captured_files: list[CapturedFileRecord] | None = Field(None, description="files capture only.")
    skill_fired: bool | None = Field(None, description="discover delivery: did the skill fire. Never scored.")
    side_calls: list[SideCall] | None = Field(None, description="Harness calls on other models.")
    endpoint_attempts: Count | None = Field(None, description="Runner attempts for this draw's answer.")
    harness_overhead: HarnessOverhead | None = Field(None, description="CLI surface: the harness's own tokens.")


class Arm(_Model):
    """One arm of one case: every draw, in order."""

    band_source: BandSource = Field(description="generation (2+ draws) or legacy (one draw, judge band).")
    draws: list[Draw] = Field(description="Every draw, measured and lost.")
    usage: Usage = Field(default_factory=Usage, description="Sum of the draws' generation usage.")


class CriterionSpec(_Model):
    """A weighted criterion as the suite gave it."""

    id: str
    weight: float = Field(gt=0)
    description: str


class Case(_Model):
    """One task of the suite, with both arms."""

    id: str = Field(min_length=1, description="Case id, unique in the suite; diffs match on it.")
    prompt_sha256: Sha256 | None = Field(None, description="SHA-256 of the prompt text.")
    rubric_sha256: Sha256 | None = Field(
        None, description="SHA-256 over prompt, rubric or criteria, and the judge template."
    )
    mode: Literal["rubric", "criteria"] | None = Field(None, description="How the judge grades it.")
    criteria: list[CriterionSpec] | None = Field(None, description="Criteria mode: the criteria.")
    threshold: Score | None = Field(None, description="Pass threshold on the judge scale.")
    notices: list[str] = Field(default_factory=list, description="What this lane did not run, etc.")
    stop_reason: str | None = Field(
        None, description="Why drawing stopped for this case: the stopping rule's last word. Since 0.15."
    )
    with_skill: Arm = Field(description="The arm with SKILL.md supplied.")
    baseline: Arm = Field(description="The arm with no skill text at all.")


class Lane(_Model):
    """Provider x surface, and the models requested and reported."""

    provider: str = Field(description="anthropic, openai, stub, or the source tool of an import.")
    surface: Surface = Field(description="api, cli, or none (stub, import).")
    model_requested: str | None = Field(None, description="The model asked for.")
    models_reported: list[str] = Field(default_factory=list, description="Unique, sorted reported ids.")
    base_url: str | None = Field(None, description="Endpoint base URL when not the vendor default.")


class Harness(_Model):
    """The CLI that answered, with the version its binary printed when the run began."""

    name: str
    version: str | None = None


class RunSettings(_Model):
    """The command-line settings that shape results, as run."""

    draws_min: Count | None = None
    draws_max: Count | None = None
    judge_samples: Count | None = None
    stopping_rule: str | None = Field(None, description="Id of the rule that ended drawing.")
    concurrency: Count | None = None
    timeout_s: float | None = None
    max_retries: Count | None = None
    delivery: Delivery | None = None
    max_consecutive_failures: Count | None = Field(
        None, description="Failed calls in a row after which the run stops with an error."
    )
    reference_sha256: Sha256 | None = Field(
        None,
        description="Seal of the receipt this run was drawn against (--reference): its with-skill arms are what "
        "the stopping rule settled this run's with-skill arms against. Since 0.15.",
    )
    as_reference: bool | None = Field(
        None, description="Drawn to the deeper rule of a stored reference receipt (--as-reference). Since 0.15."
    )


class Run(_Model):
    """What produced the numbers."""

    lane: Lane
    harness: Harness | None = Field(None, description="CLI surface only.")
    capture: Capture | None = Field(None, description="Which answer was graded.")
    preset: str | None = Field(None, description="quick for a smoke run; a preset receipt is never TESTED.")
    settings: RunSettings = Field(default_factory=RunSettings)
    sampling: dict[str, Any] = Field(default_factory=dict, description="Sampling settings actually sent.")
    started_at: str | None = None
    finished_at: str | None = None
    logical_calls: Count | None = Field(None, description="Generation and judge calls, one per call.")
    endpoint_attempts: Count | None = Field(None, description="Runner attempts, retries and timeouts in.")


class Skill(_Model):
    """The SKILL.md measured."""

    path: str
    sha256: Sha256
    chars: Count
    tokens: Count = Field(description="ceil(chars / 4), a coarse estimate.")


class Suite(_Model):
    """The test set."""

    path: str | None = None
    sha256: Sha256 | None = None
    format: str | None = Field(None, description="native, skill-creator, caliper, ...")
    name: str | None = None
    notices: list[str] = Field(
        default_factory=list,
        description="What the run did not run of the suite as written: tasks left out, keys not run on this lane.",
    )


class Judge(_Model):
    """The one fixed judge."""

    provider: str
    surface: Surface
    model_requested: str | None = None
    models_reported: list[str] = Field(default_factory=list, description="Unique, sorted.")
    sampling: dict[str, Any] = Field(default_factory=dict, description="As sent.")
    template_version: str | None = None
    template_sha256: Sha256 | None = None
    grading_code_sha256: Sha256 | None = None
    base_url: str | None = None


class Counts(_Model):
    """What the counts count. Written only where the data establishes them; unknown stays null."""

    draws_per_arm_min: Count | None = None
    draws_per_arm_max: Count | None = None
    judge_samples_per_draw: Count | None = None


class Price(_Model):
    """USD per million tokens, frozen into the receipt."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)
    cache_read_per_mtok: float | None = Field(None, ge=0)
    cache_write_per_mtok: float | None = Field(None, ge=0)
    source: str = Field(description="bundled price table date, or the override file.")


class JudgeOverhead(_Model):
    """What grading cost, kept apart from every figure about the skill. A floor."""

    model: str | None = None
    price: Price | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    judged_draws_counted: Count | None = None
    judged_draws_missing_usage: Count | None = None


class ArmUsage(_Model):
    """Generation usage per arm."""

    with_skill: Usage = Field(default_factory=Usage)
    baseline: Usage = Field(default_factory=Usage)


class Economics(_Model):
    """Tokens and money."""

    generation: ArmUsage = Field(default_factory=ArmUsage)
    judge_overhead: JudgeOverhead = Field(default_factory=JudgeOverhead)


class Transcripts(_Model):
    """The answers archive kept with --keep-transcripts."""

    path: str
    sha256: Sha256


class Tool(_Model):
    """The tool that wrote the receipt."""

    name: str
    version: str


class Source(_Model):
    """For imports: what the receipt was converted from."""

    harness: str | None = None
    version: str | None = None
    document: str | None = None
    document_sha256: Sha256 | None = None
    unknown: list[str] = Field(default_factory=list, description="What the source did not record.")


class Seal(_Model):
    """SHA-256 of the canonical JSON of the receipt without ``seal``."""

    algorithm: Literal["sha256"] = "sha256"
    sha256: Sha256


class Receipt(_Model):
    """A sealed receipt at schema version ``SCHEMA_VERSION``."""

    schema_version: Literal["0.13", "0.14", "0.15"] = Field(
        description="The schema this receipt validates against; written only as SCHEMA_VERSION."
    )
    tool: Tool
    created_at: str | None = Field(None, description="UTC ISO-8601 time the receipt was written.")
    verification: Verification = Field(description="UNVERIFIED, DECLARED or TESTED. FORMAL is refused.")
    verification_reason: str | None = Field(None, description="Why the level is below TESTED.")
    uncertainty_unavailable: Literal["aggregates_only"] | None = None
    run: Run
    skill: Skill | None = None
    suite: Suite
    judge: Judge | None = None
    counts: Counts = Field(default_factory=Counts)
    cases: list[Case]
    economics: Economics = Field(default_factory=Economics)
    transcripts: Transcripts | None = None
    source: Source | None = None
    source_figures: dict[str, Any] | None = None
    seal: Seal

    @model_validator(mode="after")
    def _preset_never_tested(self, info: ValidationInfo) -> Receipt:
        """No code path builds a smoke receipt that reads TESTED. A reader of a verdict may still load one that
        was restamped by hand (``context={READ_RESTAMPED_SMOKE: True}``): it reads it as a smoke run."""
        restamped_ok = bool(info.context and info.context.get(READ_RESTAMPED_SMOKE))
        if self.run.preset is not None and self.verification == Verification.TESTED and not restamped_ok:
            raise ValueError("a receipt that names run.preset cannot read TESTED")
        return self


#: Validation-context key: load a receipt that names a preset and reads TESTED, to read it as a smoke run.
READ_RESTAMPED_SMOKE = "read_restamped_smoke"
