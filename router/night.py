"""Nights in a goal run: stop surface work at sunset, sit the night out in a roofed pit, climb out at morning.

A goal run on a natural world lasts for days of game time (bread: 89 simulated minutes, four nights). On the
held-out seeds every night-time death and most failed hunts came from working on the surface in the dark.
The autonomy loop shelters for the night already; this gives :func:`~craftbt.router.router.run_goal` the
same routines (:mod:`craftbt.router.routines`):

- while a planned tree runs, :class:`NightWatch` asks the executor to stop at its next safe point when the
  evening comes and the bot is on the surface with no hostile near (work underground goes on: mobs spawn on
  the surface), unless the running step hunts a mob of the night that is in view or burns at dawn
  (:mod:`craftbt.router.hunts`): it stops after the hunt;
- :func:`sit_out_the_night` digs the pit, roofs it, waits in :data:`WAIT_MS` slices until the morning and
  digs the stair out; every stage is a tree of registered capabilities run through the executor, journalled
  like any run;
- the goal run then routes again from where the bot stands; a night costs no replan.

Where no pit can be dug here or a few steps away (water, lava, bedrock or a cave under the feet, nothing
carried or dug that would roof it), or while a hostile is near, the tree works on, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from craftbt.executor.state import MS_PER_TICK
from craftbt.router import routines
from craftbt.router.hunts import hunting_at_night
from craftbt.trees import model as m
from craftbt.world.body import TICKS_PER_DAY, Body

if TYPE_CHECKING:
    from craftbt.executor.executor import Executor, RunOutcome

#: the stop for the night is asked from sunset (vanilla 12,000), before the dark lets hostiles spawn (~13,000)
SUNSET = 12_000
#: the sheltered bot leaves from here: the undead left from the night have burned in the sun for 50 s
MORNING = 1_000
#: the stop reason a night gives the executor (the run ends ``preempted`` with it)
NIGHT_STOP = "night: shelter until the morning"
#: no pit is begun with a hostile this near: digging in takes seconds, and a swarm kills a bot that stands still
#: (the safety fast path deals with it first; ``hostile_swarm``: the pit's first dig died)
CLEAR_OF_HOSTILES = 12.0
#: in the morning the bot stays in its pit while a hostile is near, in slices of this, until this time of day
#: (a creeper never leaves: it does not burn, and it waits by the pit)
HOSTILE_WAIT_MS, LATEST_OUT = 10_000, 4_000
#: with no ground to dig a shelter in near, the next look is this much later (the bot walks on meanwhile)
NO_SITE_RECHECK_TICKS = 200
#: the surface is re-checked this often at night (the underground test reads a column of blocks)
CHECK_EVERY_TICKS = 20
#: one wait leaf's slice of the night (the ``wait`` capability's own bound: 5 minutes)
WAIT_MS = 300_000
#: nights one goal run shelters for at most (bread took four); later ones are worked through
MAX_NIGHTS = 12
#: stair stages out of the pit (one is enough out of a 4-deep pit; more out of a shaft it was dug in)
CLIMB_STAGES = 4


def dark_hours(time_of_day: int) -> bool:
    """From sunset to the morning: no surface work in a goal run."""
    tod = time_of_day % TICKS_PER_DAY
    return tod >= SUNSET or tod < MORNING


def ticks_to_morning(time_of_day: int) -> int:
    return (MORNING - time_of_day) % TICKS_PER_DAY


class NightWatch:
    """A tick listener of the executor while a planned tree runs (:meth:`Executor.listening`): in the dark hours,
    on the surface, stop at the next safe point (:meth:`Executor.request_stop`)."""

    def __init__(self, body: Body) -> None:
        self.body = body
        self.stopped = False
        #: a night that could not be sheltered is worked through: no stop before this tick
        self.awake_until = 0

    def __call__(self, executor: Executor, run: Any, root: Any) -> None:
        now = self.body.now_ticks()
        if self.stopped or now < self.awake_until or now % CHECK_EVERY_TICKS \
                or hunting_at_night(executor, run):
            return  # a hunt for a mob of the night is what the dark is for: the shelter waits until it ends
        body = self.body
        if dark_hours(body.observe().time_of_day) and not routines.underground(body) \
                and not routines.sheltered(body) and not body.entities(CLEAR_OF_HOSTILES, kind="hostile"):
            if routines.dig_pit(body) is None and routines.pit_site(body) is None:
                # nowhere to dig in (a desert's sand, and nothing carried to roof it with: natural seed 22): the
                # tree works on, as it did before nights were sat out, and looks again a little later
                self.awake_until = now + NO_SITE_RECHECK_TICKS
                return
            self.stopped = True
            executor.request_stop(NIGHT_STOP)

    def work_through_the_night(self) -> None:
        """A night that could not be sheltered: no stop again until the morning."""
        self.awake_until = self.body.now_ticks() + ticks_to_morning(self.body.observe().time_of_day)


class Night(BaseModel):
    """What one night did: the shelter's runs, and whether the bot spent it sheltered."""

    sheltered: bool = False
    #: why it was not (no pit could be dug, a stage failed)
    why: str | None = None
    started_at: int
    ended_at: int = 0
    run_ids: list[str] = Field(default_factory=list)


def _wait_tree(ms: int) -> m.TreeDefinition:
    return m.TreeDefinition(tree="wait_for_morning", description="wait in the shelter for the morning",
                            source="router:night", root=m.SequenceNode(name="wait_for_morning", children=[
                                m.LeafNode(name="wait", capability="wait", args={"ms": ms})]))


def sit_out_the_night(executor: Executor, outcomes: list[RunOutcome], hunted: frozenset[str] = frozenset()) -> Night:
    """Dig in, wait for the morning, climb out; every run's outcome is appended to ``outcomes``. ``hunted``: the
    mobs the goal's plan hunts, which the morning does not wait to see gone
    (:func:`craftbt.router.hunts.hunted_in`)."""
    body = executor.inner_body
    night = Night(started_at=body.now_ticks())

    def run(tree: m.TreeDefinition) -> bool:
        out = executor.run(tree, task_id="night-shelter")
        outcomes.append(out)
        night.run_ids.append(out.run_id)
        if not out.ok:
            night.why = f"{tree.tree}: {out.status}"
        return out.ok

    routines.settle(body)
    top = body.position().block()
    night.sheltered = routines.sheltered(body)
    if not night.sheltered:
        pit = routines.dig_pit(body)
        site = None
        if pit is None:
            site = routines.pit_site(body)
        elif not routines.clear_way_out(body, top):
            # the morning's stair from here would climb into a tree: a pit nearby with a clear way out, if any
            site = routines.pit_site(body, clear=True)
        if site is not None:
            walked = run(routines.go_to(site, 0.5))
            routines.settle(body)
            if walked or pit is not None:  # the pit planned here is not dug wherever a failed walk left the bot
                top = body.position().block()
                pit = routines.dig_pit(body)
        if pit is None:
            night.why = "no pit can be dug here (water, lava or bedrock under the feet, or nothing to roof it with)"
        elif run(pit):
            routines.settle(body)
            roof = routines.roof_over(body)
            if roof is None or run(roof):
                seal = routines.seal_walls(body)
                if seal is not None:
                    run(seal)
                night.sheltered = routines.sheltered(body)
                if not night.sheltered and night.why is None:
                    night.why = "the pit is open (its roof or a side, and no block to place there)"
        if not night.sheltered and body.position().block().y < top.y - 1:
            run(routines.leave_shelter(body))  # not left at the bottom of an open pit for the night's work
    if night.sheltered:
        while dark_hours(body.observe().time_of_day):
            wait = min(WAIT_MS, ticks_to_morning(body.observe().time_of_day) * MS_PER_TICK)
            if not run(_wait_tree(max(wait, 50))):
                break
        # the undead burn in the morning sun, but not in a tree's shade (natural seed 4: a skeleton shot the bot
        # as it climbed out): a while longer in the pit while one is near
        # ... but not for the mob the goal hunts: natural seed 1's crossbow waited in its pit till time 4,000 while the
        # spider it wanted stood 7 blocks off at dawn, and climbed out to the creepers when it had wandered off
        while any(e.name not in hunted for e in body.entities(CLEAR_OF_HOSTILES, kind="hostile")) \
                and MORNING <= body.observe().time_of_day < LATEST_OUT:
            if not run(_wait_tree(HOSTILE_WAIT_MS)):
                break
        for _ in range(CLIMB_STAGES):  # on until out of the ground (natural seed 6 sheltered in its mine's shaft)
            routines.settle(body)
            if not run(routines.leave_shelter(body)) or not (routines.underground(body) or routines.in_a_hole(body)):
                break
    night.ended_at = body.now_ticks()
    return night
