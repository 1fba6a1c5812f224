"""The receipt: pydantic v2 models of the sealed, schema-versioned JSON document.

Every model is frozen and refuses unknown keys. The JSON Schema in ``schemas/`` is generated from
these models (``driftproof.core.schema``) and a test checks the committed file against them. The
cross-field rules (a lost draw has a reason and no score; a valid judge sample has a score; a preset
receipt is never TESTED) live in the schema, which every write and every read of an older version applies;
the models check the receipt-level one always, and say the draw and sample ones (``holds_schema_rule``) to the
reader that validates a current receipt once, without the schema (`driftproof.read_once`).
Every field has a docstring under it (``use_attribute_docstrings``), which the schema carries as its
description: the contract in brief; ``docs/receipt-spec.md`` says it in full. A bare ``Sha256`` field
would take its type's description over a docstring, so those three say theirs in ``Field(description=...)``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, ValidationInfo, model_validator

from driftproof.core.budget_model import RunBudget as RunBudget
from driftproof.core.canary_models import Canaries as Canaries
from driftproof.core.canary_models import CanaryScore as CanaryScore
from driftproof.core.model_base import Count as Count
from driftproof.core.model_base import ReceiptPart as _Model
from driftproof.core.model_base import Score as Score
from driftproof.core.model_base import Sha256 as Sha256
from driftproof.core.neighbour_model import NeighbourSkill as NeighbourSkill
from driftproof.core.pairwise_models import PairwiseCall as PairwiseCall
from driftproof.core.pairwise_models import PairwiseResult as PairwiseResult
from driftproof.core.pairwise_models import PairwiseSettings as PairwiseSettings
from driftproof.core.pairwise_models import PairwiseSummary as PairwiseSummary
from driftproof.core.placebo_model import PlaceboText as PlaceboText
from driftproof.core.provenance import CarriedDraw as CarriedDraw
from driftproof.core.provenance import Judge as Judge
from driftproof.core.provenance import Promotion as Promotion
from driftproof.core.provenance import Regrade as Regrade
from driftproof.core.provenance import RegradeCalls as RegradeCalls
from driftproof.core.provenance import Source as Source
from driftproof.core.provenance import SourceDocument as SourceDocument
from driftproof.core.provenance import Tool as Tool
from driftproof.core.shard_models import Shard as Shard
from driftproof.core.shard_models import ShardSeal as ShardSeal
from driftproof.core.usage_model import Usage as Usage
from driftproof.core.words import BandSource, Capture, Delivery, DrawStatus, Surface, Verification

#: The one schema version Driftproof writes. Readers accept every version in ``schemas/``.
SCHEMA_VERSION = "0.17"

#: Every version these models can hold: the current one and the older ones whose fields are a subset.
READABLE_VERSIONS = ("0.13", "0.14", "0.15", "0.16", "0.17")


class CheckResult(_Model):
    """One deterministic post-check on one draw's answer. Never part of a verdict."""

    name: str
    """The check's name in the suite."""
    kind: str
    """The kind of check: regex, contains, not_contains, max_chars, json, conventional_commit, ..."""
    passed: bool = Field(alias="pass")
    """Whether the answer satisfied the check."""


class CriterionDecision(_Model):
    """The judge's decision on one weighted criterion, in criteria mode."""

    id: str
    """Criterion id from the suite."""
    met: bool
    """Whether the judge said the criterion is met."""
    reason: str
    """The judge's reason; holds at least one letter or digit."""


class JudgeSample(_Model):
    """One score the judge gave one draw. Invalid samples are kept with their evidence, out of the mean."""

    score: Score | None
    """The score in [0, 1]; null when the sample is invalid."""
    valid: bool
    """True when the reply yielded exactly one score in [0, 1]."""
    returned: bool | None = None
    """True when the judge call returned a reply, which is held to the judge identity check; false when it failed
    (timeout, error) with none, a missing sample out of the mean; null before 0.14."""
    invalid_reason: str | None = None
    """Why the sample is invalid; null when valid."""
    reported_model: str | None = None
    """Model id the judge reply reported, verbatim, dates kept; null when it reported none."""
    reported_ids: list[str] | None = None
    """Every model id the judge reply reported, verbatim (dates kept), in the reply's order, each once; empty for
    an anonymous reply; null before 0.16."""
    serving_id: str | None = None
    """From 0.16, the model id the reply names as the one that served it; null when it names none. Before 0.16
    it held the request id."""
    request_id: str | None = None
    """The provider's request id the reply carried (the request-id or x-request-id header); null when none."""
    evidence_refused: str | None = None
    """Why the reply's identity evidence was not kept (over its bounds: then reported_ids is empty and the sample
    fails the identity check); null when kept."""
    score_text_sha256: Sha256 | None = None
    """SHA-256 of the judge's reply text the score was read from; null when no text came back."""
    usage: Usage | None = None
    """Tokens this judge call reported; null when it reported none, and on every sample but the first of a request
    that returned several (request_samples), whose usage the first carries for all of them."""
    request_samples: Count | None = None
    """From 0.16, how many judge samples the one request that returned this sample returned (Chat Completions n),
    the request id and reported model shared by them; null when its request returned it alone."""
    criteria: list[CriterionDecision] | None = None
    """In criteria mode, the decision on each criterion in suite order; null in rubric mode or when invalid."""

    def holds_schema_rule(self) -> bool:
        """The schema's rule for a sample: a score exactly when valid (asked by the read once of a current
        receipt, `driftproof.read_once`, which reads without the schema)."""
        return (self.score is not None) == self.valid


class CapturedFileRecord(_Model):
    """A file the agent left in its working directory (``files`` capture)."""

    path: str
    """Path relative to the draw's working directory."""
    size: Count
    """Size in bytes."""
    included: bool
    """Whether its text was shown to the judge."""
    reason: str | None = None
    """Why it was not shown; null when included."""


class SideCall(_Model):
    """A call a harness made on another model beside the answer (Claude Code's own side calls)."""

    model: str
    """The other model's id as the harness reported it."""
    usage: Usage
    """Tokens of that call."""


class HarnessOverhead(_Model):
    """What a CLI harness added beyond the prompt and skill, as the CLI reported it (CLI surface only)."""

    input_tokens_reported: Count | None = None
    """Input tokens the CLI reported for the draw, cache in; null when it reported none."""
    prompt_tokens_estimate: Count | None = None
    """ceil(chars / 4) of the prompt plus the skill text sent; null when not recorded."""
    overhead_tokens_estimate: Count | None = None
    """Reported input minus the estimate, floored at 0; null when no input was reported."""
    total_cost_usd: float | None = Field(None, ge=0)
    """Cost in USD the CLI reported for the draw (Claude Code); null when it reported none."""
    num_turns: Count | None = None
    """Agent turns the CLI reported (Claude Code); null when it reported none."""
    duration_ms: Count | None = None
    """Wall time in milliseconds the CLI reported (Claude Code); null when it reported none."""
    reasoning_output_tokens: Count | None = None
    """Reasoning tokens inside the output the CLI reported (Codex); null when it reported none."""


class Draw(_Model):
    """One generated answer in one arm: ``measured`` with a score, or ``lost`` with a reason."""

    index: Count
    """0-based position of the draw in its arm."""
    status: DrawStatus
    """measured (it has a score) or lost (it has none; lost_reason says why)."""
    lost_reason: str | None = None
    """Why the draw is lost; null when measured."""
    replaced: bool | None = None
    """True on a lost draw whose call failed (no answer or score came back) and that a later measured draw of the
    same arm replaced, so R-6 leaves it out; false or null when R-6 counts it (null before 0.15)."""
    score: Score | None = None
    """Mean of the valid judge samples, on the judge scale [0, 1]; null when lost."""
    judge_samples: list[JudgeSample] = Field(default_factory=list)
    """Every judge sample, valid and invalid, in reply order; empty for a draw lost before judging."""
    checks: list[CheckResult] = Field(default_factory=list)
    """Post-check results on the answer, never scored; empty when none ran."""
    usage: Usage | None = None
    """Generation tokens of this draw (the answer, not its judging); null when not reported, and on every draw but
    the first of a request that returned several (request_draws), whose usage the first carries for all of them."""
    reported_model: str | None = None
    """Model id the answering reply reported, verbatim (see model_source); null when none is known."""
    served_model: str | None = None
    """Server-side model id where the surface reports one apart from reported_model; else null."""
    model_source: Literal["reported", "configured"] | None = None
    """Where reported_model came from: reported (the reply named it) or configured (the lane's own id, where the
    surface reports no model: Codex); null before 0.14 and for a draw with no model id."""
    answer_sha256: Sha256 | None = None
    """SHA-256 of the graded answer text; null when no answer was graded."""
    captured_files: list[CapturedFileRecord] | None = None
    """With files capture, every file the agent left in its working directory; null otherwise."""
    skill_fired: bool | None = None
    """With discover delivery, whether the skill fired, never scored; null otherwise."""
    skills_fired: list[str] | None = None
    """With discover delivery, every installed skill (the one under test and the suite's neighbours, by folder
    name) the transcript shows firing in this draw, in the order they were installed; never scored; null where
    no skill was installed or before 0.17. Since 0.17."""
    side_calls: list[SideCall] | None = None
    """Harness calls on other models beside the answer; null when none were reported."""
    endpoint_attempts: Count | None = None
    """Runner attempts for this draw's answer, retries and timeouts in; 0 on every draw but the first of a request
    that returned several (request_draws), whose attempts the first carries; null when not recorded."""
    request_draws: Count | None = None
    """From 0.17, how many draws of its arm the one request that returned this draw's answer returned (Chat
    Completions n: independent samples of the same prompt, as separate requests are), the request id and reported
    model shared by them; null when its request returned it alone. Since 0.17."""
    harness_overhead: HarnessOverhead | None = None
    """The tokens, turns and cost the CLI harness reported beyond the prompt and skill; null off the CLI surface."""
    source_outcome: str | None = None
    """For imports, the source's own word for this draw's outcome, verbatim (Caliper: pass, task_fail, cheat, timeout,
    infra_error, judge_error, or not_run for an attempt it never ran); null for a draw measured here. Since 0.16."""
    flagged: str | None = None
    """For imports, why the source flagged this draw while still scoring it (Caliper's cheat, with the forbidden
    paths it named), kept beside the score and never inside it; null when unflagged. Since 0.16."""
    carried_from: Sha256 | None = Field(
        None,
        description="The seal of the receipt this baseline draw was carried from (its arm stood for this run, "
        "so it was reused instead of drawn: every other field is as that receipt recorded it); null for a draw "
        "this run made. Since 0.16.",
    )

    def holds_schema_rule(self) -> bool:
        """The schema's rule for a draw: measured with a score and no reason, or lost with a reason and no score
        (asked by the read once of a current receipt, `driftproof.read_once`, which reads without the schema)."""
        if self.status == DrawStatus.LOST:
            return self.score is None and bool(self.lost_reason)
        return self.score is not None and self.lost_reason is None


class SkillFired(_Model):
    """How often the skill fired in one arm, as the source observed it: beside the score, never inside it."""

    fired: Count | None = None
    """Runs of the arm in which the skill fired; null when not applicable (the skill was not installed)."""
    observed: Count
    """Runs of the arm in which firing could be observed: those with no recorded error."""
    not_applicable: str | None = None
    """Why no rate applies to this arm (the skill was not installed: ablated); null when one applies."""


class Arm(_Model):
    """One arm of one case: every draw, in order."""

    band_source: BandSource
    """generation (2+ draws) or legacy (one draw, judge band)."""
    draws: list[Draw]
    """Every draw, measured and lost, in index order."""
    usage: Usage = Field(default_factory=Usage)
    """Sum of the draws' generation usage, field by field; a field is null when no draw reported it."""
    skill_fired: SkillFired | None = None
    """For imports whose source observed the skill firing, how often it fired in this arm, runs with no score
    (trigger-only tasks) included; null otherwise (a run here records skill_fired per draw). Since 0.16."""


class CriterionSpec(_Model):
    """A weighted criterion as the suite gave it."""

    id: str
    """The criterion's id in the suite."""
    weight: float = Field(gt=0)
    """Its weight, a positive number: a sample's score is the weight of the criteria met over the total weight."""
    description: str
    """The criterion's text, which the judge decides is met or not."""


class Case(_Model):
    """One task of the suite, with both arms."""

    id: str = Field(min_length=1)
    """Case id, unique in the suite; diffs match on it."""
    prompt_sha256: Sha256 | None = None
    """SHA-256 of the prompt text; null when not recorded."""
    rubric_sha256: Sha256 | None = None
    """SHA-256 over prompt, rubric or criteria, and the judge template; null when not recorded."""
    mode: Literal["rubric", "criteria"] | None = None
    """How the judge grades it: one rubric, or criteria decided one by one; null when not recorded."""
    criteria: list[CriterionSpec] | None = None
    """Criteria mode: the criteria as the suite gave them; null in rubric mode."""
    threshold: Score | None = None
    """Pass threshold on the judge scale [0, 1]; null when the suite set none (then no outcome)."""
    notices: list[str] = Field(default_factory=list)
    """Plain-language notes on the case for this run, such as a check this lane could not run; empty when none."""
    stop_reason: str | None = None
    """Why drawing stopped for this case, the stopping rule's last word; null before 0.15 or if no run drew it."""
    with_skill: Arm
    """The arm with SKILL.md supplied."""
    baseline: Arm
    """The arm with no skill text at all."""
    placebo: Arm | None = None
    """With --placebo, the arm given neutral text of the skill's token length in its place, delivered the same way
    (the receipt's placebo says which text); null for a run without it. Since 0.17."""
    pairwise: list[PairwiseResult] | None = None
    """With --judge-mode pairwise, each draw pair (with-skill draw i, baseline draw i, both answered) judged side by
    side twice, positions swapped, in draw order; never read by the band rule. Null otherwise. Since 0.17."""
    pairwise_summary: PairwiseSummary | None = None
    """With --judge-mode pairwise, this case's pairwise figures (preference and position-bias rates); null
    otherwise. Since 0.17."""


class Lane(_Model):
    """Provider x surface, and the models requested and reported."""

    provider: str
    """anthropic, openai, stub, or the source tool of an import."""
    surface: Surface
    """api, cli, or none (stub, import)."""
    model_requested: str | None = None
    """The model asked for (the lane's default when none was given); null when not recorded."""
    models_reported: list[str] = Field(default_factory=list)
    """Unique, sorted ids the answering replies reported; empty when none did."""
    base_url: str | None = None
    """Endpoint base URL when not the vendor default; null for the vendor default."""


class Harness(_Model):
    """The CLI that answered, with the version its binary printed when the run began."""

    name: str
    """The harness that answered: claude-code or codex."""
    version: str | None = None
    """The version its binary printed at the start of the run, never one a user typed; null when it printed none."""


class RunSettings(_Model):
    """The command-line settings that shape results, as run."""

    draws_min: Count | None = None
    """The fewest draws per arm the run was set to make; null when not recorded."""
    draws_max: Count | None = None
    """The most draws per arm the stopping rule was allowed to make; null when not recorded."""
    judge_samples: Count | None = None
    """Judge samples requested per draw; null when not recorded."""
    stopping_rule: str | None = None
    """Id and parameters of the rule that ended drawing, settle-v2(...); null when not recorded."""
    concurrency: Count | None = None
    """The most calls in flight at once; null when not recorded."""
    timeout_s: float | None = None
    """Seconds one endpoint attempt may take (API: the whole attempt; CLI: one harness run); null for the stub."""
    max_retries: Count | None = None
    """Retries allowed per call after its first attempt (API surface); null on the CLI surface and the stub."""
    delivery: Delivery | None = None
    """How the skill reached the model: system_prompt, or discover (draws record skill_fired); null if not recorded."""
    max_consecutive_failures: Count | None = None
    """Failed calls in a row after which the run stops with an error (0: never); null before 0.14."""
    reference_sha256: Sha256 | None = None
    """Seal of the receipt this run was drawn against (--reference), whose with-skill arms the stopping rule
    settled this run's with-skill arms against; null when there was none (and before 0.15)."""
    as_reference: bool | None = None
    """True when drawn to the deeper rule of a reference receipt (--as-reference), else false; null before 0.15."""
    budget: RunBudget | None = None
    """The budget the run was given (--budget, --budget-usd) and what it committed to; null when it had none."""


class Run(_Model):
    """What produced the numbers."""

    lane: Lane
    """The lane that generated the answers: provider and surface, the model asked for and the ids reported."""
    harness: Harness | None = None
    """The CLI harness that answered; null off the CLI surface."""
    capture: Capture | None = None
    """Which answer was graded: text (the reply) or files (the reply plus the agent's files); null when not recorded."""
    preset: str | None = None
    """The preset the run used, quick for a smoke run (never TESTED); null when it used none."""
    settings: RunSettings = Field(default_factory=RunSettings)
    """The settings that shape results (draws, judge samples, stopping rule, retries, delivery), as run."""
    sampling: dict[str, Any] = Field(default_factory=dict)
    """Sampling settings actually sent, keyed as sent; empty when none was sent."""
    started_at: str | None = None
    """UTC ISO-8601 time the run began; null when not recorded."""
    finished_at: str | None = None
    """UTC ISO-8601 time the run ended; null when not recorded."""
    logical_calls: Count | None = None
    """Generation and judge calls over the run, each counted once however many attempts; null when not recorded."""
    endpoint_attempts: Count | None = None
    """Runner attempts over the run, retries and timeouts in (0 on the stub); null when not recorded."""
    shard: Shard | None = None
    """On a shard receipt (--shard INDEX/COUNT), which part of the suite it ran; readers give it no suite-level
    verdict. Null for a whole-suite run and a merged receipt. Since 0.16."""
    batch_ids: list[str] | None = None
    """With --batch, the provider batch ids the run's answers and judge calls went through, in the order they
    were submitted (a resumed run's included); null for a run that sent each call on its own. Since 0.16."""


class Skill(_Model):
    """The SKILL.md measured."""

    path: str
    """Path of the SKILL.md measured, relative to the repository where it was run."""
    sha256: Sha256 = Field(description="SHA-256 of the SKILL.md text measured.")
    chars: Count
    """Length of the SKILL.md in characters."""
    tokens: Count
    """ceil(chars / 4), a coarse estimate."""
    installed_as: str | None = None
    """With discover delivery, the folder name the skill was installed under (its frontmatter name as a slug),
    the name draws[].skills_fired gives it; null otherwise and before 0.17. Since 0.17."""
    neighbours: list[NeighbourSkill] | None = None
    """With discover delivery, the neighbour skills installed beside it in every draw of both arms (empty when the
    suite declares none); null otherwise, and in receipts written before it was recorded. Since 0.17."""


class Suite(_Model):
    """The test set."""

    path: str | None = None
    """Path of the suite file or directory; null when not recorded."""
    sha256: Sha256 | None = None
    """SHA-256 of the suite file's bytes; null when not recorded."""
    format: str | None = None
    """The suite's format: native, skill-creator, caliper, ...; null when not recorded."""
    name: str | None = None
    """The suite's own name; null when it gives none."""
    notices: list[str] = Field(default_factory=list)
    """What the run did not run of the suite as written (tasks left out, keys this lane cannot run); empty if none."""


class Counts(_Model):
    """What the counts count. Written only where the data establishes them; unknown stays null."""

    draws_per_arm_min: Count | None = None
    """The fewest draws made (measured, lost or replaced) in any arm; null when unknown, never 1."""
    draws_per_arm_max: Count | None = None
    """The most draws made (measured, lost or replaced) in any arm; null when unknown, never 1."""
    judge_samples_per_draw: Count | None = None
    """Judge samples requested for each draw, when the same for every draw; null when unknown, never 1."""


class Price(_Model):
    """USD per million tokens, frozen into the receipt."""

    input_per_mtok: float = Field(ge=0)
    """USD per million input tokens."""
    output_per_mtok: float = Field(ge=0)
    """USD per million output tokens."""
    cache_read_per_mtok: float | None = Field(None, ge=0)
    """USD per million cache-read tokens; null when the table gives none (they are priced at the input rate)."""
    cache_write_per_mtok: float | None = Field(None, ge=0)
    """USD per million cache-write tokens; null when the table gives none (they are priced at the input rate)."""
    source: str
    """Where the price came from (the dated bundled price table or the --price-table file) and the entry matched."""


class CanaryOverhead(_Model):
    """What re-judging the judge-anchor canaries cost: never mixed into the case arms' figures."""

    usage: Usage = Field(default_factory=Usage)
    """Usage the canaries' judge samples reported, summed; retried attempts are not in it."""
    cost_usd: float | None = None
    """usage priced at the judge's list price (never batched, with --batch too), in USD; null without a price."""
    judge_calls: Count = 0
    """Logical judge calls made for the canaries (one per judge sample)."""


class JudgeOverhead(_Model):
    """What grading cost, kept apart from every figure about the skill. A floor."""

    model: str | None = None
    """The judge model the price applies to; null when not recorded."""
    price: Price | None = None
    """The judge's price for the draws' judge samples (with --batch the batch price), frozen at run time; null when
    the price table has no entry for the judge model."""
    usage: Usage = Field(default_factory=Usage)
    """Usage the answered judge samples reported, each judged draw once; retried attempts are not in it."""
    cost_usd: float | None = None
    """usage in USD at price (the pairwise calls, never batched, at the judge's list price); null without a price."""
    judged_draws_counted: Count | None = None
    """Judged draws whose samples reported usage, the draws usage counts; null when not recorded."""
    judged_draws_missing_usage: Count | None = None
    """Judged draws whose samples reported no usage to count; null when not recorded."""
    canaries: CanaryOverhead | None = None
    """What re-judging the canaries cost, apart from usage above (which counts the case arms' draws only); null
    when the run judged no canaries. Since 0.17."""
    pairwise_usage: Usage | None = None
    """With --judge-mode pairwise, the usage the pairwise calls reported, included in usage and cost_usd; null
    otherwise. Since 0.17."""
    pairwise_calls: Count | None = None
    """With --judge-mode pairwise, the pairwise judge calls made (two per draw pair); null otherwise. Since 0.17."""


class ArmUsage(_Model):
    """Generation usage per arm."""

    with_skill: Usage = Field(default_factory=Usage)
    """Generation usage of every with_skill draw, summed over the cases."""
    baseline: Usage = Field(default_factory=Usage)
    """Generation usage of every baseline draw, summed over the cases."""
    placebo: Usage | None = None
    """With --placebo, generation usage of every placebo draw, summed over the cases; null without it. Since 0.17."""


class Economics(_Model):
    """Tokens and money."""

    generation: ArmUsage = Field(default_factory=ArmUsage)
    """Generation usage per arm, summed over the cases."""
    judge_overhead: JudgeOverhead = Field(default_factory=JudgeOverhead)
    """What grading cost, kept apart from every figure about the skill."""


class Transcripts(_Model):
    """The answers archive kept with --keep-transcripts."""

    path: str
    """File name of the answers archive (<receipt stem>.answers.jsonl), relative to the receipt."""
    sha256: Sha256 = Field(description="SHA-256 of the answers archive's bytes.")


class Seal(_Model):
    """SHA-256 of the canonical JSON of the receipt without ``seal``."""

    algorithm: Literal["sha256"] = "sha256"
    """The seal's hash algorithm; only sha256 exists."""
    sha256: Sha256 = Field(description="SHA-256 of the canonical JSON of the receipt without its seal key.")


class Receipt(_Model):
    """A sealed receipt at schema version ``SCHEMA_VERSION``."""

    schema_version: Literal["0.13", "0.14", "0.15", "0.16", "0.17"]
    """The schema this receipt validates against; written only as SCHEMA_VERSION."""
    tool: Tool
    """The program that wrote the receipt."""
    created_at: str | None = None
    """UTC ISO-8601 time the receipt was written; null when not recorded."""
    verification: Verification
    """The verification level: UNVERIFIED, DECLARED or TESTED (FORMAL is never written, refused on read)."""
    verification_reason: str | None = None
    """Why the level is below TESTED; null at TESTED."""
    uncertainty_unavailable: Literal["aggregates_only"] | None = None
    """aggregates_only on an import whose source printed no per-run score (no verdict, band or lift); else null."""
    run: Run
    """What produced the numbers: lane, harness, capture mode, preset, settings and call counts."""
    skill: Skill | None = None
    """The SKILL.md measured; null when the receipt has no skill file (some imports), and then no lift per 1k."""
    suite: Suite
    """The test set the cases came from."""
    judge: Judge | None = None
    """The one fixed judge; null when no judge ran here (an import that records none)."""
    counts: Counts = Field(default_factory=Counts)
    """Draws per arm and judge samples per draw, each only where the data establishes it."""
    cases: list[Case]
    """Every case, in suite order; case ids are unique within a receipt."""
    economics: Economics = Field(default_factory=Economics)
    """Generation tokens per arm, and the judge's overhead held apart from every figure about the skill."""
    transcripts: Transcripts | None = None
    """The answers archive (--keep-transcripts); null when the run kept none."""
    regrade: Regrade | None = None
    """Written by driftproof regrade: the original, the answers and tasks it read, what it graded and carried,
    the calls it made; null for a receipt a run wrote."""
    source: Source | None = None
    """For imports, what the receipt was converted from; null for a receipt Driftproof measured."""
    promotion: Promotion | None = None
    """Written by the Action's store job when it promotes the pull request's last receipt instead of drawing
    again: where the draws came from; null for a receipt a run wrote. Since 0.16."""
    source_figures: dict[str, Any] | None = None
    """For aggregates-only imports, the figures as the source printed them, never read as scores; else null."""
    placebo: PlaceboText | None = None
    """With --placebo, the neutral text the placebo arm was given (by hash, tokens and chars, the same for every
    skill of the same token estimate); null for a run without it. Since 0.17."""
    shards: list[ShardSeal] | None = None
    """Written by driftproof merge: each shard receipt merged, by index, with its seal and level; null otherwise.
    Since 0.16."""
    canaries: Canaries | None = None
    """The judge-anchor canaries re-judged in this run and whether the judge drifted on them; null when the run
    judged none (--no-canaries, or a receipt written before 0.17). Since 0.17."""
    pairwise_summary: PairwiseSummary | None = None
    """With --judge-mode pairwise, the pairwise figures over every case, shown beside the absolute scores and
    never in a verdict, status or gate; null otherwise. Since 0.17."""
    seal: Seal
    """SHA-256 of the canonical JSON of the receipt without its seal key."""

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
