"""The sentences of shards: ``driftproof run --shard``, ``driftproof merge`` and a reader of a shard receipt. Pure.

Written once here (``core/sentences.py`` is at its cap); the CLI, the Action and the reports read them.
"""

from __future__ import annotations

SHARD_FORM = "give INDEX/COUNT, e.g. --shard 1/3 (shard 1 of 3)"
"""How ``--shard`` is written, said in its refusal."""


def shard_label(index: int, count: int) -> str:
    """A shard as every report names it.

    >>> shard_label(2, 3)
    'shard 2/3'
    """
    return f"shard {index}/{count}"


def shard_no_verdict(index: int, count: int, cases: int, suite_cases: int) -> str:
    """Why a reader gives a shard receipt no suite-level verdict, in full.

    >>> shard_no_verdict(2, 3, 2, 5)
    "shard 2/3: 2 of the suite's 5 cases, not the suite, so no suite-level verdict; merge every shard's receipt \
(driftproof merge) for one"
    """
    return (
        f"{shard_label(index, count)}: {cases} of the suite's {suite_cases} cases, not the suite, so no suite-level "
        "verdict; merge every shard's receipt (driftproof merge) for one"
    )


def shard_short(index: int, count: int) -> str:
    """The same in a comparison headline's few words (``after is shard 2/3 of the suite``).

    >>> shard_short(2, 3)
    'shard 2/3 of the suite'
    """
    return f"{shard_label(index, count)} of the suite"


def too_many_shards(count: int, suite_cases: int) -> str:
    """The refusal of more shards than the suite has cases (some shard would hold none).

    >>> too_many_shards(4, 3)
    "COUNT (4) is more than the suite's 3 cases, so a shard would hold none; use at most 3 shards"
    """
    return (
        f"COUNT ({count}) is more than the suite's {suite_cases} case{'' if suite_cases == 1 else 's'}, so a shard "
        f"would hold none; use at most {suite_cases} shard{'' if suite_cases == 1 else 's'}"
    )


def shard_plan(index: int, count: int, cases: int, suite_cases: int) -> str:
    """Printed before the plan line of a shard run.

    >>> shard_plan(1, 3, 2, 5)
    "shard 1/3: 2 of the suite's 5 cases (ranked by sha256 of their ids, dealt to shards 1 to 3 in turn)"
    """
    return (
        f"{shard_label(index, count)}: {cases} of the suite's {suite_cases} cases "
        f"(ranked by sha256 of their ids, dealt to shards 1 to {count} in turn)"
    )


NOT_A_SHARD = (
    "not a shard receipt (no run.shard: it ran the whole suite); merge takes receipts of driftproof run --shard"
)
"""The refusal of a receipt given to ``driftproof merge`` that is no shard."""


def differs(first: str, here: str, where: str) -> str:
    """A merge refusal: this shard's value of a setting is not the first shard's.

    >>> differs("'a'", "'b'", "s1.json")
    "differs from the first shard's: 'a' in s1.json, 'b' here; every shard must be run with the same settings"
    """
    return (
        f"differs from the first shard's: {first} in {where}, {here} here; every shard must be run with the same "
        "settings"
    )


def overlap(case_id: str, other: str) -> str:
    """A merge refusal: a case in two shards.

    >>> overlap("'c1'", "s1.json")
    "case 'c1' is also in s1.json; each case must be in exactly one shard"
    """
    return f"case {case_id} is also in {other}; each case must be in exactly one shard"


def given(count: int) -> str:
    """Where a missing shard's refusal points: the shards given together.

    >>> given(1), given(2)
    ('the shards given (1 receipt)', 'the shards given (2 receipts)')
    """
    return f"the shards given ({count} receipt{'' if count == 1 else 's'})"


def missing(case_id: str, index: int, count: int, more: int) -> str:
    """A merge refusal: a case of the suite that no shard given holds.

    >>> missing("'c4'", 2, 3, 1)
    "case 'c4' is in no shard given (it falls in shard 2/3: add that shard's receipt); 1 more case is missing too"
    """
    tail = (
        "" if not more else f"; {more} more case{'' if more == 1 else 's'} {'is' if more == 1 else 'are'} missing too"
    )
    return (
        f"case {case_id} is in no shard given (it falls in {shard_label(index, count)}: add that shard's receipt){tail}"
    )


def merged_line(path: str, shards: int, cases: int, seal: str) -> str:
    """What ``driftproof merge`` prints when it has written the merged receipt.

    >>> merged_line("r.json", 3, 5, "ab" * 32)
    'merged: r.json (3 shards, 5 cases, seal abababababab)'
    """
    return f"merged: {path} ({shards} shard{'' if shards == 1 else 's'}, {cases} cases, seal {seal[:12]})"


def shard_job_done(shard: str, receipt: str) -> str:
    """A shard job's last log line in the Action: no verdict here; the merge job gives the one verdict.

    >>> shard_job_done("2/3", ".driftproof/receipt.shard-2-of-3.json")
    'Driftproof: shard 2/3 · receipt .driftproof/receipt.shard-2-of-3.json · no diff, comment, badge or gate here: \
the job with shard: merge gives them once · exit 0'
    """
    return (
        f"Driftproof: shard {shard} · receipt {receipt} · no diff, comment, badge or gate here: the job with "
        "shard: merge gives them once · exit 0"
    )


def shard_next_line(path: str, count: int) -> str:
    """What to run after one shard: the other shards, then ``merge`` (a shard alone has no suite verdict).

    >>> shard_next_line("s1.json", 2)
    'next    run the other shard of --shard i/2, then: driftproof merge s1.json <the other shard receipt> -o RECEIPT'
    """
    others = "the other shard" if count == 2 else f"the other {count - 1} shards"
    receipts = "<the other shard receipt>" if count == 2 else "<the other shard receipts>"
    return f"next    run {others} of --shard i/{count}, then: driftproof merge {path} {receipts} -o RECEIPT"


MERGED_KEEPS_NO_ANSWERS = (
    "a merged receipt keeps no answers (each shard's answers archive stays beside its shard receipt): regrade each "
    "shard receipt with its own archive, then merge the regraded shards (driftproof merge)"
)
"""Why ``driftproof regrade`` refuses a merged receipt, and what to do instead (``driftproof stale`` says it too)."""


def not_in_split(case_id: str, index: int, count: int) -> str:
    """A shard regrade's refusal: the tasks hold a case the suite the shard was split from did not.

    >>> not_in_split("'f'", 1, 2)
    "case 'f' is not in the suite shard 1/2 was split from: no shard kept answers for it"
    """
    return (
        f"case {case_id} is not in the suite {shard_label(index, count)} was split from: no shard kept answers for it"
    )


def left_out_of_split(case_id: str, index: int, count: int) -> str:
    """A shard regrade's refusal: the tasks leave out a case of the suite the shard was split from.

    >>> left_out_of_split("'c'", 1, 2)
    "case 'c' of the suite shard 1/2 was split from is missing from the tasks: give the whole suite, so every \
shard's regrade grades its own cases and they merge again"
    """
    return (
        f"case {case_id} of the suite {shard_label(index, count)} was split from is missing from the tasks: give the "
        "whole suite, so every shard's regrade grades its own cases and they merge again"
    )
