"""What the natural world is made of, as scalar rules: its constants, noise, biomes, heights, ore depths, carvers.

Every rule is a pure function of the world seed and block or chunk coordinates.
The chunk builders (the vectorised one in :mod:`natural_chunk` and the
pure-Python reference in :mod:`natural_reference`) both apply these rules, so a
change here changes both worlds alike.
"""

from __future__ import annotations

import math
import random

from craftbt.world.flora import FLOWER_NAMES as FLOWER_NAMES
from craftbt.world.flora import FLOWERS as FLOWERS
from craftbt.world.sim.generator import mix, unit

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

#: Open grass columns (not tufted) that grow a flower: u > 1 - FLOWER_CHANCE on the plants' hash.
FLOWER_CHANCE = 0.015
#: Sugar cane: on a sand column at sea level with water beside it (vanilla: on sand, dirt or grass next to
#: water), in a share of such columns, 2-4 blocks tall as vanilla's patch_sugar_cane.
SUGAR_CANE_CHANCE = 0.25
SUGAR_CANE_HEIGHTS = (2, 4)
ANIMAL_CHUNK_CHANCE = 0.12

#: One carver sphere: (x, y, z, radius, vertical radius).
Sphere = tuple[float, float, float, float, float]


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


def flower_thresholds(biome: str) -> tuple[tuple[str, float], ...]:
    """A biome's flowers with the cumulative weight each ends at (a pick ``u`` takes the first above it)."""
    out, total = [], 0.0
    for name, weight in FLOWERS[biome]:
        total += weight
        out.append((name, total))
    return tuple(out)


def flower_pick(biome: str, u: float) -> str | None:
    """The flower a column of ``biome`` grows for a uniform draw ``u`` (None: the biome grows none)."""
    kinds = flower_thresholds(biome)
    if not kinds:
        return None
    return next((name for name, upper in kinds if u < upper), kinds[-1][0])


def sugar_cane_height(u: float) -> int:
    """Height of a sugar cane column for a uniform draw ``u``."""
    lo, hi = SUGAR_CANE_HEIGHTS
    return lo + int(u * (hi - lo + 1))


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


def carvers(seed: int, scx: int, scz: int) -> list[tuple[float, float, float, float, float, int, float, float]]:
    """Carvers started in chunk (scx, scz): (x, y, z, yaw, pitch, length, radius, vertical stretch)."""
    rng = random.Random(mix(seed, 40, scx, scz))
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


def carver_path(seed: int, scx: int, scz: int) -> list[Sphere]:
    """Every sphere (x, y, z, radius, vertical radius) the carvers of chunk (scx, scz) hollow out."""
    out: list[Sphere] = []
    for index, (x, y, z, yaw, pitch, length, radius, stretch) in enumerate(carvers(seed, scx, scz)):
        rng = random.Random(mix(seed, 41, scx, scz, index))
        for _step in range(length):
            r = radius * (0.75 + 0.5 * rng.random())
            out.append((x, y, z, r, r * stretch))
            x += math.cos(yaw) * math.cos(pitch)
            z += math.sin(yaw) * math.cos(pitch)
            y += math.sin(pitch)
            yaw += (rng.random() - 0.5) * 0.5
            pitch = max(-0.8, min(0.8, pitch * 0.9 + (rng.random() - 0.5) * 0.3))
    return out
