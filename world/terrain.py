"""Terrain: where a player can stand, what counts as a floor, which blocks hurt, which are liquid, and the way
out of a hole.

The one statement of these rules. Leaves (``move_to``'s guard, a placement's step aside), the build
(anchor reachability, the build's standing cells), CraftScript (``can_stand``, ``safe_step_up`` and
``safe_step_down``) and exploration read blocks by name and ask here. The simulator's physics keeps the
same rule over its per-state flags (:func:`craftbt.world.sim.flags.standable`: solid is a full collision
box, and lava the one hazard it knows); a test holds the two to the same answers.

The way out of a hole is :func:`plan_stair` (which side, the ordered cells to open, each step's floor) and
:func:`out_of_hole` (when the bot counts as out); exploration's climb, the build's way back to its site, the
night shelter's exit and CraftScript's ``stair_up_step`` all ask it, each with its own constraints
(:class:`StairRules`).

Where the bot is, once: :func:`underground` (ground over the head: a shaft, a cave), :func:`in_a_pit` (walled
higher than a step around), :func:`walled_in` (no step out), :func:`enclosed` (a roofed pit a mob cannot enter)
and :func:`open_sky`, each over the one roof scan (:func:`roof`) and the one notion of ground
(:func:`ground`: solid and no tree's). The night routines, the night watch, the autonomy loop and
exploration ask these.

A rule takes the reader it needs (``read(pos) -> block name``, None where the body cannot see:
:func:`body_reader` adapts a body) and the solidity of a name (:func:`solid_in` for the registry data of a
game version), so each caller keeps its own cache or memo and no rule touches a body.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from typing import TYPE_CHECKING

from craftbt.world.body import TICKS_PER_SECOND, BlockPos, Body, BodyError, BodyErrorCode

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

#: A tree's blocks: on the surface they roof nobody in (the sky counts as open through a canopy) and they are no
#: wall of a pit.
FOLIAGE = ("_leaves", "_log", "_wood")
#: The four sides a stair out of a hole can go, in the fixed order a caller with no preference tries them.
CARDINALS = ((1, 0), (-1, 0), (0, 1), (0, -1))
#: The eight directions around a column.
AROUND = tuple((dx, dz) for dx in (-1, 0, 1) for dz in (-1, 0, 1) if dx or dz)
#: Cells over the head read for the open sky: a block of ground among them is a roof.
SKY_SPAN = 24
#: Cells over the head the roof scan reads for "underground", and how many blocks of ground among them make the
#: bot underground: a mine shaft or a cave, not a pit under its one-block roof nor an overhang.
ROOF_SPAN, UNDERGROUND_ROCK = 64, 4
#: Of the eight directions around the feet, this many walled two blocks up (higher than a step) make a pit...
PIT_WALLS = 6
#: ...where a wall counts this many columns out: a quarry a planner dug, wider than the bot, is as much a pit as
#: a shaft one block wide (natural seed 5 spent a day in a 3x3 one).
PIT_RING = 3

Read = Callable[[BlockPos], str | None]
Solid = Callable[[str], bool]
Side = tuple[int, int]

#: Walking, in game ticks, as vanilla moves a player (4.317 blocks/s) and the embedded world's pathfinder costs it:
#: a block straight on, one diagonally, the extra for a step up and for each block fallen, the highest safe fall.
WALK_TICKS = TICKS_PER_SECOND / 4.317
DIAGONAL_TICKS = WALK_TICKS * math.sqrt(2)
JUMP_TICKS, FALL_TICKS, MAX_DROP = 2.0, 1.0, 3


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


def foliage(name: str) -> bool:
    """A tree's leaves, trunk or wood."""
    return name.endswith(FOLIAGE)


def ground(name: str | None, solid: Solid) -> bool:
    """A block of ground: solid and no tree's. What a roof over the bot, a pit's wall and the floor of a surface
    cell are made of (a cell the body cannot see is none)."""
    return name is not None and solid(name) and not foliage(name)


def on_ground(read: Read, solid: Solid, pos: BlockPos) -> bool:
    """A player can stand at ``pos`` (:func:`standable`) on ground (:func:`ground`: not on a tree's canopy or
    trunk), its head dry: a surface cell to walk to, dig a night pit from or start a stair from."""
    head = read(pos.offset(dy=1))
    return standable(read, solid, pos) and ground(read(pos.offset(dy=-1)), solid) and head not in LIQUIDS


def roof(read: Read, solid: Solid, feet: BlockPos, span: int = ROOF_SPAN) -> Iterator[BlockPos]:
    """The one roof scan: the cells of ground (:func:`ground`) among the ``span`` cells over the head, nearest
    first."""
    for dy in range(2, span + 2):
        cell = feet.offset(dy=dy)
        if ground(read(cell), solid):
            yield cell


def open_sky(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """No roof over the head: no block of ground among the SKY_SPAN cells above it (a tree's canopy roofs nobody
    in, and a cell the body cannot see roofs nothing)."""
    return next(roof(read, solid, feet, SKY_SPAN), None) is None


def liquid_overhead(read: Read, feet: BlockPos, span: int = SKY_SPAN) -> bool:
    """A liquid in the column over the head within ``span``: the bed of a lake or the sea, which no stair up can
    open a way through (each step would let the water in). The sky over it is no way out."""
    return any(read(feet.offset(dy=dy)) in LIQUIDS for dy in range(2, span + 1))


def toward_dry_ground(read: Read, feet: BlockPos, sides: Sequence[Side], reach: int) -> Side | None:
    """The side whose nearest column with no liquid over it (:func:`liquid_overhead`), at the feet's level, is
    nearest, within ``reach`` blocks; ties go to the caller's order. None when every side is under water that far.
    A bot under a lake tunnels this way before it climbs (starter seed 18: a climb out of a mining tunnel came up
    under a lake's bed, and no stair up held)."""
    best: tuple[int, int, Side] | None = None
    for order, side in enumerate(sides):
        for distance in range(1, reach + 1):
            if best is not None and distance >= best[0]:
                break
            if not liquid_overhead(read, feet.offset(side[0] * distance, 0, side[1] * distance)):
                best = (distance, order, side)
                break
    return best[2] if best is not None else None


def underground(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """At least UNDERGROUND_ROCK blocks of ground over the head (within ROOF_SPAN): a mine shaft or a cave a
    planner left the bot in, not a pit under its one-block roof, an overhang or a canopy."""
    return len(list(islice(roof(read, solid, feet), UNDERGROUND_ROCK))) >= UNDERGROUND_ROCK


def in_a_pit(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """Walled higher than a step on nearly every side, sky or not: in PIT_WALLS of the eight directions, a column
    within PIT_RING blocks holds ground two blocks over the feet. The bottom of an open shaft (natural seed 15:
    a climb out through sand stopped four blocks under the beach, and no path led from there) or of a quarry
    wider than the bot (natural seed 5)."""
    walls = sum(any(ground(read(feet.offset(r * dx, 2, r * dz)), solid) for r in range(1, PIT_RING + 1))
                for dx, dz in AROUND)
    return walls >= PIT_WALLS


def can_step_out(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """A neighbouring cell, at the feet's level or (with the headroom over the head to jump) one up, that a player
    can stand in with no liquid in or next to it."""
    headroom = read(feet.offset(dy=2))
    jump = headroom is not None and open_cell(headroom, solid)
    return any(standable(read, solid, cell) and not liquid_near(read, cell)
               for dx, dz in CARDINALS
               for cell in ((feet.offset(dx, 0, dz), feet.offset(dx, 1, dz)) if jump else (feet.offset(dx, 0, dz),)))


def walled_in(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """No step out: every side is blocked at the feet or head, or has no floor, so digging is the way out."""
    return not can_step_out(read, solid, feet)


def enclosed(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """A solid roof within two blocks over the head and solid walls at the feet and head on the four sides: no mob
    walks or drops in (leaves and logs keep mobs out as well as stone; a cell the body cannot see does not)."""

    def shut(cell: BlockPos) -> bool:
        name = read(cell)
        return name is not None and solid(name)

    roofed = shut(feet.offset(dy=2)) or shut(feet.offset(dy=3))
    return roofed and all(shut(feet.offset(dx, dy, dz)) for dx, dz in CARDINALS for dy in (0, 1))


def out_of_hole(read: Read, solid: Solid, feet: BlockPos) -> bool:
    """The one rule for "out of the hole": open sky over the head, not walled in, and a neighbour to step out
    onto. Exploration's climb stops here, and a stair's step counts as out when this holds where it stands and
    its own feet and head cells were open before any digging (:func:`plan_stair`)."""
    return open_sky(read, solid, feet) and not in_a_pit(read, solid, feet) and can_step_out(read, solid, feet)


def body_reader(body: Body, *, snapshot: bool = False) -> Read:
    """A body's block names as the rules here read them: None for a cell the body cannot see (not loaded).

    ``snapshot``: each cell is read once and kept, for one decision taken before the bot acts (not across
    actions: the world changes). A body that hands out a chunk's cells in one call (the real server's
    ``chunk_cells``) is then read a 16-block slab at a time: a fight's escape looks at ~600 cells, and one bridge
    call a cell took 0.5-0.9 s on flying-squid, half a creeper's fuse."""

    def read(pos: BlockPos) -> str | None:
        try:
            return body.block_at(pos).name
        except BodyError as err:
            if err.code is not BodyErrorCode.OUT_OF_REACH:
                raise
            return None

    if not snapshot:
        return read
    chunk_cells = getattr(body, "chunk_cells", None)
    cells: dict[BlockPos, str | None] = {}
    slabs: dict[tuple[int, int, int], list[str] | None] = {}

    def slab_read(pos: BlockPos) -> str | None:
        key = (pos.x >> 4, pos.z >> 4, pos.y >> 4)
        if key not in slabs:
            got = chunk_cells(key[0], key[1], key[2] * 16, key[2] * 16 + 16)  # type: ignore[misc]
            slabs[key] = None if got is None else [name for name, _ in got]
        slab = slabs[key]
        if slab is None:
            return None  # the column is not loaded
        return slab[((pos.x & 15) * 16 + (pos.z & 15)) * 16 + (pos.y & 15)]  # chunk_cells' order: x, z, then y

    def remembered(pos: BlockPos) -> str | None:
        if pos not in cells:
            cells[pos] = read(pos) if chunk_cells is None else slab_read(pos)
        return cells[pos]

    return remembered


def _never(_: BlockPos) -> bool:
    return False


def _any_block(_: str) -> bool:
    return True


def _anywhere(_: BlockPos) -> bool:
    return True


@dataclass(frozen=True)
class StairRules:
    """A caller's constraints on the way out of a hole; the geometry, the floor and the "out" rule are not
    among them.

    ``sides`` are tried in the caller's order of preference (towards the departure point, away from the
    hostiles, the way the bot faces); ``avoid`` cells are never opened or stood in (a build site, outside the
    geofence, too far for a search); ``spare`` cells are opened only when no side without them holds (a farm);
    ``breakable`` names may be dug, and only in ``may_dig`` cells (the others must be open already:
    CraftScript's ``safe_step_up`` digs the step's head cell and no other). A stair stops at the first step
    out of the hole (:func:`out_of_hole`), no earlier than ``min_steps`` (a way back climbs at least to the
    level it left) and no later than ``max_steps``; when no side reaches out, a side that holds all
    ``max_steps`` steps is a stage of the way out if ``partial`` (dig again from its top). ``shortest``: of
    the sides out, the fewest steps wins over the order of preference. Unless ``on_trees``, a stair does not end
    standing on a tree's leaves or logs: such a step is not out, and a stage ending on one is no stage.
    """

    sides: Sequence[Side] = CARDINALS
    max_steps: int = 8
    min_steps: int = 1
    avoid: Callable[[BlockPos], bool] = _never
    spare: Callable[[BlockPos], bool] = _never
    breakable: Callable[[str], bool] = _any_block
    may_dig: Callable[[BlockPos], bool] = _anywhere
    partial: bool = True
    shortest: bool = False
    on_trees: bool = True


@dataclass(frozen=True)
class Stair:
    """A way out of a hole: the side it goes, its steps in order, and whether the last one is out."""

    side: Side
    steps: tuple[StairStep, ...]
    out: bool
    #: a cell of it is one the caller would rather spare (StairRules.spare)
    spoils: bool = False

    @property
    def top(self) -> BlockPos:
        """Where the feet stand on the last step."""
        return self.steps[-1].at

    def cells(self) -> list[BlockPos]:
        """Every cell the stair opens, in digging order (each step's before the bot steps onto it), once."""
        out: list[BlockPos] = []
        for step in self.steps:
            out += [c for c in step.cells if c not in out]
        return out


def step_holds(read: Read, solid: Solid, step: StairStep, rules: StairRules = StairRules()) -> bool:
    """The bot can dig ``step`` and stand on it: a safe floor under it (:func:`safe_floor`), and each of its
    cells open already (:func:`open_cell`) or breakable, none avoided, none with a liquid in or next to it (the
    liquid would flow in)."""
    floor = read(step.floor)
    if floor is None or not safe_floor(floor, solid):
        return False
    for cell in step.cells:
        name = read(cell)
        if name is None or rules.avoid(cell) or liquid_near(read, cell):
            return False
        if not open_cell(name, solid) and (name in HAZARDS or not rules.breakable(name) or not rules.may_dig(cell)):
            return False
    return True


def _surfaced(read: Read, solid: Solid, at: BlockPos) -> bool:
    """The step's feet and head cells were open before any digging, or a tree's (on the surface)."""
    names = (read(at), read(at.offset(dy=1)))
    return all(n is not None and (open_cell(n, solid) or foliage(n)) for n in names)


def stair_along(read: Read, solid: Solid, feet: BlockPos, side: Side, rules: StairRules = StairRules()) -> Stair:
    """The stair up from ``feet`` towards ``side``: its steps while they hold, up to the first one out of the
    hole (from ``min_steps`` on) or ``max_steps``."""
    steps: list[StairStep] = []
    spoils = False
    opened: set[BlockPos] = set()

    def dug(pos: BlockPos) -> str | None:
        # "out" is judged as the stair leaves the ground: the cell over the step below, open before any digging,
        # is no way out once that step's head is dug from under it (natural seed 29, bread: a stair through an
        # old trench ended two blocks under the surface, and no path led from there to the wheat)
        return "air" if pos in opened else read(pos)

    for k in range(1, rules.max_steps + 1):
        step = stair_up_step(feet, side, k)
        if not step_holds(read, solid, step, rules):
            break
        steps.append(step)
        opened.update(step.cells)
        spoils = spoils or any(rules.spare(c) for c in step.cells)
        if k >= rules.min_steps and _surfaced(read, solid, step.at) and out_of_hole(dug, solid, step.at) \
                and (rules.on_trees or ground(read(step.floor), solid)):
            return Stair(side, tuple(steps), out=True, spoils=spoils)
    return Stair(side, tuple(steps), out=False, spoils=spoils)


def plan_stair(read: Read, solid: Solid, feet: BlockPos, rules: StairRules = StairRules()) -> Stair | None:
    """The way out of a hole from ``feet``: of the sides in ``rules.sides`` whose stair holds to the surface (or,
    if ``rules.partial``, for all ``max_steps`` steps), the one out, sparing the ``spare`` cells, shortest (if
    ``rules.shortest``), first in the caller's order; None when no side holds."""
    found: list[tuple[tuple[bool, bool, int, int], Stair]] = []
    for order, side in enumerate(rules.sides):  # order: the caller's preference, the last tie-break
        stair = stair_along(read, solid, feet, side, rules)
        stage = rules.partial and len(stair.steps) == rules.max_steps \
            and (rules.on_trees or ground(read(stair.top.offset(dy=-1)), solid))
        if stair.out or stage:
            rank = (not stair.out, stair.spoils, len(stair.steps) if rules.shortest else 0, order)
            found.append((rank, stair))
    return min(found, key=lambda ranked: ranked[0])[1] if found else None


def walk_ticks(read: Read, solid: Solid, start: BlockPos, radius: int,
               until: Callable[[BlockPos], bool] | None = None) -> dict[BlockPos, float]:
    """Game ticks to walk from ``start`` to every standable cell at most ``radius`` blocks away across (x and z),
    by the moves a player makes: a step to any of the eight neighbours at the same height (a diagonal one with both
    corners open), a step up one block, a drop of at most :data:`MAX_DROP`. Digs nothing.

    With ``until``, the walk stops at the first cell it holds (the nearest in ticks), which is then the last one
    put in the answer: only the cells nearer than that are read. Each cell is asked several times (as a floor, a
    corner, headroom): give a remembering reader (``body_reader(body, snapshot=True)``) over a body that reads a
    block a call.

    A fight's escape reads it (which cell is out of a creeper's fuse soonest); the walk the body then makes is its
    own pathfinder's, by the same costs."""

    def free(pos: BlockPos) -> bool:
        name = read(pos)
        return name is not None and not solid(name) and name not in HAZARDS and name not in LIQUIDS

    def stand(pos: BlockPos) -> bool:
        return standable(read, solid, pos)

    best: dict[BlockPos, float] = {start: 0.0}
    heap: list[tuple[float, int, int, int]] = [(0.0, start.x, start.y, start.z)]
    done: set[BlockPos] = set()
    while heap:
        cost, x, y, z = heapq.heappop(heap)
        here = BlockPos(x, y, z)
        if here in done:
            continue
        done.add(here)
        if until is not None and until(here):
            return {**{c: best[c] for c in done if c != here}, here: best[here]}
        moves: list[tuple[BlockPos, float]] = []
        for dx, dz in AROUND:
            if abs(x + dx - start.x) > radius or abs(z + dz - start.z) > radius:
                continue
            nxt = BlockPos(x + dx, y, z + dz)
            if dx and dz:
                corners = (here.offset(dx=dx), here.offset(dz=dz))
                if stand(nxt) and all(free(c) and free(c.offset(dy=1)) for c in corners):
                    moves.append((nxt, DIAGONAL_TICKS))
            elif stand(nxt):
                moves.append((nxt, WALK_TICKS))
            elif free(nxt) and free(nxt.offset(dy=1)):
                for drop in range(1, MAX_DROP + 1):
                    low = nxt.offset(dy=-drop)
                    if stand(low):
                        moves.append((low, WALK_TICKS + FALL_TICKS * drop))
                        break
                    if not free(low):
                        break
            elif stand(nxt.offset(dy=1)) and free(here.offset(dy=2)):
                moves.append((nxt.offset(dy=1), WALK_TICKS + JUMP_TICKS))
        for nxt, step in moves:
            if nxt not in done and cost + step < best.get(nxt, math.inf):
                best[nxt] = cost + step
                heapq.heappush(heap, (cost + step, nxt.x, nxt.y, nxt.z))
    return best
