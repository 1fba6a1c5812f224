"""Seed 000, "Which answer is graded": the reply check that runs before any grading call.

One table, one row per reply; each row names the rule of the seed it exercises. Then properties.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.lanes.reply_rules import (
    REASON_NO_ANSWER,
    REASON_ONLY_DESCRIBES_WORK,
    REASON_POINTS_AT_UNSEEN_FILE,
    ReplyVerdict,
    classify_reply,
)

# 234 characters of the reply's own prose: over the 200-character rule on its own.
PROSE = (
    "The checkout total drifts because percentage discounts are applied after tax on bundled items, "
    "so the rounding happens twice; applying the discount to the pre-tax subtotal and rounding once "
    "at the end fixes it for every cart we tried."
)
# About 100 characters each: under the rule on its own, over it when the two are added.
HALF = " ".join(
    (
        "Discounts are applied after tax on bundled items, so the rounding happens twice and the",
        "total drifts by a cent.",
    )
)
HALF2 = " ".join(
    (
        "Apply the discount to the pre-tax subtotal and round once at the end; that fixes every",
        "cart we tried.",
    )
)
POINTS = REASON_POINTS_AT_UNSEEN_FILE


TABLE = [
    # --- holds no answer -------------------------------------------------------------------
    # no answer: an empty reply with no shown file
    ("empty", "", [], True, REASON_NO_ANSWER),
    # no answer: whitespace only
    ("whitespace-only", "  \n\t \n", [], True, REASON_NO_ANSWER),
    # no answer, but a model that writes its answer to a file and replies with nothing is graded on it
    ("empty-with-shown-file", "", ["answer.md"], False, None),
    # no answer: pleasantries only
    ("pleasantry-only", "Let me know if you need anything else!", [], True, REASON_NO_ANSWER),
    # no answer: a heading with nothing under it
    ("heading-only", "# Summary", [], True, REASON_NO_ANSWER),
    # a shown file carries the answer even when the reply is a pleasantry
    ("pleasantry-with-shown-file", "Thanks!", ["answer.md"], False, None),
    # --- fenced blocks -----------------------------------------------------------------------
    # a line inside a fenced block is never read as the model pointing at a file
    ("fence-hides-see-line", "```\nSee notes/summary.md\n```", [], False, None),
    # same, with an info string and a first-person line inside
    ("fence-hides-saved-line", "```markdown\n# Notes\nI wrote this to summary.md\n```", [], False, None),
    # same, with a tilde fence
    ("tilde-fence", "~~~\nOutput written to out.json\n~~~", [], False, None),
    # a pointing line followed by a fenced block shows its file
    ("pointer-then-fence", "I saved the script to fix.py:\n\n```python\nprint('hi')\n```", [], False, None),
    # ... but an empty fenced block shows nothing
    ("pointer-then-empty-fence", "Saved to fix.py.\n```\n```", [], True, f"{POINTS}: fix.py"),
    # ```inline``` on one line is not a fence, so the pointer outside is read
    ("inline-triple-backticks-not-a-fence", "```x``` is in notes.md, see notes.md", [], True, "notes.md"),
    # --- commit bodies and PR descriptions ---------------------------------------------------
    # a conventional commit whose body lists the files it changed is graded
    (
        "conventional-commit-file-list",
        "feat(cart): handle empty carts\n\nChanged files:\n- src/cart.py\n- tests/test_cart.py",
        [],
        False,
        None,
    ),
    # an imperative subject, a blank line and a body listing files is a commit message
    (
        "imperative-commit-file-list",
        "Handle empty carts in total\n\nThe total raised on an empty cart.\n\n- src/cart.py\n- tests/t.py",
        [],
        False,
        None,
    ),
    # the body of a commit message shows its file, even a "see" line
    (
        "commit-body-see-line",
        "fix(cart): handle empty totals\n\nSee docs/cart.md for the design.",
        [],
        False,
        None,
    ),
    # a pull request description (two usual sections) that lists files is graded
    (
        "pr-description-file-list",
        "## Summary\nHandle empty carts.\n\n## Changes\n- src/cart.py\n\n## Test plan\n- pytest -q",
        [],
        False,
        None,
    ),
    # a lone "Summary" line is not a commit subject, so its pointer is read
    (
        "summary-line-is-not-a-commit",
        "Summary\n\nI wrote the summary to notes/summary.md.",
        [],
        True,
        f"{POINTS}: notes/summary.md",
    ),
    # a PR layout with no answer of its own is not a PR description: its pointer is read
    (
        "pr-layout-without-answer",
        "## Summary\nI wrote notes/summary.md\n\n## Changes\n- notes/summary.md",
        [],
        True,
        f"{POINTS}: notes/summary.md",
    ),
    # a sentence ending in a period is not a commit subject, so the body's pointer is read
    (
        "sentence-is-not-a-commit-subject",
        "Add an index on orders.user_id.\n\nI saved the migration to migrations/0002.sql.",
        [],
        True,
        f"{POINTS}: migrations/0002.sql",
    ),
    # --- a pointing line followed by prose ---------------------------------------------------
    # followed by at least 200 characters of the reply's own prose: the summary is graded on the prose
    ("pointer-then-200-prose", "I wrote the summary to summary.md.\n\n" + PROSE, [], False, None),
    # followed by less than 200 characters: it points at a file the grader was not shown
    (
        "pointer-then-short-prose",
        "I wrote the summary to summary.md.\n\n" + HALF,
        [],
        True,
        f"{POINTS}: summary.md",
    ),
    # prose on the pointing line itself counts
    ("prose-on-pointer-line", "Summary (also saved to summary.md): " + PROSE, [], False, None),
    # prose on the pointing line and below add up
    ("prose-on-line-plus-below", f"Saved to summary.md: {HALF}\n\n{HALF2}", [], False, None),
    # work reports below a pointer are not the reply's own answer prose
    (
        "work-report-is-not-prose",
        "I saved it to summary.md.\n"
        + "I also updated the tests and fixed two failing ones. " * 3
        + "\nI've cleaned up the imports across the whole package so everything lints cleanly.",
        [],
        True,
        f"{POINTS}: summary.md",
    ),
    # --- a pointing line below the reply's own answer ----------------------------------------
    # at least 200 characters of prose above it
    ("answer-then-pointer", PROSE + "\n\nI also saved this to notes/summary.md.", [], False, None),
    # less than 200 characters above it
    (
        "short-answer-then-pointer",
        "Short answer here.\n\nFull report in report.md.",
        [],
        True,
        f"{POINTS}: report.md",
    ),
    # a fenced block above it that the line refers back to
    ("fence-then-back-reference", "```python\nx = 1\n```\nI saved this to fix.py.", [], False, None),
    # a fenced block above, but the line points at something else
    (
        "fence-then-forward-pointer",
        "```python\nx = 1\n```\nSee notes/other.md for the rest.",
        [],
        True,
        f"{POINTS}: notes/other.md",
    ),
    # a Changes list under the answer
    (
        "changes-list-under-answer",
        "Apply the discount before tax and round once.\n\nChanges:\n- src/cart.py: apply discount pre-tax",
        [],
        False,
        None,
    ),
    # a bold Changes heading under a fenced answer
    ("bold-changes-under-fence", "```diff\n-a\n+b\n```\n\n**Changes:**\n- `src/cart.py`", [], False, None),
    # a Changes list with no answer above it points at its files
    ("changes-list-alone", "## Changes\n- src/cart.py", [], True, f"{POINTS}: src/cart.py"),
    # "Done." is not an answer above a Changes list
    ("done-then-changes", "Done.\n\nChanges:\n- a.md", [], True, f"{POINTS}: a.md"),
    # --- what is and is not a file name ------------------------------------------------------
    # a code name such as cart.total is not a file name
    ("code-name-cart-total", "See `cart.total` instead of summing line items.", [], False, None),
    # a method call is not a file name
    ("method-call", "See obj.method() for the rounding.", [], False, None),
    # e.g. and version numbers are not file names
    ("eg-and-version", "See e.g. version 1.2.3 for the fix.", [], False, None),
    # a URL, and a domain name in a URL, are not file names
    ("url-not-file", "See https://example.com/docs/guide.html for the details.", [], False, None),
    # an address without a scheme is not a path either
    ("domain-path-not-file", "See example.com/docs/guide.md", [], False, None),
    # a framework name is not a file name
    ("framework-name", "See the Next.js docs.", [], False, None),
    # naming a file without pointing at it is an answer
    (
        "mention-without-pointer",
        "The bug is in cart.py: `total` ignores discounts, so apply them before summing.",
        [],
        False,
        None,
    ),
    # an instruction to the reader is an answer
    ("instruction-open-file", "Open settings.py and set DEBUG = False.", [], False, None),
    # "here's why x.py fails" explains; it does not hand over a file
    ("here-is-why", "Here's why cart.py fails: the total ignores discounts.", [], False, None),
    # a label then a file name answers "which file?"
    ("answer-label-file", "Answer: pyproject.toml", [], False, None),
    # --- first-person advice versus reports of work ------------------------------------------
    # first-person advice is an answer
    ("advice-i-d", "I'd add an index on orders.user_id.", [], False, None),
    # ... in other words
    ("advice-i-would", "I would add a retry with exponential backoff.", [], False, None),
    # ... and a recommendation
    ("advice-i-recommend", "I recommend adding an index on the join column.", [], False, None),
    # a conditional is not a report
    ("conditional-first-person", "If I added an index, the query would be faster.", [], False, None),
    # only describing work it did
    ("report-added-index", "I added an index on orders.user_id.", [], True, REASON_ONLY_DESCRIBES_WORK),
    # only describing work it did, two verbs
    ("report-updated", "I've updated the README and added tests.", [], True, REASON_ONLY_DESCRIBES_WORK),
    # "Done." and "All tests pass." are reports of work
    ("report-done-tests", "Done. All tests pass.", [], True, REASON_ONLY_DESCRIBES_WORK),
    # a list of past-tense changes under "Here's what I did:"
    (
        "report-what-i-did-list",
        "Here's what I did:\n- Added input validation\n- Updated the error messages",
        [],
        True,
        REASON_ONLY_DESCRIBES_WORK,
    ),
    # a report followed by an answer sentence is an answer
    (
        "report-then-answer",
        "I added an index on orders.user_id. Queries filtering by user now use it instead of a full scan.",
        [],
        False,
        None,
    ),
    # describing work whose result the grader is shown is graded on the file
    ("report-with-shown-file", "I've written the plan.", ["plan.md"], False, None),
    # --- typographic quotes -------------------------------------------------------------------
    # a typographic apostrophe reads as a plain one: advice
    ("typographic-advice", "I\u2019d add an index.", [], False, None),
    # ... and a report of work
    ("typographic-report", "I\u2019ve updated the README.", [], True, REASON_ONLY_DESCRIBES_WORK),
    # typographic double quotes around a file name
    (
        "typographic-double-quotes",
        "I saved it to \u201cnotes/summary.md\u201d.",
        [],
        True,
        f"{POINTS}: notes/summary.md",
    ),
    # typographic single quotes around a file name
    (
        "typographic-single-quotes",
        "The summary is in \u2018report.md\u2019.",
        [],
        True,
        f"{POINTS}: report.md",
    ),
    # --- emphasis and bold labels -------------------------------------------------------------
    # a bold label such as Created: then a file name
    ("bold-label-created", "**Created:** notes/summary.md", [], True, f"{POINTS}: notes/summary.md"),
    # a bold file name after a label
    ("bold-file-name", "Created: **summary.md**", [], True, f"{POINTS}: summary.md"),
    # the whole label line in bold
    ("bold-whole-line", "**Created: notes/summary.md**", [], True, f"{POINTS}: notes/summary.md"),
    # a bold file name in a sentence
    ("bold-in-sentence", "I wrote the answer to **answer.md**.", [], True, f"{POINTS}: answer.md"),
    # an underscore-emphasised file name
    ("underscore-emphasis", "I wrote the answer to _answer.md_.", [], True, f"{POINTS}: answer.md"),
    # a code-span file name
    ("code-span-file-name", "I wrote the answer to `answer.md`.", [], True, f"{POINTS}: answer.md"),
    # a bold label naming a shown file is fine
    ("bold-label-shown", "**Created:** answer.md", ["answer.md"], False, None),
    # --- which files count as shown ----------------------------------------------------------
    # compared as normalised relative paths
    ("shown-dot-slash", "Saved to ./out/answer.md", ["out/answer.md"], False, None),
    # or by base name
    ("shown-basename", "Saved to answer.md", ["out/answer.md"], False, None),
    # a dunder name keeps its underscores
    ("shown-dunder", "I created __init__.py", ["pkg/__init__.py"], False, None),
    # one shown, one not: points at the one not shown
    ("one-of-two-shown", "I wrote answer.md and notes.md", ["answer.md"], True, f"{POINTS}: notes.md"),
    # a Windows separator reads as a path
    ("windows-separator", "Saved to out\\report.md", [], True, f"{POINTS}: out/report.md"),
    # --- other pointing lines -----------------------------------------------------------------
    # a Markdown link to a file
    ("markdown-link", "The full plan is [here](docs/plan.md).", [], True, f"{POINTS}: docs/plan.md"),
    # a reply that is only a path
    ("bare-path", "notes/summary.md", [], True, f"{POINTS}: notes/summary.md"),
    # "here's the file:" then a name
    ("here-is-the-file", "Here's the file: report.md", [], True, f"{POINTS}: report.md"),
    # a list under "I created the following files:"
    (
        "created-files-list",
        "I created the following files:\n- notes/summary.md\n- notes/plan.md",
        ["notes/plan.md"],
        True,
        f"{POINTS}: notes/summary.md",
    ),
    # a list under "I created the following files:" points, even with a short answer below
    (
        "created-files-list-then-short-prose",
        "I created the following files:\n- notes/summary.md\n\nThe summary covers Q3.",
        [],
        True,
        f"{POINTS}: notes/summary.md",
    ),
    # a heading can point too
    ("heading-pointer", "## Summary (saved to notes/summary.md)", [], True, f"{POINTS}: notes/summary.md"),
]


@pytest.mark.parametrize(
    ("reply", "shown", "lost", "reason"),
    [pytest.param(reply, shown, lost, reason, id=row_id) for row_id, reply, shown, lost, reason in TABLE],
)
def test_classify_reply_table(reply: str, shown: list[str], lost: bool, reason: str | None) -> None:
    verdict = classify_reply(reply, shown)
    assert verdict.lost is lost, verdict
    if reason is None:
        assert verdict.reason is None
    else:
        assert verdict.reason is not None and reason in verdict.reason


def test_prose_fixtures_straddle_the_200_character_rule() -> None:
    assert len(PROSE) >= 200
    assert len(HALF) < 200 and len(HALF2) < 200
    assert len(HALF) + len(HALF2) >= 200


def test_table_is_big_and_ids_are_unique() -> None:
    ids = [row[0] for row in TABLE]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)


def test_verdict_is_frozen() -> None:
    verdict = classify_reply("", [])
    assert verdict == ReplyVerdict(True, REASON_NO_ANSWER)
    with pytest.raises(AttributeError):
        verdict.lost = False  # type: ignore[misc]


# --- properties ------------------------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "I", "I'd", "I've", "I\u2019d", "I\u2019ve", "saved", "wrote", "created", "see", "to", "in",
        "notes/summary.md", "report.md", "**x.md**", "`cart.total`", "Created:", "**Created:**", "the",
        "summary", "is", "Done.", "\u201cfile.txt\u201d", "\u2018a.py\u2019", "add", "an", "index", "-", "\n",
        "Changes:", "## Changes", "fix:", "e.g.", "1.2.3", "https://x.org/a.md", "tests", "pass.",
    ]
)  # fmt: skip
REPLIES = st.lists(WORDS, max_size=30).map(" ".join) | st.text(max_size=300)
SHOWN = st.lists(st.sampled_from(["notes/summary.md", "report.md", "x.md", "a.py"]), max_size=2)


def _plain(text: str) -> str:
    for typographic, plain in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(typographic, plain)
    return text


@settings(database=None, deadline=None, max_examples=300)
@given(REPLIES, SHOWN)
def test_verdict_is_well_formed(reply: str, shown: list[str]) -> None:
    verdict = classify_reply(reply, shown)
    assert verdict.lost == (verdict.reason is not None)
    if verdict.reason is not None:
        assert "\n" not in verdict.reason


@settings(database=None, deadline=None, max_examples=300)
@given(REPLIES, SHOWN)
def test_typographic_and_plain_quotes_give_the_same_verdict(reply: str, shown: list[str]) -> None:
    assert classify_reply(reply, shown) == classify_reply(_plain(reply), shown)


@settings(database=None, deadline=None, max_examples=300)
@given(REPLIES.filter(lambda text: text.strip() != ""), SHOWN)
def test_a_reply_wholly_inside_a_fenced_block_is_never_lost(content: str, shown: list[str]) -> None:
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    assert classify_reply(f"{fence}\n{content}\n{fence}", shown) == ReplyVerdict(False, None)


@settings(database=None, deadline=None, max_examples=300)
@given(REPLIES, SHOWN)
def test_showing_the_named_file_clears_the_pointer(reply: str, shown: list[str]) -> None:
    verdict = classify_reply(reply, shown)
    prefix = f"{REASON_POINTS_AT_UNSEEN_FILE}: "
    if verdict.reason is not None and verdict.reason.startswith(prefix):
        named = verdict.reason.removeprefix(prefix)
        after = classify_reply(reply, [*shown, named])
        assert after.reason != verdict.reason
