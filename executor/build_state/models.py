"""Seed 001 build-state contracts: ``BuildMetadata``, ``BuildCheckpoint``, ``StationEntry`` and friends.

Field names follow Python style; the seed's camelCase names are the aliases
(``model_dump(by_alias=True)`` gives the seed's shape). Additive extensions
over the seed: ``OpenDelta.status`` (``open`` or ``repaired``: blocking deltas
found at a checkpoint are repaired before the cursor advances, and the
checkpoint keeps them as evidence), ``BuildMetadata.open_deltas`` (deltas
currently unresolved), ``BuildMetadata.status`` and ``blocked_reason``
(stage 4), ``StationEntry.kind`` also admits ``chest`` (the storage anchor the
cohesion model tracks in the registry).
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from capabilities.structures import Facing

INVARIANT_SET_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")


class Vec(_Model):
    x: int
    y: int
    z: int


class Bounds(_Model):
    min: Vec
    max: Vec

    def contains(self, x: int, y: int, z: int) -> bool:
        return (self.min.x <= x <= self.max.x and self.min.y <= y <= self.max.y and self.min.z <= z <= self.max.z)


class SiteSignature(_Model):
    position: Vec
    facing: Facing
    ref_corner: Vec = Field(alias="refCorner")
    footprint_bounds: Bounds = Field(alias="footprintBounds")


class Severity(StrEnum):
    BLOCKING = "blocking"
    DEGRADED = "degraded"
    COSMETIC = "cosmetic"


class InvariantResult(_Model):
    invariant: str
    passed: bool
    evidence: str | None = None


class OpenDelta(_Model):
    module_id: str = Field(alias="moduleId")
    issue: str
    severity: Severity
    status: Literal["open", "repaired"] = "open"


class Provenance(_Model):
    source: Literal["placed", "found"]
    module_index: int = Field(alias="moduleIndex")
    step_id: str | None = Field(default=None, alias="stepId")


class StationEntry(_Model):
    kind: Literal["crafting_table", "furnace", "smoker", "blast_furnace", "anvil", "chest"]
    pos: Vec
    reachable: bool
    last_verified_at: int = Field(alias="lastVerifiedAt")
    provenance: Provenance


class BuildCheckpoint(_Model):
    checkpoint_id: str = Field(alias="checkpointId")
    template_digest: str = Field(alias="templateDigest")
    module_cursor: int = Field(alias="moduleCursor")
    completed_modules: list[str] = Field(alias="completedModules")
    station_snapshot: list[StationEntry] = Field(alias="stationSnapshot")
    invariant_results: list[InvariantResult] = Field(alias="invariantResults")
    open_deltas: list[OpenDelta] = Field(alias="openDeltas")
    inventory_summary: dict[str, int] = Field(alias="inventorySummary")
    saved_at: int = Field(alias="savedAt")


def checkpoint_id(template_digest: str, module_cursor: int, completed: list[str]) -> str:
    """Content address: hash of {templateDigest, moduleCursor, completedModules} (seed 001)."""
    text = json.dumps({"templateDigest": template_digest, "moduleCursor": module_cursor,
                       "completedModules": completed}, sort_keys=True, separators=(",", ":"))
    return "ckpt:" + hashlib.sha256(text.encode()).hexdigest()[:32]


class BuildStatus(StrEnum):
    PENDING = "pending"
    BUILDING = "building"
    BLOCKED_ON_SUBTASK = "blocked_on_subtask"
    BLOCKED = "blocked"
    COMPLETE = "complete"
    FAILED = "failed"


class BuildMetadata(_Model):
    build_id: str = Field(alias="buildId")
    task_id: str = Field(alias="taskId")
    template: str
    template_digest: str = Field(alias="templateDigest")
    site_signature: SiteSignature = Field(alias="siteSignature")
    module_order: list[str] = Field(alias="moduleOrder")
    module_cursor: int = Field(alias="moduleCursor")
    completed_modules: list[str] = Field(alias="completedModules")
    checkpoints: list[BuildCheckpoint] = Field(default_factory=list)
    station_registry: list[StationEntry] = Field(alias="stationRegistry", default_factory=list)
    invariant_set_version: int = Field(alias="invariantSetVersion", default=INVARIANT_SET_VERSION)
    witnesses: dict[str, Any] = Field(default_factory=dict)
    open_deltas: list[OpenDelta] = Field(alias="openDeltas", default_factory=list)
    status: BuildStatus = BuildStatus.PENDING
    blocked_reason: str | None = Field(alias="blockedReason", default=None)

    @property
    def done(self) -> bool:
        return self.module_cursor >= len(self.module_order)

    @property
    def current_module(self) -> str | None:
        return None if self.done else self.module_order[self.module_cursor]
