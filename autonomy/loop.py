"""The live loop: sense -> signals -> homeostasis -> needs -> goals -> route -> execute -> remember, for N days.

One cycle (every ``poll_ticks`` game ticks, also *during* a running task, from
a tick listener of the executor):

1. :func:`~craftbt.autonomy.signals.sense` the body; the signal monitor emits edges;
2. the homeostasis monitor updates trends; the need generator scores needs;
3. the goal manager turns needs into goals on the task board; suggestions from
   stdin pass the intrusive-thought filter first;
4. while a task runs, an urgent goal that outranks it asks the executor to stop at
   its next safe point (:meth:`Executor.request_stop`): the task is marked
   ``preempted``, stays on the board, and resumes when it is the best again;
5. between tasks the best eligible goal runs: routed goals through the router
   (memory first: a resource remembered out of survey range is walked to), routines
   as their built-in trees; outcomes go to episodic memory, the router's priors and
   the task board's backoff.

Persistence: before each task the task journal row is marked ``running`` and the
embedded world is snapshotted (atomically), so SIGKILL loses at most the task in
flight, which the bootstrapper recovers on the next start; Ctrl-C does the same.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import py_trees

from craftbt.autonomy import bodyinfo
from craftbt.autonomy.bootstrap import TaskBootstrapper
from craftbt.autonomy.goals import SHELTER_LEAVE_FROM, GoalKind, GoalManager, GoalSource, GoalSpec, goals_for
from craftbt.autonomy.homeostasis import TIER_NAMES, HomeostasisMonitor, HomeostasisState, tool_tier
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.autonomy.needs import generate, resting
from craftbt.autonomy.report import GoalDone, LiveReport
from craftbt.autonomy.signals import ANIMALS, FOODS, Percept, SignalMonitor, sense
from craftbt.autonomy.threats import StuckHostiles
from craftbt.bot.bot import Bot
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError
from craftbt.executor.config import (
    NATURAL_FENCE_RADIUS,
    Bounds,
    ExecutorConfig,
    declared_bounds,
    fence_around,
    fence_radius,
)
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.failures import FailureSource
from craftbt.executor.state import MS_PER_TICK, RunState
from craftbt.planners.intent import Intent, IntentSource
from craftbt.planners.llm.client import LlmConfig
from craftbt.router import routines
from craftbt.router.priors import PriorsStore
from craftbt.router.router import Router
from craftbt.router.thoughts import ThoughtDecision, ThoughtProcessor
from craftbt.trees import model as m
from craftbt.world.body import TICKS_PER_DAY, BlockPos, Body, Position

POLL_TICKS = 20
#: a single task's tree gets at most this many ticks (a quarter day) before the executor stops it
TASK_TICKS = 6_000
SNAPSHOT_EVERY = 1_200
#: the reason a shelter task gives when the bot already stood sheltered (nothing was built)
ALREADY = "already sheltered"
#: what may run in the evening and at night
NIGHT_GOALS = frozenset({"shelter", "eat", "leave_shelter", "flee"})
#: ticks between two goals of the bootstrapper (a pause, not a hot loop of walks)
EXPLORE_PAUSE = 600
#: stairs of PIT_DEPTH steps dug at most to climb out from underground (48 blocks)
CLIMB_STAGES = 12
#: blocks from where a stair out started within which no other is dug (unless shut in)
STAIR_NEAR = 4.0
#: exploration walks centre on home while the bot is this near it (blocks), else on the bot
EXPLORE_HOME_RANGE = 48
#: ticks a task cut by a flight from a creeper waits before it resumes (a creeper loses a player beyond 16 blocks)
FLEE_PAUSE = 400
#: what the loop looks for while it lives, to remember where it was seen
RESOURCES = ("oak_log", "birch_log", "spruce_log", "coal_ore", "iron_ore", "copper_ore", "stone")
#: an obtain goal whose plan fails for want of these may walk to where memory saw them first
NEEDS_RESOURCE: dict[str, tuple[str, ...]] = {
    "iron_pickaxe": ("iron_ore",), "iron_ingot": ("iron_ore",), "stone_pickaxe": ("stone",),
    "torch": ("coal_ore",), "coal": ("coal_ore",), "wooden_pickaxe": ("oak_log", "birch_log", "spruce_log"),
    **{food: (animal,) for animal, foods in (("cow", ("beef", "cooked_beef", "leather")),
                                              ("pig", ("porkchop", "cooked_porkchop")),
                                              ("sheep", ("mutton", "cooked_mutton", "white_wool")),
                                              ("chicken", ("chicken", "cooked_chicken", "feather")))
       for food in foods},
}
#: animals are remembered like resources (where a herd grazed); they wander, so a place is kept per 8-block cell
ANIMAL_CELL = 8
#: ticks between two looks for animals to remember, also while a task runs
ANIMAL_SCAN_EVERY = 100
#: ticks between two readings of where memory saw each animal (the food goals' order uses it)
RECALL_EVERY = 200
RESOURCE_SCAN_RADIUS = 16
#: a resource within this many blocks needs no recall
NEAR_ENOUGH = 12
DAMAGE_NOTE = 2.0
#: at night the report counts hostile mobs alive within this radius (they spawn 16-32 blocks out)
NIGHT_WATCH_RADIUS = 32.0
#: what a failed walk says when the pathfinder found no way from where the bot stands (it does not dig or pillar)
NO_PATH = ("no_path", "no standable route", "no path to")
#: the task that digs a stair out when the bot is walled in (a hole a planner dug for stone, a cave)
UNSTUCK = "unstuck"
Hook = Callable[["LiveLoop", Percept], None]
#: the live loop's default fence on an embedded world that declares none: days of hunting and exploring range
#: further than one task's 64 blocks (on natural seed 5 a hunt crossed x = 64 and every later goal was refused);
#: as wide as one task's fence on the natural world (executor.config.NATURAL_FENCE_RADIUS), on every world
LIVE_FENCE_RADIUS = NATURAL_FENCE_RADIUS


def live_fence(body: Body) -> Bounds:
    """The scenario's declared bounds when it has them, else a box LIVE_FENCE_RADIUS around the bot (or the
    task's own default fence, :func:`scenario_fence`, should that ever be wider)."""
    declared = declared_bounds(body)
    if declared is not None:
        return declared
    return fence_around(body, max(LIVE_FENCE_RADIUS, fence_radius(body)))


class LiveLoop:
    def __init__(self, body: Body, home: Path, *, seed: int = 0, days: float = 3.0, world: str = "starter",
                 body_kind: str = "sim", registry: Registry | None = None, config: ExecutorConfig | None = None,
                 llm: LlmConfig | None = None, thoughts: queue.Queue[str | ThoughtDecision] | None = None,
                 snapshot: Path | None = None, report: LiveReport | None = None,
                 hooks: list[Hook] | None = None, poll_ticks: int = POLL_TICKS, planner: str = "auto",
                 bot: Bot | None = None) -> None:
        self.body = body
        self.home = home
        self.registry = registry or (bot.registry if bot is not None else default_registry())
        self.config = (config or ExecutorConfig()).model_copy(update={"max_ticks": TASK_TICKS})
        self.memory = EpisodicMemory(home / "memory.sqlite")
        #: the bot every task runs on (``serve --live`` passes its own): its executor, and the goal loop
        self.bot = bot or Bot(body, registry=self.registry, config=self.config, home=home, body_kind=body_kind,
                              seed=seed, scenario=world)
        self.bot.executor.config = self.config
        self.executor = self.bot.executor
        self.priors = PriorsStore(home / "priors.sqlite")
        self.router = Router(self.registry, self.priors, seed=seed)
        self.goals = GoalManager(self.memory)
        self.signals = SignalMonitor()
        #: hostiles stuck out of reach (a spider in a cave by the pit) are not threats: they kept seed 6 in its pit
        self.stuck = StuckHostiles()
        self.homeostasis = HomeostasisMonitor()
        self.bootstrap = TaskBootstrapper(self.memory, llm=llm, seed=seed, bounds=self.config.geofence)
        self.thought_filter = ThoughtProcessor(bounds=self.config.geofence)
        self.thoughts = thoughts
        self.snapshot = snapshot
        self.hooks = list(hooks or [])
        self.poll_ticks = poll_ticks
        #: the router's planner choice for routed goals (``auto``: every eligible planner, scored by the priors)
        self.planner = planner
        start = body.now_ticks()
        self.report = report or LiveReport(seed=seed, world=world, body=body_kind, days=days, start_tick=start,
                                           end_tick=start + int(days * TICKS_PER_DAY))
        self.state: HomeostasisState | None = None
        self.current: GoalSpec | None = None
        self.events: list[dict[str, Any]] = []  # what happened, in order: the tests read it
        self._last_poll = -POLL_TICKS
        self._last_snapshot = start
        self._deaths = bodyinfo.deaths(body)
        self._prev_health: float | None = None
        self._last_damage_note = -10_000
        self._night_start: int | None = None
        self._night_deaths = 0
        self._stop_for: GoalSpec | None = None
        self._resume_first: str | None = None
        self._seen: set[tuple[str, BlockPos]] = set()
        self._last_bootstrap = -EXPLORE_PAUSE
        self._stopping: str | None = None
        self._animals_at: tuple[int, dict[str, float]] | None = None
        self._animals_scanned = -ANIMAL_SCAN_EVERY
        #: where stairs out (the unstuck task) started: none is dug again nearby unless the bot is plainly shut in
        self._stairs_from: list[Position] = []
        self.home_pos = body.position()

    # -- sensing ---------------------------------------------------------------------------------------
    def now_ms(self) -> int:
        """Game time in ms: backoff and eligibility follow the world's clock, not the wall's."""
        return self.body.now_ticks() * MS_PER_TICK

    def observe(self, *, force: bool = False) -> HomeostasisState:
        tick = self.body.now_ticks()
        if self.state is not None and not force and tick - self._last_poll < self.poll_ticks:
            return self.state
        self._last_poll = tick
        p = sense(self.body, stuck=self.stuck)
        for event in self.signals.poll(p):
            self._on_signal(event.name, event.on, p)
        self._account(p)
        dangers = self.memory.dangers_near(p.position, p.time_of_day) if not p.night else []
        if dangers and p.time_of_day >= 10_000:
            self.memory.note_recalled(dangers)
        self.state = self.homeostasis.update(p, sheltered=routines.sheltered(self.body),
                                             remembered_danger=bool(dangers) and p.time_of_day >= 10_000)
        self._take_suggestions(p)
        if p.tick - self._animals_scanned >= ANIMAL_SCAN_EVERY:
            self._scan_animals()
        self.goals.refresh(goals_for(generate(self.state), self.state, self._remembered_animals(p)))
        for hook in self.hooks:
            hook(self, p)
        return self.state

    def _remembered_animals(self, p: Percept) -> dict[str, float]:
        """Hunted animal -> how far from here memory last saw one (re-read every RECALL_EVERY ticks)."""
        if self._animals_at is None or p.tick - self._animals_at[0] >= RECALL_EVERY:
            spots = {a: self.memory.recall_resource((a,), p.position) for a in ANIMALS}
            self._animals_at = (p.tick, {a: round(s.distance_to(p.position), 1)
                                         for a, s in spots.items() if s is not None})
        return self._animals_at[1]

    def _on_signal(self, name: str, on: bool, p: Percept) -> None:
        self.events.append({"tick": p.tick, "signal": name, "on": on})
        if name == "night":
            if on:
                self._night_start = p.tick
                self._night_deaths = len(self.report.deaths)
            elif self._night_start is not None:
                self.report.nights_seen += 1
                if len(self.report.deaths) == self._night_deaths:
                    self.report.nights_survived += 1
                self._night_start = None
        if name == "hostile_near" and on and p.night:
            self.report.hostile_encounters += 1
            self.memory.record("danger", "hostile_near", p.tick, p.position, time_of_day=p.time_of_day)

    def _account(self, p: Percept) -> None:
        r = self.report
        r.lowest_food = min(r.lowest_food, p.food)
        r.lowest_health = min(r.lowest_health, p.health)
        if p.night:
            r.night_samples += 1
            around = len(self.body.entities(NIGHT_WATCH_RADIUS, kind="hostile"))
            r.most_hostiles_at_night = max(r.most_hostiles_at_night, around)
            if routines.sheltered(self.body) or p.light >= 8:
                r.night_samples_safe += 1
        deaths = bodyinfo.deaths(self.body)
        if deaths is not None and self._deaths is not None and deaths > self._deaths:
            causes = bodyinfo.death_causes(self.body, since_tick=self._last_poll - self.poll_ticks * 2)
            for i in range(deaths - self._deaths):
                cause = causes[i]["cause"] if i < len(causes) else "unknown"
                r.deaths.append({"tick": p.tick, "day": r.day_of(p.tick), "cause": cause})
                self.memory.record("death", cause, p.tick, p.position, time_of_day=p.time_of_day)
            self.events.append({"tick": p.tick, "death": deaths})
        self._deaths = deaths
        if self._prev_health is not None and self._prev_health - p.health >= DAMAGE_NOTE \
                and p.tick - self._last_damage_note > 200:
            self._last_damage_note = p.tick
            self.memory.record("damage", f"{self._prev_health - p.health:g}", p.tick, p.position,
                               time_of_day=p.time_of_day)
        self._prev_health = p.health
        tier = tool_tier(p.inventory)
        if tier > r.tool_tier:
            for t in range(r.tool_tier + 1, tier + 1):
                r.tools_reached.append({"tool": TIER_NAMES[t], "tick": p.tick, "day": r.day_of(p.tick)})
            r.tool_tier = tier
        r.signals_emitted, r.signals_held = self.signals.emitted, self.signals.held

    def _take_suggestions(self, p: Percept) -> None:
        """Suggestions: a line of text passes this loop's filter; a decision was filtered already (by serve's
        /api/cognitive/signals, which answers the caller at once) and is taken as it is."""
        while self.thoughts is not None:
            try:
                item = self.thoughts.get_nowait()
            except queue.Empty:
                return
            decision = item if isinstance(item, ThoughtDecision) else self.thought_filter.process(item, food=p.food)
            text = decision.text if isinstance(item, ThoughtDecision) else item
            self.report.suggestions.append({"text": text, "accepted": decision.accepted, "reason": decision.reason,
                                            "tick": p.tick})
            if decision.accepted and decision.intent is not None:
                goal = str(decision.intent.goal)
                kind = GoalKind.ROUTINE if goal.startswith("explore ") and "," in goal else GoalKind.ROUTED
                self.goals.offer(GoalSpec(task_id=f"user:{decision.intent.id}", goal=goal, kind=kind,
                                          source=GoalSource.USER, urgency=0.6, why=[f"suggested: {text!r}"]),
                                 sticky=True)

    def _scan_resources(self) -> None:
        """Remember where resources are: the nearest of each kind, once per place, and the animals in view."""
        found = self.body.nearest_blocks(list(RESOURCES), RESOURCE_SCAN_RADIUS)
        for name, pos in found.items():
            if (name, pos) not in self._seen:
                self._seen.add((name, pos))
                self.memory.record("resource_seen", name, self.body.now_ticks(), _centre(pos))
        self._scan_animals()

    def _scan_animals(self) -> None:
        """Remember the hunted animals in view, once per ANIMAL_CELL cell. Called while tasks run too: a walk passes
        herds that neither end of it sees, and the food goals' order and the walk to a herd read this memory."""
        self._animals_scanned = self.body.now_ticks()
        for e in self.body.entities(RESOURCE_SCAN_RADIUS, kind="passive"):
            cell = BlockPos(int(e.position.x) // ANIMAL_CELL, 0, int(e.position.z) // ANIMAL_CELL)
            if e.name in ANIMALS and (e.name, cell) not in self._seen:
                self._seen.add((e.name, cell))
                self.memory.record("resource_seen", e.name, self.body.now_ticks(), e.position)

    # -- the loop -----------------------------------------------------------------------------------------
    def run(self) -> LiveReport:
        self.observe(force=True)
        self._scan_resources()
        for recovered in self.bootstrap.recover():
            self.goals.offer(recovered, sticky=True)
            if self._resume_first is None:
                self._resume_first = recovered.task_id
                self.report.resumed_tasks.append(recovered.goal)
        while self.body.now_ticks() < self.report.end_tick and self._stopping is None:
            spec = self._choose(self.observe())
            if self._stopping is not None:
                break  # a hook stopped the session while it chose
            if spec is None:
                self._wait()
                continue
            self._run_task(spec)
        self.report.finished = self._stopping is None
        return self.close()

    def stop(self, reason: str = "stopped") -> None:
        """End the session early (from the loop's own thread, e.g. a hook): the task in flight stops at its next
        safe point and stays ``preempted`` in the task journal, so the next session resumes it."""
        self._stopping = reason
        if self.current is not None:
            self.executor.request_stop(reason)

    def close(self) -> LiveReport:
        self._account(sense(self.body))  # what the last task changed (a tool made in its last tick) counts too
        r = self.report
        r.ticks_run = self.body.now_ticks() - r.start_tick
        r.memory = self.memory.metrics()
        r.bootstrap = self.bootstrap.diagnostics[-20:]
        self.save()
        return r

    def _choose(self, state: HomeostasisState) -> GoalSpec | None:
        if self._resume_first is not None:
            first, self._resume_first = self._resume_first, None
            if first in self.goals.specs:
                return self.goals.specs[first]
        p = state.percept
        rest = resting(state)
        hold = rest or state.sheltered  # in the shelter only the shelter's own goals and urgent ones run
        while (spec := self.goals.select(self.now_ms())) is not None:
            # the stair out of a hole is the leave_shelter routine, but not a shelter goal: run in the evening it dug
            # the night's roof open, the shelter dug a new pit under it, and so on 19 times (natural seed 3, to y=-10)
            if not hold or spec.urgent or (spec.goal in NIGHT_GOALS and spec.task_id != UNSTUCK):
                return spec
            # work waits on the task board: for the next morning, or a while when sheltered by day
            wait = (SHELTER_LEAVE_FROM - p.time_of_day) % TICKS_PER_DAY if rest else EXPLORE_PAUSE
            self.goals.defer(spec.task_id, self.now_ms() + (wait + 1) * MS_PER_TICK)
        if rest or state.sheltered:
            return None  # evenings and nights are for the shelter; no exploring in the dark
        if p.tick - self._last_bootstrap < EXPLORE_PAUSE:
            return None  # between walks the bot stays put and lets the world run
        self._last_bootstrap = p.tick
        llm_state = {"inventory": p.inventory, "food": p.food, "health": p.health, "tool_tier": state.tool_tier}
        # walks start from home, on ground the bot knows; far from home they start where it stands: on natural
        # seed 6, 100 blocks out, every walk back towards home found no path and failed at once
        near_home = p.position.distance_to(self.home_pos) <= EXPLORE_HOME_RANGE
        return self.goals.offer(self.bootstrap.next_goal(self.home_pos if near_home else p.position, llm_state),
                                sticky=True)

    def _wait(self) -> None:
        self.body.advance(self.poll_ticks)
        if self.body.now_ticks() - self._last_snapshot >= SNAPSHOT_EVERY:
            self.save()

    # -- one task ---------------------------------------------------------------------------------------
    def _run_task(self, spec: GoalSpec) -> None:
        start = self.body.now_ticks()
        self.current = spec
        if spec.task_id == UNSTUCK:
            self._stairs_from.append(self.body.position())
        self.memory.upsert_task(spec.task_id, spec.goal, spec.kind.value, spec.source.value, spec.priority,
                                "running", tick=start)
        self.memory.set_task(spec.task_id, started_tick=start)
        self.save()  # the snapshot a restart resumes this task from
        self.events.append({"tick": start, "task": spec.task_id, "goal": spec.goal, "status": "started",
                            "priority": spec.priority})
        try:
            status, reason = (self._routine(spec) if spec.kind is GoalKind.ROUTINE else self._routed(spec))
        except CraftbtError as err:
            status, reason = "blocked", err.problems[0].render()
        end = self.body.now_ticks()
        self.current = None
        stop_for, self._stop_for = self._stop_for, None
        self.events.append({"tick": end, "task": spec.task_id, "goal": spec.goal, "status": status})
        if status == "success":
            self.goals.done(spec.task_id)
            self.memory.set_task(spec.task_id, status="done", ended_tick=end)
            self.memory.record("goal_done", spec.goal, end, self.body.position(), ticks=end - start)
            self.report.goals_completed.append(GoalDone(goal=spec.goal, source=spec.source.value, started_tick=start,
                                                        ended_tick=end, day=self.report.day_of(end)))
            self._after_success(spec, built=reason != ALREADY)
        elif status == "preempted":
            self.report.preemptions += 1
            self.memory.set_task(spec.task_id, status="preempted")
            fled = stop_for is not None and stop_for.goal == "flee"
            if fled and spec.source is GoalSource.BOOTSTRAP:
                # an exploration walk cut by a creeper is not resumed: it led back to the creeper (natural seed 6:
                # walk, flee, walk, 60 times); the bootstrapper picks a new walk later
                self.goals.done(spec.task_id)
                self.memory.set_task(spec.task_id, status="failed", ended_tick=end, blocked_reason="fled")
            else:
                self.goals.keep(spec)
                if fled:  # give the creeper time to lose the bot before the task walks back its way
                    self.goals.defer(spec.task_id, self.now_ms() + FLEE_PAUSE * MS_PER_TICK)
        else:
            self.report.goals_failed += 1
            self.memory.record("goal_failed", spec.goal, end, self.body.position(), reason=reason)
            self.memory.set_task(spec.task_id, status="failed", ended_tick=end, blocked_reason=reason)
            if spec.source is GoalSource.NEED:
                self.goals.block(spec.task_id, reason, self.now_ms())
            else:
                self.goals.done(spec.task_id)  # a failed suggestion or exploration is not retried as is
            if any(k in reason for k in NO_PATH) and spec.task_id != UNSTUCK:
                self._offer_unstuck(reason)
        self._scan_resources()
        self.save()
        # what the task changed (a pickaxe made, a pit dug) must be seen before the next choice: a percept up to
        # POLL_TICKS old chose the hunt after the wooden pickaxe (the stone pickaxe goal was not offered yet)
        self.observe(force=True)

    def _offer_unstuck(self, reason: str) -> None:
        """No way out from here on foot: by day, dig a stair up before anything else is tried from this spot."""
        state = self.observe(force=True)
        if resting(state) or state.sheltered:
            return  # the evening keeps the bot in its hole; the morning's leave_shelter digs it out
        here = self.body.position()
        shut = routines.shut_in(self.body)
        if not shut and any(here.distance_to(spot) <= STAIR_NEAR for spot in self._stairs_from):
            # the bot does not look shut in, and a stair dug near here did not get it anywhere: nor would another.
            # On natural seed 6 every walk from a bot 100 blocks from home failed, and each queued a stair that
            # failed too (dozens of failed goals). Where the signs miss a way out (a shaft in a mountain, natural
            # seed 7), the first stair is still tried, and it got the bot out.
            self.events.append({"tick": self.body.now_ticks(), "no_path_in_the_open": reason[:80]})
            return
        self.goals.offer(GoalSpec(task_id=UNSTUCK, goal="leave_shelter", kind=GoalKind.ROUTINE, urgency=0.75,
                                  why=[f"walled in: {reason[:80]}", "dig a stair up and walk out"]), sticky=True)
        self.events.append({"tick": self.body.now_ticks(), "unstuck": reason[:80]})

    def _after_success(self, spec: GoalSpec, *, built: bool) -> None:
        if spec.goal == "shelter" and built:
            feet = self.body.position().block()
            self.report.structures_built.append({"kind": "night shelter (roofed pit)", "at": list(feet),
                                                 "day": self.report.day_of(self.body.now_ticks())})
            self.memory.record("structure_built", "shelter", self.body.now_ticks(), self.body.position())
        if spec.goal == "eat":
            self.report.meals += 1

    def _routine(self, spec: GoalSpec) -> tuple[str, str]:
        stages: tuple[routines.Stage, ...]
        if spec.goal == "shelter":
            if routines.sheltered(self.body):
                return "success", ALREADY
            stages = routines.SHELTER
        elif spec.goal == "leave_shelter":
            outcome = self._execute(routines.leave_shelter(self.body), spec)
            climbs = 1
            # out of a pit one stair is enough; out of a mine shaft (natural seed 6 was left at y=31 by an iron
            # pickaxe plan, and every surface search failed from there) the stair goes on up, a stage at a time
            while outcome.ok and climbs < CLIMB_STAGES and routines.underground(self.body):
                routines.settle(self.body)
                outcome = self._execute(routines.leave_shelter(self.body), spec)
                climbs += 1
            if outcome.ok or outcome.status == "preempted":
                return outcome.status, _why(outcome)
            # the stair did not get the bot out: walk to the surface at home, which the pathfinder may reach
            stages = (lambda b: routines.go_to(routines.surface(b, *self._home_column()) or self.home_pos.block(),
                                               2.0),)
        elif spec.goal == "flee":
            stages = (lambda _b: routines.flee(),)
        elif spec.goal == "eat":
            carried = sorted(f for f in FOODS if self.body.observe().inventory.get(f))
            # cooked food first: it restores most and raw chicken can poison
            food = next((f for f in carried if f.startswith(("cooked_", "golden_", "bread"))), None) \
                or next(iter(carried), None)
            stages = (lambda _b: routines.eat(food),)
        elif spec.goal.startswith("explore "):
            x, y, z = (int(v) for v in spec.goal.split(" ", 1)[1].split(","))
            spot = routines.surface(self.body, x, z, y)
            if spot is None:
                return "blocked", f"no standing room at {x},{z}"
            stages = (lambda _b: routines.go_to(spot, 3.0),)
        else:
            return "blocked", f"no routine for {spec.goal!r}"
        for stage in stages:
            routines.settle(self.body)  # a stage is built from where the bot stands, not where it is falling
            tree = stage(self.body)
            if tree is None and stage in routines.MAYBE_NOTHING:
                continue
            if tree is None:
                return "blocked", f"{spec.goal}: nothing to do here"
            outcome = self._execute(tree, spec)
            if not outcome.ok:
                return outcome.status, _why(outcome)
        return "success", ""

    def _home_column(self) -> tuple[int, int, int]:
        home = self.home_pos.block()
        return home.x, home.z, home.y

    def _routed(self, spec: GoalSpec) -> tuple[str, str]:
        """Route and execute. A failed goal is not replanned on the spot: ``Router.replan`` after a failed
        iron-pickaxe tree on a natural world searched for minutes and grew to gigabytes; the task board's backoff
        routes it again later, from wherever the bot then stands."""
        urgency = 0.9 if spec.goal.startswith("survive") else min(spec.urgency, 0.7)
        intent = Intent.from_text(spec.goal, urgency=urgency, context={"threat": "threat"} if urgency >= 0.9 else {},
                                  source=IntentSource.USER if spec.source is GoalSource.USER else IntentSource.SYSTEM)
        if self._walk_to_remembered(spec):
            self.events.append({"tick": self.body.now_ticks(), "recall": spec.goal})
        # the one goal loop, without its replans and nights: the task board retries and the loop shelters itself
        with self.executor.listening(self._watch(spec)):
            goal_run = self.bot.run_goal(intent, planner=self.planner, max_replans=0, shelter_at_night=False,
                                         task_id=spec.task_id, router=self.router)
        outcome = goal_run.outcomes[-1]
        return outcome.status, _why(outcome)

    def _walk_to_remembered(self, spec: GoalSpec) -> bool:
        """Memory recall for planning: when the resource a goal needs is not near, go where memory saw it."""
        wanted = NEEDS_RESOURCE.get(spec.goal.split()[-1], ())
        if not wanted or self.body.nearest_blocks(list(wanted), NEAR_ENOUGH) \
                or any(e.name in wanted for e in self.body.entities(NEAR_ENOUGH, kind="passive")):
            return False
        spot = self.memory.recall_resource(wanted, self.body.position())
        if spot is None:
            return False
        outcome = self._execute(routines.go_to(spot.block(), 4.0), spec)
        animals = [w for w in wanted if w in ANIMALS]
        if animals and outcome.status != "preempted" and not any(
                e.name in animals for e in self.body.entities(RESOURCE_SCAN_RADIUS, kind="passive")):
            # the herd moved on (or was hunted, or the place cannot be reached): forget the place, or every later
            # food goal walks back to it first
            cell = BlockPos(int(spot.x) // ANIMAL_CELL, 0, int(spot.z) // ANIMAL_CELL)
            for animal in animals:
                self.memory.record("resource_gone", animal, self.body.now_ticks(), spot)
                self._seen.discard((animal, cell))  # a herd grazing there again is remembered again
            self._animals_at = None
            self.events.append({"tick": self.body.now_ticks(), "recall_gone": spec.goal})
        return outcome.ok

    def _execute(self, tree: m.TreeDefinition, spec: GoalSpec) -> RunOutcome:
        with self.executor.listening(self._watch(spec)):
            return self.bot.run_tree(tree, task_id=spec.task_id, intent={"goal": spec.goal})

    def _watch(self, spec: GoalSpec) -> Callable[[Executor, RunState, py_trees.behaviour.Behaviour], None]:
        """A tick listener of the executor: keep sensing while the task runs; an urgent goal stops it at a safe
        point."""
        asked = [False]

        def on_tick(ex: Executor, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
            self.observe()
            if asked[0] or spec.urgent:
                return
            better = self.goals.preempting(spec, self.now_ms())
            if better is not None:
                asked[0] = True
                self._stop_for = better
                self.events.append({"tick": self.body.now_ticks(), "preempt": spec.task_id, "by": better.task_id})
                ex.request_stop(f"{better.goal} (priority {better.priority:.2f} > {spec.priority:.2f})")

        return on_tick

    # -- persistence ----------------------------------------------------------------------------------------
    def save(self) -> None:
        self._last_snapshot = self.body.now_ticks()
        if self.snapshot is not None and bodyinfo.can_snapshot(self.body):
            bodyinfo.save_snapshot(self.body, self.snapshot)
        self.report.ticks_run = self.body.now_ticks() - self.report.start_tick
        self.memory.set_state("report", self.report.model_dump(mode="json"))
        self.memory.set_state("saved_at", {"tick": self.body.now_ticks(), "wall": time.time()})


def _why(outcome: RunOutcome) -> str:
    failure = outcome.failure
    if failure is None or failure.source is FailureSource.STATUS:
        return outcome.status
    if failure.source is FailureSource.ESCALATION:
        return f"{failure.reason}: {failure.code or ''} {failure.detail}".strip()
    return f"{failure.reason}: {failure.detail}".strip()


def _centre(pos: BlockPos) -> Any:
    from craftbt.world.body import Position

    return Position(pos.x + 0.5, float(pos.y), pos.z + 0.5)
