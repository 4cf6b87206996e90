"""The interior walkable path (seed 001 cohesion model): door <-> workstation zone <-> storage zone, 2 high.

One bounded breadth-first search over standable cells (solid below, feet and
head clear) inside a box, from the cell in the doorway to within reach of
every anchor. The box bounds the search (the footprint plus a margin), so the
probe stays cheap and deterministic; the same function judges a real world
(the invariant at checkpoints) and a predicted one (the planner's invariant
cost), given a block reader.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from craftbt.capabilities.structures import is_air, is_replaceable
from craftbt.world.body import BlockPos

Reader = Callable[[BlockPos], str | None]
#: An anchor counts as reached from a standable cell next to it (diagonals and one step up or down included).
ANCHOR_REACH = 1.8
#: Never search more cells than this (the box already bounds it; this bounds a huge box).
MAX_CELLS = 20_000


def _clear(read: Reader, p: BlockPos) -> bool:
    name = read(p)
    return name is not None and (is_air(name) or is_replaceable(name))


def standable(read: Reader, p: BlockPos) -> bool:
    below = read(p.offset(dy=-1))
    return below is not None and not is_replaceable(below) and _clear(read, p) and _clear(read, p.offset(dy=1))


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
