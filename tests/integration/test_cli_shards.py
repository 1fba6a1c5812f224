"""``driftproof run --shard INDEX/COUNT`` and ``driftproof merge`` on the stub lane (issue 14).

The suite has five cases, ``a`` to ``e``. Ranked by sha256 of their ids they are d (18ac…), c (2e7d…),
b (3e23…), e (3f79…), a (ca97…); dealt in turn to 2 shards: 1 = {a, b, d}, 2 = {c, e}; to 3 shards:
1 = {d, e}, 2 = {a, c}, 3 = {b}. The stub answers and judges by case, arm and draw index alone, so a shard's
cases hold exactly the figures the unsharded run gives them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main

IDS = ["a", "b", "c", "d", "e"]
SPLITS = {2: [["a", "b", "d"], ["c", "e"]], 3: [["d", "e"], ["a", "c"], ["b"]]}


def write_suite(where: Path, ids: list[str] = IDS, skill: str = "Be brief.") -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "SKILL.md").write_text(skill, encoding="utf-8")
    cases = [{"id": c, "prompt": f"Task {c}.", "rubric": f"good {c}"} for c in ids]
    (where / "suite.yaml").write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return where / "suite.yaml"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "s")


def run(suite: Path, out: Path, *extra: str) -> dict[str, Any]:
    assert (
        main(["run", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "4", "-o", str(out), *extra]) == 0
    )
    return json.loads(out.read_text(encoding="utf-8"))


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def shards_of(suite: Path, tmp: Path, count: int) -> list[Path]:
    paths = [tmp / f"s{i}of{count}.json" for i in range(1, count + 1)]
    for i, path in enumerate(paths, start=1):
        run(suite, path, "--shard", f"{i}/{count}")
    return paths


@pytest.mark.parametrize("count", [2, 3])
def test_merged_shards_hold_the_unsharded_runs_figures(
    suite: Path, tmp_path: Path, count: int, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = run(suite, tmp_path / "whole.json")
    paths = shards_of(suite, tmp_path, count)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in paths]
    assert [d["run"]["shard"]["case_ids"] for d in docs] == SPLITS[count]
    assert all(d["run"]["shard"]["suite_case_ids"] == IDS for d in docs)
    capsys.readouterr()
    merged_path = tmp_path / "merged.json"
    assert main(["merge", *map(str, reversed(paths)), "-o", str(merged_path)]) == 0  # any order
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    assert capsys.readouterr().out.startswith(f"merged: {merged_path} ({count} shards, 5 cases, seal ")
    assert merged["cases"] == whole["cases"]  # every draw, score and judge sample, in suite order
    assert merged["economics"] == whole["economics"]
    assert merged["counts"] == whole["counts"]
    # the stub never stops early here: 5 cases × 2 arms × 4 draws × (1 + 5 samples) = 240 calls, however split
    assert merged["run"]["logical_calls"] == whole["run"]["logical_calls"] == 240
    assert sum(d["run"]["logical_calls"] for d in docs) == 240
    assert merged["run"]["shard"] is None and "shard" not in json.dumps(whole["run"]["shard"])
    assert merged["verification"] == whole["verification"] == "UNVERIFIED"
    assert merged["verification_reason"] == whole["verification_reason"]
    assert [s["sha256"] for s in merged["shards"]] == [d["seal"]["sha256"] for d in docs]
    assert [s["cases"] for s in merged["shards"]] == [len(s) for s in SPLITS[count]]
    assert main(["validate", str(merged_path)]) == 0


def test_a_shard_run_says_which_shard_before_its_plan_and_writes_beside_the_default(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "3", "--shard", "3/3"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert (
        err[0] == "shard 3/3: 1 of the suite's 5 cases (ranked by sha256 of their ids, dealt to shards 1 to 3 in turn)"
    )
    assert err[1].startswith("plan: 1 case × 2 arms")
    out = suite.parent / ".driftproof" / "receipt.shard-3-of-3.json"
    assert json.loads(out.read_text(encoding="utf-8"))["run"]["shard"]["case_ids"] == ["b"]
    assert not (suite.parent / ".driftproof" / "receipt.json").exists()


def test_readers_give_a_shard_receipt_no_suite_level_verdict(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = tmp_path / "s1.json"
    run(suite, shard, "--shard", "1/2")
    whole = tmp_path / "whole.json"
    run(suite, whole)
    capsys.readouterr()
    assert main(["view", str(shard), "--format", "json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["status"] == "no_verdict"
    assert view["no_verdict_reason"].startswith("shard 1/2: 3 of the suite's 5 cases, not the suite")
    assert main(["badge", str(shard)]) == 0
    assert json.loads(capsys.readouterr().out)["message"].startswith("no verdict")
    assert main(["diff", str(whole), str(shard), "--fail-on", "regressed"]) == 0
    assert "after is shard 1/2 of the suite" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("shard", "needle"),
    [
        ("0/3", "--shard: '0/3': INDEX must be from 1 to COUNT (3)"),
        ("4/3", "--shard: '4/3': INDEX must be from 1 to COUNT (3)"),
        ("1/0", "--shard: '1/0': COUNT must be from 1 to 10000"),
        ("two/3", "--shard: 'two/3' is not INDEX/COUNT; give INDEX/COUNT, e.g. --shard 1/3 (shard 1 of 3)"),
        ("3", "--shard: '3' is not INDEX/COUNT"),
        (
            "1/6",
            "--shard: COUNT (6) is more than the suite's 5 cases, so a shard would hold none; use at most 5 shards",
        ),
    ],
)
def test_a_bad_shard_is_refused_before_any_call(
    suite: Path, capsys: pytest.CaptureFixture[str], shard: str, needle: str
) -> None:
    line = refused(capsys, "run", str(suite), "--provider", "stub", "--shard", shard)
    assert needle in line
    assert not (suite.parent / ".driftproof").exists()  # nothing written, not even the journal


def test_quick_cannot_run_a_shard(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "run", str(suite), "--provider", "stub", "--quick", "--shard", "1/2")
    assert "--shard: --quick runs the first case only" in line


@pytest.fixture
def two(suite: Path, tmp_path: Path) -> list[Path]:
    return shards_of(suite, tmp_path, 2)


def merge_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path, *shards: Path) -> str:
    out = tmp_path / "merged.json"
    line = refused(capsys, "merge", *map(str, shards), "-o", str(out))
    assert not out.exists()
    return line


def test_merge_refuses_a_missing_shard_naming_the_case(
    two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The refusal is about the shards given together, not the first one's file (which the user would go and
    inspect, though nothing is wrong with it): a shard is missing."""
    line = merge_refused(capsys, tmp_path, two[0])
    assert line == (
        "driftproof: error: the shards given (1 receipt): run.shard.suite_case_ids: case 'c' is in no shard given "
        "(it falls in shard 2/2: add that shard's receipt); 1 more case is missing too"
    )


def test_merge_refuses_overlapping_shards(two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = merge_refused(capsys, tmp_path, two[0], two[1], two[0])
    assert line == (
        f"driftproof: error: {two[0]}: run.shard.case_ids: case 'a' is also in {two[0]}; each case must be in "
        "exactly one shard"
    )


def test_merge_refuses_a_receipt_that_is_no_shard(
    suite: Path, two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.json"
    run(suite, whole)
    line = merge_refused(capsys, tmp_path, two[0], whole)
    assert line.startswith(f"driftproof: error: {whole}: run.shard: not a shard receipt")


def test_merge_refuses_shards_of_different_splits(
    suite: Path, two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "s2of3.json"
    run(suite, other, "--shard", "2/3")
    line = merge_refused(capsys, tmp_path, two[0], other)
    assert line.startswith(
        f"driftproof: error: {other}: run.shard.count: differs from the first shard's: 2 in {two[0]}, 3 here"
    )


@pytest.mark.parametrize(
    ("extra", "field", "values"),
    [
        (["--judge-samples", "4"], "run.settings.judge_samples", "5 in {first}, 4 here"),
        (["--max-draws", "5"], "run.settings.stopping_rule", ""),
        (["--model", "other-model"], "run.lane.model_requested", "'stub-model' in {first}, 'other-model' here"),
        (["--budget", "900000"], "run.settings.budget", 'null in {first}, {{"max_tokens":2048,'),
        (["--concurrency", "2"], "run.settings.concurrency", "8 in {first}, 2 here"),
    ],
)
def test_merge_refuses_shards_run_with_different_settings(
    suite: Path,
    two: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    field: str,
    values: str,
) -> None:
    odd = tmp_path / "odd.json"
    run(suite, odd, "--shard", "2/2", *extra)
    line = merge_refused(capsys, tmp_path, two[0], odd)
    assert line.startswith(f"driftproof: error: {odd}: {field}: differs from the first shard's: "), line
    assert values.format(first=two[0]) in line


def test_merge_refuses_shards_of_an_edited_suite_or_skill(
    suite: Path, two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = write_suite(tmp_path / "edited")  # the same cases; the suite file's bytes differ below
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    odd = tmp_path / "odd-suite.json"
    run(edited, odd, "--shard", "2/2")
    assert f"{odd}: suite.sha256: differs from the first shard's" in merge_refused(capsys, tmp_path, two[0], odd)
    other_skill = write_suite(tmp_path / "other-skill", skill="Be thorough.")
    odd = tmp_path / "odd-skill.json"
    run(other_skill, odd, "--shard", "2/2")
    line = merge_refused(capsys, tmp_path, two[0], odd)
    assert f"{odd}: suite.sha256" not in line  # the suite file is byte for byte the same
    assert f"{odd}: skill.sha256: differs from the first shard's" in line


def test_merge_refuses_an_output_that_is_a_shard(two: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    before = two[0].read_bytes()
    line = refused(capsys, "merge", *map(str, two), "-o", str(two[0]))
    assert (
        line
        == f"driftproof: error: -o: {two[0]} is one of the shard receipts given; write the merged receipt elsewhere"
    )
    assert two[0].read_bytes() == before


def test_merge_refuses_a_tampered_shard(two: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(two[1].read_text(encoding="utf-8"))
    doc["cases"][0]["with_skill"]["draws"][0]["score"] = 1.0
    two[1].write_text(json.dumps(doc), encoding="utf-8")
    assert f"{two[1]}: seal mismatch" in merge_refused(capsys, tmp_path, *two)


def test_a_shard_run_says_to_merge_next_not_to_diff(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    run(suite, tmp_path / "s1.json", "--shard", "1/3")
    out = capsys.readouterr().out
    assert f"next    run the other 2 shards of --shard i/3, then: driftproof merge {tmp_path / 's1.json'}" in out
    assert "driftproof diff <main receipt>" not in out


def test_plan_of_a_shard_plans_the_shards_cases(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    argv = ["plan", str(suite), "--provider", "stub", "--draws", "3", "--max-draws", "4", "--format", "json"]
    assert main([*argv, "--shard", "1/3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in doc["cases"]] == ["d", "e"]  # shard 1 of 3, as run --shard 1/3 draws
    # 2 cases × 2 arms × 3 to 4 draws × (1 answer + 5 judge samples) = 72 to 96 calls
    assert (doc["total"]["calls"]["min"], doc["total"]["calls"]["max"]) == (72, 96)
    assert main(["plan", str(suite), "--provider", "stub", "--shard", "3/3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "shard 3/3: 1 of the suite's 5 cases (ranked by sha256 of their ids, dealt to shards 1 to 3 in turn)"
    )
    assert out[1].startswith("plan: 1 case × 2 arms")


@pytest.mark.parametrize(
    ("shard", "needle"),
    [
        ("9/3", "--shard: '9/3': INDEX must be from 1 to COUNT (3)"),
        ("abc", "--shard: 'abc' is not INDEX/COUNT; give INDEX/COUNT, e.g. --shard 1/3 (shard 1 of 3)"),
        ("1/6", "--shard: COUNT (6) is more than the suite's 5 cases"),
    ],
)
def test_plan_refuses_a_bad_shard_as_run_does(
    suite: Path, capsys: pytest.CaptureFixture[str], shard: str, needle: str
) -> None:
    planned = refused(capsys, "plan", str(suite), "--provider", "stub", "--shard", shard)
    ran = refused(capsys, "run", str(suite), "--provider", "stub", "--shard", shard)
    assert needle in planned and planned == ran
    quick = refused(capsys, "plan", str(suite), "--provider", "stub", "--quick", "--shard", "1/2")
    assert "--shard: --quick runs the first case only" in quick


# -- regrading shards: each shard's own cases, then merged again -------------------------------------------------


def kept_shards(suite: Path, tmp: Path) -> list[Path]:
    paths = [tmp / f"k{i}of2.json" for i in (1, 2)]
    for i, path in enumerate(paths, start=1):
        run(suite, path, "--shard", f"{i}/2", "--keep-transcripts")
    return paths


def revised(suite: Path, tmp: Path, ids: list[str] = IDS) -> Path:
    """The suite with every rubric revised (prompts unchanged), or with the cases ``ids``."""
    cases = [{"id": c, "prompt": f"Task {c}.", "rubric": f"good {c}, and say why"} for c in ids]
    path = tmp / f"revised-{len(ids)}.yaml"
    path.write_text(yaml.safe_dump({"skill": str(suite.parent / "SKILL.md"), "cases": cases}), encoding="utf-8")
    return path


def test_each_shard_regrades_its_own_cases_and_the_regraded_shards_merge(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = kept_shards(suite, tmp_path)
    tasks = revised(suite, tmp_path)
    regraded = []
    for shard in shards:
        out = shard.with_name(shard.stem + ".rg.json")
        argv = ["regrade", str(shard), "--answers", str(shard.with_suffix(".answers.jsonl")), "--suite", str(tasks)]
        assert main([*argv, "-o", str(out)]) == 0, capsys.readouterr().err
        regraded.append(out)
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in regraded]
    originals = [json.loads(p.read_text(encoding="utf-8")) for p in shards]
    assert [d["run"]["shard"] for d in docs] == [o["run"]["shard"] for o in originals]  # still shard 1/2, 2/2
    assert [[c["id"] for c in d["cases"]] for d in docs] == SPLITS[2]
    # the stub draws 4 a side here: shard 1 holds 3 cases × 2 arms × 4 = 24 answers, shard 2 holds 2 × 2 × 4 = 16;
    # 5 judge samples each: 120 and 80 judge calls
    assert [(d["regrade"]["graded"], d["regrade"]["calls"]["judge_calls"]) for d in docs] == [(24, 120), (16, 80)]
    capsys.readouterr()
    merged_path = tmp_path / "merged.rg.json"
    assert main(["merge", *map(str, regraded), "-o", str(merged_path)]) == 0, capsys.readouterr().err
    merged = json.loads(merged_path.read_text(encoding="utf-8"))
    assert [c["id"] for c in merged["cases"]] == IDS
    assert {c["id"]: c for c in merged["cases"]} == {c["id"]: c for d in docs for c in d["cases"]}
    record = merged["regrade"]  # still a regrade: never promoted or read as a run
    assert record["kind"] == "rubric" and record["suite_sha256"] == docs[0]["suite"]["sha256"]
    assert (record["original_sha256"], record["answers_sha256"]) == (None, None)  # each shard's receipt names its own
    assert (record["graded"], record["calls"]["judge_calls"]) == (40, 200)  # 24 + 16; 120 + 80
    assert record["original_judge"]["model_requested"] == originals[0]["judge"]["model_requested"]
    assert main(["validate", str(merged_path)]) == 0
    capsys.readouterr()
    line = refused(capsys, "merge", str(regraded[0]), str(shards[1]), "-o", str(tmp_path / "mixed.json"))
    assert f"{shards[1]}: suite.sha256: differs from the first shard's" in line  # a regraded shard beside a run's


def test_a_plain_judge_regrade_of_a_shard_grades_its_cases(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard, _ = kept_shards(suite, tmp_path)
    out = tmp_path / "plain.json"
    assert main(["regrade", str(shard), "--answers", str(shard.with_suffix(".answers.jsonl")), "-o", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [c["id"] for c in doc["cases"]] == SPLITS[2][0] and doc["regrade"]["graded"] == 24  # 3 × 2 × 4


def test_a_shard_regrade_refuses_tasks_with_other_cases_than_the_suite_it_was_split_from(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard, _ = kept_shards(suite, tmp_path)
    archive = str(shard.with_suffix(".answers.jsonl"))
    more = revised(suite, tmp_path, [*IDS, "f"])
    line = refused(capsys, "regrade", str(shard), "--answers", archive, "--suite", str(more))
    assert line.endswith(
        "cases: regrade refused: case 'f' is not in the suite shard 1/2 was split from: no shard kept answers for it"
    ), line
    fewer = revised(suite, tmp_path, ["a", "b", "d"])  # only this shard's cases: the split would be another
    line = refused(capsys, "regrade", str(shard), "--answers", archive, "--suite", str(fewer))
    assert "case 'c' of the suite shard 1/2 was split from is missing from the tasks" in line, line


def test_a_merged_receipt_is_refused_saying_to_regrade_each_shard(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = kept_shards(suite, tmp_path)
    merged = tmp_path / "m.json"
    assert main(["merge", *map(str, shards), "-o", str(merged)]) == 0
    line = refused(capsys, "regrade", str(merged), "--answers", str(shards[0].with_suffix(".answers.jsonl")))
    assert line == (
        f"driftproof: error: {merged}: receipt: regrade refused: a merged receipt keeps no answers (each shard's "
        "answers archive stays beside its shard receipt): regrade each shard receipt with its own archive, then "
        "merge the regraded shards (driftproof merge)"
    )


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_shard_starting_with_a_dash_gets_the_one_line_shard_refusal(
    suite: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    for argv in (["--shard", "-1/2"], ["--shard=-1/2"]):  # argparse read the spaced form as a flag: a usage block
        line = refused(capsys, command, str(suite), "--provider", "stub", *argv)
        assert line == (
            "driftproof: error: --shard: '-1/2' is not INDEX/COUNT; give INDEX/COUNT, e.g. --shard 1/3 (shard 1 of 3)"
        )
    line = refused(capsys, command, str(suite), "--provider", "stub", "--shard", "01/3")
    assert line.startswith("driftproof: error: --shard: '01/3' is not INDEX/COUNT")
