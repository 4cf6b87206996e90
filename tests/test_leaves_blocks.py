"""Interaction leaves on the embedded world, each with its seed situation, a verified success and a refusal."""

from __future__ import annotations

import pytest

from craftbt.capabilities.leaves.blocks import material_plan
from craftbt.capabilities.leaves.common import registry_data
from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BlockPos, Position
from craftbt.world.mcdata import load
from craftbt.world.scenarios.loader import load_scenario, starter_world
from tests.leafkit import make_context, run_leaf
from tests.simkit import sim_body

SCENARIOS = "world/scenarios/leaves/"
E = BlockPos(0, 64, 0)  # the player's feet block in every flat scenario


def at(dx: int, dy: int, dz: int) -> dict[str, int]:
    return {"x": E.x + dx, "y": E.y + dy, "z": E.z + dz}


# -- block -> drop mapping (from minecraft-data, not a hand table) --------------------------------
@pytest.mark.parametrize(
    ("item", "blocks", "expected"),
    [
        ("stone", {"stone"}, {"cobblestone"}),
        ("cobblestone", {"stone", "cobblestone"}, {"cobblestone"}),
        ("oak_log", {"oak_log"}, {"oak_log"}),
        ("raw_iron", {"iron_ore", "deepslate_iron_ore"}, {"raw_iron"}),
        ("iron_ore", {"iron_ore"}, {"raw_iron"}),
        ("bedrock", set(), set()),
    ],
)
def test_material_plan_maps_blocks_to_drops(item: str, blocks: set[str], expected: set[str]) -> None:
    plan = material_plan(load(), item)
    assert plan.blocks == blocks and plan.expected == expected


# -- acquire_material ------------------------------------------------------------------------------
def test_acquire_stone_equips_best_pickaxe_and_expects_cobblestone() -> None:
    body = load_scenario(SCENARIOS + "acquire_material.yaml")
    run = run_leaf(body, "acquire_material", {"item": "stone", "count": 3})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["acquired"] == 3 and run.observables["expected"] == ["cobblestone"]
    assert body.observe().count("cobblestone") == 3
    hand = body.equipment()["hand"]
    assert hand is not None and hand.name == "stone_pickaxe"  # faster than the wooden one
    assert body.block_at(BlockPos(0, 61, 1)).name == "stone"  # 3 below the feet: MIN_DY leaves it


def test_acquire_cobblestone_finds_stone_and_logs_by_hand() -> None:
    body = load_scenario(SCENARIOS + "acquire_material.yaml")
    assert run_leaf(body, "acquire_material", {"item": "cobblestone", "count": 1}).verdict is Verdict.VERIFIED
    logs = run_leaf(body, "acquire_material", {"item": "oak_log", "count": 2})
    assert logs.ok and logs.verdict is Verdict.VERIFIED and body.observe().count("oak_log") == 2


def test_acquire_partial_is_a_retryable_failure_with_the_count() -> None:
    body = load_scenario(SCENARIOS + "acquire_material.yaml")
    run = run_leaf(body, "acquire_material", {"item": "oak_log", "count": 5}, max_ticks=1200)
    assert not run.ok and run.code == "partial"
    assert run.result.error is not None and run.result.error.retryable
    assert run.observables["acquired"] == 2 == body.observe().count("oak_log")


def test_acquire_refusals() -> None:
    body = load_scenario("flat_empty")
    assert run_leaf(body, "acquire_material", {"item": "not_a_thing"}).code == "guard_failed:unknown_item"
    assert run_leaf(body, "acquire_material", {"item": "oak_log"}).code == "guard_failed:no_target"
    assert run_leaf(body, "acquire_material", {"item": "stone", "tool": "iron_pickaxe"}).code == (
        "guard_failed:precond_missing:item:iron_pickaxe"
    )
    bare = load_scenario(SCENARIOS + "dig_block.yaml")
    bare.world.player.inventory.remove("stone_pickaxe", 1)
    assert run_leaf(bare, "acquire_material", {"item": "stone"}).code == (
        "guard_failed:precond_missing:tool:wooden_pickaxe"
    )


def test_acquire_walks_to_a_drop_that_was_not_picked_up() -> None:
    body = load_scenario(SCENARIOS + "acquire_material.yaml")
    body.run_command("/summon item ~2 ~1 ~-2 {Item:{id:\"minecraft:cobblestone\",Count:1}}")
    body.advance(1)
    ctx = make_context(body)
    from craftbt.capabilities.leaves.blocks import collect_drops

    start = body.observe().count("cobblestone")

    def gained() -> int:
        return body.observe().count("cobblestone") - start

    gen = collect_drops(ctx, BlockPos(2, 64, -2), gained, 0)
    handle = None
    for _ in range(200):
        try:
            handle = gen.send(handle)
        except StopIteration as stop:
            assert stop.value.ok
            break
        while handle is not None and handle.status().value == "running":
            body.advance(1)
        body.advance(1)
    assert body.observe().count("cobblestone") == start + 1


def test_acquire_logs_in_the_starter_world_with_the_seed_radius() -> None:
    body = starter_world(0)
    assert run_leaf(body, "acquire_material", {"item": "oak_log", "count": 1}).verdict is Verdict.VERIFIED


# -- dig_block (deprecated) -------------------------------------------------------------------------
def test_dig_block_warns_equips_and_digs() -> None:
    body = load_scenario(SCENARIOS + "dig_block.yaml")
    assert make_context(body).registry.get("dig_block").deprecated
    with pytest.warns(DeprecationWarning, match="acquire_material"):
        run = run_leaf(body, "dig_block", {"pos": at(3, 0, 0), "expect": "stone"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.block_at(BlockPos(3, 64, 0)).is_air
    hand = body.equipment()["hand"]
    assert hand is not None and hand.name == "stone_pickaxe"


def test_dig_block_refusals() -> None:
    body = load_scenario(SCENARIOS + "dig_block.yaml")
    assert run_leaf(body, "dig_block", {"pos": at(-2, 0, 0)}).code == "guard_failed:not_diggable"
    assert run_leaf(body, "dig_block", {"pos": at(3, 0, 0), "expect": "dirt"}).code == "guard_failed:unexpected_block"
    assert run_leaf(body, "dig_block", {"pos": at(0, 5, 0)}).code == "guard_failed:no_target"
    with pytest.raises(Exception, match="pos or blockType"):
        run_leaf(body, "dig_block", {})


# -- place_block -------------------------------------------------------------------------------------
def test_place_block_places_exactly_one_per_dispatch() -> None:
    body = load_scenario(SCENARIOS + "place_block.yaml")
    run = run_leaf(body, "place_block", {"item": "cobblestone"})
    assert run.ok and run.verdict is Verdict.VERIFIED
    receipt = run.result.receipt
    assert receipt is not None and receipt.position is not None and receipt.block == "cobblestone"
    assert body.block_at(receipt.position).name == "cobblestone"
    assert body.observe().count("cobblestone") == 63  # the "5 cobblestones" bug would leave 59
    on_top = run_leaf(body, "place_block", {"item": "cobblestone", "against": at(2, 0, 0)})
    assert on_top.ok and body.block_at(BlockPos(2, 65, 0)).name == "cobblestone"
    assert body.observe().count("cobblestone") == 62


def test_place_block_refusals_change_nothing() -> None:
    body = load_scenario(SCENARIOS + "place_block.yaml")
    assert run_leaf(body, "place_block", {"item": "cobblestone", "pos": at(2, 0, 0)}).code == "guard_failed:occupied"
    assert run_leaf(body, "place_block", {"item": "oak_log"}).code == "guard_failed:precond_missing:item:oak_log"
    assert run_leaf(body, "place_block", {"item": "stick"}).code == "guard_failed:not_placeable"
    far = run_leaf(body, "place_block", {"item": "cobblestone", "pos": at(9, 0, 0)})
    assert far.code == "guard_failed:out_of_reach"
    assert body.observe().count("cobblestone") == 64


# -- torches -----------------------------------------------------------------------------------------
def test_place_torch_if_needed_places_at_midnight_then_remembers() -> None:
    body = load_scenario(SCENARIOS + "place_torch.yaml")
    ctx = make_context(body)
    run = run_leaf(body, "place_torch_if_needed", {}, ctx=ctx)
    assert run.ok and run.verdict is Verdict.VERIFIED and run.observables["torchPlaced"] is True
    assert list(ctx.memory["torch_positions"]) == [run.result.receipt.position]  # type: ignore[union-attr]
    body.advance(1)
    again = run_leaf(body, "place_torch_if_needed", {"lightThreshold": 15}, ctx=ctx)
    assert again.observables["torchPlaced"] is False and body.observe().count("torch") == 63


def test_place_torch_if_needed_skips_in_daylight_and_refuses_without_torches() -> None:
    body = load_scenario("flat_empty")
    day = run_leaf(body, "place_torch_if_needed", {})
    assert day.ok and day.observables == {"torchPlaced": False, "reason": "bright_enough", "lightLevel": 15}
    dark = load_scenario(SCENARIOS + "place_torch.yaml")
    dark.world.player.inventory.remove("torch", 64)
    assert run_leaf(dark, "place_torch_if_needed", {}).code == "guard_failed:precond_missing:item:torch"


def test_place_torch_on_a_wall_gives_a_wall_torch() -> None:
    body = load_scenario(SCENARIOS + "place_block.yaml")
    body.run_command("/give Sterling torch 2")
    body.advance(1)
    body.run_command("/setblock ~2 ~-1 ~ minecraft:air")
    body.advance(1)
    run = run_leaf(body, "place_torch", {"position": at(1, 0, 0)})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["blockPlaced"] in {"torch", "wall_torch"}
    assert run_leaf(body, "place_torch", {"position": at(1, 0, 0)}).code == "guard_failed:no_reference_block"


# -- retreat_and_block ----------------------------------------------------------------------------
def test_retreat_and_block_walls_off_the_zombie() -> None:
    body = load_scenario(SCENARIOS + "retreat_and_block.yaml")
    zombie = next(e for e in body.entities(16) if e.name == "zombie")
    before = body.position().distance_to(zombie.position)
    run = run_leaf(body, "retreat_and_block", {})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.position().distance_to(zombie.position) >= before + 4
    receipt = run.result.receipt
    assert receipt is not None and len(receipt.positions) == 2
    assert all(body.block_at(p).name == "cobblestone" for p in receipt.positions)


def test_retreat_and_block_refusals() -> None:
    assert run_leaf(load_scenario("flat_empty"), "retreat_and_block", {}).code == (
        "guard_failed:precond_missing:item:cobblestone"
    )
    body = load_scenario(SCENARIOS + "place_block.yaml")
    assert run_leaf(body, "retreat_and_block", {}).code == "guard_failed:no_threat"


# -- consume_food --------------------------------------------------------------------------------
def test_consume_food_picks_the_best_food_and_never_rotten_flesh() -> None:
    body = load_scenario(SCENARIOS + "consume_food.yaml")
    run = run_leaf(body, "consume_food", {"until_saturation": True})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.food() == 20
    assert "rotten_flesh" not in run.observables["eaten"]
    assert body.observe().count("rotten_flesh") == 8


def test_consume_food_refusals() -> None:
    full = load_scenario("flat_empty")
    assert run_leaf(full, "consume_food", {}).code == "guard_failed:not_hungry"
    hungry = load_scenario(SCENARIOS + "consume_food.yaml")
    assert run_leaf(hungry, "consume_food", {"food_type": "apple"}).code == "guard_failed:precond_missing:food"
    assert run_leaf(hungry, "consume_food", {"food_type": "cobblestone"}).code == "guard_failed:not_edible"
    for item, n in (("bread", 16), ("cooked_beef", 2)):
        hungry.world.player.inventory.remove(item, n)
    assert run_leaf(hungry, "consume_food", {}).code == "guard_failed:precond_missing:food"  # rotten flesh only


# -- sleep ------------------------------------------------------------------------------------------
def test_sleep_places_the_bed_and_skips_the_night() -> None:
    body = load_scenario(SCENARIOS + "sleep.yaml")
    run = run_leaf(body, "sleep", {}, max_ticks=1000)
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert run.observables["bedPlaced"] is True
    assert body.time_of_day() % 24_000 < 12_542


def test_sleep_refusals() -> None:
    day = load_scenario(SCENARIOS + "sleep.yaml")
    day.run_command("/time set day")
    day.advance(1)
    assert run_leaf(day, "sleep", {}).code == "guard_failed:daytime"
    night = load_scenario(SCENARIOS + "place_torch.yaml")
    assert run_leaf(night, "sleep", {}).code == "guard_failed:precond_missing:bed"


# -- collect_items -------------------------------------------------------------------------------
def test_collect_items_walks_onto_every_drop() -> None:
    body = load_scenario(SCENARIOS + "collect_items.yaml")
    run = run_leaf(body, "collect_items", {})
    assert run.ok and run.verdict is Verdict.VERIFIED
    assert body.observe().count("diamond") == 3 and body.observe().count("iron_ingot") == 5


def test_collect_items_by_name_and_refusal() -> None:
    body = load_scenario(SCENARIOS + "collect_items.yaml")
    run = run_leaf(body, "collect_items", {"itemName": "iron_ingot"})
    assert run.ok and body.observe().count("iron_ingot") == 5 and body.observe().count("diamond") == 0
    assert run_leaf(body, "collect_items", {"itemName": "emerald"}).code == "guard_failed:no_target"


def test_collect_items_walks_under_a_drop_still_falling() -> None:
    # a log broken five blocks up drops its item there: the walk goes to where it lands, not into the air
    body = load_scenario("flat_empty")
    body.world.spawn_item("oak_log", 1, 3.5, 69.5, 0.5, jitter=False)
    run = run_leaf(body, "collect_items", {})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.code
    assert body.observe().count("oak_log") == 1


def test_registry_data_follows_the_body_version() -> None:
    body = load_scenario("flat_empty")
    assert registry_data(make_context(body)).version == body.version


def test_a_block_placed_beside_the_bot_goes_clear_of_its_hitbox() -> None:
    """Standing near the +x edge of its block the bot's hitbox reaches into the cell east of it; a block placed
    "beside the player" goes to a cell the hitbox leaves free (the server refuses the other)."""
    body, feet = sim_body()
    body.run_command("/give @s dirt 1")
    body.world.player.position = Position(feet.x + 0.9, float(feet.y), feet.z + 0.5)
    run = run_leaf(body, "place_block", {"item": "dirt"})
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result
    assert body.block_at(feet.offset(dx=1)).name == "air"
