"""Movement, interaction and sensing leaves on a real server, through the same CapabilityBehaviour.

Each test builds its situation with /setblock and /give (flying-squid's world has
no trees or ores) in its own arena, runs one leaf with ``tests.leafkit.run_leaf``
on the MineflayerBody, and checks both the verdict and the world.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from craftbt.capabilities.spec import Verdict
from craftbt.world.mineflayer.body import MineflayerBody
from tests.e2e.squidkit import Arena, McServer, squid_server, wait_until
from tests.leafkit import run_leaf

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def mc_server() -> Iterator[McServer]:
    """A server of this module's own: its world-changing tests and the body tests' would take more plots
    than the spawn region of one server holds (see squidkit's module docstring)."""
    yield from squid_server()

#: Ticks are real 50 ms sleeps on a server body: 600 ticks is 30 s.
MAX_TICKS = 600


def vec(pos: tuple[int, int, int]) -> dict[str, int]:
    return {"x": pos[0], "y": pos[1], "z": pos[2]}


@pytest.mark.shows_on_server("move_to", "navigate")
def test_move_to_walks_there_and_verifies(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    target = o.offset(dx=6, dz=2)
    run = run_leaf(body, "move_to", {"pos": vec(target)}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert body.position().distance_to(target) <= 2.5
    again = run_leaf(body, "navigate", {"pos": vec(target)}, MAX_TICKS)
    assert again.ok and again.observables["pathLength"] == 0


@pytest.mark.shows_on_server("acquire_material")
def test_acquire_material_stone_equips_a_pickaxe_and_expects_cobblestone(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("stone_pickaxe")
    arena.setblock(o.offset(dx=3), "stone")
    run = run_leaf(body, "acquire_material", {"item": "stone", "count": 1, "radius": 8}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert run.observables["expected"] == ["cobblestone"]
    assert run.observables["acquired"] >= 1
    assert body.observe().count("cobblestone") >= 1
    hand = body.equipment()["hand"]
    assert hand is not None and hand.name == "stone_pickaxe"
    assert body.block_at(o.offset(dx=3)).is_air


def test_acquire_material_refuses_stone_without_a_pickaxe(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.setblock(o.offset(dx=2), "stone")
    run = run_leaf(body, "acquire_material", {"item": "stone", "radius": 6}, MAX_TICKS)
    assert not run.ok
    assert run.code == "guard_failed:precond_missing:tool:wooden_pickaxe"
    assert body.block_at(o.offset(dx=2)).name == "stone"


@pytest.mark.shows_on_server("place_block")
def test_place_block_places_exactly_one(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 5)
    target = o.offset(dx=2)
    run = run_leaf(body, "place_block", {"item": "cobblestone", "pos": vec(target)}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert run.result.receipt is not None and run.result.receipt.position == target
    assert body.block_at(target).name == "cobblestone"
    wait_until(lambda: body.observe().count("cobblestone") == 4, 5, "one cobblestone spent")
    refused = run_leaf(body, "place_block", {"item": "cobblestone", "pos": vec(target)}, MAX_TICKS)
    assert refused.code == "guard_failed:occupied"
    assert body.observe().count("cobblestone") == 4


@pytest.mark.shows_on_server("get_block_at", "find_resource")
def test_get_block_at_and_find_resource(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    near, far = o.offset(dx=2, dz=1), o.offset(dx=5, dz=-3)
    # lapis: no other test places it, so no neighbouring plot can crowd the search.
    for spot in (far, near):
        arena.setblock(spot, "lapis_block")
    probe = run_leaf(body, "get_block_at", {"position": vec(near)}, MAX_TICKS)
    assert probe.ok and probe.observables["block"] == "lapis_block"
    found = run_leaf(body, "find_resource", {"blockType": "lapis_block", "radius": 10}, MAX_TICKS)
    assert found.ok, found.result.error
    positions = [(p["x"], p["y"], p["z"]) for p in found.observables["positions"]]
    assert positions[0] == tuple(near)
    assert tuple(far) in positions
    missing = run_leaf(body, "find_resource", {"blockType": "diamond_block", "radius": 6}, MAX_TICKS)
    assert missing.code == "not_found"


@pytest.mark.shows_on_server("chat", "wait")
def test_chat_and_wait(body: MineflayerBody) -> None:
    start, _ = body.chat_messages()
    run = run_leaf(body, "chat", {"message": "leaf chat e2e"}, MAX_TICKS)
    assert run.ok and run.verdict is Verdict.VERIFIED
    wait_until(lambda: any("leaf chat e2e" in line for line in body.chat_messages(start)[1]), 10, "the echo")
    before = body.now_ticks()
    waited = run_leaf(body, "wait", {"ms": 500}, MAX_TICKS)
    assert waited.ok and waited.verdict is Verdict.VERIFIED
    assert body.now_ticks() - before >= 10


def test_consume_food_refuses_when_full_with_given_bread(spawned: Arena) -> None:
    body = spawned.body
    spawned.give("bread", 2)
    run = run_leaf(body, "consume_food", {}, MAX_TICKS)
    assert run.code == "guard_failed:not_hungry"
    assert body.observe().count("bread") == 2


@pytest.mark.shows_on_server("place_block_at")
def test_place_block_at_places_once_and_is_idempotent(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 3)
    target = o.offset(dx=3, dz=1)
    run = run_leaf(body, "place_block_at", {"position": vec(target), "block": "cobblestone"}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert run.observables["placed"] is True
    assert run.result.receipt is not None and run.result.receipt.position == target
    assert body.block_at(target).name == "cobblestone"
    wait_until(lambda: body.observe().count("cobblestone") == 2, 5, "one cobblestone spent")
    again = run_leaf(body, "place_block_at", {"position": vec(target), "block": "cobblestone"}, MAX_TICKS)
    assert again.ok and again.observables["already_present"] is True
    assert body.observe().count("cobblestone") == 2
    # Stacked on the first: the cell above has a reference below it.
    above = run_leaf(body, "place_block_at", {"position": vec(target.offset(dy=1)), "block": "cobblestone"}, MAX_TICKS)
    assert above.ok and above.verdict is Verdict.VERIFIED, above.result.error
    assert body.block_at(target.offset(dy=1)).name == "cobblestone"


def test_place_block_at_refusals_change_nothing(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 2)
    arena.setblock(o.offset(dx=2), "stone")
    occupied = run_leaf(body, "place_block_at", {"position": vec(o.offset(dx=2)), "block": "cobblestone"}, MAX_TICKS)
    assert occupied.code == "guard_failed:occupied:stone"
    floating = o.offset(dx=2, dz=-2, dy=3)
    no_ref = run_leaf(body, "place_block_at", {"position": vec(floating), "block": "cobblestone"}, MAX_TICKS)
    assert no_ref.code == "guard_failed:no_reference_block"
    missing = run_leaf(body, "place_block_at", {"position": vec(o.offset(dx=3)), "block": "oak_planks"}, MAX_TICKS)
    assert missing.code == "guard_failed:precond_missing:item:oak_planks"
    assert body.observe().count("cobblestone") == 2
    assert body.block_at(o.offset(dx=2)).name == "stone"
    assert body.block_at(floating).is_air and body.block_at(o.offset(dx=3)).is_air


@pytest.mark.shows_on_server("dig_block_at")
def test_dig_block_at_clears_the_cell_with_the_right_tool(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("stone_pickaxe")
    target = o.offset(dx=3, dz=-1)
    arena.setblock(target, "stone")
    run = run_leaf(body, "dig_block_at", {"position": vec(target), "expect": "stone"}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert run.observables["dug"] == "stone"
    assert body.block_at(target).is_air
    hand = body.equipment()["hand"]
    assert hand is not None and hand.name == "stone_pickaxe"
    again = run_leaf(body, "dig_block_at", {"position": vec(target)}, MAX_TICKS)
    assert again.ok and again.observables["already_air"] is True


def test_dig_block_at_refuses_drift_and_bedrock(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    drifted, hard = o.offset(dx=2, dz=2), o.offset(dx=2, dz=-2)
    arena.setblock(drifted, "dirt")
    arena.setblock(hard, "bedrock")
    wrong = run_leaf(body, "dig_block_at", {"position": vec(drifted), "expect": "stone"}, MAX_TICKS)
    assert wrong.code == "guard_failed:unexpected_block:dirt"
    unbreakable = run_leaf(body, "dig_block_at", {"position": vec(hard)}, MAX_TICKS)
    assert unbreakable.code == "guard_failed:not_diggable:bedrock"
    assert body.block_at(drifted).name == "dirt" and body.block_at(hard).name == "bedrock"


def test_control_environment_reads_weather_and_operator_rights(body: MineflayerBody) -> None:
    """The mineflayer body answers control_environment's two questions: the weather and operator rights."""
    assert body.weather() in ("clear", "rain", "thunder")
    assert body.is_operator() in (True, False, None)  # None: this server never announced a permission level
    run = run_leaf(body, "control_environment", {"action": "set_weather", "weather": "rain"}, MAX_TICKS)
    if body.is_operator() is False:
        assert run.code == "guard_failed:precond_missing:operator"
        return
    # the verdict comes from the body's own weather report, never "the body does not report weather"
    assert run.result.verification is not None
    assert run.result.verification.evidence.get("reason") != "the body does not report weather"


@pytest.mark.shows_on_server("step_forward_safely")
def test_step_forward_safely_walks_the_way_the_bot_faces(arena: Arena) -> None:
    """The mineflayer adapter reports Notch degrees; the body observes radians as the embedded world does,
    so the leaf's ``facing()`` agrees with where the bot looks (was: 270 degrees read as radians)."""
    from craftbt.capabilities.leaves.movement import facing
    from tests.e2e.squidkit import finish

    body, o = arena.body, arena.origin
    finish(body.goto(o.offset(dx=3), tolerance=0.5), 30)  # the pathfinder looks where it walks: east (+x)
    assert facing(body.observe().yaw) == (1, 0)
    start = body.position().block()
    run = run_leaf(body, "step_forward_safely", {"distance": 2, "checkLight": False}, max_ticks=400)
    assert run.ok, run.result
    end = body.position().block()
    assert end.x > start.x and end.z == start.z
