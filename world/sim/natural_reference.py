"""The pure-Python natural-world chunk builder: the reference the vectorised one must match block for block.

This is the generator the natural world was first defined by, stage by stage
(column fill, carvers, lava pools, ores, surface plants, trees), one block at a
time through :class:`BlockStore`. The game builds chunks with
:mod:`natural_chunk` instead; this class is used only by the tests that compare
the two and by ``bench/bench_worldgen.py``, which measures one against the other.
"""

from __future__ import annotations

import math
import random
from array import array
from dataclasses import dataclass

from craftbt.world.sim.generator import SEA_LEVEL, mix, place_tree_leaves, place_tree_trunk, unit, vein_step
from craftbt.world.sim.natural import NaturalWorldGenerator
from craftbt.world.sim.natural_rules import (
    BIOMES,
    BOTTOM,
    CARVER_REACH,
    DEEPSLATE_TOP,
    FLOWER_CHANCE,
    FLOWER_NAMES,
    LAVA_LEVEL,
    ORE_FEATURES,
    SUGAR_CANE_CHANCE,
    flower_pick,
    ore_y,
    sugar_cane_height,
)
from craftbt.world.sim.storage import BlockStore, make_state


def _ids(store: BlockStore, *names: str) -> list[int]:
    return [store.palette.id_of(make_state(n)) for n in names]


@dataclass
class NaturalWorldReference(NaturalWorldGenerator):
    """The natural world built one block at a time (the definition; slow: see the module docstring)."""

    def generate_chunk(self, store: BlockStore, cx: int, cz: int) -> None:
        ids = _ids(store, "bedrock", "deepslate", "stone", "dirt", "grass_block", "sand", "sandstone", "gravel",
                   "water", "clay")
        for x in range(cx * 16, cx * 16 + 16):
            for z in range(cz * 16, cz * 16 + 16):
                self._column(store, x, z, ids)
        self._carve(store, cx, cz)
        self._lava_pools(store, cx, cz)
        self._ores(store, cx, cz)
        self._surface_plants(store, cx, cz)
        self._trees(store, cx, cz)
    def _column(self, store: BlockStore, x: int, z: int, ids: list[int]) -> None:
        bedrock, deepslate, stone, dirt, grass, sand, sandstone, gravel, water, clay = ids
        h = self.surface_y(x, z)
        top = max(h, SEA_LEVEL)
        col = array("H", [stone]) * (top - BOTTOM + 1)
        col[0] = bedrock
        bits = mix(self.seed, 30, x, z)  # one hash per column: 3 bits per ragged cell
        for k in range(1, 5):  # ragged bedrock floor, thinning upwards
            if (bits >> (3 * k)) & 7 < (5 - k) * 8 // 5:
                col[k] = bedrock
        col[5 : -BOTTOM + 1] = array("H", [deepslate]) * (-BOTTOM - 4)
        for y in range(DEEPSLATE_TOP):  # deepslate thins out between y=0 and y=8
            if (bits >> (15 + 3 * y)) & 7 < DEEPSLATE_TOP - y:
                col[y - BOTTOM] = deepslate
        i = h - BOTTOM
        if h <= SEA_LEVEL + 1:
            cover = sand if h >= SEA_LEVEL - 3 else (clay if unit(self.seed, 32, x, z) < 0.15 else gravel)
            col[i - 3 : i + 1] = array("H", [cover]) * 4
            if h < SEA_LEVEL:
                col[i + 1 : SEA_LEVEL - BOTTOM + 1] = array("H", [water]) * (SEA_LEVEL - h)
        elif self.biome(x, z) == "desert":
            col[i - 6 : i - 3] = array("H", [sandstone]) * 3
            col[i - 3 : i + 1] = array("H", [sand]) * 4
        else:
            col[i - 3 : i] = array("H", [dirt]) * 3
            col[i] = grass
        base = ((x & 15) << 8) | ((z & 15) << 4)
        cx, cz = x >> 4, z >> 4
        for sy in range(BOTTOM >> 4, (top >> 4) + 1):
            lo = sy * 16 - BOTTOM
            part = col[lo : lo + 16]
            if len(part) < 16:
                part.extend([0] * (16 - len(part)))
            store.section((cx, sy, cz))[base : base + 16] = part

    def _carve(self, store: BlockStore, cx: int, cz: int) -> None:
        air, lava, water = 0, *_ids(store, "lava", "water")
        bedrock_id = _ids(store, "bedrock")[0]
        x0, z0 = cx * 16, cz * 16
        for scx in range(cx - CARVER_REACH, cx + CARVER_REACH + 1):
            for scz in range(cz - CARVER_REACH, cz + CARVER_REACH + 1):
                for x, y, z, r, ry in self.carver_path(scx, scz):
                    if x0 - r <= x <= x0 + 16 + r and z0 - r <= z <= z0 + 16 + r:
                        self._hollow(store, x, y, z, r, ry, (cx, cz), air, lava, water, bedrock_id)

    def _hollow(self, store: BlockStore, x: float, y: float, z: float, r: float, ry: float,
                chunk: tuple[int, int], air: int, lava: int, water: int, bedrock: int) -> None:
        cx, cz = chunk
        for bx in range(math.floor(x - r), math.floor(x + r) + 1):
            if bx >> 4 != cx:
                continue
            for bz in range(math.floor(z - r), math.floor(z + r) + 1):
                if bz >> 4 != cz:
                    continue
                h = self.surface_y(bx, bz)
                for by in range(max(BOTTOM + 1, math.floor(y - ry)), math.floor(y + ry) + 1):
                    d = ((bx + 0.5 - x) / r) ** 2 + ((by + 0.5 - y) / ry) ** 2 + ((bz + 0.5 - z) / r) ** 2
                    if d > 1.0:
                        continue
                    # keep the sea out of caves, and leave a roof under the grass of low columns
                    if h <= SEA_LEVEL + 1 and by > h - 6:
                        continue
                    old = store.get(bx, by, bz)
                    if old in (bedrock, water):
                        continue
                    store.set(bx, by, bz, lava if by <= LAVA_LEVEL else air)

    def _lava_pools(self, store: BlockStore, cx: int, cz: int) -> None:
        rng = random.Random(mix(self.seed, 42, cx, cz))
        if rng.random() >= 0.08:
            return
        lava = _ids(store, "lava")[0]
        x, y, z = cx * 16 + 3 + rng.randrange(10), rng.randint(-50, 20), cz * 16 + 3 + rng.randrange(10)
        for dx in range(-2, 3):
            for dz in range(-2, 3):
                for dy in (0, 1):
                    if dx * dx + dz * dz <= 5:
                        store.set(x + dx, y + dy, z + dz, lava if dy == 0 else 0)

    # -- ores -----------------------------------------------------------------------------------
    def _ores(self, store: BlockStore, cx: int, cz: int) -> None:
        rng = random.Random(mix(self.seed, 3, cx, cz))
        stone, deepslate = _ids(store, "stone", "deepslate")
        for name, attempts, dist, lo, hi, size in ORE_FEATURES:
            ore, deep_ore = _ids(store, name, "deepslate_" + name)
            for _ in range(attempts):
                x = cx * 16 + rng.randrange(16)
                z = cz * 16 + rng.randrange(16)
                y = ore_y(rng, dist, lo, hi)
                for _ in range(rng.randint(max(1, size // 2), size)):
                    if (x >> 4, z >> 4) == (cx, cz) and BOTTOM < y < 320:
                        here = store.get(x, y, z)
                        if here == stone:
                            store.set(x, y, z, ore)
                        elif here == deepslate:
                            store.set(x, y, z, deep_ore)
                    x, y, z = vein_step(rng, x, y, z)

    def _surface_plants(self, store: BlockStore, cx: int, cz: int) -> None:
        grass, tuft, fern, sand, cane, *flowers = _ids(store, "grass_block", "short_grass", "fern", "sand",
                                                      "sugar_cane", *FLOWER_NAMES)
        flower_id = dict(zip(FLOWER_NAMES, flowers, strict=True))
        for x in range(cx * 16, cx * 16 + 16):
            for z in range(cz * 16, cz * 16 + 16):
                h = self.surface_y(x, z)
                if store.get(x, h + 1, z) != 0:
                    continue
                if store.get(x, h, z) == sand:
                    if self._sugar_cane_here(x, z, h):
                        for y in range(h + 1, h + 1 + sugar_cane_height(unit(self.seed, 53, x, z))):
                            store.set(x, y, z, cane)
                    continue
                if store.get(x, h, z) != grass:
                    continue
                biome = self.biome(x, z)
                u = unit(self.seed, 50, x, z)
                chance = BIOMES[biome][2]
                if u < chance:
                    plant = fern if biome == "taiga" and u < chance * 0.3 else tuft
                    store.set(x, h + 1, z, plant)
                elif u > 1 - FLOWER_CHANCE:
                    flower = flower_pick(biome, unit(self.seed, 51, x, z))
                    if flower is not None:
                        store.set(x, h + 1, z, flower_id[flower])

    def _sugar_cane_here(self, x: int, z: int, h: int) -> bool:
        """Sand at sea level with water beside it, and the column's draw under the chance."""
        if h != SEA_LEVEL or unit(self.seed, 52, x, z) >= SUGAR_CANE_CHANCE:
            return False
        return any(self.surface_y(x + dx, z + dz) < SEA_LEVEL for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    def _trees(self, store: BlockStore, cx: int, cz: int) -> None:
        x0, z0 = cx * 16, cz * 16
        trees: list[tuple[int, int, int, int, str]] = []
        grass = _ids(store, "grass_block")[0]
        for x in range(x0 - 2, x0 + 18):
            for z in range(z0 - 2, z0 + 18):
                height, kind = self.tree_at(x, z)
                if height:
                    trees.append((x, self.surface_y(x, z) + 1, z, height, kind))
        for x, y, z, _height, _kind in trees:
            if (x >> 4, z >> 4) == (cx, cz) and store.get(x, y - 1, z) == grass:
                store.set(x, y, z, 0)  # a grass tuft under the trunk
                store.set(x, y - 1, z, _ids(store, "dirt")[0])
        for x, y, z, height, kind in trees:
            place_tree_leaves(store, x, y, z, height, kind, self.seed, clip=(cx, cz))
        for x, y, z, height, kind in trees:
            place_tree_trunk(store, x, y, z, height, kind, clip=(cx, cz))
