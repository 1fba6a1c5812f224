"""Which answer is graded: the reply check and the ``files`` capture.

Two jobs, both done before any grading call:

- :func:`classify_reply` decides whether an agent's reply holds a gradeable answer, or is a lost
  draw because it points at a file the grader was not shown, only describes work it did, or holds
  no answer (seed 000, "Which answer is graded").
- :func:`capture_files` reads back what an agent left in its fresh working directory (``files``
  capture mode); :func:`graded_answer` builds the text the grader sees and :func:`assess_draw`
  joins the two into one :class:`DrawAssessment` per draw.

Pure standard library; the only I/O is reading the draw's directory in :func:`capture_files`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path, PurePosixPath
from typing import Literal, NamedTuple

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "REASON_BINARY",
    "REASON_CHANGED",
    "REASON_NOT_REGULAR",
    "REASON_NOT_UTF8",
    "REASON_NO_ANSWER",
    "REASON_ONLY_DESCRIBES_WORK",
    "REASON_PERMISSION",
    "REASON_POINTS_AT_UNSEEN_FILE",
    "REASON_READ_ERROR",
    "REASON_SYMLINK",
    "REASON_TOTAL_CAP",
    "Capture",
    "CapturedFile",
    "DrawAssessment",
    "ReplyVerdict",
    "assess_draw",
    "capture_files",
    "classify_reply",
    "graded_answer",
]

REASON_NO_ANSWER = "no answer"
REASON_ONLY_DESCRIBES_WORK = "only describes work it did"
REASON_POINTS_AT_UNSEEN_FILE = "points at a file the grader was not shown"

MAX_FILES = 50
MAX_FILE_BYTES = 65_536
MAX_TOTAL_BYTES = 262_144

# A pointing line is excused by at least this much of the reply's own prose below or above it.
_PROSE_EXCUSE_CHARS = 200
# A "Changes" list counts as "under the answer" when at least this much answer prose sits above it.
_MIN_ANSWER_CHARS = 20


# --------------------------------------------------------------------------------------------
# Reply verdict
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplyVerdict:
    """Whether a reply is a lost draw, decided before any grading call."""

    lost: bool
    """True when the reply must not be graded."""
    reason: str | None
    """One readable line when ``lost``; None otherwise."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(" ".join(phrase.split()) for phrase in text.split("|"))


# File names. A token is path-like: optional directories, then a name with a dot extension that
# starts with a letter. It is a file name when the extension is in _KNOWN_EXTENSIONS, or when the
# token has a path separator and a letters-only extension. So cart.total, e.g., 1.2.3 and
# docs.python.org are not file names; obj.method() and a.b.c are not either (the lookahead refuses
# a token followed by "(" or by another ".x").
_FILE_TOKEN = re.compile(
    r"(?<![\w./\\@-])"
    r"((?:~?[/\\])?(?:[\w.@+-]{1,255}[/\\])*\.?[\w@+-][\w.@+-]{0,255}?\.([A-Za-z][A-Za-z0-9]{0,9}))"
    r"(?![\w/\\(-]|\.\w)"
)
_KNOWN_EXTENSIONS = _words(
    """
    md markdown mdx txt text rst adoc org tex bib pdf doc docx odt rtf xls xlsx ods csv tsv ppt pptx
    json jsonl ndjson yaml yml toml ini cfg conf properties env xml plist lock
    py pyi pyx ipynb js mjs cjs jsx ts tsx vue svelte html htm css scss sass less
    sh bash zsh fish ps1 bat cmd sql graphql gql proto
    rb go rs java kt kts scala swift c h cc cpp cxx hpp hh cs fs php pl pm lua dart ex exs erl hs ml
    r jl tf hcl nix gradle cmake mk dockerfile
    png jpg jpeg gif svg webp bmp ico mp3 mp4 wav zip tar gz tgz bz2 xz whl jar bin exe dll so
    log diff patch out err dat db sqlite parquet pkl npy
    """
)
# Framework names that look like files ("Next.js").
_NOT_FILES = _words(
    """
    node.js next.js nuxt.js vue.js react.js express.js three.js d3.js chart.js ember.js backbone.js
    angular.js angularjs moment.js day.js dayjs alpine.js solid.js nest.js gatsby.js p5.js
    require.js underscore.js knockout.js socket.io
    """
)
# Object names whose attributes look like files ("self.log", "console.log").
_CODE_OBJECTS = frozenset({"self", "this", "cls", "super", "console", "window", "document", "math"})
# First path segment that is a domain: "example.com/docs/guide.md" is an address, not a path.
_DOMAIN_SEGMENT = re.compile(
    r"^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|ai|co|edu|gov|app|info|me|us|uk|de|fr|eu"
    r"|ca|au|jp|cn|ru|nl|xyz|tech|site|cloud)$",
    re.IGNORECASE,
)
_ADDRESS = r"(?<![\w+.-])(?:[a-z][a-z0-9+.-]{0,30}://|www\.)\S+"
_EMAIL = r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"
_URL = re.compile(f"{_ADDRESS}|{_EMAIL}", re.IGNORECASE)
_MD_LINK_TO = re.compile(r"\[([^\]\n]{0,300})\]\(\s*<?([^)\s>]{1,300})>?(?:\s+\"[^\"\n]{0,300}\")?\s*\)")

_TYPOGRAPHIC = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
     "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'}
)  # fmt: skip
_EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w|\.\w)"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"),
    re.compile(r"(?<!\w)_(?=[^\s_])([^\n]+?)(?<=[^\s_])_(?!\w|\.\w)"),
)
_LIST_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+\u2022]|\d{1,3}[.)])\s+)?(?:\[[ xX]\]\s+)?")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+(.*?))?\s*#*\s*$")
_BOLD_ONLY = re.compile(r"^\s*(?:\*\*|__)([^*_\n]+?)(?:\*\*|__)\s*:?\s*$")
_PLAIN_LABEL_LINE = re.compile(r"^([\w' /&-]{1,40}):\s*$")
_CLAUSE_SPLIT = re.compile(r"(?<=[.!?:;])\s+|\s+[\u2013\u2014-]\s+")
_LABEL_CLAUSE = re.compile(r"^[\w'() /&-]{1,40}:$")
# Labels after which bare file names point at files: "Created: x.md", "Files:", "Saved to:".
_POINTER_LABEL = re.compile(
    r"^(?:new\s+|full\s+)?(?:created|updated|modified|added|changed|edited|deleted|removed|wrote|written"
    r"|saved|output|outputs|files?|generated|deliverables?|location|path|see|attached|report|summary"
    r"|details|results?|changes|artifacts?)(?:\s+(?:files?|to|as|in|at))?\s*:$"
)

_F = "\ue000"  # stands for a file name inside a clause, so that cues can name its position
_QF = rf"[\"'(\[<]*{_F}"  # the file name, maybe after an opening quote or bracket
_VERBS = (
    r"created|wrote|written|updated|added|implemented|fixed|saved|made|modified|refactored|changed"
    r"|removed|deleted|renamed|moved|edited|generated|built|completed|finished|put|placed|drafted"
    r"|prepared|documented|applied|replaced|rewrote|rewritten|extracted|introduced|set\s+up|committed"
    r"|pushed|installed|configured|converted|restructured|reorgani[sz]ed|merged|cleaned\s+up|stored"
    r"|exported|dumped|appended|copied|summari[sz]ed|outlined|produced|attached|uploaded|included|done"
)
_FIRST_PERSON_WORK = re.compile(
    r"\b(?:i|we)(?:'ve|'m|'re|\s+have|\s+had|\s+am|\s+are)?"
    r"(?:\s+(?:also|now|then|just|already|successfully|quickly|carefully|finally|first|all|have"
    rf"|went\s+ahead\s+and))*\s+(?:{_VERBS})\b(?!-)"
)
_CONDITIONAL_FIRST_PERSON = re.compile(
    r"\b(?:if|when|unless|whether|once|until|suppose|imagine)\s+(?:i|we)\b",
)
_LEADING_VERB = re.compile(
    r"^(?:also\s+|and\s+|then\s+)?(?:created|wrote|written|updated|added|implemented|fixed|saved|made"
    r"|modified|refactored|changed|removed|deleted|renamed|moved|edited|generated|drafted|documented"
    r"|applied|replaced|rewrote|extracted|introduced|committed|stored|exported|appended|copied|placed)"
    r"\b(?![-'])"
)
_PERFECT_PASSIVE = re.compile(rf"\b(?:has|have)\s+(?:now\s+|also\s+|all\s+)?been\s+(?:{_VERBS})\b")
_DONE = re.compile(
    r"^(?:(?:all\s+)?(?:done|finished|complete|completed)"
    r"|(?:the\s+)?task\s+(?:is\s+)?(?:now\s+)?(?:done|complete|completed|finished)"
    r"|(?:everything|it)(?:'s|\s+is)\s+(?:now\s+)?(?:done|complete|in\s+place|ready|set\s+up)"
    r"|all\s+set|that(?:'s|\s+is)\s+(?:it|all|done))\W*$"
)
_WORK_INTRO = re.compile(
    r"^(?:here(?:'s|\s+is|\s+are)\s+)?(?:a\s+)?(?:(?:short\s+)?summary\s+of\s+)?"
    r"(?:what\s+(?:i|we)\s+(?:did|changed|have\s+done|'ve\s+done)"
    r"|(?:the\s+)?(?:changes|files|edits)\s+(?:i|we)\s+(?:made|touched|changed|created|edited))\b"
)
_TESTS_PASS = re.compile(
    r"\b(?:all\s+)?(?:the\s+)?(?:unit\s+)?tests?\s+(?:now\s+|still\s+)?"
    r"(?:pass|passes|passed|are\s+passing|is\s+passing|succeed|succeeded)\b"
)
_FILLER = re.compile(
    r"^(?:(?:let\s+me\s+know|(?:i\s+)?hope\s+(?:this|that|it)\s+helps|feel\s+free|happy\s+to\s+help"
    r"|(?:is\s+there\s+)?anything\s+else|thanks?|thank\s+you)\b.*"
    r"|sure|ok|okay|certainly|of\s+course|absolutely|great|perfect|got\s+it|here\s+you\s+go|as\s+requested"
    r"|(?:here(?:'s|\s+is|\s+are)|below\s+(?:is|are))\s+(?:the|your|my|an?|what)\b[^.!?:]{0,60})\W*$"
)
_WORK_PATTERNS = (_LEADING_VERB, _PERFECT_PASSIVE, _DONE, _WORK_INTRO, _TESTS_PASS)
_SUBJECT = (
    r"answer|summary|report|results?|output|details|analysis|plan|write-?up|document|notes|solution"
    r"|implementation|contents?|rest|draft|script|response|full\s+[\w-]+"
)
_POINT_CUE = re.compile(
    rf"\b(?:see|refer(?:red)?\s+to|check\s+out|look\s+in|consult)\b[^.!?]{{0,60}}?{_F}"
    rf"|\bhere(?:'s|\s+is|\s+are)\s+(?:(?:the|my|your|a|an|new|updated|final|full|complete|file|files"
    rf"|contents?\s+of)\s+)*{_QF}"
    rf"|\battached\b"
    rf"|\b(?:saved|written|wrote|exported|dumped|outputted)\s+(?:[\w'-]+\s+){{0,4}}?"
    rf"(?:to|in|into|as|at|under|inside)\s+(?:the\s+)?(?:file\s+)?{_QF}"
    rf"|\b(?:{_SUBJECT})\b(?:(?:\s+[\w'-]+){{0,4}}?\s+(?:is|are|was|were|has\s+been|have\s+been|can\s+be"
    rf"|'s|'re))?\s+(?:now\s+|also\s+|all\s+)?(?:(?:saved|written|stored|placed|put|located|available"
    rf"|found|included|documented|kept|provided|detailed|exported)\s+)?(?:in|at|to|into|inside|under)\s+"
    rf"(?:the\s+)?(?:file\s+)?{_QF}"
    rf"|\bcan\s+be\s+found\s+(?:in|at|under)\b"
)
_BACK_REFERENCE = re.compile(r"\b(?:this|it|these|them|that|the\s+above|above|the\s+same|same)\b")
_FORWARD_POINTER = re.compile(
    r"\b(?:for\s+(?:more|the\s+rest|details|the\s+full)|the\s+rest|remaining|full\s+\w+)\b",
)
_CONVENTIONAL_COMMIT = re.compile(
    r"^(?:feat|fix|docs|style|refactor|perf|test|tests|build|ci|chore|revert|deps|security|release|wip)"
    r"(?:\([^)\n]*\))?!?:\s+\S",
    re.IGNORECASE,
)
_IMPERATIVES = _words(
    """
    add fix update remove refactor rename move implement bump improve handle use make support drop
    introduce document allow prevent avoid extract replace revert merge clean simplify optimize
    optimise ensure change set create delete correct enable disable upgrade downgrade test validate
    guard return raise reduce split restore release prepare format migrate tidy rework rewrite
    """
)
_PR_SECTIONS = _phrases(
    """
    summary|description|motivation|context|changes|what changed|what's changed|changes made|why|how
    |test plan|testing|tests|how to test|how has this been tested|checklist|screenshots|related issues
    |related|risks|rollback|breaking changes|files changed|changed files
    """
)
_CHANGES_LABELS = _phrases(
    """
    changes|changes made|changed files|files changed|file changes|summary of changes|what changed
    |what i changed|what i did|modified files|files modified|files|list of changes|changelog
    """
)


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
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    return text.replace("`", " ")


def _file_names(text: str) -> list[tuple[int, int, str]]:
    """Spans and names of the file names in ``text`` (already free of emphasis and URLs)."""
    found = []
    for match in _FILE_TOKEN.finditer(text):
        token, ext = match.group(1), match.group(2).lower()
        has_sep = "/" in token or "\\" in token
        if not (ext in _KNOWN_EXTENSIONS or (has_sep and ext.isalpha())):
            continue
        lowered = token.lower()
        first = re.split(r"[/\\]", lowered.lstrip("~/\\"))[0]
        if lowered in _NOT_FILES or (not has_sep and lowered.split(".")[0] in _CODE_OBJECTS):
            continue
        if has_sep and _DOMAIN_SEGMENT.match(first):
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
        text = text[:start] + _F + text[end:]
    low = text.lower().strip()
    if not re.search(rf"[^\W_]|{_F}", low):
        return _Clause("empty", 0, ())
    first_person = bool(_FIRST_PERSON_WORK.search(low)) and not _CONDITIONAL_FIRST_PERSON.search(low)
    work = first_person or any(p.search(low) for p in _WORK_PATTERNS)
    if spans:
        bare = _is_bare(clause, spans)
        if work or _POINT_CUE.search(low) or (bare and bare_points):
            return _Clause("pointing" if unseen else "pointer_shown", 0, unseen)
        if bare:
            return _Clause("bare", 0, unseen)
    if work:
        return _Clause("work", 0, ())
    if _FILLER.search(low):
        return _Clause("filler", 0, ())
    if _LABEL_CLAUSE.search(low):
        return _Clause("label", 0, ())
    return _Clause("prose", len(clause.strip()), ())


def _label_of(raw: str) -> str | None:
    """The text of a heading or label line ("## Changes", "**Changes:**", "Changes:"), else None."""
    match = _HEADING.match(raw) or _BOLD_ONLY.match(raw) or _PLAIN_LABEL_LINE.match(raw.strip())
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
        opener = _FENCE_OPEN.match(raw)
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
        heading = bool(_HEADING.match(raw) or _BOLD_ONLY.match(raw))
        if heading:  # a heading is never prose, but it may still point at a file
            clauses = tuple(c if c.kind.startswith("point") else _Clause("label", 0, ()) for c in clauses)
        kinds = {c.kind for c in clauses}
        starts_list = label in _CHANGES_LABELS or bool(label and _POINTER_LABEL.match(f"{label}:"))
        if starts_list or (raw.rstrip().endswith(":") and kinds & {"work", "pointing", "pointer_shown"}):
            in_file_list = True
        elif label is not None:
            in_file_list = False
        elif in_file_list:
            marker = _LIST_MARKER.match(raw)
            is_item = marker is not None and bool(marker.group(0).strip())
            in_file_list = is_item or kinds <= {"pointing", "pointer_shown", "bare", "empty"}
        lines.append(_Line(False, label, heading, clauses, raw))
    return lines, blocks


def _clauses(raw: str, names: _Names, in_file_list: bool) -> tuple[_Clause, ...]:
    text = _LIST_MARKER.sub("", _strip_emphasis(raw), count=1)
    links = [m.group(2) for m in _MD_LINK_TO.finditer(text) if not _URL.match(m.group(2))]
    text = _URL.sub(" ", _MD_LINK_TO.sub(r"\1 (\2)", text))
    out: list[_Clause] = []
    prev_label = False
    for index, part in enumerate(p for p in _CLAUSE_SPLIT.split(text) if p.strip()):
        clause = _classify_clause(part, prev_label or (index == 0 and in_file_list), names)
        linked = [_display_path(t) for t in links if t in part and _file_names(t) and not names.shows(t)]
        if linked and clause.kind != "pointing":
            clause = _Clause("pointing", 0, tuple(linked))
        out.append(clause)
        prev_label = bool(_POINTER_LABEL.match(part.strip().lower()))
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
        if _CONVENTIONAL_COMMIT.match(subject):
            return True
        word = re.match(r"([A-Za-z]+)\b(?!:)", subject)
        has_body = first + 2 < len(texts) and not texts[first + 1].strip() and len(nonblank) > 1
        imperative = word is not None and word.group(1).lower() in _IMPERATIVES
        if imperative and len(subject) <= 72 and has_body and not subject.endswith((":", ".")):
            return True
    sections = {ln.label for ln in lines if ln.heading and ln.label in _PR_SECTIONS}
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
    reply = reply.translate(_TYPOGRAPHIC)
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
            changes_at = i if line.label in _CHANGES_LABELS else -1
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
                and bool(_BACK_REFERENCE.search(line.text.lower()))
                and not _FORWARD_POINTER.search(line.text.lower())
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


# --------------------------------------------------------------------------------------------
# files capture
# --------------------------------------------------------------------------------------------

REASON_SYMLINK = "symlink, not followed"
REASON_PERMISSION = "unreadable: permission denied"
REASON_READ_ERROR = "unreadable: read error"
REASON_NOT_REGULAR = "unreadable: not a regular file"
REASON_BINARY = "binary"
REASON_NOT_UTF8 = "not valid UTF-8"
REASON_CHANGED = "changed while read"
REASON_TOTAL_CAP = "past the total cap"


@dataclass(frozen=True)
class CapturedFile:
    """One entry the agent left in its working directory, as the receipt's ``captured_files`` lists it."""

    path: str
    """Relative POSIX path; a directory that could not be read ends with ``/``."""
    size: int
    """Size in bytes (0 for a directory)."""
    included: bool
    """True when the file's text is in the graded answer."""
    reason: str | None
    """Why it is not included ("binary", "past the 50-file cap", ...); None when included."""

    def to_json(self) -> dict[str, str | int | bool | None]:
        """The receipt form: ``{path, size, included, reason}``."""
        return {"path": self.path, "size": self.size, "included": self.included, "reason": self.reason}


@dataclass(frozen=True)
class Capture:
    """What was read back from a draw's working directory."""

    files: tuple[CapturedFile, ...] = ()
    """Every entry, in sorted path order."""
    texts: dict[str, str] = field(default_factory=dict, hash=False)
    """Path to text, for the included files only."""
    directory_error: str | None = None
    """Why the directory itself could not be read; the draw is then lost."""


class _Entry(NamedTuple):
    path: str
    size: int
    regular: bool
    reason: str | None


def _list_dir(path: Path) -> list[os.DirEntry[str]]:
    """The entries of one directory (a seam for tests)."""
    with os.scandir(path) as entries:
        return list(entries)


def _read_bytes(path: Path, limit: int) -> bytes:
    """At most ``limit`` bytes of ``path``, never following a symlink (a seam for tests)."""
    flags: int = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(path, flags), "rb") as handle:
        return handle.read(limit)


def _os_reason(error: OSError) -> str:
    return REASON_PERMISSION if isinstance(error, PermissionError) else REASON_READ_ERROR


def _walk(root: Path, relative: str, out: list[_Entry]) -> None:
    try:
        entries = _list_dir(root / relative if relative else root)
    except OSError as error:
        if not relative:
            raise
        out.append(_Entry(relative + "/", 0, False, _os_reason(error)))
        return
    for entry in entries:
        path = f"{relative}/{entry.name}" if relative else entry.name
        try:
            if entry.is_symlink():
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, False, REASON_SYMLINK))
            elif entry.is_dir(follow_symlinks=False):
                _walk(root, path, out)
            elif entry.is_file(follow_symlinks=False):
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, True, None))
            else:
                out.append(_Entry(path, entry.stat(follow_symlinks=False).st_size, False, REASON_NOT_REGULAR))
        except OSError as error:
            out.append(_Entry(path, 0, False, _os_reason(error)))


class _Read(NamedTuple):
    size: int
    text: str | None
    reason: str | None


def _read_one(path: Path, max_file_bytes: int) -> _Read:
    try:
        before = os.lstat(path)
    except OSError as error:
        return _Read(0, None, _os_reason(error))
    if not stat.S_ISREG(before.st_mode):
        return _Read(before.st_size, None, REASON_NOT_REGULAR)
    if before.st_size > max_file_bytes:
        return _Read(before.st_size, None, f"truncated: {before.st_size} bytes, cap {max_file_bytes}")
    try:
        data = _read_bytes(path, max_file_bytes + 1)
    except OSError as error:
        return _Read(before.st_size, None, _os_reason(error))
    try:
        after = os.lstat(path)
    except OSError:
        return _Read(before.st_size, None, REASON_CHANGED)
    unchanged = (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if not unchanged or len(data) != before.st_size:
        return _Read(after.st_size, None, REASON_CHANGED)
    if b"\0" in data:
        return _Read(len(data), None, REASON_BINARY)
    try:
        return _Read(len(data), data.decode("utf-8"), None)
    except UnicodeDecodeError:
        return _Read(len(data), None, REASON_NOT_UTF8)


def capture_files(
    directory: Path,
    *,
    max_files: int = MAX_FILES,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> Capture:
    """Read back every entry an agent left in ``directory`` (``files`` capture).

    Entries are named in sorted relative POSIX path order; nothing is skipped. A symlink is named
    and not followed; a subdirectory that cannot be listed is named (``sub/``) with its reason; a
    root that cannot be listed sets ``directory_error``. The first ``max_files`` regular files are
    read: each is included when it is UTF-8 text without a NUL byte, at most ``max_file_bytes``
    long, unchanged (size and mtime) across the read, and still fits under ``max_total_bytes``
    together with the files included before it (a later smaller file may still fit).
    """
    entries: list[_Entry] = []
    try:
        _walk(directory, "", entries)
    except OSError as error:
        return Capture(directory_error=_os_reason(error))
    files: list[CapturedFile] = []
    texts: dict[str, str] = {}
    regular = total = 0
    for entry in sorted(entries, key=lambda e: e.path):
        if not entry.regular:
            files.append(CapturedFile(entry.path, entry.size, False, entry.reason))
            continue
        regular += 1
        if regular > max_files:
            files.append(CapturedFile(entry.path, entry.size, False, f"past the {max_files}-file cap"))
            continue
        read = _read_one(directory / entry.path, max_file_bytes)
        reason = read.reason
        if read.text is not None and total + read.size > max_total_bytes:
            reason = REASON_TOTAL_CAP
        elif read.text is not None:
            total += read.size
            texts[entry.path] = read.text
        files.append(CapturedFile(entry.path, read.size, reason is None, reason))
    return Capture(tuple(files), texts)


# --------------------------------------------------------------------------------------------
# What the grader sees
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawAssessment:
    """A draw's answer, or why it is lost, decided before any grading call."""

    answer: str | None
    """The text shown to the grader; None when the draw is lost."""
    lost: bool
    """True when the draw must not be graded."""
    reason: str | None
    """Why the draw is lost; None otherwise."""
    captured_files: tuple[CapturedFile, ...]
    """Every file left in the working directory (empty in ``text`` capture)."""


def _describe(item: CapturedFile) -> str:
    size = "directory" if item.path.endswith("/") else f"{item.size} bytes"
    return f"{item.path} ({size})" + ("" if item.included else f": not shown, {item.reason}")


def graded_answer(reply: str, capture: Capture) -> str:
    """The text shown to the grader: the reply, the list of files, then each shown file's text.

    >>> cap = Capture((CapturedFile("a.md", 3, True, None), CapturedFile("b.bin", 2, False, "binary")),
    ...               {"a.md": "hi\\n"})
    >>> print(graded_answer("See a.md.", cap))
    See a.md.
    <BLANKLINE>
    ----- files left in the working directory: 2 -----
    a.md (3 bytes)
    b.bin (2 bytes): not shown, binary
    <BLANKLINE>
    ----- file: a.md (3 bytes) -----
    hi
    ----- end of file: a.md -----
    """
    parts = [reply.rstrip() + "\n\n"] if reply.strip() else []
    parts.append(f"----- files left in the working directory: {len(capture.files)} -----\n")
    parts.extend(_describe(item) + "\n" for item in capture.files)
    if not capture.files:
        parts.append("(none)\n")
    for item in capture.files:
        if item.included:
            text = capture.texts.get(item.path, "")
            body = text if text.endswith("\n") or not text else text + "\n"
            parts.append(f"\n----- file: {item.path} ({item.size} bytes) -----\n{body}")
            parts.append(f"----- end of file: {item.path} -----\n")
    return "".join(parts).rstrip("\n")


def assess_draw(reply: str, capture: Capture | None) -> DrawAssessment:
    """Decide what a draw's grader sees; ``capture`` is None in ``text`` capture.

    - The working directory could not be read: lost.
    - An empty reply with an included file: graded on the file(s).
    - An empty reply with no file shown: lost, naming each file with its reason.
    - Otherwise :func:`classify_reply` against the included files decides.

    >>> assess_draw("Use an index.", None).answer
    'Use an index.'
    >>> assess_draw("", Capture()).reason
    'no answer'
    """
    if capture is None:
        verdict = classify_reply(reply, ())
        return DrawAssessment(None if verdict.lost else reply, verdict.lost, verdict.reason, ())
    files = capture.files
    if capture.directory_error is not None:
        reason = f"working directory could not be read: {capture.directory_error}"
        return DrawAssessment(None, True, reason, files)
    shown = [item.path for item in files if item.included]
    if not reply.strip() and not shown:
        if not files:
            return DrawAssessment(None, True, REASON_NO_ANSWER, files)
        named = ", ".join(f"{item.path}: {item.reason}" for item in files)
        reason = f"{REASON_NO_ANSWER}: reply empty and no file could be shown ({named})"
        return DrawAssessment(None, True, reason, files)
    verdict = classify_reply(reply, shown)
    if verdict.lost:
        return DrawAssessment(None, True, verdict.reason, files)
    return DrawAssessment(graded_answer(reply, capture), False, None, files)
