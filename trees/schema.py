"""The JSON Schema (Draft 2020-12) of tree files, generated from the live registry.

Every leaf reference the registry can resolve (``name``, ``name@MAJOR``,
``name@X.Y.Z``) is an ``enum`` value, so an editor completes leaf names; an
``if``/``then`` per capability version binds ``args`` to that capability's own
args schema (its pydantic model's JSON Schema), so it completes and checks
argument keys too. Conditions are bound to their checks the same way.
``craftbt schema`` prints it; LLM planner output is checked against it.

:mod:`trees.validate` is the authority for files (it gives positions and
close-match suggestions and checks subtrees and the blackboard); this schema
accepts and rejects the same shapes, which the tests hold it to. Every
argument may also be a whole ``"{key}"`` blackboard reference (``pos:
"{table}"``); the schema accepts the reference's shape, and
:mod:`trees.validate` type-checks it with the key's initial value.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from craftbt.capabilities.registry import Registry
from craftbt.trees import model as m

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:craftbt:tree-format:1"

_PARAM_SCHEMAS: dict[str, dict[str, Any]] = {
    "attempts": {"anyOf": [{"type": "integer", "minimum": 1}, {"const": -1}],
                 "description": "attempts in total; -1 retries forever"},
    "duration_ms": {"type": "integer", "exclusiveMinimum": 0, "description": "game-time milliseconds"},
    "count": {"anyOf": [{"type": "integer", "minimum": 1}, {"const": -1}], "description": "-1 repeats forever"},
    "condition": {"$ref": "#/$defs/condition_body"},
}


def resolvable_refs(registry: Registry) -> dict[str, list[str]]:
    """spec key (``name@X.Y.Z``) -> every leaf reference that resolves to it."""
    out: dict[str, list[str]] = {}
    for name in registry.names():
        for spec in registry.versions(name):
            out[spec.key] = [spec.key]
        newest_per_major: dict[int, str] = {}
        for spec in registry.versions(name):  # ascending, so the last of a major wins
            newest_per_major[spec.major] = spec.key
        for major, key in newest_per_major.items():
            out[key].append(f"{name}@{major}")
        out[registry.get(name).key].append(name)
    return out


REFERENCE_DEF = "blackboard_reference"
BLACKBOARD_REFERENCE: dict[str, Any] = {
    "type": "string",
    "pattern": r"^\{[A-Za-z_][A-Za-z0-9_/.]*\}$",
    "description": "a whole-value blackboard reference, e.g. \"{table}\"",
}


def _accept_references(model_schema: dict[str, Any]) -> dict[str, Any]:
    """Let every property of an args model also be a ``"{key}"`` reference."""
    properties = model_schema.get("properties")
    if not isinstance(properties, dict):
        return model_schema
    ref = {"$ref": f"#/$defs/{REFERENCE_DEF}"}
    wrapped = {
        key: {"anyOf": [prop, ref], **({"description": prop["description"]} if "description" in prop else {})}
        for key, prop in properties.items()
    }
    return {**model_schema, "properties": wrapped}


def _node_ref() -> dict[str, Any]:
    return {"$ref": "#/$defs/node"}


def _composite(kind: str, extra: dict[str, Any]) -> dict[str, Any]:
    body = {
        "type": "object",
        "additionalProperties": False,
        "required": ["children"],
        "properties": {
            "name": {"type": "string"},
            **extra,
            "children": {"type": "array", "minItems": 1, "items": _node_ref()},
        },
    }
    return {"type": "object", "additionalProperties": False, "required": [kind], "properties": {kind: body}}


def _decorator(kind: m.DecoratorKind) -> dict[str, Any]:
    params = m.DECORATOR_PARAMS[kind]
    body = {
        "type": "object",
        "additionalProperties": False,
        "required": ["child", *[p for p, (_, required) in params.items() if required]],
        "properties": {"name": {"type": "string"}, **{p: _PARAM_SCHEMAS[p] for p in params}, "child": _node_ref()},
    }
    return {"type": "object", "additionalProperties": False, "required": [kind.value],
            "properties": {kind.value: body}}


def _discriminated(kinds: list[str]) -> dict[str, Any]:
    """A node is discriminated by its kind key: the first kind key it holds selects its schema.

    With a plain ``oneOf`` a generic validator reports that every alternative failed and leads with
    whichever it tried first ("'sequence' was unexpected"); selecting by key makes it report the
    real problem inside the one schema that applies (an unknown leaf, a bad argument). Leaves,
    conditions and subtrees come first because a leaf may carry ``retry:`` and ``timeout_ms:``
    shorthands, which are also decorator kinds.
    """
    flat = ("leaf", "condition", "subtree")
    ordered = [k for k in flat if k in kinds] + [k for k in kinds if k not in flat]
    selected: dict[str, Any] = {"anyOf": [{"required": [kind]} for kind in ordered]}  # no kind key at all
    for kind in reversed(ordered):
        selected = {"if": {"required": [kind]}, "then": {"$ref": f"#/$defs/{kind}_node"}, "else": selected}
    return {"type": "object", **selected}


def tree_schema(registry: Registry) -> dict[str, Any]:
    specs = registry.list()
    checks = registry.checks()
    models: list[type[BaseModel]] = list(dict.fromkeys([s.args_model for s in specs] + [c.args_model for c in checks]))
    keys, defs = models_json_schema([(model, "validation") for model in models], ref_template="#/$defs/{model}")
    model_ref = {model: keys[(model, "validation")] for model in models}
    arg_defs: dict[str, Any] = {name: _accept_references(d) for name, d in defs.get("$defs", {}).items()}
    arg_defs[REFERENCE_DEF] = BLACKBOARD_REFERENCE

    refs = resolvable_refs(registry)
    leaf_bindings = [
        {
            "if": {"properties": {"leaf": {"enum": refs[spec.key]}}},
            "then": {"properties": {"args": model_ref[spec.args_model]}},
        }
        for spec in specs
    ]
    check_bindings = [
        {
            "if": {"properties": {"check": {"const": check.name}}},
            "then": {"properties": {"args": model_ref[check.args_model]}},
        }
        for check in checks
    ]
    leaf = {
        "type": "object",
        "additionalProperties": False,
        "required": ["leaf"],
        "properties": {
            "leaf": {"enum": sorted(r for rs in refs.values() for r in rs), "description": "capability[@version]"},
            "args": {"type": "object"},
            "name": {"type": "string"},
            "retry": {"type": "integer", "minimum": 0, "description": "retries after the first attempt"},
            "timeout_ms": {"type": "integer", "exclusiveMinimum": 0},
            "idempotency_key": {"type": "string"},
            "args_source": {"enum": ["explicit", "derived"]},
        },
        "allOf": leaf_bindings,
    }
    condition_body = {
        "type": "object",
        "additionalProperties": False,
        "required": ["check"],
        "properties": {"check": {"enum": [c.name for c in checks]}, "args": {"type": "object"}},
        "allOf": check_bindings,
    }
    kinds: dict[str, Any] = {
        "sequence": _composite("sequence", {"memory": {"type": "boolean", "default": True}}),
        "selector": _composite("selector", {"memory": {"type": "boolean", "default": False}}),
        "parallel": _composite("parallel", {"policy": {"enum": [p.value for p in m.ParallelPolicy]}}),
        **{d.value: _decorator(d) for d in m.DecoratorKind},
        "leaf": leaf,
        "condition": {
            "type": "object", "additionalProperties": False, "required": ["condition"],
            "properties": {"condition": {"$ref": "#/$defs/condition_body"}, "name": {"type": "string"}},
        },
        "subtree": {
            "type": "object", "additionalProperties": False, "required": ["subtree"],
            "properties": {
                "subtree": {"type": "string", "pattern": r"\S"},
                "remap": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
                "name": {"type": "string"},
            },
        },
    }
    node_defs = {f"{kind}_node": schema for kind, schema in kinds.items()}
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "craftbt tree definition",
        "type": "object",
        "additionalProperties": False,
        "required": ["tree", "root"],
        "properties": {
            "tree": {"type": "string", "pattern": m.TREE_NAME_PATTERN},
            "version": {"const": m.FORMAT_VERSION},
            "description": {"type": "string"},
            "blackboard": {"type": "object", "description": "initial keys; null declares a key without a value"},
            "root": _node_ref(),
        },
        "$defs": {
            "node": _discriminated(list(kinds)),
            **node_defs,
            "condition_body": condition_body,
            **arg_defs,
        },
    }

