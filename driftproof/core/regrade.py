"""May these kept answers be graded again, and by this grader? The refusals of ``driftproof regrade``. Pure.

A regrade grades the answers a run kept (``--keep-transcripts``) again, drawing none: under a revised rubric or
revised criteria (``rubric``), or under the same rubric with fresh judge samples (``judge``). Its figures mean
something only when the grader is the original's in every recorded setting, so each setting is compared and a
difference refuses the regrade; a setting the original does not record cannot be compared and refuses it too.
The judge's model, and the dated model it answered as, are held the same way: the dated ids are known only
once the grader has replied, so `answered_as` is checked after grading and before anything is written.

>>> from driftproof.core.models import Judge
>>> j = Judge(provider="stub", surface="none", model_requested="stub-judge", template_sha256="a" * 64,
...           grading_code_sha256="b" * 64, tool_version="driftproof-stub 0.1.0", isolation="none", routing={})
>>> grader_refusals(j, j)
[]
>>> grader_refusals(j, j.model_copy(update={"model_requested": "other"}))
["the grader's model differs: 'stub-judge' in the original, 'other' now"]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from driftproof.core.models import Case, Judge, Receipt, Regrade, Shard
from driftproof.core.pairwise_sentences import NOT_REGRADABLE_PAIRWISE
from driftproof.core.reading import not_regradable
from driftproof.core.shard_sentences import MERGED_KEEPS_NO_ANSWERS, left_out_of_split, not_in_split
from driftproof.core.words import Verification

GRADER_SETTINGS: tuple[tuple[str, str], ...] = (
    ("provider", "service (provider)"),
    ("surface", "service (surface)"),
    ("model_requested", "model"),
    ("sampling", "sampling"),
    ("template_version", "instructions (template version)"),
    ("template_sha256", "instructions (template sha256)"),
    ("tool_version", "tool version"),
    ("isolation", "isolation"),
    ("base_url", "address (base URL)"),
    ("routing", "routing settings"),
    ("grading_code_sha256", "code on the grading path (grading-code sha256)"),
)
"""Each recorded setting of the grader a regrade compares, with its name in a refusal."""

CHECKS_NOT_RUN_AGAIN = (
    "the revised task's checks differ from the ones run, and checks are never run again: each answer keeps the "
    "check results of the run that drew it"
)
"""The notice on a case whose revised checks are not the ones its answers were checked with."""

RECORDED_ONLY_SINCE_0_16 = ("tool_version", "isolation", "routing")
"""Settings no receipt before 0.16 records: an original without them cannot hold a grader to them."""

REQUIRED = ("model_requested", "template_sha256", "grading_code_sha256", *RECORDED_ONLY_SINCE_0_16)
"""Settings that must be recorded (``null`` means not recorded; a ``null`` base URL is the vendor's own)."""


def _shown(value: object) -> str:
    return repr(value) if not isinstance(value, dict) else repr(dict(sorted(value.items())))


def grader_refusals(original: Judge, today: Judge) -> list[str]:
    """Every recorded setting in which today's grader is not the original's, or that the original lacks."""
    refusals = []
    for name, label in GRADER_SETTINGS:
        then, now = getattr(original, name), getattr(today, name)
        if name in REQUIRED and then is None:
            refusals.append(f"the original does not record the grader's {label}, so no grader can be held to it")
        elif then != now:
            refusals.append(f"the grader's {label} differs: {_shown(then)} in the original, {_shown(now)} now")
    return refusals


def receipt_refusals(receipt: Receipt) -> list[str]:
    """Why a receipt's answers cannot be graded again at all, before its archive is read."""
    imported = not_regradable(receipt)
    if imported is not None:
        return [imported]
    refusals = [NOT_REGRADABLE_PAIRWISE] if receipt.judge is not None and receipt.judge.pairwise else []
    if receipt.transcripts is None and receipt.shards is not None:
        refusals.append(MERGED_KEEPS_NO_ANSWERS)
    elif receipt.transcripts is None:
        refusals.append("it kept no answers (run with --keep-transcripts to keep them)")
    if receipt.judge is None:
        refusals.append("it records no judge")
    else:
        refusals += identity_refusals(receipt)
    return refusals


def identity_refusals(receipt: Receipt) -> list[str]:
    """The original's judge identity: recorded at all, per sample, and never anonymous."""
    samples = [
        s
        for case in receipt.cases
        for arm in (case.with_skill, case.baseline)
        for draw in arm.draws
        for s in draw.judge_samples
        if s.returned is not False
    ]
    if receipt.judge is None or not receipt.judge.models_reported:
        return ["it records no judge identity: no judge reply reported a model"]
    if any(s.reported_ids is None for s in samples):
        return ["its judge samples carry no identity evidence (written before 0.16)"]
    if any(not s.reported_ids for s in samples):
        return ["a judge reply it recorded is anonymous (it reported no model)"]
    return []


def answered_as(original: Judge, reported: Iterable[str]) -> str | None:
    """Why the dated model today's grader answered as is not one the original's answered as; ``None`` if it is."""
    today = sorted(set(reported))
    if not today:
        return "the grader's replies reported no model (anonymous replies)"
    foreign = [i for i in today if i not in original.models_reported]
    if foreign:
        was = ", ".join(original.models_reported)
        return f"the grader answered as {', '.join(foreign)}; the original's answered as {was}"
    return None


def split_refusals(shard: Shard, ids: Sequence[str]) -> list[str]:
    """A shard receipt's tasks (their case ids) against the suite it was split from: the same ids, so each
    shard's regrade grades the cases it drew (``run.shard.case_ids``) and the regraded shards merge again.

    >>> split_refusals(Shard(index=1, count=2, case_ids=["a"], suite_case_ids=["a", "b"]), ["a", "b"])
    []
    """
    then = set(shard.suite_case_ids)
    refusals = [not_in_split(repr(i), shard.index, shard.count) for i in ids if i not in then]
    now = set(ids)
    refusals += [left_out_of_split(repr(i), shard.index, shard.count) for i in shard.suite_case_ids if i not in now]
    return refusals


def case_refusals(original: Sequence[Case], revised: Sequence[tuple[str, str]]) -> list[str]:
    """The revised tasks (id, prompt sha256) against the original's cases: the same ids, the same prompts."""
    then = {c.id: c.prompt_sha256 for c in original}
    now = dict(revised)
    refusals = [f"case {i!r} is not in the original: it has no kept answers to grade" for i in now if i not in then]
    refusals += [
        f"case {i!r} of the original is missing from the tasks: its answers would go ungraded"
        for i in then
        if i not in now
    ]
    for i, sha in now.items():
        if i in then and then[i] is None:
            refusals.append(f"case {i!r}: the original records no prompt hash, so its answers cannot be matched")
        elif i in then and then[i] != sha:
            refusals.append(f"case {i!r}: its prompt changed, so its kept answers answer another task (run it again)")
    return refusals


def level(original: Receipt, regraded: tuple[Verification, str | None]) -> tuple[Verification, str | None]:
    """The regrade's level: never above the original's (an UNVERIFIED original stays UNVERIFIED)."""
    if original.verification != Verification.TESTED:
        return original.verification, original.verification_reason
    return regraded


def regrade_line(regrade: Regrade) -> str:
    """What a regrade did, in one line (the terminal and the view).

    >>> from driftproof.core.models import RegradeCalls, Tool
    >>> j = Judge(provider="stub", surface="none")
    >>> regrade_line(Regrade(kind="judge", original_sha256="a" * 64, original_tool=Tool(name="d", version="1"),
    ...     answers_sha256="b" * 64, suite_sha256="c" * 64, original_judge=j, graded=11,
    ...     calls=RegradeCalls(judge_calls=22, endpoint_attempts=0)))
    'plain judge regrade of aaaaaaaaaaaa: graded 11 kept answers, carried 0; 22 judge calls, 0 endpoint attempts'
    """
    kind = "rubric regrade" if regrade.kind == "rubric" else "plain judge regrade"
    calls = regrade.calls
    of = regrade.original_sha256[:12] if regrade.original_sha256 else "each shard's original (merged)"
    return (
        f"{kind} of {of}: graded {regrade.graded} kept answers, carried "
        f"{len(regrade.carried)}; {calls.judge_calls} judge calls, {calls.endpoint_attempts} endpoint attempts"
    )
