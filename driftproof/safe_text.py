"""What may be shown of text someone else wrote: visible characters only, and a bounded length.

Suite text, model ids, answers, judge replies and providers' error messages reach the terminal, the
Action's log, the job summary and the PR comment. None of them may steer those: no terminal escape (ESC,
the C1 controls), no carriage return that overwrites a log line, no bidirectional override that shows text
in another order than it is stored (Trojan Source), no zero-width or tag character that hides text.

`printable` removes every control character (Unicode category ``Cc``) but newline and tab, and every format
character (``Cf``: bidi controls, zero-width characters, tags, the byte-order mark); a carriage return, a
line or paragraph separator becomes a newline. `one_line` also collapses whitespace and cuts to a bound,
which is how every diagnostic is shown.

>>> printable("red \\x1b[31mtext\\x1b[0m\\r\\nnext\\u202eevil\\u200d")
'red [31mtext[0m\\nnextevil'
>>> one_line("a\\n  b\\x00c", limit=20), one_line("x" * 30, limit=10)
('a bc', 'xxxxxxxxx…')
"""

from __future__ import annotations

import re

MAX_DIAGNOSTIC_CHARS = 2000
"""An error line shown to a user is cut to this many characters: a 1 MB value cannot make a 1 MB line."""

# Every code point of category Cc (except \t, \n and \r, handled apart) or Cf, as of Unicode 15.1;
# tests/unit/test_safe_text.py checks this class against unicodedata over all of Unicode.
_HIDDEN = re.compile(
    "["
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
    "]"
)
_NEWLINES = re.compile("\r\n?|[\u2028\u2029]")
SHOWN_CHARS = 1000
"""A value shown in a report or on the terminal (an id, a reason, a cell) keeps this many characters."""
LINE_CHARS = 4000
"""A line of someone else's text in a log (a model's answer) keeps this many characters, then says how long it was."""
QUOTED_CHARS = 60
"""A quoted value in a diagnostic keeps this many characters, then says how long it was."""
_LONG_QUOTED = re.compile(r"""(["'])([^"'\n]{81,})\1""")  # longer than QUOTED_CHARS + 20


def printable(text: str) -> str:
    """``text`` with every control and format character removed but newline and tab (see the module)."""
    return _HIDDEN.sub("", _NEWLINES.sub("\n", text))


def shorten(value: str, keep: int = QUOTED_CHARS) -> str:
    """A value for a diagnostic: whole when short, else its start and its length.

    >>> shorten("x" * 1000, keep=5)
    'xxxxx… (1000 characters)'
    """
    return value if len(value) <= keep + 20 else f"{value[:keep]}… ({len(value)} characters)"


def shorten_quoted(message: str) -> str:
    """``message`` (a validator's, which quotes the value it refuses) with every long quoted value shortened.

    >>> shorten_quoted('at a: "' + "Y" * 500 + '" is not of type "number"')
    'at a: "YYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY… (500 characters)" is not of type "number"'
    """
    return _LONG_QUOTED.sub(lambda m: f"{m[1]}{shorten(m[2])}{m[1]}", message)


def clip_lines(text: str, width: int = LINE_CHARS) -> str:
    """``text`` with every line longer than ``width`` cut, saying how long it was; the other lines whole.

    >>> clip_lines("short\\n" + "y" * 50, width=10)
    'short\\nyyyyyyyyyy… (this line has 50 characters)'
    """
    if len(text) <= width:
        return text
    return "\n".join(
        line if len(line) <= width else f"{line[:width]}… (this line has {len(line)} characters)"
        for line in text.split("\n")
    )


def one_line(text: str, limit: int = MAX_DIAGNOSTIC_CHARS) -> str:
    """``text`` printable, on one line (whitespace collapsed), cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(printable(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def shown_name(name: str | None) -> str | None:
    """A name from a suite or a receipt (the skill's, as a badge label or an export's ``skill.name``) as it may be
    shown: one line of visible characters, at most ``SHOWN_CHARS``; ``None`` when nothing visible is left.

    >>> shown_name("evals \u202e rtl \x07 bell"), shown_name("\u200b"), shown_name(None)
    ('evals rtl bell', None, None)
    """
    return (one_line(name, SHOWN_CHARS) or None) if name is not None else None
