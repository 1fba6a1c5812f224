"""``driftproof demo``: the main job on the bundled example, offline, on the stub lane.

It runs the example suite twice on scripted stub answers, once as ``main`` (the skill before a pull
request) and once as ``this PR``, then prints the PR's receipt as ``driftproof view`` shows it (its lift
by case included) and the comparison report a reviewer would see. Stub receipts read UNVERIFIED, so the
report gives no verdict and keeps the lift as context.
"""

from __future__ import annotations

from pathlib import Path

from driftproof.core.breakdown import lift_breakdown
from driftproof.core.diff import diff
from driftproof.core.reading import read_receipt
from driftproof.core.words import Provider
from driftproof.render import render_diff, render_view
from driftproof.resources import data_dir
from driftproof.run import RunRequest, run_suite
from driftproof.terminal import print_run_summary


def run_demo(out: Path) -> int:
    """Run the example as main and as this PR on the stub lane, write both receipts under ``out``, report.

    The example ships inside the wheel (``driftproof/_data/examples``), so ``pip install .`` has it too.
    """
    example = data_dir("examples") / "commit-writer"
    suite = example / "suite.yaml"
    runs = {}
    for name in ("main", "pr"):
        request = RunRequest(
            suite=suite, provider=Provider.STUB, script=example / f"stub-{name}.yaml", out=out / f"{name}.json"
        )
        runs[name] = run_suite(request)
    before, after = runs["main"].receipt, runs["pr"].receipt
    print(render_view(after, read_receipt(after), title=str(runs["pr"].path), breakdown=lift_breakdown(after)))
    print(render_diff(before, after, diff(before, after), before_label="main", after_label="this PR"))
    print_run_summary(runs["pr"])
    return 0
