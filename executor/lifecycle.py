"""Capability lifecycle (seed 003 "runtime canaries"): shadow, active, retired, revoked.

A version is ``active`` unless the lifecycle file says otherwise. A ``shadow``
version never runs on the real world: trees that resolve to it are rebound to
the active version, and on every dispatch of that active version the shadow
runs beside it on a fork of the simulated world (observe only), so its SLA can
be compared. ``promote`` makes a shadow version active only when its measured
success rate and p95 duration are no worse than the active one's; it says why
not otherwise. ``revoked`` (and ``retired``) versions never run.

State lives in ``$CRAFTBT_HOME/lifecycle.json`` (written atomically).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import CapabilitySpec
from craftbt.core.errors import CraftbtError, ErrorCode, Location
from craftbt.core.home import default_home
from craftbt.core.inputs import read_json
from craftbt.executor.journal import Journal
from craftbt.executor.recorder import atomic_write_json

#: promotion needs at least this many shadow observations (and active ones) to compare.
MIN_SAMPLES = 3


class Stage(StrEnum):
    SHADOW = "shadow"
    ACTIVE = "active"
    RETIRED = "retired"
    REVOKED = "revoked"


RUNNABLE = frozenset({Stage.ACTIVE})


def default_path() -> Path:
    return default_home() / "lifecycle.json"


class Lifecycle:
    def __init__(self, path: Path | None = None, *, persist: bool = True) -> None:
        self.path = path or default_path()
        self.persist = persist
        self._stages: dict[str, Stage] = {}
        if persist and self.path.exists():
            raw = read_json(self.path, what="lifecycle file")
            stages = raw.get("stages", {}) if isinstance(raw, dict) else None
            if not isinstance(stages, dict) or not all(isinstance(v, str) and v in Stage.__members__.values()
                                                       for v in stages.values()):
                raise CraftbtError.single(
                    ErrorCode.ENVIRONMENT_ERROR, f"{self.path} is not a lifecycle file",
                    location=Location(str(self.path)),
                    expected='{"stages": {"NAME@VERSION": "shadow|active|retired|revoked"}}')
            self._stages = {str(k): Stage(v) for k, v in stages.items()}

    def stage(self, spec: CapabilitySpec | str) -> Stage:
        key = spec if isinstance(spec, str) else spec.key
        return self._stages.get(key, Stage.ACTIVE)

    def set(self, key: str, stage: Stage) -> None:
        self._stages[key] = stage
        self._save()

    def stages(self) -> dict[str, Stage]:
        return dict(self._stages)

    def active_for(self, registry: Registry, name: str) -> CapabilitySpec | None:
        """The newest version of ``name`` whose stage is active."""
        for spec in reversed(registry.versions(name)):
            if self.stage(spec) is Stage.ACTIVE:
                return spec
        return None

    def shadows_for(self, registry: Registry, name: str) -> list[CapabilitySpec]:
        if Stage.SHADOW not in self._stages.values():  # the common case, asked on every dispatch
            return []
        return [s for s in registry.versions(name) if self.stage(s) is Stage.SHADOW]

    def _save(self) -> None:
        if self.persist:
            atomic_write_json(self.path, {"stages": {k: v.value for k, v in sorted(self._stages.items())}})


class PromotionDecision(BaseModel):
    promoted: bool
    candidate: str
    incumbent: str | None
    reasons: list[str]
    candidate_sla: dict[str, Any] | None = None
    incumbent_sla: dict[str, Any] | None = None


def promote(key: str, registry: Registry, lifecycle: Lifecycle, journal: Journal) -> PromotionDecision:
    """Promote ``NAME@VERSION`` from shadow to active if its SLA is no worse; otherwise say why."""
    from craftbt.executor.sla import capability_sla

    spec = registry.get(key)
    reasons: list[str] = []
    stage = lifecycle.stage(spec)
    if stage is not Stage.SHADOW:
        return PromotionDecision(promoted=False, candidate=spec.key, incumbent=None,
                                 reasons=[f"{spec.key} is {stage.value}, not shadow"])
    incumbent = lifecycle.active_for(registry, spec.name)
    cand = capability_sla(journal, spec.name, spec.version, lifecycle="shadow")
    inc = capability_sla(journal, incumbent.name, incumbent.version, lifecycle="active") if incumbent else None
    if cand is None or cand["attempts"] < MIN_SAMPLES:
        reasons.append(f"{spec.key} has {0 if cand is None else cand['attempts']} shadow observations;"
                       f" need at least {MIN_SAMPLES}")
    if incumbent is not None and (inc is None or inc["attempts"] < MIN_SAMPLES):
        reasons.append(f"{incumbent.key} has {0 if inc is None else inc['attempts']} active observations;"
                       f" need at least {MIN_SAMPLES} to compare")
    if not reasons and cand is not None and inc is not None:
        if cand["success_rate"] < inc["success_rate"]:
            reasons.append(f"success rate {cand['success_rate']:.1%} is worse than {inc['success_rate']:.1%}")
        if (cand["duration_ms"]["p95"] or 0) > (inc["duration_ms"]["p95"] or 0):
            reasons.append(f"p95 duration {cand['duration_ms']['p95']:.0f} ms is worse than"
                           f" {inc['duration_ms']['p95']:.0f} ms")
    promoted = not reasons
    if promoted:
        lifecycle.set(spec.key, Stage.ACTIVE)
        if incumbent is not None:
            lifecycle.set(incumbent.key, Stage.RETIRED)
    return PromotionDecision(promoted=promoted, candidate=spec.key, incumbent=incumbent.key if incumbent else None,
                             reasons=reasons or ["success rate and p95 duration are no worse"],
                             candidate_sla=cand, incumbent_sla=inc)
