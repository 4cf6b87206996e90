"""What the viewer draws: a py_trees tree as plain JSON, and per-tick deltas of its node statuses.

Node ids are positions in a pre-order walk (``n0`` is the root), stable for one run and
cheaper to send than py_trees' UUIDs. Names are sent as data, never as markup: the viewer
puts them into the page with ``textContent``.
"""

from __future__ import annotations

import json
from typing import Any

import py_trees
from py_trees.common import Status

from craftbt.capabilities.behaviour import CapabilityBehaviour


def kind_of(node: py_trees.behaviour.Behaviour) -> str:
    """py_trees' own node families: the viewer draws each with py_trees' dot shape."""
    if isinstance(node, py_trees.composites.Sequence):
        return "sequence"
    if isinstance(node, py_trees.composites.Selector):
        return "selector"
    if isinstance(node, py_trees.composites.Parallel):
        return "parallel"
    if isinstance(node, py_trees.decorators.Decorator):
        return "decorator"
    if isinstance(node, CapabilityBehaviour):
        return "action"
    return "behaviour"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy (blackboard values and results may hold pydantic models or tuples)."""
    return json.loads(json.dumps(value, default=lambda o: o.model_dump(mode="json")
                                 if hasattr(o, "model_dump") else str(o)))


class TreeTracker:
    """Follows one tree across ticks: its structure once, then only what changed."""

    def __init__(self, root: py_trees.behaviour.Behaviour) -> None:
        self.root = root
        self.nodes = self._preorder(root)  # py_trees' iterate() is post-order; the viewer wants the root first
        self.ids = {id(n): f"n{i}" for i, n in enumerate(self.nodes)}
        self._last: dict[str, str] = {}
        self._blackboard_digest = ""

    @staticmethod
    def _preorder(root: py_trees.behaviour.Behaviour) -> list[py_trees.behaviour.Behaviour]:
        out: list[py_trees.behaviour.Behaviour] = []
        stack = [root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(list(node.children)))
        return out

    def structure(self) -> dict[str, Any]:
        nodes = []
        for node in self.nodes:
            entry: dict[str, Any] = {
                "id": self.ids[id(node)],
                "name": node.name,
                "kind": kind_of(node),
                "children": [self.ids[id(c)] for c in node.children],
                "status": node.status.value,
            }
            if isinstance(node, CapabilityBehaviour):
                entry["capability"] = node.spec.key
                entry["args"] = jsonable(node.raw_args)
            nodes.append(entry)
        return {"root": self.ids[id(self.root)], "nodes": nodes}

    def changes(self) -> dict[str, str]:
        """Node id -> status for every node whose status differs from the last call."""
        out: dict[str, str] = {}
        for node in self.nodes:
            nid = self.ids[id(node)]
            status = node.status.value
            if self._last.get(nid) != status:
                out[nid] = status
                self._last[nid] = status
        return out

    def leaf_detail(self, leaf: CapabilityBehaviour | None) -> dict[str, Any] | None:
        if leaf is None:
            return None
        return {
            "id": self.ids.get(id(leaf)),
            "name": leaf.name,
            "capability": leaf.spec.key,
            "args": jsonable(leaf.raw_args),
            "status": leaf.status.value,
            "result": jsonable(leaf.result.model_dump(mode="json")) if leaf.result is not None else None,
        }

    def blackboard_if_changed(self) -> dict[str, Any] | None:
        storage = jsonable(dict(py_trees.blackboard.Blackboard.storage))
        digest = json.dumps(storage, sort_keys=True)
        if digest == self._blackboard_digest:
            return None
        self._blackboard_digest = digest
        return storage  # type: ignore[no-any-return]

    def finished(self) -> bool:
        return self.root.status in (Status.SUCCESS, Status.FAILURE)
