"""Survival leaves: consume_food and sleep (eat the best harmless food; sleep the night away in a bed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from craftbt.capabilities.leaves.blocks import combine, inventory_names, nearest_blocks, place_one
from craftbt.capabilities.leaves.common import (
    StrictArgs,
    act,
    approach,
    count_item,
    expect_block,
    failure_from_error,
    perform,
    registry_data,
)
from craftbt.capabilities.leaves.movement import standable
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
from craftbt.world.body import BlockPos, BodyError, Face, Observation
from craftbt.world.daytime import NIGHT_END, NIGHT_START, is_night

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.world.mcdata import FoodData, McData

#: Foods that hurt (poison, hunger, teleport). A safety policy, not registry data.
HARMFUL_FOODS = frozenset(
    {"rotten_flesh", "spider_eye", "poisonous_potato", "pufferfish", "suspicious_stew", "chorus_fruit"}
)
MAX_FOOD = 20


# -- consume_food -----------------------------------------------------------------------------
class ConsumeFoodArgs(StrictArgs):
    food_type: str | None = Field(default=None, description="Food to eat; default: the best food carried")
    amount: int = Field(default=1, ge=1, le=64, description="Items to eat (stops early when full)")
    until_saturation: bool = Field(default=False, description="Keep eating until the food bar is full")


def edible(md: McData, name: str) -> FoodData | None:
    """The food data of ``name`` if a bot eats it: a food of the game's data and not a harmful one."""
    if name in HARMFUL_FOODS or not md.has_item(name):
        return None
    return md.food(name)


def best_food(md: McData, ctx: CapabilityContext, exclude: str | None = None) -> str | None:
    """The carried food that fills the missing hunger best with least waste; harmful foods never."""
    missing = MAX_FOOD - ctx.body.food()
    options = []
    for name in inventory_names(ctx):
        food = edible(md, name) if name != exclude else None
        if food is not None:
            options.append(food)
    if not options:
        return None
    # Prefer the biggest meal that does not overshoot; otherwise the smallest that does.
    fitting = [f for f in options if f.food_points <= missing]
    if fitting:
        return max(fitting, key=lambda f: (f.food_points, f.saturation, f.name)).name
    return min(options, key=lambda f: (f.food_points, -f.saturation, f.name)).name


def guard_consume(ctx: CapabilityContext, args: ConsumeFoodArgs) -> GuardResult:
    md = registry_data(ctx)
    if args.food_type is not None and (not md.has_item(args.food_type) or md.food(args.food_type) is None):
        return GuardResult.deny("not_edible", f"{args.food_type} is not food")
    if ctx.body.food() >= MAX_FOOD:
        return GuardResult.deny("not_hungry", f"food is {ctx.body.food()}/{MAX_FOOD}")
    if args.food_type is not None:
        if count_item(ctx, args.food_type) < 1:
            return GuardResult.deny("precond_missing:food", f"no {args.food_type} in the inventory")
    elif best_food(md, ctx) is None:
        return GuardResult.deny("precond_missing:food", "no edible, harmless food in the inventory")
    return GuardResult.allow()


def run_consume(ctx: CapabilityContext, args: ConsumeFoodArgs) -> RunnerGen:
    md = registry_data(ctx)
    eaten: dict[str, int] = {}
    food_before = ctx.body.food()
    target = MAX_FOOD * 10 if args.until_saturation else args.amount  # until_saturation: bounded by the food bar
    while sum(eaten.values()) < target and ctx.body.food() < MAX_FOOD:
        name = args.food_type if args.food_type is not None else best_food(md, ctx)
        if name is None or count_item(ctx, name) < 1:
            break
        try:
            handle = ctx.body.consume(name)
        except BodyError as err:
            if eaten:
                break
            return failure_from_error(err)
        failure = yield from act(handle)
        if failure is not None:
            if eaten:
                break
            return failure
        eaten[name] = eaten.get(name, 0) + 1
    if not eaten:
        return ActionResult.failure("not_consumed", "nothing was eaten")
    return ActionResult.success(
        itemsConsumed=sum(eaten.values()), eaten=eaten, foodBefore=food_before, foodAfter=ctx.body.food()
    )


def accept_consume(
    pre: Observation, post: Observation, args: ConsumeFoodArgs, result: ActionResult
) -> VerificationResult:
    eaten: dict[str, int] = dict(result.observables.get("eaten") or {})
    spent = {name: pre.count(name) - post.count(name) for name in eaten}
    evidence = {
        "eaten": eaten,
        "spent": spent,
        "food": [pre.food, post.food],
        "saturation": [pre.saturation, post.saturation],
    }
    fed = post.food > pre.food or post.saturation > pre.saturation
    if eaten and all(spent[n] >= c for n, c in eaten.items()) and fed:
        return VerificationResult.verified(**evidence)
    if any(v > 0 for v in spent.values()) or fed:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult.contradicted(**evidence)


# -- sleep ---------------------------------------------------------------------------------------
class SleepArgs(StrictArgs):
    force: bool = Field(default=False, description="Try even outside the night window (thunderstorms)")
    searchRadius: int = Field(default=16, ge=1, le=32, description="Look for a bed within this many blocks")
    placeBed: bool = Field(default=True, description="Place a bed from the inventory when none is near")


def bed_names(md: McData) -> list[str]:
    return sorted(b.name for b in md.blocks() if b.name.endswith("_bed"))


def bed_item(ctx: CapabilityContext, md: McData) -> str | None:
    beds = set(bed_names(md))
    return next((n for n in inventory_names(ctx) if n in beds), None)


def bed_spot(ctx: CapabilityContext, md: McData) -> tuple[BlockPos, BlockPos, Face] | None:
    """A floor cell next to the player with room for a two-block bed."""
    feet = ctx.body.position().block()
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        cell = feet.offset(dx=dx, dz=dz)
        foot_end = cell.offset(dx=dx, dz=dz)
        if all(standable(md, ctx, c) is None for c in (cell, foot_end)):
            return cell, cell.offset(dy=-1), Face.UP
    return None


def guard_sleep(ctx: CapabilityContext, args: SleepArgs) -> GuardResult:
    now = ctx.body.time_of_day()
    if not args.force and not is_night(now):
        return GuardResult.deny("daytime", f"cannot sleep during the day (time: {now % 24_000})")
    md = registry_data(ctx)
    if ctx.body.find_blocks(bed_names(md), args.searchRadius, max_count=1):
        return GuardResult.allow()
    if not args.placeBed or bed_item(ctx, md) is None:
        return GuardResult.deny("precond_missing:bed", f"no bed within {args.searchRadius} blocks or in the inventory")
    if bed_spot(ctx, md) is None:
        return GuardResult.deny("no_reference_block", "no flat two-block spot beside the player for a bed")
    return GuardResult.allow()


def run_sleep(ctx: CapabilityContext, args: SleepArgs) -> RunnerGen:
    md = registry_data(ctx)
    names = bed_names(md)
    receipt: Receipt | None = None
    beds = nearest_blocks(ctx, names, args.searchRadius, set())
    if not beds:
        item, spot = bed_item(ctx, md), bed_spot(ctx, md)
        if item is None or spot is None:
            return ActionResult.failure("precond_missing:bed", "no bed to sleep in")
        placed = yield from place_one(ctx, item, *spot)
        if not placed.ok:
            return placed
        receipt = placed.receipt
        beds = [spot[0]]
    bed = beds[0]
    failure = yield from approach(ctx, bed, reach=3.0)
    if failure is not None:
        return failure
    failure = yield from perform(lambda: ctx.body.sleep(bed))
    if failure is not None:
        return failure
    now = ctx.body.time_of_day()
    return ActionResult.success(
        receipt=receipt, slept=True, bed=[bed.x, bed.y, bed.z], bedPlaced=receipt is not None, timeAfter=now % 24_000
    )


def accept_sleep(pre: Observation, post: Observation, args: SleepArgs, result: ActionResult) -> VerificationResult:
    evidence: dict[str, Any] = {"time_before": pre.time_of_day % 24_000, "time_after": post.time_of_day % 24_000}
    checks: list[VerificationResult] = []
    if result.receipt is not None and result.receipt.position is not None and result.receipt.block is not None:
        checks.append(expect_block(post, result.receipt.position, result.receipt.block))
    # Sleeping skips the night: the clock wrapped into the morning, or jumped forward past NIGHT_END.
    if is_night(pre.time_of_day) and not is_night(post.time_of_day):
        checks.append(VerificationResult.verified(night_skipped=True))
    else:
        checks.append(VerificationResult.inconclusive(night_skipped=False))
    return combine(checks, **evidence)


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="consume_food",
        version="1.0.0",
        family=Family.INTERACTION,
        args_model=ConsumeFoodArgs,
        runner=run_consume,
        acceptance=accept_consume,
        guard=guard_consume,
        permissions=frozenset({Permission.CONSUME}),
        timeout_ms=10_000,
        retries=2,
        preconditions=("has:{food_type}",),
        effects=("fed",),
        description=(
            "Eat `amount` items (or until full); without food_type the best carried food from minecraft-data "
            "(biggest meal that does not overshoot, never harmful foods). Refuses not_hungry / precond_missing:food."
        ),
    ),
    CapabilitySpec(
        name="sleep",
        version="1.0.0",
        awaits_world=True,
        family=Family.INTERACTION,
        args_model=SleepArgs,
        runner=run_sleep,
        acceptance=accept_sleep,
        guard=guard_sleep,
        permissions=frozenset({Permission.MOVEMENT, Permission.PLACE, Permission.SLEEP}),
        timeout_ms=30_000,
        retries=1,
        preconditions=("night",),
        effects=("daytime",),
        description=(
            f"Sleep in the nearest bed (placing one from the inventory if allowed); refuses `daytime` outside "
            f"ticks {NIGHT_START}-{NIGHT_END} unless force."
        ),
    ),
)
