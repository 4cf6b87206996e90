"""Benchmark: how many rooms a goal run crosses, from the command line and from serve.

A room is a top-level package of craftbt (``core``, ``world``, ``capabilities``, ``trees``, ``planners``,
``executor``, ``router``, ``bot``, ``cli``, ``serve``...; ``craftbt.api`` counts as ``api``). A profiler hook
(``sys.setprofile`` and ``threading.setprofile``, so serve's worker thread is seen too) records every Python
call whose caller and callee are in different rooms: the rooms a run crosses are the rooms any call entered,
the edges the distinct (caller room, callee room) pairs. The goal is the same from both front doors:
``obtain wooden_pickaxe`` on the starter world, seed 27.

Run: ``.venv/bin/python bench/bench_room_walk.py``. The target: serve crosses no more rooms than the CLI
(both doors go through the same application room), as a ratio of the two measured in this run; the
absolute rooms and edges of each are printed beside it, with the rooms each door calls directly (fewer means a
door that leaves the work to the application room), and ``--edges`` lists them.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

GOAL = "obtain wooden_pickaxe"
SEED = 27


def room_of(module: object) -> str | None:
    """``craftbt.executor.pipeline`` -> ``executor``; None outside craftbt."""
    if not isinstance(module, str) or not module.startswith("craftbt."):
        return None
    return module.split(".")[1]


class Walk:
    """The cross-room calls seen while it is installed."""

    def __init__(self) -> None:
        self.rooms: set[str] = set()
        self.edges: set[tuple[str, str]] = set()
        #: one call that crossed each edge: (caller function, callee function), for ``--edges``
        self.example: dict[tuple[str, str], tuple[str, str]] = {}

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = room_of(frame.f_globals.get("__name__"))
        if callee is None:
            return
        self.rooms.add(callee)
        back = frame.f_back
        caller = room_of(back.f_globals.get("__name__")) if back is not None else None
        if caller is not None and caller != callee and (caller, callee) not in self.edges:
            assert back is not None
            self.edges.add((caller, callee))
            self.example[(caller, callee)] = (f"{back.f_globals['__name__']}.{back.f_code.co_name}",
                                              f"{frame.f_globals['__name__']}.{frame.f_code.co_name}")

    @contextmanager
    def installed(self) -> Iterator[None]:
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]


def cli_run(home: Path) -> Callable[[], None]:
    from typer.testing import CliRunner

    from craftbt.cli import app

    def run() -> None:
        done = CliRunner().invoke(app, ["run", "--goal", GOAL, "--seed", str(SEED), "--quiet"],
                                  env={"CRAFTBT_HOME": str(home)})
        if done.exit_code != 0:
            raise SystemExit(f"craftbt run --goal exited {done.exit_code}: {done.output[-400:]}")
    return run


def serve_run(home: Path) -> Callable[[], None]:
    from fastapi.testclient import TestClient

    from craftbt.serve.app import create_app
    from craftbt.serve.launch import BotOptions, make_bot

    token = "bench-token-" + "x" * 24
    auth = {"Authorization": f"Bearer {token}"}

    def run() -> None:
        bot = make_bot(BotOptions(world="starter", seed=SEED, pace_ms=0.0, home=home))
        with TestClient(create_app(bot, token=token, extra_hosts=["testserver"])) as client:
            started = client.post("/api/cognitive/execute", json={"goal": GOAL}, headers=auth)
            if started.status_code != 202:
                raise SystemExit(f"serve refused the goal: {started.status_code} {started.text[-400:]}")
            run_id = started.json()["run_id"]
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                body = client.get(f"/api/runs/{run_id}").json()
                if body["job"]["state"] == "done":
                    if not (body.get("outcome") or {}).get("ok"):
                        raise SystemExit(f"serve's goal run did not succeed: {str(body)[-400:]}")
                    return
                time.sleep(0.05)
            raise SystemExit("serve's goal run did not finish")
    return run


def walk(make: Callable[[Path], Callable[[], None]]) -> Walk:
    with tempfile.TemporaryDirectory() as home:
        run = make(Path(home))
        seen = Walk()
        with seen.installed():
            run()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", action="store_true", help="list the rooms and edges of each walk")
    args = parser.parse_args()
    cli = walk(cli_run)
    serve = walk(serve_run)
    for name, seen in (("cli", cli), ("serve", serve)):
        direct = sorted(callee for caller, callee in seen.edges if caller == name)
        print(f"{name}: {len(seen.rooms)} rooms, {len(seen.edges)} edges; the door calls {len(direct)} rooms "
              f"directly ({', '.join(direct)})")
        if args.edges:
            print("  rooms: " + ", ".join(sorted(seen.rooms)))
            for caller, callee in sorted(seen.edges):
                by, into = seen.example[(caller, callee)]
                print(f"  {caller} -> {callee}   (first: {by} -> {into})")
    report("rooms a goal crosses, serve / CLI", len(serve.rooms) / len(cli.rooms), "x", 1.0,
           Direction.AT_MOST, absolute=f"CLI {len(cli.rooms)} rooms/{len(cli.edges)} edges, serve "
                                       f"{len(serve.rooms)} rooms/{len(serve.edges)} edges")


if __name__ == "__main__":
    main()
