"""The natural world: terrain closer to vanilla 1.21 (biomes, caves, ores by depth, deepslate, lava, animals).

Everything is a pure function of the world seed and block or chunk coordinates,
so a chunk is the same whichever order chunks are generated in, and each stage
(``biome_at``, ``surface_y``, the column fill, the carvers, the ore veins) can
later be vectorised per column or per section without changing what it makes:

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
"""

from __future__ import annotations

import math
import random
from array import array
from dataclasses import dataclass, field

from craftbt.world.sim.generator import SEA_LEVEL, mix, place_tree_leaves, place_tree_trunk, unit, vein_step
from craftbt.world.sim.storage import BlockStore, make_state

BOTTOM = -64
DEEPSLATE_TOP = 8  # vanilla: deepslate everywhere below y=0, mixed with stone up to y=8
LAVA_LEVEL = -55  # carved cells at or below this fill with lava (vanilla's deep lava aquifers)
CARVER_REACH = 4  # chunks around a chunk whose carvers may reach into it

#: (ore, attempts per chunk, distribution, min y, max y, vein size): vanilla 1.21 placed features.
#: "triangle" peaks midway between min and max (vanilla's trapezoid with no plateau); ranges beyond
#: the world are kept as vanilla states them, samples outside it are simply not placed.
ORE_FEATURES: tuple[tuple[str, int, str, int, int, int], ...] = (
    ("coal_ore", 30, "uniform", 136, 320, 17),
    ("coal_ore", 20, "triangle", 0, 192, 17),
    ("iron_ore", 10, "triangle", -24, 56, 9),
    ("iron_ore", 10, "uniform", -64, 72, 4),
    ("iron_ore", 12, "triangle", 80, 384, 9),  # vanilla: 90 in mountains; the hills here are lower
    ("copper_ore", 16, "triangle", -16, 112, 10),
    ("gold_ore", 4, "triangle", -64, 32, 9),
    ("gold_ore", 1, "uniform", -64, -48, 9),
    ("redstone_ore", 4, "uniform", -64, 15, 8),
    ("redstone_ore", 8, "triangle", -96, -32, 8),
    ("lapis_ore", 2, "triangle", -32, 32, 7),
    ("lapis_ore", 4, "uniform", -64, 64, 7),
    ("diamond_ore", 7, "triangle", -144, 16, 4),
    ("diamond_ore", 1, "triangle", -144, 16, 12),  # vanilla: the large vein, 1 chunk in 9; here 1 attempt
)

#: Biome -> (tree chance per grass column, tree kinds with weights, grass tuft chance, animals).
BIOMES: dict[str, tuple[float, tuple[tuple[str, float], ...], float, bool]] = {
    "plains": (0.004, (("oak", 1.0),), 0.30, True),
    "forest": (0.045, (("oak", 0.8), ("birch", 0.2)), 0.12, True),
    "birch_forest": (0.045, (("birch", 1.0),), 0.12, True),
    "taiga": (0.035, (("spruce", 1.0),), 0.08, True),
    "desert": (0.0, (), 0.0, False),
}
ANIMALS = ("cow", "pig", "sheep", "chicken")
ANIMAL_CHUNK_CHANCE = 0.12


def biome_at(seed: int, x: int, z: int) -> str:
    """The biome of a column: temperature and humidity noise on a 192-block scale."""
    temp = value_noise(seed, 20, x / 192.0, z / 192.0)
    humid = value_noise(seed, 21, x / 192.0, z / 192.0)
    if temp > 0.68 and humid < 0.45:
        return "desert"
    if temp < 0.3:
        return "taiga"
    if humid > 0.62:
        return "birch_forest" if temp < 0.45 else "forest"
    if humid > 0.45:
        return "forest"
    return "plains"


def value_noise(seed: int, octave: int, x: float, z: float) -> float:
    """Smoothstep-interpolated lattice noise in [0, 1)."""
    ix, iz = math.floor(x), math.floor(z)
    fx, fz = x - ix, z - iz
    sx, sz = fx * fx * (3 - 2 * fx), fz * fz * (3 - 2 * fz)
    a = unit(seed, octave, ix, iz)
    b = unit(seed, octave, ix + 1, iz)
    c = unit(seed, octave, ix, iz + 1)
    d = unit(seed, octave, ix + 1, iz + 1)
    top = a + (b - a) * sx
    return top + (c + (d - c) * sx - top) * sz


def terrain_height(seed: int, x: int, z: int) -> int:
    """Surface y of a column: three octaves, mostly 62..84, deserts flatter."""
    n = (0.55 * value_noise(seed, 1, x / 64.0, z / 64.0) + 0.3 * value_noise(seed, 2, x / 24.0, z / 24.0)
         + 0.15 * value_noise(seed, 3, x / 8.0, z / 8.0))
    return 56 + int(n * 28)


def ore_y(rng: random.Random, dist: str, lo: int, hi: int) -> int:
    if dist == "uniform":
        return rng.randint(lo, hi)
    return round(lo + (hi - lo) * (rng.random() + rng.random()) / 2)


def _ids(store: BlockStore, *names: str) -> list[int]:
    return [store.palette.id_of(make_state(n)) for n in names]


@dataclass
class NaturalWorldGenerator:
    """The vanilla-like natural world (``--world natural``); see the module docstring."""

    seed: int
    kind: str = "natural_world"
    _heights: dict[tuple[int, int], int] = field(default_factory=dict, repr=False)
    _biomes: dict[tuple[int, int], str] = field(default_factory=dict, repr=False)
    _paths: dict[tuple[int, int], list[tuple[float, float, float, float, float]]] = field(
        default_factory=dict, repr=False)

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

    # -- the chunk ------------------------------------------------------------------------------
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

    # -- caves ----------------------------------------------------------------------------------
    def carvers(self, scx: int, scz: int) -> list[tuple[float, float, float, float, float, int, float, float]]:
        """Carvers started in chunk (scx, scz): (x, y, z, yaw, pitch, length, radius, vertical stretch)."""
        rng = random.Random(mix(self.seed, 40, scx, scz))
        out = []
        if rng.random() < 0.55:
            for _ in range(rng.randint(1, 2)):
                out.append((scx * 16 + rng.random() * 16, float(rng.randint(-52, 56)), scz * 16 + rng.random() * 16,
                            rng.random() * math.tau, (rng.random() - 0.5) * 0.6, rng.randint(40, 110),
                            1.3 + rng.random() * 1.5, 1.0))
        if rng.random() < 0.02:  # a ravine: long, narrow and tall
            out.append((scx * 16 + rng.random() * 16, float(rng.randint(10, 50)), scz * 16 + rng.random() * 16,
                        rng.random() * math.tau, (rng.random() - 0.5) * 0.2, rng.randint(60, 100), 1.5, 4.0))
        return out

    def _carve(self, store: BlockStore, cx: int, cz: int) -> None:
        air, lava, water = 0, *_ids(store, "lava", "water")
        bedrock_id = _ids(store, "bedrock")[0]
        x0, z0 = cx * 16, cz * 16
        for scx in range(cx - CARVER_REACH, cx + CARVER_REACH + 1):
            for scz in range(cz - CARVER_REACH, cz + CARVER_REACH + 1):
                for x, y, z, r, ry in self.carver_path(scx, scz):
                    if x0 - r <= x <= x0 + 16 + r and z0 - r <= z <= z0 + 16 + r:
                        self._hollow(store, x, y, z, r, ry, (cx, cz), air, lava, water, bedrock_id)

    def carver_path(self, scx: int, scz: int) -> list[tuple[float, float, float, float, float]]:
        """Every sphere (x, y, z, radius, vertical radius) the carvers of chunk (scx, scz) hollow out."""
        key = (scx, scz)
        cached = self._paths.get(key)
        if cached is not None:
            return cached
        out: list[tuple[float, float, float, float, float]] = []
        for index, (x, y, z, yaw, pitch, length, radius, stretch) in enumerate(self.carvers(scx, scz)):
            rng = random.Random(mix(self.seed, 41, scx, scz, index))
            for _step in range(length):
                r = radius * (0.75 + 0.5 * rng.random())
                out.append((x, y, z, r, r * stretch))
                x += math.cos(yaw) * math.cos(pitch)
                z += math.sin(yaw) * math.cos(pitch)
                y += math.sin(pitch)
                yaw += (rng.random() - 0.5) * 0.5
                pitch = max(-0.8, min(0.8, pitch * 0.9 + (rng.random() - 0.5) * 0.3))
        if len(self._paths) > 4096:
            self._paths.clear()
        self._paths[key] = out
        return out

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

    # -- plants and trees -----------------------------------------------------------------------
    def _surface_plants(self, store: BlockStore, cx: int, cz: int) -> None:
        grass, tuft, fern, dandelion, poppy = _ids(store, "grass_block", "short_grass", "fern", "dandelion", "poppy")
        for x in range(cx * 16, cx * 16 + 16):
            for z in range(cz * 16, cz * 16 + 16):
                h = self.surface_y(x, z)
                if store.get(x, h, z) != grass or store.get(x, h + 1, z) != 0:
                    continue
                biome = self.biome(x, z)
                u = unit(self.seed, 50, x, z)
                chance = BIOMES[biome][2]
                if u < chance:
                    plant = fern if biome == "taiga" and u < chance * 0.3 else tuft
                    store.set(x, h + 1, z, plant)
                elif u > 0.985 and biome in ("plains", "forest"):
                    store.set(x, h + 1, z, dandelion if u > 0.993 else poppy)

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
