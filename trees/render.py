"""Draw a tree: ascii, unicode, dot, svg, png or html, with py_trees' display module.

The definition is validated and built exactly as for a run (on a detached
body that refuses to be used), then every node is relabelled for people:
leaves as ``capability@version`` plus their key arguments (and their name
when one was given), conditions as ``check?`` plus arguments. SVG and PNG come
from Graphviz ``dot`` through pydot.

Given ``statuses`` (a finished run's step outcomes by node name, read from the
journal), each leaf takes its status and each composite the status its kind
derives from its children, so py_trees' displays colour the run as it ended.

Names and arguments come from tree files, which come from people and LLMs: the
HTML page escapes every label it inserts (py_trees' ``xhtml_tree`` does not),
and the Graphviz formats get labels with the characters DOT would read as
syntax (``"``, ``\\``, ``<``/``>`` HTML-like labels) replaced by look-alikes,
because pydot leaves such node ids unquoted.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, cast

import py_trees

from craftbt.capabilities.behaviour import CapabilityBehaviour, CheckBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees import model as m
from craftbt.trees.build import DEFINITION_ATTR, build
from craftbt.trees.treeview import page
from craftbt.world.body import Body

MAX_ARGS = 4
MAX_VALUE = 28


class RenderFormat(StrEnum):
    ASCII = "ascii"
    UNICODE = "unicode"
    DOT = "dot"
    SVG = "svg"
    PNG = "png"
    HTML = "html"


class _DetachedBody:
    """Rendering never ticks; a body call here is a bug, reported as such."""

    def __getattr__(self, name: str) -> Any:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"render has no body (called {name})")


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def args_label(args: dict[str, Any]) -> str:
    items = [f"{k}={_short(v)}" for k, v in list(args.items())[:MAX_ARGS]]
    if len(args) > MAX_ARGS:
        items.append("…")
    return " ".join(items)


def label(node: py_trees.behaviour.Behaviour) -> str:
    """The human label of one built node."""
    defn = getattr(node, DEFINITION_ATTR, None)
    if isinstance(node, CapabilityBehaviour):
        head = node.spec.key
        if isinstance(defn, m.LeafNode) and defn.name:
            head = f"{defn.name}\n{head}"
        extra = args_label(node.raw_args)
        return f"{head}\n{extra}" if extra else head
    if isinstance(node, CheckBehaviour):
        extra = args_label(node.raw_args)
        return f"{node.check.name}?" + (f"\n{extra}" if extra else "")
    return str(node.name)


def relabel(root: py_trees.behaviour.Behaviour) -> py_trees.behaviour.Behaviour:
    for node in root.iterate():
        node.name = label(node)
    return root


#: DOT syntax characters in a label -> a look-alike that draws the same and means nothing to Graphviz
#: ``:`` too: pydot reads ``name:port`` in a node id, which cut a leaf with dict args in two
DOT_SAFE = str.maketrans({'"': "\u2033", "\\": "\u2216", "<": "\u2039", ">": "\u203a", ":": "\u2236"})


def rename_all(root: py_trees.behaviour.Behaviour, how: Any) -> None:
    for node in root.iterate():
        node.name = how(node.name)


def display_root(definition: m.TreeDefinition, registry: Registry, *, base_dir: Path | None = None) -> Any:
    ctx = CapabilityContext(body=cast(Body, _DetachedBody()), registry=registry)
    built = build(definition, ctx, base_dir=base_dir)
    return relabel(built.root)


def _derived(node: py_trees.behaviour.Behaviour, statuses: Mapping[str, py_trees.common.Status]) -> None:
    """Give every node the status the run left it in; nodes the run never reached stay INVALID."""
    Status = py_trees.common.Status
    for child in node.children:
        _derived(child, statuses)
    if not node.children:
        node.status = statuses.get(str(node.name), Status.INVALID)
        return
    seen = [c.status for c in node.children if c.status is not Status.INVALID]
    if not seen:
        node.status = Status.INVALID
    elif isinstance(node, py_trees.composites.Selector):
        node.status = Status.SUCCESS if Status.SUCCESS in seen else (
            Status.FAILURE if len(seen) == len(node.children) and Status.RUNNING not in seen else seen[-1])
    elif isinstance(node, py_trees.composites.Sequence | py_trees.composites.Parallel):
        node.status = Status.FAILURE if Status.FAILURE in seen else (
            Status.SUCCESS if len(seen) == len(node.children) and set(seen) == {Status.SUCCESS} else Status.RUNNING)
    else:  # a decorator: its child's outcome, through the decorator's own rule where it inverts
        node.status = seen[-1]
        if isinstance(node, py_trees.decorators.Inverter) and seen[-1] in (Status.SUCCESS, Status.FAILURE):
            node.status = Status.FAILURE if seen[-1] is Status.SUCCESS else Status.SUCCESS


def step_statuses(steps: list[dict[str, Any]], not_an_outcome: Collection[str] = ()) -> dict[str, Any]:
    """A journal's steps -> the last outcome of each node.

    A step that never ended is RUNNING (unknown, never a failure); one stopped by the tree or by
    preemption (an error code in ``not_an_outcome``) is INVALID: it did not finish either way.
    """
    Status = py_trees.common.Status
    out: dict[str, Any] = {}
    for step in steps:
        ok = step.get("ok")
        if ok is None:
            out[str(step["node"])] = Status.RUNNING
        elif not ok and step.get("error_code") in not_an_outcome:
            out[str(step["node"])] = Status.INVALID
        else:
            out[str(step["node"])] = Status.SUCCESS if ok else Status.FAILURE
    return out


#: py_trees' own status colours (its console and viewer conventions)
STATUS_FILL = {"SUCCESS": "#5cb85c", "FAILURE": "#d9534f", "RUNNING": "#5bc0de", "INVALID": "#dddddd"}


def _colour_statuses(graph: Any, root: py_trees.behaviour.Behaviour) -> None:
    """Fill each dot node with its behaviour's status colour (dot_tree colours by kind, not status)."""
    names: dict[str, str] = {}
    used: set[str] = set()

    def walk(node: py_trees.behaviour.Behaviour) -> None:  # dot_tree's own pre-order naming, '*' on repeats
        name = str(node.name)
        while name in used:
            name += "*"
        used.add(name)
        names[name] = node.status.name
        for child in node.children:
            walk(child)

    walk(root)
    for dot_node in graph.get_node_list():
        status = names.get(dot_node.get_name().strip('"'))
        if status is not None:
            dot_node.set("fillcolor", STATUS_FILL[status])
            dot_node.set("fontcolor", "black")
            dot_node.set("tooltip", status.lower())


def render(
    definition: m.TreeDefinition, fmt: RenderFormat | str, registry: Registry, *, base_dir: Path | None = None,
    statuses: Mapping[str, py_trees.common.Status] | None = None, root_status: py_trees.common.Status | None = None,
) -> str | bytes:
    """Text for ascii/unicode/dot/svg/html, bytes for png. Raises CraftbtError.

    ``root_status`` is how the whole run ended; it overrides what the root would derive.
    """
    fmt = RenderFormat(fmt)
    ctx = CapabilityContext(body=cast(Body, _DetachedBody()), registry=registry)
    root = build(definition, ctx, base_dir=base_dir).root
    if statuses is not None:
        _derived(root, statuses)
        if root_status is not None:
            root.status = root_status
    relabel(root)
    if fmt is RenderFormat.ASCII:
        return str(py_trees.display.ascii_tree(root, show_status=statuses is not None))
    if fmt is RenderFormat.UNICODE:
        return str(py_trees.display.unicode_tree(root, show_status=statuses is not None))
    if fmt is RenderFormat.HTML:  # the live viewer's drawing (trees/treeview.js): names go in as text
        return page(definition.tree, definition.description, root)
    rename_all(root, lambda name: name.translate(DOT_SAFE))
    graph = py_trees.display.dot_tree(root)
    graph.set_name(definition.tree.translate(DOT_SAFE))
    if statuses is not None:
        _colour_statuses(graph, root)
    if fmt is RenderFormat.DOT:
        return str(graph.to_string())
    try:
        data = graph.create(format=fmt.value)
    except Exception as err:  # pydot raises bare exceptions when graphviz is missing or fails
        raise CraftbtError.single(
            ErrorCode.CONVERSION_ERROR, f"graphviz could not render {fmt.value}: {err}",
            expected="Graphviz installed (the `dot` program on PATH)",
        ) from None
    raw = data if isinstance(data, bytes) else str(data).encode("utf-8")
    return raw if fmt is RenderFormat.PNG else raw.decode("utf-8")
