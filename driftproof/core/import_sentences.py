"""Every sentence ``driftproof import`` writes or prints: reasons, notices, what each source does not record.

Kept apart from ``core/sentences.py``, which is at its size cap. Each is written once, here; the importers in
``core/imports/`` and the shell in ``driftproof/importers.py`` read them.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The reason a receipt a regrade or a plan cannot start from: its figures were imported.
NOT_REGRADABLE_DECLARED = "an imported (DECLARED) receipt holds another tool's figures and no answers to grade again"
#: The same for a receipt of aggregates only.
NOT_REGRADABLE_AGGREGATES = "an aggregates-only receipt has no per-run score to grade again or plan draws from"

#: The Caliper ``era`` this Driftproof reads.
CALIPER_ERA = "install-and-discover"

#: Why a Caliper arm with the skill ablated has no skill-fired rate.
SKILL_ABLATED = "skill not installed (ablated)"

#: Why a single Caliper run has no baseline arm and no comparison.
SINGLE_RUN = "a single Caliper run with no --ablate partner: one arm, no baseline and no comparison"

#: What the importer says of a lost draw whose attempt Caliper never ran.
NOT_RUN_INTERRUPTED = "not_run: run interrupted"
NOT_RUN_STOPPED = "not_run: stopped early (--fail-fast or a fatal abort)"

#: A task Caliper would never write: a trigger probe's attempt beside scored ones.
PROBE_AND_CHECKED = "not_checked beside scored outcomes: a task is a trigger probe or it is checked, never both"

#: Trigger probes carry no score.
TRIGGER_ONLY = "trigger-only task (Caliper not_checked): no execution check, so no score; the skill-fired count only"

CALIPER_UNKNOWN = (
    "Caliper's own version (Caliper does not write it into results)",
    "the answering model's provider, and whether run.model was reported or only requested (claude-code reports none)",
    "the spec's text and sha256, its assert, setup, cleanup and history scripts, and the sandbox and MCP configuration",
    "the run's flags (--timeout, --workers, --fail-fast)",
    "judge samples per answer (Caliper records one pass or fail verdict per attempt)",
    "the judge's provider, surface, base URL, sampling, template text and grading code (only judge_prompt_version)",
    "the judge model each verdict reported (only the run-level judge_model, which may name a judge that never ran)",
    "rubric hashes and case thresholds (Caliper's pass is binary)",
    "judge token usage and cost",
    "the agent's sampling settings",
    "each attempt's time and the run's start time (only its finish time)",
    "the graded artefacts and the capture mode (the attempt's working directory is deleted)",
    "usage of an attempt the CLI reported none for (a claude-code timeout spends tokens it never reports)",
    "attempts Caliper's own cancellation dropped",
    "whether the skill file matched git_sha (a path source records HEAD only)",
)


def declared_reason(harness: str) -> str:
    """Why an imported receipt reads DECLARED.

    >>> declared_reason("caliper")
    'imported from caliper: figures another tool produced, recorded faithfully and never given a verdict'
    """
    return f"imported from {harness}: figures another tool produced, recorded faithfully and never given a verdict"


def one_of(values: Sequence[str]) -> str:
    """``one of a, b or c``.

    >>> one_of(["pass", "task_fail", "cheat"])
    'one of pass, task_fail or cheat'
    """
    return f"one of {', '.join(values[:-1])} or {values[-1]}" if len(values) > 1 else values[0]


def differs_from(here: str, other_document: str, there: str) -> str:
    """A pair check that failed: the value in this file and in the other.

    >>> differs_from("5", "full.json", "3")
    '5 here, 3 in full.json: the two runs must share it to be one with/without comparison'
    """
    return f"{here} here, {there} in {other_document}: the two runs must share it to be one with/without comparison"


def legacy_era() -> str:
    """A Caliper run written before install-and-discover."""
    return f"null: a legacy Caliper run (before {CALIPER_ERA}), not comparable with anything written since"


def unknown_era(era: str) -> str:
    """A Caliper run under a loading discipline this Driftproof does not know."""
    return f"{era!r} is not a loading discipline this Driftproof reads (it reads {CALIPER_ERA!r})"


def not_a_pair(both: str) -> str:
    """Two Caliper files that are not a full run and its ablated run."""
    return f"{both} in both files: a pair is a full run and its --ablate <skill> run"


def ablates_not_one_skill(ablated: Sequence[str]) -> str:
    """A baseline that does not remove exactly one skill."""
    return f"{list(ablated)!r}: the baseline must ablate exactly the skill under test, one skill, no mcp: server"


def ablated_alone() -> str:
    """A single Caliper file that is itself an ablated run."""
    return "an --ablate run alone has no with-skill arm; give its full run beside it"


def skill_not_named(names: Sequence[str]) -> str:
    """A single run with several skills installed and no --skill."""
    return f"{len(names)} skills installed ({', '.join(names)}); name the one under test with --skill"


def skill_not_installed(skill: str, names: Sequence[str]) -> str:
    """A skill named (or ablated) that the full run did not install."""
    return f"{skill!r} is not among the skills the full run installed ({', '.join(names) or 'none'})"


def neighbours_differ(expected: Sequence[str], here: Sequence[str]) -> str:
    """A baseline whose neighbourhood is not the full run's minus the skill."""
    return f"{', '.join(here) or 'none'}; expected the full run's skills minus the ablated one: {', '.join(expected)}"


def neighbour_text_changed(name: str, other_document: str) -> str:
    """A neighbour skill whose files differ between the two runs."""
    return (
        f"neighbour {name!r}'s files differ from its files in {other_document}: the neighbours' text must be unchanged"
    )


def not_bare(neighbours: Sequence[str], servers: Sequence[str], customizations: bool) -> str | None:
    """The suite notice that the baseline is not a bare agent, or ``None`` when it is.

    >>> not_bare(["commit-summarizer"], ["notes"], False)
    'the baseline is not a bare agent: it kept neighbour skills commit-summarizer and MCP servers notes'
    >>> not_bare([], [], False) is None
    True
    """
    kept = []
    if neighbours:
        kept.append(f"neighbour skills {', '.join(neighbours)}")
    if servers:
        kept.append(f"MCP servers {', '.join(servers)}")
    if customizations:
        kept.append("the operator's own customizations")
    return f"the baseline is not a bare agent: it kept {' and '.join(kept)}" if kept else None


def only_in(role: str) -> str:
    """A case that only one of the two runs holds."""
    return f"only the {role} run holds this task; the other arm is empty"


def score_disagrees(stored: float, recomputed: float) -> str:
    """A stored Caliper score that its own attempts do not give.

    >>> score_disagrees(0.5, 2 / 3)
    'stored 0.5, but the attempts give 0.6667: the file was changed after Caliper wrote it'
    """
    return f"stored {stored:.4g}, but the attempts give {recomputed:.4g}: the file was changed after Caliper wrote it"


def lost_with(outcome: str, evidence: str | None) -> str:
    """A lost draw's reason: the source's outcome word and its own evidence.

    >>> lost_with("timeout", "timeout"), lost_with("infra_error", "harness exited 1"), lost_with("timeout", None)
    ('timeout', 'infra_error: harness exited 1', 'timeout')
    """
    if not evidence or evidence.strip() == outcome:
        return outcome
    return f"{outcome}: {evidence.strip()}"


def cheat_flag(evidence: Sequence[str]) -> str:
    """The flag on a draw Caliper scored as a cheat.

    >>> cheat_flag(["../fixtures/answer_key.txt"]), cheat_flag([])
    ('cheat: ../fixtures/answer_key.txt', 'cheat')
    """
    return f"cheat: {', '.join(evidence)}" if evidence else "cheat"


def looks_like(kind: str) -> str:
    """A file given to the wrong importer."""
    return f"this looks like a {kind} file; use `driftproof import {kind}`"


def imported_line(harness: str, documents: int, cases: int, lost: int) -> str:
    """What ``driftproof import`` prints first.

    >>> imported_line("caliper", 2, 5, 0)
    'imported caliper: 2 documents, 5 cases, 0 lost draws; DECLARED, no verdict'
    """
    plural = "" if documents == 1 else "s"
    return f"imported {harness}: {documents} document{plural}, {cases} cases, {lost} lost draws; DECLARED, no verdict"


SKILL_CREATOR_UNKNOWN = (
    "skill-creator's own version (benchmark.json does not record it)",
    "the SKILL.md text and its sha256 (only skill_path)",
    "the grader's model, provider and instructions (only analyzer_model, the analyzer's)",
    "judge samples per run (one grading of each run's expectations)",
    "token usage per run (the tokens key holds timing.json's total_tokens, or the output's character count)",
    "each case's prompt (eval_metadata.json is not in benchmark.json)",
    "runs the aggregator skipped for a missing or unreadable grading.json",
    "whether the skill fired (skill-creator observes no such indicator)",
)


def placeholder(key: str) -> str:
    """A skill-creator metadata value still at the aggregator's placeholder."""
    return f"metadata.{key} (the aggregator's placeholder was never filled in)"


def not_with_without(config: str, expected: str) -> str:
    """A skill-creator configuration that is not one arm of a with/without comparison."""
    return f"{config!r} is not an arm of a with/without comparison; expected {expected}"


def no_expectation_graded(errors: int) -> str:
    """A skill-creator run with no graded expectation: lost, not 0.0.

    >>> no_expectation_graded(1)
    'no expectation graded (result.total 0; 1 execution error)'
    """
    return f"no expectation graded (result.total 0; {execution_errors(errors)})"


def execution_errors(errors: int) -> str:
    """The flag on a run that met errors while executing, still graded.

    >>> execution_errors(2), execution_errors(0)
    ('2 execution errors', '0 execution errors')
    """
    return f"{errors} execution error{'' if errors == 1 else 's'}"


IMPORTED_FROM = "imported from"
"""Opens the view's lines on where an import came from."""
PRINTED_FIGURES = "figures as the source printed them (never read as scores):"
"""Heads an aggregates-only import's printed figures in the view."""
