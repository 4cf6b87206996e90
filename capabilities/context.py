"""What a capability sees while it runs: the body, the blackboard, and dispatch hooks.

The executor (``executor/``) supplies a :class:`DispatchHooks` implementation
that runs the Plan-to-Body pipeline (geofence, permissions, shadow mode, rate
limits, journal). Without an executor the default hooks admit everything, so a
tree built by ``trees.build`` can be ticked directly in tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import py_trees

from craftbt.capabilities.spec import ActionResult, CapabilitySpec, GuardResult
from craftbt.world.body import BlockPos, Body, Observation

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry


def run_guard(ctx: CapabilityContext, spec: CapabilitySpec, args: Any) -> GuardResult:
    """The capability's own guard, with its refusal coded ``guard_failed:<reason>``."""
    try:
        guard = spec.guard(ctx, args)
    except (Exception, SystemExit) as exc:
        from craftbt.capabilities.plugin_faults import blame

        blame(spec, "guard", exc)
        raise
    if not isinstance(guard, GuardResult):
        from craftbt.capabilities.plugin_faults import blame

        why = TypeError(f"the guard returned {type(guard).__name__}, not a GuardResult")
        blame(spec, "guard", why)
        raise why
    if guard.ok:
        return GuardResult.allow()
    return GuardResult.deny(f"guard_failed:{guard.reason}", guard.detail, missing=guard.missing)


class DispatchHooks(Protocol):
    def admit(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        """The pre-dispatch pipeline; it must run :func:`run_guard`. A denial fails the leaf;
        an allowance that carries a ``reason`` succeeds without dispatching (shadow mode)."""
        ...

    def admit_nested(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        """Admit a command that the running leaf dispatches itself (CraftScript's ``run_script``): the same
        admission policy as :meth:`admit` (geofence, permissions, command allowlist, guard), no dispatch
        bookkeeping of its own."""
        ...

    def first_action(self, spec: CapabilitySpec, node: str) -> None:
        """Called when the runner issues its first body command (TTFA)."""
        ...

    def finished(self, spec: CapabilitySpec, args: Any, node: str, result: ActionResult) -> None:
        """Called once per run with the verified result."""
        ...


class LeafSupervisor(Protocol):
    """Decides, for one capability leaf, when the capability steps and what the leaf's parent sees.

    The executor attaches one to every leaf (I1-I3, retries, backoff); a leaf without one ticks as a
    plain py_trees behaviour.
    """

    def tick(self) -> py_trees.common.Status:
        """Run one tick (usually calling the leaf's ``step``); return the status the parent sees."""
        ...

    def terminate(self, new_status: py_trees.common.Status) -> None:
        """The leaf stops with ``new_status`` (INVALID when the tree moves on or is halted)."""
        ...


class AdmitAll:
    def admit(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        return run_guard(ctx, spec, args)

    def admit_nested(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        return run_guard(ctx, spec, args)

    def first_action(self, spec: CapabilitySpec, node: str) -> None:
        return None

    def finished(self, spec: CapabilitySpec, args: Any, node: str, result: ActionResult) -> None:
        return None


@dataclass
class CapabilityContext:
    body: Body
    registry: Registry
    hooks: DispatchHooks = field(default_factory=AdmitAll)
    blackboard: py_trees.blackboard.Client = field(
        default_factory=lambda: py_trees.blackboard.Client(name="craftbt")
    )
    #: free-form per-run state a leaf family may keep (e.g. torch positions).
    memory: dict[str, Any] = field(default_factory=dict)
    #: blocks a leaf found no way to reach. The executor hands every run the same set, so a replan's
    #: survey and the next search skip them instead of walking the bot back to the same cliff.
    unreachable: set[BlockPos] = field(default_factory=set)

    def observe(self) -> Observation:
        return self.body.observe()
