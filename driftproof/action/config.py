"""The Action's inputs, validated: each one cleaned, a bad one named in one line.

GitHub does not enforce ``required: true`` and passes every input as a string in
``INPUT_<NAME>`` (upper-cased, hyphens kept: ``INPUT_FAIL-ON``). :meth:`ActionConfig.from_environ`
cleans each one and names the bad input in a one-line :class:`InputError`.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from driftproof.core.defaults import DEFAULTS, LIMITS, judge_provider_for
from driftproof.core.shards import MERGE, parse_shard
from driftproof.core.words import FailOn, JudgeMode, Provider, Word
from driftproof.credentials import API_CREDENTIALS
from driftproof.errors import InputError

__all__ = ["ActionConfig", "CommentInputs"]

_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class CommentInputs:
    """What the sticky comment needs, read apart from every other input: when another input is what failed, the
    comment can still be updated to say so (`driftproof.action`'s error comment)."""

    comment: bool
    github_token: SecretStr
    api_url: str

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> CommentInputs:
        """``comment``, ``github-token`` (or ``GITHUB_TOKEN``) and ``GITHUB_API_URL``; a bad one raises
        :class:`InputError`."""
        return cls(
            comment=_boolean("comment", _input(environ, "comment") or "true"),
            github_token=SecretStr(_input(environ, "github-token") or environ.get("GITHUB_TOKEN", "").strip()),
            api_url=_url("GITHUB_API_URL", environ.get("GITHUB_API_URL") or "https://api.github.com"),
        )


class ActionConfig(BaseModel):
    """Every Action input, cleaned, plus the GitHub environment the Action needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    skill: str | None = Field(description="SKILL.md path, relative to the workspace; None: the suite's.")
    suite: str = Field(description="Suite file path, relative to the workspace; empty with ``skills``.")
    skills: str | None = Field(
        default=None, description="A glob of SKILL.md files (skills/*/SKILL.md): run each touched one; None: one suite."
    )
    receipt_path: str = Field(description="Where the default branch stores its receipt.")
    provider: Provider = Field(description="Lane provider: anthropic, openai or stub.")
    model: str | None = Field(description="Model to run; None: the lane's default.")
    judge_provider: Provider | None = Field(description="Judge provider; None: the default judge.")
    judge_model: str | None = Field(description="Judge model; None: the judge's default.")
    draws: int = Field(description="The fewest draws per arm per case; the stopping rule may draw more.")
    max_draws: int = Field(description="The most draws per arm per case the stopping rule may make.")
    judge_samples: int = Field(description="Judge samples per draw.")
    concurrency: int = Field(description="Calls in flight at once.")
    timeout: float | None = Field(description="Seconds per attempt; None: the lane's default.")
    max_retries: int = Field(description="Retries per call after the first attempt.")
    max_consecutive_failures: int = Field(description="Failed calls in a row after which the run stops; 0: never.")
    base_url: str | None = Field(description="Endpoint of the answering model; None: the SDK's environment.")
    judge_base_url: str | None = Field(description="Endpoint of the judge; None: the SDK's environment.")
    fail_on: FailOn = Field(description="When the Action exits non-zero.")
    judge_mode: JudgeMode = Field(
        default=DEFAULTS.judge_mode, description="absolute, or pairwise: side-by-side calls beside the scores."
    )
    comment: bool = Field(description="Post the sticky PR comment.")
    carry_baseline: bool = Field(description="On a PR, reuse the stored receipt's baseline arms that stand.")
    as_reference: bool = Field(description="Draw a PR's receipt to the reference rule, so a merge can promote it.")
    placebo: bool = Field(False, description="Draw a third arm of neutral text of the skill's size (--placebo).")
    promote: str | None = Field(description="On a push, the PR's last receipt to promote instead of drawing.")
    github_token: SecretStr = Field(repr=False, description="Token for the REST API; never printed.")
    badge_path: str = Field(description="Where the shields.io endpoint JSON is written.")
    junit: str | None = Field(default=None, description="Where the JUnit XML report is written; None: none.")
    shard: str | None = Field(
        default=None, description="INDEX/COUNT: run that shard only; merge: merge the shard jobs' receipts; None: all."
    )
    sentinel: bool = Field(
        default=DEFAULTS.sentinel, description="A scheduled re-run of the default branch compared for drift."
    )
    stale_after: int = Field(default=DEFAULTS.stale_after, description="Days after which the badge turns grey.")
    budget: int | None = Field(description="Token budget: no call starts that could pass it; None: no budget.")
    budget_usd: float | None = Field(description="Dollar budget at the price table's prices; None: no budget.")
    price_table: str | None = Field(
        default=None,
        description="A JSON price table, relative to the workspace (--price-table); None: the bundled one.",
    )
    workspace: Path = Field(description="GITHUB_WORKSPACE, the checked-out repository.")
    api_url: str = Field(description="GITHUB_API_URL, without a trailing slash.")
    server_url: str = Field(description="GITHUB_SERVER_URL, without a trailing slash.")
    output_path: Path | None = Field(description="GITHUB_OUTPUT, when set.")
    summary_path: Path | None = Field(description="GITHUB_STEP_SUMMARY, when set.")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ActionConfig:
        """Read and validate every input; the first bad one raises :class:`InputError`."""

        def get(name: str, default: str = "") -> str:
            return _input(environ, name) or default

        skills, suite = _skills_glob(get("skills")), get("suite")
        if skills is not None and (suite or get("skill")):
            name = "suite" if suite else "skill"
            raise InputError(f"input '{name}': not with 'skills' (each skill's suite is found beside its SKILL.md)")
        if skills is not None and get("shard"):
            raise InputError(
                "input 'shard': not with 'skills' (each skill's suite runs whole; shard a run of one suite, input "
                "'suite')"
            )
        if not suite and skills is None:
            raise InputError("input 'suite' is required: set it under 'with:', e.g. suite: evals/suite.yaml")
        judge_provider = get("judge-provider")
        reach = CommentInputs.from_environ(environ)
        return cls(
            skill=_relative_path("skill", skill) if (skill := get("skill")) else None,
            suite=_relative_path("suite", suite) if suite else "",
            skills=skills,
            receipt_path=_relative_path("receipt-path", get("receipt-path", DEFAULTS.receipt_path)),
            provider=_choice("provider", get("provider", DEFAULTS.provider), Provider),
            model=get("model") or None,
            judge_provider=_choice("judge-provider", judge_provider, Provider) if judge_provider else None,
            judge_model=get("judge-model") or None,
            draws=(draws := _positive_int("draws", get("draws", str(DEFAULTS.draws)))),
            max_draws=_max_draws(get("max-draws", str(DEFAULTS.max_draws)), draws),
            judge_samples=_positive_int("judge-samples", get("judge-samples", str(DEFAULTS.judge_samples))),
            concurrency=_positive_int("concurrency", get("concurrency", str(DEFAULTS.concurrency))),
            timeout=_seconds("timeout", t) if (t := get("timeout")) else None,
            max_retries=_count("max-retries", get("max-retries", str(DEFAULTS.max_retries)), maximum=LIMITS.retries),
            max_consecutive_failures=_count(
                "max-consecutive-failures", get("max-consecutive-failures", str(DEFAULTS.max_consecutive_failures))
            ),
            base_url=_url("input 'base-url'", u) if (u := get("base-url")) else None,
            judge_base_url=_url("input 'judge-base-url'", u) if (u := get("judge-base-url")) else None,
            fail_on=_choice("fail-on", get("fail-on", DEFAULTS.action_fail_on), FailOn),
            judge_mode=_choice("judge-mode", get("judge-mode", DEFAULTS.judge_mode), JudgeMode),
            comment=reach.comment,
            carry_baseline=_boolean("carry-baseline", get("carry-baseline", "true")),
            as_reference=_boolean("as-reference", get("as-reference", "false")),
            placebo=_boolean("placebo", get("placebo", "false")),
            promote=_relative_path("promote", given) if (given := get("promote")) else None,
            github_token=reach.github_token,
            badge_path=_relative_path("badge-path", get("badge-path", DEFAULTS.badge_path)),
            junit=_relative_path("junit", given) if (given := get("junit")) else None,
            shard=_shard(s) if (s := get("shard")) else None,
            sentinel=_boolean("sentinel", get("sentinel", str(DEFAULTS.sentinel).lower())),
            stale_after=_count("stale-after", get("stale-after", str(DEFAULTS.stale_after))),
            budget=_positive_int("budget", b, maximum=LIMITS.tokens) if (b := get("budget")) else DEFAULTS.budget,
            budget_usd=_usd("budget-usd", u) if (u := get("budget-usd")) else DEFAULTS.budget_usd,
            price_table=_relative_path("price-table", given) if (given := get("price-table")) else None,
            workspace=Path(environ.get("GITHUB_WORKSPACE") or "."),
            api_url=reach.api_url,
            server_url=_url("GITHUB_SERVER_URL", environ.get("GITHUB_SERVER_URL") or "https://github.com"),
            output_path=Path(p) if (p := environ.get("GITHUB_OUTPUT")) else None,
            summary_path=Path(p) if (p := environ.get("GITHUB_STEP_SUMMARY")) else None,
        )

    def in_workspace(self, relative: str) -> Path:
        """An input path resolved against the workspace."""
        return self.workspace / relative

    def missing_model_secrets(self, environ: Mapping[str, str]) -> list[str]:
        """For each provider this run calls without a key, its variable names joined by 'or'.

        When ``judge-provider`` is empty the judge is the one fixed judge (anthropic), as for the CLI.
        """
        providers = dict.fromkeys([self.provider, judge_provider_for(self.provider, self.judge_provider)])
        missing = []
        for provider in providers:
            names = API_CREDENTIALS[provider]
            if names and not any(environ.get(n, "").strip() for n in names):
                missing.append(" or ".join(names))
        return missing

    def has_model_secret(self, environ: Mapping[str, str]) -> bool:
        """True when every provider this run calls has its key (always, for ``stub``)."""
        return not self.missing_model_secrets(environ)


def _input(environ: Mapping[str, str], name: str) -> str:
    """``INPUT_<NAME>`` as the runner sets it (hyphens kept), or with ``_``; stripped."""
    key = f"INPUT_{name.replace(' ', '_').upper()}"
    value = environ.get(key)
    if value is None:
        value = environ.get(key.replace("-", "_"), "")
    return value.strip()


def _shown(value: str) -> str:
    """The offending value as it appears in a one-line message: quoted, capped."""
    return repr(value if len(value) <= 60 else value[:57] + "...")


def _positive_int(name: str, value: str, maximum: int = LIMITS.count) -> int:
    """Digits only, from 1 to ``maximum`` (a guard against a typo that would cost a fortune).

    >>> _positive_int("draws", "abc")
    Traceback (most recent call last):
    ...
    driftproof.errors.InputError: input 'draws' must be a positive integer, got 'abc'
    """
    digits = value.lstrip("0")
    if not _DIGITS.fullmatch(value) or not digits:
        raise InputError(f"input '{name}' must be a positive integer, got {_shown(value)}")
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        raise InputError(f"input '{name}' must be at most {maximum}, got {_shown(value)}")
    return int(digits)


def _count(name: str, value: str, maximum: int = LIMITS.count) -> int:
    """Digits only, from 0 to ``maximum``.

    >>> _count("max-retries", "0"), _count("max-retries", "4")
    (0, 4)
    """
    if not _DIGITS.fullmatch(value) or len(value.lstrip("0")) > len(str(maximum)) or int(value) > maximum:
        raise InputError(f"input '{name}' must be a whole number from 0 to {maximum}, got {_shown(value)}")
    return int(value)


def _max_draws(value: str, draws: int) -> int:
    """``max-draws``: a positive integer, at least ``draws`` (the stopping rule draws between the two)."""
    most = _positive_int("max-draws", value)
    if most < draws:
        raise InputError(f"input 'max-draws' ({most}) must be at least input 'draws' ({draws})")
    return most


def _seconds(name: str, value: str) -> float:
    """A number of seconds above 0 and at most a day.

    >>> _seconds("timeout", "90"), _seconds("timeout", "2.5")
    (90.0, 2.5)
    """
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= LIMITS.timeout_s):
        raise InputError(
            f"input '{name}' must be a number of seconds above 0 and at most {LIMITS.timeout_s:g}, got {_shown(value)}"
        )
    return seconds


def _usd(name: str, value: str) -> float:
    """A number of US dollars above 0.

    >>> _usd("budget-usd", "2.50")
    2.5
    """
    try:
        usd = float(value)
    except ValueError:
        usd = math.nan
    if not (math.isfinite(usd) and usd > 0):
        raise InputError(f"input '{name}' must be a number of USD above 0, got {_shown(value)}")
    return usd


def _choice(name: str, value: str, words: type[Word]) -> Word:
    """One of ``words`` (case-insensitive).

    >>> str(_choice("fail-on", "Never", FailOn))
    'never'
    """
    lowered = value.lower()
    if lowered not in tuple(words):
        raise InputError(f"input '{name}' must be one of {', '.join(words)}, got {_shown(value)}")
    return words(lowered)


def _shard(value: str) -> str:
    """``INDEX/COUNT`` (a shard job of a matrix) or ``merge`` (the job after them), normalised.

    >>> _shard("2/3"), _shard("Merge")
    ('2/3', 'merge')
    """
    if value.lower() == MERGE:
        return MERGE
    try:
        spec = parse_shard(value, LIMITS.count)
    except ValueError as exc:
        raise InputError(f"input 'shard' must be INDEX/COUNT (e.g. 1/3) or {MERGE}: {exc}") from None
    return f"{spec.index}/{spec.count}"


def _boolean(name: str, value: str) -> bool:
    """true/false, yes/no, 1/0 in any case."""
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise InputError(f"input '{name}' must be true or false (or yes/no, 1/0), got {_shown(value)}")


def _skills_glob(value: str) -> str | None:
    """The ``skills`` input: a glob relative to the workspace that can only match inside it."""
    if not value:
        return None
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or ".." in parts:
        raise InputError(
            f"input 'skills': a glob relative to the repository root (skills/*/SKILL.md), got {_shown(value)}"
        )
    return value


def _relative_path(name: str, value: str) -> str:
    """A path relative to the workspace that stays inside it, normalised with ``/``."""
    if "\0" in value or value.startswith(("/", "~")) or re.match(r"[A-Za-z]:[\\/]", value):
        raise InputError(f"input '{name}' must be a path relative to the workspace, got {_shown(value)}")
    normal = posixpath.normpath(value.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        raise InputError(f"input '{name}' must stay inside the workspace, got {_shown(value)}")
    if normal == ".":
        raise InputError(f"input '{name}' must name a file, got {_shown(value)}")
    return normal


def _url(variable: str, value: str) -> str:
    """An http(s) base URL without its trailing slash; ``variable`` names it ("environment variable X", "input 'y'")."""
    if not value.startswith(("https://", "http://")) or any(c.isspace() for c in value):
        what = variable if variable.startswith("input ") else f"environment variable {variable}"
        raise InputError(f"{what} must be an http(s) URL, got {_shown(value)}")
    return value.rstrip("/")
