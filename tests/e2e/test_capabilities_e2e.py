"""Capabilities the other e2e modules do not run to a success, each run on flying-squid with craftbt's plugin.

One server for the module (its 25 plots are its own); each test builds its situation with /setblock, /give,
/summon, /time and /effect in its own plot, runs the capability through ``tests.leafkit.run_leaf`` on the
MineflayerBody, and checks the verdict and the world. The ``shows_on_server`` marker names what each test
runs to a success (checked while it runs; docs/server.md's table "Capabilities on the server" lists them).
Beds, hunger, eating and wandering animals are the plugin's survival part (``squid_survival.js``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from craftbt.capabilities.spec import Verdict
from craftbt.world.body import ActionStatus, BlockPos
from craftbt.world.mineflayer.body import MineflayerBody
from tests.e2e.squidkit import Arena, McServer, block_name, command, finish, squid_server, wait_until
from tests.leafkit import run_leaf

pytestmark = pytest.mark.e2e

#: Ticks are real 50 ms sleeps on a server body: 900 ticks is 45 s.
MAX_TICKS = 900



@pytest.fixture(scope="module")
def mc_server() -> Iterator[McServer]:
    yield from squid_server()


def vec(pos: BlockPos) -> dict[str, int]:
    return {"x": pos.x, "y": pos.y, "z": pos.z}


def verified(body: MineflayerBody, name: str, args: dict[str, Any], max_ticks: int = MAX_TICKS) -> Any:
    run = run_leaf(body, name, args, max_ticks)
    assert run.ok, (name, run.result.error)
    assert run.verdict is Verdict.VERIFIED, (name, run.result.verification)
    return run


def named(body: MineflayerBody, name: str, radius: float = 16) -> list[Any]:
    return [e for e in body.entities(radius) if e.name == name]


@pytest.mark.shows_on_server("control_environment", "place_torch_if_needed", "sleep")
def test_night_falls_a_torch_lights_it_and_a_bed_sleeps_it_away(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("torch", 2)
    verified(body, "control_environment", {"action": "set_time", "time": "night"})
    assert 12_541 <= body.time_of_day() % 24_000 <= 23_458
    # the sky's light is 15 - 11 at night; beside the bot (flying-squid places nothing in a player's cell)
    lit = run_leaf(body, "place_torch_if_needed", {"position": vec(o.offset(dx=-1))}, MAX_TICKS)
    assert lit.ok and lit.observables["torchPlaced"] is True, lit.result
    assert body.observe().count("torch") == 1
    foot, head = o.offset(dx=2), o.offset(dx=3)
    command(body, f"/setblock {foot.x} {foot.y} {foot.z} red_bed[facing=east,part=foot]")
    command(body, f"/setblock {head.x} {head.y} {head.z} red_bed[facing=east,part=head]")
    wait_until(lambda: block_name(body, foot) == block_name(body, head) == "red_bed", 10, "the bed")
    run = verified(body, "sleep", {})
    assert run.observables["slept"] is True
    assert body.time_of_day() % 24_000 < 1_000  # the next morning


@pytest.mark.shows_on_server("consume_food")
def test_hunger_falls_and_bread_restores_it_by_its_food_values(spawned: Arena) -> None:
    body = spawned.body
    spawned.give("bread", 2)
    assert body.food() == 20
    # the Hunger effect (level 100: 0.5 exhaustion a tick) for 6 s: 60 exhaustion, 15 points, saturation's 5
    # first (fewer on a loaded machine, whose server ticks late: the effect lasts 6 s of real time)
    command(body, f"/effect {body.username} hunger 6 99")
    wait_until(lambda: body.food() <= 17 or None, 20, "the food bar to fall")
    wait_until(lambda: not _effect_running(body), 10, "the effect to end")
    before = body.observe()
    assert before.saturation == 0
    verified(body, "consume_food", {})
    after = body.observe()
    # bread: 5 food points, 6 saturation (minecraft-data foods), saturation capped by the food level
    assert after.food == min(20, before.food + 5)
    assert after.saturation == min(after.food, before.saturation + 6)
    assert after.count("bread") == 1


def _effect_running(body: MineflayerBody) -> bool:
    """Whether the food bar still falls: two reads a second apart differ."""
    first = body.food()
    body.advance(20)
    return body.food() != first


@pytest.mark.shows_on_server("follow_entity", "equip_weapon", "attack_entity")
def test_a_wandering_pig_is_followed_killed_and_its_porkchop_collected(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("wooden_sword")
    command(body, f"/summon pig {o.x + 6}.5 {o.y} {o.z}.5")
    pig = wait_until(lambda: named(body, "pig"), 10, "the pig")[0]
    start = pig.position
    wait_until(lambda: [p for p in named(body, "pig") if p.position.distance_to(start) > 1.0], 15, "the pig to wander")
    follow = verified(body, "follow_entity", {"entityId": pig.id, "range": 3})
    assert follow.observables["reached"] is True
    verified(body, "equip_weapon", {})
    assert body.observe().held_item == "wooden_sword"
    run = run_leaf(body, "attack_entity", {"entityId": pig.id, "radius": 8, "duration": 20_000}, MAX_TICKS)
    assert run.ok, run.result.error
    wait_until(lambda: not named(body, "pig"), 10, "the pig to die")
    if body.observe().count("porkchop") == 0:  # the drop fell outside the pickup range: collect it
        wait_until(lambda: body.entities(8, kind="item"), 10, "the porkchop on the ground")
        verified(body, "collect_items", {"itemName": "porkchop"})
    assert body.observe().count("porkchop") >= 1


@pytest.mark.shows_on_server("milk_animal")
def test_a_bucket_used_on_a_cow_becomes_milk_and_the_cow_lives(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("bucket", 2)
    command(body, f"/summon cow {o.x + 4}.5 {o.y} {o.z}.5")
    cow = wait_until(lambda: named(body, "cow"), 10, "the cow")[0]
    run = verified(body, "milk_animal", {"entityType": "cow", "radius": 16})
    assert run.observables["target"] == cow.id
    after = body.observe()
    assert after.count("milk_bucket") == 1 and after.count("bucket") == 1
    assert [c.id for c in named(body, "cow")] == [cow.id]  # unharmed, still there


@pytest.mark.shows_on_server("collect_items", "equip_tool", "dig_block")
def test_a_dug_block_is_collected_with_the_right_tool(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("stone_pickaxe")
    arena.give("oak_planks", 3)
    stone, dirt = o.offset(dx=3, dz=1), o.offset(dx=4, dz=-1)
    arena.setblock(stone, "stone")
    arena.setblock(dirt, "dirt")
    run = verified(body, "equip_tool", {"block": "stone"})
    assert body.observe().held_item == "stone_pickaxe", run.observables
    verified(body, "dig_block", {"pos": vec(stone), "expect": "stone"})
    assert body.block_at(stone).is_air
    assert finish(body.dig(dirt), 20) is ActionStatus.SUCCEEDED  # four blocks away: out of pickup range
    wait_until(lambda: [e for e in body.entities(8, kind="item") if e.item and e.item.name == "dirt"], 10, "the dirt")
    verified(body, "collect_items", {"itemName": "dirt"})
    assert body.observe().count("dirt") == 1


@pytest.mark.shows_on_server("open_container", "transfer_items", "close_container", "manage_inventory")
def test_a_chest_round_trip_and_an_inventory_tidy(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("apple", 10)
    arena.give("rotten_flesh", 3)
    arena.setblock(o.offset(dx=2, dz=2), "chest")
    verified(body, "open_container", {"containerType": "chest"})
    verified(body, "transfer_items", {"item": "apple", "count": 6, "mode": "deposit"})
    assert body.observe().count("apple") == 4
    verified(body, "transfer_items", {"item": "apple", "count": 2, "mode": "withdraw"})
    verified(body, "close_container", {})
    assert body.open_window() is None and body.observe().count("apple") == 6
    verified(body, "manage_inventory", {"action": "drop_unwanted"})
    wait_until(lambda: body.observe().count("rotten_flesh") == 0 or None, 10, "the rotten flesh tossed")
    assert body.observe().count("apple") == 6


@pytest.mark.shows_on_server("introspect_recipe", "get_light_level", "sense_hostiles")
def test_reads_recipes_light_and_hostiles(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    recipe = verified(body, "introspect_recipe", {"output": "wooden_pickaxe"})
    assert recipe.observables
    verified(body, "get_light_level", {})
    command(body, f"/summon zombie {o.x + 10}.5 {o.y} {o.z}.5")
    wait_until(lambda: named(body, "zombie"), 10, "the zombie")
    sensed = verified(body, "sense_hostiles", {"radius": 16})
    assert sensed.observables
    _kill_zombies(arena)


def _kill_zombies(arena: Arena) -> None:
    body = arena.body
    arena.give("stone_sword")
    assert finish(body.equip("stone_sword")) is ActionStatus.SUCCEEDED
    while named(body, "zombie", 24):
        run = run_leaf(body, "attack_entity", {"entityType": "zombie", "radius": 24, "duration": 20_000}, MAX_TICKS)
        assert run.ok, run.result.error
    wait_until(lambda: not named(body, "zombie", 24), 10, "no zombie left")


@pytest.mark.shows_on_server("retreat_from_threat", "retreat_and_block")
def test_retreats_from_a_zombie_and_walls_it_off(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 16)
    command(body, f"/summon zombie {o.x + 5}.5 {o.y} {o.z}.5")
    wait_until(lambda: named(body, "zombie"), 10, "the zombie")
    verified(body, "retreat_from_threat", {"retreatDistance": 8, "safeRadius": 6})
    run = run_leaf(body, "retreat_and_block", {}, MAX_TICKS)
    assert run.ok, run.result.error
    _kill_zombies(arena)


@pytest.mark.shows_on_server("place_torch", "place_feature", "place_workstation")
def test_places_a_torch_a_feature_and_a_workstation(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("torch", 4)
    arena.give("crafting_table")
    verified(body, "place_torch", {"position": vec(o.offset(dx=2))})
    verified(body, "place_feature", {"feature": "torch", "position": vec(o.offset(dz=-2))})
    verified(body, "place_workstation", {"workstation": "crafting_table"})
    assert body.find_blocks(["crafting_table"], 6, 1)


@pytest.mark.shows_on_server("build_module", "verify_module", "prepare_site")
def test_prepares_a_site_builds_a_pillar_and_verifies_it(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 16)
    arena.give("stone_pickaxe")
    arena.setblock(o.offset(dx=4, dz=2), "stone")
    verified(body, "prepare_site", {"origin": vec(o.offset(dx=3, dz=1)), "size": {"dx": 3, "dy": 2, "dz": 3}},
             max_ticks=2_400)
    pillar = {"module_id": "cobblestone_pillar_3", "origin": vec(o.offset(dx=-3))}
    verified(body, "build_module", pillar, max_ticks=2_400)
    verified(body, "verify_module", pillar)


@pytest.mark.shows_on_server("run_script", "explore")
def test_a_script_places_a_block_and_explore_finds_lapis(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 2)
    target = o.offset(dx=2, dz=-2)
    run = verified(body, "run_script",
                   {"source": f'place("cobblestone", {target.x}, {target.y}, {target.z}); log("done");'})
    assert run.observables["block_changes"][0]["pos"] == [target.x, target.y, target.z]
    arena.setblock(o.offset(dx=10, dz=5), "lapis_block")
    verified(body, "explore", {"target": "lapis_block", "max_distance": 16, "max_ticks": 2_000}, max_ticks=2_400)


@pytest.mark.shows_on_server("till_soil", "plant_crop", "harvest_crop", "manage_farm")
def test_tills_plants_harvests_and_keeps_a_farm(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("wooden_hoe")
    arena.give("wheat_seeds", 4)
    soil = o.offset(dx=2, dy=-1)
    verified(body, "till_soil", {"position": vec(soil)})
    assert body.block_at(soil).name == "farmland"
    verified(body, "plant_crop", {"crop": "wheat", "position": vec(soil)})
    assert body.block_at(soil.offset(dy=1)).name == "wheat"
    ripe, later = o.offset(dx=-2, dz=2), o.offset(dx=-2, dz=-2)  # crops do not grow on this server: set ripe
    for cell in (ripe, later):
        arena.setblock(cell.offset(dy=-1), "farmland")
        command(body, f"/setblock {cell.x} {cell.y} {cell.z} wheat[age=7]")
        wait_until(lambda c=cell: str(body.block_at(c).state.get("age")) == "7" or None, 10, "the ripe wheat")
    harvest = run_leaf(body, "harvest_crop", {"position": vec(ripe)}, MAX_TICKS)
    assert harvest.ok, harvest.result.error
    # verified, or inconclusive when the drop reached the inventory after the leaf's probes (vanilla's
    # 10-tick pickup delay plus the server's round trip): it does arrive
    assert harvest.verdict in (Verdict.VERIFIED, Verdict.INCONCLUSIVE), harvest.result.verification
    assert not body.block_at(ripe).state.get("age") or body.block_at(ripe).name != "wheat"
    wait_until(lambda: body.observe().count("wheat") >= 1 or None, 10, "the harvested wheat")
    verified(body, "manage_farm", {"action": "harvest", "crop": "wheat", "max_operations": 1})
    assert not body.block_at(later).state.get("age") or body.block_at(later).name != "wheat"  # harvested


@pytest.mark.shows_on_server("interact_with_block", "control_redstone", "operate_piston")
def test_a_door_a_lever_lit_lamp_and_a_piston(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    door = o.offset(dx=2, dz=-2)
    arena.setblock(door, "oak_door")
    command(body, f"/setblock {door.x} {door.y + 1} {door.z} oak_door[half=upper]")
    wait_until(lambda: block_name(body, door.offset(dy=1)) == "oak_door", 10, "the door's upper half")
    verified(body, "interact_with_block", {"position": vec(door)})
    assert body.block_at(door).state.get("open") in (True, "true")
    lamp, piston = o.offset(dx=3), o.offset(dx=3, dz=2)
    arena.setblock(lamp, "redstone_lamp")
    arena.setblock(lamp.offset(dy=1), "lever")
    on = verified(body, "control_redstone", {"action": "power_on", "target_position": vec(lamp)})
    assert body.block_at(lamp).state.get("lit") in (True, "true"), on.observables
    arena.setblock(piston, "piston")  # its default state: facing north, retracted; the head goes to z - 1
    arena.setblock(piston.offset(dy=1), "lever")
    verified(body, "operate_piston", {"position": vec(piston), "action": "extend"})
    assert body.block_at(piston.offset(dz=-1)).name == "piston_head"
    verified(body, "operate_piston", {"position": vec(piston), "action": "retract"})
    assert body.block_at(piston.offset(dz=-1)).is_air


@pytest.mark.shows_on_server("use_item", "call_function", "build_up")
def test_throws_snowballs_and_calls_a_stored_function(
    arena: Arena, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from craftbt.craftscript.functions import FunctionStore

    body = arena.body
    arena.give("snowball", 3)
    verified(body, "use_item", {"item": "snowball", "quantity": 2})
    assert body.observe().count("snowball") == 1
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    arena.give("dirt", 3)
    FunctionStore(body.name).create("tower", 'repeat(h) { build_up("dirt"); }', args=[{"name": "h", "type": "int"}])
    start = body.position().block()
    verified(body, "call_function", {"name": "tower", "args": {"h": 2}})
    assert body.position().block() == start.offset(dy=2)
