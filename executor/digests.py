"""Canonical JSON and content addressing: the three-digest truth model (seed 002, section 10).

A digest is the SHA-256 of canonical JSON: sorted keys, no insignificant
whitespace, UTF-8, no NaN. ``expansion_digest`` covers the tree as expanded
(subtrees inlined, exactly as loaded), ``intent_resolution_digest`` covers only
the leaves whose args were resolved from an intent (``None`` when nothing was
resolved), and ``executor_plan_digest`` — always defined — covers the ordered
``{leaf, args}`` list the executor will actually run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from craftbt.trees.model import LeafNode, TreeDefinition


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_plain(v) for v in value]
        return sorted(items, key=canonical_json) if isinstance(value, set | frozenset) else items
    return value


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel | tuple | set | frozenset):
        return _plain(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


# built once: json.dumps with non-default options constructs a new encoder on every call (journal hot path)
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                            default=_default)
_PLAIN_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical_json(value: Any) -> str:
    """Deterministic JSON: the same content always gives the same bytes (sorted keys, no spaces, no NaN)."""
    try:
        return _ENCODER.encode(value)
    except TypeError:  # non-string keys or tuples inside: normalise first
        return _PLAIN_ENCODER.encode(_plain(value))


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def iter_leaves(node: Any) -> Iterator[LeafNode]:
    """Leaves in tick order (pre-order, left to right); subtrees are not expanded here."""
    leaves: list[LeafNode] = []
    _collect_leaves(node, leaves)
    return iter(leaves)


def _collect_leaves(node: Any, out: list[LeafNode]) -> None:
    # by the model's discriminator, not isinstance against unions, and into one list, not a generator a level:
    # a router walks every plan's leaves twice (costs, digests), and this was twice as slow
    kind = node.kind
    if kind == "leaf":
        out.append(node)
    elif kind == "decorator":
        _collect_leaves(node.child, out)
    elif kind in _BRANCHES:
        for child in node.children:
            _collect_leaves(child, out)


_BRANCHES = frozenset({"sequence", "selector", "parallel"})  # the kinds with children


def plan_steps(defn: TreeDefinition) -> list[dict[str, Any]]:
    """The executor plan: only leaf name and args, in order (seed 002: ``{leaf, args}``)."""
    return [{"leaf": leaf.capability, "args": leaf.args} for leaf in iter_leaves(defn.root)]


class PlanDigests(BaseModel):
    expansion_digest: str
    intent_resolution_digest: str | None = None
    executor_plan_digest: str


def plan_digests(defn: TreeDefinition, resolved_steps: list[dict[str, Any]] | None = None) -> PlanDigests:
    return PlanDigests(
        expansion_digest=digest(defn.model_dump(mode="json")),
        intent_resolution_digest=digest(resolved_steps) if resolved_steps else None,
        executor_plan_digest=digest(plan_steps(defn)),
    )
