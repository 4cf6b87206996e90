"""Failure detectors, sampled every ``sample_every_ticks`` (5: 250 ms) after the tree's tick (seed 003 A1,
A4, FM-03, FM-04; FM-05 is in the pipeline). Their thresholds are seconds long; a trip is noticed at most
one sample late, while TTFA and step durations are measured to the tick by the pipeline.

* TTFA (A1): a dispatched leaf with no actuator command within 2 s is recorded
  as ``ttfa_exceeded`` (the measurement itself lands in the journal).
* Stuckness (A4): a dispatched leaf that issued no actuator command for more
  than 3 s of game time, with nothing in flight, is aborted with ``stuck.loop``
  (retryable, so local repair re-dispatches it).
* Branch hang (FM-03): the root RUNNING, no leaf dispatched or backing off, and
  no node status change for longer than ``branch_hang_ms`` -> ``branch_hang``.
* Pathfinding flap (FM-04): more than 3 direction reversals of the bot within
  10 s while moving -> ``pathfinding_flap``, the moving leaf aborted. Reversals
  are counted between samples, so jitter faster than the sampling is not a flap.

Leaves that legitimately idle (``wait``, sensing reads) are exempt from A1/A4.
All state is bounded (deques with a window).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import py_trees
from py_trees.common import Status

from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.world.body import Position

if TYPE_CHECKING:
    from craftbt.executor.supervisor import Supervisor


class Detectors:
    def __init__(self, run: RunState) -> None:
        self.run = run
        cfg = run.config.detectors
        self.ttfa_ticks = cfg.ttfa_ms // MS_PER_TICK
        self.stuck_ticks = cfg.stuck_ms // MS_PER_TICK
        self.hang_ticks = cfg.branch_hang_ms // MS_PER_TICK
        self.flap_ticks = cfg.flap_window_ms // MS_PER_TICK
        self.flap_limit = cfg.flap_reversals
        self.idle_ok = cfg.idle_ok
        self._last_pos: Position | None = None
        self._last_dir: tuple[float, float] | None = None
        self._reversals: deque[int] = deque(maxlen=max(8, self.flap_limit + 2))
        self._snapshot: tuple[str, ...] | None = None
        self._snapshot_since = 0
        self.hung = False

    def check(self, root: py_trees.behaviour.Behaviour) -> None:
        now = self.run.tick()
        dispatching = [s for s in self.run.active if s.is_dispatching()]
        for sup in dispatching:
            self._ttfa_and_stuck(sup, now)
        self._flap(dispatching, now)
        self._branch_hang(root, dispatching, now)

    def _ttfa_and_stuck(self, sup: Supervisor, now: int) -> None:
        if sup.spec.awaits_world or sup.spec.name in self.idle_ok or sup.dispatch_tick is None:
            return
        run = self.run
        if sup.first_action_tick is None and not sup.ttfa_flagged and now - sup.dispatch_tick > self.ttfa_ticks:
            sup.ttfa_flagged = True
            run.metrics.ttfa_violations += 1
            run.decide("ttfa_exceeded", node=sup.name, capability=sup.spec.key,
                       detail={"waited_ms": (now - sup.dispatch_tick) * MS_PER_TICK, "limit_ms": self.ttfa_ticks * 50})
        busy = run.body.in_flight()
        last = max(sup.dispatch_tick, run.body.last_command_tick or 0, run.body.last_busy_tick or 0)
        if now - last > self.stuck_ticks and not busy:
            run.metrics.stuck_loops += 1
            run.decide("stuck.loop", node=sup.name, capability=sup.spec.key,
                       detail={"idle_ms": (now - last) * MS_PER_TICK, "limit_ms": self.stuck_ticks * MS_PER_TICK})
            sup.abort("stuck.loop", f"no actuator command for {(now - last) * MS_PER_TICK} ms")

    def _flap(self, dispatching: list[Supervisor], now: int) -> None:
        pos = self.run.body.position()
        last, self._last_pos = self._last_pos, pos
        if last is None:
            return
        dx, dz = pos.x - last.x, pos.z - last.z
        if abs(dx) + abs(dz) < 1e-3:
            return
        if dispatching and all(s.spec.meta.get("reverses") for s in dispatching):
            # a step that turns back by design (a fight backing off out of a creeper's fuse after each swing, then
            # closing in) is bounded by its own deadline; its reversals are not a flap
            self._last_dir = None
            return
        if self._last_dir is not None and dx * self._last_dir[0] + dz * self._last_dir[1] < 0:
            self._reversals.append(now)
        self._last_dir = (dx, dz)
        while self._reversals and now - self._reversals[0] > self.flap_ticks:
            self._reversals.popleft()
        if len(self._reversals) > self.flap_limit:
            self._reversals.clear()
            self.run.metrics.flaps += 1
            movers = [s for s in dispatching if s.spec.family.value == "movement"] or dispatching
            target = movers[0] if movers else None
            self.run.decide("pathfinding_flap", node=target.name if target else None,
                            capability=target.spec.key if target else None,
                            detail={"reversals": self.flap_limit + 1, "window_ms": self.flap_ticks * MS_PER_TICK})
            if target is not None:
                target.abort("pathfinding_flap", "more than 3 reversals within 10 s without net motion")

    def _branch_hang(self, root: py_trees.behaviour.Behaviour, dispatching: list[Supervisor], now: int) -> None:
        if root.status != Status.RUNNING or dispatching or any(
            s.wait_until is not None and s.wait_until > now for s in self.run.backing_off
        ):
            self._snapshot = None
            return
        snapshot = tuple(f"{id(n)}:{n.status.value}" for n in root.iterate())
        if snapshot != self._snapshot:
            self._snapshot = snapshot
            self._snapshot_since = now
            return
        if now - self._snapshot_since > self.hang_ticks and not self.hung:
            self.hung = True
            self.run.metrics.branch_hangs += 1
            tip = root.tip()
            self.run.decide("branch_hang", node=tip.name if tip else None,
                            detail={"unchanged_ms": (now - self._snapshot_since) * MS_PER_TICK})
