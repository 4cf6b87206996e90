"""How a script command reaches a registered capability: as a capability leaf ticked once per game tick.

Every dispatch builds a :class:`~craftbt.capabilities.behaviour.CapabilityBehaviour` for the command's
capability and ticks it until it finishes; the interpreter yields ``None`` (one tick) in between.

* Under :class:`~craftbt.craftscript.runner.ScriptExecutor` (``craftbt script run``) a
  :class:`~craftbt.executor.supervisor.Supervisor` is attached to each leaf, so the executor's pipeline
  (registry, args, guard, geofence, permissions, shadow mode, rate limit, journal step, SLA row) runs
  for every command, exactly as for a tree leaf.
* Inside the ``run_script`` / ``call_function`` capabilities the leaf runs with :class:`NestedHooks`:
  the command's guard, plus the enclosing run's permissions and geofence when there is one.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import py_trees
from pydantic import ValidationError

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import CapabilityContext, DispatchHooks, run_guard
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, GuardResult
from craftbt.core.errors import CraftbtError
from craftbt.executor.pipeline import iter_positions
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


class NestedHooks:
    """DispatchHooks for commands run inside a ``run_script`` / ``call_function`` leaf.

    The command's own guard runs; when the enclosing hooks belong to an executor run (they carry
    ``run.config``), the command must also fit that run's permission profile and geofence.
    """

    def __init__(self, parent: DispatchHooks | None) -> None:
        self.parent = parent

    def admit(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        guard = run_guard(ctx, spec, args)
        if not guard.ok:
            return guard
        config = getattr(getattr(self.parent, "run", None), "config", None)
        if config is None:
            return guard
        missing = sorted(p.value for p in spec.permissions - config.granted)
        if missing:
            return GuardResult.deny(f"permission_denied:{missing[0]}", f"profile {config.profile!r}")
        if spec.world_changing:
            fence = config.geofence
            if fence is None:
                return GuardResult.deny("geofence_unconfigured", "no geofence bounds")
            if not fence.contains(ctx.body.position()):
                return GuardResult.deny("geofence_violation:bot", "the bot is outside the geofence")
            for path, pos in iter_positions(args.model_dump(mode="json")):
                if not fence.contains(pos):
                    return GuardResult.deny("geofence_violation:target", f"{path}={tuple(pos)}")
        return guard

    def first_action(self, spec: CapabilitySpec, node: str) -> None:
        return None

    def finished(self, spec: CapabilitySpec, args: Any, node: str, result: ActionResult) -> None:
        return None
