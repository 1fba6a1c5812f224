"""skill-creator ``benchmark.json`` (``scripts/aggregate_benchmark.py``) → a DECLARED receipt. Pure.

Runs are grouped by ``eval_id`` into cases and by ``configuration`` into arms: ``with_skill`` and
``without_skill`` (the baseline); any other configuration (``new_skill`` / ``old_skill``: a skill against its own
older version) is not a with/without comparison and is refused. A run's score is its ``pass_rate`` (expectations
passed over expectations graded); a run with no expectation graded (``total`` 0, whose ``pass_rate`` the
aggregator defaults to 0.0) is lost, kept out of the figures and listed; a run that met errors while it executed
keeps its score, flagged. ``tokens`` is not read as usage: the aggregator writes a token count or a character
count under that one key.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from driftproof.core.build import arm_of
from driftproof.core.fields import Fields
from driftproof.core.import_sentences import (
    SKILL_CREATOR_UNKNOWN,
    execution_errors,
    no_expectation_graded,
    not_with_without,
    one_of,
    placeholder,
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
from driftproof.core.models import Case, Draw, Lane, Receipt, Run, Suite
from driftproof.core.words import DrawStatus, ImportKind, Surface

HARNESS = "skill-creator"
WHAT = "a skill-creator benchmark.json"
ARMS = {"with_skill": "with_skill", "without_skill": "baseline"}
#: What the aggregator writes where it knows no value.
PLACEHOLDERS = frozenset({"<model-name>", "<skill-name>", "<path/to/skill>", ""})


def _known(meta: Fields, key: str) -> str | None:
    value = meta.opt_text(key)
    return None if value is None or value in PLACEHOLDERS else value


def _draw(index: int, run: Fields) -> Draw:
    result = run.obj("result")
    total = result.count("total")
    errors = result.opt_count("errors") or 0
    if total == 0:
        return Draw(index=index, status=DrawStatus.LOST, lost_reason=no_expectation_graded(errors))
    rate = result.number("pass_rate")
    passed = result.count("passed")
    if not 0.0 <= rate <= 1.0 or not math.isclose(rate, passed / total, abs_tol=5e-4):  # written to 4 places
        raise result.refuse("pass_rate", f"{rate!r} is not passed / total = {passed} / {total}")
    return Draw(
        index=index,
        status=DrawStatus.MEASURED,
        score=rate,
        flagged=execution_errors(errors) if errors else None,
        source_outcome=f"{passed}/{total} expectations passed",
    )


def import_skill_creator(docs: Sequence[SourceDoc], written: Written) -> Receipt:
    """One ``benchmark.json`` as a DECLARED receipt: a case per eval, a draw per run."""
    if len(docs) != 1:
        raise top_of(docs[1], ImportKind.SKILL_CREATOR, WHAT, ()).refuse("", "a skill-creator import reads one file")
    doc = docs[0]
    top = top_of(doc, ImportKind.SKILL_CREATOR, WHAT, ("metadata", "runs"))
    meta = top.obj("metadata")
    grouped: dict[str, dict[str, list[tuple[int, Fields]]]] = {}
    names: dict[str, str] = {}
    for run in top.objs("runs"):
        config = run.text("configuration")
        if config not in ARMS:
            raise run.refuse("configuration", not_with_without(config, one_of(list(ARMS))))
        raw_id = run.data.get("eval_id")
        if isinstance(raw_id, bool) or not isinstance(raw_id, int | str):
            raise run.refuse("eval_id", "expected a whole number or text")
        case_id = str(raw_id)
        if (name := run.opt_text("eval_name")) is not None:
            names[case_id] = name
        grouped.setdefault(case_id, {}).setdefault(ARMS[config], []).append((run.count("run_number", 1), run))
    cases = []
    for case_id, arms in grouped.items():
        built = {}
        for arm in ARMS.values():
            runs = sorted(arms.get(arm, []), key=lambda pair: pair[0])
            numbers = [n for n, _ in runs]
            if len(set(numbers)) != len(numbers):
                raise runs[0][1].refuse("run_number", f"eval {case_id}, {arm}: a run number appears twice")
            built[arm] = arm_of([_draw(i, r) for i, (_, r) in enumerate(runs)]) if runs else empty_arm()
        cases.append(Case(id=names.get(case_id, case_id), with_skill=built["with_skill"], baseline=built["baseline"]))
    model = _known(meta, "executor_model")
    unknown = list(SKILL_CREATOR_UNKNOWN)
    if model is None:
        unknown.insert(0, placeholder("executor_model"))
    return declared_receipt(
        written,
        harness=HARNESS,
        run=Run(lane=Lane(provider=HARNESS, surface=Surface.NONE, model_requested=model)),
        skill=None,
        suite=Suite(path=_known(meta, "skill_path"), format=HARNESS, name=_known(meta, "skill_name")),
        judge=None,
        counts=drawn_counts(cases),
        cases=cases,
        source_record=source(HARNESS, None, [document(doc, None, meta.opt_text("timestamp"))], unknown),
    )
