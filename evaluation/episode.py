"""One evaluation episode: a goal, planned and run on a freshly generated world for one seed.

An episode is a pure function of its spec: the world is generated from the seed, the router
starts from empty priors (so no episode learns from another, and the order episodes run in,
or the number of workers running them, cannot change a result), and the LLM planner takes
part only when one is configured. What differs between two runs of the same spec is only
the provenance that must differ: the run id and the wall time.
"""

from __future__ import annotations

import hashlib
import time
import traceback
from contextlib import ExitStack
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.bot.body import BodySpec, make_body
from craftbt.bot.bot import Bot, body_and_config
from craftbt.core.errors import CraftbtError
from craftbt.router.priors import PriorsStore
from craftbt.world.body import Body

MAX_SEED = 2**63 - 1


class WorldKind(StrEnum):
    """The generated worlds an episode can run on (the scenario generator types)."""

    STARTER = "starter"
    NATURAL = "natural"
    FLAT = "flat"


class EpisodeStatus(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    NO_PLAN = "no_plan"
    #: the episode raised something that is not a structured error: a craftbt bug, kept as a result
    ERROR = "error"


class EpisodeBody(StrEnum):
    """Where an episode runs: the embedded world, or the test server serving the same world (``--body``)."""

    SIM = "sim"
    MINEFLAYER = "mineflayer"


#: the ``world`` label of an episode run on a server: the report shows it as a column of its own
SERVER_SUFFIX = "@server"


class EpisodeSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    goal: str = Field(min_length=1, max_length=200)
    seed: int = Field(ge=0, le=MAX_SEED)
    planner: str = "auto"
    world: WorldKind = WorldKind.STARTER
    max_ticks: int = Field(default=24_000, ge=1, le=10_000_000)
    body: EpisodeBody = EpisodeBody.SIM
    #: with ``body`` mineflayer: ``host:port`` of a server already serving the world, or None to start
    #: flying-squid serving it for this episode alone (see :mod:`craftbt.evaluation.server_episode`)
    server: str | None = None
    #: with ``server``: the geofence (``x1,y1,z1:x2,y2,z2``); a started server gets the embedded world's fence
    geofence: str | None = None

    @property
    def key(self) -> str:
        """A content id: the same spec always has the same key, so a resumed evaluation skips it."""
        text = f"{self.goal}\x1f{self.seed}\x1f{self.planner}\x1f{self.world.value}\x1f{self.max_ticks}"
        if self.body is EpisodeBody.MINEFLAYER:  # embedded episodes keep the keys they always had
            text += f"\x1f{self.body.value}\x1f{self.server}\x1f{self.geofence}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    @property
    def world_label(self) -> str:
        """The ``world`` an episode's result reports: ``natural``, or ``natural@server`` on a server."""
        return self.world.value + (SERVER_SUFFIX if self.body is EpisodeBody.MINEFLAYER else "")


class EpisodeResult(BaseModel):
    """What one episode did, with its provenance (run id, plan digests, why it failed)."""

    key: str
    goal: str
    seed: int
    planner: str
    world: str
    status: EpisodeStatus
    chosen_planner: str | None = None
    attempts: int = 0
    run_id: str | None = None
    executor_plan_digest: str | None = None
    expansion_digest: str | None = None
    reason: str | None = None
    sim_ticks: int = 0
    leaves_run: int = 0
    dispatches: int = 0
    wall_ms: float = 0.0
    worker: str = ""

    @property
    def ok(self) -> bool:
        return self.status is EpisodeStatus.SUCCESS

    def outcome(self) -> dict[str, object]:
        """The fields that must not depend on who ran the episode or when (run ids and wall time excluded)."""
        return self.model_dump(mode="json", include={
            "key", "goal", "seed", "planner", "world", "status", "chosen_planner", "attempts",
            "executor_plan_digest", "expansion_digest", "reason", "sim_ticks", "leaves_run", "dispatches",
        })


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
