"""A JUnit report of a run or of a diff (``--junit FILE``), as plain data. Pure: a reading in, the report out.

One test case per suite case, its classname the skill's name (else the suite's), its name the case id:

- **failure** when the case regressed (a run: with the skill below without it; a diff: this receipt's with-skill
  arm below the other's), its message the verdict sentence;
- **skipped** when no call was made on it: underpowered or inconclusive (the reason: the draws per arm needed,
  or why no count is given), no verdict for the whole receipt or comparison (why not), or, in a diff, a case only
  one receipt has;
- **passed** otherwise (improved, no separation, below the effect floor: nothing a gate fails on).

`driftproof.junit` turns the report into XML and writes it; this module decides only what it says.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from driftproof.core.compare import Comparison
from driftproof.core.diff import DiffResult
from driftproof.core.junit_sentences import not_called, only_on_one_side, regressed_against_baseline, withheld
from driftproof.core.reading import ArmSummary, ReceiptReading
from driftproof.core.sentences import (
    INCONCLUSIVE_LOST,
    SPREAD_UNKNOWN,
    case_regressed,
    draws_per_arm_needed,
    needed_on_reference,
)
from driftproof.core.stopping import REFERENCE_MIN_DRAWS
from driftproof.core.words import CaseVerdict

#: The classname when the receipt names neither a skill nor a suite.
NO_NAME = "driftproof"

BandText = Callable[[ArmSummary], str]
"""How an arm's band is written in a message (`driftproof.markdown.band_text`: ``0.91 ± 0.02 (5/6)``)."""


class Result(StrEnum):
    """What a JUnit test case reads: the element it carries (none when it passed)."""

    PASSED = "passed"
    FAILURE = "failure"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class JUnitCase:
    """One ``<testcase>``."""

    classname: str
    name: str
    result: Result
    message: str | None = None
    """The ``message`` of its ``<failure>`` or ``<skipped>``; ``None`` when it passed."""


@dataclass(frozen=True, slots=True)
class JUnitReport:
    """One ``<testsuite>`` of test cases, in the receipt's case order."""

    name: str
    cases: tuple[JUnitCase, ...]

    @property
    def tests(self) -> int:
        return len(self.cases)

    @property
    def failures(self) -> int:
        return sum(c.result == Result.FAILURE for c in self.cases)

    @property
    def skipped(self) -> int:
        return sum(c.result == Result.SKIPPED for c in self.cases)


def why_not_called(comparison: Comparison) -> str:
    """Why an underpowered or inconclusive case was not called: R-7's sentence, the draws per arm needed (on the
    default branch's receipt when that side is short), R-4's reason for no count, or the lost draws (R-6).

    >>> from driftproof.core.bands import band
    >>> b = band([0.5, 0.6])
    >>> why_not_called(Comparison(CaseVerdict.UNDERPOWERED, 0.0, b, b, draws_needed=9))
    '9 draws per arm needed'
    >>> why_not_called(Comparison(CaseVerdict.UNDERPOWERED, None, b, b))
    'spread unknown: an arm has one draw'
    """
    if comparison.verdict == CaseVerdict.INCONCLUSIVE:
        return INCONCLUSIVE_LOST
    if comparison.sentence:
        return comparison.sentence
    if comparison.draws_needed is not None and comparison.thin in ("before", "both"):
        return needed_on_reference(comparison.draws_needed, REFERENCE_MIN_DRAWS)
    if comparison.draws_needed is not None:
        return draws_per_arm_needed(comparison.draws_needed)
    return comparison.draws_needed_reason or SPREAD_UNKNOWN


def _case(
    classname: str, case_id: str, verdict: CaseVerdict | None, comparison: Comparison, regressed: str, nothing: str
) -> JUnitCase:
    """A case's test case from its verdict: ``regressed`` is its failure message, ``nothing`` why no verdict."""
    if verdict is None:
        return JUnitCase(classname, case_id, Result.SKIPPED, withheld(case_id, nothing))
    if verdict == CaseVerdict.REGRESSED:
        return JUnitCase(classname, case_id, Result.FAILURE, regressed)
    if verdict in (CaseVerdict.UNDERPOWERED, CaseVerdict.INCONCLUSIVE):
        return JUnitCase(classname, case_id, Result.SKIPPED, not_called(case_id, verdict, why_not_called(comparison)))
    return JUnitCase(classname, case_id, Result.PASSED)


def run_report(reading: ReceiptReading, suite_name: str, band: BandText) -> JUnitReport:
    """The JUnit report of one receipt: each case's with-skill arm against its baseline arm."""
    classname = reading.skill_name or suite_name or NO_NAME
    nothing = reading.no_verdict_reason or reading.status_reason
    cases = tuple(
        _case(
            classname,
            c.id,
            c.verdict,
            c.comparison,
            regressed_against_baseline(c.id, band(c.with_skill), band(c.baseline), c.comparison.delta),
            nothing,
        )
        for c in reading.cases
    )
    return JUnitReport(classname, cases)


def diff_report(result: DiffResult, suite_name: str, band: BandText, labels: Sequence[str]) -> JUnitReport:
    """The JUnit report of a diff: each case's with-skill arm in AFTER against BEFORE's; ``labels`` name the two
    sides in messages (``BEFORE``, ``AFTER``: the paths given)."""
    before, after = labels
    classname = result.after.skill_name or result.before.skill_name or suite_name or NO_NAME
    nothing = "; ".join(result.no_verdict.values()) or result.headline
    cases = [
        _case(
            classname,
            c.id,
            c.verdict,
            c.comparison,
            case_regressed(c.id, f"{band(c.before)} in {before}", f"{band(c.after)} in {after}", c.comparison.delta),
            nothing,
        )
        for c in result.cases
    ]
    for side, ids in (("after", result.unmatched_after), ("before", result.unmatched_before)):
        cases += [JUnitCase(classname, i, Result.SKIPPED, only_on_one_side(i, side)) for i in ids]
    return JUnitReport(classname, tuple(cases))
