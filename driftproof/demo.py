"""``driftproof demo``: the main job on the bundled example, offline."""

from __future__ import annotations

from pathlib import Path

from driftproof.core.diff import diff
from driftproof.core.reading import read_receipt
from driftproof.receipts import load_receipt
from driftproof.render import render_diff, render_view

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_demo(out: Path) -> int:
    """View and diff the bundled example receipts."""
    main, pr = EXAMPLES / "receipts" / "main.json", EXAMPLES / "receipts" / "pr.json"
    before, after = load_receipt(main), load_receipt(pr)
    print(render_view(after, read_receipt(after), title=str(pr)))
    print(render_diff(before, after, diff(before, after), before_label="main", after_label="this PR"))
    return 0
