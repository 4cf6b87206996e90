"""Time to first action on the mineflayer body, against a flying-squid started here, before and after.

Every "before" is measured in the same run as its "after", on the same bot:

- bridge baseline: the adapter's cheapest call (``status``), one round trip;
- a tick's reads (position, health, food, inventory, time, nearby entities): one call per field, as
  every read was before (6 round trips), against one ``view`` (what ``MineflayerBody`` now fetches once
  per tick);
- acquire_material's block search (stone within 2, 4 and 8 blocks, exposed): mineflayer's
  ``bot.findBlocks`` (``findBlocksMineflayer``, the old path) against the adapter's one-pass search;
- bridge round trips per executor tick (a tree of move_to, move_to, chat): every read and action poll its
  own call, as before, against one view per tick;
- the planner's survey (``router.survey``: 19 kinds within 48 blocks, exposed), after only: before, it
  outlasted the bridge's 10 s call timeout;
- ``goto()`` to the bot's first movement: the goal planned at the next physics tick (the old path,
  ``planAtDispatch: false``) against the path computed at dispatch; target one game tick (50 ms)
  plus the bridge call that sends the goal;
- per leaf, dispatch (the behaviour's first tick: args, guard, pre-observation, runner start) to the
  runner's first body command, for the leaves flying-squid supports, with the bridge round trips
  the dispatch made; acquire_material also with the old search. Target p95 <= 50 ms (a game tick).

Run: .venv/bin/python bench/bench_ttfa_mineflayer.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import py_trees
from _targets import Direction, report
from bench_ttfa import FirstActionClock, pct  # the sibling script: one clock, one percentile

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.router.router import SURVEY_BLOCKS, SURVEY_RADIUS
from craftbt.trees.loader import from_dict
from craftbt.world.body import ActionStatus, BlockPos
from craftbt.world.mineflayer.body import VIEW_ENTITY_RADIUS, MineflayerAction, MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from craftbt.world.mineflayer.server import FlyingSquid

TICK_MS = 50.0
LEAF_TARGET_MS = TICK_MS
#: acquire_material's search for one stone (interaction.nearest_blocks: r = 2, 4, 8, exposed, 4096 candidates)
SEARCH_RADII = (2, 4, 8)
SEARCH_CANDIDATES = 4096
OLD_ACQUIRE = "acquire_material (before: mineflayer findBlocks)"


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def line(label: str, values: list[float], baseline: list[float] | None = None, note: str = "") -> str:
    ratio = f"   x{statistics.median(values) / statistics.median(baseline):.2f} vs before" if baseline else ""
    return (f"{label:<48} median {statistics.median(values):8.3f} ms   p95 {pct(values, 0.95):8.3f} ms   "
            f"n={len(values)}{ratio}{note}")


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(ms_since(t))
    return out


def run_leaf(body: MineflayerBody, leaf: str, args: dict[str, Any]) -> tuple[float, int] | None:
    """Tick one capability to the end; return (dispatch -> first body command in ms, bridge round trips
    made until then), or None when it issued no body command."""
    registry = default_registry()
    clock = FirstActionClock()
    trips: list[int] = []
    first_action = clock.first_action

    def counted(spec: Any, node: str) -> None:
        first_action(spec, node)
        trips.append(sum(body.round_trips.values()))

    clock.first_action = counted  # type: ignore[method-assign]
    node = CapabilityBehaviour(leaf, registry.get(leaf), args, CapabilityContext(body, registry, hooks=clock))
    before = sum(body.round_trips.values())
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
    if clock.first is None:
        return None
    return (clock.first - start) * 1000, trips[0] - before


def give(body: MineflayerBody, player: str, item: str, count: int) -> None:
    """``/give`` and wait (bounded) until the items arrive."""
    before = body.observe().count(item)
    body.chat(f"/give {player} {item} {count}")
    deadline = time.monotonic() + 10
    while body.observe().count(item) < before + count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"/give {item} never arrived")
        time.sleep(0.05)


@contextmanager
def mineflayer_search(body: MineflayerBody) -> Iterator[None]:
    """The old path for a while: ``find_blocks`` through mineflayer's own ``bot.findBlocks``."""
    def find_blocks(names: list[str], radius: int, max_count: int = 16, *, exposed: bool = False) -> list[BlockPos]:
        found = body._call("findBlocksMineflayer",
                           {"names": names, "radius": radius, "maxCount": max_count, "exposed": exposed})
        return [BlockPos(*p) for p in found]

    body.find_blocks = find_blocks  # type: ignore[method-assign]
    try:
        yield
    finally:
        del body.find_blocks


def set_stone(body: MineflayerBody, pos: BlockPos) -> None:
    body.chat(f"/setblock {pos.x} {pos.y} {pos.z} stone")
    deadline = time.monotonic() + 10
    while body.block_at(pos).name != "stone":
        if time.monotonic() > deadline:
            raise RuntimeError(f"/setblock stone at {tuple(pos)} never arrived")
        time.sleep(0.05)


Samples = dict[str, list[float]]


def per_leaf(body: MineflayerBody, rounds: int) -> tuple[Samples, Samples]:
    """Leaves flying-squid supports, each in a situation built with /give and /setblock (not timed)."""
    here = body.position().block()
    name = body.username
    leaves = ("move_to", "place_block_at", "dig_block_at", "chat", "acquire_material", OLD_ACQUIRE)
    out: Samples = {k: [] for k in leaves}
    trips: Samples = {k: [] for k in leaves}
    give(body, name, "cobblestone", 64)
    give(body, name, "wooden_pickaxe", 1)

    def record(label: str, measured: tuple[float, int] | None) -> None:
        if measured is not None:
            out[label].append(measured[0])
            trips[label].append(measured[1])

    for i in range(rounds):
        side = 3 if i % 2 == 0 else -3
        cell = {"x": here.x + side, "y": here.y, "z": here.z + 2}
        for leaf, args in (
            ("move_to", {"pos": {"x": here.x + side, "y": here.y, "z": here.z}, "range": 1}),
            ("place_block_at", {"position": cell, "block": "cobblestone"}),
            ("dig_block_at", {"position": cell}),
            ("chat", {"message": f"bench {i}"}),
        ):
            record(leaf, run_leaf(body, leaf, args))
        stone = BlockPos(here.x + side, here.y, here.z - 2)
        acquire = {"item": "stone", "count": 1, "radius": 8}
        # before and after alternate which goes first, so neither always meets a fresher server
        for old in ((False, True) if i % 2 == 0 else (True, False)):
            set_stone(body, stone)
            if old:
                with mineflayer_search(body):
                    record(OLD_ACQUIRE, run_leaf(body, "acquire_material", acquire))
            else:
                record("acquire_material", run_leaf(body, "acquire_material", acquire))
    return out, trips


def first_movement(body: MineflayerBody, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """goto() to the bot's first movement, planned at the next tick (before) and at dispatch (after)."""
    origin = body.position().block()
    before: list[float] = []
    after: list[float] = []
    dispatch: list[float] = []
    for i in range(2 * rounds):
        at_dispatch = i % 2 == 1
        target = origin.offset(dx=6) if i % 2 == 0 else origin
        start_wall = time.time()
        t = time.perf_counter()
        handle = body._start("goto", "goto", {"x": target.x, "y": target.y, "z": target.z, "tolerance": 0.0,
                                              "planAtDispatch": at_dispatch})
        if at_dispatch:
            dispatch.append(ms_since(t))
        if finish(handle) is not ActionStatus.SUCCEEDED:
            raise RuntimeError(f"goto {tuple(target)}: {handle.error()}")
        if not handle.result().get("moved"):
            continue
        moved = handle.timing["first_move"]
        if moved is not None:
            (after if at_dispatch else before).append(moved - start_wall * 1000)
    return before, after, dispatch


def executor_trips(body: MineflayerBody, per_read: bool) -> tuple[int, int]:
    """(bridge round trips, ticks) of an executor run of move_to there, move_to back, chat; ``per_read``
    refetches the view at every read, as every read and every action poll was its own call before."""
    def every_read_a_call() -> dict[str, Any]:
        body._forget_view()
        return MineflayerBody._snapshot(body)

    if per_read:
        body._snapshot = every_read_a_call  # type: ignore[method-assign]
    here = body.position().block()
    tree = from_dict({"tree": "trips", "root": {"sequence": {"children": [
        {"leaf": "move_to", "args": {"pos": {"x": here.x + 8, "y": here.y, "z": here.z}, "range": 0.5}},
        {"leaf": "move_to", "args": {"pos": {"x": here.x, "y": here.y, "z": here.z}, "range": 0.5}},
        {"leaf": "chat", "args": {"message": "trips"}},
    ]}}})
    fence = Bounds(min_x=here.x - 32, min_y=here.y - 8, min_z=here.z - 32,
                   max_x=here.x + 32, max_y=here.y + 8, max_z=here.z + 32)
    with tempfile.TemporaryDirectory() as home:
        executor = Executor(default_registry(), body, config=ExecutorConfig(geofence=fence, max_ticks=2000),
                            body_kind="mineflayer", home=Path(home))
        before = sum(body.round_trips.values())
        try:
            outcome = executor.run(tree)
        finally:
            executor.journal.close()
            body.__dict__.pop("_snapshot", None)
    if outcome.status != "success":
        raise RuntimeError(f"executor run: {outcome.status} {outcome.failures}")
    return sum(body.round_trips.values()) - before, outcome.ticks


def finish(handle: MineflayerAction, timeout_s: float = 30.0) -> ActionStatus:
    deadline = time.monotonic() + timeout_s
    while (status := handle.status()) is ActionStatus.RUNNING and time.monotonic() < deadline:
        time.sleep(0.005)
    return status


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
            bridge = timed(body.status, 300)

            def per_field() -> None:
                for _ in range(5):  # position, health, food, inventory, time: one snapshot each
                    body._call("snapshot")
                body._call("entities", {"radius": VIEW_ENTITY_RADIUS, "kind": None})

            reads_before = timed(per_field, 100)
            reads_after = timed(lambda: body._call("view", {"entityRadius": VIEW_ENTITY_RADIUS}), 100)
            body._forget_view()
            counted = sum(body.round_trips.values())
            body.position(), body.health(), body.food(), body.inventory(), body.time_of_day(), body.entities(16)
            tick_trips = sum(body.round_trips.values()) - counted

            set_stone(body, body.position().block().offset(dx=3, dz=-2))
            search_args = [{"names": ["stone"], "radius": r, "maxCount": SEARCH_CANDIDATES, "exposed": True}
                           for r in SEARCH_RADII]
            search_before = timed(lambda: [body._call("findBlocksMineflayer", a) for a in search_args], 20)
            search_after = timed(lambda: [body._call("findBlocks", a) for a in search_args], 20)
            same = all(body._call("findBlocksMineflayer", a) == body._call("findBlocks", a) for a in search_args)

            # the planner's survey: the old path (19 bot.findBlocks calls) outlasted the bridge's 10 s timeout
            survey_ms = timed(lambda: body.nearest_blocks(SURVEY_BLOCKS, SURVEY_RADIUS, exposed=True), 10)
            runs = [executor_trips(body, per_read=i % 2 == 0) for i in range(4)]
            trips_before = [t / ticks for t, ticks in runs[0::2]]
            trips_after = [t / ticks for t, ticks in runs[1::2]]
            move_before, move_after, goto_dispatch = first_movement(body, args.rounds)
            leaves, trips = per_leaf(body, args.rounds)
        finally:
            body.close()

    print(line("bridge baseline (status call)", bridge))
    print(line("a tick's reads, before: 6 calls", reads_before))
    print(line("a tick's reads, after: one view", reads_after, reads_before))
    print(line("stone search r=2,4,8, before: bot.findBlocks", search_before))
    print(line("stone search r=2,4,8, after: one pass", search_after, search_before,
               "   same blocks" if same else "   DIFFERENT BLOCKS"))
    print(line(f"planning survey ({len(SURVEY_BLOCKS)} kinds, r={SURVEY_RADIUS}, exposed)", survey_ms))
    print(line("goto() dispatch, path computed in it", goto_dispatch))
    print(line("goto() -> first movement, before", move_before))
    print(line("goto() -> first movement, after", move_after, move_before))
    print(f"{'round trips per executor tick, before':<48} {statistics.median(trips_before):.2f}   "
          f"(move_to, move_to, chat; every read and poll its own call), n={len(trips_before)}")
    print(f"{'round trips per executor tick, after':<48} {statistics.median(trips_after):.2f}   "
          f"(one view per tick)   x{statistics.median(trips_after) / statistics.median(trips_before):.2f} vs before")
    print(f"per leaf, dispatch -> first body command (target p95 <= {LEAF_TARGET_MS:.0f} ms):")
    for leaf, values in leaves.items():
        if values:
            base = leaves[OLD_ACQUIRE] if leaf == "acquire_material" else None
            note = f"   {statistics.median(trips[leaf]):.0f} round trips"
            print("  " + line(leaf, values, base or None, note))
        else:
            print(f"  {leaf:<46} no body command issued (see errors above)")

    bridge_med = statistics.median(bridge)
    report("mineflayer bridge round trips for a tick's reads", tick_trips, "calls", 1, Direction.AT_MOST,
           absolute=f"one view {statistics.median(reads_after):.2f} ms vs 6 calls "
                    f"{statistics.median(reads_before):.2f} ms, median")
    report("mineflayer bridge round trips per executor tick, after/before",
           statistics.median(trips_after) / statistics.median(trips_before), "x", 1.0, Direction.AT_MOST,
           absolute=f"{statistics.median(trips_after):.2f} vs {statistics.median(trips_before):.2f} per tick")
    move_target = TICK_MS + statistics.median(goto_dispatch)
    report("mineflayer goto -> first movement p95", pct(move_after, 0.95), "ms", round(move_target, 1),
           Direction.AT_MOST,
           absolute=f"x{statistics.median(move_after) / statistics.median(move_before):.2f} of the next-tick "
                    f"path's median ({statistics.median(move_after):.1f} vs {statistics.median(move_before):.1f} ms)")
    for leaf, values in leaves.items():
        if not values or leaf == OLD_ACQUIRE:
            continue
        base = leaves[OLD_ACQUIRE] if leaf == "acquire_material" else None
        ratio = (f"x{statistics.median(values) / statistics.median(base):.2f} of mineflayer findBlocks, "
                 if base else f"x{statistics.median(values) / bridge_med:.0f} the bridge baseline call, ")
        report(f"mineflayer {leaf} dispatch -> first body command p95", pct(values, 0.95), "ms", LEAF_TARGET_MS,
               Direction.AT_MOST, absolute=f"{ratio}median {statistics.median(values):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
