"""Judge-anchor canaries in a run: which set (the suite's or the default one), judged through the run's judge.

Every run re-judges each canary with the run's judge lane, its sampling and its judge-samples count, through the
same request and parsing as a draw's answer (`driftproof.judge.judge_request`, `driftproof.answers.judge_sample`,
the samples grouped as the lane allows: `driftproof.judge_batch`). The canaries are judged before the first
draw, concurrently up to ``--concurrency``, sent as they are (never through a batch API, with ``--batch`` too);
their calls are counted apart from the run's and priced apart, at the judge's list price
(``economics.judge_overhead.canaries``). Each sample is journaled as it comes back (`driftproof.journal_passes`):
a resumed run asks only for the samples the journal lacks. A reply that does not report the requested judge is
left out of the figures (`driftproof.canary_identity`). The rule that reads their scores is
`driftproof.core.canaries`.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from driftproof.answers import judge_sample
from driftproof.bounded import INPUT, load_data
from driftproof.canary_identity import checked_samples
from driftproof.core import economics
from driftproof.core.canaries import AnchorSpec, canary_score, read_anchors
from driftproof.core.canary_models import Canaries
from driftproof.core.canary_sentences import judging_line
from driftproof.core.models import CanaryOverhead, JudgeSample, Price, Usage
from driftproof.core.seal import sha256_text
from driftproof.errors import InputError
from driftproof.journal import Journal
from driftproof.journal_passes import PassesRestored, canary_entry
from driftproof.judge import judge_request, rubric_hash
from driftproof.judge_batch import sample_groups, split_samples
from driftproof.lanes.base import FATAL, Generation, Lane
from driftproof.lanes.stub import CANARY_ARM
from driftproof.native_suite import MAX_CANARIES, CanaryIn
from driftproof.runner import RunOptions
from driftproof.safe_text import printable
from driftproof.stop_lines import stopped
from driftproof.suite import Canary, Suite, canaries_of

DEFAULT_SET = Path(__file__).with_name("default_canaries.yaml")
"""The default set, shipped with the package: used when a suite declares no ``canaries:``."""


class _DefaultSetIn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    canaries: list[CanaryIn] = Field(min_length=1, max_length=MAX_CANARIES)


@cache
def default_set() -> tuple[Canary, ...]:
    """The default canaries, each with a task of its own."""
    data = load_data(
        DEFAULT_SET.read_bytes(), str(DEFAULT_SET), as_json=False, limits=INPUT, error=InputError, what="canaries"
    )
    try:
        parsed = _DefaultSetIn.model_validate(data)
    except ValidationError as exc:  # a broken installation, not a user's mistake
        raise InputError(f"{DEFAULT_SET}: the default canaries do not validate: {exc.errors()[0]['msg']}") from None
    return canaries_of(DEFAULT_SET, parsed.canaries, ())


@dataclass(frozen=True, slots=True)
class CanarySet:
    """The canaries a run judges, and where they came from."""

    source: Literal["suite", "default"]
    canaries: tuple[Canary, ...]

    def specs(self) -> list[AnchorSpec]:
        """Each canary as the core rule reads it, with its fingerprints."""
        return [
            AnchorSpec(c.id, c.case_id, c.expected, sha256_text(c.answer), rubric_hash(c.grading))
            for c in self.canaries
        ]


def refuse_canary_clash(enabled: bool, default: bool) -> None:
    """``--no-canaries`` beside ``--default-canaries``: one of them would be ignored without a word."""
    if not enabled and default:
        raise InputError(
            "--no-canaries judges no canary and --default-canaries asks for the default set: drop one of them"
        )


def canary_set(suite: Suite, enabled: bool, *, default: bool = False) -> CanarySet | None:
    """The suite's canaries, else (``--default-canaries``) the default set; ``None`` with ``--no-canaries`` or when
    the suite has none and the default set was not asked for (both flags at once are refused)."""
    refuse_canary_clash(enabled, default)
    if not enabled:
        return None
    if suite.canaries:
        return CanarySet("suite", suite.canaries)
    return CanarySet("default", default_set()) if default else None


@dataclass(frozen=True, slots=True)
class CanaryRun:
    """The canaries as judged: the receipt's ``canaries`` and their cost."""

    record: Canaries
    overhead: CanaryOverhead
    identity: tuple[str | None, ...] = ()
    """Per returned canary sample, why its reply is not the requested judge's (`judge.sample_identity`), or
    ``None``: read by the receipt's verification level like the draws' samples."""


@dataclass(slots=True)
class CanaryJob:
    """The canaries of one run, judged once the lanes exist (`run`), read by the receipt (`result`)."""

    canaries: CanarySet
    price: Price | None
    """The judge's list price (`driftproof.core.plan.Pricing.unbatched_judge`): the canaries are never batched."""
    result: CanaryRun | None = None

    def run(
        self,
        judge: Lane,
        options: RunOptions,
        stream: Any,
        journal: Journal | None = None,
        restored: PassesRestored | None = None,
    ) -> CanaryRun:
        """Judge every canary ``options.judge_samples`` times, concurrently; print what the run does and finds.

        Each sample is journaled as it comes back; a resumed run keeps the samples ``restored`` holds and asks
        only for the others (a sample whose call failed is asked again: one judge call, its usage summed). A
        returned sample whose reply does not report the requested judge (`driftproof.judge.sample_identity`) is
        left out of the figures, its reason counted."""
        samples, canaries = options.judge_samples, self.canaries.canaries
        line = judging_line(len(canaries), self.canaries.source, samples)
        print(printable(line), file=stream, flush=True)
        kept = restored.canaries if restored is not None else {}
        got_samples: dict[int, dict[int, JudgeSample]] = {k: {} for k in range(len(canaries))}
        for k, canary in enumerate(canaries):
            for j in range(samples):
                if (canary.id, j) in kept:
                    got_samples[k][j] = kept[(canary.id, j)][0]
        usages: list[Usage | None] = list(restored.canary_spent.usages) if restored is not None else []
        missing = {k: [j for j in range(samples) if j not in got_samples[k]] for k in got_samples}
        with ThreadPoolExecutor(max_workers=options.concurrency, thread_name_prefix="driftproof-canary") as pool:
            for _round in range(3):  # a server that ignores ``n`` may leave samples out: ask again, twice at most
                if not any(missing.values()):
                    break
                asked = self._ask(pool, judge, options, missing)
                missing = {k: [] for k in got_samples}
                for (k, group), future in asked:
                    gen = future.result()
                    got = split_samples(gen, len(group))
                    self._stop_if_fatal(judge, got)
                    for j, one in zip(group, got, strict=False):
                        sample = judge_sample(canaries[k].grading, one).sample
                        got_samples[k][j] = sample
                        if journal is not None:
                            journal.write(canary_entry(canaries[k].id, j, sample, one.attempts))
                    missing[k].extend(group[len(got) :])
        usages += [s.usage for by_sample in got_samples.values() for s in by_sample.values()]
        held = [(canaries[k].id, j) for k, by_sample in got_samples.items() for j in by_sample]
        calls = len(held) + (restored.canary_spent.calls_beyond(held) if restored is not None else 0)
        specs = self.canaries.specs()
        scored, identity = [], []
        for k, spec in enumerate(specs):
            checked = checked_samples(options.judge_model, [got_samples[k].get(j) for j in range(samples)])
            scored.append(canary_score(spec, checked.scores, checked.failures, checked.reported_ids))
            identity += checked.identity
        record = read_anchors(self.canaries.source, specs, scored, samples)
        print(printable(f"driftproof: canaries: {record.sentence}"), file=stream, flush=True)
        overhead = economics.canary_overhead(self.price, usages, calls)  # a sample asked again is one call
        self.result = CanaryRun(record, overhead, tuple(identity))
        return self.result

    def _ask(
        self, pool: ThreadPoolExecutor, judge: Lane, options: RunOptions, missing: dict[int, list[int]]
    ) -> list[tuple[tuple[int, tuple[int, ...]], Future[Generation]]]:
        """Submit the judge requests of the samples ``missing``, grouped as the judge lane allows."""
        asked = []
        for k, wanted in missing.items():
            canary = self.canaries.canaries[k]
            for group in sample_groups(wanted, judge.samples_per_request()):
                request = judge_request(
                    canary.grading,
                    canary.answer,
                    model=options.judge_model,
                    max_tokens=options.judge_max_tokens,
                    arm=CANARY_ARM,
                    draw_index=0,
                    sample_index=group[0],
                )
                request = replace(request, samples=len(group), anchor=canary.expected)
                asked.append(((k, group), pool.submit(judge.generate, request)))
        return asked

    @staticmethod
    def _stop_if_fatal(judge: Lane, got: list[Generation]) -> None:
        """A failure every later call would meet too (a wrong key, a missing model) stops the run before a draw."""
        first = got[0] if got else None
        if first is not None and first.failure is not None and first.failure.kind in FATAL:
            raise stopped(judge, "judge", first.failure, first.error or "", 1)
