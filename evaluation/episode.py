"""One evaluation episode: a goal, planned and run on a freshly generated world for one seed.

An episode is a pure function of its spec: the world is generated from the seed, the router
starts from empty priors (so no episode learns from another, and the order episodes run in,
or the number of workers running them, cannot change a result), and the LLM planner takes
part only when one is configured. What differs between two runs of the same spec is only
the provenance that must differ: the run id and the wall time.
"""

from __future__ import annotations

import time
import traceback
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from craftbt.bot.body import BodySpec, make_body
from craftbt.bot.bot import Bot, body_and_config
from craftbt.core.errors import CraftbtError
from craftbt.evaluation.spec import MAX_SEED as MAX_SEED
from craftbt.evaluation.spec import SERVER_SUFFIX as SERVER_SUFFIX
from craftbt.evaluation.spec import EpisodeBody as EpisodeBody
from craftbt.evaluation.spec import EpisodeResult as EpisodeResult
from craftbt.evaluation.spec import EpisodeSpec as EpisodeSpec
from craftbt.evaluation.spec import EpisodeStatus as EpisodeStatus
from craftbt.evaluation.spec import WorldKind as WorldKind
from craftbt.router.priors import PriorsStore
from craftbt.world.body import Body


def body_spec_for(spec: EpisodeSpec) -> BodySpec:
    """The same world ``craftbt run --world`` makes for this seed (``natural`` is the vanilla-like one)."""
    return BodySpec(world=spec.world.value, seed=spec.seed)


def world_for(spec: EpisodeSpec) -> Body:
    """The episode's world, from the one body factory."""
    return make_body(body_spec_for(spec))[0]


def run_episode(spec: EpisodeSpec, home: Path, *, worker: str = "local") -> EpisodeResult:
    """Generate the world (or serve it), route and run the goal (with replanning), and report; never raises."""
    started = time.perf_counter()
    base: dict[str, Any] = {"key": spec.key, "goal": spec.goal, "seed": spec.seed, "planner": spec.planner,
            "world": spec.world_label, "worker": worker}
    try:
        with ExitStack() as stack:
            if spec.body is EpisodeBody.MINEFLAYER:
                from craftbt.evaluation.server_episode import server_body  # Node only for server episodes

                body, config = stack.enter_context(server_body(spec))
            else:
                body, config = body_and_config(body_spec_for(spec), max_ticks=spec.max_ticks)
            bot = stack.enter_context(Bot(body, config=config, home=home, seed=spec.seed,
                                          scenario=f"eval:{spec.world_label}", priors=PriorsStore(":memory:"),
                                          body_kind=spec.body.value, owns_body=spec.body is EpisodeBody.MINEFLAYER))
            goal_run = bot.run_goal(spec.goal, planner=spec.planner)
    except CraftbtError as err:
        return EpisodeResult(**base, status=EpisodeStatus.NO_PLAN, reason=err.problems[0].message[:500],
                             wall_ms=(time.perf_counter() - started) * 1000)
    except Exception as err:
        detail = "".join(traceback.format_exception_only(type(err), err)).strip()
        return EpisodeResult(**base, status=EpisodeStatus.ERROR, reason=detail[:500],
                             wall_ms=(time.perf_counter() - started) * 1000)
    last = goal_run.outcomes[-1] if goal_run.outcomes else None
    reason = None
    failure = last.failure if last is not None else None
    if failure is not None:
        reason = failure.key
    return EpisodeResult(
        **base,
        status=EpisodeStatus.SUCCESS if goal_run.ok else EpisodeStatus.FAILURE,
        chosen_planner=goal_run.decisions[-1].chosen if goal_run.decisions else None,
        attempts=len(goal_run.attempts),
        run_id=last.run_id if last else None,
        executor_plan_digest=(last.digests.get("executor_plan_digest") if last else None),
        expansion_digest=(last.digests.get("expansion_digest") if last else None),
        reason=reason,
        sim_ticks=goal_run.sim_ticks(),
        leaves_run=sum(o.leaves_run for o in goal_run.outcomes),
        dispatches=sum(o.dispatches for o in goal_run.outcomes),
        wall_ms=(time.perf_counter() - started) * 1000,
    )
