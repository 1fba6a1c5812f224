"""Hostile payloads, each tagged with the field it was put in, and the rules that find them unescaped.

A payload for field tag ``xy`` (two lower-case letters) and number ``n`` holds one of each hostile kind, every
one carrying the tag so a finding names its field::

    xyP|xyP  <b>xyH</b>  <details>xyD  xyC-->  @xymention  #9<n>7  ::error::xyE  ::set-output name=xyO::x
    ESC[31mxyA  xyZ<zero-width>  <bidi override>xyB

A *place* is one (output, field, kind) where the kind reached the output unescaped:

- ``pipe``: ``xyP|xyP`` with a bare ``|`` on a table row (GFM splits cells before it reads code spans);
- ``html``, ``details``, ``comment`` (``-->``), ``mention``, ``issue`` (``#123``): the raw form outside
  inline code and fenced blocks;
- ``workflow``: a line of a log starting with ``::`` that carries a tag, outside ``::stop-commands::``;
- ``ansi`` and ``bidi``: an ESC or a bidi control anywhere;
- ``long line``: a line over `LINE_BOUND` characters (the 1 MB payload is ``xyL`` then ``y`` x 1,000,000).

Zero-width characters are injected but not counted: ``md`` itself writes U+200B to break ``@mentions``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

LINE_BOUND = 10_000
"""Characters a line of any output may hold (a table row, a log line)."""
BIG = 1_000_000
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_BIDI = re.compile(f"[{BIDI}]")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_RULES = {
    "html": re.compile(r"<b>([a-z]{2})H"),
    "details": re.compile(r"<details>([a-z]{2})D"),
    "comment": re.compile(r"([a-z]{2})C-->"),
    "mention": re.compile(r"(?<![\w`\\])@([a-z]{2})mention"),
    "issue": re.compile(r"(?<![\\\w&])#9(\d\d)7(?!\d)"),
}
_PIPE = re.compile(r"([a-z]{2})P\|\1P")
_ANSI = re.compile(r"\x1b\\?\[31m([a-z]{2})A")
_BIDI_TAGGED = re.compile(r"\u202e([a-z]{2})B")
_WORKFLOW = re.compile(r"^\s*::(?:error::([a-z]{2})E|set-output name=([a-z]{2})O::)")
_LONG = re.compile(r"([a-z]{2})Ly{100}")


def payload(tag: str, n: int) -> str:
    """Every hostile kind, tagged ``tag`` (two lower-case letters), with ``n`` (two digits) for ``#9n7``.

    >>> "::error::ciE" in payload("ci", 10).splitlines(), "#9107" in payload("ci", 10), len(big("ci"))
    (True, True, 1000003)
    """
    if not re.fullmatch(r"[a-z]{2}", tag) or not 10 <= n <= 99:
        raise ValueError("a tag is two lower-case letters and n two digits")
    return (
        f"{tag}P|{tag}P <b>{tag}H</b> <details>{tag}D {tag}C--> @{tag}mention #9{n}7"
        f"\n::error::{tag}E\n::set-output name={tag}O::x\n"
        f"\x1b[31m{tag}A\x1b[0m {tag}Z\u200b\u200d\ufeff \u202e{tag}B\u2066"
    )


def big(tag: str) -> str:
    """The 1 MB payload."""
    return f"{tag}L" + "y" * BIG


@dataclass(frozen=True, order=True)
class Place:
    output: str
    field: str
    kind: str


def _markdown_lines(text: str) -> Iterable[tuple[str, str]]:
    """(line, line without inline code) for every line outside fenced code blocks."""
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield line, _CODE_SPAN.sub("", line)


def _field(tag: str | None, fields: Mapping[str, str]) -> str:
    return fields.get(tag or "", f"? ({tag})" if tag else "?")


def scan_markdown(output: str, text: str, fields: Mapping[str, str], numbers: Mapping[str, str]) -> set[Place]:
    """Places in markdown (a report, a summary, a comment, ``view``/``diff`` output)."""
    places: set[Place] = set()
    for line, bare in _markdown_lines(text):
        if line.lstrip().startswith("|"):
            places |= {Place(output, _field(m.group(1), fields), "pipe") for m in _PIPE.finditer(line)}
        for kind, rule in _RULES.items():
            for m in rule.finditer(bare):
                field = numbers.get(m.group(1), "?") if kind == "issue" else _field(m.group(1), fields)
                places.add(Place(output, field, kind))
    return places | scan_anywhere(output, text, fields)


def scan_log(output: str, text: str, fields: Mapping[str, str]) -> set[Place]:
    """Workflow commands a tag put at the start of a log line, outside ``::stop-commands::``."""
    places: set[Place] = set()
    token: str | None = None
    for line in text.split("\n"):
        if token is not None:
            if line == f"::{token}::":
                token = None
            continue
        if line.startswith("::stop-commands::"):
            token = line.removeprefix("::stop-commands::")
            continue
        m = _WORKFLOW.match(line)
        if m:
            places.add(Place(output, _field(m.group(1) or m.group(2), fields), "workflow"))
    return places | scan_anywhere(output, text, fields)


def scan_anywhere(output: str, text: str, fields: Mapping[str, str]) -> set[Place]:
    """ESC, bidi controls and over-long lines, anywhere in any output."""
    places: set[Place] = set()
    if "\x1b" in text:
        tags = {m.group(1) for m in _ANSI.finditer(text)} or {None}
        places |= {Place(output, _field(t, fields), "ansi") for t in tags}
    if _BIDI.search(text):
        tags = {m.group(1) for m in _BIDI_TAGGED.finditer(text)} or {None}
        places |= {Place(output, _field(t, fields), "bidi") for t in tags}
    for line in text.split("\n"):
        if len(line) > LINE_BOUND:
            tags = {m.group(1) for m in _LONG.finditer(line)} or {None}
            places |= {Place(output, _field(t, fields), "long line") for t in tags}
    return places
