"""``driftproof import``: real files in, a receipt every reader loads out; every bad input one line, exit 2, nothing
written. Then ``view`` and ``diff`` of an imported receipt against a stub run's: no verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.importers import IMPORT
from driftproof.receipts import load_receipt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "imports" / "caliper"
FULL, BASE = FIXTURES / "changelog-full.json", FIXTURES / "changelog-ablated-skill.json"
ROOT = Path(__file__).resolve().parents[2]


def refused(capsys: pytest.CaptureFixture[str], out: Path, *argv: str) -> str:
    """Run the command, which must refuse: exit 2, one line on stderr, nothing on stdout, no receipt."""
    assert main(["import", *argv, "-o", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("driftproof: error: ")
    assert not out.exists() and not list(out.parent.glob("*.tmp*"))
    return lines[0].removeprefix("driftproof: error: ")


def test_import_a_caliper_pair_then_view_and_diff_give_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "caliper.json"
    assert main(["import", "caliper", str(FULL), str(BASE), "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "imported caliper: 2 documents, 5 cases, 0 lost draws; DECLARED, no verdict"
    receipt = load_receipt(out)
    assert receipt.verification == "DECLARED" and receipt.source is not None
    assert [d.name for d in receipt.source.documents] == [str(FULL), str(BASE)]

    assert main(["view", str(out), "--format", "json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["status"] == "no_verdict" and {c["verdict"] for c in view["cases"]} == {None}
    assert view["cases"][0]["with_skill"]["skill_fired"] == {"fired": 3, "of": 3}
    assert main(["view", str(out)]) == 0
    assert "**Driftproof · no verdict**" in capsys.readouterr().out

    stub = tmp_path / "stub.json"
    assert main(["run", str(ROOT / "examples/commit-writer/suite.yaml"), "--provider", "stub", "-o", str(stub)]) == 0
    capsys.readouterr()
    for before, after in ((stub, out), (out, stub)):
        assert main(["diff", str(before), str(after), "--format", "json", "--fail-on", "underpowered"]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["status"] == "no_verdict" and sum(result["counts"].values()) == 0
    assert main(["badge", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["message"] == "no verdict · lift +0.20"


def test_a_truncated_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "cut.json"
    cut.write_bytes(FULL.read_bytes()[:5000])
    line = refused(capsys, tmp_path / "r.json", "caliper", str(cut), str(BASE))
    assert line.startswith(f"{cut}: not valid JSON at line ")


def test_a_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, tmp_path / "r.json", "caliper", str(tmp_path))
    assert line == f"{tmp_path}: is a directory, not a result file"


def test_a_missing_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, tmp_path / "r.json", "caliper", str(tmp_path / "none.json"))
    assert line == f"{tmp_path / 'none.json'}: no such file"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(IMPORT.max_bytes + 1)  # sparse: refused from its size, never read
    line = refused(capsys, tmp_path / "r.json", "caliper", str(big))
    assert line == f"{big}: too large: 67,108,865 bytes; an import source file holds at most 64 MiB"


def test_the_wrong_kind_is_refused_with_the_kind_it_looks_like(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "promptfoo.json"
    other.write_text(json.dumps({"evalId": "x", "results": {"version": 3, "results": []}}), encoding="utf-8")
    line = refused(capsys, tmp_path / "r.json", "caliper", str(other))
    assert line == (
        f"{other}: run: missing; a Caliper results file holds run, task_results; "
        "this looks like a promptfoo file; use `driftproof import promptfoo`"
    )


def test_a_pair_that_does_not_match_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tidy = FIXTURES / "tidy-ablated.json"
    line = refused(capsys, tmp_path / "r.json", "caliper", str(FULL), str(tidy))
    assert line == f"{tidy}: run.spec: 'tidy' here, 'changelog' in {FULL}: the two runs must share it to be one " + (
        "with/without comparison"
    )


def test_a_refusal_leaves_an_existing_receipt_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["import", "caliper", str(FULL), str(BASE), "-o", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert main(["import", "caliper", str(BASE), "-o", str(out)]) == 2
    assert out.read_bytes() == before


def test_an_unknown_kind_is_refused_by_the_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["import", "lm-eval", str(FULL)])
    assert caught.value.code == 2
    assert "invalid choice: 'lm-eval'" in capsys.readouterr().err


def test_default_output_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(FULL, tmp_path / "full.json")
    assert main(["import", "caliper", "full.json", "--skill", "changelog-writer"]) == 0
    assert load_receipt(tmp_path / ".driftproof" / "import-caliper-full.json").source is not None


IMPORTS = FIXTURES.parent
NVIDIA_AT = ["--repository", "NVIDIA/skills", "--commit", "7149a886d50da8db72cdc1f20ff01cefeadfe6a9"]


@pytest.mark.parametrize(
    ("argv", "first"),
    [
        (["promptfoo", str(IMPORTS / "promptfoo" / "results.json")], "imported promptfoo: 1 document, 3 cases, 3 lost"),
        (
            ["plugin-eval", str(IMPORTS / "plugin-eval" / "two-arm-partial.json")],
            "imported claude-plugin-eval: 1 document, 2 cases, 4 lost draws",
        ),
        (
            ["nvidia-card", str(IMPORTS / "nvidia-card" / "BENCHMARK.md"), *NVIDIA_AT],
            "imported nvskills-eval: 1 document, 10 cases, 0 lost draws",
        ),
    ],
)
def test_the_new_kinds_import_and_read_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], first: str
) -> None:
    out = tmp_path / "r.json"
    assert main(["import", *argv, "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith(first)
    assert main(["view", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "no_verdict"


def test_regrade_refuses_an_nvidia_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "card.json"
    assert (
        main(["import", "nvidia-card", str(IMPORTS / "nvidia-card" / "BENCHMARK.md"), *NVIDIA_AT, "-o", str(out)]) == 0
    )
    receipt = load_receipt(out)
    assert receipt.source is not None and receipt.source.documents[0].git_blob_sha1 == (
        "07e8e6facea53bd77355adae2fd3a4cbc5f890a4"
    )
    capsys.readouterr()
    archive = tmp_path / "answers.tar.gz"
    archive.write_bytes(b"")
    assert main(["regrade", str(out), "--answers", str(archive), "-o", str(tmp_path / "again.json")]) == 2
    err = capsys.readouterr().err
    assert "an aggregates-only receipt has no per-run score to grade again or plan draws from" in err
    assert not (tmp_path / "again.json").exists()


def test_a_promptfoo_file_with_no_arm_marker_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = IMPORTS / "promptfoo" / "results-unlabelled.json"
    line = refused(capsys, tmp_path / "r.json", "promptfoo", str(src))
    assert line.startswith(f"{src}: results.prompts: no prompt or provider is labelled 'with_skill'")


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ([], "--repository: nvidia-card needs the repository and commit the files were read at"),
        (["--repository", "NVIDIA/skills"], "--commit: nvidia-card needs the repository and commit"),
        (["--repository", "nvidia", "--commit", "0" * 40], "--repository: expected OWNER/NAME, found 'nvidia'"),
        (["--repository", "NVIDIA/skills", "--commit", "7149a88"], "--commit: expected the full 40-character"),
    ],
)
def test_nvidia_card_needs_the_repository_and_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], expected: str
) -> None:
    line = refused(capsys, tmp_path / "r.json", "nvidia-card", str(IMPORTS / "nvidia-card" / "BENCHMARK.md"), *extra)
    assert line.startswith(expected)


@pytest.mark.parametrize("kind", ["promptfoo", "plugin-eval", "nvidia-card"])
def test_the_new_kinds_refuse_truncated_oversized_and_wrong_kind_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    at = NVIDIA_AT if kind == "nvidia-card" else []
    cut = tmp_path / "cut.json"
    cut.write_bytes((IMPORTS / "plugin-eval" / "two-arm-partial.json").read_bytes()[:3000])
    assert refused(capsys, tmp_path / "r.json", kind, str(cut), *at).startswith(f"{cut}: not valid JSON at line ")
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(IMPORT.max_bytes + 1)
    assert refused(capsys, tmp_path / "r.json", kind, str(big), *at) == (
        f"{big}: too large: 67,108,865 bytes; an import source file holds at most 64 MiB"
    )
    line = refused(capsys, tmp_path / "r.json", kind, str(FULL), *at)
    assert line.startswith(f"{FULL}: ") and "this looks like a caliper file; use `driftproof import caliper`" in line


def test_view_says_where_an_import_came_from_and_shows_the_printed_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "card.json"
    card = IMPORTS / "nvidia-card" / "BENCHMARK.md"
    assert main(["import", "nvidia-card", str(card), *NVIDIA_AT, "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["view", str(out)]) == 0
    text = capsys.readouterr().out
    assert "**Where it came from**" in text and "- imported from nvskills-eval (version unknown)" in text
    assert "git blob 07e8e6facea5" in text and "- not recorded: the baseline's own score" in text
    assert "- figures as the source printed them (never read as scores):" in text
    # the card's cell exactly as printed: a score and an uplift with no unit, no baseline worked out
    assert "agent claude-code, dimension Correctness, num 1, printed 100% (+70%)" in text


def test_a_measured_receipt_has_no_source_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run.json"
    assert (
        main(["run", str(ROOT / "examples" / "commit-writer" / "suite.yaml"), "--provider", "stub", "-o", str(out)])
        == 0
    )
    capsys.readouterr()
    assert main(["view", str(out)]) == 0
    assert "Where it came from" not in capsys.readouterr().out
