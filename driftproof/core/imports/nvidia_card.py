"""NVIDIA skill benchmark cards (NVIDIA/skills: a skill's ``BENCHMARK.md``, or the root ``benchmarks.json`` that
collects them, ``schema_version`` 2) → an aggregates-only DECLARED receipt. Pure.

A card prints aggregates only: per dimension and agent, a score and an uplift in per cent. They go into
``source_figures`` exactly as the source printed them (the JSON objects as written; the Markdown cells as text),
beside ``uncertainty_unavailable: "aggregates_only"``. Each dimension × agent is a case with no draw, no score and
no comparison. The uplift's unit is unstated (percentage points or per cent of the baseline), so no baseline is
worked out from it. The repository and commit the files were read at are given by the user and recorded with each
file's git blob sha1; Driftproof records what it read, not who wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from driftproof.core.fields import Refusal, found
from driftproof.core.import_source_sentences import NVIDIA_UNKNOWN
from driftproof.core.imports.common import SourceDoc, Written, declared_receipt, document, empty_arm, source, top_of
from driftproof.core.models import Case, Counts, Lane, Receipt, Run, Suite
from driftproof.core.words import ImportKind, Surface

HARNESS = "nvskills-eval"
WHAT = "an NVIDIA benchmarks.json"
SCHEMA_VERSION = 2
RESULTS_HEADING = "## Results"


def _from_index(doc: SourceDoc, skill: str | None) -> tuple[str, dict[str, Any], list[tuple[str, str]]]:
    """The skill's entry and result rows of ``benchmarks.json``, as written, and its cases (dimension, agent)."""
    top = top_of(doc, ImportKind.NVIDIA_CARD, WHAT, ("schema_version", "skills", "results"))
    if top.count("schema_version") != SCHEMA_VERSION:
        raise top.refuse("schema_version", f"{top.data['schema_version']!r}; this Driftproof reads schema_version 2")
    skills = top.objs("skills")
    names = [s.text("catalog_dir") for s in skills]
    if skill is None:
        raise top.refuse("skills", f"{len(names)} skills in the index; name the one to import with --skill")
    entry = next((s for s in skills if skill in (s.text("catalog_dir"), s.opt_text("skill"))), None)
    if entry is None:
        raise top.refuse("skills", f"{skill!r} is not a skill of this index (catalog_dir or skill)")
    catalog = entry.text("catalog_dir")
    rows = [r for r in top.objs("results") if r.text("catalog_dir") == catalog]
    cases = [(r.text("dimension"), r.text("agent")) for r in rows]
    figures = {"skill": dict(entry.data), "results": [dict(r.data) for r in rows]}
    return entry.opt_text("skill") or catalog, figures, cases


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _from_card(doc: SourceDoc) -> tuple[str | None, dict[str, Any], list[tuple[str, str]]]:
    """The Results table and the summary lines of one ``BENCHMARK.md``, as printed, and its cases."""
    if not isinstance(doc.data, str):
        raise Refusal(doc.name, "(top level)", f"a BENCHMARK.md is Markdown text, found {found(doc.data)}")
    lines = doc.data.splitlines()
    try:
        start = lines.index(RESULTS_HEADING)
    except ValueError:
        raise Refusal(doc.name, RESULTS_HEADING, "missing; a benchmark card prints its results table there") from None
    table = []
    for line in lines[start + 1 :]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            table.append(_cells(line))
    if len(table) < 3 or table[0][:2] != ["Dimension", "Num"]:
        raise Refusal(doc.name, RESULTS_HEADING, "expected a table | Dimension | Num | <agent> … | with a row or more")
    agents = [a.strip("`") for a in table[0][2:]]
    rows, cases = [], []
    for n, row in enumerate(table[2:], 1):
        if len(row) != len(table[0]):
            raise Refusal(doc.name, f"{RESULTS_HEADING} row {n}", f"{len(row)} cells; the header has {len(table[0])}")
        for agent, cell in zip(agents, row[2:], strict=True):
            rows.append({"dimension": row[0], "num": row[1], "agent": agent, "printed": cell})
            cases.append((row[0], agent))
    summary = [ln.removeprefix("- ") for ln in lines if ln.startswith("- ") and ": " in ln][:12]
    skill = next((s.split(": ", 1)[1].strip("`") for s in summary if s.startswith("Skill: ")), None)
    return skill, {"summary": summary, "results": rows}, cases


def import_nvidia_card(
    docs: Sequence[SourceDoc], written: Written, *, repository: str, commit: str, skill: str | None = None
) -> Receipt:
    """One card, or the index with ``skill`` named (or both), as an aggregates-only DECLARED receipt."""
    figures: dict[str, Any] = {}
    cases: list[tuple[str, str]] = []
    name = skill
    for doc in docs:
        if isinstance(doc.data, str):
            found_skill, printed, rows = _from_card(doc)
        else:
            found_skill, printed, rows = _from_index(doc, skill)
        figures[doc.name] = printed
        name = name or found_skill
        cases += [c for c in rows if c not in cases]
    return declared_receipt(
        written,
        harness=HARNESS,
        run=Run(lane=Lane(provider=HARNESS, surface=Surface.NONE)),
        skill=None,
        suite=Suite(format=ImportKind.NVIDIA_CARD, name=name),
        judge=None,
        counts=Counts(),
        cases=[Case(id=f"{d} / {a}", with_skill=empty_arm(), baseline=empty_arm()) for d, a in cases],
        source_record=source(
            HARNESS,
            None,
            [document(d, "card" if isinstance(d.data, str) else "index") for d in docs],
            NVIDIA_UNKNOWN,
            repository=repository,
            commit=commit,
        ),
        source_figures=figures,
    )
