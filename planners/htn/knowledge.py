"""Crafting-domain knowledge shared by the HTN and GOAP planners: how each item can be obtained.

Everything comes from minecraft-data through the solver's recipe graph
(:mod:`planners.solver`): the blocks that drop an item and the tools they
need, the recipes that make it, the smelting inputs, the fuels, and the
additive (h_add) cost estimate of every item. Nothing is typed in by hand
except :data:`SEARCH_RADIUS`, the reach given to ``acquire_material``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

from planners.solver import (
    CRAFT_TICKS,
    MINE_TRAVEL_TICKS,
    SMELT_TICKS,
    UNREACHABLE,
    _cost_table,
    _fuels,
    _natural_blocks,
    _recipes,
    mine_sources,
)
from world.mcdata import McData, Recipe, load

#: acquire_material searches this far: the starter world puts ore 10-16 blocks from spawn.
SEARCH_RADIUS = 32
#: acquire_material takes at most this many per dispatch (its args model: count 1..8).
MINE_BATCH = 8

OptionKind = Literal["mine", "craft", "smelt"]


@dataclass(frozen=True)
class Option:
    """One way to obtain an item, with its estimated cost per item produced."""

    kind: OptionKind
    item: str
    cost: float
    block: str | None = None
    tools: frozenset[str] = frozenset()
    recipe: Recipe | None = None
    smelt_input: str | None = None

    @property
    def label(self) -> str:
        if self.kind == "mine":
            return f"mine:{self.block}"
        if self.kind == "smelt":
            return f"smelt:{self.smelt_input}"
        assert self.recipe is not None
        return "craft:" + "+".join(sorted(self.recipe.ingredients))


class Knowledge:
    """Options per item for one world survey (``available_blocks``: ``None`` means "assume nature")."""

    def __init__(self, available_blocks: frozenset[str] | None, version: str = "1.21.4") -> None:
        self.version = version
        self.md: McData = load(version)
        self.blocks = _natural_blocks() if available_blocks is None else available_blocks
        self.assumed = available_blocks is None
        self.costs = _cost_table(self.md, version, available_blocks)
        self.sources = mine_sources(version)

    def cost(self, item: str) -> float:
        return self.costs.get(item, UNREACHABLE)

    def options(self, item: str) -> list[Option]:
        return list(_options(self, item))

    def fuels(self) -> tuple[tuple[str, int], ...]:
        return _fuels(self.md)

    def fuel_needed(self, fuel_ticks: int, items: int) -> int:
        return math.ceil(items * SMELT_TICKS / fuel_ticks)


def _options(k: Knowledge, item: str) -> tuple[Option, ...]:
    return _cached_options(k.version, k.blocks, item)


@functools.lru_cache(maxsize=4096)
def _cached_options(version: str, blocks: frozenset[str], item: str) -> tuple[Option, ...]:
    md = load(version)
    costs = _cost_table(md, version, blocks)
    out: list[Option] = []
    for source in mine_sources(version).get(item, ()):
        if source.block not in blocks:
            continue
        tool = 0.0 if not source.tools else min(costs.get(t, UNREACHABLE) for t in source.tools) * 0.1
        if tool < UNREACHABLE:
            out.append(Option("mine", item, MINE_TRAVEL_TICKS + tool, block=source.block, tools=source.tools))
    for recipe in _recipes(md, item):
        total = CRAFT_TICKS + sum(costs.get(i, UNREACHABLE) * n for i, n in recipe.ingredients.items())
        if total < UNREACHABLE:
            out.append(Option("craft", item, total / recipe.count, recipe=recipe))
    for smelting in md.smelting_for(item):
        total = SMELT_TICKS + costs.get(smelting.input, UNREACHABLE)
        if total < UNREACHABLE:
            out.append(Option("smelt", item, total, smelt_input=smelting.input))
    out.sort(key=lambda o: (o.cost, o.label))
    return tuple(out)


__all__ = ["MINE_BATCH", "SEARCH_RADIUS", "Knowledge", "Option"]
