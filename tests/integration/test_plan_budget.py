"""``driftproof plan`` and ``--budget`` end to end on the stub lane (issue 14): no call, the receipt's record,
the underpowered reading, what the run says it would have needed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from driftproof.cli import main
from driftproof.core.economics import estimate_tokens
from driftproof.core.reading import read_receipt
from driftproof.core.words import CaseVerdict
from driftproof.judge import judge_prompt
from driftproof.receipts import load_receipt
from driftproof.run import RunRequest, run_suite
from driftproof.suite import load_suite

PROMPT = "p" * 40  # 10 tokens
SKILL = "s" * 400  # 100 tokens


def make_suite(d: Path) -> Path:
    (d / "SKILL.md").write_text(SKILL, encoding="utf-8")
    suite = {"name": "b", "skill": "SKILL.md", "cases": [{"id": "a", "prompt": PROMPT, "rubric": "Good."}]}
    (d / "suite.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    return d / "suite.yaml"


def worst_cases(suite: Path) -> tuple[int, int]:
    """(with, baseline) worst case of one draw with --max-tokens 100 and one judge sample."""
    template = estimate_tokens(judge_prompt(load_suite(suite).cases[0], ""))
    judge = template + 100 + 1024  # the template, the answer at --max-tokens, the judge's ceiling
    return 10 + 100 + 100 + judge, 10 + 100 + judge


def run_args(suite: Path, out: Path, *extra: str) -> list[str]:
    return ["run", str(suite), "--provider", "stub", "-o", str(out), "--judge-samples", "1", "--max-tokens", "100",
            "--draws", "3", "--max-draws", "3", *extra]  # fmt: skip


def test_budget_stops_the_case_records_it_and_says_what_was_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = make_suite(tmp_path)
    w, b = worst_cases(suite)
    # draws start in turn (with, baseline, with, baseline, ...): 2w + 2b fits, the third with does not
    budget = 2 * w + 2 * b
    assert main(run_args(suite, tmp_path / "r.json", "--budget", str(budget))) == 0
    err = capsys.readouterr().err
    receipt = load_receipt(tmp_path / "r.json")
    case = receipt.cases[0]
    assert (len(case.with_skill.draws), len(case.baseline.draws)) == (2, 2)
    assert case.stop_reason == "stopped at the token budget"
    record = receipt.run.settings.budget
    assert record is not None
    assert (record.tokens, record.committed_tokens, record.stopped_cases) == (budget, budget, 1)
    assert record.needed_tokens == 3 * w + 3 * b  # the refused third pair on top of what was committed
    assert receipt.run.logical_calls == 4 * 2  # 4 draws × (1 answer + 1 judge sample)
    assert read_receipt(receipt).cases[0].comparison.verdict == CaseVerdict.UNDERPOWERED
    assert (
        f"budget: 1 case stopped at the token budget ({budget:,} tokens); the draws it asked for needed at least "
        f"{3 * w + 3 * b:,} tokens ($0)"
    ) in err


@pytest.mark.parametrize("command", ["run", "plan"])
def test_a_budget_too_small_for_one_draw_is_refused_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Issue 14 (probe #6): `--budget 100` made no call, wrote a receipt of no draw and exited 0."""
    suite = make_suite(tmp_path)
    w, _ = worst_cases(suite)
    assert main([command, *run_args(suite, tmp_path / "r.json", "--budget", "100")[1:]]) == 2
    assert capsys.readouterr().err == (
        "driftproof: error: --budget: the budget (100 tokens) cannot start a single draw, so the run would make no "
        f"call: the least a draw needs is {w:,} tokens at its worst case (case a's with-skill answer and its 1 judge "
        f"sample); raise --budget to at least {w:,} tokens\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SKILL.md", "suite.yaml"]  # nothing written


def test_a_budget_the_worst_case_fits_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = make_suite(tmp_path)
    w, b = worst_cases(suite)
    assert main(run_args(suite, tmp_path / "r.json", "--budget", str(3 * w + 3 * b))) == 0
    receipt = load_receipt(tmp_path / "r.json")
    assert receipt.cases[0].stop_reason != "stopped at the token budget"
    assert receipt.run.settings.budget is not None and receipt.run.settings.budget.needed_tokens is None
    assert "the worst case of the run fits" in capsys.readouterr().err


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(min_value=0.0, max_value=1.2), max_draws=st.integers(3, 6))
def test_property_no_run_commits_past_its_budget(fraction: float, max_draws: int) -> None:
    """Every draw a receipt holds, at its worst case, adds up to its committed tokens, never past the budget."""
    with tempfile.TemporaryDirectory() as d:
        suite = make_suite(Path(d))
        w, b = worst_cases(suite)
        budget = max(w, int(fraction * max_draws * (w + b)))  # below w, no draw could start: refused (one line)
        request = RunRequest(suite=suite, provider="stub", out=Path(d) / "r.json", judge_samples=1, max_tokens=100,
                             draws=3, max_draws=max_draws, budget=budget)  # fmt: skip
        with (Path(d) / "log").open("w", encoding="utf-8") as log:
            receipt = run_suite(request, progress_stream=log).receipt
        case = receipt.cases[0]
        recorded = len(case.with_skill.draws) * w + len(case.baseline.draws) * b
        assert receipt.run.settings.budget is not None
        assert recorded == receipt.run.settings.budget.committed_tokens <= budget
        if case.stop_reason == "stopped at the token budget":
            assert read_receipt(receipt).cases[0].comparison.verdict == CaseVerdict.UNDERPOWERED


def test_plan_prints_per_case_and_total_and_makes_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    suite = make_suite(tmp_path)
    w, b = worst_cases(suite)
    template = w - 10 - 100 - 100 - 100 - 1024
    # anthropic lane, no key: plan builds no lane. 1 case × 2 arms × 3 draws × (1 + 1) = 12 calls
    assert main(["plan", str(suite), "--judge-samples", "1", "--max-tokens", "100", "--draws", "3",
                 "--max-draws", "3", "--model", "claude-sonnet-4-6"]) == 0  # fmt: skip
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "plan: 1 case × 2 arms × 3 draws × (1 answer + 1 judge sample): at least 12, at most 12 calls"
    # floor: 3 × ((110 + T) + (10 + T)); worst 3w + 3b
    low = 3 * (110 + template + 10 + template)
    assert out[1].startswith(f"  a: 12 calls · ~{low:,} to {3 * w + 3 * b:,} tokens · $")
    assert not (tmp_path / ".driftproof").exists()
    assert main(["plan", str(suite), "--format", "json", "--judge-samples", "1", "--max-tokens", "100"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["total"]["calls"] == {"min": 12, "max": 40}  # 3 to 10 draws
    assert doc["prices"]["judge"]["model"] == "claude-haiku-4-5"
    assert doc["total"]["usd"] == {"min": None, "max": None}  # the default answering model has no price


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--budget", "0"], "--budget: a whole number of tokens from 1 to 10^12, got 0"),
        (["--budget-usd", "-1"], "--budget-usd: a number of USD above 0, got -1.0"),
        (["--max-tokens", "0"], "--max-tokens: a whole number of tokens from 1 to 10^12, got 0"),
        (
            ["--budget-usd", "1", "--provider", "stub", "--model", "unpriced"],
            "--budget-usd: no price for the answering model unpriced in the price table; add it with "
            "--price-table FILE, answer with a priced model (--model), or give --budget TOKENS",
        ),
    ],
)
@pytest.mark.parametrize("command", ["plan", "run"])
def test_bad_budget_flags_are_one_line_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str, command: str
) -> None:
    suite = make_suite(tmp_path)
    provider = [] if "--provider" in flags else ["--provider", "stub"]
    assert main([command, str(suite), *provider, "-o", str(tmp_path / "r.json"), *flags]) == 2
    assert capsys.readouterr().err == f"driftproof: error: {message}\n"
    assert not (tmp_path / "r.json").exists()


def test_plan_refuses_an_imported_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "imports"
    imported = tmp_path / "imported.json"
    assert main(["import", "skill-creator", str(fixtures / "skill-creator" / "benchmark.json"),
                 "-o", str(imported)]) == 0  # fmt: skip
    capsys.readouterr()
    suite = make_suite(tmp_path)
    assert main(["plan", str(suite), "--provider", "stub", "--reference", str(imported)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"driftproof: error: {imported}: an imported (DECLARED) receipt")


PLAN_FLAGS = ("--judge-samples", "1", "--max-tokens", "100", "--draws", "3", "--max-draws", "3")


def test_plan_with_batch_prices_every_call_at_half_the_list_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    suite = make_suite(tmp_path)
    w, b = worst_cases(suite)
    template = w - 10 - 100 - 100 - 100 - 1024
    assert (template, w, b) == (181, 1515, 1415)
    # 3 draws per arm, 1 judge sample: answers 3 × (110 + 10) = 360 in, 6 × 100 = 600 out; the judge
    # 6 × (181 + 100) = 1,686 in at most (6 × 181 = 1,086 at least), 6 × 1,024 = 6,144 out.
    # list (bundled: claude-sonnet-4-6 $3 / $15, claude-haiku-4-5 $1 / $5 per million):
    #   most 360 × 3 + 600 × 15 + 1,686 × 1 + 6,144 × 5 = 1,080 + 9,000 + 1,686 + 30,720 = 42,486 / 1e6
    #   least 360 × 3 + 1,086 × 1 = 2,166 / 1e6
    # batch: every rate halved ($1.5 / $7.5, $0.5 / $2.5), so 21,243 and 1,083 / 1e6
    docs = {}
    for batch in ([], ["--batch"]):
        assert main(["plan", str(suite), "--model", "claude-sonnet-4-6", *PLAN_FLAGS, "--format", "json", *batch]) == 0
        docs[bool(batch)] = json.loads(capsys.readouterr().out)
    assert docs[False]["total"]["usd"] == {"min": 0.002166, "max": 0.042486}
    assert docs[True]["total"]["usd"] == {"min": 0.001083, "max": 0.021243}
    assert docs[True]["total"]["usd"]["max"] == docs[False]["total"]["usd"]["max"] / 2
    assert docs[True]["total"]["tokens"] == docs[False]["total"]["tokens"] == {"min": 1446, "max": 8790}
    answering, judge = docs[True]["prices"]["answering_model"]["price"], docs[True]["prices"]["judge"]["price"]
    assert (answering["input_per_mtok"], answering["output_per_mtok"]) == (1.5, 7.5)
    assert (judge["input_per_mtok"], judge["output_per_mtok"]) == (0.5, 2.5)
    assert judge["source"] == "bundled price table 2026-11-01: claude-haiku-4-5, batch API: half price"
    assert not docs[False]["prices"]["judge"]["price"]["source"].endswith("half price")
    assert main(["plan", str(suite), "--model", "claude-sonnet-4-6", *PLAN_FLAGS, "--batch"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2] == "  total: 12 calls · ~1,446 to 8,790 tokens · $0.0011 to $0.0212"
    assert out[4:6] == [
        "price of the answering model claude-sonnet-4-6: $1.5 in, $7.5 out per million tokens "
        "(bundled price table 2026-11-01: claude-sonnet-4-6, batch API: half price)",
        "price of the judge claude-haiku-4-5: $0.5 in, $2.5 out per million tokens "
        "(bundled price table 2026-11-01: claude-haiku-4-5, batch API: half price)",
    ]


def test_plan_with_batch_weighs_a_dollar_budget_at_the_batch_price(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = make_suite(tmp_path)
    # $0.03 lies between the batch worst case ($0.021243) and the list one ($0.042486): figures above
    flags = ["plan", str(suite), "--model", "claude-sonnet-4-6", *PLAN_FLAGS, "--budget-usd", "0.03"]
    assert main([*flags, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["budget"]["worst_case_fits"] is False
    assert main([*flags, "--format", "json", "--batch"]) == 0
    assert json.loads(capsys.readouterr().out)["budget"]["worst_case_fits"] is True
    assert main([*flags, "--batch"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "budget: $0.0300: the worst case of the run fits"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--provider", "stub"], "the answering model goes through stub/none"),
        (["--judge-provider", "stub"], "the judge goes through stub/none"),
    ],
)
@pytest.mark.parametrize("command", ["plan", "run"])
def test_batch_on_a_lane_without_a_batch_api_is_refused_alike_by_plan_and_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    message: str,
    command: str,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-key")  # run builds its lanes (no call) first
    suite = make_suite(tmp_path)
    assert main([command, str(suite), *flags, "--batch", "-o", str(tmp_path / "r.json")]) == 2
    assert capsys.readouterr().err == (
        f"driftproof: error: --batch: {message}, which has no batch API; --batch needs the anthropic or openai "
        "API lane\n"
    )
    assert not (tmp_path / "r.json").exists() and not (tmp_path / ".driftproof").exists()


def test_plan_with_batch_refuses_a_cli_surface_without_building_its_lane(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = make_suite(tmp_path)
    assert main(["plan", str(suite), "--surface", "cli", "--batch"]) == 2
    assert capsys.readouterr().err == (
        "driftproof: error: --batch: the answering model goes through anthropic/cli, which has no batch API; "
        "--batch needs the anthropic or openai API lane\n"
    )


@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_missing_script_is_refused_alike_by_plan_and_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Issue 14 (probe #9): `plan --script nothere.yaml` planned and exited 0, where run refuses it."""
    suite = make_suite(tmp_path)
    missing = tmp_path / "nothere.yaml"
    assert main([command, str(suite), "--provider", "stub", "--script", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"driftproof: error: {missing}: cannot read the stub script (No such file or directory)\n"
    )


def test_plan_refuses_resume_and_checks_the_receipt_path_as_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = make_suite(tmp_path)
    assert main(["plan", str(suite), "--provider", "stub", "--resume"]) == 2
    assert capsys.readouterr().err == (
        "driftproof: error: --resume: driftproof plan reads no journal, so it cannot say what an interrupted run has "
        "left; drop --resume to print the whole run's plan\n"
    )
    for command in ("plan", "run"):  # -o a directory: refused before any call by both; the plan writes nothing
        assert main([command, str(suite), "--provider", "stub", "-o", str(tmp_path)]) == 2
        assert capsys.readouterr().err.startswith(f"driftproof: error: -o: {tmp_path} is a directory")
    assert main(["plan", str(suite), "--provider", "stub", "-o", str(tmp_path / "r.json")]) == 0
    assert not (tmp_path / "r.json").exists()
