"""The reliability harness's own judges (benchmarks/reliability/): the hostile-content scanner, the canary leak
finder, the fuzz oracle and verdict, and each module's doctests. The harness itself runs only under
``make reliability``; these tests start no server and no subprocess.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

from benchmarks.reliability.canary_scan import find_leaks, make_canaries, without_mask_lines
from benchmarks.reliability.fuzz import verdict
from benchmarks.reliability.fuzz_cases import Mutation, Op, bases, canonical_sha256, oracle, render
from benchmarks.reliability.hostile_scan import LINE_BOUND, Place, big, payload, scan_log, scan_markdown

FIELDS = {"ci": "case id"}
NUMBERS = {"10": "case id"}


@pytest.mark.parametrize(
    "module",
    ["common", "canary_scan", "hostile_scan", "transport"],
)
def test_doctests_of_the_harness_pass(module: str) -> None:
    found = doctest.testmod(importlib.import_module(f"benchmarks.reliability.{module}"))
    assert found.failed == 0 and found.attempted > 0


def test_raw_payload_on_a_table_row_is_found_for_every_kind() -> None:
    text = "| id | x |\n|---|---|\n| " + payload("ci", 10).replace("\n", " ") + " | 1 |\n"
    kinds = {p.kind for p in scan_markdown("out", text, FIELDS, NUMBERS)}
    assert kinds == {"pipe", "html", "details", "comment", "mention", "issue", "ansi", "bidi"}


def test_escaped_payload_inside_code_is_not_counted() -> None:
    # what md()/code() aim at: ESC and bidi dropped, '|' escaped, the rest inside a code span
    escaped = "`ciP\\|ciP <b>ciH</b> <details>ciD ciC--> @\u200bcimention #9107`"
    assert scan_markdown("out", f"| {escaped} | 1 |\n", FIELDS, NUMBERS) == set()


def test_a_long_line_is_attributed_to_its_field() -> None:
    places = scan_markdown("out", f"- {big('ci')}\n", FIELDS, NUMBERS)
    assert places == {Place("out", "case id", "long line")}
    assert len(big("ci")) > LINE_BOUND


def test_workflow_commands_count_only_outside_stop_commands() -> None:
    log = "::stop-commands::tok\n::error::ciE\n::tok::\n::set-output name=ciO::x\n"
    assert scan_log("log", log, FIELDS) == {Place("log", "case id", "workflow")}


def test_a_canary_cut_at_300_characters_still_leaks_its_prefix() -> None:
    canaries = make_canaries(1)
    key = canaries["ANTHROPIC_API_KEY"]
    assert not key.startswith("sk-") and len(key) == 40
    leaks = find_leaks("x" * 290 + key[:9] + "…", canaries)
    assert [(leak.name, len(leak.text)) for leak in leaks] == [("ANTHROPIC_API_KEY", 9)]
    assert find_leaks(key[:7] + " *** " + key[20:27], canaries) == []  # 7 characters in a row: not a leak


def test_mask_lines_are_left_out_of_the_log() -> None:
    assert without_mask_lines("::add-mask::secret\nhello") == "hello"


def test_the_oracle_accepts_each_base_and_refuses_a_broken_seal() -> None:
    for name in bases():
        assert oracle(render(Mutation(name, (), reseal=False)), restamped_smoke=False) is None
    tampered = Mutation("tested-0.15", (Op("set", ("tool", "version"), "tampered"),), reseal=False)
    assert oracle(render(tampered), restamped_smoke=False) == "the seal does not match"
    resealed = Mutation("tested-0.15", (Op("set", ("tool", "version"), "tampered"),), reseal=True)
    assert oracle(render(resealed), restamped_smoke=False) is None


def test_the_oracle_seal_is_the_receipt_spec_one() -> None:
    doc = bases()["tested-0.15"]
    assert doc["seal"]["sha256"] == canonical_sha256(doc)


def test_a_refusal_must_be_one_short_line() -> None:
    data = b"not json"
    assert verdict("validate", data, 2, "", "driftproof: error: m.json: not valid JSON\n") is None
    two = verdict("validate", data, 2, "", "driftproof: error: key 'a\rb' was unexpected\n")
    assert two is not None and two[0] == "refusal not one error line"
    long = verdict("view", data, 2, "", "driftproof: error: " + "z" * 1000 + "\n")
    assert long is not None and long[0] == "error line over 1,000 chars"
    accepted = verdict("badge", data, 0, "{}", "")
    assert accepted is not None and accepted[0].startswith("accepted a receipt")
    crashed = verdict("diff", data, KeyError("x"), "", "")
    assert crashed is not None and crashed[0] == "traceback KeyError"
