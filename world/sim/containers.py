"""Block entities that hold items: chests (27 slots) and furnaces that smelt in game ticks.

A furnace follows vanilla: when it can smelt (a smeltable input and room in
the output) and has no burn time left it consumes one fuel item for that
item's burn ticks; while burning it advances cook progress one tick at a time
and emits one output every ``cook_ticks``. Burn time runs down whether or not
there is something to cook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from craftbt.world.body import ItemStack
from craftbt.world.sim.player import Stack

if TYPE_CHECKING:
    from craftbt.world.mcdata import McData

CHEST_SLOTS = 27
CHEST_BLOCKS = ("chest", "trapped_chest", "barrel")
FURNACE_BLOCKS = ("furnace", "blast_furnace", "smoker")
FURNACE_SLOTS = ("input", "fuel", "output")


@dataclass
class Chest:
    kind: str = "chest"
    slots: dict[int, Stack] = field(default_factory=dict)

    def stacks(self) -> dict[str, list[ItemStack]]:
        return {"any": [ItemStack(name=s.item, count=s.count, slot=k) for k, s in sorted(self.slots.items())]}

    def count(self, item: str) -> int:
        return sum(s.count for s in self.slots.values() if s.item == item)

    def room_for(self, item: str, stack_size: int) -> int:
        room = sum(stack_size - s.count for s in self.slots.values() if s.item == item)
        return room + (CHEST_SLOTS - len(self.slots)) * stack_size

    def add(self, item: str, count: int, stack_size: int) -> None:
        left = count
        for k in sorted(self.slots):
            s = self.slots[k]
            if s.item == item and s.count < stack_size and left:
                moved = min(stack_size - s.count, left)
                s.count += moved
                left -= moved
        for k in range(CHEST_SLOTS):
            if left and k not in self.slots:
                moved = min(stack_size, left)
                self.slots[k] = Stack(item, moved)
                left -= moved

    def remove(self, item: str, count: int) -> None:
        left = count
        for k in sorted(self.slots, reverse=True):
            s = self.slots[k]
            if s.item == item and left:
                taken = min(s.count, left)
                s.count -= taken
                left -= taken
                if not s.count:
                    del self.slots[k]

    def contents(self) -> list[Stack]:
        return [self.slots[k] for k in sorted(self.slots)]

    def to_json(self) -> dict[str, Any]:
        slots = [[k, s.item, s.count] for k, s in sorted(self.slots.items())]
        return {"type": "chest", "kind": self.kind, "slots": slots}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Chest:
        return cls(d["kind"], {int(k): Stack(i, int(c)) for k, i, c in d["slots"]})


@dataclass
class Furnace:
    kind: str = "furnace"
    input: Stack | None = None
    fuel: Stack | None = None
    output: Stack | None = None
    burn_left: int = 0
    burn_total: int = 0
    cook_progress: int = 0

    def stacks(self) -> dict[str, list[ItemStack]]:
        def one(s: Stack | None, slot: int) -> list[ItemStack]:
            return [ItemStack(name=s.item, count=s.count, slot=slot)] if s is not None else []

        return {"input": one(self.input, 0), "fuel": one(self.fuel, 1), "output": one(self.output, 2)}

    def get(self, slot: str) -> Stack | None:
        value: Stack | None = getattr(self, slot)
        return value

    def put(self, slot: str, stack: Stack | None) -> None:
        setattr(self, slot, stack if stack is not None and stack.count > 0 else None)

    @property
    def lit(self) -> bool:
        return self.burn_left > 0

    def active(self) -> bool:
        return self.burn_left > 0 or (self.input is not None and self.fuel is not None)

    def contents(self) -> list[Stack]:
        return [s for s in (self.input, self.fuel, self.output) if s is not None]

    def tick(self, md: McData) -> None:
        recipe = md.smelting_result(self.input.item) if self.input is not None else None
        out = self.output
        can_smelt = recipe is not None and (
            out is None or (out.item == recipe.output and out.count + recipe.count <= md.item(out.item).stack_size)
        )
        if self.burn_left == 0 and can_smelt and self.fuel is not None:
            ticks = md.fuel_ticks(self.fuel.item)
            if ticks:
                self.burn_left = self.burn_total = ticks
                remainder = "bucket" if self.fuel.item == "lava_bucket" else None
                self.fuel.count -= 1
                if self.fuel.count == 0:
                    self.fuel = Stack(remainder, 1) if remainder else None
        if self.burn_left > 0:
            self.burn_left -= 1
            if can_smelt and recipe is not None and self.input is not None:
                self.cook_progress += 1
                if self.cook_progress >= recipe.cook_ticks:
                    self.cook_progress = 0
                    self.input.count -= 1
                    if self.input.count == 0:
                        self.input = None
                    if self.output is None:
                        self.output = Stack(recipe.output, recipe.count)
                    else:
                        self.output.count += recipe.count
            else:
                self.cook_progress = 0
        elif self.cook_progress > 0:
            # Vanilla: progress falls back two ticks at a time when the fire is out.
            self.cook_progress = max(0, self.cook_progress - 2)

    def to_json(self) -> dict[str, Any]:
        def st(s: Stack | None) -> list[Any] | None:
            return [s.item, s.count] if s is not None else None

        return {
            "type": "furnace", "kind": self.kind, "input": st(self.input), "fuel": st(self.fuel),
            "output": st(self.output), "burn_left": self.burn_left, "burn_total": self.burn_total,
            "cook_progress": self.cook_progress,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Furnace:
        def st(v: list[Any] | None) -> Stack | None:
            return Stack(str(v[0]), int(v[1])) if v else None

        return cls(d["kind"], st(d["input"]), st(d["fuel"]), st(d["output"]), d["burn_left"], d["burn_total"],
                   d["cook_progress"])


Container = Chest | Furnace


def new_container(block: str) -> Container | None:
    if block in CHEST_BLOCKS:
        return Chest(block)
    if block in FURNACE_BLOCKS:
        return Furnace(block)
    return None


def container_from_json(d: dict[str, Any]) -> Container:
    return Chest.from_json(d) if d["type"] == "chest" else Furnace.from_json(d)
