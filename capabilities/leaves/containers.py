"""Container leaves (seed 000): open_container, transfer_items, close_container, manage_inventory.

A container window is the body's (``Body.open_window``); these leaves only open it, move stacks
through it and close it. ``manage_inventory`` tosses what a policy says to drop; its ``sort``,
``compact`` and ``organize`` actions audit the inventory (stacks, mergeable stacks from minecraft-data
stack sizes) without moving slots, because the Body protocol has no slot-move command.
"""

from __future__ import annotations

import math
from functools import partial
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from craftbt.capabilities.leaves.common import (
    Step,
    StrictArgs,
    Vec3,
    approach,
    inventory_totals,
    perform,
    registry_data,
    surplus_filler,
)
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    RunnerGen,
    VerificationResult,
)
from craftbt.world.body import BlockPos, Observation, Position, block_key

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Blocks with an item window a player opens by using them.
CONTAINER_BLOCKS: tuple[str, ...] = (
    "chest", "trapped_chest", "barrel", "furnace", "blast_furnace", "smoker", "hopper", "dispenser", "dropper",
)


# == open_container =================================================================================
class OpenContainerArgs(StrictArgs):
    position: Vec3 | None = Field(default=None, description="Container block; default: the nearest one")
    containerType: str | None = Field(  # the seed's argument name
        default=None, description="Only consider this block type (chest, barrel, furnace, ...)",
        json_schema_extra={"enum": list(CONTAINER_BLOCKS)},
    )
    radius: int = Field(default=16, ge=1, le=32, description="Search radius when no position is given")


def find_container(ctx: CapabilityContext, args: OpenContainerArgs) -> tuple[BlockPos | None, str]:
    """The target container and, if there is none, why."""
    if args.position is not None:
        pos = args.position.as_block_pos()
        name = ctx.body.block_at(pos).name
        wanted = [args.containerType] if args.containerType else list(CONTAINER_BLOCKS)
        if name not in wanted:
            return None, f"not_a_container: {name} at {tuple(pos)}"
        return pos, ""
    names = [args.containerType] if args.containerType else list(CONTAINER_BLOCKS)
    found = ctx.body.find_blocks(names, args.radius, max_count=16)
    if not found:
        return None, f"no_target: no container within {args.radius} blocks"
    here = ctx.body.position()
    return min(found, key=lambda p: p.distance_to(Position(here.x - 0.5, here.y, here.z - 0.5))), ""


def guard_open(ctx: CapabilityContext, args: OpenContainerArgs) -> GuardResult:
    if args.containerType is not None and args.containerType not in CONTAINER_BLOCKS:
        return GuardResult.deny("not_a_container", f"{args.containerType} has no item window")
    pos, why = find_container(ctx, args)
    if pos is None:
        code, _, detail = why.partition(": ")
        return GuardResult.deny(code, detail)
    return GuardResult.allow()


def run_open(ctx: CapabilityContext, args: OpenContainerArgs) -> RunnerGen:
    pos, why = find_container(ctx, args)
    if pos is None:
        code, _, detail = why.partition(": ")
        return ActionResult.failure(code, detail)
    window = ctx.body.open_window()
    if window is None or window.pos != pos:
        if window is not None:
            failure = yield from _close(ctx)
            if failure is not None:
                return failure
        failure = yield from approach(ctx, pos)
        if failure is not None:
            return failure
        failure = yield from perform(lambda: ctx.body.open_container(pos))
        if failure is not None:
            return failure
        window = ctx.body.open_window()
    if window is None:
        return ActionResult.failure("window_closed", "the container window did not stay open", retryable=True)
    contents = {slot: [[s.name, s.count] for s in stacks] for slot, stacks in window.slots.items()}
    return ActionResult.success(position=list(pos), kind=window.kind, contents=contents)


def accept_open(
    pre: Observation, post: Observation, args: OpenContainerArgs, result: ActionResult
) -> VerificationResult:
    expected = result.observables.get("position")
    if post.window is None:
        return VerificationResult.contradicted(window=None, expected=expected)
    observed = list(post.window.pos)
    if observed != expected:
        return VerificationResult.contradicted(window=observed, expected=expected)
    return VerificationResult.verified(window=observed, kind=post.window.kind)


def _close(ctx: CapabilityContext) -> Step:
    return (yield from perform(lambda: ctx.body.close_container()))


# == transfer_items =================================================================================
Mode = Literal["deposit", "withdraw", "put", "take", "all", "swap"]
Side = Literal["inventory", "container"]
#: The seed's modes, by direction; ``all`` moves everything from source to destination; ``swap`` puts
#: ``item`` in and takes ``swap_for`` out in one leaf (the seed's ``window.transferItem`` swap).
DEPOSIT_MODES = frozenset({"deposit", "put"})
WITHDRAW_MODES = frozenset({"withdraw", "take"})


class TransferItemsArgs(StrictArgs):
    item: str | None = Field(default=None, min_length=1, description="Item to move; default: every item")
    count: int | None = Field(default=None, ge=1, le=2304, description="How many; default: all of it")
    mode: Mode | None = Field(
        default=None,
        description="deposit|put into the container, withdraw|take out, all, swap (item in, swap_for out)",
    )
    swap_for: str | None = Field(default=None, min_length=1, description="swap: the item taken out for item")
    swap_count: int | None = Field(default=None, ge=1, le=2304, description="swap: how many swap_for; default all")
    source: Side | None = Field(default=None, description="Where items come from (with destination)")
    destination: Side | None = Field(default=None, description="Where items go (with source)")
    slot: Literal["any", "input", "fuel", "output"] = Field(default="any", description="Furnace slot")

    @model_validator(mode="after")
    def _consistent(self) -> TransferItemsArgs:
        if self.mode == "swap":
            if self.item is None or self.swap_for is None:
                raise ValueError("swap needs item (put in) and swap_for (taken out)")
            if self.source is not None or self.destination is not None:
                raise ValueError("swap moves both ways: no source or destination")
            return self
        if self.swap_for is not None or self.swap_count is not None:
            raise ValueError("swap_for and swap_count belong to mode swap")
        if self.source is not None and self.source == self.destination:
            raise ValueError("source and destination must differ")
        side = self.source or ({"inventory": "container", "container": "inventory"}.get(self.destination or ""))
        if side is not None and self.mode is not None and self.mode != "all":
            implied = "inventory" if self.mode in DEPOSIT_MODES else "container"
            if implied != side:
                raise ValueError(f"mode {self.mode!r} contradicts source {side!r}")
        return self

    @property
    def depositing(self) -> bool:
        if self.mode in DEPOSIT_MODES or self.mode == "swap":  # a swap deposits first
            return True
        if self.mode in WITHDRAW_MODES:
            return False
        if self.source is not None:
            return self.source == "inventory"
        return self.destination == "container"


def _window_totals(ctx: CapabilityContext, slot: str) -> dict[str, int]:
    window = ctx.body.open_window()
    totals: dict[str, int] = {}
    if window is None:
        return totals
    for name, stacks in window.slots.items():
        if slot != "any" and name != slot:
            continue
        for s in stacks:
            totals[s.name] = totals.get(s.name, 0) + s.count
    return totals


def transfer_plan(ctx: CapabilityContext, args: TransferItemsArgs) -> dict[str, int]:
    have = inventory_totals(ctx) if args.depositing else _window_totals(ctx, args.slot)
    names = [args.item] if args.item else sorted(have)
    return {n: (min(args.count, have.get(n, 0)) if args.count else have.get(n, 0)) for n in names}


def swap_plan(ctx: CapabilityContext, args: TransferItemsArgs) -> dict[str, int]:
    """What a swap takes out of the container: ``swap_count`` (default all) of ``swap_for``."""
    assert args.swap_for is not None
    have = _window_totals(ctx, args.slot).get(args.swap_for, 0)
    return {args.swap_for: min(args.swap_count, have) if args.swap_count else have}


def guard_transfer(ctx: CapabilityContext, args: TransferItemsArgs) -> GuardResult:
    if ctx.body.open_window() is None:
        return GuardResult.deny("precond_missing:window", "no container window is open (run open_container)")
    if args.mode == "swap":
        assert args.swap_for is not None
        have = swap_plan(ctx, args)[args.swap_for]
        if have == 0 or (args.swap_count is not None and have < args.swap_count):
            return GuardResult.deny(f"precond_missing:container_item:{args.swap_for}", f"the container has {have}")
    plan = transfer_plan(ctx, args)
    if args.item is not None:
        have = plan.get(args.item, 0)
        if have == 0 or (args.count is not None and have < args.count):
            where = "inventory" if args.depositing else "container"
            return GuardResult.lacking(args.item, (args.count or 1) - have, f"the {where} has {have}")
    elif not any(plan.values()):
        return GuardResult.deny("nothing_to_transfer", "the source side is empty")
    return GuardResult.allow()


def run_transfer(ctx: CapabilityContext, args: TransferItemsArgs) -> RunnerGen:
    plan = {n: c for n, c in transfer_plan(ctx, args).items() if c > 0}
    moved: dict[str, int] = {}
    for name, count in plan.items():
        move = ctx.body.container_put if args.depositing else ctx.body.container_take
        failure = yield from perform(partial(move, name, count, args.slot))
        if failure is not None:
            failure.observables["moved"] = moved
            return failure
        moved[name] = count
    if args.mode == "swap":
        taken: dict[str, int] = {}
        for name, count in swap_plan(ctx, args).items():
            failure = yield from perform(partial(ctx.body.container_take, name, count, args.slot))
            if failure is not None:
                failure.observables.update(moved=moved, taken=taken)
                return failure
            taken[name] = count
        return ActionResult.success(moved=moved, taken=taken, direction="swap")
    return ActionResult.success(moved=moved, direction="deposit" if args.depositing else "withdraw")


def accept_transfer(
    pre: Observation, post: Observation, args: TransferItemsArgs, result: ActionResult
) -> VerificationResult:
    moved: dict[str, int] = result.observables.get("moved", {})
    if args.mode == "swap":
        taken: dict[str, int] = result.observables.get("taken", {})
        delta = {n: post.count(n) - pre.count(n) for n in {**moved, **taken}}
        evidence = {"moved": moved, "taken": taken, "inventory_delta": delta}
        if not moved or not taken:
            return VerificationResult.contradicted(**evidence)
        # each side by its own count; an item both put and taken nets out
        want = {n: taken.get(n, 0) - moved.get(n, 0) for n in delta}
        if all(delta[n] == want[n] for n in delta):
            return VerificationResult.verified(**evidence)
        return VerificationResult.contradicted(**evidence)
    sign = -1 if args.depositing else 1
    observed = {n: sign * (post.count(n) - pre.count(n)) for n in moved}
    evidence = {"moved": moved, "inventory_delta": observed}
    if not moved:
        return VerificationResult.contradicted(**evidence)
    if all(observed[n] >= c for n, c in moved.items()):
        return VerificationResult.verified(**evidence)
    if any(observed[n] > 0 for n in moved):
        return VerificationResult.inconclusive(partial=True, **evidence)
    return VerificationResult.contradicted(**evidence)


# == close_container ================================================================================
class CloseContainerArgs(StrictArgs):
    containerId: str | None = Field(  # the seed's argument name
        default=None, description="Only close if the open window is this one: 'x,y,z' or its kind"
    )
    waitForItems: bool = Field(  # the seed's argument name
        default=False, description="For a furnace: wait (bounded by the timeout) until its input is cooked"
    )


def guard_close(ctx: CapabilityContext, args: CloseContainerArgs) -> GuardResult:
    window = ctx.body.open_window()
    if window is not None and args.containerId is not None and args.containerId not in (
        block_key(window.pos), window.kind
    ):
        return GuardResult.deny("window_mismatch", f"open window is {window.kind} at {block_key(window.pos)}")
    return GuardResult.allow()


def run_close(ctx: CapabilityContext, args: CloseContainerArgs) -> RunnerGen:
    window = ctx.body.open_window()
    if window is None:
        return ActionResult.success(already_closed=True)
    if args.waitForItems:
        while True:
            current = ctx.body.open_window()
            if current is None or not current.slots.get("input"):
                break
            yield None
    failure = yield from _close(ctx)
    if failure is not None:
        return failure
    return ActionResult.success(already_closed=False, closed=block_key(window.pos), kind=window.kind)


def accept_close(
    pre: Observation, post: Observation, args: CloseContainerArgs, result: ActionResult
) -> VerificationResult:
    if post.window is None:
        return VerificationResult.verified(window=None, was_open=pre.window is not None)
    return VerificationResult.contradicted(window=block_key(post.window.pos))


# == manage_inventory ===============================================================================
InventoryAction = Literal["sort", "compact", "organize", "drop_unwanted", "keep_essentials", "make_room"]
#: What drop_unwanted tosses when no keepItems are given: mob drops and filler nobody plans with.
DEFAULT_JUNK: tuple[str, ...] = (
    "rotten_flesh", "poisonous_potato", "spider_eye", "dead_bush", "wheat_seeds", "flint",
)
_ESSENTIAL_SUFFIXES = ("_pickaxe", "_axe", "_shovel", "_hoe", "_sword", "_helmet", "_chestplate",
                       "_leggings", "_boots")
_ESSENTIAL_ITEMS = ("torch", "crafting_table", "furnace", "shield", "bow", "arrow", "shears", "bucket",
                    "water_bucket", "coal", "charcoal")


class ManageInventoryArgs(StrictArgs):
    action: InventoryAction = Field(
        description="sort|compact|organize audit; drop_unwanted|keep_essentials|make_room toss")
    keepItems: list[str] = Field(  # the seed's argument name
        default_factory=list, description="Never tossed; for drop_unwanted it is the whole keep list"
    )
    maxStackSize: int | None = Field(  # the seed's argument name
        default=None, ge=1, le=64, description="compact: stack size to count against (default: the item's)"
    )


def is_essential(ctx: CapabilityContext, name: str) -> bool:
    md = registry_data(ctx)
    return name.endswith(_ESSENTIAL_SUFFIXES) or name in _ESSENTIAL_ITEMS or (
        md.has_item(name) and md.food(name) is not None
    )


def toss_plan(ctx: CapabilityContext, args: ManageInventoryArgs) -> dict[str, int]:
    inventory = inventory_totals(ctx)
    keep = set(args.keepItems)
    if args.action == "drop_unwanted":
        if keep:
            return {n: c for n, c in inventory.items() if n not in keep}
        return {n: c for n, c in inventory.items() if n in DEFAULT_JUNK}
    if args.action == "keep_essentials":
        return {n: c for n, c in inventory.items() if n not in keep and not is_essential(ctx, n)}
    if args.action == "make_room":  # natural seed 27's mine searches came back with 1,491 cobblestone
        junk = {n: c for n, c in inventory.items() if n in DEFAULT_JUNK and n not in keep}
        return {**surplus_filler(inventory, keep), **junk}
    return {}


def guard_manage(ctx: CapabilityContext, args: ManageInventoryArgs) -> GuardResult:
    if not ctx.body.inventory():
        return GuardResult.deny("precond_missing:items", "the inventory is empty")
    if args.action == "make_room" and not toss_plan(ctx, args):
        # nothing is surplus: tossing nothing would "succeed" and the step that needed room would fail again
        return GuardResult.deny("precond_missing:surplus", "no dug filler beyond what is kept and no junk to toss")
    return GuardResult.allow()


def run_manage(ctx: CapabilityContext, args: ManageInventoryArgs) -> RunnerGen:
    md = registry_data(ctx)
    stacks = ctx.body.inventory()
    if args.action in ("sort", "compact", "organize"):
        totals = inventory_totals(ctx)
        minimal = sum(
            math.ceil(c / (args.maxStackSize or (md.item(n).stack_size if md.has_item(n) else 64)))
            for n, c in totals.items()
        )
        return ActionResult.success(
            action=args.action, processed=len(stacks), stacks=len(stacks), minimal_stacks=minimal,
            mergeable_stacks=len(stacks) - minimal, order=sorted(totals), tossed={},
        )
    tossed: dict[str, int] = {}
    for name, count in toss_plan(ctx, args).items():
        failure = yield from perform(partial(ctx.body.toss, name, count))
        if failure is not None:
            failure.observables["tossed"] = tossed
            return failure
        tossed[name] = count
    return ActionResult.success(action=args.action, processed=len(stacks), tossed=tossed)


def accept_manage(
    pre: Observation, post: Observation, args: ManageInventoryArgs, result: ActionResult
) -> VerificationResult:
    tossed: dict[str, int] = result.observables.get("tossed", {})
    kept = {n: c for n, c in pre.inventory.items() if n not in tossed}
    lost_kept = {n: post.count(n) - c for n, c in kept.items() if post.count(n) < c}
    not_tossed = {n: post.count(n) for n, c in tossed.items() if pre.count(n) - post.count(n) < c}
    evidence = {"tossed": tossed, "kept_lost": lost_kept, "not_tossed": not_tossed}
    if lost_kept or not_tossed:
        return VerificationResult.contradicted(**evidence)
    return VerificationResult.verified(**evidence)


# == registration ===================================================================================
#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="open_container", version="1.0.0", family=Family.CONTAINER, args_model=OpenContainerArgs,
        runner=run_open, acceptance=accept_open, guard=guard_open,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.MOVEMENT}),
        timeout_ms=10_000, retries=2, idempotent=True, effects=("window_open",),
        description=(
            "Walk to a container (the given position, else the nearest of containerType within radius) and "
            "open its window; observables list the contents. Refuses no_target / not_a_container."
        ),
    ),
    CapabilitySpec(
        name="transfer_items", version="1.0.0", family=Family.CONTAINER, args_model=TransferItemsArgs,
        runner=run_transfer, acceptance=accept_transfer, guard=guard_transfer,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.CONTAINER_WRITE}),
        timeout_ms=15_000, retries=2, preconditions=("window_open",),
        description=(
            "With a container window open, move items: deposit/put into it, withdraw/take out of it, or "
            "all (everything, direction from source/destination, default out). Verified by the inventory "
            "delta. Refuses precond_missing:window, precond_missing:item:<x>. (The seed's swap is not offered.)"
        ),
    ),
    CapabilitySpec(
        name="close_container", version="1.0.0", family=Family.CONTAINER, args_model=CloseContainerArgs,
        runner=run_close, acceptance=accept_close, guard=guard_close,
        permissions=frozenset({Permission.CONTAINER_READ}), timeout_ms=5_000, retries=1, idempotent=True,
        description="Close the open container window (success if none is open); refuses window_mismatch.",
    ),
    CapabilitySpec(
        name="manage_inventory", version="1.1.0", family=Family.CONTAINER, args_model=ManageInventoryArgs,
        runner=run_manage, acceptance=accept_manage, guard=guard_manage,
        permissions=frozenset({Permission.CONTAINER_READ, Permission.CONTAINER_WRITE, Permission.INVENTORY}),
        timeout_ms=30_000, retries=1,
        description=(
            "drop_unwanted tosses everything not in keepItems (default: known junk); keep_essentials tosses "
            "all but tools, weapons, armour, food, torches, stations and keepItems; make_room tosses junk and "
            "dug filler (a stack of cobblestone kept; not keepItems). sort/compact/organize "
            "report stacks and mergeable stacks (minecraft-data stack sizes) without moving slots: the Body "
            "protocol has no slot-move command. Verified: tossed items gone, everything else kept."
        ),
    ),
)
