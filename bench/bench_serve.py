"""Benchmark: ``craftbt serve``'s request latency against a bare FastAPI endpoint, and WebSocket events/s.

Run: ``.venv/bin/python bench/bench_serve.py``. Both apps run under uvicorn in this process, on
127.0.0.1, and one httpx client calls them in turn, so the baseline pays the same loop, client
and GIL as the service:

1. ``GET /api/bot/status`` against a bare ``GET`` returning a dict of the same size: p50/p95 ms;
2. ``POST /api/cognitive/execute`` with a small tree (time to the 202; the run is then waited
   for, untimed, because the bot runs one at a time) against a bare ``POST`` that parses the same
   JSON body and answers 202: p50/p95 ms;
3. WebSocket events per second received by one client while a tree ticks at full speed
   (``--pace-ms 0``), with the tree's ticks per second beside it, and the same tree's ticks per
   second with no client connected.
"""

from __future__ import annotations

import json
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, Request
from websockets.sync.client import connect

from craftbt.serve.app import create_app
from craftbt.serve.launch import BotOptions, make_bot

TOKEN = "bench-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
HELLO_TREE = """\
tree: hello
root:
  sequence:
    children:
      - leaf: chat
        args: {message: "hello"}
      - leaf: wait
        args: {ms: 150}
"""

STATUS_N = 400
EXECUTE_N = 60
#: 3 x 60 s of game time = 3,600 ticks
LONG_TREE = """\
tree: long_wait
root:
  sequence:
    children:
      - {leaf: wait, args: {ms: 60000}}
      - {leaf: wait, args: {ms: 60000}}
      - {leaf: wait, args: {ms: 60000}}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(app: Any) -> tuple[str, uvicorn.Server, threading.Thread]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server, thread


def bare_app(status_body: dict[str, Any]) -> FastAPI:
    app = FastAPI()
    counter = iter(range(10**9))

    @app.get("/status")
    async def status() -> dict[str, Any]:
        return status_body

    @app.post("/execute", status_code=202)
    async def execute(request: Request) -> dict[str, Any]:
        body = json.loads(await request.body())
        return {"run_id": f"run-{next(counter)}", "kind": "tree", "state": "queued", "size": len(body["tree"])}

    return app


def pct(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[int(0.95 * (len(values) - 1))]


def timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def wait_idle(client: httpx.Client, base: str) -> None:
    while client.get(f"{base}/api/bot/status").json()["activity"] != "idle":
        time.sleep(0.005)


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    the_bot = make_bot(BotOptions(pace_ms=0.0, home=home))
    serve_url, serve_server, serve_thread = start(create_app(the_bot, token=TOKEN))
    with httpx.Client() as client:
        status_body = client.get(f"{serve_url}/api/bot/status").json()
        bare_url, bare_server, bare_thread = start(bare_app(status_body))
        for _ in range(50):  # warm both
            client.get(f"{serve_url}/api/bot/status")
            client.get(f"{bare_url}/status")

        serve_status, bare_status = [], []
        for _ in range(STATUS_N):
            serve_status.append(timed(lambda: client.get(f"{serve_url}/api/bot/status").raise_for_status()))
            bare_status.append(timed(lambda: client.get(f"{bare_url}/status").raise_for_status()))

        body = {"tree": HELLO_TREE}
        serve_exec, bare_exec = [], []
        for _ in range(EXECUTE_N):
            serve_exec.append(timed(lambda: client.post(f"{serve_url}/api/cognitive/execute", json=body,
                                                        headers=AUTH).raise_for_status()))
            bare_exec.append(timed(lambda: client.post(f"{bare_url}/execute", json=body).raise_for_status()))
            wait_idle(client, serve_url)

        # the same long tree with nobody listening: what the per-tick events cost the bot itself
        quiet_id = client.post(f"{serve_url}/api/cognitive/execute", json={"tree": LONG_TREE},
                               headers=AUTH).json()["run_id"]
        wait_idle(client, serve_url)
        quiet = client.get(f"{serve_url}/api/runs/{quiet_id}").json()["outcome"]
        quiet_tps = quiet["ticks"] / (quiet["wall_ms"] / 1000)

        ws_url = serve_url.replace("http://", "ws://") + "/ws"
        with connect(ws_url, max_size=None) as ws:
            ws.recv()  # hello
            client.post(f"{serve_url}/api/cognitive/execute", json={"tree": LONG_TREE}, headers=AUTH).raise_for_status()
            events, started, ticks = 0, None, 0
            while True:
                event = json.loads(ws.recv())
                events += 1
                if event["type"] == "executionStarted":
                    started, events = time.perf_counter(), 0
                elif event["type"] == "tick":
                    ticks = event["data"]["tick"]
                elif event["type"] == "executionComplete":
                    break
            assert started is not None
            elapsed = time.perf_counter() - started
    for server in (serve_server, bare_server):
        server.should_exit = True
    serve_thread.join(10)
    bare_thread.join(10)

    print("craftbt serve latency (same process, 127.0.0.1, httpx client; ms)")
    print(f"{'endpoint':34} {'n':>4} {'p50':>7} {'p95':>7}")
    for label, values in [("GET /api/bot/status", serve_status), ("GET bare FastAPI (same body)", bare_status),
                          ("POST /api/cognitive/execute", serve_exec), ("POST bare FastAPI (same body)", bare_exec)]:
        p50, p95 = pct(values)
        print(f"{label:34} {len(values):>4} {p50:7.2f} {p95:7.2f}")
    print(f"WebSocket: {events} events in {elapsed:.2f} s = {events / elapsed:,.0f} events/s "
          f"while a tree ticked {ticks} ticks ({ticks / elapsed:,.0f} ticks/s, pace 0); "
          f"the same tree with no client: {quiet_tps:,.0f} ticks/s")


if __name__ == "__main__":
    main()
