"""The tree-definition model: what a tree file, a planner and the executor share.

This is the in-memory form. The on-disk form (``trees/loader.py``,
``trees/dump.py``) uses the key-per-kind shape of ``tree-format.md``
(``{sequence: {...}}``, ``{leaf: craft_recipe, args: {...}}``); this model
uses an explicit ``kind`` discriminator so code can match on it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

TREE_NAME_PATTERN = r"^[a-z0-9_]+$"
FORMAT_VERSION = 1


class ParallelPolicy(StrEnum):
    SUCCESS_ON_ALL = "success_on_all"
    SUCCESS_ON_ONE = "success_on_one"


class DecoratorKind(StrEnum):
    INVERTER = "inverter"
    RETRY = "retry"
    TIMEOUT = "timeout"
    REPEAT = "repeat"
    ETERNAL_GUARD = "eternal_guard"
    SUCCESS_IS_FAILURE = "success_is_failure"
    FAILURE_IS_SUCCESS = "failure_is_success"
    ONESHOT = "oneshot"


#: Decorator parameters: name -> (type, required). A table, checked by the loader.
DECORATOR_PARAMS: dict[DecoratorKind, dict[str, tuple[type, bool]]] = {
    DecoratorKind.INVERTER: {},
    DecoratorKind.RETRY: {"attempts": (int, True)},
    DecoratorKind.TIMEOUT: {"duration_ms": (int, True)},
    DecoratorKind.REPEAT: {"count": (int, True)},
    DecoratorKind.ETERNAL_GUARD: {"condition": (dict, True)},
    DecoratorKind.SUCCESS_IS_FAILURE: {},
    DecoratorKind.FAILURE_IS_SUCCESS: {},
    DecoratorKind.ONESHOT: {},
}


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None


class SequenceNode(_Node):
    kind: Literal["sequence"] = "sequence"
    memory: bool = True
    children: list[Node] = Field(default_factory=list)


class SelectorNode(_Node):
    kind: Literal["selector"] = "selector"
    memory: bool = False
    children: list[Node] = Field(default_factory=list)


class ParallelNode(_Node):
    kind: Literal["parallel"] = "parallel"
    policy: ParallelPolicy = ParallelPolicy.SUCCESS_ON_ALL
    children: list[Node] = Field(default_factory=list)


class LeafNode(_Node):
    kind: Literal["leaf"] = "leaf"
    capability: str  # "craft_recipe" or "craft_recipe@1"
    args: dict[str, Any] = Field(default_factory=dict)
    retry: int | None = Field(default=None, ge=0)
    timeout_ms: int | None = Field(default=None, gt=0)
    idempotency_key: str | None = None
    #: provenance for derived args (seed 002 "Option A"): "explicit" or "derived".
    args_source: Literal["explicit", "derived"] = "explicit"


class ConditionNode(_Node):
    kind: Literal["condition"] = "condition"
    check: str
    args: dict[str, Any] = Field(default_factory=dict)


class DecoratorNode(_Node):
    kind: Literal["decorator"] = "decorator"
    decorator: DecoratorKind
    params: dict[str, Any] = Field(default_factory=dict)
    child: Node


class SubtreeNode(_Node):
    kind: Literal["subtree"] = "subtree"
    path: str
    remap: dict[str, str] = Field(default_factory=dict)


Node = Annotated[
    SequenceNode
    | SelectorNode
    | ParallelNode
    | LeafNode
    | ConditionNode
    | DecoratorNode
    | SubtreeNode,
    Field(discriminator="kind"),
]

for _model in (SequenceNode, SelectorNode, ParallelNode, DecoratorNode):
    _model.model_rebuild()


class TreeDefinition(BaseModel):
    """One tree file or one planner's output."""

    model_config = ConfigDict(extra="forbid")

    tree: str = Field(pattern=TREE_NAME_PATTERN)
    version: int = FORMAT_VERSION
    description: str = ""
    blackboard: dict[str, Any] = Field(default_factory=dict)
    root: Node
    #: where it came from: a file path, or "planner:<name>"
    source: str | None = Field(default=None, exclude=True)
