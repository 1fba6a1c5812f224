"""The sentences of the promptfoo, plugin-eval and nvidia-card importers: reasons, notices, what each source does
not record.

Kept apart from ``core/import_sentences.py`` (the Caliper and skill-creator importers' and the shared ones) so each
stays under the core size cap. Each sentence is written once, here.
"""

from __future__ import annotations

#: The arm labels a promptfoo config gives a prompt or a provider to mark the two arms.
PROMPTFOO_WITH_SKILL = "with_skill"
PROMPTFOO_BASELINE = "baseline"

#: Why a promptfoo results file has no baseline arm and no comparison.
PROMPTFOO_SINGLE_ARM = "no prompt or provider is labelled baseline: one arm, no baseline and no comparison"

PROMPTFOO_UNKNOWN = (
    "judge samples per answer (promptfoo grades each answer once)",
    "the SKILL.md text and its sha256 (the skill is whatever the with_skill prompt or provider holds)",
    "the judge's provider, model and template, for model-graded assertions (only the grading result)",
    "the answering model's reported id (only the provider id the config named)",
    "whether the skill fired (promptfoo observes no such indicator)",
    "cells promptfoo never ran (an interrupted eval writes no results file)",
)

PLUGIN_EVAL_UNKNOWN = (
    "the SKILL.md text and its sha256 (only the plugins' names, versions and paths)",
    "judge samples per run (each grader decides a run once)",
    "the answering model (the result does not name it)",
    "the judge's model and template, for a model-graded grader (only judgeCostUsd)",
    "token usage per run (only costUsd)",
)

#: Why the without arm of a plugin eval has no skill-fired rate.
PLUGIN_NOT_INSTALLED = "plugin not installed (without arm)"

#: Why a plugin eval run with ``--ablation none`` has no baseline arm and no comparison.
PLUGIN_EVAL_SINGLE_ARM = "a plugin eval with ablation none: one arm, no baseline and no comparison"

NVIDIA_UNKNOWN = (
    "every per-run score (the card prints aggregates only: a score and an uplift per dimension and agent)",
    "the uplift's unit (percentage points or per cent of the baseline: the card does not say), so no baseline is "
    "worked out from it",
    "the baseline's own score",
    "the answering models (only the agents' names)",
    "the judge, its model and its template",
    "the SKILL.md text and its sha256",
    "who wrote the card: Driftproof records the files and the commit it read, not their author",
)


def partial_run(why: str) -> str:
    """The suite notice on a run its source marks partial.

    >>> partial_run("partialReason: cost_ceiling")
    'partial run (partialReason: cost_ceiling): runs it never made are lost as not_run'
    """
    return f"partial run ({why}): runs it never made are lost as not_run"


def not_run_partial(reason: str) -> str:
    """A lost draw a partial run never made.

    >>> not_run_partial("cost_ceiling")
    'not_run: partial run (cost_ceiling)'
    """
    return f"not_run: partial run ({reason})"


#: What a plugin eval result marked partial with no ``partialReason`` says.
NO_REASON = "no reason recorded"

#: The error promptfoo writes on each cell it never ran once ``PROMPTFOO_MAX_EVAL_TIME_MS`` ran out.
PROMPTFOO_OUT_OF_TIME = "Evaluation exceeded max duration of"


def errored(error: str) -> str:
    """A lost draw the source recorded an error for.

    >>> errored("  API Error: 529 overloaded ")
    'error: API Error: 529 overloaded'
    """
    return f"error: {error.strip()}"


def no_arm_marker(labels: list[str]) -> str:
    """A promptfoo results file with no prompt or provider labelled with_skill.

    >>> no_arm_marker(["echo", "skilled"]).split("; ")[0]
    "no prompt or provider is labelled 'with_skill' (labels found: 'echo', 'skilled')"
    """
    shown = [repr(x) if len(x) <= 40 else f"{x[:40]!r}…" for x in labels]
    found = ", ".join(shown) or "none"
    return (
        f"no prompt or provider is labelled {PROMPTFOO_WITH_SKILL!r} (labels found: {found}); label the with-skill "
        f"prompt or provider {PROMPTFOO_WITH_SKILL} and the other {PROMPTFOO_BASELINE}"
    )


def marked_twice(label: str) -> str:
    """Both a prompt and a provider, or two of either, carry the same arm label."""
    return f"more than one prompt or provider is labelled {label!r}; one arm is one prompt or one provider"


def unmarked_cell(label: str) -> str:
    """A promptfoo result whose prompt and provider are both unlabelled as an arm."""
    return f"{label!r} is neither {PROMPTFOO_WITH_SKILL} nor {PROMPTFOO_BASELINE}: every result must belong to one arm"


def one_file(kind: str, what: str) -> str:
    """An importer that reads one file given several.

    >>> one_file("promptfoo", "results.json")
    'a promptfoo import reads one file (results.json)'
    """
    return f"a {kind} import reads one file ({what})"
