"""GOAP action costs from capability SLA durations.

The expected duration of one unit of a capability is its mean successful
duration per unit from the executor's journal when there is history, else a
default derived from its declared timeout (:data:`TIMEOUT_FRACTION` of it: a
leaf is expected to finish well inside its budget).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

TIMEOUT_FRACTION = 0.1
#: argument that counts the units of work of one dispatch, per capability
UNIT_ARG = {"acquire_material": "count", "craft_recipe": "qty", "smelt": "qty"}
MIN_SAMPLES = 3


class _Defaults(dict[str, float]):
    """Per-unit milliseconds from the registry's declared timeouts, each looked up when first asked for: a plan
    costs four or five capabilities, and resolving all sixty-odd was a twentieth of a craft-only GOAP plan."""

    def __init__(self, registry: Registry) -> None:
        super().__init__()
        self.registry = registry
        self.unknown: set[str] = set()  # a miss is asked the registry once (a miss builds a did-you-mean)

    def __missing__(self, name: str) -> float:
        if name in self.unknown or not self.registry.has(name):
            self.unknown.add(name)
            raise KeyError(name)
        value = self[name] = self.registry.get(name).timeout_ms * TIMEOUT_FRACTION
        return value


class ActionCosts:
    def __init__(self, per_unit_ms: dict[str, float]) -> None:
        self.per_unit_ms = per_unit_ms

    @classmethod
    def from_registry(cls, registry: Registry, journal: Any | None = None) -> ActionCosts:
        per_unit = _Defaults(registry)
        if journal is not None:
            per_unit.update(cls._observed(journal))
        return cls(per_unit)

    @staticmethod
    def _observed(journal: Any) -> dict[str, float]:
        samples: dict[str, list[float]] = {}
        for row in journal.step_rows():
            if not row.get("ok") or row.get("duration_ms") is None or row.get("shadow"):
                continue
            name = str(row["capability"])
            args = row.get("args") or {}
            units = args.get(UNIT_ARG.get(name, ""), 1) if isinstance(args, dict) else 1
            samples.setdefault(name, []).append(float(row["duration_ms"]) / max(1, int(units or 1)))
        return {name: sum(v) / len(v) for name, v in samples.items() if len(v) >= MIN_SAMPLES}

    def cost(self, capability: str, units: int) -> float:
        try:
            per_unit = self.per_unit_ms[capability]  # [], not .get: a registry default is filled in when missing
        except KeyError:
            per_unit = 1000.0
        return per_unit * max(1, units)
