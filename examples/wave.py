"""An example capability plugin: ``wave`` says "o/" in chat a number of times.

Use it without packaging anything::

    CRAFTBT_PLUGINS=examples.wave:register craftbt capabilities
    CRAFTBT_PLUGINS=examples.wave:register craftbt run examples/wave.yaml

or, in your own package, declare the entry point
``[project.entry-points."craftbt.capabilities"] wave = "mypkg.wave:register"``.
"""

from __future__ import annotations

from pydantic import Field

from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.leaves.common import StrictArgs, act
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    Family,
    GuardResult,
    Permission,
    RunnerGen,
    VerificationResult,
)
from craftbt.world.body import Observation


class WaveArgs(StrictArgs):
    times: int = Field(default=1, ge=1, le=5, description="How many times to wave")


def guard_wave(ctx: CapabilityContext, args: WaveArgs) -> GuardResult:
    if ctx.body.health() <= 0:
        return GuardResult.deny("dead", "the bot is dead")
    return GuardResult.allow()


def run_wave(ctx: CapabilityContext, args: WaveArgs) -> RunnerGen:
    for _ in range(args.times):
        failure = yield from act(ctx.body.chat("o/"))  # non-blocking: yield the body's handle
        if failure is not None:
            return failure
    return ActionResult.success(waved=args.times)


def accept_wave(pre: Observation, post: Observation, args: WaveArgs, result: ActionResult) -> VerificationResult:
    waved = result.observables.get("waved")
    if waved == args.times:
        return VerificationResult.verified(waved=waved)
    return VerificationResult.contradicted(waved=waved, expected=args.times)


def register(registry: Registry) -> None:
    registry.register(
        CapabilitySpec(
            name="wave",
            version="1.0.0",
            family=Family.SENSING,
            args_model=WaveArgs,
            runner=run_wave,
            guard=guard_wave,
            acceptance=accept_wave,
            permissions=frozenset({Permission.CHAT}),
            timeout_ms=5_000,
            description='Say "o/" in chat a number of times.',
        )
    )
