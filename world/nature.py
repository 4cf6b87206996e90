"""Where naturally generated things are found in the overworld: what explorers and planners assume.

Placement knowledge, not registry facts: the y a miner should tunnel at for
each ore (from the 1.21 height distributions, kept above the deep lava), the
blocks found by walking the surface, the expected search effort of each, and
the blocks that exist only in the Nether or the End (truly out of reach for a
bot that never leaves the overworld).
"""

from __future__ import annotations

from craftbt.world.flora import FLOWER_NAMES, FLOWERS
from craftbt.world.loot import ANIMAL_LOOT as ANIMAL_LOOT  # the loot table lives in world.loot
from craftbt.world.loot import ANIMAL_USES
from craftbt.world.loot import HOSTILE_LOOT as HOSTILE_LOOT
from craftbt.world.loot import MOB_LOOT as MOB_LOOT

#: Feet y to branch-mine at for each ore: near the peak of its distribution, above lava at y<=-55.
MINING_Y: dict[str, int] = {
    "coal_ore": 40, "deepslate_coal_ore": 40,
    "copper_ore": 40, "deepslate_copper_ore": 40,
    "iron_ore": 14, "deepslate_iron_ore": 14,
    "lapis_ore": -2, "deepslate_lapis_ore": -2,
    "gold_ore": -20, "deepslate_gold_ore": -20,
    "redstone_ore": -54, "deepslate_redstone_ore": -54,
    "diamond_ore": -54, "deepslate_diamond_ore": -54,
    "emerald_ore": 40, "deepslate_emerald_ore": 40,
}
#: Underground blocks with no preferred depth: dig down until one is in view. (Deepslate lies below y=0:
#: planners reach it only by mining for something down there, so it is no stand-in for stone.)
UNDERGROUND = frozenset({"stone", "cobblestone", "andesite", "diorite", "granite"})
#: Blocks found by walking the surface (trees, plants, sand and gravel by the water).
SURFACE = frozenset({
    "oak_log", "birch_log", "spruce_log", "jungle_log", "acacia_log", "dark_oak_log", "cherry_log",
    "oak_leaves", "birch_leaves", "spruce_leaves", "dirt", "grass_block", "sand", "sandstone", "gravel", "clay",
    "short_grass", "fern", "water", "sugar_cane", *FLOWER_NAMES,
})
#: Expected blocks walked or dug before one is in view, for a planner's cost (not a promise).
SEARCH_BLOCKS: dict[str, int] = {
    "surface": 48, "underground": 12, "shallow_ore": 80, "deep_ore": 200,
}
#: Animal -> the items it drops.
ANIMAL_DROPS: dict[str, tuple[str, ...]] = {a: tuple(i for i, _, _ in loot) for a, loot in ANIMAL_LOOT.items()}


def hunted_for(item: str) -> list[tuple[str, float]]:
    """(mob, expected drops of ``item`` per kill) for every mob that drops it, animals first."""
    return [(mob, (lo + hi) / 2) for mob, loot in MOB_LOOT.items() for i, lo, hi in loot if i == item]


def used_on_for(item: str) -> list[tuple[str, str]]:
    """(animal, item spent) for every living animal that gives ``item`` when that item is used on it (a cow and a
    bucket for a milk bucket): the animal lives, one item spent gives one back. Only animals the natural world
    spawns (those of ANIMAL_LOOT): mooshrooms live on mushroom fields, which it does not generate."""
    return [(animal, used) for (animal, used), gives in ANIMAL_USES.items() if gives == item and animal in ANIMAL_LOOT]


def night_only(mob: str) -> bool:
    """Whether ``mob`` is found only in the dark (a hostile mob: at night on the surface)."""
    return mob in HOSTILE_LOOT


#: Mobs that burn under a bright sky (vanilla's undead): gone in the morning. Spiders and creepers outlive the
#: night on the surface.
UNDEAD = ("zombie", "skeleton")
#: A creeper's lit fuse goes out when the player is farther than this (blocks; vanilla ``SwellGoal``): the world's
#: creepers follow it, and a fight with one walks out beyond it.
FUSE_OUT = 7.0


#: Items a survival bot gets in vanilla that this world or body gives no way to: why, for a refusal.
NO_SOURCE: dict[str, str] = {
    "egg": "the simulated world's chickens lay no eggs",
    "cobweb": "cobwebs grow in mineshafts and strongholds, which the natural world does not generate",
    "ink_sac": "squid do not spawn in the natural world",
    "slime_ball": "slimes do not spawn in the natural world",
    "honeycomb": "bee nests do not generate in the natural world",
}


#: Blocks that generate only in the Nether or the End.
OTHER_DIMENSIONS = frozenset({
    "netherrack", "nether_quartz_ore", "nether_gold_ore", "ancient_debris", "glowstone", "soul_sand",
    "soul_soil", "basalt", "blackstone", "magma_block", "crimson_stem", "warped_stem", "nether_wart",
    "crimson_nylium", "warped_nylium", "shroomlight", "end_stone", "chorus_plant", "chorus_flower",
    "purpur_block", "crying_obsidian", "gilded_blackstone", "nether_bricks", "end_stone_bricks", "dragon_egg",
})


def where(block: str) -> str | None:
    """``surface``, ``underground``, ``shallow_ore``, ``deep_ore``, or None if the overworld lacks it."""
    if block in SURFACE:
        return "surface"
    if block in UNDERGROUND:
        return "underground"
    y = MINING_Y.get(block)
    if y is not None:
        return "deep_ore" if y < 0 else "shallow_ore"
    return None


#: A flower grows in few of the grass columns and only in its biomes: one of three or more biomes (dandelion,
#: poppy) is found like any surface block, one of the two forests (lily of the valley) farther, one of plains
#: alone (tulips, cornflower, azure bluet, oxeye daisy) farther still. Sugar cane needs a shore.
RARE_SURFACE: dict[str, int] = {
    **{f: {1: 96, 2: 64}.get(sum(f in dict(kinds) for kinds in FLOWERS.values()), SEARCH_BLOCKS["surface"])
       for f in FLOWER_NAMES},
    "sugar_cane": 64,
}
#: How far out (blocks from where it began, along the larger of x and z) a search for a rare surface block walks:
#: past its expected distance, as far as it may be. Measured on natural seeds 0-29, the nearest of each from spawn:
#: sugar cane 7-119 blocks (median 59; its expected 64 reached 18 of the 30), lily of the valley 3-104 (median 53;
#: 64 reached 17), the plains flowers 46-158 (medians 79-85; 96 reached 22-24 of 30). 118 is the explore leaf's
#: two far rings past its 48-block start look (48 + 2 x 35), whose views reach some 18 blocks farther.
FAR_SEARCH_REACH = 118


def search_reach(block: str) -> int | None:
    """How far out a search for ``block`` walks: :data:`FAR_SEARCH_REACH` for a rare surface block, else its expected
    distance; None when it is not generated here."""
    return FAR_SEARCH_REACH if block in RARE_SURFACE else search_cost_blocks(block)


def search_cost_blocks(block: str) -> int | None:
    """Expected blocks walked or dug to bring ``block`` into view; None when it is not generated here."""
    kind = where(block)
    return None if kind is None else RARE_SURFACE.get(block, SEARCH_BLOCKS[kind])
