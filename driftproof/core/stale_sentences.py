"""The sentences of ``driftproof stale``: its headline, and the reasons and advisories of an arm; and the
Action's lines on the stored receipt: whether its baseline arms stand for a pull request, and where it looked when
there is none. Pure.

Beside ``driftproof.core.sentences`` (which holds every other sentence and is at its size cap), in the same
manner: each string written once, as a constant or a small function of parts its caller has already formatted.
These strings are a public interface (``docs/stale.md`` quotes them): change none of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from driftproof.core.shard_sentences import MERGED_KEEPS_NO_ANSWERS

STALE_ALL_STAND = "every arm stands: nothing to rerun or regrade"
DRAWING_AGAIN = "grading again means drawing again"
"""How every note ends that says why an arm whose grading changed is a rerun (`is_note`)."""
STALE_NO_ANSWERS = f"the receipt kept no answers (run with --keep-transcripts), so {DRAWING_AGAIN}"
STALE_MERGED_NO_ANSWERS = f"{MERGED_KEEPS_NO_ANSWERS}; for a shard that kept none, {DRAWING_AGAIN}"
"""The note on a merged receipt's arm whose grading changed: its answers are with its shards."""
STALE_NEW_CASE = "not in the receipt: never drawn"


def stale_judge_regrade(reason: str) -> str:
    """A grader or judge-samples change of a receipt that kept its answers: a regrade by the rule, but
    ``driftproof regrade`` grades only with the receipt's own judge and judge samples, so it says what that means.

    >>> print(stale_judge_regrade("judge model changed: j-1 → j-2"))  # doctest: +NORMALIZE_WHITESPACE
    judge model changed: j-1 → j-2: regrading with another judge or judge samples means running again
    (driftproof regrade keeps the receipt's own)
    """
    return (
        f"{reason}: regrading with another judge or judge samples means running again (driftproof regrade keeps the "
        "receipt's own)"
    )


def stale_not_regradable(why: str) -> str:
    """The note on an arm whose grading changed, of a receipt ``driftproof regrade`` refuses whole.

    >>> stale_not_regradable("it was judged with --judge-mode pairwise")
    'driftproof regrade refuses this receipt (it was judged with --judge-mode pairwise), so grading again means \
drawing again'
    """
    return f"driftproof regrade refuses this receipt ({why}), so {DRAWING_AGAIN}"


def is_note(reason: str) -> bool:
    """True for a note that says why grading again means drawing again, which names no change.

    >>> is_note(STALE_NO_ANSWERS), is_note("judge model changed: j-1 → j-2")
    (True, False)
    """
    return reason.endswith(DRAWING_AGAIN)


def stale_changed(what: str, recorded: str, today: str) -> str:
    """A fact of the run that differs today.

    >>> stale_changed("judge model", "judge-1", "judge-2")
    'judge model changed: judge-1 → judge-2'
    """
    return f"{what} changed: {recorded} → {today}"


def stale_unknown(what: str) -> str:
    """A fact the receipt does not record: unknown, never read as current.

    >>> stale_unknown("harness version")
    'harness version: not recorded by the receipt, so unknown (never read as current)'
    """
    return f"{what}: not recorded by the receipt, so unknown (never read as current)"


CLI_DEFAULT = "the CLI's default"
"""The answering model of a CLI lane run without ``--model``: none was asked for, the CLI chose."""


def unpinned_model(reported: Sequence[str]) -> str:
    """A CLI lane's model none asked for, as the run's headline names it: what it reported, the CLI's default.

    >>> unpinned_model(["claude-x-1"]), unpinned_model([])
    ("claude-x-1, the CLI's default", "the CLI's default")
    """
    return f"{', '.join(reported)}, {CLI_DEFAULT}" if reported else CLI_DEFAULT


def stale_model_unpinned(reported: Sequence[str]) -> str:
    """Why a CLI lane receipt with no model asked for never stands: the CLI chose, and may choose another today.

    >>> print(stale_model_unpinned(["claude-x-1"]))  # doctest: +NORMALIZE_WHITESPACE
    answering model: none asked for; the CLI chose its default (it reported claude-x-1), which may differ today
    (never read as current): give --model (the Action's model input) to pin it, so stale and baseline carrying can
    work
    """
    chose = (
        f"the CLI chose its default (it reported {', '.join(reported)})" if reported else "the CLI chose its default"
    )
    return (
        f"answering model: none asked for; {chose}, which may differ today (never read as current): give --model "
        "(the Action's model input) to pin it, so stale and baseline carrying can work"
    )


def stale_recorded_path_missing(path: str, field: str, flag: str) -> str:
    """The refusal of a path ``stale`` took from the receipt (no flag gave it) that is not there today.

    >>> print(stale_recorded_path_missing("s/SKILL.md", "skill.path", "--skill"))  # doctest: +NORMALIZE_WHITESPACE
    s/SKILL.md: no such file: the path the receipt recorded as skill.path (read relative to the current directory);
    give --skill to read today's file
    """
    return (
        f"{path}: no such file: the path the receipt recorded as {field} (read relative to the current directory); "
        f"give {flag} to read today's file"
    )


def stale_harness_patch(name: str, recorded: str, today: str) -> str:
    """The advisory of a patch release of the same harness, which leaves every arm standing.

    >>> stale_harness_patch("claude-code", "2.1.3", "2.1.4")
    'claude-code 2.1.3 → 2.1.4 is a patch release of the same harness: the arms still stand'
    """
    return f"{name} {recorded} → {today} is a patch release of the same harness: the arms still stand"


def stale_suite_changed(recorded: str, today: str) -> str:
    """The advisory of a suite file whose bytes changed: each case is judged by its own prompt and rubric hashes.

    >>> stale_suite_changed("0123456789ab", "ba9876543210")
    'suite file changed (sha256 0123456789ab → ba9876543210): each case is judged by its prompt and rubric hashes'
    """
    return f"suite file changed (sha256 {recorded} → {today}): each case is judged by its prompt and rubric hashes"


def stale_dropped_case(case_id: str) -> str:
    """The advisory of a case the receipt holds and the suite no longer does.

    >>> stale_dropped_case("a")
    'case a is in the receipt but not in the suite today'
    """
    return f"case {case_id} is in the receipt but not in the suite today"


def stale_summary(rerun: int, regrade: int) -> str:
    """The headline when some arm does not stand.

    >>> stale_summary(2, 1)
    'stale: 2 arms to rerun, 1 arm to regrade'
    """
    return (
        f"stale: {rerun} arm{'' if rerun == 1 else 's'} to rerun, {regrade} arm{'' if regrade == 1 else 's'} to regrade"
    )


def stale_reference_rule(recorded_min: int, recorded_max: int, today_min: int, today_max: int) -> str:
    """The advisory of a receipt drawn to the reference form of today's stopping rule, which leaves its arms
    standing: they were drawn at least as deep as today's rule would draw them.

    >>> print(stale_reference_rule(12, 12, 3, 10))  # doctest: +NORMALIZE_WHITESPACE
    stopping rule: drawn to the reference rule (--as-reference: 12 to 12 draws per arm), deeper than today's (3 to 10)
    and otherwise the same: the arms still stand
    """
    return (
        f"stopping rule: drawn to the reference rule (--as-reference: {recorded_min} to {recorded_max} draws per arm),"
        f" deeper than today's ({today_min} to {today_max}) and otherwise the same: the arms still stand"
    )


TITLE_BASELINE = "Driftproof baseline"
"""The title of the Action's ``::notice::`` that gives the baseline line in the log."""


def baseline_stands(branch: str, seal: str) -> str:
    """The Action's line when every case's baseline arm in the stored receipt stands for this run.

    >>> print(baseline_stands("main", "0123456789ab"))  # doctest: +NORMALIZE_WHITESPACE
    Baseline: main's receipt (0123456789ab) still stands for every case — nothing the baseline arm contains
    changed.
    """
    return (
        f"Baseline: {branch}'s receipt ({seal}) still stands for every case"
        " — nothing the baseline arm contains changed."
    )


def baseline_stale(
    branch: str, seal: str, rerun: int, regrade: int, cases: int, reasons: Sequence[str], more: int
) -> str:
    """The Action's line when some baseline arms do not stand: how many, what they need, the first reasons.

    >>> print(baseline_stale("main", "0123456789ab", 2, 0, 3, ["judge model changed: j-1 → j-2"], 0))
    Baseline: main's receipt (0123456789ab) no longer stands for 2 of 3 cases (rerun: judge model changed: j-1 → j-2).
    >>> print(baseline_stale("main", "0123456789ab", 1, 1, 3, ["a", "b"], 3))
    Baseline: main's receipt (0123456789ab) no longer stands for 2 of 3 cases (1 rerun, 1 regrade: a; b; and 3 more).
    """
    need = "rerun" if not regrade else "regrade" if not rerun else f"{rerun} rerun, {regrade} regrade"
    why = "; ".join([*reasons, *([f"and {more} more"] if more else [])])
    return (
        f"Baseline: {branch}'s receipt ({seal}) no longer stands for {rerun + regrade} of {cases}"
        f" case{'' if cases == 1 else 's'} ({need}: {why})."
    )


def first_run_where(path: str, branch: str, git_failure: str | None, endpoint: str | None) -> str:
    """Where a run that found no stored receipt looked and how it was told (the first-run notice, after
    `core.sentences.first_run_sentence`): a wrong ``receipt-path``, or git failing and the API answering 404, must
    not pass for a real first run.

    >>> first_run_where("r.json", "main", None, None)[:72]
    'Looked for receipt-path r.json on origin/main: git found no such file th'
    >>> first_run_where("r.json", "main", "git fetch failed: denied", "GET /x")[47:]
    'git could not read it (git fetch failed: denied), and the contents API (GET /x) answered 404 Not Found. \
If the job that stores the receipt writes it elsewhere, give both jobs the same receipt-path.'
    """
    where = f"Looked for receipt-path {path} on origin/{branch}: "
    if git_failure is None:
        how = "git found no such file there."
    else:
        how = f"git could not read it ({git_failure}), and the contents API ({endpoint}) answered 404 Not Found."
    return f"{where}{how} If the job that stores the receipt writes it elsewhere, give both jobs the same receipt-path."
