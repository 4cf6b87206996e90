"""Safety preemption (seed 003): a threat signal preempts the goal tree with a fast-path capability.

Signals are edge-triggered (emitted when they become true, not on every tick):
health dropping by ``health_drop`` or more, a hostile within ``hostile_range``,
lava at or under the bot's feet, food at or below ``hunger_food``. The fast path
is a table of registered capabilities only (``tests`` check every entry against the
default registry); a signal with no registered entry is recorded as
``fast_path_unavailable``, never skipped in silence. Preemption
happens only at a safe point: no dispatch in flight, or only interruptible ones
(movement and sensing); an atomic action (dig, place, craft, ...) is never
abandoned — the signal waits until it completes. The goal tree resumes after.

A hunt is not a threat to run from: while a goal run's hunt step is after a hostile mob (string from a spider
by night), :func:`set_quarry` names its type for the body, and the nearest hostile of that type does not raise
``hostile_near``. Safety first still: any other hostile in range, a second one of the hunted type, lava, a
health drop and hunger raise their signals as before (the retreat then runs from every hostile, the quarry
included).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any
from weakref import WeakKeyDictionary

from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import CapabilitySpec, Family
from craftbt.world.body import BlockPos, Body, EntityInfo, Observation


class Signal(StrEnum):
    LAVA = "lava"
    HOSTILE_NEAR = "hostile_near"
    HEALTH_DROP = "health_drop"
    HUNGER = "hunger"


@dataclass(frozen=True)
class FastPath:
    signal: Signal
    capability: str
    args: Callable[[Observation], dict[str, Any]] = field(default=lambda obs: {})


#: Signal -> fast-path capability, in priority order (first registered entry wins).
FAST_PATHS: tuple[FastPath, ...] = (
    FastPath(Signal.LAVA, "retreat_from_threat"),
    FastPath(Signal.HOSTILE_NEAR, "retreat_from_threat"),
    FastPath(Signal.HEALTH_DROP, "retreat_from_threat"),
    FastPath(Signal.HUNGER, "consume_food"),
)

SIGNAL_PRIORITY = (Signal.LAVA, Signal.HOSTILE_NEAR, Signal.HEALTH_DROP, Signal.HUNGER)

#: families whose running dispatch may be interrupted (re-dispatching them is harmless).
INTERRUPTIBLE = frozenset({Family.MOVEMENT, Family.SENSING})
LAVA_BLOCKS = frozenset({"lava", "flowing_lava"})
#: the two cells at and under the feet are re-read when the feet enter another block, and at least this
#: often while they do not (vanilla lava spreads one block per 30 ticks; burning also shows as a health drop)
LAVA_RECHECK_TICKS = 20


#: per body (the one the monitor polls), the mob type a running hunt step is after
_QUARRY: WeakKeyDictionary[Any, str] = WeakKeyDictionary()


def set_quarry(body: Body, mob: str | None) -> None:
    """Name the mob type ``body``'s running hunt is after (None: no hunt runs)."""
    if mob is None:
        _QUARRY.pop(body, None)
    else:
        _QUARRY[body] = mob


def quarry(body: Body) -> str | None:
    return _QUARRY.get(body)


def threats(body: Body, hostiles: list[EntityInfo]) -> list[EntityInfo]:
    """``hostiles`` less the hunted one: the nearest of the quarry's type (one mob; a second is a threat)."""
    prey = quarry(body)
    hunted = [e for e in hostiles if e.name == prey]
    if not hunted:
        return hostiles
    feet = body.position()
    nearest = min(hunted, key=lambda e: e.position.distance_to(feet))
    return [e for e in hostiles if e is not nearest]


@dataclass
class Thresholds:
    hostile_range: float = 8.0
    health_drop: float = 4.0
    hunger_food: int = 6


class SafetyMonitor:
    def __init__(self, registry: Registry, thresholds: Thresholds | None = None,
                 table: tuple[FastPath, ...] = FAST_PATHS) -> None:
        self.registry = registry
        self.thresholds = thresholds or Thresholds()
        self.table = table
        self._prev_health: float | None = None
        self._raised: set[Signal] = set()
        self._lava_cell: BlockPos | None = None
        self._lava_read_tick = 0
        self._lava = False

    def _in_lava(self, body: Body, feet: BlockPos, tick: int) -> bool:
        if feet != self._lava_cell or tick - self._lava_read_tick >= LAVA_RECHECK_TICKS:
            self._lava_cell, self._lava_read_tick = feet, tick
            self._lava = (body.block_at(feet).name in LAVA_BLOCKS
                          or body.block_at(feet.offset(dy=-1)).name in LAVA_BLOCKS)
        return self._lava

    def current(self, body: Body, obs: Observation) -> set[Signal]:
        t = self.thresholds
        now: set[Signal] = set()
        feet = obs.position
        if self._in_lava(body, feet.block(), obs.tick):
            now.add(Signal.LAVA)
        near = [e for e in body.entities(t.hostile_range, kind="hostile")
                if e.position.distance_to(feet) <= t.hostile_range]
        if threats(body, near):
            now.add(Signal.HOSTILE_NEAR)
        if self._prev_health is not None and self._prev_health - obs.health >= t.health_drop:
            now.add(Signal.HEALTH_DROP)
        if obs.food <= t.hunger_food:
            now.add(Signal.HUNGER)
        if self._prev_health is None or obs.health > self._prev_health or Signal.HEALTH_DROP in now:
            self._prev_health = obs.health
        return now

    def poll(self, body: Body) -> list[Signal]:
        """Signals that just became true (edge detection), most urgent first."""
        now = self.current(body, body.observe())
        rising = now - self._raised
        self._raised = now
        return [s for s in SIGNAL_PRIORITY if s in rising]

    def fast_path(self, signal: Signal) -> tuple[CapabilitySpec, FastPath] | None:
        for entry in self.table:
            if entry.signal is signal and self.registry.has(entry.capability):
                return self.registry.get(entry.capability), entry
        return None


def interruptible(spec: CapabilitySpec) -> bool:
    return spec.family in INTERRUPTIBLE or bool(spec.meta.get("interruptible"))
