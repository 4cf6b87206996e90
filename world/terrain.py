"""Terrain: where a player can stand, what counts as a floor, which blocks hurt, which are liquid.

The one statement of these rules. Leaves (``move_to``'s guard, a placement's step aside), the build
(anchor reachability, the build's standing cells), CraftScript (``can_stand``, ``safe_step_up`` and
``safe_step_down``) and exploration read blocks by name and ask here. The simulator's physics keeps the
same rule over its per-state flags (:func:`craftbt.world.sim.flags.standable`: solid is a full collision
box, and lava the one hazard it knows); a test holds the two to the same answers.

A rule takes the reader it needs (``read(pos) -> block name``, None where the body cannot see) and the
solidity of a name (:func:`solid_in` for the registry data of a game version), so each caller keeps its
own cache or memo and nothing here touches a body.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.world.mcdata import McData

#: Blocks a player must not stand in or on: they burn, cut, slow to a trap or drop the player through. A safety
#: policy, not registry data.
HAZARDS = frozenset(
    {"lava", "fire", "soul_fire", "magma_block", "cactus", "sweet_berry_bush", "powder_snow", "campfire",
     "soul_campfire", "wither_rose", "pointed_dripstone"}
)
#: The hazards that burn: a navigation envelope keeps the bot a block away from them, not only off them (fire
#: spreads, lava flows).
BURNING = frozenset({"lava", "fire", "soul_fire", "magma_block", "campfire", "soul_campfire"}) & HAZARDS
#: Liquid cells: nobody stands in one, nothing is placed into one (it would stand in the liquid), and a digger
#: opens no way into one nor next to one (it would flow in). A bubble column is water with a current.
LIQUIDS = frozenset({"water", "lava", "bubble_column"})
#: The six faces and the cell itself: what "next to" means for a liquid.
NEIGHBOURHOOD = ((0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))

Read = Callable[[BlockPos], str | None]
Solid = Callable[[str], bool]


class Footing(StrEnum):
    """Why a player cannot stand in a cell (its feet there, its head in the cell above)."""

    HAZARD = "hazard"  # a hazard in the feet, head or floor cell, or a liquid at the feet / lava at the head
    BLOCKED = "blocked"  # the feet or head cell is solid
    NO_FLOOR = "no_floor"  # nothing solid under the feet
    UNSEEN = "unseen"  # a cell the body cannot read


def is_solid(md: McData, name: str) -> bool:
    """A full collision box in the registry data ``md`` (stand on it, place against it); unknown names are not."""
    return md.has_block(name) and md.block(name).solid


def solid_in(md: McData) -> Solid:
    """:func:`is_solid` bound to ``md``: the ``solid`` argument of the rules below."""

    def solid(name: str) -> bool:
        return md.has_block(name) and md.block(name).solid

    return solid


def footing(read: Read, solid: Solid, pos: BlockPos) -> Footing | None:
    """None when a player can stand at ``pos`` safely, else why not."""
    feet, head, ground = read(pos), read(pos.offset(dy=1)), read(pos.offset(dy=-1))
    if feet is None or head is None or ground is None:
        return Footing.UNSEEN
    if feet in HAZARDS or head in HAZARDS or ground in HAZARDS or feet in LIQUIDS or head == "lava":
        return Footing.HAZARD
    if solid(feet) or solid(head):
        return Footing.BLOCKED
    if not solid(ground):
        return Footing.NO_FLOOR
    return None


def standable(read: Read, solid: Solid, pos: BlockPos) -> bool:
    """A player can stand at ``pos`` safely: open feet and head cells, a solid floor, no hazard, dry feet."""
    return footing(read, solid, pos) is None


def safe_floor(name: str, solid: Solid) -> bool:
    """A block a player may put its feet on: solid and not a hazard."""
    return solid(name) and name not in HAZARDS


def open_cell(name: str, solid: Solid) -> bool:
    """A cell a player's body may pass through: not solid, not a hazard, not a liquid."""
    return not solid(name) and name not in HAZARDS and name not in LIQUIDS


def liquid_near(read: Read, cell: BlockPos) -> bool:
    """A liquid in or next to ``cell``: opening it would let the liquid in."""
    return any(read(cell.offset(dx, dy, dz)) in LIQUIDS for dx, dy, dz in NEIGHBOURHOOD)


def floor_within(read: Read, solid: Solid, cell: BlockPos, depth: int = 3) -> bool:
    """Something solid at most ``depth`` blocks under ``cell`` and no liquid on the way down."""
    for dy in range(1, depth + 1):
        name = read(cell.offset(dy=-dy))
        if name is None or name in LIQUIDS:
            return False
        if solid(name):
            return True
    return False


@dataclass(frozen=True)
class StairStep:
    """Step ``k`` of a staircase dug up out of a hole: where the feet stand on it, the cells opened before the
    bot steps onto it (the jump headroom over the previous step's head, then the step's feet and head cells),
    and the floor it stands on (solid, or the stair does not hold)."""

    at: BlockPos
    cells: tuple[BlockPos, BlockPos, BlockPos]
    floor: BlockPos


def stair_up_step(feet: BlockPos, side: tuple[int, int], k: int) -> StairStep:
    """Step ``k`` (from 1) of the stair up from ``feet`` towards ``side`` (dx, dz): it stands at
    ``feet + (k*dx, k, k*dz)``, one block out and one up from the step before. Every way out of a hole digs
    this geometry: exploration's climb, the build's way back to its site, the night shelter's exit."""
    dx, dz = side
    at = feet.offset(k * dx, k, k * dz)
    before = feet.offset((k - 1) * dx, k - 1, (k - 1) * dz)
    return StairStep(at=at, cells=(before.offset(dy=2), at, at.offset(dy=1)), floor=at.offset(dy=-1))
