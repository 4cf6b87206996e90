"""The embedded world's terrain written for the test server: ``--world natural|starter|flat --seed N`` on flying-squid.

flying-squid asks its generator for a chunk synchronously (prismarine-world calls it inside
``getColumn``), so the server cannot call back into Python for each chunk. Instead the
server builds the embedded world here, with the very factory the embedded body uses
(:func:`~craftbt.world.scenarios.loader.world_body`), generates the chunks of a square
region around its spawn and writes them into one compact file; ``squid_terrain.js``
(flying-squid's generator and a small plugin) reads that file and turns each chunk into a
prismarine chunk, mapping block names and properties through minecraft-data for the
served version. Whatever the Python generators do, the server follows: no terrain rule
is repeated in JavaScript.

The file (``terrain.cbtw``): the magic ``CBTW``, a little-endian ``u32`` header length, the
header as JSON (format, world, seed, spawn cell, region, ``min_y``, section count, the
palette ``[name, {property: value}]``, the chunk index ``[cx, cz, offset, length]`` and the
animals placed with each chunk), then each chunk's blocks: zlib-compressed little-endian
``u16`` palette indices, one 4096-entry run per section from ``min_y`` up, in the embedded
store's order (``x << 8 | z << 4 | y``). Outside the region the server serves air.
"""

from __future__ import annotations

import json
import math
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from craftbt.world.sim.generator import WORLD_TOP
from craftbt.world.sim.storage import SECTION_VOLUME, BlockState
from craftbt.world.sim.world import World

MAGIC = b"CBTW"
FORMAT = 1
MIN_Y = -64  # the 1.18+ overworld's floor: the lowest section the file holds
N_SECTIONS = (WORLD_TOP - MIN_Y) // 16  # generators write below WORLD_TOP
#: the region's default half-width in chunks: 17 x 17 chunks (272 x 272 blocks) around the spawn chunk
DEFAULT_RADIUS = 8
MAX_RADIUS = 32
#: the worlds the server can serve from the embedded generators (``--world``)
TERRAIN_WORLDS = ("natural", "starter", "flat")

Animal = tuple[str, float, float, float]


class TerrainFileError(Exception):
    """A terrain file that is not one this module wrote (bad magic, format or header)."""


@dataclass(frozen=True)
class Terrain:
    """A square region of an embedded world: its blocks by chunk, its spawn cell and the animals placed in it."""

    world: str
    seed: int
    spawn: tuple[int, int, int]  # the cell the player's feet stand in (the block below is solid)
    radius: int
    palette: tuple[BlockState, ...]
    chunks: dict[tuple[int, int], bytes] = field(repr=False)  # (cx, cz) -> N_SECTIONS * 4096 u16, little-endian
    animals: dict[tuple[int, int], list[Animal]] = field(default_factory=dict, repr=False)

    @property
    def spawn_chunk(self) -> tuple[int, int]:
        return self.spawn[0] >> 4, self.spawn[2] >> 4

    def block(self, x: int, y: int, z: int) -> BlockState:
        """The block state at a cell of the region (air outside it or above the written sections)."""
        raw = self.chunks.get((x >> 4, z >> 4))
        if raw is None or not MIN_Y <= y < MIN_Y + N_SECTIONS * 16:
            return self.palette[0]
        sec = (y - MIN_Y) >> 4
        i = sec * SECTION_VOLUME + (((x & 15) << 8) | ((z & 15) << 4) | (y & 15))
        idx: int = struct.unpack_from("<H", raw, i * 2)[0]
        return self.palette[idx]


def _chunk_bytes(world: World, cx: int, cz: int) -> bytes:
    world.ensure_chunk(cx, cz)
    out = array("H")
    zeros = bytes(SECTION_VOLUME * 2)
    for sy in range(MIN_Y >> 4, (MIN_Y >> 4) + N_SECTIONS):
        sec = world.store.sections.get((cx, sy, cz))
        if sec is None:
            out.frombytes(zeros)
        else:
            out.extend(sec)
    if sys.byteorder == "big":  # the file is little-endian whatever the host
        out.byteswap()
    return out.tobytes()


def build_terrain(world: str, seed: int, radius: int = DEFAULT_RADIUS) -> Terrain:
    """The region of ``radius`` chunks around the spawn chunk of the embedded ``world`` for ``seed``.

    The world comes from the embedded body's own factory, so the spawn, the starter world's extra
    trees and outcrop, and the natural world's animals are the ones an embedded episode gets.
    """
    from craftbt.world.scenarios.loader import world_body  # the scenario loader is heavy; only when serving

    if world not in TERRAIN_WORLDS:
        raise ValueError(f"world {world!r} is not one of {', '.join(TERRAIN_WORLDS)}")
    if not 0 <= radius <= MAX_RADIUS:
        raise ValueError(f"radius {radius} is not in 0..{MAX_RADIUS} chunks")
    w = world_body(world, seed).world
    spawn = (math.floor(w.spawn.x), math.floor(w.spawn.y), math.floor(w.spawn.z))
    scx, scz = spawn[0] >> 4, spawn[2] >> 4
    chunks: dict[tuple[int, int], bytes] = {}
    for cx in range(scx - radius, scx + radius + 1):
        for cz in range(scz - radius, scz + radius + 1):
            chunks[(cx, cz)] = _chunk_bytes(w, cx, cz)
    animals: dict[tuple[int, int], list[Animal]] = {}
    for e in sorted(w.entities.values(), key=lambda e: e.id):
        key = (math.floor(e.x) >> 4, math.floor(e.z) >> 4)
        if e.kind == "passive" and key in chunks:
            animals.setdefault(key, []).append((e.name, e.x, e.y, e.z))
    return Terrain(world, seed, spawn, radius, tuple(w.palette.states), chunks, animals)


def _header(t: Terrain, index: list[list[int]]) -> dict[str, Any]:
    return {
        "format": FORMAT, "world": t.world, "seed": t.seed, "spawn": list(t.spawn), "radius": t.radius,
        "min_y": MIN_Y, "sections": N_SECTIONS,
        "palette": [[name, dict(props)] for name, props in t.palette],
        "chunks": index,
        "animals": [[cx, cz, [list(a) for a in found]] for (cx, cz), found in sorted(t.animals.items())],
    }


def write_terrain(t: Terrain, path: Path) -> Path:
    """Write ``t`` to ``path`` in the format the module docstring describes; returns ``path``."""
    blobs: list[bytes] = []
    index: list[list[int]] = []
    offset = 0
    for (cx, cz), raw in sorted(t.chunks.items()):
        blob = zlib.compress(raw, 6)
        index.append([cx, cz, offset, len(blob)])
        blobs.append(blob)
        offset += len(blob)
    header = json.dumps(_header(t, index), separators=(",", ":")).encode()
    path.write_bytes(MAGIC + struct.pack("<I", len(header)) + header + b"".join(blobs))
    return path


def read_terrain(path: Path) -> Terrain:
    """A terrain file read back (what the server's generator reads, in Python: the round-trip test uses it)."""
    data = path.read_bytes()
    if data[:4] != MAGIC or len(data) < 8:
        raise TerrainFileError(f"{path}: not a craftbt terrain file (no {MAGIC.decode()} magic)")
    (size,) = struct.unpack_from("<I", data, 4)
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as err:
        raise TerrainFileError(f"{path}: unreadable header: {err}") from None
    if header.get("format") != FORMAT or header.get("min_y") != MIN_Y or header.get("sections") != N_SECTIONS:
        raise TerrainFileError(f"{path}: format {header.get('format')} (min_y {header.get('min_y')}, "
                               f"{header.get('sections')} sections) is not {FORMAT} ({MIN_Y}, {N_SECTIONS})")
    body = 8 + size
    chunks = {(cx, cz): zlib.decompress(data[body + off: body + off + n]) for cx, cz, off, n in header["chunks"]}
    palette = tuple((str(name), tuple(sorted(props.items()))) for name, props in header["palette"])
    animals = {(cx, cz): [(str(a[0]), float(a[1]), float(a[2]), float(a[3])) for a in found]
               for cx, cz, found in header["animals"]}
    sx, sy, sz = header["spawn"]
    return Terrain(str(header["world"]), int(header["seed"]), (int(sx), int(sy), int(sz)), int(header["radius"]),
                   palette, chunks, animals)
