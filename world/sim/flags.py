"""Per-block-state flags the simulation computes once per palette entry, and the world's height.

They sit below the world and the mechanics that read them (block updates, mobs, commands), so
those modules need not import the world back.
"""

from collections.abc import Callable

SOLID = 1  # full collision box: stand on it, cannot walk through it
LIQUID = 2
LAVA = 4
REPLACEABLE = 8  # placing a block here replaces it (air, liquids, grass tufts)
GRAVITY = 16
NEEDS_SUPPORT = 32  # pops off when the block below goes (torches, crops, plants, doors)
CONTAINER = 64
AIRLIKE = 128

#: a cell the body cannot stand in: solid, or lava (of world.terrain's HAZARDS, the one the physics knows)
BLOCKS_BODY = SOLID | LAVA


def standable(flags: Callable[[int, int, int], int], x: int, y: int, z: int) -> bool:
    """world.terrain's standable over the simulator's flags: feet and head cells free of BLOCKS_BODY, a solid
    cell under them. SimBody.standable asks it; the pathfinder walks the same cells (over its caches)."""
    return (not flags(x, y, z) & BLOCKS_BODY and not flags(x, y + 1, z) & BLOCKS_BODY
            and bool(flags(x, y - 1, z) & SOLID))


MIN_Y = -64
MAX_Y = 319
