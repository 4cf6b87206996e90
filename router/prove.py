"""The smoke proof (seed 000, "Sterling->Leaf correlation proof"): planner -> dispatch -> verify, in 4 checkpoints.

:func:`prove` plans a goal through the router, runs the plan on a body through the
executor and reads the journal back, recording:

* **A requested** — the plan request, written before any planner runs;
* **A result** — what the planners answered (ok / blocked / unavailable), timing, steps;
* **B expansion** — the plan became an executor-ready tree: gate passed, tree built,
  the executor plan digest;
* **C dispatch** — steps were dispatched to the body and each got a result;
* **D verification** — every dispatched step has its acceptance verdict, all ``verified``.

``proof_passed`` is true only when all four hold and nothing timed out;
``all_checkpoints_ok`` ignores the timeout. A failed proof is classified as the seed's
F1-F6: F1 no planner available, F2 the goal cannot be planned (early exit, nothing
dispatched), F3 a plan that is malformed (invalid or blocked before the tree starts),
F4 expansion fine but the executor dispatched nothing (shadow), F5 dispatched but not
verified, F6 the time budget ran out. A body that does not answer the planning survey is
F1 too (the seed's "not connected"). :data:`VARIANTS` are the seed's smoke variants,
each producing its failure on purpose.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import Verdict, VerificationResult
from craftbt.core.errors import CraftbtError
from craftbt.core.runstatus import RunStatus
from craftbt.executor.executor import Executor
from craftbt.executor.journal import NOT_AN_OUTCOME
from craftbt.planners.base import PlanningState, PlanResult
from craftbt.planners.intent import Intent
from craftbt.router.priors import PriorsStore
from craftbt.router.router import Router, run_goal
from craftbt.trees import model as m
from craftbt.world.body import BodyError

SCHEMA = "craftbt_proof_v1"
#: seed 000: the smoke proof gives up after 45 s (game time here: the same on every body)
DEFAULT_TIMEOUT_S = 45
DEFAULT_GOAL = "obtain stick"


class Failure(StrEnum):
    F1 = "F1"  # no planner available ("not connected")
    F2 = "F2"  # the goal cannot be planned ("digest unknown"): blocked, nothing dispatched, early exit
    F3 = "F3"  # the plan is malformed: invalid, or blocked before the tree starts
    F4 = "F4"  # expansion ok, executor dispatched nothing (disabled / shadow)
    F5 = "F5"  # dispatched, verification failed
    F6 = "F6"  # the time budget ran out


class Variant(StrEnum):
    OK = "ok"
    UNKNOWN_GOAL = "unknown_goal"  # F2
    PLANNER_OFFLINE = "planner_offline"  # F1
    MALFORMED = "malformed"  # F3
    EXECUTOR_DISABLED = "executor_disabled"  # F4
    VERIFY_FAILS = "verify_fails"  # F5
    SLOW = "slow"  # F6


#: what each variant is expected to prove (None: it passes)
VARIANTS: dict[Variant, Failure | None] = {
    Variant.OK: None,
    Variant.PLANNER_OFFLINE: Failure.F1,
    Variant.UNKNOWN_GOAL: Failure.F2,
    Variant.MALFORMED: Failure.F3,
    Variant.EXECUTOR_DISABLED: Failure.F4,
    Variant.VERIFY_FAILS: Failure.F5,
    Variant.SLOW: Failure.F6,
}
UNKNOWN_GOAL = "obtain unobtainium_block"
SLOW_GOAL = "obtain iron_pickaxe"


class Checkpoint(BaseModel):
    ok: bool = False
    detail: dict[str, Any] = Field(default_factory=dict)


class ProofReport(BaseModel):
    """The 4-checkpoint proof of one planner -> dispatch -> verify run."""

    schema_: str = Field(default=SCHEMA, alias="schema")
    proof_id: str
    variant: Variant
    goal: str
    planner: str
    body: str
    A_requested: Checkpoint = Field(default_factory=Checkpoint)
    A_result: Checkpoint = Field(default_factory=Checkpoint)
    B_expansion: Checkpoint = Field(default_factory=Checkpoint)
    C_dispatch: Checkpoint = Field(default_factory=Checkpoint)
    D_verification: Checkpoint = Field(default_factory=Checkpoint)
    all_checkpoints_ok: bool = False
    timed_out: bool = False
    proof_passed: bool = False
    early_exit: bool = False
    failure: Failure | None = None
    failure_reason: str | None = None
    #: the variant's expected failure (None: it should pass) and whether the proof matched it
    expected_failure: Failure | None = None
    as_expected: bool = False
    run_id: str | None = None
    task_id: str | None = None
    artifact_path: str | None = None
    proof_path: str | None = None

    model_config = {"populate_by_name": True}


class _StubPlanner:
    """A planner for the failure variants: unavailable (F1) or emitting a malformed tree (F3)."""

    def __init__(self, name: str, *, available: bool) -> None:
        self._name = name
        self._available = available

    @property
    def name(self) -> str:
        return self._name

    def available(self) -> bool:
        return self._available

    def can_handle(self, intent: Intent) -> bool:
        return True

    def emittable_verbs(self) -> frozenset[str]:
        return frozenset({"smoke_unknown_leaf"})

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        tree = m.TreeDefinition(tree="smoke_malformed", root=m.SequenceNode(children=[
            m.LeafNode(capability="smoke_unknown_leaf", args={"steps": "malformed"})]))
        return PlanResult(planner=self._name, tree=tree, estimated_cost=1.0, confidence=1.0,
                          explanation="a plan whose step names no capability (smoke variant)", steps=1)


def _contradict(pre: Any, post: Any, args: Any, result: Any) -> VerificationResult:
    return VerificationResult(verdict=Verdict.CONTRADICTED, evidence={"smoke_variant": "verify_fails"})


def sabotage_verification(registry: Registry) -> Registry:
    """A copy of ``registry`` whose every acceptance check says ``contradicted`` (the F5 variant)."""
    out = Registry()
    for spec in registry.list():
        out.register(replace(spec, acceptance=_contradict))
    for check in registry.checks():
        out.register_check(check)
    return out


ExecutorFactory = Callable[..., Executor]


def prove(
    make_executor: ExecutorFactory,
    registry: Registry,
    *,
    variant: Variant = Variant.OK,
    goal: str | None = None,
    planner: str = "auto",
    timeout_s: int = DEFAULT_TIMEOUT_S,
    body_kind: str = "sim",
    home: Path | None = None,
    seed: int = 0,
) -> ProofReport:
    """Run the smoke proof. ``make_executor(registry=..., shadow=..., max_ticks=...)`` builds the executor."""
    goal = goal or {Variant.UNKNOWN_GOAL: UNKNOWN_GOAL, Variant.SLOW: SLOW_GOAL}.get(variant, DEFAULT_GOAL)
    if variant is Variant.VERIFY_FAILS:
        registry = sabotage_verification(registry)
    if variant in (Variant.PLANNER_OFFLINE, Variant.MALFORMED):
        planner = "smoke_stub"
    report = ProofReport(proof_id=f"proof-{uuid.uuid4().hex[:12]}", variant=variant, goal=goal, planner=planner,
                         body=body_kind, expected_failure=VARIANTS[variant])
    executor = make_executor(registry=registry, shadow=variant is Variant.EXECUTOR_DISABLED,
                             max_ticks=max(1, timeout_s) * 20)
    priors = PriorsStore(executor.home / "priors.sqlite")
    router = Router(registry, priors, seed=seed)
    if planner == "smoke_stub":
        router.planners["smoke_stub"] = _StubPlanner("smoke_stub", available=variant is not Variant.PLANNER_OFFLINE)
    try:
        intent = Intent.from_text(goal)
    except CraftbtError as err:
        return _finish(report, Failure.F2, err.problems[0].message, early=True, home=home or executor.home)
    report.task_id = intent.id
    # A requested: recorded before any planner runs
    report.A_requested = Checkpoint(ok=True, detail={"goal": goal, "planner": planner, "intent_id": intent.id,
                                                     "at": time.time()})
    if not _planner_ready(router, planner):
        report.A_result = Checkpoint(ok=False, detail={"status": "unavailable", "planner": planner})
        return _finish(report, Failure.F1, f"planner {planner!r} is not available", early=True,
                       home=home or executor.home)
    started = time.perf_counter()
    try:
        # the one goal loop, for one attempt: the proof judges a plan as it was first routed and run
        goal_run = run_goal(intent, executor, planner=planner, seed=seed, max_replans=0, shelter_at_night=False,
                            router=router, task_id=intent.id)
    except BodyError as err:
        # the body did not answer the survey: as the seed's "not connected", nothing was planned
        report.A_result = Checkpoint(ok=False, detail={"status": "unavailable", "body_error": err.code.value,
                                                       "detail": err.detail})
        return _finish(report, Failure.F1, f"the body did not answer: {err.code.value}: {err.detail}",
                       early=True, home=home or executor.home)
    except CraftbtError as err:
        why = err.problems[0].message
        report.A_result = Checkpoint(ok=False, detail={"status": "blocked", "reason": why,
                                                       "planning_ms": (time.perf_counter() - started) * 1000})
        return _finish(report, Failure.F3 if "invalid:" in why else Failure.F2, why, early=True,
                       home=home or executor.home)
    decision, outcome = goal_run.decisions[0], goal_run.outcomes[0]
    report.A_result = Checkpoint(ok=True, detail={
        "status": "ok", "chosen": decision.chosen, "method": decision.method, "steps": decision.plan.steps,
        "planning_ms": decision.routing_ms, "reason": decision.reason})
    report.run_id = outcome.run_id
    report.artifact_path = outcome.report_path
    report.timed_out = outcome.status == "budget_exhausted"
    digests = outcome.digests
    blocked = outcome.status is RunStatus.BLOCKED
    report.B_expansion = Checkpoint(ok=not blocked and bool(digests.get("executor_plan_digest")), detail={
        "tree": decision.plan.tree.tree, "executor_plan_digest": digests.get("executor_plan_digest"),
        "expansion_digest": digests.get("expansion_digest"), "gate": outcome.gate.model_dump(mode="json")
        if outcome.gate else None, "status": outcome.status})
    steps = [s for s in executor.journal.steps(outcome.run_id)
             if not s.shadow and s.error_code not in NOT_AN_OUTCOME]
    closed = [s for s in steps if s.ok is not None]
    report.C_dispatch = Checkpoint(ok=bool(steps) and len(closed) == len(steps), detail={
        "count": len(steps), "with_result": len(closed), "shadow_steps": outcome.metrics.get("shadow_steps", 0),
        "dispatched_steps": [{"node": s.node, "capability": f"{s.capability}@{s.version}",
                              "ok": bool(s.ok), "error": s.error_code} for s in steps]})
    verdicts: dict[str, int] = {}
    for s in steps:
        verdict = s.verdict.value if s.verdict is not None else "none"
        verdicts[verdict] = verdicts.get(verdict, 0) + 1
    report.D_verification = Checkpoint(ok=bool(steps) and verdicts == {"verified": len(steps)},
                                       detail={"verdicts": verdicts, "run_status": outcome.status})
    if blocked:
        return _finish(report, Failure.F3, f"blocked before the tree started: {outcome.failures[-1].reason}"
                       if outcome.failures else "blocked before the tree started", home=home or executor.home)
    if report.timed_out:
        return _finish(report, Failure.F6, f"the {timeout_s} s budget ran out", home=home or executor.home)
    if not report.C_dispatch.ok:
        return _finish(report, Failure.F4, "the plan was expanded but nothing was dispatched",
                       home=home or executor.home)
    if not report.D_verification.ok:
        return _finish(report, Failure.F5, f"verdicts {verdicts}", home=home or executor.home)
    return _finish(report, None, None, home=home or executor.home)


def _planner_ready(router: Router, planner: str) -> bool:
    if planner in (None, "auto"):
        return any(p.available() for p in router.planners.values())
    found = router.planners.get(planner)
    return found is None or found.available()  # an unknown name is the router's error to report


def _finish(report: ProofReport, failure: Failure | None, reason: str | None, *, early: bool = False,
            home: Path) -> ProofReport:
    from craftbt.executor.recorder import atomic_write_text

    report.early_exit = early
    report.failure = failure
    report.failure_reason = reason
    report.all_checkpoints_ok = all(c.ok for c in (report.A_requested, report.A_result, report.B_expansion,
                                                   report.C_dispatch, report.D_verification))
    report.proof_passed = report.all_checkpoints_ok and not report.timed_out
    report.as_expected = report.failure == report.expected_failure and (
        report.proof_passed == (report.expected_failure is None))
    path = home / "proofs" / f"{report.proof_id}.json"
    report.proof_path = str(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, report.model_dump_json(indent=2, by_alias=True))
    return report
