"""Resource sub-tasks (seed 001 stage 4): a material deficit becomes a child task with its own plan.

:class:`SolverAcquirer` turns "acquire N item" into a crafting-solver plan
(:class:`planners.solver.CraftingSolver`) and runs it through the executor on
the build's journaling body. Each executor run appends a progress entry (the
item count reached) to the child task — its checkpoint — so a killed sub-task
resumes from its inventory, not from its first step. Where the bot ends up is not its
concern: the runner brings it back to where it left the build afterwards, whichever acquirer ran
(:mod:`router.build.return_trip`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from craftbt.capabilities.structures import is_air
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.intent import Goal, GoalVerb, Intent
from craftbt.router.build.stations import station_kinds
from craftbt.world import nature
from craftbt.world.body import BlockPos

if TYPE_CHECKING:
    from craftbt.router.build.runner import BuildRunner

MAX_ROUNDS = 3
#: What a sub-task's survey looks for: every block the overworld generates (world.nature), 48 blocks around.
SURVEY_BLOCKS = sorted(nature.SURFACE | nature.UNDERGROUND | set(nature.MINING_Y))
SURVEY_RADIUS = 48


class SolverAcquirer:
    def __call__(self, runner: BuildRunner, subtask: dict[str, Any]) -> bool:
        from craftbt.planners.solver import CraftingSolver

        item = subtask["goal"]["item"]
        target = int(subtask["goal"]["count"])
        for _ in range(MAX_ROUNDS):
            have = runner.inventory().get(item, 0)
            if have >= target:
                return True
            # The survey the goal runs use: what is in view is mined, what is not is explored for (a
            # block the overworld generates is never "unobtainable" because it is out of sight).
            seen = PlanningState.survey(runner.raw_body, SURVEY_BLOCKS, SURVEY_RADIUS)
            state = PlanningState(inventory=runner.inventory(), position=runner.raw_body.position().block(),
                                  available_blocks=seen.available_blocks, block_distance=seen.block_distance,
                                  stations=seen.stations)
            intent = Intent(goal=Goal(verb=GoalVerb.OBTAIN, target=item, count=target))
            try:
                plan = CraftingSolver().plan(intent, state, runner.registry)
            except PlanningFailure as err:
                runner.store.task_progress(subtask["task_id"], {"error": err.reason, "have": have})
                return False
            # Reachability before craft and smelt: the plan's stations are ensured from the build's registry
            # first, so its place_workstation steps reuse them (the bot walks there) instead of littering.
            runner.ensure_stations_for(station_kinds(plan.tree))
            # Checkpoint before and after each run: a kill in between leaves an in_flight entry, and the
            # steps journal settles the interrupted craft/take by inventory delta on resume.
            runner.store.task_progress(subtask["task_id"], {"phase": "in_flight", "have": have, "target": target})
            runner.body.task_id = subtask["task_id"]
            executor = runner.executor()
            # what the structure has built is kept out of reach: never dug for its material nor tunnelled
            # through (a trip for two more cobblestone, its mining step stopping at the plan's total, dug
            # two of the hut's walls)
            b = runner.site.footprint_bounds
            cells = (BlockPos(x, y, z) for x in range(b.min.x, b.max.x + 1) for y in range(b.min.y, b.max.y + 1)
                     for z in range(b.min.z, b.max.z + 1))
            executor.unreachable.update(c for c in cells if not is_air(runner.raw_body.block_at(c).name))
            try:
                outcome = executor.run(plan.tree, task_id=subtask["task_id"])
            finally:
                runner.body.task_id = None
            runner.store.task_progress(
                subtask["task_id"],
                {
                    "phase": "run",
                    "run": outcome.run_id,
                    "status": outcome.status,
                    "have": runner.inventory().get(item, 0),
                },
            )
            runner.body.flush()
        return runner.inventory().get(item, 0) >= target
