"""Interaction leaves: dig, acquire, place, light, retreat, eat, sleep, pick up (seed 000, "Interaction Leaves").

What the seed's known gaps ask of this layer, and where it is done:

* auto-equip the best harvest tool before digging: :func:`dig_with_best_tool` (acquire_material, dig_block);
* block -> drop mapping: :func:`material_plan` derives, from minecraft-data loot, which blocks to mine and
  which items to expect (``stone`` mines stone and expects cobblestone; ``cobblestone`` also finds stone);
* "Bugs Fixed": item entities are matched by kind as well as name (:func:`~capabilities.leaves.common.is_item_entity`),
  drops are walked to with the pathfinder, candidates deeper than 2 blocks below the feet are skipped
  (``MIN_DY``), and the inventory delta is read after every dig, whatever the entity list says;
* place_block places exactly one block per dispatch (the "5 cobblestones" bug): one ``body.place`` call,
  a receipt for tri-state verification, and acceptance contradicts any run that used more than one item.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections import deque
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import Field, model_validator

from craftbt.capabilities.contracts import WORKSTATIONS
from craftbt.capabilities.leaves.blockwork import (
    best_tool,
    bot_cells,
    dig_step,
    equip_and_dig,
    place_step,
    reference_for,
)
from craftbt.capabilities.leaves.common import (
    LIQUIDS,
    REACH,
    StrictArgs,
    Vec3,
    act,
    approach,
    blocks_dropping,
    count_item,
    drop_names,
    equip,
    expect_block,
    inventory_totals,
    is_item_entity,
    is_solid,
    liquid_near,
    perform,
    registry_data,
    sees,
    within_reach,
)
from craftbt.capabilities.leaves.movement import SAFE_LIGHT, standable
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    Receipt,
    RunnerGen,
    Verdict,
    VerificationResult,
)
from craftbt.capabilities.structures import is_air, is_replaceable
from craftbt.world import mcdata
from craftbt.world.body import (
    FACE_OFFSETS,
    ActionHandle,
    BlockPos,
    BodyError,
    EntityInfo,
    Face,
    Observation,
    Position,
)
from craftbt.world.mcdata import TOOL_TIERS

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.world.mcdata import McData

log = logging.getLogger(__name__)

#: Seed "Bugs Fixed": never dig more than 2 blocks below the feet (drops fall into unreachable holes).
MIN_DY = -2
#: Seed 000: acquire_material's expanding cube search reaches r=10 by default.
DEFAULT_SEARCH_RADIUS = 10
#: Ask the body for this many candidates per search: bodies return the nearest first, and in natural terrain
#: the buried stone under the feet (which MIN_DY rejects) would otherwise crowd out the exposed blocks.
SEARCH_CANDIDATES = 4096
#: Vanilla item pickup delay is 10 ticks; wait a little longer before walking to the drop.
PICKUP_WAIT_TICKS = 12
#: After walking to a drop, wait this long (seed: the 2 s playerCollect timeout) for the inventory to change.
COLLECT_WAIT_TICKS = 40
#: Candidates kept from one search; the next search starts when they are used up.
CANDIDATES_PER_SEARCH = 32
#: Give up after this many candidate blocks turned out unreachable (buried, behind cliffs).
MAX_UNREACHABLE = 12
#: Drops further than this from the dug block are not ours.
DROP_RADIUS = 4.0
AIR = frozenset({"air", "cave_air", "void_air"})
#: Placement order for reference faces: on the floor first, then walls, then ceilings.
FACE_ORDER = (Face.UP, Face.NORTH, Face.SOUTH, Face.WEST, Face.EAST, Face.DOWN)
TORCH_MEMORY = 50
TORCH_MEMORY_KEY = "torch_positions"


# -- shared helpers -----------------------------------------------------------------
def inventory_names(ctx: CapabilityContext) -> list[str]:
    return sorted({stack.name for stack in ctx.body.inventory()})


def weakest_tool(md: McData, block: str) -> str | None:
    """The cheapest tool that harvests ``block`` (for a ``precond_missing:tool:<name>`` refusal)."""
    tools = md.block(block).harvest_tools
    if not tools:
        return None

    def rank(name: str) -> tuple[int, str]:
        tier = md.tool_tier(name)
        return (TOOL_TIERS.index(tier) if tier in TOOL_TIERS else len(TOOL_TIERS), name)

    return min(tools, key=rank)


def dig_with_best_tool(ctx: CapabilityContext, pos: BlockPos, tool: str | None) -> RunnerGen:
    """Equip ``tool`` (or the best harvest tool carried) and dig ``pos``. Returns success or the failure."""
    block = ctx.body.block_at(pos).name
    chosen = tool if tool is not None else best_tool(ctx, block)
    failure = yield from equip_and_dig(ctx, pos, chosen)
    if failure is not None:
        return failure
    return ActionResult.success(block=block, tool=chosen)


def nearest_blocks(ctx: CapabilityContext, names: Iterable[str], radius: int, skip: set[BlockPos]) -> list[BlockPos]:
    """Blocks of ``names`` nearest first, searching r = 2, 4, 8, ... up to ``radius`` (seed: expanding cube).

    Candidates more than ``MIN_DY`` below the feet are dropped (seed "Bugs Fixed"), and so are blocks with no
    open face, but for workstations: the bot placed those, and a furnace placed in the one open cell beside
    a crafting table in a tunnel closes the table in (natural seed 3: "no crafting_table within 8 blocks"
    with one 1.9 blocks off).
    """
    wanted = sorted(set(names))
    if not wanted:
        return []
    me = ctx.body.position()
    feet_y = math.floor(me.y)
    exposed = not set(wanted) <= set(WORKSTATIONS)
    r = 2
    while True:
        r = min(r, radius)
        found = [
            p for p in ctx.body.find_blocks(wanted, r, max_count=SEARCH_CANDIDATES, exposed=exposed)
            if p.y - feet_y >= MIN_DY and p not in skip
        ]
        if found or r >= radius:
            return sorted(found, key=lambda p: me.distance_to(Position(p.x + 0.5, p.y + 0.5, p.z + 0.5)))
        r *= 2


def placement_reference(md: McData, ctx: CapabilityContext, target: BlockPos) -> tuple[BlockPos, Face] | None:
    """A solid neighbour of ``target`` and the face of it that points at ``target``."""
    for face in FACE_ORDER:
        dx, dy, dz = FACE_OFFSETS[face]
        against = target.offset(-dx, -dy, -dz)
        if is_solid(md, ctx.body.block_at(against).name):
            return against, face
    return None


def placed_forms(md: McData, item: str) -> frozenset[str]:
    """Block names placing ``item`` may leave: the item's own block, or its wall form (torch -> wall_torch)."""
    return frozenset({item} | {b for b in blocks_dropping(md, item) if "wall_" in b and b != item})


def place_one(ctx: CapabilityContext, item: str, target: BlockPos, against: BlockPos, face: Face) -> RunnerGen:
    """Equip and place one ``item``; the receipt names what now stands at ``target``."""
    md = registry_data(ctx)
    failure = yield from equip(ctx, item)
    if failure is not None:
        return failure
    failure = yield from perform(lambda: ctx.body.place(item, against, face))
    if failure is not None:
        return failure
    observed = ctx.body.block_at(target).name
    block = observed if observed in placed_forms(md, item) else item
    return ActionResult.success(
        receipt=Receipt(position=target, block=block),
        blockPlaced=block,
        position={"x": target.x, "y": target.y, "z": target.z},
    )


def combine(verdicts: list[VerificationResult], **evidence: Any) -> VerificationResult:
    """All verified -> verified; any contradicted -> contradicted; else inconclusive."""
    merged = {**evidence, "checks": [v.model_dump(mode="json") for v in verdicts]}
    if any(v.verdict is Verdict.CONTRADICTED for v in verdicts):
        return VerificationResult.contradicted(**merged)
    if all(v.verdict is Verdict.VERIFIED for v in verdicts):
        return VerificationResult.verified(**merged)
    return VerificationResult.inconclusive(**merged)


def item_missing(item: str) -> GuardResult:
    return GuardResult.lacking(item, 1, f"no {item} in the inventory")


# -- acquire_material ------------------------------------------------------------------
@dataclass(frozen=True)
class MaterialPlan:
    blocks: frozenset[str]
    """Blocks to mine."""
    expected: frozenset[str]
    """Items whose inventory gain counts as acquisition (the drops, e.g. cobblestone for stone)."""
    chance: float = 1.0
    """The lowest chance one of ``blocks`` drops what is expected (grass: 1 in 8 for wheat seeds)."""


#: Crop blocks someone planted: never broken to get their seeds back (a farm is not a seed mine).
PLANTED_CROPS = frozenset({"wheat", "carrots", "potatoes", "beetroots"})


def material_plan(md: McData, item: str) -> MaterialPlan:
    """Which blocks to mine for ``item`` and which items to expect, from minecraft-data loot tables.

    ``item`` may name a drop (cobblestone, oak_log, raw_iron: mine every block that drops it, expect it)
    or a block that drops something else (stone: mine stone, expect cobblestone).
    """
    droppers = set(blocks_dropping(md, item)) - PLANTED_CROPS
    if droppers:
        if md.has_block(item) and md.block(item).breakable:
            droppers.add(item)
        return MaterialPlan(frozenset(droppers), frozenset({item}), drop_chance(md, droppers, item))
    if md.has_block(item) and md.block(item).breakable:
        return MaterialPlan(frozenset({item}), drop_names(md, item))
    return MaterialPlan(frozenset(), frozenset())


def drop_chance(md: McData, blocks: Iterable[str], item: str) -> float:
    """The lowest chance over ``blocks`` that breaking one drops ``item`` (1 for blocks without a loot table)."""
    chances = [max((e.chance for e in md.block(b).loot if e.item == item and e.condition is None), default=1.0)
               for b in blocks if md.has_block(b)]
    return min(chances, default=1.0)


ACQUIRE_TIMEOUT_MS = 30_000


def acquire_timeout_ms(args: AcquireMaterialArgs) -> int:
    """The seed's 30 s for one item, and half as much again for each further one (seven raw iron dug out of
    tunnel walls, a way dug to each drop, took 45-60 s on natural worlds), times the blocks broken per item
    wanted when the drop is a chance (grass for seeds: 8)."""
    try:
        chance = material_plan(mcdata.load(), args.item).chance
    except mcdata.McDataFileError:
        chance = 1.0
    return math.ceil(ACQUIRE_TIMEOUT_MS * (1 + (args.count - 1) / 2) / max(chance, 0.05))


class AcquireMaterialArgs(StrictArgs):
    item: str = Field(min_length=1, description="A block to mine (stone) or the item wanted from mining (cobblestone)")
    count: int = Field(default=1, ge=1, le=8, description="Items wanted; blocks are mined until this many arrive")
    hold: int | None = Field(default=None, ge=1, le=2304, description="Or until the inventory holds this many "
                             "(a plan's running total: what an earlier step brought, such as ore a mining "
                             "search dug through, counts)")
    tool: str | None = Field(default=None, description="Dig with this tool; default: the best harvest tool carried")
    radius: int = Field(
        default=DEFAULT_SEARCH_RADIUS,
        ge=1,
        le=64,
        description="Search radius of the expanding cube search (seed default 10; raise it for sparse worlds)",
    )


def buried(md: McData, ctx: CapabilityContext, pos: BlockPos) -> bool:
    """No face open to a non-solid block: it cannot be seen or reached without digging through others."""
    return all(is_solid(md, ctx.body.block_at(pos.offset(*o)).name) for o in FACE_OFFSETS.values())


def _harvestable(md: McData, block: str, tools: list[str]) -> bool:
    return md.can_harvest(block, None) or any(md.can_harvest(block, t) for t in tools)


def guard_acquire(ctx: CapabilityContext, args: AcquireMaterialArgs) -> GuardResult:
    md = registry_data(ctx)
    plan = material_plan(md, args.item)
    if not plan.blocks:
        return GuardResult.deny("unknown_item", f"{args.item!r} is not a block and no block drops it")
    carried = inventory_names(ctx)
    if args.tool is not None and args.tool not in carried:
        return item_missing(args.tool)
    if not plan.expected:
        return GuardResult.deny("no_drop", f"mining {args.item} drops nothing")
    tools = [args.tool] if args.tool is not None else carried
    found = nearest_blocks(ctx, plan.blocks, args.radius, set())
    if not found:
        return GuardResult.deny("no_target", f"no {'/'.join(sorted(plan.blocks)[:4])} within {args.radius} blocks")
    names = {ctx.body.block_at(p).name for p in found[:8]}
    if not any(_harvestable(md, n, tools) for n in names if md.has_block(n)):
        needed = next((t for n in sorted(names) if (t := weakest_tool(md, n)) is not None), "tool")
        return GuardResult.deny(f"precond_missing:tool:{needed}", f"{', '.join(sorted(names))} need {needed}")
    return GuardResult.allow()


def collect_drops(ctx: CapabilityContext, site: BlockPos, gained: Any, before: int) -> RunnerGen:
    """Wait for the pickup; if it does not come, walk onto the drops near ``site`` and wait again."""
    for _ in range(PICKUP_WAIT_TICKS):
        if gained() > before:
            return ActionResult.success()
        yield None
    centre = Position(site.x + 0.5, site.y + 0.5, site.z + 0.5)
    drops = sorted(
        (
            e
            for e in ctx.body.entities(DROP_RADIUS + 8)
            if is_item_entity(e) and e.position.distance_to(centre) <= DROP_RADIUS
        ),
        key=lambda e: e.position.distance_to(ctx.body.position()),
    )
    for drop in drops:
        cell = drop.position.block()
        picked = yield from _walk_and_wait(ctx, cell, gained, before)
        if not picked:  # no walk reached it, or the pickup box did not: dig a way and walk again
            way = yield from _open_way_to(ctx, cell)
            picked = way is not None and (yield from _walk_and_wait(ctx, way, gained, before))
        if picked:
            return ActionResult.success()
    return ActionResult.success() if gained() > before else ActionResult.failure("not_collected")


def _walk_and_wait(
    ctx: CapabilityContext, cell: BlockPos, gained: Any, before: int
) -> Generator[ActionHandle | None, ActionHandle | None, bool]:
    """Walk onto or beside ``cell`` and wait for the pickup; True once the inventory gained."""
    handle = walk_to_pickup(ctx, cell)
    if handle is None:
        return False  # an unreachable drop; the inventory delta still decides
    yield handle
    for _ in range(COLLECT_WAIT_TICKS):
        if gained() > before:
            return True
        yield None
    return False


#: A way is dug to a drop at most this many blocks off (sideways, counted along the L-shaped way).
OPEN_WAY_BLOCKS = 6


def _open_way_to(
    ctx: CapabilityContext, cell: BlockPos
) -> Generator[ActionHandle | None, ActionHandle | None, BlockPos | None]:
    """Dig a two-high way from the feet to under a drop out of walking reach: one in a one-high hole (an ore
    dug out of a tunnel wall), in a pocket under the floor beside the feet, or in the ceiling (the pickup box
    reaches half a block above the head, not below the feet). Natural seed 0 lost 4 of 7 raw iron this way.
    Never digs next to a liquid. Returns the cell to walk to, or None when no way could be opened."""
    feet = ctx.body.position().block()
    if not feet.y - 1 <= cell.y <= feet.y + 2 or abs(cell.x - feet.x) + abs(cell.z - feet.z) > OPEN_WAY_BLOCKS:
        return None
    column = feet
    ways: list[BlockPos] = []
    while (column.x, column.z) != (cell.x, cell.z):
        step_x = (cell.x > column.x) - (cell.x < column.x)
        column = column.offset(step_x, 0, 0 if step_x else (cell.z > column.z) - (cell.z < column.z))
        ways += [column, column.offset(dy=1)]
    # a drop in the ceiling is picked up from under it; one in a hole by stepping down into it
    stand = cell if cell.y <= feet.y else column
    md = registry_data(ctx)
    for way in ways:
        name = ctx.body.block_at(way).name
        if not is_solid(md, name) and name not in LIQUIDS:
            continue
        if liquid_near(ctx, way):
            return None
        failure = yield from dig_step(ctx, way)
        if failure is not None:
            return None
    return stand


#: Stand on the drop if possible, else next to it: an item in a one-high hole (a mined ore in a wall)
#: has no standable cell, but the pickup box (1.425 blocks sideways) reaches it from the neighbour.
PICKUP_TOLERANCES = (0.5, 1.0, 1.5)


def walk_to_pickup(ctx: CapabilityContext, cell: BlockPos) -> ActionHandle | None:
    """The walk onto a drop at ``cell``, else to beside it (PICKUP_TOLERANCES); None when no walk can start."""
    for tolerance in PICKUP_TOLERANCES:
        try:
            return ctx.body.goto(cell, tolerance=tolerance)
        except BodyError:
            continue
    return None


#: A block this far over the feet, on something solid, drops its item where the pickup box cannot reach.
DROP_OUT_OF_REACH_DY = 3


def _drop_stays_up(md: McData, ctx: CapabilityContext, target: BlockPos, material: Iterable[str]) -> bool:
    """Digging ``target`` would leave its drop in a pocket in the ceiling (natural seed 8: three raw iron dug
    three blocks over the feet stayed up there). A block over more of the same material is fine: that one is
    dug first, and the rest fall as they are dug, like a tree trunk."""
    if target.y - ctx.body.position().block().y < DROP_OUT_OF_REACH_DY:
        return False
    under = ctx.body.block_at(target.offset(dy=-1)).name
    return is_solid(md, under) and under not in material


def run_acquire(ctx: CapabilityContext, args: AcquireMaterialArgs) -> RunnerGen:
    md = registry_data(ctx)
    plan = material_plan(md, args.item)
    expected = sorted(plan.expected)
    start = {name: count_item(ctx, name) for name in expected}

    def gained() -> int:
        return sum(count_item(ctx, name) - start[name] for name in expected)

    def enough() -> bool:
        # the inventory is read for ``hold`` only when it is given (a body pays for every read)
        return gained() >= args.count or (
            args.hold is not None and sum(count_item(ctx, name) for name in expected) >= args.hold)

    # blocks found unreachable earlier in the episode are not walked at again (a replan plans an explore)
    skip: set[BlockPos] = set(ctx.unreachable)
    dug: list[BlockPos] = []
    dug_blocks: list[str] = []
    tools = [args.tool] if args.tool is not None else None
    attempts = 0
    last_failure: ActionResult | None = None
    unreachable = 0
    pending: list[BlockPos] = []
    # once a drop was lost, only blocks in sight are dug: the rest of a cave's wall seen through the floor
    # drops into the same cave (natural seed 16: 27 stone dug under a sandstone floor, no cobblestone got)
    lost_drop = False
    # a chance drop (seeds from grass) takes many blocks per item: the attempt budget scales with it
    most_attempts = math.ceil(3 * args.count / plan.chance)
    while not enough() and attempts < most_attempts and unreachable < MAX_UNREACHABLE:
        carried = tools or inventory_names(ctx)
        if not pending:  # one search per run (a rescan when used up): bodies pay for every search
            pending = nearest_blocks(ctx, plan.blocks, args.radius, skip)[:CANDIDATES_PER_SEARCH]
            if not pending:
                break
        here = ctx.body.position()
        pending.sort(key=lambda p: here.distance_to(Position(p.x + 0.5, p.y + 0.5, p.z + 0.5)))
        target = pending.pop(0)
        name = ctx.body.block_at(target).name
        if (target in skip or name not in plan.blocks or not _harvestable(md, name, carried)
                or (buried(md, ctx, target) and name not in WORKSTATIONS) or (lost_drop and not sees(ctx, target))):
            skip.add(target)
            continue
        moved = yield from approach(ctx, target)
        if moved is not None and not within_reach(ctx, target):
            # Seed: a failed path still tries the dig when the block is in reach; this one is not.
            skip.add(target)
            ctx.unreachable.add(target)
            unreachable += 1
            last_failure = moved
            continue
        if _drop_stays_up(md, ctx, target, plan.blocks):
            skip.add(target)
            continue
        attempts += 1
        before = gained()
        outcome = yield from dig_with_best_tool(ctx, target, args.tool)
        if not outcome.ok:
            assert outcome.error is not None
            if outcome.error.code in ("body_disconnected", "died", "cancelled", "preempted"):
                return outcome
            skip.add(target)
            last_failure = outcome
            continue
        dug.append(target)
        dug_blocks.append(str(outcome.observables.get("block")))
        collected = yield from collect_drops(ctx, target, gained, before)
        lost_drop = lost_drop or not collected.ok
    acquired = gained()
    observables: dict[str, Any] = {
        "acquired": acquired,
        "requested": args.count,
        "expected": expected,
        "blocksDug": len(dug),
        "dug": dug_blocks,
    }
    receipt = Receipt(positions=dug, extra={"dug": dug_blocks}) if dug else None
    if enough():
        return ActionResult.success(receipt=receipt, **observables)
    if acquired > 0:
        result = ActionResult.failure(
            "partial", f"acquired {acquired}/{args.count} {'/'.join(expected)}", retryable=True, **observables
        )
        result.receipt = receipt
        return result
    if not dug:
        detail = last_failure.error.detail if last_failure is not None and last_failure.error else ""
        detail = detail or f"no reachable {args.item} within {args.radius} blocks"
        return ActionResult.failure("no_target", detail, retryable=True, **observables)
    return ActionResult.failure(
        "not_collected", "dug but nothing arrived in the inventory", retryable=True, **observables
    )


def accept_acquire(
    pre: Observation, post: Observation, args: AcquireMaterialArgs, result: ActionResult
) -> VerificationResult:
    expected = list(result.observables.get("expected") or [args.item])
    gained = sum(post.count(name) - pre.count(name) for name in expected)
    evidence: dict[str, Any] = {"expected_items": expected, "gained": gained, "requested": args.count}
    if gained >= args.count:
        return VerificationResult.verified(**evidence)
    if args.hold is not None:
        held = sum(post.count(name) for name in expected)
        evidence.update(held=held, hold=args.hold)
        if held >= args.hold:
            return VerificationResult.verified(**evidence)
    if gained > 0:
        return VerificationResult.inconclusive(partial=True, **evidence)
    return VerificationResult.contradicted(**evidence)


# -- dig_block (deprecated) ---------------------------------------------------------------
DIG_DEPRECATION = "dig_block is deprecated: it neither walks to the block nor collects the drop; use acquire_material"


class DigBlockArgs(StrictArgs):
    pos: Vec3 | None = Field(default=None, description="Block to dig (must be within reach)")
    blockType: str | None = Field(default=None, description="Or: dig the nearest block of this type within reach")
    expect: str | None = Field(default=None, description="Refuse unless the block to dig has this name")
    tool: str | None = Field(default=None, description="Dig with this tool; default: the best harvest tool carried")

    @model_validator(mode="after")
    def _one_target(self) -> DigBlockArgs:
        if self.pos is None and self.blockType is None:
            raise ValueError("give pos or blockType")
        return self


def dig_target(ctx: CapabilityContext, args: DigBlockArgs) -> BlockPos | None:
    if args.pos is not None:
        return args.pos.as_block_pos()
    assert args.blockType is not None
    # Seed: expanding cube search r=1..10, but dig_block never walks, so only blocks in reach count.
    for pos in nearest_blocks(ctx, [args.blockType], DEFAULT_SEARCH_RADIUS, set()):
        if within_reach(ctx, pos):
            return pos
    return None


def guard_dig(ctx: CapabilityContext, args: DigBlockArgs) -> GuardResult:
    md = registry_data(ctx)
    if args.tool is not None and args.tool not in inventory_names(ctx):
        return item_missing(args.tool)
    target = dig_target(ctx, args)
    if target is None:
        return GuardResult.deny("no_target", f"no {args.blockType} within reach")
    name = ctx.body.block_at(target).name
    if name in AIR:
        return GuardResult.deny("no_target", f"{tuple(target)} is {name}")
    if args.expect is not None and name != args.expect:
        return GuardResult.deny("unexpected_block", f"{tuple(target)} is {name}, expected {args.expect}")
    if md.has_block(name) and not md.block(name).breakable:
        return GuardResult.deny("not_diggable", f"{name} cannot be broken")
    if not within_reach(ctx, target):
        return GuardResult.deny("out_of_reach", f"{tuple(target)} is beyond {REACH} blocks and dig_block does not walk")
    return GuardResult.allow()


def run_dig(ctx: CapabilityContext, args: DigBlockArgs) -> RunnerGen:
    warnings.warn(DIG_DEPRECATION, DeprecationWarning, stacklevel=2)
    log.warning(DIG_DEPRECATION)
    target = dig_target(ctx, args)
    if target is None:
        return ActionResult.failure("no_target", f"no {args.blockType} within reach")
    outcome = yield from dig_with_best_tool(ctx, target, args.tool)
    if not outcome.ok:
        return outcome
    return ActionResult.success(
        receipt=Receipt(position=target, block="air"),
        deprecated=True,
        warning=DIG_DEPRECATION,
        position={"x": target.x, "y": target.y, "z": target.z},
        **outcome.observables,
    )


def accept_dig(pre: Observation, post: Observation, args: DigBlockArgs, result: ActionResult) -> VerificationResult:
    if result.receipt is None or result.receipt.position is None:
        return VerificationResult.inconclusive(reason="no receipt")
    probe = post.block(result.receipt.position)
    if probe in AIR:
        return VerificationResult.verified(position=list(result.receipt.position), observed=probe)
    return expect_block(post, result.receipt.position, "air")


# -- place_block ----------------------------------------------------------------------------
class PlaceBlockArgs(StrictArgs):
    item: str = Field(min_length=1, description="Block item to place (one per dispatch)")
    against: Vec3 | None = Field(default=None, description="Reference block to place against (on top, or toward pos)")
    pos: Vec3 | None = Field(default=None, description="Where the new block goes; default: beside the player")


def place_block_plan(ctx: CapabilityContext, args: PlaceBlockArgs) -> tuple[BlockPos, BlockPos, Face] | GuardResult:
    """(target, against, face) for this placement, or the refusal."""
    md = registry_data(ctx)
    if not md.has_block(args.item):
        return GuardResult.deny("not_placeable", f"{args.item} is not a block")
    if count_item(ctx, args.item) < 1:
        return item_missing(args.item)
    occupied = bot_cells(ctx) if md.block(args.item).solid else set()
    if args.pos is not None:
        target = args.pos.as_block_pos()
        if args.against is not None:
            against = args.against.as_block_pos()
            offset = (target.x - against.x, target.y - against.y, target.z - against.z)
            face = next((f for f, o in FACE_OFFSETS.items() if o == offset), None)
            if face is None:
                return GuardResult.deny("invalid_argument", "pos must be next to against")
            if not is_solid(md, ctx.body.block_at(against).name):
                return GuardResult.deny("no_reference_block", f"{tuple(against)} is not solid")
            candidates = [(target, against, face)]
        else:
            reference = placement_reference(md, ctx, target)
            if reference is None:
                return GuardResult.deny("no_reference_block", f"no solid block next to {tuple(target)}")
            candidates = [(target, reference[0], reference[1])]
    elif args.against is not None:
        against = args.against.as_block_pos()
        if not is_solid(md, ctx.body.block_at(against).name):
            return GuardResult.deny("no_reference_block", f"{tuple(against)} is not solid")
        candidates = [(against.offset(*FACE_OFFSETS[f]), against, f) for f in FACE_ORDER]
    else:
        candidates = []
        feet = ctx.body.position().block()
        for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            cell = feet.offset(dx=dx, dz=dz)
            reference = placement_reference(md, ctx, cell)
            if reference is not None:
                candidates.append((cell, reference[0], reference[1]))
    reason = "no_reference_block"
    for target, against, face in candidates:
        if ctx.body.block_at(target).name not in AIR:
            reason = "occupied"
            continue
        if target in occupied:
            reason = "occupied"
            continue
        if not within_reach(ctx, target):
            reason = "out_of_reach"
            continue
        return target, against, face
    return GuardResult.deny(reason, "no free, reachable spot with a solid reference face")


def guard_place_block(ctx: CapabilityContext, args: PlaceBlockArgs) -> GuardResult:
    plan = place_block_plan(ctx, args)
    return plan if isinstance(plan, GuardResult) else GuardResult.allow()


def run_place_block(ctx: CapabilityContext, args: PlaceBlockArgs) -> RunnerGen:
    plan = place_block_plan(ctx, args)
    if isinstance(plan, GuardResult):
        return ActionResult.failure(plan.reason or "not_placeable", plan.detail or "")
    target, against, face = plan
    # One body.place per dispatch: a retry of this leaf is a new dispatch that re-plans, never a second block here.
    return (yield from place_one(ctx, args.item, target, against, face))


def accept_placed(pre: Observation, post: Observation, item: str, result: ActionResult) -> VerificationResult:
    """Receipt probe plus the inventory delta: exactly one item spent (more is the "5 cobblestones" bug)."""
    receipt = result.receipt
    if receipt is None or receipt.position is None or receipt.block is None:
        return VerificationResult.inconclusive(reason="no receipt")
    probe = expect_block(post, receipt.position, receipt.block)
    spent = pre.count(item) - post.count(item)
    evidence = {**probe.evidence, "item": item, "spent": spent}
    if spent > 1:
        return VerificationResult.contradicted(reason="more than one item spent for one placement", **evidence)
    return VerificationResult(verdict=probe.verdict, evidence=evidence)


def accept_place_block(
    pre: Observation, post: Observation, args: PlaceBlockArgs, result: ActionResult
) -> VerificationResult:
    return accept_placed(pre, post, args.item, result)


# -- place_torch / place_torch_if_needed ----------------------------------------------------
class PlaceTorchArgs(StrictArgs):
    position: Vec3 | None = Field(default=None, description="Where the torch goes; default: the player's position")


def torch_spot(ctx: CapabilityContext, position: BlockPos | None) -> tuple[BlockPos, BlockPos, Face] | None:
    """A free cell for a torch (standing on a solid floor or hung on a solid wall) and its reference face."""
    md = registry_data(ctx)
    if position is not None:
        cells = [position]
    else:
        feet = ctx.body.position().block()
        cells = [feet] + [feet.offset(dx=dx, dz=dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    for cell in cells:
        if ctx.body.block_at(cell).name not in AIR or not within_reach(ctx, cell):
            continue
        reference = placement_reference(md, ctx, cell)
        if reference is not None and reference[1] is not Face.DOWN:  # torches do not hang from ceilings
            return cell, reference[0], reference[1]
    return None


def guard_place_torch(ctx: CapabilityContext, args: PlaceTorchArgs) -> GuardResult:
    if count_item(ctx, "torch") < 1:
        return item_missing("torch")
    if torch_spot(ctx, args.position.as_block_pos() if args.position else None) is None:
        return GuardResult.deny("no_reference_block", "no free block with a solid floor or wall for a torch in reach")
    return GuardResult.allow()


def remember_torch(ctx: CapabilityContext, pos: BlockPos) -> None:
    placed = ctx.memory.setdefault(TORCH_MEMORY_KEY, deque(maxlen=TORCH_MEMORY))
    placed.append(pos)


def run_place_torch(ctx: CapabilityContext, args: PlaceTorchArgs) -> RunnerGen:
    spot = torch_spot(ctx, args.position.as_block_pos() if args.position else None)
    if spot is None:
        return ActionResult.failure("no_reference_block", "no spot for a torch")
    outcome = yield from place_one(ctx, "torch", *spot)
    if outcome.ok:
        remember_torch(ctx, spot[0])
        outcome.observables["torchPlaced"] = True
    return outcome


def accept_place_torch(
    pre: Observation, post: Observation, args: PlaceTorchArgs, result: ActionResult
) -> VerificationResult:
    return accept_placed(pre, post, "torch", result)


class PlaceTorchIfNeededArgs(StrictArgs):
    interval: int = Field(
        default=6, ge=1, le=64, description="No torch if this bot placed one within this many blocks (last 50 kept)"
    )
    lightThreshold: int = Field(default=SAFE_LIGHT, ge=1, le=15, description="Place only when light is below this")
    position: Vec3 | None = Field(default=None, description="Where to check and place; default: the player's position")


def torch_decision(ctx: CapabilityContext, args: PlaceTorchIfNeededArgs) -> tuple[str | None, int, BlockPos]:
    """(why no torch is needed, or None), the light level, and the position checked."""
    pos = args.position.as_block_pos() if args.position is not None else ctx.body.position().block()
    light = ctx.body.light_level(pos)
    if light >= args.lightThreshold:
        return "bright_enough", light, pos
    recent: Iterable[BlockPos] = ctx.memory.get(TORCH_MEMORY_KEY, ())
    if any(pos.distance_to(t) < args.interval for t in recent):
        return "torch_nearby", light, pos
    return None, light, pos


def guard_torch_if_needed(ctx: CapabilityContext, args: PlaceTorchIfNeededArgs) -> GuardResult:
    skip, _, _ = torch_decision(ctx, args)
    if skip is not None:
        return GuardResult.allow()
    return guard_place_torch(ctx, PlaceTorchArgs(position=args.position))


def run_torch_if_needed(ctx: CapabilityContext, args: PlaceTorchIfNeededArgs) -> RunnerGen:
    skip, light, _ = torch_decision(ctx, args)
    if skip is not None:
        return ActionResult.success(torchPlaced=False, reason=skip, lightLevel=light)
    outcome = yield from run_place_torch(ctx, PlaceTorchArgs(position=args.position))
    outcome.observables.update(lightLevel=light)
    return outcome


def accept_torch_if_needed(
    pre: Observation, post: Observation, args: PlaceTorchIfNeededArgs, result: ActionResult
) -> VerificationResult:
    if not result.observables.get("torchPlaced"):
        light = result.observables.get("lightLevel")
        reason = result.observables.get("reason")
        if reason == "torch_nearby" or (isinstance(light, int) and light >= args.lightThreshold):
            return VerificationResult.verified(torchPlaced=False, reason=reason, lightLevel=light)
        return VerificationResult.contradicted(torchPlaced=False, lightLevel=light, threshold=args.lightThreshold)
    return accept_placed(pre, post, "torch", result)


# -- collect_items ------------------------------------------------------------------------------
#: how far below a falling drop its landing cell is looked for
LANDING_DEPTH = 16


class CollectItemsArgs(StrictArgs):
    itemName: str | None = Field(default=None, description="Only pick up this item; default: every dropped item")
    radius: int = Field(default=8, ge=1, le=32, description="Pick up drops within this many blocks")
    maxItems: int = Field(default=16, ge=1, le=64, description="Stop after this many items arrived")
    timeout: int = Field(default=20_000, ge=1_000, le=28_000, description="Give up after this many ms")


def visible_drops(ctx: CapabilityContext, args: CollectItemsArgs, skip: set[int]) -> list[Any]:
    me = ctx.body.position()
    drops = [
        e for e in ctx.body.entities(float(args.radius))
        if is_item_entity(e)
        and e.id not in skip
        and e.position.distance_to(me) <= args.radius
        and (args.itemName is None or (e.item is not None and e.item.name == args.itemName))
    ]
    return sorted(drops, key=lambda e: e.position.distance_to(me))


def landing_cell(ctx: CapabilityContext, cell: BlockPos) -> BlockPos:
    """Where a drop in ``cell`` ends up: the cell itself, or, for one still falling (a log broken high up),
    the first cell below it with a floor. A walk to the air cell it is passing through finds no path."""
    md = registry_data(ctx)
    for dy in range(LANDING_DEPTH):
        below = cell.offset(dy=-dy)
        if standable(md, ctx, below) != "no_floor":
            return below
    return cell


def pick_up(ctx: CapabilityContext, drop: EntityInfo, wait_ticks: int) -> Generator[ActionHandle | None, Any, bool]:
    """Walk onto the cell where ``drop`` lands, else beside it, and wait up to ``wait_ticks`` for it to leave
    the ground: True once it has. The one pick-up of a drop in view, for every leaf that picks things up
    (``collect_items``, the harvest); False when no walk starts, the walk fails or the drop stays."""
    # on the drop if possible, else beside it: wool on a slope or a ledge (natural seeds 23 and 26) has no
    # standable cell of its own, and the pickup box reaches it from the next one
    handle = walk_to_pickup(ctx, landing_cell(ctx, drop.position.block()))
    if handle is None or (yield from act(handle)) is not None:
        return False
    for _ in range(wait_ticks):  # the pickup lands a few ticks after arrival
        # the bot stands at the drop now: a look this wide sees it if it is still on the ground
        if all(e.id != drop.id for e in ctx.body.entities(24.0)):
            return True
        yield None
    return False


def guard_collect(ctx: CapabilityContext, args: CollectItemsArgs) -> GuardResult:
    if not visible_drops(ctx, args, set()):
        what = args.itemName or "dropped item"
        return GuardResult.deny("no_target", f"no {what} on the ground within {args.radius} blocks")
    return GuardResult.allow()


def total_items(ctx: CapabilityContext, item: str | None) -> int:
    return sum(s.count for s in ctx.body.inventory() if item is None or s.name == item)


def run_collect(ctx: CapabilityContext, args: CollectItemsArgs) -> RunnerGen:
    start_total = total_items(ctx, args.itemName)
    before = inventory_totals(ctx)
    deadline = ctx.body.now_ticks() + args.timeout * 20 // 1000
    skip: set[int] = set()
    while total_items(ctx, args.itemName) - start_total < args.maxItems and ctx.body.now_ticks() < deadline:
        drops = visible_drops(ctx, args, skip)
        if not drops:
            break
        drop = drops[0]
        if not (yield from pick_up(ctx, drop, COLLECT_WAIT_TICKS // 2)):
            skip.add(drop.id)
    after = inventory_totals(ctx)
    collected = {n: c - before.get(n, 0) for n, c in after.items() if c > before.get(n, 0)}
    total = total_items(ctx, args.itemName) - start_total
    if total <= 0:
        return ActionResult.failure("nothing_collected", "no dropped item reached the inventory", retryable=True)
    return ActionResult.success(collected=collected, itemsCollected=total)


def accept_collect(
    pre: Observation, post: Observation, args: CollectItemsArgs, result: ActionResult
) -> VerificationResult:
    names = [args.itemName] if args.itemName else sorted(set(pre.inventory) | set(post.inventory))
    gained = {n: post.count(n) - pre.count(n) for n in names if post.count(n) != pre.count(n)}
    total = sum(v for v in gained.values() if v > 0)
    evidence = {"gained": gained, "reported": result.observables.get("itemsCollected")}
    if total > 0:
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- place_block_at ------------------------------------------------------------------------------
class PlaceBlockAtArgs(StrictArgs):
    position: Vec3 = Field(description="The cell to fill")
    block: str = Field(min_length=1, pattern=r"^(minecraft:)?[a-z0-9_]+$", description="Block (and item) name")

    @property
    def name(self) -> str:
        return self.block.removeprefix("minecraft:")


def guard_place_block_at(ctx: CapabilityContext, args: PlaceBlockAtArgs) -> GuardResult:
    md = registry_data(ctx)
    if not md.has_block(args.name):
        return GuardResult.deny(f"unknown_block:{args.name}", f"{args.name!r} is not a block")
    if not md.has_item(args.name):
        return GuardResult.deny(f"not_placeable:{args.name}", f"{args.name!r} has no item of the same name")
    pos = args.position.as_block_pos()
    current = ctx.body.block_at(pos).name
    if current == args.name:
        return GuardResult.allow()  # already there: the runner succeeds without placing
    if not is_replaceable(current):
        return GuardResult.deny(f"occupied:{current}", f"{tuple(pos)} holds {current}")
    if count_item(ctx, args.name) < 1:
        return GuardResult.deny(f"precond_missing:item:{args.name}", f"no {args.name} in the inventory")
    if reference_for(ctx, pos) is None:
        return GuardResult.deny("no_reference_block", f"nothing solid next to {tuple(pos)} to place against")
    return GuardResult.allow()


def run_place_block_at(ctx: CapabilityContext, args: PlaceBlockAtArgs) -> RunnerGen:
    pos = args.position.as_block_pos()
    receipt = Receipt(position=pos, block=args.name)
    if ctx.body.block_at(pos).name == args.name:
        return ActionResult.success(receipt, already_present=True, placed=False, position=list(pos), block=args.name)
    failure = yield from place_step(ctx, pos, args.name)
    if failure is not None:
        return failure
    return ActionResult.success(receipt, already_present=False, placed=True, position=list(pos), block=args.name)


def accept_place_block_at(
    pre: Observation, post: Observation, args: PlaceBlockAtArgs, result: ActionResult
) -> VerificationResult:
    pos = args.position.as_block_pos()
    probe = expect_block(post, pos, args.name)
    if probe.verdict.value != "verified" or result.observables.get("already_present"):
        return probe
    # A real placement spends one item; a block that appeared without one is someone else's doing.
    spent = pre.count(args.name) - post.count(args.name)
    if spent < 1:
        return VerificationResult.inconclusive(**probe.evidence, item_spent=spent)
    return VerificationResult.verified(**probe.evidence, item_spent=spent)


# -- dig_block_at --------------------------------------------------------------------------------
class DigBlockAtArgs(StrictArgs):
    position: Vec3 = Field(description="The cell to clear")
    expect: str | None = Field(
        default=None, min_length=1, description="Refuse unless the cell holds this block (guards against drift)"
    )


def guard_dig_block_at(ctx: CapabilityContext, args: DigBlockAtArgs) -> GuardResult:
    pos = args.position.as_block_pos()
    current = ctx.body.block_at(pos).name
    if is_air(current):
        return GuardResult.allow()
    expect = args.expect.removeprefix("minecraft:") if args.expect else None
    if expect is not None and current != expect:
        return GuardResult.deny(f"unexpected_block:{current}", f"{tuple(pos)} holds {current}, expected {expect}")
    md = registry_data(ctx)
    if current in ("water", "lava") or not md.has_block(current) or not md.block(current).breakable:
        return GuardResult.deny(f"not_diggable:{current}", f"{current} cannot be broken")
    return GuardResult.allow()


def run_dig_block_at(ctx: CapabilityContext, args: DigBlockAtArgs) -> RunnerGen:
    pos = args.position.as_block_pos()
    before = ctx.body.block_at(pos).name
    receipt = Receipt(position=pos, block="air")
    if is_air(before):
        return ActionResult.success(receipt, already_air=True, dug=None, position=list(pos))
    failure = yield from dig_step(ctx, pos)
    if failure is not None:
        return failure
    return ActionResult.success(receipt, already_air=False, dug=before, position=list(pos))


def accept_dig_block_at(
    pre: Observation, post: Observation, args: DigBlockAtArgs, result: ActionResult
) -> VerificationResult:
    pos = args.position.as_block_pos()
    seen = post.block(pos)
    evidence = {"position": list(pos), "expected": "air", "observed": seen, "dug": result.observables.get("dug")}
    if seen is None:
        return VerificationResult.inconclusive(**evidence)
    if is_air(seen):
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- registration ---------------------------------------------------------------------------------


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="dig_block",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=DigBlockArgs,
        runner=run_dig,
        acceptance=accept_dig,
        guard=guard_dig,
        permissions=frozenset({Permission.DIG}),
        timeout_ms=10_000,
        retries=2,
        deprecated=True,
        deprecation_note=DIG_DEPRECATION,
        replaced_by="acquire_material",
        preconditions=("near:{blockType}",),
        effects=("air:{pos.x},{pos.y},{pos.z}",),
        description=(
            "DEPRECATED (use acquire_material): dig one block in reach with the best harvest tool; does not walk "
            "or collect the drop. Warns (DeprecationWarning and a log line) every time it runs."
        ),
    ),
    CapabilitySpec(
        name="acquire_material",
        version="1.1.0",
        family=Family.INTERACTION,
        args_model=AcquireMaterialArgs,
        runner=run_acquire,
        acceptance=accept_acquire,
        guard=guard_acquire,
        permissions=frozenset({Permission.DIG, Permission.MOVEMENT}),
        timeout_ms=ACQUIRE_TIMEOUT_MS,
            timeout_of=acquire_timeout_ms,
        retries=1,
        preconditions=("near:{item}",),
        effects=("has:{item}",),
        description=(
            "Mine until `count` items arrive: nearest block first (expanding search, at most 2 below the feet), "
            "walk within reach, equip the best harvest tool, dig, pick the drop up (walking to it if needed). "
            "`item` may be a block (stone: expects cobblestone) or a drop (cobblestone: also mines stone); the "
            "inventory delta decides; with `hold`, it also stops once the inventory holds that many (a plan's "
            "running total). Fewer ends in a retryable `partial` failure with acquired=N."
        ),
    ),
    CapabilitySpec(
        name="place_block",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=PlaceBlockArgs,
        runner=run_place_block,
        acceptance=accept_place_block,
        guard=guard_place_block,
        permissions=frozenset({Permission.PLACE}),
        timeout_ms=8_000,
        retries=1,
        preconditions=("has:{item}",),
        effects=("placed:{item}",),
        description=(
            "Place exactly one block of `item`: at `pos`, on `against`, or beside the player, against a solid "
            "face in reach. Receipt (position, block) for tri-state verification."
        ),
    ),
    CapabilitySpec(
        name="place_torch_if_needed",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=PlaceTorchIfNeededArgs,
        runner=run_torch_if_needed,
        acceptance=accept_torch_if_needed,
        guard=guard_torch_if_needed,
        permissions=frozenset({Permission.PLACE}),
        timeout_ms=10_000,
        retries=1,
        effects=("lit",),
        description=(
            "Place a torch only when the light is below lightThreshold and this bot has not placed one within "
            "`interval` blocks (it remembers its last 50 torches)."
        ),
    ),
    CapabilitySpec(
        name="place_torch",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=PlaceTorchArgs,
        runner=run_place_torch,
        acceptance=accept_place_torch,
        guard=guard_place_torch,
        permissions=frozenset({Permission.PLACE}),
        timeout_ms=5_000,
        retries=1,
        preconditions=("has:torch",),
        effects=("placed:torch", "lit"),
        description="Place a torch at `position` (default: where the player stands, else beside it), unconditionally.",
    ),
    CapabilitySpec(
        name="collect_items",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=CollectItemsArgs,
        runner=run_collect,
        acceptance=accept_collect,
        guard=guard_collect,
        permissions=frozenset({Permission.MOVEMENT}),
        timeout_ms=30_000,
        retries=1,
        effects=("has:{itemName}",),
        description=(
            "Walk (pathfinder) onto dropped items within radius, nearest first, until maxItems arrived; verified "
            "by the inventory delta."
        ),
    ),
    CapabilitySpec(
        name="place_block_at",
        args_model=PlaceBlockAtArgs,
        runner=run_place_block_at,
        acceptance=accept_place_block_at,
        guard=guard_place_block_at,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE}),
        timeout_ms=20_000,
        retries=2,
        idempotent=True,
        preconditions=("has:{block}",),
        effects=("block:{position.x},{position.y},{position.z}={block}",),
        description=(
            "Place one block at an exact position (the build protocol's per-block placement). Idempotent: a block "
            "already there succeeds with already_present=true. Walks within reach, places against a solid "
            "neighbour face, steps out of the cell if standing in it. Receipt: position and block."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
    CapabilitySpec(
        name="dig_block_at",
        args_model=DigBlockAtArgs,
        runner=run_dig_block_at,
        acceptance=accept_dig_block_at,
        guard=guard_dig_block_at,
        permissions=frozenset({Permission.MOVEMENT, Permission.DIG}),
        timeout_ms=30_000,
        retries=2,
        idempotent=True,
        effects=("air:{position.x},{position.y},{position.z}",),
        description=(
            "Clear one block at an exact position with the best harvest tool in the inventory (auto-equip). "
            "Idempotent on air; refuses unexpected_block:<name> when expect is given and differs. "
            "Drops are not collected (use acquire_material to gather)."
        ),
        family=Family.CONSTRUCTION,
        version="1.0.0",
    ),
)
