"""What ``driftproof run`` prints at the end: the status first, then where the receipt went (printable only)."""

from __future__ import annotations

from driftproof.core.breakdown_sentences import lift_unavailable
from driftproof.core.carry import carried_summary
from driftproof.core.decision import decide, signed_or_na
from driftproof.core.pairwise import pairwise_view
from driftproof.core.reading import read_receipt
from driftproof.core.regrade import regrade_line
from driftproof.core.sentences import (
    NO_ANSWER,
    STATUS_WORDS,
    VERDICT_WORDS,
    context_only,
    next_line,
    quick_title,
    receipt_line,
    run_heading,
    status_line,
)
from driftproof.core.shard_sentences import shard_next_line
from driftproof.core.stale_sentences import unpinned_model
from driftproof.core.words import CaseVerdict
from driftproof.regrade import RegradeOutcome
from driftproof.report_lines import carried_line
from driftproof.run import RunOutcome
from driftproof.safe_text import printable


def _say(line: str) -> None:
    """Print one line of the summary: suite names, model ids and reasons come from files, so printable only."""
    print(printable(line))


def print_run_summary(outcome: RunOutcome) -> None:
    """The closing lines of a run, as the terminal mockup has them."""
    receipt, reading = outcome.receipt, read_receipt(outcome.receipt)
    lane, judge = receipt.run.lane, receipt.judge
    judged = f"{judge.provider}/{judge.model_requested}" if judge else None
    lane_text = f"{lane.provider}/{lane.model_requested or unpinned_model(lane.models_reported)} ({lane.surface})"
    _say(run_heading(str(receipt.suite.name), lane_text, judged, len(receipt.cases)))
    per_1k = signed_or_na(reading.lift_per_1k) if reading.lift_per_1k is not None else None
    _say(status_line(STATUS_WORDS[reading.status], signed_or_na(reading.lift), reading.lift_spread, per_1k))
    if reading.lift_reason is not None:  # as view says below its figures: no lift from a subset of the cases
        _say(f"        {lift_unavailable(reading.lift_reason)}")
    if reading.no_verdict_reason:
        _say(f"        {context_only(reading.no_verdict_reason)}")
    else:
        counts = {v: sum(1 for c in reading.cases if c.verdict == v) for v in CaseVerdict}
        parts = [f"{n} {VERDICT_WORDS[v]}" for v, n in counts.items() if n]
        needed = decide(reading, None).needed.words  # what the Action's draws-needed output says, in prose
        _say("        " + " · ".join(parts) + (f" ({needed})" if needed else ""))
    if carried_summary(receipt) is not None:
        _say(f"        {carried_line(receipt, outcome.carry.label, escape=str)}")
    if (pairwise := pairwise_view(receipt)) is not None:  # beside the verdict, never in it
        _say(f"pairwise {pairwise.line}")
    _say(receipt_line(str(outcome.path), receipt.verification, receipt.seal.sha256[:12]))
    shard = receipt.run.shard
    _say(shard_next_line(str(outcome.path), shard.count) if shard else next_line(str(outcome.path)))


def print_quick(outcome: RunOutcome) -> None:
    """The smoke run's one case: its answers with the skill and without it, side by side, draw by draw."""
    from rich.console import Console
    from rich.table import Table

    case = outcome.suite.cases[0]
    results = outcome.runner.results[0]
    table = Table(title=printable(quick_title(case.id)), show_lines=True, expand=True)
    table.add_column("draw", justify="right", no_wrap=True)
    table.add_column("with the skill", ratio=1, overflow="fold")
    table.add_column("without it", ratio=1, overflow="fold")
    for index in sorted(set(results["with_skill"]) | set(results["baseline"])):
        cells = []
        for arm in ("with_skill", "baseline"):
            r = results[arm].get(index)
            if r is None:
                cells.append("")
                continue
            score = f"score {r.draw.score:.2f}" if r.draw.score is not None else f"lost: {r.draw.lost_reason}"
            cells.append(printable(f"[{score}]\n{(r.answer or '').rstrip() or NO_ANSWER}"))
        table.add_row(str(index + 1), *cells)
    Console(highlight=False, markup=False, soft_wrap=False).print(table)


def print_regrade(outcome: RegradeOutcome) -> None:
    """The closing lines of a regrade: what it graded and carried, the calls it made, then the status."""
    receipt = outcome.receipt
    regrade, reading = receipt.regrade, read_receipt(receipt)
    assert regrade is not None
    _say(regrade_line(regrade))
    for carried in regrade.carried:
        _say(f"        carried {carried.case} {carried.arm} draw {carried.index + 1}: {carried.reason}")
    per_1k = signed_or_na(reading.lift_per_1k) if reading.lift_per_1k is not None else None
    _say(status_line(STATUS_WORDS[reading.status], signed_or_na(reading.lift), reading.lift_spread, per_1k))
    if reading.no_verdict_reason:
        _say(f"        {context_only(reading.no_verdict_reason)}")
    _say(receipt_line(str(outcome.path), receipt.verification, receipt.seal.sha256[:12]))
