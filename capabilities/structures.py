"""Structure modules and their witnesses (seed 001, "Structure Build Protocol").

A :class:`ModuleSpec` is a template: block placements and required-empty cells
given as offsets ``(dx, dy, dz)`` from a reference corner, drawn facing north
(the front of the module looks towards -z). Anchored at an ``origin`` with a
:class:`Facing`, every offset becomes an absolute :class:`BlockPos`: offsets
are rotated clockwise about the y axis (N: as drawn, E: front towards +x,
S: towards +z, W: towards -x) and added to the origin.

The module's ``digest`` is content-addressed: ``sha256:`` + SHA-256 of the
canonical JSON (sorted keys, no whitespace) of its placements and
required-empty cells, each sorted; the id is not part of it, so two modules
with the same geometry share a digest (seed 001's ``witnessDigest``).

:func:`scan_module` compares a module anchored in the world with what a block
reader reports and returns a :class:`ModuleWitness`: every cell lands in
exactly one of ``matched``, ``missing`` (expected block, found air or a
replaceable block), ``wrong`` (expected block, found another block) or
``obstructed`` (required empty, found a block). The diff is the repair input:
place ``missing``, dig then place ``wrong``, dig ``obstructed``.

:func:`build_order` is the order a builder places blocks in: layer by layer
from the bottom, and inside a layer outwards from the cells that rest on
something, so each block has a neighbour to be placed against.

Everything here is pure: no body, no registry. Leaves (``build_module``,
``verify_module``, ...) and the build protocol share it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from craftbt.world.body import BlockPos

#: Largest offset a module may use on any axis: a module is a room-sized piece, not a city.
MAX_OFFSET = 64
#: Blocks a placement may ask for or find in a missing cell (vanilla's "replaceable" tag, air and fluids).
#: minecraft-data has no replaceable flag, so the set is the vanilla tag's members that a survival world holds.
REPLACEABLE = frozenset(
    {
        "air",
        "cave_air",
        "void_air",
        "water",
        "lava",
        "short_grass",
        "tall_grass",
        "fern",
        "large_fern",
        "dead_bush",
        "seagrass",
        "tall_seagrass",
        "vine",
        "glow_lichen",
        "snow",
        "fire",
        "soul_fire",
        "hanging_roots",
        "crimson_roots",
        "warped_roots",
        "nether_sprouts",
        "light",
        "structure_void",
    }
)
AIR = frozenset({"air", "cave_air", "void_air"})


def is_air(name: str) -> bool:
    return name in AIR


def is_replaceable(name: str) -> bool:
    """A cell holding this block can take a new block without digging first."""
    return name in REPLACEABLE


class Facing(StrEnum):
    """Which way a module's front looks once anchored."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"


def rotate(dx: int, dz: int, facing: Facing) -> tuple[int, int]:
    """Rotate a north-drawn horizontal offset clockwise to ``facing``."""
    if facing is Facing.N:
        return dx, dz
    if facing is Facing.E:
        return -dz, dx
    if facing is Facing.S:
        return -dx, -dz
    return dz, -dx


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Cell(_Frozen):
    """An offset from the module's reference corner, as drawn facing north."""

    dx: int = Field(ge=-MAX_OFFSET, le=MAX_OFFSET)
    dy: int = Field(ge=-MAX_OFFSET, le=MAX_OFFSET)
    dz: int = Field(ge=-MAX_OFFSET, le=MAX_OFFSET)

    @property
    def key(self) -> tuple[int, int, int]:
        return self.dx, self.dy, self.dz


class Placement(Cell):
    """One block the module needs at an offset."""

    block: str = Field(min_length=1, pattern=r"^(minecraft:)?[a-z0-9_]+$", description="Block name, e.g. oak_planks")

    @model_validator(mode="after")
    def _bare_name(self) -> Placement:
        if self.block.startswith("minecraft:"):
            object.__setattr__(self, "block", self.block.removeprefix("minecraft:"))
        return self


class ModuleSpec(_Frozen):
    """A structure module: what must stand where, and what must stay clear (seed 001 ``ModuleWitnessV1``)."""

    module_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:\-]+$")
    placements: list[Placement] = Field(default_factory=list, max_length=4096)
    required_empty: list[Cell] = Field(default_factory=list, max_length=4096)
    description: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> ModuleSpec:
        if not self.placements and not self.required_empty:
            raise ValueError("a module needs at least one placement or required-empty cell")
        seen: set[tuple[int, int, int]] = set()
        for p in self.placements:
            if p.key in seen:
                raise ValueError(f"two placements at offset {p.key}")
            seen.add(p.key)
        for c in self.required_empty:
            if c.key in seen:
                raise ValueError(f"offset {c.key} is both a placement and required empty")
        if len({c.key for c in self.required_empty}) != len(self.required_empty):
            raise ValueError("a required-empty offset is listed twice")
        return self

    def canonical(self) -> dict[str, Any]:
        """The content the digest covers: sorted placements and required-empty cells."""
        return {
            "placements": sorted([p.dx, p.dy, p.dz, p.block] for p in self.placements),
            "required_empty": sorted([c.dx, c.dy, c.dz] for c in self.required_empty),
        }

    @property
    def digest(self) -> str:
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def materials(self) -> dict[str, int]:
        """Blocks the module needs, by name (what a builder must carry)."""
        out: dict[str, int] = {}
        for p in self.placements:
            out[p.block] = out.get(p.block, 0) + 1
        return dict(sorted(out.items()))

    def size(self) -> tuple[int, int, int]:
        """Extent (dx, dy, dz) of every cell the module mentions, as drawn."""
        cells = [c.key for c in (*self.placements, *self.required_empty)]
        return tuple(max(c[i] for c in cells) - min(c[i] for c in cells) + 1 for i in range(3))  # type: ignore[return-value]


class Anchor(_Frozen):
    """Where a module stands: its reference corner in the world and its facing."""

    origin: BlockPos
    facing: Facing = Facing.N

    def absolute(self, cell: Cell) -> BlockPos:
        rx, rz = rotate(cell.dx, cell.dz, self.facing)
        return BlockPos(self.origin.x + rx, self.origin.y + cell.dy, self.origin.z + rz)


def absolute_placements(module: ModuleSpec, anchor: Anchor) -> list[tuple[BlockPos, str]]:
    return [(anchor.absolute(p), p.block) for p in module.placements]


def absolute_empty(module: ModuleSpec, anchor: Anchor) -> list[BlockPos]:
    return [anchor.absolute(c) for c in module.required_empty]


def footprint(positions: Iterable[BlockPos]) -> tuple[BlockPos, BlockPos]:
    """Inclusive (min, max) corners of a set of positions."""
    cells = list(positions)
    if not cells:
        raise ValueError("empty footprint")
    return (
        BlockPos(min(c.x for c in cells), min(c.y for c in cells), min(c.z for c in cells)),
        BlockPos(max(c.x for c in cells), max(c.y for c in cells), max(c.z for c in cells)),
    )


_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def build_order(module: ModuleSpec, anchor: Anchor) -> list[tuple[BlockPos, str]]:
    """Absolute placements in a deterministic, support-first order.

    Layers go bottom-up. Inside a layer, cells resting on a block of the module
    (or on the ground, for the module's lowest layer) come first; the rest
    follow breadth-first from them, so each block has a placed neighbour to be
    placed against. Cells no chain reaches (floating in the template) come last,
    sorted; placing them needs a reference block that already stands in the world.
    """
    placements = absolute_placements(module, anchor)
    by_pos = dict(placements)
    if not placements:
        return []
    lowest = min(p.y for p, _ in placements)
    ordered: list[tuple[BlockPos, str]] = []
    for y in sorted({p.y for p, _ in placements}):
        layer = sorted(p for p in by_pos if p.y == y)
        layer_set = set(layer)
        seeds = [p for p in layer if y == lowest or p.offset(dy=-1) in by_pos]
        done: set[BlockPos] = set()
        queue = list(seeds)
        done.update(seeds)
        head = 0
        while head < len(queue):
            cell = queue[head]
            head += 1
            for dx, dz in _SIDES:
                near = cell.offset(dx=dx, dz=dz)
                if near in layer_set and near not in done:
                    done.add(near)
                    queue.append(near)
        queue.extend(p for p in layer if p not in done)
        ordered.extend((p, by_pos[p]) for p in queue)
    return ordered


# -- witness --------------------------------------------------------------------------------------
class WitnessCell(_Frozen):
    """One checked cell: its offset, its absolute position, what should be and what is there."""

    dx: int
    dy: int
    dz: int
    x: int
    y: int
    z: int
    expected: str  # a block name, or "air" for a required-empty cell
    observed: str

    @property
    def position(self) -> BlockPos:
        return BlockPos(self.x, self.y, self.z)


class ModuleWitness(_Frozen):
    """What a scan of an anchored module found (seed 001 ``verify_module`` result).

    ``complete`` holds when nothing is missing, wrong or obstructed. ``digest``
    is the module's content digest, so a witness names exactly which template
    it checked; ``evidence_digest`` addresses the observations themselves.
    """

    module_id: str
    digest: str
    origin: BlockPos
    facing: Facing
    matched: list[WitnessCell] = Field(default_factory=list)
    missing: list[WitnessCell] = Field(default_factory=list)
    wrong: list[WitnessCell] = Field(default_factory=list)
    obstructed: list[WitnessCell] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.missing or self.wrong or self.obstructed)

    @property
    def checked(self) -> int:
        return len(self.matched) + len(self.missing) + len(self.wrong) + len(self.obstructed)

    @property
    def evidence_digest(self) -> str:
        cells = sorted(
            [c.x, c.y, c.z, c.observed] for c in (*self.matched, *self.missing, *self.wrong, *self.obstructed)
        )
        text = json.dumps({"digest": self.digest, "cells": cells}, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()

    def summary(self) -> dict[str, Any]:
        """Compact evidence: counts plus the diff cells as ``[x, y, z, expected, observed]``."""

        def rows(cells: list[WitnessCell]) -> list[list[Any]]:
            return [[c.x, c.y, c.z, c.expected, c.observed] for c in cells]

        return {
            "module_id": self.module_id,
            "digest": self.digest,
            "evidence_digest": self.evidence_digest,
            "origin": list(self.origin),
            "facing": self.facing.value,
            "complete": self.complete,
            "matched": len(self.matched),
            "missing": rows(self.missing),
            "wrong": rows(self.wrong),
            "obstructed": rows(self.obstructed),
        }


def scan_module(module: ModuleSpec, anchor: Anchor, read: Callable[[BlockPos], str | None]) -> ModuleWitness:
    """Check every placement and required-empty cell with ``read`` (block name, or None if unknown).

    An unreadable cell (``None``) counts as missing/obstructed with ``observed="unknown"``:
    a witness never claims what it did not see.
    """
    matched: list[WitnessCell] = []
    missing: list[WitnessCell] = []
    wrong: list[WitnessCell] = []
    obstructed: list[WitnessCell] = []
    for p in module.placements:
        pos = anchor.absolute(p)
        seen = read(pos)
        cell = WitnessCell(dx=p.dx, dy=p.dy, dz=p.dz, x=pos.x, y=pos.y, z=pos.z,
                           expected=p.block, observed=seen if seen is not None else "unknown")
        if seen == p.block:
            matched.append(cell)
        elif seen is None or is_replaceable(seen):
            missing.append(cell)
        else:
            wrong.append(cell)
    for c in module.required_empty:
        pos = anchor.absolute(c)
        seen = read(pos)
        cell = WitnessCell(dx=c.dx, dy=c.dy, dz=c.dz, x=pos.x, y=pos.y, z=pos.z,
                           expected="air", observed=seen if seen is not None else "unknown")
        if seen is not None and is_air(seen):
            matched.append(cell)
        else:
            obstructed.append(cell)
    return ModuleWitness(
        module_id=module.module_id,
        digest=module.digest,
        origin=anchor.origin,
        facing=anchor.facing,
        matched=matched,
        missing=missing,
        wrong=wrong,
        obstructed=obstructed,
    )


# -- a small library of modules --------------------------------------------------------------------
def pillar(block: str, height: int, module_id: str | None = None) -> ModuleSpec:
    return ModuleSpec(
        module_id=module_id or f"pillar_{block}_{height}",
        placements=[Placement(dx=0, dy=dy, dz=0, block=block) for dy in range(height)],
        description=f"A {height}-high column of {block}.",
    )


def wall(block: str, width: int, height: int, module_id: str | None = None) -> ModuleSpec:
    """A straight wall along +x, ``width`` long and ``height`` high."""
    return ModuleSpec(
        module_id=module_id or f"wall_{block}_{width}x{height}",
        placements=[
            Placement(dx=dx, dy=dy, dz=0, block=block) for dy in range(height) for dx in range(width)
        ],
        description=f"A {width}x{height} wall of {block}.",
    )


def platform(block: str, width: int, depth: int, module_id: str | None = None) -> ModuleSpec:
    """A one-block-thick floor ``width`` (x) by ``depth`` (+z, backwards), with two air layers above it."""
    return ModuleSpec(
        module_id=module_id or f"platform_{block}_{width}x{depth}",
        placements=[Placement(dx=dx, dy=0, dz=dz, block=block) for dx in range(width) for dz in range(depth)],
        required_empty=[
            Cell(dx=dx, dy=dy, dz=dz) for dy in (1, 2) for dx in range(width) for dz in range(depth)
        ],
        description=f"A {width}x{depth} floor of {block} with headroom.",
    )


def shelter(block: str, module_id: str | None = None) -> ModuleSpec:
    """A 3x3 (outer) hut two blocks high with a roof: walls on the ring, a doorway in the front wall.

    As drawn (facing north) the front wall is the row ``dz = 0`` and the hut
    extends back towards +z; the reference corner is the bottom corner with
    the lowest x in the front wall. The doorway is the middle of the front
    wall, two cells high, and the interior stays clear.
    """
    placements: list[Placement] = []
    empty: list[Cell] = []
    for dy in (0, 1):
        for dx in range(3):
            for dz in range(3):
                interior = dx == 1 and dz == 1
                doorway = dx == 1 and dz == 0
                if interior or doorway:
                    empty.append(Cell(dx=dx, dy=dy, dz=dz))
                else:
                    placements.append(Placement(dx=dx, dy=dy, dz=dz, block=block))
    placements.extend(Placement(dx=dx, dy=2, dz=dz, block=block) for dx in range(3) for dz in range(3))
    return ModuleSpec(
        module_id=module_id or f"shelter_{block}_3x3",
        placements=placements,
        required_empty=empty,
        description=f"A 3x3 hut of {block} with a doorway facing front and a roof.",
    )


#: Built-in modules, by id: the ones a planner may name without shipping a spec.
LIBRARY: dict[str, ModuleSpec] = {
    m.module_id: m
    for m in (
        pillar("cobblestone", 3, "cobblestone_pillar_3"),
        wall("cobblestone", 3, 2, "cobblestone_wall_3x2"),
        wall("oak_planks", 5, 3, "oak_wall_5x3"),
        platform("cobblestone", 3, 3, "cobblestone_platform_3x3"),
        shelter("oak_planks", "oak_shelter_3x3"),
        shelter("cobblestone", "cobblestone_shelter_3x3"),
    )
}
