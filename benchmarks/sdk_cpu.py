"""CPU per call of each way of calling a loopback server, outside the runner: which client is cheapest.

For each lane's SDK (``anthropic``, ``openai``), N calls at concurrency C against the loopback server
(separate process, fixed delay): the sync SDK client shared by C threads (what the lanes do), the async SDK
client (``AsyncAnthropic``/``AsyncOpenAI``) driven by C tasks on one event loop, the API lane itself
(``generate``, as the runner calls it: the same request, read into a ``Generation``), and a plain ``httpx2``
client shared by C threads posting the same JSON (no SDK). Reports wall / ideal (``N x delay / C``), this
process's CPU ms per call and the server's. Run: ``.venv/bin/python benchmarks/sdk_cpu.py [--calls 2000]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.runner_overhead import SERVER  # noqa: E402

PROMPT = [{"role": "user", "content": "task 1"}]


def server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threaded(call: Callable[[], Any], calls: int, concurrency: int) -> None:
    with ThreadPoolExecutor(concurrency) as pool:
        for f in [pool.submit(call) for _ in range(calls)]:
            f.result()


LOOP = asyncio.new_event_loop()
"""One event loop for every async call: an async client stays bound to the loop it first ran on."""


def on_one_loop(call: Callable[[], Any], calls: int, concurrency: int) -> None:
    async def main() -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with gate:
                await call()

        await asyncio.gather(*(one() for _ in range(calls)))

    LOOP.run_until_complete(main())


def modes(base_url: str) -> dict[str, tuple[Callable[[], Any], Callable[..., None], Callable[[], None]]]:
    import anthropic
    import httpx2
    import openai

    a_sync = anthropic.Anthropic(api_key="k", base_url=base_url, max_retries=0)
    a_untraced = anthropic.Anthropic(api_key="k", base_url=base_url, max_retries=0, open_telemetry=False)
    a_async = anthropic.AsyncAnthropic(api_key="k", base_url=base_url, max_retries=0)
    o_sync = openai.OpenAI(api_key="k", base_url=f"{base_url}/v1", max_retries=0)
    o_async = openai.AsyncOpenAI(api_key="k", base_url=f"{base_url}/v1", max_retries=0)
    plain = httpx2.Client(limits=httpx2.Limits(max_keepalive_connections=64))
    from driftproof.lanes.anthropic_api import AnthropicApiLane
    from driftproof.lanes.base import GenerationRequest
    from driftproof.lanes.openai_api import OpenAIApiLane

    env = {"ANTHROPIC_BASE_URL": base_url, "OPENAI_BASE_URL": f"{base_url}/v1"}  # loopback: no key
    a_lane, o_lane = AnthropicApiLane("claude-x", environ=env), OpenAIApiLane("gpt-x", environ=env)
    request = GenerationRequest(prompt=PROMPT[0]["content"], max_tokens=64)
    a_args: dict[str, Any] = {"model": "claude-x", "max_tokens": 64, "messages": PROMPT}
    o_args: dict[str, Any] = {"model": "gpt-x", "max_completion_tokens": 64, "messages": PROMPT}
    a_headers = {"x-api-key": "k", "anthropic-version": "2026-10-21"}

    def plain_call() -> None:
        reply = plain.post(f"{base_url}/v1/messages", json=a_args, headers=a_headers)
        reply.json()

    def close_async(client: Any) -> Callable[[], None]:
        return lambda: LOOP.run_until_complete(client.close())

    return {
        "anthropic: sync SDK, threads": (lambda: a_sync.messages.create(**a_args), threaded, a_sync.close),
        "anthropic: async SDK, one loop": (
            lambda: a_async.messages.create(**a_args),
            on_one_loop,
            close_async(a_async),
        ),
        "anthropic: sync SDK, threads, open_telemetry=False": (
            lambda: a_untraced.messages.create(**a_args),
            threaded,
            a_untraced.close,
        ),
        "anthropic: the API lane's generate, threads": (lambda: a_lane.generate(request), threaded, a_lane.close),
        "openai: sync SDK, threads": (lambda: o_sync.chat.completions.create(**o_args), threaded, o_sync.close),
        "openai: async SDK, one loop": (
            lambda: o_async.chat.completions.create(**o_args),
            on_one_loop,
            close_async(o_async),
        ),
        "openai: the API lane's generate, threads": (lambda: o_lane.generate(request), threaded, o_lane.close),
        "plain httpx2 client, threads": (plain_call, threaded, plain.close),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--switch-interval", type=float, default=None, help="sys.setswitchinterval, seconds")
    args = parser.parse_args()
    if args.switch_interval is not None:
        sys.setswitchinterval(args.switch_interval)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(ROOT), str(args.delay)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    base_url = server.stdout.readline().strip()
    ideal = args.calls * args.delay / args.concurrency
    print(
        f"{args.calls} calls, concurrency {args.concurrency}, delay {args.delay} s, {os.cpu_count()} cores, "
        f"GIL switch interval {sys.getswitchinterval() * 1000:g} ms"
    )
    print("| client | wall s | wall / ideal | client CPU ms per call | server CPU ms per call |")
    print("|---|---|---|---|---|")
    try:
        for label, (call, driver, close) in modes(base_url).items():
            driver(call, args.concurrency, args.concurrency)  # warm: connections open, code paths hot
            s0, c0, w0 = server_cpu(server.pid), time.process_time(), time.perf_counter()
            driver(call, args.calls, args.concurrency)
            wall, cpu, scpu = time.perf_counter() - w0, time.process_time() - c0, server_cpu(server.pid) - s0
            close()
            per = 1000 / args.calls
            print(f"| {label} | {wall:.2f} | {wall / ideal:.3f} | {cpu * per:.2f} | {scpu * per:.2f} |")
    finally:
        server.stdin.close()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
