"""Simulator benchmarks: tick rate with one player and 10 mobs, with 200 dropped items, A* on a 64-block
path, region memory.

Each figure is printed with a ratio against a baseline measured in the same run:
the tick rate against real time (20 ticks/s); the tick rate with dropped items against the same world
with item merging switched off; A* against its 50 ms budget and a
plain breadth-first search over the same cells; memory against the 200 MB budget
and a naive dict-per-block store measured on one chunk column and scaled.
"""

from __future__ import annotations

import math
import time
import tracemalloc
from collections import deque

from craftbt.world.body import TICKS_PER_SECOND
from craftbt.world.mcdata import load
from craftbt.world.sim import pathfinding
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.entities import MERGE_INTERVAL_RESTING
from craftbt.world.sim.generator import FlatGenerator, NaturalGenerator
from craftbt.world.sim.world import World


def tick_rate() -> None:
    world = World(load(), 42, NaturalGenerator(42))
    body = SimBody(world)
    p = world.player.position
    world.rules.do_mob_spawning = False
    for i in range(10):
        name = ("zombie", "pig", "skeleton", "cow", "spider")[i % 5]
        a = i * math.tau / 10
        world.spawn_mob(name, p.x + 12 * math.cos(a), p.y, p.z + 12 * math.sin(a))
    world.clock.set_time_of_day(14000)  # night: hostiles stay alive and chase
    body.advance(20)
    ticks = 4000
    start = time.perf_counter()
    body.advance(ticks)
    wall = time.perf_counter() - start
    rate = ticks / wall
    mobs = sum(1 for e in world.entities.values() if e.kind != "item")
    print(f"tick rate: {rate:,.0f} ticks/s with 1 player and {mobs} mobs "
          f"= {rate / TICKS_PER_SECOND:,.0f}x real time (target >= 2,000 ticks/s = 100x)")


def item_merging() -> None:
    """Ticks/s with 200 dug cobblestone drops lying around the player, merging on vs off, same drops."""
    ticks = 4000  # well under the 6000-tick despawn: every drop lies there throughout
    rates: dict[bool, float] = {}
    entities: dict[bool, int] = {}
    for merge in (True, False):
        world = World(load(), 42, FlatGenerator(), merge_items=merge)
        world.rules.do_mob_spawning = False
        body = SimBody(world)
        drops = _dig_around(body, 200)
        body.advance(MERGE_INTERVAL_RESTING)  # land, and (when on) the first merge pass
        entities[merge] = sum(1 for e in world.entities.values() if e.kind == "item")
        start = time.perf_counter()
        body.advance(ticks)
        rates[merge] = ticks / (time.perf_counter() - start)
    print(f"tick rate with {drops} dug cobblestone drops around the player: {rates[True]:,.0f} ticks/s "
          f"merged into {entities[True]} item entities vs {rates[False]:,.0f} ticks/s with merging off "
          f"({entities[False]} entities) = {rates[True] / rates[False]:.1f}x faster")


def _dig_around(body: SimBody, n: int) -> int:
    """Build ``n`` cobblestone blocks two high in rings 3+ blocks out (beyond the pickup box), then dig them.

    Deterministic: the drops' spawn jitter comes from the world's seeded random.
    """
    rings = sorted(((x, z) for x in range(-8, 9) for z in range(-8, 9) if max(abs(x), abs(z)) >= 3),
                   key=lambda c: (max(abs(c[0]), abs(c[1])), c))
    cells = [(x, y, z) for x, z in rings for y in (64, 65)][:n]
    for cell in cells:
        body.set_block(cell, "cobblestone")
    drops = 0
    for cell in cells:
        drops += sum(count for _, count in body.break_block(cell, tool="diamond_pickaxe"))
    return drops


def astar() -> None:
    body = SimBody(seed=3)
    for x in range(4, 60, 8):  # a field of walls with alternating gaps
        gap = -6 if (x // 8) % 2 else 6
        body.run_command(f"/fill {x} 64 -12 {x} 65 12 cobblestone")
        body.run_command(f"/fill {x} 64 {gap} {x} 65 {gap} air")
    start, goal = (0, 64, 0), (64, 64, 0)
    world = body.world
    pathfinding.find_path(world, start, goal, 0.0)  # generate the chunks first
    runs = 10
    t0 = time.perf_counter()
    for _ in range(runs):
        path = pathfinding.find_path(world, start, goal, 0.0)
    astar_ms = (time.perf_counter() - t0) / runs * 1000
    t0 = time.perf_counter()
    bfs_nodes = _bfs(body, start, goal)
    bfs_ms = (time.perf_counter() - t0) * 1000
    print(f"A* 64-block path through walls: {astar_ms:.1f} ms ({len(path)} steps) "
          f"= {50 / astar_ms:.1f}x under the 50 ms budget; plain BFS over the same cells {bfs_ms:.1f} ms "
          f"({bfs_nodes} nodes) = {bfs_ms / astar_ms:.1f}x the A* time")


def _bfs(body: SimBody, start: tuple[int, int, int], goal: tuple[int, int, int]) -> int:
    seen = {start}
    q = deque([start])
    while q:
        cur = q.popleft()
        if cur == goal:
            break
        x, y, z = cur
        for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (x + dx, y, z + dz)
            if n not in seen and abs(n[2]) < 40 and -20 < n[0] < 90 and body.standable(*n):
                seen.add(n)
                q.append(n)
    return len(seen)


def memory() -> None:
    md = load()
    tracemalloc.start()
    world = World(md, 7, NaturalGenerator(7))
    t0 = time.perf_counter()
    for cx in range(-8, 8):
        for cz in range(-8, 8):
            world.ensure_chunk(cx, cz)
    gen_s = time.perf_counter() - t0
    current = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    mb = current / 1e6
    tracemalloc.start()
    naive = {(x, y, z): "stone" for x in range(16) for z in range(16) for y in range(128)}
    naive_mb = tracemalloc.get_traced_memory()[0] / 1e6 * 256
    tracemalloc.stop()
    del naive
    print(f"memory: {mb:.1f} MB for a generated 256x256x128 region ({256 * 256 * 128:,} blocks, "
          f"{len(world.store.sections)} sections, generated in {gen_s:.1f} s) = {200 / mb:.1f}x under the "
          f"200 MB budget; a dict-per-block store would need ~{naive_mb:,.0f} MB = {naive_mb / mb:.0f}x more")


if __name__ == "__main__":
    tick_rate()
    item_merging()
    astar()
    memory()
