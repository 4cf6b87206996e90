"""Runtime canaries (seed 003): a shadow capability version runs beside the active one, observe only.

On every committed dispatch of an active version, each ``shadow`` version of
the same capability runs with the same args on a *fork* of the body (the
simulator's world copied), so it never mutates the real world. Its outcome is
journaled as a step with ``lifecycle='shadow'``; the SLA report and
``promote`` compare those rows with the active version's. A body that cannot
be forked (a real server) records ``canary_unavailable`` once.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import py_trees
from py_trees.common import Status
from pydantic import BaseModel

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import AdmitAll, CapabilityContext
from craftbt.capabilities.spec import CapabilitySpec
from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.world.body import Body

if TYPE_CHECKING:
    from craftbt.executor.supervisor import Supervisor

#: py_trees keys a canary run must not leave behind in the real run's blackboard
_SHARED_KEYS = ("/last_result",)


def fork_body(body: Any) -> Body | None:
    inner = getattr(body, "inner", body)
    fork = getattr(inner, "fork", None)
    if callable(fork):
        forked: Body = fork()
        return forked
    if getattr(inner, "name", "") == "sim" or type(inner).__module__.startswith(("craftbt.world.sim", "tests.")):
        try:
            copied: Body = copy.deepcopy(inner)
        except Exception:  # an uncopyable body is treated like a real server
            return None
        return copied
    return None


class ShadowCanary:
    def __init__(self, run: RunState) -> None:
        self.run = run
        self._unavailable_noted = False

    def __call__(self, spec: CapabilitySpec, args: BaseModel, sup: Supervisor) -> None:
        shadows = self.run.lifecycle.shadows_for(self.run.registry, spec.name)
        for shadow in shadows:
            if shadow.key != spec.key:
                self._observe(shadow, args, sup)

    def _observe(self, shadow: CapabilitySpec, args: BaseModel, sup: Supervisor) -> None:
        run = self.run
        fork = fork_body(run.body)
        if fork is None:
            if not self._unavailable_noted:
                self._unavailable_noted = True
                run.decide("canary_unavailable", node=sup.name, capability=shadow.key,
                           detail={"detail": "the body cannot be forked; shadow versions are not observed"})
            return
        storage = py_trees.blackboard.Blackboard.storage
        saved = {k: storage[k] for k in _SHARED_KEYS if k in storage}
        raw = args.model_dump(mode="json")
        ctx = CapabilityContext(body=fork, registry=run.registry, hooks=AdmitAll())
        try:
            leaf = CapabilityBehaviour(f"canary:{sup.name}", shadow, raw, ctx)
        except Exception as exc:  # the shadow's own args model refuses the active version's args
            self._journal(shadow, sup, raw, ok=False, ticks=0, code="invalid_args", detail=str(exc)[:200])
            return
        start = fork.now_ticks()
        limit = max(1, shadow.timeout_ms // MS_PER_TICK) + 20
        leaf.tick_once()
        while leaf.status == Status.RUNNING and fork.now_ticks() - start < limit:
            fork.advance(1)
            leaf.tick_once()
        if leaf.status == Status.RUNNING:
            leaf.stop(Status.INVALID)
        result = leaf.result
        storage.pop(f"/results/canary:{sup.name}", None)
        storage.update(saved)
        ok = bool(result and result.ok)
        code = result.error.code if result and result.error else None
        verdict = result.verification.verdict.value if result and result.verification else None
        self._journal(shadow, sup, raw, ok=ok, ticks=fork.now_ticks() - start, code=code,
                      detail=result.error.detail if result and result.error else None, verdict=verdict)

    def _journal(self, shadow: CapabilitySpec, sup: Supervisor, raw: dict[str, Any], *, ok: bool, ticks: int,
                 code: str | None, detail: str | None, verdict: str | None = None) -> None:
        run = self.run
        step = run.journal.start_step(
            run.run_id, node=sup.name, capability=shadow.name, version=shadow.version, args=raw,
            idempotency_key=None, attempt=0, shadow=True, lifecycle="shadow", tick=run.tick(),
        )
        run.journal.end_step(step, tick=run.tick(), ok=ok, duration_ms=float(ticks * MS_PER_TICK), ttfa_ms=None,
                             error_code=code, error_detail=detail, retryable=None, verdict=verdict,
                             evidence={"canary": True, "beside": sup.spec.key}, receipt=None, effects=None)
