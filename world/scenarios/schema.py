"""The scenario file model: seed, generator, player, block edits, mobs, dropped items, time, weather.

Positions in ``blocks``, ``mobs`` and ``items`` are relative to the player's
feet block unless ``relative: false`` (then absolute), like ``~`` in
commands. ``commands`` are operator commands run last, as on a server.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

TIME_NAMES = {"day": 1000, "noon": 6000, "sunset": 12000, "night": 13000, "midnight": 18000, "sunrise": 23000}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Layer(Strict):
    block: str
    count: int = Field(ge=1, le=384)


class GeneratorSpec(Strict):
    type: Literal["flat", "natural", "starter"] = "flat"
    layers: list[Layer] | None = None
    tree_chance: float | None = Field(default=None, ge=0.0, le=1.0)


class ItemSpec(Strict):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=2304)


class PlayerSpec(Strict):
    name: str = Field(default="Sterling", min_length=1, max_length=16)
    position: tuple[float, float, float] | None = None
    inventory: list[ItemSpec] = Field(default_factory=list)
    health: float = Field(default=20.0, gt=0.0, le=20.0)
    food: int = Field(default=20, ge=0, le=20)
    saturation: float = Field(default=5.0, ge=0.0, le=20.0)
    #: the bot is a server operator (runs /commands from chat); off unless a scenario says so
    operator: bool = False


Vec3i = tuple[int, int, int]


class BlockEdit(Strict):
    pos: Vec3i
    block: str = Field(min_length=1)  # a name, optionally with a state: farmland[moisture=7]
    relative: bool = True


class FillEdit(Strict):
    start: Vec3i = Field(alias="from")
    end: Vec3i = Field(alias="to")
    block: str = Field(min_length=1)
    relative: bool = True


class MobSpec(Strict):
    type: str = Field(min_length=1)
    pos: tuple[float, float, float]
    relative: bool = True
    no_ai: bool = False
    count: int = Field(default=1, ge=1, le=64)


class DroppedItem(Strict):
    item: str = Field(min_length=1)
    count: int = Field(default=1, ge=1, le=64)
    pos: tuple[float, float, float]
    relative: bool = True


class Explosion(Strict):
    pos: tuple[float, float, float]
    power: float = Field(default=3.0, gt=0.0, le=10.0)
    relative: bool = True


class Rules(Strict):
    random_tick_speed: int | None = Field(default=None, ge=0, le=4096)
    mob_spawning: bool | None = None
    daylight_cycle: bool | None = None


TimeValue = Annotated[int, Field(ge=0)] | Literal["day", "noon", "sunset", "night", "midnight", "sunrise"]


class Scenario(Strict):
    name: str = Field(min_length=1)
    description: str = ""
    seed: int = 0
    generator: GeneratorSpec = Field(default_factory=GeneratorSpec)
    time: TimeValue = 1000
    weather: Literal["clear", "rain", "thunder"] = "clear"
    #: the world's biome (one for the whole embedded world): what observations report
    biome: str = Field(default="plains", pattern=r"^[a-z_]+$")
    rules: Rules = Field(default_factory=Rules)
    player: PlayerSpec = Field(default_factory=PlayerSpec)
    fill: list[FillEdit] = Field(default_factory=list)
    blocks: list[BlockEdit] = Field(default_factory=list)
    mobs: list[MobSpec] = Field(default_factory=list)
    items: list[DroppedItem] = Field(default_factory=list)
    explosions: list[Explosion] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)

    def time_ticks(self) -> int:
        return TIME_NAMES[self.time] if isinstance(self.time, str) else self.time
