"""The test server serves the embedded world: what a mineflayer bot reads from flying-squid started with
``world=natural|starter|flat`` is, cell by cell, what the embedded body generates for that seed.

A sample of chunks (the spawn chunk and four around it, every cell from y=-64 to the generators' top) is
compared by name and by every property the embedded world sets; the bot starts in the stated spawn cell.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from functools import partial

import pytest

from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from craftbt.world.mineflayer.server import DEFAULT_VERSION, FlyingSquid
from craftbt.world.mineflayer.terrain import MIN_Y
from craftbt.world.scenarios.loader import world_body
from craftbt.world.sim.generator import WORLD_TOP
from tests.e2e.squidkit import McServer, connect, skip_without_node, wait_until

pytestmark = pytest.mark.e2e

SEED = 7
SAMPLE = ((0, 0), (2, 1), (-2, -1), (1, -2), (-1, 2))  # chunks from the spawn chunk, all within view distance


@pytest.fixture(scope="module", params=["natural", "starter", "flat"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, FlyingSquid, MineflayerBody]]:
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    server = FlyingSquid(world=request.param, seed=SEED, radius=3).start()
    bot = None
    try:
        bot = connect(McServer(server.host, server.port, DEFAULT_VERSION, "flying-squid", server.workdir))
        yield request.param, server, bot
    finally:
        if bot is not None:
            bot.close()
        server.stop()


def test_the_bot_starts_in_the_stated_spawn_cell(served: tuple[str, FlyingSquid, MineflayerBody]) -> None:
    world, server, bot = served
    embedded = world_body(world, SEED).world
    assert server.spawn == (math.floor(embedded.spawn.x), int(embedded.spawn.y), math.floor(embedded.spawn.z))
    pos = bot.position()
    assert (math.floor(pos.x), round(pos.y), math.floor(pos.z)) == server.spawn
    if world == "natural":  # the animals the embedded world placed with the chunks the bot was sent
        assert server.terrain is not None
        placed = Counter(a[0] for found in server.terrain.animals.values() for a in found
                         if math.dist((a[1], a[3]), (pos.x, pos.z)) < 32)
        assert placed, "seed 7 places animals within 32 blocks of spawn"

        def seen() -> bool | None:  # within 64: room for an animal that wanders (the plugin may make them)
            return placed <= Counter(e.name for e in bot.entities(64)) or None

        wait_until(seen, 10.0, f"the animals {dict(placed)} near spawn")


def test_sampled_chunks_match_the_embedded_world_cell_by_cell(served: tuple[str, FlyingSquid, MineflayerBody]) -> None:
    world, server, bot = served
    embedded = world_body(world, SEED).world
    assert server.terrain is not None
    scx, scz = server.terrain.spawn_chunk
    compared = 0
    names: set[str] = set()
    for dx, dz in SAMPLE:
        cx, cz = scx + dx, scz + dz
        cells = wait_until(partial(bot.chunk_cells, cx, cz, MIN_Y, WORLD_TOP), 20.0, f"chunk {cx},{cz} loaded")
        i = 0
        differ = []
        for x in range(cx * 16, cx * 16 + 16):
            for z in range(cz * 16, cz * 16 + 16):
                for y in range(MIN_Y, WORLD_TOP):
                    name, props = embedded.state(x, y, z)
                    got_name, got_props = cells[i]
                    i += 1
                    if got_name != name or any(got_props.get(k) != v for k, v in props):
                        differ.append(((x, y, z), name, dict(props), got_name, got_props))
                    names.add(name)
        assert differ[:5] == [], f"{len(differ)} cells of chunk {cx},{cz} differ"
        compared += i
    assert compared == len(SAMPLE) * 16 * 16 * (WORLD_TOP - MIN_Y)
    assert "grass_block" in names
    if world != "flat":  # the starter world runs the older hills generator: no deepslate there
        assert {"stone", "bedrock"} <= names and any(n.endswith("_log") for n in names)
    if world == "natural":
        assert "deepslate" in names and any(n.endswith("_ore") for n in names)
