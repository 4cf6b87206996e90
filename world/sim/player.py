"""The player: position, health, food, saturation, exhaustion, 36 inventory slots, armour, off-hand.

Slots follow mineflayer's window numbering so both bodies report the same
slot numbers: 9..35 main inventory, 36..44 hotbar; armour and the off-hand
are held apart and are not part of :meth:`Inventory.items`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from craftbt.world.body import ItemStack, Position

HOTBAR = range(36, 45)
MAIN = range(9, 36)
#: Fill order: hotbar first, then the main inventory (vanilla pickup order).
SLOT_ORDER: tuple[int, ...] = (*HOTBAR, *MAIN)
ARMOUR_SLOTS = ("head", "torso", "legs", "feet")
EQUIP_DESTINATIONS = ("hand", "off-hand", *ARMOUR_SLOTS)

MAX_HEALTH = 20.0
MAX_FOOD = 20
EYE_HEIGHT = 1.62


@dataclass
class Stack:
    item: str
    count: int


class Inventory:
    """36 slots of stacks; every change is all-or-nothing (checked before it is made)."""

    def __init__(self, stack_size: Callable[[str], int]) -> None:
        self.slots: dict[int, Stack] = {}
        self._stack_size = stack_size

    def count(self, item: str) -> int:
        return sum(s.count for s in self.slots.values() if s.item == item)

    def totals(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for slot in sorted(self.slots):
            s = self.slots[slot]
            out[s.item] = out.get(s.item, 0) + s.count
        return out

    def items(self) -> list[ItemStack]:
        return [ItemStack(name=s.item, count=s.count, slot=k) for k, s in sorted(self.slots.items())]

    def room_for(self, item: str) -> int:
        size = self._stack_size(item)
        room = sum(size - s.count for s in self.slots.values() if s.item == item and s.count < size)
        free = sum(1 for k in SLOT_ORDER if k not in self.slots)
        return room + free * size

    def add(self, item: str, count: int) -> int:
        """Add as many as fit; returns how many did not fit."""
        size = self._stack_size(item)
        left = count
        for k in SLOT_ORDER:
            s = self.slots.get(k)
            if left and s is not None and s.item == item and s.count < size:
                moved = min(size - s.count, left)
                s.count += moved
                left -= moved
        for k in SLOT_ORDER:
            if not left:
                break
            if k not in self.slots:
                moved = min(size, left)
                self.slots[k] = Stack(item, moved)
                left -= moved
        return left

    def remove(self, item: str, count: int) -> None:
        """Remove exactly ``count``; the caller checks :meth:`count` first."""
        if self.count(item) < count:
            raise ValueError(f"only {self.count(item)} {item}, cannot remove {count}")
        left = count
        for k in sorted(self.slots, reverse=True):
            s = self.slots[k]
            if s.item != item or not left:
                continue
            taken = min(s.count, left)
            s.count -= taken
            left -= taken
            if s.count == 0:
                del self.slots[k]

    def find(self, item: str) -> int | None:
        """The slot holding ``item`` (hotbar first), or None."""
        for k in SLOT_ORDER:
            s = self.slots.get(k)
            if s is not None and s.item == item:
                return k
        return None

    def to_json(self) -> list[list[Any]]:
        return [[k, s.item, s.count] for k, s in sorted(self.slots.items())]

    def load_json(self, data: list[list[Any]]) -> None:
        self.slots = {int(k): Stack(str(i), int(c)) for k, i, c in data}


@dataclass
class Player:
    name: str
    position: Position
    stack_size: Callable[[str], int]
    yaw: float = 0.0
    pitch: float = 0.0
    health: float = MAX_HEALTH
    food: int = MAX_FOOD
    saturation: float = 5.0
    exhaustion: float = 0.0
    selected: int = 36
    armour: dict[str, Stack | None] = field(default_factory=lambda: dict.fromkeys(ARMOUR_SLOTS))
    off_hand: Stack | None = None
    inventory: Inventory = field(init=False)
    sleeping: bool = False
    fall_start: float | None = None
    hunger_effect_until: int = 0
    hunger_effect_level: int = 0
    regen_timer: int = 0
    deaths: int = 0
    #: a server operator runs commands from chat; only a scenario (``player.operator`` or ``/op``) makes one
    operator: bool = False

    def __post_init__(self) -> None:
        self.inventory = Inventory(self.stack_size)

    @property
    def held(self) -> str | None:
        s = self.inventory.slots.get(self.selected)
        return s.item if s is not None else None

    def eye(self) -> tuple[float, float, float]:
        p = self.position
        return (p.x, p.y + EYE_HEIGHT, p.z)

    def equipment(self) -> dict[str, ItemStack | None]:
        def stack(s: Stack | None, slot: int) -> ItemStack | None:
            return ItemStack(name=s.item, count=s.count, slot=slot) if s is not None else None

        out: dict[str, ItemStack | None] = {
            "hand": stack(self.inventory.slots.get(self.selected), self.selected),
            "off-hand": stack(self.off_hand, 45),
        }
        for i, part in enumerate(ARMOUR_SLOTS):
            out[part] = stack(self.armour[part], 5 + i)
        return out

    def exhaust(self, amount: float) -> None:
        self.exhaustion += amount
        while self.exhaustion >= 4.0:
            self.exhaustion -= 4.0
            if self.saturation > 0:
                self.saturation = max(0.0, self.saturation - 1.0)
            else:
                self.food = max(0, self.food - 1)

    def to_json(self) -> dict[str, Any]:
        def st(s: Stack | None) -> list[Any] | None:
            return [s.item, s.count] if s is not None else None

        return {
            "name": self.name,
            "position": list(self.position),
            "yaw": self.yaw,
            "pitch": self.pitch,
            "health": self.health,
            "food": self.food,
            "saturation": self.saturation,
            "exhaustion": self.exhaustion,
            "selected": self.selected,
            "armour": {k: st(v) for k, v in self.armour.items()},
            "off_hand": st(self.off_hand),
            "inventory": self.inventory.to_json(),
            "sleeping": self.sleeping,
            "fall_start": self.fall_start,
            "hunger_effect_until": self.hunger_effect_until,
            "hunger_effect_level": self.hunger_effect_level,
            "regen_timer": self.regen_timer,
            "deaths": self.deaths,
            "operator": self.operator,
        }

    def load_json(self, d: dict[str, Any]) -> None:
        def st(v: list[Any] | None) -> Stack | None:
            return Stack(str(v[0]), int(v[1])) if v else None

        self.name = d["name"]
        self.position = Position(*d["position"])
        self.yaw, self.pitch = d["yaw"], d["pitch"]
        self.health, self.food = d["health"], d["food"]
        self.saturation, self.exhaustion = d["saturation"], d["exhaustion"]
        self.selected = d["selected"]
        self.armour = {k: st(v) for k, v in d["armour"].items()}
        self.off_hand = st(d["off_hand"])
        self.inventory.load_json(d["inventory"])
        self.sleeping = d["sleeping"]
        self.fall_start = d["fall_start"]
        self.hunger_effect_until = d["hunger_effect_until"]
        self.hunger_effect_level = d["hunger_effect_level"]
        self.regen_timer = d["regen_timer"]
        self.deaths = d["deaths"]
        self.operator = bool(d.get("operator", False))
