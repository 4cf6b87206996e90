"""Test helper: run one capability through the real CapabilityBehaviour on a body.

``run_leaf(body, "move_to", {...})`` builds the behaviour with a fresh
:class:`CapabilityContext` over ``default_registry()`` (or the registry/context
given), ticks it (``tick_once`` then ``body.advance(1)``) until it leaves
RUNNING, and returns a :class:`LeafRun` with the final status and the
structured :class:`ActionResult` (verification included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import py_trees

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import ActionResult, CapabilitySpec, Verdict
from craftbt.world.body import Body

_REGISTRY: Registry | None = None


def shared_registry() -> Registry:
    """One default registry per test session: building it is not free."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = default_registry()
    return _REGISTRY


@dataclass
class LeafRun:
    status: py_trees.common.Status
    result: ActionResult
    ticks: int
    behaviour: CapabilityBehaviour

    @property
    def ok(self) -> bool:
        return self.status == py_trees.common.Status.SUCCESS

    @property
    def code(self) -> str | None:
        return self.result.error.code if self.result.error is not None else None

    @property
    def verdict(self) -> Verdict | None:
        return self.result.verification.verdict if self.result.verification is not None else None

    @property
    def observables(self) -> dict[str, Any]:
        return self.result.observables


def make_context(body: Body, registry: Registry | None = None) -> CapabilityContext:
    return CapabilityContext(body=body, registry=registry or shared_registry())


def run_leaf(
    body: Body,
    name: str,
    args: dict[str, Any] | None = None,
    max_ticks: int = 2_000,
    *,
    ctx: CapabilityContext | None = None,
    registry: Registry | None = None,
    spec: CapabilitySpec | None = None,
) -> LeafRun:
    """Tick one capability until it is no longer RUNNING (or ``max_ticks`` passes: AssertionError).

    ``spec`` replaces the registered spec of ``name`` (a test's altered runner or acceptance).
    """
    context = ctx or make_context(body, registry)
    spec = spec or context.registry.get(name)
    behaviour = CapabilityBehaviour(name, spec, dict(args or {}), context)
    ticks = 0
    status = py_trees.common.Status.RUNNING
    while ticks < max_ticks:
        behaviour.tick_once()
        status = behaviour.status
        if status != py_trees.common.Status.RUNNING:
            break
        body.advance(1)
        ticks += 1
    else:
        behaviour.stop(py_trees.common.Status.INVALID)
        raise AssertionError(f"{name} still RUNNING after {max_ticks} ticks")
    assert behaviour.result is not None, f"{name} finished {status} without a result"
    return LeafRun(status=status, result=behaviour.result, ticks=ticks, behaviour=behaviour)
