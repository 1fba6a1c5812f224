"""``core.imports.nvidia_card`` on real NVIDIA/skills files at 7149a886 (tests/fixtures/imports/nvidia-card/README.md):
aggregates only, the figures as printed, no score, no comparison, the repository, commit and blob sha1 recorded."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from driftproof.core.fields import Refusal
from driftproof.core.imports.common import SourceDoc
from driftproof.core.imports.nvidia_card import import_nvidia_card
from driftproof.core.reading import not_regradable, read_receipt
from driftproof.core.words import Status
from driftproof.importers import git_blob_sha1
from tests.support.imports import WRITTEN

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "nvidia-card"
COMMIT = "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"


def doc(name: str) -> SourceDoc:
    raw = (FIXTURES / name).read_bytes()
    data = raw.decode() if name.endswith(".md") else json.loads(raw)
    return SourceDoc(name, hashlib.sha256(raw).hexdigest(), data, git_blob_sha1(raw))


def test_blob_sha1_is_gits() -> None:
    # `git ls-tree -l 7149a886 skills/cuopt-install/BENCHMARK.md benchmarks.json` in NVIDIA/skills
    assert doc("BENCHMARK.md").git_blob_sha1 == "07e8e6facea53bd77355adae2fd3a4cbc5f890a4"
    assert doc("benchmarks.json").git_blob_sha1 == "6f6c3946e835520844d2b770bf8d91faf701a526"


def test_the_card_is_aggregates_only_with_the_figures_as_printed() -> None:
    receipt = import_nvidia_card([doc("BENCHMARK.md")], WRITTEN, repository="NVIDIA/skills", commit=COMMIT)
    assert receipt.uncertainty_unavailable == "aggregates_only"
    assert [c.id for c in receipt.cases][:3] == [
        "Security / claude-code",
        "Security / codex",
        "Correctness / claude-code",
    ]
    assert all(not c.with_skill.draws and not c.baseline.draws for c in receipt.cases)
    printed = receipt.source_figures
    assert printed is not None
    # the card's cell "100% (+70%)": the uplift's unit is not stated, so it stays text, no baseline worked out
    assert {"dimension": "Correctness", "num": "1", "agent": "claude-code", "printed": "100% (+70%)"} in printed[
        "BENCHMARK.md"
    ]["results"]
    assert "Skill: `cuopt-install`" in printed["BENCHMARK.md"]["summary"]
    assert receipt.suite.name == "cuopt-install"
    assert receipt.source is not None and (receipt.source.repository, receipt.source.commit) == (
        "NVIDIA/skills",
        COMMIT,
    )
    assert receipt.source.documents[0].git_blob_sha1 == "07e8e6facea53bd77355adae2fd3a4cbc5f890a4"
    assert any("uplift's unit" in u for u in receipt.source.unknown)
    reading = read_receipt(receipt)
    assert reading.status == Status.NO_VERDICT and reading.lift is None
    assert all(c.comparison.delta is None and c.with_skill.mean is None for c in reading.cases)
    assert (
        not_regradable(receipt) == "an aggregates-only receipt has no per-run score to grade again or plan draws from"
    )


def test_the_index_needs_the_skill_and_keeps_its_rows_as_written() -> None:
    with pytest.raises(Refusal, match=r"^benchmarks.json: skills: 343 skills in the index; name the one"):
        import_nvidia_card([doc("benchmarks.json")], WRITTEN, repository="NVIDIA/skills", commit=COMMIT)
    receipt = import_nvidia_card(
        [doc("benchmarks.json")], WRITTEN, repository="NVIDIA/skills", commit=COMMIT, skill="cuopt-install"
    )
    assert receipt.source_figures is not None
    rows = receipt.source_figures["benchmarks.json"]["results"]
    assert len(rows) == 10 and rows[2]["uplift_pct"] == 70.0 and rows[2]["score_pct"] == 100.0
    assert receipt.source_figures["benchmarks.json"]["skill"]["average_uplift_pct"] == 48.0
    assert len(receipt.cases) == 10


def test_a_card_without_its_results_table_is_refused() -> None:
    bad = SourceDoc("BENCHMARK.md", "0" * 64, "# Evaluation Report\n\nNo table.\n")
    with pytest.raises(Refusal, match=r"^BENCHMARK.md: ## Results: missing; a benchmark card prints"):
        import_nvidia_card([bad], WRITTEN, repository="NVIDIA/skills", commit=COMMIT)
