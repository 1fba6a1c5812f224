"""Shards: which cases ``driftproof run --shard INDEX/COUNT`` runs, and merging shard receipts into one. Pure.

The cases are ranked by the sha256 of their ids (UTF-8) and dealt to shards 1, 2, …, COUNT in turn: the split
depends on the case ids alone (not on their order in the file), every job of a matrix computes the same one, the
shards' sizes differ by at most one, and none is empty while COUNT is at most the number of cases (a larger COUNT
is refused: `too_many_shards`). Adding a case can move others to another shard; that is harmless, because shards
merge only within one suite (one ``suite.sha256``). ``driftproof merge`` takes every shard receipt of one split and
refuses, in one line naming the file and the field, shards that differ in what shapes results (`SAME`), overlap,
leave a case out, or are no shards at all (`merge_refusal`); `merged_body` is then the whole suite's receipt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from driftproof.core.economics import sum_usage, summed_cost
from driftproof.core.fields import found
from driftproof.core.models import (
    ArmUsage,
    Economics,
    Judge,
    JudgeOverhead,
    Receipt,
    Regrade,
    RegradeCalls,
    RunBudget,
    RunSettings,
    Shard,
    ShardSeal,
    Tool,
)
from driftproof.core.models import Counts as CountsRecord
from driftproof.core.pairwise import overall
from driftproof.core.shard_judging import pooled_canaries, summed_canary_overhead, summed_pairwise
from driftproof.core.shard_sentences import NOT_A_SHARD, SHARD_FORM, differs, given, missing, overlap, too_many_shards
from driftproof.core.words import Verification

MERGE = "merge"
"""The Action's ``shard`` input of the job that merges a matrix's shard receipts (``driftproof merge``)."""


@dataclass(frozen=True, slots=True)
class ShardSpec:
    """``--shard INDEX/COUNT``: shard ``index`` (from 1) of ``count``."""

    index: int
    count: int


def _whole(text: str) -> bool:
    """A whole number as written: ASCII digits, no sign, space or leading zero (``0`` itself is one).

    >>> _whole("12"), _whole("0"), _whole("01"), _whole(" 1"), _whole("+1"), _whole("²")
    (True, True, False, False, False, False)
    """
    return text.isascii() and text.isdigit() and (text == "0" or not text.startswith("0"))


def parse_shard(text: str, most: int) -> ShardSpec:
    """Read ``INDEX/COUNT``: exactly two whole numbers, 1 ≤ INDEX ≤ COUNT ≤ ``most``; a ``ValueError`` says what
    is wrong.

    >>> parse_shard("2/3", 100)
    ShardSpec(index=2, count=3)
    >>> parse_shard("4/3", 100)
    Traceback (most recent call last):
    ...
    ValueError: '4/3': INDEX must be from 1 to COUNT (3)
    """
    index, slash, count = text.partition("/")
    if not slash or not _whole(index) or not _whole(count):
        raise ValueError(f"{found(text)} is not INDEX/COUNT; {SHARD_FORM}")
    i, n = int(index), int(count)
    if not 1 <= n <= most:
        raise ValueError(f"{found(text)}: COUNT must be from 1 to {most}")
    if not 1 <= i <= n:
        raise ValueError(f"{found(text)}: INDEX must be from 1 to COUNT ({n})")
    return ShardSpec(i, n)


def shard_of(case_ids: Sequence[str], count: int) -> dict[str, int]:
    """The shard (from 1) of each case: ranked by sha256 of its id, the k-th (from 0) goes to shard k mod count + 1.

    >>> shard_of(["a", "b", "c", "d"], 3)  # sha256: "c" 2e7d…, "b" 3e23…, "a" ca97…, "d" 18ac… → d, c, b, a
    {'a': 1, 'b': 3, 'c': 2, 'd': 1}
    """
    ranked = sorted(case_ids, key=lambda c: hashlib.sha256(c.encode("utf-8")).hexdigest())
    return {c: k % count + 1 for k, c in sorted(enumerate(ranked), key=lambda kc: kc[1])}


def shard_cases(case_ids: Sequence[str], spec: ShardSpec) -> list[str]:
    """The ids of the cases of ``spec``, in suite order; more shards than cases raise ``ValueError``."""
    if spec.count > len(case_ids):
        raise ValueError(too_many_shards(spec.count, len(case_ids)))
    falls = shard_of(case_ids, spec.count)
    return [c for c in case_ids if falls[c] == spec.index]


def shard_record(case_ids: Sequence[str], spec: ShardSpec) -> Shard:
    """The ``run.shard`` of a shard receipt."""
    return Shard(
        index=spec.index, count=spec.count, case_ids=shard_cases(case_ids, spec), suite_case_ids=list(case_ids)
    )


def _lane(r: Receipt) -> object:
    return r.run.lane.model_dump(mode="json", exclude={"models_reported"})


def _reported_aside(judge: Judge) -> object:
    return judge.model_dump(mode="json", exclude={"models_reported"})


def _judge(r: Receipt) -> object:
    return None if r.judge is None else _reported_aside(r.judge)


def _dump(value: object) -> object:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value


SPENT = ("committed_tokens", "committed_usd", "canaries_tokens", "stopped_cases", "needed_tokens", "needed_usd")
"""What a shard's budget records of its own spending: summed by the merge (`merged_budget`), never compared."""

SETTINGS = ("stopping_rule", *(name for name in RunSettings.model_fields if name != "stopping_rule"))
"""Every ``run.settings`` field, from the model itself (so none added later is left out), the stopping rule first."""


def _setting(name: str) -> Callable[[Receipt], object]:
    """A shard's ``run.settings`` field as merge compares it: the budget by what it was given, not what it spent."""
    if name == "budget":
        return lambda r: None if r.run.settings.budget is None else r.run.settings.budget.model_dump(exclude=set(SPENT))
    return lambda r: _dump(getattr(r.run.settings, name))


SAME: tuple[tuple[str, Callable[[Receipt], object]], ...] = (
    ("schema_version", lambda r: r.schema_version),
    ("tool.version", lambda r: r.tool.version),
    ("suite.sha256", lambda r: r.suite.sha256),
    ("skill.sha256", lambda r: None if r.skill is None else r.skill.sha256),
    ("run.shard.count", lambda r: r.run.shard.count if r.run.shard else None),
    ("run.shard.suite_case_ids", lambda r: r.run.shard.suite_case_ids if r.run.shard else None),
    ("run.lane", _lane),
    ("run.harness", lambda r: _dump(r.run.harness)),
    ("run.capture", lambda r: r.run.capture),
    ("run.preset", lambda r: r.run.preset),
    *((f"run.settings.{name}", _setting(name)) for name in SETTINGS),
    ("run.sampling", lambda r: r.run.sampling),
    ("judge", _judge),
    ("economics.judge_overhead.price", lambda r: _dump(r.economics.judge_overhead.price)),
    ("placebo", lambda r: _dump(r.placebo)),  # --placebo on every shard or none, the same text
    *((f"canaries.{name}", lambda r, n=name: getattr(r.canaries, n) if r.canaries else None) for name in (
        "source", "set_sha256", "judge_samples", "tolerance",  # every shard judged the same canaries alike
    )),
    # regraded shards merge only with shards regraded alike: the same kind, tasks, original runner and grader
    ("regrade.kind", lambda r: r.regrade.kind if r.regrade else None),
    ("regrade.suite_sha256", lambda r: r.regrade.suite_sha256 if r.regrade else None),
    ("regrade.original_tool", lambda r: _dump(r.regrade.original_tool) if r.regrade else None),
    ("regrade.original_judge", lambda r: _reported_aside(r.regrade.original_judge) if r.regrade else None),
)  # fmt: skip
"""Every field a shard must share with the first, by its name in a refusal (models reported may differ)."""


SHOWN_CHARS = 240
"""The most characters of one value a refusal shows (a stopping rule is about 95)."""


def _brief(value: object) -> object:
    """``value`` with every sha256 cut to its first 12 digits, as ``driftproof stale`` shows a hash."""
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:12]
    if isinstance(value, dict):
        return {k: _brief(v) for k, v in value.items()}
    return [_brief(v) for v in value] if isinstance(value, list) else value


def _shown(value: object) -> str:
    """A value as a refusal shows it: text quoted in full, a hash by 12 digits, a mapping or list as JSON.

    >>> _shown("a" * 64), _shown("settle-v2(min=3)"), _shown(None), _shown({"b": 1, "a": [True]})
    ('aaaaaaaaaaaa', "'settle-v2(min=3)'", 'null', '{"a":[true],"b":1}')
    """
    brief = _brief(value)
    if isinstance(brief, (dict, list)):
        text = json.dumps(brief, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    elif isinstance(brief, str):
        text = brief if brief != value else repr(brief)
    else:
        text = found(brief)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def first_difference(field: str, there: object, here: object) -> tuple[str, object, object]:
    """Where two values first differ, as a dotted field and both values there: into mappings key by key (in
    order), into lists of one length item by item; anything else differs as a whole.

    >>> first_difference("judge", {"model": "a", "pairwise": None}, {"model": "a", "pairwise": {"v": 1}})
    ('judge.pairwise', None, {'v': 1})
    >>> first_difference("ids", ["a", "b"], ["a", "c"]), first_difference("ids", ["a"], ["a", "b"])
    (('ids[1]', 'b', 'c'), ('ids', ['a'], ['a', 'b']))
    """
    if isinstance(there, dict) and isinstance(here, dict):
        for key in [*there, *(k for k in here if k not in there)]:
            if there.get(key) != here.get(key):
                return first_difference(f"{field}.{key}", there.get(key), here.get(key))
    if isinstance(there, list) and isinstance(here, list) and len(there) == len(here):
        for index, (a, b) in enumerate(zip(there, here, strict=True)):
            if a != b:
                return first_difference(f"{field}[{index}]", a, b)
    return field, there, here


def merge_refusal(shards: Sequence[tuple[str, Receipt]]) -> str | None:
    """Why these receipts cannot merge, as ``FILE: field: reason``; ``None`` when they can.

    Each must be a shard; each must share every `SAME` field with the first; its cases must be the ones its
    ``run.shard.case_ids`` names; no case may be in two shards; every case of the suite must be in one (that one
    names the shards given, not a file: no file is wrong, one is missing).
    """
    owner: dict[str, str] = {}
    first_name, first = shards[0]
    for name, receipt in shards:
        shard = receipt.run.shard
        if shard is None:
            return f"{name}: run.shard: {NOT_A_SHARD}"
        for field, get in SAME:
            if (here := get(receipt)) != (there := get(first)):
                where, was, now = first_difference(field, _dump(there), _dump(here))
                return f"{name}: {where}: {differs(_shown(was), _shown(now), first_name)}"
        if [c.id for c in receipt.cases] != shard.case_ids:
            return f"{name}: cases: the case ids are not those run.shard.case_ids names ({_shown(shard.case_ids)})"
        for case_id in shard.case_ids:
            if case_id in owner:
                return f"{name}: run.shard.case_ids: {overlap(found(case_id), owner[case_id])}"
            owner[case_id] = name
    suite = first.run.shard.suite_case_ids if first.run.shard else []
    absent = [c for c in suite if c not in owner]
    if absent:
        count = first.run.shard.count if first.run.shard else 1
        why = missing(found(absent[0]), shard_of(suite, count)[absent[0]], count, len(absent) - 1)
        return f"{given(len(shards))}: run.shard.suite_case_ids: {why}"
    return None


LEVELS = (Verification.UNVERIFIED, Verification.DECLARED, Verification.TESTED)
"""Verification levels from lowest to highest: a merged receipt reads its lowest shard's."""


def _total(values: Sequence[int | None]) -> int | None:
    """The sum, or ``None`` when any shard did not record the count."""
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def merged_budget(budgets: Sequence[RunBudget | None]) -> RunBudget | None:
    """The merged receipt's ``run.settings.budget``: each shard's budget (``merge_refusal`` held them equal), and
    what the shards committed, stopped and needed, summed. A shard that refused no draw needed what it committed.

    >>> b = RunBudget(tokens=100, max_tokens=8, committed_tokens=60)
    >>> m = merged_budget([b, b.model_copy(update={"committed_tokens": 70, "stopped_cases": 1, "needed_tokens": 90})])
    >>> m.tokens, m.committed_tokens, m.stopped_cases, m.needed_tokens  # 60 + 70; 0 + 1; 60 + 90
    (100, 130, 1, 150)
    """
    if not budgets or any(b is None for b in budgets):
        return None
    given = [b for b in budgets if b is not None]
    stopped = any(b.stopped_cases for b in given)
    return given[0].model_copy(
        update={
            "committed_tokens": sum(b.committed_tokens for b in given),
            "committed_usd": summed_cost(b.committed_usd for b in given),
            "canaries_tokens": _total([b.canaries_tokens for b in given]),  # canaries on every shard or none
            "stopped_cases": sum(b.stopped_cases for b in given),
            "needed_tokens": sum(b.needed_tokens or b.committed_tokens for b in given) if stopped else None,
            "needed_usd": summed_cost(b.needed_usd if b.stopped_cases else b.committed_usd for b in given)
            if stopped
            else None,
        }
    )


def merged_regrade(records: Sequence[Regrade | None]) -> Regrade | None:
    """The merged receipt's ``regrade`` when every shard is a regrade (``merge_refusal`` held them alike): what
    they graded, carried and called, summed; each shard's original and answers stay named in its own receipt."""
    if not records or any(r is None for r in records):
        return None
    given = [r for r in records if r is not None]
    judge = given[0].original_judge
    reported = sorted({m for r in given for m in r.original_judge.models_reported})
    return given[0].model_copy(
        update={
            "original_sha256": None,
            "answers_sha256": None,
            "original_judge": judge.model_copy(update={"models_reported": reported}),
            "graded": sum(r.graded for r in given),
            "carried": [c for r in given for c in r.carried],
            "calls": RegradeCalls(
                judge_calls=sum(r.calls.judge_calls for r in given),
                endpoint_attempts=sum(r.calls.endpoint_attempts for r in given),
            ),
        }
    )


def merged_body(receipts: Sequence[Receipt], tool: Tool, created_at: str) -> dict[str, Any]:
    """The body of the merged receipt (for `seal_receipt`) of shards `merge_refusal` accepted.

    Cases in suite order; call counts, usage and the judge's cost summed (each shard priced its own calls, with
    ``--batch`` its judge samples at the batch price and its canary and pairwise calls at the list price);
    models reported united; the level and its reason the lowest shard's; each shard's seal in ``shards``.
    Answers archives stay with their shard receipts (``transcripts`` is null).
    """
    ordered = sorted(receipts, key=lambda r: r.run.shard.index if r.run.shard else 0)
    first = ordered[0]
    by_id = {c.id: c for r in ordered for c in r.cases}
    suite_ids = first.run.shard.suite_case_ids if first.run.shard else list(by_id)
    lowest = min(ordered, key=lambda r: LEVELS.index(Verification(r.verification)))
    runs = [r.run for r in ordered]
    run = first.run.model_copy(
        update={
            "lane": first.run.lane.model_copy(
                update={"models_reported": sorted({m for r in runs for m in r.lane.models_reported})}
            ),
            "started_at": min((r.started_at for r in runs if r.started_at), default=None),
            "finished_at": max((r.finished_at for r in runs if r.finished_at), default=None),
            "logical_calls": _total([r.logical_calls for r in runs]),
            "endpoint_attempts": _total([r.endpoint_attempts for r in runs]),
            "shard": None,
            "settings": first.run.settings.model_copy(
                update={"budget": merged_budget([r.run.settings.budget for r in ordered])}
            ),
        }
    )
    judge = first.judge
    if judge is not None:
        reported = sorted({m for r in ordered if r.judge for m in r.judge.models_reported})
        judge = judge.model_copy(update={"models_reported": reported})
    overheads = [r.economics.judge_overhead for r in ordered]
    usage = sum_usage([o.usage for o in overheads])
    pairwise = summed_pairwise([o.pairwise_usage for o in overheads], [o.pairwise_calls for o in overheads])
    cases = [by_id[c] for c in suite_ids]
    lows = [r.counts.draws_per_arm_min for r in ordered if r.counts.draws_per_arm_min is not None]
    highs = [r.counts.draws_per_arm_max for r in ordered if r.counts.draws_per_arm_max is not None]
    return {
        "tool": tool,
        "created_at": created_at,
        "verification": lowest.verification,
        "verification_reason": lowest.verification_reason,
        "run": run,
        "skill": first.skill,
        "suite": first.suite,
        "judge": judge,
        "counts": CountsRecord(
            draws_per_arm_min=min(lows, default=None),
            draws_per_arm_max=max(highs, default=None),
            judge_samples_per_draw=first.counts.judge_samples_per_draw,
        ),
        "cases": cases,
        "canaries": pooled_canaries([r.canaries for r in ordered]),
        "pairwise_summary": overall([c.pairwise for c in cases]),
        "placebo": first.placebo,
        "economics": Economics(
            generation=ArmUsage(
                with_skill=sum_usage([r.economics.generation.with_skill for r in ordered]),
                baseline=sum_usage([r.economics.generation.baseline for r in ordered]),
                placebo=sum_usage([r.economics.generation.placebo for r in ordered]) if first.placebo else None,
            ),
            judge_overhead=JudgeOverhead(
                model=overheads[0].model,
                price=overheads[0].price,
                usage=usage,
                cost_usd=summed_cost(o.cost_usd for o in overheads),
                judged_draws_counted=_total([o.judged_draws_counted for o in overheads]),
                judged_draws_missing_usage=_total([o.judged_draws_missing_usage for o in overheads]),
                canaries=summed_canary_overhead([o.canaries for o in overheads]),
                pairwise_usage=pairwise.usage,
                pairwise_calls=pairwise.calls,
            ),
        ),
        "regrade": merged_regrade([r.regrade for r in ordered]),
        "shards": [
            ShardSeal(
                index=r.run.shard.index,
                count=r.run.shard.count,
                cases=len(r.cases),
                verification=r.verification,
                sha256=r.seal.sha256,
            )
            for r in ordered
            if r.run.shard is not None
        ],
    }
