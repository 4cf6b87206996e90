"""Movement, interaction and sensing leaves on a real server, through the same CapabilityBehaviour.

Each test builds its situation with /setblock and /give (flying-squid's world has
no trees or ores) in its own arena, runs one leaf with ``tests.leafkit.run_leaf``
on the MineflayerBody, and checks both the verdict and the world.
"""

from __future__ import annotations

import pytest

from capabilities.spec import Verdict
from tests.e2e.conftest import Arena, wait_until
from tests.leafkit import run_leaf
from world.mineflayer.body import MineflayerBody

pytestmark = pytest.mark.e2e

#: Ticks are real 50 ms sleeps on a server body: 600 ticks is 30 s.
MAX_TICKS = 600


def vec(pos: tuple[int, int, int]) -> dict[str, int]:
    return {"x": pos[0], "y": pos[1], "z": pos[2]}


def test_move_to_walks_there_and_verifies(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    target = o.offset(dx=6, dz=2)
    run = run_leaf(body, "move_to", {"pos": vec(target)}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert body.position().distance_to(target) <= 2.5
    again = run_leaf(body, "navigate", {"pos": vec(target)}, MAX_TICKS)
    assert again.ok and again.observables["pathLength"] == 0


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


def test_get_block_at_and_find_resource(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    near, far = o.offset(dx=2, dz=1), o.offset(dx=5, dz=-3)
    for spot in (far, near):
        arena.setblock(spot, "gold_block")
    probe = run_leaf(body, "get_block_at", {"position": vec(near)}, MAX_TICKS)
    assert probe.ok and probe.observables["block"] == "gold_block"
    found = run_leaf(body, "find_resource", {"blockType": "gold_block", "radius": 10}, MAX_TICKS)
    assert found.ok, found.result.error
    positions = [(p["x"], p["y"], p["z"]) for p in found.observables["positions"]]
    assert positions[0] == tuple(near)
    assert tuple(far) in positions
    missing = run_leaf(body, "find_resource", {"blockType": "diamond_block", "radius": 6}, MAX_TICKS)
    assert missing.code == "not_found"


def test_chat_and_wait(body: MineflayerBody) -> None:
    start, _ = body.chat_messages()
    run = run_leaf(body, "chat", {"message": "leaf chat e2e"}, MAX_TICKS)
    assert run.ok and run.verdict is Verdict.VERIFIED
    wait_until(lambda: any("leaf chat e2e" in line for line in body.chat_messages(start)[1]), 10, "the echo")
    before = body.now_ticks()
    waited = run_leaf(body, "wait", {"ms": 500}, MAX_TICKS)
    assert waited.ok and waited.verdict is Verdict.VERIFIED
    assert body.now_ticks() - before >= 10


def test_consume_food_refuses_when_full_with_given_bread(arena: Arena) -> None:
    body = arena.body
    arena.give("bread", 2)
    run = run_leaf(body, "consume_food", {}, MAX_TICKS)
    assert run.code == "guard_failed:not_hungry"
    assert body.observe().count("bread") == 2
