"""``driftproof diff`` without ``--lift-breakdown`` prints, byte for byte, what it printed before the breakdown existed.

The files under ``tests/golden/diff_unchanged/`` were written by the CLI at commit 628b67d, before the lift breakdown
was added, and are never regenerated (no update switch reads them). Only the receipts' seals are read apart: a seal
moves whenever the receipt schema gains a field (0.16 gained several), which changes no line of the report.
"""

from __future__ import annotations

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

SEALS_628B67D: dict[str, tuple[str, str]] = {
    "full": ("11c095991a6f", "0fcfde065841"),
    "not_like_for_like": ("11c095991a6f", "08e8058b2392"),
    "smoke": ("11c095991a6f", "5c24cd1af4e1"),
    "sources": ("8aa9493a1587", "ba5eb2205b58"),
    "wide_band": ("ec90c872870d", "ec90c872870d"),
}
"""The first 12 digits of BEFORE's and AFTER's seals as printed in each snapshot (the JSON prints none)."""


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
    assert unsealed(out, pair_seals(PAIRS[name]())) == unsealed(
        snapshot.read_text(encoding="utf-8"), SEALS_628B67D[name]
    )


def pair_seals(pair: tuple[Receipt, Receipt]) -> tuple[str, str]:
    return pair[0].seal.sha256[:12], pair[1].seal.sha256[:12]


def unsealed(text: str, seals: tuple[str, str]) -> str:
    """The report with BEFORE's and AFTER's seals named, not spelt."""
    for seal, name in zip(seals, ("<before seal>", "<after seal>"), strict=True):
        text = text.replace(seal, name)
    return text


def test_the_snapshots_name_only_the_seals_recorded_for_them() -> None:
    for name in PAIRS:
        for ext in ("md", "json"):
            text = (UNCHANGED / f"{name}.{ext}").read_text(encoding="utf-8")
            assert ext == "json" or all(seal in text for seal in SEALS_628B67D[name]), name
