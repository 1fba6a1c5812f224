"""Part 5: canary credentials in every variable the lanes and the Action read, echoed back, then grepped for.

Every run's environment holds a random canary in each of `canary_scan.CANARY_NAMES`. The fake server echoes
the credentials it received (``x-api-key``, ``Authorization``) back in error bodies, in three styles: the key
at the start of the message; the key straddling the message's 300th character (where a lost reason is cut);
OpenAI's "Incorrect API key provided: <first 8>****<last 4>". It also puts the key in response headers. Runs:

- ``driftproof run`` on the anthropic and openai API lanes with ``--keep-transcripts`` (draws lost to echoing
  errors, a judge call too); the journal is read on every request while it exists;
- the same lanes ending on a 401 that echoes the key (exit 2), and once in process (the exception's text);
- the claude and codex CLI lanes (the fake CLIs of ``tests/support/fake_cli``), whose API errors echo
  ``CLAUDE_CODE_OAUTH_TOKEN``/``CODEX_API_KEY``;
- two Action jobs: echoing errors while GitHub refuses the comment with a message that echoes the token, and a
  401 that echoes the key (the error path: ``::error::``, summary, error comment).

Then every output is searched for any 8 characters in a row of any canary (``::add-mask::`` lines aside).
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.reliability.action_job import JobSpec, run_job
from benchmarks.reliability.canary_scan import LENGTH, Leak, find_leaks, make_canaries, summarize, without_mask_lines
from benchmarks.reliability.common import PartResult, base_env, repro_cmd, run_cli, temp_dir, write_suite
from benchmarks.reliability.fakes import ScoredModel
from tests.support.fake_cli_harness import FAKE_CLI_DIR, SCENARIO_ENV
from tests.support.fake_llm_script import FakeReply, RecordedRequest
from tests.support.fake_llm_server import FakeLLMServer

CASES = ("c0", "c1")


def echoes(key: str) -> dict[str, str]:
    """The three ways a server echoes a key: at the start, straddling character 300, and OpenAI's partial form."""
    head = "The request was refused for this key: "
    return {
        "start": f"{key} may not use this model.",
        "straddle": head + "x" * (290 - len(head)) + key + " (as sent).",
        "partial": f"Incorrect API key provided: {key[:8]}{'*' * 24}{key[-4:]}.",
    }


def received_keys(request: RecordedRequest) -> list[str]:
    keys = [request.headers.get("x-api-key", "")]
    auth = request.headers.get("authorization", "")
    keys.append(auth.split(" ", 1)[1] if " " in auth else auth)
    return [k for k in dict.fromkeys(keys) if k]


@dataclass
class EchoModel:
    """`ScoredModel`, but the baseline's draws 1 to 3 of each case end in errors echoing the received key
    (500 at the start, 429 straddling, 503 partial; none retried) with the key in a header too, and the first
    judge call fails the same way. ``fatal`` answers every request with a 401 that echoes the key."""

    journal: Path | None = None
    fatal: bool = False
    snapshot: str = ""
    _model: ScoredModel = field(default_factory=ScoredModel)
    _counts: dict[tuple[str, bool], int] = field(default_factory=dict)
    _judged: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: RecordedRequest) -> FakeReply:
        self._read_journal()
        keys = received_keys(request) or ["(none)"]
        said = {style: " / ".join(echoes(k)[style] for k in keys) for style in ("start", "straddle", "partial")}
        headers = {"x-echo-key": keys[0], "www-authenticate": f'Bearer realm="{keys[0]}"'}
        if self.fatal:
            return FakeReply.error(401, message=said["straddle"], headers=headers)
        judge = "<<<ANSWER" in request.prompt_text
        with self._lock:
            slot = (request.prompt_text[:80], bool(request.system_text))
            n = self._counts.get(slot, 0)
            self._counts[slot] = n + 1
            first_judge, self._judged = judge and not self._judged, self._judged or judge
        if first_judge:
            return FakeReply.error(500, message=said["start"], headers=headers, should_retry=False)
        if not judge and not request.system_text and n in (1, 2, 3):
            status, style = {1: (500, "start"), 2: (429, "straddle"), 3: (503, "partial")}[n]
            return FakeReply.error(status, message=said[style], headers=headers, should_retry=False)
        return self._model(request)

    def _read_journal(self) -> None:
        if self.journal is not None and self.journal.exists():
            text = self.journal.read_text(encoding="utf-8", errors="replace")
            with self._lock:
                if len(text) > len(self.snapshot):
                    self.snapshot = text


def _texts_of_run(out: Path, proc_out: str, proc_err: str, model: EchoModel) -> dict[str, str]:
    texts = {"stdout": proc_out, "stderr": proc_err, "journal (read during the run)": model.snapshot}
    for path in sorted(out.parent.glob(f"{out.stem}*")):
        texts[path.name] = path.read_text(encoding="utf-8", errors="replace")
    return texts


def _api_runs(tmp: Path, canaries: Mapping[str, str]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    suite = write_suite(tmp / "suite", CASES)
    env = base_env(tmp, canaries)
    for provider in ("anthropic", "openai"):
        for fatal in (False, True):
            label = f"driftproof run --provider {provider}{' (401)' if fatal else ''}"
            out = tmp / f"{provider}-{fatal}" / "receipt.json"
            model = EchoModel(journal=out.with_name(out.name + ".journal"), fatal=fatal)
            with FakeLLMServer(model) as server:
                url = server.base_url if provider == "anthropic" else server.openai_base_url
                judge = ["--judge-provider", provider, "--judge-model", "gpt-judge-1"] if provider == "openai" else []
                args = [
                    "run", str(suite), "-o", str(out), "--provider", provider, "--base-url", url,
                    "--judge-base-url", url, *judge, "--draws", "3", "--max-draws", "4", "--judge-samples", "2",
                    "--concurrency", "1", "--max-retries", "0", "--keep-transcripts",
                ]  # fmt: skip
                proc = run_cli(args, env)
            found[label] = _texts_of_run(out, proc.stdout, proc.stderr, model)
            found[label]["(command)"] = repro_cmd(args)
    found["run_suite in process (401)"] = _in_process(tmp, suite, canaries)
    return found


def _in_process(tmp: Path, suite: Path, canaries: Mapping[str, str]) -> dict[str, str]:
    """``run_suite`` in process, ending on a 401 that echoes the key: the exception's text and the progress."""
    from driftproof.errors import DriftproofError
    from driftproof.run import RunRequest, run_suite

    progress = io.StringIO()
    with FakeLLMServer(EchoModel(fatal=True)) as server:
        request = RunRequest(
            suite=suite,
            out=tmp / "in-process" / "receipt.json",
            environ={**canaries, "ANTHROPIC_BASE_URL": server.base_url},
            draws=2,
            max_draws=2,
            judge_samples=1,
            concurrency=1,
            max_retries=0,
        )
        try:
            run_suite(request, progress_stream=progress)
            text = "(no exception: the run finished)"
        except DriftproofError as exc:
            text = f"{exc}\n{exc!r}\n{exc.__cause__!r}\n{exc.__context__!r}"
    return {
        "exception": text,
        "progress": progress.getvalue(),
        "(command)": "run_suite(RunRequest(...)) in process, the fake answering a 401 that echoes the key",
    }


def _cli_lane_runs(tmp: Path, canaries: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """The claude and codex lanes (fake CLIs), whose API errors print the CLI's own credential."""
    found: dict[str, dict[str, str]] = {}
    suite = write_suite(tmp / "cli-suite", ("c0",))
    for provider, secret in (("anthropic", "CLAUDE_CODE_OAUTH_TOKEN"), ("openai", "CODEX_API_KEY")):
        said = echoes(canaries[secret])
        scenario = {
            "sequence": [
                {"scenario": "api_error", "api_error_status": 429, "api_error_message": said["straddle"]},
                {"scenario": "api_error", "api_error_status": 503, "api_error_message": said["start"]},
                {"result": "feat(c0): handle the change"},
            ],
        }
        where = tmp / f"cli-{provider}"
        where.mkdir()
        (where / "scenario.json").write_text(json.dumps(scenario), encoding="utf-8")
        env = base_env(where, canaries)
        env["PATH"] = f"{FAKE_CLI_DIR}:{env['PATH']}"
        env[SCENARIO_ENV] = str(where / "scenario.json")
        env["XDG_CACHE_HOME"] = str(where / "cache")
        out = where / "receipt.json"
        args = [
            "run", str(suite), "-o", str(out), "--provider", provider, "--surface", "cli", "--judge-provider", "stub",
            "--draws", "3", "--max-draws", "3", "--judge-samples", "1", "--concurrency", "1", "--keep-transcripts",
        ]  # fmt: skip
        proc = run_cli(args, env)
        label = f"driftproof run --provider {provider} --surface cli"
        found[label] = _texts_of_run(out, proc.stdout, proc.stderr, EchoModel())
        found[label]["(command)"] = repro_cmd(args)
    return found


def _action_runs(tmp: Path, canaries: Mapping[str, str]) -> dict[str, dict[str, str]]:
    from tests.support.action_sim import suite_yaml

    token = canaries["INPUT_GITHUB-TOKEN"]
    refuse = echoes(token)["straddle"]
    found: dict[str, dict[str, str]] = {}
    for fatal in (False, True):
        env = {k: v for k, v in canaries.items() if k != "INPUT_GITHUB-TOKEN"}
        spec = JobSpec(
            suite_text=suite_yaml(["c0", "c1"]),
            stored=None,
            responder=EchoModel(fatal=fatal),
            token=token,
            extra_env=env,
            inputs={"draws": "3", "max-draws": "4", "max-retries": "0", "concurrency": "1"},
            github_setup=None if fatal else (lambda gh: gh.fail("POST", "create", 500, message=refuse)),
        )
        where = tmp / f"action-{fatal}"
        where.mkdir()
        job = run_job(where, spec)
        how = (
            "a 401 that echoes the key"
            if fatal
            else "errors that echo the key; GitHub refuses the comment, echoing the token"
        )
        found[f"Action job{' (401)' if fatal else ''}"] = {
            "(command)": f"the simulated Action job of benchmarks/reliability/canaries.py: {how}",
            "log": without_mask_lines(job.log),
            "job summary": job.summary,
            "report": job.report,
            "outputs": job.outputs,
            "receipt": job.receipt,
            "badge": job.badge,
            "GitHub request bodies": "\n".join(job.request_bodies),
            "exit": str(job.code),
        }
    return found


def _style(text: str, leak: Leak) -> str:
    """Which echo it was: the whole key, the part before a cut at 300 characters, or OpenAI's partial form."""
    after = text[leak.start + len(leak.text) : leak.start + len(leak.text) + 4].lstrip("\\")
    if len(leak.text) >= LENGTH:
        return "the whole key"
    if after.startswith("*"):
        return f"{len(leak.text)} characters (OpenAI's partial echo)"
    if after.startswith("…"):
        return f"{len(leak.text)} characters (a key cut at the 300-character mark)"
    return f"{len(leak.text)} characters"


def measure(seed: int) -> PartResult:
    result = PartResult("5 canary credentials")
    canaries = make_canaries(seed)
    with temp_dir("canaries") as tmp:
        runs = {**_api_runs(tmp, canaries), **_cli_lane_runs(tmp, canaries), **_action_runs(tmp, canaries)}
    leaks: list[Leak] = []
    grouped: dict[tuple[str, str, str], list[str]] = {}
    commands: dict[str, str] = {}
    for run, texts in runs.items():
        commands[run] = texts.pop("(command)", "")
        for output, text in texts.items():
            for leak in find_leaks(text, canaries, output):
                leaks.append(leak)
                grouped.setdefault((run, leak.name, _style(text, leak)), []).append(output)
    for (run, name, style), outputs in grouped.items():
        where = ", ".join(f"{o} ×{outputs.count(o)}" if outputs.count(o) > 1 else o for o in dict.fromkeys(outputs))
        result.fail(run, f"{style} of {name} leaked into {where}", commands.get(run, ""))
    result.runs = str(len(runs))
    result.faults = len(canaries)
    result.leaked = summarize(leaks)
    return result
