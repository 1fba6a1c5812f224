"""The fake ``codex`` (codex-cli 0.171.0: ``exec``, ``features list``, ``--version``); see README.md.

Argument parsing follows clap, as the real CLI does: options of ``codex`` go before the subcommand and
options of ``exec`` after it, ``--opt value`` / ``--opt=value`` / ``-mVALUE``, a value may not start with
``-``, a single-valued option may not repeat, and anything unknown fails with
``error: unexpected argument '--x' found`` and exit 2.

>>> parse_exec(["--json", "-s", "read-only", "-c", "a=1", "-c", "b=2", "hi"]).values["config"]
['a=1', 'b=2']
>>> toml_value('"o3"'), toml_value("true"), toml_value("o3")
('o3', True, 'o3')
"""

from __future__ import annotations

import difflib
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import _fake_cli_common as common
import _fake_sandbox as fake_sandbox

VERSION = "0.171.0"
DEFAULT_MODEL = "gpt-6.2-sol"
DEFAULT_USAGE = {
    "input_tokens": 21,
    "cached_input_tokens": 8,
    "cache_write_input_tokens": 0,
    "output_tokens": 6,
    "reasoning_output_tokens": 2,
}
FEATURES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"codex-{VERSION}-features.txt")
"""``codex features list`` of the real 0.171.0 with a fresh ``CODEX_HOME``, verbatim (224 rows)."""
SYSTEM_SKILLS = {
    "create-statusline": "Build and enable a custom MCP statusline for the Codex CLI.",
    "imagegen": "Generate or edit raster images when the task benefits from AI-created bitmap visuals.",
    "openai-docs": "API first-timers, Codex/Work Q&A.",
    "review-agent": "Perform a read-only, defect-first review of a specified code change.",
    "skill-creator": "Create or update a Codex skill with appropriately scoped instructions.",
    "skill-installer": "Install Codex skills into $CODEX_HOME/skills from a curated list or a GitHub repo path.",
}
"""The bundled skills 0.171.0 copies into ``$CODEX_HOME/skills/.system`` (names real, descriptions shortened)."""
SYSTEM_SKILLS_MARKER = "c97ed5ddabec1e4"
STREAM_MAX_RETRIES = 5
"""A provider's default ``stream_max_retries``: the ``Reconnecting... n/5`` lines before a turn fails."""
HIGH_DEMAND = "We\u2019re currently experiencing high demand, which may cause temporary errors."
"""What 0.171.0 says, instead of the status, when the server answers 500."""
CODE_MODE_WARNING = (
    "Code Mode is unavailable because code-mode host is disabled. Code mode will fail closed; enable "
    "`features.code_mode_host` and install `codex-code-mode-host`."
)
SANDBOX = ("read-only", "workspace-write", "danger-full-access")
APPROVAL = ("untrusted", "on-failure", "on-request", "never")
EXEC_USAGE = "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]"
TOP_USAGE = "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]"
REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests"}
REASONS.update({500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"})

FLAG, ONE, MANY = "flag", "one", "many"
# (flags, kind, dest, placeholder, choices)
OptSpec = tuple[tuple[str, ...], str, str, str, tuple[str, ...]]
SHARED: list[OptSpec] = [
    (("-c", "--config"), MANY, "config", "<key=value>", ()),
    (("--enable",), MANY, "enable", "<FEATURE>", ()),
    (("--disable",), MANY, "disable", "<FEATURE>", ()),
    (("-i", "--image"), MANY, "image", "<FILE>...", ()),
    (("-m", "--model"), ONE, "model", "<MODEL>", ()),
    (("--oss",), FLAG, "oss", "", ()),
    (("--local-provider",), ONE, "local_provider", "<OSS_PROVIDER>", ("lmstudio", "ollama")),
    (("-p", "--profile"), ONE, "profile", "<CONFIG_PROFILE>", ()),
    (("-s", "--sandbox"), ONE, "sandbox", "<SANDBOX_MODE>", SANDBOX),
    (("--dangerously-bypass-approvals-and-sandbox",), FLAG, "bypass", "", ()),
    (("-C", "--cd"), ONE, "cd", "<DIR>", ()),
    (("--add-dir",), MANY, "add_dir", "<DIR>", ()),
    (("-h", "--help"), FLAG, "help", "", ()),
]
TOP_OPTIONS: list[OptSpec] = [
    *SHARED,
    (("-a", "--ask-for-approval"), ONE, "ask_for_approval", "<APPROVAL_POLICY>", APPROVAL),
    (("--search",), FLAG, "search", "", ()),
    (("--no-alt-screen",), FLAG, "no_alt_screen", "", ()),
    (("-V", "--version"), FLAG, "version", "", ()),
]
EXEC_OPTIONS: list[OptSpec] = [
    *SHARED,
    (("--json", "--experimental-json"), FLAG, "json", "", ()),
    (("-o", "--output-last-message"), ONE, "output_last_message", "<FILE>", ()),
    (("--output-schema",), ONE, "output_schema", "<FILE>", ()),
    (("--skip-git-repo-check",), FLAG, "skip_git_repo_check", "", ()),
    (("--ephemeral",), FLAG, "ephemeral", "", ()),
    (("--ignore-user-config",), FLAG, "ignore_user_config", "", ()),
    (("--ignore-rules",), FLAG, "ignore_rules", "", ()),
    (("--strict-config",), FLAG, "strict_config", "", ()),
    (("--trust",), FLAG, "trust", "", ()),
    (("--color",), ONE, "color", "<COLOR>", ("always", "never", "auto")),
]
EXEC_SUBCOMMANDS = ("resume", "review", "fork", "help")


class ClapError(Exception):
    """A parse error, printed as clap prints it, exit 2."""


@dataclass
class Parsed:
    values: dict[str, Any] = field(default_factory=dict)
    positionals: list[str] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)
    """Top level only: the subcommand and its arguments."""


def _unexpected(arg: str, table: list[OptSpec], usage: str) -> ClapError:
    tip = ""
    if arg.startswith("-"):
        names = [flag for spec in table for flag in spec[0] if flag.startswith("--")]
        close = difflib.get_close_matches(arg.split("=")[0], names, n=1, cutoff=0.7)
        tip = (
            f"  tip: a similar argument exists: '{close[0]}'"
            if close
            else f"  tip: to pass '{arg}' as a value, use '-- {arg}'"
        )
        tip += "\n\n"
    return ClapError(f"error: unexpected argument '{arg}' found\n\n{tip}{usage}\n\nFor more information, try '--help'.")


def _parse(argv: list[str], table: list[OptSpec], usage: str, stop_at_positional: bool) -> Parsed:
    index = {flag: spec for spec in table for flag in spec[0]}
    out, args, seen = Parsed(), list(argv), set()
    while args:
        arg = args.pop(0)
        if arg == "--":
            out.positionals += args
            break
        if not arg.startswith("-") or arg == "-":
            if stop_at_positional:
                out.rest = [arg, *args]
                break
            out.positionals.append(arg)
            continue
        if arg.startswith("--"):
            name, eq, inline = arg.partition("=")
            attached = inline if eq else None
        else:
            name, attached = arg[:2], (arg[2:].removeprefix("=") or None)
        spec = index.get(name)
        if spec is None or (spec[1] == FLAG and attached is not None):
            raise _unexpected(arg, table, usage)
        flags, kind, dest, placeholder, choices = spec
        display = f"{flags[-1]} {placeholder}".strip()
        if dest in seen and kind != MANY:
            raise ClapError(
                f"error: the argument '{display}' cannot be used multiple times\n\n{usage}\n\n"
                "For more information, try '--help'."
            )
        seen.add(dest)
        if kind == FLAG:
            out.values[dest] = True
            continue
        value = attached if attached is not None else (args.pop(0) if args and not args[0].startswith("-") else None)
        if value is None:
            raise ClapError(
                f"error: a value is required for '{display}' but none was supplied\n\n"
                "For more information, try '--help'."
            )
        if choices and value not in choices:
            raise ClapError(
                f"error: invalid value '{value}' for '{display}'\n  [possible values: {', '.join(choices)}]"
                "\n\nFor more information, try '--help'."
            )
        if kind == MANY:
            out.values.setdefault(dest, []).append(value)
        else:
            out.values[dest] = value
    return out


def parse_exec(argv: list[str]) -> Parsed:
    parsed = _parse(argv, EXEC_OPTIONS, EXEC_USAGE, stop_at_positional=False)
    if parsed.positionals and parsed.positionals[0] in EXEC_SUBCOMMANDS:
        raise common.ScenarioError(f"'codex exec {parsed.positionals[0]}' is not faked")
    if len(parsed.positionals) > 1:
        raise ClapError(
            f"error: unexpected argument '{parsed.positionals[1]}' found\n\n{EXEC_USAGE}\n\n"
            "For more information, try '--help'."
        )
    return parsed


def toml_value(raw: str) -> Any:
    """A ``-c`` value as codex reads it: TOML, else the literal string."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        return raw.strip().strip('"')
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def _in_git_repo(path: str) -> bool:
    path = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(path, ".git")):
            return True
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def codex_home() -> tuple[str, str | None]:
    """``$CODEX_HOME`` (else ``$HOME/.codex``) and, when it is set but unusable, the reason, as 0.171.0 words it."""
    raw = os.environ.get("CODEX_HOME")
    if not raw:
        return os.path.join(os.path.expanduser("~"), ".codex"), None
    home = os.path.abspath(raw)
    if not os.path.exists(home):
        return home, f'CODEX_HOME points to "{raw}", but that path does not exist'
    if not os.path.isdir(home):
        return home, f'CODEX_HOME points to "{raw}", but that path is not a directory'
    return home, None


def _path_alias_warning(home: str, problem: str | None) -> None:
    """The stderr line every command prints when Codex cannot put its helper binaries under ``CODEX_HOME``."""
    temp = os.path.realpath(os.environ.get("TMPDIR") or "/tmp")
    if problem is None and not (os.path.realpath(home) + os.sep).startswith(temp.rstrip(os.sep) + os.sep):
        return
    shown = (os.environ.get("TMPDIR") or "/tmp").rstrip(os.sep) or os.sep
    refusal = f'Refusing to create helper binaries under temporary dir "{shown}"'
    why = problem or f'{refusal} (codex_home: AbsolutePathBuf("{home}"))'
    sys.stderr.write(f"WARNING: proceeding, even though we could not create PATH aliases: {why}\n")


def main(argv: list[str]) -> int:
    """Run one invocation and log it (also when it fails), returning the exit code."""
    stdin_kind, stdin_text = common.probe_stdin()
    invocation = common.Invocation("codex", argv, stdin_kind)
    try:
        code = _main(argv, stdin_kind, stdin_text, invocation)
    except ClapError as exc:
        invocation.entry["error"] = str(exc)
        code = common.fail(str(exc), 2)
    except common.ScenarioError as exc:
        invocation.entry["error"] = str(exc)
        code = common.fail(f"fake codex: {exc}", 2)
    invocation.log(code)
    return code


def _main(argv: list[str], stdin_kind: str, stdin_text: str, invocation: common.Invocation) -> int:
    home, problem = codex_home()
    _path_alias_warning(home, problem)
    top = _parse(argv, TOP_OPTIONS, TOP_USAGE, stop_at_positional=True)
    invocation.entry["top_options"] = top.values
    if top.values.get("version"):
        print(f"codex-cli {VERSION}")
        return 0
    if top.values.get("help") or not top.rest:
        print(f"Codex CLI (fake)\n\n{TOP_USAGE}\n\nCommands:\n  exec      Run Codex non-interactively")
        print("  features  Inspect feature flags")
        return 0
    command, rest = top.rest[0], top.rest[1:]
    if command == "features" and rest == ["list"]:
        if problem:
            invocation.entry["error"] = problem
            return common.fail(f"Error: failed to resolve CODEX_HOME\n\nCaused by:\n    {problem}", 1)
        return _features()
    if command not in ("exec", "e"):
        return common.fail(f"fake codex: '{command}' is not faked (only exec, features list, --version)", 2)
    parsed = parse_exec(rest)
    invocation.entry.update(options=parsed.values, positionals=parsed.positionals)
    if parsed.values.get("help"):
        print(f"Run Codex non-interactively (fake)\n\n{EXEC_USAGE}")
        return 0
    return _exec(parsed, top.values, stdin_kind, stdin_text, invocation)


def _features() -> int:
    """``codex features list``: the real 0.171.0 list, or the scenario's rows, as aligned columns."""
    rows = common.load_scenario().get("features")
    if not rows:
        with open(FEATURES_FILE, encoding="utf-8") as f:
            sys.stdout.write(f.read())
        return 0
    for name, stage, enabled in rows:
        print(f"{name:<40} {stage:<18} {str(bool(enabled)).lower()}")
    return 0


def _exec(parsed: Parsed, top: dict[str, Any], stdin_kind: str, stdin_text: str, invocation: common.Invocation) -> int:
    entry = invocation.entry
    opts = {**{k: v for k, v in top.items() if k in ("config", "enable", "disable")}, **parsed.values}
    for key in ("config", "enable", "disable"):
        opts[key] = [*top.get(key, []), *parsed.values.get(key, [])]
    entry["merged_options"] = opts
    config: dict[str, Any] = {}
    for raw in opts["config"]:
        key, eq, value = raw.partition("=")
        if not eq:
            return common.fail(f"Error parsing -c overrides: Invalid override (missing '='): {raw}", 1)
        config[key.strip()] = toml_value(value.strip())
    for name in opts["enable"]:
        config[f"features.{name}"] = True
    for name in opts["disable"]:
        config[f"features.{name}"] = False
    entry["config"] = config
    workdir = os.path.abspath(str(opts.get("cd") or os.getcwd()))
    entry["workdir"] = workdir
    if not os.path.isdir(workdir):
        return common.fail("Error: No such file or directory (os error 2)", 1)
    home, problem = codex_home()
    if problem:
        entry["error"] = problem
        return common.fail(f"Error finding codex home: {problem}", 1)
    if not opts.get("skip_git_repo_check") and not _in_git_repo(workdir):
        return common.fail("Not inside a trusted directory and --skip-git-repo-check was not specified.", 1)
    prompt = parsed.positionals[0] if parsed.positionals else "-"
    if prompt == "-":
        if stdin_kind == "tty":
            return common.fail("No prompt provided. Either specify one as an argument or pipe it into stdin.", 1)
        sys.stderr.write("Reading prompt from stdin...\n")
        prompt = stdin_text.strip()
        if not prompt:
            return common.fail("No prompt provided via stdin.", 1)
    elif stdin_kind != "tty":
        sys.stderr.write("Reading additional input from stdin...\n")  # printed for /dev/null too
        if stdin_text.strip():
            prompt = f"{prompt}\n\n<stdin>\n{stdin_text.strip()}\n</stdin>"
    entry["prompt"] = prompt
    spec, key, index = common.select_spec("codex", [prompt])
    entry.update(scenario=spec["scenario"], scenario_key=key, scenario_index=index)
    model = str(opts.get("model") or config.get("model") or DEFAULT_MODEL)
    entry["model"] = model
    if spec["scenario"] == "max_turns":
        raise common.ScenarioError("scenario 'max_turns' has no codex equivalent")
    session = None
    if spec["scenario"] != "crash":
        session = Session(home, workdir, model, opts, top, config)
        entry["codex_home"] = home
        entry["rollout"] = session.path
    return _answer(spec, opts, workdir, model, invocation, session)


def uuid7() -> str:
    """A time-ordered id like the thread ids 0.171.0 prints (``01a22860-a560-7260-...``)."""
    value = (int(time.time() * 1000) << 80) | (0x7 << 76) | (uuid.uuid4().int & ((1 << 76) - 1))
    value = (value & ~(0xC << 60)) | (0x8 << 60)  # RFC 4122 variant
    return str(uuid.UUID(int=value))


def _stamp(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{int(when * 1000) % 1000:03d}Z"


class Session:
    """What ``codex exec`` leaves in ``CODEX_HOME``: the bundled ``.system`` skills and, unless ``--ephemeral``,
    ``sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`` with the entries the lane reads."""

    def __init__(
        self, home: str, workdir: str, model: str, opts: dict[str, Any], top: dict[str, Any], config: dict[str, Any]
    ) -> None:
        self.thread_id, self.turn_id, self.started = uuid7(), uuid7(), time.time()
        self.workdir, self.model, self.ordinal = workdir, model, 0
        self.provider = str(config.get("model_provider") or "openai")
        self.approval = str(config.get("approval_policy") or top.get("ask_for_approval") or "never")
        self.sandbox = str(opts.get("sandbox") or config.get("sandbox_mode") or "read-only")
        _install_system_skills(home)
        self.path: str | None = None
        if not opts.get("ephemeral"):
            local = time.localtime(self.started)
            folder = os.path.join(home, "sessions", time.strftime("%Y", local), time.strftime("%m", local))
            folder = os.path.join(folder, time.strftime("%d", local))
            os.makedirs(folder, exist_ok=True)
            name = f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', local)}-{self.thread_id}.jsonl"
            self.path = os.path.join(folder, name)

    def write(self, kind: str, payload: dict[str, Any]) -> None:
        if self.path is None:
            return
        import json

        line = {"timestamp": _stamp(time.time()), "ordinal": self.ordinal, "type": kind, "payload": payload}
        self.ordinal += 1
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")

    def start(self, prompt: str) -> None:
        """``session_meta``, ``task_started``, ``turn_context`` and the user message, as a turn begins."""
        self.write(
            "session_meta",
            {
                "session_id": self.thread_id,
                "id": self.thread_id,
                "timestamp": _stamp(self.started),
                "cwd": self.workdir,
                "originator": "codex_exec",
                "cli_version": VERSION,
                "source": "exec",
                "model_provider": self.provider,
            },
        )
        turn = {"turn_id": self.turn_id, "root_turn_id": self.turn_id}
        self.write("event_msg", {"type": "task_started", **turn, "started_at": int(self.started)})
        self.write(
            "turn_context",
            {
                **turn,
                "cwd": self.workdir,
                "approval_policy": self.approval,
                "model": self.model,
                "collaboration_mode": {"mode": "default", "settings": {"model": self.model}},
                "sandbox_policy": {"type": self.sandbox},
            },
        )
        content = [{"type": "input_text", "text": prompt}]
        self.write("response_item", {"type": "message", "role": "user", "content": content})

    def finish(self, text: str | None, usage: dict[str, int] | None) -> None:
        """The reply, its token count and ``task_complete`` (a failed turn has no reply and no usage)."""
        if text is not None:
            content = [{"type": "output_text", "text": text, "annotations": []}]
            self.write("response_item", {"type": "message", "role": "assistant", "content": content})
        if usage is not None:
            total = {**usage, "total_tokens": usage["input_tokens"] + usage["output_tokens"]}
            info = {"total_token_usage": total, "last_token_usage": total}
            self.write("event_msg", {"type": "token_count", "info": info})
        elapsed = int((time.time() - self.started) * 1000)
        self.write(
            "event_msg",
            {"type": "task_complete", "turn_id": self.turn_id, "last_agent_message": text, "duration_ms": elapsed},
        )


def _install_system_skills(home: str) -> None:
    """``$CODEX_HOME/skills/.system``: the bundled skills, copied on every run (``--ephemeral`` too)."""
    root = os.path.join(home, "skills", ".system")
    for name, description in SYSTEM_SKILLS.items():
        os.makedirs(os.path.join(root, name), exist_ok=True)
        with open(os.path.join(root, name, "SKILL.md"), "w", encoding="utf-8") as f:
            f.write(f"---\nname: {name}\ndescription: {description}\n---\n\n(fake codex: bundled skill)\n")
    with open(os.path.join(root, ".codex-system-skills.marker"), "w", encoding="utf-8") as f:
        f.write(SYSTEM_SKILLS_MARKER + "\n")


def _answer(
    spec: dict[str, Any],
    opts: dict[str, Any],
    workdir: str,
    model: str,
    invocation: common.Invocation,
    session: Session | None,
) -> int:
    entry = invocation.entry
    kind, as_json = spec["scenario"], bool(opts.get("json"))
    if kind in ("crash", "timeout"):
        invocation.log(None if kind == "timeout" else int(spec.get("exit_code", 101)))
    if kind == "crash" or session is None:
        panic = "thread 'main' panicked at exec/src/lib.rs:1:1:\nfake crash\n"
        return common.crash(spec, panic + "note: run with `RUST_BACKTRACE=1` to display a backtrace\n", 101)
    config = entry.get("config") or {}
    warnings = [CODE_MODE_WARNING] if config.get("features.code_mode_host") is False else []
    if as_json:
        common.emit({"type": "thread.started", "thread_id": session.thread_id})
        for n, warning in enumerate(warnings):  # 0.171.0 warns as an error item before the turn starts
            common.emit({"type": "item.completed", "item": {"id": f"item_{n}", "type": "error", "message": warning}})
        common.emit({"type": "turn.started"})
    else:
        sandbox = opts.get("sandbox", "read-only")
        sys.stderr.write(f"OpenAI Codex v{VERSION}\n--------\nworkdir: {workdir}\nmodel: {model}\n")
        sys.stderr.write(f"provider: {session.provider}\nsandbox: {sandbox}\nsession id: {session.thread_id}\n")
        sys.stderr.write("--------\n")
    session.start(str(entry.get("prompt", "")))
    if kind == "timeout":
        common.hang(spec)
        return 0
    roots = fake_sandbox.writable_roots(opts, config, workdir, os.environ)
    outside = fake_sandbox.write_outside(spec, roots, workdir)
    entry["outside_writes"] = outside
    time.sleep(float(spec.get("delay_s", 0)))
    if kind == "api_error":
        code = _api_error(spec, as_json, config)
        session.finish(None, None)
        return code
    items = [*fake_sandbox.items_for(outside), *(dict(item) for item in spec.get("items") or [])]
    written = common.write_files(workdir, spec.get("files") or {})
    entry["files_written"] = written
    if written:
        changes = [{"path": path, "kind": "add"} for path in written]
        items.append({"type": "file_change", "changes": changes, "status": "completed"})
    default_text = f"I saved it to {', '.join(spec['files'])}" if spec.get("files") else "FAKE-OAI-REPLY"
    text = str(spec["result"]) if "result" in spec else default_text
    if "result_json" in spec:
        import json

        text = json.dumps(spec["result_json"])
    items.append({"type": "agent_message", "text": text})
    usage = {**DEFAULT_USAGE, **(spec.get("usage") or {})}
    if as_json:
        for n, item in enumerate(items, start=len(warnings)):
            common.emit({"type": "item.completed", "item": {"id": f"item_{n}", **item}})
        common.emit({"type": "turn.completed", "usage": usage})
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    session.finish(text, usage)
    if opts.get("output_last_message"):
        with open(str(opts["output_last_message"]), "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def _api_error(spec: dict[str, Any], as_json: bool, config: dict[str, Any]) -> int:
    """A failed turn as 0.171.0 reports it with a provider's default retries (observed on a loopback server):
    429 fails at once; 400 echoes the error body; 500 says "high demand"; every other status is retried
    ``stream_max_retries`` times (default 5, one ``Reconnecting... n/N`` error each) before the turn fails."""
    import json

    status = int(spec.get("api_error_status", 429))
    reason = REASONS.get(status, "Error")
    detail = str(spec.get("api_error_message", "fake error"))
    provider = str(config.get("model_provider") or "openai")
    retries = int(config.get(f"model_providers.{provider}.stream_max_retries", STREAM_MAX_RETRIES))
    base = config.get(f"model_providers.{provider}.base_url") or config.get("openai_base_url")
    url = f"{str(base or os.environ.get('OPENAI_BASE_URL') or 'https://api.openai.com/v1').rstrip('/')}/responses"

    def said(n: int) -> str:
        if status == 500:
            return HIGH_DEMAND
        return f"unexpected status {status} {reason}: {detail}, url: {url}, request id: req_fakeoai{n}"

    if status == 429:
        errors = [f"exceeded retry limit, last status: 429 {reason}, request id: req_fakeoai1"]
    elif status == 400:
        body = {"error": {"message": detail, "type": "invalid_request_error", "param": None, "code": None}}
        errors = [json.dumps(body)]
    else:
        errors = [f"Reconnecting... {n}/{retries} ({said(n)})" for n in range(1, retries + 1)]
        errors.append(said(retries + 1))
    message = errors[-1]
    if as_json:
        for error in errors[:-1]:
            common.emit({"type": "error", "message": error})
    time.sleep(float(spec.get("retrying_s", 0)))  # still reconnecting: a long one outlasts the caller's timeout
    if as_json:
        common.emit({"type": "error", "message": message})
        common.emit({"type": "turn.failed", "error": {"message": message}})
    else:
        sys.stderr.write(f"ERROR: {message}\n")
    return 1
