"""The ``driftproof`` command line.

Thin: parse arguments, call the library, print. Library errors become one line and exit status 2 in
one place (``main``). Commands import what they need when they run, so ``driftproof --help`` loads
no SDK.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

from driftproof._version import __version__
from driftproof.core.defaults import DEFAULTS
from driftproof.core.words import Capture, Delivery, FailOn, ImportKind, JudgeMode, Provider, Status, Surface
from driftproof.credentials import redact
from driftproof.errors import DriftproofError, InputError
from driftproof.safe_text import one_line, printable

if TYPE_CHECKING:
    from driftproof.core.models import Receipt
    from driftproof.run import RunRequest

Handler = Callable[[argparse.Namespace], int]


def _values(*words: type[StrEnum] | StrEnum) -> list[str]:
    """The JSON spellings of a vocabulary (or of some of its words), as argparse shows and checks choices.

    >>> _values(FailOn), _values(Surface.API, Surface.CLI)
    (['regressed', 'underpowered', 'never'], ['api', 'cli'])
    """
    return [str(w) for item in words for w in (item if isinstance(item, type) else (item,))]


def _cmd_validate(args: argparse.Namespace) -> int:
    """Check every file given and report each; exit 2 when any is invalid."""
    from driftproof.receipts import check_transcripts, load_receipt

    code = 0
    for path in args.receipts:
        try:
            receipt = load_receipt(path)
            archive = check_transcripts(receipt, Path(path))
        except DriftproofError as exc:
            code = report_error(exc)
            continue
        kept = f"; answers archive {archive.name} matches its sealed sha256" if archive else ""
        seal = receipt.seal.sha256[:12]
        print(f"{path}: valid (schema {receipt.schema_version}, {receipt.verification}, seal {seal}){kept}")
    return code


def _cmd_verify(args: argparse.Namespace) -> int:
    from driftproof.core.signing import IdentityAsked
    from driftproof.verify import VerifyRequest, verify_receipt

    asked = IdentityAsked(identity=args.identity, repository=args.repository, workflow=args.workflow, ref=args.ref)
    bundle = Path(args.bundle) if args.bundle else None
    outcome = verify_receipt(VerifyRequest(Path(args.receipt), bundle, asked))
    for line in outcome.lines:
        print(printable(line))
    if outcome.failure is not None:
        print(printable(outcome.failure), file=sys.stderr)
    return outcome.exit_code


def _cmd_view(args: argparse.Namespace) -> int:
    from driftproof.core.breakdown import lift_breakdown
    from driftproof.core.export import view_json
    from driftproof.core.pairwise import with_pairwise_json
    from driftproof.core.placebo_reading import placebo_json, read_placebo
    from driftproof.core.reading import read_receipt
    from driftproof.receipts import gc_paused, load_receipt
    from driftproof.render import render_view

    with gc_paused():  # issue 14: a large receipt's objects are not rescanned while it is read and rendered
        receipt = load_receipt(args.receipt, read_restamped_smoke=True)
        reading, breakdown = read_receipt(receipt), lift_breakdown(receipt)
        if args.format == "json":
            placebo = placebo_json(read_placebo(receipt), receipt)
            doc = with_pairwise_json(view_json(reading, breakdown, placebo), receipt)
            print(json.dumps(doc, indent=2, ensure_ascii=False))
        else:
            print(render_view(receipt, reading, title=str(args.receipt), breakdown=breakdown), end="")
    return 0


def _cmd_diff(args: argparse.Namespace) -> int:
    from driftproof.core.breakdown import lift_breakdown
    from driftproof.core.diff import diff
    from driftproof.core.export import diff_json
    from driftproof.core.pairwise import with_pairwise_json
    from driftproof.core.placebo_reading import diff_placebo_json
    from driftproof.receipts import gc_paused, load_receipt
    from driftproof.render import render_diff
    from driftproof.targets import JUNIT, Output, check_outputs, receipt_inputs

    junit = Path(args.junit) if args.junit else None
    with gc_paused():  # issue 14: two large receipts' objects are not rescanned while they are compared
        before = load_receipt(args.before, read_restamped_smoke=True)
        after = load_receipt(args.after, read_restamped_smoke=True)
        if junit is not None:  # before anything is printed
            reads = [
                *receipt_inputs(Path(args.before), before, "the receipt BEFORE", "the receipt BEFORE"),
                *receipt_inputs(Path(args.after), after, "the receipt AFTER", "the receipt AFTER"),
            ]
            check_outputs([Output(junit, "--junit", JUNIT)], reads)
        result = diff(before, after)
        # without --lift-breakdown the output is exactly what it was before the breakdown existed
        breakdowns = (lift_breakdown(before), lift_breakdown(after)) if args.lift_breakdown else None
        if args.format == "json":
            placebo = diff_placebo_json(before, after)
            doc = with_pairwise_json(diff_json(result, breakdowns, placebo), before, after)
            print(json.dumps(doc, indent=2, ensure_ascii=False))
        else:
            print(render_diff(before, after, result, breakdowns=breakdowns), end="")
        if junit is not None:
            from driftproof.junit import write_diff_junit

            print(f"junit: {write_diff_junit(result, after, junit, (args.before, args.after))}", file=sys.stderr)
    return gate_exit(Status(result.status), FailOn(args.fail_on))


def _cmd_export(args: argparse.Namespace) -> int:
    from driftproof.core.reading import read_receipt
    from driftproof.core.summary import summary_json
    from driftproof.receipts import load_receipt
    from driftproof.summary_file import EXPORT_FORMATS, summary_text, write_summary
    from driftproof.targets import SUMMARY, Output, check_outputs, receipt_inputs

    if args.format not in EXPORT_FORMATS:
        raise InputError(
            f"--format: {args.format!r} is not a format export writes (it writes {', '.join(EXPORT_FORMATS)})"
        )
    out = Path(args.output) if args.output else None
    receipt = load_receipt(args.receipt, read_restamped_smoke=True)
    if out is not None:
        reads = receipt_inputs(Path(args.receipt), receipt, "the receipt being exported", "the receipt exported")
        check_outputs([Output(out, "-o", SUMMARY)], reads)
    text = summary_text(summary_json(receipt, read_receipt(receipt)), str(out or "stdout"))
    if out is None:
        print(text, end="")
    else:
        print(f"summary: {write_summary(text, out)}")
    return 0


def _cmd_badge(args: argparse.Namespace) -> int:
    from driftproof.badge_age import badge_verified, parse_day, today_utc
    from driftproof.core.reading import read_receipt
    from driftproof.receipts import badge_text, load_receipt, write_badge
    from driftproof.targets import BADGE, Output, check_outputs, receipt_inputs

    if args.stale_after < 0:
        raise InputError(f"--stale-after: expected a whole number of days from 0, got {args.stale_after}")
    today = parse_day(args.today) if args.today else today_utc()
    receipt = load_receipt(args.receipt, read_restamped_smoke=True)
    if args.output:
        what = "the receipt the badge is made from"
        check_outputs([Output(Path(args.output), "-o", BADGE)], receipt_inputs(Path(args.receipt), receipt, what, what))
    reading, verified = read_receipt(receipt), badge_verified(receipt, today, args.stale_after)
    if args.output:
        print(f"badge: {write_badge(reading, Path(args.output), verified)}")
    else:
        print(badge_text(reading, verified), end="")
    return 0


def _cmd_drift(args: argparse.Namespace) -> int:
    from driftproof.core.drift import drift, drift_json
    from driftproof.drift_report import render_drift
    from driftproof.receipts import load_receipt

    before = load_receipt(args.old, read_restamped_smoke=True)
    after = load_receipt(args.new, read_restamped_smoke=True)
    result = drift(before, after)
    if args.format == "json":
        print(json.dumps(drift_json(result), indent=2, ensure_ascii=False))
    else:
        print(render_drift(result, before_label=str(args.old), after_label=str(args.new)), end="")
    return 1 if result.drifted else 0


def gate_exit(status: Status, fail_on: FailOn) -> int:
    """Exit status of a gate: 1 when ``fail_on`` says this status fails, else 0.

    >>> gate_exit(Status.REGRESSED, FailOn.REGRESSED), gate_exit(Status.UNDERPOWERED, FailOn.REGRESSED)
    (1, 0)
    >>> gate_exit(Status.REGRESSED, FailOn.NEVER), gate_exit(Status.UNDERPOWERED, FailOn.UNDERPOWERED)
    (0, 1)
    """
    from driftproof.core.decision import gate_fails

    return 1 if gate_fails(status, fail_on) else 0


LANE_AND_COUNT_FLAGS = (
    *("provider", "surface", "model", "judge_provider", "judge_model", "base_url", "judge_base_url"),
    *("draws", "max_draws", "judge_samples", "capture", "delivery", "as_reference"),
)


def _lane_and_count_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The `RunRequest` fields ``run`` and ``stale`` both take from their flags: lanes, judge, counts, capture."""
    return {name: getattr(args, name) for name in LANE_AND_COUNT_FLAGS}


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """While a run draws, SIGTERM (a cancelled CI job) stops it as Ctrl-C does: the journal is kept and one line
    says ``--resume`` finishes it, in place of a silent exit 143."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():  # only the main thread may set a handler
        yield
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _cmd_run(args: argparse.Namespace) -> int:
    with _terminate_as_interrupt():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from driftproof.run import run_suite
    from driftproof.terminal import print_quick, print_run_summary

    junit = Path(args.junit) if args.junit else None
    if args.skills is not None or args.changed is not None:  # many skills, or only what a change touches
        from driftproof.skills_run import run_skills

        if junit is not None and args.skills is not None:
            raise InputError("--junit: one report per suite; with --skills, run each skill's suite with --junit")
        ran = run_skills(args, lambda *given: _with_junit(_run_request(*given), junit))
        if junit is not None and ran:  # one SUITE with --changed: its report when it ran
            _write_run_junit(ran[0].receipt, junit)
        elif junit is not None:
            print(f"junit: {junit} not written: the suite did not run (not touched by this change)", file=sys.stderr)
        return 0
    if args.suite is None:
        raise InputError("run: give a SUITE file, or --skills GLOB for every skill of a repository")
    request = _run_request(args, Path(args.suite), Path(args.skill) if args.skill else None, args.output)
    outcome = run_suite(_with_junit(request, junit))
    if args.quick:
        print_quick(outcome)
    print_run_summary(outcome)
    if junit is not None:
        _write_run_junit(outcome.receipt, junit)
    return 0


def _with_junit(request: RunRequest, junit: Path | None) -> RunRequest:
    """``request`` with ``--junit FILE`` among what it writes, so it is checked with the receipt before any call."""
    if junit is None:
        return request
    from driftproof.targets import JUNIT, Output

    return replace(request, also_writes=(Output(junit, "--junit", JUNIT),))


def _write_run_junit(receipt: Receipt, junit: Path) -> None:
    from driftproof.junit import write_run_junit

    print(f"junit: {write_run_junit(receipt, junit)}", file=sys.stderr)  # where diff says it too


def _run_request(args: argparse.Namespace, suite: Path, skill: Path | None, out: str | Path | None) -> RunRequest:
    """The `RunRequest` of ``run``'s flags for one suite (``--skills`` builds one per skill)."""
    from driftproof.run import RunRequest

    return RunRequest(
        suite=suite,
        skill=skill,
        out=Path(out) if out else None,
        **_lane_and_count_flags(args),
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        max_retries=args.max_retries,
        max_consecutive_failures=args.max_consecutive_failures,
        script=Path(args.script) if args.script else None,
        quick=args.quick,
        resume=args.resume,
        batch=args.batch,
        canaries=args.canaries,
        default_canaries=args.default_canaries,
        judge_mode=args.judge_mode,
        keep_transcripts=args.keep_transcripts,
        price_table=Path(args.price_table) if args.price_table else None,
        reference=Path(args.reference) if args.reference else None,
        carry_baseline=args.carry_baseline,
        shard=args.shard,
        **_budget_flags(args),
    )


def _cmd_merge(args: argparse.Namespace) -> int:
    from driftproof.merge import merge_shards

    print(merge_shards([Path(p) for p in args.shards], Path(args.output)).line())
    return 0


def _budget_flags(args: argparse.Namespace) -> dict[str, Any]:
    """``--max-tokens``, ``--budget``, ``--budget-usd`` and ``--placebo``, which ``run`` and ``plan`` share."""
    return {
        "max_tokens": args.max_tokens,
        "budget": args.budget,
        "budget_usd": args.budget_usd,
        "placebo": args.placebo,
    }


def _cmd_plan(args: argparse.Namespace) -> int:
    from driftproof.plan_command import plan_request, plan_text

    report = plan_request(args, _lane_and_count_flags(args), _budget_flags(args))
    print(plan_text(report, args.format), end="")
    return 0


def _cmd_stale(args: argparse.Namespace) -> int:
    from driftproof.core.stale import stale_json
    from driftproof.stale import check_receipt, stale_lines

    report = check_receipt(
        Path(args.receipt),
        Path(args.suite) if args.suite else None,
        Path(args.skill) if args.skill else None,
        **_lane_and_count_flags(args),
        max_tokens=args.max_tokens,
    )
    if args.format == "json":
        print(json.dumps(stale_json(report), indent=2, ensure_ascii=False))
    else:
        print("\n".join(stale_lines(report)))
    return 0 if report.stands else 1


def _cmd_import(args: argparse.Namespace) -> int:
    from driftproof.importers import ImportRequest, import_lines, import_results

    request = ImportRequest(
        kind=ImportKind(args.kind),
        files=tuple(Path(f) for f in args.files),
        out=Path(args.output) if args.output else None,
        skill=args.skill,
        repository=args.repository,
        commit=args.commit,
    )
    receipt, path = import_results(request)
    for line in import_lines(receipt, path):
        print(printable(line))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from driftproof.core.schema import receipt_schema

    print(json.dumps(receipt_schema(), indent=2, ensure_ascii=False))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from driftproof.demo import run_demo

    return run_demo(Path(args.out))


class _Parser(argparse.ArgumentParser):
    """argparse's parser (each command's too), whose refusal of a flag is one line on stderr, exit 2, with where
    to read the flags instead of the whole usage block (README: every error a user can cause is one line)."""

    def error(self, message: str) -> NoReturn:
        """``PROG: error: MESSAGE (PROG --help lists the flags)`` on stderr; exit 2."""
        listed = "commands" if self.prog == "driftproof" else "flags"
        self.exit(2, f"{self.prog}: error: {one_line(message)} ({self.prog} --help lists the {listed})\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = _Parser(
        prog="driftproof",
        description="Does an agent skill help, and does it still when the model moves? Banded, sealed receipts.",
    )
    parser.add_argument("--version", action="version", version=f"driftproof {__version__}")
    sub = cast(  # each command's parser is a _Parser too (argparse makes them of the parent's class)
        "argparse._SubParsersAction[argparse.ArgumentParser]",
        parser.add_subparsers(dest="command", required=True, metavar="COMMAND"),
    )

    _add_receipt_commands(sub)
    _add_run(sub)
    _add_other_commands(sub)
    return parser


def _add_receipt_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``validate``, ``view``, ``diff``, ``export``, ``badge`` and ``drift``: commands that read receipts."""
    p = sub.add_parser("validate", help="check receipts against their schema and seal")
    p.add_argument("receipts", nargs="+", metavar="RECEIPT")
    p.set_defaults(handler=_cmd_validate)

    _add_verify(sub)

    p = sub.add_parser("view", help="one receipt: status, lift, per-case bands and verdicts, lift by case")
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("--format", choices=["markdown", "json"], default="markdown")
    p.set_defaults(handler=_cmd_view)

    p = sub.add_parser("diff", help="compare the with-skill arms of two receipts, case by case")
    p.add_argument("before", metavar="BEFORE")
    p.add_argument("after", metavar="AFTER")
    p.add_argument("--format", choices=["markdown", "json"], default="markdown")
    p.add_argument(
        "--fail-on",
        choices=_values(FailOn),
        default=DEFAULTS.diff_fail_on,
        help=f"{FailOn.REGRESSED}: exit 1 when a case separated downward; {FailOn.UNDERPOWERED}: that, or too few "
        f"draws to conclude (default {DEFAULTS.diff_fail_on}: the exit status is 0 whatever the diff says)",
    )
    p.add_argument("--lift-breakdown", action="store_true", help="add each receipt's lift by case after the report")
    _add_junit_flag(p)
    p.set_defaults(handler=_cmd_diff)

    p = sub.add_parser("export", help="write a receipt's minimal interchange summary (summary-json)")
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("--format", default="summary-json", metavar="FORMAT", help="summary-json (the only one today)")
    p.add_argument("-o", "--output", metavar="FILE", help="write it here (atomically) instead of stdout")
    p.set_defaults(handler=_cmd_export)

    p = sub.add_parser("badge", help="write a receipt's shields.io endpoint badge JSON")
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("-o", "--output", metavar="FILE", help="write the JSON here (atomically) instead of stdout")
    p.add_argument(
        "--stale-after",
        type=int,
        default=DEFAULTS.stale_after,
        metavar="DAYS",
        help=f"grey when the receipt is older than DAYS days (default {DEFAULTS.stale_after})",
    )
    p.add_argument("--today", metavar="YYYY-MM-DD", help="the date the age is measured on (default: today, UTC)")
    p.set_defaults(handler=_cmd_badge)

    p = sub.add_parser("drift", help="did an arm move with the skill and suite unchanged (exit 1: drifted)")
    p.add_argument("old", metavar="OLD", help="the stored receipt")
    p.add_argument("new", metavar="NEW", help="today's receipt of the same skill and suite")
    p.add_argument("--format", choices=["markdown", "json"], default="markdown")
    p.set_defaults(handler=_cmd_drift)

    _add_stale(sub)
    _add_regrade(sub)
    p = sub.add_parser("merge", help="merge the shard receipts of one --shard split into the whole suite's receipt")
    p.add_argument("shards", nargs="+", metavar="SHARD", help="every shard receipt of the split")
    p.add_argument("-o", "--output", metavar="RECEIPT", required=True, help="the merged receipt (written atomically)")
    p.set_defaults(handler=_cmd_merge)


def _add_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``verify``: a receipt's seal, and with ``--bundle`` its signature and the workflow run that made it."""
    p = sub.add_parser(
        "verify", help="check a receipt's seal and, with --bundle, its Sigstore signature and the workflow that signed"
    )
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("--bundle", metavar="FILE", help="the Sigstore bundle (attestation) of the receipt file")
    p.add_argument("--repository", metavar="OWNER/NAME", help="the repository whose workflow must have signed")
    p.add_argument("--workflow", metavar="FILE", help="its workflow file (driftproof.yml or .github/workflows/…)")
    p.add_argument("--ref", metavar="REF", help="the ref the signing run was for (refs/heads/main)")
    p.add_argument("--identity", metavar="URI", help="the certificate's exact identity (the signing workflow's URI)")
    p.set_defaults(handler=_cmd_verify)


def _add_regrade(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``regrade``: grade a run's kept answers again, drawing none, into a receipt of its own."""
    p = sub.add_parser(
        "regrade", help="grade the answers a run kept (--keep-transcripts) again, under revised tasks or afresh"
    )
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("--answers", metavar="ARCHIVE", required=True, help="the answers archive the run kept")
    p.add_argument("--suite", metavar="REVISED", help="revised rubric or criteria (default: a plain judge regrade)")
    p.add_argument("-o", "--output", metavar="OUT", help="the regrade's receipt (default: RECEIPT.regrade.json)")
    p.add_argument("--judge-provider", choices=_values(Provider), help="default: as recorded (it must match)")
    p.add_argument("--judge-model", help="default: as recorded (it must match)")
    p.add_argument("--judge-base-url", help="default: as recorded (it must match)")
    p.add_argument("--concurrency", type=int, help="judge calls in flight (default: as recorded)")
    p.add_argument("--timeout", type=float, help="seconds per judge attempt")
    p.add_argument("--max-retries", type=int, default=DEFAULTS.max_retries, help="retries per judge call")
    p.add_argument("--script", metavar="FILE", help="stub judge script (stub judge only)")
    p.set_defaults(handler=_cmd_regrade)


def _cmd_regrade(args: argparse.Namespace) -> int:
    from driftproof.regrade import RegradeRequest, regrade
    from driftproof.terminal import print_regrade

    outcome = regrade(
        RegradeRequest(
            receipt=Path(args.receipt),
            answers=Path(args.answers),
            suite=Path(args.suite) if args.suite else None,
            out=Path(args.output) if args.output else None,
            judge_provider=args.judge_provider,
            judge_model=args.judge_model,
            judge_base_url=args.judge_base_url,
            timeout_s=args.timeout,
            max_retries=args.max_retries,
            concurrency=args.concurrency,
            script=Path(args.script) if args.script else None,
        )
    )
    print_regrade(outcome)
    return 0


def _add_stale(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``stale``: does a receipt still stand for what would run today? Exit 0 stands, 1 rerun or regrade."""
    p = sub.add_parser(
        "stale", help="say, per arm of each case, whether a receipt stands, or needs a rerun or a regrade today"
    )
    p.add_argument("receipt", metavar="RECEIPT")
    p.add_argument("--suite", metavar="SUITE", help="the suite today (default: the path the receipt recorded)")
    p.add_argument("--skill", metavar="PATH", help="SKILL.md today (default: the path the receipt recorded)")
    _add_lane_flags(p, recorded=True)
    p.add_argument("--draws", type=int, help="minimum draws per arm (default: the receipt's)")
    p.add_argument("--max-draws", type=int, help="most draws per arm (default: the receipt's)")
    p.add_argument("--judge-samples", type=int, help="judge samples per answer (default: the receipt's)")
    p.add_argument(
        "--max-tokens", type=int, metavar="N", help="output ceiling of each answer, as for run (default: the receipt's)"
    )
    p.add_argument(
        "--as-reference",
        action=argparse.BooleanOptionalAction,
        help="compare with the deeper rule of a reference run; --no-as-reference with an ordinary run's "
        "(default: the receipt's)",
    )
    p.add_argument("--capture", choices=_values(Capture), help="as for run (default: the receipt's)")
    p.add_argument("--delivery", choices=_values(Delivery), help="as for run (default: the receipt's)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    # a lane, judge or count flag left out takes the receipt's recorded value (driftproof.stale.recorded_flags)
    p.set_defaults(handler=_cmd_stale, capture=None, delivery=None)


def _add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``run``: a suite with and without the skill, to a sealed receipt; ``plan``: what it would call, no call."""
    run = sub.add_parser("run", help="run a suite with and without the skill and write a sealed receipt")
    _add_run_flags(run, many=True)
    _add_junit_flag(run)
    run.add_argument(
        "--skills", metavar="GLOB", help="run every skill the glob matches (skills/*/SKILL.md), each suite beside it"
    )
    run.add_argument(
        "--changed", metavar="BASE_REF", help="run only the skills a change since BASE_REF touches (git diff)"
    )
    p = sub.add_parser("plan", help="print the calls, tokens and dollars a run would take, per case; makes no call")
    _add_run_flags(p)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(handler=_cmd_plan)


def _add_run_flags(p: argparse.ArgumentParser, *, many: bool = False) -> None:
    """The flags of ``run`` (which ``plan`` takes too; ``run --skills`` needs no SUITE: ``many``)."""
    p.add_argument(
        "suite",
        metavar="SUITE",
        nargs="?" if many else None,
        help="suite file: native YAML/JSON, evals/evals.json or .eval.yaml",
    )
    p.add_argument("--skill", metavar="PATH", help="SKILL.md (default: the suite's 'skill:')")
    p.add_argument("-o", "--output", metavar="RECEIPT", help="receipt path (default: .driftproof/ beside the suite)")
    _add_lane_flags(p)
    _add_count_flags(p)
    p.add_argument("--script", metavar="FILE", help="stub lane: fix each draw's answer and judge scores")
    p.add_argument(
        "--reference",
        metavar="RECEIPT",
        help="the receipt this run will be diffed against: draw until that diff's verdicts no longer hinge on spreads",
    )
    p.add_argument(
        "--as-reference",
        action="store_true",
        help="draw to the deeper rule of a stored reference receipt (at least 12 draws per arm), as the store job does",
    )
    p.add_argument(
        "--carry-baseline",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="with --reference: reuse its baseline arms where `driftproof stale` says they stand (the default); "
        "--no-carry-baseline draws them",
    )
    p.add_argument("--quick", action="store_true", help="smoke run: first case, 2 draws, 2 samples; no verdict")
    p.add_argument(
        "--shard",
        metavar="INDEX/COUNT",
        help="run one shard of the cases (ranked by sha256 of their ids, dealt in turn) to a shard receipt; see merge",
    )
    p.add_argument("--resume", action="store_true", help="finish an interrupted run from its journal")
    p.add_argument(
        "--batch",
        action="store_true",
        help="send each round's answers, then its judge calls, through the provider's batch API (half price, slow)",
    )
    p.add_argument(
        "--no-canaries",
        dest="canaries",
        action="store_false",
        help="judge none of the suite's judge-anchor canaries (by default every run re-judges them)",
    )
    p.add_argument(
        "--default-canaries",
        action="store_true",
        help="a suite without canaries: re-judges the default set shipped with Driftproof (costs judge calls)",
    )
    p.add_argument("--keep-transcripts", action="store_true", help="keep every answer and judge reply beside it")
    p.add_argument(
        "--judge-mode",
        choices=_values(JudgeMode),
        default=DEFAULTS.judge_mode,
        help="absolute scores (default), or pairwise: also judge each draw pair side by side, positions swapped "
        "(2 calls per pair; reported beside the scores, never in the verdict)",
    )
    p.add_argument("--price-table", metavar="FILE", help="judge prices (JSON) instead of the bundled table")
    p.add_argument(
        "--capture", choices=_values(Capture), default=DEFAULTS.capture, help="which answer is graded (CLI surface)"
    )
    p.add_argument(
        "--delivery",
        choices=_values(Delivery),
        default=DEFAULTS.delivery,
        help="how the skill reaches the agent: in its system prompt (default), or installed for it to discover (CLI)",
    )
    p.add_argument(
        "--max-tokens", type=int, metavar="N", help=f"output ceiling of each answer (default {DEFAULTS.max_tokens})"
    )
    p.add_argument(
        "--budget", type=int, metavar="TOKENS", help="start no call that could take the run past TOKENS (worst case)"
    )
    p.add_argument("--budget-usd", type=float, metavar="USD", help="the same in USD, at the price table's prices")
    p.add_argument(
        "--placebo",
        action="store_true",
        help="add a third arm: neutral text of the skill's size, delivered as the skill is (lift vs more context)",
    )
    p.set_defaults(handler=_cmd_run)


def _add_junit_flag(p: argparse.ArgumentParser) -> None:
    """``--junit FILE`` on ``run`` and ``diff``."""
    p.add_argument(
        "--junit",
        metavar="FILE",
        help="also write a JUnit XML report (one test case per suite case: failed when regressed, skipped when "
        "underpowered or no verdict) for CI test reporters",
    )


RECEIPTS = "(default: the receipt's)"
"""How ``stale --help`` names the default of a flag left out: the value the receipt recorded."""


def _add_lane_flags(p: argparse.ArgumentParser, *, recorded: bool = False) -> None:
    """Who answers and who judges: provider, surface, models, endpoints (``recorded``: ``stale``, whose flags left
    out take the receipt's values, not run's defaults)."""
    defaults = {
        "provider": f"(default {DEFAULTS.provider})",
        "surface": f"(default {Surface.API})",
        "model": "(default: the lane's)",
        "judge_provider": f"(default {DEFAULTS.judge_provider}; {Provider.STUB} with --provider {Provider.STUB})",
        "judge_model": f"(default {DEFAULTS.judge_model}, a cheap fixed judge)",
        "base_url": "",
        "judge_base_url": "",
    }
    said = dict.fromkeys(defaults, RECEIPTS) if recorded else defaults
    p.add_argument(
        "--provider",
        choices=_values(Provider),
        default=None if recorded else DEFAULTS.provider,
        help=f"the answering lane's provider {said['provider']}",
    )
    p.add_argument(
        "--surface",
        choices=_values(Surface.API, Surface.CLI),
        help=f"{Surface.API} or {Surface.CLI}; the stub lane has none {said['surface']}",
    )
    p.add_argument("--model", help=f"answering model {said['model']}")
    p.add_argument("--judge-provider", choices=_values(Provider), help=f"the judge's provider {said['judge_provider']}")
    p.add_argument("--judge-model", help=f"judge model {said['judge_model']}")
    p.add_argument(
        "--base-url", help=f"endpoint for the answering model, any OpenAI-compatible server {said['base_url']}".strip()
    )
    p.add_argument("--judge-base-url", help=f"endpoint for the judge {said['judge_base_url']}".strip())


def _add_count_flags(p: argparse.ArgumentParser) -> None:
    """How much is drawn and how long calls may take: draws, samples, concurrency, timeouts, retries."""
    p.add_argument("--draws", type=int, help=f"minimum draws per arm (default {DEFAULTS.draws})")
    p.add_argument(
        "--max-draws", type=int, help=f"most draws per arm while the spread settles (default {DEFAULTS.max_draws})"
    )
    p.add_argument("--judge-samples", type=int, help=f"judge samples per answer (default {DEFAULTS.judge_samples})")
    p.add_argument("--concurrency", type=int, help=f"calls in flight at once (default {DEFAULTS.concurrency})")
    p.add_argument(
        "--timeout",
        type=float,
        help=f"seconds per endpoint attempt (default {DEFAULTS.api_timeout_s:g} on the API surface; the CLI lanes' "
        "own default is longer, see docs/cli-lanes.md)",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=DEFAULTS.max_retries,
        help=f"retries per call on 429/529/5xx/timeouts (default {DEFAULTS.max_retries})",
    )
    p.add_argument(
        "--max-consecutive-failures",
        type=int,
        default=DEFAULTS.max_consecutive_failures,
        metavar="N",
        help="stop the run, with no receipt, after N calls in a row failed "
        f"(default {DEFAULTS.max_consecutive_failures}; 0 never stops); a wrong key, a missing model or a refused "
        "request stops it at the first call",
    )


def _add_import(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``import``: another tool's results to a sealed DECLARED receipt (docs/interop.md)."""
    p = sub.add_parser("import", help="convert another tool's results into a sealed DECLARED receipt (no verdict)")
    p.add_argument("kind", choices=_values(ImportKind), metavar="KIND", help=f"one of {', '.join(_values(ImportKind))}")
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="caliper: a full run and its --ablate run; skill-creator: benchmark.json; plugin-eval: the --json result; "
        "promptfoo: results.json; nvidia-card: BENCHMARK.md and/or benchmarks.json",
    )
    p.add_argument(
        "-o", "--output", metavar="RECEIPT", help="receipt path (default: .driftproof/import-KIND-STEM.json)"
    )
    p.add_argument(
        "--skill",
        metavar="NAME",
        help="caliper: the skill under test, when a single run installed several; nvidia-card: the skill to read "
        "from benchmarks.json",
    )
    p.add_argument("--repository", metavar="OWNER/NAME", help="nvidia-card: the repository the files were read from")
    p.add_argument("--commit", metavar="SHA", help="nvidia-card: the full commit sha the files were read at")
    p.set_defaults(handler=_cmd_import)


def _add_other_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``import``, ``schema`` and ``demo``."""
    _add_import(sub)
    p = sub.add_parser("schema", help="print the current receipt JSON Schema")
    p.set_defaults(handler=_cmd_schema)

    p = sub.add_parser("demo", help="run the bundled example offline and show the result")
    p.add_argument("--out", default="demo-out", help="directory for the demo's receipts (default demo-out)")
    p.set_defaults(handler=_cmd_demo)


def report_error(exc: DriftproofError) -> int:
    """The one way the CLI reports an error: ``driftproof: error: <message>`` on stderr; returns the exit code."""
    print(f"driftproof: error: {one_line(redact(str(exc)))}", file=sys.stderr)
    return exc.exit_code


def _shard_attached(argv: Sequence[str]) -> list[str]:
    """``--shard -1/2`` as ``--shard=-1/2``: argparse reads a value starting with ``-`` as a flag and prints its
    usage; attached, the value reaches ``--shard``'s own one-line refusal.

    >>> _shard_attached(["run", "s.yaml", "--shard", "-1/2", "--quick"])
    ['run', 's.yaml', '--shard=-1/2', '--quick']
    """
    words: list[str] = []
    for word in argv:
        if words and words[-1] == "--shard" and word[:1] == "-" and word[1:2].isdigit():
            words[-1] = f"--shard={word}"
        else:
            words.append(word)
    return words


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a command; a ``DriftproofError`` becomes one line on stderr and its exit code."""
    args = build_parser().parse_args(_shard_attached(sys.argv[1:] if argv is None else argv))
    handler: Handler = args.handler
    try:
        return handler(args)
    except DriftproofError as exc:
        return report_error(exc)
    except KeyboardInterrupt:
        print("driftproof: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
