"""Part 3: a full disk, on a small tmpfs mounted for the purpose (root only; skipped with a line otherwise).

Each scenario mounts a fresh tmpfs, puts a valid receipt (and a badge) there, fills what is left with a
filler file, and runs one command that must write there:

- the journal fills the disk mid-run (long answers, 16 KiB left);
- the disk is full from the start (the journal's first line cannot be written);
- the receipt's own write hits the full disk (the journal is a symlink to a roomy directory, so only the
  receipt is written on the tmpfs);
- the answers archive (``--keep-transcripts``) hits the full disk, the same way;
- ``driftproof badge -o`` over an existing badge on the full disk.

Expected of each: exit 2 with one ``driftproof: error:`` line and no traceback, the existing receipt and
badge byte for byte untouched, no temporary file left behind. A file at the receipt path that does not
validate is a corrupted receipt.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks.reliability.common import PartResult, Proc, base_env, repro_cmd, run_cli, temp_dir, write_suite
from benchmarks.reliability.fakes import ScoredModel
from tests.support.fake_llm_server import FakeLLMServer

KEY = "rel-disk-key-0001"
SIZE_KIB = 1024
CASES = ("c0", "c1")


class MountFailed(RuntimeError):
    pass


@contextlib.contextmanager
def tmpfs(size_kib: int) -> Iterator[Path]:
    """A tmpfs of ``size_kib`` KiB on a fresh directory; unmounted (lazily if busy) and removed afterwards."""
    where = Path(tempfile.mkdtemp(prefix="driftproof-rel-tmpfs-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        where.rmdir()
        raise MountFailed(done.stderr.strip() or f"mount exited {done.returncode}")
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def fill(where: Path, leave: int = 0) -> None:
    """Fill the filesystem with one file until it is full, then give ``leave`` bytes back."""
    filler = where / "filler.bin"
    block = b"\0" * 65536
    with filler.open("wb", buffering=0) as f:
        with contextlib.suppress(OSError):
            while True:
                f.write(block)
        with contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 512)
    if leave:
        size = filler.stat().st_size
        os.truncate(filler, max(0, size - leave))


@dataclass(frozen=True)
class Scenario:
    name: str
    pad: int = 0
    leave: int = 0
    journal_elsewhere: bool = False
    keep_transcripts: bool = False
    badge: bool = False


SCENARIOS = (
    Scenario("the journal fills the disk mid-run", pad=3000, leave=16 * 1024),
    Scenario("the disk is full from the start"),
    Scenario("the receipt's write hits the full disk", journal_elsewhere=True),
    Scenario("the answers archive hits the full disk", journal_elsewhere=True, keep_transcripts=True),
    Scenario("driftproof badge -o on the full disk", badge=True),
)


def _run_args(suite: Path, out: Path, url: str, keep: bool) -> list[str]:
    args = [
        "run", str(suite), "-o", str(out), "--base-url", url, "--judge-base-url", url,
        "--draws", "3", "--max-draws", "3", "--judge-samples", "2", "--concurrency", "2",
    ]  # fmt: skip
    return [*args, "--keep-transcripts"] if keep else args


def measure(seed: int) -> PartResult:
    del seed  # nothing here is random
    result = PartResult("3 disk full")
    if os.geteuid() != 0:
        result.skipped = "skipped: not root, so no tmpfs can be mounted"
        return result
    with (
        temp_dir("disk") as tmp,
        FakeLLMServer(ScoredModel(pad=3000)) as long_server,
        FakeLLMServer(ScoredModel()) as server,
    ):
        suite = write_suite(tmp / "suite", CASES)
        env = base_env(tmp, {"ANTHROPIC_API_KEY": KEY})
        reference = tmp / "reference" / "receipt.json"
        proc = run_cli(_run_args(suite, reference, server.base_url, False), env)
        if proc.code != 0:
            result.fail("reference run", f"expected exit 0, got {proc.ending()}")
            return result
        badge = tmp / "reference" / "badge.json"
        run_cli(["badge", str(reference), "-o", str(badge)], env)
        ran = 0
        for scenario in SCENARIOS:
            url = (long_server if scenario.pad else server).base_url
            try:
                _scenario(result, scenario, suite, url, reference, badge, env, tmp)
            except MountFailed as exc:
                result.skipped = f"skipped: mount -t tmpfs failed ({exc})"
                return result
            ran += 1
    result.runs = str(ran)
    result.faults = ran
    result.corrupted = result.corrupted or 0
    return result


def _scenario(
    result: PartResult,
    scenario: Scenario,
    suite: Path,
    url: str,
    reference: Path,
    badge: Path,
    env: dict[str, str],
    tmp: Path,
) -> None:
    with tmpfs(SIZE_KIB) as disk:
        out, badge_out = disk / "receipt.json", disk / "badge.json"
        shutil.copyfile(reference, out)
        shutil.copyfile(badge, badge_out)
        if scenario.journal_elsewhere:
            roomy = tmp / f"journal-{len(result.failures)}-{scenario.keep_transcripts}"
            roomy.mkdir(exist_ok=True)
            (disk / "receipt.json.journal").symlink_to(roomy / "receipt.json.journal")
        fill(disk, scenario.leave)
        if scenario.badge:
            args = ["badge", str(reference), "-o", str(badge_out)]
        else:
            args = _run_args(suite, out, url, scenario.keep_transcripts)
        proc = run_cli(args, env)
        _check(result, scenario.name, proc, args, disk, out, reference, badge_out, badge)


def _check(
    result: PartResult,
    name: str,
    proc: Proc,
    args: list[str],
    disk: Path,
    out: Path,
    reference: Path,
    badge_out: Path,
    badge: Path,
) -> None:
    repro = f"{repro_cmd(args)}  # on a full tmpfs: {name}"
    if not proc.clear_error():
        result.fail(name, f"expected exit 2 with one error line; got {proc.ending()}", repro)
    corrupt = _invalid(out)
    if not out.exists():
        result.fail(name, "the existing receipt is gone", repro)
    elif corrupt is not None:
        result.corrupted = (result.corrupted or 0) + 1
        result.fail(name, f"the file at the receipt path does not validate: {corrupt}", repro)
    elif out.read_bytes() != reference.read_bytes():
        result.fail(name, "the existing receipt was changed", repro)
    if badge_out.read_bytes() != badge.read_bytes():
        result.fail(name, "the existing badge was changed", repro)
    left = sorted(p.name for p in disk.iterdir() if p.name.endswith(".tmp"))
    if left:
        result.fail(name, f"temporary files left behind: {', '.join(left)}", repro)


def _invalid(path: Path) -> str | None:
    from driftproof.errors import DriftproofError
    from driftproof.receipts import load_receipt

    if not path.exists():
        return None
    try:
        load_receipt(path)
    except DriftproofError as exc:
        return str(exc)
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc))
    return None
