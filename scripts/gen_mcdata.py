"""Generate ``world/data/mcdata-<version>.json.gz`` (the registry data ``world.mcdata`` loads) from npm data.

Usage::

    .venv/bin/python scripts/gen_mcdata.py                 # write the shipped file
    .venv/bin/python scripts/gen_mcdata.py --check         # exit 1 if the shipped file is stale
    .venv/bin/python scripts/gen_mcdata.py --node-modules DIR --version 1.21.4 --out FILE

Sources (all under ``node_modules``; paths for blocks, items, ... follow minecraft-data's
``dataPaths.json`` for the version, so e.g. ``blockLoot`` comes from ``pc/1.20``):

* ``minecraft-data``: blocks, items, recipes, foods, materials, entities, blockLoot, version; its Bedrock
  furnace recipes only cross-check the smelting table.
* smelting: :func:`smelting_table`, mirroring the vanilla data pack (minecraft-data has no furnace recipes
  for Java: PrismarineJS/minecraft-data issue #290; no npm or PyPI package ships them).
* fuels: :func:`fuels`, mirroring ``FuelValues`` (burn times are vanilla code, not data).
* loot numbers and tool conditions blockLoot loses, gravity blocks, a material bug: see the tables next
  to :func:`_loot`, ``GRAVITY_PATTERNS`` and :func:`_material`.
* item tags: :data:`ITEM_TAGS`, mirroring the vanilla tag files the loot conditions test (minecraft-data
  has no item tags).

The output is deterministic (sorted, gzip mtime 0) so ``--check`` and the test that regenerates it can
compare bytes.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FORMAT = 3  # keep in step with world.mcdata.FORMAT

# Vanilla's FallingBlock subclasses (net.minecraft.world.level.block.FallingBlock): minecraft-data has no
# gravity flag, so the generator matches these patterns and fails if any pattern matches no block.
GRAVITY_PATTERNS = (
    r"sand",
    r"red_sand",
    r"suspicious_sand",
    r"gravel",
    r"suspicious_gravel",
    r"(chipped_|damaged_)?anvil",
    r"dragon_egg",
    r"[a-z_]+_concrete_powder",
)


def _read(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


class Sources:
    """minecraft-data files for one version, resolved through ``dataPaths.json``."""

    def __init__(self, node_modules: Path, version: str) -> None:
        self.pkg = node_modules / "minecraft-data"
        self.data = self.pkg / "minecraft-data" / "data"
        paths = _read(self.data / "dataPaths.json")["pc"]
        if version not in paths:
            raise SystemExit(f"minecraft-data has no pc data for {version}")
        self.paths: dict[str, str] = paths[version]
        self.version = version
        self.used: dict[str, str] = {}

    def load(self, key: str) -> Any:
        rel = f"{self.paths[key]}/{key}.json"
        self.used[key] = rel
        return _read(self.data / rel)

    def load_path(self, key: str, rel: str) -> Any:
        self.used[key] = rel
        return _read(self.data / rel)

    @property
    def package_version(self) -> str:
        return str(_read(self.pkg / "package.json")["version"])


def _hardness(value: float | None) -> float | None:
    return None if value is None or value < 0 else float(value)


def _material(block: dict[str, Any], pickaxes: set[str], item_names: dict[int, str]) -> str:
    """The block's effective-tool tag.

    minecraft-data 3.117.0 gives ~90 pickaxe blocks (iron_ore, obsidian, copper blocks, ...) the
    material ``incorrect_for_wooden_tool`` — a tool-tier tag, not a mining tag — so pickaxes would not
    speed them up. Every vanilla block in an ``incorrect_for_*`` tag is in ``mineable/pickaxe``
    (those tags are built from ``needs_*_tool``, which only hold pickaxe blocks); the generator checks
    that each such block's harvest tools are pickaxes before correcting it.
    """
    material = str(block["material"])
    if not material.startswith("incorrect_for_"):
        return material
    tools = {item_names[int(i)] for i in block.get("harvestTools", {})}
    if not tools <= pickaxes:
        raise SystemExit(f"{block['name']}: material {material} with non-pickaxe harvest tools {tools}")
    return "mineable/pickaxe"


# --- blockLoot interpretation ---------------------------------------------------------------------------
# minecraft-data's blockLoot flattens each vanilla loot table into a list of drops. What it keeps: the
# order, silk-touch flags, crop ages, counts, and each entry's chance multiplied by 1/n when the entry was
# one of n alternatives (first matching alternative wins). What it loses: shears and other match_tool
# conditions, table_bonus chances (leaves, gravel), and which count is the no-Fortune base. _loot() rebuilds
# the alternatives groups from the 1/n marks; the tables below restore the lost numbers and conditions,
# each citing its vanilla source.

# 1.21.4 block -> (blockLoot block, item renames): blocks blockLoot (pc/1.20) predates.
LOOT_ALIASES: dict[str, tuple[str, dict[str, str]]] = {
    "short_grass": ("grass", {"grass": "short_grass"}),  # renamed in 1.20.3
    "tall_grass": ("tall_grass", {"grass": "short_grass"}),
    # loot_table/blocks/pale_oak_leaves.json is createLeavesDrops, like birch (1.21.4 block)
    "pale_oak_leaves": ("birch_leaves", {"birch_leaves": "pale_oak_leaves", "birch_sapling": "pale_oak_sapling"}),
}

# Numbers blockLoot loses, from vanilla BlockLootSubProvider / VanillaBlockLoot (1.21.4):
# leaves: NORMAL_LEAVES_SAPLING_CHANCES[0] = 0.05, JUNGLE_LEAVES_SAPLING_CHANGES[0] = 0.025,
#         NORMAL_LEAVES_STICK_CHANCES[0] = 0.02 with count 1-2, apple 0.005 (oak, dark oak);
# gravel: flint table_bonus 0.1; dead_bush: stick count 0-2;
# ores: set_count base counts (apply_bonus ore_drops only adds with Fortune, which is not modelled).
LEAF_FIXES: dict[str, tuple[float, int | None, int | None]] = {
    "sapling": (0.05, None, None),  # any *_sapling, azalea, flowering_azalea
    "jungle_sapling": (0.025, None, None),
    "stick": (0.02, 1, 2),
    "apple": (0.005, None, None),
}
OTHER_FIXES: dict[tuple[str, str], tuple[float | None, int | None, int | None]] = {
    ("gravel", "flint"): (0.1, None, None),
    ("dead_bush", "stick"): (None, 0, 2),
}
ORE_COUNTS = {"coal": (1, 1), "raw_iron": (1, 1), "raw_gold": (1, 1), "diamond": (1, 1), "emerald": (1, 1),
              "quartz": (1, 1), "raw_copper": (2, 5), "lapis_lazuli": (4, 9), "redstone": (4, 5),
              "gold_nugget": (2, 6)}

# match_tool conditions on an item tag, which blockLoot drops (it keeps only silk touch), keyed by block,
# item and blockLoot's count range (one block may list an item twice) -> (item tag in ITEM_TAGS, min, max).
# The tag name becomes the entry's condition. loot_table/blocks/amethyst_cluster.json (1.21.4): 4 shards
# (set_count 4, then apply_bonus ore_drops, which adds only with Fortune: blockLoot's 4-8) when the tool is
# in #cluster_max_harvestables, else 2 (set_count 2, explosion_decay).
TOOL_TAG_FIXES: dict[tuple[str, str, int, int], tuple[str, int, int]] = {
    ("amethyst_cluster", "amethyst_shard", 4, 8): ("cluster_max_harvestables", 4, 4),
}

# Vanilla item tags the loot conditions test, mirroring data/minecraft/tags/item/<tag>.json (1.21.4).
ITEM_TAGS: dict[str, tuple[str, ...]] = {
    "cluster_max_harvestables": ("diamond_pickaxe", "golden_pickaxe", "iron_pickaxe", "netherite_pickaxe",
                                 "stone_pickaxe", "wooden_pickaxe"),
}


def _fix(block: str, item: str, chance: float, lo: int, hi: int) -> tuple[float, int, int]:
    """Apply the numbers above to one entry of ``block``'s loot."""
    fix: tuple[float | None, int | None, int | None] | None = None
    if block.endswith("_leaves"):
        if item == "jungle_sapling":
            fix = LEAF_FIXES["jungle_sapling"]
        elif item.endswith("_sapling") or item in ("azalea", "flowering_azalea"):
            fix = LEAF_FIXES["sapling"]
        elif item in ("stick", "apple"):
            fix = LEAF_FIXES[item]
    elif block.endswith("_ore") and item in ORE_COUNTS:
        fix = (None, *ORE_COUNTS[item])
    else:
        fix = OTHER_FIXES.get((block, item))
    if fix is None:
        return chance, lo, hi
    new_chance, new_lo, new_hi = fix
    return (chance if new_chance is None else new_chance,
            lo if new_lo is None else new_lo,
            hi if new_hi is None else new_hi)


def _loot(block: str, drops: list[dict[str, Any]], renames: dict[str, str], known: set[str]) -> list[list[Any]]:
    """``[item, chance, min, max, condition, block_age, group]`` rows for one block.

    ``group`` 0 marks one ordered alternatives group (the first entry whose condition and chance pass
    drops); ``None`` marks an independent entry. ``condition`` is ``silk_touch`` (never: enchantments are
    not modelled), ``shears`` (only with shears, and then nothing else drops), an :data:`ITEM_TAGS` name
    (only with a tool in that tag: :data:`TOOL_TAG_FIXES`) or ``None``.
    """
    flagged = [d for d in drops if d.get("silkTouch") or d.get("noSilkTouch")]
    n_group = share = 0
    if flagged:
        n_group = share = len(flagged)  # always leading in the data: checked by the caller
    elif drops and drops[0]["dropChance"] < 1:
        n = round(1 / drops[0]["dropChance"])
        if n >= 2 and abs(n * drops[0]["dropChance"] - 1) < 1e-9:
            n_group, share = min(n, len(drops)), n
    rows = []
    for index, d in enumerate(drops):
        item = renames.get(d["item"], d["item"])
        if item not in known:
            continue  # blockLoot is for an older version; the item no longer exists
        lo, hi = d.get("stackSizeRange", [1, 1])
        # Three entries have an open end (the extractor could not bound a formula): use the other.
        lo, hi = (hi if lo is None else lo), (lo if hi is None else hi)
        chance = float(d["dropChance"])
        age = d.get("blockAge")
        group: int | None = None
        condition: str | None = None
        if index < n_group:
            group = 0
            chance = min(1.0, chance * share)
            if d.get("silkTouch"):
                condition = "silk_touch"
            elif not flagged and index == 0 and n_group == 2 and age is None:
                condition = "shears"  # leaves, grass, ferns, cobweb, dead bush, vines
        tool_tag = TOOL_TAG_FIXES.get((block, item, int(lo), int(hi)))
        if tool_tag is not None:
            condition, lo, hi = tool_tag
        chance, lo, hi = _fix(block, item, chance, int(lo), int(hi))
        rows.append([item, round(chance, 6), lo, hi, condition, age, group])
    return rows


def blocks(src: Sources, item_names: dict[int, str]) -> list[dict[str, Any]]:
    raw = sorted(src.load("blocks"), key=lambda b: b["id"])
    loot_raw: dict[str, list[dict[str, Any]]] = {}
    for entry in src.load("blockLoot"):
        loot_raw.setdefault(entry["block"], entry["drops"])  # a few blocks repeat: keep the first
    pickaxes = {n for n in item_names.values() if n.endswith("_pickaxe")}
    gravity_re = re.compile("|".join(f"(?:{p})" for p in GRAVITY_PATTERNS))
    known_items = set(item_names.values())
    out = []
    matched_patterns: set[str] = set()
    for b in raw:
        name = b["name"]
        gravity = gravity_re.fullmatch(name) is not None
        for p in GRAVITY_PATTERNS:
            if re.fullmatch(p, name):
                matched_patterns.add(p)
        loot_block, renames = LOOT_ALIASES.get(name, (name, {}))
        drops = loot_raw.get(loot_block, [])
        flags = [bool(d.get("silkTouch") or d.get("noSilkTouch")) for d in drops]
        if flags != sorted(flags, reverse=True):
            raise SystemExit(f"{loot_block}: silk-touch alternatives are not leading in blockLoot")
        out.append({
            "id": b["id"],
            "name": name,
            "hardness": _hardness(b.get("hardness")),
            "diggable": bool(b["diggable"]),
            "solid": b["boundingBox"] == "block",
            "transparent": bool(b["transparent"]),
            "emit_light": int(b["emitLight"]),
            "filter_light": int(b["filterLight"]),
            "material": _material(b, pickaxes, item_names),
            "harvest_tools": sorted(item_names[int(i)] for i in b.get("harvestTools", {})),
            "drops": [item_names[int(i)] for i in b.get("drops", []) if int(i) in item_names],
            "gravity": gravity,
            "loot": _loot(name, drops, renames, known_items),
            "max_state": int(b["maxStateId"]) - int(b["minStateId"]),
        })
    missing = set(GRAVITY_PATTERNS) - matched_patterns
    if missing:
        raise SystemExit(f"gravity patterns match no block: {sorted(missing)}")
    _check_tool_tag_fixes(out)
    return out


def _check_tool_tag_fixes(blocks_out: list[dict[str, Any]]) -> None:
    """Fail if a TOOL_TAG_FIXES entry matched nothing (blockLoot changed) or names a tag ITEM_TAGS lacks."""
    loot = {b["name"]: b["loot"] for b in blocks_out}
    for (block, item, _, _), (tag, _, _) in TOOL_TAG_FIXES.items():
        if tag not in ITEM_TAGS:
            raise SystemExit(f"TOOL_TAG_FIXES: {block} names item tag {tag}, which ITEM_TAGS lacks")
        if not any(row[0] == item and row[4] == tag for row in loot.get(block, [])):
            raise SystemExit(f"TOOL_TAG_FIXES: no {item} entry of {block} matched in blockLoot")


def materials(src: Sources, item_names: dict[int, str]) -> dict[str, dict[str, float]]:
    raw = src.load("materials")
    return {
        mat: {item_names[int(i)]: float(speed) for i, speed in sorted(tools.items(), key=lambda t: int(t[0]))}
        for mat, tools in sorted(raw.items())
        if ";" not in mat  # combined materials are recomputed from their parts by the loader
    }


def _grid_names(rows: Iterable[Iterable[int | None]], item_names: dict[int, str]) -> list[list[str | None]]:
    return [[None if i is None else item_names[int(i)] for i in row] for row in rows]


def _log_families(raw: dict[str, list[dict[str, Any]]], item_names: dict[int, str]) -> dict[str, list[str]]:
    """Vanilla's per-tree log tags (#oak_logs = oak_log, oak_wood, stripped_oak_log, stripped_oak_wood, ...).

    minecraft-data expands the #logs tag in the campfire recipe but collapses each #<tree>_logs tag in
    the planks recipes to its first member. #logs is the union of the per-tree tags, so grouping the
    campfire's log ingredients by tree name recovers them from the data.
    """
    name_to_id = {v: k for k, v in item_names.items()}
    logs: set[str] = set()
    for r in raw[str(name_to_id["campfire"])]:
        for row in r["inShape"]:
            logs.update(item_names[int(i)] for i in row if i is not None)
    logs -= {"stick", "coal", "charcoal"}
    families: dict[str, list[str]] = {}
    for log in sorted(logs):
        tree = re.sub(r"_(log|wood|stem|hyphae)$", "", log.removeprefix("stripped_"))
        families.setdefault(tree, []).append(log)
    return families


#: Vanilla's ``dye_<colour>_<kind>`` recipes (``data/minecraft/recipe/dye_<colour>_{wool,carpet,bed}.json``,
#: 1.21.2+) take the dye and any item of the kind in the 15 other colours; minecraft-data keeps only the
#: first alternative (``black_<kind>``), so a white wool could never be dyed. The generator widens that slot.
DYED_KINDS = ("wool", "carpet", "bed")
COLOURS = ("white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
           "purple", "blue", "brown", "green", "red", "black")


def _dye_slot(result: str, cells: list[str]) -> tuple[str, list[str]] | None:
    """``(dye, the 15 recolourable items)`` of a ``dye_<colour>_<kind>`` recipe, else ``None``."""
    for kind in DYED_KINDS:
        colour = result.removesuffix("_" + kind)
        if colour != result and colour in COLOURS and len(cells) == 2 and f"{colour}_dye" in cells:
            return f"{colour}_dye", [f"{c}_{kind}" for c in COLOURS if c != colour]
    return None


def _variants(raw: dict[str, list[dict[str, Any]]], item_names: dict[int, str],
              families: dict[str, list[str]]) -> dict[tuple[Any, ...], list[list[str | None]]]:
    """minecraft-data's recipes as concrete variants (one per tag member), grouped by result, count and grid
    layout: a group's variants are the expansions of one vanilla recipe's tags."""
    groups: dict[tuple[Any, ...], list[list[str | None]]] = {}
    for result_id in sorted(raw, key=int):
        for r in raw[result_id]:
            result = item_names[int(r["result"]["id"])]
            count = int(r["result"].get("count", 1))
            if "inShape" in r:
                shape = _grid_names(r["inShape"], item_names)
                key: tuple[Any, ...] = (result, count, tuple(tuple(c is None for c in row) for row in shape))
                groups.setdefault(key, []).append([c for row in shape for c in row])
                continue
            names: list[str | None] = [item_names[int(i)] for i in r["ingredients"]]
            key = (result, count, len(names))
            tree = re.sub(r"_(log|stem)$", "", str(names[0])) if len(names) == 1 else ""
            if result.endswith("_planks") and tree in families:
                # the data's own ingredient first, then the rest of its tag
                groups.setdefault(key, []).extend([[m] for m in [str(names[0]),
                                                                  *(m for m in families[tree] if m != names[0])]])
            else:
                groups.setdefault(key, []).append(names)
    return groups


def recipes(src: Sources, item_names: dict[int, str]) -> list[dict[str, Any]]:
    """Each vanilla recipe once, its cells grouped into slots of alternatives (vanilla's tags).

    minecraft-data expands a tag into one recipe per member. Cells whose values move together across a
    group's variants were one tag: each such class becomes one slot (``[options, count]``) whose options
    may be mixed in a craft (oak and birch planks in one chest), as vanilla allows. A shaped recipe's
    ``shape`` holds slot indices (``None`` for an empty cell); a shapeless one has ``shape: null``.
    """
    raw = src.load("recipes")
    families = _log_families(raw, item_names)
    item_ids = {name: i for i, name in item_names.items()}
    out = []
    for key, variants in _variants(raw, item_names, families).items():
        result, count, layout = key
        n = len(variants[0])
        # cells with the same column of values across the variants are one slot
        slot_of: dict[tuple[str | None, ...], int] = {}
        cell_slot: list[int | None] = []
        for i in range(n):
            column = tuple(v[i] for v in variants)
            if column[0] is None:
                cell_slot.append(None)
                continue
            cell_slot.append(slot_of.setdefault(column, len(slot_of)))
        # options in item-id order (the creative menu's: oak before pale oak, cobblestone before blackstone)
        slots: list[list[Any]] = [[sorted({str(c) for c in column}, key=item_ids.__getitem__), 0]
                                  for column in slot_of]
        for s in cell_slot:
            if s is not None:
                slots[s][1] += 1
        if len(slots) == 2 and not isinstance(layout, tuple):
            dyed = _dye_slot(result, [str(c) for c in variants[0]])
            if dyed is not None:
                for slot in slots:
                    if slot[0] != [dyed[0]]:
                        slot[0] = sorted(dyed[1], key=item_ids.__getitem__)
        shape = None
        if isinstance(layout, tuple):
            width = len(layout[0])
            shape = [cell_slot[r * width:(r + 1) * width] for r in range(len(layout))]
        out.append({"result": result, "count": count, "shape": shape, "slots": slots})
    out.sort(key=lambda r: (r["result"], r["count"], json.dumps(r["slots"])))
    return out


def foods(src: Sources) -> list[list[Any]]:
    return [[f["name"], int(f["foodPoints"]), float(f["saturation"])]
            for f in sorted(src.load("foods"), key=lambda f: f["id"])]


def _entity_category(e: dict[str, Any]) -> str:
    if e["type"] == "player":
        return "player"
    return {
        "Hostile mobs": "hostile",
        "Passive mobs": "passive",
        "Projectiles": "projectile",
        "Vehicles": "vehicle",
    }.get(e.get("category", ""), "other")


def entities(src: Sources) -> list[list[Any]]:
    return [[e["id"], e["name"], e["type"], _entity_category(e), float(e["width"]), float(e["height"])]
            for e in sorted(src.load("entities"), key=lambda e: e["id"])]


# --- Tables that mirror vanilla code or data-pack files ------------------------------------------------
# minecraft-data has no furnace recipes for any Java version (PrismarineJS/minecraft-data issue #290:
# its extractor skips minecraft:smelting recipes) and no fuel data (burn times are Java code, not data);
# no npm or PyPI package ships either for Java 1.21.4. These two tables mirror the vanilla sources named
# in each comment. Where the vanilla file uses an item tag, the rule names how the tag is expanded over
# minecraft-data's 1.21.4 item list, so new wood types or colours come from the data, not from here.
# smelting() cross-checks the table against minecraft-data's Bedrock furnace recipes and fails on any
# disagreement, so a typo in an item name or output cannot slip through.

NON_FLAMMABLE_WOOD = ("crimson", "warped")  # vanilla #non_flammable_wood


def _wood_types(known: set[str]) -> list[str]:
    """Wood families that burn, from the ``<wood>_planks`` items (vanilla #planks minus non-flammable)."""
    return sorted(n[: -len("_planks")] for n in known if n.endswith("_planks")
                  and not n.startswith(NON_FLAMMABLE_WOOD))


def _colours(known: set[str]) -> list[str]:
    return sorted(n[: -len("_wool")] for n in known if n.endswith("_wool"))


def _logs_that_burn(known: set[str]) -> list[str]:
    """Vanilla #logs_that_burn: every log and wood (stripped or not) of a burnable tree (not bamboo)."""
    out = []
    for wood in _wood_types(known):
        for form in (f"{wood}_log", f"{wood}_wood", f"stripped_{wood}_log", f"stripped_{wood}_wood"):
            if form in known:
                out.append(form)
    return out


_GEAR = ("pickaxe", "shovel", "axe", "hoe", "sword", "helmet", "chestplate", "leggings", "boots", "horse_armor")


def smelting_table(known: set[str]) -> list[tuple[str, str, float]]:
    """``(input, output, experience)`` for every ``minecraft:smelting`` recipe in the 1.21.4 data pack.

    Mirrors ``data/minecraft/recipe/*.json`` of type ``minecraft:smelting`` (all cook for the default
    200 ticks). File names in comments.
    """
    rows: list[tuple[str, str, float]] = []

    def add(output: str, xp: float, *inputs: str) -> None:
        rows.extend((i, output, xp) for i in inputs)

    # iron_ingot_from_smelting_{iron_ore,deepslate_iron_ore,raw_iron}.json, gold_..., copper_...
    add("iron_ingot", 0.7, "iron_ore", "deepslate_iron_ore", "raw_iron")
    add("gold_ingot", 1.0, "gold_ore", "deepslate_gold_ore", "nether_gold_ore", "raw_gold")
    add("copper_ingot", 0.7, "copper_ore", "deepslate_copper_ore", "raw_copper")
    # coal_from_smelting_*.json, diamond_..., emerald_..., lapis_lazuli_..., redstone_..., quartz.json
    add("coal", 0.1, "coal_ore", "deepslate_coal_ore")
    add("diamond", 1.0, "diamond_ore", "deepslate_diamond_ore")
    add("emerald", 1.0, "emerald_ore", "deepslate_emerald_ore")
    add("lapis_lazuli", 0.2, "lapis_ore", "deepslate_lapis_ore")
    add("redstone", 0.7, "redstone_ore", "deepslate_redstone_ore")
    add("quartz", 0.2, "nether_quartz_ore")
    add("netherite_scrap", 2.0, "ancient_debris")  # netherite_scrap.json
    # cooked_*.json, baked_potato.json, dried_kelp_from_smelting.json
    for raw, cooked in (("beef", "cooked_beef"), ("chicken", "cooked_chicken"), ("cod", "cooked_cod"),
                        ("salmon", "cooked_salmon"), ("mutton", "cooked_mutton"),
                        ("porkchop", "cooked_porkchop"), ("rabbit", "cooked_rabbit"),
                        ("potato", "baked_potato")):
        add(cooked, 0.35, raw)
    add("dried_kelp", 0.1, "kelp")
    add("charcoal", 0.15, *_logs_that_burn(known))  # charcoal.json: #logs_that_burn
    add("glass", 0.1, "sand", "red_sand")  # glass.json: #smelts_to_glass
    add("stone", 0.1, "cobblestone")  # stone.json
    add("smooth_stone", 0.1, "stone")  # smooth_stone.json
    add("deepslate", 0.1, "cobbled_deepslate")  # deepslate.json
    add("brick", 0.3, "clay_ball")  # brick.json
    add("nether_brick", 0.1, "netherrack")  # nether_brick.json
    add("terracotta", 0.35, "clay")  # terracotta.json
    for colour in _colours(known):  # <colour>_glazed_terracotta.json
        add(f"{colour}_glazed_terracotta", 0.1, f"{colour}_terracotta")
    add("smooth_sandstone", 0.1, "sandstone")
    add("smooth_red_sandstone", 0.1, "red_sandstone")
    add("smooth_quartz", 0.1, "quartz_block")
    add("smooth_basalt", 0.1, "basalt")
    add("cracked_stone_bricks", 0.1, "stone_bricks")
    add("cracked_nether_bricks", 0.1, "nether_bricks")
    add("cracked_polished_blackstone_bricks", 0.1, "polished_blackstone_bricks")
    add("cracked_deepslate_bricks", 0.1, "deepslate_bricks")
    add("cracked_deepslate_tiles", 0.1, "deepslate_tiles")
    add("green_dye", 1.0, "cactus")
    add("lime_dye", 0.1, "sea_pickle")
    add("popped_chorus_fruit", 0.1, "chorus_fruit")
    add("sponge", 0.15, "wet_sponge")
    add("resin_brick", 0.3, "resin_clump")  # resin_brick.json (new in 1.21.4)
    # iron_nugget_from_smelting.json / gold_nugget_from_smelting.json
    add("iron_nugget", 0.1, *(f"iron_{g}" for g in _GEAR),
        *(f"chainmail_{g}" for g in ("helmet", "chestplate", "leggings", "boots")))
    add("gold_nugget", 0.1, *(f"golden_{g}" for g in _GEAR))
    unknown = sorted({n for row in rows for n in row[:2]} - known)
    if unknown:
        raise SystemExit(f"smelting table names items 1.21.4 does not have: {unknown}")
    return rows


# Bedrock names that are a different Java item (Bedrock's nether_brick block is Java's nether_bricks).
BEDROCK_TO_JAVA = {"nether_brick": "nether_bricks"}


def _bedrock_furnace(src: Sources) -> dict[str, set[str]]:
    """input -> outputs of minecraft-data's newest Bedrock furnace recipes (a cross-check only)."""
    candidates = sorted(src.data.glob("bedrock/*/recipes.json"),
                        key=lambda p: [int(x) for x in p.parent.name.split(".")])
    if not candidates:
        raise SystemExit("minecraft-data has no bedrock recipes.json to cross-check smelting against")
    raw = src.load_path("smelting_crosscheck", str(candidates[-1].relative_to(src.data)))
    out: dict[str, set[str]] = {}
    for r in raw.values():
        if r["type"] == "furnace":
            inp = BEDROCK_TO_JAVA.get(r["ingredients"][0]["name"], r["ingredients"][0]["name"])
            out.setdefault(inp, set()).add(BEDROCK_TO_JAVA.get(r["output"][0]["name"], r["output"][0]["name"]))
    return out


def smelting(src: Sources, known: set[str]) -> list[list[Any]]:
    """``[input, output, count, cook_ticks, experience]`` rows, sorted by input.

    Every Bedrock furnace recipe whose input and output are both Java 1.21.4 items (and differ: Bedrock
    encodes variants like smooth sandstone as metadata on the same name) must agree with the table.
    """
    rows = smelting_table(known)
    by_input: dict[str, list[Any]] = {}
    for inp, out, xp in rows:
        if inp in by_input:
            raise SystemExit(f"smelting table has two recipes for {inp}")
        by_input[inp] = [inp, out, 1, 200, xp]
    disagreements = []
    for inp, outs in sorted(_bedrock_furnace(src).items()):
        for out in sorted(outs):
            if inp in known and out in known and inp != out and by_input.get(inp, [None, None])[1] != out:
                disagreements.append(f"{inp} -> {out}")
    if disagreements:
        raise SystemExit(f"smelting table disagrees with Bedrock furnace recipes: {disagreements}")
    return [by_input[k] for k in sorted(by_input)]


def item_tags(known: set[str]) -> dict[str, list[str]]:
    """:data:`ITEM_TAGS` as sorted lists; fails if a tag names an item 1.21.4 does not have."""
    unknown = sorted({name for members in ITEM_TAGS.values() for name in members} - known)
    if unknown:
        raise SystemExit(f"item tags name items 1.21.4 does not have: {unknown}")
    return {tag: sorted(members) for tag, members in sorted(ITEM_TAGS.items())}


def fuels(known: set[str]) -> dict[str, int]:
    """Furnace burn times in ticks, mirroring ``FuelValues.vanillaBurnTimes`` (Java 1.21.2+ code).

    Tag-based lines are expanded from the item list: wood families from ``<wood>_planks`` (minus
    #non_flammable_wood, which vanilla removes at the end), colours from ``<colour>_wool``.
    """
    woods = _wood_types(known)
    colours = _colours(known)
    out: dict[str, int] = {}

    def add(ticks: int, *names: str) -> None:
        for n in names:
            if n in known:
                out[n] = ticks

    add(20000, "lava_bucket")
    add(16000, "coal_block")
    add(2400, "blaze_rod")
    add(1600, "coal", "charcoal")  # #coals
    add(300, *_logs_that_burn(known), "bamboo_block", "stripped_bamboo_block")  # #logs, #bamboo_blocks
    for wood in woods:
        add(300, f"{wood}_planks", f"{wood}_stairs", f"{wood}_trapdoor", f"{wood}_pressure_plate",
            f"{wood}_fence", f"{wood}_fence_gate")
        add(150, f"{wood}_slab")
        add(200, f"{wood}_sign", f"{wood}_door")
        add(800, f"{wood}_hanging_sign")
        add(100, f"{wood}_button", f"{wood}_sapling")
        add(1200, f"{wood}_boat", f"{wood}_chest_boat", f"{wood}_raft", f"{wood}_chest_raft")
    add(300, "bamboo_mosaic", "bamboo_mosaic_stairs")
    add(150, "bamboo_mosaic_slab")
    add(300, "note_block", "bookshelf", "chiseled_bookshelf", "lectern", "jukebox", "chest", "trapped_chest",
        "crafting_table", "daylight_detector", "bow", "fishing_rod", "ladder", "crossbow", "mangrove_roots",
        "composter", "barrel", "cartography_table", "fletching_table", "smithing_table", "loom")
    for colour in colours:
        add(300, f"{colour}_banner")
        add(100, f"{colour}_wool")
        add(67, f"{colour}_carpet")
    add(200, "wooden_shovel", "wooden_sword", "wooden_hoe", "wooden_axe", "wooden_pickaxe")
    add(100, "stick", "bowl", "dead_bush", "azalea", "flowering_azalea", "mangrove_propagule")  # + #saplings
    add(4001, "dried_kelp_block")
    add(50, "bamboo", "scaffolding")
    return dict(sorted(out.items()))


def generate(node_modules: Path, version: str) -> bytes:
    src = Sources(node_modules, version)
    items_raw = sorted(src.load("items"), key=lambda i: i["id"])
    item_names = {int(i["id"]): str(i["name"]) for i in items_raw}
    known = set(item_names.values())
    version_info = src.load("version")
    payload = {
        "blocks": blocks(src, item_names),
        "items": [[i["id"], i["name"], int(i["stackSize"])] for i in items_raw],
        "materials": materials(src, item_names),
        "recipes": recipes(src, item_names),
        "foods": foods(src),
        "entities": entities(src),
        "smelting": smelting(src, known),
        "fuels": fuels(known),
        "item_tags": item_tags(known),
    }
    header = {
        "format": FORMAT,
        "minecraft_version": version_info["minecraftVersion"],
        "protocol_version": version_info["version"],
        "minecraft_data_version": src.package_version,
        "generator": "scripts/gen_mcdata.py",
        "sources": {k: f"minecraft-data/data/{v}" for k, v in sorted(src.used.items())},
        "tables": {
            "smelting": "scripts/gen_mcdata.py smelting_table(): mirrors the 1.21.4 data pack's "
                        "minecraft:smelting recipes; cross-checked against sources.smelting_crosscheck",
            "fuels": "scripts/gen_mcdata.py fuels(): mirrors FuelValues.vanillaBurnTimes (1.21.2+ code)",
            "loot": "scripts/gen_mcdata.py LOOT_ALIASES, LEAF_FIXES, OTHER_FIXES, ORE_COUNTS, TOOL_TAG_FIXES: "
                    "numbers and conditions blockLoot loses (table_bonus chances, no-Fortune counts, "
                    "match_tool item-tag conditions, renamed blocks)",
            "recipe_slots": "scripts/gen_mcdata.py recipes(): minecraft-data's tag expansions regrouped into "
                        "slots of alternatives; DYED_KINDS widens the dye_<colour>_<kind> slot it collapses",
            "item_tags": "scripts/gen_mcdata.py ITEM_TAGS: mirrors the 1.21.4 data pack's "
                         "tags/item files that loot conditions test",
            "gravity": "scripts/gen_mcdata.py GRAVITY_PATTERNS: vanilla FallingBlock subclasses",
            "material": "incorrect_for_* materials corrected to mineable/pickaxe (minecraft-data bug)",
        },
    }
    doc = {"header": header, **payload}
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--node-modules", type=Path, default=ROOT / "node_modules")
    parser.add_argument("--version", default="1.21.4")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing")
    args = parser.parse_args(argv)
    out: Path = args.out or ROOT / "world" / "data" / f"mcdata-{args.version}.json.gz"
    data = generate(args.node_modules, args.version)
    if args.check:
        if not out.exists() or out.read_bytes() != data:
            print(f"{out} is stale: rerun scripts/gen_mcdata.py", file=sys.stderr)
            return 1
        print(f"{out} is up to date")
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(f"wrote {out} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
