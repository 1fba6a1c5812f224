"""``driftproof diff`` without ``--lift-breakdown`` prints, byte for byte, what it printed before the breakdown existed.

The files under ``tests/golden/diff_unchanged/`` were written by the CLI at commit 628b67d, before the lift breakdown
was added, and are never regenerated (no update switch reads them). The comparison-report goldens
(``tests/golden/diff_*.md``) are pinned to their bytes at that commit too, so regenerating them cannot hide a change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from driftproof.cli import main
from driftproof.core.models import Receipt
from driftproof.receipts import write_receipt
from tests.integration.test_render_golden import AFTER, BASE, BEFORE, WIDE, full_pair, other_judge_pair
from tests.support.builders import legacy_arm, receipt

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UNCHANGED = GOLDEN / "diff_unchanged"

PAIRS: dict[str, Callable[[], tuple[Receipt, Receipt]]] = {
    "full": full_pair,
    "smoke": lambda: (receipt(BEFORE), receipt(AFTER, verification="UNVERIFIED", preset="quick")),  # type: ignore[arg-type]
    "wide_band": lambda: (receipt(WIDE), receipt(WIDE)),  # type: ignore[arg-type]
    "not_like_for_like": other_judge_pair,
    "sources": lambda: (
        receipt({"a": (legacy_arm([0.80, 0.85, 0.90]), legacy_arm([0.3, 0.35, 0.4]))}),
        receipt({"a": ([0.5, 0.55, 0.6], BASE)}),
    ),
}

#: sha256 of each comparison-report golden file as committed at 628b67d, before the lift breakdown.
COMMITTED = {
    "diff_full.md": "b495a026d95ebb539a7d54c412e5df4b219b375bfaf9889e1f2e2c2ef214582f",
    "diff_not_like_for_like.md": "7a6d8b2279819a64764826e889eca95792092ee4efb1798ca5ae7971016c27e6",
    "diff_smoke.md": "3db09f69a58d6d06e6bc2a98606e169ad500e62971898536895cd39c8ce384a3",
    "diff_sources.md": "5b819c9390aa88a44286a8065107cef3e660c6e83b5bbc5eb940984fdbead7dc",
    "diff_wide_band.md": "525c67c6f00548d248606d0d63f92c7b4dfdafa958ffe7539a49c560b4702e60",
}


def cli_diff(tmp_path: Path, capsys: pytest.CaptureFixture[str], pair: tuple[Receipt, Receipt], *flags: str) -> str:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    write_receipt(pair[0], before)
    write_receipt(pair[1], after)
    assert main(["diff", str(before), str(after), *flags]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("name", sorted(PAIRS))
@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_diff_without_the_flag_prints_what_it_printed_before(
    name: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = cli_diff(tmp_path, capsys, PAIRS[name](), "--format", fmt)
    snapshot = UNCHANGED / f"{name}.{'md' if fmt == 'markdown' else 'json'}"
    assert out == snapshot.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(COMMITTED))
def test_comparison_report_goldens_are_the_files_committed_before_the_breakdown(name: str) -> None:
    assert hashlib.sha256((GOLDEN / name).read_bytes()).hexdigest() == COMMITTED[name]
