"""Back to a definition: py_trees tree -> model, and model -> on-disk dict -> YAML/JSON text.

:func:`from_py_trees` reads the structure from the py_trees nodes themselves
(composite type, memory, parallel policy, decorator type and parameters) and
takes from the definition node each built node carries only what py_trees has
no place for (a leaf's capability reference as written and its args before
remapping, a condition's check, a subtree's path). A ``Retry`` made from a
leaf's ``retry:`` shorthand folds back into the leaf, and a subtree wrapper
dumps as the ``subtree`` node, not its expansion.

:func:`to_data` writes the on-disk shape described in :mod:`trees.loader`,
leaving out fields at their defaults, so ``to_data`` then
:func:`trees.loader.decode` gives back an equal definition.
"""

from __future__ import annotations

import json
import math
from typing import Any

import py_trees
import yaml
from py_trees.common import ParallelPolicy

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees import model as m
from craftbt.trees.build import DEFINITION_ATTR, SHORTHAND_ATTR, BuiltTree, TickTimeout

_DEFAULT_MEMORY = {"sequence": True, "selector": False}


def _definition_of(node: py_trees.behaviour.Behaviour) -> m.Node:
    found = getattr(node, DEFINITION_ATTR, None)
    if found is None:
        raise CraftbtError.single(
            ErrorCode.CONVERSION_ERROR,
            f"py_trees node {node.name!r} ({type(node).__name__}) was not built by craftbt",
            expected="a tree made by trees.build",
        )
    return found  # type: ignore[no-any-return]


def node_from_py_trees(node: py_trees.behaviour.Behaviour) -> m.Node:
    defn = _definition_of(node)
    if isinstance(defn, m.LeafNode | m.ConditionNode | m.SubtreeNode):
        if isinstance(defn, m.LeafNode) and getattr(node, SHORTHAND_ATTR, False):
            return defn.model_copy(update={"retry": int(getattr(node, "num_failures", 1)) - 1})
        return defn.model_copy()
    children = [node_from_py_trees(c) for c in node.children]
    if isinstance(node, py_trees.composites.Sequence):
        return m.SequenceNode(name=defn.name, memory=node.memory, children=children)
    if isinstance(node, py_trees.composites.Selector):
        return m.SelectorNode(name=defn.name, memory=node.memory, children=children)
    if isinstance(node, py_trees.composites.Parallel):
        one = isinstance(node.policy, ParallelPolicy.SuccessOnOne)
        policy = m.ParallelPolicy.SUCCESS_ON_ONE if one else m.ParallelPolicy.SUCCESS_ON_ALL
        return m.ParallelNode(name=defn.name, policy=policy, children=children)
    D = m.DecoratorKind
    dec = py_trees.decorators
    params: dict[str, Any] = {}
    if isinstance(node, TickTimeout):
        kind, params = D.TIMEOUT, {"duration_ms": node.duration_ms}
    elif isinstance(node, dec.Retry):
        kind, params = D.RETRY, {"attempts": -1 if node.num_failures == math.inf else node.num_failures}
    elif isinstance(node, dec.Repeat):
        kind, params = D.REPEAT, {"count": node.num_success}
    elif isinstance(node, dec.EternalGuard):
        assert isinstance(defn, m.DecoratorNode)
        kind, params = D.ETERNAL_GUARD, {"condition": defn.params["condition"]}
    elif isinstance(node, dec.Inverter):
        kind = D.INVERTER
    elif isinstance(node, dec.SuccessIsFailure):
        kind = D.SUCCESS_IS_FAILURE
    elif isinstance(node, dec.FailureIsSuccess):
        kind = D.FAILURE_IS_SUCCESS
    elif isinstance(node, dec.OneShot):
        kind = D.ONESHOT
    else:
        raise CraftbtError.single(
            ErrorCode.CONVERSION_ERROR, f"cannot dump py_trees node type {type(node).__name__}",
        )
    return m.DecoratorNode(name=defn.name, decorator=kind, params=params, child=children[0])


def from_py_trees(built: BuiltTree) -> m.TreeDefinition:
    """The definition a built tree represents now."""
    return built.definition.model_copy(update={"root": node_from_py_trees(built.root)})


# -- model -> on-disk data -------------------------------------------------------------
def node_to_data(node: m.Node) -> dict[str, Any]:
    if isinstance(node, m.LeafNode):
        out: dict[str, Any] = {"leaf": node.capability}
        if node.name is not None:
            out["name"] = node.name
        if node.args:
            out["args"] = node.args
        for key in ("retry", "timeout_ms", "idempotency_key"):
            if getattr(node, key) is not None:
                out[key] = getattr(node, key)
        if node.args_source != "explicit":
            out["args_source"] = node.args_source
        return out
    if isinstance(node, m.ConditionNode):
        cond: dict[str, Any] = {"check": node.check}
        if node.args:
            cond["args"] = node.args
        return {"condition": cond, **({"name": node.name} if node.name is not None else {})}
    if isinstance(node, m.SubtreeNode):
        sub: dict[str, Any] = {"subtree": node.path}
        if node.name is not None:
            sub["name"] = node.name
        if node.remap:
            sub["remap"] = dict(node.remap)
        return sub
    body: dict[str, Any] = {}
    if node.name is not None:
        body["name"] = node.name
    if isinstance(node, m.DecoratorNode):
        body.update(node.params)
        body["child"] = node_to_data(node.child)
        return {node.decorator.value: body}
    if isinstance(node, m.ParallelNode):
        if node.policy is not m.ParallelPolicy.SUCCESS_ON_ALL:
            body["policy"] = node.policy.value
    elif node.memory != _DEFAULT_MEMORY[node.kind]:
        body["memory"] = node.memory
    body["children"] = [node_to_data(c) for c in node.children]
    return {node.kind: body}


def to_data(definition: m.TreeDefinition) -> dict[str, Any]:
    out: dict[str, Any] = {"tree": definition.tree, "version": definition.version}
    if definition.description:
        out["description"] = definition.description
    if definition.blackboard:
        out["blackboard"] = dict(definition.blackboard)
    out["root"] = node_to_data(definition.root)
    return out


def to_json(definition: m.TreeDefinition) -> str:
    return json.dumps(to_data(definition), indent=2, ensure_ascii=False) + "\n"


class _Dumper(yaml.SafeDumper):
    """Block style, but short all-scalar mappings (args) on one line, like the hand-written files."""


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    flat = len(data) <= 4 and all(not isinstance(v, dict | list) for v in data.values())
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flat and bool(data))


_Dumper.add_representer(dict, _represent_dict)


def to_yaml(definition: m.TreeDefinition) -> str:
    data = to_data(definition)
    text: str = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, indent=2)
    # PyYAML writes some characters (NEL, LS, PS) raw that its reader then folds; escape everything then.
    if yaml.load(text, Loader=yaml.CSafeLoader) != data:
        text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=False, width=100, indent=2)
    return text
