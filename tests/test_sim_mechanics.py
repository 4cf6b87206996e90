"""Simulated world mechanics, asserted on world state."""

from __future__ import annotations

import pytest

from craftbt.world.body import ActionStatus, BlockPos, BodyError, BodyErrorCode, Face
from craftbt.world.scenarios import load_scenario
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.entities import MERGE_INTERVAL_RESTING, Entity
from craftbt.world.sim.loop import run_until
from craftbt.world.sim.mobs import explode


def ok(body: SimBody, handle: object, ticks: int = 5000) -> dict[str, object]:
    status = run_until(handle, body, ticks)  # type: ignore[arg-type]
    assert status is ActionStatus.SUCCEEDED, handle.error()  # type: ignore[attr-defined]
    return handle.result()  # type: ignore[attr-defined,no-any-return]


def test_furnace_smelts_three_raw_iron_with_one_coal() -> None:
    b = load_scenario("furnace_with_fuel")
    furnace = BlockPos(2, 64, 0)
    ok(b, b.open_container(furnace))
    ok(b, b.container_put("raw_iron", 3, slot="input"))
    ok(b, b.container_put("coal", 1, slot="fuel"))
    b.advance(598)
    window = b.open_window()
    assert window is not None and window.slots["output"][0].count == 2
    b.advance(2)
    window = b.open_window()
    assert window is not None
    assert window.slots["output"][0].name == "iron_ingot" and window.slots["output"][0].count == 3
    assert window.slots["fuel"] == [] and window.slots["input"] == []
    # The fuel went in on the tick before the 600 counted here (a put applies, then the world ticks).
    assert b.world.containers[(2, 64, 0)].burn_left == 1600 - 601  # type: ignore[union-attr]
    ok(b, b.container_take("iron_ingot", 3, slot="output"))
    assert b.observe().count("iron_ingot") == 3 and b.observe().count("coal") == 7


def test_stone_by_hand_drops_nothing_and_with_wooden_pickaxe_cobblestone() -> None:
    b = SimBody(seed=1)
    b.run_command("/setblock ~2 ~ ~ stone")
    result = ok(b, b.dig(BlockPos(2, 64, 0)))
    assert result["drops"] == [] and b.block_at(BlockPos(2, 64, 0)).name == "air"
    assert not [e for e in b.entities() if e.kind == "item"]
    b.give("wooden_pickaxe")
    ok(b, b.equip("wooden_pickaxe"))
    b.run_command("/setblock ~2 ~ ~ stone")
    result = ok(b, b.dig(BlockPos(2, 64, 0)))
    assert result["drops"] == [["cobblestone", 1]]
    assert [e.item.name for e in b.entities() if e.item] == ["cobblestone"]


def test_dig_refusals_change_nothing() -> None:
    b = SimBody(seed=1)
    with pytest.raises(BodyError) as err:
        b.dig(BlockPos(0, 0, 0))
    assert err.value.code in (BodyErrorCode.NOT_DIGGABLE, BodyErrorCode.OUT_OF_REACH)
    b.run_command("/setblock ~9 ~ ~ stone")
    with pytest.raises(BodyError) as err:
        b.dig(BlockPos(9, 64, 0))
    assert err.value.code is BodyErrorCode.OUT_OF_REACH
    b.run_command("/setblock ~2 ~ ~ bedrock")
    with pytest.raises(BodyError) as err:
        b.dig(BlockPos(2, 64, 0))
    assert err.value.code is BodyErrorCode.NOT_DIGGABLE
    assert b.block_at(BlockPos(9, 64, 0)).name == "stone" and b.running_handles() == []


def test_three_by_three_recipe_needs_a_table() -> None:
    b = load_scenario("no_crafting_table")
    with pytest.raises(BodyError) as err:
        b.craft("wooden_pickaxe")
    assert err.value.code is BodyErrorCode.NO_TABLE
    assert b.observe().count("oak_planks") == 3
    ok(b, b.craft("oak_planks", 1))  # 2x2: fine without a table
    ok(b, b.craft("crafting_table", 1))
    ok(b, b.place("crafting_table", BlockPos(2, 63, 0), Face.UP))
    before = b.observe()
    result = ok(b, b.craft("wooden_pickaxe", 1))
    after = b.observe()
    assert result["table"] == [2, 64, 0]
    assert after.count("wooden_pickaxe") == 1
    assert before.count("oak_planks") - after.count("oak_planks") == 3
    assert before.count("stick") - after.count("stick") == 2


def test_craft_missing_items_and_bad_args() -> None:
    b = SimBody(seed=1)
    with pytest.raises(BodyError) as err:
        b.craft("stick", 1)
    assert err.value.code is BodyErrorCode.MISSING_ITEM
    with pytest.raises(BodyError) as err:
        b.craft("stick", 0)
    assert err.value.code is BodyErrorCode.INVALID_ARGUMENT
    with pytest.raises(BodyError) as err:
        b.craft("not_an_item", 1)
    assert err.value.code is BodyErrorCode.UNKNOWN_ITEM


def test_place_rules() -> None:
    b = load_scenario("cobblestone_stack")
    with pytest.raises(BodyError) as err:
        b.place("cobblestone", BlockPos(0, 63, 0), Face.UP)  # into the player's feet
    assert err.value.code is BodyErrorCode.OCCUPIED
    with pytest.raises(BodyError) as err:
        b.place("cobblestone", BlockPos(2, 65, 0), Face.UP)  # air reference
    assert err.value.code is BodyErrorCode.NO_REFERENCE_BLOCK
    with pytest.raises(BodyError) as err:
        b.place("torch", BlockPos(2, 63, 0), Face.UP)
    assert err.value.code is BodyErrorCode.MISSING_ITEM
    ok(b, b.place("cobblestone", BlockPos(2, 63, 0), Face.UP))
    assert b.block_at(BlockPos(2, 64, 0)).name == "cobblestone"
    assert b.observe().count("cobblestone") == 63


def test_creeper_explosion_removes_blocks() -> None:
    b = load_scenario("flat_empty")
    b.run_command("/fill 10 64 10 14 66 10 cobblestone")
    before = sum(b.block_at(BlockPos(x, y, 10)).name == "cobblestone" for x in range(10, 15) for y in range(64, 67))
    destroyed = explode(b.world, 12.5, 64.5, 11.5, 3.0, source="creeper")
    after = sum(b.block_at(BlockPos(x, y, 10)).name == "cobblestone" for x in range(10, 15) for y in range(64, 67))
    assert destroyed and after < before


def test_live_creeper_walks_up_and_explodes() -> None:
    b = load_scenario("flat_empty")
    b.world.rules.do_mob_spawning = False
    b.run_command("/summon creeper ~6 ~ ~")
    health = b.health()
    b.advance(200)
    assert not [e for e in b.entities() if e.name == "creeper"]
    assert b.health() < health
    assert any(ev["event"] == "explosion" for ev in b.world.events)
    assert b.block_at(BlockPos(0, 63, 0)).name != "grass_block" or b.block_at(BlockPos(1, 63, 0)).name == "air" or (
        any(b.block_at(BlockPos(x, 63, z)).name == "air" for x in range(-3, 4) for z in range(-3, 4))
    )


def test_dropped_item_picked_up_when_walking_within_range() -> None:
    b = load_scenario("dropped_items")
    b.advance(20)
    assert b.observe().count("iron_ingot") == 0  # 2 blocks away: outside the pickup box
    assert b.observe().count("diamond") == 0  # 3 blocks away
    ok(b, b.goto(BlockPos(2, 64, 0), 0))
    b.advance(2)
    assert b.observe().count("iron_ingot") == 5
    ok(b, b.goto(BlockPos(0, 64, 3), 0))
    b.advance(2)
    assert b.observe().count("diamond") == 3
    assert not [e for e in b.entities() if e.kind == "item"]


def test_sand_falls() -> None:
    b = load_scenario("flat_empty")
    b.run_command("/setblock ~3 ~4 ~ sand")
    b.advance(1)
    assert b.block_at(BlockPos(3, 68, 0)).name == "air"
    assert b.block_at(BlockPos(3, 64, 0)).name == "sand"


def test_crop_growth_and_harvest() -> None:
    b = load_scenario("farm_plot")
    b.run_command("/gamerule randomTickSpeed 1000")  # vanilla's own way to speed up growth
    ok(b, b.use_item("wheat_seeds", BlockPos(2, 63, 0)))
    assert b.block_at(BlockPos(2, 64, 0)).state["age"] == 0
    b.advance(2000)
    assert b.block_at(BlockPos(2, 64, 0)).state["age"] == 7
    result = ok(b, b.dig(BlockPos(2, 64, 0)))
    assert ["wheat", 1] in result["drops"]  # type: ignore[operator]


def test_hoe_tills_dirt() -> None:
    b = load_scenario("hoe_and_dirt")
    ok(b, b.use_item("wooden_hoe", BlockPos(2, 63, 0)))
    assert b.block_at(BlockPos(2, 63, 0)).name == "farmland"


def test_door_toggles_and_lever_powers_lamp_and_piston() -> None:
    b = load_scenario("lever_and_door")
    ok(b, b.activate_block(BlockPos(3, 64, 0)))
    assert b.block_at(BlockPos(3, 64, 0)).state["open"] is True
    assert b.block_at(BlockPos(3, 65, 0)).state["open"] is True
    ok(b, b.activate_block(BlockPos(3, 65, 0)))
    assert b.block_at(BlockPos(3, 64, 0)).state["open"] is False
    lamp = load_scenario("lamp_and_lever")
    ok(lamp, lamp.activate_block(BlockPos(2, 65, 0)))
    assert lamp.block_at(BlockPos(2, 64, 0)).state["lit"] is True
    assert lamp.light_level(BlockPos(3, 64, 0)) >= 14
    piston = load_scenario("piston_and_lever")
    ok(piston, piston.activate_block(BlockPos(2, 63, 0)))
    assert piston.block_at(BlockPos(2, 64, 0)).state["extended"] is True
    assert piston.block_at(BlockPos(2, 64, -1)).name == "piston_head"
    with pytest.raises(BodyError) as err:
        piston.activate_block(BlockPos(2, 64, 0))
    assert err.value.code is BodyErrorCode.NOT_ACTIVATABLE


def test_light_at_night_versus_torch() -> None:
    b = load_scenario("torches_at_midnight")
    dark = b.light_level()
    assert dark <= 4
    ok(b, b.place("torch", BlockPos(1, 63, 0), Face.UP))
    assert b.light_level() >= 13
    b.run_command("/time set noon")
    assert b.light_level(BlockPos(20, 64, 20)) == 15


def test_sleep_only_at_night_in_a_bed() -> None:
    b = load_scenario("bed_at_night")
    ok(b, b.place("red_bed", BlockPos(2, 63, 0), Face.UP))
    bed = next(p for p in b.find_blocks(["red_bed"], 4) if b.block_at(p).state["part"] == "foot")
    result = ok(b, b.sleep(bed))
    assert result["slept"] is True and b.time_of_day() < 1000
    with pytest.raises(BodyError) as err:
        b.sleep(bed)
    assert err.value.code is BodyErrorCode.NOT_SLEEPABLE


def test_eating_restores_food() -> None:
    b = load_scenario("food_when_hungry")
    handle = b.consume("bread")
    b.advance(31)
    assert handle.status() is ActionStatus.RUNNING
    b.advance(1)
    assert handle.status() is ActionStatus.SUCCEEDED
    assert b.food() == 15 and b.observe().count("bread") == 15
    full = load_scenario("mixed_inventory")
    with pytest.raises(BodyError) as err:
        full.consume("bread")
    assert err.value.code is BodyErrorCode.NOT_HUNGRY
    with pytest.raises(BodyError) as err:
        full.consume("cobblestone")
    assert err.value.code is BodyErrorCode.NOT_EDIBLE


def test_attack_kills_zombie_and_chest_transfer() -> None:
    b = load_scenario("zombie_and_sword")
    ok(b, b.equip("iron_sword"))
    zombie = next(e for e in b.entities() if e.name == "zombie")
    for _ in range(4):
        ok(b, b.attack(zombie.id))
    assert not [e for e in b.entities() if e.name == "zombie"]
    c = load_scenario("chest_with_items")
    with pytest.raises(BodyError) as err:
        c.container_put("apple", 1)
    assert err.value.code is BodyErrorCode.WINDOW_CLOSED
    ok(c, c.open_container(BlockPos(2, 64, 0)))
    ok(c, c.container_put("apple", 4))
    assert c.observe().count("apple") == 6
    window = c.open_window()
    assert window is not None and window.slots["any"][0].count == 4


def test_hostiles_hurt_the_player_at_night() -> None:
    b = load_scenario("hostile_swarm")
    health = b.health()
    b.advance(400)
    assert b.health() < health or b.world.player.deaths > 0


def test_toss_and_chat_commands() -> None:
    b = load_scenario("mixed_inventory")
    ok(b, b.toss("apple", 2))
    assert b.observe().count("apple") == 3
    with pytest.raises(BodyError) as err:  # not an operator: a server refuses the command
        b.chat("/give Sterling diamond 2")
    assert err.value.code is BodyErrorCode.PERMISSION_DENIED and b.observe().count("diamond") == 0
    b.run_command("/op Sterling")  # the console makes the bot an operator
    result = ok(b, b.chat("/give Sterling diamond 2"))
    assert b.observe().count("diamond") == 2 and "Gave" in str(result["output"])
    with pytest.raises(BodyError) as err:
        b.chat("/frobnicate")
    assert err.value.code is BodyErrorCode.INVALID_ARGUMENT
    with pytest.raises(BodyError) as err:
        b.chat("/give Sterling diamnd 2")
    assert err.value.code is BodyErrorCode.UNKNOWN_ITEM


def test_entities_filter_by_kind_and_radius_nearest_first() -> None:
    b = SimBody(seed=1)
    b.run_command("/summon zombie ~6 ~ ~")
    b.run_command("/summon pig ~3 ~ ~")
    b.run_command("/summon zombie ~12 ~ ~")
    everyone = b.entities(32)
    assert [e.name for e in everyone] == ["pig", "zombie", "zombie"]
    assert [e.position.x for e in b.entities(32, kind="hostile")] == [
        e.position.x for e in everyone if e.kind == "hostile"]
    assert [e.name for e in b.entities(8, kind="hostile")] == ["zombie"]
    assert b.entities(32, kind="item") == []


# -- dropped items merge (vanilla ItemEntity.mergeWithNeighbours) ----------------------------------------
def drop(b: SimBody, item: str, count: int, x: float, y: float = 64.0, z: float = 0.5, delay: int = 10) -> Entity:
    """An item entity at an exact spot (no spawn jitter), out of the player's pickup box unless placed in it."""
    return b.world.spawn_item(item, count, x, y, z, delay=delay, jitter=False)


def items(b: SimBody) -> list[tuple[str | None, int]]:
    return sorted((e.item, e.count) for e in b.world.entities.values() if e.kind == "item")


def test_two_dug_cobblestone_drops_merge_into_one_entity() -> None:
    b = SimBody(seed=1)
    b.give("wooden_pickaxe")
    ok(b, b.equip("wooden_pickaxe"))
    for _ in range(2):  # the same block twice: both drops land within 0.25 of its centre
        b.run_command("/setblock ~2 ~ ~ cobblestone")
        ok(b, b.dig(BlockPos(2, 64, 0)))
    b.advance(MERGE_INTERVAL_RESTING)
    assert items(b) == [("cobblestone", 2)]


def test_only_same_item_stacks_that_fit_merge() -> None:
    b = SimBody(seed=1)
    drop(b, "cobblestone", 1, 4.5)
    drop(b, "dirt", 1, 4.6)  # another item
    drop(b, "cobblestone", 64, 6.5)  # a full stack takes no more
    drop(b, "cobblestone", 1, 6.6)
    drop(b, "cobblestone", 40, 8.5)  # 40 + 30 > 64: vanilla moves nothing rather than part of a stack
    drop(b, "cobblestone", 30, 8.6)
    drop(b, "wooden_pickaxe", 1, 10.5)  # stack size 1: tools never merge
    drop(b, "wooden_pickaxe", 1, 10.6)
    b.advance(2 * MERGE_INTERVAL_RESTING)
    assert items(b) == [("cobblestone", 1), ("cobblestone", 1), ("cobblestone", 30), ("cobblestone", 40),
                        ("cobblestone", 64), ("dirt", 1), ("wooden_pickaxe", 1), ("wooden_pickaxe", 1)]


def test_merge_reach_is_the_item_box_grown_half_a_block_sideways() -> None:
    b = SimBody(seed=1)
    drop(b, "cobblestone", 1, 4.5)
    drop(b, "cobblestone", 2, 5.2)  # 0.7 apart: boxes grown by 0.5 overlap (reach 0.75)
    drop(b, "dirt", 1, 8.5)
    drop(b, "dirt", 2, 9.5)  # a block apart: separate
    b.run_command("/setblock 12 64 0 stone")
    drop(b, "sand", 1, 11.9)
    drop(b, "sand", 2, 12.5, y=65.0)  # close sideways but on the block above: no vertical reach
    b.advance(2 * MERGE_INTERVAL_RESTING)
    assert items(b) == [("cobblestone", 3), ("dirt", 1), ("dirt", 2), ("sand", 1), ("sand", 2)]


def test_falling_items_check_for_merges_every_other_tick() -> None:
    b = SimBody(seed=1)
    if b.world.clock.tick % 2 == 0:
        b.advance(1)  # the next tick is even: a moving item's check is due on it
    drop(b, "cobblestone", 1, 4.5, y=70.25)
    drop(b, "cobblestone", 1, 4.6, y=70.25)
    b.advance(1)  # both fell into the block below: mid-air, long before a resting check
    falling = [e for e in b.world.entities.values() if e.kind == "item"]
    assert [(e.count, e.y) for e in falling] == [(2, 69.75)]


def test_merged_stack_keeps_longer_pickup_delay_and_younger_age_and_picks_up_whole() -> None:
    b = SimBody(seed=1)
    big = drop(b, "cobblestone", 3, 3.5, delay=5)
    big.age = 500
    drop(b, "cobblestone", 1, 3.6, delay=200)  # the smaller stack goes into the bigger one
    b.advance(MERGE_INTERVAL_RESTING)
    assert big.id in b.world.entities and items(b) == [("cobblestone", 4)]
    # max(delays) and min(ages), each counted on by the 40 ticks since the two were dropped
    assert (big.pickup_delay, big.age) == (200 - MERGE_INTERVAL_RESTING, MERGE_INTERVAL_RESTING)
    ok(b, b.goto(BlockPos(3, 64, 0), 0))
    b.advance(big.pickup_delay + 1)
    assert b.observe().count("cobblestone") == 4 and items(b) == []
