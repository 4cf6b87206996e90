"""Definition -> BehaviorTree.CPP v4 XML that BT.CPP 4.10 and Groot2 load (the mapping is in :mod:`trees.btcpp`)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from craftbt.capabilities.registry import Registry, split_ref
from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.trees import model as m
from craftbt.trees.btcpp import (
    CUSTOM_DECORATORS,
    DECORATOR_TAGS,
    FORMAT,
    INIT_NAME,
    JSON_PREFIX,
    LEAF_META,
    PARAM_PORTS,
    RESERVED,
    encode_value,
    meta_comment,
    path_to_id,
    xml_text_ok,
)
from craftbt.trees.loader import load_path
from craftbt.trees.validate import resolve_subtree_path


def _conversion(message: str, path: str = "", *, expected: str | None = None) -> CraftbtError:
    return CraftbtError.single(ErrorCode.CONVERSION_ERROR, message, location=Location(path=path), expected=expected)


def _plain_attr(value: str, what: str, path: str) -> str:
    if not xml_text_ok(value):
        raise _conversion(f"{what} {value!r} has characters XML cannot carry", path,
                          expected="no control characters other than tab and newline")
    return value


class _Exporter:
    def __init__(self, registry: Registry | None) -> None:
        self.registry = registry
        #: (model tag, ID) -> port names, written as the TreeNodesModel
        self.models: dict[tuple[str, str], set[str]] = {}

    def model(self, tag: str, ident: str, ports: list[str]) -> None:
        self.models.setdefault((tag, ident), set()).update(ports)

    def node(self, node: m.Node, path: str) -> ET.Element:
        if isinstance(node, m.SequenceNode | m.SelectorNode | m.ParallelNode):
            if isinstance(node, m.SequenceNode):
                el = ET.Element("Sequence" if node.memory else "ReactiveSequence")
            elif isinstance(node, m.SelectorNode):
                el = ET.Element("Fallback" if node.memory else "ReactiveFallback")
            else:
                el = ET.Element("Parallel")
                one = node.policy is m.ParallelPolicy.SUCCESS_ON_ONE
                el.set("success_count", "1" if one else "-1")
                el.set("failure_count", "1")
            self._name(el, node.name)
            for i, child in enumerate(node.children):
                el.append(self.node(child, f"{path}.{node.kind}.children[{i}]"))
            return el
        if isinstance(node, m.DecoratorNode):
            return self.decorator(node, path)
        if isinstance(node, m.LeafNode):
            name, pin = split_ref(node.capability)
            el = ET.Element(name)  # the compact form: BT.CPP accepts it wherever a node may stand
            self._name(el, node.name)
            self._args(el, node.args, (*LEAF_META, *RESERVED), f"{path}.args")
            meta: dict[str, Any] = {
                "version": pin, "retry": node.retry, "timeout_ms": node.timeout_ms,
                "idempotency_key": node.idempotency_key,
                "args_source": None if node.args_source == "explicit" else node.args_source,
            }
            used = [k for k, v in meta.items() if v is not None]
            for key in used:
                el.set(key, encode_value(meta[key]) if key == "idempotency_key" else str(meta[key]))
            self.model("Action", name, [*self._declared_ports(name, node.args), *used])
            return el
        if isinstance(node, m.ConditionNode):
            el = ET.Element(node.check)
            self._name(el, node.name)
            self._args(el, node.args, RESERVED, f"{path}.condition.args")
            self.model("Condition", node.check, self._declared_ports(node.check, node.args, check=True))
            return el
        # craftbt subtrees share the caller's blackboard; remapped keys are BT.CPP port remapping
        el = ET.Element("SubTree", {"ID": path_to_id(node.path)})
        self._name(el, node.name)
        el.set("_autoremap", "true")
        for inner, outer in node.remap.items():
            if inner in RESERVED or inner.startswith("_"):
                raise _conversion(f"remapped key {inner!r} is reserved in BT.CPP", f"{path}.remap.{inner}")
            el.set(inner, "{" + outer + "}")
        return el

    def decorator(self, node: m.DecoratorNode, path: str) -> ET.Element:
        tag = DECORATOR_TAGS[node.decorator]
        el = ET.Element(tag)
        self._name(el, node.name)
        if node.decorator is m.DecoratorKind.ETERNAL_GUARD:
            cond = node.params["condition"]
            el.set("check", cond["check"])
            self._args(el, cond.get("args") or {}, ("check", *RESERVED), f"{path}.eternal_guard.condition")
            self.model("Decorator", tag, ["check", *(cond.get("args") or {})])
        else:
            for param, value in node.params.items():
                el.set(PARAM_PORTS[param], str(value))
            if tag in CUSTOM_DECORATORS:
                self.model("Decorator", tag, [])
        el.append(self.node(node.child, f"{path}.{node.decorator.value}.child"))
        return el

    @staticmethod
    def _name(el: ET.Element, name: str | None) -> None:
        if name is not None:
            el.set("name", _plain_attr(name, "node name", ""))

    @staticmethod
    def _args(el: ET.Element, args: dict[str, Any], reserved: tuple[str, ...], path: str) -> None:
        for key, value in args.items():
            if key in reserved or key.startswith("_"):
                raise _conversion(f"argument {key!r} clashes with a reserved BT.CPP port", f"{path}.{key}",
                                  expected="argument names other than " + ", ".join(reserved))
            el.set(key, encode_value(value))

    def _declared_ports(self, ident: str, args: dict[str, Any], *, check: bool = False) -> list[str]:
        ports = list(args)
        if self.registry is not None:
            try:
                model = self.registry.get_check(ident).args_model if check else self.registry.get(ident).args_model
            except CraftbtError:
                return ports
            ports.extend(model.model_fields)
        return ports


def _subtree_nodes(node: m.Node) -> list[m.SubtreeNode]:
    if isinstance(node, m.SubtreeNode):
        return [node]
    if isinstance(node, m.SequenceNode | m.SelectorNode | m.ParallelNode):
        return [s for c in node.children for s in _subtree_nodes(c)]
    if isinstance(node, m.DecoratorNode):
        return _subtree_nodes(node.child)
    return []


def _with_initial_values(root: ET.Element, initial: dict[str, Any]) -> ET.Element:
    """Wrap the root so BT.CPP writes the initial blackboard before anything reads it."""
    if not initial:
        return root
    wrapper = ET.Element("Sequence", {"name": INIT_NAME})
    for key, value in initial.items():
        _plain_attr(key, "blackboard key", "blackboard")
        encoded = encode_value(value)
        if encoded.startswith("{"):  # BT.CPP would read "{..." as a copy from another key: keep it a literal
            encoded = JSON_PREFIX + json.dumps(value)
        ET.SubElement(wrapper, "SetBlackboard", {"output_key": key, "value": encoded})
    wrapper.append(root)
    return wrapper


def _tree(root: ET.Element, definition: m.TreeDefinition, ident: str, body: ET.Element) -> None:
    description = _plain_attr(definition.description, "description", "description")
    root.append(ET.Comment(meta_comment(description, definition.blackboard)))
    bt = ET.SubElement(root, "BehaviorTree", {"ID": ident})
    bt.append(body)


def export(
    definition: m.TreeDefinition, *, registry: Registry | None = None, base_dir: Path | None = None,
    include_subtrees: bool = True,
) -> str:
    exporter = _Exporter(registry)
    root = ET.Element("root", {"BTCPP_format": FORMAT, "main_tree_to_execute": definition.tree})
    main_body = exporter.node(definition.root, "root")
    # the main tree's own values first, then what its subtrees contribute (as trees.validate merges them)
    # (a key declared null is written as json:null, so BT.CPP knows it exists and reads it as our null)
    initial = dict(definition.blackboard)
    subtree_trees: list[tuple[m.TreeDefinition, str, ET.Element]] = []
    if include_subtrees:
        if base_dir is None and definition.source:
            base_dir = Path(definition.source).resolve().parent
        pending = [(s, base_dir, dict[str, str]()) for s in _subtree_nodes(definition.root)]
        done: set[str] = set()
        while pending:
            node, where, rename = pending.pop(0)
            resolved = resolve_subtree_path(node.path, where)
            if resolved is None:
                continue
            loaded = load_path(resolved)
            if loaded.definition is None:
                continue
            inner = {k: rename.get(v, v) for k, v in node.remap.items()}
            for key, value in loaded.definition.blackboard.items():
                if initial.get(inner.get(key, key)) is None:
                    initial[inner.get(key, key)] = value
            if node.path in done:
                continue
            done.add(node.path)
            body = exporter.node(loaded.definition.root, "root")
            subtree_trees.append((loaded.definition, path_to_id(node.path), body))
            pending.extend((s, resolved.parent, inner) for s in _subtree_nodes(loaded.definition.root))
    _tree(root, definition, definition.tree, _with_initial_values(main_body, initial))
    for sub, ident, body in subtree_trees:
        _tree(root, sub, ident, body)
    models = ET.SubElement(root, "TreeNodesModel")
    for (tag, ident), ports in sorted(exporter.models.items()):
        el = ET.SubElement(models, tag, {"ID": ident})
        for port in sorted(ports):
            ET.SubElement(el, "input_port", {"name": port})
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def to_xml(
    definition: m.TreeDefinition, *, registry: Registry | None = None, base_dir: Path | None = None,
    include_subtrees: bool = True,
) -> str:
    """Definition -> BT.CPP v4 XML text. Raises CraftbtError (conversion_error)."""
    return export(definition, registry=registry, base_dir=base_dir, include_subtrees=include_subtrees)
