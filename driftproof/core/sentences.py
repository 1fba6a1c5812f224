"""Every sentence a user reads (and greps for): the reports, the terminal, the badge and the Action's log. Pure.

These strings are a public interface: change none of them. Each is written here once, as a constant or a small
function of parts its caller has already formatted (a report escapes a receipt's strings with ``md`` or ``code``,
the terminal keeps them printable). Every constant and function here is a global of the templates' Jinja
environment (``driftproof.render``); what stays in a template is layout: headers, section titles, labels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from driftproof.core.words import EFFECT_FLOOR, BandSource, CaseVerdict, Status

#: The effect floor F (R-3) as every sentence writes it: ``0.05``, from its one constant.
FLOOR = f"{EFFECT_FLOOR:g}"
#: What a call asks (R-2, R-3), as the comparison report heads its separated cases.
SEPARATED_RULE = f"bands apart and |Δ| ≥ {FLOOR}"


def n_cases(n: int) -> str:
    """``1 case``, ``3 cases``.

    >>> n_cases(1), n_cases(3)
    ('1 case', '3 cases')
    """
    return f"{n} case" if n == 1 else f"{n} cases"


# Status and verdict words: the first line of every report, every verdict cell (the JSON keeps the tokens)

NO_SEPARATION_HEADLINE = "no separation detected at this sample size"
NO_VERDICT = "no verdict"

#: A status in words, for the first line of every report.
STATUS_WORDS: Mapping[Status, str] = {
    Status.PASSING: "passing",
    Status.REGRESSED: "regressed",
    Status.UNDERPOWERED: "underpowered",
    Status.NO_SEPARATION: NO_SEPARATION_HEADLINE,
    Status.NO_VERDICT: NO_VERDICT,
}

#: A case verdict in words, for every table cell and line of prose.
VERDICT_WORDS: Mapping[CaseVerdict, str] = {
    CaseVerdict.IMPROVED: "improved",
    CaseVerdict.REGRESSED: "regressed",
    CaseVerdict.BELOW_EFFECT_FLOOR: "below effect floor",
    CaseVerdict.NO_SEPARATION: NO_SEPARATION_HEADLINE,
    CaseVerdict.UNDERPOWERED: "underpowered",
    CaseVerdict.INCONCLUSIVE: "inconclusive",
}

#: A status on the badge, where room is short.
BADGE_WORDS: Mapping[Status, str] = {
    Status.PASSING: "passing",
    Status.REGRESSED: "regressed",
    Status.UNDERPOWERED: "underpowered",
    Status.NO_SEPARATION: "no separation",
    Status.NO_VERDICT: NO_VERDICT,
}


# Why a status: the sentences of and R-7 (seed 000, DESIGN.md)

NOT_ENOUGH_DRAWS = "Not enough draws to conclude at this effect floor."
MORE_CASES = "More cases, not more draws, are needed to conclude at this effect floor."
THIN_REFERENCE = "Not enough draws on the default branch's receipt to conclude at this effect floor."


def separated_downward(n: int) -> str:
    """Why a receipt reads ``regressed``."""
    return f"{n_cases(n)} separated downward"


def separated_upward(n: int) -> str:
    """Why a receipt reads ``passing``."""
    return f"{n_cases(n)} separated upward, none downward"


def wide_underpowered(n: int, band: float) -> str:
    """R-5 in a comparison report: the band over the cases together reaches the floor (``n`` is 2 or more)."""
    where = f"the comparison band over {n} cases is {band:.3f}, at or above the {FLOOR} floor"
    return f"over the cases together: {where}; no draw count is given."


def headline_downward(n: int) -> str:
    """The diff headline's part for the cases that regressed."""
    return f"{separated_downward(n)} (regressed)"


def headline_upward(n: int) -> str:
    """The diff headline's part for the cases that improved."""
    return f"{n_cases(n)} separated upward (improved)"


# Draws per arm needed

NO_DRAW_COUNT = "no draw count reaches the floor"
NO_DRAW_COUNT_HELP = "the spreads alone reach it; more cases, or a less noisy case, would help"
NO_DRAW_COUNT_EXPLAINED = f"{NO_DRAW_COUNT}: {NO_DRAW_COUNT_HELP}"
SPREAD_UNKNOWN = "spread unknown: an arm has one draw"
NO_VERDICT_NO_COUNT = "no verdict, so no draw count"


def not_underpowered(verdict: str) -> str:
    """Why a case that made its verdict has no draw count (the JSON's ``draws_needed_reason``)."""
    return f"not underpowered: the case reads {verdict}"


def draws_per_arm_needed(n: int) -> str:
    """``9 draws per arm needed``."""
    return f"{n} draws per arm needed"


def needed_on_reference(n: int, store_draws: int) -> str:
    """Draws needed on BEFORE's side (R-7): the default branch's store job is what can draw them.

    >>> needed_on_reference(7, 12)
    "7 on the default branch's receipt (its store job draws 12 per arm, --as-reference)"
    """
    return f"{n} on the default branch's receipt (its store job draws {store_draws} per arm, --as-reference)"


def drawn_to_reference(min_draws: int) -> str:
    """How the job summary names a receipt drawn to the reference rule (``--as-reference``)."""
    return f"drawn to the reference rule (at least {min_draws} per arm)"


# No verdict: why a receipt gets none, and what a report then says of its lift

SMOKE_RUN = "Smoke run, no verdict"
SMOKE_RUN_SHORT = f"a smoke run ({SMOKE_RUN})"
AGGREGATES_ONLY = "aggregates only: the source printed figures with no per-run score"
AGGREGATES_ONLY_SHORT = "aggregates only"


def below_tested(verification: str, reason: str | None) -> str:
    """Why a receipt below TESTED gets no verdict, with the receipt's own ``verification_reason``.

    >>> below_tested("DECLARED", "no tests ran"), below_tested("UNVERIFIED", None)
    ('below TESTED: the receipt reads DECLARED (no tests ran)', 'below TESTED: the receipt reads UNVERIFIED')
    """
    why = f" ({reason})" if reason else ""
    return f"below TESTED: the receipt reads {verification}{why}"


def below_tested_short(verification: str) -> str:
    """The same, in the few words of a headline."""
    return f"below TESTED ({verification})"


NO_VERDICT_GIVEN = "No verdict is given; the lift is context only."
NO_VERDICT_GIVEN_BELOW = "No verdict is given; the lift below is context only."


def context_only(reason: str) -> str:
    """The terminal's line under a status without a verdict."""
    return f"{reason}; the lift is context only"


def summary_no_verdict(reason: str, lift: str) -> str:
    """The job summary's line when the new receipt gets no verdict."""
    return f"The new receipt gets no verdict ({reason}); its lift, {lift}, is context only."


def side_is(label: str, why: str) -> str:
    """One side of a comparison without a verdict: ``after is a smoke run``."""
    return f"{label} is {why}"


def no_verdict_headline(reasons: list[str]) -> str:
    """The diff headline without a verdict: each side's reason, then what is not like for like.

    >>> no_verdict_headline(["after is a smoke run", "graded by different judges"])
    'no verdict: after is a smoke run; graded by different judges'
    """
    return "no verdict: " + "; ".join(reasons)


def unverified_lead(verification: str) -> str:
    """A view's first words for a receipt with no verdict that is not a smoke run."""
    return f"{verification} receipt, no verdict"


# Not like for like: two receipts that each may have a verdict, compared across judges, providers or sources

DIFFERENT_JUDGES = "graded by different judges: not like for like"
DIFFERENT_PROVIDERS = "raw scores across model families are background, never a ranking; compare the lifts"
DIFFERENT_SOURCES = (
    "The two receipts' bands come from different sources, and a per-case comparison across them is not like for like."
)
NOT_LIKE_FOR_LIKE = "Not like for like"
NO_PER_CASE_VERDICT = "no per-case verdict is given; the scores below are context only."


def different_judges(shown: str) -> str:
    """What differs between the two judges, each setting ``name: before → after``."""
    return f"{DIFFERENT_JUDGES} ({shown})"


def different_providers(before: str, after: str) -> str:
    """The answering models of the two receipts come from two providers."""
    return f"answering models of different providers ({before} → {after}): {DIFFERENT_PROVIDERS}"


# Reports (markdown: the caller escapes what it passes)

NOT_PROOF = "A separation is what these tests saw, not proof that the skill changed."
NOT_RUN = "Not run on this lane"
NO_SERVED_MODEL = "reports no served model"
LOST_DRAWS_LEFT_OUT = "Lost draws, left out of the means and spreads:"
UNKNOWN = "unknown"
INCONCLUSIVE_LOST = "Inconclusive: separated on measured draws, but not at every score the lost draws could have had."
FIRST_RUN_VIEW = "The new receipt on its own, with the skill against without it:"
ERROR_HEADLINE = "the run failed, so this push has no verdict."
ERROR_SAYS_MORE = "The job summary and the step's log say more."

#: One legend line per band source on the page.
BAND_SOURCE_LEGEND: Mapping[BandSource, str] = {
    BandSource.GENERATION: "generation: mean ± sd across the arm's draws, each draw scored by the judge",
    BandSource.LEGACY: "legacy: one draw per arm; the band is the spread of the judge's samples, not of the model",
}


def first_run_sentence(branch: str) -> str:
    """The plain words of a first run: nothing stored on the default branch (``branch`` as the caller shows it).

    >>> first_run_sentence("`main`")
    'No receipt is stored on `main` yet: this is the first run; nothing to compare against.'
    """
    return f"No receipt is stored on {branch} yet: this is the first run; nothing to compare against."


def lost_of(lost: int, drawn: int, reasons: Iterable[str]) -> str:
    """An arm's lost draws: ``1 of 6 draws (timeout)``, each recorded reason once."""
    found = sorted(set(reasons))
    why = f" ({', '.join(found)})" if found else ""
    return f"{lost} of {drawn} draws{why}"


def replaced_of(replaced: int, reasons: Iterable[str]) -> str:
    """What follows ``lost_of`` when failed calls were replaced by later draws (R-6 leaves them out)."""
    noun = "draw" if replaced == 1 else "draws"
    return f", and {replaced} {noun} lost to a failed call and replaced ({', '.join(sorted(set(reasons)))})"


def lost_draws(first: str, first_lost: str, second: str, second_lost: str) -> str:
    """Two arms' lost draws side by side: ``after lost 1 of 6 draws (timeout); before lost 0 of 6 draws``."""
    return f"{first} lost {first_lost}; {second} lost {second_lost}"


def grading_cost(label: str | None, tokens: int, cost: float | None, counted: int | None, missing: int | None) -> str:
    """What grading cost, kept apart from the skill's figures (``label``: whose, in a comparison); a floor.

    >>> grading_cost(None, 900, 0.0123, 12, None)
    "Grading cost, kept apart from the skill's figures: judge overhead 900 tokens ≈ $0.0123 (a floor; 12 draws \
counted, unknown without usage)."
    """
    whose = f" of {label}" if label is not None else ""
    price = f" ≈ ${cost:.4f}" if cost is not None else ""
    counted_text = UNKNOWN if counted is None else str(counted)
    missing_text = UNKNOWN if missing is None else str(missing)
    return (
        f"Grading cost{whose}, kept apart from the skill's figures: judge overhead {tokens} tokens{price} "
        f"(a floor; {counted_text} draws counted, {missing_text} without usage)."
    )


def with_skill_arm(before: str, after: str) -> str:
    """Where a comparison's cases were compared: ``with-skill arm, main → this PR``."""
    return f"with-skill arm, {before} → {after}"


def with_skill_against_without(n: int) -> str:
    """A view's first words when nothing separated (the status already says "no separation detected")."""
    return f"{n_cases(n)}, with skill against without it"


def nothing_compared(first_run: bool) -> str:
    """The job summary's line when no baseline was compared (markdown: ``fail-on`` is a code span)."""
    when = " on this first run" if first_run else ""
    return f"Nothing was compared{when}, so the gate (`fail-on`) cannot fail this step."


# The terminal (``driftproof run``)

NO_ANSWER = "(no answer)"


def run_heading(suite: str, lane: str, judge: str | None, n: int) -> str:
    """``commit-writer · anthropic/claude-x (api) · judge anthropic/claude-y · 3 cases``."""
    judged = f" · judge {judge}" if judge else ""
    return f"{suite} · {lane}{judged} · {n_cases(n)}"


def status_line(status: str, lift: str, spread: float | None, per_1k: str | None) -> str:
    """``status  passing   lift +0.142 (±0.02 across cases)   +0.355 per 1k skill tokens``."""
    across = f" (±{spread:.2f} across cases)" if spread is not None else ""
    tokens = f"   {per_1k} per 1k skill tokens" if per_1k is not None else ""
    return f"status  {status}   lift {lift}{across}{tokens}"


def receipt_line(path: str, verification: str, seal: str) -> str:
    """Where the receipt went."""
    return f"receipt {path}  ({verification}, seal {seal})"


def next_line(path: str) -> str:
    """What to run next."""
    return f"next    driftproof view {path}   ·   driftproof diff <main receipt> {path}"


def quick_title(case_id: str) -> str:
    """The title of the smoke run's side-by-side table."""
    return f"{SMOKE_RUN} · case {case_id}"


# The Action: annotations and log lines (the fix of each kind of error is in ``driftproof.action``, by its type)

TITLE_FIRST_RUN = "Driftproof first run"
TITLE_SKIPPED = "Driftproof skipped"
TITLE_COMMENT = "Driftproof comment"
TITLE_FAILED = "Driftproof failed"
TITLE_REGRESSED = "Driftproof: case regressed"
RUN_GROUP = "Driftproof run (model answers are printed raw; workflow commands are stopped)"
NO_COMMENT_TOKEN = "no PR comment: the github-token input is empty"


def no_api_key(names: str) -> str:
    """The error of a run whose provider's key is not set."""
    return f"no API key for this run: {names} is not set"


def no_api_key_fix(name: str) -> str:
    """Its fix, naming the first variable."""
    return (
        f"Pass the key as step `env:` from a repository secret, e.g. `{name}: ${{{{ secrets.{name} }}}}`, "
        "or use `provider: stub` for an offline smoke check."
    )


def sdk_logging(name: str) -> str:
    """The warning when an SDK's debug logging variable is set."""
    return f"{name} is set: SDK debug logging can print request details; unset it in CI"


def fork_skipped(names: str) -> str:
    """The notice (and job summary) of a fork or Dependabot pull request without the provider's key."""
    return (
        f"Driftproof skipped this pull request: it comes from a fork (or Dependabot), and GitHub passes no "
        f"secrets to such runs, so {names} is not set. A maintainer can push the commits to a branch of this "
        "repository to run it; see docs/action.md, 'Fork pull requests'."
    )


def comment_not_posted(error: str, report: str) -> str:
    """The warning when GitHub refused the PR comment."""
    return f"the PR comment was not posted: {error}. The report is in the job summary and at {report}."


def comment_not_updated(error: str) -> str:
    """The warning when GitHub refused the error comment."""
    return f"the PR comment was not updated with the error: {error}"


def comment_posted(action: str, url: str) -> str:
    """The log line of a posted comment."""
    return f"Driftproof: comment {action}: {url}"


def case_regressed(case_id: str, before: str, after: str, delta: float | None) -> str:
    """A regressed case's annotation: its with-skill band ``on <label>`` on each side, and Δ when it is known.

    >>> case_regressed("a", "0.90 ± 0.02 (7/7) on main", "0.55 ± 0.04 (7/7) on this PR", -0.35)
    'case a: with-skill 0.90 ± 0.02 (7/7) on main → 0.55 ± 0.04 (7/7) on this PR (Δ -0.35); the bands are apart \
and |Δ| ≥ 0.05'
    """
    if delta is None:
        return f"case {case_id} separated downward"
    return f"case {case_id}: with-skill {before} → {after} (Δ {delta:+.2f}); the bands are apart and |Δ| ≥ {FLOOR}"


def run_result(outputs: Mapping[str, str], code: int, gate: str | None) -> str:
    """The Action's last log line: the outputs that decide, the exit code and the gate (``None``: nothing compared)."""
    said = f"fail-on {gate}" if gate is not None else "nothing compared, the gate passes"
    return (
        f"Driftproof: status {outputs['status']} · {outputs['regressed']} regressed · {outputs['improved']} improved"
        f" · lift {outputs['lift']} · exit {code} ({said})"
    )


def summary_not_written(error: str) -> str:
    """The warning when the job summary cannot be written."""
    return f"could not write the job summary: {error}"
