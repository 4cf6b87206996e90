"""Crafting leaves (seed 000): craft_recipe, smelt, place_workstation, introspect_recipe.

Recipes, smelting times and fuel values come from minecraft-data (``world.mcdata``), never from a
hand-typed table. The seed's gaps are closed here: ``craft_recipe`` refuses ``precond_missing:table``
instead of failing silently, ``smelt`` checks fuel before anything moves, and ``place_workstation``
reuses a station within :data:`REUSE_RADIUS` and never places a second one there (no sprawl).

``smelt`` may place a furnace from the inventory when none is within :data:`REUSE_RADIUS` (it uses the
same spot search as ``place_workstation``), so a plan need not inject ``place_workstation`` first.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from craftbt.capabilities.contracts import WORKSTATIONS
from craftbt.capabilities.leaves.blockwork import bot_cells, dig_step, place_step
from craftbt.capabilities.leaves.common import (
    REACH,
    Step,
    StrictArgs,
    Vec3,
    act,
    approach,
    equip,
    expect_block,
    expect_gain,
    inventory_totals,
    is_solid,
    perform,
    registry_data,
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
    Verdict,
    VerificationResult,
)
from craftbt.capabilities.structures import is_air, is_replaceable
from craftbt.world.body import TICKS_PER_SECOND, ActionHandle, BlockPos, BodyError, Face, Observation, Position
from craftbt.world.mcdata import McData, McDataFileError, Recipe, UnknownName, load
from craftbt.world.terrain import LIQUIDS

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: A station this close (blocks, from the feet) is reused rather than a new one placed.
REUSE_RADIUS = 8
#: The seed's crafting-table search: a table this close is walked to when out of reach.
TABLE_RADIUS = 6
#: Extra ticks a smelt waits beyond the cook time before deciding the furnace stalled.
SMELT_SLACK_TICKS = 5 * TICKS_PER_SECOND


#: seed 000: a smelt's timeout scales with qty, 12 s per item + 10 s overhead, at least 30 s
SMELT_MS_PER_ITEM = 12_000
SMELT_OVERHEAD_MS = 10_000
SMELT_MIN_TIMEOUT_MS = 30_000


def smelt_timeout_ms(args: SmeltArgs) -> int:
    """How long ``smelt`` may take for ``args.qty`` items (a furnace cooks one item in 10 s)."""
    return max(SMELT_MIN_TIMEOUT_MS, SMELT_MS_PER_ITEM * args.qty + SMELT_OVERHEAD_MS)


def smelt_effects(args: dict[str, Any]) -> tuple[str, ...]:
    """``has_smelted:raw_iron`` also means ``has:iron_ingot``: the furnace result, from minecraft-data."""
    try:
        result = load().smelting_result(str(args.get("input", "")))
    except UnknownName:  # an unknown input smelts into nothing anyone can name
        return ()
    return (f"has:{result.output}",) if result is not None else ()


def _md(ctx: CapabilityContext) -> McData:
    return registry_data(ctx)



def _nearest(ctx: CapabilityContext, names: list[str], radius: int) -> BlockPos | None:
    found = ctx.body.find_blocks(names, radius, max_count=16)
    if not found:
        return None
    here = ctx.body.position()
    return min(found, key=lambda p: p.distance_to(Position(here.x - 0.5, here.y, here.z - 0.5)))


# == craft_recipe ===================================================================================
class CraftRecipeArgs(StrictArgs):
    recipe: str = Field(min_length=1, description="Item to craft (minecraft-data name, e.g. oak_planks)")
    qty: int = Field(default=1, ge=1, le=576, description="How many items; rounded up to the recipe's output")
    timeoutMs: int | None = Field(  # the seed's argument name
        default=None, ge=1000, le=600_000, description="Give up after this long (ms of game time)"
    )


@dataclass(frozen=True)
class CraftPlan:
    recipe: Recipe | None = None
    crafts: int = 0
    missing: dict[str, int] = field(default_factory=dict)
    #: the items the crafts consume (a slot's options mixed as the inventory holds them)
    uses: dict[str, int] = field(default_factory=dict)


def plan_craft(md: McData, item: str, qty: int, inventory: dict[str, int]) -> CraftPlan:
    """Pick the recipe variant the inventory can pay for (or the one missing least)."""
    best: CraftPlan | None = None
    for recipe in md.recipes_for(item):
        crafts = math.ceil(qty / recipe.count)
        plan = CraftPlan(recipe=recipe, crafts=crafts, missing=recipe.shortfall(crafts, inventory),
                         uses=recipe.fill(crafts, inventory))
        missing = plan.missing
        if not missing:
            return plan
        if best is None or sum(missing.values()) < sum(best.missing.values()):
            best = plan
    return best or CraftPlan()


def guard_craft(ctx: CapabilityContext, args: CraftRecipeArgs) -> GuardResult:
    md = _md(ctx)
    try:
        plan = plan_craft(md, args.recipe, args.qty, inventory_totals(ctx))
    except UnknownName as err:
        return GuardResult.deny("unknown_item", err.detail)
    if plan.recipe is None:
        return GuardResult.deny("no_recipe", f"{args.recipe} has no crafting recipe")
    if plan.missing:
        first = sorted(plan.missing)[0]
        return GuardResult.lacking(
            first, plan.missing[first], "missing " + ", ".join(f"{n} x{c}" for n, c in sorted(plan.missing.items())),
            missing=plan.missing,
        )
    if plan.recipe.needs_table and _nearest(ctx, ["crafting_table"], TABLE_RADIUS) is None:
        return GuardResult.deny(
            "precond_missing:table",
            f"{args.recipe} needs a 3x3 grid and no crafting_table is within {TABLE_RADIUS} blocks",
        )
    return GuardResult.allow()


def run_craft(ctx: CapabilityContext, args: CraftRecipeArgs) -> RunnerGen:
    md = _md(ctx)
    plan = plan_craft(md, args.recipe, args.qty, inventory_totals(ctx))
    recipe = plan.recipe
    if recipe is None or plan.missing:
        return ActionResult.failure("missing_item", f"ingredients for {args.recipe} are gone")
    deadline = ctx.body.now_ticks() + (args.timeoutMs or 0) * TICKS_PER_SECOND // 1000
    table: BlockPos | None = None
    if recipe.needs_table:
        table = _nearest(ctx, ["crafting_table"], TABLE_RADIUS)
        if table is None:
            return ActionResult.failure("precond_missing:table", f"no crafting_table within {TABLE_RADIUS} blocks")
        failure = yield from approach(ctx, table)
        if failure is not None:
            return failure
    made = 0
    # One craft per command: every body agrees on what craft(item, 1) does (one batch of the recipe).
    for _ in range(plan.crafts):
        if args.timeoutMs is not None and ctx.body.now_ticks() > deadline:
            return ActionResult.failure("timeout", f"crafted {made} of {plan.crafts}", retryable=True)
        failure = yield from perform(lambda: ctx.body.craft(args.recipe, 1, table))
        if failure is not None:
            failure.observables["crafted"] = made
            return failure
        made += 1
    return ActionResult.success(
        recipe=args.recipe,
        crafted=made,
        expected_gain=made * recipe.count,
        consumed=recipe.fill(made, plan.uses),
        table=list(table) if table is not None else None,
    )


def accept_craft(
    pre: Observation, post: Observation, args: CraftRecipeArgs, result: ActionResult
) -> VerificationResult:
    expected = int(result.observables.get("expected_gain", args.qty))
    gained = expect_gain(pre, post, args.recipe, expected)
    consumed: dict[str, int] = result.observables.get("consumed", {})
    short = {
        name: {"expected": need, "observed": pre.count(name) - post.count(name)}
        for name, need in consumed.items()
        if pre.count(name) - post.count(name) < need
    }
    evidence = {**gained.evidence, "consumed": consumed, "not_consumed": short}
    if gained.verdict is Verdict.VERIFIED and short:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult(verdict=gained.verdict, evidence=evidence)


# == placement shared by place_workstation and smelt ================================================


def placement_spot(ctx: CapabilityContext, md: McData) -> BlockPos | None:
    """An air cell (or a grass tuft's) next to the player, on a solid block, clear of the player's hitbox,
    within reach."""
    feet = ctx.body.position().block()
    # near a corner of its block the 0.6-wide hitbox reaches into up to three neighbouring columns
    occupied = bot_cells(ctx)
    candidates: list[BlockPos] = []
    for dist in (1, 2, 3):
        for dx in range(-dist, dist + 1):
            for dz in range(-dist, dist + 1):
                if max(abs(dx), abs(dz)) != dist:
                    continue
                for dy in (0, -1, 1):
                    candidates.append(feet.offset(dx, dy, dz))
    for spot in candidates:
        if spot in occupied:
            continue
        held = ctx.body.block_at(spot).name
        # a grass tuft or snow layer is replaced by the placement (vanilla): a plains meadow has few bare cells
        if not (is_air(held) or (is_replaceable(held) and held not in LIQUIDS)):
            continue
        if not is_solid(md, ctx.body.block_at(spot.offset(dy=-1)).name):
            continue
        if within_reach(ctx, spot):
            return spot
    return None


#: Blocks a niche is never dug into: what holds water or lava back, or what someone placed to use.
NICHE_NEVER = frozenset({"crafting_table", "furnace", "chest", "bedrock"})


def dig_niche(ctx: CapabilityContext, md: McData) -> Generator[ActionHandle | None, Any, BlockPos | None]:
    """Underground (a one-wide staircase, the crafting table in the only free cell), dig the wall block
    beside the feet so a station fits there: the cell below must be solid, nothing liquid may touch it."""
    feet = ctx.body.position().block()
    for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        cell = feet.offset(dx, 0, dz)
        name = ctx.body.block_at(cell).name
        if name in NICHE_NEVER or not is_solid(md, name) or not md.block(name).breakable:
            continue
        if not is_solid(md, ctx.body.block_at(cell.offset(dy=-1)).name):
            continue
        touching = [ctx.body.block_at(cell.offset(*o)).name for o in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, 0, 1),
                                                                       (0, 0, -1))]
        if any(n in LIQUIDS for n in touching):
            continue
        failure = yield from dig_step(ctx, cell)
        if failure is None and ctx.body.block_at(cell).is_air:
            return cell
    return None


def place_station(ctx: CapabilityContext, md: McData, station: str) -> Step:
    """Place ``station`` from the inventory next to the player; the spot is in ``ctx.memory``."""
    spot = placement_spot(ctx, md)
    if spot is None:
        spot = yield from dig_niche(ctx, md)
    if spot is None:
        return ActionResult.failure("no_placement_spot", f"no air cell on solid ground within {REACH} blocks, "
                                    "and no wall beside the feet to dig a niche into")
    failure = yield from equip(ctx, station)
    if failure is not None:
        return failure
    failure = yield from perform(lambda: ctx.body.place(station, spot.offset(dy=-1), Face.UP))
    if failure is not None:
        return failure
    ctx.memory["placed_station"] = spot
    return None


# == place_workstation ==============================================================================
def _check_workstation(value: str) -> str:
    if value not in WORKSTATIONS:
        raise ValueError(f"workstation must be one of {', '.join(WORKSTATIONS)}")
    return value


#: Seed 001 "try alternate positions within bounded budget": at most this many utility-zone spots.
SPOT_BUDGET = 6


class PlaceWorkstationArgs(StrictArgs):
    workstation: str = Field(
        description="Workstation block to have within reach", json_schema_extra={"enum": list(WORKSTATIONS)}
    )
    known: list[Vec3] = Field(
        default_factory=list,
        max_length=16,
        description="Station registry positions to reuse first (a build's stationRegistry entries of this kind)",
    )
    spots: list[Vec3] = Field(
        default_factory=list,
        max_length=SPOT_BUDGET,
        description="Utility-zone cells to place into, in order (the first that works); else next to the player",
    )

    _valid = field_validator("workstation")(_check_workstation)


def _known_station(ctx: CapabilityContext, args: PlaceWorkstationArgs) -> BlockPos | None:
    for v in args.known:
        pos = v.as_block_pos()
        if ctx.body.block_at(pos).name == args.workstation:
            return pos
    return None


def guard_place_workstation(ctx: CapabilityContext, args: PlaceWorkstationArgs) -> GuardResult:
    if _known_station(ctx, args) is not None or _nearest(ctx, [args.workstation], REUSE_RADIUS) is not None:
        return GuardResult.allow()  # will be reused
    if inventory_totals(ctx).get(args.workstation, 0) < 1:
        return GuardResult.deny(
            f"precond_missing:item:{args.workstation}",
            f"no {args.workstation} within {REUSE_RADIUS} blocks and none in the inventory",
        )
    return GuardResult.allow()


def run_place_workstation(ctx: CapabilityContext, args: PlaceWorkstationArgs) -> RunnerGen:
    """Reuse a registered station (walking to it), else one within reach of the bot (found), else place one:
    into the first utility-zone spot that takes it (bounded), else next to the player."""
    known = _known_station(ctx, args)
    if known is not None:
        failure = yield from approach(ctx, known)
        if failure is None:
            return ActionResult.success(
                Receipt(position=known, block=args.workstation, extra={"reused": True}),
                reused=True, source="registry", position=list(known), workstation=args.workstation,
            )
    existing = _nearest(ctx, [args.workstation], REUSE_RADIUS)
    if existing is not None:
        return ActionResult.success(
            Receipt(position=existing, block=args.workstation, extra={"reused": True}),
            reused=True, source="found", position=list(existing), workstation=args.workstation,
        )
    tried: list[list[Any]] = []
    for v in args.spots:
        spot = v.as_block_pos()
        failure = yield from place_step(ctx, spot, args.workstation)
        if failure is None and ctx.body.block_at(spot).name == args.workstation:
            return ActionResult.success(
                Receipt(position=spot, block=args.workstation, extra={"reused": False}),
                reused=False, source="placed", position=list(spot), workstation=args.workstation, tried=tried,
            )
        code = failure.error.code if failure is not None and failure.error is not None else "not_placed"
        tried.append([*spot, str(code)])
    if args.spots:
        return ActionResult.failure(
            "no_placement_spot", f"none of {len(args.spots)} utility-zone spots took a {args.workstation}",
            tried=tried,
        )
    failure = yield from place_station(ctx, _md(ctx), args.workstation)
    if failure is not None:
        return failure
    spot = ctx.memory.pop("placed_station")
    return ActionResult.success(
        Receipt(position=spot, block=args.workstation, extra={"reused": False}),
        reused=False, source="placed", position=list(spot), workstation=args.workstation,
    )


def accept_place_workstation(
    pre: Observation, post: Observation, args: PlaceWorkstationArgs, result: ActionResult
) -> VerificationResult:
    if result.receipt is None or result.receipt.position is None:
        return VerificationResult.inconclusive(reason="no receipt")
    probe = expect_block(post, result.receipt.position, args.workstation)
    reused = bool(result.observables.get("reused"))
    used = pre.count(args.workstation) - post.count(args.workstation)
    evidence = {**probe.evidence, "reused": reused, "inventory_used": used}
    if probe.verdict is Verdict.VERIFIED and not reused and used != 1:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult(verdict=probe.verdict, evidence=evidence)


# == smelt ==========================================================================================
class SmeltArgs(StrictArgs):
    input: str = Field(min_length=1, description="Item to smelt, e.g. raw_iron")
    qty: int = Field(default=1, ge=1, le=64, description="How many input items to smelt")
    fuel: str = Field(default="coal", min_length=1, description="Preferred fuel; any other fuel is used if short")
    timeoutMs: int | None = Field(  # the seed's argument name
        default=None, ge=1000, le=600_000, description="Give up after this long (ms of game time)"
    )


def fuel_plan(md: McData, args: SmeltArgs, inventory: dict[str, int]) -> dict[str, int] | None:
    """Which fuel items cover ``qty`` cook cycles, the named fuel first; None when they cannot."""
    recipe = md.smelting_result(args.input)
    assert recipe is not None
    need = recipe.cook_ticks * args.qty
    names = [args.fuel, *sorted(n for n in inventory if n != args.fuel)]
    plan: dict[str, int] = {}
    for name in names:
        ticks = md.fuel_ticks(name) if md.has_item(name) else None
        if not ticks or need <= 0:
            continue
        spare = inventory.get(name, 0) - (args.qty if name == args.input else 0)
        use = min(spare, math.ceil(need / ticks))
        if use > 0:
            plan[name] = use
            need -= use * ticks
    return plan if need <= 0 else None


def guard_smelt(ctx: CapabilityContext, args: SmeltArgs) -> GuardResult:
    md = _md(ctx)
    try:
        recipe = md.smelting_result(args.input)
        md.item(args.fuel)
    except UnknownName as err:
        return GuardResult.deny("unknown_item", err.detail)
    if recipe is None:
        return GuardResult.deny("no_recipe", f"{args.input} does not smelt")
    inventory = inventory_totals(ctx)
    if inventory.get(args.input, 0) < args.qty:
        held = inventory.get(args.input, 0)
        return GuardResult.lacking(args.input, args.qty - held, f"have {held} of {args.qty}")
    if fuel_plan(md, args, inventory) is None:
        return GuardResult.deny(
            "precond_missing:fuel", f"not enough fuel for {args.qty} x {recipe.cook_ticks} ticks of cooking"
        )
    if _nearest(ctx, ["furnace"], REUSE_RADIUS) is None and inventory.get("furnace", 0) < 1:
        return GuardResult.deny(
            "precond_missing:furnace", f"no furnace within {REUSE_RADIUS} blocks and none in the inventory"
        )
    return GuardResult.allow()


def _slot(ctx: CapabilityContext, slot: str) -> tuple[str | None, int]:
    window = ctx.body.open_window()
    stacks = window.slots.get(slot, []) if window is not None else []
    if not stacks:
        return None, 0
    return stacks[0].name, sum(s.count for s in stacks)


def _take(ctx: CapabilityContext, item: str, count: int, slot: str) -> Step:
    return (yield from perform(lambda: ctx.body.container_take(item, count, slot)))


def _put(ctx: CapabilityContext, item: str, count: int, slot: str) -> Step:
    return (yield from perform(lambda: ctx.body.container_put(item, count, slot)))


def run_smelt(ctx: CapabilityContext, args: SmeltArgs) -> RunnerGen:
    md = _md(ctx)
    recipe = md.smelting_result(args.input)
    assert recipe is not None
    fuels = fuel_plan(md, args, inventory_totals(ctx))
    if fuels is None:
        return ActionResult.failure("precond_missing:fuel", "fuel ran out before smelting started")
    placed: BlockPos | None = None
    furnace = _nearest(ctx, ["furnace"], REUSE_RADIUS)
    if furnace is None:
        failure = yield from place_station(ctx, md, "furnace")
        if failure is not None:
            return failure
        furnace = placed = ctx.memory.pop("placed_station")
    failure = yield from approach(ctx, furnace)
    if failure is not None:
        return failure
    failure = yield from perform(lambda: ctx.body.open_container(furnace))
    if failure is not None:
        return failure
    result = yield from _smelt_in_open_furnace(ctx, args, recipe.output, recipe.count, recipe.cook_ticks, fuels)
    try:
        closing = ctx.body.close_container()
    except BodyError:
        closing = None
    if closing is not None:
        yield from act(closing)
    if result.ok:
        result.observables["furnace"] = list(furnace)
        if placed is not None:
            result.receipt = Receipt(position=placed, block="furnace", extra={"placed_furnace": True})
    return result


def _smelt_in_open_furnace(
    ctx: CapabilityContext, args: SmeltArgs, output: str, per_item: int, cook_ticks: int, fuels: dict[str, int]
) -> RunnerGen:
    # Something else in the output slot would block smelting; taking it is what a player does.
    held, held_count = _slot(ctx, "output")
    if held is not None and held != output:
        failure = yield from _take(ctx, held, held_count, "output")
        if failure is not None:
            return failure
    _, before = _slot(ctx, "output")
    failure = yield from _put(ctx, args.input, args.qty, "input")
    if failure is not None:
        return failure
    for name, count in fuels.items():
        failure = yield from _put(ctx, name, count, "fuel")
        if failure is not None:
            return failure
    target = before + args.qty * per_item
    budget = cook_ticks * args.qty + SMELT_SLACK_TICKS
    if args.timeoutMs is not None:
        budget = min(budget, args.timeoutMs * TICKS_PER_SECOND // 1000)
    started = ctx.body.now_ticks()
    last_progress, last_count = started, before
    while True:
        _, have = _slot(ctx, "output")
        if have >= target:
            break
        now = ctx.body.now_ticks()
        if have != last_count:
            last_progress, last_count = now, have
        if now - started > budget or now - last_progress > cook_ticks + SMELT_SLACK_TICKS:
            break  # stalled (fuel gone, input taken) or out of time: take what there is
        yield None
    _, have = _slot(ctx, "output")
    if have > 0:
        failure = yield from _take(ctx, output, have, "output")
        if failure is not None:
            return failure
    fuel_left, fuel_count = _slot(ctx, "fuel")
    if fuel_left is not None and fuel_count > 0:
        yield from _take(ctx, fuel_left, fuel_count, "fuel")  # leftover fuel back; failure here is harmless
    produced = have - before
    if produced < args.qty * per_item:
        return ActionResult.failure(
            "smelt_incomplete", f"furnace produced {produced} of {args.qty * per_item} {output}",
            retryable=True, output=output, produced=produced,
        )
    return ActionResult.success(output=output, produced=produced, expected_gain=args.qty * per_item, taken=have)


def accept_smelt(pre: Observation, post: Observation, args: SmeltArgs, result: ActionResult) -> VerificationResult:
    output = str(result.observables.get("output", ""))
    gained = expect_gain(pre, post, output, int(result.observables.get("expected_gain", args.qty)))
    used = pre.count(args.input) - post.count(args.input)
    evidence = {**gained.evidence, "input_used": used}
    if gained.verdict is Verdict.VERIFIED and used < args.qty:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult(verdict=gained.verdict, evidence=evidence)


# == introspect_recipe ==============================================================================
class IntrospectRecipeArgs(StrictArgs):
    output: str = Field(min_length=1, description="Item whose recipes to describe")


def guard_introspect(ctx: CapabilityContext, args: IntrospectRecipeArgs) -> GuardResult:
    if not _md(ctx).has_item(args.output):
        return GuardResult.deny("unknown_item", f"unknown item {args.output!r}")
    return GuardResult.allow()


def describe_recipe(recipe: Recipe) -> dict[str, Any]:
    return {
        "result": recipe.result,
        "count": recipe.count,
        "ingredients": dict(recipe.ingredients),
        "slots": [{"options": list(slot.options), "count": slot.count} for slot in recipe.slots],
        "needs_table": recipe.needs_table,
        "shapeless": recipe.shapeless,
        "shape": [list(row) for row in recipe.shape] if recipe.shape is not None else None,
    }


def run_introspect(ctx: CapabilityContext, args: IntrospectRecipeArgs) -> RunnerGen:
    md = _md(ctx)
    recipes = md.recipes_for(args.output)
    smelting = md.smelting_for(args.output)
    # The variant the inventory is closest to paying for: what a craft_recipe right now would use.
    closest = plan_craft(md, args.output, 1, inventory_totals(ctx)).recipe
    return ActionResult.success(
        output=args.output,
        data_version=md.version,
        craftable=bool(recipes),
        recipes=[describe_recipe(r) for r in recipes],
        # A table is needed only if no variant fits the 2x2 inventory grid.
        needs_table=bool(recipes) and all(r.needs_table for r in recipes),
        ingredients=dict(closest.ingredients) if closest is not None else {},
        smelting=[{"input": s.input, "count": s.count, "cook_ticks": s.cook_ticks} for s in smelting],
    )
    yield  # pragma: no cover - makes this a generator


def accept_introspect(
    pre: Observation, post: Observation, args: IntrospectRecipeArgs, result: ActionResult
) -> VerificationResult:
    """A read of the recipe book, checked by reading it again: the reported recipes must be the book's."""
    changed = pre.inventory != post.inventory
    if "recipes" not in result.observables:
        return VerificationResult.contradicted(reason="no recipes reported")
    version = result.observables.get("data_version")
    try:
        md = load(str(version)) if version else load()
    except McDataFileError:
        return VerificationResult.inconclusive(reason=f"no recipe book for version {version!r}")
    try:
        expected = [describe_recipe(r) for r in md.recipes_for(args.output)]
    except UnknownName:
        expected = []
    if result.observables["recipes"] != expected:
        return VerificationResult.contradicted(reason="the reported recipes are not the recipe book's",
                                               reported=len(result.observables["recipes"]), expected=len(expected))
    if changed:
        return VerificationResult.inconclusive(read_only=True, inventory_changed=True)
    return VerificationResult.verified(read_only=True, recipes=len(expected))


# == registration ===================================================================================
#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="craft_recipe",
        version="1.0.0",
        family=Family.CRAFTING,
        args_model=CraftRecipeArgs,
        runner=run_craft,
        acceptance=accept_craft,
        guard=guard_craft,
        permissions=frozenset({Permission.CRAFT}),
        timeout_ms=30_000,
        retries=2,
        effects=("has:{recipe}",),
        description=(
            "Craft qty of an item (rounded up to the recipe's output) from a minecraft-data recipe variant "
            "the inventory can pay for; 2x2 recipes in the inventory, 3x3 at a crafting_table within "
            f"{TABLE_RADIUS} blocks (walked to). Refuses precond_missing:table / precond_missing:item:<x>."
        ),
    ),
    CapabilitySpec(
        name="smelt",
        version="1.0.0",
        awaits_world=True,
        family=Family.CRAFTING,
        args_model=SmeltArgs,
        runner=run_smelt,
        acceptance=accept_smelt,
        guard=guard_smelt,
        permissions=frozenset(
            {Permission.CRAFT, Permission.CONTAINER_READ, Permission.CONTAINER_WRITE, Permission.PLACE}
        ),
        timeout_ms=90_000,
        timeout_of=smelt_timeout_ms,
        retries=1,
        preconditions=("has:{input}", "has:{fuel}"),
        effects=("has_smelted:{input}",),
        effects_of=smelt_effects,
        description=(
            "Smelt qty of input in a furnace within 8 blocks (placing one from the inventory if none), with "
            "enough fuel for qty cook cycles (the named fuel first, any minecraft-data fuel after); waits for "
            "the output, takes it and leftover fuel, closes. Refuses precond_missing:fuel|furnace|item:<x>. "
            "Its timeout scales with qty: 12 s per item + 10 s, at least 30 s (timeout_ms is the manifest default)."
        ),
    ),
    CapabilitySpec(
        name="place_workstation",
        version="1.0.0",
        family=Family.CRAFTING,
        args_model=PlaceWorkstationArgs,
        runner=run_place_workstation,
        acceptance=accept_place_workstation,
        guard=guard_place_workstation,
        permissions=frozenset({Permission.PLACE}),
        timeout_ms=8_000,
        retries=1,
        idempotent=True,
        preconditions=("has:{workstation}",),
        effects=("near:{workstation}",),
        description=(
            f"Ensure a workstation within {REUSE_RADIUS} blocks: reuse a station-registry position from "
            "`known` (walking to it), or one already within reach (reused=true, no placement, so never a "
            f"second one in that radius), or place one from the inventory into the first of up to {SPOT_BUDGET} "
            "utility-zone `spots` that takes it, else on solid ground next to the player. Observables: "
            "source (registry|found|placed). Receipt: the station's position."
        ),
    ),
    CapabilitySpec(
        name="introspect_recipe",
        version="1.0.0",
        family=Family.CRAFTING,
        args_model=IntrospectRecipeArgs,
        runner=run_introspect,
        acceptance=accept_introspect,
        guard=guard_introspect,
        permissions=frozenset({Permission.SENSE}),
        timeout_ms=5_000,
        idempotent=True,
        description=(
            "Read-only: the minecraft-data crafting recipes for an item (ingredients, shape, needs_table) "
            "and its furnace recipes."
        ),
    ),
)
