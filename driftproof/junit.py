"""``--junit FILE`` on ``run`` and ``diff``: the JUnit XML report of `driftproof.core.junit`, written atomically.

The XML is the common JUnit shape CI test reporters read (GitHub's test reporters such as dorny/test-reporter
and mikepenz/action-junit-report, GitLab, Jenkins): ``<testsuites>`` holding one ``<testsuite>`` with its
``tests``, ``failures``, ``errors`` and ``skipped`` counts, and a ``<testcase classname= name=>`` per suite case,
carrying ``<failure message=...>`` or ``<skipped message=...>``. The target is checked before any model call, as
every output is (`driftproof.targets`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from driftproof.atomic import write_bytes
from driftproof.core.diff import DiffResult
from driftproof.core.junit import JUnitReport, Result, diff_report, run_report
from driftproof.core.models import Receipt
from driftproof.core.reading import read_receipt
from driftproof.markdown import band_text
from driftproof.safe_text import printable


def _text(value: str) -> str:
    """Text safe in XML 1.0: control characters (which XML cannot hold) and bidi controls made visible."""
    return printable(value)


def junit_xml(report: JUnitReport) -> bytes:
    """The report as UTF-8 XML with its declaration.

    >>> from driftproof.core.junit import JUnitCase
    >>> print(junit_xml(JUnitReport("s", (JUnitCase("s", "a", Result.SKIPPED, "why"),))).decode())
    <?xml version='1.0' encoding='utf-8'?>
    <testsuites name="driftproof" tests="1" failures="0" errors="0" skipped="1">
      <testsuite name="s" tests="1" failures="0" errors="0" skipped="1">
        <testcase classname="s" name="a">
          <skipped message="why" />
        </testcase>
      </testsuite>
    </testsuites>
    <BLANKLINE>
    """
    counts = {
        "tests": str(report.tests),
        "failures": str(report.failures),
        "errors": "0",
        "skipped": str(report.skipped),
    }
    root = ET.Element("testsuites", {"name": "driftproof", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": _text(report.name), **counts})
    for case in report.cases:
        element = ET.SubElement(suite, "testcase", {"classname": _text(case.classname), "name": _text(case.name)})
        if case.result != Result.PASSED:
            child = ET.SubElement(element, str(case.result), {"message": _text(case.message or "")})
            if case.result == Result.FAILURE:
                child.set("type", "regressed")
                child.text = _text(case.message or "")
    ET.indent(root)
    text: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return text + b"\n"


def write_junit(report: JUnitReport, path: Path) -> Path:
    """Write the report's XML to ``path`` atomically; return the path."""
    write_bytes(path, junit_xml(report))
    return path


def write_run_junit(receipt: Receipt, path: Path) -> Path:
    """``run --junit FILE``: the receipt's cases, with the skill against without it."""
    return write_junit(run_report(read_receipt(receipt), receipt.suite.name or "", band_text), path)


def write_diff_junit(result: DiffResult, after: Receipt, path: Path, labels: tuple[str, str]) -> Path:
    """``diff --junit FILE``: AFTER's with-skill arms against BEFORE's, case by case."""
    return write_junit(diff_report(result, after.suite.name or "", band_text, labels), path)
