"""The Docker Action: inputs, run, baseline, diff, report, summary, comment, badge, outputs, exit code.

``entrypoint.py`` calls :func:`main`; tests call :func:`run` with a simulated environment and their own
``httpx.Client``. Exit 0 when the gate passes (or nothing was compared), 1 when ``fail-on`` says the
result fails the step, 2 on an error, which is explained in one ``::error::`` line and in the job summary
with its fix, never with a traceback.

Secrets are masked (``::add-mask::``) before anything is printed and redacted from every string the
Action writes or posts; raw model output in the log sits between ``::stop-commands::`` markers.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TextIO

import httpx

from driftproof.action.activity import Activity, can_comment, decide_activity
from driftproof.action.baseline import ensure_safe_directory, locate_default_branch_file
from driftproof.action.config import ActionConfig, CommentInputs
from driftproof.action.github import Event, GitHubClient
from driftproof.action.ownership import hand_over
from driftproof.action.promote import promote, refusal
from driftproof.action.sentinel import check_event, drift_exit, drift_outputs, file_issue, sentinel_drift, with_drift
from driftproof.action.shards import merge_in_workspace, shard_receipt_path
from driftproof.action.skill_set import SetSteps, SkillOutcome, run_skill_set
from driftproof.action.wording import in_action_words
from driftproof.action.workflow import (
    add_mask,
    append_summary,
    error,
    escape_data,
    notice,
    secret_values,
    stop_commands,
    warning,
    write_outputs,
)
from driftproof.atomic import write_text
from driftproof.badge_age import badge_verified, today_utc
from driftproof.core.carry_sentences import PROMOTE_ON_PR, TITLE_PROMOTE, TITLE_PROMOTED, promote_unused
from driftproof.core.decision import Decision, decide
from driftproof.core.diff import DiffResult, diff
from driftproof.core.models import Receipt
from driftproof.core.plan_sentences import TITLE_BUDGET, budget_status_reason
from driftproof.core.reading import ReceiptReading, read_receipt
from driftproof.core.sentences import (
    NO_COMMENT_TOKEN,
    RUN_GROUP,
    TITLE_COMMENT,
    TITLE_FAILED,
    TITLE_FIRST_RUN,
    TITLE_REGRESSED,
    TITLE_SKIPPED,
    case_regressed,
    comment_not_posted,
    comment_not_updated,
    comment_posted,
    first_run_sentence,
    fork_skipped,
    no_api_key,
    no_api_key_fix,
    run_result,
    sdk_logging,
    summary_not_written,
)
from driftproof.core.shard_sentences import shard_job_done
from driftproof.core.shards import MERGE
from driftproof.core.stale import BaselineStanding, baseline_standing
from driftproof.core.stale_sentences import TITLE_BASELINE, first_run_where
from driftproof.core.words import SKIPPED, FailOn, JudgeMode
from driftproof.credentials import redact
from driftproof.errors import (
    DriftproofError,
    GitHubError,
    InputError,
    LaneError,
    OutputError,
    ReceiptError,
    RunStopped,
    WorkflowError,
)
from driftproof.markdown import band_text, code, md
from driftproof.receipts import load_receipt_bytes, write_badge
from driftproof.render import (
    render_diff,
    render_error_comment,
    render_first_run,
    render_summary,
    render_view,
)
from driftproof.report_lines import baseline_line
from driftproof.run import RunRequest, run_suite
from driftproof.safe_text import clip_lines, one_line, printable
from driftproof.stale import stale_against
from driftproof.suite import load_suite
from driftproof.targets import (
    BADGE,
    BADGE_KIND,
    JUNIT,
    JUNIT_KIND,
    RECEIPT_KIND,
    RECEIPT_OUT,
    REPORT,
    Input,
    Output,
    check_outputs,
)

__all__ = ["OUTPUTS", "main", "run"]

OUTPUTS = (
    "status",
    "regressed",
    "improved",
    "lift",
    "lift-per-1k",
    "draws-needed",
    "baseline-stands",
    "drifted",
    "receipt",
    "report",
    "badge",
)
"""Every output the Action sets, in the order it writes them (action.yml declares the same)."""

QUIET_LOGGERS = ("httpx", "httpcore", "anthropic", "openai")
"""Loggers held at WARNING: at INFO and below they print request lines."""

_FIXES: tuple[tuple[type[BaseException], str], ...] = (
    (InputError, "Fix the input, suite or skill file named above, then push again; docs/action.md lists every input."),
    (
        ReceiptError,
        "Restore a valid receipt at `receipt-path` on the default branch (a push to the default branch "
        "rewrites it), or point `receipt-path` at another file.",
    ),
    (
        LaneError,
        "Check the provider's API key and model name (and ANTHROPIC_BASE_URL or OPENAI_BASE_URL, if set); "
        "the message above says what the lane found.",
    ),
    (
        OutputError,
        "Free space on the runner (or fix the permissions of the folder named above), then re-run the job; "
        "the receipt on the default branch was not touched.",
    ),
    (
        GitHubError,
        "Give the job `permissions: contents: read` and `pull-requests: write` and check the `github-token` "
        "input; the message above names the call that failed.",
    ),
)
"""The fix each kind of error names, by its type: what the ``::error::`` line and the job summary say to do."""
_BUG = "This is a bug in Driftproof, not in your workflow: please report it with the message above."
_UNREACHED = (
    "Check the network and the endpoint (input `base-url` or `judge-base-url`, ANTHROPIC_BASE_URL or "
    "OPENAI_BASE_URL), or give the calls more room (inputs `timeout`, `max-retries`, `max-consecutive-failures`), "
    "then re-run the job; the receipt on the default branch was not touched."
)
"""The fix of a run stopped by calls failing in a row (timeouts, refused connections, 5xx): the key is not it."""


def _fix(exc: DriftproofError) -> str:
    """The fix an error names: by its type (`_FIXES`); a run stopped by failures in a row names the endpoint and the
    inputs that give calls more room, not the key."""
    if isinstance(exc, RunStopped) and exc.in_a_row:
        return _UNREACHED
    return next((f for t, f in _FIXES if isinstance(exc, t)), _BUG)


@dataclass(frozen=True)
class _Files:
    """Paths this run writes, relative to the workspace (what the outputs name)."""

    receipt: str
    report: str
    badge: str


@dataclass(frozen=True)
class _Ctx:
    environ: Mapping[str, str]
    config: ActionConfig
    event: Event
    out: TextIO
    secrets: tuple[str, ...]


def main() -> int:
    """The container's entry point: the real environment and one HTTP client for the REST API."""
    with httpx.Client(timeout=httpx.Timeout(30.0), follow_redirects=False) as http:
        return run(os.environ, http=http)


def run(environ: Mapping[str, str], *, http: httpx.Client, stdout: TextIO = sys.stdout) -> int:
    """One Action run over ``environ``; returns the exit code (0 pass, 1 gate failed, 2 error). What it wrote in
    the checkout is then the checkout owner's (`hand_over`)."""
    return _handed_over(environ, _run_and_report(environ, http, stdout))


def _run_and_report(environ: Mapping[str, str], http: httpx.Client, stdout: TextIO) -> int:
    """The run, and on an error its one ``::error::`` line, the summary, the outputs and the comment."""
    secrets = tuple(secret_values(environ))
    for value in secrets:
        add_mask(value, stream=stdout)
    _quiet_loggers()
    summary = environ.get("GITHUB_STEP_SUMMARY") or None
    try:
        return _run(environ, http, stdout, secrets)
    except DriftproofError as exc:
        fix = exc.fix if isinstance(exc, WorkflowError) else _fix(exc)
        message = in_action_words(str(exc), Path(environ.get("GITHUB_WORKSPACE") or "."))  # inputs, not flags
    except Exception as exc:  # the Action never ends in a traceback: one ::error:: line and the summary
        if environ.get("RUNNER_DEBUG") == "1":  # the runner's debug logging is on: the trace helps a bug report
            stdout.write(f"::debug::{escape_data(printable(redact(traceback.format_exc(), secrets)))}\n")
        message, fix = f"unexpected {type(exc).__name__}: {exc}", _BUG
    code = _fatal(message, fix, stdout, summary, secrets)
    _error_outputs(environ, secrets)
    _error_comment(environ, http, redact(message, secrets), fix, stdout, secrets)
    return code


def _handed_over(environ: Mapping[str, str], code: int) -> int:
    """``code``, once what the run wrote in the checkout is the checkout owner's (`hand_over`): the paths of
    ``receipt-path``, ``badge-path`` and ``junit``, and with ``skills`` each skill's folder name."""
    try:
        config = ActionConfig.from_environ(environ)
    except DriftproofError:  # the inputs failed: nothing was written
        return code
    outputs = [config.receipt_path, config.badge_path, *([config.junit] if config.junit else [])]
    if config.skills is not None:  # a set's receipts may sit in a folder named after each skill
        outputs += [f"{p.parent.name}/x" for p in config.workspace.glob(config.skills) if p.is_file()]
    hand_over(config.workspace, outputs)
    return code


def _run(environ: Mapping[str, str], http: httpx.Client, out: TextIO, secrets: tuple[str, ...]) -> int:
    config = ActionConfig.from_environ(environ)
    event = Event.from_environ(environ)
    ensure_safe_directory(config.workspace)
    ctx = _Ctx(environ, config, event, out, secrets)
    activity = decide_activity(event, config.has_model_secret(environ), config.provider)
    if activity == Activity.FORK_NO_SECRETS:
        return _skip_fork(ctx)
    if activity == Activity.MISSING_SECRET:
        names = " and ".join(config.missing_model_secrets(environ))
        raise WorkflowError(no_api_key(names), no_api_key_fix(names.split()[0]))
    if config.sentinel:  # a scheduled re-run of the default branch: before any call, refuse it on a PR or a push
        check_event(event)
    if config.promote and activity != Activity.STORE_RECEIPT:  # the store job's input: never dropped silently
        if event.is_pull_request:
            raise InputError(PROMOTE_ON_PR)
        warning(promote_unused(event.default_branch or "main", event.name, event.ref), title=TITLE_PROMOTE, stream=out)
    for name in ("ANTHROPIC_LOG", "OPENAI_LOG"):
        if environ.get(name, "").strip():
            warning(sdk_logging(name), stream=out)
    client = _client(ctx, http)
    if config.skills is not None:  # a monorepo: each touched skill as below, then one comment for them all
        steps = SetSteps(
            one=lambda c: _one(replace(ctx, config=c), activity, client),
            comment=lambda report, path: _comment(ctx, client, report, path),
            finish=lambda outputs, code, compared: _close(ctx, outputs, code, compared),
            stands=lambda c, kept: _kept_refusal(replace(ctx, config=c), kept),
        )
        return run_skill_set(config, event, activity, steps, out)
    one = _one(ctx, activity, client)
    if one.decision is None:  # a shard job: its receipt only
        return one.code
    if activity == Activity.PR_COMMENT and config.comment:
        _comment(ctx, client, one.report, one.paths["report"])
    if config.sentinel:
        file_issue(
            client,
            one.drifted,
            bool(one.decision.regressed_cases),
            one.report,
            report_path=one.paths["report"],
            out=out,
            secrets=ctx.secrets,
        )
    outputs = {**one.decision.outputs(), **drift_outputs(one.drifted), **one.paths}
    return _close(ctx, outputs, drift_exit(one.code, one.drifted, config.fail_on), one.decision.compared)


def _one(ctx: _Ctx, activity: Activity, client: GitHubClient | None) -> SkillOutcome:
    """One suite: read the stored receipt, run, diff, decide; write the report, the summary, the badge, the JUnit."""
    config, event, secrets = ctx.config, ctx.event, ctx.secrets
    files = _files(config, activity)
    branch = event.default_branch or event.base_ref or (_ref_branch(event) if config.sentinel else None)
    before: Receipt | None = None
    if event.is_pull_request or config.sentinel:  # read first: the run draws until its comparison is settled
        if branch is None:
            raise GitHubError("the event payload names no default branch to read the stored receipt from")
        before = _baseline(ctx, branch, client)
    labels = (branch or "default branch", "this PR" if event.is_pull_request else "this run")
    store = activity == Activity.STORE_RECEIPT
    if config.price_table is not None and config.in_workspace(config.price_table).is_dir():
        raise InputError(
            f"input 'price-table': {config.price_table}: is a directory, not a price table file "
            "(name the JSON file inside it)"
        )
    if config.price_table is not None and not config.in_workspace(config.price_table).is_file():
        raise InputError(f"input 'price-table': {config.price_table}: no such file in the repository")
    check_outputs(*_outputs(config, files, promote=store))  # before any call, before anything is written
    request = _request(
        ctx, files, before, as_reference=store or config.as_reference or config.sentinel, label=labels[0]
    )
    standing = _standing(ctx, before, request, labels[0]) if before is not None else None
    if config.shard == MERGE:  # the job after a matrix's shard jobs: their receipts, merged, are this run's
        receipt = merge_in_workspace(config.workspace, config.receipt_path, config.in_workspace(files.receipt))
    else:
        promoted = _promoted(ctx, request) if store and config.promote else None
        receipt = promoted or _run_suite(ctx, request)
    reading = read_receipt(receipt)
    if (budget := receipt.run.settings.budget) is not None and budget.stopped_cases:  # seen outside the run's group
        warning(budget_status_reason(len(receipt.cases), budget), title=TITLE_BUDGET, stream=ctx.out)
    if config.shard not in (None, MERGE):
        return SkillOutcome(_shard_done(ctx, receipt, reading, files), "", None, reading, {})
    result = diff(before, receipt, readings=(read_receipt(before), reading)) if before is not None else None
    decision = decide(reading, result, baseline_stands=standing.stands if standing is not None else None)
    drifted = sentinel_drift(before, receipt) if config.sentinel else None
    report = _report(receipt, reading, before, result, labels, files, event.is_pull_request, standing)
    report = redact(with_drift(drifted, report, labels), secrets)
    write_text(config.in_workspace(files.report), report)
    paths = {"receipt": files.receipt, "report": files.report, "badge": files.badge}
    short = render_summary(
        receipt,
        reading,
        decision,
        result=result,
        before=before,
        before_label=labels[0],
        after_label=labels[1],
        first_run_branch=branch if event.is_pull_request and before is None else None,
        paths=paths,
        baseline=standing,
    )
    if config.summary_path is not None:
        append_summary(config.summary_path, redact(f"{short}\n---\n\n{report}", secrets))
    stands = standing.stands if standing is not None else None
    verified = badge_verified(
        receipt, today_utc(), config.stale_after, stands=stands, drifted=bool(drifted and drifted.drifted)
    )
    write_badge(reading, config.in_workspace(files.badge), verified)
    if config.junit is not None:
        _write_junit(config.in_workspace(config.junit), receipt, result, labels)
    _annotate(ctx, decision, labels)
    return SkillOutcome(decision.exit_code(config.fail_on), report, decision, reading, paths, drifted)


def _close(ctx: _Ctx, outputs: Mapping[str, str], code: int, compared: bool) -> int:
    """The step's outputs and its closing line; returns the exit code."""
    _set_outputs(ctx, outputs)
    ctx.out.write(run_result(outputs, code, str(ctx.config.fail_on) if compared else None) + "\n")
    return code


def _write_junit(path: Path, receipt: Receipt, result: DiffResult | None, labels: tuple[str, str]) -> None:
    """Input ``junit``: the diff's JUnit report against the stored receipt, else the run's own (`driftproof.junit`)."""
    from driftproof.junit import write_diff_junit, write_run_junit

    if result is None:
        write_run_junit(receipt, path)
    else:
        write_diff_junit(result, receipt, path, labels)


def _shard_done(ctx: _Ctx, receipt: Receipt, reading: ReceiptReading, files: _Files) -> int:
    """A shard job: its receipt is written; the merge job diffs, comments, badges and gates once (exit 0 here)."""
    if ctx.config.summary_path is not None:
        append_summary(ctx.config.summary_path, redact(render_view(receipt, reading, title=files.receipt), ctx.secrets))
    outputs = {"status": str(reading.status), "lift": "n/a", "lift-per-1k": "n/a", "receipt": files.receipt}
    _set_outputs(ctx, outputs)
    ctx.out.write(shard_job_done(str(ctx.config.shard), files.receipt) + "\n")
    return 0


def _files(config: ActionConfig, activity: Activity) -> _Files:
    """A push to the default branch writes the receipt at receipt-path; any other run writes beside it; a shard
    job writes its shard receipt beside it (``receipt.shard-2-of-3.json``)."""
    if config.shard not in (None, MERGE):
        return _Files(shard_receipt_path(config.receipt_path, config.shard), "", "")
    stored = PurePosixPath(config.receipt_path)
    suffix = stored.suffix or ".json"
    receipt = stored if activity == Activity.STORE_RECEIPT else stored.with_name(f"{stored.stem}.new{suffix}")
    return _Files(str(receipt), str(stored.with_name(f"{stored.stem}.report.md")), config.badge_path)


def _outputs(config: ActionConfig, files: _Files, *, promote: bool) -> tuple[list[Output], list[Input]]:
    """What this run writes in the workspace, named by the input each path comes from, and the files it reads
    there: the suite, the skill (the input, else the suite's ``skill:``) and the receipt it would promote.

    ``receipt-path``, ``badge-path`` and ``junit`` carry their `Kind`: a file already there is replaced only when it
    is a receipt, a badge, a JUnit report (`driftproof.targets`)."""
    ws = config.workspace
    outputs = [Output(config.in_workspace(files.receipt), "input 'receipt-path'", RECEIPT_OUT, RECEIPT_KIND, ws)]
    if files.report:  # a shard job writes its receipt only
        outputs.append(Output(config.in_workspace(files.report), "input 'receipt-path'", REPORT, None, ws))
        outputs.append(Output(config.in_workspace(files.badge), "input 'badge-path'", BADGE, BADGE_KIND, ws))
        if config.junit is not None:
            outputs.append(Output(config.in_workspace(config.junit), "input 'junit'", JUNIT, JUNIT_KIND, ws))
    reads = [Input(config.in_workspace(config.suite), "the suite of the run (input 'suite')")]
    if config.skill is not None:
        reads.append(Input(config.in_workspace(config.skill), "the skill file of the run (input 'skill')"))
    else:
        with contextlib.suppress(DriftproofError):  # a suite that cannot be read is refused by the run, in its words
            named = load_suite(config.in_workspace(config.suite)).skill
            if named is not None:
                reads.append(Input(named, "the skill file of the run (the suite's skill:)"))
    if promote and config.promote is not None:
        reads.append(Input(config.in_workspace(config.promote), "the receipt to promote (input 'promote')"))
    if config.price_table is not None:
        reads.append(Input(config.in_workspace(config.price_table), "the price table of the run (input 'price-table')"))
    return outputs, reads


def _path(config: ActionConfig, relative: str) -> Path:
    """An input path as the receipt records it: relative when the workspace is the working directory."""
    if config.workspace.resolve() == Path.cwd().resolve():
        return Path(relative)
    return config.in_workspace(relative)


def _request(
    ctx: _Ctx, files: _Files, reference: Receipt | None, *, as_reference: bool, label: str | None = None
) -> RunRequest:
    """The run the Action's inputs ask for.

    On a pull request the run is drawn against the default branch's receipt (``reference``); on a push to the
    default branch it is drawn to the deeper rule of the receipt it will store (``as_reference``).
    """
    config = ctx.config
    return RunRequest(
        suite=_path(config, config.suite),
        skill=_path(config, config.skill) if config.skill else None,
        out=_path(config, files.receipt),
        provider=config.provider,
        model=config.model,
        judge_provider=config.judge_provider,
        judge_model=config.judge_model,
        draws=config.draws,
        max_draws=config.max_draws,
        judge_samples=config.judge_samples,
        concurrency=config.concurrency,
        timeout_s=config.timeout,
        max_retries=config.max_retries,
        max_consecutive_failures=config.max_consecutive_failures,
        base_url=config.base_url,
        judge_base_url=config.judge_base_url,
        reference=reference,
        as_reference=as_reference,
        # a carried arm could never move (sentinel); pairwise needs the baseline's answers, which carrying lacks
        carry_baseline=config.carry_baseline and not config.sentinel and config.judge_mode != JudgeMode.PAIRWISE,
        reference_label=label,
        shard=config.shard if config.shard != MERGE else None,
        environ=dict(ctx.environ),
        budget=config.budget,
        budget_usd=config.budget_usd,
        price_table=_path(config, config.price_table) if config.price_table else None,
        placebo=config.placebo,
        judge_mode=config.judge_mode,
        plan_by_case=True,  # the same plan as driftproof plan, before the first call
    )


def _ref_branch(event: Event) -> str | None:
    """The branch a scheduled run checked out (``refs/heads/main``), when the payload names no default branch."""
    return event.ref.removeprefix("refs/heads/") if event.ref and event.ref.startswith("refs/heads/") else None


def _standing(ctx: _Ctx, before: Receipt, request: RunRequest, label: str) -> BaselineStanding:
    """Whether the stored receipt's baseline arms stand for exactly this run (``driftproof stale``'s rule, no
    model call), said in the log before the run's first call."""
    standing = baseline_standing(stale_against(before, request))
    line = baseline_line(standing, label, before.seal.sha256, escape=printable)
    notice(redact(line, ctx.secrets), title=TITLE_BASELINE, stream=ctx.out)
    return standing


def _kept_refusal(ctx: _Ctx, kept: Receipt) -> str | None:
    """Why a skill's stored receipt, which the push left alone, does not stand for the store run its inputs ask
    for (`promote.refusal`), or ``None``: then the push keeps it instead of drawing the skill again."""
    return refusal(kept, _request(ctx, _files(ctx.config, Activity.STORE_RECEIPT), None, as_reference=True))


def _promoted(ctx: _Ctx, request: RunRequest) -> Receipt | None:
    """Pay once per merge: the PR's last receipt (``promote``) written as the stored one, when it measured exactly
    this run; ``None`` (the store job draws) otherwise. Either way one notice says which, and why."""
    shown = ctx.config.promote or ""
    out = request.out or ctx.config.in_workspace(ctx.config.receipt_path)
    result = promote(ctx.config.in_workspace(shown), shown, request, out, ctx.environ.get("GITHUB_SHA") or None)
    notice(redact(printable(result.line), ctx.secrets), title=TITLE_PROMOTED, stream=ctx.out)
    return result.receipt


def _run_suite(ctx: _Ctx, request: RunRequest) -> Receipt:
    """Run the suite; raw answers go to the log with workflow commands stopped."""
    ctx.out.write(f"::group::{RUN_GROUP}\n")
    try:
        with stop_commands(stream=ctx.out):
            outcome = run_suite(request, progress_stream=ctx.out, log_answer=_answer_logger(ctx))
    finally:
        ctx.out.write("::endgroup::\n")
        ctx.out.flush()
        _quiet_loggers()
    return outcome.receipt


def _answer_logger(ctx: _Ctx) -> Callable[[str, str, int, str], None]:
    lock = threading.Lock()

    def log(case_id: str, arm: str, index: int, text: str) -> None:
        with lock:
            shown = clip_lines(printable(redact(text, ctx.secrets)).rstrip())
            ctx.out.write(f"--- {printable(case_id)} · {arm} · draw {index + 1}\n{shown}\n")

    return log


def _client(ctx: _Ctx, http: httpx.Client) -> GitHubClient | None:
    """The REST client, when there is a token and a repository to talk to."""
    token = ctx.config.github_token.get_secret_value()
    if not token or not ctx.event.repository:
        return None
    return GitHubClient(http, ctx.config.api_url, token, ctx.event.repository, redact_values=ctx.secrets)


def _baseline(ctx: _Ctx, branch: str, client: GitHubClient | None) -> Receipt | None:
    """The receipt stored on the default branch; ``None`` on a first run, said so plainly."""
    path = ctx.config.receipt_path
    found = locate_default_branch_file(ctx.config.workspace, branch, path, client=client)
    if found.content is None:  # where it looked and how, so a wrong path or a failed fetch reads as what it is
        plain = first_run_sentence(code(branch, table=False)).replace("`", "")  # the branch as reports show it
        where = first_run_where(path, branch, found.git_failure, found.endpoint)
        notice(redact(printable(f"{plain} {where}"), ctx.secrets), title=TITLE_FIRST_RUN, stream=ctx.out)
        return None
    return load_receipt_bytes(found.content, f"{path} on {branch}", read_restamped_smoke=True)


def _report(
    receipt: Receipt,
    reading: ReceiptReading,
    before: Receipt | None,
    result: DiffResult | None,
    labels: tuple[str, str],
    files: _Files,
    is_pr: bool,
    standing: BaselineStanding | None,
) -> str:
    """The full markdown report: the diff, the first-run form, or the view of the new receipt."""
    if before is not None and result is not None:
        return render_diff(before, receipt, result, before_label=labels[0], after_label=labels[1], baseline=standing)
    if is_pr:
        return render_first_run(receipt, reading, branch=labels[0], title=files.receipt)
    return render_view(receipt, reading, title=files.receipt)


def _comment(ctx: _Ctx, client: GitHubClient | None, report: str, report_path: str) -> None:
    """Create or update the one sticky comment; a refusal is a warning, never the end of the run."""
    number = ctx.event.pr_number
    if client is None or number is None:
        warning(NO_COMMENT_TOKEN, stream=ctx.out)
        return
    try:
        posted = client.upsert_comment(number, report)
    except GitHubError as exc:
        warning(comment_not_posted(str(exc), report_path), title=TITLE_COMMENT, stream=ctx.out)
        return
    ctx.out.write(comment_posted(posted.action, posted.url) + "\n")


def _annotate(ctx: _Ctx, decision: Decision, labels: tuple[str, str]) -> None:
    """One annotation per regressed case: an error when the gate can fail on it, a warning otherwise."""
    annotate = warning if ctx.config.fail_on == FailOn.NEVER else error
    for case in decision.regressed_cases:
        before, after = f"{band_text(case.before)} on {labels[0]}", f"{band_text(case.after)} on {labels[1]}"
        message = case_regressed(case.id, before, after, case.comparison.delta)
        annotate(redact(message, ctx.secrets), title=TITLE_REGRESSED, stream=ctx.out)


def _set_outputs(ctx: _Ctx, outputs: Mapping[str, str]) -> None:
    values = {name: redact(outputs.get(name, ""), ctx.secrets) for name in OUTPUTS}
    if ctx.config.output_path is not None:
        write_outputs(ctx.config.output_path, values)
    else:  # outside Actions: show them
        for name, value in values.items():
            ctx.out.write(f"output {name}={value}\n")


def _skip_fork(ctx: _Ctx) -> int:
    """A fork (or Dependabot) PR without the provider's key: a notice, status=skipped, exit 0."""
    names = " and ".join(ctx.config.missing_model_secrets(ctx.environ))
    message = fork_skipped(names)
    notice(message, title=TITLE_SKIPPED, stream=ctx.out)
    if ctx.config.summary_path is not None:
        append_summary(ctx.config.summary_path, f"### Driftproof · skipped\n\n{message}\n")  # our words only
    skipped = {"status": SKIPPED, "regressed": "0", "improved": "0", "lift": "n/a", "lift-per-1k": "n/a"}
    _set_outputs(ctx, skipped)
    return 0


def _fatal(message: str, fix: str, out: TextIO, summary: str | None, secrets: tuple[str, ...]) -> int:
    """One ``::error::`` line and the summary with the fix; exit status 2."""
    text = one_line(redact(message, secrets))
    error(f"{text} · Fix: {fix}", title=TITLE_FAILED, stream=out)
    if summary:
        try:
            append_summary(Path(summary), f"### Driftproof · error\n\n{md(text)}\n\n**Fix:** {fix}\n")
        except OutputError as exc:
            warning(summary_not_written(str(exc)), stream=out)
    return 2


ERROR_OUTPUTS = {"status": "error", "lift": "n/a", "lift-per-1k": "n/a"}
"""The outputs of a failed run: ``status=error``; every count and path empty (an error is not "0 regressed")."""


def _error_outputs(environ: Mapping[str, str], secrets: tuple[str, ...]) -> None:
    """``status=error`` and the rest empty, so a later step (``if: always()``) can tell a failed run apart."""
    path = environ.get("GITHUB_OUTPUT")
    if not path:
        return
    values = {name: ERROR_OUTPUTS.get(name, "") for name in OUTPUTS}
    try:
        write_outputs(Path(path), values)
    except OutputError:  # the error line and the summary already say what went wrong
        return


def _error_comment(
    environ: Mapping[str, str], http: httpx.Client, message: str, fix: str, out: TextIO, secrets: tuple[str, ...]
) -> None:
    """On a pull request, the sticky comment says the run failed and gives no verdict, so an older comment's
    verdict is not left standing as if it were this push's. Only the inputs a comment needs are read
    (`CommentInputs`): when another input is what failed, the comment still says so. Best effort: a refusal is a
    warning."""
    try:
        reach = CommentInputs.from_environ(environ)
        event = Event.from_environ(environ)
    except DriftproofError:
        return  # whether or where to comment is what failed: nothing to comment with
    token = reach.github_token.get_secret_value()
    if not can_comment(event) or not reach.comment or not token or event.pr_number is None:
        return
    client = GitHubClient(http, reach.api_url, token, event.repository or "", redact_values=secrets)
    body = render_error_comment(message, fix)
    try:
        client.upsert_comment(event.pr_number, body)
    except GitHubError as exc:
        warning(comment_not_updated(str(exc)), stream=out)


def _quiet_loggers() -> None:
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
