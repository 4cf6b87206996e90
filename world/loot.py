"""What a mob killed by a player drops, by vanilla 1.21.4's entity loot tables: one table for the simulated
world's drops, the test server's plugin and every planner's hunts."""

from __future__ import annotations

#: Mobs and what killing one drops: (item, min, max) per vanilla's entity loot tables
#: (loot_table/entities/<name>.json, 1.21.4, killed by the player, no Looting, not on fire). minecraft-data has
#: no entity loot for 1.21.4 (its 1.20 table, the newest, gives every count as [1, 1] and no wool for a sheep),
#: so this one table is the source: the simulated world drops from it and every planner hunts by it.
ANIMAL_LOOT: dict[str, tuple[tuple[str, int, int], ...]] = {
    "cow": (("leather", 0, 2), ("beef", 1, 3)),
    "pig": (("porkchop", 1, 3),),
    "sheep": (("white_wool", 1, 1), ("mutton", 1, 2)),
    "chicken": (("feather", 0, 2), ("chicken", 1, 1)),
}
#: Hostile mobs (they spawn in the dark: at night on the surface) and their loot, as ANIMAL_LOOT.
HOSTILE_LOOT: dict[str, tuple[tuple[str, int, int], ...]] = {
    "spider": (("string", 0, 2), ("spider_eye", 0, 1)),
    "creeper": (("gunpowder", 0, 2),),
    "skeleton": (("bone", 0, 2), ("arrow", 0, 2)),
    "zombie": (("rotten_flesh", 0, 2),),
}
MOB_LOOT: dict[str, tuple[tuple[str, int, int], ...]] = {**ANIMAL_LOOT, **HOSTILE_LOOT}
#: (animal, item used on it) -> what the item becomes, the animal unharmed (vanilla's interact): an empty bucket
#: milks an adult cow or mooshroom (a calf gives nothing). The simulated world, the test server's plugin, the
#: milking leaf and every planner read this one table.
ANIMAL_USES: dict[tuple[str, str], str] = {("cow", "bucket"): "milk_bucket", ("mooshroom", "bucket"): "milk_bucket"}
