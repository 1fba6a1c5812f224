"""The vocabulary of the reply check: what reads as a file name, a pointing cue or a report of work.

Word lists and regular expressions only; :mod:`driftproof.lanes.reply_rules` applies them, and
:func:`driftproof.lanes.capture.classify_reply`'s docstring states the rules they serve.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(" ".join(phrase.split()) for phrase in text.split("|"))


# File names. A token is path-like: optional directories, then a name with a dot extension that
# starts with a letter. It is a file name when the extension is in KNOWN_EXTENSIONS, or when the
# token has a path separator and a letters-only extension. So cart.total, e.g., 1.2.3 and
# docs.python.org are not file names; obj.method() and a.b.c are not either (the lookahead refuses
# a token followed by "(" or by another ".x").
FILE_TOKEN = re.compile(
    r"(?<![\w./\\@-])"
    r"((?:~?[/\\])?(?:[\w.@+-]{1,255}[/\\])*\.?[\w@+-][\w.@+-]{0,255}?\.([A-Za-z][A-Za-z0-9]{0,9}))"
    r"(?![\w/\\(-]|\.\w)"
)
KNOWN_EXTENSIONS = _words(
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
NOT_FILES = _words(
    """
    node.js next.js nuxt.js vue.js react.js express.js three.js d3.js chart.js ember.js backbone.js
    angular.js angularjs moment.js day.js dayjs alpine.js solid.js nest.js gatsby.js p5.js
    require.js underscore.js knockout.js socket.io
    """
)
# Object names whose attributes look like files ("self.log", "console.log").
CODE_OBJECTS = frozenset({"self", "this", "cls", "super", "console", "window", "document", "math"})
# First path segment that is a domain: "example.com/docs/guide.md" is an address, not a path.
DOMAIN_SEGMENT = re.compile(
    r"^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|ai|co|edu|gov|app|info|me|us|uk|de|fr|eu"
    r"|ca|au|jp|cn|ru|nl|xyz|tech|site|cloud)$",
    re.IGNORECASE,
)
_ADDRESS = r"(?<![\w+.-])(?:[a-z][a-z0-9+.-]{0,30}://|www\.)\S+"
_EMAIL = r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+"
URL = re.compile(f"{_ADDRESS}|{_EMAIL}", re.IGNORECASE)
MD_LINK_TO = re.compile(r"\[([^\]\n]{0,300})\]\(\s*<?([^)\s>]{1,300})>?(?:\s+\"[^\"\n]{0,300}\")?\s*\)")

TYPOGRAPHIC = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
     "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'}
)  # fmt: skip
EMPHASIS = (
    re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"),
    re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w|\.\w)"),
    re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"),
    re.compile(r"(?<!\w)_(?=[^\s_])([^\n]+?)(?<=[^\s_])_(?!\w|\.\w)"),
)
LIST_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+\u2022]|\d{1,3}[.)])\s+)?(?:\[[ xX]\]\s+)?")
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s+(.*?))?\s*#*\s*$")
BOLD_ONLY = re.compile(r"^\s*(?:\*\*|__)([^*_\n]+?)(?:\*\*|__)\s*:?\s*$")
PLAIN_LABEL_LINE = re.compile(r"^([\w' /&-]{1,40}):\s*$")
CLAUSE_SPLIT = re.compile(r"(?<=[.!?:;])\s+|\s+[\u2013\u2014-]\s+")
LABEL_CLAUSE = re.compile(r"^[\w'() /&-]{1,40}:$")
# Labels after which bare file names point at files: "Created: x.md", "Files:", "Saved to:".
POINTER_LABEL = re.compile(
    r"^(?:new\s+|full\s+)?(?:created|updated|modified|added|changed|edited|deleted|removed|wrote|written"
    r"|saved|output|outputs|files?|generated|deliverables?|location|path|see|attached|report|summary"
    r"|details|results?|changes|artifacts?)(?:\s+(?:files?|to|as|in|at))?\s*:$"
)

FILE_SLOT = "\ue000"  # stands for a file name inside a clause, so that cues can name its position
_QF = rf"[\"'(\[<]*{FILE_SLOT}"  # the file name, maybe after an opening quote or bracket
_VERBS = (
    r"created|wrote|written|updated|added|implemented|fixed|saved|made|modified|refactored|changed"
    r"|removed|deleted|renamed|moved|edited|generated|built|completed|finished|put|placed|drafted"
    r"|prepared|documented|applied|replaced|rewrote|rewritten|extracted|introduced|set\s+up|committed"
    r"|pushed|installed|configured|converted|restructured|reorgani[sz]ed|merged|cleaned\s+up|stored"
    r"|exported|dumped|appended|copied|summari[sz]ed|outlined|produced|attached|uploaded|included|done"
)
FIRST_PERSON_WORK = re.compile(
    r"\b(?:i|we)(?:'ve|'m|'re|\s+have|\s+had|\s+am|\s+are)?"
    r"(?:\s+(?:also|now|then|just|already|successfully|quickly|carefully|finally|first|all|have"
    rf"|went\s+ahead\s+and))*\s+(?:{_VERBS})\b(?!-)"
)
CONDITIONAL_FIRST_PERSON = re.compile(
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
FILLER = re.compile(
    r"^(?:(?:let\s+me\s+know|(?:i\s+)?hope\s+(?:this|that|it)\s+helps|feel\s+free|happy\s+to\s+help"
    r"|(?:is\s+there\s+)?anything\s+else|thanks?|thank\s+you)\b.*"
    r"|sure|ok|okay|certainly|of\s+course|absolutely|great|perfect|got\s+it|here\s+you\s+go|as\s+requested"
    r"|(?:here(?:'s|\s+is|\s+are)|below\s+(?:is|are))\s+(?:the|your|my|an?|what)\b[^.!?:]{0,60})\W*$"
)
WORK_PATTERNS = (_LEADING_VERB, _PERFECT_PASSIVE, _DONE, _WORK_INTRO, _TESTS_PASS)
_SUBJECT = (
    r"answer|summary|report|results?|output|details|analysis|plan|write-?up|document|notes|solution"
    r"|implementation|contents?|rest|draft|script|response|full\s+[\w-]+"
)
POINT_CUE = re.compile(
    rf"\b(?:see|refer(?:red)?\s+to|check\s+out|look\s+in|consult)\b[^.!?]{{0,60}}?{FILE_SLOT}"
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
BACK_REFERENCE = re.compile(r"\b(?:this|it|these|them|that|the\s+above|above|the\s+same|same)\b")
FORWARD_POINTER = re.compile(
    r"\b(?:for\s+(?:more|the\s+rest|details|the\s+full)|the\s+rest|remaining|full\s+\w+)\b",
)
CONVENTIONAL_COMMIT = re.compile(
    r"^(?:feat|fix|docs|style|refactor|perf|test|tests|build|ci|chore|revert|deps|security|release|wip)"
    r"(?:\([^)\n]*\))?!?:\s+\S",
    re.IGNORECASE,
)
IMPERATIVES = _words(
    """
    add fix update remove refactor rename move implement bump improve handle use make support drop
    introduce document allow prevent avoid extract replace revert merge clean simplify optimize
    optimise ensure change set create delete correct enable disable upgrade downgrade test validate
    guard return raise reduce split restore release prepare format migrate tidy rework rewrite
    """
)
PR_SECTIONS = _phrases(
    """
    summary|description|motivation|context|changes|what changed|what's changed|changes made|why|how
    |test plan|testing|tests|how to test|how has this been tested|checklist|screenshots|related issues
    |related|risks|rollback|breaking changes|files changed|changed files
    """
)
CHANGES_LABELS = _phrases(
    """
    changes|changes made|changed files|files changed|file changes|summary of changes|what changed
    |what i changed|what i did|modified files|files modified|files|list of changes|changelog
    """
)
