"""The terrain file the test server serves: written from the embedded world, read back in Python and by the
server's own generator (``squid_terrain.js``, run in Node without a server), block for block the embedded world's.

The e2e twin (``tests/e2e/test_server_terrain_e2e.py``) compares what a bot reads from a running server.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from craftbt.world.mineflayer.node_env import find_node_modules, missing_packages, node_binary
from craftbt.world.mineflayer.server import ENTITY_ROOM, TERRAIN_MODULE, FlyingSquid, ServerError, ServerErrorCode
from craftbt.world.mineflayer.terrain import (
    MIN_Y,
    N_SECTIONS,
    TerrainFileError,
    build_terrain,
    read_terrain,
    write_terrain,
)
from craftbt.world.scenarios.loader import world_body

SEED = 7


@pytest.fixture(scope="module")
def natural_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_terrain(build_terrain("natural", SEED, radius=1), tmp_path_factory.mktemp("t") / "terrain.cbtw")


def test_the_file_reads_back_as_the_embedded_world_block_for_block(natural_file: Path) -> None:
    t = read_terrain(natural_file)
    world = world_body("natural", SEED).world
    assert (t.world, t.seed, t.radius) == ("natural", SEED, 1)
    assert t.spawn == (int(world.spawn.x // 1), int(world.spawn.y), int(world.spawn.z // 1))
    scx, scz = t.spawn_chunk
    assert sorted(t.chunks) == [(cx, cz) for cx in range(scx - 1, scx + 2) for cz in range(scz - 1, scz + 2)]
    # every cell of the spawn chunk, and a column of each neighbour
    cells = [(scx * 16 + x, y, scz * 16 + z) for x in range(16) for z in range(16) for y in range(MIN_Y, 128)]
    cells += [((scx + dx) * 16 + 5, y, (scz + dz) * 16 + 9) for dx in (-1, 1) for dz in (-1, 1)
              for y in range(MIN_Y, 128)]
    differ = [c for c in cells if t.block(*c) != world.state(*c)]
    assert differ == []
    assert {t.block(*c)[0] for c in cells} >= {"bedrock", "deepslate", "stone", "grass_block"}
    # outside the region, and above the written sections: air
    assert t.block(scx * 16 + 40, 60, scz * 16)[0] == "air"
    assert t.block(scx * 16, MIN_Y + N_SECTIONS * 16, scz * 16)[0] == "air"


def test_the_spawn_cell_is_standable() -> None:
    for world in ("natural", "starter", "flat"):
        t = build_terrain(world, SEED, radius=0)
        x, y, z = t.spawn
        assert t.block(x, y - 1, z)[0] not in ("air", "water", "lava"), world
        assert t.block(x, y, z)[0] == "air" and t.block(x, y + 1, z)[0] == "air", world


def test_animals_the_natural_world_places_are_in_the_file(tmp_path: Path) -> None:
    t = build_terrain("natural", SEED, radius=3)
    assert t.animals, "seed 7 places animals within 3 chunks of spawn"
    back = read_terrain(write_terrain(t, tmp_path / "t.cbtw"))
    assert back.animals == t.animals
    for (cx, cz), found in t.animals.items():
        for name, x, _, z in found:
            assert name in ("cow", "pig", "sheep", "chicken") and (int(x // 16), int(z // 16)) == (cx, cz)


def test_a_file_that_is_not_a_terrain_file_is_refused(tmp_path: Path, natural_file: Path) -> None:
    bad = tmp_path / "bad.cbtw"
    bad.write_bytes(b"PK\x03\x04 not ours")
    with pytest.raises(TerrainFileError, match="not a craftbt terrain file"):
        read_terrain(bad)
    data = bytearray(natural_file.read_bytes())
    data[8:8 + len(b'{"format":1')] = b'{"format":9'
    bad.write_bytes(bytes(data))
    with pytest.raises(TerrainFileError, match="format 9"):
        read_terrain(bad)


def test_server_settings_serve_the_terrain_module() -> None:
    server = FlyingSquid(world="natural", seed=SEED, radius=2)
    try:
        settings = server.settings()
        assert settings["generation"]["name"] == str(TERRAIN_MODULE)
        assert settings["generation"]["options"]["terrainFile"].endswith("terrain.cbtw")
        assert str(TERRAIN_MODULE) in settings["plugins"]
        assert FlyingSquid().settings()["generation"]["name"] == "superflat"  # generation= still works
    finally:
        server.cleanup()
    with pytest.raises(ServerError) as err:
        FlyingSquid(world="nether")
    assert err.value.code is ServerErrorCode.INVALID_SETTINGS and "natural, starter, flat" in err.value.detail
    with pytest.raises(ServerError, match="give one of them"):
        FlyingSquid(world="natural", generation="empty")


def test_the_entity_cap_leaves_room_beyond_the_served_animals() -> None:
    """flying-squid kicks the player whose dig drops an entity past ``max-entities``: a served world's animals
    must not use the room drops and mobs need (natural seed 4 has 122 within 8 chunks; the cap was 100)."""
    assert FlyingSquid().settings()["max-entities"] == ENTITY_ROOM
    server = FlyingSquid(world="natural", seed=4, radius=3)
    try:
        server.terrain = build_terrain("natural", 4, 3)  # what start() builds before it writes the settings
        assert server.animal_count > 0
        assert server.settings()["max-entities"] == server.animal_count + ENTITY_ROOM
    finally:
        server.cleanup()


JS_DUMP = """
const [nm, file, cx, cz] = process.argv.slice(1)
const path = require('path')
const registry = require(path.join(nm, 'prismarine-registry'))('1.21.4')
const gen = require(process.env.TERRAIN_MODULE)
const chunk = gen({ registry, terrainFile: file, nodeModules: nm })(Number(cx), Number(cz))
const out = []
for (let x = 0; x < 16; x++) for (let z = 0; z < 16; z++) for (let y = -64; y < 128; y++) {
  const s = chunk.getBlockStateId({ x, y, z })
  const b = registry.blocksByStateId[s]
  out.push(b.name + ':' + (s - b.minStateId))
}
console.log(JSON.stringify(out))
"""


@pytest.mark.skipif(node_binary() is None or bool(missing_packages(("flying-squid",))), reason="needs Node and "
                    "flying-squid (craftbt node install)")
def test_the_servers_generator_reads_the_file_into_the_same_blocks(natural_file: Path) -> None:
    """squid_terrain.js, as flying-squid calls it, turns the file into minecraft-data states: same names, and
    the properties the embedded world sets on top of each block's default state (a grass block is not snowy)."""
    nm = find_node_modules()
    node = node_binary()
    assert nm is not None and node is not None
    t = read_terrain(natural_file)
    scx, scz = t.spawn_chunk
    got = json.loads(subprocess.run(
        [node, "-e", JS_DUMP, str(nm), str(natural_file), str(scx), str(scz)],
        check=True, capture_output=True, text=True, timeout=60,
        env={"TERRAIN_MODULE": str(TERRAIN_MODULE), "PATH": "/usr/bin:/bin"},
    ).stdout)
    registry = json.loads(subprocess.run(
        [node, "-e", "const r=require(require('path').join(process.argv[1],'minecraft-data'))('1.21.4');"
         "console.log(JSON.stringify(Object.fromEntries(['grass_block','oak_leaves','oak_log','water','stone']"
         ".map(n=>[n,r.blocksByName[n].defaultState-r.blocksByName[n].minStateId]))))", str(nm)],
        check=True, capture_output=True, text=True, timeout=60).stdout)
    i = 0
    seen: set[str] = set()
    for x in range(16):
        for z in range(16):
            for y in range(MIN_Y, 128):
                name, props = t.block(scx * 16 + x, y, scz * 16 + z)
                got_name, offset = got[i].split(":")
                i += 1
                assert got_name == name, (x, y, z)
                seen.add(name)
                if name in registry and not props:  # no property set: vanilla's default state
                    assert int(offset) == registry[name], (name, offset)
    assert "grass_block" in seen and "stone" in seen
