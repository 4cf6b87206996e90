"""Build a natural-world chunk whole with numpy, block for block the reference's, and cache it per seed.

A chunk is one ``uint16`` array indexed ``[x, z, y - BOTTOM]`` (the store's own
column-major layout, so each 16^3 section is a contiguous slice after one
transpose). Every stage of :mod:`natural_reference` becomes array work over it:
the column fill as masks on ``y``, each carver sphere as a boolean ellipsoid
over a small window, ore veins and leaves as lists of cells where the first
writer wins. The few ``random.Random`` streams (carvers, lava pools, ores) make
the same draws in the same order as the reference; only the block writes around
them are vectorised.

Block ids are local to the chunk (:class:`ChunkData.states`, listed in the order
the reference interns them) and mapped onto a store's palette when written, so
a store's palette grows exactly as it does under the reference. Built chunks are
kept per ``(seed, cx, cz)`` in a bounded cache of read-only arrays: a second
world with the same seed in the same process gets a fresh copy of the blocks,
never the cached array itself.
"""

from __future__ import annotations

import random
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from craftbt.world.sim.generator import SEA_LEVEL, WORLD_TOP, mix, vein_walk
from craftbt.world.sim.natural_fields import (
    FLOWER_INDEX,
    FLOWER_UPPER,
    TREE_KINDS,
    TUFT_CHANCE,
    Biome,
    biomes,
    mix_array,
    terrain_heights,
    trees,
    unit_array,
)
from craftbt.world.sim.natural_rules import (
    BOTTOM,
    CARVER_REACH,
    FLOWER_CHANCE,
    FLOWER_NAMES,
    LAVA_LEVEL,
    ORE_FEATURES,
    SUGAR_CANE_CHANCE,
    SUGAR_CANE_HEIGHTS,
    carver_path,
    ore_y,
)
from craftbt.world.sim.storage import BlockState, BlockStore, make_state

Blocks = npt.NDArray[np.uint16]
Ints = npt.NDArray[np.int64]

NY = WORLD_TOP - BOTTOM  # the natural terrain, trees included, stays below WORLD_TOP (heights <= 83)
TREE_REACH = 10  # leaves reach 9 blocks above the surface: trunks of up to 8 from y+1, the crown one higher
SECTION_LO = BOTTOM >> 4
N_SECTIONS = NY // 16
CHUNK_CACHE_SIZE = 512  # chunks (~80 KB each): a 22x22-chunk area per process
PATH_CACHE_SIZE = 8192  # carver paths, one per chunk that may start carvers

_lock = threading.Lock()
_chunks: OrderedDict[tuple[int, int, int], ChunkData] = OrderedDict()
_paths: OrderedDict[tuple[int, int, int], tuple[npt.NDArray[np.float64], tuple[float, ...]]] = OrderedDict()


@dataclass(frozen=True)
class ChunkData:
    """One generated chunk: its local palette, which sections it stores and their blocks (read-only)."""

    states: tuple[BlockState, ...]
    sections: tuple[int, ...]
    blocks: Blocks  # (len(sections), 4096) local ids, each row one section in the store's layout


class _LocalPalette:
    """Block states in the order the reference generator interns them into a store's palette."""

    def __init__(self) -> None:
        self.states: list[BlockState] = []
        self._index: dict[BlockState, int] = {}

    def id(self, name: str, props: dict[str, object] | None = None) -> int:
        state = make_state(name, props)
        idx = self._index.get(state)
        if idx is None:
            idx = len(self.states) + 1  # 0 stays air
            self.states.append(state)
            self._index[state] = idx
        return idx


def chunk(seed: int, cx: int, cz: int) -> ChunkData:
    """Chunk (cx, cz) of the natural world of ``seed``, from the per-seed cache or built now."""
    key = (seed, cx, cz)
    with _lock:  # worlds of a service may generate from several threads
        data = _chunks.get(key)
        if data is not None:
            _chunks.move_to_end(key)
            return data
    data = build_chunk(seed, cx, cz)
    with _lock:
        _chunks[key] = data
        if len(_chunks) > CHUNK_CACHE_SIZE:
            _chunks.popitem(last=False)
    return data


def clear_caches() -> None:
    """Forget every cached chunk and carver path (benchmarks measure cold generation with this)."""
    with _lock:
        _chunks.clear()
        _paths.clear()


def write_chunk(store: BlockStore, data: ChunkData, cx: int, cz: int) -> None:
    """Put a chunk's sections into ``store``, mapping its local ids onto the store's palette."""
    lut = np.zeros(len(data.states) + 1, dtype=np.uint16)
    for i, state in enumerate(data.states, start=1):
        lut[i] = store.palette.id_of(state)
    blocks = lut[data.blocks]  # a fresh array: the cached one is never handed out
    for row, sy in enumerate(data.sections):
        sec = array("H")
        sec.frombytes(blocks[row].tobytes())
        store.add_section((cx, sy, cz), sec)


def build_chunk(seed: int, cx: int, cz: int) -> ChunkData:
    """Generate chunk (cx, cz) of ``seed``: the reference's stages, in its order, over one array."""
    pal = _LocalPalette()
    x0, z0 = cx * 16, cz * 16
    # the 20x20 columns around the chunk: trees rooted up to 2 blocks outside reach into it
    gx = np.arange(x0 - 2, x0 + 18, dtype=np.int64)[:, None]
    gz = np.arange(z0 - 2, z0 + 18, dtype=np.int64)[None, :]
    grid_h = terrain_heights(seed, gx, gz)
    grid_b = biomes(seed, gx, gz)
    if int(grid_h.max()) + TREE_REACH >= BOTTOM + NY:  # the rules changed: the array would cut the terrain off
        raise ValueError(f"natural terrain reaches y={int(grid_h.max())}; natural_chunk.NY must grow")
    xs, zs, h, b = gx[2:18], gz[:, 2:18], grid_h[2:18, 2:18], grid_b[2:18, 2:18]
    blocks, top_section = _columns(seed, pal, xs, zs, h, b)
    _carve(seed, pal, blocks, cx, cz, h)
    _lava_pool(seed, pal, blocks, cx, cz)
    _ores(seed, pal, blocks, cx, cz)
    _surface_plants(seed, pal, blocks, xs, zs, h, b, grid_h)
    _trees(seed, pal, blocks, cx, cz, gx, gz, grid_h, grid_b)
    by_section = blocks.reshape(16, 16, N_SECTIONS, 16).transpose(2, 0, 1, 3)
    # the reference stores every section up to the highest column top, and any other it wrote a block into
    keep = [s for s in range(N_SECTIONS) if s <= top_section or by_section[s].any()]
    out = np.ascontiguousarray(by_section[keep]).reshape(len(keep), 4096)
    out.flags.writeable = False
    return ChunkData(tuple(pal.states), tuple(s + SECTION_LO for s in keep), out)


def _columns(seed: int, pal: _LocalPalette, xs: Ints, zs: Ints, h: Ints, b: Ints) -> tuple[Blocks, int]:
    """Bedrock, deepslate, stone, the cover and the sea; returns the blocks and the highest section index."""
    bedrock, deepslate, stone, dirt, grass, sand, sandstone, gravel, water, clay = (
        pal.id(n) for n in ("bedrock", "deepslate", "stone", "dirt", "grass_block", "sand", "sandstone", "gravel",
                            "water", "clay"))
    k = np.arange(NY)
    top = np.maximum(h, SEA_LEVEL) - BOTTOM
    blocks: Blocks = np.where(k <= top[..., None], stone, 0).astype(np.uint16)
    blocks[:, :, 0] = bedrock
    bits = mix_array((seed, 30), xs, zs)  # one hash per column: 3 bits per ragged cell
    for i in range(1, 5):  # ragged bedrock floor, thinning upwards
        blocks[:, :, i][((bits >> np.uint64(3 * i)) & np.uint64(7)) < (5 - i) * 8 // 5] = bedrock
    blocks[:, :, 5 : -BOTTOM + 1] = deepslate
    for y in range(8):  # deepslate thins out between y=0 and y=8
        blocks[:, :, y - BOTTOM][((bits >> np.uint64(15 + 3 * y)) & np.uint64(7)) < 8 - y] = deepslate
    # the cover and the sea lie between 6 below the lowest surface and the highest column top
    lo, hi = int(h.min()) - 6 - BOTTOM, int(top.max()) + 1
    band, kb = blocks[:, :, lo:hi], k[lo:hi]
    rel = kb - (h - BOTTOM)[..., None]  # y relative to the surface
    low = (h <= SEA_LEVEL + 1)[..., None]
    desert = ~low & (b == Biome.DESERT)[..., None]
    grassy = ~low & ~desert
    cover = np.where(h >= SEA_LEVEL - 3, sand, np.where(unit_array((seed, 32), xs, zs) < 0.15, clay, gravel))
    skin = (rel >= -3) & (rel <= 0)
    band[low & skin] = np.broadcast_to(cover[..., None], band.shape)[low & skin]
    band[low & (h < SEA_LEVEL)[..., None] & (rel >= 1) & (kb <= SEA_LEVEL - BOTTOM)] = water
    band[desert & (rel >= -6) & (rel <= -4)] = sandstone
    band[desert & skin] = sand
    band[grassy & (rel >= -3) & (rel <= -1)] = dirt
    band[grassy & (rel == 0)] = grass
    return blocks, (int(top.max()) + BOTTOM >> 4) - SECTION_LO


def _spheres_near(seed: int, cx: int, cz: int) -> npt.NDArray[np.float64]:
    """Rows (x, y, z, r, ry) of the carver spheres started within CARVER_REACH that come near the chunk.

    Paths are cached per seed with the block bounds they span, so most of the 81 chunks around are skipped
    without looking at their spheres.
    """
    x0, z0 = cx * 16, cz * 16
    parts = []
    for scx in range(cx - CARVER_REACH, cx + CARVER_REACH + 1):
        for scz in range(cz - CARVER_REACH, cz + CARVER_REACH + 1):
            key = (seed, scx, scz)
            cached = _paths.get(key)
            if cached is None:
                cached = _path_with_bounds(seed, scx, scz)
                with _lock:
                    _paths[key] = cached
                    if len(_paths) > PATH_CACHE_SIZE:
                        _paths.popitem(last=False)
            path, (xlo, xhi, zlo, zhi) = cached
            if xlo <= x0 + 16 and xhi >= x0 and zlo <= z0 + 16 and zhi >= z0:
                parts.append(path)
    return np.concatenate(parts) if parts else np.zeros((0, 5))


def _path_with_bounds(seed: int, scx: int, scz: int) -> tuple[npt.NDArray[np.float64], tuple[float, ...]]:
    path = np.array(carver_path(seed, scx, scz), dtype=np.float64).reshape(-1, 5)
    if not len(path):
        return path, (np.inf, -np.inf, np.inf, -np.inf)
    x, z, r = path[:, 0], path[:, 2], path[:, 3]
    return path, (float((x - r).min()), float((x + r).max()), float((z - r).min()), float((z + r).max()))


def _carve(seed: int, pal: _LocalPalette, blocks: Blocks, cx: int, cz: int, h: Ints) -> None:
    """Hollow every carver sphere that reaches the chunk: air, or lava at and below LAVA_LEVEL."""
    lava, water, bedrock = pal.id("lava"), pal.id("water"), pal.id("bedrock")
    x0, z0 = cx * 16, cz * 16
    s = _spheres_near(seed, cx, cz)
    x, z, r = s[:, 0], s[:, 2], s[:, 3]
    s = s[(x0 - r <= x) & (x <= x0 + 16 + r) & (z0 - r <= z) & (z <= z0 + 16 + r)]
    # caves and the tall ravines need windows of different heights; each group gets the window its spheres need
    cells = np.unique(np.concatenate([_sphere_cells(g, x0, z0) for g in (s[s[:, 4] <= s[:, 3]], s[s[:, 4] > s[:, 3]])
                                      if len(g)] or [np.zeros(0, dtype=np.int64)]))
    col, k = np.divmod(cells, NY)
    y = k + BOTTOM
    height = h.reshape(-1)[col]
    view = blocks.reshape(-1)
    old = view[cells]
    # keep the sea out of caves, and leave a roof under the grass of low columns
    keep = ((height > SEA_LEVEL + 1) | (y <= height - 6)) & (old != bedrock) & (old != water)
    view[cells[keep]] = np.where(y[keep] <= LAVA_LEVEL, lava, 0)


def _sphere_cells(s: npt.NDArray[np.float64], x0: int, z0: int) -> Ints:
    """Flat indices into the chunk of the cells inside any of the ellipsoids ``s`` (the reference's test per cell).

    Each sphere is tested over a window from floor(centre - radius) wide enough for the widest sphere of the
    group; cells of the window beyond the reference's loop bounds are more than a radius away, so they fail the
    same distance test the reference applies. Window cells outside the chunk or the carvable heights get an
    infinite distance term, which fails the test too.
    """
    x, y, z, r, ry = (s[:, i : i + 1] for i in range(5))
    fx, fy, fz = np.floor(x - r), np.floor(y - ry), np.floor(z - r)
    wxz = int(max((np.floor(x + r) - fx).max(), (np.floor(z + r) - fz).max())) + 1
    wy = int((np.floor(y + ry) - fy).max()) + 1
    bx = fx + np.arange(wxz)
    by = fy + np.arange(wy)
    bz = fz + np.arange(wxz)
    dx2 = np.where((bx >= x0) & (bx < x0 + 16), ((bx + 0.5 - x) / r) ** 2, np.inf)
    dy2 = np.where((by >= BOTTOM + 1) & (by < BOTTOM + NY), ((by + 0.5 - y) / ry) ** 2, np.inf)
    dz2 = np.where((bz >= z0) & (bz < z0 + 16), ((bz + 0.5 - z) / r) ** 2, np.inf)
    m, ix, iz, iy = np.nonzero((dx2[:, :, None, None] + dy2[:, None, None, :]) + dz2[:, None, :, None] <= 1.0)
    cells: Ints = (((bx[m, ix] - x0) * 16 + (bz[m, iz] - z0)) * NY + (by[m, iy] - BOTTOM)).astype(np.int64)
    return cells


def _lava_pool(seed: int, pal: _LocalPalette, blocks: Blocks, cx: int, cz: int) -> None:
    """One chunk in 12 or so: a lava disc of radius ~2 with air above it, at depth."""
    rng = random.Random(mix(seed, 42, cx, cz))
    if rng.random() >= 0.08:
        return
    lava = pal.id("lava")
    x, y, z = 3 + rng.randrange(10), rng.randint(-50, 20) - BOTTOM, 3 + rng.randrange(10)
    for dx in range(-2, 3):
        for dz in range(-2, 3):
            if dx * dx + dz * dz <= 5:
                blocks[x + dx, z + dz, y] = lava
                blocks[x + dx, z + dz, y + 1] = 0


def _ores(seed: int, pal: _LocalPalette, blocks: Blocks, cx: int, cz: int) -> None:
    """Walk every vein with the reference's draws; the first vein to reach a stone or deepslate cell ores it."""
    rng = random.Random(mix(seed, 3, cx, cz))
    stone, deepslate = pal.id("stone"), pal.id("deepslate")
    ore_ids, deep_ids = [], []
    walk: list[tuple[int, int, int]] = []
    veins: list[tuple[int, int]] = []  # (feature, steps) of each vein, in order
    for feature, (name, attempts, dist, lo, hi, size) in enumerate(ORE_FEATURES):
        ore_ids.append(pal.id(name))
        deep_ids.append(pal.id("deepslate_" + name))
        for _ in range(attempts):
            x = cx * 16 + rng.randrange(16)
            z = cz * 16 + rng.randrange(16)
            y = ore_y(rng, dist, lo, hi)
            n = rng.randint(max(1, size // 2), size)
            walk += vein_walk(rng, x, y, z, n)
            veins.append((feature, n))
    wx, wy, wz = np.array(walk, dtype=np.int64).reshape(-1, 3).T
    per_vein = np.array(veins, dtype=np.int64).reshape(-1, 2)
    wf = np.repeat(per_vein[:, 0], per_vein[:, 1])
    # above the array is air, which no vein replaces
    ok = (wx >> 4 == cx) & (wz >> 4 == cz) & (wy > BOTTOM) & (wy < BOTTOM + NY)
    flat = ((wx[ok] - cx * 16) * 16 + (wz[ok] - cz * 16)) * NY + (wy[ok] - BOTTOM)
    flat, first = np.unique(flat, return_index=True)
    feature = wf[ok][first]
    view = blocks.reshape(-1)
    here = view[flat]
    view[flat] = np.where(here == stone, np.array(ore_ids)[feature],
                          np.where(here == deepslate, np.array(deep_ids)[feature], here))


def _surface_plants(seed: int, pal: _LocalPalette, blocks: Blocks, xs: Ints, zs: Ints, h: Ints, b: Ints,
                    grid_h: Ints) -> None:
    """Grass tufts and ferns by biome, flowers by biome, and sugar cane on sand beside water, into air."""
    grass, tuft, fern, sand, cane, *flowers = (pal.id(n) for n in ("grass_block", "short_grass", "fern", "sand",
                                                                   "sugar_cane", *FLOWER_NAMES))
    ix, iz = np.indices((16, 16))
    k = h - BOTTOM
    top, above = blocks[ix, iz, k], blocks[ix, iz, k + 1] == 0
    open_grass = (top == grass) & above
    u = unit_array((seed, 50), xs, zs)
    chance = TUFT_CHANCE[b]
    tufted = open_grass & (u < chance)
    flower = FLOWER_INDEX[b, np.sum(unit_array((seed, 51), xs, zs)[..., None] >= FLOWER_UPPER[b], axis=-1)]
    flowered = open_grass & ~tufted & (u > 1 - FLOWER_CHANCE) & (flower >= 0)
    plant = np.where(tufted, np.where((b == Biome.TAIGA) & (u < chance * 0.3), fern, tuft),
                     np.array([0, *flowers])[flower + 1])
    put = tufted | flowered
    blocks[ix[put], iz[put], k[put] + 1] = plant[put]
    # sugar cane: sand at sea level, a neighbour column under the sea, the column's draw under the chance
    wet = np.zeros((16, 16), dtype=bool)
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        wet |= grid_h[2 + dx : 18 + dx, 2 + dz : 18 + dz] < SEA_LEVEL
    caned = (top == sand) & above & (h == SEA_LEVEL) & wet & (unit_array((seed, 52), xs, zs) < SUGAR_CANE_CHANCE)
    lo, hi = SUGAR_CANE_HEIGHTS
    tall = lo + (unit_array((seed, 53), xs, zs) * (hi - lo + 1)).astype(np.int64)
    for i, j in zip(*np.nonzero(caned), strict=True):
        blocks[i, j, k[i, j] + 1 : k[i, j] + 1 + tall[i, j]] = cane


#: A tree's crown as offsets from (trunk x, top y, trunk z): two 5x5 layers under the top, then two 3x3 layers;
#: ``_CORNER`` marks the corners, which the reference drops at random (always on the highest layer).
_LAYER, _DX, _DZ = (np.array(v, dtype=np.int64) for v in zip(
    *[(ly, dx, dz) for ly in range(-2, 2) for r in [2 if ly < 0 else 1]
      for dx in range(-r, r + 1) for dz in range(-r, r + 1)], strict=True))
_CORNER = (np.abs(_DX) == np.where(_LAYER < 0, 2, 1)) & (np.abs(_DZ) == np.where(_LAYER < 0, 2, 1))


def _trees(seed: int, pal: _LocalPalette, blocks: Blocks, cx: int, cz: int,
           gx: Ints, gz: Ints, grid_h: Ints, grid_b: Ints) -> None:
    """Trees rooted in and up to 2 blocks around the chunk: dirt under trunks, leaves into air, then trunks."""
    grass, dirt = pal.id("grass_block"), pal.id("dirt")
    height, kind = trees(seed, gx, gz, grid_h, grid_b)
    ti, tj = np.nonzero(height)  # row-major: x outer, z inner, the reference's order
    if not len(ti):
        return
    x, z = gx[ti, 0], gz[0, tj]
    y = grid_h[ti, tj] + 1
    t_height, t_kind = height[ti, tj], kind[ti, tj]
    own = (x >> 4 == cx) & (z >> 4 == cz)
    lx, lz = x - cx * 16, z - cz * 16
    under = own.copy()
    under[own] = blocks[lx[own], lz[own], y[own] - 1 - BOTTOM] == grass
    blocks[lx[under], lz[under], y[under] - BOTTOM] = 0  # a grass tuft under the trunk
    blocks[lx[under], lz[under], y[under] - 1 - BOTTOM] = dirt
    leaves = np.array([pal.id(f"{TREE_KINDS[k]}_leaves", {"distance": 1, "persistent": False}) for k in t_kind])
    # leaves: every crown cell in tree order; the first tree to reach an air cell fills it
    top = y + t_height - 1
    cx_, cy_, cz_ = x[:, None] + _DX, top[:, None] + _LAYER, z[:, None] + _DZ
    keep = ~_CORNER | ((_LAYER < 1) & (unit_array((seed, 10), cx_, cy_, cz_) >= 0.5))
    keep &= (cx_ >> 4 == cx) & (cz_ >> 4 == cz)
    owner = np.broadcast_to(np.arange(len(x))[:, None], keep.shape)[keep]
    flat = ((cx_[keep] - cx * 16) * 16 + (cz_[keep] - cz * 16)) * NY + (cy_[keep] - BOTTOM)
    flat, first = np.unique(flat, return_index=True)
    view = blocks.reshape(-1)
    empty = view[flat] == 0
    view[flat[empty]] = leaves[owner[first][empty]]
    for i in np.nonzero(own)[0]:
        log = pal.id(f"{TREE_KINDS[t_kind[i]]}_log", {"axis": "y"})
        blocks[lx[i], lz[i], y[i] - BOTTOM : y[i] - BOTTOM + t_height[i]] = log
