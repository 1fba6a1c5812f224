"""The one table, the failures under it, and ``docs/reliability.md``."""

from __future__ import annotations

from collections.abc import Sequence

from benchmarks.reliability.common import MAX_FAILURES_SHOWN, PartResult

COLUMNS = (
    "part",
    "runs",
    "faults injected",
    "draws lost (each named)",
    "receipts corrupted",
    "finished answers redrawn",
    "secrets leaked",
    "failures",
)
DASH = "–"
DOC_FAILURES = 40
"""Findings per part written to docs/reliability.md (the terminal shows `MAX_FAILURES_SHOWN`)."""

PARTS = {
    "1 transport faults": (
        "One `driftproof run` per fault kind and provider (`--provider anthropic` and `--provider openai`, the "
        "judge on the same provider, the real SDKs, `--base-url` at a fault-injecting proxy in front of "
        "`FakeLLMServer`), 2 cases × 3 draws × 2 judge samples, `--concurrency 1 --timeout 1 --max-retries 1`. "
        "Kinds: 429 with and without `retry-after`, 529, 500, 502, 503, a disconnect before the reply, a reset "
        "mid-body, a stall and a trickling body past `--timeout`, invalid JSON, a 200 with no choices/content, "
        "the server dying for 0.3 s, and dying for good (`--max-consecutive-failures 3`). Each kind hits one "
        "answer attempt, every attempt of one answer call, and every attempt of both judge calls of one draw. "
        "*Faults injected* counts faulted requests (and outages); a lost draw is *named* when its `lost_reason` "
        "holds a word of its fault (`429`, `timed out`, `connection`, …), so `no valid judge sample` for a "
        "connection error is not. *Runs* says how many ended in one clear `driftproof: error:` line (exit 2) and "
        "how many in a traceback."
    ),
    "2 kill and resume": (
        "A three-case run (anthropic lane through the proxy, 3 draws, 2 samples, one call at a time) made once "
        "uninterrupted, then a chain of processes each interrupted when the proxy sees its k-th request (k and a "
        "0–30 ms delay drawn from the seed): ten SIGKILLs and two SIGINTs in a seeded order, each followed by "
        "`--resume`; a process that finishes before its interruption ends a chain (its receipt is compared) and a "
        "fresh chain takes the rest. *Receipts corrupted*: a file at the receipt path after an interruption that "
        "does not validate. *Finished answers redrawn*: answers finished (delivered whole to a live process that "
        "then sent two more requests before its interruption fired, time enough to record them) beyond the "
        "uninterrupted run's, arm by arm, summed over the chains; counted by requests, not by the clock, so the "
        "figure holds from run to run. Every receipt a chain ends with is compared count by count and score by "
        "score with the uninterrupted one (differences are listed). *Faults injected*: the interruptions."
    ),
    "3 disk full": (
        "Each scenario mounts a 1 MiB tmpfs (root only; skipped with a line otherwise), puts a valid receipt and "
        "badge there, fills the rest, and runs: a run whose journal fills the disk mid-run; a run on a disk full "
        "from the start; a run whose receipt write hits the full disk (its journal is a symlink to a roomy "
        "directory, so only the receipt is written there); the same for the `--keep-transcripts` archive; "
        "`driftproof badge -o` over the existing badge. Expected: exit 2 with one error line, no traceback, the "
        "receipt and badge byte for byte untouched, no temporary file left. *Faults injected*: the scenarios."
    ),
    "4 hostile content": (
        "`|`, HTML, `<details>`, `-->`, `@mentions`, `#123`, `::error::` and `::set-output` on their own lines, "
        "ANSI escapes, zero-width and bidi characters, and a 1 MB string, each tagged with the field it was put "
        "in (*faults injected* counts the fields): receipt fields (case ids, suite name and notices, model ids "
        "requested and reported, lost reasons, verification reason, tool version, check names) through "
        "`driftproof view` and `driftproof diff`; and two Action jobs on a PR whose suite, answers, model ids, "
        "judge replies and endpoint errors are hostile, diffed against a hostile stored receipt (PR comment "
        "bodies as FakeGitHub received them, job summary, report, log). A failure is one place (output × field "
        "× kind) where the kind arrived unescaped: a bare `|` on a table row; a raw `<b>`, `<details>`, `-->`, "
        "`@mention` or `#123` outside code; a tagged workflow command at the start of a log line outside "
        "`::stop-commands::` (`view`/`diff` stdout counts as a log, since a CI step prints it); an ESC or a bidi "
        "control anywhere; a line over 10,000 characters. Zero-width characters are not counted (`md` writes "
        "U+200B itself to break mentions)."
    ),
    "5 canary credentials": (
        "A random 40-character canary (not shaped like `sk-…`) in each of ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, "
        "OPENAI_API_KEY, CODEX_API_KEY, CLAUDE_CODE_OAUTH_TOKEN, GITHUB_TOKEN, INPUT_GITHUB-TOKEN, "
        "ACTIONS_RUNTIME_TOKEN and ACTIONS_ID_TOKEN_REQUEST_TOKEN. The fake server echoes the credential it "
        "received in error bodies (at the start; straddling the message's 300th character; OpenAI's "
        "`<first 8>****<last 4>`) and in headers; the fake `claude`/`codex` print theirs in API errors; GitHub "
        "refuses the comment echoing the token. Runs: both API lanes with `--keep-transcripts`, both ending on an "
        "echoing 401, `run_suite` in process (the exception's text), both CLI lanes, and two Action jobs (one "
        "ending on a 401). Every output (receipt, answers archive, the journal read during the run, report, "
        "summary, outputs, badge, every request body sent to GitHub, stdout/stderr, exception text; the log "
        "without its `::add-mask::` lines) is searched for any 8 characters in a row of any canary. *Faults "
        "injected*: the canaries; *secrets leaked*: occurrences and the characters they hold."
    ),
    "6 fuzzing": (
        "Hypothesis draws mutated receipts from four valid bases (0.15 TESTED and smoke, 0.14, a legacy 0.13): up "
        "to three edits (flipped values, deleted and added keys, changed types, strings up to 1 MB, nesting up to "
        "300 deep), re-sealed or not, and sometimes a byte-level edit (cut short, a changed byte, a BOM, a "
        "duplicate key, a raw token). Each goes through `validate`, `view`, `diff BASE M` and `badge` via "
        "`driftproof.cli.main` in process, 10 s limit each. The oracle is independent (strict JSON, the schema "
        "of the receipt's version via the pure-Python `jsonschema`, the seal as docs/receipt-spec.md defines "
        "it): accepting anything else, a refusal that is not exit 2 with one error line of at most 1,000 "
        "characters and nothing on stdout, a traceback or a hang is a failure. Each kind of failure is listed "
        "once with its shrunk minimal example. *Faults injected*: the mutated receipts; *failures*: the kinds "
        "listed."
    ),
}
TARGETS = (
    ("receipts corrupted", "0"),
    ("finished answers redrawn", "0"),
    ("secrets leaked", "0"),
    ("every lost draw names its cause", "all named"),
    ("fuzz failures", "0"),
)


def _cells(r: PartResult) -> list[str]:
    if r.skipped:
        return [r.part, r.skipped, DASH, DASH, DASH, DASH, DASH, DASH]
    lost = DASH
    if r.lost is not None:
        lost = f"{r.lost} (all named)" if r.lost_unnamed == 0 else f"{r.lost} ({r.lost_unnamed} unnamed)"
    shown = [r.runs, r.faults, lost, r.corrupted, r.redrawn, r.leaked, _count(r)]
    return [r.part, *(DASH if v is None else str(v) for v in shown)]


def table(results: Sequence[PartResult]) -> str:
    rows = [COLUMNS, tuple("---" for _ in COLUMNS), *(_cells(r) for r in results)]
    return "\n".join("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows)


def failures(results: Sequence[PartResult], limit: int = MAX_FAILURES_SHOWN) -> str:
    """Each part's findings, at most ``limit`` of them, then how many more."""
    lines = []
    for r in results:
        for f in r.failures[:limit]:
            lines.append(f"- **{f.part}** · {_md(f.input)}: {_md(f.what)}")
            if f.repro:
                repro = f.repro.replace("`", "'")
                lines.append(f"  - reproduce: `{repro}`")
        if len(r.failures) > limit:
            lines.append(f"- **{r.part}** · … and {len(r.failures) - limit} more of the same part")
    return "\n".join(lines) if lines else "None."


def closing(results: Sequence[PartResult]) -> str:
    by = {r.part.split(" ", 1)[0]: r for r in results}
    values = {
        "receipts corrupted": sum(r.corrupted or 0 for r in results),
        "finished answers redrawn": by["2"].redrawn if "2" in by and by["2"].redrawn is not None else "not measured",
        "secrets leaked": by["5"].leaked if "5" in by and by["5"].leaked is not None else "not measured",
        "every lost draw names its cause": (
            f"{by['1'].lost_unnamed} unnamed"
            if "1" in by and by["1"].lost_unnamed
            else ("all named" if "1" in by else "not measured")
        ),
        "fuzz failures": _count(by["6"]) if "6" in by and not by["6"].skipped else "not measured",
    }
    parts = []
    for name, target in TARGETS:
        now = str(values[name])
        mark = "met" if now == target else "not met"
        parts.append(f"{name}: target {target}, today {now} ({mark})")
    return "Targets · " + "; ".join(parts) + "."


def _details(results: Sequence[PartResult]) -> str:
    blocks = [f"**{r.part}**\n\n" + "\n".join(f"- {_md(line)}" for line in r.details) for r in results if r.details]
    return "\n\n".join(blocks) if blocks else "None."


def _count(r: PartResult) -> int:
    return len(r.failures) if r.count is None else r.count


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("`", "'")


def document(results: Sequence[PartResult], command: str, seconds: float) -> str:
    explained = "\n".join(f"- **{name}**: {text}" for name, text in PARTS.items())
    return f"""# Reliability

What `make reliability` measures: the whole tool under transport faults, kills, a full disk, hostile content,
canary credentials and fuzzed receipts. It is not part of `make test`; it measures and asserts nothing. The
numbers below are today's; the harness runs again unchanged after fixes land.

Reproduce (about {seconds / 60:.0f} minutes on two cores; root for part 3):

```
{command}
```

{table(results)}

{closing(results)}

*failures* is the number of findings listed below for the part; *–* means the part does not measure that column.
Run time: {seconds:.0f} s.

## Failures found

At most {DOC_FAILURES} per part; `$TMP` and `$PORT` stand for the run's temporary directory and loopback port.

{failures(results, DOC_FAILURES)}

## Details

{_details(results)}

## What each part does

{explained}
"""
