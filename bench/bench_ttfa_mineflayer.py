"""Time to first action on the mineflayer body, against a flying-squid started here.

Prints, median and p95:
- one poll round trip (``status()`` of a running goto: Python -> Node -> Python),
  against the bare bridge baseline (the adapter's cheapest call, ``status``);
- goto() dispatch: from the call until the handle is back (the body command is sent);
- goto() to first movement: from the call until the bot's position first changes,
  against the seed's 2 s budget and our 500 ms target.

- per leaf, dispatch (the behaviour's first tick: args, guard, pre-observation,
  runner start) to the runner's first body command, for the leaves flying-squid
  supports; the situation is built with /give and /setblock outside the timing.

Run: .venv/bin/python bench/bench_ttfa_mineflayer.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

import py_trees
from bench_ttfa import FirstActionClock, pct  # the sibling script: one clock, one percentile

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.world.body import ActionStatus, BlockPos
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from craftbt.world.mineflayer.server import FlyingSquid

TARGET_MS = 500.0
SEED_BUDGET_MS = 2000.0


def line(label: str, values: list[float]) -> str:
    return f"{label:<34} median {statistics.median(values):8.3f} ms   p95 {pct(values, 0.95):8.3f} ms   n={len(values)}"


def run_leaf(body: MineflayerBody, leaf: str, args: dict[str, Any]) -> float | None:
    """Tick one capability to the end; return dispatch -> first body command in ms (None: no command)."""
    registry = default_registry()
    clock = FirstActionClock()
    node = CapabilityBehaviour(leaf, registry.get(leaf), args, CapabilityContext(body, registry, hooks=clock))
    start = time.perf_counter()
    for _ in range(600):  # 30 s of real time at most
        node.tick_once()
        if node.status != py_trees.common.Status.RUNNING:
            break
        body.advance(1)
    if node.status != py_trees.common.Status.SUCCESS:
        error = node.result.error if node.result else None
        print(f"  {leaf}: {node.status.value} {error.code if error else ''} {error.detail if error else ''}",
              file=sys.stderr)
    return None if clock.first is None else (clock.first - start) * 1000


def give(body: MineflayerBody, player: str, item: str, count: int) -> None:
    """``/give`` and wait (bounded) until the items arrive."""
    before = body.observe().count(item)
    body.chat(f"/give {player} {item} {count}")
    deadline = time.monotonic() + 10
    while body.observe().count(item) < before + count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"/give {item} never arrived")
        time.sleep(0.05)


def per_leaf(body: MineflayerBody, rounds: int) -> dict[str, list[float]]:
    """Leaves flying-squid supports, each in a situation built with /give and /setblock."""
    here = body.position().block()
    name = "bench"
    out: dict[str, list[float]] = {k: [] for k in ("move_to", "place_block_at", "dig_block_at",
                                                   "acquire_material", "chat")}
    give(body, name, "cobblestone", 64)
    give(body, name, "wooden_pickaxe", 1)
    for i in range(rounds):
        side = 3 if i % 2 == 0 else -3
        cell = {"x": here.x + side, "y": here.y, "z": here.z + 2}
        for leaf, args in (
            ("move_to", {"pos": {"x": here.x + side, "y": here.y, "z": here.z}, "range": 1}),
            ("place_block_at", {"position": cell, "block": "cobblestone"}),
            ("dig_block_at", {"position": cell}),
            ("chat", {"message": f"bench {i}"}),
        ):
            ms = run_leaf(body, leaf, args)
            if ms is not None:
                out[leaf].append(ms)
        stone = BlockPos(here.x + side, here.y, here.z - 2)
        body.chat(f"/setblock {stone.x} {stone.y} {stone.z} stone")
        time.sleep(0.3)
        ms = run_leaf(body, "acquire_material", {"item": "stone", "count": 1, "radius": 8})
        if ms is not None:
            out["acquire_material"].append(ms)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    missing = missing_packages(BODY_PACKAGES + SERVER_PACKAGES)
    if missing:
        print(f"cannot run: {setup_hint(missing)}", file=sys.stderr)
        return 1
    with FlyingSquid() as server:
        # flying-squid finishes a login only when the bot looks around; wait for that (tests/e2e/squidkit.py)
        body = MineflayerBody.connect(server.host, server.port, "bench", timeout_s=30, login_settle_s=15.0)
        try:
            baseline = []
            for _ in range(300):
                t = time.perf_counter()
                body.status()
                baseline.append((time.perf_counter() - t) * 1000)
            polls: list[float] = []
            dispatch: list[float] = []
            first_move: list[float] = []
            origin = body.position().block()
            for i in range(args.rounds):
                target = BlockPos(origin.x + (6 if i % 2 == 0 else 0), origin.y, origin.z)
                t_wall = time.time()
                t = time.perf_counter()
                handle = body.goto(target, tolerance=0.0)
                dispatch.append((time.perf_counter() - t) * 1000)
                while True:
                    t = time.perf_counter()
                    status = handle.status()
                    polls.append((time.perf_counter() - t) * 1000)
                    if status is not ActionStatus.RUNNING:
                        break
                    time.sleep(0.005)
                if status is not ActionStatus.SUCCEEDED:
                    print(f"round {i}: goto {status.value}: {handle.error()}", file=sys.stderr)
                    return 1
                moved = handle.timing["first_move"]
                if moved is not None:
                    first_move.append(moved - t_wall * 1000)
            leaves = per_leaf(body, max(4, args.rounds // 2))
        finally:
            body.close()
    base_med = statistics.median(baseline)
    poll_med = statistics.median(polls)
    move_p95 = pct(first_move, 0.95)
    print(line("bridge baseline (status call)", baseline))
    print(line("poll round trip (action status)", polls) + f"   x{poll_med / base_med:.2f} baseline")
    print(line("goto() dispatch (TTFA)", dispatch) + f"   x{statistics.median(dispatch) / base_med:.2f} baseline")
    print(line("goto() -> first movement", first_move))
    print(
        f"first movement p95 {move_p95:.1f} ms = {move_p95 / TARGET_MS:.2f} of the {TARGET_MS:.0f} ms target, "
        f"{move_p95 / SEED_BUDGET_MS:.2f} of the seed's {SEED_BUDGET_MS:.0f} ms budget"
    )
    print(f"per leaf, dispatch -> first body command (target p95 <= {TARGET_MS:.0f} ms):")
    for leaf, values in leaves.items():
        if values:
            flag = "OK" if pct(values, 0.95) <= TARGET_MS else "ABOVE TARGET"
            print("  " + line(leaf, values) + f"   x{statistics.median(values) / base_med:.1f} baseline  {flag}")
        else:
            print(f"  {leaf:<32} no body command issued (see errors above)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
