"""The Plan-to-Body pipeline (seed 000 guard pipeline, seed 003 V1-V3): the executor's DispatchHooks.

Every leaf activation passes these stages in order; the first refusal wins and
is recorded as a structured decision with its backoff class:

 0. resumed        a step a previous run of the same plan completed (its idempotency key): admitted without
                   dispatch, recorded ``resumed_step_skipped``
 1. geofence       ``geofence_unconfigured`` (fail closed), ``geofence_violation:<what>``: every leaf that
                   moves the bot or changes the world; its targets must lie inside the bounds (and the bot,
                   for a world-changing leaf). The path is watched while it runs (:mod:`executor.fence`).
 2. registry       ``unknown_verb``; lifecycle ``capability_revoked`` / ``capability_retired``
 3. args schema    ``invalid_args``
 4. explicit args  ``derived_args_not_allowed_live``, ``sentinel_args`` (Option A)
 5. permissions    ``permission_denied:<permission>``; a server command (``spec.command_of``) also needs
                   Permission.COMMAND and its name on ``allowed_commands``: ``permission_denied:command``
 6. guard          ``guard_failed:<reason>``
 7. shadow mode    admitted without dispatch, recorded as a shadow step
 8. rate limiter   ``rate_limited``
 9. feasibility    ``unsupported_body``, ``rig_g_blocked:<fact>``
10. double dispatch  same idempotency key in flight: refused; done within the window: collapsed
11. commit         journal step row, golden-run dispatch, TTFA timer, shadow canaries

Stages 1-6 are the admission policy (:data:`ADMISSION_STAGES`). A command that a running leaf dispatches
itself (CraftScript's ``run_script`` / ``call_function``) passes those same stages through
:meth:`Pipeline.admit_nested`; it is part of the enclosing leaf's step, so 7-11 do not apply to it.

After dispatch (:meth:`Pipeline.finished`): body ``preempted`` becomes
``safety_preempted`` (transient backoff), ``nav_busy`` becomes
``navigating_in_progress`` (no retry: the supervisor waits for the walk to end
and dispatches again); the verdict and effects are journaled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from craftbt.capabilities.context import CapabilityContext, run_guard
from craftbt.capabilities.facts import evaluate, held_fact, instantiate
from craftbt.capabilities.spec import (
    ActionError,
    ActionResult,
    CapabilitySpec,
    GuardResult,
    Permission,
    command_name,
)
from craftbt.core.errors import CraftbtError
from craftbt.executor.journal import NOT_AN_OUTCOME
from craftbt.executor.lifecycle import Stage
from craftbt.executor.normalize import find_sentinels
from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.executor.supervisor import LeafMeta, Supervisor


class Activation(Protocol):
    """What the admission stages read of one leaf activation: a tree leaf's :class:`Supervisor`, or a
    command run inside one (:class:`NestedActivation`: CraftScript's ``run_script`` / ``call_function``)."""

    @property
    def name(self) -> str: ...

    @property
    def meta(self) -> LeafMeta: ...

    @property
    def args_json(self) -> dict[str, Any]: ...

    @property
    def args_sentinels(self) -> list[str]: ...

    @property
    def args_positions(self) -> list[tuple[str, BlockPos]]: ...


@dataclass(slots=True)
class NestedActivation:
    """A command dispatched inside a running leaf: its own args, the enclosing leaf's tree metadata."""

    name: str
    meta: LeafMeta
    args_json: dict[str, Any]
    args_sentinels: list[str] = field(default_factory=list)
    args_positions: list[tuple[str, BlockPos]] = field(default_factory=list)

    @classmethod
    def of(cls, args: BaseModel, name: str, meta: LeafMeta) -> NestedActivation:
        json = args.model_dump(mode="json")
        return cls(name=name, meta=meta, args_json=json, args_sentinels=list(find_sentinels(json)),
                   args_positions=list(iter_positions(json)))


A = TypeVar("A", bound=Activation)
#: an admission stage (policy: what may reach the world) reads only the activation's args and metadata
AdmissionFn = Callable[["Pipeline", CapabilityContext, CapabilitySpec, BaseModel, Activation], GuardResult | None]
#: a run stage (shadow, rate limit, feasibility, double dispatch) works on the tree leaf's supervisor
StageFn = Callable[["Pipeline", CapabilityContext, CapabilitySpec, BaseModel, "Supervisor"], GuardResult | None]

#: post-dispatch body error codes -> (recorded code, retryable)
POST_DISPATCH: dict[str, tuple[str, bool]] = {
    "preempted": ("safety_preempted", True),
    "nav_busy": ("navigating_in_progress", False),
}


def has_position(value: Any) -> bool:
    """Whether :func:`iter_positions` would yield anything (the per-dispatch check builds no paths)."""
    if isinstance(value, dict):
        if all(isinstance(value.get(k), int) for k in ("x", "y", "z")):
            return True
        for item in value.values():
            if has_position(item):
                return True
    elif isinstance(value, list):
        for item in value:
            if has_position(item):
                return True
    return False


def iter_positions(value: Any, path: str = "args") -> Iterator[tuple[str, BlockPos]]:
    """Every ``{x, y, z}`` integer mapping inside args (targets the geofence must contain)."""
    if isinstance(value, dict):
        if all(isinstance(value.get(k), int) for k in ("x", "y", "z")):
            yield path, BlockPos(value["x"], value["y"], value["z"])
        for key, item in value.items():
            yield from iter_positions(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from iter_positions(item, f"{path}[{i}]")


# -- stages ---------------------------------------------------------------------------
def stage_registry(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                   sup: Activation) -> GuardResult | None:
    try:
        known = p.run.registry.get(spec.key) is spec
    except CraftbtError:
        known = False
    if not known:
        return GuardResult.deny("unknown_verb", f"{spec.key} is not in the registry")
    stage = p.run.lifecycle.stage(spec)
    if stage is Stage.REVOKED:
        return GuardResult.deny("capability_revoked", f"{spec.key} is revoked and never runs")
    if stage is Stage.RETIRED:
        return GuardResult.deny("capability_retired", f"{spec.key} is retired")
    if stage is Stage.SHADOW:
        return GuardResult.deny("capability_shadow_only", f"{spec.key} is a shadow version with no active one")
    return None


def stage_schema(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                 sup: Activation) -> GuardResult | None:
    if isinstance(args, spec.args_model):
        return None  # the behaviour built it with this very model (V2 already held)
    try:
        spec.args_model.model_validate(args.model_dump())
    except ValidationError as exc:
        return GuardResult.deny("invalid_args", str(exc.errors()[:3]))
    return None


def stage_explicit(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                   sup: Activation) -> GuardResult | None:
    if sup.meta.args_source == "derived" and not p.run.config.allow_materialize:
        return GuardResult.deny("derived_args_not_allowed_live", "args were derived, not written by the plan author")
    if sup.args_sentinels:
        return GuardResult.deny("sentinel_args", ", ".join(sup.args_sentinels))
    return None


def stage_guard(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                sup: Activation) -> GuardResult | None:
    guard = run_guard(ctx, spec, args)
    return None if guard.ok else guard


def fenced(spec: CapabilitySpec) -> bool:
    """Whether the geofence applies: the leaf changes the world or moves the bot."""
    return spec.world_changing or Permission.MOVEMENT in spec.permissions


def stage_geofence(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                   sup: Activation) -> GuardResult | None:
    if not fenced(spec):
        return None
    fence = p.run.config.geofence
    if fence is None:
        return GuardResult.deny("geofence_unconfigured",
                                "no geofence bounds: leaves that move or change the world do not run")
    if spec.world_changing:
        # a bot outside the fence may still walk back in; it may not change the world out there
        position = ctx.body.position()
        if not fence.contains(position):
            return GuardResult.deny("geofence_violation:bot", f"bot at {tuple(position)} is outside the geofence")
    for path, pos in sup.args_positions:
        if not fence.contains(pos):
            return GuardResult.deny("geofence_violation:target", f"{path}={tuple(pos)} is outside the geofence")
    return None


def stage_permissions(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                      sup: Activation) -> GuardResult | None:
    config = p.run.config
    granted = config.granted
    missing = sorted(perm.value for perm in spec.permissions - granted)
    if missing:
        return GuardResult.deny(f"permission_denied:{missing[0]}",
                                f"profile {config.profile!r} does not grant {', '.join(missing)}")
    line = spec.command(sup.args_json)
    if line is not None:
        refusal = config.command_refusal(line)
        if refusal is not None:
            return GuardResult.deny("permission_denied:command", refusal)
    return None


def stage_shadow(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                 sup: Supervisor) -> GuardResult | None:
    if not p.run.config.shadow:
        return None
    run = p.run
    payload = sup.step_payload(args)
    step_id = run.journal.start_step(
        run.run_id, node=sup.name, capability=spec.name, version=spec.version, args=payload["args"],
        idempotency_key=sup.meta.idempotency_key, attempt=sup.attempt, shadow=True, lifecycle="active",
        tick=run.tick(),
    )
    run.journal.end_step(step_id, tick=run.tick(), ok=True, duration_ms=0.0, ttfa_ms=None, error_code=None,
                         error_detail=None, retryable=None, verdict=None, evidence={"shadow": True},
                         receipt=None, effects=None)
    run.recorder.record_shadow_dispatch(run.run_id, payload)
    run.metrics.shadow_steps += 1
    return GuardResult(ok=True, reason="shadow", detail="shadow mode: observed, not dispatched")


def stage_rate(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
               sup: Supervisor) -> GuardResult | None:
    limit = p.run.config.rate_limit
    window_ticks = max(1, limit.window_ms // MS_PER_TICK)
    now = p.run.tick()
    recent = p.run.dispatch_ticks
    while recent and now - recent[0] >= window_ticks:  # ticks only grow: drop from the left
        recent.popleft()
    if len(recent) >= limit.max_dispatches:
        return GuardResult.deny("rate_limited", f"{len(recent)} dispatches in the last {limit.window_ms} ms")
    return None


def stage_feasibility(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                      sup: Supervisor) -> GuardResult | None:
    if p.run.body_kind not in spec.body_support:
        return GuardResult.deny("unsupported_body", f"{spec.key} does not support the {p.run.body_kind} body")
    if not spec.preconditions:
        return None
    obs = ctx.body.observe()
    for raw in spec.preconditions:
        fact = instantiate(raw, sup.args_json)
        if fact is not None and evaluate(fact, obs) is False:
            need = held_fact(fact)
            missing = {need[0]: max(1, need[1] - obs.count(need[0]))} if need is not None else None
            return GuardResult.deny(f"rig_g_blocked:{fact}", f"precondition {fact} does not hold", missing=missing)
    return None


def stage_double_dispatch(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                          sup: Supervisor) -> GuardResult | None:
    key = sup.meta.idempotency_key
    if not key:
        return None
    run = p.run
    now = run.tick()
    window = run.config.detectors.double_dispatch_window_ms // MS_PER_TICK
    for old in [k for k, t in run.done_keys.items() if now - t > window]:
        del run.done_keys[old]
    if key in run.inflight_keys:
        run.metrics.double_dispatch_collapsed += 1
        return GuardResult.deny("double_dispatch", f"idempotency key {key!r} is already in flight")
    if key in run.done_keys:
        run.metrics.double_dispatch_collapsed += 1
        run.decide("double_dispatch_collapsed", node=sup.name, capability=spec.key,
                   detail={"idempotency_key": key})
        return GuardResult(ok=True, reason="collapsed", detail=f"idempotency key {key!r} already done")
    return None


def stage_resumed(p: Pipeline, ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel,
                  sup: Supervisor) -> GuardResult | None:
    """A step a previous run of the same plan completed (its idempotency key) succeeds without dispatch. First:
    its guard would judge a world the step already changed (the logs it mined are planks now)."""
    key = sup.meta.idempotency_key
    run = p.run
    if not key or key not in run.resumed_keys:
        return None
    run.resumed_keys.discard(key)  # once: a later pass of a loop is another step with another key anyway
    run.decide("resumed_step_skipped", node=sup.name, capability=spec.key, detail={"idempotency_key": key})
    return GuardResult(ok=True, reason="resumed", detail=f"idempotency key {key!r} completed before the resume")


#: The admission policy, the one place it is written: geofence first (fail closed), then the allowlist
#: (registry, args, permissions and server commands), then the leaf's own guard (it may observe the world,
#: which a refused leaf has no business doing). A tree leaf and a command nested in one (CraftScript's
#: ``run_script``) pass the same stages: see :meth:`Pipeline.admit_nested`.
ADMISSION_STAGES: tuple[tuple[str, AdmissionFn], ...] = (
    ("geofence", stage_geofence),
    ("registry", stage_registry),
    ("args_schema", stage_schema),
    ("explicit_args", stage_explicit),
    ("permissions", stage_permissions),
    ("guard", stage_guard),
)

#: Seed 000's guard pipeline order: a resume's completed steps first (they touch nothing), the admission
#: policy, then shadow, rate limiter, feasibility (Rig G), commit.
STAGES: tuple[tuple[str, StageFn], ...] = (
    ("resumed", stage_resumed),
    *ADMISSION_STAGES,
    ("shadow", stage_shadow),
    ("rate_limit", stage_rate),
    ("feasibility", stage_feasibility),
    ("double_dispatch", stage_double_dispatch),
)


class Pipeline:
    """DispatchHooks for one run. ``run.current`` is the supervisor ticking its leaf."""

    def __init__(self, run: RunState, canary: Callable[[CapabilitySpec, BaseModel, Supervisor], None] | None = None
                 ) -> None:
        self.run = run
        self.canary = canary

    # -- DispatchHooks -------------------------------------------------------------------
    def admit(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        sup = self.run.current
        if sup is None:  # a leaf outside any supervisor: the guard still runs
            return run_guard(ctx, spec, args)
        sup.admitted = True
        if args is not sup.admitted_args:
            # static args are one model reused on every activation: derive their JSON view once
            sup.admitted_args = args
            sup.args_json = args.model_dump(mode="json")
            sup.args_sentinels = list(find_sentinels(sup.args_json))
            sup.args_positions = list(iter_positions(sup.args_json)) if has_position(sup.args_json) else []
        verdict = self._verdict(STAGES, ctx, spec, args, sup)
        if verdict is not None:
            return verdict
        self._commit(spec, args, sup)
        return GuardResult.allow()

    def admit_nested(self, ctx: CapabilityContext, spec: CapabilitySpec, args: Any, node: str) -> GuardResult:
        """Admit a command that a running leaf dispatches itself (CraftScript's ``run_script`` and
        ``call_function``): the same :data:`ADMISSION_STAGES` as a tree leaf, against the run's config,
        recorded as a decision under the enclosing leaf. Nothing is committed: the command's effects are
        the enclosing leaf's step."""
        sup = self.run.current
        if sup is None:  # a leaf outside any supervisor: the guard still runs
            return run_guard(ctx, spec, args)
        act = NestedActivation.of(args, f"{sup.name}/{node}", sup.meta)
        verdict = self._verdict(ADMISSION_STAGES, ctx, spec, args, act)
        return GuardResult.allow() if verdict is None else verdict

    def first_action(self, spec: CapabilitySpec, node: str) -> None:
        sup = self.run.current
        if sup is None or sup.dispatch_tick is None:
            return
        sup.first_action_tick = self.run.tick()
        ttfa = (sup.first_action_tick - sup.dispatch_tick) * MS_PER_TICK
        sup.ttfa_ms = float(ttfa)
        self.run.metrics.ttfa_ms.append(float(ttfa))

    def finished(self, spec: CapabilitySpec, args: Any, node: str, result: ActionResult) -> None:
        sup = self.run.current
        if sup is None:
            return
        self._map_post_dispatch(result, sup, spec)
        if sup.step_id is None:
            code = result.error.code if result.error else None
            if not result.ok and not sup.admitted and code:
                # refused by the behaviour before admit (args did not resolve / validate)
                self.run.metrics.refusals += 1
                self.run.decide(code, node=sup.name, capability=spec.key,
                                detail={"stage": "args_schema", "detail": result.error.detail if result.error else ""})
            sup.last_result = result
            return
        self.end_step(sup, result)

    # -- internals ------------------------------------------------------------------------
    def _verdict(self, stages: tuple[tuple[str, Callable[[Pipeline, CapabilityContext, CapabilitySpec, BaseModel, A],
                                                         GuardResult | None]], ...],
                 ctx: CapabilityContext, spec: CapabilitySpec, args: BaseModel, act: A) -> GuardResult | None:
        """The first stage that speaks (a refusal is recorded), or None when every stage let the leaf pass."""
        for stage_name, stage in stages:
            verdict = stage(self, ctx, spec, args, act)
            if verdict is None:
                continue
            if not verdict.ok:
                self._refused(stage_name, verdict, spec, act)
            return verdict
        return None

    def _refused(self, stage_name: str, verdict: GuardResult, spec: CapabilitySpec, act: Activation) -> None:
        self.run.metrics.refusals += 1
        # the blocked payload names the leaf, the leaf the plan wrote and where its args came from
        detail: dict[str, Any] = {"stage": stage_name, "detail": verdict.detail or "", "leaf": spec.name,
                                  "original_leaf": act.meta.original_leaf, "args_source": act.meta.args_source}
        if verdict.missing:
            detail["missing"] = dict(verdict.missing)  # what the refusal lacked, as data (the router's subgoal)
        line = spec.command(act.args_json)
        if line is not None:
            detail["command"] = command_name(line)  # the refusal names the command it kept from the server
        self.run.decide(verdict.reason or "refused", node=act.name, capability=spec.key, detail=detail)

    def _commit(self, spec: CapabilitySpec, args: BaseModel, sup: Supervisor) -> None:
        run = self.run
        tick = run.tick()
        # I1, checked where it matters: no more dispatches in flight than streams (the supervisor's stream
        # acquisition should make this impossible; the counter is how a regression shows)
        in_flight = [s.name for s in run.in_flight if s is not sup]
        run.in_flight.add(sup)
        if len(in_flight) >= run.config.streams:
            run.metrics.i1_violations += 1
            run.decide("i1_violation", node=sup.name, capability=spec.key,
                       detail={"in_flight": sorted(in_flight), "streams": run.config.streams})
        payload = sup.step_payload(args)
        run.step_index += 1
        payload["index"] = run.step_index
        sup.step_index = run.step_index
        sup.step_id = run.journal.start_step(
            run.run_id, node=sup.name, capability=spec.name, version=spec.version, args=payload["args"],
            idempotency_key=sup.meta.idempotency_key, attempt=sup.attempt, shadow=False, lifecycle="active",
            tick=tick,
        )
        run.recorder.record_dispatch(run.run_id, payload)
        run.dispatch_ticks.append(tick)
        sup.dispatch_tick = tick
        sup.first_action_tick = None
        sup.ttfa_ms = None
        sup.ttfa_flagged = False
        sup.timeout_ms = sup.leaf.timeout_ms  # this dispatch's own: it may scale with the args
        sup.deadline_tick = tick + max(1, sup.timeout_ms // MS_PER_TICK)  # I2
        if sup.meta.idempotency_key:
            run.inflight_keys[sup.meta.idempotency_key] = tick
        run.metrics.dispatches += 1
        if self.canary is not None:
            self.canary(spec, args, sup)

    def _map_post_dispatch(self, result: ActionResult, sup: Supervisor, spec: CapabilitySpec) -> None:
        if result.error is None:
            return
        mapped = POST_DISPATCH.get(result.error.code)
        if mapped is None:
            return
        code, retryable = mapped
        result.error = ActionError(code=code, detail=result.error.detail, retryable=retryable,
                                   missing=result.error.missing)
        self.run.decide(code, node=sup.name, capability=spec.key, detail={"detail": result.error.detail})

    def end_step(self, sup: Supervisor, result: ActionResult) -> None:
        """Close the journal step for the current dispatch (also used when a detector aborts it)."""
        run = self.run
        if sup.step_id is None:
            return
        tick = run.tick()
        start = sup.dispatch_tick if sup.dispatch_tick is not None else tick
        duration = float((tick - start) * MS_PER_TICK)
        verification = result.verification
        verdict = verification.verdict.value if verification else None
        run.journal.end_step(
            sup.step_id, tick=tick, ok=result.ok, duration_ms=duration, ttfa_ms=sup.ttfa_ms,
            error_code=result.error.code if result.error else None,
            error_detail=result.error.detail if result.error else None,
            retryable=result.error.retryable if result.error else None,
            verdict=verdict, evidence=verification.evidence if verification else None,
            receipt=result.receipt.model_dump(mode="json") if result.receipt else None,
            effects=result.observables,
        )
        run.recorder.record_step_result(run.run_id, sup.step_index, {
            "ok": result.ok, "verdict": verdict, "error": result.error.code if result.error else None,
            "duration_ms": duration,
        })
        if verdict is not None:
            run.metrics.verdicts[verdict] = run.metrics.verdicts.get(verdict, 0) + 1
            if verdict != "verified":
                run.decide(f"verification_{verdict}", node=sup.name, capability=sup.spec.key,
                           detail={"evidence": verification.evidence if verification else {}})
        if result.ok:
            run.metrics.successes += 1
        elif result.error is not None and result.error.code in NOT_AN_OUTCOME:
            pass
        else:
            run.metrics.failures += 1
            if result.error and result.error.code == "timeout":
                run.metrics.timeouts += 1
        key = sup.meta.idempotency_key
        if key:
            run.inflight_keys.pop(key, None)
            if result.ok:
                run.done_keys[key] = tick
        sup.step_id = None
        sup.last_result = result
        run.in_flight.discard(sup)
