"""Movement leaves: move_to (and its alias navigate), step_forward_safely, follow_entity (seed 000).

Runners that must watch the world while the body walks (stuck detection, a
moving target) yield ``None`` each tick and poll the goto handle themselves;
their ``finally`` cancels the handle, so an interrupted leaf never leaves the
body walking.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from craftbt.capabilities.leaves.common import (
    Issued,
    StrictArgs,
    Vec3,
    body_reader,
    failure_from,
    failure_from_error,
    registry_data,
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
from craftbt.world.body import TICKS_PER_SECOND, ActionHandle, ActionStatus, BlockPos, BodyError, Observation, Position
from craftbt.world.terrain import HAZARDS, Footing, footing, solid_in

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.world.mcdata import McData

#: Seed 000 stuck detection: less than this many blocks moved ...
STUCK_DISTANCE = 0.5
#: ... in this many ticks (6 s) means the walk is stuck.
STUCK_TICKS = 6 * TICKS_PER_SECOND
#: Seed 000 "safe" light level for step_forward_safely's checkLight.
SAFE_LIGHT = 8
#: Acceptance slack on top of the goal tolerance: bodies stop within a fraction of a block.
ARRIVAL_SLACK = 1.0


def feet_target(pos: BlockPos) -> Position:
    """Where a player standing in block ``pos`` has its feet: the centre of the block's floor."""
    return Position(pos.x + 0.5, pos.y, pos.z + 0.5)


def standable(md: McData, ctx: CapabilityContext, pos: BlockPos) -> Footing | None:
    """``None`` if a player can stand at ``pos`` safely, else why not (:func:`craftbt.world.terrain.footing`)."""
    return footing(body_reader(ctx), solid_in(md), pos)


def watch_walk(ctx: CapabilityContext, handle: ActionHandle, budget_ticks: int) -> RunnerGen:
    """Poll a goto each tick with the seed's stuck detection; the handle is cancelled if we stop early."""
    start = ctx.body.now_ticks()
    mark_tick, mark_pos = start, ctx.body.position()
    try:
        while handle.status() is ActionStatus.RUNNING:
            now = ctx.body.now_ticks()
            if now - start > budget_ticks:
                handle.cancel("timeout")
                return ActionResult.failure(
                    "timeout", f"not there after {budget_ticks * 1000 // TICKS_PER_SECOND} ms", retryable=True
                )
            if now - mark_tick >= STUCK_TICKS:
                here = ctx.body.position()
                if here.distance_to(mark_pos) < STUCK_DISTANCE:
                    handle.cancel("stuck")
                    return ActionResult.failure(
                        "stuck", f"moved less than {STUCK_DISTANCE} blocks in {STUCK_TICKS // TICKS_PER_SECOND} s",
                        retryable=True,
                    )
                mark_tick, mark_pos = now, here
            yield None
    finally:
        if handle.status() is ActionStatus.RUNNING:
            handle.cancel("interrupted")
    failure = failure_from(handle)
    return failure if failure is not None else ActionResult.success()


# -- move_to / navigate -------------------------------------------------------------
class MoveToArgs(StrictArgs):
    pos: Vec3 = Field(description="Target block (the block the player's feet should end in or near)")
    goal: Literal["near", "block"] = Field(
        default="near", description="near: stop within `range` blocks; block: stand in the target block"
    )
    range: float = Field(default=1.0, ge=0.5, le=16, description="Arrival distance for goal=near, in blocks")
    safe: bool = Field(default=True, description="Refuse targets in or on lava, fire, cactus and other hazards")
    timeout: int | None = Field(
        default=None,
        ge=1_000,
        le=300_000,
        description="Give up after this many ms; default grows with distance (5 s + 0.5 s per block)",
    )

    def tolerance(self) -> float:
        return 0.5 if self.goal == "block" else self.range


def guard_move_to(ctx: CapabilityContext, args: MoveToArgs) -> GuardResult:
    if not args.safe:
        return GuardResult.allow()
    target = args.pos.as_block_pos()
    names = {ctx.body.block_at(target.offset(dy=dy)).name for dy in (-1, 0, 1)}
    hazards = sorted(names & HAZARDS | (names & {"lava"}))
    if hazards:
        return GuardResult.deny("unsafe_target", f"{tuple(target)} is at {', '.join(hazards)}; pass safe=false to go")
    return GuardResult.allow()


def run_move_to(ctx: CapabilityContext, args: MoveToArgs) -> RunnerGen:
    target = args.pos.as_block_pos()
    start = ctx.body.position()
    distance = start.distance_to(feet_target(target))
    if distance <= args.tolerance():
        return ActionResult.success(targetReached=True, distance=round(distance, 2), pathLength=0)
    budget_ms = args.timeout if args.timeout is not None else 5_000 + int(500 * distance)
    try:
        handle = ctx.body.goto(target, tolerance=args.tolerance())
    except BodyError as err:
        return failure_from_error(err, targetReached=False)
    yield Issued(handle)  # announce the first body command (TTFA); watch_walk polls it
    outcome = yield from watch_walk(ctx, handle, budget_ms * TICKS_PER_SECOND // 1000)
    end = ctx.body.position()
    remaining = round(end.distance_to(feet_target(target)), 2)
    if not outcome.ok:
        outcome.observables.update(targetReached=False, distance=remaining)
        return outcome
    return ActionResult.success(
        targetReached=True,
        distance=remaining,
        pathLength=round(start.distance_to(end), 2),
        position=[round(end.x, 2), round(end.y, 2), round(end.z, 2)],
    )


def accept_move_to(pre: Observation, post: Observation, args: MoveToArgs, result: ActionResult) -> VerificationResult:
    target = feet_target(args.pos.as_block_pos())
    before = round(pre.position.distance_to(target), 2)
    after = round(post.position.distance_to(target), 2)
    evidence = {"distance_before": before, "distance_after": after, "tolerance": args.tolerance()}
    if after <= args.tolerance() + ARRIVAL_SLACK:
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- step_forward_safely -------------------------------------------------------------
class StepForwardArgs(StrictArgs):
    distance: int = Field(default=1, ge=1, le=8, description="Blocks to step forward (stops early before danger)")
    checkLight: bool = Field(default=True, description=f"Only step into blocks with light >= {SAFE_LIGHT}")


def facing(yaw: float) -> tuple[int, int]:
    """The cardinal (dx, dz) the player faces. Mineflayer's convention: yaw 0 faces -z, pi/2 faces -x."""
    fx, fz = -math.sin(yaw), -math.cos(yaw)
    if abs(fx) >= abs(fz):
        return (1 if fx > 0 else -1), 0
    return 0, (1 if fz > 0 else -1)


def safe_steps(ctx: CapabilityContext, args: StepForwardArgs) -> tuple[list[BlockPos], str | None]:
    """The consecutive safe cells ahead (at most ``distance``), and why the walk stops short (or None)."""
    md = registry_data(ctx)
    dx, dz = facing(ctx.body.observe().yaw)
    cell = ctx.body.position().block()
    cells: list[BlockPos] = []
    for _ in range(args.distance):
        ahead = cell.offset(dx=dx, dz=dz)
        reason = standable(md, ctx, ahead)
        if reason == "no_floor" and standable(md, ctx, ahead.offset(dy=-1)) is None:
            ahead, reason = ahead.offset(dy=-1), None  # a one-block step down is safe
        if reason is not None:
            return cells, reason
        if args.checkLight and ctx.body.light_level(ahead) < SAFE_LIGHT:
            return cells, "too_dark"
        cells.append(ahead)
        cell = ahead
    return cells, None


def guard_step_forward(ctx: CapabilityContext, args: StepForwardArgs) -> GuardResult:
    cells, reason = safe_steps(ctx, StepForwardArgs(distance=1, checkLight=args.checkLight))
    if not cells:
        code = "too_dark" if reason == "too_dark" else "unsafe_ahead"
        return GuardResult.deny(code, f"the block ahead is not safe to step into ({reason})")
    return GuardResult.allow()


def run_step_forward(ctx: CapabilityContext, args: StepForwardArgs) -> RunnerGen:
    cells, stopped = safe_steps(ctx, args)
    if not cells:
        return ActionResult.failure("unsafe_ahead", f"the block ahead is not safe ({stopped})")
    try:
        handle = ctx.body.goto(cells[-1], tolerance=0.5)
    except BodyError as err:
        return failure_from_error(err)
    yield Issued(handle)
    outcome = yield from watch_walk(ctx, handle, (2 + len(cells)) * TICKS_PER_SECOND)
    if not outcome.ok:
        return outcome
    pos = ctx.body.position()
    return ActionResult.success(
        newPosition=[round(pos.x, 2), round(pos.y, 2), round(pos.z, 2)],
        stepped=len(cells),
        stoppedShort=stopped,
        lightLevel=ctx.body.light_level(pos.block()),
    )


def accept_step_forward(
    pre: Observation, post: Observation, args: StepForwardArgs, result: ActionResult
) -> VerificationResult:
    dx, dz = facing(pre.yaw)
    advanced = round((post.position.x - pre.position.x) * dx + (post.position.z - pre.position.z) * dz, 2)
    evidence = {"advanced": advanced, "stepped": result.observables.get("stepped")}
    if advanced >= 0.5:
        return VerificationResult.verified(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- follow_entity -----------------------------------------------------------------------
class FollowEntityArgs(StrictArgs):
    entityId: int = Field(description="Id of the entity to follow (from sense_hostiles or the body's entity list)")
    range: float = Field(default=3.0, ge=1, le=16, description="Close enough, in blocks")
    timeout: int = Field(default=15_000, ge=1_000, le=25_000, description="Give up reaching it after this many ms")
    duration: int = Field(
        default=0, ge=0, le=20_000, description="After reaching it, keep following for this many ms"
    )


#: How far we look for the followed entity; beyond this it is lost.
FOLLOW_SIGHT = 64.0
#: Re-plan the walk when the entity has moved this far from where we were heading.
REPATH_DISTANCE = 1.5


def find_entity(ctx: CapabilityContext, entity_id: int) -> Position | None:
    for entity in ctx.body.entities(FOLLOW_SIGHT):
        if entity.id == entity_id:
            return entity.position
    return None


def guard_follow(ctx: CapabilityContext, args: FollowEntityArgs) -> GuardResult:
    if find_entity(ctx, args.entityId) is None:
        return GuardResult.deny("no_target", f"no entity {args.entityId} within {FOLLOW_SIGHT:g} blocks")
    return GuardResult.allow()


def run_follow(ctx: CapabilityContext, args: FollowEntityArgs) -> RunnerGen:
    start = ctx.body.now_ticks()
    reach_by = start + args.timeout * TICKS_PER_SECOND // 1000
    reached_at: int | None = None
    handle: ActionHandle | None = None
    heading: Position | None = None
    commands = 0
    try:
        while True:
            now = ctx.body.now_ticks()
            target = find_entity(ctx, args.entityId)
            if target is None:
                return ActionResult.failure("lost_target", f"entity {args.entityId} is gone", retryable=True)
            distance = ctx.body.position().distance_to(target)
            if distance <= args.range:
                reached_at = now if reached_at is None else reached_at
                if now - reached_at >= args.duration * TICKS_PER_SECOND // 1000:
                    # the verifier lists the entities again and measures the distance itself
                    return ActionResult.success(Receipt(extra={"probe_entities": FOLLOW_SIGHT}),
                                                distance=round(distance, 2), reached=True, pathCommands=commands)
            elif reached_at is None and now > reach_by:
                return ActionResult.failure(
                    "timeout", f"still {distance:.1f} blocks away after {args.timeout} ms",
                    retryable=True, distance=round(distance, 2),
                )
            if handle is not None and handle.status() is not ActionStatus.RUNNING:
                failure = failure_from(handle)
                handle = None
                if failure is not None and failure.error is not None and failure.error.code == "no_path":
                    return failure
            moved = heading is not None and heading.distance_to(target) > REPATH_DISTANCE
            if distance > args.range and (handle is None or moved):
                if handle is not None:
                    handle.cancel("repath")
                try:
                    handle = ctx.body.goto(target.block(), tolerance=max(1.0, args.range - 1.0))
                except BodyError as err:
                    return failure_from_error(err)
                heading = target
                commands += 1
                yield Issued(handle) if commands == 1 else None
            else:
                yield None
    finally:
        if handle is not None and handle.status() is ActionStatus.RUNNING:
            handle.cancel("interrupted")


def accept_follow(
    pre: Observation, post: Observation, args: FollowEntityArgs, result: ActionResult
) -> VerificationResult:
    """The entities are listed again after the run: the followed one must be within range of the bot now."""
    reported = result.observables.get("distance")
    evidence: dict[str, Any] = {"reported": reported, "range": args.range,
                                "moved": round(post.position.distance_to(pre.position), 2)}
    if post.entities is None:
        return VerificationResult.inconclusive(reason="the entities could not be listed again", **evidence)
    target = next((e for e in post.entities if e.id == args.entityId), None)
    if target is None:
        return VerificationResult.inconclusive(reason="the entity is gone", **evidence)
    distance = round(post.position.distance_to(target.position), 2)
    if distance <= args.range + ARRIVAL_SLACK:
        return VerificationResult.verified(distance=distance, **evidence)
    return VerificationResult.contradicted(distance=distance, **evidence)


def _move_to_spec(name: str, description: str) -> CapabilitySpec:
    return CapabilitySpec(
        name=name,
        version="1.0.0",
        family=Family.MOVEMENT,
        args_model=MoveToArgs,
        runner=run_move_to,
        acceptance=accept_move_to,
        guard=guard_move_to,
        permissions=frozenset({Permission.MOVEMENT}),
        timeout_ms=30_000,
        retries=2,
        idempotent=True,
        effects=("at:{pos.x},{pos.y},{pos.z}",),
        description=description,
    )


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    _move_to_spec(
        "move_to",
        "Walk to a block with the body's pathfinder; fails stuck (<0.5 blocks in 6 s), no_path or timeout "
        "(default 5 s + 0.5 s per block). Verified by the final position.",
    ),
    _move_to_spec("navigate", "Alias of move_to (same arguments, same contract); the seed's REST action name."),
    CapabilitySpec(
        name="step_forward_safely",
        version="1.0.0",
        family=Family.MOVEMENT,
        args_model=StepForwardArgs,
        runner=run_step_forward,
        acceptance=accept_step_forward,
        guard=guard_step_forward,
        permissions=frozenset({Permission.MOVEMENT}),
        timeout_ms=5_000,
        retries=1,
        description=(
            "Step up to `distance` blocks in the facing direction, stopping before hazards, drops of more "
            "than one block, walls and (checkLight) dark blocks."
        ),
    ),
    CapabilitySpec(
        name="follow_entity",
        version="1.0.0",
        family=Family.MOVEMENT,
        args_model=FollowEntityArgs,
        runner=run_follow,
        acceptance=accept_follow,
        guard=guard_follow,
        permissions=frozenset({Permission.MOVEMENT}),
        timeout_ms=30_000,
        retries=1,
        description=(
            "Walk after an entity until within `range` (then keep following `duration` ms); re-plans when it "
            "moves; fails lost_target when it disappears."
        ),
    ),
)
