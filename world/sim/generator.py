"""Terrain generators: a flat one and a seeded natural one (hills, water, sand, trees, ores by depth).

Generators fill whole 16x16 chunk columns straight into a :class:`BlockStore`.
Every random choice is derived from the world seed and the chunk or column
coordinates, so a chunk is the same whichever order chunks are generated in.
Trees near a chunk border are decided per column and clipped to the chunk
being generated, so they join up seamlessly across borders.
"""

from __future__ import annotations

import math
import random
from array import array
from dataclasses import dataclass, field
from typing import Protocol

from craftbt.world.sim.storage import BlockStore, make_state

SEA_LEVEL = 62
WORLD_TOP = 128  # generators write below this; players may build higher

_MASK64 = (1 << 64) - 1


def mix(*values: int) -> int:
    """A 64-bit hash of integers (splitmix64 steps); stable across runs and platforms."""
    h = 0x9E3779B97F4A7C15
    for v in values:
        h = (h ^ (v & _MASK64)) * 0xBF58476D1CE4E5B9 & _MASK64
        h = (h ^ (h >> 27)) * 0x94D049BB133111EB & _MASK64
        h ^= h >> 31
    return h


def unit(*values: int) -> float:
    """A deterministic float in [0, 1) from integers."""
    return (mix(*values) >> 11) / float(1 << 53)


class Generator(Protocol):
    kind: str

    def generate_chunk(self, store: BlockStore, cx: int, cz: int) -> None: ...

    def surface_y(self, x: int, z: int) -> int:
        """The y of the topmost terrain block of the column (before trees)."""
        ...

    def describe(self) -> dict[str, object]: ...


def _fill_column(store: BlockStore, x: int, z: int, column: array[int]) -> None:
    """Write a column (index = y) into its sections, skipping all-air sections."""
    top = len(column)
    base = ((x & 15) << 8) | ((z & 15) << 4)
    cx, cz = x >> 4, z >> 4
    for sy in range((top + 15) // 16):
        part = column[sy * 16 : sy * 16 + 16]
        if not any(part):
            continue
        if len(part) < 16:
            part.extend([0] * (16 - len(part)))
        sec = store.section((cx, sy, cz))
        sec[base : base + 16] = part


@dataclass
class FlatGenerator:
    """Layers bottom-up from y=0, e.g. bedrock, stone x59, dirt x3, grass_block (surface y=63)."""

    layers: list[tuple[str, int]] = field(
        default_factory=lambda: [("bedrock", 1), ("stone", 59), ("dirt", 3), ("grass_block", 1)]
    )
    kind: str = "flat"

    def __post_init__(self) -> None:
        self._height = sum(n for _, n in self.layers)

    def surface_y(self, x: int, z: int) -> int:
        return self._height - 1

    def generate_chunk(self, store: BlockStore, cx: int, cz: int) -> None:
        column = array("H")
        for name, n in self.layers:
            column.extend([store.palette.id_of(make_state(name))] * n)
        for x in range(cx * 16, cx * 16 + 16):
            for z in range(cz * 16, cz * 16 + 16):
                _fill_column(store, x, z, array("H", column))

    def describe(self) -> dict[str, object]:
        return {"type": "flat", "layers": [[n, c] for n, c in self.layers]}


# (block, attempts per chunk, min y, max y, vein size) -- placement choices, not registry facts.
ORES: tuple[tuple[str, int, int, int, int], ...] = (
    ("coal_ore", 20, 5, 96, 12),
    ("iron_ore", 14, 5, 72, 8),
    ("copper_ore", 8, 30, 80, 8),
    ("gold_ore", 3, 5, 32, 7),
    ("redstone_ore", 5, 5, 16, 6),
    ("lapis_ore", 2, 5, 30, 5),
    ("diamond_ore", 2, 5, 16, 4),
)


@dataclass
class NaturalGenerator:
    """Rolling hills from two octaves of value noise; sea at y=62; oak and birch trees on grass."""

    seed: int
    tree_chance: float = 0.02
    kind: str = "natural"
    _cache: dict[tuple[int, int], int] = field(default_factory=dict, repr=False)

    def describe(self) -> dict[str, object]:
        return {"type": "natural", "tree_chance": self.tree_chance}

    def _lattice(self, octave: int, ix: int, iz: int) -> float:
        return unit(self.seed, octave, ix, iz)

    def _noise(self, octave: int, x: float, z: float) -> float:
        ix, iz = math.floor(x), math.floor(z)
        fx, fz = x - ix, z - iz
        sx, sz = fx * fx * (3 - 2 * fx), fz * fz * (3 - 2 * fz)
        a = self._lattice(octave, ix, iz)
        b = self._lattice(octave, ix + 1, iz)
        c = self._lattice(octave, ix, iz + 1)
        d = self._lattice(octave, ix + 1, iz + 1)
        top = a + (b - a) * sx
        bottom = c + (d - c) * sx
        return top + (bottom - top) * sz

    def surface_y(self, x: int, z: int) -> int:
        key = (x, z)
        h = self._cache.get(key)
        if h is None:
            n = 0.65 * self._noise(1, x / 48.0, z / 48.0) + 0.35 * self._noise(2, x / 16.0, z / 16.0)
            h = 56 + int(n * 18)
            if len(self._cache) > 200_000:
                self._cache.clear()
            self._cache[key] = h
        return h

    def _tree_at(self, x: int, z: int) -> int:
        """Trunk height (0 = no tree) of a tree rooted in column (x, z)."""
        h = self.surface_y(x, z)
        if h < SEA_LEVEL + 1 or unit(self.seed, 7, x, z) >= self.tree_chance:
            return 0
        return 4 + int(unit(self.seed, 8, x, z) * 3)

    def generate_chunk(self, store: BlockStore, cx: int, cz: int) -> None:
        pal = store.palette
        bedrock, stone, dirt = (pal.id_of(make_state(n)) for n in ("bedrock", "stone", "dirt"))
        grass, sand, water = (pal.id_of(make_state(n)) for n in ("grass_block", "sand", "water"))
        gravel = pal.id_of(make_state("gravel"))
        x0, z0 = cx * 16, cz * 16
        for x in range(x0, x0 + 16):
            for z in range(z0, z0 + 16):
                h = self.surface_y(x, z)
                top = max(h, SEA_LEVEL) + 1
                col = array("H", [stone]) * top
                col[0] = bedrock
                if h <= SEA_LEVEL + 1:
                    cover = sand if h >= SEA_LEVEL - 3 else gravel
                    col[h - 3 : h + 1] = array("H", [cover]) * 4
                    if h < SEA_LEVEL:
                        col[h + 1 : SEA_LEVEL + 1] = array("H", [water]) * (SEA_LEVEL - h)
                else:
                    col[h - 3 : h] = array("H", [dirt]) * 3
                    col[h] = grass
                del col[max(h, SEA_LEVEL) + 1 :]
                _fill_column(store, x, z, col)
        self._ores(store, cx, cz, stone)
        self._trees(store, cx, cz)

    def _ores(self, store: BlockStore, cx: int, cz: int, stone: int) -> None:
        rng = random.Random(mix(self.seed, 3, cx, cz))
        for name, attempts, lo, hi, size in ORES:
            ore = store.palette.id_of(make_state(name))
            for _ in range(attempts):
                x = cx * 16 + rng.randrange(16)
                z = cz * 16 + rng.randrange(16)
                y = rng.randint(lo, hi)
                for _ in range(rng.randint(1, size)):
                    if (x >> 4, z >> 4) == (cx, cz) and store.get(x, y, z) == stone:
                        store.set(x, y, z, ore)
                    x, y, z = vein_step(rng, x, y, z)

    def _trees(self, store: BlockStore, cx: int, cz: int) -> None:
        x0, z0 = cx * 16, cz * 16
        trees: list[tuple[int, int, int, int, str]] = []
        for x in range(x0 - 2, x0 + 18):
            for z in range(z0 - 2, z0 + 18):
                height = self._tree_at(x, z)
                if height:
                    kind = "birch" if unit(self.seed, 9, x, z) < 0.2 else "oak"
                    trees.append((x, self.surface_y(x, z) + 1, z, height, kind))
        for x, y, z, height, kind in trees:
            place_tree_leaves(store, x, y, z, height, kind, self.seed, clip=(cx, cz))
        for x, y, z, height, kind in trees:
            place_tree_trunk(store, x, y, z, height, kind, clip=(cx, cz))


def vein_step(rng: random.Random, x: int, y: int, z: int) -> tuple[int, int, int]:
    """One step of an ore vein's random walk along one axis (the same two draws every generator makes)."""
    axis = rng.randrange(3)
    step = rng.choice((-1, 1))
    if axis == 0:
        return x + step, y, z
    if axis == 1:
        return x, y + step, z
    return x, y, z + step


def vein_walk(rng: random.Random, x: int, y: int, z: int, n: int) -> list[tuple[int, int, int]]:
    """The cells where ``n`` successive :func:`vein_step` calls start, making exactly their draws on ``rng``."""
    return _WALK(rng, x, y, z, n)


def _walk_by_calls(rng: random.Random, x: int, y: int, z: int, n: int) -> list[tuple[int, int, int]]:
    out = []
    for _ in range(n):
        out.append((x, y, z))
        x, y, z = vein_step(rng, x, y, z)
    return out


def _walk_by_bits(rng: random.Random, x: int, y: int, z: int, n: int) -> list[tuple[int, int, int]]:
    """vein_step's draws made as CPython makes randrange(3) and a choice of two: getrandbits(2) until in range."""
    bits = rng.getrandbits
    out = []
    for _ in range(n):
        out.append((x, y, z))
        axis = bits(2)
        while axis == 3:
            axis = bits(2)
        step = bits(2)
        while step > 1:
            step = bits(2)
        if axis == 0:
            x += step + step - 1
        elif axis == 1:
            y += step + step - 1
        else:
            z += step + step - 1
    return out


def _bits_replay_the_calls() -> bool:
    a, b = random.Random(2126), random.Random(2126)
    return _walk_by_calls(a, 0, 0, 0, 512) == _walk_by_bits(b, 0, 0, 0, 512) and a.getstate() == b.getstate()


#: The replay is twice as fast as calling vein_step; a Python whose random draws otherwise gets the calls.
_WALK = _walk_by_bits if _bits_replay_the_calls() else _walk_by_calls


def _inside(x: int, z: int, clip: tuple[int, int] | None) -> bool:
    return clip is None or (x >> 4, z >> 4) == clip


def place_tree_leaves(
    store: BlockStore, x: int, y: int, z: int, height: int, kind: str, seed: int,
    clip: tuple[int, int] | None = None,
) -> None:
    leaves = store.palette.id_of(make_state(f"{kind}_leaves", {"distance": 1, "persistent": False}))
    top = y + height - 1
    for ly in range(top - 2, top + 2):
        radius = 2 if ly < top else 1
        for dx in range(-radius, radius + 1):
            for dz in range(-radius, radius + 1):
                corner = abs(dx) == radius and abs(dz) == radius
                if corner and (ly == top + 1 or unit(seed, 10, x + dx, ly, z + dz) < 0.5):
                    continue
                lx, lz = x + dx, z + dz
                if _inside(lx, lz, clip) and store.get(lx, ly, lz) == 0:
                    store.set(lx, ly, lz, leaves)


def place_tree_trunk(
    store: BlockStore, x: int, y: int, z: int, height: int, kind: str, clip: tuple[int, int] | None = None
) -> None:
    if not _inside(x, z, clip):
        return
    log = store.palette.id_of(make_state(f"{kind}_log", {"axis": "y"}))
    for ty in range(y, y + height):
        store.set(x, ty, z, log)
