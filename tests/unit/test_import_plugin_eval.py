"""``core.imports.plugin_eval`` on a ``claude plugin eval --json`` result built from the recorded format (Claude Code
2.1.269; tests/fixtures/imports/plugin-eval/README.md): every field it reads, the errors, the partial run."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from driftproof.core.fields import Refusal
from driftproof.core.imports.common import SourceDoc
from driftproof.core.imports.plugin_eval import import_plugin_eval
from driftproof.core.reading import evidence, read_receipt
from driftproof.core.words import Status
from tests.support.imports import WRITTEN, json_doc

FILE = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "plugin-eval" / "two-arm-partial.json"


def doc(data: Any = None) -> SourceDoc:
    return json_doc(FILE, "result.json", data)


def test_arms_scores_errors_and_the_partial_run() -> None:
    receipt = import_plugin_eval([doc()], WRITTEN)
    first, second = receipt.cases
    assert (first.id, second.id) == ("first-case", "second-case")
    assert evidence(first.with_skill).scores == (1.0, 0.5, 1.0)
    assert evidence(first.baseline).scores == (0.5, 0.0, 1.0)
    # second-case: run 1 of the with arm errored, run 3 was never made (cost ceiling); the without arm made one run
    assert evidence(second.with_skill).scores == (1.0,) and evidence(second.baseline).scores == (0.0,)
    lost = [d.lost_reason for d in second.with_skill.draws if d.lost_reason]
    assert lost == [
        'error: API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "not_run: partial run (cost_ceiling)",
    ]
    assert [d.source_outcome for d in second.baseline.draws] == ["failed", "not_run", "not_run"]
    assert receipt.suite.notices == [
        "partial run (partialReason: cost_ceiling): runs it never made are lost as not_run"
    ]
    # the skill-fired grader (tool_used on Skill, withOnly, never scored): first-case fired on runs 1 and 2 of 3
    assert first.with_skill.skill_fired is not None
    assert (first.with_skill.skill_fired.fired, first.with_skill.skill_fired.observed) == (2, 3)
    assert [d.skill_fired for d in first.with_skill.draws] == [True, True, False]
    # the errored run is not an observation: second-case fired 1 of the 1 clean run
    assert second.with_skill.skill_fired is not None and second.with_skill.skill_fired.observed == 1
    assert first.baseline.skill_fired is not None and first.baseline.skill_fired.fired is None
    assert first.baseline.skill_fired.not_applicable == "plugin not installed (without arm)"
    # the other graders are checks beside the score, never in it: run 2 met criteria and missed subject-short
    assert [(c.name, c.kind, c.passed) for c in first.with_skill.draws[1].checks] == [
        ("plugin-eval.criteria", "regex", True),
        ("plugin-eval.subject-short", "regex", False),
    ]
    # costUsd per run is usage; first-case's with arm: 0.046 + 0.044 + 0.041 = 0.131
    cost = first.with_skill.usage.cost_usd
    assert cost is not None and math.isclose(cost, 0.131, abs_tol=1e-12)
    assert receipt.run.harness is not None and receipt.run.harness.version == "2.1.269"
    assert receipt.run.settings.draws_max == 3 and receipt.counts.judge_samples_per_draw is None
    assert receipt.source is not None and receipt.source.documents[0].recorded_at == "2026-09-12T01:06:04.181Z"
    assert receipt.suite.name == "probe-plugin" and receipt.suite.path == "/work/probe-plugin"
    reading = read_receipt(receipt)
    # lift, as context: mean((2.5/3 − 1.5/3), (1.0 − 0.0)) = mean(0.3333, 1.0) = 0.6667
    assert reading.lift is not None and math.isclose(reading.lift, (1 / 3 + 1) / 2, abs_tol=1e-12)
    assert reading.status == Status.NO_VERDICT and all(c.verdict is None for c in reading.cases)


def test_ablation_none_is_one_arm_with_no_comparison() -> None:
    data = json.loads(FILE.read_bytes())
    data["suite"]["ablation"] = "none"
    receipt = import_plugin_eval([doc(data)], WRITTEN)
    assert all(not c.baseline.draws for c in receipt.cases)
    assert "a plugin eval with ablation none: one arm, no baseline and no comparison" in receipt.suite.notices


def changed(path: list[str | int], value: Any) -> SourceDoc:
    data = copy.deepcopy(json.loads(FILE.read_bytes()))
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return doc(data)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (changed(["schemaVersion"], 2), "schemaVersion: 2; this Driftproof reads schemaVersion 1"),
        (changed(["suite", "ablation"], "old-new"), "suite.ablation: 'old-new' is not a with/without comparison"),
        (changed(["partial"], False), "cases[1].arms.with: 2 runs of runsPerCase = 3, and the result is not partial"),
        (changed(["cases", 0, "runsPerCase"], 2), "cases[0].arms.with: 3 runs, more than runsPerCase = 2"),
        (changed(["cases", 0, "arms", "with", 0, "score"], 1.5), "cases[0].arms.with[0].score: 1.5 is outside 0..1"),
        (changed(["cases", 0, "arms", "with", 0, "score"], "1"), "cases[0].arms.with[0].score: expected a number"),
        (changed(["cases", 1, "name"], "first-case"), "cases[1].name: 'first-case' is empty or appears twice"),
        (changed(["cases", 0, "arms"], []), "cases[0].arms: expected an object, found a list"),
        (doc({"run": {}, "task_results": []}), "schemaVersion: missing; a claude plugin eval --json result holds"),
    ],
)
def test_each_refusal_names_the_file_and_the_field(source: SourceDoc, expected: str) -> None:
    with pytest.raises(Refusal) as caught:
        import_plugin_eval([source], WRITTEN)
    assert expected in str(caught.value) and str(caught.value).startswith("result.json: ")
