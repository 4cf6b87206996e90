"""The natural world: terrain closer to vanilla 1.21 (biomes, caves, ores by depth, deepslate, lava, animals).

Everything is a pure function of the world seed and block or chunk coordinates
(the rules are in :mod:`natural_rules`), so a chunk is the same whichever order
chunks are generated in:

- biomes (plains, forest, birch forest, taiga, desert) from two low-frequency
  noises, deciding the surface cover, trees, grass tufts and animals;
- the column: bedrock at y=-64, deepslate below y=0 (a ragged 0..7 transition),
  stone, then dirt and grass (sand and sandstone in deserts, sand and gravel
  under water), the sea at y=62;
- caves: noodle-like worms and rare ravines carved from carvers started in the
  chunks around; below y=-55 a carved cell fills with lava, as vanilla's lava
  aquifers do, plus small lava pools at depth;
- ores by the 1.21 placed-feature height distributions (uniform or triangle),
  with the deepslate variant below y=0;
- passive animals (cows, pigs, sheep, chickens) in groups on grassy chunks.

Chunks are built whole with numpy by :mod:`natural_chunk` (and cached per seed
there); :mod:`natural_reference` builds the same blocks one at a time and is the
definition the tests hold the fast builder to. numpy comes with the ``natural``
extra (``pip install 'craftbt[natural]'``): the generator checks for it when it is
made, and imports the chunk builder only then, so the other worlds never load it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from craftbt.core.extras import Extra, require
from craftbt.world.sim.generator import SEA_LEVEL, mix, unit
from craftbt.world.sim.natural_rules import (
    ANIMAL_CHUNK_CHANCE,
    ANIMALS,
    BIOMES,
    BOTTOM,
    CARVER_REACH,
    DEEPSLATE_TOP,
    LAVA_LEVEL,
    ORE_FEATURES,
    Sphere,
    biome_at,
    carver_path,
    carvers,
    ore_y,
    terrain_height,
    value_noise,
)
from craftbt.world.sim.storage import BlockStore

__all__ = [
    "ANIMALS", "ANIMAL_CHUNK_CHANCE", "BIOMES", "BOTTOM", "CARVER_REACH", "DEEPSLATE_TOP", "LAVA_LEVEL",
    "ORE_FEATURES", "NaturalWorldGenerator", "biome_at", "ore_y", "terrain_height", "value_noise",
]


@dataclass
class NaturalWorldGenerator:
    """The vanilla-like natural world (``--world natural``); see the module docstring."""

    seed: int
    kind: str = "natural_world"
    _heights: dict[tuple[int, int], int] = field(default_factory=dict, repr=False)
    _biomes: dict[tuple[int, int], str] = field(default_factory=dict, repr=False)
    _paths: dict[tuple[int, int], list[Sphere]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        require(Extra.NATURAL, "the natural world (--world natural)")

    def describe(self) -> dict[str, object]:
        return {"type": "natural_world"}

    def surface_y(self, x: int, z: int) -> int:
        key = (x, z)
        h = self._heights.get(key)
        if h is None:
            h = terrain_height(self.seed, x, z)
            if len(self._heights) > 200_000:
                self._heights.clear()
            self._heights[key] = h
        return h

    def biome(self, x: int, z: int) -> str:
        key = (x, z)
        b = self._biomes.get(key)
        if b is None:
            b = biome_at(self.seed, x, z)
            if len(self._biomes) > 200_000:
                self._biomes.clear()
            self._biomes[key] = b
        return b

    def generate_chunk(self, store: BlockStore, cx: int, cz: int) -> None:
        """Write chunk (cx, cz) into ``store``, whose sections of that chunk must not exist yet."""
        from craftbt.world.sim import natural_chunk  # numpy: only once a natural world exists

        natural_chunk.write_chunk(store, natural_chunk.chunk(self.seed, cx, cz), cx, cz)

    # -- caves ----------------------------------------------------------------------------------
    def carvers(self, scx: int, scz: int) -> list[tuple[float, float, float, float, float, int, float, float]]:
        """Carvers started in chunk (scx, scz): (x, y, z, yaw, pitch, length, radius, vertical stretch)."""
        return carvers(self.seed, scx, scz)

    def carver_path(self, scx: int, scz: int) -> list[Sphere]:
        """Every sphere (x, y, z, radius, vertical radius) the carvers of chunk (scx, scz) hollow out."""
        key = (scx, scz)
        cached = self._paths.get(key)
        if cached is not None:
            return cached
        out = carver_path(self.seed, scx, scz)
        if len(self._paths) > 4096:
            self._paths.clear()
        self._paths[key] = out
        return out

    # -- plants and trees -----------------------------------------------------------------------
    def tree_at(self, x: int, z: int) -> tuple[int, str]:
        """(trunk height, kind) of a tree rooted in column (x, z); height 0 = none."""
        biome = self.biome(x, z)
        chance, kinds, _, _ = BIOMES[biome]
        h = self.surface_y(x, z)
        if h < SEA_LEVEL + 1 or unit(self.seed, 7, x, z) >= chance:
            return 0, ""
        pick = unit(self.seed, 9, x, z)
        kind = kinds[-1][0]
        for name, weight in kinds:
            if pick < weight:
                kind = name
                break
            pick -= weight
        return 4 + int(unit(self.seed, 8, x, z) * 3) + (2 if kind == "spruce" else 0), kind

    # -- animals --------------------------------------------------------------------------------
    def animals(self, cx: int, cz: int) -> list[tuple[str, float, float, float]]:
        """Passive animals placed when the chunk is generated: a group of 2-4 of one kind, or none."""
        rng = random.Random(mix(self.seed, 60, cx, cz))
        if rng.random() >= ANIMAL_CHUNK_CHANCE:
            return []
        x, z = cx * 16 + rng.randrange(16), cz * 16 + rng.randrange(16)
        if not BIOMES[self.biome(x, z)][3] or self.surface_y(x, z) < SEA_LEVEL + 1:
            return []
        kind = ANIMALS[rng.randrange(len(ANIMALS))]
        out = []
        for _ in range(rng.randint(2, 4)):
            ax = min(cx * 16 + 15, max(cx * 16, x + rng.randint(-3, 3)))
            az = min(cz * 16 + 15, max(cz * 16, z + rng.randint(-3, 3)))
            out.append((kind, ax + 0.5, float(self.surface_y(ax, az) + 1), az + 0.5))
        return out
