"""Postcondition-precondition-action trees (Colledanchise & Ögren), shared by every planner.

Each step becomes::

    selector "<effect> already?"        # memory: true
      condition <effect>                 # skip the step if its effect holds
      sequence "<step name>"
        condition <precondition> ...     # fail fast, with a clear reason, if not ready
        leaf <capability> <args>

so a re-run after a crash or a partial success skips what is already done. The
selectors keep memory: the effect is checked when the step is entered, and a
running step finishes and is verified rather than being halted the tick its
effect appears (which would skip its acceptance check).
Steps are grouped under named sequences to keep a planner's hierarchy visible.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from craftbt.trees.model import (
    DecoratorNode,
    LeafNode,
    Node,
    ParallelNode,
    SelectorNode,
    SequenceNode,
    TreeDefinition,
)

#: a tree node as the model's input (``{"kind": "leaf", ...}``): planners build a plan's tree as data and validate
#: it once, whole (``TreeDefinition.model_validate``; node by node was a fifth of a craft-only plan)
NodeData = dict[str, Any]


@dataclass(frozen=True)
class Check:
    """A condition node: a registered check with its args."""

    check: str
    args: dict[str, Any]

    def data(self, name: str | None = None) -> NodeData:
        """The condition node as the model's input (validation copies ``args``): see :data:`NodeData`."""
        return {"kind": "condition", "name": name, "check": self.check, "args": self.args}

    def label(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.args.items())
        return f"{self.check}({inner})"


#: Capabilities with an argument for the inventory's total after the step (see :meth:`PlanStep.data`).
RUNNING_TOTAL_ARG = {"acquire_material": "hold"}


@dataclass
class PlanStep:
    """One action of a plan, with the fact it establishes and what it needs."""

    name: str
    capability: str
    args: dict[str, Any]
    effect: Check | None = None
    preconditions: list[Check] = field(default_factory=list)
    cost: float = 1.0
    group: str | None = None
    retry: int | None = None
    #: the step's group is tried this many times in all when it fails (a hunt whose drop is random: a kill that
    #: dropped none is followed by another kill, not by a replan)
    group_attempts: int | None = None
    #: inventory bookkeeping, so a plan can be re-simulated after reordering steps
    produces: dict[str, int] = field(default_factory=dict)
    consumes: dict[str, int] = field(default_factory=dict)

    def _args(self) -> dict[str, Any]:
        """The leaf's args; a step that takes its running total (:data:`RUNNING_TOTAL_ARG`) gets its effect's count:
        a mining step stops once the inventory holds what the plan needs there, counting what an earlier step
        brought (the ore a mining search dug through on its way; natural seed 22's compass: four raw iron dug
        by the search and three standing, and the step that mined seven came up short)."""
        arg = RUNNING_TOTAL_ARG.get(self.capability)
        effect = self.effect
        if arg is None or effect is None or effect.check != "has_item" or effect.args.get("item") != self.args.get(
                "item"):
            return self.args
        return {**self.args, arg: effect.args["count"]}

    def data(self) -> NodeData:
        """The step's subtree as the model's input: a plan's tree is validated once, whole (building node by node
        was a fifth of a craft-only plan; see :func:`steps_to_tree`)."""
        leaf: dict[str, Any] = {"kind": "leaf", "name": self.name, "capability": self.capability,
                                "args": self._args(), "retry": self.retry}
        if not self.preconditions and self.effect is None:
            return leaf
        body = leaf
        if self.preconditions:
            body = {"kind": "sequence", "name": f"do {self.name}", "memory": True,
                    "children": [*(c.data() for c in self.preconditions), leaf]}
        if self.effect is None:
            return body
        # memory: the effect is checked once, on entry; a running step then finishes and is verified
        # (a reactive selector would halt the leaf the tick its effect appears, before acceptance ran)
        return {"kind": "selector", "name": f"{self.name}?", "memory": True, "children": [self.effect.data(), body]}


def steps_to_tree(
    tree_name: str,
    description: str,
    goal: Check | None,
    steps: list[PlanStep],
    *,
    root_name: str = "plan",
) -> TreeDefinition:
    """Assemble steps (grouped by ``group``, in order) under a goal-guarded root."""
    children: list[dict[str, Any]] = []
    current_group: str | None = None
    grouped: list[PlanStep] = []
    for step in unique_names(steps):
        if step.group != current_group and grouped:
            children.append(_group_node(current_group, [g.data() for g in grouped], group_attempts(grouped)))
            grouped = []
        current_group = step.group
        grouped.append(step)
    if grouped:
        children.append(_group_node(current_group, [g.data() for g in grouped], group_attempts(grouped)))
    plan = {"kind": "sequence", "name": root_name, "memory": True, "children": children}
    root = plan if goal is None else {"kind": "selector", "name": f"goal: {goal.label()}", "memory": True,
                                      "children": [goal.data(), plan]}
    return TreeDefinition.model_validate({"tree": tree_name, "description": description, "root": root})


def unique_names(steps: list[PlanStep]) -> list[PlanStep]:
    """Leaf names write ``/results/<name>`` on the blackboard, so a repeated name gets ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    out: list[PlanStep] = []
    for step in steps:
        n = seen.get(step.name, 0) + 1
        seen[step.name] = n
        out.append(step if n == 1 else replace(step, name=f"{step.name} #{n}"))
    return out


def dedupe_leaf_names(root: Node) -> None:
    """Rename repeated leaf names in place (``#2``, ``#3``): each leaf writes ``/results/<name>``.

    A new name never collides with one already in the tree (two spliced plans may both hold ``x #2``)."""
    leaves: list[LeafNode] = []
    stack: list[Node] = [root]  # the next node last: pre-order, each pop and push at the end of the list
    while stack:
        node = stack.pop()
        if isinstance(node, LeafNode) and node.name is not None:
            leaves.append(node)
        # isinstance, not getattr: a pydantic model's missing attribute raises inside (half a craft-only plan)
        if isinstance(node, SequenceNode | SelectorNode | ParallelNode):
            stack.extend(reversed(node.children))
        elif isinstance(node, DecoratorNode):
            stack.append(node.child)
    taken = {leaf.name for leaf in leaves}
    used: set[str] = set()
    for leaf in leaves:
        assert leaf.name is not None
        name = leaf.name
        if name in used:
            n = 2
            while f"{name} #{n}" in taken or f"{name} #{n}" in used:
                n += 1
            leaf.name = f"{name} #{n}"
            taken.add(leaf.name)
        used.add(leaf.name)


def _group_node(group: str | None, nodes: list[dict[str, Any]], attempts: int | None = None) -> dict[str, Any]:
    node = nodes[0] if len(nodes) == 1 else {"kind": "sequence", "name": "steps" if group is None else group,
                                              "memory": True, "children": nodes}
    return retried(node, attempts) if group is not None else node  # only a named group is one task to repeat


def retried(node: NodeData, attempts: int | None) -> NodeData:
    """``node`` under a Retry decorator of ``attempts`` (:attr:`PlanStep.group_attempts`), or as it is."""
    if attempts is None or attempts < 2:
        return node
    return {"kind": "decorator", "name": f"{node.get('name') or 'steps'} (up to {attempts} times)",
            "decorator": "retry", "params": {"attempts": attempts}, "child": node}


def group_attempts(steps: Iterable[PlanStep]) -> int | None:
    """How many times a group of ``steps`` is tried: the most any of them asks for."""
    return max((s.group_attempts for s in steps if s.group_attempts), default=None)


#: leaves that walk the body away from where it stands
MOVING_CAPABILITIES = frozenset({"acquire_material", "harvest_crop", "collect_items", "navigate", "move_to",
                                 "explore", "attack_entity"})
#: a carried workstation is picked up from this close
PICKUP_RADIUS = 8


def _stations_needed(step: PlanStep) -> list[str]:
    return [str(c.args["block"]) for c in step.preconditions if c.check == "block_nearby"]


def station_moves(steps: list[PlanStep], here: Collection[str] = ()) -> dict[int, list[PlanStep]]:
    """Steps to insert before ``steps[i]`` (keyed by ``id(step)``) so workstations travel with the body.

    Crafting and smelting need their station within a few blocks, but gathering
    walks away. A station placed here and needed again after a move is picked up
    (``acquire_material``) before the move and placed again (``place_workstation``,
    reused if one is in reach) before the next step that needs it. One in reach when
    planning began (``here``: the state's stations) is reused where it stands, and
    picked up like the others only when an explore, which walks out of its reach for
    sure, comes before the next step that needs it (a replan of the compass on natural
    seed 0 found its furnace in reach, explored for logs and could not smelt: nothing
    had picked the furnace up). It is picked up before the first move on the way there,
    not before the explore itself: mining on the way had walked the bot more than 8
    blocks off, and the pick-up found nothing (natural seeds 3, 4 and 10).
    """
    inserts: dict[int, list[PlanStep]] = {}
    # station -> "here" | "carried" | "found" (in reach when planning began)
    where: dict[str, str] = dict.fromkeys(here, "found")
    for i, step in enumerate(steps):
        before: list[PlanStep] = []
        if step.capability in MOVING_CAPABILITIES:
            later = {s for nxt in steps[i + 1:] for s in _stations_needed(nxt)}
            for station, state in where.items():
                if (state == "here" or (state == "found" and _explores_before_need(steps, i, station))) \
                        and station in later:
                    before.append(PlanStep(
                        name=f"pick up {station}", capability="acquire_material",
                        args={"item": station, "count": 1, "radius": PICKUP_RADIUS},
                        effect=Check("has_item", {"item": station, "count": 1}), cost=20.0,
                        group=step.group, produces={station: 1},
                    ))
                    where[station] = "carried"
        for station in _stations_needed(step):
            if where.get(station) == "carried":
                before.append(PlanStep(
                    name=f"place {station} again", capability="place_workstation", args={"workstation": station},
                    effect=Check("block_nearby", {"block": station, "radius": 6}),
                    preconditions=[Check("has_item", {"item": station, "count": 1})], cost=20.0,
                    group=step.group, consumes={station: 1},
                ))
                where[station] = "here"
        if step.capability == "place_workstation":
            where[str(step.args["workstation"])] = "here"
        if before:
            inserts[id(step)] = before
    return inserts


def _explores_before_need(steps: list[PlanStep], start: int, station: str) -> bool:
    """An explore runs from ``steps[start]`` on before the next step that needs ``station``."""
    for step in steps[start:]:
        if step.capability == "explore":
            return True
        if station in _stations_needed(step):
            return False
    return False


def carry_stations(steps: list[PlanStep], here: Collection[str] = ()) -> list[PlanStep]:
    """``steps`` with the pick-up and re-place steps of :func:`station_moves` inserted."""
    inserts = station_moves(steps, here)
    return [s for step in steps for s in (*inserts.get(id(step), ()), step)]
