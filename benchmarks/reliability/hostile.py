"""Part 4: hostile content through ``driftproof view``, ``driftproof diff`` and the Action.

Inputs (`hostile_inputs`): three sealed receipts with hostile text in every string field a report shows (two
TESTED, one UNVERIFIED with a hostile reason), and two Action jobs on a pull request (the simulated job of
``tests/support/action_sim.py``, the anthropic lane against the fake server, the GitHub REST fake) whose suite,
answers, model ids, judge replies and endpoint errors are hostile, diffed against a stored receipt with hostile
lost reasons and model ids; the second job's judge reports a hostile model id too (so the run reads UNVERIFIED).

Outputs scanned (`hostile_scan`): ``view`` and ``diff`` stdout (markdown, and a log when a CI step prints them),
and of each job the PR comment bodies FakeGitHub received, the job summary, the report file and the log.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from pathlib import Path

from benchmarks.reliability.action_job import JobSpec, run_job
from benchmarks.reliability.common import PartResult, one_line, temp_dir
from benchmarks.reliability.hostile_inputs import (
    FIELDS,
    NUMBERS,
    HostileModel,
    hostile_receipt,
    hostile_suite,
    stored_receipt,
)
from benchmarks.reliability.hostile_scan import Place, scan_log, scan_markdown

CASE_IDS = ("c0", "c1")
JUDGE = {"provider": "anthropic", "surface": "api", "model_requested": "claude-haiku-4-5"}


def cli(argv: list[str]) -> tuple[int | str, str, str]:
    """``driftproof.cli.main(argv)`` in process: (exit code or the exception that escaped, stdout, stderr)."""
    from driftproof.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | str = main(argv)
        except (Exception, SystemExit) as exc:  # what escapes main is what this part measures
            code = f"{type(exc).__name__}: {one_line(str(exc), 200)}"
    return code, out.getvalue(), err.getvalue()


def _cli_outputs(result: PartResult, tmp: Path) -> dict[str, str]:
    files = {
        "before": hostile_receipt(tested=True),
        "after": hostile_receipt(tested=True, shift=0.3),
        "unverified": hostile_receipt(tested=False),
    }
    paths = {}
    tmp.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        paths[name] = tmp / f"{name}.json"
        paths[name].write_text(text, encoding="utf-8")
    commands = {
        "view before": ["view", str(paths["before"])],
        "view unverified": ["view", str(paths["unverified"])],
        "diff before after": ["diff", str(paths["before"]), str(paths["after"])],
        "diff unverified after": ["diff", str(paths["unverified"]), str(paths["after"])],
    }
    outputs = {}
    for label, argv in commands.items():
        code, out, err = cli(argv)
        if code != 0:
            result.fail(f"driftproof {label} (hostile receipts)", f"expected exit 0, got {code}: {one_line(err, 200)}")
        outputs[f"{label} (stdout)"] = out
    return outputs


def _job(result: PartResult, tmp: Path, model: HostileModel, label: str) -> dict[str, str]:
    """One Action job on a pull request; its comment bodies, summary, report and log."""
    from tests.support.action_sim import KEY, TOKEN

    spec = JobSpec(
        suite_text=hostile_suite(CASE_IDS),
        stored=stored_receipt(CASE_IDS, JUDGE),
        responder=model,
        token=TOKEN,
        extra_env={"ANTHROPIC_API_KEY": KEY},
        inputs={"draws": "3", "max-draws": "3"},
    )
    job = run_job(tmp, spec)
    if job.code not in (0, 1):
        result.fail(label, f"the Action ended with {job.code}, not 0 or 1")
    outputs = {
        f"{label}: PR comment": "\n".join(job.comment_bodies),
        f"{label}: job summary": job.summary,
        f"{label}: report": job.report,
        f"{label}: log": job.log,
    }
    for name, text in outputs.items():
        if not text.strip():
            result.fail(name, "empty: nothing was written to scan")
    if job.receipt and _invalid(job.receipt):
        result.corrupted = (result.corrupted or 0) + 1
        result.fail(f"{label}: receipt", "the receipt the job wrote does not validate")
    return outputs


def _invalid(text: str) -> bool:
    from driftproof.errors import DriftproofError
    from driftproof.receipts import load_receipt_bytes

    try:
        load_receipt_bytes(text.encode("utf-8"), "receipt")
    except DriftproofError:
        return True
    return False


def measure(seed: int) -> PartResult:
    del seed  # the payloads are fixed
    result = PartResult("4 hostile content")
    with temp_dir("hostile") as tmp:
        outputs = _cli_outputs(result, tmp / "cli")
        jobs = {"Action job (TESTED)": HostileModel(), "Action job (hostile judge id)": HostileModel(True)}
        for i, (label, model) in enumerate(jobs.items()):
            job_dir = tmp / f"job{i}"
            job_dir.mkdir()
            outputs.update(_job(result, job_dir, model, label))
    places: set[Place] = set()
    for name, text in outputs.items():
        if name.endswith(": log"):
            places |= scan_log(name, text, FIELDS)
        else:
            places |= scan_markdown(name, text, FIELDS, NUMBERS)
            if name.endswith("(stdout)"):
                places |= scan_log(name, text, FIELDS)
    kinds = ("pipe", "html", "details", "comment", "mention", "issue", "workflow", "ansi", "bidi", "long line")
    by_kind = Counter(p.kind for p in places)
    result.details = ["places by kind: " + ", ".join(f"{k} {by_kind.get(k, 0)}" for k in kinds)]
    result.details += [f"{name}: {len(text):,} characters scanned" for name, text in outputs.items()]
    grouped: dict[tuple[str, str], list[str]] = {}
    for place in sorted(places):
        grouped.setdefault((place.kind, place.field), []).append(place.output)
    for (kind, field), where in sorted(grouped.items(), key=lambda item: (-len(item[1]), item[0])):
        result.fail(f"{kind} from the {field}", f"reached {len(where)} outputs unescaped: {', '.join(where)}")
    result.count = len(places)
    result.runs = f"{len(outputs)} outputs of 6 commands"
    result.faults = len(FIELDS)
    result.corrupted = result.corrupted or 0
    return result
