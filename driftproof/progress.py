"""Progress: a bar on a terminal, plain lines in CI logs. Writes to stderr only."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from driftproof.runner import Tally


class PlainProgress:
    """One line every ``every`` calls: calls, retries, lost draws, seconds."""

    def __init__(self, stream: TextIO, label: str, every: int = 50) -> None:
        self.stream, self.label, self.every = stream, label, every
        self.start = time.monotonic()
        self._last = 0

    def __call__(self, event: str, tally: Tally) -> None:
        if event == "call" and tally.logical_calls - self._last >= self.every:
            self._last = tally.logical_calls
            print(f"progress: {self.line(tally)}", file=self.stream, flush=True)

    def line(self, tally: Tally) -> str:
        """The figures so far."""
        retries = max(0, tally.endpoint_attempts - tally.logical_calls)
        lost = f"{tally.lost} lost draw" + ("" if tally.lost == 1 else "s")
        return f"{tally.logical_calls} calls · {retries} retries · {lost} · {time.monotonic() - self.start:.0f} s"

    def close(self, tally: Tally) -> None:
        """The final line."""
        print(f"done: {self.line(tally)}", file=self.stream, flush=True)


class BarProgress(PlainProgress):
    """A rich progress bar over an estimate of the calls, growing when the stopping rule adds draws."""

    def __init__(self, stream: TextIO, label: str, estimate: int) -> None:
        super().__init__(stream, label)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("calls · {task.fields[note]}"),
            TimeElapsedColumn(),
            console=Console(file=stream),
            transient=False,
        )
        self._task = self._bar.add_task(label, total=estimate, note="")
        self._bar.start()

    def __call__(self, event: str, tally: Tally) -> None:
        task = self._bar.tasks[0]
        total = max(task.total or 0, tally.logical_calls)
        retries = max(0, tally.endpoint_attempts - tally.logical_calls)
        self._bar.update(
            self._task, completed=tally.logical_calls, total=total, note=f"{retries} retries · {tally.lost} lost"
        )

    def close(self, tally: Tally) -> None:
        """Stop the bar."""
        self._bar.stop()


def make_progress(label: str, estimate: int, stream: TextIO | None = None) -> PlainProgress:
    """A bar on a terminal, plain lines otherwise (CI)."""
    stream = stream or sys.stderr
    if stream.isatty():
        return BarProgress(stream, label, estimate)
    return PlainProgress(stream, label)
