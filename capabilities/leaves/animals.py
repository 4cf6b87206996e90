"""Animal leaves: what a living animal gives without being killed (milk_animal: a bucket used on a cow).

Vanilla's interact: an empty bucket used on an adult cow or mooshroom turns into a milk bucket and the
animal is unharmed; a calf gives nothing. The leaf walks up to the nearest adult of the kind and uses one
bucket on it; the acceptance check reads the inventory before and after (a bucket spent, a milk bucket
gained), never the runner's word.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from craftbt.capabilities.leaves.combat import ATTACK_REACH
from craftbt.capabilities.leaves.common import (
    StrictArgs,
    count_item,
    failure_from_error,
    inventory_delta,
    perform,
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
from craftbt.world.body import TICKS_PER_SECOND, BodyError, EntityInfo, Observation
from craftbt.world.loot import ANIMAL_USES

if TYPE_CHECKING:
    from craftbt.capabilities.context import CapabilityContext

#: Animal -> (item used on it, what the item becomes): vanilla's milking, from the one table in world.loot.
MILKING: dict[str, tuple[str, str]] = {animal: (used, gives) for (animal, used), gives in ANIMAL_USES.items()
                                       if gives == "milk_bucket"}
#: Tries to close in and use the bucket: a cow wanders while the bot walks (0.05 blocks a tick in the sim).
APPROACHES = 5


class MilkAnimalArgs(StrictArgs):
    entityType: Literal["cow", "mooshroom"] = Field(default="cow", description="The animal to milk")
    radius: float = Field(default=32.0, ge=1, le=64, description="Look for an adult animal within this radius")


def adult_targets(ctx: CapabilityContext, args: MilkAnimalArgs, radius: float) -> list[EntityInfo]:
    """Adults of the kind within ``radius``, nearest first, skipping any standing where the goal run could not
    reach."""
    here = ctx.body.position()
    found = [e for e in ctx.body.entities(radius, kind="passive")
             if e.name == args.entityType and not e.baby and e.position.block() not in ctx.unreachable]
    return sorted(found, key=lambda e: e.position.distance_to(here))


def guard_milk(ctx: CapabilityContext, args: MilkAnimalArgs) -> GuardResult:
    empty, _ = MILKING[args.entityType]
    if count_item(ctx, empty) < 1:
        return GuardResult.deny(f"precond_missing:{empty}", f"no {empty} in the inventory to milk a {args.entityType}")
    if not adult_targets(ctx, args, args.radius):
        calves = any(e.name == args.entityType and e.baby for e in ctx.body.entities(args.radius, kind="passive"))
        why = " (only calves, which give no milk)" if calves else ""
        return GuardResult.deny("no_target", f"no adult {args.entityType} within {args.radius} blocks{why}")
    return GuardResult.allow()


def run_milk(ctx: CapabilityContext, args: MilkAnimalArgs) -> RunnerGen:
    empty, full = MILKING[args.entityType]
    failure: ActionResult | None = None
    for _ in range(APPROACHES):
        targets = adult_targets(ctx, args, args.radius * 2)  # a target that wandered off is still followed
        if not targets:
            return ActionResult.failure("no_target", f"no adult {args.entityType} left within {args.radius * 2} blocks",
                                        retryable=True)
        target = targets[0]
        if target.position.distance_to(ctx.body.position()) > ATTACK_REACH:
            # a short leg toward where it stands now (it moves: re-aim after each leg)
            try:
                handle = ctx.body.goto(target.position.block(), tolerance=ATTACK_REACH - 1)
            except BodyError as err:
                failure = failure_from_error(err, target=target.id)
                ctx.unreachable.add(target.position.block())  # the next try takes another animal
                continue
            deadline = ctx.body.now_ticks() + 5 * TICKS_PER_SECOND
            while handle.status().value == "running" and ctx.body.now_ticks() < deadline:
                yield None
            handle.cancel("re-aim")
            continue
        failure = yield from perform(functools.partial(ctx.body.use_on_entity, target.id, empty))
        if failure is None:
            return ActionResult.success(target=target.id, name=target.name, used=empty, got=full)
        if failure.error is None or failure.error.code != "out_of_reach":
            return failure
    return failure or ActionResult.failure("out_of_reach", f"could not close in on a {args.entityType}",
                                           retryable=True)


def accept_milk(pre: Observation, post: Observation, args: MilkAnimalArgs, result: ActionResult) -> VerificationResult:
    """Verified by the inventory alone: one more milk bucket and one bucket fewer."""
    empty, full = MILKING[args.entityType]
    gained, spent = inventory_delta(pre, post, full), -inventory_delta(pre, post, empty)
    evidence = {"gained": {full: gained}, "spent": {empty: spent}}
    if gained >= 1 and spent >= 1:
        return VerificationResult.verified(**evidence)
    if gained >= 1 or spent >= 1:
        return VerificationResult.inconclusive(**evidence)
    return VerificationResult.contradicted(reason=f"no {full} appeared", **evidence)


#: What this module registers (a built-in plugin: see :data:`capabilities.default.BUILTIN_PLUGINS`).
SPECS: tuple[CapabilitySpec, ...] = (
    CapabilitySpec(
        name="milk_animal", version="1.0.0", family=Family.INTERACTION, args_model=MilkAnimalArgs,
        runner=run_milk, acceptance=accept_milk, guard=guard_milk,
        permissions=frozenset({Permission.MOVEMENT, Permission.INTERACT}), timeout_ms=60_000, retries=2,
        preconditions=("has:bucket",), effects=("has:milk_bucket",),
        description=(
            "Walk up to the nearest adult cow (or mooshroom) within radius and use an empty bucket on it: the "
            "bucket becomes a milk bucket, the animal is unharmed. Refuses precond_missing:bucket / no_target "
            "(calves give no milk). Verified by the inventory: a bucket spent, a milk bucket gained."
        ),
    ),
)
