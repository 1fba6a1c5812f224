"""The documented matrix workflow (docs/action.md, "Sharding on a matrix") in a simulated GitHub run (issue 14).

Its YAML is read from the docs: N shard jobs, each running the Action with its matrix value as ``shard`` in its own
checkout and uploading its shard receipt; then the merge job, which downloads them beside ``receipt-path`` and runs
the Action with ``shard: merge``. The shard jobs post nothing and write no badge; the merge job diffs against
main's stored receipt, comments once, writes the badge and gates once.

The suite has three cases, so the documented three shards hold one case each. Main stores, per case, with-skill
0.85 ± 0 over 12 draws (baselines 0.20, 0.25, 0.30 four times). This PR's case ``a`` answers 0.50, 0.55, 0.60: its
band lies under main's by far more than 0.05, so ``a`` regresses and the merge job's gate fails (exit 1).
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.action.github import COMMENT_MARKER
from driftproof.core.defaults import DEFAULTS
from driftproof.receipts import receipt_json
from tests.support.action_sim import RECEIPT, make_repos, run_job
from tests.support.builders import receipt
from tests.support.fake_github import FakeGitHub
from tests.support.fake_llm_script import FakeReply, RecordedRequest, json_text_reply
from tests.support.fake_llm_server import FakeLLMServer

pytestmark = pytest.mark.usefixtures("isolated")  # an Action job's environment (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
IDS = ["a", "b", "c"]
BASE = [0.20, 0.25, 0.30]
PR = {"a": [0.50, 0.55, 0.60], "b": [0.85], "c": [0.85]}
ANSWER = re.compile(r"^<<<ANSWER\n(.*?)\nANSWER>>>$", re.M | re.S)
TAG = re.compile(r"\[case=(\S+) arm=(\S+) draw=(\d+)\]")
CASE = re.compile(r"for change (\S+)\.")


@dataclass
class Responder:
    """Answers tagged with case, arm and draw; the judge scores draw k of an arm ``scores[k % len(scores)]``."""

    counters: dict[tuple[str, str], int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> FakeReply:
        block = ANSWER.search(request.prompt_text)
        if block is not None:
            tag = TAG.search(block.group(1))
            assert tag is not None
            case, arm, draw = tag.group(1), tag.group(2), int(tag.group(3))
            table = PR[case] if arm == "with_skill" else BASE
            return json_text_reply({"score": table[draw % len(table)], "reason": "as scripted"})
        found = CASE.search(request.prompt_text)
        assert found is not None
        case, arm = found.group(1), "with_skill" if request.system_text else "baseline"
        with self.lock:
            draw = self.counters.get((case, arm), 0)
            self.counters[(case, arm)] = draw + 1
        return FakeReply(text=f"fix: the change\n\nWhy it matters. [case={case} arm={arm} draw={draw}]")


def documented_workflow() -> dict[str, Any]:
    docs = (ROOT / "docs" / "action.md").read_text(encoding="utf-8")
    section = docs.split("## Sharding on a matrix", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    workflow: dict[str, Any] = yaml.safe_load(block)
    return workflow


def action_inputs(job: Mapping[str, Any], matrix: Mapping[str, str]) -> dict[str, str]:
    """The ``with:`` of the job's Driftproof step, ``${{ matrix.X }}`` filled in."""
    step = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("OWNER/driftproof@"))
    inputs = {}
    for name, value in step["with"].items():
        text = str(value)
        for key, given in matrix.items():
            text = text.replace("${{ matrix." + key + " }}", given)
        inputs[name] = text
    return inputs


def stored() -> bytes:
    judge = {"provider": str(DEFAULTS.judge_provider), "surface": "api", "model_requested": DEFAULTS.judge_model}
    cases = {c: ([0.85] * 12, BASE * 4) for c in IDS}
    return receipt_json(receipt(cases, extra={"judge": judge})).encode()


def test_the_documented_matrix_shards_then_merges_diffs_comments_badges_and_gates_once(
    tmp_path: Path, github: FakeGitHub, fake_llm_server: FakeLLMServer
) -> None:
    workflow = documented_workflow()
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["check"]
    assert merge_job["needs"] == "shard"
    fake_llm_server.responder = Responder()  # type: ignore[assignment]
    artifacts: list[Path] = []
    matrix: Sequence[str] = shard_job["strategy"]["matrix"]["shard"]
    assert list(matrix) == ["1/3", "2/3", "3/3"]
    for i, value in enumerate(matrix):
        where = tmp_path / f"shard-{i}"
        where.mkdir()
        job = run_job(where, make_repos(where, stored(), case_ids=IDS), github, fake_llm_server,
                      inputs=action_inputs(shard_job, {"shard": value}))  # fmt: skip
        assert job.code == 0, job.log
        assert job.outputs["receipt"] == f".driftproof/receipt.shard-{i + 1}-of-3.json"
        assert job.outputs["status"] == "no_verdict" and job.outputs["badge"] == ""
        assert job.log.rstrip().endswith("the job with shard: merge gives them once · exit 0")
        assert not (job.workspace / ".driftproof" / "badge.json").exists()
        artifacts.append(job.workspace / job.outputs["receipt"])  # actions/upload-artifact
    assert github.writes() == []  # no shard job commented

    where = tmp_path / "merge"
    where.mkdir()
    repos = make_repos(where, stored(), case_ids=IDS)
    download = next(s for s in merge_job["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact@"))
    folder = repos.workspace / download["with"]["path"]
    assert download["with"]["path"] == str(Path(RECEIPT).parent)
    folder.mkdir(parents=True, exist_ok=True)
    for artifact in artifacts:
        shutil.copy(artifact, folder / artifact.name)
    job = run_job(where, repos, github, fake_llm_server, inputs=action_inputs(merge_job, {}))
    assert job.code == 1, job.log  # fail-on regressed
    assert (job.outputs["status"], job.outputs["regressed"], job.outputs["improved"]) == ("regressed", "1", "0")
    merged = json.loads(job.file("receipt"))
    assert [c["id"] for c in merged["cases"]] == IDS and merged["run"]["shard"] is None
    assert [s["sha256"] for s in merged["shards"]] == [json.loads(a.read_text())["seal"]["sha256"] for a in artifacts]
    assert merged["verification"] == "TESTED"
    comments = [c for c in github.comments(7) if COMMENT_MARKER in str(c["body"])]
    assert len(comments) == 1 and [r.method for r in github.writes()] == ["POST"]
    # a is drawn to the 7 draws a call against main needs: 0.50, 0.55, 0.60 twice, then 0.50: 3.8 / 7 = 0.543
    assert "\n**Driftproof · regressed** · `a` -0.31 (0.85 → 0.54, with-skill arm, main → this PR)\n" in str(
        comments[0]["body"]
    )
    assert json.loads(job.file("badge"))["schemaVersion"] == 1


def test_the_merge_job_without_shard_receipts_says_what_to_do(tmp_path: Path, github: FakeGitHub) -> None:
    repos = make_repos(tmp_path, stored(), case_ids=IDS)
    inputs = action_inputs(documented_workflow()["jobs"]["check"], {})
    job = run_job(tmp_path, repos, github, None, inputs={**inputs, "provider": "stub", "judge-provider": "stub"})
    assert job.code == 2
    assert (
        "input 'shard' is merge, but no shard receipt (.driftproof/receipt.shard-*-of-*.json) is in the workspace"
        in job.log
    )
    assert job.outputs["status"] == "error"
