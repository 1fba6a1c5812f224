"""The shard rules (issue 14): the split of ``--shard INDEX/COUNT`` and what ``driftproof merge`` accepts.

Hypothesis properties: any split covers every case exactly once, in shards whose sizes differ by at most one,
decided by the case ids alone; any split of a receipt merges back to the same cases; leaving out any shard
names a case it held.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from driftproof.core.models import Receipt, Tool
from driftproof.core.reading import read_receipt
from driftproof.core.seal import seal_receipt
from driftproof.core.shards import (
    ShardSpec,
    merge_refusal,
    merged_body,
    parse_shard,
    shard_cases,
    shard_of,
    shard_record,
)
from driftproof.core.words import Status
from tests.support.builders import receipt, reseal

ids_strategy = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=25, unique=True)
TOOL = Tool(name="driftproof", version="test")


@given(ids=ids_strategy, data=st.data())
def test_any_split_covers_every_case_once_in_even_shards(ids: list[str], data: st.DataObject) -> None:
    count = data.draw(st.integers(min_value=1, max_value=len(ids)))
    parts = [shard_cases(ids, ShardSpec(i, count)) for i in range(1, count + 1)]
    assert sorted(c for p in parts for c in p) == sorted(ids)  # every case exactly once
    assert max(map(len, parts)) - min(map(len, parts)) <= 1 and min(map(len, parts)) >= 1
    shuffled = data.draw(st.permutations(ids))
    assert shard_of(shuffled, count) == shard_of(ids, count)  # the ids decide, not their order in the file
    assert all(p == [c for c in ids if c in set(p)] for p in parts)  # each shard keeps suite order


def test_the_split_of_five_cases_by_hand() -> None:
    # sha256: d 18ac…, c 2e7d…, b 3e23…, e 3f79…, a ca97…; dealt in turn to 2 and to 3 shards
    ids = ["a", "b", "c", "d", "e"]
    assert [shard_cases(ids, ShardSpec(i, 2)) for i in (1, 2)] == [["a", "b", "d"], ["c", "e"]]
    assert [shard_cases(ids, ShardSpec(i, 3)) for i in (1, 2, 3)] == [["d", "e"], ["a", "c"], ["b"]]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1/1", None),
        ("2/3", None),
        ("10/10", None),
        # exactly two whole numbers: no space around them, no leading zero or sign
        (" 2/3 ", "' 2/3 ' is not INDEX/COUNT"),
        ("1/3 ", "'1/3 ' is not INDEX/COUNT"),
        ("1 / 3", "'1 / 3' is not INDEX/COUNT"),
        ("01/03", "'01/03' is not INDEX/COUNT"),
        ("1/03", "'1/03' is not INDEX/COUNT"),
        ("+1/3", "'+1/3' is not INDEX/COUNT"),
        ("0/3", "'0/3': INDEX must be from 1 to COUNT (3)"),
        ("0/1", "'0/1': INDEX must be from 1 to COUNT (1)"),
        ("2/1", "'2/1': INDEX must be from 1 to COUNT (1)"),
        ("1/0", "'1/0': COUNT must be from 1 to 10"),
        ("1/11", "'1/11': COUNT must be from 1 to 10"),
        ("-1/2", "'-1/2' is not INDEX/COUNT"),
        ("1/²", "'1/²' is not INDEX/COUNT"),
        ("1.0/2", "'1.0/2' is not INDEX/COUNT"),
        ("", "'' is not INDEX/COUNT"),
    ],
)
def test_parse_shard(text: str, reason: str | None) -> None:
    if reason is None:
        assert parse_shard(text, 10) == ShardSpec(*map(int, text.split("/")))
        return
    with pytest.raises(ValueError, match="^" + re.escape(reason)):
        parse_shard(text, 10)


def test_more_shards_than_cases_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^COUNT \(3\) is more than the suite's 2 cases"):
        shard_cases(["a", "b"], ShardSpec(1, 3))


def whole(n: int) -> Receipt:
    # case-i: with_skill 0.8, 0.85; baseline 0.5, 0.55 + i/100, so each case's figures are its own
    return receipt({f"case-{i}": ([0.8, 0.85], [0.5, 0.55 + i / 100]) for i in range(n)})


def split(r: Receipt, count: int) -> list[Receipt]:
    ids = [c.id for c in r.cases]
    shards = []
    for index in range(1, count + 1):
        record = shard_record(ids, ShardSpec(index, count))

        def edit(body: dict[str, Any], record: Any = record) -> None:
            body["run"]["shard"] = record.model_dump(mode="json")
            body["cases"] = [c for c in body["cases"] if c["id"] in record.case_ids]

        shards.append(reseal(r, edit))
    return shards


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=1, max_value=8), data=st.data())
def test_any_split_merges_to_the_same_cases(n: int, data: st.DataObject) -> None:
    r = whole(n)
    count = data.draw(st.integers(min_value=1, max_value=n))
    shards = split(r, count)
    order = data.draw(st.permutations(range(count)))
    named = [(f"s{i + 1}.json", shards[i]) for i in order]
    assert merge_refusal(named) is None
    merged = seal_receipt(merged_body([s for _, s in named], TOOL, "2026-01-01T00:00:00Z"))
    assert merged.cases == r.cases
    assert [s.index for s in merged.shards or []] == list(range(1, count + 1))
    assert read_receipt(merged).status == read_receipt(r).status != Status.NO_VERDICT  # a verdict again
    if count > 1:
        left_out = data.draw(st.sampled_from(order))
        kept = [x for x in named if x[0] != f"s{left_out + 1}.json"]
        refusal = merge_refusal(kept)
        assert refusal is not None and "run.shard.suite_case_ids: case " in refusal
        assert f"(it falls in shard {left_out + 1}/{count}: add that shard's receipt)" in refusal


def test_merged_level_is_the_lowest_shards_and_sums_are_sums() -> None:
    r = whole(4)
    one, two = split(r, 2)

    def lower(body: dict[str, Any]) -> None:
        body["verification"], body["verification_reason"] = "UNVERIFIED", "a judge sample reported another judge"
        body["run"]["logical_calls"], body["run"]["endpoint_attempts"] = 24, 30
        body["economics"]["judge_overhead"]["judged_draws_counted"] = 8

    def counted(body: dict[str, Any]) -> None:
        body["run"]["logical_calls"], body["run"]["endpoint_attempts"] = 24, 25
        body["economics"]["judge_overhead"]["judged_draws_counted"] = 7

    two, one = reseal(two, lower), reseal(one, counted)
    body = merged_body([two, one], TOOL, "2026-01-01T00:00:00Z")
    assert body["verification"] == "UNVERIFIED"
    assert body["verification_reason"] == "a judge sample reported another judge"
    assert (body["run"].logical_calls, body["run"].endpoint_attempts) == (48, 55)  # 24 + 24, 25 + 30
    assert body["economics"].judge_overhead.judged_draws_counted == 15  # 7 + 8
    assert [s.verification for s in body["shards"]] == ["TESTED", "UNVERIFIED"]


def test_a_shard_receipt_reads_no_verdict_and_says_which_shard() -> None:
    shard = split(whole(5), 2)[1]
    reading = read_receipt(shard)
    assert reading.status == Status.NO_VERDICT
    assert reading.no_verdict_reason == (
        "shard 2/2: 2 of the suite's 5 cases, not the suite, so no suite-level verdict; merge every shard's "
        "receipt (driftproof merge) for one"
    )
    assert all(c.verdict is None for c in reading.cases)


def test_merge_refusal_names_a_count_mismatch_before_a_missing_case() -> None:
    r = whole(3)
    a = split(r, 3)[0]
    b = split(r, 2)[1]
    refusal = merge_refusal([("a.json", a), ("b.json", b)])
    assert refusal == (
        "b.json: run.shard.count: differs from the first shard's: 3 in a.json, 2 here; every shard must be run "
        "with the same settings"
    )


# -- run.settings: every field compared (budget's given part), the budget kept and its spend summed -------------

BUDGET = {"tokens": 60000, "usd": None, "max_tokens": 2048, "committed_tokens": 40000, "stopped_cases": 0}
OTHER_SETTING: dict[str, Any] = {
    "draws_min": 9,
    "draws_max": 9,
    "judge_samples": 9,
    "stopping_rule": "settle-v2(min=9)",
    "concurrency": 9,
    "timeout_s": 9.5,
    "max_retries": 9,
    "delivery": "discover",
    "max_consecutive_failures": 9,
    "reference_sha256": "f" * 64,
    "as_reference": True,
    "budget": BUDGET,
}
"""A value of every run.settings field other than the builder's: a field added to RunSettings must be added here."""


def with_settings(shard: Receipt, **settings: Any) -> Receipt:
    def edit(body: dict[str, Any]) -> None:
        body["run"]["settings"].update(settings)

    return reseal(shard, edit)


def test_the_table_names_every_run_settings_field() -> None:
    from driftproof.core.models import RunSettings

    assert sorted(OTHER_SETTING) == sorted(RunSettings.model_fields)


@pytest.mark.parametrize("name", sorted(OTHER_SETTING))
def test_merge_refuses_shards_that_differ_in_any_run_settings_field(name: str) -> None:
    one, two = split(whole(4), 2)
    odd = with_settings(two, **{name: OTHER_SETTING[name]})
    refusal = merge_refusal([("a.json", one), ("b.json", odd)])
    assert refusal is not None and refusal.startswith(f"b.json: run.settings.{name}"), refusal


def test_merge_refuses_a_shard_run_with_another_budget_in_any_position() -> None:
    one, two = split(whole(4), 2)
    tight = with_settings(two, budget=BUDGET)
    for named in ([("a.json", one), ("b.json", tight)], [("b.json", tight), ("a.json", one)]):
        refusal = merge_refusal(named)
        assert refusal is not None and refusal.startswith(f"{named[1][0]}: run.settings.budget"), refusal
    looser = with_settings(two, budget={**BUDGET, "tokens": 70000})
    refusal = merge_refusal([("a.json", with_settings(one, budget=BUDGET)), ("b.json", looser)])
    assert refusal is not None and refusal.startswith("b.json: run.settings.budget"), refusal


def test_merged_receipt_keeps_the_shards_budget_and_sums_what_each_committed() -> None:
    one, two = split(whole(4), 2)
    one = with_settings(one, budget={**BUDGET, "committed_tokens": 40000, "committed_usd": 0.25})
    two = with_settings(
        two,
        budget={
            **BUDGET,
            "committed_tokens": 50000,
            "committed_usd": 0.5,
            "stopped_cases": 2,
            "needed_tokens": 70000,
            "needed_usd": 0.75,
        },
    )
    assert merge_refusal([("a.json", one), ("b.json", two)]) is None  # what each spent may differ
    budget = seal_receipt(merged_body([two, one], TOOL, "2026-01-01T00:00:00Z")).run.settings.budget
    assert budget is not None
    assert (budget.tokens, budget.usd, budget.max_tokens) == (60000, None, 2048)  # each shard's budget, kept
    assert budget.committed_tokens == 90000  # 40000 + 50000
    assert budget.committed_usd == 0.75  # 0.25 + 0.5
    assert budget.stopped_cases == 2  # 0 + 2
    # shard 1 refused nothing: what it needed is what it committed, 40000 + 70000; $0.25 + $0.75
    assert (budget.needed_tokens, budget.needed_usd) == (110000, 1.0)
    assert budget.canaries_tokens is None


def test_merged_receipt_of_shards_without_a_budget_has_none() -> None:
    one, two = split(whole(4), 2)
    assert seal_receipt(merged_body([one, two], TOOL, "2026-01-01T00:00:00Z")).run.settings.budget is None


# -- a refusal shows what differs: the field that differs, in full or by its first 12 digits -------------------


def test_a_refusal_shows_both_stopping_rules_in_full() -> None:
    rule = "settle-v2(min=3,max=10,step=1,alpha_sep=0.05,alpha_ovl=0.1,floor=0.05,resolve=yes,call_min=7)"
    one, two = split(whole(4), 2)
    one, two = with_settings(one, stopping_rule=rule), with_settings(two, stopping_rule=rule.replace("=10", "=12"))
    assert merge_refusal([("a.json", one), ("b.json", two)]) == (
        f"b.json: run.settings.stopping_rule: differs from the first shard's: '{rule}' in a.json, "
        f"'{rule.replace('=10', '=12')}' here; every shard must be run with the same settings"
    )


def test_a_refusal_shows_a_hash_by_its_first_12_digits() -> None:
    one, two = split(whole(4), 2)

    def suite(sha: str) -> Any:
        return lambda body: body["suite"].update(sha256=sha)

    one, two = reseal(one, suite("90e84263ac8a" + "0" * 52)), reseal(two, suite("09fcb8d86369" + "1" * 52))
    assert merge_refusal([("a.json", one), ("b.json", two)]) == (
        "b.json: suite.sha256: differs from the first shard's: 90e84263ac8a in a.json, 09fcb8d86369 here; every "
        "shard must be run with the same settings"
    )


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda b: b["judge"].update(model_requested="judge-2"),
            "judge.model_requested: differs from the first shard's: 'judge-1' in a.json, 'judge-2' here",
        ),
        (
            lambda b: b["judge"].update(pairwise={"template_version": "pairwise-v1", "template_sha256": "e" * 64}),
            "judge.pairwise: differs from the first shard's: null in a.json, "
            '{"template_sha256":"eeeeeeeeeeee","template_version":"pairwise-v1"} here',
        ),
        (
            lambda b: b["run"]["lane"].update(model_requested="model-2"),
            "run.lane.model_requested: differs from the first shard's: 'model-1' in a.json, 'model-2' here",
        ),
    ],
)
def test_a_refusal_of_a_mapping_names_the_dotted_field_that_differs(edit: Any, expected: str) -> None:
    one, two = split(whole(4), 2)
    refusal = merge_refusal([("a.json", one), ("b.json", reseal(two, edit))])
    assert refusal is not None and refusal.startswith(f"b.json: {expected}; "), refusal
