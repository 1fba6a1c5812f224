"""The receipt commands end to end: validate, view, diff; exit codes and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.errors import OutputError
from driftproof.receipts import load_receipt, receipt_json, write_receipt
from driftproof.resources import known_schema_versions
from tests.support.builders import receipt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
KNOWN = ", ".join(known_schema_versions())  # "0.13, 0.14, 0.15, 0.16, 0.17" today
UP = ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])
DOWN = ([0.2, 0.3, 0.4], [0.5, 0.6, 0.7])
# 7 draws a side, as R-7 asks of a call between two receipts: with-skill 0.6 ± 0.0645 and 0.3 ± 0.0645
UP7 = ([0.5, 0.55, 0.6, 0.65, 0.7, 0.6, 0.6], [0.2, 0.3, 0.4])
DOWN7 = ([0.2, 0.25, 0.3, 0.35, 0.4, 0.3, 0.3], [0.5, 0.6, 0.7])


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    write_receipt(receipt({"a": UP7, "b": UP7}), before)
    write_receipt(receipt({"a": DOWN7, "b": UP7}), after)
    return before, after


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_ok_and_refusals(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "validate", str(pair[0]), str(pair[1]))
    assert code == 0 and out.count(": valid") == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    for path, message in [
        (tmp_path / "missing.json", "no such file"),
        (bad, "not valid JSON at line 1, column 2: Expecting property name"),
        (FIXTURES / "tampered-seal.json", "seal mismatch: recorded"),
        (
            FIXTURES / "future-version.json",
            f"schema_version: '9.0' is not one this Driftproof reads (it reads {KNOWN})",
        ),
    ]:
        code, out, err = run(capsys, "validate", str(path))
        assert code == 2, path
        assert err.count("\n") == 1 and str(path) in err and message in err
        assert "Traceback" not in err


def test_tampered_seal_names_both_hashes() -> None:
    doc = json.loads((FIXTURES / "tampered-seal.json").read_text(encoding="utf-8"))
    with pytest.raises(Exception, match=doc["seal"]["sha256"]) as info:
        load_receipt(FIXTURES / "tampered-seal.json")
    assert "content gives" in str(info.value)


def test_legacy_single_draw_receipt_reads_with_legacy_bands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "view", str(FIXTURES / "legacy-single-draw.json"), "--format", "json")
    view = json.loads(out)
    case = view["cases"][0]
    # judge samples [0.8,0.85,0.9,0.85,0.8] m 0.84 sd 0.041833; [0.5,0.55,0.5,0.6,0.55] m 0.54 sd 0.041833
    # 0.84-0.0418 = 0.798 > 0.54+0.0418 = 0.582 -> improved, Δ 0.3
    assert code == 0 and case["with_skill"]["band_source"] == "legacy"
    assert case["verdict"] == "improved" and case["delta"] == pytest.approx(0.3, abs=1e-9)
    assert case["with_skill"]["sd"] == pytest.approx(0.041833, abs=1e-6)


def test_view_json_and_markdown(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "view", str(pair[1]), "--format", "json")
    view = json.loads(out)
    assert code == 0 and view["status"] == "regressed" and view["cases"][0]["verdict"] == "regressed"
    code, out, _ = run(capsys, "view", str(pair[1]))
    assert code == 0 and "**Driftproof · regressed**" in out and "`a`" in out


def test_diff_gates_on_fail_on(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", str(pair[0]), str(pair[1]), "--format", "json", "--fail-on", "regressed")
    assert code == 1 and json.loads(out)["status"] == "regressed"
    code, _, _ = run(capsys, "diff", str(pair[0]), str(pair[1]), "--fail-on", "never")
    assert code == 0
    code, out, _ = run(capsys, "diff", str(pair[1]), str(pair[0]), "--format", "json", "--fail-on", "regressed")
    assert code == 0 and json.loads(out)["counts"]["improved"] == 1


def test_write_is_atomic_and_leaves_nothing_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "r.json"
    write_receipt(receipt({"a": UP}), target)
    original = target.read_bytes()

    def boom(*_: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    unchanged = r"r\.json: could not write it: disk full; the file already there is unchanged"
    with pytest.raises(OutputError, match=unchanged):
        write_receipt(receipt({"a": DOWN}), target)
    assert target.read_bytes() == original
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_receipt_file_round_trips(tmp_path: Path) -> None:
    made = receipt({"a": UP})
    path = write_receipt(made, tmp_path / "r.json")
    assert load_receipt(path) == made
    assert path.read_text(encoding="utf-8") == receipt_json(made)


def test_help_is_fast_and_imports_no_sdk() -> None:
    probe = (
        "import sys, time; t = time.perf_counter()\n"
        "from driftproof.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('anthropic', 'openai', 'httpx', 'httpx2', 'pydantic', 'jinja2') if m in sys.modules]\n"
        "print(bad, time.perf_counter() - t, file=sys.stderr)\n"
    )
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert time.perf_counter() - start < 5  # generous wall bound; the figure is in benchmarks/
    assert done.stderr.startswith("[]"), done.stderr


def test_non_finite_numbers_and_lone_surrogates_are_refused_in_one_line(tmp_path: Path) -> None:
    from driftproof.errors import ReceiptError

    good = receipt_json(receipt({"a": UP}))
    nan = tmp_path / "nan.json"
    nan.write_text(good.replace('"sampling": {}', '"sampling": {"x": NaN}', 1), encoding="utf-8")
    with pytest.raises(
        ReceiptError, match="^" + str(nan) + ": NaN is not a number: a receipt holds finite numbers only$"
    ):
        load_receipt(nan)
    lone = tmp_path / "lone.json"
    lone.write_text(good.replace('"name": "fixture"', '"name": "\\ud800"', 1), encoding="utf-8")
    with pytest.raises(ReceiptError, match="lone surrogate"):
        load_receipt(lone)


def test_duplicate_case_ids_are_refused(tmp_path: Path) -> None:
    from driftproof.core.seal import sealed
    from driftproof.errors import ReceiptError

    doc = json.loads(receipt_json(receipt({"a": UP, "b": UP})))
    doc["cases"][1]["id"] = "a"
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(sealed(doc)), encoding="utf-8")
    with pytest.raises(ReceiptError, match="case id 'a' appears more than once"):
        load_receipt(path)


@pytest.mark.parametrize(
    ("indices", "found"),
    [
        ([0, 2, 3], "0, 2, 3"),  # a hole: the draw at index 1 is missing
        ([1, 0, 2], "1, 0, 2"),  # out of order
        ([0, 1, 1], "0, 1, 1"),  # twice
        ([1, 2, 3], "1, 2, 3"),  # not from 0
        (list(range(1, 30)), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … (29 draws)"),  # one bounded line
    ],
)
def test_draw_indices_must_run_from_0_in_order(tmp_path: Path, indices: list[int], found: str) -> None:
    from driftproof.core.seal import sealed
    from driftproof.errors import ReceiptError

    scores = [0.5 + 0.01 * (i % 3) for i in range(len(indices))]
    doc = json.loads(receipt_json(receipt({"a": UP, "b": UP, "c": (scores, [0.2, 0.3, 0.4])})))
    for draw, index in zip(doc["cases"][2]["with_skill"]["draws"], indices, strict=True):
        draw["index"] = index
    path = tmp_path / "r.json"
    path.write_text(json.dumps(sealed(doc)), encoding="utf-8")
    with pytest.raises(ReceiptError) as caught:
        load_receipt(path)
    assert (
        str(caught.value) == f"{path}: cases[2].with_skill.draws: indices must run 0, 1, 2, … in order; found {found}"
    )


def test_inconclusive_only_receipt_reads_underpowered() -> None:
    from driftproof.core.reading import read_receipt

    r = read_receipt(receipt({"a": ([0.8, 0.8, 0.9, 0.9, None], [0.2, 0.3, 0.3, 0.2])}))
    assert r.cases[0].verdict == "inconclusive"
    assert r.status == "underpowered" and r.status_reason == "Not enough draws to conclude at this effect floor."


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (
            "9.0",
            "schema_version: '9.0' is not one this Driftproof reads (it reads {known}); a newer Driftproof wrote it",
        ),
        (
            "0.99",
            "schema_version: '0.99' is not one this Driftproof reads (it reads {known}); a newer Driftproof wrote it",
        ),
        ("0.9", "schema_version: '0.9' is not one this Driftproof reads (it reads {known})"),
        ("0.13.1", "schema_version: '0.13.1' is not one this Driftproof reads (it reads {known})"),
        ("draft", "schema_version: 'draft' is not one this Driftproof reads (it reads {known})"),
        (14, "schema_version: 14 is not a version string (this Driftproof reads {known})"),
        (None, "schema_version: missing; a receipt names its schema version (this Driftproof reads {known})"),
    ],
)
def test_an_unread_schema_version_says_which_versions_are_read(tmp_path: Path, version: object, message: str) -> None:
    from driftproof.errors import ReceiptError

    doc = json.loads(receipt_json(receipt({"a": UP})))
    if version is None:
        del doc["schema_version"]
    else:
        doc["schema_version"] = version
    path = tmp_path / "r.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ReceiptError) as info:
        load_receipt(path)
    assert str(info.value) == f"{path}: {message.format(known=KNOWN)}"
    assert "upgrade" not in str(info.value)


def test_every_receipt_refusal_is_a_row_of_the_spec_table(tmp_path: Path) -> None:
    """docs/receipt-spec.md lists the refusal messages; each refusal a reader meets matches one of its rows."""
    import re

    from driftproof.errors import ReceiptError

    spec = (Path(__file__).resolve().parents[2] / "docs" / "receipt-spec.md").read_text(encoding="utf-8")
    table = spec.split("**Refusal messages.**", 1)[1].split("**Writing**", 1)[0]
    rows = [m.group(1) for m in re.finditer(r"^\| [^|]+ \| `([^`]+)`", table, re.MULTILINE)]
    patterns = [re.compile("^" + re.sub(r"\b[A-Z][A-Z0-9-]*\b|'V'|\bV\b", ".+", re.escape(r)) + ".*$") for r in rows]
    good = json.loads(receipt_json(receipt({"a": UP})))
    docs: dict[str, bytes] = {
        "not-utf8": b"\xff",
        "not-json": b"{not json",
        "nan": receipt_json(receipt({"a": UP})).replace('"sampling": {}', '"sampling": {"x": NaN}', 1).encode(),
        "deep": b"[" * 100 + b"]" * 100,
        "list": b"[]",
        "formal": json.dumps({**good, "verification": "FORMAL"}).encode(),
        "old": json.dumps({**good, "schema_version": "0.9"}).encode(),
        "number": json.dumps({**good, "schema_version": 14}).encode(),
        "none": json.dumps({k: v for k, v in good.items() if k != "schema_version"}).encode(),
        "schema": json.dumps({**good, "cases": "x"}).encode(),
        "seal": (FIXTURES / "tampered-seal.json").read_bytes(),
    }
    paths = [tmp_path / "missing.json", tmp_path]
    for name, raw in docs.items():
        (tmp_path / f"{name}.json").write_bytes(raw)
        paths.append(tmp_path / f"{name}.json")
    big = tmp_path / "big.json"
    with big.open("wb") as f:
        f.truncate(257 * 1024 * 1024)
    messages = []
    for path in [*paths, big]:
        with pytest.raises(ReceiptError) as info:
            load_receipt(path)
        messages.append(str(info.value))
    assert len(rows) >= 15
    unmatched = [m for m in messages if not any(p.match(m) for p in patterns)]
    assert unmatched == []


def test_a_receipt_is_written_in_chunks_never_whole_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file text streams out in chunks of about 64 KiB (issue 14: memory flat in the draws), the same bytes."""
    from collections.abc import Iterable

    import driftproof.atomic
    import driftproof.receipts as receipts_module

    made = receipt({f"c{i}": UP for i in range(400)})  # 400 cases x 2 arms x 3 draws: a file well over 64 KiB
    given: dict[Path, bytes | Iterable[bytes]] = {}
    real = driftproof.atomic.write_together

    def spy(files: dict[Path, bytes | Iterable[bytes]]) -> None:
        given.update(files)
        real(files)

    monkeypatch.setattr(receipts_module, "write_together", spy)
    path = write_receipt(made, tmp_path / "r.json")
    data = given[path]
    assert not isinstance(data, bytes | str)  # a generator of chunks, not the whole text
    text = path.read_text(encoding="utf-8")
    assert text == receipt_json(made) and len(text.encode()) > 4 * 65536
