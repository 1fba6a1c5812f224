"""``driftproof demo``: the main job on the bundled example, offline, on the stub lane."""

from __future__ import annotations

from pathlib import Path

from driftproof.core.reading import read_receipt
from driftproof.render import render_view
from driftproof.run_suite import RunRequest, run_suite
from driftproof.terminal import print_run_summary

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run_demo(out: Path) -> int:
    """Run the example suite on the stub lane, write its receipt under ``out``, print its view."""
    suite = EXAMPLES / "commit-writer" / "suite.yaml"
    if not suite.is_file():  # an installed wheel carries no examples
        print("driftproof demo needs a source checkout (examples/commit-writer/suite.yaml)")
        return 2
    outcome = run_suite(RunRequest(suite=suite, provider="stub", out=out / "receipt.json"))
    print(render_view(outcome.receipt, read_receipt(outcome.receipt), title=str(outcome.path)))
    print_run_summary(outcome)
    return 0
