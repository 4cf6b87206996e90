"""Runner steps that place and dig single blocks, shared by construction, farming and world leaves.

Each step is a generator for ``yield from`` (see :mod:`capabilities.leaves.common`):
it yields body handles and returns ``None`` when the block work succeeded, or an
:class:`ActionResult` failure with a stable code. Steps only talk to the Body.

* :func:`place_step` puts a block into a free (air or replaceable) cell: it
  finds a solid neighbour face to place against, walks within reach, steps out
  of the cell if the bot stands in it, equips the item and places.
* :func:`dig_step` breaks the block in a cell with the best harvest tool the
  inventory holds (the seed's "no auto-equip before mining" gap, fixed here).
* :func:`use_on_step` walks within reach and uses an item on a block (a hoe on
  dirt) or, without an item, activates it (a lever, a door).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from craftbt.capabilities.leaves.common import (
    EYE_HEIGHT,
    REACH,
    Step,
    approach,
    body_reader,
    count_item,
    equip,
    perform,
    registry_data,
    within_reach,
)
from craftbt.capabilities.spec import ActionResult
from craftbt.capabilities.structures import is_air, is_replaceable
from craftbt.world import terrain
from craftbt.world.body import FACE_OFFSETS, BlockPos, Face
from craftbt.world.terrain import solid_in

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Neighbour search order for a reference block: below first (the common case), then the sides, then above.
REFERENCE_ORDER: tuple[Face, ...] = (Face.DOWN, Face.NORTH, Face.SOUTH, Face.WEST, Face.EAST, Face.UP)

OPPOSITE: dict[Face, Face] = {
    Face.UP: Face.DOWN,
    Face.DOWN: Face.UP,
    Face.NORTH: Face.SOUTH,
    Face.SOUTH: Face.NORTH,
    Face.WEST: Face.EAST,
    Face.EAST: Face.WEST,
}


def neighbour(pos: BlockPos, direction: Face) -> BlockPos:
    dx, dy, dz = FACE_OFFSETS[direction]
    return pos.offset(dx, dy, dz)


def can_place_against(ctx: CapabilityContext, name: str) -> bool:
    """A block a new block can be placed against: a full collision box (not air, fluid, plant or torch)."""
    if is_replaceable(name):
        return False
    md = registry_data(ctx)
    return md.has_block(name) and md.block(name).solid


def reference_for(
    ctx: CapabilityContext, pos: BlockPos, directions: tuple[Face, ...] = REFERENCE_ORDER
) -> tuple[BlockPos, Face] | None:
    """A ``(reference block, face of it)`` to place into ``pos`` against, or None.

    ``directions`` are where to look from ``pos``: the reference is the
    neighbour that way and the face is the one pointing back at ``pos``.
    """
    for direction in directions:
        ref = neighbour(pos, direction)
        if can_place_against(ctx, ctx.body.block_at(ref).name):
            return ref, OPPOSITE[direction]
    return None


#: Half the player's hitbox width and its height (vanilla: 0.6 x 1.8).
HALF_WIDTH = 0.3
HEIGHT = 1.8


def bot_cells(ctx: CapabilityContext) -> set[BlockPos]:
    """Every cell the bot's hitbox overlaps (up to 2x3x2 when it stands near a corner)."""
    p = ctx.body.position()
    xs = range(math.floor(p.x - HALF_WIDTH + 1e-6), math.floor(p.x + HALF_WIDTH - 1e-6) + 1)
    ys = range(math.floor(p.y + 1e-6), math.floor(p.y + HEIGHT - 1e-6) + 1)
    zs = range(math.floor(p.z - HALF_WIDTH + 1e-6), math.floor(p.z + HALF_WIDTH - 1e-6) + 1)
    return {BlockPos(x, y, z) for x in xs for y in ys for z in zs}


def standable(ctx: CapabilityContext, feet: BlockPos) -> bool:
    """A player can stand at ``feet`` safely (:func:`craftbt.world.terrain.standable`)."""
    return terrain.standable(body_reader(ctx), solid_in(registry_data(ctx)), feet)


def step_aside(ctx: CapabilityContext, target: BlockPos, avoid: set[BlockPos]) -> Step:
    """Move off ``avoid`` cells to a standable cell that keeps ``target`` in reach; no-op if not on them.

    Candidate cells keep a margin from ``avoid``: the hitbox is centred in its cell, so a cell
    next to an avoided one is clear of it.
    """
    if not bot_cells(ctx) & avoid:
        return None
    here = ctx.body.position()
    feet = here.block()
    candidates: list[tuple[float, BlockPos]] = []
    for dy in (0, -1, 1):
        for dx in range(-2, 3):
            for dz in range(-2, 3):
                cell = feet.offset(dx, dy, dz)
                if cell in avoid or cell.offset(dy=1) in avoid or (dx == 0 and dz == 0):
                    continue
                eye_to_target = ((cell.x + 0.5 - target.x - 0.5) ** 2 + (cell.y + EYE_HEIGHT - target.y - 0.5) ** 2
                                 + (cell.z + 0.5 - target.z - 0.5) ** 2) ** 0.5
                if eye_to_target > REACH or not standable(ctx, cell):
                    continue
                candidates.append((cell.distance_to(here), cell))
    if not candidates:
        return ActionResult.failure("occupied:self", f"the bot stands in {tuple(target)} and has nowhere to step")
    candidates.sort()
    cell = candidates[0][1]
    failure = yield from perform(lambda: ctx.body.goto(cell, tolerance=0.5))
    if failure is not None:
        return failure
    if bot_cells(ctx) & avoid:
        return ActionResult.failure("occupied:self", f"still standing in {tuple(target)} after stepping aside")
    return None


def place_step(
    ctx: CapabilityContext,
    pos: BlockPos,
    item: str,
    *,
    directions: tuple[Face, ...] = REFERENCE_ORDER,
    keep_clear: frozenset[BlockPos] = frozenset(),
) -> Step:
    """Place ``item`` into the free cell ``pos``.

    Failure codes: ``occupied:<block>`` (the cell holds a block that is not
    replaceable), ``precond_missing:item:<item>``, ``no_reference_block``,
    ``out_of_reach``, ``occupied:self``, or the body's own code.
    ``keep_clear`` are extra cells the bot must not stand in (a door's upper half).
    """
    current = ctx.body.block_at(pos).name
    if not is_replaceable(current):
        return ActionResult.failure(f"occupied:{current}", f"{tuple(pos)} holds {current}")
    if count_item(ctx, item) < 1:
        return ActionResult.failure(f"precond_missing:item:{item}", f"no {item} in the inventory")
    reference = reference_for(ctx, pos, directions)
    if reference is None:
        return ActionResult.failure("no_reference_block", f"no solid neighbour to place {item} at {tuple(pos)} against")
    against, face = reference
    # Reach is measured to the reference block (the face clicked), as on a server.
    failure = yield from approach(ctx, against)
    if failure is not None:
        return failure
    failure = yield from step_aside(ctx, against, {pos, *keep_clear})
    if failure is not None:
        return failure
    failure = yield from equip(ctx, item)
    if failure is not None:
        return failure
    return (yield from perform(lambda: ctx.body.place(item, against, face)))


def best_tool(ctx: CapabilityContext, block: str) -> str | None:
    """The inventory item that harvests ``block`` fastest, or None when the hand does as well."""
    md = registry_data(ctx)
    if not md.has_block(block):
        return None
    available = sorted({s.name for s in ctx.body.inventory() if md.has_item(s.name)})
    return md.best_tool(block, available)


def dig_step(ctx: CapabilityContext, pos: BlockPos) -> Step:
    """Break the block at ``pos`` (no-op on air) with the best tool in the inventory.

    Failure codes: ``not_diggable:<block>`` (unbreakable, or a fluid),
    ``out_of_reach``, or the body's own code.
    """
    name = ctx.body.block_at(pos).name
    if is_air(name):
        return None
    md = registry_data(ctx)
    if name in ("water", "lava") or not md.has_block(name) or not md.block(name).breakable:
        return ActionResult.failure(f"not_diggable:{name}", f"{name} at {tuple(pos)} cannot be broken")
    failure = yield from approach(ctx, pos)
    if failure is not None:
        return failure
    return (yield from equip_and_dig(ctx, pos, best_tool(ctx, name)))


def equip_and_dig(ctx: CapabilityContext, pos: BlockPos, tool: str | None) -> Step:
    """Hold ``tool`` (when one is given), break the block at ``pos`` and wait for it; a failure or None."""
    if tool is not None:
        failure = yield from equip(ctx, tool)
        if failure is not None:
            return failure
    return (yield from perform(lambda: ctx.body.dig(pos)))


def use_on_step(ctx: CapabilityContext, pos: BlockPos, item: str | None = None) -> Step:
    """Walk within reach of ``pos`` and use ``item`` on it, or activate it with whatever is held."""
    if not within_reach(ctx, pos):
        failure = yield from approach(ctx, pos)
        if failure is not None:
            return failure
    if item is not None:
        failure = yield from equip(ctx, item)
        if failure is not None:
            return failure
    return (yield from perform(lambda: ctx.body.use_item(item, pos) if item is not None
                               else ctx.body.activate_block(pos)))
