"""Workflow commands, environment files, comment and summary limits, redaction."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from driftproof.action.workflow import (
    COMMENT_LIMIT,
    SUMMARY_LIMIT_BYTES,
    add_mask,
    append_summary,
    error,
    notice,
    secret_values,
    stop_commands,
    truncate_comment,
    warning,
    write_outputs,
)
from driftproof.credentials import redact

DELIMITER = re.compile(r"ghadelimiter_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse_github_output(text: str) -> dict[str, str]:
    """Read an env file the way the runner does: ``name=value`` lines and ``name<<DELIM`` blocks."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            while lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            i += 1
            outputs[name] = "\n".join(value)
        else:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs


# --- GITHUB_OUTPUT -------------------------------------------------------------------------------


def test_outputs_round_trip_through_the_runner_format(tmp_path: Path) -> None:
    out = tmp_path / "output"
    values = {
        "status": "regressed",
        "lift": "+0.087",
        "report": "line one\nline two\n\nline = four <<EOF",
        "draws-needed": "",
        "badge": "ünïcödé · ✓",
    }

    write_outputs(out, values)
    write_outputs(out, {"improved": "2"})

    text = out.read_text(encoding="utf-8")
    assert parse_github_output(text) == {**values, "improved": "2"}
    headers = [line for line in text.split("\n") if "<<" in line and line.split("<<")[0] in values]
    assert len(headers) == len(values)
    assert all(DELIMITER.fullmatch(h.split("<<", 1)[1]) for h in headers)
    assert len({h.split("<<", 1)[1] for h in headers}) == len(headers)  # one fresh delimiter each


@pytest.mark.parametrize("name", ["", "a=b", "two\nlines", "x<<y"])
def test_output_names_that_would_corrupt_the_file_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="cannot write output"):
        write_outputs(tmp_path / "output", {name: "v"})
    assert not (tmp_path / "output").exists()


# --- annotations ---------------------------------------------------------------------------------


def test_notice_escapes_message_and_properties() -> None:
    stream = io.StringIO()

    notice("100% done\r\nnext\x1b[2K", title="Fork PR: no secrets, skipped", stream=stream)

    # a carriage return becomes a newline (it cannot overwrite the line); ESC is removed
    assert stream.getvalue() == "::notice title=Fork PR%3A no secrets%2C skipped::100%25 done%0Anext[2K\n"


def test_error_carries_file_and_line() -> None:
    stream = io.StringIO()

    error("suite invalid", file="evals/suite,v2.yaml", line=12, title="Driftproof", stream=stream)

    assert stream.getvalue() == "::error file=evals/suite%2Cv2.yaml,line=12,title=Driftproof::suite invalid\n"


def test_warning_without_properties() -> None:
    stream = io.StringIO()

    warning("comment not posted", stream=stream)

    assert stream.getvalue() == "::warning::comment not posted\n"


def test_add_mask_masks_the_value_and_each_line() -> None:
    stream = io.StringIO()

    add_mask("-----BEGIN KEY-----\nabc%def\n", stream=stream)
    add_mask("", stream=stream)

    assert stream.getvalue().splitlines() == [
        "::add-mask::-----BEGIN KEY-----%0Aabc%25def%0A",
        "::add-mask::-----BEGIN KEY-----",
        "::add-mask::abc%25def",
    ]


def test_stop_commands_wraps_output_between_a_random_token() -> None:
    stream = io.StringIO()

    with stop_commands(stream=stream) as token:
        stream.write("::set-output name=status::passing\n")
    with stop_commands(stream=stream) as other:
        pass

    assert re.fullmatch(r"[0-9a-f]{32}", token)
    assert token != other
    assert stream.getvalue().splitlines()[:3] == [
        f"::stop-commands::{token}",
        "::set-output name=status::passing",
        f"::{token}::",
    ]


def test_stop_commands_resumes_even_when_the_body_raises() -> None:
    stream = io.StringIO()

    with pytest.raises(RuntimeError), stop_commands(stream=stream) as token:
        raise RuntimeError("boom")

    assert stream.getvalue().endswith(f"::{token}::\n")


# --- redaction -----------------------------------------------------------------------------------


def test_redact_replaces_every_secret_longest_first() -> None:
    text = "key sk-ant-12345 then sk-ant-12345-long and abc and ghs_tok."

    # "abc" is too short to redact safely; "ghs_tok\n" came from a file with its newline.
    redacted = redact(text, ["sk-ant-12345", "sk-ant-12345-long", "abc", "", "ghs_tok\n"])

    assert redacted == "key [REDACTED] then [REDACTED] and abc and [REDACTED]."


def test_secret_values_reads_keys_and_the_token_once_each() -> None:
    environ = {
        "ANTHROPIC_API_KEY": "sk-ant-1",
        "OPENAI_API_KEY": "",
        "INPUT_GITHUB-TOKEN": "ghs_x",
        "GITHUB_TOKEN": "ghs_x",
        "CODEX_API_KEY": "  ",
        "HOME": "/github/home",
    }

    assert secret_values(environ) == ["sk-ant-1", "ghs_x"]


# --- comment and summary limits ------------------------------------------------------------------


def test_truncate_comment_leaves_short_bodies_alone() -> None:
    body = "x" * COMMENT_LIMIT
    assert truncate_comment(body) is body


def test_truncate_comment_cuts_at_a_line_and_closes_open_blocks() -> None:
    body = "# Report\n<details><summary>all</summary>\n\n```text\n" + "a line of output\n" * 10_000

    cut = truncate_comment(body)

    assert len(cut) <= COMMENT_LIMIT
    assert cut.startswith("# Report\n<details>")
    kept = cut.split("\n```\n</details>")[0]
    assert kept.endswith("a line of output")  # cut at a line end, never mid-line
    assert cut.count("```") % 2 == 0
    assert cut.count("<details") == cut.count("</details>")
    assert cut.endswith("The full report is in the job summary and the report file.\n")


def test_truncate_comment_respects_a_small_limit() -> None:
    cut = truncate_comment("word " * 200, limit=300)
    assert len(cut) <= 300
    assert "cut to fit" in cut


def test_summary_appends_under_the_cap(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"

    assert append_summary(summary, "## One\n") is False
    assert append_summary(summary, "## Two\n") is False

    assert summary.read_text(encoding="utf-8") == "## One\n## Two\n"


def test_summary_is_cut_at_1_mib_with_a_note(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step text\n", encoding="utf-8")

    truncated = append_summary(summary, "é" * SUMMARY_LIMIT_BYTES)  # 2 bytes each

    data = summary.read_bytes()
    assert truncated is True
    assert len(data) <= SUMMARY_LIMIT_BYTES
    text = data.decode("utf-8")  # never cut inside a multi-byte character
    assert text.startswith("earlier step text\néé")
    assert text.rstrip().endswith("The full report is in the report file.")
