"""A* over standable cells: walk (8 directions), step up one block, bounded drops, optional digging.

A node is the block the player's feet are in. It is standable when the feet
and head cells are free (not solid, not lava) and the cell below is solid.
Edge costs are simulated ticks (walking speed 4.317 blocks/s), so a path's
cost is how long walking it takes. The goal is any node within ``tolerance``
blocks (Euclidean, between block positions) of the target, as in
mineflayer-pathfinder's ``GoalNear``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from craftbt.world.terrain import DIAGONAL_TICKS, FALL_TICKS, JUMP_TICKS, WALK_TICKS
from craftbt.world.terrain import MAX_DROP as TERRAIN_MAX_DROP

if TYPE_CHECKING:
    from craftbt.world.sim.world import World

Pos = tuple[int, int, int]

# the walking costs are world.terrain's (a fight's escape reads the same ones over any body)
WALK, DIAGONAL, JUMP, FALL, MAX_DROP = WALK_TICKS, DIAGONAL_TICKS, JUMP_TICKS, FALL_TICKS, TERRAIN_MAX_DROP
MAX_NODES = 40_000
#: The search budget grows with distance, like mineflayer-pathfinder's think timeout, so an
#: unreachable nearby target (an item resting on a stump) fails in milliseconds, not seconds.
BASE_NODES = 2_000
NODES_PER_BLOCK = 400
CARDINAL: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONALS: tuple[tuple[int, int], ...] = ((1, 1), (1, -1), (-1, 1), (-1, -1))


@dataclass(frozen=True)
class Step:
    pos: Pos
    ticks: float
    dig: tuple[Pos, ...] = field(default=())


class NoPath(Exception):
    def __init__(self, reason: str, expanded: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.expanded = expanded


def find_path(
    world: World,
    start: Pos,
    target: Pos,
    tolerance: float,
    *,
    dig_ticks: Callable[[str], int | None] | None = None,
    max_nodes: int = MAX_NODES,
    max_drop: int = MAX_DROP,
) -> list[Step]:
    """The cheapest path from ``start`` to within ``tolerance`` of ``target``; raises :class:`NoPath`.

    With ``dig_ticks`` (block name -> ticks to break, or None if it may not be
    broken) the search may dig through solid blocks in its way, paying their
    dig time.
    """
    from craftbt.world.sim.flags import BLOCKS_BODY, SOLID

    flags = world.flags
    free_cache: dict[Pos, bool] = {}
    solid_cache: dict[Pos, bool] = {}

    def free(x: int, y: int, z: int) -> bool:
        k = (x, y, z)
        v = free_cache.get(k)
        if v is None:
            v = not flags(x, y, z) & BLOCKS_BODY
            free_cache[k] = v
        return v

    def solid(x: int, y: int, z: int) -> bool:
        k = (x, y, z)
        v = solid_cache.get(k)
        if v is None:
            v = bool(flags(x, y, z) & SOLID)
            solid_cache[k] = v
        return v

    def standable(x: int, y: int, z: int) -> bool:  # flags.standable, over the caches
        return free(x, y, z) and free(x, y + 1, z) and solid(x, y - 1, z)

    tx, ty, tz = target
    tol2 = tolerance * tolerance

    def h(x: int, y: int, z: int) -> float:
        dx, dy, dz = abs(x - tx), abs(y - ty), abs(z - tz)
        lo, hi = (dx, dz) if dx < dz else (dz, dx)
        flat = lo * math.sqrt(2) + (hi - lo)
        return max(0.0, math.sqrt(flat * flat + dy * dy) - tolerance) * WALK

    def goal(x: int, y: int, z: int) -> bool:
        return (x - tx) ** 2 + (y - ty) ** 2 + (z - tz) ** 2 <= tol2

    if goal(*start):
        return []
    if dig_ticks is None and tolerance <= 3 and not _goal_has_standable_cell(target, tolerance, goal, standable):
        raise NoPath("no standable cell within tolerance of the target", 0)
    straight = math.dist(start, target)
    max_nodes = min(max_nodes, BASE_NODES + int(NODES_PER_BLOCK * straight))
    g: dict[Pos, float] = {start: 0.0}
    came: dict[Pos, tuple[Pos, float, tuple[Pos, ...]]] = {}
    counter = 0
    open_heap: list[tuple[float, float, int, Pos]] = [(h(*start), h(*start), 0, start)]
    closed: set[Pos] = set()
    expanded = 0
    while open_heap:
        _, _, _, node = heapq.heappop(open_heap)
        if node in closed:
            continue
        closed.add(node)
        x, y, z = node
        if goal(x, y, z):
            return _rebuild(came, node)
        expanded += 1
        if expanded > max_nodes:
            raise NoPath(f"search gave up after {max_nodes} nodes", expanded)
        base = g[node]
        moves: list[tuple[Pos, float, tuple[Pos, ...]]] = []
        for dx, dz in CARDINAL:
            nx, nz = x + dx, z + dz
            if standable(nx, y, nz):
                moves.append(((nx, y, nz), WALK, ()))
            elif free(nx, y, nz) and free(nx, y + 1, nz):
                # Nothing underfoot: drop to the first floor within max_drop.
                for d in range(1, max_drop + 1):
                    if solid(nx, y - d, nz):
                        break
                    if standable(nx, y - d, nz):
                        moves.append(((nx, y - d, nz), WALK + FALL * d, ()))
                        break
            elif standable(nx, y + 1, nz) and free(x, y + 2, z):
                moves.append(((nx, y + 1, nz), WALK + JUMP, ()))
            elif dig_ticks is not None and solid(nx, y - 1, nz):
                cost = 0.0
                cells: list[Pos] = []
                for cy in (y, y + 1):
                    if free(nx, cy, nz):
                        continue
                    t = dig_ticks(world.name(nx, cy, nz))
                    if t is None:
                        cost = -1.0
                        break
                    cost += t
                    cells.append((nx, cy, nz))
                if cost >= 0:
                    moves.append(((nx, y, nz), WALK + cost, tuple(cells)))
        for dx, dz in DIAGONALS:
            nx, nz = x + dx, z + dz
            if (
                standable(nx, y, nz)
                and free(nx, y, z) and free(nx, y + 1, z)
                and free(x, y, nz) and free(x, y + 1, nz)
            ):
                moves.append(((nx, y, nz), DIAGONAL, ()))
        for nxt, cost, dug in moves:
            if nxt in closed:
                continue
            ng = base + cost
            if ng < g.get(nxt, math.inf):
                g[nxt] = ng
                came[nxt] = (node, cost, dug)
                counter += 1
                hn = h(*nxt)
                heapq.heappush(open_heap, (ng + hn, hn, counter, nxt))
    raise NoPath("no standable route to the target", expanded)


def _goal_has_standable_cell(
    target: Pos, tolerance: float, goal: Callable[[int, int, int], bool], standable: Callable[[int, int, int], bool]
) -> bool:
    reach = math.ceil(tolerance)
    tx, ty, tz = target
    return any(
        goal(x, y, z) and standable(x, y, z)
        for x in range(tx - reach, tx + reach + 1)
        for y in range(ty - reach, ty + reach + 1)
        for z in range(tz - reach, tz + reach + 1)
    )


def _rebuild(came: dict[Pos, tuple[Pos, float, tuple[Pos, ...]]], end: Pos) -> list[Step]:
    steps: list[Step] = []
    node = end
    while node in came:
        prev, cost, dug = came[node]
        steps.append(Step(node, cost, dug))
        node = prev
    steps.reverse()
    return steps


def path_ticks(steps: list[Step]) -> int:
    return math.ceil(sum(s.ticks for s in steps))
