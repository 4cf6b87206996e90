"""The leaf supervisor: attached to every capability behaviour to enforce I1-I3 and the backoff taxonomy.

The supervisor is not a tree node: the executor attaches one to each capability
leaf (``leaf.supervisor``), and the leaf's tick asks it what to do, so the tree
keeps its shape and the parent sees the supervised status directly (a local
retry or a backoff stays RUNNING). A decorator node per leaf cost a py_trees
node's construction, a generator layer on every tick and a fifth of the live
objects the garbage collector walked during a run.

* I1 — a supervisor must hold a stream before its leaf is ticked; there are
  ``config.streams`` streams (1 unless the feasibility gate allows more).
* I2 — the dispatch sets a deadline (the leaf's timeout); a leaf still running
  past it plus the probe budget is aborted.
* I3 / A3 — a retryable failure is re-dispatched locally at most ``retries``
  times (the capability's declared retries or the tree's ``retry: N``, capped by
  ``config.local_retries``, 2); then the supervisor fails and escalates. The
  budget is per step: re-entering a leaf after it failed gives no fresh one.
* Transient blocks (rate limited, feasibility gate, safety preempted) wait
  their 30 s backoff on the body's clock, a bounded number of times; a body
  busy navigating (``nav_busy``) is polled every second until it is free (30 s);
  deterministic blocks fail at once and escalate (5 min task backoff).
* Detectors and preemption ask a supervisor to ``abort`` or ``suspend``; the
  journal row of an interrupted dispatch is always closed (A2: no silent drop).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from py_trees.common import Status
from pydantic import BaseModel

from craftbt.capabilities.behaviour import PROBE_TICKS, CapabilityBehaviour
from craftbt.capabilities.contracts import LeafNormalization
from craftbt.capabilities.spec import ActionResult, CapabilitySpec
from craftbt.executor.backoff import BACKOFF_MS, BlockClass, classify
from craftbt.executor.failures import Escalation, EscalationContext, EscalationReason, precondition_of
from craftbt.executor.journal import NOT_AN_OUTCOME
from craftbt.executor.pipeline import Pipeline
from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.world.body import BlockPos

EscalationSink = Callable[[Escalation], None]

#: ``nav_busy`` (recorded ``navigating_in_progress``): poll every second, for at most 30 s
NAV_BUSY_CODE = "navigating_in_progress"
NAV_BUSY_POLL_TICKS = 20
NAV_BUSY_MAX_WAITS = 30


@dataclass(slots=True)
class LeafMeta:
    """What the tree file said about a leaf that the pipeline checks: where its args came from, its keys."""

    args_source: str = "explicit"
    idempotency_key: str | None = None
    original_leaf: str | None = None
    #: what the action contract's normalizer changed in the args as written (None: nothing)
    normalized: LeafNormalization | None = None
    #: the key a step of this leaf gets when the tree set none: ``<plan digest>.<place in the tree>``; each
    #: step (a first dispatch and its retries, up to a success) is ``<derived_key>.<successes before it>``
    derived_key: str | None = None


class Supervisor:
    """I1-I3 and the backoff taxonomy for one capability leaf; attaches itself as ``leaf.supervisor``."""

    # one per leaf for the whole run: no per-instance __dict__ for the collector to walk
    __slots__ = (
        "_abort",
        "_stream_wait_noted",
        "admitted",
        "admitted_args",
        "args_json",
        "args_positions",
        "args_sentinels",
        "attempt",
        "completed",
        "deadline_tick",
        "dispatch_tick",
        "first_action_tick",
        "last_result",
        "leaf",
        "meta",
        "on_escalation",
        "pipeline",
        "retries",
        "run",
        "step_id",
        "step_index",
        "timeout_ms",
        "ttfa_flagged",
        "ttfa_ms",
        "wait_until",
        "waits",
    )

    def __init__(self, leaf: CapabilityBehaviour, run: RunState, pipeline: Pipeline, meta: LeafMeta,
                 on_escalation: EscalationSink | None = None) -> None:
        self.leaf = leaf
        self.run = run
        self.pipeline = pipeline
        self.meta = meta
        self.on_escalation = on_escalation
        self.timeout_ms = leaf.timeout_ms
        #: local retries this step may spend before it escalates (the executor sets it: declared, capped)
        self.retries = run.config.local_retries
        self.attempt = 0
        #: steps of this leaf that succeeded (a derived idempotency key counts them)
        self.completed = 0
        self.waits = 0
        self.wait_until: int | None = None
        self.step_id: int | None = None
        self.step_index = 0
        self.admitted = False
        self.dispatch_tick: int | None = None
        self.first_action_tick: int | None = None
        self.ttfa_ms: float | None = None
        self.deadline_tick: int | None = None
        self.last_result: ActionResult | None = None
        #: the admitted args model and its derived views, computed by the pipeline once per distinct args
        self.admitted_args: BaseModel | None = None
        self.args_json: dict[str, Any] = {}
        self.args_sentinels: list[str] = []
        self.args_positions: list[tuple[str, BlockPos]] = []
        self.ttfa_flagged = False
        self._abort: tuple[str, str, bool] | None = None
        self._stream_wait_noted = False
        leaf.supervisor = self

    @property
    def name(self) -> str:
        return self.leaf.name

    @property
    def spec(self) -> CapabilitySpec:
        return self.leaf.spec

    @property
    def status(self) -> Status:
        """What the leaf's parent sees."""
        return self.leaf.status

    # -- the leaf's tick --------------------------------------------------------------
    def initialise(self) -> None:
        # The retry budget is per step, not per activation: a parent that re-enters a leaf after it
        # failed (a retry around its branch) gets no fresh budget; a success resets it.
        last = self.last_result
        if last is None or last.ok or (last.error is not None and last.error.code in NOT_AN_OUTCOME):
            self.attempt = 0
        if last is not None and last.ok:
            self.completed += 1
        if self.meta.derived_key is not None:
            # the same step keeps its key across retries and a resumed run; the next step of a loop gets a new one
            self.meta.idempotency_key = f"{self.meta.derived_key}.{self.completed}"
        self.waits = 0
        if self.wait_until is not None:
            self._set_wait(None)
        self._abort = None
        self.ttfa_flagged = False

    def tick(self) -> Status:
        """One tick of the supervised leaf; returns the status its parent sees."""
        leaf = self.leaf
        if leaf.status != Status.RUNNING:
            self.initialise()
        if self._abort is not None:
            return self._take_abort()
        run = self.run
        if self.wait_until is not None:
            if run.tick() < self.wait_until:
                return Status.RUNNING  # backing off
            self._set_wait(None)
        if run.hold_dispatch and leaf.run_status != Status.RUNNING and self is not run.fast_path:
            return Status.RUNNING  # a preemption is waiting for this leaf boundary (a safe point)
        if not self._acquire_stream():
            return Status.RUNNING  # I1: another leaf holds the stream
        if leaf.run_status != Status.RUNNING:
            self.admitted = False
            run.metrics.leaves_run += 1
        previous, run.current = run.current, self
        try:
            leaf.step()
        finally:
            run.current = previous
        return self._after_leaf()

    def terminate(self, new_status: Status) -> None:
        """The leaf stops with ``new_status``: its final one, or INVALID when the tree moves on."""
        self._release()
        if self.wait_until is not None:
            self._set_wait(None)
        if new_status == Status.INVALID:
            if self.step_id is not None and self._settle():
                return
            self.leaf.interrupt()
            if self.step_id is not None:
                self.pipeline.end_step(self, ActionResult.failure("interrupted", "the tree moved on",
                                                                  retryable=True))

    def _settle(self) -> bool:
        """Judge a halted leaf whose action already landed: its step ends with its verdict, not ``interrupted``."""
        run = self.run
        previous, run.current = run.current, self
        try:
            settled = self.leaf.settle()
        finally:
            run.current = previous
        self.leaf.run_status = Status.INVALID
        return settled

    # -- requests from detectors and preemption ------------------------------------------
    def abort(self, code: str, detail: str, *, retryable: bool = True) -> None:
        """Fail the running dispatch on the next tick with ``code`` (e.g. ``stuck.loop``)."""
        if self._abort is None:
            self._abort = (code, detail, retryable)

    def suspend(self, reason: str) -> None:
        """Interrupt the running dispatch at a safe point; it is re-dispatched on resume (no retry used)."""
        self.leaf.interrupt()
        if self.step_id is not None:
            self.pipeline.end_step(self, ActionResult.failure(reason, "preempted by a safety fast path",
                                                              retryable=True))
        self._release()

    def is_dispatching(self) -> bool:
        return self.leaf.run_status == Status.RUNNING and self.step_id is not None

    # -- internals --------------------------------------------------------------------------
    def _acquire_stream(self) -> bool:
        active = self.run.active
        if self in active:
            return True
        if len(active) >= self.run.config.streams:
            if not self._stream_wait_noted:
                self._stream_wait_noted = True
                self.run.decide("stream_busy", node=self.name, capability=self.spec.key,
                                detail={"active": sorted(s.name for s in active)})
            return False
        self._stream_wait_noted = False
        active.add(self)
        return True

    def _release(self) -> None:
        self.run.active.discard(self)

    def _set_wait(self, until: int | None) -> None:
        """Start or end a transient backoff; ``run.backing_off`` lets the hang detector skip a scan of every leaf."""
        self.wait_until = until
        if until is None:
            self.run.backing_off.discard(self)
        else:
            self.run.backing_off.add(self)

    def _take_abort(self) -> Status:
        assert self._abort is not None
        code, detail, retryable = self._abort
        self._abort = None
        self.leaf.interrupt()
        result = ActionResult.failure(code, detail, retryable=retryable)
        self.pipeline.end_step(self, result)
        self._release()
        return self._on_failure(result)

    def _after_leaf(self) -> Status:
        lifecycle = self.leaf.run_status
        if lifecycle == Status.RUNNING:
            if self.deadline_tick is not None and self.run.tick() > self.deadline_tick + PROBE_TICKS + 1:
                self.abort("timeout", f"I2 deadline {self.timeout_ms} ms exceeded")
            return Status.RUNNING
        self._release()
        result = self.leaf.result
        if lifecycle == Status.SUCCESS:
            if self.attempt > 0:
                self.run.metrics.local_retry_successes += 1
            return Status.SUCCESS
        return self._on_failure(result or ActionResult.failure("failed", "no result"))

    def _on_failure(self, result: ActionResult) -> Status:
        run = self.run
        code = result.error.code if result.error else "failed"
        if code == NAV_BUSY_CODE:
            # the body is still walking for someone else: wait for it to end, then dispatch again (no
            # local retry spent: the leaf never started)
            if self.waits < NAV_BUSY_MAX_WAITS:
                self.waits += 1
                run.metrics.transient_waits += 1
                self._set_wait(run.tick() + NAV_BUSY_POLL_TICKS)
                return Status.RUNNING
            return self._escalate(EscalationReason.NAVIGATION_NEVER_ENDED, result)
        klass = classify(code)
        if klass is BlockClass.TRANSIENT:
            if self.waits < run.config.max_transient_waits:
                self.waits += 1
                run.metrics.transient_waits += 1
                self._set_wait(run.tick() + BACKOFF_MS[BlockClass.TRANSIENT] // MS_PER_TICK)
                return Status.RUNNING
            return self._escalate(EscalationReason.TRANSIENT_BLOCK_EXHAUSTED, result)
        if klass is BlockClass.DETERMINISTIC:
            return self._escalate(EscalationReason.DETERMINISTIC_BLOCK, result)
        retryable = bool(result.error and result.error.retryable)
        if retryable and self.attempt < self.retries:
            self.attempt += 1
            run.metrics.local_retries += 1
            run.decide("local_retry", node=self.name, capability=self.spec.key,
                       detail={"attempt": self.attempt, "code": code})
            return Status.RUNNING  # the leaf re-initialises (re-dispatches) on the next tick
        return self._escalate(EscalationReason.LOCAL_REPAIR_EXHAUSTED if retryable
                              else EscalationReason.NON_RETRYABLE_FAILURE, result)

    def _escalate(self, reason: EscalationReason, result: ActionResult) -> Status:
        run = self.run
        code = result.error.code if result.error else None
        # the step's args: a subgoal's size depends on them (fuel for qty items)
        context = EscalationContext(observables=dict(result.observables), args=dict(self.args_json),
                                    precondition=precondition_of(code),
                                    missing=dict(result.error.missing) if result.error else {})
        if code and (code.startswith("guard_failed") or "precond_missing" in code):
            # FM-02: a guard that keeps saying no needs a subgoal, not another retry.
            context.effects_unmet = "precond_missing"
            context.precondition = context.precondition or code.removeprefix("guard_failed:")
            key = f"{self.name}|{code}"
            seen = run.guard_failures.get(key, 0) + 1
            run.guard_failures[key] = seen
            context.guard_failures = seen
            if seen > 2:
                run.decide("repeated_guard_failure", node=self.name, capability=self.spec.key,
                           detail={"code": code, "times": seen})
        escalation = Escalation(
            run_id=run.run_id, node=self.name, capability=self.spec.key, reason=reason, code=code,
            detail=result.error.detail if result.error else "", attempts=self.attempt + 1, tick=run.tick(),
            context=context,
        )
        run.escalations.append(escalation)
        run.metrics.escalations += 1
        run.decide("escalated", node=self.name, capability=self.spec.key,
                   detail={"why": reason.value, "code": code, "attempts": self.attempt + 1})
        if self.on_escalation is not None:
            self.on_escalation(escalation)
        return Status.FAILURE

    def step_payload(self, args: BaseModel) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "node": self.name,
            "leaf": self.spec.name,
            "version": self.spec.version,
            "args": self.args_json,
            "attempt": self.attempt,
            "args_source": self.meta.args_source,
            "dispatched_at": int(time.time() * 1000),
        }
        if self.meta.idempotency_key:
            payload["idempotency_key"] = self.meta.idempotency_key
        if self.meta.original_leaf:
            payload["original_leaf"] = self.meta.original_leaf
        if self.meta.normalized is not None:
            payload["normalized"] = self.meta.normalized.model_dump(mode="json", exclude_defaults=True)
        return payload
