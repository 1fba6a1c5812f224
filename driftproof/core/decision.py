"""The Action's decision: the figures its outputs, summary and gate carry. Pure.

With a baseline (the receipt stored on the default branch), the decision is the diff's: ``with_skill``
of the stored receipt against ``with_skill`` of this run, case by case. Without one (a first run, a push
to the default branch), it is the new receipt's own reading, with skill against without it, and the gate
has nothing to compare, so it never fails.

A receipt below ``TESTED``, one that names a preset (a smoke run) or one that carries aggregates only
gets no verdict, and its ``lift`` output is ``n/a``; the report keeps the lift, with its sign, as context.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from driftproof.core.compare import Comparison
from driftproof.core.diff import DiffCase, DiffResult
from driftproof.core.reading import ReceiptReading
from driftproof.core.sentences import NO_DRAW_COUNT, NO_DRAW_COUNT_EXPLAINED, SPREAD_UNKNOWN, draws_per_arm_needed
from driftproof.core.words import CaseVerdict, FailOn, Status

#: The ``fail-on`` values and the statuses each one fails on.
FAILING: Mapping[FailOn, frozenset[Status]] = {
    FailOn.REGRESSED: frozenset({Status.REGRESSED}),
    FailOn.UNDERPOWERED: frozenset({Status.REGRESSED, Status.UNDERPOWERED}),
    FailOn.NEVER: frozenset(),
}


def gate_fails(status: Status, fail_on: FailOn) -> bool:
    """Whether a gate set to ``fail_on`` fails on ``status``.

    >>> R, U, N = FailOn
    >>> gate_fails(Status.REGRESSED, R), gate_fails(Status.UNDERPOWERED, R), gate_fails(Status.REGRESSED, N)
    (True, False, False)
    """
    return status in FAILING[fail_on]


@dataclass(frozen=True, slots=True)
class NeededDraws:
    """R-4 over several underpowered cases: the most draws per arm any one needs, or why none is given."""

    n: int | None
    sentence: str | None

    @property
    def text(self) -> str:
        """The number, the sentence, or ``""`` when no case is underpowered.

        >>> NeededDraws(9, None).text, NeededDraws(None, NO_DRAW_COUNT).text, NeededDraws(None, None).text
        ('9', 'no draw count reaches the floor', '')
        """
        if self.n is not None:
            return str(self.n)
        return self.sentence or ""

    @property
    def words(self) -> str:
        """The same in prose, as the terminal's verdict line ends: "no draw count reaches the floor" says what
        would help.

        >>> NeededDraws(9, None).words, NeededDraws(None, NO_DRAW_COUNT).words == NO_DRAW_COUNT_EXPLAINED
        ('9 draws per arm needed', True)
        """
        if self.n is not None:
            return draws_per_arm_needed(self.n)
        if self.sentence == NO_DRAW_COUNT:
            return NO_DRAW_COUNT_EXPLAINED
        return self.sentence or ""


def needed_draws(underpowered: Iterable[Comparison]) -> NeededDraws:
    """Draws per arm that would reach the floor in every underpowered case, with the spreads held.

    The largest count when every case has one; otherwise the reason a count is missing, "no draw count
    reaches the floor" first (more draws narrow the standard error, not the spread).

    >>> from driftproof.core.compare import ArmEvidence, compare
    >>> a = compare(ArmEvidence((0.70, 0.72, 0.74)), ArmEvidence((0.71, 0.73, 0.75)))
    >>> b = compare(ArmEvidence((0.5, 0.9, 0.7)), ArmEvidence((0.6, 0.8, 0.7)))
    >>> needed_draws([a]), needed_draws([a, b]).sentence, needed_draws([])
    (NeededDraws(n=33, sentence=None), 'no draw count reaches the floor', NeededDraws(n=None, sentence=None))
    """
    cases = list(underpowered)
    if not cases:
        return NeededDraws(None, None)
    counts = [c.draws_needed for c in cases if c.draws_needed is not None]
    if len(counts) == len(cases):
        return NeededDraws(max(counts), None)
    reasons = [c.draws_needed_reason or SPREAD_UNKNOWN for c in cases if c.draws_needed is None]
    return NeededDraws(None, NO_DRAW_COUNT if NO_DRAW_COUNT in reasons else reasons[0])


def signed_or_na(value: float | None, digits: int = 3) -> str:
    """``+0.142`` / ``-0.050``, or ``n/a``.

    >>> signed_or_na(0.1416), signed_or_na(-0.05), signed_or_na(None)
    ('+0.142', '-0.050', 'n/a')
    """
    return "n/a" if value is None else f"{value:+.{digits}f}"


@dataclass(frozen=True, slots=True)
class Decision:
    """What one Action run concluded, before any file path is known."""

    status: Status
    """The diff's status with a baseline; the new receipt's own without one."""
    compared: bool
    """A baseline receipt was compared; the gate reads ``status`` only then."""
    regressed: int
    """Cases that separated downward against the baseline (0 without one)."""
    improved: int
    """Cases that separated upward against the baseline (0 without one)."""
    lift: float | None
    """The new receipt's lift; ``None`` (``n/a``) when it gets no verdict."""
    lift_per_1k: float | None
    """The new receipt's lift per 1k skill tokens; ``None`` (``n/a``) when it gets no verdict."""
    needed: NeededDraws
    """When the status is underpowered: the draws per arm needed, or the sentence saying why none is given;
    neither otherwise (a call or no verdict says nothing of draws)."""
    regressed_cases: tuple[DiffCase, ...] = ()
    """The cases that separated downward, for annotations."""
    baseline_stands: bool | None = None
    """Whether every case's baseline arm in the stored receipt stands for this run (``driftproof stale``'s
    rule); ``None`` when no stored receipt was read."""

    @property
    def draws_needed(self) -> str:
        """What the report's "draws per arm needed" says: a number, the sentence, or ``""``."""
        return self.needed.text

    @property
    def draws_needed_output(self) -> str:
        """The ``draws-needed`` output, as action.yml documents it: the number, or ``""`` (the sentence that says
        why no count is given stays in the report)."""
        return "" if self.needed.n is None else str(self.needed.n)

    def outputs(self) -> dict[str, str]:
        """The step outputs this decision sets (the paths are added by the caller)."""
        return {
            "status": str(self.status),
            "regressed": str(self.regressed),
            "improved": str(self.improved),
            "lift": signed_or_na(self.lift),
            "lift-per-1k": signed_or_na(self.lift_per_1k),
            "draws-needed": self.draws_needed_output,
            "baseline-stands": "" if self.baseline_stands is None else str(self.baseline_stands).lower(),
        }

    def exit_code(self, fail_on: FailOn) -> int:
        """1 when ``fail_on`` says this decision fails the step, else 0; never without a baseline.

        >>> d = Decision(Status.UNDERPOWERED, True, 0, 0, 0.1, 0.25, NeededDraws(9, None))
        >>> d.exit_code(FailOn.REGRESSED), d.exit_code(FailOn.UNDERPOWERED), d.exit_code(FailOn.NEVER)
        (0, 1, 0)
        """
        return 1 if self.compared and gate_fails(self.status, fail_on) else 0


def _needed(status: Status, status_reason: str, underpowered: list[Comparison]) -> NeededDraws:
    """When the status is underpowered: a count or sentence over its underpowered cases, or the status's own
    sentence when no case names one (R-5's wide band, or an inconclusive case); neither for any other status."""
    if status != Status.UNDERPOWERED:
        return NeededDraws(None, None)
    needed = needed_draws(underpowered)
    if needed.n is None and needed.sentence is None:
        return NeededDraws(None, status_reason)  # no draw count, and the sentence that says what is needed
    return needed


def decide(reading: ReceiptReading, result: DiffResult | None, *, baseline_stands: bool | None = None) -> Decision:
    """The decision of a run whose new receipt reads ``reading``, against a baseline when ``result`` is given;
    ``baseline_stands`` is carried to the ``baseline-stands`` output as it is."""
    verdict_given = reading.no_verdict_reason is None
    lift = reading.lift if verdict_given else None
    per_1k = reading.lift_per_1k if verdict_given else None
    if result is None:
        under = [c.comparison for c in reading.cases if c.verdict == CaseVerdict.UNDERPOWERED]
        return Decision(
            status=reading.status,
            compared=False,
            regressed=0,
            improved=0,
            lift=lift,
            lift_per_1k=per_1k,
            needed=_needed(reading.status, reading.status_reason, under),
            baseline_stands=baseline_stands,
        )
    under = [c.comparison for c in result.cases if c.verdict == CaseVerdict.UNDERPOWERED]
    return Decision(
        status=result.status,
        compared=True,
        regressed=result.counts.regressed,
        improved=result.counts.improved,
        lift=lift,
        lift_per_1k=per_1k,
        needed=_needed(result.status, result.status_reason, under),
        regressed_cases=tuple(c for c in result.cases if c.verdict == CaseVerdict.REGRESSED),
        baseline_stands=baseline_stands,
    )
