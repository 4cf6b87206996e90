"""Seed 001 build-state contracts: ``BuildMetadata``, ``BuildCheckpoint``, ``StationEntry`` and friends.

Field names follow Python style; the seed's camelCase names are the aliases
(``model_dump(by_alias=True)`` gives the seed's shape). Additive extensions
over the seed: ``OpenDelta.status`` (``open`` or ``repaired``: blocking deltas
found at a checkpoint are repaired before the cursor advances, and the
checkpoint keeps them as evidence), ``OpenDelta.cells`` (the cells an access
repair digs), ``BuildMetadata.open_deltas`` (deltas
currently unresolved), ``BuildMetadata.status`` and ``blocked_reason``
(stage 4), ``BuildMetadata.macro_plan`` (the seed keeps the partial-order plan
beside the task: content-addressed nodes, dependency edges, the order),
``StationEntry.kind`` also admits ``chest`` (the storage anchor the cohesion
model tracks in the registry).
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from craftbt.capabilities.structures import Facing

INVARIANT_SET_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, extra="forbid")


class Vec(_Model):
    x: int
    y: int
    z: int


class Bounds(_Model):
    min: Vec
    max: Vec

    def contains(self, x: int, y: int, z: int) -> bool:
        return self.min.x <= x <= self.max.x and self.min.y <= y <= self.max.y and self.min.z <= z <= self.max.z


class SiteSignature(_Model):
    position: Vec
    facing: Facing
    ref_corner: Vec
    footprint_bounds: Bounds


class Severity(StrEnum):
    BLOCKING = "blocking"
    DEGRADED = "degraded"
    COSMETIC = "cosmetic"


class InvariantResult(_Model):
    invariant: str
    passed: bool
    evidence: str | None = None


class OpenDelta(_Model):
    module_id: str
    issue: str
    severity: Severity
    status: Literal["open", "repaired"] = "open"
    #: Cells to clear when the delta is a blocked opening (access): repaired by digging them, whichever
    #: module's witness (if any) holds them.
    cells: list[Vec] = Field(default_factory=list)


class Provenance(_Model):
    source: Literal["placed", "found"]
    module_index: int
    step_id: str | None = None


class StationEntry(_Model):
    kind: Literal["crafting_table", "furnace", "smoker", "blast_furnace", "anvil", "chest"]
    pos: Vec
    reachable: bool
    last_verified_at: int
    provenance: Provenance


class BuildCheckpoint(_Model):
    checkpoint_id: str
    template_digest: str
    module_cursor: int
    completed_modules: list[str]
    station_snapshot: list[StationEntry]
    invariant_results: list[InvariantResult]
    open_deltas: list[OpenDelta]
    inventory_summary: dict[str, int]
    saved_at: int


def checkpoint_id(template_digest: str, module_cursor: int, completed: list[str]) -> str:
    """Content address: hash of {templateDigest, moduleCursor, completedModules} (seed 001)."""
    text = json.dumps(
        {"templateDigest": template_digest, "moduleCursor": module_cursor, "completedModules": completed},
        sort_keys=True,
        separators=(",", ":"),
    )
    return "ckpt:" + hashlib.sha256(text.encode()).hexdigest()[:32]


class BuildStatus(StrEnum):
    PENDING = "pending"
    BUILDING = "building"
    BLOCKED_ON_SUBTASK = "blocked_on_subtask"
    BLOCKED = "blocked"
    COMPLETE = "complete"
    FAILED = "failed"


class MacroNode(_Model):
    module_id: str
    #: Content-addressed (``<module id>@<witness digest prefix>``): stable across sessions.
    node_id: str


class MacroPlanRecord(_Model):
    """The macro plan as the seed keeps it: the partial order (nodes and dependency edges) and its linearization."""

    nodes: list[MacroNode]
    #: ``[from node id, to node id]``: ``to`` may start only after ``from`` is complete.
    edges: list[tuple[str, str]]
    order: list[str]


class BuildMetadata(_Model):
    build_id: str
    task_id: str
    template: str
    template_digest: str
    site_signature: SiteSignature
    module_order: list[str]
    module_cursor: int
    completed_modules: list[str]
    checkpoints: list[BuildCheckpoint] = Field(default_factory=list)
    station_registry: list[StationEntry] = Field(default_factory=list)
    invariant_set_version: int = Field(default=INVARIANT_SET_VERSION)
    witnesses: dict[str, Any] = Field(default_factory=dict)
    open_deltas: list[OpenDelta] = Field(default_factory=list)
    status: BuildStatus = BuildStatus.PENDING
    blocked_reason: str | None = Field(default=None)
    macro_plan: MacroPlanRecord | None = None

    @property
    def done(self) -> bool:
        return self.module_cursor >= len(self.module_order)

    @property
    def current_module(self) -> str | None:
        return None if self.done else self.module_order[self.module_cursor]
