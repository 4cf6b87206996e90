"""Per-run shared state: the record sink (journal + golden-run report), metrics, the active leaves.

The pipeline, the leaf supervisors, the detectors and preemption all read and
write one :class:`RunState`. Every refusal or detector trip goes through
:meth:`RunState.decide`, so each is a structured decision recorded in both the
journal and the golden-run report (blocks throttled identically in both).
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from craftbt.executor.backoff import BlockClass, classify
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.failures import Escalation, Failure
from craftbt.executor.journal import Journal
from craftbt.executor.lifecycle import Lifecycle
from craftbt.executor.recorder import GoldenRunRecorder

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry
    from craftbt.executor.monitor import MonitoredBody
    from craftbt.executor.supervisor import Supervisor

MS_PER_TICK = 50


@dataclass
class Metrics:
    """Counters behind the seed's executor metrics (bounded: TTFA samples are a ring)."""

    dispatches: int = 0
    shadow_steps: int = 0
    successes: int = 0
    failures: int = 0
    refusals: int = 0
    local_retries: int = 0
    local_retry_successes: int = 0
    transient_waits: int = 0
    escalations: int = 0
    timeouts: int = 0
    stuck_loops: int = 0
    flaps: int = 0
    branch_hangs: int = 0
    ttfa_violations: int = 0
    double_dispatch_collapsed: int = 0
    preemptions: int = 0
    i1_violations: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)
    actions: int = 0
    ttfa_ms: deque[float] = field(default_factory=lambda: deque(maxlen=1024))
    leaves_run: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "ttfa_ms"}
        out["ttfa_samples"] = len(self.ttfa_ms)
        return out


class RunState:
    def __init__(
        self,
        *,
        run_id: str,
        config: ExecutorConfig,
        registry: Registry,
        journal: Journal,
        recorder: GoldenRunRecorder,
        lifecycle: Lifecycle,
        body: MonitoredBody,
        body_kind: str,
    ) -> None:
        self.run_id = run_id
        self.config = config
        self.registry = registry
        self.journal = journal
        self.recorder = recorder
        self.lifecycle = lifecycle
        self.body = body
        self.body_kind = body_kind
        self.metrics = Metrics()
        self.current: Supervisor | None = None
        self.active: set[Supervisor] = set()
        #: supervisors with a dispatch whose journal step is open (I1 counts them, independently of streams)
        self.in_flight: set[Supervisor] = set()
        #: supervisors waiting out a transient backoff (a waiting tree is not a hung one)
        self.backing_off: set[Supervisor] = set()
        self.escalations: deque[Escalation] = deque(maxlen=64)
        #: "<node>|<code>" -> how often that leaf's guard refused with that code (FM-02's detector)
        self.guard_failures: dict[str, int] = {}
        #: the run's decisions as typed records (failures and bookkeeping alike; the outcome keeps the failures)
        self.recent_decisions: deque[Failure] = deque(maxlen=200)
        self.dispatch_ticks: deque[int] = deque(maxlen=max(1, config.rate_limit.max_dispatches))
        self.inflight_keys: dict[str, int] = {}
        self.done_keys: dict[str, int] = {}
        #: keys of steps a previous run of the same plan completed (a resume): never dispatched again
        self.resumed_keys: set[str] = set()
        self.step_index = 0
        #: a safety signal waits for a safe point: no new leaf starts until the fast path ran
        self.hold_dispatch = False
        #: safety signals whose fast path had no registered capability (recorded once each)
        self.unavailable_fast_paths: set[str] = set()
        self.fast_path: Supervisor | None = None
        self.started_wall = time.time()
        self.start_tick = body.now_ticks()

    def tick(self) -> int:
        return self.body.inner.now_ticks()  # asked many times a tick: skip the monitor's delegation

    def game_ms(self) -> int:
        return (self.tick() - self.start_tick) * MS_PER_TICK

    def decide(
        self,
        reason: str,
        *,
        node: str | None = None,
        capability: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> bool:
        """Record a structured decision. Blocks are throttled; returns False when throttled."""
        block = classify(reason)
        payload = {"leaf": capability, "node": node, **(detail or {})}
        if block is BlockClass.NONE:
            self.recorder.record_decision(self.run_id, reason, payload)
            written = True
        else:
            written = self.recorder.record_blocked(self.run_id, reason, payload)
        if written:
            self.journal.record_decision(
                self.run_id, reason=reason, tick=self.tick(), node=node, capability=capability,
                block_class=block.value if block is not BlockClass.NONE else None, detail=detail,
            )
            self.recent_decisions.append(Failure.decided(reason, node=node, capability=capability,
                                                         tick=self.tick(), payload=detail or {}))
        return written
