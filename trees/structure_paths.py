"""The interior walkable path (seed 001 cohesion model): door <-> workstation zone <-> storage zone, 2 high.

One bounded breadth-first search over standable cells (:mod:`craftbt.world.terrain`:
a solid floor, feet and head open, no hazard or liquid) inside a box, from the cell in the doorway to within reach of
every anchor. The box bounds the search (the footprint plus a margin), so the
probe stays cheap and deterministic; the same function judges a real world
(the invariant at checkpoints) and a predicted one (the planner's invariant
cost), given a block reader.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable

from craftbt.world import mcdata, terrain
from craftbt.world.body import BlockPos

Reader = Callable[[BlockPos], str | None]
#: An anchor counts as reached from a standable cell next to it (diagonals and one step up or down included).
ANCHOR_REACH = 1.8
#: Never search more cells than this (the box already bounds it; this bounds a huge box).
MAX_CELLS = 20_000


def _clear(read: Reader, p: BlockPos) -> bool:
    name = read(p)
    return name is not None and terrain.open_cell(name, _solid())


def standable(read: Reader, p: BlockPos) -> bool:
    """A player can stand at ``p`` (:func:`craftbt.world.terrain.standable`, the rule every room uses)."""
    return terrain.standable(read, _solid(), p)


@functools.cache
def _solid() -> terrain.Solid:
    return terrain.solid_in(mcdata.load())


def unreached(
    read: Reader, start: BlockPos, anchors: Iterable[BlockPos], lo: BlockPos, hi: BlockPos
) -> list[BlockPos]:
    """The anchors no 2-high walk from ``start`` (inside the ``lo``..``hi`` box) comes within reach of."""
    todo = list(anchors)
    if not standable(read, start):
        return todo
    seen = {start}
    queue = deque([start])
    while queue and todo and len(seen) < MAX_CELLS:
        cur = queue.popleft()
        todo = [a for a in todo if cur.distance_to(a) > ANCHOR_REACH]
        for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            for dy in (0, 1, -1):
                nxt = cur.offset(dx, dy, dz)
                if nxt in seen or not (lo.x <= nxt.x <= hi.x and lo.y <= nxt.y <= hi.y and lo.z <= nxt.z <= hi.z):
                    continue
                # a step up needs headroom over the current cell; a step down, over the next one
                if dy == 1 and not _clear(read, cur.offset(dy=2)):
                    continue
                if dy == -1 and not _clear(read, nxt.offset(dy=2)):
                    continue
                if standable(read, nxt):
                    seen.add(nxt)
                    queue.append(nxt)
                    break
    return todo
