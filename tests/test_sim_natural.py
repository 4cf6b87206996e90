"""The natural world generator: deterministic per seed and chunk order, vanilla-like depths, caves, animals."""

from __future__ import annotations

import collections
import hashlib

import pytest

from craftbt.core.errors import CraftbtError
from craftbt.world.scenarios.loader import world_body
from craftbt.world.sim.natural import BIOMES, LAVA_LEVEL, NaturalWorldGenerator, biome_at
from craftbt.world.sim.snapshot import dumps, loads
from craftbt.world.sim.storage import BlockStore


def _chunk_digest(gen: NaturalWorldGenerator, order: list[tuple[int, int]]) -> str:
    store = BlockStore()
    for cx, cz in order:
        gen.generate_chunk(store, cx, cz)
    h = hashlib.sha256()
    for key, sec in sorted(store.sections.items()):
        h.update(repr(key).encode())
        h.update(bytes(" ".join(store.palette.state(i)[0] for i in sec), "utf-8"))
    return h.hexdigest()


def test_same_seed_same_chunks_whatever_the_order() -> None:
    chunks = [(0, 0), (1, 0), (0, 1), (1, 1)]
    a = _chunk_digest(NaturalWorldGenerator(3), chunks)
    b = _chunk_digest(NaturalWorldGenerator(3), list(reversed(chunks)))
    assert a == b
    assert _chunk_digest(NaturalWorldGenerator(4), chunks) != a


def _census(seed: int, radius: int = 2) -> collections.Counter[tuple[str, int]]:
    """(block, y band of 16) counts over a (2r)x(2r) chunk square."""
    gen = NaturalWorldGenerator(seed)
    store = BlockStore()
    for cx in range(-radius, radius):
        for cz in range(-radius, radius):
            gen.generate_chunk(store, cx, cz)
    out: collections.Counter[tuple[str, int]] = collections.Counter()
    for (_, sy, _), sec in store.sections.items():
        for sid, n in collections.Counter(sec).items():
            out[(store.palette.state(sid)[0], sy)] += n
    return out


def test_ores_follow_the_vanilla_depths_with_deepslate_below_zero() -> None:
    census = _census(11)
    names = {name for name, _ in census}
    for ore in ("coal_ore", "iron_ore", "copper_ore", "deepslate_iron_ore", "deepslate_gold_ore",
                "deepslate_redstone_ore", "deepslate_diamond_ore", "deepslate_lapis_ore"):
        assert ore in names, ore
    # diamonds (and every deepslate ore) only low down; deepslate ores never above y=8
    assert all(sy * 16 <= 16 for (name, sy) in census if name.endswith("diamond_ore"))
    assert all(sy * 16 < 8 for (name, sy) in census if name.startswith("deepslate_"))
    # most diamonds sit in the lowest 48 blocks, as the triangle centred at y=-64 puts them
    deep = sum(n for (name, sy), n in census.items() if name.endswith("diamond_ore") and sy < -2)
    total = sum(n for (name, _), n in census.items() if name.endswith("diamond_ore"))
    assert deep > total / 2
    assert census[("bedrock", -4)] > 0 and census[("deepslate", -3)] > census[("stone", -3)]


def test_caves_are_carved_and_fill_with_lava_at_depth() -> None:
    census = _census(5, radius=3)
    cave_air = sum(n for (name, sy), n in census.items() if name == "air" and sy < 3)
    assert cave_air > 500
    assert all(sy * 16 <= LAVA_LEVEL + 40 for (name, sy) in census if name == "lava")


def test_biomes_decide_trees_and_grass() -> None:
    seen = {biome_at(0, x, z) for x in range(-2000, 2000, 97) for z in range(-2000, 2000, 97)}
    assert seen == set(BIOMES)
    gen = NaturalWorldGenerator(0)
    for x in range(-600, 600, 7):
        for z in range(-600, 600, 7):
            height, kind = gen.tree_at(x, z)
            if height:
                assert kind in dict(BIOMES[gen.biome(x, z)][1]), (x, z)
                assert gen.biome(x, z) != "desert"


def test_passive_animals_spawn_with_their_chunks_and_survive_a_snapshot() -> None:
    body = world_body("natural", 2)
    body.nearest_blocks(["oak_log"], 48)  # a survey generates the chunks around
    kinds = collections.Counter(e.name for e in body.world.entities.values())
    assert set(kinds) <= {"cow", "pig", "sheep", "chicken"} and sum(kinds.values()) >= 4
    assert dumps(loads(dumps(body))) == dumps(body)


def test_grass_tufts_drop_seeds_sometimes() -> None:
    body = world_body("natural", 1)
    md = body.md
    drops = [md.drops("short_grass", None, body.world.rng) for _ in range(400)]
    seeds = sum(c for d in drops for item, c in d if item == "wheat_seeds")
    assert 10 < seeds < 150


def test_world_names() -> None:
    assert world_body("flat", 0).world.generator.kind == "flat"
    assert world_body("natural", 0).world.generator.kind == "natural_world"
    with pytest.raises(CraftbtError):
        world_body("nether", 0)


def test_killing_an_animal_drops_its_loot() -> None:
    from craftbt.world.sim.body import SimBody

    body = SimBody(seed=3)
    p = body.position()
    cow = body.world.spawn_mob("cow", p.x + 1.5, p.y, p.z, no_ai=True)
    while cow.id in body.world.entities:
        handle = body.attack(cow.id)
        while handle.status().value == "running":
            body.advance(1)
    drops = {e.item for e in body.world.entities.values() if e.kind == "item"}
    assert "beef" in drops
