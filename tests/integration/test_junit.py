"""``--junit FILE`` on ``run`` and ``diff`` (issue 15): one test case per suite case, failed when regressed, skipped
with the reason when underpowered or no verdict; the XML parsed back with ``xml.etree``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.junit import write_run_junit
from driftproof.receipts import write_receipt
from tests.support.builders import receipt, seven

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "commit-writer" / "suite.yaml"

# worse:  with 0.40, 0.45, 0.50 (mean 0.45, sd 0.05) against without 0.80, 0.85, 0.90 (mean 0.85, sd 0.05):
#         bands 0.40–0.50 and 0.80–0.90 apart, Δ = 0.45 − 0.85 = −0.40, |Δ| ≥ 0.05: regressed → failure.
# noisy:  with 0.600, 0.615, 0.630 (mean 0.615, sd 0.015) against 0.585, 0.600, 0.615 (mean 0.600, sd 0.015):
#         bands touch; R-4: room = 0.05 − 0.015 − 0.015 = 0.02, n > 4·(0.015² + 0.015²)/0.02² = 4.5, so 5 draws
#         per arm needed → underpowered → skipped.
# better: with 0.85, 0.90, 0.95 (mean 0.90) against 0.40, 0.45, 0.50 (mean 0.45): Δ = +0.45, improved → passed.
CASES = {
    "worse": ([0.40, 0.45, 0.50], [0.80, 0.85, 0.90]),
    "noisy": ([0.600, 0.615, 0.630], [0.585, 0.600, 0.615]),
    "better": ([0.85, 0.90, 0.95], [0.40, 0.45, 0.50]),
}


def parsed(path: Path) -> tuple[ET.Element, ET.Element, dict[str, ET.Element]]:
    root = ET.fromstring(path.read_bytes())
    suite = root.find("testsuite")
    assert suite is not None
    return root, suite, {case.get("name", ""): case for case in suite.iter("testcase")}


def test_run_junit_counts_one_regressed_one_underpowered_one_passing(tmp_path: Path) -> None:
    # what `run --junit` writes from the receipt it sealed: each case's with-skill arm against its baseline
    out = write_run_junit(receipt(CASES), tmp_path / "run.xml")
    root, suite, cases = parsed(out)
    # 3 cases: 1 failure (worse), 1 skipped (noisy), 1 passed (better)
    counts = (suite.get("tests"), suite.get("failures"), suite.get("skipped"), suite.get("errors"))
    assert counts == ("3", "1", "1", "0")
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("3", "1", "1")
    assert list(cases) == ["worse", "noisy", "better"]
    assert {c.get("classname") for c in cases.values()} == {"fixture"}  # the suite's name (SKILL.md has no dir)
    failure = cases["worse"].find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "case worse regressed: with the skill 0.45 ± 0.05 (3/3), without it 0.85 ± 0.05 (3/3) (Δ -0.40); "
        "the bands are apart and |Δ| ≥ 0.05"
    )
    skipped = cases["noisy"].find("skipped")
    assert skipped is not None and skipped.get("message") == "case noisy underpowered: 5 draws per arm needed"
    assert list(cases["better"]) == []


def test_diff_junit_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Between two receipts R-7 asks 7 measured draws per arm (`seven`: the three twice, then the middle one).
    # worse: BEFORE 0.85, 0.90, 0.95 → AFTER 0.40, 0.45, 0.50: means 0.90 → 0.45, Δ −0.45, apart: regressed.
    # same: 0.64, 0.65, 0.66 on both sides (sd 0.01·sqrt(4/6) = 0.0082): Δ 0, and R-4 asks only
    # n > 4·2·0.0082²/(0.05 − 2·0.0082)² = 0.47, so 7 draws are enough to say no separation: passed.
    # gone: only in BEFORE: skipped.
    before = receipt(
        {
            "worse": (seven([0.85, 0.90, 0.95]), seven([0.5, 0.5, 0.5])),
            "same": (seven([0.64, 0.65, 0.66]), seven([0.5, 0.5, 0.5])),
            "gone": (seven([0.60, 0.65, 0.70]), seven([0.5, 0.5, 0.5])),
        }
    )
    after = receipt(
        {
            "worse": (seven([0.40, 0.45, 0.50]), seven([0.5, 0.5, 0.5])),
            "same": (seven([0.64, 0.65, 0.66]), seven([0.5, 0.5, 0.5])),
        }
    )
    b, a = write_receipt(before, tmp_path / "b.json"), write_receipt(after, tmp_path / "a.json")
    junit = tmp_path / "diff.xml"
    code = main(["diff", str(b), str(a), "--junit", str(junit), "--format", "json"])
    assert code == 0  # diff gates only when asked (--fail-on never by default); the JUnit report says regressed
    out, err = capsys.readouterr()
    assert out.lstrip().startswith("{")  # stdout stays the JSON; the junit line goes to stderr
    assert err == f"junit: {junit}\n"
    _, suite, cases = parsed(junit)
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    failure = cases["worse"].find("failure")
    assert failure is not None
    assert failure.get("message") == (
        f"case worse: with-skill 0.90 ± 0.04 (7/7) in {b} → 0.45 ± 0.04 (7/7) in {a} (Δ -0.45); "
        "the bands are apart and |Δ| ≥ 0.05"
    )
    assert list(cases["same"]) == []
    gone = cases["gone"].find("skipped")
    assert gone is not None
    assert gone.get("message") == "case gone is only in the before receipt: nothing to compare it with"


def test_run_junit_no_verdict_skips_every_case_with_the_reason(tmp_path: Path) -> None:
    out, junit = tmp_path / "r.json", tmp_path / "junit.xml"
    assert main(["run", str(SUITE), "--provider", "stub", "-o", str(out), "--junit", str(junit)]) == 0
    _, suite, cases = parsed(junit)
    # the example suite has 3 cases; a stub run reads UNVERIFIED, so no case is called
    assert (suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("skipped")) == (
        "commit-writer",
        "3",
        "0",
        "3",
    )
    skipped = cases["subject-line"].find("skipped")
    assert skipped is not None
    assert skipped.get("message") == (
        "case subject-line: no verdict: below TESTED: the receipt reads UNVERIFIED "
        "(stub lane: no model answered or judged)"
    )


@pytest.mark.parametrize(
    ("target", "reason"),
    [  # a missing parent directory is created, as for -o (tests/integration/test_output_paths.py)
        ("", "is a directory; name a file such as {tmp}/junit.xml"),
        ("r.json", "{tmp}/r.json is also where the receipt goes (-o); write the JUnit report elsewhere"),
    ],
)
def test_bad_junit_target_exits_2_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, reason: str
) -> None:
    out = tmp_path / "r.json"
    path = tmp_path / target if target else tmp_path
    assert main(["run", str(SUITE), "--provider", "stub", "-o", str(out), "--junit", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("driftproof: error: --junit: ")
    assert reason.format(tmp=tmp_path) in err
    assert not out.exists()  # nothing ran, nothing was written
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_action_input_junit_is_read_as_a_workspace_path() -> None:
    from driftproof.action.config import ActionConfig
    from driftproof.errors import InputError

    env = {"INPUT_SUITE": "evals/suite.yaml", "INPUT_JUNIT": "reports/junit.xml"}
    assert ActionConfig.from_environ(env).junit == "reports/junit.xml"
    assert ActionConfig.from_environ({"INPUT_SUITE": "evals/suite.yaml"}).junit is None
    with pytest.raises(InputError, match="junit"):
        ActionConfig.from_environ({**env, "INPUT_JUNIT": "/etc/junit.xml"})
