"""One long-lived bot behind the service: a body, the registry, an executor and its journal, on one thread.

Every touch of the body happens on the bot's worker thread: runs tick there, and the calls other
threads make (introspection, a status refresh) are queued to it and run between two ticks. The
executor's journal is a SQLite connection that must stay on the thread that opened it, which is
another reason for one thread. HTTP handlers read the status from a snapshot the worker keeps
fresh, and the journal through their own connections.

One run at a time: :meth:`Bot.submit` refuses a second one with :class:`BusyError`. The seed's
exception, safety preemption, happens inside the executor (a fast-path capability interrupts the
goal tree and the tree resumes), so it needs nothing here.
"""

from __future__ import annotations

import concurrent.futures
import queue
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import py_trees
from pydantic import BaseModel, Field, model_validator

from craftbt.bot.bot import Bot as Runner
from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError
from craftbt.craftscript.runner import outcome_json
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.failures import Failure
from craftbt.executor.journal import Journal
from craftbt.executor.state import RunState
from craftbt.executor.watch import RunWatcher, attach
from craftbt.router.router import GoalRun, RoutingDecision
from craftbt.router.thoughts import ThoughtDecision, ThoughtProcessor
from craftbt.serve.compile import compile_script, compile_tree
from craftbt.serve.events import EventHub, EventType
from craftbt.serve.snapshot import TreeTracker
from craftbt.trees import model as m
from craftbt.trees.treeview import jsonable
from craftbt.world.body import Body

if TYPE_CHECKING:
    from craftbt.autonomy.loop import LiveLoop

T = TypeVar("T")

#: decisions the viewer and the seed call a safety emergency
SAFETY_REASONS = frozenset({"safety_preempt", "preemption_deferred", "preemption_resumed"})
#: how often (ticks) a running tree refreshes the status snapshot and checks for a botEvent
OBSERVE_EVERY = 5
#: an idle worker refreshes the snapshot this often (s): a real server's world moves on its own
IDLE_REFRESH_S = 1.0


class BusyError(Exception):
    """A run is already active (one run at a time per bot)."""

    def __init__(self, active: dict[str, Any]) -> None:
        super().__init__("a run is already active")
        self.active = active


class CompileError(Exception):
    """The tree or script did not compile; nothing was started."""

    def __init__(self, problems: list[dict[str, Any]]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


class JobKind(StrEnum):
    TREE = "tree"
    GOAL = "goal"
    SCRIPT = "script"
    CAPABILITY = "capability"


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"


class ExecuteRequest(BaseModel):
    """What ``POST /api/cognitive/execute`` takes: exactly one of a tree, a goal or a CraftScript text."""

    tree: str | None = Field(default=None, description="A tree in YAML or JSON text (library subtrees may be used)")
    goal: str | None = Field(default=None, description='A goal, e.g. "obtain iron_pickaxe"; planned, then run')
    script: str | None = Field(default=None, description="A CraftScript program")
    planner: str = Field(default="auto", description="With goal: auto | solver | htn | goap | llm")
    max_ticks: int | None = Field(default=None, ge=1, le=10_000_000, description="Game-tick budget of this run")

    @model_validator(mode="after")
    def _exactly_one(self) -> ExecuteRequest:
        given = [k for k in ("tree", "goal", "script") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of tree, goal, script (got {', '.join(given) or 'none'})")
        return self


@dataclass
class Job:
    id: str
    kind: JobKind
    label: str
    payload: Any
    max_ticks: int | None = None
    state: JobState = JobState.QUEUED
    created_at: float = field(default_factory=time.time)
    started_at: float | None = None
    ended_at: float | None = None
    result: dict[str, Any] | None = None
    done: threading.Event = field(default_factory=threading.Event)
    cancel_reason: str | None = None

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "label": self.label, "state": self.state.value,
                "created_at": self.created_at, "started_at": self.started_at, "ended_at": self.ended_at,
                "status": (self.result or {}).get("status"), "cancel_requested": self.cancel_reason is not None}


@dataclass
class _Call:
    fn: Callable[[], Any]
    future: concurrent.futures.Future[Any]


@dataclass
class ViewerControl:
    """``/api/viewer/control``: pause, single-step and pace the running tree for debugging."""

    paused: bool = False
    steps: int = 0
    pace_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"paused": self.paused, "pending_steps": self.steps, "pace_ms": self.pace_ms}


class Bot:
    def __init__(
        self,
        body: Body,
        *,
        registry: Registry,
        home: Path,
        config: ExecutorConfig,
        body_kind: str = "sim",
        hub: EventHub | None = None,
        scenario: str | None = None,
        seed: int = 0,
        pace_ms: float = 0.0,
        live_days: float | None = None,
        watchers: list[RunWatcher] | None = None,
    ) -> None:
        self.body = body
        #: followers of every run (a Groot2 publisher with ``craftbt serve --groot2``), attached to the executor
        self.watchers = list(watchers or [])
        self.registry = registry
        self.home = home
        self.config = config
        self.body_kind = body_kind
        self.hub = hub or EventHub()
        self.scenario = scenario
        self.seed = seed
        self.control = ViewerControl(pace_ms=pace_ms)
        #: with ``live_days`` the worker runs the autonomy loop (``craftbt serve --live DAYS``) instead of waiting for
        #: runs; accepted suggestions go into the loop's inbox, and the filter checks the loop's geofence
        self.live_days = live_days
        self.live: LiveLoop | None = None
        self.inbox: queue.Queue[str | ThoughtDecision] = queue.Queue()
        self.thoughts = ThoughtProcessor(bounds=config.geofence) if live_days else ThoughtProcessor()
        #: accepted suggestions not yet acted on: the autonomy loop's inbox when no loop runs here
        self.suggestions: deque[ThoughtDecision] = deque(maxlen=100)
        self.started_at = time.time()
        self.snapshot: dict[str, Any] = {}
        self.jobs: dict[str, Job] = {}
        self._active: Job | None = None
        self._last: Job | None = None
        self._lock = threading.Lock()
        self._queue: queue.Queue[Job | _Call | None] = queue.Queue()
        #: the bot proper (executor, journal, the goal loop), made on the worker thread: SQLite stays on it
        self.runner: Runner | None = None
        self._tracker: TreeTracker | None = None
        self._seen_decision: Failure | None = None
        #: what a viewer joining mid-run needs: the tree, every node's status, the current leaf, the blackboard
        self._view: dict[str, Any] = {}
        self._thread = threading.Thread(target=self._work, name="craftbt-bot", daemon=True)
        self._stopping = False
        #: the run :meth:`stop` cancelled and saw closed ``cancelled`` (the CLI names it on its way out)
        self.stopped_run: str | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()
        self.call(self._refresh, timeout=60)

    def stop(self, timeout: float = 10.0) -> None:
        """Cancel the active run, wait (at most ``timeout`` s) for it to close its journal row ``cancelled`` with its
        open step, then stop the worker. :attr:`stopped_run` then names the run the shutdown cancelled."""
        self._stopping = True
        active = self._active
        if active is not None:
            self.cancel(active.id, reason="server_shutdown")
            # the worker passes the cancel to the executor at the next tick; the run closes before the process exits
            if active.done.wait(timeout):
                result = active.result or {}
                if result.get("status") == "cancelled":
                    self.stopped_run = str(result.get("last_run_id") or result.get("run_id") or active.id)
            else:
                print(f"craftbt serve: run {active.id} did not close within {timeout:g} s; the next start records "
                      "it abandoned", file=sys.stderr, flush=True)
        self._queue.put(None)
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # -- calls onto the worker thread --------------------------------------------------------
    def submit_call(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        if self._stopping or not self.alive:
            future.set_exception(RuntimeError("the bot is stopping"))
            return future
        self._queue.put(_Call(fn, future))
        return future

    def call(self, fn: Callable[[], T], timeout: float = 30.0) -> T:
        """Run ``fn`` on the worker thread (between two ticks when a run is active) and return its result."""
        return self.submit_call(fn).result(timeout)

    # -- runs -------------------------------------------------------------------------------
    def submit(self, request: ExecuteRequest) -> Job:
        """Check the request, then queue it: raises :class:`CompileError` or :class:`BusyError`."""
        if request.tree is not None:
            checked = compile_tree(request.tree, self.registry)
            if not checked.ok or checked.definition is None:
                raise CompileError([p.to_dict() for p in checked.problems])
            return self._enqueue(JobKind.TREE, checked.definition.tree, checked, request.max_ticks)
        if request.script is not None:
            program, errors = compile_script(request.script, self.body.name, self.home)
            if errors or program is None:
                raise CompileError(errors)
            return self._enqueue(JobKind.SCRIPT, "craftscript", (program, request.script), request.max_ticks)
        assert request.goal is not None
        return self._enqueue(JobKind.GOAL, request.goal, (request.goal, request.planner), request.max_ticks)

    def submit_capability(self, ref: str, args: dict[str, Any], max_ticks: int | None = None) -> Job:
        """One capability as a one-leaf tree: it takes the full pipeline (guards, geofence, journal)."""
        spec = self.registry.get(ref)
        name = "call_" + "".join(c if c.isalnum() else "_" for c in spec.name.lower())
        definition = m.TreeDefinition(tree=name, root=m.LeafNode(capability=spec.key, args=args),
                                      source=f"serve:capability:{spec.key}")
        checked = compile_tree(definition, self.registry)
        if not checked.ok:
            raise CompileError([p.to_dict() for p in checked.problems])
        return self._enqueue(JobKind.CAPABILITY, spec.key, checked, max_ticks)

    def _enqueue(self, kind: JobKind, label: str, payload: Any, max_ticks: int | None) -> Job:
        with self._lock:
            if self._stopping:
                raise BusyError({"state": "stopping"})
            if self.living:
                raise BusyError({"state": "living", "detail": "the autonomy loop drives this bot: send suggestions "
                                                              "to /api/cognitive/signals"})
            if self._active is not None:
                raise BusyError(self._active.summary())
            job = Job(id="run-" + uuid.uuid4().hex[:12], kind=kind, label=label, payload=payload,
                      max_ticks=max_ticks)
            self._active = job
            self.jobs[job.id] = job
        self._queue.put(job)
        return job

    def cancel(self, job_id: str, reason: str = "cancelled_by_client") -> bool:
        """Ask the active run to stop; False when ``job_id`` is not the active run."""
        with self._lock:
            job = self._active
            if job is None or job.id != job_id:
                return False
            # the worker passes it to the executor between two ticks (see _on_tick): no cross-thread call
            job.cancel_reason = reason
        return True

    @property
    def active(self) -> Job | None:
        return self._active

    # -- the worker -------------------------------------------------------------------------
    def _work(self) -> None:
        # Created here: the journal's SQLite connection belongs to this thread.
        self.runner = Runner(self.body, registry=self.registry, config=self.config, home=self.home,
                             body_kind=self.body_kind, seed=self.seed, scenario=self.scenario)
        if self.watchers:
            attach(self.runner.executor, *self.watchers)
        try:
            if self.live_days:
                self._live()
            while True:
                try:
                    item = self._queue.get(timeout=IDLE_REFRESH_S)
                except queue.Empty:
                    self._safe_refresh()
                    continue
                if item is None:
                    break
                if isinstance(item, _Call):
                    self._run_call(item)
                else:
                    self._run_job(item)
        finally:
            self.runner.close()
            self._drain_calls(RuntimeError("the bot stopped"))

    def _drain_calls(self, error: Exception) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Call):
                item.future.set_exception(error)

    # -- the autonomy loop (serve --live) ----------------------------------------------------------
    @property
    def living(self) -> bool:
        return self.live is not None and not self.live.report.finished and self._live_running

    _live_running = False

    def _live(self) -> None:
        """Run the autonomy loop on this thread; between its cycles, serve queued calls and keep the status fresh."""
        from craftbt.autonomy.loop import LiveLoop

        if self.control.pace_ms > 0:
            clock = getattr(getattr(self.body, "world", None), "clock", None)
            if clock is not None:
                clock.start_pacing()  # the embedded world at Minecraft's pace, as a server would run it
        self.live = LiveLoop(self.body, self.home, seed=self.seed, days=self.live_days or 1.0,
                             world=self.scenario or "starter", body_kind=self.body_kind, registry=self.registry,
                             config=self.config, thoughts=self.inbox, hooks=[self._live_cycle], planner="solver",
                             bot=self.runner)
        self._live_running = True
        self.hub.publish(EventType.EXECUTION_STARTED, {"kind": "live", "days": self.live_days})
        try:
            report = self.live.run()
        except Exception as exc:  # the loop failed: the service stays up and says why
            self.snapshot = {**self.snapshot, "error": f"live loop: {type(exc).__name__}: {exc}"}
            return
        finally:
            self._live_running = False
        self.hub.publish(EventType.EXECUTION_COMPLETE, {"kind": "live", "report": report.as_json()})

    def _live_cycle(self, loop: LiveLoop, _percept: Any) -> None:
        self._safe_refresh()
        self._serve_pending()
        if self._stopping:
            loop.stop("server_shutdown")

    @staticmethod
    def _run_call(call: _Call) -> None:
        if not call.future.set_running_or_notify_cancel():
            return
        try:
            call.future.set_result(call.fn())
        except BaseException as exc:  # handed to the caller, who decides
            call.future.set_exception(exc)

    def _run_job(self, job: Job) -> None:
        runner = self.runner
        assert runner is not None
        job.state = JobState.RUNNING
        job.started_at = time.time()
        self._tracker = None
        self.hub.publish(EventType.EXECUTION_STARTED, {"run_id": job.id, "kind": job.kind.value,
                                                        "label": job.label})
        try:
            if job.cancel_reason is not None:  # cancelled while queued: never started
                job.result = {"run_id": job.id, "status": "cancelled", "ok": False}
            else:
                with runner.configured(**({} if job.max_ticks is None else {"max_ticks": job.max_ticks})), \
                        runner.listening(self._on_tick):
                    job.result = self._execute(runner, job)
        except Exception as exc:  # a bug or a body failure: the run fails, the service stays up
            job.result = {"run_id": job.id, "status": "error", "ok": False,
                          "error": f"{type(exc).__name__}: {exc}"}
        finally:
            job.state = JobState.DONE
            job.ended_at = time.time()
            with self._lock:
                self._active = None
                self._last = job
            self._safe_refresh()
            self.hub.publish(EventType.EXECUTION_COMPLETE, {**job.summary(), "outcome": job.result})
            job.done.set()

    def _execute(self, runner: Runner, job: Job) -> dict[str, Any]:
        if job.kind is JobKind.SCRIPT:
            program, source = job.payload
            from craftbt.craftscript.functions import FunctionStore, store_path

            store = FunctionStore(self.body.name, store_path(self.home))
            try:
                done = runner.run_script(program, text=source, name="serve", functions=store, run_id=job.id)
            finally:
                store.close()
            return {**done.outcome.model_dump(mode="json"), "ok": done.outcome.ok,
                    "script": outcome_json(done.script, done.outcome)}
        if job.kind is JobKind.GOAL:
            return self._goal(runner, job)
        out = runner.run_tree(job.payload.definition, base_dir=job.payload.base_dir, run_id=job.id)
        return {**out.model_dump(mode="json"), "ok": out.ok}

    def _goal(self, runner: Runner, job: Job) -> dict[str, Any]:
        """The goal loop every front door runs (route, run, replan, sit out the night); each routing decision is
        published before its tree runs. The job's id names the first attempt's run."""
        goal, planner = job.payload

        def published(decision: RoutingDecision) -> None:
            self.hub.publish(EventType.PLAN_GENERATED, {
                "run_id": job.id, "goal": goal, "planner": decision.chosen, "method": decision.method,
                "reason": decision.reason, "candidates": jsonable([c.model_dump(mode="json")
                                                                  for c in decision.candidates]), "ok": True})

        try:
            goal_run = runner.run_goal(goal, planner=planner, run_id=job.id, on_decision=published)
        except CraftbtError as err:  # no planner reaches the goal from here
            self.hub.publish(EventType.PLAN_GENERATED, {"run_id": job.id, "goal": goal, "ok": False,
                                                         "reason": err.problems[0].message})
            return {"run_id": job.id, "status": "no_plan", "ok": False, "reason": err.problems[0].message}
        last = goal_run.outcomes[-1]
        return {**last.model_dump(mode="json"), "run_id": job.id, "ok": goal_run.ok,
                "last_run_id": last.run_id, "goal": goal_summary(goal_run)}

    # -- per tick ---------------------------------------------------------------------------
    def _on_tick(self, executor: Executor, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        tracker = self._tracker
        if tracker is None or tracker.root is not root:
            tracker = self._tracker = TreeTracker(root)
            tree = {"run_id": run.run_id, **tracker.structure()}
            self._view = {"run_id": run.run_id, "tree": tree, "statuses": {}, "current": None, "blackboard": {}}
            self.hub.publish(EventType.TREE, tree)
        tick = run.tick() - run.start_tick
        data: dict[str, Any] = {"run_id": run.run_id, "tick": tick, "changes": tracker.changes()}
        # the running leaf is the tree's tip; between two leaves, the supervisor's last one
        tip = root.tip()
        current = tip if isinstance(tip, CapabilityBehaviour) else (
            run.current.leaf if run.current is not None else None)
        if isinstance(current, CapabilityBehaviour):
            data["current"] = tracker.leaf_detail(current)
        board = tracker.blackboard_if_changed()
        if board is not None:
            data["blackboard"] = board
        # a new dict each tick: readers on other threads never see one being changed
        view = self._view
        self._view = {**view, "tick": tick, "statuses": {**view.get("statuses", {}), **data["changes"]},
                      "current": data.get("current", view.get("current")),
                      "blackboard": board if board is not None else view.get("blackboard")}
        self.hub.publish(EventType.TICK, data)
        self._publish_decisions(run)
        if tick % OBSERVE_EVERY == 0:
            self._safe_refresh()
        self._between_ticks()
        active = self._active
        if active is not None and active.cancel_reason is not None:
            executor.cancel(active.cancel_reason)  # the loop stops right after this callback

    def _publish_decisions(self, run: RunState) -> None:
        decisions = run.recent_decisions
        fresh: list[Failure] = []
        for entry in reversed(decisions):
            if entry is self._seen_decision:
                break
            fresh.append(entry)
        if decisions:
            self._seen_decision = decisions[-1]
        for entry in reversed(fresh):
            payload = {"run_id": run.run_id, **entry.model_dump(mode="json")}
            self.hub.publish(EventType.DECISION, payload)
            if entry.reason in SAFETY_REASONS:
                self.hub.publish(EventType.SAFETY_EMERGENCY, payload)

    def _between_ticks(self) -> None:
        """Serve queued calls; honour pause, single steps and pacing (all without blocking calls)."""
        control = self.control
        deadline = time.monotonic() + control.pace_ms / 1000
        while True:
            active = self._active
            if active is not None and active.cancel_reason is not None:
                return  # the executor stops at this tick's end
            if control.paused and control.steps <= 0 and not self._stopping:
                wait: float | None = 0.05
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if control.paused:
                        control.steps -= 1
                    self._serve_pending()
                    return
                wait = remaining
            try:
                item = self._queue.get(timeout=wait)
            except queue.Empty:
                continue
            if not self._dispatch_between(item):
                return

    def _serve_pending(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if not self._dispatch_between(item):
                return

    def _dispatch_between(self, item: Job | _Call | None) -> bool:
        """Run a call; a stop request (None) goes back for the main loop. False: stop serving calls."""
        if isinstance(item, _Call):
            self._run_call(item)
            return True
        self._queue.put(item)  # None: no Job can arrive while one is active
        self._stopping = True
        return False

    # -- status ------------------------------------------------------------------------------
    def _safe_refresh(self) -> None:
        try:
            self._refresh()
        except Exception as exc:  # a disconnected body must not kill the worker
            self.snapshot = {**self.snapshot, "error": f"{type(exc).__name__}: {exc}"}

    def _refresh(self) -> None:
        obs = self.body.observe()
        pos = obs.position
        snap = {
            "name": self.body.name,
            "position": {"x": round(pos.x, 2), "y": round(pos.y, 2), "z": round(pos.z, 2)},
            "health": obs.health,
            "food": obs.food,
            "held_item": obs.held_item,
            "inventory": dict(sorted(obs.inventory.items())),
            "time_of_day": obs.time_of_day,
            "tick": obs.tick,
        }
        previous = {k: v for k, v in self.snapshot.items() if k not in ("tick", "time_of_day", "error")}
        self.snapshot = snap
        changed = {k: v for k, v in snap.items() if k not in ("tick", "time_of_day") and previous.get(k) != v}
        if changed:
            self.hub.publish(EventType.BOT_EVENT, {"changed": sorted(changed), **snap})

    def view_state(self) -> dict[str, Any]:
        return self._view

    def status(self) -> dict[str, Any]:
        active, last = self._active, self._last
        return {
            "bot": self.snapshot,
            "body": self.body_kind,
            "scenario": self.scenario,
            "activity": "running" if active is not None else "idle",
            "run": active.summary() if active is not None else None,
            "last_run": last.summary() if last is not None else None,
            "viewer": self.control.as_dict(),
            "events_seq": self.hub.last_seq,
            "uptime_s": round(time.time() - self.started_at, 3),
        }

    # -- the journal, read on the caller's thread ---------------------------------------------
    def journal(self) -> Journal:
        """A fresh read connection (a Journal is not shared across threads); close it after use."""
        return Journal(self.home / "journal.sqlite")

    # -- signals -----------------------------------------------------------------------------
    def signal(self, text: str, source: str = "user") -> ThoughtDecision:
        food = self.snapshot.get("food")
        decision = self.thoughts.process(text, source=source, food=food if isinstance(food, int) else None)
        if decision.accepted and self.living:
            self.inbox.put(decision)  # the loop takes it at its next cycle, as it takes a line of stdin
        elif decision.accepted:
            self.suggestions.append(decision)
        self.hub.publish(EventType.SIGNAL, decision.model_dump(mode="json"))
        return decision


def goal_summary(goal_run: GoalRun) -> dict[str, Any]:
    """What a goal job adds to its run's outcome: each attempt, each night, why it stopped, the planner chosen."""
    return {"attempts": [a.model_dump(mode="json") for a in goal_run.attempts],
            "planners": [d.chosen for d in goal_run.decisions],
            "nights": [n.model_dump(mode="json") for n in goal_run.nights], "stopped": goal_run.stopped,
            "runs": [o.run_id for o in goal_run.outcomes], "night_runs": [o.run_id for o in goal_run.night_outcomes],
            "dispatches": sum(o.dispatches for o in goal_run.outcomes),
            "night_dispatches": sum(o.dispatches for o in goal_run.night_outcomes)}
