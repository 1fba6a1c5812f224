"""The false-call benchmark's two engines (benchmarks/simulate.py) agree, drawn and carried.

``benchmarks/false_calls.py`` and ``benchmarks/false_calls_carry.py`` publish their tables from the fast core
engine; it stands for the tool only while ``--check`` finds both engines making the same draws and verdicts.
One pair here keeps that from rotting silently: the tool engine had stopped importing (``run_suite`` became
``run``), and once it imported, its judge replies were anonymous, so main's receipt was not TESTED and the PR
was not drawn against it at all.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from benchmarks.false_calls import CASES, aa
from benchmarks.simulate import core_case, tool_pair


@pytest.mark.parametrize("carry", [False, True])
def test_the_core_engine_makes_the_tools_draws_and_verdicts(tmp_path: Path, carry: bool) -> None:
    make = aa(0.1, 0.1)
    rng = random.Random("engines:0")
    cases = {f"c{i}": make(rng) for i in range(CASES)}
    tool = tool_pair(cases, ("engines", 0), tmp_path, carry=carry)
    for cid, truth in cases.items():
        core = core_case(truth, ("engines", 0, cid), carry=carry)
        assert core == tool[cid]
        # main's store run draws 12 per arm (--as-reference); the PR carries all 12 of main's baseline draws or
        # draws its own (at least 3, the within-receipt minimum)
        assert core.draws[("main", "baseline")] == 12
        assert core.draws[("pr", "baseline")] >= (12 if carry else 3)


def test_a_carried_pr_reads_mains_baseline_draws(tmp_path: Path) -> None:
    """The PR's receipt holds main's 12 baseline draws, each naming main's seal."""
    import json

    make = aa(0.1, 0.1)
    rng = random.Random("engines:1")
    cases = {f"c{i}": make(rng) for i in range(2)}
    tool_pair(cases, ("engines", 1), tmp_path, carry=True)
    main, pr = (json.loads((tmp_path / f"{run}.json").read_text(encoding="utf-8")) for run in ("main", "pr"))
    assert main["verification"] == "TESTED"
    for old, new in zip(main["cases"], pr["cases"], strict=True):
        carried = [d for d in new["baseline"]["draws"] if d["carried_from"] is not None]
        assert [d["score"] for d in carried] == [d["score"] for d in old["baseline"]["draws"]]
        assert {d["carried_from"] for d in carried} == {main["seal"]["sha256"]}
