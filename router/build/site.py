"""Choose a build site near the bot: the nearest spot where a template's footprint stands on solid ground.

``craftbt plan/run --goal "build hut"`` without ``--at`` asks for a site here.
A candidate origin (rings around the bot, nearest first) takes the height of
the ground under it; it is a site when every cell the template fills or needs
empty is free (replaceable, not a liquid), every cell of its lowest layer
stands on something solid, and the bot's own column (one block around it) is
outside the footprint. Cells are read with
``body.block_at``; a cell the body cannot read rules the candidate out.
"""

from __future__ import annotations

from craftbt.capabilities.structures import Facing, is_replaceable
from craftbt.trees.structure_template import StructureTemplate, anchor_for
from craftbt.world.body import BlockPos, Body, BodyError
from craftbt.world.terrain import LIQUIDS

#: how far from the bot a site may be (blocks, on each axis)
SITE_RADIUS = 24
#: how far above or below the bot's feet the ground under a candidate may be
GROUND_RANGE = 4


def _free(name: str) -> bool:
    return is_replaceable(name) and name not in LIQUIDS


def _solid(name: str) -> bool:
    return not is_replaceable(name)


class _Reader:
    """``block_at`` names, each cell read once (candidate footprints overlap heavily)."""

    def __init__(self, body: Body) -> None:
        self.body = body
        self.seen: dict[BlockPos, str] = {}

    def name(self, pos: BlockPos) -> str:
        found = self.seen.get(pos)
        if found is None:
            found = self.seen[pos] = self.body.block_at(pos).name
        return found


def _ground(read: _Reader, x: int, z: int, feet_y: int) -> int | None:
    """The y of the first free cell above solid ground in this column, near the bot's height."""
    for y in range(feet_y + GROUND_RANGE, feet_y - GROUND_RANGE - 1, -1):
        if _free(read.name(BlockPos(x, y, z))) and _solid(read.name(BlockPos(x, y - 1, z))):
            return y
    return None


def _cells(template: StructureTemplate, origin: BlockPos, facing: Facing | str) -> list[BlockPos]:
    """Every cell the template places a block in or needs empty, anchored at ``origin``."""
    anchor = anchor_for(origin, facing)
    return [anchor.absolute(c) for s in template.specs().values() for c in (*s.placements, *s.required_empty)]


def _fits(read: _Reader, cells: list[BlockPos], floor: int) -> bool:
    for cell in cells:
        if not _free(read.name(cell)):
            return False
        if cell.y == floor and not _solid(read.name(cell.offset(dy=-1))):
            return False
    return True


def _rings(radius: int) -> list[tuple[int, int]]:
    cells = [(dx, dz) for dx in range(-radius, radius + 1) for dz in range(-radius, radius + 1)]
    return sorted(cells, key=lambda c: (abs(c[0]) + abs(c[1]), c))


def find_site(body: Body, template: StructureTemplate, facing: Facing | str = Facing.N,
              radius: int = SITE_RADIUS) -> BlockPos | None:
    """The nearest origin where ``template`` fits on the ground around the bot, or None."""
    feet = body.position().block()
    read = _Reader(body)
    zero = BlockPos(0, 0, 0)
    shape = _cells(template, zero, facing)  # anchoring is a rotation then a shift: rotate once
    lo0, hi0 = template.footprint(anchor_for(zero, facing))
    for dx, dz in _rings(radius):
        x, z = feet.x + dx, feet.z + dz
        try:
            y = _ground(read, x, z, feet.y)
            if y is None:
                continue
            if x + lo0.x - 1 <= feet.x <= x + hi0.x + 1 and z + lo0.z - 1 <= feet.z <= z + hi0.z + 1:
                continue
            cells = [BlockPos(c.x + x, c.y + y, c.z + z) for c in shape]
            if _fits(read, cells, lo0.y + y):
                return BlockPos(x, y, z)
        except BodyError:
            continue
    return None
