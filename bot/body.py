"""The one body factory: a :class:`BodySpec` (an embedded world, a scenario, or a real server) -> a body.

Every front door (``craftbt run``, ``plan``, ``script run``, ``prove``, ``serve``, ``mcp``, the Python API's
:func:`~craftbt.bot.bot.create_bot`, eval and fleet) describes its body with the same fields and makes it
here, so ``--world natural --seed 7`` means the same world everywhere and an unreachable server is the same
clear error everywhere (exit 1, located at ``host:port``).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.executor.config import Bounds, scenario_fence
from craftbt.world.body import Body, BodyError, BodyErrorCode
from craftbt.world.scenarios.loader import WORLDS

#: a real server's defaults: a local server, and the protocol version the adapter is tested with
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 25565
DEFAULT_VERSION = "1.21.4"


class BodyKind(StrEnum):
    SIM = "sim"
    MINEFLAYER = "mineflayer"


class BodySpec(BaseModel):
    """What body a bot gets: an embedded world (``world`` and ``seed``, or a ``scenario`` file) or a real server
    (``host``, ``port``, ``version``). Giving a host or a port means a real server unless ``body`` says
    otherwise."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    body: BodyKind | None = Field(default=None, description="sim | mineflayer (default: mineflayer when a host "
                                  "or port is given, else sim)")
    world: str = Field(default="starter", description="natural | starter | flat (embedded world, no scenario)")
    seed: int = Field(default=0, description="World seed (and the router's)")
    scenario: Path | None = Field(default=None, description="A scenario YAML for the embedded world")
    host: str | None = Field(default=None, description="The Minecraft server's address")
    port: int | None = Field(default=None, ge=1, le=65535, description="The Minecraft server's port")
    version: str | None = Field(default=None, description="The server's Minecraft protocol version")
    username: str = Field(default="craftbt", description="The bot's name on the server (offline auth)")
    snapshot: Path | None = Field(default=None, description="An embedded world saved by `craftbt live`, restored")
    realtime: bool = Field(default=False, description="The embedded world at Minecraft's pace (20 ticks a second)")
    inventory: dict[str, int] | None = Field(default=None, description="Start holding this, on a flat world (or "
                                             "`world`) beside a crafting table and a furnace")

    @field_validator("world")
    @classmethod
    def _known_world(cls, world: str) -> str:
        if world not in WORLDS:
            raise ValueError(f"unknown world {world!r}, expected one of {', '.join(WORLDS)}")
        return world

    @property
    def kind(self) -> BodyKind:
        if self.body is not None:
            return self.body
        return BodyKind.MINEFLAYER if self.host is not None or self.port is not None else BodyKind.SIM

    @property
    def address(self) -> tuple[str, int]:
        return self.host or DEFAULT_HOST, self.port or DEFAULT_PORT

    def label(self) -> str:
        """What the journal's ``scenario`` column and a report call this body."""
        if self.kind is BodyKind.MINEFLAYER:
            host, port = self.address
            return f"{host}:{port}"
        return str(self.scenario) if self.scenario is not None else self.world


def body_spec(**fields: Any) -> BodySpec:
    """A :class:`BodySpec` from the front door's options; a bad one is a usage error naming the option."""
    try:
        return BodySpec(**fields)
    except ValidationError as err:
        problems = [Problem(ErrorCode.INVALID_ARGUMENT, str(e["msg"]).removeprefix("Value error, "),
                            Location(path="--" + ".".join(str(p) for p in e["loc"]).replace("_", "-")))
                    for e in err.errors()]
        raise CraftbtError(problems) from None


def make_body(spec: BodySpec) -> tuple[Body, Bounds | None]:
    """The body ``spec`` describes, and its default geofence: the scenario's bounds (or a box around the bot) on
    an embedded world; none on a real server, where world-changing leaves stay refused until one is given."""
    if spec.kind is BodyKind.SIM:
        from craftbt.world.scenarios.loader import load_scenario, world_body
        from craftbt.world.sim.snapshot import load_file

        if spec.inventory is not None:
            from craftbt.world.scenarios.loader import inventory_world

            if spec.scenario is not None or spec.snapshot is not None:
                raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, "--inventory with --scenario",
                                          expected="one of them: a scenario sets its own inventory")
            sim: Body = inventory_world(spec.inventory, "flat" if spec.world == "starter" else spec.world, spec.seed)
        elif spec.snapshot is not None:
            sim = load_file(spec.snapshot)
        elif spec.scenario is not None:
            sim = load_scenario(spec.scenario, spec.seed, realtime=spec.realtime)
        else:
            sim = world_body(spec.world, spec.seed, realtime=spec.realtime)
        clock = getattr(getattr(sim, "world", None), "clock", None)
        if spec.realtime and clock is not None:
            clock.start_pacing()  # from now on, not from tick 0 (a restored world is ticks ahead)
        return sim, scenario_fence(sim)
    from craftbt.world.mineflayer.body import MineflayerBody

    host, port = spec.address
    try:
        real: Body = MineflayerBody.connect(host=host, port=port, username=spec.username,
                                            version=spec.version or DEFAULT_VERSION)
    except BodyError as err:
        if err.code not in (BodyErrorCode.BODY_DISCONNECTED, BodyErrorCode.TIMEOUT):
            raise
        raise CraftbtError.single(
            ErrorCode.SERVER_UNREACHABLE, f"no Minecraft server answered at {host}:{port}: "
            f"{(err.detail.splitlines() or [''])[0][:300]}; is a server running there? (`craftbt server start "
            f"--port {port}` starts one), or check the host and port",
            location=Location(file=f"{host}:{port}")) from None
    return real, None
