"""``core.imports.skill_creator`` on a benchmark.json written by skill-creator's own ``aggregate_benchmark.py``
(anthropics/skills at 9d2f1ae1) from the grading workspace in tests/fixtures/imports/skill-creator/workspace.tar.gz."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from driftproof.core.fields import Refusal
from driftproof.core.imports.common import SourceDoc
from driftproof.core.imports.skill_creator import import_skill_creator
from driftproof.core.reading import evidence, read_receipt
from driftproof.core.words import Status
from tests.support.imports import WRITTEN, json_doc

FILE = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "skill-creator" / "benchmark.json"


def doc(data: Any = None) -> SourceDoc:
    return json_doc(FILE, data=data)


def test_runs_by_configuration_become_arms_and_an_ungraded_run_is_lost() -> None:
    receipt = import_skill_creator([doc()], WRITTEN)
    assert [c.id for c in receipt.cases] == ["1", "2"]
    got = {(c.id, a): evidence(getattr(c, a)).scores for c in receipt.cases for a in ("with_skill", "baseline")}
    # pass_rate as the aggregator wrote it, to 4 places: eval 1 with 3/3, 2/3, 3/3; without 1/3, 2/3, 1/3
    assert got[("1", "with_skill")] == (1.0, 0.6667, 1.0) and got[("1", "baseline")] == (0.3333, 0.6667, 0.3333)
    # eval 2 with: run 2 graded no expectation (the aggregator counted it as 0.0); it is lost here
    assert got[("2", "with_skill")] == (1.0, 1.0) and got[("2", "baseline")] == (0.5, 0.0, 0.5)
    lost = receipt.cases[1].with_skill.draws[1]
    assert lost.lost_reason == "no expectation graded (result.total 0; 1 execution error)"
    assert receipt.cases[0].baseline.draws[2].flagged == "2 execution errors"
    reading = read_receipt(receipt)
    # lift = mean((2.6667/3 − 1.3333/3), (1.0 − 1/3)) = mean(0.44447, 0.66667) = 0.55557
    assert reading.lift is not None and math.isclose(reading.lift, (1.3334 / 3 + 2 / 3) / 2, abs_tol=1e-9)
    assert reading.status == Status.NO_VERDICT and all(c.verdict is None for c in reading.cases)
    assert receipt.economics.generation.with_skill.output_tokens is None  # tokens is not read as usage
    assert receipt.counts.judge_samples_per_draw is None and receipt.counts.draws_per_arm_max == 3
    assert receipt.run.lane.model_requested is None  # '<model-name>', the aggregator's placeholder
    assert receipt.source is not None and receipt.source.unknown[0].startswith("metadata.executor_model")
    assert receipt.suite.name == "changelog-writer" and receipt.skill is None


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
        (changed(["runs", 0, "configuration"], "old_skill"), "runs[0].configuration: 'old_skill' is not an arm"),
        (changed(["runs", 0, "result", "pass_rate"], 0.5), "runs[0].result.pass_rate: 0.5 is not passed / total"),
        (changed(["runs", 1, "run_number"], 1), "runs[0].run_number: eval 1, with_skill: a run number appears twice"),
        (changed(["runs", 0, "eval_id"], None), "runs[0].eval_id: expected a whole number or text"),
        (
            doc({"run": {}, "task_results": []}),
            "metadata: missing; a skill-creator benchmark.json holds metadata, runs; ",
        ),
    ],
)
def test_each_refusal_names_the_file_and_the_field(source: SourceDoc, expected: str) -> None:
    with pytest.raises(Refusal) as caught:
        import_skill_creator([source], WRITTEN)
    assert expected in str(caught.value) and str(caught.value).startswith("benchmark.json: ")
