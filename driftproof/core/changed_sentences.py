"""The sentences of a run over many skills (``driftproof run --skills``, ``--changed``; the Action's ``skills``)
and of which skill fired per draw. Pure.

Beside ``driftproof.core.sentences`` (at its size cap), in the same manner: each string written once, as a
constant or a small function of parts its caller has already formatted. ``docs/monorepo.md`` quotes them.
"""

from __future__ import annotations

from collections.abc import Sequence

TITLE_SKILLS = "Driftproof skills"
"""The title of the Action's warning that it cannot tell which skills a change touches."""
NOT_TOUCHED = "not touched by this change"
SUITE_NAMES = "suite.yaml, suite.yml, suite.json, evals/evals.json or one *.eval.yaml"
"""The suite files looked for beside each SKILL.md, in this order."""


EVERY_SKILL_RUNS = "every skill runs (no --changed)"
"""Why a skill runs when the command line gives no ``--changed``."""
EVERY_SKILL_RUNS_ACTION = "every skill runs (which skills the change touches is unknown)"
"""Why a skill runs in the Action when the change is not read: not a pull request or a push, or git could not say
(a warning says why)."""


def skill_runs(name: str, because: str | None, every: str = EVERY_SKILL_RUNS) -> str:
    """The line before a skill's run: why it runs (``every``: the reason when no change selects it).

    >>> skill_runs("alpha", "skills/alpha/SKILL.md")
    'driftproof: runs alpha: touched by this change (skills/alpha/SKILL.md)'
    >>> skill_runs("alpha", None)
    'driftproof: runs alpha: every skill runs (no --changed)'
    """
    why = f"touched by this change ({because})" if because is not None else every
    return f"driftproof: runs {name}: {why}"


def skill_skipped(name: str) -> str:
    """The line for a skill the change leaves alone.

    >>> skill_skipped("beta")
    'driftproof: skips beta: not touched by this change'
    """
    return f"driftproof: skips {name}: {NOT_TOUCHED}"


def skill_unkept(name: str, receipt: str, problem: str | None) -> str:
    """The line before a push's run of a skill the push leaves alone but whose stored receipt it cannot keep:
    there is none yet (``problem`` ``None``), or it does not load.

    >>> skill_unkept("beta", ".driftproof/beta/receipt.json", None)
    'driftproof: runs beta: not touched by this change, but no receipt is stored at .driftproof/beta/receipt.json'
    >>> skill_unkept("beta", "r.json", "seal mismatch")
    'driftproof: runs beta: not touched by this change, but the receipt stored at r.json cannot be kept (seal mismatch)'
    """
    why = f"no receipt is stored at {receipt}" if problem is None else f"the receipt stored at {receipt} cannot be kept"
    return f"driftproof: runs {name}: {NOT_TOUCHED}, but {why}" + (f" ({problem})" if problem is not None else "")


def skill_not_standing(why: str) -> str:
    """Why a skill's stored receipt is not kept on a push although the push left the skill alone.

    >>> skill_not_standing("the suite changed")
    'it does not stand for this run: the suite changed'
    """
    return f"it does not stand for this run: {why}"


NO_PREVIOUS_COMMIT = "the push names no previous commit: a new branch or a first push"
"""Why a push cannot tell which skills it touches (``before`` absent or all zeros)."""


def skills_tally(ran: int, skipped: int, base: str | None) -> str:
    """The closing line of a run over many skills.

    >>> skills_tally(1, 2, "origin/main")
    'driftproof: 1 skill run, 2 skipped (not touched since origin/main)'
    >>> skills_tally(0, 1, "origin/main")
    'driftproof: no skill is touched since origin/main: nothing to run'
    """
    if ran == 0:
        return f"driftproof: no skill is touched since {base}: nothing to run"
    noun = "skill" if ran == 1 else "skills"
    tail = f", {skipped} skipped (not touched since {base})" if base is not None else ""
    return f"driftproof: {ran} {noun} run{tail}"


def no_suite(skill: str) -> str:
    """A SKILL.md with no suite beside it: refused, never dropped silently.

    >>> no_suite("skills/gamma/SKILL.md")  # doctest: +ELLIPSIS
    'skills/gamma/SKILL.md: suite: none beside it (looked for suite.yaml, ...); add one beside it or narrow --skills'
    """
    return f"{skill}: suite: none beside it (looked for {SUITE_NAMES}); add one beside it or narrow --skills"


def bad_ref(ref: str, said: str) -> str:
    """``--changed`` names no commit.

    >>> bad_ref("origin/nope", "unknown revision")
    "--changed: 'origin/nope' is not a commit in this repository (git: unknown revision); fetch it or name another"
    """
    return f"--changed: {ref!r} is not a commit in this repository (git: {said}); fetch it or name another"


def fired_share(name: str, fired: int, of: int) -> str:
    """How often one skill fired in an arm's draws.

    >>> fired_share("commit-writer", 3, 4)
    'commit-writer 3/4'
    """
    return f"{name} {fired}/{of}"


def fired_line(shares: Sequence[str]) -> str:
    """The per-arm cell of which skills fired, or a dash when none did.

    >>> fired_line(["commit-writer 3/4", "pr-writer 1/4"]), fired_line([])
    ('commit-writer 3/4 · pr-writer 1/4', '–')
    """
    return " · ".join(shares) if shares else "–"


FIRED_HEADING = "### Which skill fired"
FIRED_NOTE = (
    "With `--delivery discover` every skill below was installed together: the count is the draws whose "
    "transcript shows the skill firing (the Skill tool, or its SKILL.md opened), never scored."
)


def neighbour_took(case: str, name: str, now: str, was: str, under_test: str, fell_to: str, fell_from: str) -> str:
    """A case where a neighbour fires more and the skill under test less, in the with-skill arm.

    >>> neighbour_took("`c1`", "`pr-writer`", "3/4", "0/4", "`commit-writer`", "1/4", "4/4")  # doctest: +ELLIPSIS
    '`c1`: `pr-writer` fired in 3/4 with-skill draws (was 0/4) while `commit-writer` fell to 1/4 (was 4/4): a ...'
    """
    return (
        f"{case}: {name} fired in {now} with-skill draws (was {was}) while {under_test} fell to {fell_to} "
        f"(was {fell_from}): a neighbour took its activations"
    )


def set_heading(ran: int, skipped: int) -> str:
    """The first line of the one PR comment over a set of skills.

    >>> set_heading(2, 1)
    '**Driftproof · 2 skills run** · 1 not touched by this change'
    >>> set_heading(0, 3)
    '**Driftproof · no skill run** · 3 not touched by this change'
    >>> set_heading(2, 0)  # every skill ran: no "0 not touched"
    '**Driftproof · 2 skills run**'
    """
    runs = "no skill run" if ran == 0 else f"{ran} skill run" if ran == 1 else f"{ran} skills run"
    return f"**Driftproof · {runs}**" + (f" · {skipped} {NOT_TOUCHED}" if skipped else "")


def set_verdict(compared: bool, regressed: int, improved: int) -> str:
    """A skill's cell in the set's summary table: its calls against the stored receipt, or why there are none.

    >>> set_verdict(True, 1, 0), set_verdict(False, 0, 0)
    ('1 regressed · 0 improved', 'first run: no stored receipt')
    """
    return f"{regressed} regressed · {improved} improved" if compared else "first run: no stored receipt"


SET_SKIPPED = "Not run, " + NOT_TOUCHED + ":"


def set_unknown_base(reason: str) -> str:
    """The Action cannot tell which skills a PR touches: every skill runs (never fewer).

    >>> set_unknown_base("git fetch failed")
    'cannot tell which skills this change touches (git fetch failed): every skill runs'
    """
    return f"cannot tell which skills this change touches ({reason}): every skill runs"
