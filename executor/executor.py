"""The executor: turns a validated tree into verified world changes on a body, and leaves the evidence.

``Executor.run(definition)``:

1. the feasibility gate (Rig G) and the strict normalizer judge the whole tree;
   a block is recorded with its backoff (``next_eligible_at``) and nothing runs;
2. the tree is built against a monitored body and every capability leaf gets a
   :class:`~executor.supervisor.Supervisor` (I1-I3, backoff);
3. the loop ticks the tree, runs the detectors (every 5th tick), commits the
   journal, then lets the world run one tick (``body.advance(1)``), until the
   root is SUCCESS or FAILURE, a branch hangs, or the ``max_ticks`` budget is spent;
4. a safety signal preempts the goal tree at a safe point with a fast-path
   capability; the goal tree resumes after it;
5. the golden-run report, then the journal row and the outcome are closed together
   (the journal never says how a run ended before its report exists).

Every way out of the loop closes the run: a body that disconnects (in any leaf,
in the safety poll, in the clock) ends it ``escalated`` with
``body_disconnected``; SIGINT/SIGTERM (:class:`~craftbt.core.signals.Cancelled`,
any ``KeyboardInterrupt``) cancel the in-flight body action and end it
``cancelled`` before the exception goes on; a bug ends it ``failure`` with an
``internal_error`` decision before it goes on. What no handler catches (SIGKILL)
is closed ``abandoned`` by the next process that opens the journal.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

import py_trees
from py_trees.common import Status
from pydantic import BaseModel, Field

from craftbt.capabilities.behaviour import CapabilityBehaviour, CheckBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import ActionResult
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.core.runstatus import RunStatus
from craftbt.executor.backoff import BlockClass, classify, next_eligible_at
from craftbt.executor.canary import ShadowCanary
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.detectors import Detectors
from craftbt.executor.digests import digest, plan_digests
from craftbt.executor.failures import Escalation, EscalationReason, Failure
from craftbt.executor.fence import PathWatch
from craftbt.executor.gate import GateDecision, assess
from craftbt.executor.journal import Journal
from craftbt.executor.lifecycle import Lifecycle, Stage
from craftbt.executor.monitor import MonitoredBody
from craftbt.executor.normalize import NormalizeResult, find_sentinels
from craftbt.executor.pipeline import Pipeline
from craftbt.executor.preemption import SafetyMonitor, Signal, interruptible
from craftbt.executor.recorder import GoldenRunRecorder
from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.executor.supervisor import LeafMeta, Supervisor
from craftbt.trees import model as m
from craftbt.trees.build import DEFINITION_ATTR, build, release_blackboard_clients
from craftbt.trees.dump import to_data
from craftbt.trees.validate import Checked, validate_definition
from craftbt.world.body import BlockPos, Body, BodyError, BodyErrorCode

#: safety signals are sampled every 5 ticks (250 ms): rate-limited updates, edge-triggered (seed 003 SMI)
SAFETY_POLL_TICKS = 5
#: Unreachable blocks remembered across runs before the memory starts afresh.
MAX_UNREACHABLE_KEPT = 4096

#: validation problem code -> recorded block reason
BUILD_REASONS: dict[ErrorCode, str] = {
    ErrorCode.INVALID_ARGS: "invalid_args",
    ErrorCode.UNKNOWN_CAPABILITY: "unknown_verb",
    ErrorCode.UNKNOWN_VERSION: "unknown_verb",
    ErrorCode.UNKNOWN_CHECK: "unknown_verb",
    ErrorCode.UNKNOWN_BLACKBOARD_KEY: "unknown_blackboard_key",
}

#: decisions that are bookkeeping, not failures: left out of ``RunOutcome.failures``
NOT_FAILURES = frozenset({"local_retry", "stream_busy", "retry_folded"})

TickCallback = Callable[["Executor", RunState, py_trees.behaviour.Behaviour], None]


class RunOutcome(BaseModel):
    run_id: str
    #: running until closed, then a terminal one (its JSON is the status's string)
    status: RunStatus
    tree: str
    ticks: int = 0
    sim_ms: int = 0
    wall_ms: float = 0.0
    leaves_run: int = 0
    dispatches: int = 0
    shadow: bool = False
    certifiable: bool = True
    #: the run's failure decisions, last 20 (blocks, detector trips, escalations), as the journal records them
    failures: list[Failure] = Field(default_factory=list)
    escalation: Escalation | None = None
    gate: GateDecision | None = None
    next_eligible_at: int | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)
    digests: dict[str, Any] = Field(default_factory=dict)
    report_path: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is RunStatus.SUCCESS

    @property
    def failure(self) -> Failure | None:
        """Why the run failed, typed (None when it succeeded): what the router replans from."""
        return None if self.ok else Failure.of(self.escalation, self.failures, self.status)


def leaf_meta(behaviour: CapabilityBehaviour) -> LeafMeta:
    node = getattr(behaviour, DEFINITION_ATTR, None)
    if isinstance(node, m.LeafNode):
        return LeafMeta(args_source=node.args_source, idempotency_key=behaviour.idempotency_key,
                        original_leaf=getattr(behaviour, "original_leaf", None), normalized=behaviour.normalized)
    return LeafMeta(idempotency_key=behaviour.idempotency_key, normalized=behaviour.normalized)


def derive_keys(supervisors: list[Supervisor], plan_digest: str, run: RunState,
                completed_keys: Collection[str] = ()) -> None:
    """Every leaf the tree gave no idempotency key gets one derived from the plan's digest and its place in
    the tree (its order among the built leaves): the same plan gives the same keys, run after run, so a
    retried or resumed step is recognised as the same step. Keys a previous run completed are honoured."""
    stem = plan_digest.removeprefix("sha256:")[:16]
    for place, sup in enumerate(supervisors):
        if sup.meta.idempotency_key is None:
            sup.meta.derived_key = f"{stem}.{place}"
    run.resumed_keys.update(completed_keys)


def note_failed_condition(run: RunState, root: py_trees.behaviour.Behaviour) -> None:
    """A tree that failed on a condition node, no step having failed, records which condition
    (``condition_failed:<check>``): the run's failure names it, and the goal run replans from it, rather than
    from the last unrelated decision or from nothing (a fishing rod's "crafting table carried" failed after a
    rest's meat had left the table behind, and the run ended a failure with no reason given)."""
    tip = root.tip()
    if isinstance(tip, CheckBehaviour):
        run.decide("condition_failed", node=tip.name,
                   detail={"code": f"condition_failed:{tip.check.name}", "check": tip.check.name,
                           "args": dict(tip.raw_args)})


def capability_leaves(root: py_trees.behaviour.Behaviour) -> list[CapabilityBehaviour]:
    return [n for n in root.iterate() if isinstance(n, CapabilityBehaviour)]


class Executor:
    def __init__(
        self,
        registry: Registry,
        body: Body,
        *,
        config: ExecutorConfig | None = None,
        journal: Journal | None = None,
        recorder: GoldenRunRecorder | None = None,
        lifecycle: Lifecycle | None = None,
        body_kind: str = "sim",
        on_escalation: Callable[[Escalation], None] | None = None,
        on_tick: TickCallback | None = None,
        home: Path | None = None,
    ) -> None:
        self.registry = registry
        self.config = config or ExecutorConfig()
        self.home = home or default_home()
        self.journal = journal or Journal(self.home / "journal.sqlite")
        self.lifecycle = lifecycle or Lifecycle(self.home / "lifecycle.json")
        self.inner_body = body
        self.body = MonitoredBody(body, self._on_action)
        self.body.shadow = self.config.shadow
        self.body.command_gate = lambda line: self.config.command_refusal(line)
        self.recorder = recorder or GoldenRunRecorder(self.home / "golden", clock=self._clock_ms)
        self.body_kind = body_kind
        self.on_escalation = on_escalation
        #: called after every tick, in order (the CLI's live view, serve's viewer, the night watch, the autonomy
        #: loop's senses): each caller adds its own with :meth:`listening` and never replaces another's
        self.tick_listeners: list[TickCallback] = [on_tick] if on_tick is not None else []
        #: called with each run's outcome once its journal row and report exist (watchers: a Groot2 monitor)
        self.close_listeners: list[Callable[[RunOutcome], None]] = []
        self.run_state: RunState | None = None
        self._executed: tuple[m.TreeDefinition, Path | None] | None = None
        #: the tree being run and its context, whose blackboard clients are released when the run closes
        self._live: tuple[py_trees.behaviour.Behaviour | None, CapabilityContext] | None = None
        self._deferred_noted: Signal | None = None
        self._stop_reason: str | None = None
        #: set from another thread by :meth:`cancel`; the loop reads it once per tick (a plain attribute
        #: write is atomic under the GIL, so no lock is needed)
        self._cancel_reason: str | None = None
        self._epoch_ms = time.time() * 1000
        self._epoch_tick = body.now_ticks()
        #: blocks a leaf found no way to reach, kept across runs: a replan after ``no path to`` a log must
        #: not plan the walk to that log again (natural worlds: 9 of 23 failed episodes did)
        self.unreachable: set[BlockPos] = set()

    @contextlib.contextmanager
    def listening(self, listener: TickCallback) -> Iterator[None]:
        """Call ``listener`` after every tick of the runs started inside the ``with`` block."""
        self.tick_listeners.append(listener)
        try:
            yield
        finally:
            self.tick_listeners.remove(listener)

    def cancel(self, reason: str = "cancelled") -> None:
        """Ask the running tree to stop at the end of the current tick; the run closes as ``cancelled``."""
        self._cancel_reason = reason

    def request_stop(self, reason: str) -> None:
        """Ask the running tree to stop at the next safe point (an urgent need preempting a routine task).

        Called from a tick listener. Like safety preemption, an atomic action in flight is never abandoned: no new
        leaf is dispatched and the run ends ``preempted`` as soon as only interruptible dispatches remain.
        """
        self._stop_reason = reason

    def _stop_point(self, run: RunState) -> bool:
        """True when a requested stop may happen now; else hold new dispatches until it may."""
        busy = [s for s in run.active if s.is_dispatching()]
        if any(not interruptible(s.spec) for s in busy):
            run.hold_dispatch = True
            return False
        for sup in busy:
            sup.suspend("preempted_by_urgent_need")
        run.hold_dispatch = False
        run.decide("preempted", detail={"why": self._stop_reason, "suspended": [s.name for s in busy]})
        return True

    def _clock_ms(self) -> float:
        """Epoch-anchored game time: throttle and staleness windows follow the body's clock."""
        return self._epoch_ms + (self.inner_body.now_ticks() - self._epoch_tick) * MS_PER_TICK

    def _on_action(self, kind: str, args: dict[str, Any], tick: int) -> None:
        run = self.run_state
        if run is None:
            return
        run.metrics.actions += 1
        step = run.current.step_id if run.current is not None else None
        run.journal.record_action(run.run_id, step, tick, kind, args)

    # -- the run -------------------------------------------------------------------------
    def run(
        self,
        definition: m.TreeDefinition,
        *,
        base_dir: Path | None = None,
        task_id: str | None = None,
        intent: dict[str, Any] | None = None,
        seed: int | None = None,
        scenario: str | None = None,
        run_id: str | None = None,
        intent_resolution_digest: str | None = None,
        completed_keys: Collection[str] = (),
    ) -> RunOutcome:
        """Run ``definition``; ``intent_resolution_digest`` is the router's digest of the steps it resolved
        from the intent (seed 002), recorded with the run when the tree came from a goal. ``completed_keys``:
        the idempotency keys of steps a run of the same plan already completed (a resume,
        :meth:`Journal.completed_keys`): those steps succeed without dispatch."""
        wall_start = time.perf_counter()
        if base_dir is None and definition.source and not definition.source.startswith("planner:"):
            base_dir = Path(definition.source).parent
        # Subtree files are read once, here; the gate and the builder use what this read.
        checked = validate_definition(definition, self.registry, base_dir=base_dir)
        gate, norm = assess(definition, self.registry, self.body.observe(),
                            allow_materialize=self.config.allow_materialize, base_dir=base_dir,
                            subtrees=checked.subtrees)
        if norm.definition is not definition:
            checked = validate_definition(norm.definition, self.registry, base_dir=base_dir,
                                          subtrees=checked.subtrees)
        # kept with the run's summary, so `craftbt render --run` can draw what ran with its statuses
        self._executed = (norm.definition, base_dir)
        digests = plan_digests(definition)
        if intent_resolution_digest is not None:
            digests.intent_resolution_digest = intent_resolution_digest
        run_id = self.journal.begin_run(
            run_id=run_id, task_id=task_id, intent=intent, plan_id=digests.executor_plan_digest[7:23],
            tree_name=definition.tree, tree_source=definition.source,
            expansion_digest=digests.expansion_digest, intent_resolution_digest=digests.intent_resolution_digest,
            executor_plan_digest=digests.executor_plan_digest, body=self.body_kind, seed=seed, scenario=scenario,
            shadow=self.config.shadow, certifiable=gate.certifiable and not self.config.shadow,
        )
        self.recorder.start_run(run_id, task_id=task_id, expansion={
            **digests.model_dump(), "tree": definition.tree, "gate": gate.model_dump(mode="json"),
        })
        run = RunState(run_id=run_id, config=self.config, registry=self.registry, journal=self.journal,
                       recorder=self.recorder, lifecycle=self.lifecycle, body=self.body, body_kind=self.body_kind)
        self.run_state = run
        base = RunOutcome(run_id=run_id, status=RunStatus.RUNNING, tree=definition.tree, shadow=self.config.shadow,
                          certifiable=gate.certifiable and not self.config.shadow, gate=gate,
                          digests=digests.model_dump())
        try:
            return self._run_opened(run, base, gate, norm, checked, base_dir, wall_start, completed_keys)
        except KeyboardInterrupt as exc:
            # a signal before the loop began (building, the gate) or after it: the run the journal opened is
            # closed cancelled all the same (the loop closes its own, with the open step)
            if base.status is RunStatus.RUNNING:
                self._abort_run(run, None, None, base, wall_start, RunStatus.CANCELLED, "cancelled", exc)
            if hasattr(exc, "run_id"):
                exc.run_id = run_id
            raise

    def _run_opened(self, run: RunState, base: RunOutcome, gate: GateDecision, norm: NormalizeResult,
                    checked: Checked, base_dir: Path | None, wall_start: float,
                    completed_keys: Collection[str]) -> RunOutcome:
        """The run after its journal row exists: the gate's verdict, the build, the loop, the close."""
        if not gate.should_proceed:
            reason = gate.block_reason or "rig_g_blocked"
            run.decide(reason, detail={"stage": "feasibility_gate", "detail": gate.block_detail,
                                       "problems": gate.problems[:10], "unreachable": gate.unreachable[:10]})
            base.next_eligible_at = next_eligible_at(reason, int(time.time() * 1000))
            return self._close(run, base, RunStatus.BLOCKED, wall_start)
        config = self.config
        if gate.suggested_parallelism > config.streams and config.meta.get("allow_gate_parallelism"):
            config = config.model_copy(update={"streams": gate.suggested_parallelism})
            run.config = config
        pipeline = Pipeline(run, canary=ShadowCanary(run))
        # leaves that roam on their own (explore) keep inside the fence the pipeline admits them by
        if len(self.unreachable) > MAX_UNREACHABLE_KEPT:
            self.unreachable.clear()  # a long-lived bot: the world has changed since most were found
        ctx = CapabilityContext(body=self.body, registry=self.registry, hooks=pipeline,
                                memory={"geofence": config.geofence}, unreachable=self.unreachable)
        self._live = (None, ctx)
        try:
            built = build(norm.definition, ctx, base_dir=base_dir, checked=checked)
            self._live = (built.root, ctx)
        except CraftbtError as err:
            first = err.problems[0]
            reason = BUILD_REASONS.get(first.code, "planning_incomplete")
            run.decide(reason, detail={"stage": "validation", "detail": first.render(),
                                       "problems": [p.render() for p in err.problems[:10]]})
            base.next_eligible_at = next_eligible_at(reason, int(time.time() * 1000))
            return self._close(run, base, RunStatus.BLOCKED, wall_start)
        root = built.root
        supervisors = self._supervise(root, run, pipeline)
        executor_plan = [{"leaf": s.spec.key, "args": s.leaf.raw_args} for s in supervisors]
        built_digest = digest(executor_plan)
        derive_keys(supervisors, built_digest, run, completed_keys)
        base.digests["built_plan_digest"] = built_digest  # subtrees inlined: every leaf that can run
        run.recorder.record_decision(run.run_id, "plan_built", {"leaf": None, "steps": len(executor_plan),
                                                            "built_plan_digest": built_digest})
        incomplete = self._built_problems(supervisors)
        if incomplete:
            # a subtree's leaves are normalized too, before any leaf runs (the gate saw only the top tree)
            reason = "planning_incomplete"
            run.decide(reason, detail={"stage": "normalizer", "detail": incomplete[0], "problems": incomplete[:10]})
            base.next_eligible_at = next_eligible_at(reason, int(time.time() * 1000))
            root.stop(Status.INVALID)
            return self._close(run, base, RunStatus.BLOCKED, wall_start)
        return self.drive(run, root, ctx, pipeline, base, wall_start)

    def drive(self, run: RunState, root: py_trees.behaviour.Behaviour, ctx: CapabilityContext, pipeline: Pipeline,
              base: RunOutcome, wall_start: float) -> RunOutcome:
        """Tick ``root`` (a built tree, or another behaviour such as a running script) until it ends, then close
        the run: every way out of the loop closes its journal row (a lost body ends it escalated, SIGINT or
        SIGTERM ``cancelled`` with its open step, the exception going on with the run id; a bug ``failure``)."""
        self.run_state = run
        try:
            status = self._loop(run, root, ctx, pipeline)
        except BodyError as err:
            if err.code is not BodyErrorCode.BODY_DISCONNECTED:
                self._abort_run(run, root, pipeline, base, wall_start, RunStatus.FAILURE, "internal_error", err)
                raise
            status = self._disconnected(run, root, pipeline, err)
        except KeyboardInterrupt as exc:  # SIGINT or SIGTERM (craftbt.core.signals.Cancelled)
            self._abort_run(run, root, pipeline, base, wall_start, RunStatus.CANCELLED, "cancelled", exc)
            if hasattr(exc, "run_id"):
                exc.run_id = run.run_id
            raise
        except Exception as exc:
            self._abort_run(run, root, pipeline, base, wall_start, RunStatus.FAILURE, "internal_error", exc)
            raise
        return self._close(run, base, status, wall_start)

    def _close_steps(self, run: RunState, pipeline: Pipeline, code: str, detail: str) -> None:
        """Close the journal step of every dispatch in flight with ``code`` (then stopping the tree closes none)."""
        for sup in [*run.active, *([run.fast_path] if run.fast_path is not None else [])]:
            if sup.step_id is not None:
                pipeline.end_step(sup, ActionResult.failure(code, detail, retryable=False))

    @staticmethod
    def _stop_tree(root: py_trees.behaviour.Behaviour) -> None:
        """Stop every running leaf (cancelling its body action); a dead body must not stop the cleanup."""
        with contextlib.suppress(Exception):
            root.stop(Status.INVALID)

    def _disconnected(self, run: RunState, root: py_trees.behaviour.Behaviour, pipeline: Pipeline,
                      err: BodyError) -> RunStatus:
        """The body is gone (server down, bridge dead): the current step and the run end escalated."""
        current = next(iter(run.active), None) or run.current
        self._close_steps(run, pipeline, BodyErrorCode.BODY_DISCONNECTED.value, err.detail)
        self._stop_tree(root)
        escalation = Escalation(
            run_id=run.run_id, node=current.name if current is not None else "executor",
            capability=current.spec.key if current is not None else "", reason=EscalationReason.BODY_DISCONNECTED,
            code=BodyErrorCode.BODY_DISCONNECTED.value, detail=err.detail, attempts=1, tick=run.tick(),
        )
        run.escalations.append(escalation)
        run.metrics.escalations += 1
        run.decide("body_disconnected", node=escalation.node, capability=escalation.capability or None,
                   detail={"detail": err.detail})
        if self.on_escalation is not None:
            self.on_escalation(escalation)
        return RunStatus.ESCALATED

    def _abort_run(self, run: RunState, root: py_trees.behaviour.Behaviour | None, pipeline: Pipeline | None,
                   base: RunOutcome, wall_start: float, status: RunStatus, reason: str, exc: BaseException) -> None:
        """Close a run the loop left by an exception; a second failure while closing leaves the first in charge."""
        detail = str(exc) or type(exc).__name__
        if pipeline is not None:
            with contextlib.suppress(Exception):
                self._close_steps(run, pipeline, reason, detail)
        if root is not None:
            self._stop_tree(root)
        with contextlib.suppress(Exception):
            run.decide(reason, detail={"detail": detail, "exception": type(exc).__name__})
            self._close(run, base, status, wall_start)

    def _supervise(self, root: py_trees.behaviour.Behaviour, run: RunState, pipeline: Pipeline) -> list[Supervisor]:
        """Attach a supervisor to every capability leaf (the tree keeps its shape)."""
        supervisors: list[Supervisor] = []
        for leaf in capability_leaves(root):
            self._record_normalized(leaf, run)
            self._remap_deprecated(leaf, run)
            self._rebind_shadow(leaf, run)
            sup = Supervisor(leaf, run, pipeline, leaf_meta(leaf), on_escalation=self.on_escalation)
            sup.retries = self._retry_budget(leaf, run)
            supervisors.append(sup)
        return supervisors

    def _built_problems(self, supervisors: list[Supervisor]) -> list[str]:
        """Option A over the built tree, subtrees included: sentinel or (unless allowed) derived args."""
        problems: list[str] = []
        for sup in supervisors:
            for path in find_sentinels(sup.leaf.raw_args):
                problems.append(f"{sup.name}: sentinel_args at {path}")
            if sup.meta.args_source == "derived" and not self.config.allow_materialize:
                problems.append(f"{sup.name}: derived_args")
        return problems

    def _retry_budget(self, leaf: CapabilityBehaviour, run: RunState) -> int:
        """One retry budget per step: the local retries the supervisor may spend before it escalates.

        The capability's declared ``retries``, or the tree's ``retry: N`` on the leaf (a Retry decorator
        whose child is the leaf), capped by ``config.local_retries`` (the seed's 2). The decorator is folded
        into the supervisor (it keeps one attempt): a Retry around a supervised leaf would otherwise multiply
        the supervisor's own retries, (N + 1) x 3 dispatches of one persistent fault before the router
        hears of it."""
        declared = leaf.spec.retries
        parent = leaf.parent
        if isinstance(parent, py_trees.decorators.Retry) and parent.num_failures > 1:
            declared = parent.num_failures - 1
            run.decide("retry_folded", node=leaf.name, capability=leaf.spec.key,
                       detail={"tree_retries": declared, "budget": min(declared, run.config.local_retries)})
            parent.num_failures = 1
        return min(declared, run.config.local_retries)

    @staticmethod
    def _record_normalized(leaf: CapabilityBehaviour, run: RunState) -> None:
        """The action contract's normalizer changed this leaf's args (a seed spelling, a default, a null):
        journalled as an ``args_normalized`` decision on the step's node, and kept for the step's record."""
        if leaf.normalized is None:
            return
        run.decide("args_normalized", node=leaf.name, capability=leaf.spec.key,
                   detail=leaf.normalized.model_dump(mode="json", exclude_defaults=True))

    def _remap_deprecated(self, leaf: CapabilityBehaviour, run: RunState) -> None:
        """A deprecated leaf runs as its replacement only where the registry names one (``replaced_by``: seed
        000's dig_block -> acquire_material) and the configuration's legacy switch ``remap_deprecated`` is on
        (seed 002 quarantines the rewrite: no leaf changes identity by default). A rewrite is recorded with
        ``original_leaf`` on the decision, every step and the golden-run report."""
        from craftbt.capabilities.contracts import remap_deprecated

        if not run.config.remap_deprecated or not leaf.spec.deprecated or leaf.spec.replaced_by is None:
            return
        if leaf._references:
            return  # args known only at dispatch: the leaf runs as written
        execution = remap_deprecated(leaf.spec.name, leaf.raw_args)
        if execution is None or execution.leaf != leaf.spec.replaced_by or not self.registry.has(execution.leaf):
            return
        original = leaf.spec.key
        leaf.spec = self.registry.get(execution.leaf)
        leaf.raw_args = execution.args
        leaf._static_args = leaf.spec.args_model.model_validate(execution.args)
        node = getattr(leaf, DEFINITION_ATTR, None)
        leaf.timeout_ms = (node.timeout_ms if isinstance(node, m.LeafNode) else None) or leaf.spec.timeout_ms
        leaf.original_leaf = original  # type: ignore[attr-defined]
        run.decide("leaf_remapped", node=leaf.name, capability=leaf.spec.key,
                   detail={"original_leaf": original, "args": execution.args})

    def _rebind_shadow(self, leaf: CapabilityBehaviour, run: RunState) -> None:
        """A tree bound to a shadow version runs the active version; the shadow runs beside it as a canary."""
        if self.lifecycle.stage(leaf.spec) is not Stage.SHADOW:
            return
        active = self.lifecycle.active_for(self.registry, leaf.spec.name)
        if active is None:
            return
        run.decide("rebound_to_active", node=leaf.name, capability=leaf.spec.key,
                   detail={"active": active.key, "original_leaf": leaf.spec.key})
        leaf.spec = active
        if leaf._static_args is not None:  # re-validate against the active version's own args model
            leaf._static_args = active.args_model.model_validate(leaf.raw_args)

    def _loop(self, run: RunState, root: py_trees.behaviour.Behaviour, ctx: CapabilityContext,
              pipeline: Pipeline) -> RunStatus:
        detectors = Detectors(run)
        path_watch = PathWatch(run)
        sample_every = self.config.detectors.sample_every_ticks
        safety = SafetyMonitor(self.registry) if self.config.preemption else None
        fast: Supervisor | None = None
        pending: Signal | None = None
        start = run.tick()
        world = self.inner_body  # advancing the clock is not an actuator command: no need for the monitor
        self._stop_reason = None
        while (elapsed := world.now_ticks() - start) < self.config.max_ticks:
            if self._stop_reason is not None and fast is None and self._stop_point(run):
                root.stop(Status.INVALID)
                return RunStatus.PREEMPTED
            if elapsed % SAFETY_POLL_TICKS == 0:
                path_watch.check(self.body)
            if safety is not None and fast is None and elapsed % SAFETY_POLL_TICKS == 0:
                rising = safety.poll(self.body)
                if rising and (pending is None or rising[0] != pending):
                    pending = rising[0]
                if pending is not None:
                    fast = self._try_preempt(run, pending, safety, ctx, pipeline)
                    if fast is not None:
                        pending = None
            if fast is not None:
                fast.leaf.tick_once()
                if fast.status != Status.RUNNING:
                    run.decide("preemption_resumed", node=fast.name, capability=fast.spec.key,
                               detail={"fast_path_status": fast.status.value})
                    fast = None
            else:
                for _ in root.tick():
                    pass
                if elapsed % sample_every == 0:
                    detectors.check(root)
            run.journal.group_commit()
            for listener in tuple(self.tick_listeners):
                listener(self, run, root)
            if self._cancel_reason is not None:
                root.stop(Status.INVALID)  # terminates in-flight leaves, which cancel their body actions
                run.decide("cancelled", detail={"reason": self._cancel_reason})
                return RunStatus.CANCELLED
            if fast is None and root.status in (Status.SUCCESS, Status.FAILURE):
                if root.status == Status.SUCCESS:
                    return RunStatus.SUCCESS
                if run.escalations:
                    return RunStatus.ESCALATED
                note_failed_condition(run, root)
                return RunStatus.FAILURE
            if detectors.hung:
                root.stop(Status.INVALID)
                return RunStatus.HUNG
            world.advance(1)
        root.stop(Status.INVALID)
        run.decide("budget_exhausted", detail={"max_ticks": self.config.max_ticks})
        return RunStatus.BUDGET_EXHAUSTED

    def _try_preempt(self, run: RunState, signal: Signal, safety: SafetyMonitor, ctx: CapabilityContext,
                     pipeline: Pipeline) -> Supervisor | None:
        found = safety.fast_path(signal)
        if found is None:
            if signal not in run.unavailable_fast_paths:  # said once per run, never skipped in silence
                run.unavailable_fast_paths.add(signal)
                run.decide("fast_path_unavailable", detail={"signal": signal.value,
                                                            "why": "no registered capability for this signal"})
            return None
        spec, entry = found
        busy = [s for s in run.active if s.is_dispatching()]
        atomic = [s for s in busy if not interruptible(s.spec)]
        if atomic:
            run.hold_dispatch = True  # the next leaf boundary is the safe point
            if self._deferred_noted == signal:
                return None
            self._deferred_noted = signal
            run.decide("preemption_deferred", node=atomic[0].name, capability=atomic[0].spec.key,
                       detail={"signal": signal.value, "why": "atomic action in flight"})
            return None
        self._deferred_noted = None
        run.hold_dispatch = False
        for sup in busy:
            sup.suspend("safety_preempted_by_executor")
        run.metrics.preemptions += 1
        run.decide("safety_preempt", capability=spec.key, detail={"signal": signal.value,
                                                                  "suspended": [s.name for s in busy]})
        leaf = CapabilityBehaviour(f"fast_path:{spec.name}", spec, entry.args(self.body.observe()), ctx)
        fast = Supervisor(leaf, run, pipeline, LeafMeta(), on_escalation=self.on_escalation)
        run.fast_path = fast
        return fast

    def _close(self, run: RunState, outcome: RunOutcome, status: RunStatus, wall_start: float) -> RunOutcome:
        if self._live is not None:
            release_blackboard_clients(self._live[0], self._live[1].blackboard)
            self._live = None
        ticks = run.tick() - run.start_tick
        outcome.status = status
        outcome.ticks = ticks
        outcome.sim_ms = ticks * MS_PER_TICK
        outcome.wall_ms = (time.perf_counter() - wall_start) * 1000
        outcome.leaves_run = run.metrics.leaves_run
        outcome.dispatches = run.metrics.dispatches
        outcome.metrics = run.metrics.as_dict()
        outcome.failures = [d for d in run.recent_decisions if d.reason not in NOT_FAILURES][-20:]
        if run.escalations:
            outcome.escalation = run.escalations[-1]
            code = outcome.escalation.code
            if outcome.next_eligible_at is None and code and classify(code) is not BlockClass.NONE:
                # a block at dispatch (invalid args, permission, guard, geofence...) backs the task off
                # like one at the gate: 5 min deterministic, 30 s transient (seed 002)
                outcome.next_eligible_at = next_eligible_at(code, int(time.time() * 1000))
        summary = outcome.model_dump(mode="json", exclude={"gate", "escalation"})
        summary["escalation"] = outcome.escalation.as_dict() if outcome.escalation else None
        summary["gate"] = outcome.gate.model_dump(mode="json") if outcome.gate else None
        if self._executed is not None:
            definition, base_dir = self._executed
            summary["definition"] = to_data(definition)
            summary["base_dir"] = str(base_dir) if base_dir is not None else None
        # the report first: the journal must not say how the run ended while its report is missing
        missing: OSError | None = None
        try:
            self.recorder.finish_run(run.run_id, {"status": status, "ticks": ticks, "metrics": outcome.metrics,
                                                  "escalation": summary["escalation"],
                                                  "next_eligible_at": outcome.next_eligible_at})
        except OSError as exc:
            missing = exc
            summary["artefacts_missing"] = {"golden_report": str(self.recorder.out_dir),
                                            "error": f"{type(exc).__name__}: {exc}"}
        if self.recorder.out_dir is not None and missing is None:
            outcome.report_path = str(self.recorder.out_dir / f"{run.run_id}.json")
        run.journal.end_run(run.run_id, status=status, sim_ticks=ticks, wall_ms=outcome.wall_ms, summary=summary)
        self.run_state = None
        self._cancel_reason = None
        if missing is not None:
            raise missing  # the CLI names the file and the cause (exit 1); the journal says what is missing
        for listener in tuple(self.close_listeners):
            listener(outcome)
        return outcome
