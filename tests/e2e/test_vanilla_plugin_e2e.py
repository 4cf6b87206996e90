"""craftbt's flying-squid plugin (``world/mineflayer/squid_vanilla.js``): crafting, smelting, containers, drops.

Every test here shows a success on the real protocol: mineflayer's own ``bot.craft`` (window clicks on
the 2x2 inventory grid and on a crafting table's 3x3 window), its furnace and chest windows, and the
capabilities (``craft_recipe``, ``smelt``) that drive them. The module runs its own server (its plots
are its own) with the plugin loaded, as ``FlyingSquid`` does by default.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from craftbt.capabilities.spec import Verdict
from craftbt.world.body import ActionStatus, BodyErrorCode
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from craftbt.world.mineflayer.server import FlyingSquid
from tests.e2e.squidkit import (
    Arena,
    McServer,
    command,
    connect,
    finish,
    give,
    refusal,
    setblock,
    skip_without_node,
    squid_server,
    wait_until,
)
from tests.leafkit import run_leaf

pytestmark = pytest.mark.e2e

#: Ticks are real 50 ms sleeps on a server body: 900 ticks is 45 s.
MAX_TICKS = 900


@pytest.fixture(scope="module")
def mc_server() -> Iterator[McServer]:
    yield from squid_server()


def inventory(body: MineflayerBody) -> dict[str, int]:
    return dict(body.observe().inventory)


def test_the_server_announces_the_plugin(body: MineflayerBody) -> None:
    features = wait_until(body.server_features, 10, "the server brand")
    assert {"crafting", "furnace", "chest", "barrel", "harvest_drops"} <= features


def test_bot_craft_in_the_inventory_grid_and_at_a_table(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("oak_log", 4)
    planks = body.craft("oak_planks", 3)  # shapeless, 2x2
    assert finish(planks) is ActionStatus.SUCCEEDED, planks.error()
    assert planks.result()["crafted"] == 12
    assert finish(body.craft("stick", 1)) is ActionStatus.SUCCEEDED  # shaped 1x2
    assert finish(body.craft("crafting_table", 1)) is ActionStatus.SUCCEEDED  # shaped 2x2
    table = o.offset(dx=2)
    arena.setblock(table, "crafting_table")
    pickaxe = body.craft("wooden_pickaxe", 1, table)  # shaped 3x3 with holes, in the table's window
    assert finish(pickaxe) is ActionStatus.SUCCEEDED, pickaxe.error()
    assert body.open_window() is None  # bot.craft closed the table's window
    # exactly what vanilla leaves: 12 planks - 2 (sticks) - 4 (table) - 3 (pickaxe), 4 sticks - 2
    assert inventory(body) == {"oak_log": 1, "oak_planks": 3, "stick": 2, "crafting_table": 1, "wooden_pickaxe": 1}


@pytest.mark.shows_on_server("craft_recipe")
def test_craft_recipe_capability_2x2_and_3x3(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("oak_log", 3)
    run = run_leaf(body, "craft_recipe", {"recipe": "oak_planks", "qty": 12}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert inventory(body)["oak_planks"] == 12
    run = run_leaf(body, "craft_recipe", {"recipe": "stick", "qty": 4}, MAX_TICKS)
    assert run.ok and run.verdict is Verdict.VERIFIED, run.result.error
    arena.setblock(o.offset(dx=2, dz=1), "crafting_table")
    run = run_leaf(body, "craft_recipe", {"recipe": "wooden_pickaxe", "qty": 1}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    assert inventory(body)["wooden_pickaxe"] == 1


def test_planks_sticks_and_a_pickaxe_at_a_table_read_back_exactly_every_time(arena: Arena) -> None:
    """The iron episode's crafts, twice over, onto stacks the bot already holds: each inventory read right
    after a craft is exactly what the server then sends back when asked for the whole inventory."""
    body, o = arena.body, arena.origin
    arena.give("oak_log", 4)
    arena.give("stick", 1)  # a stack the crafted sticks join (flying-squid's /give counted it as text)
    table = o.offset(dx=2, dz=-2)
    arena.setblock(table, "crafting_table")
    want = {"oak_log": 4, "stick": 1}
    planks = ("oak_planks", None, {"oak_log": -1, "oak_planks": 4})
    steps = [planks, planks, ("stick", None, {"oak_planks": -2, "stick": 4}),
             ("wooden_pickaxe", table, {"oak_planks": -3, "stick": -2, "wooden_pickaxe": 1})]
    for _ in range(2):
        for item, at, change in steps:
            craft = body.craft(item, 1, at)
            assert finish(craft) is ActionStatus.SUCCEEDED, (item, craft.error())
            for name, delta in change.items():
                want[name] = want.get(name, 0) + delta
            want = {k: v for k, v in want.items() if v}
            assert inventory(body) == want, item  # read at once, as the craft's acceptance check reads it
    assert finish(body.resync_inventory()) is ActionStatus.SUCCEEDED
    assert inventory(body) == want == {"oak_planks": 6, "stick": 5, "wooden_pickaxe": 2}


@pytest.mark.shows_on_server("smelt")
def test_smelt_capability_cooks_in_a_furnace(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("raw_iron", 1)
    arena.give("coal", 1)
    arena.setblock(o.offset(dx=2, dz=-1), "furnace")
    run = run_leaf(body, "smelt", {"input": "raw_iron", "qty": 1, "fuel": "coal"}, MAX_TICKS)
    assert run.ok, run.result.error
    assert run.verdict is Verdict.VERIFIED
    have = inventory(body)
    assert have.get("iron_ingot") == 1 and "raw_iron" not in have


def test_furnace_keeps_cooking_with_the_window_closed(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("raw_iron", 1)
    arena.give("oak_planks", 2)  # 300 ticks each: one is enough for one item
    furnace = o.offset(dx=2, dz=2)
    arena.setblock(furnace, "furnace")
    assert finish(body.open_container(furnace)) is ActionStatus.SUCCEEDED
    assert finish(body.container_put("raw_iron", 1, "input")) is ActionStatus.SUCCEEDED
    assert finish(body.container_put("oak_planks", 2, "fuel")) is ActionStatus.SUCCEEDED
    assert finish(body.close_container()) is ActionStatus.SUCCEEDED
    assert inventory(body) == {}
    body.advance(210)  # one cook (200 ticks) with no window open
    assert finish(body.open_container(furnace)) is ActionStatus.SUCCEEDED
    window = body.open_window()
    assert window is not None and window.kind == "furnace"
    assert [(s.name, s.count) for s in window.slots["output"]] == [("iron_ingot", 1)]
    assert [(s.name, s.count) for s in window.slots["fuel"]] == [("oak_planks", 1)]  # one plank burnt
    assert window.slots["input"] == []
    assert finish(body.container_take("iron_ingot", 1, "output")) is ActionStatus.SUCCEEDED
    assert finish(body.close_container()) is ActionStatus.SUCCEEDED
    assert inventory(body) == {"iron_ingot": 1}


@pytest.mark.parametrize("block", ["chest", "barrel"])
def test_containers_keep_their_contents(arena: Arena, block: str) -> None:
    body, o = arena.body, arena.origin
    arena.give("cobblestone", 5)
    box = o.offset(dx=2, dz=-2)
    arena.setblock(box, block)
    assert finish(body.open_container(box)) is ActionStatus.SUCCEEDED
    assert finish(body.container_put("cobblestone", 3)) is ActionStatus.SUCCEEDED
    assert finish(body.close_container()) is ActionStatus.SUCCEEDED
    assert inventory(body) == {"cobblestone": 2}
    assert finish(body.open_container(box)) is ActionStatus.SUCCEEDED
    window = body.open_window()
    assert window is not None and [(s.name, s.count) for s in window.slots["container"]] == [("cobblestone", 3)]
    assert finish(body.container_take("cobblestone", 2)) is ActionStatus.SUCCEEDED
    assert finish(body.close_container()) is ActionStatus.SUCCEEDED
    assert inventory(body) == {"cobblestone": 4}


def test_stone_dug_by_hand_drops_nothing_and_by_pickaxe_drops_cobblestone(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    bare, tooled = o.offset(dx=2, dz=1), o.offset(dx=2, dz=2)
    for pos in (bare, tooled):
        arena.setblock(pos, "stone")
    dig = body.dig(bare)
    assert finish(dig, 45) is ActionStatus.SUCCEEDED, dig.error()  # 7.5 s by hand
    assert body.block_at(bare).is_air
    body.advance(20)  # a drop would be in the world by now (flying-squid spawns it in the same tick)
    assert body.entities(8, kind="item") == []
    arena.give("wooden_pickaxe")
    assert finish(body.equip("wooden_pickaxe")) is ActionStatus.SUCCEEDED
    assert finish(body.dig(tooled), 30) is ActionStatus.SUCCEEDED
    wait_until(lambda: body.entities(8, kind="item"), 10, "the cobblestone drop")
    assert finish(body.goto(tooled, tolerance=0.0), 20) is ActionStatus.SUCCEEDED
    wait_until(lambda: body.observe().count("cobblestone") >= 1 or None, 10, "the cobblestone")
    assert body.observe().count("cobblestone") == 1


@pytest.fixture(scope="module")
def bare_squid() -> Iterator[McServer]:
    """flying-squid as shipped, without craftbt's plugin."""
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid(vanilla_plugin=False).start()
    try:
        yield McServer(server.host, server.port, server.version, "flying-squid", server.workdir)
    finally:
        server.stop()


@pytest.fixture
def lagging_squid(monkeypatch: pytest.MonkeyPatch) -> Iterator[McServer]:
    """A server with the plugin that handles every window click and close 400 ms late, as a loaded one does."""
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    monkeypatch.setenv("CRAFTBT_SQUID_WINDOW_LAG_MS", "400")
    server = FlyingSquid().start()
    try:
        yield McServer(server.host, server.port, server.version, "flying-squid", server.workdir)
    finally:
        server.stop()


def test_a_window_action_reports_the_inventory_the_server_confirmed(lagging_squid: McServer) -> None:
    """mineflayer resolves a toss, a deposit or a craft's put-away clicks on its own prediction; the body
    waits for the server's whole window before it reports success, so the next read is the server's word:
    here even where the prediction was wrong (the furnace refuses cobblestone as fuel)."""
    body = connect(lagging_squid)
    try:
        here = body.position().block()
        furnace = here.offset(dx=2)
        setblock(body, furnace, "furnace")
        give(body, body.username, "oak_log", 3)
        give(body, body.username, "cobblestone", 3)
        toss = body.toss("oak_log", 1)
        assert finish(toss) is ActionStatus.SUCCEEDED and toss.result()["confirmed"] is True
        assert inventory(body) == {"oak_log": 2, "cobblestone": 3}
        craft = body.craft("oak_planks", 1)
        assert finish(craft) is ActionStatus.SUCCEEDED and craft.result()["confirmed"] is True
        assert inventory(body) == {"oak_log": 1, "oak_planks": 4, "cobblestone": 3}
        assert finish(body.open_container(furnace)) is ActionStatus.SUCCEEDED
        put = body.container_put("cobblestone", 2, "fuel")  # the server keeps it out of the fuel slot
        assert finish(put) is ActionStatus.SUCCEEDED and put.result()["confirmed"] is True
        assert inventory(body)["cobblestone"] == 3  # read at once: the server's answer, not the prediction
        assert put.result()["window"]["slots"]["fuel"] == []
    finally:
        body.close()


def test_without_the_plugin_a_craft_is_refused_at_once(bare_squid: McServer) -> None:
    body = connect(bare_squid)
    try:
        assert wait_until(lambda: body.status()["serverBrand"], 10, "the server brand") == "flying-squid"
        assert body.server_features() == frozenset()
        give(body, body.username, "oak_log", 2)
        started = time.monotonic()
        assert refusal(lambda: body.craft("oak_planks", 1)) is BodyErrorCode.SERVER_UNSUPPORTED
        run = run_leaf(body, "craft_recipe", {"recipe": "oak_planks", "qty": 4}, MAX_TICKS)
        assert time.monotonic() - started < 2.0
        assert not run.ok and run.code == "server_unsupported", run.result.error
        assert body.observe().count("oak_log") == 2  # nothing was spent
        o = body.position().block()
        for block in ("furnace", "chest", "barrel"):
            setblock(body, o.offset(dx=2), block)
            assert refusal(lambda: body.open_container(o.offset(dx=2))) is BodyErrorCode.SERVER_UNSUPPORTED
    finally:
        body.close()


def test_a_failed_window_action_reads_the_inventory_back(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("raw_iron", 1)
    arena.give("cobblestone", 3)
    furnace = o.offset(dx=-2, dz=1)
    arena.setblock(furnace, "furnace")
    assert finish(body.open_container(furnace)) is ActionStatus.SUCCEEDED
    assert finish(body.container_put("raw_iron", 1, "input")) is ActionStatus.SUCCEEDED
    put = body.container_put("cobblestone", 2, "input")  # the input slot holds raw iron: no room
    assert finish(put) is ActionStatus.FAILED
    assert put.result()["inventoryResynced"] is True
    assert body.open_window() is None  # closed before the inventory was read back
    assert inventory(body) == {"cobblestone": 3}
    resync = body.resync_inventory()
    assert finish(resync) is ActionStatus.SUCCEEDED, resync.error()
    assert inventory(body) == {"cobblestone": 3}


def test_version_auto_follows_the_server(mc_server: McServer) -> None:
    body = MineflayerBody.connect(mc_server.host, mc_server.port, "autover", version="auto", timeout_s=30,
                                  login_settle_s=15.0)
    try:
        assert body.version == mc_server.version
    finally:
        body.close()


@pytest.mark.shows_on_server("attack_entity")
def test_a_summoned_pig_is_killed_with_a_sword_and_drops_porkchop(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    arena.give("wooden_sword")
    assert finish(body.equip("wooden_sword")) is ActionStatus.SUCCEEDED
    command(body, f"/summon pig {o.x + 2}.5 {o.y} {o.z}.5")
    pig = wait_until(lambda: [e for e in body.entities(8) if e.name == "pig"], 10, "the pig")[0]
    run = run_leaf(body, "attack_entity", {"entityId": pig.id, "radius": 8, "duration": 20_000}, MAX_TICKS)
    assert run.ok, run.result.error
    wait_until(lambda: not [e for e in body.entities(8) if e.name == "pig"], 10, "the pig to go")
    # the drop lands within the pickup range of the bot that struck (or is walked to)
    wait_until(lambda: body.observe().count("porkchop") >= 1 or body.entities(8, kind="item"), 10, "the drop")
    for drop in body.entities(8, kind="item"):
        finish(body.goto(drop.position.block(), tolerance=0.5), 20)
    wait_until(lambda: body.observe().count("porkchop") >= 1 or None, 10, "the porkchop")


@pytest.mark.shows_on_server("attack_entity")
def test_a_summoned_zombie_walks_up_and_hits(arena: Arena) -> None:
    body, o = arena.body, arena.origin
    command(body, f"/summon zombie {o.x + 8}.5 {o.y} {o.z}.5")
    zombie = wait_until(lambda: [e for e in body.entities(16) if e.name == "zombie"], 10, "the zombie")[0]
    assert zombie.kind == "hostile"
    wait_until(lambda: body.observe().health < 20 or None, 15, "the zombie's first hit")
    near = [e for e in body.entities(4) if e.name == "zombie"]
    assert near, "the zombie hit from where it stands"
    # and it is fought off (20 health, 5 hits of a wooden sword): no zombie is left for a later test
    arena.give("wooden_sword")
    assert finish(body.equip("wooden_sword")) is ActionStatus.SUCCEEDED
    run = run_leaf(body, "attack_entity", {"entityType": "zombie", "radius": 8, "duration": 20_000}, MAX_TICKS)
    assert run.ok, run.result.error
    wait_until(lambda: not [e for e in body.entities(16) if e.name == "zombie"], 10, "the zombie to die")
    assert body.observe().health > 0
