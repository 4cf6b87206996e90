"""A built (ticking) tree as the XML BT.CPP's ``Groot2Publisher`` serves: every node with its ``_uid``.

BT.CPP 4.10's ``WriteTreeToXML(tree, add_metadata=true, ...)`` writes the *instantiated* tree: one
``<BehaviorTree ID=.. _fullpath=..>`` per subtree instance (the main tree first), each node with
``name`` and ``_uid``, a ``SubTree`` node with ``ID`` and ``_fullpath``; then the ``TreeNodesModel``.
The status buffer lists the same nodes, subtree block by subtree block. Here the nodes are the py_trees
behaviours the executor ticks (a subtree is inlined there as a pass-through around its root), so each
has exactly one ``_uid``: UIDs count from 1 in the order of the status buffer.

Each node's tag and ports come from the definition node it was built from, written by the same
exporter as ``craftbt convert --to btcpp`` (:mod:`trees.btcpp_export`); a ``retry: N`` leaf, one node
in the definition, is two behaviours here (a retry decorator around the leaf) and is written as a
``RetryUntilSuccessful`` around it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import py_trees

from craftbt.core.errors import CraftbtError
from craftbt.trees import model as m
from craftbt.trees.btcpp import FORMAT, path_to_id
from craftbt.trees.btcpp_export import _Exporter
from craftbt.trees.build import DEFINITION_ATTR, SHORTHAND_ATTR

#: tags for behaviours that carry no definition node (BT.CPP's own names where one fits)
_FALLBACK_TAGS: tuple[tuple[type[py_trees.behaviour.Behaviour], str], ...] = (
    (py_trees.composites.Sequence, "Sequence"),
    (py_trees.composites.Selector, "Fallback"),
    (py_trees.composites.Parallel, "Parallel"),
    (py_trees.decorators.Retry, "RetryUntilSuccessful"),
    (py_trees.decorators.Inverter, "Inverter"),
)


@dataclass
class MonitorTree:
    """The XML and the behaviours in UID order (``nodes[i]`` has UID ``i + 1``)."""

    xml: str
    nodes: list[py_trees.behaviour.Behaviour] = field(default_factory=list)
    #: subtree instance name (``_fullpath``) -> the behaviours of that block, for BLACKBOARD requests
    blocks: dict[str, list[py_trees.behaviour.Behaviour]] = field(default_factory=dict)


class _Writer:
    def __init__(self, tree_id: str) -> None:
        self.exporter = _Exporter(None)
        self.tree_id = tree_id
        self.nodes: list[py_trees.behaviour.Behaviour] = []
        #: (instance path, subtree ID, inner root) still to write, in the order BT.CPP writes them
        self.pending: list[tuple[str, str, py_trees.behaviour.Behaviour]] = []
        self.blocks: dict[str, list[py_trees.behaviour.Behaviour]] = {}

    def shell(self, behaviour: py_trees.behaviour.Behaviour) -> ET.Element:
        """The node's own element: tag, name and ports, no children."""
        node = getattr(behaviour, DEFINITION_ATTR, None)
        if isinstance(node, m.LeafNode) and getattr(behaviour, SHORTHAND_ATTR, False):
            el = ET.Element("RetryUntilSuccessful", {"num_attempts": str((node.retry or 0) + 1)})
        elif node is not None:
            try:
                el = self.exporter.node(node, "root")
            except CraftbtError:  # a port BT.CPP cannot carry: the node still shows, without its ports
                el = ET.Element(type(behaviour).__name__)
            for child in list(el):
                el.remove(child)
        else:
            tag = next((t for cls, t in _FALLBACK_TAGS if isinstance(behaviour, cls)), type(behaviour).__name__)
            el = ET.Element(tag)
        if el.tag != "SubTree":
            el.set("name", behaviour.name)
        return el

    def element(self, behaviour: py_trees.behaviour.Behaviour, block: list[py_trees.behaviour.Behaviour],
                prefix: str) -> ET.Element:
        el = self.shell(behaviour)
        block.append(behaviour)
        el.set("_uid", str(len(self.nodes) + len(block)))  # this block's nodes follow every earlier block's
        node = getattr(behaviour, DEFINITION_ATTR, None)
        if isinstance(node, m.SubtreeNode) and len(behaviour.children) == 1:
            instance = f"{prefix}{node.name or path_to_id(node.path)}::{len(self.nodes) + len(block)}"
            el.set("_fullpath", instance)
            self.pending.append((instance, el.get("ID", ""), behaviour.children[0]))
            return el
        for child in behaviour.children:
            el.append(self.element(child, block, prefix))
        return el

    def write(self, root: py_trees.behaviour.Behaviour) -> MonitorTree:
        doc = ET.Element("root", {"BTCPP_format": FORMAT, "main_tree_to_execute": self.tree_id})
        queue: list[tuple[str, str, py_trees.behaviour.Behaviour]] = [("", self.tree_id, root)]
        while queue:
            instance, ident, top = queue.pop(0)
            block: list[py_trees.behaviour.Behaviour] = []
            self.pending = []
            body = self.element(top, block, f"{instance}/" if instance else "")
            tree = ET.SubElement(doc, "BehaviorTree", {"ID": ident, "_fullpath": instance})
            tree.append(body)
            # the status buffer's order: this block's nodes, then the blocks its subtrees open
            self.nodes.extend(block)
            self.blocks[instance or self.tree_id] = block
            queue[0:0] = self.pending
        models = ET.SubElement(doc, "TreeNodesModel")
        for (tag, ident), ports in sorted(self.exporter.models.items()):
            model = ET.SubElement(models, tag, {"ID": ident})
            for port in sorted(ports):
                ET.SubElement(model, "input_port", {"name": port})
        ET.indent(doc, space="  ")
        return MonitorTree(ET.tostring(doc, encoding="unicode") + "\n", self.nodes, self.blocks)


def monitor_tree(root: py_trees.behaviour.Behaviour, tree_id: str = "MainTree") -> MonitorTree:
    """The XML a Groot2 client reads for FULLTREE, and the behaviours in UID order."""
    return _Writer(tree_id).write(root)
