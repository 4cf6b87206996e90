"""Running a script: as an executor run (``craftbt script run``), or inline on a bare body (tests, bench).

:func:`run_script` runs a script on an executor in place of a tree: it opens the journal run,
ticks a :class:`ScriptBehaviour` root (the interpreter) one game tick at a time through the executor's
own loop (:meth:`Executor.drive`: safety preemption, detectors, group commit, ``max_ticks``), attaches a
supervisor to each command's capability leaf (pipeline, journal steps, SLA rows), and closes the run. A
script run is a run: ``craftbt runs`` and ``craftbt show`` list it like any other.
"""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

import py_trees
from py_trees.common import Status

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.registry import Registry
from craftbt.core.runstatus import RunStatus
from craftbt.craftscript import ast as a
from craftbt.craftscript.dispatch import Dispatcher
from craftbt.craftscript.functions import store_path
from craftbt.craftscript.interp import FunctionSource, Interpreter, Limits, ScriptOutcome, Value
from craftbt.craftscript.macros import core_macros
from craftbt.craftscript.records import ScriptRuns
from craftbt.executor.digests import digest
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.pipeline import Pipeline
from craftbt.executor.state import RunState
from craftbt.executor.supervisor import LeafMeta, Supervisor
from craftbt.world.body import ActionHandle, ActionStatus, Body


class ScriptBehaviour(py_trees.behaviour.Behaviour):  # type: ignore[misc]
    """A tree root that is a running script: each tick resumes the interpreter until it waits again."""

    def __init__(self, name: str, gen: Generator[ActionHandle | None, ActionHandle | None, ScriptOutcome]) -> None:
        super().__init__(name=name)
        self._gen = gen
        self._handle: ActionHandle | None = None
        self._primed = False
        self.outcome: ScriptOutcome | None = None

    def update(self) -> Status:
        if self.outcome is not None:
            return Status.SUCCESS if self.outcome.ok else Status.FAILURE
        handle = self._handle
        if handle is not None and handle.status() is ActionStatus.RUNNING:
            return Status.RUNNING
        try:
            while True:
                if self._primed:
                    yielded = self._gen.send(handle)
                else:
                    self._primed = True
                    yielded = next(self._gen)
                self._handle = yielded
                if yielded is None or yielded.status() is ActionStatus.RUNNING:
                    return Status.RUNNING
                handle = yielded
        except StopIteration as stop:
            self.outcome = stop.value
        assert self.outcome is not None
        return Status.SUCCESS if self.outcome.ok else Status.FAILURE

    def terminate(self, new_status: Status) -> None:
        if new_status == Status.INVALID and self.outcome is None:
            self._gen.close()


def run_script(
    executor: Executor,
    program: a.Program,
    *,
    source: str,
    name: str,
    functions: FunctionSource | None = None,
    waypoints: dict[str, tuple[int, int, int]] | None = None,
    limits: Limits | None = None,
    seed: int | None = None,
    scenario: str | None = None,
    run_id: str | None = None,
) -> tuple[RunOutcome, ScriptOutcome]:
    """Run ``program`` on ``executor`` as one journalled run; its result is also kept for ``craftscript_logs``/
    ``_trace``. The executor's own loop ticks it (:meth:`Executor.drive`): safety preemption, detectors, tick
    listeners, ``max_ticks`` and the closing of the run on every way out are the same as a tree's."""
    wall_start = time.perf_counter()
    plan_digest = digest({"craftscript": source})
    shadow = executor.config.shadow
    run_id = executor.journal.begin_run(
        run_id=run_id, tree_name=f"craftscript:{name}", tree_source=source, executor_plan_digest=plan_digest,
        plan_id=plan_digest[7:23], body=executor.body_kind, seed=seed, scenario=scenario, shadow=shadow,
        certifiable=not shadow,
    )
    executor.recorder.start_run(run_id, task_id=None, expansion={"tree": f"craftscript:{name}",
                                                                 "executor_plan_digest": plan_digest})
    run = RunState(run_id=run_id, config=executor.config, registry=executor.registry, journal=executor.journal,
                   recorder=executor.recorder, lifecycle=executor.lifecycle, body=executor.body,
                   body_kind=executor.body_kind)
    base = RunOutcome(run_id=run_id, status=RunStatus.RUNNING, tree=f"craftscript:{name}", shadow=shadow,
                      certifiable=not shadow, digests={"executor_plan_digest": plan_digest})
    pipeline = Pipeline(run)
    ctx = CapabilityContext(body=executor.body, registry=executor.registry, hooks=pipeline)

    stem = plan_digest.removeprefix("sha256:")[:16]
    commands = iter(range(1 << 62))

    def supervise(leaf: CapabilityBehaviour) -> Supervisor:
        # a script's step is its command's place in the script's run: the same script, the same keys
        meta = LeafMeta(derived_key=f"{stem}.c{next(commands)}", normalized=leaf.normalized)
        return Supervisor(leaf, run, pipeline, meta, on_escalation=executor.on_escalation)

    interp = Interpreter(program, executor.body, Dispatcher(ctx, supervise), functions=functions,
                         waypoints=waypoints, limits=limits, core_macros=core_macros())
    root = ScriptBehaviour(f"craftscript:{name}", interp.run())
    # the root succeeds exactly when the script's outcome is ok, so the run's status is the script's
    outcome = executor.drive(run, root, ctx, pipeline, base, wall_start)
    # a run stopped before the script ended (budget, cancel, a hung leaf, the body gone) is still a located
    # failure with the logs and block changes until then
    script = root.outcome if root.outcome is not None else interp.stopped(outcome.status)
    records = ScriptRuns(store_path(executor.home))
    try:
        records.save(run_id, name, outcome_json(script, outcome))
    finally:
        records.close()
    return outcome, script


def run_inline(
    program: a.Program,
    body: Body,
    registry: Registry,
    *,
    functions: FunctionSource | None = None,
    waypoints: dict[str, tuple[int, int, int]] | None = None,
    limits: Limits | None = None,
    args: dict[str, Value] | None = None,
    max_ticks: int = 200_000,
) -> ScriptOutcome:
    """Run a program on a body without the executor (guards only); advances the body one tick per wait."""
    ctx = CapabilityContext(body=body, registry=registry)
    interp = Interpreter(program, body, Dispatcher(ctx), functions=functions, waypoints=waypoints, limits=limits,
                         core_macros=core_macros(), args=args)
    return drive(interp.run(), body, max_ticks)


def drive(gen: Generator[ActionHandle | None, ActionHandle | None, ScriptOutcome], body: Body,
          max_ticks: int) -> ScriptOutcome:
    """Run an interpreter generator to the end on a bare body, one ``advance(1)`` per tick waited."""
    start = body.now_ticks()
    try:
        handle = next(gen)
        while True:
            if handle is None:
                body.advance(1)
            else:
                while handle.status() is ActionStatus.RUNNING and body.now_ticks() - start <= max_ticks:
                    body.advance(1)
            if body.now_ticks() - start > max_ticks:
                gen.close()
                raise TimeoutError(f"script still running after {max_ticks} ticks")
            handle = gen.send(handle)
    except StopIteration as stop:
        result: ScriptOutcome = stop.value
        return result


def outcome_json(outcome: ScriptOutcome, run: RunOutcome | None = None) -> dict[str, Any]:
    """``script run --json``'s payload."""
    return {
        "ok": outcome.ok, "status": outcome.status, "ops": outcome.ops, "error": outcome.error,
        "logs": outcome.logs, "steps": outcome.steps, "block_changes": outcome.block_changes,
        "position": outcome.position, "run_id": run.run_id if run is not None else None,
    }
