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
from craftbt.trees.treeview import jsonable, preorder, structure

__all__ = ["TreeTracker", "jsonable"]


class TreeTracker:
    """Follows one tree across ticks: its structure once, then only what changed."""

    def __init__(self, root: py_trees.behaviour.Behaviour) -> None:
        self.root = root
        self.nodes = preorder(root)
        self.ids = {id(n): f"n{i}" for i, n in enumerate(self.nodes)}
        self._last: dict[str, str] = {}
        self._blackboard_digest = ""

    def structure(self) -> dict[str, Any]:
        return structure(self.root)

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
