"""Tree definition -> py_trees tree of capability behaviours.

``build(definition, ctx)`` validates first (nothing runs that was not
validated), then makes:

* ``sequence`` / ``selector`` -> :class:`py_trees.composites.Sequence` / ``Selector`` with ``memory``;
  ``parallel`` -> ``Parallel`` with ``SuccessOnAll(synchronise=True)`` (a child
  that succeeded is not re-run) or ``SuccessOnOne``;
* ``leaf`` -> :class:`capabilities.behaviour.CapabilityBehaviour` with the spec the
  registry resolves for the (pinned) reference; ``timeout_ms`` goes to the
  behaviour; ``retry: N`` wraps it in ``Retry`` allowing N+1 attempts;
* ``condition`` -> :class:`capabilities.behaviour.CheckBehaviour`;
* decorators -> ``Inverter``, ``Retry`` (attempts), :class:`TickTimeout` (game time on the
  body's clock, so the simulator stays deterministic), ``Repeat`` (count),
  ``EternalGuard`` (the condition check evaluated before every tick),
  ``SuccessIsFailure``, ``FailureIsSuccess``, ``OneShot`` (latches on the
  first success; a failure is re-run);
* ``subtree`` -> a ``PassThrough`` named ``subtree <path>`` around the subtree's
  root, with the subtree's ``{key}`` references renamed by ``remap``.

Leaves without a ``name`` get ``<capability>#<n>`` (n counts leaves in
pre-order) so ``/results/<name>`` never collides. Every built node carries the
definition node it came from (attribute :data:`DEFINITION_ATTR`), which is
what :mod:`trees.dump` and :mod:`trees.render` read. The initial blackboard
values are written to the py_trees blackboard when the tree is built.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import py_trees
from py_trees.common import OneShotPolicy, ParallelPolicy, Status

from craftbt.capabilities.behaviour import REFERENCE, CapabilityBehaviour, CheckBehaviour, blackboard_key
from craftbt.capabilities.context import CapabilityContext
from craftbt.trees import model as m
from craftbt.trees.validate import Checked, resolve_subtree_path, validate_definition
from craftbt.world.body import TICKS_PER_SECOND

DEFINITION_ATTR = "craftbt_definition"
#: set on a Retry that came from a leaf's ``retry:`` shorthand, so dump folds it back
SHORTHAND_ATTR = "craftbt_shorthand"
#: ``attempts``/``count`` that never run out
FOREVER = -1


class TickTimeout(py_trees.decorators.Timeout):  # type: ignore[misc]
    """``Timeout`` measured in game ticks of the body, not wall-clock seconds."""

    def __init__(self, name: str, child: py_trees.behaviour.Behaviour, duration_ms: int, ctx: CapabilityContext):
        super().__init__(name=name, child=child, duration=duration_ms / 1000.0)
        self.duration_ms = duration_ms
        self.ctx = ctx
        self.deadline_tick = 0

    def initialise(self) -> None:
        self.deadline_tick = self.ctx.body.now_ticks() + math.ceil(self.duration_ms * TICKS_PER_SECOND / 1000)
        self.feedback_message = ""

    def update(self) -> Status:
        if self.decorated.status == Status.RUNNING and self.ctx.body.now_ticks() > self.deadline_tick:
            self.feedback_message = "timed out"
            self.decorated.stop(Status.INVALID)
            return Status.FAILURE
        return self.decorated.status


@dataclass
class BuiltTree:
    """The py_trees tree plus what it was built from."""

    tree: py_trees.trees.BehaviourTree
    definition: m.TreeDefinition
    #: initial blackboard values (global key names)
    initial: dict[str, Any]

    @property
    def root(self) -> py_trees.behaviour.Behaviour:
        return self.tree.root

    def reset_blackboard(self) -> None:
        """Write the initial values again (e.g. before re-running the tree)."""
        for key, value in self.initial.items():
            py_trees.blackboard.Blackboard.set(blackboard_key(key), value)


def release_blackboard_clients(root: py_trees.behaviour.Behaviour | None,
                               *extra: py_trees.blackboard.Client) -> None:
    """Unregister the blackboard clients of a tree that is done, keeping the values they wrote.

    py_trees keeps every client in a class-level registry until it is unregistered, so a
    long-lived process (a service, the autonomy loop, an evaluation worker) that builds tree
    after tree would otherwise keep every leaf's client of every run.
    """
    clients = [c for node in (root.iterate() if root is not None else ()) for c in node.blackboards]
    for client in [*clients, *extra]:
        if client.unique_identifier in py_trees.blackboard.Blackboard.clients:
            client.unregister(clear=False)


def rename_references(value: Any, rename: dict[str, str]) -> Any:
    """Rewrite ``{inner}`` references to ``{outer}`` for a remapped subtree."""
    if not rename:
        return value
    if isinstance(value, str):
        return REFERENCE.sub(lambda mt: "{" + rename.get(mt.group(1), mt.group(1)) + "}", value)
    if isinstance(value, dict):
        return {k: rename_references(v, rename) for k, v in value.items()}
    if isinstance(value, list):
        return [rename_references(v, rename) for v in value]
    return value


class _Builder:
    def __init__(self, ctx: CapabilityContext, checked: Checked) -> None:
        self.ctx = ctx
        self.registry = ctx.registry
        self.checked = checked
        self.leaf_count = 0

    def node(self, node: m.Node, base_dir: Path | None, rename: dict[str, str]) -> py_trees.behaviour.Behaviour:
        built = self._node(node, base_dir, rename)
        setattr(built, DEFINITION_ATTR, node)
        return built

    def _node(self, node: m.Node, base_dir: Path | None, rename: dict[str, str]) -> py_trees.behaviour.Behaviour:
        if isinstance(node, m.SequenceNode):
            return py_trees.composites.Sequence(
                name=node.name or "Sequence", memory=node.memory,
                children=[self.node(c, base_dir, rename) for c in node.children],
            )
        if isinstance(node, m.SelectorNode):
            return py_trees.composites.Selector(
                name=node.name or "Selector", memory=node.memory,
                children=[self.node(c, base_dir, rename) for c in node.children],
            )
        if isinstance(node, m.ParallelNode):
            policy = (
                ParallelPolicy.SuccessOnAll(synchronise=True)
                if node.policy is m.ParallelPolicy.SUCCESS_ON_ALL
                else ParallelPolicy.SuccessOnOne()
            )
            return py_trees.composites.Parallel(
                name=node.name or "Parallel", policy=policy,
                children=[self.node(c, base_dir, rename) for c in node.children],
            )
        if isinstance(node, m.LeafNode):
            return self.leaf(node, rename)
        if isinstance(node, m.ConditionNode):
            check = self.registry.get_check(node.check)
            return CheckBehaviour(
                node.name or node.check, check, rename_references(node.args, rename), self.ctx
            )
        if isinstance(node, m.DecoratorNode):
            return self.decorator(node, self.node(node.child, base_dir, rename), rename)
        return self.subtree(node, base_dir, rename)

    def leaf(self, node: m.LeafNode, rename: dict[str, str]) -> py_trees.behaviour.Behaviour:
        spec = self.registry.get(node.capability)
        self.leaf_count += 1
        name = node.name or f"{spec.name}#{self.leaf_count}"
        key = rename_references(node.idempotency_key, rename) if node.idempotency_key else None
        behaviour = CapabilityBehaviour(
            name, spec, rename_references(node.args, rename), self.ctx,
            timeout_ms=node.timeout_ms, idempotency_key=key,
        )
        if not node.retry:
            return behaviour
        setattr(behaviour, DEFINITION_ATTR, node)
        retry = py_trees.decorators.Retry(name=f"Retry x{node.retry + 1}", child=behaviour,
                                          num_failures=node.retry + 1)
        setattr(retry, SHORTHAND_ATTR, True)
        return retry

    def decorator(
        self, node: m.DecoratorNode, child: py_trees.behaviour.Behaviour, rename: dict[str, str]
    ) -> py_trees.behaviour.Behaviour:
        kind, params = node.decorator, node.params
        D = m.DecoratorKind
        dec = py_trees.decorators
        if kind is D.INVERTER:
            return dec.Inverter(name=node.name or "Inverter", child=child)
        if kind is D.RETRY:
            attempts = int(params["attempts"])
            if attempts == FOREVER:  # py_trees counts failures against a number; infinity never runs out
                forever: Any = math.inf  # typed int in py_trees; a float compares the same way
                return dec.Retry(name=node.name or "Retry forever", child=child, num_failures=forever)
            return dec.Retry(name=node.name or f"Retry x{attempts}", child=child, num_failures=attempts)
        if kind is D.TIMEOUT:
            duration = int(params["duration_ms"])
            return TickTimeout(node.name or f"Timeout {duration} ms", child, duration, self.ctx)
        if kind is D.REPEAT:
            count = int(params["count"])
            return dec.Repeat(name=node.name or f"Repeat x{count}", child=child, num_success=count)
        if kind is D.ETERNAL_GUARD:
            cond = params["condition"]
            check = self.registry.get_check(cond["check"])
            guard = CheckBehaviour(f"guard {check.name}", check,
                                   rename_references(cond.get("args") or {}, rename), self.ctx)
            return dec.EternalGuard(name=node.name or f"Guard {check.name}", child=child, condition=guard.update)
        if kind is D.SUCCESS_IS_FAILURE:
            return dec.SuccessIsFailure(name=node.name or "Success is failure", child=child)
        if kind is D.FAILURE_IS_SUCCESS:
            return dec.FailureIsSuccess(name=node.name or "Failure is success", child=child)
        return dec.OneShot(name=node.name or "Oneshot", child=child, policy=OneShotPolicy.ON_SUCCESSFUL_COMPLETION)

    def subtree(
        self, node: m.SubtreeNode, base_dir: Path | None, rename: dict[str, str]
    ) -> py_trees.behaviour.Behaviour:
        resolved = resolve_subtree_path(node.path, base_dir)
        assert resolved is not None  # validation found it
        loaded = self.checked.subtrees[resolved.resolve()]
        assert loaded.definition is not None
        inner_rename = {inner: rename.get(outer, outer) for inner, outer in node.remap.items()}
        root = self.node(loaded.definition.root, resolved.parent, inner_rename)
        return py_trees.decorators.PassThrough(name=node.name or f"subtree {node.path}", child=root)


def build(
    definition: m.TreeDefinition,
    ctx: CapabilityContext,
    *,
    base_dir: Path | None = None,
    checked: Checked | None = None,
) -> BuiltTree:
    """Validate (unless ``checked`` is given for this definition) and build. Raises CraftbtError."""
    if checked is None or checked.definition is not definition:
        checked = validate_definition(definition, ctx.registry, base_dir=base_dir)
    checked.raise_for_problems()
    builder = _Builder(ctx, checked)
    root = builder.node(definition.root, checked.base_dir, {})
    built = BuiltTree(py_trees.trees.BehaviourTree(root), definition, dict(checked.initial))
    built.reset_blackboard()
    return built
