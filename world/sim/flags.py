"""Per-block-state flags the simulation computes once per palette entry, and the world's height.

They sit below the world and the mechanics that read them (block updates, mobs, commands), so
those modules need not import the world back.
"""

SOLID = 1  # full collision box: stand on it, cannot walk through it
LIQUID = 2
LAVA = 4
REPLACEABLE = 8  # placing a block here replaces it (air, liquids, grass tufts)
GRAVITY = 16
NEEDS_SUPPORT = 32  # pops off when the block below goes (torches, crops, plants, doors)
CONTAINER = 64
AIRLIKE = 128

MIN_Y = -64
MAX_Y = 319
