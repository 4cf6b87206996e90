"""A built tree as the plain data the tree view draws (``trees/treeview.js``: the live viewer and
``craftbt render -f html`` share it), and the standalone page ``render -f html`` writes.

Node ids are positions in a pre-order walk (``n0`` is the root), stable for one run and cheaper to
send than py_trees' UUIDs. Names are data, never markup: the view puts them in with ``textContent``,
and the page embeds the data as JSON with ``<`` escaped, so no name can close the script.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

import py_trees

from craftbt.capabilities.behaviour import CapabilityBehaviour


def kind_of(node: py_trees.behaviour.Behaviour) -> str:
    """py_trees' own node families: the view draws each with py_trees' dot colour."""
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


def preorder(root: py_trees.behaviour.Behaviour) -> list[py_trees.behaviour.Behaviour]:
    """The root first (py_trees' ``iterate()`` is post-order)."""
    out: list[py_trees.behaviour.Behaviour] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(list(node.children)))
    return out


def structure(root: py_trees.behaviour.Behaviour) -> dict[str, Any]:
    """``{"root": "n0", "nodes": [{id, name, kind, children, status, capability?, args?}, ...]}``."""
    nodes = preorder(root)
    ids = {id(n): f"n{i}" for i, n in enumerate(nodes)}
    out = []
    for node in nodes:
        entry: dict[str, Any] = {"id": ids[id(node)], "name": node.name, "kind": kind_of(node),
                                 "children": [ids[id(c)] for c in node.children], "status": node.status.value}
        if isinstance(node, CapabilityBehaviour):
            entry["capability"] = node.spec.key
            entry["args"] = jsonable(node.raw_args)
        out.append(entry)
    return {"root": ids[id(root)], "nodes": out}


def script() -> str:
    """The tree view's JavaScript (served to the viewer at ``/viewer/treeview.js``)."""
    return resources.files("craftbt.trees").joinpath("treeview.js").read_text(encoding="utf-8")


_PAGE_CSS = """
body{margin:0;font:13px system-ui,sans-serif;display:grid;grid-template-rows:auto auto minmax(0,1fr);height:100vh}
h1{font-size:16px;margin:8px 10px 0}p.desc{margin:2px 10px;color:#444}
#bar{display:flex;gap:6px;align-items:center;padding:4px 10px;border-bottom:1px solid #ddd;flex-wrap:wrap}
#legend{display:flex;gap:6px;margin-left:auto}.swatch{border:2.5px solid;border-radius:4px;padding:0 5px}
#pane{position:relative;overflow:hidden;background:#fbfbfb;min-height:0}#pane svg{display:block;cursor:grab}
.node text{font:12px sans-serif;pointer-events:none}.node .badge{fill:#555;font-size:11px}.node{cursor:pointer}
"""


def page(title: str, description: str, root: py_trees.behaviour.Behaviour) -> str:
    """A self-contained HTML page drawing ``root`` (with its statuses) with the viewer's component."""
    data = json.dumps(structure(root)).replace("<", "\\u003c")
    code = script().replace("</", "<\\/")
    desc = f'<p class="desc">{html.escape(description)}</p>' if description else ""
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<link rel="icon" href="data:,"><style>{_PAGE_CSS}</style></head>\n<body><div><h1>{html.escape(title)}</h1>'
        f'{desc}</div><div id="bar"><button id="fit">fit</button><button id="zoomout">\u2212</button>'
        '<button id="zoomin">+</button><span>drag to pan · wheel to zoom · click a node to open or fold it</span>'
        '<span id="legend"></span></div><div id="pane"></div>\n'
        f'<script>{code}</script>\n<script>"use strict";\n'
        f"const tree = {data};\n"
        "const pane = document.getElementById('pane');\n"
        "const view = new CraftbtTreeView.TreeView(pane);\n"
        "view.follow = false;\n"
        "view.autofold = false;\n"
        "CraftbtTreeView.legend(document.getElementById('legend'));\n"
        "view.setTree(tree);\n"
        "document.getElementById('fit').onclick = () => view.fit();\n"
        "document.getElementById('zoomin').onclick = () => view.zoomAt(1.25, pane.clientWidth / 2, 0);\n"
        "document.getElementById('zoomout').onclick = () => view.zoomAt(0.8, pane.clientWidth / 2, 0);\n"
        "</script></body></html>\n"
    )
