"""The executor's settings: geofence, permission profiles, rate limits, shadow mode, budgets.

A geofence of ``None`` means *no bounds configured*: the pipeline then refuses
every world-changing leaf (fail closed). ``craftbt run`` on the simulator sets
the geofence to the scenario's bounds.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from craftbt.capabilities.spec import Permission, command_name
from craftbt.world.body import BlockPos, Position

#: half the side of the box around the bot that fences an embedded world without declared bounds
DEFAULT_FENCE_RADIUS = 64
#: the same on the natural world (``--world natural``), which guarantees nothing near spawn: sheep come in
#: groups on about 3% of its chunks, and each hunt's 48-block search spiral starts where the last hunt ended,
#: so the three hunts for a bed's wool, their chases and a retreat from a night mob range far. With a 64-block
#: box white_bed failed on 6 of natural seeds 0-19 (3 walked out of it; 3 died or lost a drop on the way the
#: box left them); with 192 all 6 succeeded.
NATURAL_FENCE_RADIUS = 192
#: ``describe()["type"]`` / ``kind`` of the natural world's generator (world.sim.natural; not imported here:
#: the executor must not depend on the simulator)
NATURAL_WORLD_KIND = "natural_world"


class Bounds(BaseModel):
    """An axis-aligned box of block coordinates, inclusive on both ends."""

    model_config = ConfigDict(frozen=True)

    min_x: int
    min_y: int
    min_z: int
    max_x: int
    max_y: int
    max_z: int

    @model_validator(mode="after")
    def _ordered(self) -> Bounds:
        if self.min_x > self.max_x or self.min_y > self.max_y or self.min_z > self.max_z:
            raise ValueError("geofence min must not exceed max on any axis")
        return self

    def contains(self, pos: BlockPos | Position) -> bool:
        return (
            self.min_x <= pos.x <= self.max_x + (0.999 if isinstance(pos, Position) else 0)
            and self.min_y <= pos.y <= self.max_y + (0.999 if isinstance(pos, Position) else 0)
            and self.min_z <= pos.z <= self.max_z + (0.999 if isinstance(pos, Position) else 0)
        )

    @classmethod
    def parse(cls, text: str) -> Bounds:
        """``"x1,y1,z1:x2,y2,z2"`` (corners in any order)."""
        try:
            a, b = text.split(":")
            p = [int(v) for v in a.split(",")]
            q = [int(v) for v in b.split(",")]
            if len(p) != 3 or len(q) != 3:
                raise ValueError
        except ValueError:
            raise ValueError(f"geofence {text!r} is not 'x1,y1,z1:x2,y2,z2'") from None
        return cls(
            min_x=min(p[0], q[0]), min_y=min(p[1], q[1]), min_z=min(p[2], q[2]),
            max_x=max(p[0], q[0]), max_y=max(p[1], q[1]), max_z=max(p[2], q[2]),
        )


#: Everything but server commands: on a server where the bot is an operator a command is every power
#: (``/op``, ``/kill @a``, ``/stop``), so only the explicit ``operator`` profile grants them.
ALL_PERMISSIONS = frozenset(Permission) - {Permission.COMMAND}

#: Permission profiles: a profile grants a set; a leaf needing anything else is refused.
PROFILES: dict[str, frozenset[Permission]] = {
    "operator": frozenset(Permission),
    "full": ALL_PERMISSIONS,
    "survival": ALL_PERMISSIONS - {Permission.REDSTONE},
    "builder": frozenset(
        {Permission.MOVEMENT, Permission.DIG, Permission.PLACE, Permission.CRAFT, Permission.SENSE,
         Permission.INVENTORY, Permission.CONTAINER_READ, Permission.CONTAINER_WRITE, Permission.CONSUME,
         Permission.CHAT, Permission.INTERACT}
    ),
    "observer": frozenset({Permission.MOVEMENT, Permission.SENSE, Permission.CHAT, Permission.CONTAINER_READ}),
    "read_only": frozenset({Permission.SENSE}),
}


class RateLimit(BaseModel):
    """At most ``max_dispatches`` leaf dispatches per ``window_ms`` of game time."""

    max_dispatches: int = Field(default=20, ge=1)
    window_ms: int = Field(default=1_000, ge=1)


class DetectorConfig(BaseModel):
    ttfa_ms: int = 2_000  # A1
    stuck_ms: int = 3_000  # A4
    branch_hang_ms: int = 3_000  # FM-03
    flap_reversals: int = 3  # FM-04: more than this many ...
    flap_window_ms: int = 10_000  # ... within this window
    double_dispatch_window_ms: int = 10_000  # FM-05
    #: the detectors sample every this many ticks (250 ms, the safety poll's rate): their thresholds are
    #: seconds long, so a finer cadence only costs time; the measured TTFA and durations stay exact
    sample_every_ticks: int = Field(default=5, ge=1)
    #: capabilities that legitimately idle without actuator commands (stuckness exempt).
    idle_ok: frozenset[str] = frozenset({"wait", "sleep", "sense_hostiles", "get_block_at", "get_light_level"})


class ExecutorConfig(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    geofence: Bounds | None = None
    profile: str = "survival"
    shadow: bool = False
    rate_limit: RateLimit = Field(default_factory=RateLimit)
    detectors: DetectorConfig = Field(default_factory=DetectorConfig)
    #: I3 / A3: local repair attempts before escalation (never more than 2).
    local_retries: int = Field(default=2, ge=0, le=2)
    #: bounded transient waits per leaf activation before it escalates instead.
    max_transient_waits: int = Field(default=3, ge=0)
    max_ticks: int = Field(default=20 * 60 * 20, ge=1)  # 20 minutes of game time
    #: parallel streams allowed (Rig G suggests 1-3); I1 is per stream.
    streams: int = Field(default=1, ge=1, le=3)
    preemption: bool = True
    allow_materialize: bool = False
    #: the legacy switch: a deprecated leaf whose registry entry names a replacement (``replaced_by``) runs as
    #: it (dig_block -> acquire_material), recorded ``original_leaf``; off, every leaf runs as written
    remap_deprecated: bool = False
    #: server command names (``give``, ``time``; no slash) a tree may send, and only under a profile
    #: that grants Permission.COMMAND; empty: none
    allowed_commands: frozenset[str] = frozenset()
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_profile(self) -> ExecutorConfig:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown permission profile {self.profile!r}; known: {', '.join(sorted(PROFILES))}")
        return self

    @model_validator(mode="after")
    def _command_names(self) -> ExecutorConfig:
        bad = sorted(c for c in self.allowed_commands if not c or c.startswith("/") or not c.isidentifier())
        if bad:
            raise ValueError(f"allowed command {bad[0]!r} is not a command name like 'give' (no slash)")
        return self

    @property
    def granted(self) -> frozenset[Permission]:
        return PROFILES[self.profile]

    def command_refusal(self, line: str) -> str | None:
        """Why the server command ``line`` may not run (None: it may); names the command."""
        name = command_name(line)
        if name is None:
            return None
        if Permission.COMMAND not in self.granted:
            return f"/{name}: profile {self.profile!r} does not grant the command permission (use --profile operator)"
        if name not in self.allowed_commands:
            allowed = ", ".join(sorted(self.allowed_commands)) or "none"
            return f"/{name} is not on the command allowlist (allowed: {allowed}; add it with --allow-command {name})"
        return None

def declared_bounds(body: Any) -> Bounds | None:
    """The bounds the body's scenario or world declares, if any (a scenario file's ``bounds``)."""
    for holder in (body, getattr(body, "scenario", None), getattr(body, "world", None)):
        raw = getattr(holder, "bounds", None) if holder is not None else None
        if isinstance(raw, Bounds):
            return raw
        if isinstance(raw, dict):
            return Bounds(**raw)
        if isinstance(raw, tuple | list) and len(raw) == 2:
            (a, b) = raw
            return Bounds.parse(f"{a[0]},{a[1]},{a[2]}:{b[0]},{b[1]},{b[2]}")
    return None


def fence_radius(body: Any) -> int:
    """Half the side of the default fence around the bot: wider on the natural world than on the others."""
    generator = getattr(getattr(body, "world", None), "generator", None)
    natural = getattr(generator, "kind", None) == NATURAL_WORLD_KIND
    return NATURAL_FENCE_RADIUS if natural else DEFAULT_FENCE_RADIUS


def fence_around(body: Any, radius: int) -> Bounds:
    """A box ``radius`` blocks around the bot on x and z, the world's whole height on y."""
    p = body.position()
    return Bounds(min_x=int(p.x) - radius, min_y=-64, min_z=int(p.z) - radius,
                  max_x=int(p.x) + radius, max_y=320, max_z=int(p.z) + radius)


def scenario_fence(body: Any) -> Bounds:
    """The embedded world's geofence: the scenario's declared bounds, else a box around the bot
    (:func:`fence_radius`: 64 blocks, 192 on the natural world). Every entry point that runs tasks on an
    embedded world (run, script run, eval, serve, the benches; the live loop widens it) takes it from here.

    A real server has no such default: there the fence must be given, or world-changing leaves stay refused.
    """
    declared = declared_bounds(body)
    return declared if declared is not None else fence_around(body, fence_radius(body))
