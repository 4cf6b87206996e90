"""04: your own capability: an argument model, a guard, a non-blocking runner and an acceptance check.

A capability's runner is a generator: it yields the body's non-blocking handle and the behaviour polls it
every tick, so the tree stays reactive. The acceptance check compares what was observed before and after
and answers verified, inconclusive or contradicted. Register it on a copy of the default registry (every
shipped capability and condition check), or ship ``register`` as a plugin: an entry point in the
``craftbt.capabilities`` group, or ``CRAFTBT_PLUGINS=module:register`` before packaging anything.

    python examples/04_capability_and_plugin.py
"""

from __future__ import annotations

import tempfile

from pydantic import Field

import craftbt


class WaveArgs(craftbt.StrictArgs):
    times: int = Field(default=1, ge=1, le=5, description="How many times to wave")


def guard(ctx: craftbt.CapabilityContext, args: WaveArgs) -> craftbt.GuardResult:
    return craftbt.GuardResult.allow()  # nothing to refuse: chat needs no tool or place


def run(ctx: craftbt.CapabilityContext, args: WaveArgs) -> craftbt.RunnerGen:
    for _ in range(args.times):
        failure = yield from craftbt.act(ctx.body.chat("o/"))
        if failure is not None:
            return failure
    return craftbt.ActionResult.success(waved=args.times)


def accept(pre: craftbt.Observation, post: craftbt.Observation, args: WaveArgs,
           result: craftbt.ActionResult) -> craftbt.VerificationResult:
    if result.observables.get("waved") == args.times:
        return craftbt.VerificationResult.verified(waved=args.times)
    return craftbt.VerificationResult.contradicted(expected=args.times)


def register(registry: craftbt.Registry) -> None:
    """The plugin entry point: ``[project.entry-points."craftbt.capabilities"] wave = "mypkg.wave:register"``."""
    registry.register(craftbt.CapabilitySpec(
        name="wave", version="1.0.0", family=craftbt.Family.SENSING, args_model=WaveArgs,
        runner=run, guard=guard, acceptance=accept,
        permissions=frozenset({craftbt.Permission.CHAT}), timeout_ms=5_000,
        description='Say "o/" in chat a number of times.'))


if __name__ == "__main__":
    registry = craftbt.default_registry().copy()
    register(registry)
    tree = """
tree: greet_and_wave
version: 1
root:
  sequence:
    children:
      - condition: {check: health_above, args: {value: 5}}
      - leaf: wave
        args: {times: 3}
"""
    outcome = craftbt.run_tree(tree, craftbt.starter_world(seed=0), registry=registry,
                               home=tempfile.mkdtemp(prefix="craftbt-04-"))
    print("status:", outcome.status, "| manifest entry:", registry.get("wave").manifest_entry()["name"])
    assert outcome.ok
