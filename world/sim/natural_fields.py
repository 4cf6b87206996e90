"""The natural world's scalar rules (:mod:`natural_rules`) evaluated over whole arrays of columns with numpy.

Each function here returns, element for element, exactly what its scalar
counterpart returns: the same 64-bit hash steps on ``uint64`` (numpy wraps
them modulo 2**64 as the scalar code masks them) and the same float64
operations in the same order, so the vectorised world is the reference world
bit for bit rather than approximately.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
import numpy.typing as npt

from craftbt.world.sim.generator import SEA_LEVEL, mix
from craftbt.world.sim.natural_rules import BIOMES, FLOWER_NAMES, FLOWERS, flower_thresholds

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Hashes = npt.NDArray[np.uint64]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S27, _S31, _S11 = np.uint64(27), np.uint64(31), np.uint64(11)
_TWO53 = float(1 << 53)


class Biome(IntEnum):
    """Biome codes in arrays; the names are the keys of :data:`natural_rules.BIOMES`, in its order."""

    PLAINS = 0
    FOREST = 1
    BIRCH_FOREST = 2
    TAIGA = 3
    DESERT = 4


BIOME_NAMES: tuple[str, ...] = tuple(BIOMES)
assert tuple(b.name.lower() for b in Biome) == BIOME_NAMES, "Biome must list natural_rules.BIOMES in order"

#: Tree kinds as codes in arrays.
TREE_KINDS: tuple[str, ...] = ("oak", "birch", "spruce")
TREE_CHANCE = np.array([BIOMES[n][0] for n in BIOME_NAMES])
TUFT_CHANCE = np.array([BIOMES[n][2] for n in BIOME_NAMES])
#: Per biome (rows), the cumulative weights its flowers end at (``natural_rules.flower_thresholds``; the last
#: is never compared, as the scalar pick takes the last flower for any draw past it, padded with +inf) and the
#: index of each flower in ``FLOWER_NAMES`` (-1: no flower). A draw ``u`` picks column ``sum(u >= upper)``.
_WIDEST = max(len(FLOWERS[n]) for n in BIOME_NAMES)
FLOWER_UPPER = np.array([[t for _, t in flower_thresholds(n)][:-1] + [np.inf] * (_WIDEST - max(0, len(FLOWERS[n]) - 1))
                         for n in BIOME_NAMES])
FLOWER_INDEX = np.array([[FLOWER_NAMES.index(f) for f, _ in FLOWERS[n]] + [-1] * (_WIDEST + 1 - len(FLOWERS[n]))
                         for n in BIOME_NAMES], dtype=np.int64)


def mix_array(prefix: tuple[int, ...], *arrays: Ints) -> Hashes:
    """``mix(*prefix, *values)`` for every element of the broadcast ``arrays`` (see ``generator.mix``)."""
    h: Hashes | np.uint64 = np.uint64(mix(*prefix))
    for v in arrays:
        h = (h ^ np.asarray(v, dtype=np.int64).astype(np.uint64)) * _M1
        h = (h ^ (h >> _S27)) * _M2
        h = h ^ (h >> _S31)
    return np.asarray(h, dtype=np.uint64)


def unit_array(prefix: tuple[int, ...], *arrays: Ints) -> Floats:
    """``unit(*prefix, *values)`` element-wise: a float in [0, 1) per element."""
    return (mix_array(prefix, *arrays) >> _S11).astype(np.float64) / _TWO53


def value_noise_array(seed: int, octave: int, x: Floats, z: Floats) -> Floats:
    """``natural_rules.value_noise`` element-wise over broadcast ``x`` and ``z``.

    The lattice values are hashed once over the lattice cells the points span, then gathered: the same
    ``unit`` per lattice point as the scalar code, far fewer hashes (a 20x20 grid at scale 8 spans 4x4 cells).
    """
    fx0, fz0 = np.floor(x), np.floor(z)
    ix, iz = fx0.astype(np.int64), fz0.astype(np.int64)
    fx, fz = x - fx0, z - fz0
    sx, sz = fx * fx * (3 - 2 * fx), fz * fz * (3 - 2 * fz)
    ix_lo, iz_lo = int(ix.min()), int(iz.min())
    lattice = unit_array((seed, octave), np.arange(ix_lo, int(ix.max()) + 2)[:, None],
                         np.arange(iz_lo, int(iz.max()) + 2)[None, :])
    i, j = ix - ix_lo, iz - iz_lo
    a, b, c, d = lattice[i, j], lattice[i + 1, j], lattice[i, j + 1], lattice[i + 1, j + 1]
    top = a + (b - a) * sx
    result: Floats = top + (c + (d - c) * sx - top) * sz
    return result


def terrain_heights(seed: int, x: Ints, z: Ints) -> Ints:
    """``natural_rules.terrain_height`` over the grid of columns ``x`` (a column vector) by ``z`` (a row)."""
    n = (0.55 * value_noise_array(seed, 1, x / 64.0, z / 64.0) + 0.3 * value_noise_array(seed, 2, x / 24.0, z / 24.0)
         + 0.15 * value_noise_array(seed, 3, x / 8.0, z / 8.0))
    return 56 + (n * 28).astype(np.int64)  # astype truncates toward zero, as int() does


def biomes(seed: int, x: Ints, z: Ints) -> Ints:
    """``natural_rules.biome_at`` as :class:`Biome` codes over the grid of columns ``x`` by ``z``."""
    temp = value_noise_array(seed, 20, x / 192.0, z / 192.0)
    humid = value_noise_array(seed, 21, x / 192.0, z / 192.0)
    codes: Ints = np.select(
        [(temp > 0.68) & (humid < 0.45), temp < 0.3, (humid > 0.62) & (temp < 0.45), humid > 0.62, humid > 0.45],
        [Biome.DESERT, Biome.TAIGA, Biome.BIRCH_FOREST, Biome.FOREST, Biome.FOREST],
        Biome.PLAINS,
    ).astype(np.int64)
    return codes


def trees(seed: int, x: Ints, z: Ints, heights: Ints, codes: Ints) -> tuple[Ints, Ints]:
    """``NaturalWorldGenerator.tree_at`` over a grid: (trunk heights, 0 where no tree; kind codes)."""
    has = (heights >= SEA_LEVEL + 1) & (unit_array((seed, 7), x, z) < TREE_CHANCE[codes])
    pick = unit_array((seed, 9), x, z)
    kind = np.zeros(has.shape, dtype=np.int64)
    for code, name in enumerate(BIOME_NAMES):
        kinds = BIOMES[name][1]
        if not kinds:
            continue
        # the first kind whose weight the remaining pick falls under, else the last: the scalar loop, per element
        p = pick.copy()
        chosen = np.full(has.shape, TREE_KINDS.index(kinds[-1][0]), dtype=np.int64)
        decided = np.zeros(has.shape, dtype=bool)
        for kind_name, weight in kinds:
            hit = ~decided & (p < weight)
            chosen[hit] = TREE_KINDS.index(kind_name)
            decided |= hit
            p = np.where(decided, p, p - weight)
        kind = np.where(codes == code, chosen, kind)
    height = 4 + (unit_array((seed, 8), x, z) * 3).astype(np.int64) + np.where(kind == TREE_KINDS.index("spruce"), 2, 0)
    return np.where(has, height, 0), kind
