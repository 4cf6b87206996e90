"""The strict Option A normalizer (seed 002): validation-only unless the caller opts in.

A leaf's args are *explicit* when the plan author wrote them (``args_source:
explicit``) as a plain mapping; they are *derived* when something other than the
plan author produced them. Only explicit args are live-dispatchable and
certifiable. :func:`normalize` never changes a definition unless called with
``allow_materialize=True``; then it marks derived leaves explicit in a copy and
flags the result non-certifiable (``option_a_compat_used``). Sentinel values
(``"unknown"``) are always reported: they mean an author fell back to a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from craftbt.capabilities.contracts import is_sentinel
from craftbt.capabilities.registry import Registry
from craftbt.executor.digests import iter_leaves
from craftbt.trees.model import LeafNode, TreeDefinition

#: planning_incomplete_reasons is bounded so a huge broken plan cannot bloat records.
MAX_REASONS = 20


class IncompleteReason(BaseModel):
    reason: str  # unknown_leaf | derived_args | sentinel_args | args_not_plain_object
    leaf: str
    node: str | None = None
    detail: str = ""


class NormalizeResult(BaseModel):
    definition: TreeDefinition
    planning_incomplete: bool = False
    planning_incomplete_reasons: list[IncompleteReason] = Field(default_factory=list)
    reasons_truncated: int = 0
    option_a_compat_used: bool = False

    @property
    def certifiable(self) -> bool:
        return not self.option_a_compat_used and not self.planning_incomplete


def is_plain_object(value: Any) -> bool:
    """A ``dict`` (and only a dict): lists, strings and model instances are not explicit args."""
    return type(value) is dict


def has_sentinel(value: Any) -> bool:
    """Whether :func:`find_sentinels` would yield anything (checked per dispatch; builds no paths)."""
    if isinstance(value, str):
        return is_sentinel(value)
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return False
    return any(has_sentinel(item) for item in value)


def find_sentinels(value: Any, path: str = "args") -> Iterator[str]:
    """The path of every placeholder value inside args (``args.target.x``, ``args.items[2]``)."""
    if not has_sentinel(value):
        return
    yield from _sentinel_paths(value, path)


def _sentinel_paths(value: Any, path: str) -> Iterator[str]:
    if is_sentinel(value):
        yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _sentinel_paths(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _sentinel_paths(item, f"{path}[{i}]")


def leaf_problems(leaf: LeafNode, registry: Registry) -> list[IncompleteReason]:
    """Why this leaf is not Option A (empty when it is)."""
    out: list[IncompleteReason] = []
    if not registry.has(leaf.capability):
        out.append(IncompleteReason(reason="unknown_leaf", leaf=leaf.capability, node=leaf.name))
    if not is_plain_object(leaf.args):
        out.append(IncompleteReason(reason="args_not_plain_object", leaf=leaf.capability, node=leaf.name))
    elif leaf.args_source == "derived":
        out.append(IncompleteReason(reason="derived_args", leaf=leaf.capability, node=leaf.name))
    for path in find_sentinels(leaf.args):
        out.append(IncompleteReason(reason="sentinel_args", leaf=leaf.capability, node=leaf.name, detail=path))
    return out


def normalize(defn: TreeDefinition, registry: Registry, *, allow_materialize: bool = False) -> NormalizeResult:
    """Validate every leaf; materialize derived args only when explicitly allowed."""
    reasons: list[IncompleteReason] = []
    truncated = 0
    compat = False
    work = defn.model_copy(deep=True) if allow_materialize else defn
    for leaf in iter_leaves(work.root):
        problems = leaf_problems(leaf, registry)
        if allow_materialize and any(p.reason == "derived_args" for p in problems):
            leaf.args_source = "explicit"
            compat = True
            problems = [p for p in problems if p.reason != "derived_args"]
        for problem in problems:
            if len(reasons) < MAX_REASONS:
                reasons.append(problem)
            else:
                truncated += 1
    return NormalizeResult(
        definition=work,
        planning_incomplete=bool(reasons),
        planning_incomplete_reasons=reasons,
        reasons_truncated=truncated,
        option_a_compat_used=compat,
    )
