"""Registry data (world.mcdata): facts from the shipped 1.21.4 data, the vanilla rules on top, provenance."""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftbt.world import mcdata
from craftbt.world.body import BodyError, BodyErrorCode
from craftbt.world.mcdata import LootCondition, McDataFileError, UnknownName

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"


@pytest.fixture(scope="module")
def data() -> mcdata.McData:
    return mcdata.load()


# -- provenance and loading -------------------------------------------------------------------------


def test_header_records_version_and_sources(data: mcdata.McData) -> None:
    assert data.version == "1.21.4"
    assert data.protocol_version == 769
    assert data.data_version == "3.117.0"
    assert data.sources["blocks"] == "minecraft-data/data/pc/1.21.4/blocks.json"
    assert data.sources["blockLoot"] == "minecraft-data/data/pc/1.20/blockLoot.json"
    assert set(data.header["tables"]) >= {"smelting", "fuels", "loot", "item_tags"}


def test_load_is_cached_and_unknown_version_is_a_clear_error() -> None:
    assert mcdata.load() is mcdata.load("1.21.4")
    with pytest.raises(McDataFileError, match=r"no registry data for Minecraft 1\.8"):
        mcdata.load("1.8")


def test_wrong_format_is_refused() -> None:
    raw = mcdata.read_raw()
    raw["header"] = {**raw["header"], "format": 999}
    with pytest.raises(McDataFileError, match="format 999"):
        mcdata.McData(raw)


def test_generator_reproduces_shipped_file_byte_for_byte() -> None:
    if not (NODE_MODULES / "minecraft-data" / "minecraft-data" / "data" / "dataPaths.json").exists():
        pytest.skip("node_modules/minecraft-data is not installed (npm ci); the shipped file cannot be rebuilt")
    spec = importlib.util.spec_from_file_location("gen_mcdata", ROOT / "scripts" / "gen_mcdata.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    shipped = (ROOT / "world" / "data" / "mcdata-1.21.4.json.gz").read_bytes()
    assert gen.generate(NODE_MODULES, "1.21.4") == shipped


# -- names ------------------------------------------------------------------------------------------


def test_unknown_names_are_structured_errors(data: mcdata.McData) -> None:
    with pytest.raises(UnknownName) as info:
        data.block("stonee")
    err = info.value
    assert isinstance(err, KeyError) and isinstance(err, BodyError)
    assert err.code is BodyErrorCode.UNKNOWN_BLOCK
    assert err.suggestion == "stone"
    assert str(err) == "unknown_block: unknown block 'stonee'; did you mean 'stone'?"
    with pytest.raises(UnknownName) as item_info:
        data.item("diamond_pickax")
    assert item_info.value.code is BodyErrorCode.UNKNOWN_ITEM
    with pytest.raises(UnknownName) as entity_info:
        data.entity("zombi")
    assert entity_info.value.code is BodyErrorCode.UNKNOWN_ENTITY
    with pytest.raises(UnknownName):
        data.recipes_for("not_an_item")
    with pytest.raises(UnknownName):
        data.dig_time_ticks("stone", "not_a_tool")


def test_namespaced_names_and_has_checks(data: mcdata.McData) -> None:
    assert data.block("minecraft:stone") is data.block("stone")
    assert data.has_block("oak_log") and not data.has_block("stick")
    assert data.has_item("stick") and not data.has_item("water")  # water is a block, not an item
    assert data.item("stick").stack_size == 64
    assert data.item("wooden_pickaxe").stack_size == 1
    assert data.item("ender_pearl").stack_size == 16
    assert data.block_by_id(data.block("stone").id).name == "stone"
    assert data.item_by_id(data.item("stick").id).name == "stick"


# -- blocks -----------------------------------------------------------------------------------------


def test_block_properties(data: mcdata.McData) -> None:
    stone = data.block("stone")
    assert stone.hardness == 1.5
    assert stone.solid and not stone.transparent and stone.material == "mineable/pickaxe"
    assert data.block("bedrock").hardness is None and not data.block("bedrock").breakable
    assert data.block("torch").emit_light == 14 and not data.block("torch").solid
    assert data.block("oak_leaves").transparent
    assert not data.block("air").breakable


def test_gravity_blocks(data: mcdata.McData) -> None:
    falling = {b.name for b in data.blocks() if b.gravity}
    assert {"sand", "red_sand", "gravel", "anvil", "white_concrete_powder", "dragon_egg"} <= falling
    assert not falling & {"stone", "dirt", "soul_sand", "sandstone", "white_concrete", "oak_log"}


def test_harvest_tools(data: mcdata.McData) -> None:
    assert data.block("stone").harvest_tools == {
        f"{tier}_pickaxe" for tier in ("wooden", "stone", "iron", "golden", "diamond", "netherite")
    }
    assert not data.can_harvest("stone", None)
    assert not data.can_harvest("stone", "wooden_shovel")
    assert data.can_harvest("stone", "wooden_pickaxe")
    # iron_ore needs a stone-tier pickaxe or better (golden mines like wooden)
    assert not data.can_harvest("iron_ore", "wooden_pickaxe")
    assert not data.can_harvest("iron_ore", "golden_pickaxe")
    for tool in ("stone_pickaxe", "iron_pickaxe", "diamond_pickaxe", "netherite_pickaxe"):
        assert data.can_harvest("iron_ore", tool)
    assert not data.can_harvest("obsidian", "iron_pickaxe") and data.can_harvest("obsidian", "diamond_pickaxe")
    assert data.can_harvest("dirt", None) and data.can_harvest("oak_log", None)


def test_tool_tier_and_speed(data: mcdata.McData) -> None:
    assert data.tool_tier("wooden_pickaxe") == "wooden"
    assert data.tool_tier("golden_axe") == "golden"
    assert data.tool_tier("netherite_shovel") == "netherite"
    assert data.tool_tier("stick") is None and data.tool_tier(None) is None
    assert data.tool_tier("diamond_horse_armor") is None and data.tool_tier("stone_bricks") is None
    assert data.tool_speed(None, "stone") == 1.0
    assert data.tool_speed("wooden_pickaxe", "stone") == 2.0
    assert data.tool_speed("golden_pickaxe", "stone") == 12.0
    assert data.tool_speed("wooden_shovel", "stone") == 1.0
    # iron_ore's material is corrected from minecraft-data's "incorrect_for_wooden_tool"
    assert data.block("iron_ore").material == "mineable/pickaxe"
    assert data.tool_speed("stone_pickaxe", "iron_ore") == 4.0
    # a combined material takes the best of its parts
    assert data.block("oak_leaves").material == "leaves;mineable/hoe"
    assert data.tool_speed("wooden_hoe", "oak_leaves") == 2.0
    assert data.tool_speed("shears", "oak_leaves") == 15.0


def test_dig_time_follows_vanilla_formula(data: mcdata.McData) -> None:
    # hand, stone: 1 / 1.5 / 100 per tick -> 150 ticks; wooden pickaxe: 2 / 1.5 / 30 -> 22.5 -> 23
    assert data.dig_time_ticks("stone", None) == 150
    assert data.dig_time_ticks("stone", "wooden_pickaxe") == 23
    assert data.dig_time_ticks("stone", "stone_pickaxe") == 12
    assert data.dig_time_ticks("iron_ore", "wooden_pickaxe") == 150  # 2 / 3 / 100: not harvestable
    assert data.dig_time_ticks("iron_ore", "stone_pickaxe") == 23
    assert data.dig_time_ticks("dirt", None) == 15
    assert data.dig_time_ticks("oak_log", None) == 60
    assert data.dig_time_ticks("oak_log", "wooden_axe") == 30
    assert data.dig_time_ticks("torch", None) == 0  # hardness 0
    assert data.dig_time_ticks("oak_leaves", "shears") == 0  # 15 / 0.2 / 30 > 1: instant
    assert data.dig_time_ticks("bedrock", "netherite_pickaxe") is None
    assert data.dig_time_ticks("stone", "wooden_pickaxe", in_water=True) == 113
    assert data.dig_time_ticks("stone", "wooden_pickaxe", in_water=True, on_ground=False) == 563


def test_best_tool(data: mcdata.McData) -> None:
    assert data.best_tool("stone", ["dirt", "wooden_pickaxe", "stone_pickaxe"]) == "stone_pickaxe"
    assert data.best_tool("stone", ["wooden_shovel"]) is None
    assert data.best_tool("stone", []) is None
    assert data.best_tool("dirt", ["wooden_pickaxe"]) is None  # hand is as fast
    assert data.best_tool("dirt", ["wooden_pickaxe", "wooden_shovel"]) == "wooden_shovel"
    assert data.best_tool("obsidian", ["iron_pickaxe"]) is None  # cannot harvest it
    assert data.best_tool("bedrock", ["netherite_pickaxe"]) is None
    # ties keep the first given
    assert data.best_tool("stone", ["iron_pickaxe", "iron_pickaxe"]) == "iron_pickaxe"


# -- drops ------------------------------------------------------------------------------------------


def test_basic_drops(data: mcdata.McData) -> None:
    rng = random.Random(0)
    assert data.drops("stone", None, rng) == []
    assert data.drops("stone", "wooden_pickaxe", rng) == [("cobblestone", 1)]
    assert data.drops("iron_ore", "wooden_pickaxe", rng) == []
    assert data.drops("iron_ore", "stone_pickaxe", rng) == [("raw_iron", 1)]
    assert data.drops("coal_ore", "wooden_pickaxe", rng) == [("coal", 1)]
    assert data.drops("grass_block", None, rng) == [("dirt", 1)]
    assert data.drops("oak_log", None, rng) == [("oak_log", 1)]
    assert data.drops("dirt", "wooden_shovel", rng) == [("dirt", 1)]
    assert data.drops("pale_oak_log", None, rng) == [("pale_oak_log", 1)]  # newer than blockLoot: fallback
    assert data.drops("bedrock", None, rng) == []
    # the tool requirement is a player rule: an explosion drops stone's loot
    assert data.drops("stone", None, rng, by_player=False) == [("cobblestone", 1)]
    copper = data.drops("copper_ore", "stone_pickaxe", rng)
    assert len(copper) == 1 and copper[0][0] == "raw_copper" and 2 <= copper[0][1] <= 5


def test_leaves_drops_are_seeded_and_chance_based(data: mcdata.McData) -> None:
    def run(seed: int) -> list[list[tuple[str, int]]]:
        rng = random.Random(seed)
        return [data.drops("oak_leaves", None, rng) for _ in range(4000)]

    first = run(7)
    assert first == run(7)
    assert first != run(8)
    totals: Counter[str] = Counter()
    for drops in first:
        for item, count in drops:
            totals[item] += count
    assert "oak_leaves" not in totals  # only shears get the block itself
    assert 140 <= totals["oak_sapling"] <= 260  # 5% of 4000 = 200
    assert 60 <= totals["stick"] <= 200  # 2% with 1-2 each = 120
    assert totals["apple"] <= 50  # 0.5% = 20
    assert sum(1 for d in first if not d) > 3500  # most leaves drop nothing
    rng = random.Random(1)
    assert all(data.drops("oak_leaves", "shears", rng) == [("oak_leaves", 1)] for _ in range(50))


def test_alternatives_and_crop_age(data: mcdata.McData) -> None:
    rng = random.Random(3)
    gravel = Counter(item for _ in range(2000) for item, _ in data.drops("gravel", None, rng))
    assert gravel["gravel"] + gravel["flint"] == 2000  # exactly one of the two each time
    assert 130 <= gravel["flint"] <= 280  # 10%
    assert data.drops("wheat", None, rng, age=0) == [("wheat_seeds", 1)]
    mature = data.drops("wheat", None, rng, age=7)
    assert mature[0] == ("wheat", 1) and mature[1][0] == "wheat_seeds"
    assert data.drops("cobweb", None, rng) == []  # needs a sword or shears
    assert data.drops("cobweb", "wooden_sword", rng) == [("string", 1)]
    assert data.drops("cobweb", "shears", rng) == [("cobweb", 1)]
    assert data.drops("short_grass", "shears", rng) == [("short_grass", 1)]
    assert {e.condition for e in data.block("stone").loot} == {LootCondition.SILK_TOUCH, None}


def test_amethyst_cluster_gives_a_pickaxe_four_shards_and_anything_else_two(data: mcdata.McData) -> None:
    # loot_table/blocks/amethyst_cluster.json: match_tool #cluster_max_harvestables -> 4, else 2
    assert data.item_tag("cluster_max_harvestables") == {f"{tier}_pickaxe" for tier in mcdata.TOOL_TIERS}
    rng = random.Random(5)
    for pickaxe in sorted(data.item_tag("cluster_max_harvestables")):
        assert all(data.drops("amethyst_cluster", pickaxe, rng) == [("amethyst_shard", 4)] for _ in range(20))
    for other in (None, "iron_shovel", "diamond_sword", "shears"):
        assert all(data.drops("amethyst_cluster", other, rng) == [("amethyst_shard", 2)] for _ in range(20))
    assert data.drops("amethyst_cluster", None, rng, by_player=False) == [("amethyst_shard", 2)]  # explosion
    shards = [e for e in data.block("amethyst_cluster").loot if e.item == "amethyst_shard"]
    assert [e.condition for e in shards] == [LootCondition.CLUSTER_MAX_HARVESTABLES, None]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), index=st.integers(0, 10_000))
def test_drops_property(seed: int, index: int) -> None:
    data = mcdata.load()
    blocks = [b for b in data.blocks() if b.breakable]
    block = blocks[index % len(blocks)]
    tool = sorted(block.harvest_tools)[0] if block.harvest_tools else None
    drops = data.drops(block.name, tool, random.Random(seed))
    assert drops == data.drops(block.name, tool, random.Random(seed))
    # an item may have several loot entries (amethyst shards: with a pickaxe, or not): the largest bounds it
    allowed: dict[str, int] = {}
    for entry in block.loot:
        allowed[entry.item] = max(allowed.get(entry.item, 0), entry.max_count)
    allowed = allowed or dict.fromkeys(block.drops, 1)
    for item, count in drops:
        assert data.has_item(item)
        assert 1 <= count <= allowed[item]


# -- crafting ---------------------------------------------------------------------------------------


def test_crafting_table_fits_the_inventory_grid(data: mcdata.McData) -> None:
    [r] = data.recipes_for("crafting_table")  # one recipe: a slot of every plank kind
    assert (r.width, r.height, r.count) == (2, 2, 1)
    assert not r.needs_table
    [slot] = r.slots
    assert slot.count == 4 and len(slot.options) >= 11 and all(o.endswith("_planks") for o in slot.options)
    assert r.ingredients == {"oak_planks": 4}  # the first option: item-id order puts oak first


def test_wooden_pickaxe_needs_a_table(data: mcdata.McData) -> None:
    [r] = data.recipes_for("wooden_pickaxe")
    assert r.needs_table and (r.width, r.height) == (3, 3)
    assert r.ingredients == {"oak_planks": 3, "stick": 2}
    assert r.shape == (("oak_planks",) * 3, (None, "stick", None), (None, "stick", None))


def test_a_slot_mixes_its_options_and_dyes_take_every_colour(data: mcdata.McData) -> None:
    [chest] = data.recipes_for("chest")
    assert chest.fill(1, {"oak_planks": 5, "birch_planks": 4}) == {"oak_planks": 5, "birch_planks": 3}
    assert chest.shortfall(1, {"oak_planks": 5}) == {"oak_planks": 3}
    assert chest.shortfall(2, {"oak_planks": 9, "spruce_planks": 7}) == {}
    [dye] = [r for r in data.recipes_for("blue_wool") if any("blue_dye" in s.options for s in r.slots)]
    assert dye.shortfall(1, {"white_wool": 1, "blue_dye": 1}) == {}
    assert "blue_wool" not in dye.inputs and "black_wool" in dye.inputs
    [slab] = data.recipes_for("purpur_slab")
    assert slab.shortfall(1, {"purpur_block": 2, "purpur_pillar": 1}) == {}
    [campfire] = data.recipes_for("campfire")  # two independent tags: coals and logs
    assert campfire.shortfall(1, {"stick": 3, "charcoal": 1, "oak_log": 2, "birch_wood": 1}) == {}
    # what nothing held pays is the cheapest option, among equals one already taken, then the data's first
    assert chest.fill(1, {}) == {chest.slots[0].options[0]: 8}
    assert chest.fill(1, {"birch_planks": 3}) == {"birch_planks": 8}
    assert chest.fill(1, {}, lambda o: 0.0 if o == "spruce_planks" else 1.0) == {"spruce_planks": 8}
    last = chest.slots[0].options[-1]
    assert chest.fill(2, {}, lambda o: 0.0 if o in (last, chest.slots[0].options[1]) else 1.0) == {
        chest.slots[0].options[1]: 16}


def test_sticks_planks_and_shapeless_variants(data: mcdata.McData) -> None:
    sticks = data.recipes_for("stick")
    [plank_sticks] = [r for r in sticks if "oak_planks" in r.inputs]
    assert plank_sticks.count == 4 and "bamboo" not in plank_sticks.inputs
    assert (plank_sticks.width, plank_sticks.height) == (1, 2) and not plank_sticks.needs_table
    [planks] = data.recipes_for("oak_planks")
    assert planks.inputs == {"oak_log", "oak_wood", "stripped_oak_log", "stripped_oak_wood"}
    assert planks.shapeless and planks.count == 4 and not planks.needs_table
    assert data.recipes_for("dirt") == []
    [furnace] = data.recipes_for("furnace")
    assert {"cobblestone", "blackstone", "cobbled_deepslate"} <= furnace.inputs


def test_recipe_invariants_over_all_data(data: mcdata.McData) -> None:
    count = 0
    for item in data.items():
        for r in data.recipes_for(item.name):
            count += 1
            assert r.needs_table == (r.width > 2 or r.height > 2)
            assert all(data.has_item(name) for name in r.inputs)
            if r.shape is not None:
                cells = [c for row in r.shape for c in row if c is not None]
                assert sum(r.ingredients.values()) == len(cells)
                assert r.width <= 3 and r.height <= 3
            else:
                assert 1 <= sum(r.ingredients.values()) <= 9
    assert count > 800  # one per vanilla recipe: tag members are slot options, not recipes


# -- furnaces, food, entities -----------------------------------------------------------------------


def test_smelting(data: mcdata.McData) -> None:
    iron = data.smelting_result("raw_iron")
    assert iron is not None
    assert (iron.output, iron.count, iron.cook_ticks, iron.experience) == ("iron_ingot", 1, 200, 0.7)
    assert {s.input for s in data.smelting_for("iron_ingot")} == {"raw_iron", "iron_ore", "deepslate_iron_ore"}
    charcoal = {s.input for s in data.smelting_for("charcoal")}
    assert {"oak_log", "birch_wood", "stripped_cherry_log", "pale_oak_log"} <= charcoal
    assert not charcoal & {"crimson_stem", "bamboo_block"}
    sand = data.smelting_result("sand")
    cobble = data.smelting_result("cobblestone")
    assert sand is not None and sand.output == "glass"
    assert cobble is not None and cobble.output == "stone"
    assert data.smelting_result("dirt") is None
    assert data.smelting_for("dirt") == []


def test_fuels(data: mcdata.McData) -> None:
    assert data.fuel_ticks("coal") == 1600
    assert data.fuel_ticks("charcoal") == 1600
    assert data.fuel_ticks("oak_planks") == 300
    assert data.fuel_ticks("oak_log") == 300
    assert data.fuel_ticks("stick") == 100
    assert data.fuel_ticks("oak_slab") == 150
    assert data.fuel_ticks("lava_bucket") == 20000
    assert data.fuel_ticks("coal_block") == 16000
    assert data.fuel_ticks("wooden_pickaxe") == 200
    for not_fuel in ("crimson_planks", "cobblestone", "petrified_oak_slab", "heavy_weighted_pressure_plate"):
        assert data.fuel_ticks(not_fuel) is None


def test_food(data: mcdata.McData) -> None:
    bread = data.food("bread")
    assert bread is not None and (bread.food_points, bread.saturation) == (5, 6.0)
    steak = data.food("cooked_beef")
    assert steak is not None and steak.food_points == 8
    assert data.food("cobblestone") is None


def test_entities(data: mcdata.McData) -> None:
    zombie = data.entity("zombie")
    assert zombie.category == "hostile" and zombie.hostile
    assert (zombie.width, zombie.height) == (0.6, 1.95)
    assert data.entity("creeper").category == "hostile"
    assert data.entity("pig").category == "passive" and not data.entity("pig").hostile
    assert data.entity("player").category == "player"
    assert data.entity("arrow").category == "projectile"
    assert data.entity("item").category == "other"
