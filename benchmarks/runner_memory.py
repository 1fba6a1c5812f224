"""Runner memory: peak RSS of a whole stub-lane run at about 1,000, 5,000 and 10,000 logical calls.

Each size runs in a fresh process (``ru_maxrss`` is a process's peak) with answers of ``--answer-kb`` KB and
judge replies carrying a 300-character reason, so the texts weigh what real ones do; once without and once
with ``--keep-transcripts``. Issue 14's target: peak RSS at 10k no more than 1.5x the peak at 1k. Run:
``.venv/bin/python benchmarks/runner_memory.py [--answer-kb 4]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CALLS_PER_CASE = 2 * 3 * (1 + 5)  # 2 arms x 3 draws x (1 answer + 5 judge samples) = 36


def child(cases: int, answer_kb: int, keep: bool) -> None:
    """One run, in this process; prints its logical calls and peak RSS (MB) as JSON."""
    from dataclasses import replace

    import driftproof.run as rs
    from driftproof.lanes.base import Generation, GenerationRequest
    from driftproof.lanes.stub import StubLane

    pad = "x" * (answer_kb * 1024)

    class Wordy(StubLane):
        def generate(self, request: GenerationRequest) -> Generation:
            gen = super().generate(request)
            if request.purpose == "judge":
                return replace(gen, text=json.dumps({"score": 0.7, "reason": "r" * 300}))
            return replace(gen, text=f"{gen.text} {pad}")

    real = rs.make_lanes
    rs.make_lanes = lambda req: (Wordy(), Wordy(), real(req)[2])  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        suite = Path(tmp) / "suite.yaml"
        (Path(tmp) / "SKILL.md").write_text("# Skill\n\nWrite conventional commits.\n", encoding="utf-8")
        rows = [{"id": f"c{i}", "prompt": f"task {i}", "rubric": "good"} for i in range(cases)]
        suite.write_text(yaml.safe_dump({"name": "bench", "skill": "SKILL.md", "cases": rows}), encoding="utf-8")
        request = rs.RunRequest(
            suite=suite,
            provider="stub",  # type: ignore[arg-type]
            draws=3,
            max_draws=3,
            judge_samples=5,
            concurrency=16,
            keep_transcripts=keep,
            out=Path(tmp) / "receipt.json",
        )
        with open(os.devnull, "w") as sink:
            outcome = rs.run_suite(request, progress_stream=sink)
        calls = outcome.receipt.run.logical_calls
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"calls": calls, "peak_mb": peak_mb}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answer-kb", type=int, default=4, help="size of each answer, KB")
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], bool(args.child[2]))
        return
    sizes = [round(n / CALLS_PER_CASE) for n in (1_000, 5_000, 10_000)]
    print(f"stub lane, 3 draws per arm, 5 judge samples, answers of {args.answer_kb} KB")
    print("| transcripts | logical calls | peak RSS MB | vs the 1k run |")
    print("|---|---|---|---|")
    for keep in (0, 1):
        first = None
        for cases in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(cases), str(args.answer_kb), str(keep)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            figures = json.loads(out.strip().splitlines()[-1])
            first = first or figures["peak_mb"]
            label = "kept" if keep else "not kept"
            print(f"| {label} | {figures['calls']} | {figures['peak_mb']:.1f} | {figures['peak_mb'] / first:.2f}x |")


if __name__ == "__main__":
    main()
