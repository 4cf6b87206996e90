"""How a script command reaches a registered capability: as a capability leaf ticked once per game tick.

Every dispatch builds a :class:`~craftbt.capabilities.behaviour.CapabilityBehaviour` for the command's
capability and ticks it until it finishes; the interpreter yields ``None`` (one tick) in between.

* Under :class:`~craftbt.craftscript.runner.ScriptExecutor` (``craftbt script run``) a
  :class:`~craftbt.executor.supervisor.Supervisor` is attached to each leaf, so the executor's pipeline
  (registry, args, guard, geofence, permissions, shadow mode, rate limit, journal step, SLA row) runs
  for every command, exactly as for a tree leaf.
* Inside the ``run_script`` / ``call_function`` capabilities the leaf runs with :class:`NestedHooks`,
  which hands admission to the enclosing hooks' ``admit_nested``: under an executor that is the
  pipeline's own admission stages (geofence, registry, permissions and the command allowlist, guard);
  there is no second copy of the policy here.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any

import py_trees
from pydantic import ValidationError

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import AdmitAll, CapabilityContext, DispatchHooks
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, GuardResult
from craftbt.core.errors import CraftbtError
from craftbt.world.body import ActionHandle

DispatchGen = Generator[ActionHandle | None, ActionHandle | None, ActionResult]
Attach = Callable[[CapabilityBehaviour], object]


class Dispatcher:
    """Runs one capability to completion, one game tick per yield."""

    def __init__(self, ctx: CapabilityContext, attach: Attach | None = None) -> None:
        self.ctx = ctx
        self.attach = attach
        self.count = 0

    def run(self, capability: str, args: dict[str, Any], node: str, timeout_ms: int | None = None) -> DispatchGen:
        try:
            spec = self.ctx.registry.get(capability)
        except CraftbtError as err:
            return ActionResult.failure("unknown_verb", err.problems[0].message)
        try:
            leaf = CapabilityBehaviour(node, spec, args, self.ctx, timeout_ms=timeout_ms)
        except ValidationError as exc:
            return ActionResult.failure("invalid_args", "; ".join(e["msg"] for e in exc.errors()[:3]))
        if self.attach is not None:
            self.attach(leaf)
        self.count += 1
        try:
            while True:
                leaf.tick_once()
                if leaf.status != py_trees.common.Status.RUNNING:
                    break
                yield None
        finally:
            if leaf.status == py_trees.common.Status.RUNNING:
                leaf.stop(py_trees.common.Status.INVALID)
        result = leaf.result
        if result is None:
            return ActionResult.failure("failed", f"{capability} ended without a result")
        return result


class NestedHooks(AdmitAll):
    """DispatchHooks for commands run inside a ``run_script`` / ``call_function`` leaf.

    Every command is admitted by the enclosing hooks' ``admit_nested``: under an executor run that is
    :meth:`~craftbt.executor.pipeline.Pipeline.admit_nested` (the same stages as a tree leaf); a script
    nested in a script asks its parent, which asks its own, up to the run. Without an executor
    (:class:`~craftbt.capabilities.context.AdmitAll`) only the command's guard runs, as for a leaf. The
    command's dispatch is part of the enclosing leaf's step: no timing or journal hooks of its own.
    """

    def __init__(self, parent: DispatchHooks) -> None:
        self.parent = parent

    def admit(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        return self.parent.admit_nested(ctx, spec, args, node)

    def admit_nested(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        return self.parent.admit_nested(ctx, spec, args, node)


def nested_context(ctx: CapabilityContext) -> CapabilityContext:
    """The context a leaf hands the commands it dispatches itself: admitted through :class:`NestedHooks`."""
    return replace(ctx, hooks=NestedHooks(ctx.hooks))
