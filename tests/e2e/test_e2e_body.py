"""The mineflayer body on a real server: what flying-squid 1.12 supports.

Spawn and observation, pathfinding, digging with drops and pickup, placing
against a face, block probes, block search, chat, /give inventory, tossing,
and the body's refusals (each a BodyError with its code, nothing changed).
"""

from __future__ import annotations

import pytest

from craftbt.world.body import ActionStatus, BlockPos, Body, BodyError, BodyErrorCode, Face, Position
from craftbt.world.mineflayer.body import MineflayerBody
from tests.e2e.squidkit import Arena, McServer, connect, finish, refusal, stand_at, wait_until

pytestmark = pytest.mark.e2e


def test_spawn_and_observe(body: MineflayerBody, mc_server: McServer) -> None:
    assert isinstance(body, Body)
    obs = body.observe()
    assert obs.health > 0
    assert 0 <= obs.food <= 20
    assert 0 <= obs.time_of_day < 24_000
    assert obs.dimension == "overworld"
    assert body.version == mc_server.version
    below = body.block_at(obs.position.block().offset(dy=-1))
    assert not below.is_air
    assert not below.name.startswith("minecraft:")
    assert body.position() == obs.position
    assert body.equipment()["hand"] is None or body.equipment()["hand"] is not None  # a dict with every slot
    assert set(body.equipment()) == {"hand", "off-hand", "head", "torso", "legs", "feet"}


def test_a_far_teleport_keeps_the_bots_that_see_it_online(arena: Arena, mc_server: McServer) -> None:
    """flying-squid sends a move of more than 7 blocks as an entity_teleport packet that does not serialize
    for 1.21.2+: the bots that saw it got no packet more (a bot logging in then never had its login answered).
    craftbt's plugin sends vanilla's sync_entity_position instead: the watcher sees the move and stays on.
    And it sees a player there: flying-squid spawned players as entity type 0 (an acacia boat in 1.21.4)."""
    watcher = connect(mc_server)
    try:
        far = arena.origin.offset(dx=12)
        stand_at(arena.body, far)
        want = Position(far.x + 0.5, float(far.y), far.z + 0.5)

        def seen_there() -> bool:  # a player (flying-squid spawned one as entity type 0, an acacia boat)
            return any(e.kind == "player" and e.position.distance_to(want) < 0.5 for e in watcher.entities(96))

        wait_until(seen_there, 10, "the watcher to see the bot 12 blocks further")
        assert watcher.connected
        assert finish(watcher.chat("still here"), 5) is ActionStatus.SUCCEEDED
    finally:
        watcher.close()
    connect(mc_server).close()  # and the next login is answered


def test_inventory_from_give_and_equip(spawned: Arena) -> None:
    body = spawned.body
    spawned.give("stone_pickaxe")
    spawned.give("minecraft:oak_planks", 12)
    stacks = {s.name: s.count for s in body.inventory()}
    assert stacks["stone_pickaxe"] == 1
    assert stacks["oak_planks"] == 12
    assert finish(body.equip("stone_pickaxe")) is ActionStatus.SUCCEEDED
    hand = body.equipment()["hand"]
    assert hand is not None and hand.name == "stone_pickaxe"
    assert body.observe().held_item == "stone_pickaxe"
    assert refusal(lambda: body.equip("diamond_sword")) is BodyErrorCode.MISSING_ITEM
    assert refusal(lambda: body.equip("no_such_item")) is BodyErrorCode.UNKNOWN_ITEM


def test_goto_walks_around_a_wall(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    for dz in (-1, 0, 1):
        for dy in (0, 1):
            arena.setblock(o.offset(dx=3, dy=dy, dz=dz), "stone")
    target = o.offset(dx=7)
    handle = body.goto(target, tolerance=1.0)
    assert finish(handle, 30) is ActionStatus.SUCCEEDED, handle.error()
    assert body.position().block().distance_to(target) <= 1.0


def test_goto_already_there_and_busy(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    here = body.goto(o, tolerance=1.0)
    assert finish(here) is ActionStatus.SUCCEEDED
    assert here.result()["moved"] is False
    first = body.goto(o.offset(dx=12), tolerance=1.0)
    assert refusal(lambda: body.goto(o.offset(dz=5))) is BodyErrorCode.NAV_BUSY
    first.cancel("test")
    assert first.status() is ActionStatus.CANCELLED
    err = first.error()
    assert err is not None and err.code is BodyErrorCode.CANCELLED


def test_goto_unreachable_target_fails_with_no_path(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    handle = body.goto(o.offset(dx=2, dy=12), tolerance=0.5)
    assert finish(handle, 30) is ActionStatus.FAILED
    err = handle.error()
    assert err is not None and err.code is BodyErrorCode.NO_PATH


def test_dig_drops_and_pickup(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("stone_pickaxe")
    assert finish(body.equip("stone_pickaxe")) is ActionStatus.SUCCEEDED
    block = o.offset(dx=2)
    arena.setblock(block, "stone")
    handle = body.dig(block)
    assert finish(handle) is ActionStatus.SUCCEEDED, handle.error()
    assert handle.result()["block"] == "stone"
    assert body.block_at(block).is_air
    drop = wait_until(lambda: next(iter(body.entities(8, kind="item")), None), 10, "the dropped item")
    assert all(e.kind == "item" for e in body.entities(8, kind="item"))
    assert body.entities(8, kind="hostile") == []
    # the tick's view filters by radius and kind as the adapter's own entities call does
    for radius, kind in ((8, "item"), (8, None), (32, None), (2, "item")):
        direct = body._call("entities", {"radius": radius, "kind": kind})
        assert [(e.id, e.kind) for e in body.entities(radius, kind=kind)] == [(e["id"], e["kind"]) for e in direct]
    # flying-squid sends no item metadata for drops; a vanilla server does.
    assert drop.item is None or drop.item.name == "cobblestone"
    assert finish(body.goto(block, tolerance=0.0), 20) is ActionStatus.SUCCEEDED
    wait_until(lambda: body.observe().count("cobblestone") >= 1, 10, "the pickup")


def test_dig_refusals_change_nothing(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    far = o.offset(dx=7)
    arena.setblock(far, "dirt")
    assert refusal(lambda: body.dig(far)) is BodyErrorCode.OUT_OF_REACH
    assert body.block_at(far).name == "dirt"
    assert refusal(lambda: body.dig(o.offset(dx=1, dy=1))) is BodyErrorCode.NOT_DIGGABLE  # air
    arena.setblock(o.offset(dx=1), "bedrock")
    assert refusal(lambda: body.dig(o.offset(dx=1))) is BodyErrorCode.NOT_DIGGABLE


def test_place_against_a_face(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 3)
    against = arena.ground.offset(dx=2)
    handle = body.place("cobblestone", against, Face.UP)
    assert finish(handle) is ActionStatus.SUCCEEDED, handle.error()
    placed = o.offset(dx=2)
    assert body.block_at(placed).name == "cobblestone"
    assert handle.result()["pos"] == list(placed)
    wait_until(lambda: body.observe().count("cobblestone") == 2, 5, "the inventory to drop one")
    side = body.place("cobblestone", placed, Face.EAST)
    assert finish(side) is ActionStatus.SUCCEEDED, side.error()
    assert body.block_at(placed.offset(dx=1)).name == "cobblestone"


def test_place_refusals_change_nothing(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 2)
    ground = arena.ground
    assert refusal(lambda: body.place("oak_log", ground.offset(dx=1), Face.UP)) is BodyErrorCode.MISSING_ITEM
    assert refusal(lambda: body.place("nope_block", ground.offset(dx=1), Face.UP)) is BodyErrorCode.UNKNOWN_ITEM
    air = o.offset(dx=1, dy=1)
    assert refusal(lambda: body.place("cobblestone", air, Face.UP)) is BodyErrorCode.NO_REFERENCE_BLOCK
    assert refusal(lambda: body.place("cobblestone", ground.offset(dx=1), Face.DOWN)) is BodyErrorCode.OCCUPIED
    assert refusal(lambda: body.place("cobblestone", ground, Face.UP)) is BodyErrorCode.OCCUPIED  # the bot
    assert refusal(lambda: body.place("cobblestone", ground.offset(dx=9), Face.UP)) is BodyErrorCode.OUT_OF_REACH
    assert body.observe().count("cobblestone") == 2
    assert body.block_at(o.offset(dx=1)).is_air


def test_block_at_and_find_blocks(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    spots = [o.offset(dx=2, dz=1), o.offset(dx=4, dz=-2), o.offset(dx=6, dz=3)]
    for spot in spots:
        arena.setblock(spot, "gold_block")
    info = body.block_at(spots[0])
    assert info.name == "gold_block" and info.pos == spots[0]
    found = body.find_blocks(["minecraft:gold_block"], radius=12, max_count=8)
    assert set(spots) <= set(found)
    ours = [p for p in found if p in spots]
    assert ours == sorted(ours, key=lambda p: body.position().distance_to(p))
    assert body.find_blocks(["gold_block"], radius=12, max_count=1)[0] in found
    buried = o.offset(dx=3, dy=-2)  # dirt all around on the superflat world
    arena.setblock(buried, "gold_block")
    assert buried in body.find_blocks(["gold_block"], radius=12, max_count=8)
    exposed = body.find_blocks(["gold_block"], radius=12, max_count=8, exposed=True)
    assert buried not in exposed and set(spots) <= set(exposed)
    assert refusal(lambda: body.find_blocks(["not_a_block"], 8)) is BodyErrorCode.UNKNOWN_BLOCK
    # the adapter's one-pass search answers what mineflayer's own bot.findBlocks answers, order included
    for names, radius, cap in ((["gold_block"], 12, 8), (["dirt", "grass_block"], 5, 4096), (["grass_block"], 9, 40)):
        for open_only in (False, True):
            args = {"names": names, "radius": radius, "maxCount": cap, "exposed": open_only}
            ours = body.find_blocks(names, radius, max_count=cap, exposed=open_only)
            assert ours == [BlockPos(*p) for p in body._call("findBlocksMineflayer", args)]
            assert ours, (names, open_only)


def test_nearest_blocks_agrees_with_find_blocks(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    placed = {"gold_block": [o.offset(dx=5, dz=2), o.offset(dx=-3, dz=1)], "diamond_block": [o.offset(dz=-4)]}
    for name, spots in placed.items():
        for spot in spots:
            arena.setblock(spot, name)
    arena.setblock(o.offset(dx=2, dy=-2), "emerald_block")  # buried: dirt all around on the superflat world
    names = ["gold_block", "minecraft:diamond_block", "emerald_block", "obsidian", "not_a_block"]
    for exposed in (False, True):
        nearest = body.nearest_blocks(names, 8, exposed=exposed)
        expected = {n: hits[0] for n in names[:4] if (hits := body.find_blocks([n], 8, 1, exposed=exposed))}
        assert nearest == expected
        assert nearest["gold_block"] in placed["gold_block"]
        assert nearest["minecraft:diamond_block"] == o.offset(dz=-4)
        assert ("emerald_block" in nearest) is not exposed
        assert "obsidian" not in nearest and "not_a_block" not in nearest
    # mineflayer's capped findBlocks can stop before the nearest match (it found the gold at +5 first);
    # the adapter re-lists everything within the capped answer's distance, so both modes get the nearest
    for exposed in (False, True):
        assert body.nearest_blocks(["gold_block"], 8, exposed=exposed)["gold_block"] == o.offset(dx=-3, dz=1)
        assert body.find_blocks(["gold_block"], 8, 1, exposed=exposed) == [o.offset(dx=-3, dz=1)]
    assert refusal(lambda: body.nearest_blocks(["stone"], -1)) is BodyErrorCode.INVALID_ARGUMENT


def test_chat_is_heard(body: MineflayerBody) -> None:
    start, _ = body.chat_messages()
    assert finish(body.chat("hello from craftbt e2e")) is ActionStatus.SUCCEEDED
    wait_until(
        lambda: any("hello from craftbt e2e" in line for line in body.chat_messages(start)[1]),
        10,
        "the server's echo",
    )
    assert refusal(lambda: body.chat("")) is BodyErrorCode.INVALID_ARGUMENT
    assert refusal(lambda: body.chat("x" * 300)) is BodyErrorCode.INVALID_ARGUMENT


def test_toss_drops_items(arena: Arena) -> None:
    body = arena.body
    arena.give("dirt", 5)
    assert finish(body.toss("dirt", 2)) is ActionStatus.SUCCEEDED
    wait_until(lambda: body.observe().count("dirt") == 3, 5, "the toss")
    assert refusal(lambda: body.toss("dirt", 10)) is BodyErrorCode.MISSING_ITEM


def test_wait_and_time(body: MineflayerBody) -> None:
    before = body.now_ticks()
    body.advance(10)
    assert body.now_ticks() >= before + 10
    with pytest.raises(BodyError) as info:
        body.advance(-1)
    assert info.value.code is BodyErrorCode.INVALID_ARGUMENT
    assert 0 <= body.light_level() <= 15


def test_consume_refuses_when_full(spawned: Arena) -> None:
    body = spawned.body
    spawned.give("bread", 2)
    assert body.food() == 20
    assert refusal(lambda: body.consume("bread")) is BodyErrorCode.NOT_HUNGRY
    spawned.give("cobblestone")
    assert refusal(lambda: body.consume("cobblestone")) is BodyErrorCode.NOT_EDIBLE


def test_window_refusals(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("oak_planks", 4)
    assert body.open_window() is None
    assert refusal(lambda: body.container_put("oak_planks", 1)) is BodyErrorCode.WINDOW_CLOSED
    assert refusal(lambda: body.open_container(arena.ground)) is BodyErrorCode.NOT_A_CONTAINER
    assert refusal(lambda: body.sleep(arena.ground)) is BodyErrorCode.NOT_SLEEPABLE
    assert refusal(lambda: body.craft("diamond_pickaxe", 1)) is BodyErrorCode.NO_TABLE
    assert refusal(lambda: body.craft("stick", 1000)) is BodyErrorCode.MISSING_ITEM
    assert refusal(lambda: body.attack(987654)) is BodyErrorCode.UNKNOWN_ENTITY
    arena.setblock(o.offset(dx=2), "stone")
    assert refusal(lambda: body.craft("oak_planks", 1, table=o.offset(dx=2))) is BodyErrorCode.NO_TABLE
