"""``core.imports.promptfoo`` on real ``promptfoo eval -o`` files (promptfoo 0.121.20, the offline echo provider;
tests/fixtures/imports/promptfoo/README.md holds the commands)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from driftproof.core.fields import Refusal
from driftproof.core.imports.common import SourceDoc
from driftproof.core.imports.promptfoo import import_promptfoo
from driftproof.core.reading import evidence, read_receipt
from driftproof.core.words import Status
from tests.support.imports import WRITTEN, json_doc

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "promptfoo"


def doc(name: str = "results.json", data: Any = None) -> SourceDoc:
    return json_doc(FIXTURES / name, data=data)


def test_prompts_labelled_with_skill_and_baseline_are_the_arms() -> None:
    receipt = import_promptfoo([doc()], WRITTEN)
    assert [c.id for c in receipt.cases] == ["conventional-subject", "short-subject", "transform-fails"]
    got = {(c.id, a): evidence(getattr(c, a)).scores for c in receipt.cases for a in ("with_skill", "baseline")}
    # --repeat 3: three results per test and arm. contains "type(scope)" only passes with the skill: 1.0 vs 0.5
    assert got[("conventional-subject", "with_skill")] == (1.0, 1.0, 1.0)
    assert got[("conventional-subject", "baseline")] == (0.5, 0.5, 0.5)
    # the skill's longer prompt fails output.length < 60: 0.5 vs 1.0
    assert got[("short-subject", "with_skill")] == (0.5, 0.5, 0.5)
    assert got[("short-subject", "baseline")] == (1.0, 1.0, 1.0)
    # the transform throws on every baseline output (failureReason 2): lost with promptfoo's error, first line
    lost = receipt.cases[2].baseline.draws
    assert [d.source_outcome for d in lost] == ["error"] * 3
    assert lost[0].lost_reason is not None and lost[0].lost_reason.startswith("error: Error: Transform failed (")
    assert "\n" not in lost[0].lost_reason
    checks = receipt.cases[1].with_skill.draws[0].checks
    assert [(c.kind, c.passed) for c in checks] == [("icontains", True), ("javascript", False)]
    assert receipt.suite.notices == [] and receipt.suite.name == "tidy-commit skill, with and without"
    assert receipt.run.harness is not None and receipt.run.harness.version == "0.121.20"
    assert receipt.run.lane.model_requested == "echo"
    assert receipt.counts.draws_per_arm_max == 3 and receipt.counts.judge_samples_per_draw is None
    assert receipt.source is not None and receipt.source.version == "0.121.20"
    reading = read_receipt(receipt)
    # lift over the cases with both arms measured: mean(+0.5, −0.5) = 0.0; transform-fails has no baseline mean
    assert reading.lift is not None and math.isclose(reading.lift, 0.0, abs_tol=1e-12)
    assert reading.status == Status.NO_VERDICT and all(c.verdict is None for c in reading.cases)


def test_a_run_out_of_time_is_partial_and_its_cells_are_not_run() -> None:
    receipt = import_promptfoo([doc("results-partial.json")], WRITTEN)
    first = receipt.cases[0]
    # PROMPTFOO_MAX_EVAL_TIME_MS=2000: only testIdx 0 ran, in both arms; the other 16 cells are not_run
    assert evidence(first.with_skill).scores == (1.0,) and evidence(first.baseline).scores == (0.5,)
    lost = [d for c in receipt.cases for a in (c.with_skill, c.baseline) for d in a.draws if d.lost_reason]
    assert len(lost) == 16 and {d.lost_reason for d in lost} == {"not_run: Evaluation exceeded max duration of 2000ms"}
    assert receipt.suite.notices == [
        "partial run (the eval ran out of time: PROMPTFOO_MAX_EVAL_TIME_MS): runs it never made are lost as not_run"
    ]


def test_providers_can_carry_the_arm_labels_instead() -> None:
    data = json.loads((FIXTURES / "results.json").read_bytes())
    for prompt in data["results"]["prompts"]:
        prompt["label"] = "p"
    for result in data["results"]["results"]:
        result["provider"]["label"] = {"with_skill": "with_skill", "baseline": "baseline"}[result["prompt"]["label"]]
        result["prompt"]["label"] = "p"
    receipt = import_promptfoo([doc(data=data)], WRITTEN)
    assert evidence(receipt.cases[0].with_skill).scores == (1.0, 1.0, 1.0)


def test_no_baseline_label_is_one_arm() -> None:
    data = json.loads((FIXTURES / "results.json").read_bytes())
    data["results"]["results"] = [r for r in data["results"]["results"] if r["prompt"]["label"] == "with_skill"]
    receipt = import_promptfoo([doc(data=data)], WRITTEN)
    assert all(not c.baseline.draws for c in receipt.cases)
    assert receipt.suite.notices == [
        "no prompt or provider is labelled baseline: one arm, no baseline and no comparison"
    ]


def changed(path: list[str | int], value: Any) -> SourceDoc:
    data = copy.deepcopy(json.loads((FIXTURES / "results.json").read_bytes()))
    target = data
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return doc(data=data)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (doc("results-unlabelled.json"), "results.prompts: no prompt or provider is labelled 'with_skill'"),
        (changed(["results", "version"], 2), "results.version: 2; this Driftproof reads version 3"),
        (changed(["results", "results", 0, "prompt", "label"], "b"), "results.results[0].prompt.label: 'b' is neither"),
        (changed(["results", "results", 1, "score"], 2), "results.results[1].score: 2.0 is outside 0..1"),
        (changed(["results", "prompts", 1, "label"], "with_skill"), "more than one prompt or provider is labelled"),
        (changed(["results", "results"], {}), "results.results: expected a list of objects, found a mapping"),
        (doc(data={"run": {}, "task_results": []}), "results: missing; a promptfoo results file holds results"),
    ],
)
def test_each_refusal_names_the_file_and_the_field(source: SourceDoc, expected: str) -> None:
    with pytest.raises(Refusal) as caught:
        import_promptfoo([source], WRITTEN)
    assert expected in str(caught.value) and str(caught.value).startswith(source.name + ": ")
