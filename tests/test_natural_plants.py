"""The natural world's flowers by biome and sugar cane beside water: where vanilla puts them, in both builders."""

from __future__ import annotations

import collections
from collections.abc import Iterator

import pytest

from craftbt.world.sim import natural_chunk
from craftbt.world.sim.generator import SEA_LEVEL
from craftbt.world.sim.natural import NaturalWorldGenerator
from craftbt.world.sim.natural_reference import NaturalWorldReference
from craftbt.world.sim.natural_rules import FLOWER_NAMES, FLOWERS, SUGAR_CANE_HEIGHTS, flower_pick
from craftbt.world.sim.storage import BlockStore

#: Every other chunk of a 12x12-chunk square of seed 0: forests and plains, and lakes with sugar cane.
SEED = 0
CHUNKS = [(cx, cz) for cx in range(-6, 6, 2) for cz in range(-6, 6, 2)]


@pytest.fixture(scope="module")
def plants() -> Iterator[tuple[NaturalWorldGenerator, dict[tuple[int, int, int], str]]]:
    """Every flower and sugar cane block of the sampled chunks: (x, y, z) -> name."""
    natural_chunk.clear_caches()
    gen = NaturalWorldGenerator(SEED)
    store = BlockStore()
    for cx, cz in CHUNKS:
        gen.generate_chunk(store, cx, cz)
    wanted = {*FLOWER_NAMES, "sugar_cane"}
    out = {}
    for (cx, sy, cz), sec in store.sections.items():
        for i, sid in enumerate(sec):
            if sid and (name := store.palette.state(sid)[0]) in wanted:
                out[(cx * 16 + (i >> 8), sy * 16 + (i & 15), cz * 16 + ((i >> 4) & 15))] = name
    yield gen, out
    natural_chunk.clear_caches()


def test_each_flower_grows_in_a_biome_that_has_it(
        plants: tuple[NaturalWorldGenerator, dict[tuple[int, int, int], str]]) -> None:
    gen, blocks = plants
    flowers = {pos: name for pos, name in blocks.items() if name != "sugar_cane"}
    kinds = collections.Counter(flowers.values())
    # the forests' lily of the valley and plains flowers beside dandelions and poppies
    assert {"dandelion", "poppy", "lily_of_the_valley"} <= set(kinds) and len(kinds) >= 5, kinds
    for (x, y, z), name in flowers.items():
        assert name in dict(FLOWERS[gen.biome(x, z)]), (x, z, name, gen.biome(x, z))
        assert y == gen.surface_y(x, z) + 1


def test_sugar_cane_stands_on_sand_at_sea_level_beside_water(
        plants: tuple[NaturalWorldGenerator, dict[tuple[int, int, int], str]]) -> None:
    gen, blocks = plants
    columns = collections.Counter((x, z) for (x, _, z), name in blocks.items() if name == "sugar_cane")
    assert len(columns) >= 10
    lo, hi = SUGAR_CANE_HEIGHTS
    for (x, z), tall in columns.items():
        assert gen.surface_y(x, z) == SEA_LEVEL and lo <= tall <= hi
        assert any(gen.surface_y(x + dx, z + dz) < SEA_LEVEL for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)))
        assert all(blocks.get((x, SEA_LEVEL + 1 + k, z)) == "sugar_cane" for k in range(tall))


def test_the_reference_grows_the_same_plants(
        plants: tuple[NaturalWorldGenerator, dict[tuple[int, int, int], str]]) -> None:
    """The generator equality test over chunks known to hold sugar cane and tulips."""
    _, blocks = plants
    cane = {(x >> 4, z >> 4) for (x, _, z), n in blocks.items() if n == "sugar_cane"}
    tulips = {(x >> 4, z >> 4) for (x, _, z), n in blocks.items() if n.endswith("_tulip")}
    chosen = sorted(cane)[:1] + sorted(tulips)[:1]
    assert len(chosen) == 2
    for cx, cz in chosen:
        ref, fast = BlockStore(), BlockStore()
        NaturalWorldReference(SEED).generate_chunk(ref, cx, cz)
        NaturalWorldGenerator(SEED).generate_chunk(fast, cx, cz)
        assert fast.palette.states == ref.palette.states
        assert fast.sections == ref.sections, (cx, cz)


def test_a_flower_pick_follows_the_weights() -> None:
    assert flower_pick("desert", 0.5) is None
    picks = collections.Counter(flower_pick("plains", (i + 0.5) / 1000) for i in range(1000))
    assert picks["dandelion"] == 200 and picks["pink_tulip"] == 60
    assert flower_pick("forest", 0.999) == "lily_of_the_valley"
