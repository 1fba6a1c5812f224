"""Part 6: Hypothesis fuzzing of ``validate``, ``view``, ``diff`` and ``badge`` on mutated receipts.

Each mutated receipt (`fuzz_cases`) goes through ``driftproof.cli.main`` in process, stdout and stderr
captured, under a per-command time limit (SIGALRM): ``validate M``, ``view M``, ``diff BASE M`` and ``badge M``.
A command must accept (exit 0) only what the oracle calls a valid, sealed receipt, and refuse anything
else with exit 2 and one ``driftproof: error:`` line of at most 1,000 characters, nothing on stdout. An
exception escaping ``main`` (a traceback) and running past the limit (a hang) are failures too.

Failures are grouped by signature (command and what went wrong); each group's first example is shrunk by a
bounded greedy pass (drop the byte edit, drop edits, simpler values, shorter strings, shallower nesting,
shorter paths), re-running only the failing command, and that minimal example is what the report shows.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from benchmarks.reliability.common import ERROR_PREFIX, PartResult, one_line, out_of_time, temp_dir
from benchmarks.reliability.fuzz_cases import Deep, Huge, Mutation, mutations, oracle, render, write_bases

COMMANDS = ("validate", "view", "diff", "badge")
LIMIT_S = 10.0
MAX_LINE = 1000
SHRINK_EVALS = 120


class FuzzTimeout(BaseException):
    """Raised by SIGALRM inside a command that ran past `LIMIT_S`."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise FuzzTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _argv(command: str, path: Path, base: Path) -> list[str]:
    return ["diff", str(base), str(path)] if command == "diff" else [command, str(path)]


def run_command(command: str, path: Path, base: Path) -> tuple[int | BaseException, str, str]:
    from driftproof.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(LIMIT_S):
            code: int | BaseException = main(_argv(command, path, base))
    except (Exception, SystemExit, FuzzTimeout) as exc:  # whatever escapes main is the finding
        code = exc
    return code, out.getvalue(), err.getvalue()


def _where(exc: BaseException) -> str:
    tb, found = exc.__traceback__, ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if "/driftproof/" in name:
            found = f" at {name[name.rindex('driftproof/') :]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def _lines(text: str) -> list[str]:
    """Non-blank lines, as a terminal or a CI log breaks them (``\\n``, ``\\r``)."""
    return [line for line in re.split(r"\r\n|\r|\n", text) if line.strip()]


def verdict(command: str, data: bytes, code: int | BaseException, out: str, err: str) -> tuple[str, str] | None:
    """(kind, detail) of a failure, or ``None`` when the command behaved."""
    if isinstance(code, FuzzTimeout):
        return f"ran past {LIMIT_S:g} s", "no answer within the limit"
    if isinstance(code, BaseException):
        return f"traceback {type(code).__name__}{_where(code)}", one_line(f"{type(code).__name__}: {code}", 200)
    why = oracle(data, restamped_smoke=command != "validate")
    if code == 0:
        if why is None:
            return None
        return f"accepted a receipt ({re.sub(r' at .*? [(]', ' (', why)})", f"exit 0, but {why}"
    lines = _lines(err)
    if code != 2:
        return f"exit {code}", one_line(err, 200)
    if len(lines) != 1 or not lines[0].startswith(ERROR_PREFIX):
        return "refusal not one error line", f"{len(lines)} lines: {one_line(err, 200)}"
    if len(lines[0]) > MAX_LINE:
        return f"error line over {MAX_LINE:,} chars", f"{len(lines[0]):,} chars: {one_line(lines[0], 160)}"
    if out.strip():
        return "printed to stdout while refusing", one_line(out, 160)
    return None


@dataclass
class Group:
    """One kind of failure: the commands it hit, how many inputs, and the first example."""

    kind: str
    detail: str
    example: Mutation
    command: str
    commands: set[str] = field(default_factory=set)
    inputs: int = 0


@dataclass
class Sweep:
    tmp: Path
    bases: dict[str, Path]
    inputs: int = 0
    failed: int = 0
    accepted: int = 0
    skipped: int = 0
    groups: dict[str, Group] = field(default_factory=dict)

    def check(self, m: Mutation, commands: tuple[str, ...] = COMMANDS) -> list[tuple[str, str, str]]:
        """(command, kind, detail) of every failure of ``m``."""
        data = render(m)
        path = self.tmp / "mutated.json"
        path.write_bytes(data)
        found = []
        for command in commands:
            code, out, err = run_command(command, path, self.bases[m.base])
            self.accepted += command == "validate" and code == 0
            failure = verdict(command, data, code, out, err)
            if failure is not None:
                found.append((command, *failure))
        return found

    def record(self, m: Mutation) -> None:
        if out_of_time(45):
            self.skipped += 1
            return
        self.inputs += 1
        found = self.check(m)
        self.failed += bool(found)
        for kind in dict.fromkeys(kind for _, kind, _ in found):
            hits = [(c, d) for c, k, d in found if k == kind]
            group = self.groups.setdefault(kind, Group(kind, hits[0][1], m, hits[0][0]))
            group.inputs += 1
            group.commands |= {c for c, _ in hits}


def sweep(tmp: Path, examples: int, seed: int) -> Sweep:
    state = Sweep(tmp, write_bases(tmp))

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(mutations())
    def fuzz(m: Mutation) -> None:
        state.record(m)

    fuzz()
    return state


def _simpler(m: Mutation) -> Iterator[Mutation]:
    """Candidates one step simpler than ``m``."""
    if m.raw is not None:
        yield replace(m, raw=None)
    for i in range(len(m.ops)):
        yield replace(m, ops=m.ops[:i] + m.ops[i + 1 :])
    for i, op in enumerate(m.ops):
        simpler = [replace(op, value=value) for value in _simpler_values(op.value)]
        if op.path:
            simpler.append(replace(op, path=op.path[:-1]))
        simpler += [replace(op, key=key) for key in _simpler_values(op.key) if isinstance(key, str)]
        for changed in simpler:
            yield replace(m, ops=(*m.ops[:i], changed, *m.ops[i + 1 :]))


def _simpler_values(value: object) -> Iterator[object]:
    if isinstance(value, Huge) and value.chars > 1:
        yield Huge(value.chars // 2)
        yield Huge(value.chars - max(1, value.chars // 10))
    elif isinstance(value, Deep) and value.levels > 1:
        yield Deep(value.levels // 2)
        yield Deep(value.levels - 1)
    elif isinstance(value, str) and len(value) > 1:
        yield from dict.fromkeys(value)  # each character alone
        yield value[: len(value) // 2]
        yield value[len(value) // 2 :]
    simplest: tuple[object, ...] = (None, 0, "", [], {})
    for simple in simplest:
        if value != simple or type(value) is not type(simple):
            yield simple


def shrink(state: Sweep, group: Group) -> Mutation:
    """A bounded greedy pass: keep any one-step-simpler mutation that fails the same way."""
    best, evals, improved = group.example, 0, True
    while improved and evals < SHRINK_EVALS:
        improved = False
        for candidate in _simpler(best):
            evals += 1
            if any(kind == group.kind for _, kind, _ in state.check(candidate, (group.command,))):
                best, improved = candidate, True
                break
            if evals >= SHRINK_EVALS:
                break
    return best


def measure(seed: int, examples: int = 2000) -> PartResult:
    result = PartResult("6 fuzzing")
    with temp_dir("fuzz") as tmp:
        state = sweep(tmp, examples, seed)
        for group in sorted(state.groups.values(), key=lambda g: -g.inputs):
            minimal = shrink(state, group)
            again = [d for _, k, d in state.check(minimal, (group.command,)) if k == group.kind]
            commands = ", ".join(c for c in COMMANDS if c in group.commands)
            result.fail(
                f"{commands}: {group.kind} ({group.inputs} of {state.inputs:,} inputs)",
                again[0] if again else group.detail,
                f"minimal: {minimal.describe()}",
            )
    result.runs = f"{state.inputs:,} receipts × {len(COMMANDS)} commands, {state.failed} failed"
    if state.skipped:
        result.fail("time budget", f"{state.skipped} of {examples:,} receipts not run: the budget was spent")
    result.faults = state.inputs
    return result
