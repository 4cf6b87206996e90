"""The goal manager (seed 003): needs -> candidate goals -> priority scores -> the task board.

Each need maps to a goal the bot can act on now (food carried -> eat; none ->
obtain food; dusk -> shelter; tools -> the next pickaxe; ...). A goal's priority
is its need's urgency times a memory factor, ``0.5 + 0.5 x`` the Beta mean of
that goal's past success in episodic memory, so a goal that keeps failing sinks
below ones that work. Candidates live on the executor's :class:`TaskBoard`: a
blocked or failed task gets ``next_eligible_at`` (the backoff taxonomy) and is
not selected again before then; a preempted task stays on the board and is
selected again once the urgent task is done, which is how it resumes.

Goals are ``routed`` (the router plans them: ``obtain X``) or
``routine`` (a built-in tree in :mod:`~craftbt.router.routines`: shelter,
leave_shelter, eat, go to a place, flee). A creeper near, by day or night, is fled from (it does not
burn, and a pit dug in front of it is not deep yet when it blows); another hostile near by day is
answered with the shelter (undead burn in the sun, so the pit need only outlast the shade it stands
in). The executor's own fast path (retreat) covers a threat that arrives in the middle of a task.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel

from craftbt.autonomy.homeostasis import TIER_NAMES, HomeostasisState
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.autonomy.needs import MAX_TIER, Need, NeedKind
from craftbt.autonomy.signals import Percept
from craftbt.executor.backoff import DETERMINISTIC_BLOCK_BACKOFF_MS, TRANSIENT_BLOCK_BACKOFF_MS, Task, TaskBoard
from craftbt.executor.state import MS_PER_TICK
from craftbt.router.night import MORNING
from craftbt.world import nature
from craftbt.world.body import TICKS_PER_DAY

#: a candidate whose need is at least this urgent may preempt a running task ...
URGENT = 0.8
#: ... when it beats the running task's priority by at least this much
PREEMPT_MARGIN = 0.1
#: foods the loop tries to obtain when it carries none, best first: animals to hunt and cook where the world
#: has them (natural worlds place them with their chunks), then what crops and trees give
FOOD_GOALS = ("cooked_beef", "cooked_porkchop", "cooked_mutton", "cooked_chicken", "bread", "apple")
#: the meats among FOOD_GOALS -> the raw item a kill drops (the animal comes from ``world.nature``)
MEAT = {"cooked_beef": "beef", "cooked_porkchop": "porkchop", "cooked_mutton": "mutton", "cooked_chicken": "chicken"}
#: a food goal the bot can act on at once (raw meat to cook, an animal in view) is at least this urgent: above
#: the tool work of tiers 1 and 2 (0.4, 0.3), below the first pickaxe (0.5) and everything urgent
OPPORTUNE = 0.45
#: an animal memory saw further than this (blocks) does not move its food up
REMEMBERED_RANGE = 64.0
#: what a routed goal's failure says when no planner found a plan from here (the router's refusal)
NO_PLAN = ("no planner could plan", "unobtainable")
#: such a goal waits a game day (ms): the world around the bot, its tools and inventory will have changed
UNPLANNABLE_BACKOFF_MS = TICKS_PER_DAY * MS_PER_TICK
#: what a task that used up its whole tick budget fails with (the executor's status)
OUT_OF_TIME = "budget_exhausted"
#: eat from this food level down: cooked meat restores 6-8 points, so little of a meal is wasted
EAT_AT = 17
#: raw food is eaten as it is from this level down (the `hungry` signal's): above it, it is cooked first
EAT_RAW_AT = 14
#: the morning window in which a sheltered bot leaves its shelter (when no hostile is near): from time 1000,
#: when the undead left from the night have burned in the sun for 50 s, until the evening work stop
SHELTER_LEAVE_FROM, SHELTER_LEAVE_UNTIL = MORNING, 10_000
#: a bot below this health with a hostile near hides urgently
HIDE_BELOW_HEALTH = 14.0


class GoalKind(StrEnum):
    ROUTED = "routed"
    ROUTINE = "routine"


class GoalSource(StrEnum):
    NEED = "need"
    USER = "user"
    BOOTSTRAP = "bootstrap"
    MEMORY = "memory"


class GoalSpec(BaseModel):
    task_id: str
    goal: str
    kind: GoalKind
    source: GoalSource = GoalSource.NEED
    need: NeedKind | None = None
    urgency: float = 0.5
    priority: float = 0.5
    why: list[str] = []

    @property
    def urgent(self) -> bool:
        """Urgency is the need's, before memory scoring: memory orders goals, it does not make one urgent."""
        return self.urgency >= URGENT


def _food_rank(i: int, food: str, p: Percept, remembered: Mapping[str, float]) -> tuple[int, float, int, str]:
    """(class, distance, FOOD_GOALS order, why): raw meat carried, then an animal in view, remembered, unknown."""
    raw = MEAT.get(food)
    animal = next((a for a, _ in nature.hunted_for(raw)), None) if raw else None
    if raw and p.inventory.get(raw):
        return 0, 0.0, i, f"{raw} carried raw: cook it"
    if animal in p.animals:
        return 1, p.animals[animal], i, f"a {animal} in view, {p.animals[animal]:g} blocks away"
    if animal is not None and remembered.get(animal, REMEMBERED_RANGE + 1) <= REMEMBERED_RANGE:
        return 2, remembered[animal], i, f"a {animal} remembered {remembered[animal]:.0f} blocks away"
    return 3, 0.0, i, ""


def food_goals(need: Need, p: Percept, remembered: Mapping[str, float]) -> list[GoalSpec]:
    """One goal per food, the likeliest first: cooking raw meat carried, hunting an animal in view, then one
    memory saw, then FOOD_GOALS order. A hunt the bot can see costs little, so it comes before tool work
    (OPPORTUNE); a hunt for an animal never seen searched a quarter day in vain on natural seed 5. Memory's
    success rates then sink the foods this world lacks."""
    out: list[GoalSpec] = []
    ranked = sorted(_food_rank(i, food, p, remembered) for i, food in enumerate(FOOD_GOALS))
    for n, (cls, _, i, why) in enumerate(ranked):
        food = FOOD_GOALS[i]
        urgency = need.urgency * 0.9 - 0.01 * n
        if cls <= 1:
            urgency = max(urgency, OPPORTUNE - 0.01 * n)
        out.append(GoalSpec(task_id=f"food:{food}", goal=f"obtain {food}", kind=GoalKind.ROUTED, need=need.kind,
                            urgency=round(urgency, 4), why=[*need.reasons, *([why] if why else [])]))
    return out


def goals_for(needs: list[Need], state: HomeostasisState,
              remembered: Mapping[str, float] | None = None) -> list[GoalSpec]:
    """What the bot can do about each need, now; ``remembered``: hunted animal -> distance of where memory saw one."""
    p = state.percept
    out: list[GoalSpec] = []
    for need in needs:
        if need.kind in (NeedKind.FOOD, NeedKind.HEALTH):
            # ready food from EAT_AT down; raw meat only once hungry (until then it is worth cooking first)
            if (p.ready_food and p.food <= EAT_AT) or (p.food_carried and p.food <= EAT_RAW_AT):
                out.append(GoalSpec(task_id="eat", goal="eat", kind=GoalKind.ROUTINE, need=need.kind,
                                    urgency=need.urgency, why=need.reasons))
            elif need.kind is NeedKind.FOOD and not p.ready_food:
                out += food_goals(need, p, remembered or {})
        elif need.kind is NeedKind.SAFETY and p.nearest_threat == "creeper" and not state.sheltered:
            # run: a creeper lights its fuse within 3 blocks and gives up beyond 7; it walks slower than the bot
            out.append(GoalSpec(task_id="flee", goal="flee", kind=GoalKind.ROUTINE, need=need.kind,
                                urgency=max(need.urgency, URGENT + 0.05),
                                why=[*need.reasons, "a creeper near: run from it"]))
        elif need.kind is NeedKind.SAFETY:
            # hide: the pit keeps every mob of the embedded world out of reach, by day as by night; hurt with a
            # hostile near, hiding becomes urgent (it may stop a routine task at its next safe point)
            hurt = p.hostiles > 0 and p.health < HIDE_BELOW_HEALTH
            out.append(GoalSpec(task_id="shelter", goal="shelter", kind=GoalKind.ROUTINE, need=need.kind,
                                urgency=max(need.urgency, URGENT) if hurt else need.urgency,
                                why=[*need.reasons, *(["hurt: hide"] if hurt else [])]))
        elif need.kind is NeedKind.SHELTER:
            out.append(GoalSpec(task_id="shelter", goal="shelter", kind=GoalKind.ROUTINE, need=need.kind,
                                urgency=need.urgency, why=need.reasons))
        elif need.kind is NeedKind.TOOLS:
            nxt = TIER_NAMES[min(state.tool_tier + 1, MAX_TIER)]
            out.append(GoalSpec(task_id=f"tools:{nxt}", goal=f"obtain {nxt}", kind=GoalKind.ROUTED,
                                need=need.kind, urgency=need.urgency, why=need.reasons))
    morning = SHELTER_LEAVE_FROM <= p.time_of_day < SHELTER_LEAVE_UNTIL
    if state.sheltered and morning and not p.hostiles:
        out.append(GoalSpec(task_id="leave_shelter", goal="leave_shelter", kind=GoalKind.ROUTINE,
                            urgency=0.7, why=["day, and no hostile within 12 blocks: leave the shelter"]))
    return out


class GoalManager:
    """Scores candidate goals with memory and keeps them on a TaskBoard (eligibility, backoff)."""

    def __init__(self, memory: EpisodicMemory) -> None:
        self.memory = memory
        self.board = TaskBoard()
        self.specs: dict[str, GoalSpec] = {}
        #: goal -> not before (ms): goals no planner could plan ("obtain apple" on a world without a way to
        #: apples) were retried every few minutes all day; a need that passes and comes back must not reset it
        self.unplannable: dict[str, int] = {}
        #: tasks that stay until done (suggestions, bootstrap goals, preempted tasks), not only while a need lasts
        self.sticky: set[str] = set()

    def score(self, spec: GoalSpec) -> float:
        return round(spec.urgency * (0.5 + 0.5 * self.memory.success_rate(spec.goal)), 4)

    def offer(self, spec: GoalSpec, *, sticky: bool = False) -> GoalSpec:
        spec = spec.model_copy(update={"priority": self.score(spec)})
        self.specs[spec.task_id] = spec
        if spec.task_id in self.board._tasks:
            self.board.get(spec.task_id).priority = spec.priority
        else:
            self.board.add(Task(task_id=spec.task_id, priority=spec.priority, payload={"goal": spec.goal},
                                next_eligible_at=self.unplannable.get(spec.goal, 0)))
        if sticky:
            self.sticky.add(spec.task_id)
        return spec

    def refresh(self, candidates: list[GoalSpec]) -> None:
        """Offer this cycle's need goals; need goals no longer proposed leave the board (the need passed)."""
        fresh = {c.task_id for c in candidates}
        for task_id in list(self.specs):
            if task_id not in fresh and task_id not in self.sticky:
                self.board.remove(task_id)
                del self.specs[task_id]
        for c in candidates:
            self.offer(c)

    def select(self, now_ms: int) -> GoalSpec | None:
        task = self.board.select(now_ms)
        return self.specs[task.task_id] if task is not None else None

    def preempting(self, running: GoalSpec, now_ms: int) -> GoalSpec | None:
        """An urgent eligible goal that should stop ``running`` at its next safe point, if any."""
        best = self.select(now_ms)
        if best is None or best.task_id == running.task_id:
            return None
        if best.urgent and best.priority >= running.priority + PREEMPT_MARGIN:
            return best
        return None

    def block(self, task_id: str, reason: str, now_ms: int) -> int:
        """Back off a failed task: the taxonomy's wait for a block code, else a doubling transient wait; a goal no
        planner could plan waits a game day, however often its need comes back (see ``unplannable``)."""
        if task_id not in self.board._tasks:
            return 0
        task = self.board.block(task_id, reason, now_ms)
        spec = self.specs.get(task_id)
        if spec is not None and any(k in reason for k in NO_PLAN):
            task.next_eligible_at = self.unplannable[spec.goal] = now_ms + UNPLANNABLE_BACKOFF_MS
            return task.next_eligible_at
        if reason.startswith(OUT_OF_TIME):
            # it ran a whole task budget (a quarter day) in vain: a hunt for an animal nowhere near, bread waiting
            # for wheat; retried half a minute later it spent the next quarter day the same way
            task.next_eligible_at = now_ms + DETERMINISTIC_BLOCK_BACKOFF_MS * min(4, task.blocks)
        elif task.next_eligible_at <= now_ms:  # a failure that is not a block code still must not hot-loop
            task.next_eligible_at = now_ms + TRANSIENT_BLOCK_BACKOFF_MS * min(8, 2 ** (task.blocks - 1))
        if spec is not None and spec.urgent:  # the night will not wait 5 minutes: retry from where the bot stands
            task.next_eligible_at = min(task.next_eligible_at, now_ms + TRANSIENT_BLOCK_BACKOFF_MS)
        return task.next_eligible_at

    def done(self, task_id: str) -> None:
        self.board.remove(task_id)
        self.specs.pop(task_id, None)
        self.sticky.discard(task_id)

    def keep(self, spec: GoalSpec) -> None:
        """A preempted task stays on the board until it is done, even if its need has paused meanwhile."""
        self.offer(spec, sticky=True)

    def defer(self, task_id: str, until_ms: int) -> None:
        """Not before ``until_ms`` (the night's end for work that waits for the day)."""
        if task_id in self.board._tasks:
            task = self.board.get(task_id)
            task.next_eligible_at = max(task.next_eligible_at, until_ms)
