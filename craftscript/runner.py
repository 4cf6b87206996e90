"""Running a script: as an executor run (``craftbt script run``), or inline on a bare body (tests, bench).

:class:`ScriptExecutor` is the executor with a script in place of a tree: it opens the journal run,
ticks a :class:`ScriptBehaviour` root (the interpreter) one game tick at a time through the executor's
own loop (safety preemption, detectors, group commit, ``max_ticks``), attaches a supervisor to each
command's capability leaf (pipeline, journal steps, SLA rows), and closes the run. A script run is a run:
``craftbt runs`` and ``craftbt show`` list it like any other.
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


class ScriptExecutor(Executor):
    """The executor, running a CraftScript program instead of a tree."""

    def run_script(
        self,
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
        """Run ``program`` as one journalled run; its result is also kept for ``craftscript_logs``/``_trace``."""
        wall_start = time.perf_counter()
        plan_digest = digest({"craftscript": source})
        run_id = self.journal.begin_run(
            run_id=run_id, tree_name=f"craftscript:{name}", tree_source=source, executor_plan_digest=plan_digest,
            plan_id=plan_digest[7:23], body=self.body_kind, seed=seed, scenario=scenario, shadow=self.config.shadow,
            certifiable=not self.config.shadow,
        )
        self.recorder.start_run(run_id, task_id=None, expansion={"tree": f"craftscript:{name}",
                                                                 "executor_plan_digest": plan_digest})
        run = RunState(run_id=run_id, config=self.config, registry=self.registry, journal=self.journal,
                       recorder=self.recorder, lifecycle=self.lifecycle, body=self.body, body_kind=self.body_kind)
        self.run_state = run
        base = RunOutcome(run_id=run_id, status="running", tree=f"craftscript:{name}", shadow=self.config.shadow,
                          certifiable=not self.config.shadow, digests={"executor_plan_digest": plan_digest})
        pipeline = Pipeline(run)
        ctx = CapabilityContext(body=self.body, registry=self.registry, hooks=pipeline)

        stem = plan_digest.removeprefix("sha256:")[:16]
        commands = iter(range(1 << 62))

        def supervise(leaf: CapabilityBehaviour) -> Supervisor:
            # a script's step is its command's place in the script's run: the same script, the same keys
            meta = LeafMeta(derived_key=f"{stem}.c{next(commands)}", normalized=leaf.normalized)
            return Supervisor(leaf, run, pipeline, meta, on_escalation=self.on_escalation)

        interp = Interpreter(program, self.body, Dispatcher(ctx, supervise), functions=functions,
                             waypoints=waypoints, limits=limits, core_macros=core_macros())
        root = ScriptBehaviour(f"craftscript:{name}", interp.run())
        status = self._drive(run, root, ctx, pipeline, base, wall_start)
        if status == "success" or status == "failure":
            status = "success" if root.outcome is not None and root.outcome.ok else "failure"
        # a run stopped before the script ended (budget, cancel, a hung leaf, the body gone) is still a located
        # failure with the logs and block changes until then
        script = root.outcome if root.outcome is not None else interp.stopped(status)
        outcome = self._close(run, base, status, wall_start)
        records = ScriptRuns(store_path(self.home))
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
