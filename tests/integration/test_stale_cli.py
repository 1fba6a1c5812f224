"""``driftproof stale`` end to end on the stub lane: a receipt written by ``run``, then the skill, the rubric or
the judge changed, with the statuses and exit codes; bad input is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from driftproof.cli import main

FAST = ["--provider", "stub", "--draws", "2", "--max-draws", "2", "--judge-samples", "1"]


def _suite(tmp_path: Path, rubric: str = "Good.") -> Path:
    suite = tmp_path / "suite.yaml"
    cases = [{"id": c, "prompt": f"Write {c}.", "rubric": rubric} for c in "ab"]
    suite.write_text(yaml.safe_dump({"skill": "SKILL.md", "cases": cases}), encoding="utf-8")
    return suite


@pytest.fixture
def made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A suite, its skill and a stub receipt that kept its answers."""
    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well.\n", encoding="utf-8")
    suite = _suite(tmp_path)
    out = tmp_path / "r.json"
    assert main(["run", str(suite), *FAST, "--keep-transcripts", "-o", str(out)]) == 0
    capsys.readouterr()
    return suite, out


def stale(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main(["stale", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def arms(doc: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["id"]: (c["with_skill"]["status"], c["baseline"]["status"]) for c in doc["cases"]}


def test_unchanged_stands_exit_0(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, receipt = made
    code, doc, err = stale(capsys, str(receipt), *FAST)  # --suite and --skill default to the recorded paths
    assert code == 0 and err == ""
    assert doc["stands"] is True and doc["unknown"] == [] and doc["advisories"] == []
    assert arms(doc) == {"a": ("stands", "stands"), "b": ("stands", "stands")}


def test_text_table(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, receipt = made
    (receipt.parent / "SKILL.md").write_text("# Skill\nWrite better.\n", encoding="utf-8")
    assert main(["stale", str(receipt), *FAST]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "stale: 2 arms to rerun, 0 arms to regrade"
    assert out[2:5] == ["case  with_skill  baseline", "a     rerun       stands", "b     rerun       stands"]
    assert out[5].startswith("  a with_skill: skill sha256 changed: ")


def test_skill_edit_leaves_the_baseline_standing(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, receipt = made
    (receipt.parent / "SKILL.md").write_text("# Skill\nWrite better.\n", encoding="utf-8")
    code, doc, _ = stale(capsys, str(receipt), *FAST)
    assert code == 1 and doc["stands"] is False
    assert arms(doc) == {"a": ("rerun", "stands"), "b": ("rerun", "stands")}


def test_another_skill_file_by_flag(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, receipt = made
    other = tmp_path / "OTHER.md"
    other.write_text("# Other\n", encoding="utf-8")
    code, doc, _ = stale(capsys, str(receipt), "--skill", str(other), *FAST)
    assert code == 1 and arms(doc)["a"] == ("rerun", "stands")


def test_rubric_edit_is_a_regrade_with_kept_answers(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite, receipt = made
    _suite(tmp_path, rubric="Better.")
    code, doc, _ = stale(capsys, str(receipt), "--suite", str(suite), *FAST)
    assert code == 1
    assert arms(doc) == {"a": ("regrade", "regrade"), "b": ("regrade", "regrade")}
    assert doc["cases"][0]["baseline"]["reasons"][0].startswith("rubric or criteria changed")
    assert doc["advisories"][0].startswith("suite file changed")


def test_rubric_edit_is_a_rerun_without_kept_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], made: tuple[Path, Path]
) -> None:
    suite, _ = made
    plain = tmp_path / "plain.json"
    assert main(["run", str(suite), *FAST, "-o", str(plain)]) == 0
    capsys.readouterr()
    _suite(tmp_path, rubric="Better.")
    code, doc, _ = stale(capsys, str(plain), *FAST)
    assert code == 1 and arms(doc)["a"] == ("rerun", "rerun")
    assert any("--keep-transcripts" in r for r in doc["cases"][0]["with_skill"]["reasons"])


def test_another_judge_model_is_a_regrade(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, receipt = made
    code, doc, _ = stale(capsys, str(receipt), *FAST, "--judge-model", "judge-2")
    assert code == 1 and arms(doc)["b"] == ("regrade", "regrade")
    # a regrade by the rule, but driftproof regrade grades with the receipt's judge only: the reason says so
    assert doc["cases"][1]["with_skill"]["reasons"] == [
        "judge model changed: stub-judge → judge-2: regrading with another judge or judge samples means running "
        "again (driftproof regrade keeps the receipt's own)"
    ]
    answers = str(receipt.with_suffix(".answers.jsonl"))
    assert main(["regrade", str(receipt), "--answers", answers, "--judge-model", "judge-2"]) == 2  # as it says


def test_other_counts_are_a_rerun(made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, receipt = made
    code, doc, _ = stale(capsys, str(receipt), "--draws", "3", "--max-draws", "10")  # counts other than recorded
    assert code == 1 and arms(doc)["a"] == ("rerun", "rerun")
    assert doc["cases"][0]["baseline"]["reasons"][0].startswith("stopping rule changed")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{tmp}/missing.json"], "missing.json: no such file"),
        (["{receipt}", "--suite", "{tmp}/nope.yaml"], "nope.yaml: no such suite file"),
        (["{receipt}", "--skill", "{tmp}/NOPE.md"], "NOPE.md: no such SKILL.md"),
        (["{receipt}", "--draws", "0"], "--draws must be a whole number"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str
) -> None:
    _, receipt = made
    args = [a.format(tmp=tmp_path, receipt=receipt) for a in argv]
    code, doc, err = stale(capsys, *args, "--provider", "stub")
    assert code == 2 and doc == {}
    assert err.count("\n") == 1 and err.startswith("driftproof: error: ") and message in err


def test_a_receipt_that_is_not_json_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, doc, err = stale(capsys, str(bad))
    assert code == 2 and doc == {} and str(bad) in err and err.count("\n") == 1


def test_a_receipt_recording_little(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from driftproof.receipts import write_receipt
    from tests.support.builders import receipt

    suite, _ = made
    thin = tmp_path / "thin.json"
    write_receipt(receipt({"a": ([0.8, 0.9], [0.4, 0.5])}, verification="UNVERIFIED"), thin)
    code, doc, err = stale(capsys, str(thin), *FAST)  # it records no suite path
    assert (
        code == 2
        and err.strip()
        == f"driftproof: error: {thin}: suite.path: not recorded, so there is nothing to read today; give --suite"
    )
    monkeypatch.chdir(tmp_path)  # its skill path, SKILL.md, is read as recorded: relative to where it ran
    code, doc, _ = stale(capsys, str(thin), "--suite", str(suite), *FAST, "--judge-provider", "stub")
    assert code == 1 and doc["stands"] is False
    assert {"run.settings.stopping_rule", "suite.sha256", "cases[a].prompt_sha256"} <= set(doc["unknown"])
    assert arms(doc) == {"a": ("rerun", "rerun"), "b": ("rerun", "rerun")}
    assert doc["dropped_cases"] == []


def test_flags_left_out_take_the_recorded_values(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``driftproof stale RECEIPT`` alone asks about the command that made it: a stub receipt needs no key, and
    its draws, samples and judge come from what it recorded, not from run's defaults."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    _, receipt = made
    code, doc, err = stale(capsys, str(receipt))
    assert (code, err) == (0, "") and doc["stands"] is True
    # a flag given still asks about that setting: another judge model is a regrade (the answers were kept)
    code, doc, _ = stale(capsys, str(receipt), "--judge-model", "another-judge")
    assert code == 1 and arms(doc)["a"] == ("regrade", "regrade")


def test_as_reference_asks_for_a_deeper_rule_than_an_ordinary_receipt_was_drawn_to(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference form is a reason to stand only one way: an ordinary receipt asked about ``--as-reference``
    (12 draws per arm) was drawn shallower than that, so every arm is drawn again."""
    _, receipt = made
    code, doc, _ = stale(capsys, str(receipt), *FAST, "--as-reference")
    assert code == 1 and arms(doc)["a"] == ("rerun", "rerun")
    assert doc["cases"][0]["baseline"]["reasons"][0].startswith("stopping rule changed: settle-v2(min=2,max=2,")


def _reference_receipt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A stub receipt of the two-case suite drawn ``--as-reference`` (12 draws per arm)."""
    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well.\n", encoding="utf-8")
    out = tmp_path / "ref.json"
    assert main(["run", str(_suite(tmp_path)), *FAST, "--as-reference", "-o", str(out)]) == 0
    capsys.readouterr()
    return out


def test_a_receipt_drawn_as_reference_stands_for_its_own_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _reference_receipt(tmp_path, capsys)
    code, doc, _ = stale(capsys, str(out))  # the recorded --as-reference is asked about again
    assert code == 0 and doc["stands"] is True and doc["advisories"] == []


def _api_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *extra: str
) -> Path:
    """A receipt of the two-case suite run on the Anthropic API lane against a loopback server (2 draws an arm,
    1 judge sample), with ``extra`` run flags; the key and base URL stay set for ``stale``, which calls nothing."""
    from tests.support.fake_llm_script import json_text_reply
    from tests.support.fake_llm_server import FakeLLMServer

    (tmp_path / "SKILL.md").write_text("# Skill\nWrite well.\n", encoding="utf-8")
    suite = _suite(tmp_path)
    out = tmp_path / "api.json"
    with FakeLLMServer(lambda _req: json_text_reply({"score": 0.8, "reason": "ok"})) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + "test-0123456789abcdefghijklmnop")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        argv = ["--provider", "anthropic", "--draws", "2", "--max-draws", "2", "--judge-samples", "1", *extra]
        assert main(["run", str(suite), *argv, "-o", str(out)]) == 0
    capsys.readouterr()
    return out


def test_an_api_judge_receipt_stands_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run's API judge sends its 1024-token budget; the judge lane stale builds (before any call) reports
    that same budget, so an unchanged API receipt is not read as a judge sampling change."""
    out = _api_receipt(tmp_path, capsys, monkeypatch)
    code, doc, _ = stale(capsys, str(out))  # no call: the loopback server is gone
    assert json.loads(out.read_text(encoding="utf-8"))["judge"]["sampling"]["max_tokens"] == 1024
    assert (code, doc["stands"]) == (0, True), doc


def test_max_tokens_left_out_is_the_receipts_and_given_is_asked_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A receipt run with ``--max-tokens 100`` sent that ceiling (``run.sampling.max_tokens``): ``stale`` left
    without the flag asks about the same 100, so the unchanged receipt stands (it asked about run's default 2048
    and read every arm as "answering sampling changed", while ``run --reference`` carried the same baselines);
    ``--max-tokens 200`` asks about another ceiling, a rerun of both arms."""
    out = _api_receipt(tmp_path, capsys, monkeypatch, "--max-tokens", "100")
    assert json.loads(out.read_text(encoding="utf-8"))["run"]["sampling"]["max_tokens"] == 100
    code, doc, _ = stale(capsys, str(out))
    assert (code, doc["stands"]) == (0, True), doc
    code, doc, _ = stale(capsys, str(out), "--max-tokens", "200")
    assert code == 1 and arms(doc) == {"a": ("rerun", "rerun"), "b": ("rerun", "rerun")}
    assert doc["cases"][0]["baseline"]["reasons"][0].startswith("answering sampling changed: ")
    assert main(["stale", str(out), "--max-tokens", "0"]) == 2
    assert capsys.readouterr().err.startswith("driftproof: error: --max-tokens: a whole number of tokens")


def test_a_suite_given_brings_the_skill_it_names(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--suite OTHER/suite.yaml`` without ``--skill`` asks about what ``run OTHER/suite.yaml`` would run: the
    skill that suite names (it read the receipt's recorded SKILL.md instead, so an edited copy "stood")."""
    _, receipt = made
    other = tmp_path / "other"
    other.mkdir()
    (other / "SKILL.md").write_text("# Skill\nWrite better.\n", encoding="utf-8")
    _suite(other)
    code, doc, _ = stale(capsys, str(receipt), "--suite", str(other / "suite.yaml"), *FAST)
    assert code == 1 and arms(doc) == {"a": ("rerun", "stands"), "b": ("rerun", "stands")}
    assert doc["cases"][0]["with_skill"]["reasons"][0].startswith("skill sha256 changed: ")


def _shards(suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[Path]:
    """Shards 1/2 and 2/2 of the suite, answers kept: sha256 b 3e23… ranks before a ca97…, so b is in 1, a in 2."""
    paths = [tmp_path / f"s{i}.json" for i in (1, 2)]
    for i, path in enumerate(paths, start=1):
        assert main(["run", str(suite), *FAST, "--keep-transcripts", "--shard", f"{i}/2", "-o", str(path)]) == 0
    capsys.readouterr()
    return paths


def test_a_shard_receipt_is_asked_about_its_own_cases_and_its_regrade_works(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    suite, _ = made
    shard, _ = _shards(suite, tmp_path, capsys)
    code, doc, _ = stale(capsys, str(shard))
    assert code == 0 and arms(doc) == {"b": ("stands", "stands")}  # not case a: shard 2/2 drew it
    assert doc["dropped_cases"] == [] and doc["advisories"] == []
    _suite(tmp_path, rubric="Better.")
    code, doc, _ = stale(capsys, str(shard))
    assert code == 1 and arms(doc) == {"b": ("regrade", "regrade")}
    answers = str(shard.with_suffix(".answers.jsonl"))
    assert main(["regrade", str(shard), "--answers", answers, "--suite", str(suite)]) == 0  # the advice works


def test_a_merged_receipt_says_to_regrade_each_shard_and_merge_again(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from driftproof.core.shard_sentences import MERGED_KEEPS_NO_ANSWERS

    suite, _ = made
    merged = tmp_path / "m.json"
    assert main(["merge", *map(str, _shards(suite, tmp_path, capsys)), "-o", str(merged)]) == 0
    capsys.readouterr()
    _suite(tmp_path, rubric="Better.")
    code, doc, _ = stale(capsys, str(merged))
    assert code == 1 and arms(doc) == {"a": ("rerun", "rerun"), "b": ("rerun", "rerun")}
    reasons = doc["cases"][0]["with_skill"]["reasons"]
    assert reasons[0].startswith("rubric or criteria changed")
    assert reasons[1] == f"{MERGED_KEEPS_NO_ANSWERS}; for a shard that kept none, grading again means drawing again"
    assert not any("--keep-transcripts" in r for r in reasons)


def test_no_as_reference_asks_about_an_ordinary_run_of_a_reference_receipt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from driftproof.core import stale_sentences

    out = _reference_receipt(tmp_path, capsys)
    code, doc, _ = stale(capsys, str(out), "--no-as-reference", "--draws", "2", "--max-draws", "2")
    # drawn 12 to 12 a side (the reference form of 2 to 2): deeper than an ordinary run's, so it stands, and says so
    assert code == 0 and doc["stands"] is True
    assert doc["advisories"] == [stale_sentences.stale_reference_rule(12, 12, 2, 2)]


@pytest.mark.parametrize(
    ("name", "field", "flag"), [("SKILL.md", "skill.path", "--skill"), ("suite.yaml", "suite.path", "--suite")]
)
def test_a_missing_path_the_receipt_recorded_says_it_came_from_the_receipt(
    made: tuple[Path, Path], capsys: pytest.CaptureFixture[str], name: str, field: str, flag: str
) -> None:
    _, receipt = made
    gone = receipt.parent / name
    gone.rename(receipt.parent / f"moved-{name}")
    code, _, err = stale(capsys, str(receipt))
    recorded = json.loads(receipt.read_text(encoding="utf-8"))[field.split(".")[0]]["path"]
    assert code == 2 and err.strip() == (
        f"driftproof: error: {recorded}: no such file: the path the receipt recorded as {field} (read relative to "
        f"the current directory); give {flag} to read today's file"
    )
    assert "given by" not in err


def test_stale_help_says_every_lane_and_judge_flag_left_out_is_the_receipts() -> None:
    import argparse

    from driftproof.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["stale"]
    helps = {a.option_strings[-1]: a.help or "" for a in sub._actions if a.option_strings}
    for flag in ("--provider", "--surface", "--model", "--judge-provider", "--judge-model", "--base-url"):
        assert "(default: the receipt's)" in helps[flag], flag
    assert "(default: the receipt's)" in helps["--judge-base-url"]
    assert not any("claude-haiku" in h or "default anthropic" in h for h in helps.values())
