"""Resource sub-tasks (seed 001 stage 4): a material deficit becomes a child task with its own plan.

:class:`SolverAcquirer` turns "acquire N item" into a crafting-solver plan
(:class:`planners.solver.CraftingSolver`) and runs it through the executor on
the build's journaling body. Each executor run appends a progress entry (the
item count reached) to the child task — its checkpoint — so a killed sub-task
resumes from its inventory, not from its first step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.intent import Goal, GoalVerb, Intent
from craftbt.router.build.stations import station_kinds

if TYPE_CHECKING:
    from craftbt.router.build.runner import BuildRunner

MAX_ROUNDS = 3


class SolverAcquirer:
    def __call__(self, runner: BuildRunner, subtask: dict[str, Any]) -> bool:
        from craftbt.planners.solver import CraftingSolver

        item = subtask["goal"]["item"]
        target = int(subtask["goal"]["count"])
        for _ in range(MAX_ROUNDS):
            have = runner.inventory().get(item, 0)
            if have >= target:
                return True
            # No block survey: the solver then assumes natural blocks can be found (an empty survey would
            # claim nothing exists, not even what the inventory already holds the makings of).
            state = PlanningState(inventory=runner.inventory(), position=runner.raw_body.position().block())
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
            try:
                outcome = runner.executor().run(plan.tree, task_id=subtask["task_id"])
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
            if runner.persist is not None:
                runner.persist()
        return runner.inventory().get(item, 0) >= target
