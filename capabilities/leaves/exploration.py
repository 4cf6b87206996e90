"""explore: bring a block, an ore or an animal into view when none is near (surface spiral or mining).

Two strategies, bounded in game time and in distance from where the search began:

- surface: walk an outward spiral of waypoints (rings 16 blocks apart, eight per ring), looking
  around at each; for trees, plants, sand, animals;
- mine: a staircase down to the ore's depth (``world.nature.MINING_Y``), then a square spiral of
  two-high tunnels (branch mining), looking at the walls after every block dug; for stone and ores.

Hazards: a block is never dug when lava or water touches it (the tunnel turns instead), a floor
over a drop of more than two blocks or over liquid is never stepped on, falling sand and gravel
is dug again until the cell stays open, and torches carried are placed every few blocks of tunnel.
What the search saw is remembered for the rest of the run (``ctx.memory``), and a failure says
what was searched for, where and for how long.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from craftbt.capabilities.leaves.blocks import MIN_DY, material_plan
from craftbt.capabilities.leaves.blockwork import best_tool, equip_and_dig
from craftbt.capabilities.leaves.common import (
    EYE_HEIGHT,
    LIQUIDS,
    REACH,
    Step,
    StrictArgs,
    act,
    approach,
    body_reader,
    count_item,
    failure_from,
    inside_fence,
    inventory_totals,
    is_solid,
    liquid_near,
    perform,
    registry_data,
    sees,
    surplus_filler,
    within_reach,
)
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    Receipt,
    RunnerGen,
    VerificationResult,
)
from craftbt.world import nature, terrain
from craftbt.world.body import ActionHandle, ActionStatus, BlockPos, BodyError, Face, Observation, Position
from craftbt.world.terrain import solid_in

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Blocks in view are at most this far (and, like acquire_material's search, at most MIN_DY below the feet):
#: underground the walls of the tunnel, on the surface well inside acquire_material's planned radius of 32.
LOOK_RADIUS = {"mine": 6, "surface": 24}
RING_STEP = 16
RING_POINTS = 8
#: Beyond the start look: waypoints at most this far apart along a ring, and rings this far apart, so that views of
#: LOOK_RADIUS["surface"] overlap (a gap g leaves a band sqrt(24**2 - (g/2)**2) = 17.9 blocks either side of the
#: ring in view).
FAR_WAYPOINT_GAP = 32
FAR_RING_STEP = 35
#: An animal is in view this far (``in_view``). Its search spaces rings by this and a ring's waypoints at most
#: ENTITY_WAYPOINT_GAP apart, so neighbouring views overlap: herds stand in a few chunks 60-120 blocks apart
#: (natural seeds 24, 25, 27: the nearest cow 110-117 blocks from spawn, beyond rings of 16 up to 48).
ENTITY_VIEW = 32
ENTITY_WAYPOINT_GAP = 40
#: Memory keys: each search's spiral centre, and the places it looked from, by target. A search re-dispatched
#: after a safety preemption goes on where it was: a creeper that followed the bot all day (natural seed 25)
#: had every resumed search walk the same first ring again.
ORIGIN_KEY, LOOKED_KEY = "explore_origin", "explore_looked"
#: A waypoint this close to a place already looked from is skipped.
LOOKED_NEAR = 8
AIR = frozenset({"air", "cave_air", "void_air"})
#: At the start, anything acquire_material (radius 32, at most 2 below the feet) can reach counts as in view,
#: and a tree a survey saw up to 48 blocks off is walked to.
START_RADIUS = {"mine": 30, "surface": 48}
#: Falling blocks re-fill a dug cell; give up on a cell after this many digs.
MAX_REDIGS = 8
TORCH_EVERY = 8
#: Steps down before the staircase turns right (a square spiral staircase 8 blocks across).
STAIR_FLIGHT = 8
MEMORY_KEY = "explore_seen"
INVENTORY_SLOTS = 36
#: Toss filler when fewer slots than this are free.
FREE_SLOTS_KEPT = 6
CARDINALS = ((1, 0), (0, 1), (-1, 0), (0, -1))
#: Blocks in view tried in turn (nearest first) before a surface search looks elsewhere: a tree's top logs
#: or a log on a cliff are seen but not reached, and the next one in view usually is.
REACH_TRIES = 6
#: Failures a search stops on at once (the body or the run ended the walk, not the terrain).
STOP_CODES = frozenset({"died", "cancelled", "preempted", "body_disconnected"})
#: A mining search this far below its ore's commonest depth climbs there before it tunnels.
CLIMB_TO_DEPTH_MARGIN = 12
#: Blocks a climb out of a cave walks across its open floor before it cuts stairs wherever it stands.
CLIMB_WALK_STEPS = 32
#: Blocks a climb under a lake's bed tunnels towards ground with no water over it before it gives up.
CLIMB_TUNNEL_STEPS = 24
#: Leaves broken this far around a bot that no waypoint has a path from (two layers of a canopy).
BREAK_OUT_RADIUS = 2
PICKAXES = ("netherite_pickaxe", "diamond_pickaxe", "iron_pickaxe", "stone_pickaxe", "golden_pickaxe",
            "wooden_pickaxe")


#: A runner step that always ends in a result (success or the failure).
Attempt = Generator[ActionHandle | None, ActionHandle | None, ActionResult]


class ExploreArgs(StrictArgs):
    target: str = Field(min_length=1, description="A block (iron_ore), an item mined from blocks (raw_iron, "
                        "oak_log, diamond) or an animal (cow)")
    count: int = Field(default=1, ge=1, le=16, description="Mining: go on until this many blocks of it were in "
                       "reach (the next step mines that many)")
    strategy: Literal["auto", "surface", "mine"] = Field(
        default="auto", description="auto: mine for ores and stone, walk the surface for the rest")
    depth: int | None = Field(default=None, ge=-58, le=120,
                              description="Feet y to tunnel at (mine); default: where the ore is commonest")
    max_distance: int = Field(default=48, ge=8, le=128, description="Horizontal blocks from the start")
    max_ticks: int = Field(default=12_000, ge=200, le=72_000, description="Game-time budget (20 ticks = 1 s)")


@dataclass
class Target:
    """What is looked for: block names or an entity name."""

    label: str
    blocks: frozenset[str] = frozenset()
    entity: str | None = None
    #: what digging one of ``blocks`` puts in the inventory (raw_gold for gold ore, cobblestone for stone)
    drops: frozenset[str] = frozenset()

    def strategy(self) -> str:
        if self.entity is not None:
            return "surface"
        kinds = {nature.where(b) for b in self.blocks}
        return "mine" if kinds & {"underground", "shallow_ore", "deep_ore"} and "surface" not in kinds else "surface"

    def depth(self) -> int | None:
        ys = [nature.MINING_Y[b] for b in self.blocks if b in nature.MINING_Y]
        return max(ys) if ys else None


def resolve_target(ctx: CapabilityContext, name: str) -> Target | None:
    md = registry_data(ctx)
    plan = material_plan(md, name)
    if plan.blocks:
        return Target(name, frozenset(plan.blocks), drops=frozenset(plan.expected))
    if md.has_entity(name):
        return Target(name, entity=md.entity(name).name)
    return None


@dataclass
class Search:
    """The running search: where it began, what it did, for the failure report and the memory."""

    target: Target
    start: BlockPos
    start_tick: int
    budget: int
    max_distance: int
    strategy: str = "surface"
    dug: int = 0
    walked_to: list[BlockPos] = field(default_factory=list)
    deepest: int = 10_000
    hazards: int = 0
    torches: int = 0
    tossed: int = 0
    found: BlockPos | None = None
    entity_id: int | None = None
    unreachable: set[BlockPos] = field(default_factory=set)
    #: blocks of the target that were within reach at some point (mining)
    reached: set[BlockPos] = field(default_factory=set)
    count: int = 1
    #: the run's geofence when the executor gives one (anything with ``contains(pos)``)
    fence: Any = None
    #: how many of the target's drops the inventory held when the search began
    held_at_start: int = 0

    def drops_held(self, ctx: CapabilityContext) -> int:
        """How many of the target's drops the inventory holds."""
        return sum(count_item(ctx, name) for name in self.target.drops)

    def dug_up(self, ctx: CapabilityContext) -> int:
        """Drops of the target the search's own tunnel put in the inventory (it digs through ore in its way)."""
        return max(0, self.drops_held(ctx) - self.held_at_start)

    def elapsed(self, ctx: CapabilityContext) -> int:
        return ctx.body.now_ticks() - self.start_tick

    def out_of_time(self, ctx: CapabilityContext) -> bool:
        return self.elapsed(ctx) >= self.budget

    def inside_fence(self, pos: BlockPos) -> bool:
        return inside_fence(self.fence, pos)

    def too_far(self, pos: BlockPos) -> bool:
        if not self.inside_fence(pos):
            return True
        return max(abs(pos.x - self.start.x), abs(pos.z - self.start.z)) > self.max_distance

    def report(self, ctx: CapabilityContext, strategy: str) -> dict[str, Any]:
        here = ctx.body.position().block()
        return {
            "target": self.target.label,
            "looked_for": sorted(self.target.blocks) or [self.target.entity],
            "strategy": strategy,
            "from": list(self.start),
            "to": list(here),
            "ticks": self.elapsed(ctx),
            "blocks_dug": self.dug,
            "waypoints": len(self.walked_to),
            "deepest_y": min(self.deepest, here.y),
            "hazards_avoided": self.hazards,
            "torches_placed": self.torches,
            "junk_tossed": self.tossed,
            "found": list(self.found) if self.found is not None else None,
            "dug_up": self.dug_up(ctx),
            "expected": sorted(self.target.drops),
        }


def in_view(ctx: CapabilityContext, search: Search, radius: int | None = None) -> bool:
    """Is the target in view now? Remembers every block of it seen, for this and later searches."""
    target = search.target
    if target.entity is not None:
        for e in ctx.body.entities(float(ENTITY_VIEW)):
            # an animal beyond the geofence is not one to walk to (the fence would stop the bot there)
            if e.name == target.entity and search.inside_fence(e.position.block()) \
                    and e.position.block() not in search.unreachable:  # one the goal run found no path to
                search.entity_id = e.id
                search.found = e.position.block()
                return True
        return False
    feet = ctx.body.position().block()
    radius = radius or LOOK_RADIUS[search.strategy]
    seen = [p for p in ctx.body.find_blocks(sorted(target.blocks), radius, max_count=64, exposed=True)
            if p.y - feet.y >= MIN_DY and p not in search.unreachable]
    if seen:
        memory: dict[str, list[BlockPos]] = ctx.memory.setdefault(MEMORY_KEY, {})
        remembered = memory.setdefault(target.label, [])
        remembered.extend(p for p in seen if p not in remembered)
    if search.strategy == "mine":
        # underground, a block across a cave gap is seen but not got: only those in reach count, and
        # the search goes on until as many were in reach as the next step will mine
        # (and no higher than the head: the drop of a block dug above stays in its hole, out of pickup range;
        # and one below the feet only in sight: a block open only to a cave under the floor drops into it)
        search.reached.update(p for p in seen if p not in search.reached and within_reach(ctx, p)
                              and p.y <= feet.y + 1 and p not in search.unreachable
                              and (p.y >= feet.y or sees(ctx, p)))
        # and what the tunnel itself dug of it counts too: the ore a tunnel cuts through is in the inventory
        # (natural seed 0's golden apple: nine raw gold were held while eight standing ore were still looked
        # for); the next step mines until the inventory holds the plan's total (acquire_material's ``hold``)
        here = ctx.body.position()
        still = sorted((p for p in search.reached
                        if p not in search.unreachable and ctx.body.block_at(p).name in target.blocks),
                       key=lambda p: p.distance_to(here))
        if len(still) + search.dug_up(ctx) < search.count:
            return False
        search.found = still[0] if still else None  # the nearest: the next step mines from here (None: all dug)
        return True
    if seen:
        here = ctx.body.position()
        search.found = min(seen, key=lambda p: p.distance_to(here))  # the nearest is walked to first
        return True
    return False


def _reach_found(ctx: CapabilityContext, search: Search, radius: int | None = None) -> Step:
    """Walk into reach of the block in view, or of the next one when it cannot be reached; success or None.

    Seen is not found: a resumed search (a safety preemption re-dispatches it) once reported a log it had
    no path to after 0 ms, and the next step failed ``no path to`` it.
    """
    for _ in range(REACH_TRIES):
        pos = search.found
        if pos is None:
            break
        moved = yield from approach(ctx, pos)
        if within_reach(ctx, pos):
            return ActionResult.success()
        if moved is not None and moved.error is not None and moved.error.code in STOP_CODES:
            return moved
        search.unreachable.add(pos)
        search.found = None
        if not in_view(ctx, search, radius):
            return None
        if search.found is None:  # the search's own digging brought all it was for
            return ActionResult.success()
    search.found = None
    return None


def _found_here(ctx: CapabilityContext, search: Search, radius: int | None = None) -> Step:
    """Success when the target is in view (a block: and was walked into reach); a failure to stop on; else None."""
    if not in_view(ctx, search, radius):
        return None
    if search.target.entity is not None or search.found is None:  # None: the search dug all it was for
        return ActionResult.success()
    return (yield from _reach_found(ctx, search, radius))


def _reach_seen(ctx: CapabilityContext, search: Search) -> Step:
    """Walk to one of the blocks in view (nearest first) until one is in reach; success or None."""
    feet = ctx.body.position().block()
    seen = [p for p in ctx.body.find_blocks(sorted(search.target.blocks), START_RADIUS["mine"], max_count=8,
                                            exposed=True) if p.y - feet.y >= MIN_DY and p not in search.unreachable]
    for pos in seen[:4]:
        if not within_reach(ctx, pos):
            try:
                handle = ctx.body.goto(pos, tolerance=3.0)
            except BodyError:
                search.unreachable.add(pos)
                continue
            yield from act(handle)
        feet_y = ctx.body.position().block().y
        if not within_reach(ctx, pos) or pos.y > feet_y + 1 or (pos.y < feet_y and not sees(ctx, pos)):
            search.unreachable.add(pos)
            continue
        search.reached.add(pos)
        if in_view(ctx, search):
            return ActionResult.success()
    return None


def _clear(ctx: CapabilityContext, cell: BlockPos, search: Search) -> Attempt:
    """Dig ``cell`` open (again while sand or gravel keeps falling in). A failure, or success."""
    md = registry_data(ctx)
    for _ in range(MAX_REDIGS):
        name = ctx.body.block_at(cell).name
        if name in AIR:
            return ActionResult.success()
        if name in LIQUIDS:
            return ActionResult.failure("hazard", f"{name} at {tuple(cell)}")
        if not md.has_block(name) or md.block(name).hardness is None:
            return ActionResult.failure("unbreakable", f"{name} at {tuple(cell)}")
        failure = yield from equip_and_dig(ctx, cell, best_tool(ctx, name))
        if failure is not None:
            return failure
        search.dug += 1
        yield None  # let a falling block settle before looking again
        yield None
    return ActionResult.failure("refilled", f"{tuple(cell)} kept filling with falling blocks")


def _step_to(ctx: CapabilityContext, cell: BlockPos, search: Search) -> Attempt:
    """Walk into the (open) neighbouring cell."""
    failure = yield from perform(lambda: ctx.body.goto(cell, tolerance=0.0))
    if failure is not None:
        return failure
    search.deepest = min(search.deepest, cell.y)
    return ActionResult.success()


def _floor_ok(ctx: CapabilityContext, cell: BlockPos) -> bool:
    """Something solid at most two blocks under ``cell``, and no liquid on the way."""
    return terrain.floor_within(body_reader(ctx), solid_in(registry_data(ctx)), cell, depth=3)


def _advance(ctx: CapabilityContext, search: Search, direction: tuple[int, int], down: bool) -> Attempt:
    """One block forward (and one down when ``down``), digging the cells on the way open."""
    feet = ctx.body.position().block()
    dx, dz = direction
    ahead = feet.offset(dx, 0, dz)
    nxt = ahead.offset(dy=-1) if down else ahead
    cells = [ahead.offset(dy=1), ahead] + ([nxt] if down else [])
    if search.too_far(nxt):
        return ActionResult.failure("too_far", "the search boundary")
    if any(liquid_near(ctx, c) for c in cells) or not _floor_ok(ctx, nxt):
        search.hazards += 1
        return ActionResult.failure("hazard", f"liquid or a drop ahead at {tuple(nxt)}")
    if any(c in search.unreachable for c in cells):
        # cells the run keeps out of reach are not dug through either (a build's own walls: a search for two
        # more cobblestone tunnelled through the hut it was fetching them for)
        return ActionResult.failure("kept", f"{tuple(nxt)} is kept out of reach")
    for cell in cells:
        result = yield from _clear(ctx, cell, search)
        if not result.ok:
            return result
    result = yield from _step_to(ctx, _landing(ctx, nxt), search)
    if result.ok:
        yield from _dump_junk(ctx, search, feet)
    return result


def _landing(ctx: CapabilityContext, cell: BlockPos) -> BlockPos:
    """Where a step into ``cell`` stands: the cell, or the first standable one under it within the drop
    :func:`_floor_ok` allowed (natural seed 0's crossbow: a tunnel under a lake towards the beach began over the
    shaft its own climb had come up, and the step into the open cell, which has no floor, found no path)."""
    read, solid = body_reader(ctx), solid_in(registry_data(ctx))
    return next((c for c in (cell, cell.offset(dy=-1), cell.offset(dy=-2)) if terrain.standable(read, solid, c)), cell)


def _dump_junk(ctx: CapabilityContext, search: Search, behind: BlockPos) -> Step:
    """Toss dug filler (:data:`~craftbt.capabilities.leaves.common.FILLER_KEPT`: a stack of cobblestone kept)
    when the inventory is nearly full, behind the player: hundreds of dug blocks would otherwise leave no slot
    for the ore the search is for."""
    if INVENTORY_SLOTS - len(ctx.body.inventory()) > FREE_SLOTS_KEPT:
        return None
    face = getattr(ctx.body, "face_towards", None)  # an optional body ability (the sim has it)
    if callable(face):
        face(behind.x + 0.5, behind.y + 0.5, behind.z + 0.5)
    surplus = surplus_filler(inventory_totals(ctx))
    for stack in ctx.body.inventory():
        # a stack a toss, as a player throws them (a vanilla item entity holds at most a stack)
        toss = min(stack.count, surplus.get(stack.name, 0))
        if toss <= 0:
            continue
        surplus[stack.name] -= toss
        try:
            handle = ctx.body.toss(stack.name, toss)
        except BodyError:
            continue
        yield from act(handle)
        search.tossed += toss
    return None


def _torch(ctx: CapabilityContext, search: Search) -> Step:
    if count_item(ctx, "torch") == 0:
        return None
    feet = ctx.body.position().block()
    floor = feet.offset(dy=-1)
    try:
        handle = ctx.body.place("torch", floor, Face.UP)
    except BodyError:
        return None
    failure = yield from act(handle)
    if failure is None:
        search.torches += 1
    return None


def _turn(direction: tuple[int, int], right: bool = True) -> tuple[int, int]:
    dx, dz = direction
    return (-dz, dx) if right else (dz, -dx)


def mine(ctx: CapabilityContext, search: Search, depth: int | None) -> Step:
    """Staircase down to ``depth`` (or until in view), then tunnel a square spiral (branch mining).

    A staircase blocked on every side (lava, water, a drop) tunnels sideways until it can go down again.
    Well below ``depth`` (an ore commonest higher up, sought from deep down), it climbs there first: a
    search for coal at y=-20 tunnelled 30 minutes where coal is rare (clock, GOAP, natural seed 17).
    """
    feet = ctx.body.position().block()
    if depth is not None and feet.y < depth - CLIMB_TO_DEPTH_MARGIN:
        climbed = yield from _climb(ctx, search, lambda: ctx.body.position().y < depth and not in_view(ctx, search))
        if climbed is not None and climbed.error is not None and climbed.error.code in STOP_CODES:
            return climbed
        feet = ctx.body.position().block()
    direction = CARDINALS[(feet.x * 31 + feet.z * 17) % 4]
    target_y = depth if depth is not None else feet.y - 48
    leg, walked, legs_done, blocked, flight = 4, 0, 0, 0, 0
    while not search.out_of_time(ctx):
        if in_view(ctx, search):
            if search.found is None or within_reach(ctx, search.found):
                return ActionResult.success()
            reached = yield from _reach_found(ctx, search)  # the blocks in reach were passed on the way
            if reached is not None:
                return reached
        down = ctx.body.position().block().y > target_y and blocked < 4
        result = yield from _advance(ctx, search, direction, down=down)
        if not result.ok:
            if result.error is not None and result.error.code in ("died", "cancelled", "preempted"):
                return result
            if down and result.error is not None and result.error.code == "unbreakable":
                # the world ends above the ore's usual depth (bedrock): tunnel a little above the floor
                target_y = ctx.body.position().block().y + 2
            blocked += 1
            if blocked > 12:
                return ActionResult.failure("boxed_in", "every direction blocked by liquid, drops or the boundary")
            direction = _turn(direction)
            walked = 0
            continue
        blocked = 0
        if down:
            flight += 1
            if flight % STAIR_FLIGHT == 0:  # a square spiral staircase stays near where it started
                direction = _turn(direction)
            continue
        walked += 1
        if walked % TORCH_EVERY == 0:
            yield from _torch(ctx, search)
        if walked >= leg:
            direction = _turn(direction)
            walked = 0
            legs_done += 1
            if legs_done % 2 == 0:
                leg += 4
    return None


def _surface_cell(ctx: CapabilityContext, x: int, z: int, near_y: int) -> BlockPos | None:
    """A standable dry cell in column (x, z) near ``near_y``: the top of the ground there."""
    md = registry_data(ctx)
    for y in range(near_y + 96, near_y - 24, -1):  # from high up: the search may start underground
        ground = ctx.body.block_at(BlockPos(x, y - 1, z)).name
        if is_solid(md, ground) and not ground.endswith("_leaves"):
            feet, head = ctx.body.block_at(BlockPos(x, y, z)).name, ctx.body.block_at(BlockPos(x, y + 1, z)).name
            if not is_solid(md, feet) and not is_solid(md, head) and feet not in LIQUIDS:
                return BlockPos(x, y, z)
            return None
        if ground in LIQUIDS:
            return None
    return None


def walk_spiral(ctx: CapabilityContext, search: Search) -> Step:
    """Visit rings of waypoints around the start, looking around at each (climbing out first if underground).

    A bot no waypoint has a path from (walled in by foliage: a hunt in a dense forest ended in a pocket of
    leaves, natural seed 24) breaks the leaves around it and tries the rings once more."""
    if _must_climb_out(ctx):
        failure = yield from _climb_out(ctx, search)
        if failure is not None:
            return failure
        search.start = ctx.body.position().block()
    # the start look's radius (the rings beyond it count on it) also after climbing out
    result = yield from _found_here(ctx, search, START_RADIUS[search.strategy])
    if result is not None:
        return result
    _keep_origin(ctx, search)
    result = yield from _rings(ctx, search)
    if result is None and not search.walked_to and not search.out_of_time(ctx):
        cleared = yield from _break_out(ctx, search)
        if cleared:
            result = yield from _rings(ctx, search)
    if result is not None:
        return result
    if not search.walked_to and not search.out_of_time(ctx):
        # not "budget used up": a bot boxed in (after a failed retreat, seed 13) walked nowhere in 0 s
        return ActionResult.failure("no_path", f"no path to any waypoint of the spiral from {tuple(search.start)}")
    return None


def _ring_plan(search: Search) -> list[tuple[int, int]]:
    """(radius, waypoints on it) of the spiral's rings, inside out.

    A search farther than the start look (a rare surface block: a flower of one biome, sugar cane) leaves the
    start look's disc to it and spaces its rings and waypoints so that neighbouring views just overlap
    (:data:`FAR_RING_STEP`, :data:`FAR_WAYPOINT_GAP`), the last ring at ``max_distance``. Rings 16 blocks apart
    from the centre out, each view seen three times over, walked 40 waypoints (268 s) before natural seed 0's
    nearest azure bluet, 85 blocks off, came into view; these walk 11."""
    if search.target.entity is not None:
        step = ENTITY_VIEW
        return [(r, max(RING_POINTS, math.ceil(math.tau * r / ENTITY_WAYPOINT_GAP)))
                for r in range(step, search.max_distance + 1, step)]
    start = START_RADIUS["surface"]
    if search.max_distance <= start:
        return [(r, RING_POINTS) for r in range(RING_STEP, search.max_distance + 1, RING_STEP)]
    radii = list(range(start, search.max_distance + 1, FAR_RING_STEP))
    if radii[-1] < search.max_distance:
        radii.append(search.max_distance)
    return [(r, max(RING_POINTS, math.ceil(math.tau * r / FAR_WAYPOINT_GAP))) for r in radii]


def _waypoints(search: Search) -> list[tuple[int, int]]:
    """The spiral's columns, ring by ring outwards from ``search.start`` (every other ring turned half a step)."""
    out: list[tuple[int, int]] = []
    for i, (ring, points) in enumerate(_ring_plan(search)):
        for k in range(points):
            angle = math.tau * (k + 0.5 * ((i + 1) % 2)) / points
            out.append((search.start.x + round(math.cos(angle) * ring), search.start.z + round(math.sin(angle) * ring)))
    return out


def _keep_origin(ctx: CapabilityContext, search: Search) -> None:
    """Centre the spiral where this run's search for the target began, while the bot is within its reach and some
    of its waypoints were not looked from yet; else begin a new one here (a retry after a search that walked its
    whole spiral goes on to new ground: natural seed 22 searched a desert for a tree)."""
    origins: dict[str, BlockPos] = ctx.memory.setdefault(ORIGIN_KEY, {})
    looked = _looked(ctx, search)
    origin = origins.get(search.target.label)
    here = search.start
    if origin is not None and max(abs(origin.x - here.x), abs(origin.z - here.z)) <= search.max_distance:
        search.start = origin
        if any(not _seen_from(looked, x, z) for x, z in _waypoints(search)):
            return
        search.start = here
    origins[search.target.label] = here


def _looked(ctx: CapabilityContext, search: Search) -> list[BlockPos]:
    """The places this run's searches for the target looked from (kept in the run's memory)."""
    looked: list[BlockPos] = ctx.memory.setdefault(LOOKED_KEY, {}).setdefault(search.target.label, [])
    return looked


def _seen_from(looked: list[BlockPos], x: int, z: int) -> bool:
    return any(abs(p.x - x) <= LOOKED_NEAR and abs(p.z - z) <= LOOKED_NEAR for p in looked)


def _rings(ctx: CapabilityContext, search: Search) -> Step:
    """Walk the rings' waypoints not yet looked from, looking around at each; when none of those could be walked
    to (a retry after a search that covered its reach), all of them again: animals wander. Success or a failure
    to stop on, else None."""
    looked = _looked(ctx, search)
    points = _waypoints(search)
    fresh = [(x, z) for x, z in points if not _seen_from(looked, x, z)]
    walked = len(search.walked_to)
    result = yield from _walk_waypoints(ctx, search, fresh, looked)
    if result is None and len(search.walked_to) == walked and len(fresh) < len(points):
        looked.clear()
        result = yield from _walk_waypoints(ctx, search, points, looked)
    return result


def _walk_waypoints(ctx: CapabilityContext, search: Search, points: list[tuple[int, int]],
                    looked: list[BlockPos]) -> Step:
    for x, z in points:
        if search.out_of_time(ctx):
            break
        cell = _surface_cell(ctx, x, z, ctx.body.position().block().y)
        if cell is None or search.too_far(cell):
            continue
        try:
            handle = ctx.body.goto(cell, tolerance=2.0)
        except BodyError:
            continue
        walk = _walk_looking(ctx, search, handle) if search.target.entity is not None else act(handle)
        failure = yield from walk
        if failure is not None and failure.error is not None and failure.error.code in ("died", "cancelled"):
            return failure
        here = ctx.body.position().block()
        search.walked_to.append(here)
        looked.append(here)
        result = yield from _found_here(ctx, search)
        if result is not None:
            return result
    return None


def _break_out(ctx: CapabilityContext, search: Search) -> Generator[ActionHandle | None, ActionHandle | None, bool]:
    """Break the leaves at feet and head height up to BREAK_OUT_RADIUS blocks around, nearest first, and over
    the head (the pathfinder walks through no block); True when any were broken."""
    feet = ctx.body.position().block()
    r = BREAK_OUT_RADIUS
    cells = sorted((feet.offset(dx, dy, dz) for dy in (0, 1) for dx in range(-r, r + 1) for dz in range(-r, r + 1)
                    if dx or dz), key=lambda c: (abs(c.x - feet.x) + abs(c.z - feet.z), c.y))
    cells.append(feet.offset(dy=2))
    broken = False
    for cell in cells:
        if ctx.body.block_at(cell).name.endswith("_leaves") and not search.too_far(cell):
            result = yield from _clear(ctx, cell, search)
            broken = broken or result.ok
    return broken


#: Ticks between the looks of an animal search walking to its next waypoint.
LOOK_EVERY = 10


def _walk_looking(ctx: CapabilityContext, search: Search, handle: ActionHandle) -> Step:
    """Walk a leg of an animal search, looking around every LOOK_EVERY ticks: the walk ends as soon as the animal
    is in view (None, ``search.found`` set). A walk that went on to its waypoint met the creeper it was looking for
    on the way, lit: the fight began with half its fuse burnt and the blast took 14 of the bot's 20 health
    (natural seed 0's firework rocket). Else the walk's failure, or None."""
    try:
        while handle.status() is ActionStatus.RUNNING:
            for _ in range(LOOK_EVERY):
                if handle.status() is not ActionStatus.RUNNING:
                    break
                yield None
            if handle.status() is ActionStatus.RUNNING and in_view(ctx, search):
                handle.cancel("in view")
                return None
    finally:
        if handle.status() is ActionStatus.RUNNING:
            handle.cancel("interrupted")
    return failure_from(handle)


def _walk_near(ctx: CapabilityContext, search: Search) -> Step:
    """Walk within the look radius of an animal already in view, or just succeed (it wanders: no reach test). A
    hostile mob is not walked to: it comes to the bot, and the fight chooses how near it lets it (a creeper)."""
    found = search.found
    here = ctx.body.position()
    hostile = search.target.entity is not None and nature.night_only(search.target.entity)
    if found is not None and found.distance_to(here) > LOOK_RADIUS["surface"] and not hostile:
        try:
            handle = ctx.body.goto(found, tolerance=4.0)
        except BodyError:
            return ActionResult.success()  # acquire_material may still get there its own way
        yield from act(handle)
    return ActionResult.success()


def _make_room(ctx: CapabilityContext, search: Search) -> Step:
    """Open a cell beside the feet: a one-wide tunnel has nowhere to put a crafting table or furnace."""
    feet = ctx.body.position().block()
    md = registry_data(ctx)
    sides = [feet.offset(dx, dy, dz) for dy in (0, 1) for dx, dz in CARDINALS]
    for side in sides:
        cells = [side, side.offset(dy=1)]
        if not is_solid(md, ctx.body.block_at(side.offset(dy=-1)).name) or search.too_far(side):
            continue
        if any(liquid_near(ctx, c) or ctx.body.block_at(c).name in search.target.blocks for c in cells):
            continue  # leave liquids shut and the ore for the next step
        if all(ctx.body.block_at(c).name in AIR for c in cells):
            return None
        for cell in cells:
            result = yield from _clear(ctx, cell, search)
            if not result.ok:
                break
        else:
            return None
    return None


def _climb_out(ctx: CapabilityContext, search: Search) -> Step:
    """From underground, a staircase up until out of the hole (world.terrain's one rule: the sky overhead, not
    walled in, a neighbour to step onto; a surface search starts there)."""
    read, solid = body_reader(ctx), solid_in(registry_data(ctx))
    return (yield from _climb(ctx, search, lambda: not terrain.out_of_hole(read, solid, ctx.body.position().block())))


def _climb(ctx: CapabilityContext, search: Search, going: Callable[[], bool]) -> Step:
    """A staircase up while ``going()`` holds, one step a turn, each the way out world.terrain plans from where
    the bot stands (the side it faces first, then the next ones clockwise; nothing too far for the search).

    In a cave, with no wall ahead to cut the next stair into, it walks on across the open floor first (up to
    CLIMB_WALK_STEPS blocks): a replan on natural seed 4 stood in a cave at y=14, every side open, and
    gave up at once. Under the bed of a lake or the sea, where no stair up holds, it tunnels towards the
    nearest ground with no water over it (up to CLIMB_TUNNEL_STEPS blocks) and climbs there: starter seed
    18's climb out of a mining tunnel came up three blocks under a lake, and no path led from that pocket."""
    md = registry_data(ctx)
    read, solid = body_reader(ctx), solid_in(md)
    direction = CARDINALS[0]
    blocked = 0
    walked = 0
    tunnelled = 0
    while going() and not search.out_of_time(ctx):
        feet = ctx.body.position().block()
        if blocked >= len(CARDINALS) and tunnelled < CLIMB_TUNNEL_STEPS and terrain.liquid_overhead(read, feet):
            sides = [direction, _turn(direction), _turn(direction, right=False), _turn(_turn(direction))]
            side = terrain.toward_dry_ground(read, feet, sides, CLIMB_TUNNEL_STEPS - tunnelled)
            if side is not None:
                result = yield from _advance(ctx, search, side, down=False)
                if result.error is not None and result.error.code in STOP_CODES:
                    return result
                if result.ok:
                    tunnelled += 1
                    direction, blocked = side, 0
                    continue
        ahead = terrain.stair_up_step(feet, direction, 1).floor
        # only once no side had a wall to cut a stair into (a stair where there is one, as before)
        if (blocked >= len(CARDINALS) and walked < CLIMB_WALK_STEPS and _open_floor(ctx, md, ahead)
                and not search.too_far(ahead)):
            result = yield from _step_to(ctx, ahead, search)
            if result.ok:
                walked += 1
                blocked = 0
                continue
        sides = [direction]
        while len(sides) < len(CARDINALS):
            sides.append(_turn(sides[-1]))
        rules = terrain.StairRules(sides=sides, max_steps=1, avoid=search.too_far,
                                   breakable=lambda name: md.has_block(name) and md.block(name).hardness is not None)
        stair = terrain.plan_stair(read, solid, feet, rules)
        ok = stair is not None
        if stair is not None:
            direction = stair.side
            for cell in stair.cells():
                result = yield from _clear(ctx, cell, search)
                ok = ok and result.ok
            if ok:
                result = yield from _step_to(ctx, stair.top, search)
                ok = result.ok
        if not ok:
            # no side holds a step (all four tried at once: walk on this way across a cave floor next, and turn
            # only once that walk was tried too), or this side's step failed while it was dug
            turn = stair is not None or blocked >= len(CARDINALS)
            blocked = blocked + 1 if stair is not None else max(blocked + 1, len(CARDINALS))
            if blocked > 8:
                here = ctx.body.position().block()
                if terrain.open_sky(read, solid, here) and not terrain.liquid_overhead(read, here):
                    return None  # under the sky already: the walk may still find a way out
                return ActionResult.failure("boxed_in", "no way up to the surface")
            if turn:
                direction = _turn(direction)
            continue
        blocked = 0
    return None


def _open_floor(ctx: CapabilityContext, md: Any, cell: BlockPos) -> bool:
    """A player can stand at ``cell`` (world.terrain) and no liquid is in or next to it: a step across a cave."""
    return terrain.standable(body_reader(ctx), solid_in(md), cell) and not liquid_near(ctx, cell)


def _must_climb_out(ctx: CapabilityContext) -> bool:
    """Underground or in a pit (world.terrain's rules): a surface search climbs out before it looks or walks its
    rings (a mining run in a hill left the bot in its tunnel at y=72, natural seed 0, and no spiral waypoint had a
    path from there)."""
    read, solid, feet = body_reader(ctx), solid_in(registry_data(ctx)), ctx.body.position().block()
    return terrain.underground(read, solid, feet) or terrain.in_a_pit(read, solid, feet)


def _remembered(ctx: CapabilityContext, search: Search) -> Step:
    """Walk back to a block of the target seen earlier in this run, if one is still there."""
    memory: dict[str, list[BlockPos]] = ctx.memory.get(MEMORY_KEY, {})
    for pos in list(memory.get(search.target.label, ())):
        if ctx.body.block_at(pos).name not in search.target.blocks:
            memory[search.target.label].remove(pos)
            continue
        try:
            handle = ctx.body.goto(pos, tolerance=3.0)
        except BodyError:
            continue
        failure = yield from act(handle)
        if failure is None:
            result = yield from _found_here(ctx, search)
            if result is not None:
                return result
    return None


def guard_explore(ctx: CapabilityContext, args: ExploreArgs) -> GuardResult:
    target = resolve_target(ctx, args.target)
    if target is None:
        return GuardResult.deny("unknown_target", f"{args.target!r} is no block, mined item or entity")
    if target.blocks and all(b in nature.OTHER_DIMENSIONS for b in target.blocks):
        return GuardResult.deny("out_of_reach", f"{args.target} generates only in the Nether or the End")
    strategy = target.strategy() if args.strategy == "auto" else args.strategy
    if strategy == "mine" and not any(count_item(ctx, p) for p in PICKAXES):
        return GuardResult.deny("precond_missing:tool:wooden_pickaxe", "mining needs a pickaxe")
    return GuardResult.allow()


def run_explore(ctx: CapabilityContext, args: ExploreArgs) -> RunnerGen:
    target = resolve_target(ctx, args.target)
    assert target is not None  # the guard checked
    strategy = target.strategy() if args.strategy == "auto" else args.strategy
    search = Search(target, ctx.body.position().block(), ctx.body.now_ticks(), args.max_ticks, args.max_distance,
                    strategy, count=args.count, fence=ctx.memory.get("geofence"), unreachable=set(ctx.unreachable))
    search.held_at_start = search.drops_held(ctx)
    result: ActionResult | None = None
    if strategy == "mine" and target.blocks:
        result = yield from _reach_seen(ctx, search)
    elif target.entity is not None and in_view(ctx, search, START_RADIUS[strategy]):
        result = yield from _walk_near(ctx, search)
    elif not _must_climb_out(ctx):  # else the spiral climbs out before it looks
        result = yield from _found_here(ctx, search, START_RADIUS[strategy])
    if result is None and target.blocks:
        result = yield from _remembered(ctx, search)
    if result is None:
        if strategy == "mine":
            result = yield from mine(ctx, search, args.depth if args.depth is not None else target.depth())
        else:
            result = yield from walk_spiral(ctx, search)
    if result is not None and result.ok and strategy == "mine":
        yield from _make_room(ctx, search)
    report = search.report(ctx, strategy)
    if result is not None and result.ok:
        # the verifier reads the found block again (an animal: lists the entities again)
        probe = {"probe_entities": float(ENTITY_VIEW)} if target.entity is not None else {}
        return ActionResult.success(Receipt(position=search.found, extra=probe), **report)
    why = result.error.detail if result is not None and result.error is not None else "budget used up"
    detail = (f"no {'/'.join(report['looked_for'][:3])} in view after {report['ticks'] / 20:.0f} s of {strategy} "
              f"search from {tuple(search.start)} to {tuple(report['to'])} (dug {search.dug}, deepest "
              f"y={report['deepest_y']}, {search.hazards} hazards avoided): {why}")
    return ActionResult.failure("not_found", detail, retryable=True, **report)


def accept_explore(pre: Observation, post: Observation, args: ExploreArgs, result: ActionResult) -> VerificationResult:
    """The world is read again: the found block holds what was looked for and is in reach of the bot now (an
    animal: one of its kind is in view). The runner's ``found`` alone is no evidence."""
    found = result.observables.get("found")
    looked_for = list(result.observables.get("looked_for") or [])
    evidence: dict[str, Any] = {"found": found, "target": args.target,
                                "moved": round(post.position.distance_to(pre.position), 2)}
    if result.ok and found is None and args.count > 0:
        # a mining search that dug all it was for on its way: the inventory is read, not the runner's count
        expected = list(result.observables.get("expected") or [])
        gained = sum(post.count(name) - pre.count(name) for name in expected)
        evidence.update(expected_items=expected, gained=gained, requested=args.count)
        if expected and gained >= args.count:
            return VerificationResult.verified(**evidence)
    if not result.ok or found is None:
        return VerificationResult.contradicted(**evidence)
    spot = BlockPos(*found)
    if result.receipt is not None and "probe_entities" in result.receipt.extra:
        if post.entities is None:
            return VerificationResult.inconclusive(reason="the entities could not be listed again", **evidence)
        near = [e for e in post.entities if e.name in looked_for
                and e.position.distance_to(post.position) <= ENTITY_VIEW]
        if near:
            return VerificationResult.verified(in_view=len(near), **evidence)
        return VerificationResult.contradicted(reason="none in view", **evidence)
    seen = post.block(spot)
    evidence["probed"] = seen
    if seen is None:
        return VerificationResult.inconclusive(reason="the found block could not be read again", **evidence)
    if seen not in looked_for:
        return VerificationResult.contradicted(reason="the found block is not what was looked for", **evidence)
    eye = Position(post.position.x, post.position.y + EYE_HEIGHT, post.position.z)
    if eye.distance_to(Position(spot.x + 0.5, spot.y + 0.5, spot.z + 0.5)) > REACH + 1:
        return VerificationResult.contradicted(reason="the found block is out of reach", **evidence)
    return VerificationResult.verified(**evidence)




#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="explore",
        version="1.0.0",
        family=Family.MOVEMENT,
        args_model=ExploreArgs,
        runner=run_explore,
        acceptance=accept_explore,
        guard=guard_explore,
        permissions=frozenset({Permission.MOVEMENT, Permission.DIG, Permission.PLACE}),
        timeout_ms=3_600_000,
        retries=1,
        effects=("near:{target}",),
        description=(
            "Bring `target` (a block, an item mined from blocks, or an animal) into view when none is near: an "
            "outward spiral of surface waypoints, or for ores and stone a staircase down to the ore's depth and "
            "a spiral of branch tunnels. Never digs a block touched by lava or water, never steps over a drop or "
            "liquid, re-digs falling sand and gravel, places carried torches. Bounded by `max_ticks` and "
            "`max_distance`; remembers what it saw for the rest of the run; a failure says what it searched "
            "for, where and for how long."
        ),
    ),
)
