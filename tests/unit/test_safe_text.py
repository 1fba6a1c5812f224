"""What may be shown of text someone else wrote (``driftproof.safe_text``)."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from driftproof.markdown import code, md
from driftproof.safe_text import _HIDDEN, SHOWN_CHARS, clip_lines, one_line, printable


def test_the_hidden_class_is_exactly_the_control_and_format_characters() -> None:
    # Every code point of Unicode: Cc but \t \n \r, and Cf, and nothing else. Fails when Python's Unicode
    # database (unicodedata.unidata_version) adds a format character the class does not list. The class
    # follows Unicode 15.1; Python 3.11 has 14.0, where U+13439..U+1343F were not yet assigned.
    newer = {chr(cp) for cp in range(0x13439, 0x13440)} if unicodedata.unidata_version < "15" else set()
    expected = newer | {
        chr(cp)
        for cp in range(sys.maxunicode + 1)
        if unicodedata.category(chr(cp)) in ("Cc", "Cf") and chr(cp) not in "\t\n\r"
    }
    listed = {chr(cp) for cp in range(sys.maxunicode + 1) if _HIDDEN.match(chr(cp))}
    assert listed == expected, (unicodedata.unidata_version, sorted(map(hex, map(ord, listed ^ expected))))


def test_terminal_and_log_steering_is_removed() -> None:
    hostile = "\x1b[2J\x1b]0;title\x07ok\r\n\x9b31m\u202egnp.exe\u2066x\u2069\u200d\ufeff\U000e0041end"
    assert printable(hostile) == "[2J]0;titleok\n31mgnp.exex" + "end"


def test_newlines_and_tabs_stay_and_separators_become_newlines() -> None:
    assert printable("a\tb\rc\u2028d\u2029e\r\nf") == "a\tb\nc\nd\ne\nf"


def test_one_line_bounds_a_megabyte() -> None:
    line = one_line("x" * 1_000_000)
    assert len(line) == 2000 and line.endswith("…")


@given(st.text())
def test_printable_leaves_no_hidden_character_and_is_idempotent(text: str) -> None:
    clean = printable(text)
    assert not any(unicodedata.category(c) in ("Cc", "Cf") and c not in "\t\n" for c in clean)
    assert printable(clean) == clean


@given(st.text(), st.integers(min_value=1, max_value=50))
def test_one_line_is_one_bounded_line(text: str, limit: int) -> None:
    line = one_line(text, limit)
    assert "\n" not in line and "\t" not in line and len(line) <= limit


def test_a_megabyte_value_in_a_report_cell_or_id_is_shown_bounded_with_its_length() -> None:
    """A 1 MB case id, model id or lost reason reaches `view`, `diff` and the comment as one bounded value."""
    value = "xyL" + "y" * 1_000_000  # 1,000,003 characters
    for shown in (md(value), code(value)):
        assert len(shown) < SHOWN_CHARS + 40
        assert shown.rstrip("`").endswith("… (1000003 characters)")
    assert md("short id") == "short id" and code("short id") == "`short id`"


def test_clip_lines_cuts_only_the_long_lines_of_an_answer() -> None:
    answer = "first line\n" + "y" * 5000 + "\nlast line"
    clipped = clip_lines(answer, width=4000).split("\n")
    assert clipped[0] == "first line" and clipped[2] == "last line"
    assert clipped[1] == "y" * 4000 + "… (this line has 5000 characters)"
    assert clip_lines("a\nb", width=1) == "a\nb"
