"""The pairwise pass (``--judge-mode pairwise``): once every draw is judged, each draw pair side by side, twice.

`PairCollector` is handed every finished draw (the runner's ``on_draw``) and keeps an answer's text only until
the draw of the other arm with the same index finishes, so a full run still drops its texts as it goes. When the
runner is done, `judge_pairs` makes the two calls of every pair (with-skill as A, then swapped) through the
judge lane, at most ``concurrency`` at a time, and stores the results by case and draw index, so the receipt
does not depend on timing. Every call is one logical call and its attempts are endpoint attempts, counted in the
runner's tally: a call whose attempts all failed and that ``--resume`` asks again is still one logical call, the
attempts of both runs counted. A failed call is kept as a call with no choice; the run does not stop for it (the
absolute scores, which decide everything, are already in). Each call is journaled as it comes back
(`driftproof.journal_passes`): ``--resume`` keeps the calls that returned a reply and asks only for the others.
With ``--batch`` too, the calls are sent as they are, never through a batch API: billed at the judge's list price
(`driftproof.core.plan.Pricing.unbatched_judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import NamedTuple, TextIO

from driftproof.core.models import PairwiseResult
from driftproof.core.pairwise import pair_result
from driftproof.core.pairwise_models import PairwiseCall
from driftproof.core.pairwise_sentences import pairwise_start_line
from driftproof.journal import DrawResult, Journal
from driftproof.journal_passes import PassesRestored, pairwise_entry
from driftproof.judge_pairwise import PAIR_ORDERS, pairwise_call, pairwise_request
from driftproof.lanes.base import Generation, Lane
from driftproof.runner import Runner, Tally
from driftproof.suite import SuiteCase


class Pair(NamedTuple):
    """Two answered draws with the same index: case ``ci``'s with-skill draw and baseline draw ``draw_index``."""

    ci: int
    draw_index: int
    with_skill: str
    baseline: str


@dataclass
class PairCollector:
    """Pairs the answered draws of both arms by index, as they finish (the runner's ``on_draw``)."""

    pairs: list[Pair] = field(default_factory=list)
    _waiting: dict[tuple[int, str, int], str] = field(default_factory=dict)

    def add(self, ci: int, arm: str, result: DrawResult) -> None:
        """Keep an answered draw's text until its partner comes; a draw lost before judging pairs with none."""
        if not result.judged or not result.answer:
            return
        other = "baseline" if arm == "with_skill" else "with_skill"
        partner = self._waiting.pop((ci, other, result.draw.index), None)
        if partner is None:
            self._waiting[(ci, arm, result.draw.index)] = result.answer
            return
        texts = (result.answer, partner) if arm == "with_skill" else (partner, result.answer)
        self.pairs = [p for p in self.pairs if (p.ci, p.draw_index) != (ci, result.draw.index)]  # a resumed draw again
        self.pairs.append(Pair(ci, result.draw.index, *texts))


@dataclass(frozen=True, slots=True)
class PairwiseJudging:
    """What the pass needs: the judge lane, the requested judge model, its output ceiling, the calls in flight."""

    judge: Lane
    judge_model: str | None
    max_tokens: int
    concurrency: int


def judge_pairs(
    cases: Sequence[SuiteCase],
    pairs: Sequence[Pair],
    how: PairwiseJudging,
    tally: Tally,
    journal: Journal | None = None,
    restored: PassesRestored | None = None,
) -> dict[int, list[PairwiseResult]]:
    """Both calls of every pair; by case index, each case's pairs in draw order (every case has a list).

    Each call is journaled as it comes back; the calls ``restored`` holds (a resumed run) are kept, not asked
    again, and counted with the journal's other calls. A journaled call that failed is asked again: its attempts
    count, but it and the call asking it again are one logical call (`Spent.calls_beyond`)."""

    def call(pair: Pair, k: int) -> Generation:
        request = pairwise_request(
            cases[pair.ci],
            pair.with_skill,
            pair.baseline,
            k,
            model=how.judge_model,
            max_tokens=how.max_tokens,
            draw_index=pair.draw_index,
        )
        return how.judge.generate(request)

    kept = restored.pairwise if restored is not None else {}
    if restored is not None:
        asked = [(cases[p.ci].id, p.draw_index, k) for p in pairs for k in range(len(PAIR_ORDERS))]
        tally.logical_calls += restored.pairwise_spent.calls_beyond(asked)
        tally.endpoint_attempts += restored.pairwise_spent.attempts
    made: dict[tuple[int, int], PairwiseCall] = {}
    jobs = []
    for n, pair in enumerate(pairs):
        for k in range(len(PAIR_ORDERS)):
            old = kept.get((cases[pair.ci].id, pair.draw_index, k))
            if old is None:
                jobs.append((n, k))
                continue
            made[(n, k)] = old[0]
            tally.logical_calls += 1
            tally.endpoint_attempts += old[1]
    with ThreadPoolExecutor(max_workers=max(1, how.concurrency), thread_name_prefix="driftproof-pairwise") as pool:
        futures = {pool.submit(call, pairs[n], k): (n, k) for n, k in jobs}
        for future in as_completed(futures):  # journaled as each comes back; stored by pair and order
            n, k = futures[future]
            gen = future.result()
            tally.logical_calls += 1
            tally.endpoint_attempts += gen.attempts
            made[(n, k)] = pairwise_call(gen, k, how.judge_model)
            if journal is not None:
                pair = pairs[n]
                journal.write(pairwise_entry(cases[pair.ci].id, pair.draw_index, k, made[(n, k)], gen.attempts))
    results: dict[int, list[PairwiseResult]] = {ci: [] for ci in range(len(cases))}
    for n, pair in enumerate(pairs):
        results[pair.ci].append(pair_result(pair.draw_index, made[(n, 0)], made[(n, 1)]))
    for ci in results:
        results[ci].sort(key=lambda r: r.draw_index)
    return results


def run_pairwise(
    runner: Runner,
    pairs: PairCollector,
    stream: TextIO,
    journal: Journal | None = None,
    restored: PassesRestored | None = None,
) -> dict[int, list[PairwiseResult]]:
    """The pass of a finished run: says what it will call, then judges every pair through the run's judge; the
    calls a resumed run's journal holds are not asked again."""
    print(pairwise_start_line(len(pairs.pairs)), file=stream, flush=True)
    runner.tally.planned += 2 * len(pairs.pairs)  # the progress line's total counts the pass's calls too
    how = PairwiseJudging(
        runner.judge, runner.options.judge_model, runner.options.judge_max_tokens, runner.options.concurrency
    )
    if journal is not None:
        journal.open(fresh=False)  # the runner closed it: the pass's calls are appended
    return judge_pairs(runner.suite.cases, pairs.pairs, how, runner.tally, journal, restored)
