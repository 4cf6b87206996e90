"""The LLM's wire format: a flat node list with child ids, converted to a tree definition after checks.

Strict structured-output modes limit nesting depth and require every object to
declare its properties, so the model answers with one flat list of nodes
(``id``, ``kind``, ``name``, ``capability``/``check``, ``args_json`` — the args
as a JSON object in a string — and ``children`` ids) plus the root id.
:func:`to_definition` checks the graph is a tree (ids unique, children known,
every node used once, no cycles) before building the definition; registry
checks come after, in the planner.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from craftbt.trees import model as m

MAX_NODES = 200

WIRE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["tree", "description", "root", "nodes"],
    "properties": {
        "tree": {"type": "string", "pattern": m.TREE_NAME_PATTERN},
        "description": {"type": "string"},
        "root": {"type": "string"},
        "nodes": {
            "type": "array",
            "maxItems": MAX_NODES,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "kind", "name", "capability", "check", "args_json", "children"],
                "properties": {
                    "id": {"type": "string"},
                    "kind": {"type": "string", "enum": ["sequence", "selector", "leaf", "condition"]},
                    "name": {"type": ["string", "null"]},
                    "capability": {"type": ["string", "null"]},
                    "check": {"type": ["string", "null"]},
                    "args_json": {"type": ["string", "null"]},
                    "children": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}


class WireError(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse(text: str) -> dict[str, Any]:
    """Answer text -> wire object; a fenced code block is accepted, anything else must be the object."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        data = json.loads(body)
    except ValueError as err:
        raise WireError([f"the answer is not JSON: {err}"]) from None
    validator = jsonschema.Draft202012Validator(WIRE_SCHEMA)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        raise WireError([f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}" for e in errors[:10]])
    assert isinstance(data, dict)
    return data


def to_definition(data: dict[str, Any]) -> m.TreeDefinition:
    nodes: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for raw in data["nodes"]:
        if raw["id"] in nodes:
            problems.append(f"node id {raw['id']!r} is used twice")
        nodes[raw["id"]] = raw
    if data["root"] not in nodes:
        problems.append(f"root {data['root']!r} is not a node id")
    parents: dict[str, str] = {}
    for raw in nodes.values():
        for child in raw["children"]:
            if child not in nodes:
                problems.append(f"node {raw['id']!r}: child {child!r} is not a node id")
            elif child in parents:
                problems.append(f"node {child!r} has two parents ({parents[child]!r}, {raw['id']!r})")
            else:
                parents[child] = raw["id"]
    if problems:
        raise WireError(problems)
    built: dict[str, m.Node] = {}

    def build(node_id: str, path: tuple[str, ...]) -> m.Node:
        if node_id in path:
            raise WireError([f"cycle through node {node_id!r}"])
        raw = nodes[node_id]
        name = raw["name"] or None
        kind = raw["kind"]
        if kind in ("sequence", "selector"):
            if not raw["children"]:
                raise WireError([f"{kind} {node_id!r} has no children"])
            children = [build(c, (*path, node_id)) for c in raw["children"]]
            node: m.Node = (m.SequenceNode(name=name, children=children) if kind == "sequence"
                            else m.SelectorNode(name=name, children=children))
        else:
            if raw["children"]:
                raise WireError([f"{kind} {node_id!r} cannot have children"])
            args = _args(node_id, raw["args_json"])
            if kind == "leaf":
                if not raw["capability"]:
                    raise WireError([f"leaf {node_id!r} names no capability"])
                node = m.LeafNode(name=name, capability=raw["capability"], args=args)
            else:
                if not raw["check"]:
                    raise WireError([f"condition {node_id!r} names no check"])
                node = m.ConditionNode(name=name, check=raw["check"], args=args)
        built[node_id] = node
        return node

    root = build(data["root"], ())
    unused = sorted(set(nodes) - set(built))
    if unused:
        raise WireError([f"nodes not reachable from the root: {', '.join(unused[:10])}"])
    return m.TreeDefinition(tree=data["tree"], description=data["description"], root=root, source="planner:llm")


def _args(node_id: str, text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as err:
        raise WireError([f"node {node_id!r}: args_json is not JSON: {err}"]) from None
    if not isinstance(value, dict):
        raise WireError([f"node {node_id!r}: args_json must be a JSON object"])
    return value


def leaf_capabilities(node: m.Node) -> list[str]:
    if isinstance(node, m.LeafNode):
        return [node.capability.partition("@")[0]]
    out: list[str] = []
    for child in getattr(node, "children", []):
        out += leaf_capabilities(child)
    return out
