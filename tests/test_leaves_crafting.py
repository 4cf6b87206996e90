"""Crafting leaves: refusals on the fake body, seed situations end to end on the embedded world."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from craftbt.capabilities.leaves.crafting import REUSE_RADIUS, SmeltArgs, fuel_plan, plan_craft
from craftbt.capabilities.spec import Verdict
from craftbt.world import mcdata
from craftbt.world.body import BlockPos, Position
from tests.fakes import FakeBody
from tests.leafkit import run_leaf
from tests.simkit import sim_body

MD = mcdata.load()
FLOOR = {BlockPos(x, 63, z): "stone" for x in range(-4, 5) for z in range(-4, 5)}


# -- planning against minecraft-data ---------------------------------------------------------------
def test_plan_picks_the_variant_the_inventory_holds() -> None:
    plan = plan_craft(MD, "oak_planks", 4, {"oak_log": 1})
    assert plan.recipe is not None and plan.recipe.ingredients == {"oak_log": 1}
    assert (plan.crafts, plan.missing) == (1, {})
    birch = plan_craft(MD, "stick", 8, {"birch_planks": 4})
    assert birch.recipe is not None and birch.uses == {"birch_planks": 4} and birch.crafts == 2
    mixed = plan_craft(MD, "chest", 1, {"oak_planks": 5, "birch_planks": 3})  # one slot, two plank kinds
    assert mixed.missing == {} and mixed.uses == {"oak_planks": 5, "birch_planks": 3}


def test_plan_rounds_up_to_output_multiples_and_reports_missing() -> None:
    plan = plan_craft(MD, "oak_planks", 5, {"oak_log": 1})
    assert plan.crafts == 2
    assert plan.missing == {"oak_log": 1}


def test_fuel_plan_prefers_named_fuel_and_falls_back() -> None:
    args = SmeltArgs(input="raw_iron", qty=3, fuel="coal")
    assert fuel_plan(MD, args, {"raw_iron": 3, "coal": 5}) == {"coal": 1}
    fallback = fuel_plan(MD, args, {"raw_iron": 3, "oak_planks": 4})
    assert fallback == {"oak_planks": 2}
    assert fuel_plan(MD, args, {"raw_iron": 3, "stick": 1}) is None


# -- refusals (guard, before anything moves) -------------------------------------------------------
def test_craft_3x3_without_table_refuses_precond_missing_table() -> None:
    body = FakeBody(blocks=FLOOR, inventory={"oak_planks": 3, "stick": 2})
    run = run_leaf(body, "craft_recipe", {"recipe": "wooden_pickaxe"})
    assert not run.ok and run.code == "guard_failed:precond_missing:table"
    assert body.handles == []  # nothing moved


def test_craft_missing_ingredient_refuses() -> None:
    body = FakeBody(inventory={"oak_planks": 1})
    run = run_leaf(body, "craft_recipe", {"recipe": "stick", "qty": 4})
    assert run.code == "guard_failed:precond_missing:item:oak_planks"


def test_craft_unknown_item_refuses() -> None:
    run = run_leaf(FakeBody(), "craft_recipe", {"recipe": "unobtainium"})
    assert run.code == "guard_failed:unknown_item"


def test_smelt_without_fuel_refuses_precond_missing_fuel() -> None:
    body = FakeBody(blocks={**FLOOR, BlockPos(2, 64, 0): "furnace"}, inventory={"raw_iron": 3})
    run = run_leaf(body, "smelt", {"input": "raw_iron", "qty": 3})
    assert run.code == "guard_failed:precond_missing:fuel"


def test_smelt_without_furnace_refuses() -> None:
    body = FakeBody(blocks=FLOOR, inventory={"raw_iron": 3, "coal": 8})
    run = run_leaf(body, "smelt", {"input": "raw_iron"})
    assert run.code == "guard_failed:precond_missing:furnace"


def test_smelt_without_input_refuses() -> None:
    body = FakeBody(blocks={**FLOOR, BlockPos(2, 64, 0): "furnace"}, inventory={"coal": 8})
    run = run_leaf(body, "smelt", {"input": "raw_iron", "qty": 2})
    assert run.code == "guard_failed:precond_missing:item:raw_iron"


def test_smelt_unsmeltable_input_refuses() -> None:
    body = FakeBody(blocks={**FLOOR, BlockPos(2, 64, 0): "furnace"}, inventory={"stick": 1, "coal": 8})
    assert run_leaf(body, "smelt", {"input": "stick"}).code == "guard_failed:no_recipe"


def test_place_workstation_without_item_refuses() -> None:
    run = run_leaf(FakeBody(blocks=FLOOR), "place_workstation", {"workstation": "crafting_table"})
    assert run.code == "guard_failed:precond_missing:item:crafting_table"


def test_place_workstation_rejects_non_workstation() -> None:
    with pytest.raises(ValidationError, match="workstation must be one of"):
        run_leaf(FakeBody(), "place_workstation", {"workstation": "dirt"})


# -- success paths that need no body action --------------------------------------------------------
def test_place_workstation_reuses_a_station_in_radius_without_placing() -> None:
    station = BlockPos(REUSE_RADIUS - 2, 64, 0)
    body = FakeBody(blocks={**FLOOR, station: "crafting_table"}, inventory={"crafting_table": 1})
    run = run_leaf(body, "place_workstation", {"workstation": "crafting_table"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["reused"] is True
    assert run.result.receipt is not None and run.result.receipt.position == station
    assert body.items == {"crafting_table": 1} and body.handles == []


def test_introspect_recipe_reports_table_need_and_ingredients() -> None:
    run = run_leaf(FakeBody(inventory={"oak_planks": 3}), "introspect_recipe", {"output": "wooden_pickaxe"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["needs_table"] is True
    assert run.observables["ingredients"] == {"oak_planks": 3, "stick": 2}
    sticks = run_leaf(FakeBody(), "introspect_recipe", {"output": "stick"})
    assert sticks.observables["needs_table"] is False
    iron = run_leaf(FakeBody(), "introspect_recipe", {"output": "iron_ingot"})
    assert any(s["input"] == "raw_iron" for s in iron.observables["smelting"])


def test_introspect_unknown_item_refuses() -> None:
    assert run_leaf(FakeBody(), "introspect_recipe", {"output": "nope"}).code == "guard_failed:unknown_item"


# -- the seed's situations on the embedded world ---------------------------------------------------
def test_craft_chain_on_sim() -> None:
    """Seed: give oak_planks 8, stick 4, setblock ~2 ~ ~ crafting_table; then the wooden pickaxe chain."""
    body, origin = sim_body()
    for cmd in ("/give @s oak_log 1", "/give @s oak_planks 8", "/give @s stick 4"):
        body.run_command(cmd)
    planks = run_leaf(body, "craft_recipe", {"recipe": "oak_planks", "qty": 4})
    assert planks.ok and planks.verdict is Verdict.VERIFIED, planks.result
    refused = run_leaf(body, "craft_recipe", {"recipe": "wooden_pickaxe"})
    assert refused.code == "guard_failed:precond_missing:table"
    table = origin.offset(dx=2)
    body.run_command(f"/setblock {table.x} {table.y} {table.z} crafting_table")
    pick = run_leaf(body, "craft_recipe", {"recipe": "wooden_pickaxe"})
    assert pick.ok and pick.verdict is Verdict.VERIFIED, pick.result
    assert body.observe().count("wooden_pickaxe") == 1


def test_place_workstation_places_then_reuses_on_sim() -> None:
    body, _ = sim_body()
    body.run_command("/give @s crafting_table 2")
    first = run_leaf(body, "place_workstation", {"workstation": "crafting_table"})
    assert first.ok and first.verdict is Verdict.VERIFIED and first.observables["reused"] is False, first.result
    second = run_leaf(body, "place_workstation", {"workstation": "crafting_table"})
    assert second.ok and second.observables["reused"] is True
    assert second.observables["position"] == first.observables["position"]
    assert body.observe().count("crafting_table") == 1  # no sprawl


def test_smelt_on_sim() -> None:
    """Seed: setblock ~2 ~ ~ furnace, give raw_iron 3, give coal 8."""
    body, origin = sim_body()
    furnace = origin.offset(dx=2)
    for cmd in (f"/setblock {furnace.x} {furnace.y} {furnace.z} furnace", "/give @s raw_iron 3", "/give @s coal 8"):
        body.run_command(cmd)
    run = run_leaf(body, "smelt", {"input": "raw_iron", "qty": 2}, max_ticks=2_000)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    after = body.observe()
    assert after.count("iron_ingot") == 2 and after.count("raw_iron") == 1
    assert after.window is None


def test_a_station_is_placed_clear_of_the_bots_hitbox_when_it_stands_near_a_corner() -> None:
    """The bot's 0.6-wide hitbox reaches into the neighbouring cells when it stands near a corner of its block
    (a real server leaves it wherever the path ended); the station goes to a cell the hitbox leaves free."""
    body, feet = sim_body()
    body.run_command("/give @s crafting_table 1")
    body.world.player.position = Position(feet.x + 0.1, float(feet.y), feet.z + 0.1)
    run = run_leaf(body, "place_workstation", {"workstation": "crafting_table"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    x, _, z = run.observables["position"]
    assert (x, z) not in {(feet.x - 1, feet.z - 1), (feet.x - 1, feet.z), (feet.x, feet.z - 1)}
