"""A bot: one body, its executor (journal, lifecycle, golden-run reports) and its home, driven by every front door.

Shaped like mineflayer's ``createBot`` and py_trees' ``BehaviourTree``: make a bot, run a tree, a goal or a
script on it, read its journal, close it::

    import craftbt

    with craftbt.create_bot(world="natural", seed=3) as bot:
        run = bot.run_goal("obtain wooden_pickaxe")
        print(run.ok, [a.status for a in run.attempts])
        print(bot.journal.list_runs(5))

The goal loop itself (route, run, replan, sit out the night, escalate) is the router's one
:func:`~craftbt.router.router.run_goal`; a bot gives it its executor, priors and body, so a goal behaves the same
from every front door. A bot's executor and journal belong to the thread that made it (SQLite).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from craftbt.bot.body import BodyKind, BodySpec, body_spec, make_body
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.craftscript import ast as a
from craftbt.craftscript.interp import FunctionSource, Limits, ScriptOutcome
from craftbt.executor.config import PROFILES, Bounds, ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor, RunOutcome, TickCallback
from craftbt.executor.journal import Journal
from craftbt.planners.intent import Intent
from craftbt.router.priors import PriorsStore
from craftbt.router.router import GoalRun, Router, RoutingDecision, plan_for_goal
from craftbt.router.router import run_goal as goal_loop
from craftbt.router.router import run_tree as repaired_tree_run
from craftbt.trees.model import TreeDefinition
from craftbt.trees.validate import validate_path, validate_text
from craftbt.world.body import Body
from craftbt.world.sim.body import SimBody

TreeSource = str | Path | TreeDefinition


@dataclass
class ScriptRun:
    """A script's run: the executor's outcome (journal row, status) and the interpreter's (logs, ops, error)."""

    outcome: RunOutcome
    script: ScriptOutcome

    @property
    def ok(self) -> bool:
        return self.outcome.ok and self.script.ok


class Bot:
    """One bot: a body, its executor and journal under ``home``. Runs one thing at a time."""

    def __init__(
        self,
        body: Body,
        *,
        registry: Registry | None = None,
        config: ExecutorConfig | None = None,
        home: str | Path | None = None,
        body_kind: BodyKind | str | None = None,
        seed: int = 0,
        scenario: str | None = None,
        priors: PriorsStore | None = None,
        on_tick: TickCallback | None = None,
        owns_body: bool = False,
    ) -> None:
        kind = BodyKind(body_kind) if body_kind is not None else (
            BodyKind.SIM if isinstance(body, SimBody) else BodyKind.MINEFLAYER)
        if config is None:
            # the embedded world fences itself to its scenario; a real server needs an explicit fence
            config = ExecutorConfig(geofence=scenario_fence(body) if kind is BodyKind.SIM else None)
        self.executor = Executor(registry or default_registry(), body, config=config, body_kind=kind.value,
                                 home=Path(home) if home is not None else None, on_tick=on_tick)
        self.body_kind = kind
        self.seed = seed
        #: what the journal's ``scenario`` column says of this body
        self.scenario = scenario
        self._priors = priors
        self._owns_body = owns_body
        self._closed = False

    # -- what the bot is made of ----------------------------------------------------------------------
    @property
    def body(self) -> Body:
        return self.executor.inner_body

    @property
    def registry(self) -> Registry:
        return self.executor.registry

    @property
    def config(self) -> ExecutorConfig:
        return self.executor.config

    @property
    def home(self) -> Path:
        return self.executor.home

    @property
    def journal(self) -> Journal:
        """The journal every run of this bot is recorded in (``list_runs``, ``run_detail``, ...)."""
        return self.executor.journal

    @property
    def priors(self) -> PriorsStore:
        """The router's planner priors (``home/priors.sqlite`` unless given), opened at the first goal."""
        if self._priors is None:
            self._priors = PriorsStore(self.home / "priors.sqlite")
        return self._priors

    @contextlib.contextmanager
    def configured(self, **changes: Any) -> Iterator[ExecutorConfig]:
        """The executor's configuration with ``changes`` (``max_ticks=...``) for the runs inside the block."""
        saved = self.executor.config
        self.executor.config = saved.model_copy(update=changes) if changes else saved
        try:
            yield self.executor.config
        finally:
            self.executor.config = saved

    def listening(self, listener: TickCallback) -> contextlib.AbstractContextManager[None]:
        """Call ``listener(executor, run, root)`` after every tick of the runs inside the ``with`` block."""
        return self.executor.listening(listener)

    # -- runs -----------------------------------------------------------------------------------------------
    def run_tree(self, tree: TreeSource, *, base_dir: Path | None = None, task_id: str | None = None,
                 run_id: str | None = None, intent: dict[str, Any] | None = None) -> RunOutcome:
        """Run a tree (a file, YAML/JSON text, or a definition) through the executor's Plan-to-Body pipeline,
        as it was written."""
        definition, base_dir = self._definition(tree, base_dir)
        return self.executor.run(definition, base_dir=base_dir, task_id=task_id, intent=intent, seed=self.seed,
                                 scenario=self.scenario, run_id=run_id)

    def run_tree_repaired(self, tree: TreeSource, *, base_dir: Path | None = None, max_replans: int = 2,
                          planner: str | None = None) -> GoalRun:
        """Run a tree; a missing precondition (an item, a station, fuel, a tool) is planned as a subgoal and run in
        front of it, and the tree runs again (``craftbt run TREE``)."""
        definition, base_dir = self._definition(tree, base_dir)
        return repaired_tree_run(definition, self.executor, base_dir=base_dir, priors=self.priors, seed=self.seed,
                                 max_replans=max_replans, scenario=self.scenario, planner=planner)

    def plan(self, goal: str, *, planner: str = "auto", context: dict[str, Any] | None = None,
             craft_only: bool = False) -> RoutingDecision:
        """Route ``goal`` from what the body sees now; runs nothing. ``decision.plan.tree`` is the tree.

        ``craft_only``: plan from what the bot holds and the stations in reach alone (no gathering)."""
        return plan_for_goal(goal, self.body, planner=planner, registry=self.registry, priors=self.priors,
                             seed=self.seed, context=context, craft_only=craft_only)

    def run_goal(
        self,
        goal: str | Intent,
        *,
        planner: str = "auto",
        max_replans: int = 2,
        context: dict[str, Any] | None = None,
        shelter_at_night: bool = True,
        task_id: str | None = None,
        run_id: str | None = None,
        router: Router | None = None,
        on_decision: Callable[[RoutingDecision], None] | None = None,
    ) -> GoalRun:
        """Route, run, replan after a failure and sit out the nights until ``goal`` succeeds or the replans run
        out (the router's one goal loop, :func:`~craftbt.router.router.run_goal`)."""
        return goal_loop(goal, self.executor, planner=planner, priors=self.priors, seed=self.seed,
                         max_replans=max_replans, context=context, scenario=self.scenario,
                         shelter_at_night=shelter_at_night, task_id=task_id, run_id=run_id, router=router,
                         on_decision=on_decision)

    def run_script(
        self,
        src: str | a.Program,
        *,
        text: str | None = None,
        name: str = "script",
        functions: FunctionSource | None = None,
        waypoints: dict[str, tuple[int, int, int]] | None = None,
        limits: Limits | None = None,
        run_id: str | None = None,
    ) -> ScriptRun:
        """Run a CraftScript program (its text, checked first, or a parsed program and its ``text``) as one
        journalled run."""
        from craftbt.craftscript.runner import run_script

        program = src if isinstance(src, a.Program) else compile_program(src, name, functions)
        outcome, script = run_script(self.executor, program, source=src if isinstance(src, str) else text or name,
                                     name=name, functions=functions, waypoints=waypoints, limits=limits,
                                     seed=self.seed, scenario=self.scenario, run_id=run_id)
        return ScriptRun(outcome, script)

    def cancel(self, reason: str = "cancelled") -> None:
        """Stop the running tree, goal or script at the end of the current tick (safe from another thread)."""
        self.executor.cancel(reason)

    # -- closing --------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the journal and the priors; a body this bot made (:func:`create_bot`) is disconnected too."""
        if self._closed:
            return
        self._closed = True
        self.executor.journal.close()
        if self._priors is not None:
            self._priors.close()
        close = getattr(self.body, "close", None)
        if self._owns_body and callable(close):
            close()  # a real body's connection and Node bridge

    def __enter__(self) -> Bot:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _definition(self, tree: TreeSource, base_dir: Path | None) -> tuple[TreeDefinition, Path | None]:
        if isinstance(tree, TreeDefinition):
            return tree, base_dir
        text = is_tree_text(tree)
        checked = validate_text(str(tree), self.registry, file="<text>") if text else validate_path(tree, self.registry)
        checked.raise_for_problems()
        assert checked.definition is not None  # no problems means a definition
        if base_dir is None and not text:
            base_dir = Path(tree).parent  # a file's subtrees are found beside it
        return checked.definition, base_dir


def is_tree_text(source: object) -> bool:
    """YAML or JSON text rather than a path: a path never holds a newline."""
    return isinstance(source, str) and "\n" in source


def compile_program(text: str, source: str, functions: FunctionSource | None = None) -> a.Program:
    """Parse and check a script's text; every problem, located, in one :class:`CraftbtError`."""
    from craftbt.craftscript.checker import Checker
    from craftbt.craftscript.errors import ScriptError
    from craftbt.craftscript.macros import core_macros
    from craftbt.craftscript.parser import parse

    try:
        program = parse(text, source=source)
        errors = Checker(program, core_macros=core_macros(),
                         functions=getattr(functions, "signatures", dict)()).check()
    except ScriptError as err:
        errors = [err]
    if errors:
        raise CraftbtError([Problem(ErrorCode.INVALID_ARGUMENT, f"{e.code}: {e.message}",
                                    Location(file=source, line=e.loc.line if e.loc else None,
                                             column=e.loc.column if e.loc else None)) for e in errors])
    return program


def parse_geofence(geofence: str | Bounds | None) -> Bounds | None:
    """``x1,y1,z1:x2,y2,z2`` (or bounds already made) as bounds; a bad text is a usage error."""
    if geofence is None or isinstance(geofence, Bounds):
        return geofence
    try:
        return Bounds.parse(geofence)
    except ValueError as exc:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"--geofence: {exc}") from None


def executor_config(fence: Bounds | None, *, profile: str = "survival", **settings: Any) -> ExecutorConfig:
    """The executor's configuration: a fence, a permission profile and any other setting (``max_ticks``,
    ``shadow``, ``allowed_commands``...); a bad value is a usage error."""
    if profile not in PROFILES:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"--profile {profile!r} is not a permission profile",
                                  expected="one of " + ", ".join(PROFILES))
    try:
        return ExecutorConfig(geofence=fence, profile=profile, **settings)
    except ValueError as exc:
        raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, str(exc).splitlines()[-1]) from None


def create_bot(
    *,
    world: str = "starter",
    seed: int = 0,
    scenario: str | Path | None = None,
    host: str | None = None,
    port: int | None = None,
    version: str | None = None,
    username: str = "craftbt",
    profile: str = "survival",
    geofence: str | Bounds | None = None,
    home: str | Path | None = None,
    registry: Registry | None = None,
    **settings: Any,
) -> Bot:
    """Make a bot on an embedded world (``world``/``seed``, or a ``scenario`` file) or on a real server
    (``host``/``port``/``version``), like mineflayer's ``createBot``. The embedded world is fenced to its scenario
    by default; a real server is not fenced until ``geofence`` is given (world-changing leaves stay refused).
    Other keywords (``max_ticks``, ``shadow``...) go to the executor's configuration."""
    spec = body_spec(world=world, seed=seed, scenario=Path(scenario) if scenario is not None else None, host=host,
                     port=port, version=version, username=username)
    return bot_for(spec, profile=profile, geofence=geofence, home=home, registry=registry, **settings)


def body_and_config(spec: BodySpec, *, profile: str = "survival", geofence: str | Bounds | None = None,
                    **settings: Any) -> tuple[Body, ExecutorConfig]:
    """The body ``spec`` describes (:func:`~craftbt.bot.body.make_body`) and the executor's configuration for it:
    ``geofence`` over the body's default fence, the profile, other settings. Options are checked first, so a
    bad one is a usage error before a server is joined or a world generated."""
    given = parse_geofence(geofence)
    executor_config(given, profile=profile, **settings)
    body, fence = make_body(spec)
    return body, executor_config(given if given is not None else fence, profile=profile, **settings)


def bot_for(spec: BodySpec, *, profile: str = "survival", geofence: str | Bounds | None = None,
            home: str | Path | None = None, registry: Registry | None = None, priors: PriorsStore | None = None,
            on_tick: TickCallback | None = None, **settings: Any) -> Bot:
    """The bot ``spec`` describes (see :func:`body_and_config`); closing the bot closes its body."""
    body, config = body_and_config(spec, profile=profile, geofence=geofence, **settings)
    return Bot(body, registry=registry, config=config, home=home, body_kind=spec.kind, seed=spec.seed,
               scenario=spec.label() if spec.scenario is not None else None, priors=priors, on_tick=on_tick,
               owns_body=True)
