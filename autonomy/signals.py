"""The sensorimotor interface's derived signals (seed 003 section 5): a taxonomy, edge detection, rate limits.

A :class:`Percept` is read from any body (the Body protocol plus the optional
extras in :mod:`~craftbt.autonomy.bodyinfo`). Each signal is a predicate on it,
in one of six categories: safety, navigation, inventory, time of day, weather,
social. :meth:`SignalMonitor.poll` emits a :class:`SignalEvent` only when a
signal *changes* ("fell below 6 hearts", "night began"), never on every poll;
and a signal that changed less than its ``min_interval`` ticks ago is held
until the interval has passed, so a value flapping on a threshold cannot thrash
the goal manager. The held change is emitted later if it still stands.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel

from craftbt.autonomy import bodyinfo
from craftbt.autonomy.threats import StuckHostiles
from craftbt.world import mcdata
from craftbt.world.body import BlockPos, Body, EntityInfo, Observation, Position
from craftbt.world.daytime import is_night

#: the first half of a heart is 1 health point: "below 6 hearts" is below 12
LOW_HEALTH = 12.0
CRITICAL_HEALTH = 6.0
HOSTILE_RANGE = 12.0
PLAYER_RANGE = 24.0
DARK_LIGHT = 7
FULL_SLOTS = 36
NEAR_FULL_FREE = 3
FAR_FROM_HOME = 64.0
#: vanilla: a spider in light 12 or more is neutral
SPIDER_NEUTRAL_LIGHT = 12
#: dusk: the last stretch of the day before hostile mobs can spawn (vanilla night starts at 13000)
DUSK_FROM, DUSK_TO = 11_000, 13_000
FOODS = frozenset({"apple", "bread", "cooked_beef", "cooked_porkchop", "cooked_chicken", "cooked_mutton",
                   "cooked_cod", "cooked_salmon", "baked_potato", "carrot", "potato", "beef", "porkchop",
                   "chicken", "mutton", "cod", "salmon", "rotten_flesh", "sweet_berries", "melon_slice",
                   "golden_apple", "golden_carrot", "beetroot", "mushroom_stew", "pumpkin_pie", "cookie"})


@functools.cache
def cooks_into_food(item: str) -> bool:
    """Whether a furnace makes ``item`` into another food (beef -> cooked_beef, minecraft-data's smelting
    recipes): carried raw, it is food to cook rather than a stock to rest on."""
    md = mcdata.load()
    recipe = md.smelting_result(item) if md.has_item(item) else None
    return recipe is not None and recipe.output in FOODS
#: the animals the loop hunts, looked for within ANIMAL_RANGE blocks
ANIMALS = ("cow", "pig", "sheep", "chicken")
ANIMAL_RANGE = 16.0


class Category(StrEnum):
    SAFETY = "safety"
    NAVIGATION = "navigation"
    INVENTORY = "inventory"
    TIME = "time_of_day"
    WEATHER = "weather"
    SOCIAL = "social"


class Percept(BaseModel):
    """One reading of the body, with the derived facts every signal and need is computed from."""

    tick: int
    position: Position
    health: float
    food: int
    time_of_day: int
    inventory: dict[str, int]
    free_slots: int
    hostiles: int
    nearest_hostile: float | None
    players: int
    light: int
    weather: str | None
    home: Position | None = None
    #: the nearest hostile within HOSTILE_RANGE, by name (a creeper is fled from, by day as by night)
    nearest_threat: str | None = None
    #: hunted animals in view (within ANIMAL_RANGE): name -> distance of the nearest
    animals: dict[str, float] = {}

    @property
    def night(self) -> bool:
        return is_night(self.time_of_day)

    @property
    def dusk(self) -> bool:
        return DUSK_FROM <= self.time_of_day < DUSK_TO

    @property
    def food_carried(self) -> int:
        return sum(n for item, n in self.inventory.items() if item in FOODS)

    @property
    def ready_food(self) -> int:
        """Food carried that is worth keeping as it is (raw meat is food to cook, see :func:`cooks_into_food`)."""
        return sum(n for item, n in self.inventory.items() if item in FOODS and not cooks_into_food(item))


def _neutral(body: Body, e: EntityInfo, night: bool) -> bool:
    """A spider in bright light by day does not attack unless hit (vanilla): it is not a threat."""
    if night or e.name != "spider":
        return False
    return body.light_level(e.position.block()) >= SPIDER_NEUTRAL_LIGHT


def sense(body: Body, home: Position | None = None, stuck: StuckHostiles | None = None) -> Percept:
    """One percept; with ``stuck``, hostiles stuck out of reach for a while are not counted (see ``threats``)."""
    obs: Observation = body.observe()
    me = obs.position
    night = is_night(obs.time_of_day)
    near = [e for e in body.entities(HOSTILE_RANGE, kind="hostile")
            if e.position.distance_to(me) <= HOSTILE_RANGE and not _neutral(body, e, night)]
    away = stuck.update(obs.tick, near, me) if stuck is not None else frozenset()
    hostiles = sorted((e for e in near if e.id not in away), key=lambda e: e.position.distance_to(me))
    players = [e for e in body.entities(PLAYER_RANGE, kind="player") if e.position.distance_to(me) <= PLAYER_RANGE]
    animals: dict[str, float] = {}
    for e in body.entities(ANIMAL_RANGE, kind="passive"):
        d = e.position.distance_to(me)
        if e.name in ANIMALS and d <= ANIMAL_RANGE:
            animals[e.name] = round(min(d, animals.get(e.name, d)), 1)
    used = {s.slot for s in body.inventory() if s.slot is not None and 9 <= s.slot <= 44}
    feet = me.block()
    return Percept(
        tick=obs.tick, position=me, health=obs.health, food=obs.food, time_of_day=obs.time_of_day,
        inventory=dict(obs.inventory), free_slots=FULL_SLOTS - len(used), hostiles=len(hostiles),
        nearest_hostile=min((e.position.distance_to(me) for e in hostiles), default=None), players=len(players),
        light=body.light_level(BlockPos(feet.x, feet.y, feet.z)), weather=bodyinfo.weather(body), home=home,
        nearest_threat=hostiles[0].name if hostiles else None, animals=animals,
    )


@dataclass(frozen=True)
class SignalSpec:
    name: str
    category: Category
    test: Callable[[Percept], bool]
    #: ticks a change must wait after the previous emitted change of this signal
    min_interval: int = 40


def _far(p: Percept) -> bool:
    return p.home is not None and p.position.distance_to(p.home) > FAR_FROM_HOME


#: the taxonomy: every signal the loop reacts to
SIGNALS: tuple[SignalSpec, ...] = (
    SignalSpec("health_below_6_hearts", Category.SAFETY, lambda p: p.health < LOW_HEALTH),
    SignalSpec("health_critical", Category.SAFETY, lambda p: p.health <= CRITICAL_HEALTH),
    SignalSpec("hostile_near", Category.SAFETY, lambda p: p.hostiles > 0),
    SignalSpec("dark", Category.SAFETY, lambda p: p.light <= DARK_LIGHT, min_interval=100),
    SignalSpec("far_from_home", Category.NAVIGATION, _far, min_interval=200),
    SignalSpec("inventory_near_full", Category.INVENTORY, lambda p: p.free_slots <= NEAR_FULL_FREE, min_interval=200),
    SignalSpec("no_food_carried", Category.INVENTORY, lambda p: p.food_carried == 0, min_interval=200),
    SignalSpec("hungry", Category.INVENTORY, lambda p: p.food <= 14),
    SignalSpec("dusk", Category.TIME, lambda p: p.dusk, min_interval=200),
    SignalSpec("night", Category.TIME, lambda p: p.night, min_interval=200),
    SignalSpec("raining", Category.WEATHER, lambda p: p.weather in ("rain", "thunder"), min_interval=200),
    SignalSpec("thunder", Category.WEATHER, lambda p: p.weather == "thunder", min_interval=200),
    SignalSpec("player_near", Category.SOCIAL, lambda p: p.players > 0, min_interval=100),
)


class SignalEvent(BaseModel):
    name: str
    category: Category
    on: bool
    tick: int

    def describe(self) -> str:
        return f"{self.name} {'began' if self.on else 'ended'}"


@dataclass
class SignalMonitor:
    specs: tuple[SignalSpec, ...] = SIGNALS
    state: dict[str, bool] = field(default_factory=dict)
    last_change: dict[str, int] = field(default_factory=dict)
    emitted: int = 0
    held: int = 0

    def poll(self, percept: Percept) -> list[SignalEvent]:
        """The signals whose value changed since the last emitted change (edges), within their rate limits."""
        events: list[SignalEvent] = []
        for spec in self.specs:
            value = spec.test(percept)
            if value == self.state.get(spec.name, False):
                continue
            last = self.last_change.get(spec.name)
            if last is not None and percept.tick - last < spec.min_interval:
                self.held += 1  # rate-limited: kept until the interval passes, then emitted if it still stands
                continue
            self.state[spec.name] = value
            self.last_change[spec.name] = percept.tick
            events.append(SignalEvent(name=spec.name, category=spec.category, on=value, tick=percept.tick))
        self.emitted += len(events)
        return events

    def active(self) -> set[str]:
        return {name for name, on in self.state.items() if on}
