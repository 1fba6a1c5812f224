"""Run the reliability harness: every part, one table, the failures it found, and ``docs/reliability.md``.

    .venv/bin/python -m benchmarks.reliability.run --seed 10            # what ``make reliability`` runs
    .venv/bin/python -m benchmarks.reliability.run --parts 1,6 --no-doc  # some parts, nothing written

Deterministic for a seed (which requests get faults, when the kills land, the canaries, the fuzzed receipts).
Every loop is bounded: subprocesses have hard limits, each fuzzed command 10 s, and the whole run a budget
(``--budget``, default 560 s) after which parts start no new run and say so. A part that crashes is reported
as a failure of the harness, and the others still run. Exit status 0 whatever was measured; 2 on bad flags.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from benchmarks.reliability import canaries, disk_full, fuzz, hostile, resume, transport
from benchmarks.reliability.common import ROOT, PartResult, one_line, set_budget
from benchmarks.reliability.table import document, failures, table

PARTS: dict[str, tuple[str, Callable[[int], PartResult]]] = {
    "1": ("1 transport faults", transport.measure),
    "2": ("2 kill and resume", resume.measure),
    "3": ("3 disk full", disk_full.measure),
    "4": ("4 hostile content", hostile.measure),
    "5": ("5 canary credentials", canaries.measure),
    "6": ("6 fuzzing", fuzz.measure),
}
COMMAND = "make reliability   # = .venv/bin/python -m benchmarks.reliability.run --seed 10"


def _run_part(key: str, seed: int, fuzz_examples: int) -> PartResult:
    name, measure = PARTS[key]
    started = time.monotonic()
    try:
        result = fuzz.measure(seed, fuzz_examples) if key == "6" else measure(seed)
    except Exception as exc:  # a harness bug: say so, keep going with the other parts
        result = PartResult(name)
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        result.fail("the harness itself", f"{type(exc).__name__}: {one_line(str(exc), 200)} (at {where})")
    result.seconds = time.monotonic() - started
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.reliability.run", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated part numbers (default: all)")
    parser.add_argument("--fuzz-examples", type=int, default=2000, help="mutated receipts in part 6 (default 2000)")
    parser.add_argument("--budget", type=float, default=560.0, help="seconds the whole run may take (default 560)")
    parser.add_argument("--doc", default=str(ROOT / "docs" / "reliability.md"), help="where to write the report")
    parser.add_argument("--no-doc", action="store_true", help="print only; write no report")
    args = parser.parse_args(argv)
    keys = [k.strip() for k in args.parts.split(",") if k.strip()]
    unknown = [k for k in keys if k not in PARTS]
    if unknown:
        parser.error(f"unknown part {', '.join(unknown)}; parts are {', '.join(PARTS)}")
    set_budget(args.budget)
    started = time.monotonic()
    results = []
    for key in keys:
        print(f"reliability: part {PARTS[key][0]} ...", file=sys.stderr, flush=True)
        result = _run_part(key, args.seed, args.fuzz_examples)
        print(f"reliability: part {result.part}: {result.seconds:.0f} s", file=sys.stderr, flush=True)
        results.append(result)
    seconds = time.monotonic() - started
    default = keys == list(PARTS) and args.seed == 10 and args.fuzz_examples == 2000
    command = COMMAND if default else _command(args)
    print(table(results))
    print(f"\nRun time: {seconds:.0f} s.\n\nFailures found:\n")
    print(failures(results))
    if not args.no_doc:
        Path(args.doc).write_text(document(results, command, seconds), encoding="utf-8")
        print(f"\nreliability: wrote {args.doc}", file=sys.stderr)
    return 0


def _command(args: argparse.Namespace) -> str:
    extra = f" --fuzz-examples {args.fuzz_examples}" if args.fuzz_examples != 2000 else ""
    return f".venv/bin/python -m benchmarks.reliability.run --seed {args.seed} --parts {args.parts}{extra}"


if __name__ == "__main__":
    raise SystemExit(main())
