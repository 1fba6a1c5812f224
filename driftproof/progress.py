"""Progress: a bar on a terminal, bounded plain lines in CI logs. Writes to the stream it is given only.

In a log, a line comes at each tenth of the calls planned so far (the first round's estimate, growing as the
stopping rule adds draws), with done/planned and the time elapsed, so a long run prints a few dozen lines at
most, never one per call. ``done:`` is printed only when the run finished; an interrupted or stopped run
ends without it. The figures count every logical call the run makes: its draws' answers and judge samples, the
pairwise pass's calls (in the runner's tally) and the judge-anchor canaries' judge calls, which are kept out of
the run's ``logical_calls`` and added here (`PlainProgress.add_outside`).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from driftproof.runner import Tally
from driftproof.safe_text import printable


class PlainProgress:
    """A line at each tenth of the planned calls: done/planned, retries, lost draws, seconds."""

    def __init__(self, stream: TextIO, label: str, estimate: int) -> None:
        self.stream, self.label = stream, label
        self.start = time.monotonic()
        self._estimate = max(1, estimate)
        self._next = self._step(0)
        #: Calls made outside the runner's tally (the canaries' judge calls, which are not the run's
        #: ``logical_calls``), counted in the done and planned figures from when they are made.
        self.outside = 0

    def say(self, line: str) -> None:
        """One line of its own between the progress lines (a ``--batch`` run's batch id, its long waits)."""
        print(printable(line), file=self.stream, flush=True)

    def add_outside(self, calls: int) -> None:
        """``calls`` more were made outside the runner's tally (the judge-anchor canaries, before the first draw)."""
        self.outside += calls

    def _step(self, done: int) -> int:
        return done + max(1, -(-self._estimate // 10))  # a tenth of the plan, rounded up

    def _planned(self, tally: Tally) -> int:
        return max(self._estimate, tally.planned + self.outside, tally.logical_calls + self.outside)

    def _done(self, tally: Tally) -> int:
        return tally.logical_calls + self.outside

    def __call__(self, event: str, tally: Tally) -> None:
        if event != "call" or self._done(tally) < self._next:
            return
        self._estimate = self._planned(tally)
        self._next = self._step(self._done(tally))
        print(f"progress: {self.line(tally)}", file=self.stream, flush=True)

    def line(self, tally: Tally) -> str:
        """The figures so far."""
        retries = tally.retried()
        lost = f"{tally.lost} lost draw" + ("" if tally.lost == 1 else "s")
        elapsed = time.monotonic() - self.start
        return f"{self._done(tally)}/{self._planned(tally)} calls · {retries} retries · {lost} · {elapsed:.0f} s"

    def close(self, tally: Tally, *, finished: bool = True) -> None:
        """The final line, only when the run finished: the calls made against the calls committed to (the first
        round's estimate is dropped: a budget may have refused draws it counted)."""
        if finished:
            self._estimate = 0
            print(f"done: {self.line(tally)}", file=self.stream, flush=True)


class BarProgress(PlainProgress):
    """A rich progress bar over the planned calls, growing when the stopping rule adds draws."""

    def __init__(self, stream: TextIO, label: str, estimate: int) -> None:
        super().__init__(stream, label, estimate)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("{task.description}", markup=False),  # the suite's name: shown as written
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("calls · {task.fields[note]}"),
            TimeElapsedColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self._task = self._bar.add_task(label, total=estimate, note="")
        self._bar.start()

    def say(self, line: str) -> None:
        """One line printed above the bar."""
        self._bar.console.print(printable(line), markup=False, highlight=False)

    def __call__(self, event: str, tally: Tally) -> None:
        retries = tally.retried()
        self._bar.update(
            self._task,
            completed=self._done(tally),
            total=self._planned(tally),
            note=f"{retries} retries · {tally.lost} lost",
        )

    def close(self, tally: Tally, *, finished: bool = True) -> None:
        """Stop the bar."""
        self._bar.stop()


def make_progress(label: str, estimate: int, stream: TextIO | None = None) -> PlainProgress:
    """A bar on a terminal, plain lines otherwise (CI)."""
    stream = stream or sys.stderr
    label = printable(label)  # the suite's name and model ids come from files: no terminal escapes
    if stream.isatty():
        return BarProgress(stream, label, estimate)
    return PlainProgress(stream, label, estimate)
