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

VERSION = "0.171.0"
DEFAULT_MODEL = "gpt-6.2-sol"
DEFAULT_USAGE = {
    "input_tokens": 21,
    "cached_input_tokens": 8,
    "cache_write_input_tokens": 0,
    "output_tokens": 6,
    "reasoning_output_tokens": 2,
}
DEFAULT_FEATURES = [
    ["skill_search", "stable", True],
    ["memories", "stable", False],
    ["multi_agent", "deprecated", True],
    ["responses_websockets", "removed", False],
    ["shell_tool", "stable", True],
    ["unified_exec", "stable", True],
    ["apply_patch_freeform", "stable", True],
    ["view_image_tool", "stable", True],
    ["web_search_request", "stable", True],
]
"""Rows 1-4 are from the reference, the rest illustrative; a scenario's ``features`` replaces them."""
SANDBOX = ("read-only", "workspace-write", "danger-full-access")
APPROVAL = ("untrusted", "on-failure", "on-request", "never")
EXEC_USAGE = "Usage: codex exec [OPTIONS] [PROMPT]\n       codex exec [OPTIONS] <COMMAND> [ARGS]"
TOP_USAGE = "Usage: codex [OPTIONS] [PROMPT]\n       codex [OPTIONS] <COMMAND> [ARGS]"
REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 429: "Too Many Requests"}
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
    """``codex features list``: aligned name, stage and enabled columns."""
    for name, stage, enabled in common.load_scenario().get("features") or DEFAULT_FEATURES:
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
        return common.fail(f"Error: No such file or directory (os error 2): {workdir}", 1)
    if not opts.get("skip_git_repo_check") and not _in_git_repo(workdir):
        return common.fail("Not inside a trusted directory and --skip-git-repo-check was not specified.", 1)
    for home in (os.environ.get("CODEX_HOME"), os.environ.get("HOME")):
        if home and os.path.realpath(home).startswith("/tmp"):
            sys.stderr.write("WARNING: proceeding, even though we could not update PATH aliases (fake codex)\n")
            break
    prompt = parsed.positionals[0] if parsed.positionals else "-"
    if prompt == "-":
        if stdin_kind == "tty":
            return common.fail("No prompt provided. Either specify one as an argument or pipe it into stdin.", 1)
        sys.stderr.write("Reading prompt from stdin...\n")
        prompt = stdin_text.strip()
        if not prompt:
            return common.fail("No prompt provided via stdin.", 1)
    elif stdin_kind.startswith("pipe") and stdin_kind != "pipe-empty":
        sys.stderr.write("Reading additional input from stdin...\n")
        if stdin_text.strip():
            prompt = f"{prompt}\n\n<stdin>\n{stdin_text.strip()}\n</stdin>"
    entry["prompt"] = prompt
    spec, key, index = common.select_spec("codex", [prompt])
    entry.update(scenario=spec["scenario"], scenario_key=key, scenario_index=index)
    model = str(opts.get("model") or config.get("model") or DEFAULT_MODEL)
    entry["model"] = model
    return _answer(spec, opts, workdir, model, invocation)


def _answer(spec: dict[str, Any], opts: dict[str, Any], workdir: str, model: str, invocation: common.Invocation) -> int:
    entry = invocation.entry
    kind, as_json = spec["scenario"], bool(opts.get("json"))
    if kind == "max_turns":
        raise common.ScenarioError("scenario 'max_turns' has no codex equivalent")
    if kind in ("crash", "timeout"):
        invocation.log(None if kind == "timeout" else int(spec.get("exit_code", 101)))
    if kind == "crash":
        panic = "thread 'main' panicked at exec/src/lib.rs:1:1:\nfake crash\n"
        return common.crash(spec, panic + "note: run with `RUST_BACKTRACE=1` to display a backtrace\n", 101)
    thread_id = str(uuid.uuid4())
    if as_json:
        common.emit({"type": "thread.started", "thread_id": thread_id})
        common.emit({"type": "turn.started"})
    else:
        sandbox = opts.get("sandbox", "read-only")
        sys.stderr.write(f"OpenAI Codex v{VERSION}\n--------\nworkdir: {workdir}\nmodel: {model}\n")
        sys.stderr.write(f"provider: openai\nsandbox: {sandbox}\nsession id: {thread_id}\n--------\n")
    if kind == "timeout":
        common.hang(spec)
        return 0
    time.sleep(float(spec.get("delay_s", 0)))
    if kind == "api_error":
        return _api_error(spec, as_json)
    items: list[dict[str, Any]] = [dict(item) for item in spec.get("items") or []]
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
    if as_json:
        for n, item in enumerate(items):
            common.emit({"type": "item.completed", "item": {"id": f"item_{n}", **item}})
        common.emit({"type": "turn.completed", "usage": {**DEFAULT_USAGE, **(spec.get("usage") or {})}})
    else:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    if opts.get("output_last_message"):
        with open(str(opts["output_last_message"]), "w", encoding="utf-8") as f:
            f.write(text)
    return 0


def _api_error(spec: dict[str, Any], as_json: bool) -> int:
    status = int(spec.get("api_error_status", 429))
    reason = REASONS.get(status, "Error")
    request_id = "req_fakeoai"
    if status == 429 or status >= 500:
        message = f"exceeded retry limit, last status: {status} {reason}, request id: {request_id}"
        errors = [f"Reconnecting... 1/1 ({message})", message]
    else:
        detail = spec.get("api_error_message", "fake error")
        message = (
            f"unexpected status {status} {reason}: {detail}, url: http://127.0.0.1/v1/responses, "
            f"request id: {request_id}"
        )
        errors = [message]
    if as_json:
        for error in errors:
            common.emit({"type": "error", "message": error})
        common.emit({"type": "turn.failed", "error": {"message": message}})
    else:
        sys.stderr.write(f"ERROR: {message}\n")
    return 1
