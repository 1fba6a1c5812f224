"""The receipt schema: generated from the models, committed, and refusing what the contract refuses."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, get_args

import jsonschema
import pytest
from pydantic import BaseModel

from driftproof.core import models
from driftproof.core.models import SCHEMA_VERSION, Sha256
from driftproof.core.schema import receipt_schema, schema_id
from driftproof.core.seal import sealed
from driftproof.errors import ReceiptError
from driftproof.receipts import check_document, receipt_json, write_receipt
from tests.support.builders import legacy_arm, receipt

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "schemas" / f"receipt-{SCHEMA_VERSION}.schema.json"


def doc_of(r: Any) -> dict[str, Any]:
    return json.loads(receipt_json(r))


@pytest.fixture
def good() -> dict[str, Any]:
    return doc_of(receipt({"a": ([0.5, 0.6, 0.7, None], [0.2, 0.3, 0.4])}))


def test_committed_schema_equals_the_models() -> None:
    committed = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert committed == receipt_schema(), "regenerate: driftproof schema > " + str(SCHEMA_FILE.relative_to(ROOT))


def test_schema_is_valid_draft_2020_12_with_canonical_id() -> None:
    schema = receipt_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == schema_id(SCHEMA_VERSION) == "https://driftproof.dev/spec/receipt-0.17.schema.json"


@pytest.mark.parametrize(
    "made",
    [
        receipt({"a": ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])}),
        receipt({"a": ([0.5, None, 0.7], [None, None])}, verification="UNVERIFIED"),
        receipt({"a": ([0.5, 0.6], [0.2, 0.3])}, verification="UNVERIFIED", preset="quick"),
        receipt({"a": (legacy_arm([0.5, 0.6]), legacy_arm([0.2, 0.3]))}, skill_chars=None),
    ],
)
def test_every_receipt_the_models_write_validates(made: Any, tmp_path: Path) -> None:
    doc = doc_of(made)
    jsonschema.Draft202012Validator(receipt_schema()).validate(doc)  # the pure-Python validator agrees
    check_document(doc, "made")
    write_receipt(made, tmp_path / "r.json")


def refuse(doc: dict[str, Any], match: str) -> None:
    with pytest.raises(ReceiptError, match=match):
        check_document(sealed(doc), "r.json")


def test_schema_refuses_preset_that_reads_tested(good: dict[str, Any]) -> None:
    doc = copy.deepcopy(good)
    doc["run"]["preset"] = "quick"
    refuse(doc, f"schema {SCHEMA_VERSION}")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, receipt_schema())


def test_schema_refuses_formal(good: dict[str, Any]) -> None:
    refuse({**good, "verification": "FORMAL"}, "FORMAL is reserved")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "verification": "FORMAL"}, receipt_schema())


def test_schema_refuses_unknown_schema_version(good: dict[str, Any]) -> None:
    refuse({**good, "schema_version": "9.0"}, "schema_version: '9.0' is not one this Driftproof reads")


def test_schema_refuses_missing_seal(good: dict[str, Any]) -> None:
    doc = {k: v for k, v in good.items() if k != "seal"}
    with pytest.raises(ReceiptError, match="seal"):
        check_document(doc, "r.json")
    with pytest.raises(jsonschema.ValidationError, match="seal"):
        jsonschema.validate(doc, receipt_schema())


def test_schema_refuses_a_draw_both_lost_and_scored(good: dict[str, Any]) -> None:
    doc = copy.deepcopy(good)
    lost = doc["cases"][0]["with_skill"]["draws"][3]
    assert lost["status"] == "lost"
    lost["score"] = 0.5
    refuse(doc, "draws/3")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, receipt_schema())


def test_schema_refuses_a_measured_draw_without_score(good: dict[str, Any]) -> None:
    doc = copy.deepcopy(good)
    doc["cases"][0]["with_skill"]["draws"][0]["score"] = None
    refuse(doc, "draws/0")


def test_schema_refuses_unknown_keys(good: dict[str, Any]) -> None:
    refuse({**good, "surprise": 1}, "surprise")


def test_counts_unknown_stay_null_never_one(good: dict[str, Any]) -> None:
    assert good["counts"] == {
        "draws_per_arm_min": None,
        "draws_per_arm_max": None,
        "judge_samples_per_draw": None,
    }


FIXTURES = ROOT / "tests" / "fixtures"


def test_a_receipt_written_at_0_13_reads_against_its_own_frozen_schema() -> None:
    # written by the 0.13 writer (commit 007dc49) from the bundled example on the stub lane
    from driftproof.receipts import load_receipt

    older = load_receipt(FIXTURES / "receipt-0.13.json")
    assert older.schema_version == "0.13"
    assert [c.id for c in older.cases] == ["subject-line", "why-not-what", "retry-429"]
    doc = json.loads((FIXTURES / "receipt-0.13.json").read_text(encoding="utf-8"))
    assert "notices" not in doc["suite"]  # a 0.13 field set: the 0.14 schema would refuse its version
    with pytest.raises(ReceiptError, match=r"schema 0\.13"):
        check_document(sealed({**doc, "surprise": 1}), "old.json")  # checked against the frozen 0.13 file


def test_a_receipt_written_at_0_14_reads_against_its_own_frozen_schema() -> None:
    from driftproof.receipts import load_receipt

    older = load_receipt(FIXTURES / "receipt-0.14.json")  # written by the 0.14 writer (issue 8)
    assert older.schema_version == "0.14" and older.cases[0].stop_reason is None
    doc = json.loads((FIXTURES / "receipt-0.14.json").read_text(encoding="utf-8"))
    assert "stop_reason" not in doc["cases"][0] and "notices" in doc["suite"]


def test_a_receipt_written_at_0_15_reads_against_its_own_frozen_schema() -> None:
    from driftproof.receipts import load_receipt

    older = load_receipt(FIXTURES / "receipt-0.15.json")  # written by the 0.15 writer (e2129f3), stub lane
    assert older.schema_version == "0.15" and older.judge is not None
    doc = json.loads((FIXTURES / "receipt-0.15.json").read_text(encoding="utf-8"))
    with pytest.raises(ReceiptError, match=r"schema 0\.15"):
        check_document(sealed({**doc, "surprise": 1}), "old.json")  # checked against the frozen 0.15 file


def test_a_receipt_written_at_0_16_reads_against_its_own_frozen_schema() -> None:
    from driftproof.receipts import load_receipt

    older = load_receipt(FIXTURES / "receipt-0.16.json")  # written by the 0.16 writer (ae57dc4), stub lane
    assert older.schema_version == "0.16" and older.judge is not None
    doc = json.loads((FIXTURES / "receipt-0.16.json").read_text(encoding="utf-8"))
    with pytest.raises(ReceiptError, match=r"schema 0\.16"):
        check_document(sealed({**doc, "surprise": 1}), "old.json")  # checked against the frozen 0.16 file


def test_the_current_schema_accepts_only_the_current_version(good: dict[str, Any]) -> None:
    refuse({**good, "schema_version": "0.13"}, r"schema 0\.13")  # a 0.17 document is not a 0.13 one
    assert receipt_schema()["properties"]["schema_version"]["const"] == SCHEMA_VERSION


#: What a bare ``Sha256`` field inherits from its type: it names the format, not what the field holds.
TYPE_ONLY = get_args(Sha256)[1].description


def _undescribed(schema: dict[str, Any]) -> list[str]:
    """Every property, at the top level and in each of ``$defs``, with no description of its own."""
    objects = {"Receipt": schema, **schema["$defs"]}
    return [
        f"{name}.{key}"
        for name, obj in objects.items()
        for key, prop in obj.get("properties", {}).items()
        if not str(prop.get("description", "")).strip() or prop.get("description") == TYPE_ONLY
    ]


def test_every_field_of_every_receipt_object_is_described() -> None:
    schema = receipt_schema()
    walked = {"Receipt", *(name for name, d in schema["$defs"].items() if "properties" in d)}
    from driftproof.core import (
        budget_model,
        canary_models,
        neighbour_model,
        pairwise_models,
        placebo_model,
        provenance,
        shard_models,
        usage_model,
    )

    defined = {
        name
        for module in (
            models,
            provenance,
            shard_models,
            budget_model,
            placebo_model,
            canary_models,
            neighbour_model,
            pairwise_models,
            usage_model,
        )
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == module.__name__
    }
    # the walk reaches every model of core/models.py, core/provenance.py, core/shard_models.py: not just the top level
    assert walked == defined
    assert _undescribed(schema) == []


def _receipt_at(version: str, tmp_path: Path) -> Path:
    """A receipt file at ``version``: the frozen fixture an older writer wrote, or one written today."""
    if version == SCHEMA_VERSION:
        path = tmp_path / "current.json"
        write_receipt(receipt({"a": ([0.5, 0.6, 0.7], [0.2, 0.3, 0.4])}), path)
        return path
    return FIXTURES / f"receipt-{version}.json"


@pytest.mark.parametrize("version", models.READABLE_VERSIONS)
def test_each_version_written_ships_its_schema_and_reads_against_it_alone(version: str, tmp_path: Path) -> None:
    from driftproof.receipts import load_receipt
    from driftproof.resources import known_schema_versions, schema_file

    assert known_schema_versions() == list(models.READABLE_VERSIONS) == ["0.13", "0.14", "0.15", "0.16", "0.17"]
    schema = json.loads(schema_file(version).read_text(encoding="utf-8"))
    assert schema["$id"] == schema_id(version)
    path = _receipt_at(version, tmp_path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert load_receipt(path).schema_version == doc["schema_version"] == version
    jsonschema.Draft202012Validator(schema).validate(doc)  # its own schema accepts it
    for other in models.READABLE_VERSIONS:  # every other version's schema names another version
        if other != version:
            other_schema = json.loads(schema_file(other).read_text(encoding="utf-8"))
            assert not jsonschema.Draft202012Validator(other_schema).is_valid(doc)
    # the reader picks the schema the document names: a key no schema defines is refused under that version
    with pytest.raises(ReceiptError, match=rf"^old\.json: schema {re.escape(version)}: at \(top level\)"):
        check_document(sealed({**doc, "surprise": 1}), "old.json")
