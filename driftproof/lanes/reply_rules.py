"""Seed 000, "Which answer is graded": whether an agent's reply holds a gradeable answer.

:func:`classify_reply` reads a reply line by line and clause by clause and decides, before any
grading call, whether the draw is lost: the reply points at a file the grader was not shown, only
describes work it did, or holds no answer. Its docstring lists the rules. Public through
:mod:`driftproof.lanes.capture`; pure standard library, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import PurePosixPath
from typing import Literal, NamedTuple

from driftproof.lanes.reply_patterns import (
    BACK_REFERENCE,
    BOLD_ONLY,
    CHANGES_LABELS,
    CLAUSE_SPLIT,
    CODE_OBJECTS,
    CONDITIONAL_FIRST_PERSON,
    CONVENTIONAL_COMMIT,
    DOMAIN_SEGMENT,
    EMPHASIS,
    FENCE_OPEN,
    FILE_SLOT,
    FILE_TOKEN,
    FILLER,
    FIRST_PERSON_WORK,
    FORWARD_POINTER,
    HEADING,
    IMPERATIVES,
    KNOWN_EXTENSIONS,
    LABEL_CLAUSE,
    LIST_MARKER,
    MD_LINK_TO,
    NOT_FILES,
    PLAIN_LABEL_LINE,
    POINT_CUE,
    POINTER_LABEL,
    PR_SECTIONS,
    TYPOGRAPHIC,
    URL,
    WORK_PATTERNS,
)

__all__ = [
    "REASON_NO_ANSWER",
    "REASON_ONLY_DESCRIBES_WORK",
    "REASON_POINTS_AT_UNSEEN_FILE",
    "ReplyVerdict",
    "classify_reply",
]

REASON_NO_ANSWER = "no answer"
REASON_ONLY_DESCRIBES_WORK = "only describes work it did"
REASON_POINTS_AT_UNSEEN_FILE = "points at a file the grader was not shown"

# A pointing line is excused by at least this much of the reply's own prose below or above it.
_PROSE_EXCUSE_CHARS = 200
# A "Changes" list counts as "under the answer" when at least this much answer prose sits above it.
_MIN_ANSWER_CHARS = 20


@dataclass(frozen=True)
class ReplyVerdict:
    """Whether a reply is a lost draw, decided before any grading call."""

    lost: bool
    """True when the reply must not be graded."""
    reason: str | None
    """One readable line when ``lost``; None otherwise."""


_Kind = Literal["pointing", "pointer_shown", "work", "filler", "label", "bare", "prose", "empty"]


class _Clause(NamedTuple):
    kind: _Kind
    chars: int
    unseen: tuple[str, ...]


class _Line(NamedTuple):
    fenced: bool
    label: str | None  # the text of a heading or label line
    heading: bool  # a Markdown heading or a line that is all bold
    clauses: tuple[_Clause, ...]
    text: str

    @property
    def prose(self) -> int:
        return sum(c.chars for c in self.clauses if c.kind == "prose")

    @property
    def unseen_pointer(self) -> str | None:
        return next((c.unseen[0] for c in self.clauses if c.kind == "pointing"), None)


class _Names(NamedTuple):
    paths: frozenset[str]
    basenames: frozenset[str]

    @classmethod
    def of(cls, shown_files: Sequence[str]) -> _Names:
        paths = frozenset(_norm_path(p) for p in shown_files)
        return cls(paths, frozenset(PurePosixPath(p).name for p in paths))

    def shows(self, token: str) -> bool:
        norm = _norm_path(token)
        return norm in self.paths or PurePosixPath(norm).name in self.basenames


def _norm_path(path: str) -> str:
    posix = re.sub(r"/{2,}", "/", path.replace("\\", "/")).strip()
    while posix.startswith("./"):
        posix = posix[2:]
    return posix.lower()


def _display_path(path: str) -> str:
    posix = path.replace("\\", "/")
    return posix[2:] if posix.startswith("./") else posix


def _strip_emphasis(text: str) -> str:
    for pattern in EMPHASIS:
        text = pattern.sub(r"\1", text)
    return text.replace("`", " ")


def _file_names(text: str) -> list[tuple[int, int, str]]:
    """Spans and names of the file names in ``text`` (already free of emphasis and URLs)."""
    found = []
    for match in FILE_TOKEN.finditer(text):
        token, ext = match.group(1), match.group(2).lower()
        has_sep = "/" in token or "\\" in token
        if not (ext in KNOWN_EXTENSIONS or (has_sep and ext.isalpha())):
            continue
        lowered = token.lower()
        first = re.split(r"[/\\]", lowered.lstrip("~/\\"))[0]
        if lowered in NOT_FILES or (not has_sep and lowered.split(".")[0] in CODE_OBJECTS):
            continue
        if has_sep and DOMAIN_SEGMENT.match(first):
            continue
        found.append((match.start(1), match.end(1), token))
    return found


def _is_bare(text: str, spans: Sequence[tuple[int, int, str]]) -> bool:
    """True when ``text`` holds file names and nothing else but punctuation, "and", or a note in ()."""
    if not spans:
        return False
    rest = "".join(text[prev_end:start] for prev_end, start in _gaps(spans, len(text)))
    rest = re.sub(r"\([^)]*\)|\b(?:and|or)\b", " ", rest)
    return not re.search(r"[^\W_]", rest)


def _gaps(spans: Sequence[tuple[int, int, str]], length: int) -> list[tuple[int, int]]:
    gaps, pos = [], 0
    for start, end, _ in spans:
        gaps.append((pos, start))
        pos = end
    gaps.append((pos, length))
    return gaps


def _classify_clause(clause: str, bare_points: bool, names: _Names) -> _Clause:
    """Classify one clause; ``bare_points`` says whether a clause of bare file names points here."""
    spans = _file_names(clause)
    unseen = tuple(_display_path(t) for _, _, t in spans if not names.shows(t))
    text = clause
    for start, end, _ in reversed(spans):
        text = text[:start] + FILE_SLOT + text[end:]
    low = text.lower().strip()
    if not re.search(rf"[^\W_]|{FILE_SLOT}", low):
        return _Clause("empty", 0, ())
    first_person = bool(FIRST_PERSON_WORK.search(low)) and not CONDITIONAL_FIRST_PERSON.search(low)
    work = first_person or any(p.search(low) for p in WORK_PATTERNS)
    if spans:
        bare = _is_bare(clause, spans)
        if work or POINT_CUE.search(low) or (bare and bare_points):
            return _Clause("pointing" if unseen else "pointer_shown", 0, unseen)
        if bare:
            return _Clause("bare", 0, unseen)
    if work:
        return _Clause("work", 0, ())
    if FILLER.search(low):
        return _Clause("filler", 0, ())
    if LABEL_CLAUSE.search(low):
        return _Clause("label", 0, ())
    return _Clause("prose", len(clause.strip()), ())


def _label_of(raw: str) -> str | None:
    """The text of a heading or label line ("## Changes", "**Changes:**", "Changes:"), else None."""
    match = HEADING.match(raw) or BOLD_ONLY.match(raw) or PLAIN_LABEL_LINE.match(raw.strip())
    if match is None:
        return None
    return re.sub(r"[\s:*_#]+", " ", match.group(1) or "").strip().lower()


def _parse(reply: str, names: _Names) -> tuple[list[_Line], list[tuple[int, bool]]]:
    """Lines of the reply, and the fenced blocks as (line index of the opener, has content)."""
    lines: list[_Line] = []
    blocks: list[tuple[int, bool]] = []
    fence: str | None = None
    in_file_list = False  # below "Files:", "Changes:", "I created these files:" and the like
    for raw in reply.splitlines():
        if fence is not None:
            stripped = raw.strip()
            if stripped and stripped == stripped[0] * len(stripped) and stripped.startswith(fence):
                fence = None
            elif stripped:
                blocks[-1] = (blocks[-1][0], True)
            lines.append(_Line(True, None, False, (), raw))
            continue
        opener = FENCE_OPEN.match(raw)
        if opener and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
            fence, in_file_list = opener.group(1), False
            blocks.append((len(lines), False))
            lines.append(_Line(True, None, False, (), raw))
            continue
        if not raw.strip():
            lines.append(_Line(False, None, False, (), raw))
            continue
        label = _label_of(raw)
        clauses = _clauses(raw, names, in_file_list)
        heading = bool(HEADING.match(raw) or BOLD_ONLY.match(raw))
        if heading:  # a heading is never prose, but it may still point at a file
            clauses = tuple(c if c.kind.startswith("point") else _Clause("label", 0, ()) for c in clauses)
        kinds = {c.kind for c in clauses}
        starts_list = label in CHANGES_LABELS or bool(label and POINTER_LABEL.match(f"{label}:"))
        if starts_list or (raw.rstrip().endswith(":") and kinds & {"work", "pointing", "pointer_shown"}):
            in_file_list = True
        elif label is not None:
            in_file_list = False
        elif in_file_list:
            marker = LIST_MARKER.match(raw)
            is_item = marker is not None and bool(marker.group(0).strip())
            in_file_list = is_item or kinds <= {"pointing", "pointer_shown", "bare", "empty"}
        lines.append(_Line(False, label, heading, clauses, raw))
    return lines, blocks


def _clauses(raw: str, names: _Names, in_file_list: bool) -> tuple[_Clause, ...]:
    text = LIST_MARKER.sub("", _strip_emphasis(raw), count=1)
    links = [m.group(2) for m in MD_LINK_TO.finditer(text) if not URL.match(m.group(2))]
    text = URL.sub(" ", MD_LINK_TO.sub(r"\1 (\2)", text))
    out: list[_Clause] = []
    prev_label = False
    for index, part in enumerate(p for p in CLAUSE_SPLIT.split(text) if p.strip()):
        clause = _classify_clause(part, prev_label or (index == 0 and in_file_list), names)
        linked = [_display_path(t) for t in links if t in part and _file_names(t) and not names.shows(t)]
        if linked and clause.kind != "pointing":
            clause = _Clause("pointing", 0, tuple(linked))
        out.append(clause)
        prev_label = bool(POINTER_LABEL.match(part.strip().lower()))
    return tuple(out)


def _is_commit_or_pr(lines: Sequence[_Line], has_answer: bool) -> bool:
    """A commit message (conventional header, or imperative subject then a body) or a PR description.

    A PR description needs two of its usual sections as headings and some answer of its own.
    """
    texts = [ln.text for ln in lines if not ln.fenced]
    nonblank = [i for i, t in enumerate(texts) if t.strip()]
    if nonblank:
        first = nonblank[0]
        subject = _strip_emphasis(texts[first]).strip()
        if CONVENTIONAL_COMMIT.match(subject):
            return True
        word = re.match(r"([A-Za-z]+)\b(?!:)", subject)
        has_body = first + 2 < len(texts) and not texts[first + 1].strip() and len(nonblank) > 1
        imperative = word is not None and word.group(1).lower() in IMPERATIVES
        if imperative and len(subject) <= 72 and has_body and not subject.endswith((":", ".")):
            return True
    sections = {ln.label for ln in lines if ln.heading and ln.label in PR_SECTIONS}
    return has_answer and len(sections) >= 2


def classify_reply(reply: str, shown_files: Sequence[str]) -> ReplyVerdict:
    """Decide, before any grading call, whether ``reply`` is a lost draw.

    ``shown_files`` are the paths of the captured files whose text the graded answer includes.
    A draw is lost only when it truly points at a file the grader was not shown, only describes
    work it did, or holds no answer; when unsure, the reply is graded.

    Reading (seed 000, "Which answer is graded"):

    1. Typographic apostrophes and quotes (’ ‘ “ ”) read as plain ones, so "I’d" is "I'd".
    2. Emphasis around a file name (``**x.md**``, ``_x.md_``, ```x.md```) and a bold label such as
       ``**Created:** x.md`` read as a file name.
    3. A file name is a path-like token whose extension starts with a letter, and either the
       extension is a known one (``md``, ``py``, ``json``, ...) or the token has a path separator
       (``notes/summary.foo``). Code names (``cart.total``, ``obj.method()``), ``e.g.``, version
       numbers, URLs and domain names, e-mail addresses and framework names (``Next.js``) are not.
    4. A line inside a fenced block (``````` or ``~~~``) is never read as pointing at a file.
    5. A pointing line names a file not in ``shown_files`` (compared as normalised relative paths,
       or by base name) with a pointing cue: "see x.md", "saved to x.md", "the summary is in x.md",
       "here is x.md", first-person work on it ("I created x.md"), "Created x.md", "x.md has been
       updated", a label then the name ("Created: x.md"), a line that is only file names, a line
       that starts with one ("x.md: ..."), or a Markdown link to it.
    6. A pointing line still shows its file when any of these holds:
       a. it is followed by a fenced block with content;
       b. it is followed by at least 200 characters of the reply's own prose; prose on the pointing
          line itself counts;
       c. it sits below the reply's own answer: at least 200 characters of prose above it, a fenced
          block above it that the line refers back to ("I saved this to x.md"), or a "Changes" list
          under an answer;
       d. the reply is a commit message (conventional header, or an imperative subject and a body)
          or a pull request description (two or more of its usual sections, such as "Summary" and
          "Test plan"): a body that lists the files it changed is graded.
       A pointing line that none of these excuse makes the draw lost:
       ``points at a file the grader was not shown: <path>``.
    7. With no file shown, a reply whose every sentence reports work done ("I've updated the
       README", "Added tests", "Done.", "All tests pass."), with no fenced block, no answer prose
       and no commit or PR form, is lost: ``only describes work it did``. First-person advice
       ("I'd add an index", "I would", "I recommend") is an answer, not a report of work.
    8. An empty reply, or one with nothing but pleasantries and headings, holds no answer and is
       lost (``no answer``) when no file is shown; with a shown file it is graded on the file.

    Prose is counted in characters of sentences that are neither pointing, work reports,
    pleasantries nor labels; headings and fenced blocks are not prose.

    >>> classify_reply("I’d add an index on orders.user_id.", [])
    ReplyVerdict(lost=False, reason=None)
    >>> classify_reply("**Created:** notes/summary.md", [])
    ReplyVerdict(lost=True, reason='points at a file the grader was not shown: notes/summary.md')
    >>> classify_reply("Created: notes/summary.md", ["notes/summary.md"])
    ReplyVerdict(lost=False, reason=None)
    >>> classify_reply("I’ve updated the README and added tests.", [])
    ReplyVerdict(lost=True, reason='only describes work it did')
    >>> classify_reply("  ", [])
    ReplyVerdict(lost=True, reason='no answer')
    """
    reply = reply.translate(TYPOGRAPHIC)
    if not reply.strip():
        return ReplyVerdict(False, None) if shown_files else ReplyVerdict(True, REASON_NO_ANSWER)
    lines, blocks = _parse(reply, _Names.of(shown_files))
    prose = [ln.prose for ln in lines]
    above = [0, *accumulate(prose)][:-1]  # prose on the lines above each line
    total_prose = sum(prose)
    content_at = [start for start, has_content in blocks if has_content]
    commit_or_pr = _is_commit_or_pr(lines, bool(total_prose or content_at))
    first_block = content_at[0] if content_at else len(lines)  # opener lines of fenced blocks with content
    last_block = content_at[-1] if content_at else -1
    changes_at = -1  # line index of the "Changes" label whose list we are in, or -1
    for i, line in enumerate(lines):
        if line.label is not None:
            changes_at = i if line.label in CHANGES_LABELS else -1
        pointed = line.unseen_pointer
        if pointed is None or commit_or_pr:
            continue
        below = total_prose - above[i] - prose[i]
        excused = (
            last_block > i
            or prose[i] + below >= _PROSE_EXCUSE_CHARS
            or prose[i] + above[i] >= _PROSE_EXCUSE_CHARS
            or (
                first_block < i
                and bool(BACK_REFERENCE.search(line.text.lower()))
                and not FORWARD_POINTER.search(line.text.lower())
            )
            or (changes_at >= 0 and (above[changes_at] >= _MIN_ANSWER_CHARS or first_block < changes_at))
        )
        if not excused:
            return ReplyVerdict(True, f"{REASON_POINTS_AT_UNSEEN_FILE}: {pointed}")
    if commit_or_pr or content_at or total_prose:
        return ReplyVerdict(False, None)
    clauses = [c for ln in lines for c in ln.clauses]
    bare = next((c.unseen[0] for c in clauses if c.kind == "bare" and c.unseen), None)
    kinds = {c.kind for c in clauses}
    if bare is not None and kinds <= {"bare", "pointer_shown", "pointing", "work", "filler", "empty"}:
        return ReplyVerdict(True, f"{REASON_POINTS_AT_UNSEEN_FILE}: {bare}")  # nothing but file names
    if shown_files or "bare" in kinds:
        return ReplyVerdict(False, None)
    if kinds & {"work", "pointing", "pointer_shown"}:
        return ReplyVerdict(True, REASON_ONLY_DESCRIBES_WORK)
    return ReplyVerdict(True, REASON_NO_ANSWER)
