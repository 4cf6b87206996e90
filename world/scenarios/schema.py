"""The scenario file model: seed, generator, player, block edits, mobs, dropped items, time, weather.

Positions in ``blocks``, ``mobs`` and ``items`` are relative to the player's
feet block unless ``relative: false`` (then absolute), like ``~`` in
commands. ``commands`` are operator commands run last, as on a server.

Every number is finite and bounded before anything is built: coordinates inside the world border
and height (relative offsets too), seeds within 64 bits, fills and layers within volume caps.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from craftbt.world.sim.flags import MAX_Y, MIN_Y

TIME_NAMES = {"day": 1000, "noon": 6000, "sunset": 12000, "night": 13000, "midnight": 18000, "sunrise": 23000}


#: The world border (vanilla's is 29,999,984 blocks from the origin).
BORDER = 29_999_984
HEIGHT = MAX_Y - MIN_Y + 1
#: One ``fill`` box, and all of a scenario's boxes together, may cover at most this many blocks.
MAX_FILL_VOLUME = 262_144
MAX_TOTAL_FILL_VOLUME = 1_048_576
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
#: A plain block name (layers take no block state).
PLAIN_NAME = r"^[a-z0-9_]+$"

XCoord = Annotated[int, Field(ge=-BORDER, le=BORDER)]
YCoord = Annotated[int, Field(ge=-HEIGHT, le=MAX_Y)]
XPos = Annotated[float, Field(ge=-BORDER, le=BORDER)]
YPos = Annotated[float, Field(ge=-HEIGHT, le=MAX_Y + 64)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Layer(Strict):
    block: str = Field(pattern=PLAIN_NAME, max_length=64)
    count: int = Field(ge=1, le=HEIGHT)


class GeneratorSpec(Strict):
    type: Literal["flat", "natural", "starter", "natural_world"] = "flat"
    layers: list[Layer] | None = Field(default=None, max_length=HEIGHT)
    tree_chance: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _fits_the_world(self) -> GeneratorSpec:
        total = sum(layer.count for layer in self.layers or [])
        if total > HEIGHT:
            raise ValueError(f"the layers are {total} blocks thick; the world is {HEIGHT} high")
        return self


class ItemSpec(Strict):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=2304)


class PlayerSpec(Strict):
    name: str = Field(default="Sterling", min_length=1, max_length=16, pattern=r"^[A-Za-z0-9_]+$")
    position: tuple[XPos, YPos, XPos] | None = None
    inventory: list[ItemSpec] = Field(default_factory=list, max_length=36)
    health: float = Field(default=20.0, gt=0.0, le=20.0)
    food: int = Field(default=20, ge=0, le=20)
    saturation: float = Field(default=5.0, ge=0.0, le=20.0)
    #: the bot is a server operator (runs /commands from chat); off unless a scenario says so
    operator: bool = False


Vec3i = tuple[XCoord, YCoord, XCoord]
Vec3f = tuple[XPos, YPos, XPos]


class BlockEdit(Strict):
    pos: Vec3i
    block: str = Field(min_length=1, max_length=256)  # a name, optionally with a state: farmland[moisture=7]
    relative: bool = True


class FillEdit(Strict):
    start: Vec3i = Field(alias="from")
    end: Vec3i = Field(alias="to")
    block: str = Field(min_length=1, max_length=256)
    relative: bool = True

    @property
    def volume(self) -> int:
        return math.prod(abs(a - b) + 1 for a, b in zip(self.start, self.end, strict=True))

    @model_validator(mode="after")
    def _bounded(self) -> FillEdit:
        # checked here, before build() expands anything: an 8-million-block fill took 65 s and 2.2 GB
        if self.volume > MAX_FILL_VOLUME:
            raise ValueError(f"the box holds {self.volume} blocks, more than the {MAX_FILL_VOLUME} allowed")
        return self


class MobSpec(Strict):
    type: str = Field(min_length=1, max_length=64)
    pos: Vec3f
    relative: bool = True
    no_ai: bool = False
    count: int = Field(default=1, ge=1, le=64)


class DroppedItem(Strict):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=64)
    pos: Vec3f
    relative: bool = True


class Explosion(Strict):
    pos: Vec3f
    power: float = Field(default=3.0, gt=0.0, le=10.0)
    relative: bool = True


class Rules(Strict):
    random_tick_speed: int | None = Field(default=None, ge=0, le=4096)
    mob_spawning: bool | None = None
    daylight_cycle: bool | None = None


TimeValue = Annotated[int, Field(ge=0, le=2**31 - 1)] | Literal["day", "noon", "sunset", "night", "midnight", "sunrise"]


class Scenario(Strict):
    name: str = Field(min_length=1)
    description: str = ""
    seed: int = Field(default=0, ge=SEED_MIN, le=SEED_MAX)
    generator: GeneratorSpec = Field(default_factory=GeneratorSpec)
    time: TimeValue = 1000
    weather: Literal["clear", "rain", "thunder"] = "clear"
    #: the world's biome (one for the whole embedded world): what observations report
    biome: str = Field(default="plains", pattern=r"^[a-z_]+$")
    rules: Rules = Field(default_factory=Rules)
    player: PlayerSpec = Field(default_factory=PlayerSpec)
    fill: list[FillEdit] = Field(default_factory=list, max_length=4096)
    blocks: list[BlockEdit] = Field(default_factory=list, max_length=65_536)
    mobs: list[MobSpec] = Field(default_factory=list, max_length=256)
    items: list[DroppedItem] = Field(default_factory=list, max_length=1024)
    explosions: list[Explosion] = Field(default_factory=list, max_length=64)
    commands: list[Annotated[str, Field(max_length=32_768)]] = Field(default_factory=list, max_length=1024)

    @model_validator(mode="after")
    def _bounded_fills(self) -> Scenario:
        total = sum(f.volume for f in self.fill)
        if total > MAX_TOTAL_FILL_VOLUME:
            raise ValueError(f"the fills hold {total} blocks together, more than the {MAX_TOTAL_FILL_VOLUME} allowed")
        return self

    def time_ticks(self) -> int:
        return TIME_NAMES[self.time] if isinstance(self.time, str) else self.time
