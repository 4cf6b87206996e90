"""Crafting-domain knowledge shared by the HTN and GOAP planners: how each item can be obtained.

Everything comes from minecraft-data through the solver's recipe graph
(:mod:`planners.solver`): the blocks that drop an item and the tools they
need, the recipes that make it, the smelting inputs, the fuels, and the
additive (h_add) cost estimate of every item. Nothing is typed in by hand
except :data:`SEARCH_RADIUS`, the reach given to ``acquire_material``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

from craftbt.planners.base import PlanningState
from craftbt.planners.living import Farm, Hunt, farms_for, hunt_cost, hunts_for
from craftbt.planners.solver import (
    CRAFT_TICKS,
    MINE_TRAVEL_TICKS,
    SMELT_TICKS,
    TOOL_AMORTIZATION,
    UNREACHABLE,
    WALK_TICKS_PER_BLOCK,
    _cost_table,
    _craft_only_costs,
    _distance,
    _generated_blocks,
    _natural_blocks,
    _recipes,
    farm_cost,
    fuel_count,
    mine_sources,
    obtainable_fuels,
    recipe_cost,
)
from craftbt.world.mcdata import McData, Recipe, load

#: acquire_material searches this far: the starter world puts ore 10-16 blocks from spawn.
SEARCH_RADIUS = 32
#: acquire_material takes at most this many per dispatch (its args model: count 1..8).
MINE_BATCH = 8

OptionKind = Literal["mine", "craft", "smelt", "hunt", "farm"]


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
    hunt: Hunt | None = None
    farm: Farm | None = None

    @property
    def label(self) -> str:
        if self.kind == "mine":
            return f"mine:{self.block}"
        if self.hunt is not None:
            return f"hunt:{self.hunt.animal}"
        if self.farm is not None:
            return f"farm:{self.farm.crop}"
        if self.kind == "smelt":
            return f"smelt:{self.smelt_input}"
        assert self.recipe is not None
        return "craft:" + "+".join(sorted(self.recipe.ingredients))


class Knowledge:
    """Options per item for one world survey (no survey: assume the usual surface blocks, 16 blocks away)."""

    def __init__(self, state: PlanningState, version: str = "1.21.4", gather: bool = True,
                 goal: str | None = None) -> None:
        self.version = version
        self.md: McData = load(version)
        #: False: craft-only (PlanningState.gathering): no block, animal or farm is a source
        self.gather = gather
        #: the inventory planned from (GOAP grounds mixed crafts from it)
        self.held: dict[str, int] = {i: n for i, n in state.inventory.items() if n > 0}
        # a survey's blocks, and what the overworld generates elsewhere (an explore step finds it)
        self.blocks: frozenset[str] = (frozenset() if not gather else _natural_blocks()
                                       if state.available_blocks is None
                                       else state.available_blocks | _generated_blocks())
        self.assumed = gather and state.available_blocks is None
        #: a surveyed world has animals and grass to hunt and farm; an unsurveyed plan does not count on them
        self.living = gather and state.available_blocks is not None
        #: what the survey saw (crops already standing are harvested, not planted again)
        self.surveyed = state.available_blocks or frozenset()
        self.distance = {b: round(_distance(state, b)) for b in self.blocks}
        #: craft-only costs cover what ``goal`` is made from (see solver._cost_table)
        self.costs = _cost_table(self.md, version, state, gather, goal)
        self.sources = mine_sources(version)
        self._options: dict[str, tuple[Option, ...]] = {}
        self._fuels: tuple[tuple[str, int], ...] | None = None

    @classmethod
    def of(cls, state: PlanningState, version: str = "1.21.4", gather: bool = True,
           goal: str | None = None) -> Knowledge:
        """The knowledge a plan from ``state`` uses. Craft-only it depends on the goal and what is held alone,
        so HTN and GOAP asked by one route share one (each item's options are worked out once); a gathering
        plan's depends on the survey and is built each time."""
        if gather:
            return cls(state, version, gather, goal)
        return _craft_only(version, goal, tuple(sorted((i, n) for i, n in state.inventory.items() if n > 0)))

    def cost(self, item: str) -> float:
        return self.costs.get(item, UNREACHABLE)

    def made_cost(self, item: str) -> float:
        """What one more ``item`` costs: :meth:`cost`, but for an item held (priced at nothing there) its
        cheapest way to make another (``solver.rank_fuels``: one held crafting table is no source of four)."""
        cost = self.cost(item)
        return cost if cost > 0 else min((o.cost for o in self.options(item)), default=UNREACHABLE)

    def options(self, item: str) -> tuple[Option, ...]:
        """The ways to obtain ``item``, cheapest first (worked out once per item: a tuple, never to be copied)."""
        found = self._options.get(item)
        if found is None:
            found = self._options[item] = self._compute(item)
        return found

    def fuels(self) -> tuple[tuple[str, int], ...]:
        """The fuels (name, burn ticks) a plan can burn here (:func:`planners.solver.obtainable_fuels`)."""
        if self._fuels is None:
            self._fuels = obtainable_fuels(self.md, self.costs)
        return self._fuels

    def fuel_needed(self, fuel_ticks: int, items: int) -> int:
        return fuel_count(fuel_ticks, items)

    def _compute(self, item: str) -> tuple[Option, ...]:
        out: list[Option] = []
        for source in self.sources.get(item, ()):
            if source.block not in self.blocks:
                continue
            tool = 0.0 if not source.tools else min(self.cost(t) for t in source.tools) * TOOL_AMORTIZATION
            walk = WALK_TICKS_PER_BLOCK * self.distance[source.block]
            if tool < UNREACHABLE:
                out.append(Option("mine", item, MINE_TRAVEL_TICKS + walk + tool, block=source.block,
                                  tools=source.tools))
        for recipe in _recipes(self.md, item):
            total = CRAFT_TICKS + recipe_cost(recipe, self.cost)
            if total < UNREACHABLE:
                out.append(Option("craft", item, total / recipe.count, recipe=recipe))
        for smelting in self.md.smelting_for(item):
            total = SMELT_TICKS + self.cost(smelting.input)
            if total < UNREACHABLE:
                out.append(Option("smelt", item, total, smelt_input=smelting.input))
        if self.living:
            for hunt in hunts_for(item):
                cost = hunt_cost(hunt, self.cost)
                if cost < UNREACHABLE:
                    out.append(Option("hunt", item, cost, hunt=hunt))
            for farm in farms_for(item):
                cost = farm_cost(self.costs)
                if cost < UNREACHABLE:
                    out.append(Option("farm", item, cost, farm=farm))
        out.sort(key=lambda o: (o.cost, o.label))
        return tuple(out)


@functools.lru_cache(maxsize=4)
def _craft_only(version: str, goal: str | None, held: tuple[tuple[str, int], ...]) -> Knowledge:
    """Craft-only knowledge (nothing surveyed, nothing gathered), shared: a Knowledge is never changed after it
    is built, only its caches of options and fuels filled."""
    return Knowledge(PlanningState(inventory=dict(held), available_blocks=frozenset(), gathering=False), version,
                     gather=False, goal=goal)


def forget_shared() -> None:
    """Drop the shared craft-only knowledge and cost tables: a benchmark timing one planner alone calls this, so
    that planner pays for the knowledge another planner built from the same inventory just before."""
    _craft_only.cache_clear()
    _craft_only_costs.cache_clear()


__all__ = ["MINE_BATCH", "SEARCH_RADIUS", "Knowledge", "Option", "forget_shared"]
