"""promptfoo ``promptfoo eval -o results.json`` (``results.version`` 3) → a DECLARED receipt. Pure.

The config marks the two arms by label: the prompt (``prompts[].label``) or the provider (``providers[].label``)
labelled ``with_skill`` is the with-skill arm, the one labelled ``baseline`` the baseline; with no ``baseline``
there is one arm and no comparison, and with no ``with_skill`` the file is refused. Each test (its
``description``, else ``test-N`` in first-seen order) is a case; each of its results in an arm, in ``testIdx``
order (``--repeat N`` writes N), is a draw scored by promptfoo's ``score``, with each assertion's pass or fail as
a check beside it. A result promptfoo failed with an error (``failureReason`` 2) is lost with its error; a cell it
never ran because the eval ran out of time (``PROMPTFOO_MAX_EVAL_TIME_MS``) is lost as ``not_run`` and marks the
run partial.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from driftproof.core.build import arm_of
from driftproof.core.fields import Fields
from driftproof.core.import_source_sentences import (
    PROMPTFOO_BASELINE,
    PROMPTFOO_OUT_OF_TIME,
    PROMPTFOO_SINGLE_ARM,
    PROMPTFOO_UNKNOWN,
    PROMPTFOO_WITH_SKILL,
    errored,
    marked_twice,
    no_arm_marker,
    one_file,
    partial_run,
    unmarked_cell,
)
from driftproof.core.imports.common import (
    SourceDoc,
    Written,
    declared_receipt,
    document,
    drawn_counts,
    empty_arm,
    source,
    top_of,
)
from driftproof.core.models import Case, CheckResult, Draw, Harness, Lane, Receipt, Run, Suite, Usage
from driftproof.core.words import ArmName, DrawStatus, ImportKind, Surface

HARNESS = "promptfoo"
WHAT = "a promptfoo results file"
VERSION = 3
ARM_LABELS = {PROMPTFOO_WITH_SKILL: ArmName.WITH_SKILL, PROMPTFOO_BASELINE: ArmName.BASELINE}
#: promptfoo's ``ResultFailureReason``: 0 none, 1 an assertion failed, 2 an error.
ERROR = 2


def _label(obj: Fields | None) -> str:
    return (obj.opt_text("label") or "") if obj is not None else ""


def _axis(top: Fields, results: list[Fields]) -> str:
    """``prompt`` or ``provider``: which the config labelled with the arms; refused when neither or both."""
    prompts = [_label(p) for p in top.objs("prompts", optional=True)]
    providers = sorted({_label(r.opt_obj("provider")) for r in results})
    on_prompts = [x for x in prompts if x in ARM_LABELS]
    on_providers = [x for x in providers if x in ARM_LABELS]
    for marked in (on_prompts, on_providers):
        for label in ARM_LABELS:
            if marked.count(label) > 1:
                raise top.refuse("prompts", marked_twice(label))
    if on_prompts and on_providers:
        raise top.refuse("prompts", marked_twice(on_prompts[0]))
    marked = on_prompts or on_providers
    if PROMPTFOO_WITH_SKILL not in marked:
        raise top.refuse("prompts", no_arm_marker([x for x in [*prompts, *providers] if x]))
    return "prompt" if on_prompts else "provider"


def _draw(index: int, result: Fields) -> tuple[Draw, bool]:
    """One result as a draw, and whether it is a cell the eval never ran (out of time)."""
    tokens = (result.opt_obj("response") or result).opt_obj("tokenUsage")
    usage = Usage(
        input_tokens=tokens.opt_count("prompt") if tokens else None,
        output_tokens=tokens.opt_count("completion") if tokens else None,
        cost_usd=result.opt_number("cost"),
    )
    if result.opt_count("failureReason") == ERROR:
        error = result.opt_text("error") or "error"
        first = error.strip().splitlines()[0] if error.strip() else "error"
        if first.startswith(PROMPTFOO_OUT_OF_TIME):
            lost = Draw(index=index, status=DrawStatus.LOST, lost_reason=f"not_run: {first}", source_outcome="not_run")
            return lost, True
        return Draw(
            index=index, status=DrawStatus.LOST, lost_reason=errored(first), usage=usage, source_outcome="error"
        ), False
    score = result.number("score")
    if not 0.0 <= score <= 1.0:
        raise result.refuse("score", f"{score!r} is outside 0..1, the judge scale")
    grading = result.opt_obj("gradingResult")
    checks = []
    for part in grading.objs("componentResults", optional=True) if grading else []:
        assertion = part.opt_obj("assertion")
        kind = (assertion.opt_text("type") if assertion else None) or "assertion"
        passed = part.opt_flag("pass")
        if passed is not None:
            checks.append(CheckResult(name=f"promptfoo.{kind}", kind=kind, passed=passed))
    success = result.opt_flag("success")
    outcome = None if success is None else ("pass" if success else "fail")
    draw = Draw(
        index=index, status=DrawStatus.MEASURED, score=score, usage=usage, checks=checks, source_outcome=outcome
    )
    return draw, False


def _case_key(result: Fields, seen: dict[str, str]) -> str:
    test = result.opt_obj("testCase")
    described = test.opt_text("description") if test is not None else None
    if described:
        return described
    vars_json = json.dumps(result.data.get("vars"), sort_keys=True)
    return seen.setdefault(vars_json, f"test-{len(seen) + 1}")


def import_promptfoo(docs: Sequence[SourceDoc], written: Written) -> Receipt:
    """One ``results.json`` as a DECLARED receipt: a case per test, a draw per result in each arm."""
    if len(docs) != 1:
        raise top_of(docs[1], ImportKind.PROMPTFOO, WHAT, ()).refuse("", one_file("promptfoo", "results.json"))
    doc = docs[0]
    top = top_of(doc, ImportKind.PROMPTFOO, WHAT, ("results",))
    summary = top.obj("results")
    if summary.count("version") != VERSION:
        raise summary.refuse("version", f"{summary.data['version']!r}; this Driftproof reads version {VERSION}")
    results = summary.objs("results")
    axis = _axis(summary, results)
    others = {_label(r.opt_obj("prompt" if axis == "provider" else "provider")) or _id(r) for r in results}
    grouped: dict[str, dict[ArmName, list[tuple[int, Fields]]]] = {}
    seen_vars: dict[str, str] = {}
    for result in results:
        label = _label(result.opt_obj(axis))
        if label not in ARM_LABELS:
            raise result.refuse(f"{axis}.label", unmarked_cell(label))
        key = _case_key(result, seen_vars)
        if len(others) > 1:
            key = f"{key} [{_label(result.opt_obj('prompt' if axis == 'provider' else 'provider')) or _id(result)}]"
        cell = grouped.setdefault(key, {}).setdefault(ARM_LABELS[label], [])
        cell.append((result.count("testIdx"), result))
    cases = []
    partial = False
    for key, arms in grouped.items():
        built = {}
        for arm in ArmName:
            cells = sorted(arms.get(arm, []), key=lambda pair: pair[0])
            drawn = [_draw(i, r) for i, (_, r) in enumerate(cells)]
            partial = partial or any(cut for _, cut in drawn)
            built[arm] = arm_of([d for d, _ in drawn]) if drawn else empty_arm()
        cases.append(Case(id=key, with_skill=built[ArmName.WITH_SKILL], baseline=built[ArmName.BASELINE]))
    notices = []
    if partial:
        notices.append(partial_run("the eval ran out of time: PROMPTFOO_MAX_EVAL_TIME_MS"))
    if not any(c.baseline.draws for c in cases):
        notices.append(PROMPTFOO_SINGLE_ARM)
    meta = top.opt_obj("metadata")
    version = meta.opt_text("promptfooVersion") if meta is not None else None
    config = top.opt_obj("config")
    providers = sorted({_id(r) for r in results})
    return declared_receipt(
        written,
        harness=HARNESS,
        run=Run(
            lane=Lane(
                provider=HARNESS, surface=Surface.NONE, model_requested=providers[0] if len(providers) == 1 else None
            ),
            harness=Harness(name=HARNESS, version=version),
        ),
        skill=None,
        suite=Suite(format=HARNESS, name=config.opt_text("description") if config else None, notices=notices),
        judge=None,
        counts=drawn_counts(cases),
        cases=cases,
        source_record=source(HARNESS, version, [document(doc, None, summary.opt_text("timestamp"))], PROMPTFOO_UNKNOWN),
    )


def _id(result: Fields) -> str:
    provider = result.opt_obj("provider")
    return (provider.opt_text("id") if provider is not None else None) or "unknown"
