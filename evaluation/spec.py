"""What an evaluation episode is and what it reports: its spec (a content id, so a resumed run skips it) and result."""

from __future__ import annotations

import hashlib
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

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
