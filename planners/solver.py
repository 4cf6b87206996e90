"""Crafting and tool-progression solver over the recipe graph.

The recipe graph (networkx) has an edge from every item to what it can be made
from: recipe ingredients (``craft``), a furnace input (``smelt``) and the blocks
that drop it (``mine``, with the harvest tools it needs). A fixpoint over the
part of the graph reachable from the goal gives every item an additive cost
estimate (h_add: cyclic recipes such as iron_ingot <-> iron_block settle at
their cheapest acyclic derivation). Expansion then walks from the goal,
choosing the cheapest option for each missing item against a virtual
inventory with reservations, so an ingredient obtained for one recipe is not
spent by the next one. Workstations are placed only when none is in reach.

Steps map to leaves through the action routing of seed 000: mine ->
``acquire_material``, craft/upgrade -> ``craft_recipe``, smelt -> ``smelt``,
place:<workstation> -> ``place_workstation``.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING

import networkx as nx

from craftbt.planners.base import STATIONS, PlanningFailure, PlanningState, PlanResult
from craftbt.planners.intent import GoalVerb, Intent
from craftbt.planners.living import (
    FARM_TICKS_PER_ITEM,
    HOES,
    Farm,
    Hunt,
    farms_for,
    harvest_step,
    hunt_cost,
    hunt_steps,
    hunts_for,
    planted_for,
    plot_steps,
    seed_steps,
)
from craftbt.planners.ppa import Check, PlanStep, carry_stations, steps_to_tree
from craftbt.world import nature
from craftbt.world.legacy_names import modern_name
from craftbt.world.mcdata import McData, Recipe, Slot, load

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

#: Estimated game ticks per unit of work, for comparing options (not promises).
MINE_TRAVEL_TICKS = 60
CRAFT_TICKS = 10
#: The most one step may ask of ``craft_recipe`` (``qty``) and ``smelt`` (``qty``): their args' bounds.
#: A larger need becomes several steps, so no planner emits a step its capability's schema refuses.
MAX_CRAFT_QTY = 576
MAX_SMELT_QTY = 64


def chunks(total: int, most: int) -> list[int]:
    """``total`` split into parts of at most ``most`` (``chunks(10, 4)`` -> ``[4, 4, 2]``)."""
    return [min(most, total - start) for start in range(0, total, most)]
PLACE_TICKS = 20
SMELT_TICKS = 200
#: acquire_material takes at most this many per dispatch (seed 000: count 1-8).
MINE_BATCH = 8
#: How far acquire_material searches; the seed's default of 10 misses stone a short walk away.
SEARCH_RADIUS = 32
UNREACHABLE = math.inf
#: Walking speed 4.317 blocks/s at 20 ticks/s.
WALK_TICKS_PER_BLOCK = 4.6
#: Assumed distance to a block kind nobody surveyed.
UNSURVEYED_DISTANCE = 16
#: A tool serves many digs; one dig carries this share of the tool's cost.
TOOL_AMORTIZATION = 0.1


@dataclass(frozen=True)
class MineSource:
    block: str
    tools: frozenset[str]  # empty: the hand works


@functools.lru_cache(maxsize=4)
def recipe_graph(version: str = "1.21.4") -> nx.DiGraph:
    """Item -> source edges with ``kind`` craft | smelt | mine; built once per version."""
    md = load(version)
    graph = nx.DiGraph()
    for item in md.items():
        for recipe in md.recipes_for(item.name):
            for ingredient in recipe.inputs:
                graph.add_edge(item.name, ingredient, kind="craft")
        for smelting in md.smelting_for(item.name):
            graph.add_edge(item.name, smelting.input, kind="smelt")
    for source_item, sources in mine_sources(version).items():
        for source in sources:
            graph.add_edge(source_item, "block:" + source.block, kind="mine")
            for tool in source.tools:
                graph.add_edge("block:" + source.block, tool, kind="tool")
    return graph


@functools.lru_cache(maxsize=4)
def mine_sources(version: str = "1.21.4") -> dict[str, tuple[MineSource, ...]]:
    """For each item, the blocks that reliably drop it (chance 1, no silk touch or shears)."""
    md = load(version)
    out: dict[str, list[MineSource]] = defaultdict(list)
    for block in md.blocks():
        if not block.breakable:
            continue
        # a crop's produce drops only once it is ripe: that is farming (planners.living), not mining
        guaranteed = [
            e.item for e in block.loot
            if e.chance >= 1 and e.condition is None and e.min_count >= 1 and e.block_age is None
        ]
        items = guaranteed if block.loot else list(block.drops)
        for item in dict.fromkeys(items):
            out[item].append(MineSource(block.name, block.harvest_tools))
    return {k: tuple(v) for k, v in out.items()}


class CraftingSolver:
    """Cheapest tree to obtain an item from the current inventory and surroundings."""

    name = "solver"

    def __init__(self, version: str = "1.21.4") -> None:
        self.version = version

    def available(self) -> bool:
        return True

    def can_handle(self, intent: Intent) -> bool:
        return intent.goal.verb is GoalVerb.OBTAIN

    def emittable_verbs(self) -> frozenset[str]:
        return frozenset({"acquire_material", "craft_recipe", "smelt", "place_workstation", "explore",
                          "attack_entity", "collect_items", "till_soil", "plant_crop", "harvest_crop",
                          "equip_weapon"})

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        goal = intent.goal
        md = load(self.version)
        if not md.has_item(goal.target):
            raise unknown_item(md, goal.target)
        gather = state.gathers(registry)
        if gather:
            refuse_if_elsewhere(md, self.version, goal.target, state.inventory)
        expansion = _Expansion(md, state, self.version, gather, goal.target)
        if not gather:
            refuse_if_unpayable(md, goal.target, expansion.costs)
        expansion.obtain(goal.target, goal.count, frozenset())
        steps = carry_stations(with_explores(consolidate_mining(expansion.steps, state.inventory), state),
                               state.stations)
        tree = steps_to_tree(
            tree_name=f"obtain_{goal.target}",
            description=f"Obtain {goal.count} {goal.target} (crafting solver, {len(steps)} steps)",
            goal=Check("has_item", {"item": goal.target, "count": goal.count}),
            steps=steps,
        )
        assumed = expansion.assumed_blocks
        # the searches inserted after the expansion cost their expected walk too
        total = expansion.total_cost + sum(s.cost for s in steps if s.capability == "explore")
        explanation = (
            f"{len(steps)} steps; cost ~{total:.0f} ticks; mines "
            + (", ".join(sorted(expansion.mined)) or "nothing")
            + ("; assumes " + ", ".join(sorted(assumed)) + " can be found" if assumed else "")
        )
        return PlanResult(
            planner=self.name,
            tree=tree,
            estimated_cost=total,
            confidence=0.9 if not assumed else 0.7,
            explanation=explanation,
            steps=len(steps),
            method="recipe_graph",
        )


_Choice = MineSource | Recipe | Hunt | Farm | str
_Saved = tuple[dict[str, int], dict[str, int], set[str], int, float, set[str], set[str], set[str]]


class _Expansion:
    """One expansion against a virtual inventory. Steps accumulate in execution order."""

    def __init__(self, md: McData, state: PlanningState, version: str, gather: bool = True,
                 goal: str | None = None) -> None:
        self.md = md
        self.version = version
        self.state = state
        #: False: only what is held, crafted and smelted (see PlanningState.gathering)
        self.gather = gather
        self.inventory: dict[str, int] = defaultdict(int, state.inventory)
        self.reserved: dict[str, int] = defaultdict(int)
        self.stations: set[str] = set(state.stations)
        self.steps: list[PlanStep] = []
        self.total_cost = 0.0
        self.mined: set[str] = set()
        self.assumed_blocks: set[str] = set()
        #: items a plan explores for (their blocks are not in view): one explore step each
        self.explored: set[str] = set()
        self.sources = mine_sources(version) if gather else {}
        self.costs = _cost_table(md, version, state, gather, goal)
        self._fuels: tuple[tuple[str, int], ...] | None = None

    # -- bookkeeping ------------------------------------------------------------
    def free(self, item: str) -> int:
        # .get: asking must not add a key (a snapshot copies the whole inventory at every option tried)
        return self.inventory.get(item, 0) - self.reserved.get(item, 0)

    def reserve(self, item: str, count: int) -> None:
        self.reserved[item] += count

    def spend(self, item: str, count: int) -> None:
        self.inventory[item] -= count
        self.reserved[item] = max(0, self.reserved[item] - count)

    def add_step(self, step: PlanStep) -> None:
        self.steps.append(step)
        self.total_cost += step.cost

    # -- expansion ----------------------------------------------------------------
    def obtain(self, item: str, count: int, visiting: frozenset[str]) -> None:
        """Make ``count`` of ``item`` free in the virtual inventory, then reserve them."""
        missing = count - self.free(item)
        if missing > 0:
            if item in visiting:
                raise PlanningFailure("cyclic_requirement", f"{item} is needed to make itself")
            self._produce(item, missing, visiting | {item})
        self.reserve(item, count)

    def _produce(self, item: str, count: int, visiting: frozenset[str]) -> None:
        """Try options cheapest first; a dead end rolls the expansion back and tries the next."""
        options = sorted(self._options(item, visiting), key=lambda o: o[0])
        if not options:
            if not self.gather:
                raise PlanningFailure("missing_ingredient", f"{count} more {item}: not held, and nothing held "
                                      "makes it")
            raise PlanningFailure("unobtainable", f"no way to obtain {item} from here")
        failure: PlanningFailure | None = None  # the cheapest option's dead end: the one a proof names
        for _, _kind, choice in options:
            saved = self._snapshot()
            try:
                if isinstance(choice, Hunt):
                    self._hunt(item, count, choice, visiting)
                elif isinstance(choice, Farm):
                    self._farm(item, count, choice, visiting)
                elif isinstance(choice, MineSource):
                    self._mine(item, count, choice, visiting)
                elif isinstance(choice, Recipe):
                    self._craft(item, count, choice, visiting)
                else:
                    self._smelt(item, count, choice, visiting)
                return
            except PlanningFailure as dead_end:
                failure = failure or dead_end
                self._restore(saved)
        assert failure is not None
        if failure.reason == "missing_ingredient" and not self.gather and len(visiting) > 1:
            # the proof starts at what the plan is short of (2 diamonds held for a pickaxe: "1 more diamond"),
            # then names the dead end of its cheapest way to make it, not the dead end alone ("diamond_block");
            # the goal itself (alone in visiting) is not repeated
            raise PlanningFailure(failure.reason, f"{count} more {item}: not held; making it: {failure.detail}")
        raise failure

    def _snapshot(self) -> _Saved:
        return (
            dict(self.inventory), dict(self.reserved), set(self.stations), len(self.steps),
            self.total_cost, set(self.mined), set(self.assumed_blocks), set(self.explored),
        )

    def _restore(self, saved: _Saved) -> None:
        inventory, reserved, stations, n_steps, cost, mined, assumed, explored = saved
        self.explored = explored
        self.inventory = defaultdict(int, inventory)
        self.reserved = defaultdict(int, reserved)
        self.stations = stations
        del self.steps[n_steps:]
        self.total_cost = cost
        self.mined = mined
        self.assumed_blocks = assumed

    def _options(self, item: str, visiting: frozenset[str]) -> list[tuple[float, str, _Choice]]:
        options: list[tuple[float, str, _Choice]] = []
        if self.gather and self.state.available_blocks is not None:  # a real world: animals roam it
            for hunt in hunts_for(item):
                if hunt.uses not in visiting:
                    options.append((hunt_cost(hunt, lambda i: self.costs.get(i, UNREACHABLE)), "hunt", hunt))
            for farm in farms_for(item):
                if farm.seed not in visiting:
                    options.append((farm_cost(self.costs), "farm", farm))
        for source in self.sources.get(item, ()):
            if self._block_available(source.block):
                tool_cost = 0.0 if self._has_tool(source) or not source.tools else TOOL_AMORTIZATION * min(
                    self.costs.get(t, UNREACHABLE) for t in source.tools
                )
                walk = WALK_TICKS_PER_BLOCK * _distance(self.state, source.block)
                options.append((MINE_TRAVEL_TICKS + walk + tool_cost, "mine", source))
        recipes, inputs = _makers(self.version).get(item) or _makers_of(self.md, item)
        for recipe in recipes:
            cost = CRAFT_TICKS + recipe_cost(recipe, lambda i: UNREACHABLE if i in visiting else self.costs.get(
                i, UNREACHABLE))
            options.append((cost / recipe.count, "craft", recipe))
        for smelt_input in inputs:
            if smelt_input not in visiting:
                cost = SMELT_TICKS + self.costs.get(smelt_input, UNREACHABLE)
                options.append((cost, "smelt", smelt_input))
        return [o for o in options if o[0] < UNREACHABLE]

    def _block_available(self, block: str) -> bool:
        if self.state.available_blocks is None:
            if block in _natural_blocks():
                self.assumed_blocks.add(block)
                return True
            return False
        return block in self.state.available_blocks or nature.where(block) is not None

    def _has_tool(self, source: MineSource) -> bool:
        return any(self.inventory[t] > 0 for t in source.tools)

    def _obtain_tool(self, source: MineSource, visiting: frozenset[str]) -> None:
        """Make one of ``source``'s tools, cheapest first; a dead end tries the next. Held items cost nothing in
        the cost table, so with one iron ingot held an iron pickaxe looks cheapest for mining iron ore, and
        making it needs the very iron being mined (a bucket from two held ingots was refused)."""
        failure: PlanningFailure | None = None
        for tool in sorted(source.tools, key=lambda t: (self.costs.get(t, UNREACHABLE), t)):
            if self.costs.get(tool, UNREACHABLE) >= UNREACHABLE:
                break
            saved = self._snapshot()
            try:
                self.obtain(tool, 1, visiting)
            except PlanningFailure as dead_end:
                failure = failure or dead_end
                self._restore(saved)
                continue
            self.reserved[tool] -= 1  # tools are used, not consumed
            return
        raise failure or PlanningFailure("unobtainable", f"no tool to mine {source.block} with")

    def _mine(self, item: str, count: int, source: MineSource, visiting: frozenset[str]) -> None:
        preconditions: list[Check] = []
        if source.tools and not self._has_tool(source):
            self._obtain_tool(source, visiting)
        if source.tools:
            held = next(t for t in sorted(source.tools, key=lambda t: self.costs.get(t, UNREACHABLE))
                        if self.inventory[t] > 0)
            preconditions.append(Check("has_item", {"item": held, "count": 1}))
        self.mined.add(source.block)
        remaining = count
        while remaining > 0:
            batch = min(MINE_BATCH, remaining)
            self.inventory[item] += batch
            remaining -= batch
            self.add_step(
                PlanStep(
                    name=f"mine {batch} {source.block}",
                    capability="acquire_material",
                    # the wanted drop, not the block: the leaf mines whatever drops it, and its declared
                    # effect has:{item} then matches what later steps need (stone -> cobblestone)
                    args={"item": item, "count": batch, "radius": SEARCH_RADIUS},
                    effect=Check("has_item", {"item": item, "count": self.inventory[item]}),
                    preconditions=list(preconditions),
                    cost=MINE_TRAVEL_TICKS * batch,
                    group=f"gather {item}",
                    retry=2,
                    produces={item: batch},
                )
            )

    def _hunt(self, item: str, count: int, hunt: Hunt, visiting: frozenset[str]) -> None:
        """Per kill: find an animal (explore ends at once when one is near), kill it, pick the drop up; a mob of
        the night is fought with a sword, made first when none is held."""
        if hunt.weapons and not any(self.inventory[w] > 0 for w in hunt.weapons):
            weapon = min(hunt.weapons, key=lambda w: (self.costs.get(w, UNREACHABLE), w))
            self.obtain(weapon, 1, visiting)
            self.reserved[weapon] -= 1  # a sword is used, not consumed
        if hunt.uses is not None:  # a milking spends a bucket per milk bucket
            self.obtain(hunt.uses, count, visiting)
            self.spend(hunt.uses, count)
        for step in hunt_steps(item, count, hunt, self.inventory[item]):
            self.add_step(step)
        self.inventory[item] += count

    def _farm(self, item: str, count: int, farm: Farm, visiting: frozenset[str]) -> None:
        """A hoe, seeds from grass, a plot tilled and sown, then the harvest once ``count`` crops are ripe."""
        if self.state.available_blocks is not None and farm.crop in self.state.available_blocks:
            # crops already stand in view (this plan's own, before a replan): wait for them and harvest
            self.inventory[item] += count
            self.add_step(harvest_step(farm, count, self.inventory[item], count))
            return
        if not any(self.inventory[h] > 0 for h in HOES):
            hoe = min(HOES, key=lambda h: (self.costs.get(h, UNREACHABLE), h))
            self.obtain(hoe, 1, visiting)
            self.reserved[hoe] -= 1  # tools are used, not consumed
        held_hoe = next(h for h in HOES if self.inventory[h] > 0)
        planted = planted_for(count)
        short = planted - self.free(farm.seed)
        if short > 0:
            for step in seed_steps(farm, short, self.inventory[farm.seed]):
                self.add_step(step)
            self.inventory[farm.seed] += short
        self.inventory[farm.seed] -= planted
        self.inventory[item] += count
        for step in plot_steps(farm, count, held_hoe, self.inventory[item]):
            self.add_step(step)

    def _craft(self, item: str, count: int, recipe: Recipe, visiting: frozenset[str]) -> None:
        crafts = math.ceil(count / recipe.count)
        # each slot is paid with what is free of its options first, the rest with its cheapest option; when
        # that option cannot be had (held planks cost nothing, but only as many as are held), the next one
        free = {i: max(0, self.free(i)) for i in recipe.inputs if i not in visiting}

        def cost(i: str) -> float:
            return UNREACHABLE if i in visiting else self.costs.get(i, UNREACHABLE)

        failure: PlanningFailure | None = None
        for uses in craft_mixes(recipe, crafts, free, cost):
            saved = self._snapshot()
            try:
                for ingredient, total in uses.items():
                    self.obtain(ingredient, total, visiting)
                break
            except PlanningFailure as dead_end:
                failure = failure or dead_end
                self._restore(saved)
        else:
            saved = self._snapshot()
            spread = self._spread(recipe, crafts, free, cost, visiting)
            if spread is None:
                self._restore(saved)
                assert failure is not None
                raise failure
            uses = spread
        preconditions = [Check("has_item", {"item": ing, "count": n}) for ing, n in uses.items()]
        if recipe.needs_table:
            self._ensure_station("crafting_table", visiting)
            preconditions.append(Check("block_nearby", {"block": "crafting_table", "radius": 6}))
        for ingredient, total in uses.items():
            self.spend(ingredient, total)
        batches = chunks(crafts, max(1, MAX_CRAFT_QTY // recipe.count))
        held = dict(uses)
        for batch in batches:
            made = batch * recipe.count
            self.inventory[item] += made
            part = uses
            if len(batches) > 1:  # each batch needs (and checks) only its own share of the ingredients
                part = recipe.fill(batch, held)
                for ing, n in part.items():
                    held[ing] -= n
                preconditions = [Check("has_item", {"item": ing, "count": n})
                                 for ing, n in part.items()] + preconditions[len(uses):]
            self.add_step(
                PlanStep(
                    name=f"craft {made} {item}",
                    capability="craft_recipe",
                    args={"recipe": item, "qty": made},
                    effect=Check("has_item", {"item": item, "count": self.inventory[item]}),
                    preconditions=preconditions,
                    cost=CRAFT_TICKS * batch,
                    group=f"make {item}",
                    produces={item: made},
                    consumes=dict(part),
                )
            )

    def _spread(self, recipe: Recipe, crafts: int, free: dict[str, int], cost: Callable[[str], float],
                visiting: frozenset[str]) -> dict[str, int] | None:
        """Each slot from what is held, then as much as can be had of each option, cheapest first: the
        six planks a note block still needs made from one oak log and one jungle wood. Obtains what it
        returns; ``None`` (the caller rolls back) when a slot stays short."""
        def most(option: str, have: int, need: int) -> int:
            low, high = 0, need  # the most of ``option`` obtainable (monotone: a bisection)
            while low < high:
                mid = (low + high + 1) // 2
                saved = self._snapshot()
                try:
                    self.obtain(option, have + mid, visiting)
                    low = mid
                except PlanningFailure:
                    high = mid - 1
                self._restore(saved)
            return low

        uses = spread_mix(recipe, crafts, free, cost, most)
        if uses is None:
            return None
        for ingredient, total in uses.items():
            self.obtain(ingredient, total, visiting)
        return uses

    def _smelt(self, item: str, count: int, input_item: str, visiting: frozenset[str]) -> None:
        self.obtain(input_item, count, visiting)
        fuel, fuel_count = self._choose_fuel(count, visiting | {item})
        self.obtain(fuel, fuel_count, visiting)
        self._ensure_station("furnace", visiting)
        self.spend(input_item, count)
        self.spend(fuel, fuel_count)
        batches = chunks(count, MAX_SMELT_QTY)
        fuel_left = fuel_count
        for i, batch in enumerate(batches):
            # the fuel is shared out in proportion; the last batch takes what is left
            batch_fuel = fuel_left if i == len(batches) - 1 else math.ceil(fuel_count * batch / count)
            fuel_left -= batch_fuel
            self.inventory[item] += batch
            self.add_step(
                PlanStep(
                    name=f"smelt {batch} {input_item}",
                    capability="smelt",
                    args={"input": input_item, "qty": batch, "fuel": fuel},
                    effect=Check("has_item", {"item": item, "count": self.inventory[item]}),
                    preconditions=[
                        Check("has_item", {"item": input_item, "count": batch}),
                        Check("has_item", {"item": fuel, "count": batch_fuel}),
                        Check("block_nearby", {"block": "furnace", "radius": 6}),
                    ],
                    cost=SMELT_TICKS * batch,
                    group=f"smelt {item}",
                    produces={item: batch},
                    consumes={input_item: batch, fuel: batch_fuel},
                )
            )

    def _choose_fuel(self, items: int, visiting: frozenset[str]) -> tuple[str, int]:
        """The fuel that costs least for ``items`` smelts, preferring what is already held."""
        if self._fuels is None:
            self._fuels = obtainable_fuels(self.md, self.costs)
        ranked = rank_fuels(self._fuels, items, self.free, lambda f: self._unit_cost(f, visiting), skip=visiting)
        if not ranked:
            raise PlanningFailure("no_fuel" if self.gather else "missing_ingredient",
                                  "no furnace fuel held" if not self.gather else "no obtainable furnace fuel")
        _, fuel, needed = ranked[0]
        return fuel, needed

    def _unit_cost(self, item: str, visiting: frozenset[str]) -> float:
        """What one more ``item`` costs (see :func:`rank_fuels`): the cost table's, but for one held (priced at
        nothing there) the cheapest way to make another."""
        unit = self.costs.get(item, UNREACHABLE)
        if unit > 0:
            return unit
        return min((cost for cost, _, _ in self._options(item, visiting | {item})), default=UNREACHABLE)

    def _ensure_station(self, station: str, visiting: frozenset[str]) -> None:
        if station in self.stations:
            return
        self.obtain(station, 1, visiting)
        self.spend(station, 1)
        self.stations.add(station)
        self.add_step(
            PlanStep(
                name=f"place {station}",
                capability="place_workstation",
                args={"workstation": station},
                effect=Check("block_nearby", {"block": station, "radius": 6}),
                preconditions=[Check("has_item", {"item": station, "count": 1})],
                cost=PLACE_TICKS,
                group=f"set up {station}",
                consumes={station: 1},
            )
        )


#: A surveyed surface block this close is mined without exploring first.
IN_VIEW_DISTANCE = 24
#: Game-time budget of an emitted explore step: 30 minutes, enough to branch-mine for diamonds.
EXPLORE_TICKS = 36_000
#: ... and for ores below y=0, sparser in a tunnel's walls: 50 minutes.
DEEP_EXPLORE_TICKS = 60_000


def explore_step(item: str, block: str, preconditions: list[Check], count: int = 1) -> PlanStep:
    """Bring a block that drops ``item`` into view: the step planners emit instead of refusing.

    Underground, ``count`` blocks of it must have been in reach (the mining step takes that many)."""
    search = nature.search_cost_blocks(block) or UNSURVEYED_DISTANCE
    deep = nature.where(block) == "deep_ore"  # rarer ores (gold, diamond, redstone) get longer to find
    args: dict[str, object] = {"target": item, "max_ticks": DEEP_EXPLORE_TICKS if deep else EXPLORE_TICKS}
    if nature.where(block) not in ("surface", None):
        args["count"] = max(1, min(16, count))
    elif search > nature.SEARCH_BLOCKS["surface"]:
        # a rare surface block (sugar cane by a shore, a flower of one biome) is searched as far as it is expected:
        # a spiral of the explore leaf's default 48 blocks failed after 150 s and the next one began afresh where
        # the bot stood (natural seed 0: cornflowers 83 blocks from spawn, sugar cane 64); and as far as it may be,
        # not only as far as expected (seed 1's nearest sugar cane is 119 blocks off, seed 2's lily of the valley 102)
        args["max_distance"] = nature.search_reach(block)
    return PlanStep(
        name=f"explore for {item}",
        capability="explore",
        args=args,
        preconditions=list(preconditions),
        cost=WALK_TICKS_PER_BLOCK * search,
        group=f"gather {item}",
    )


def refuse_if_elsewhere(md: McData, version: str, item: str, inventory: dict[str, int] | None = None) -> None:
    """Raise ``out_of_reach`` when ``item`` can be had only with blocks of the Nether or the End, and
    ``unobtainable`` naming the raw materials (and why, ``world.nature.NO_SOURCE``) when nothing the overworld
    generates, no mob and no farm gives what it needs: the refusals left once whatever the overworld generates
    counts as findable by exploring. What is held counts: quartz in hand makes a comparator, three blackstone a
    blackstone slab, a held egg makes the cake's egg."""
    held = frozenset(i for i, n in (inventory or {}).items() if n > 0)
    overworld = frozenset((b, UNSURVEYED_DISTANCE) for b in _generated_blocks())
    costs = _cost_fixpoint(md, version, overworld, held, True)
    if costs.get(item, UNREACHABLE) < UNREACHABLE:
        return
    everywhere = overworld | frozenset((b, UNSURVEYED_DISTANCE) for b in nature.OTHER_DIMENSIONS)
    if _cost_fixpoint(md, version, everywhere, held, True).get(item, UNREACHABLE) < UNREACHABLE:
        raise PlanningFailure("out_of_reach", f"{item} needs blocks of the Nether or the End; this bot stays in "
                              "the overworld")
    lacking = sorted(raw for raw in _closure(version, item) if raw in nature.NO_SOURCE and raw not in held)
    if lacking:
        raise PlanningFailure("unobtainable", f"{item} needs " + "; ".join(
            f"{raw}, which this world does not give: {nature.NO_SOURCE[raw]}" for raw in lacking))


#: Mixes of one recipe tried (or offered as methods) beyond the cheapest.
MAX_CRAFT_MIXES = 3


def craft_mixes(recipe: Recipe, crafts: int, free: dict[str, int],
                cost: Callable[[str], float]) -> list[dict[str, int]]:
    """What ``crafts`` crafts of ``recipe`` may consume, best first: each slot paid with what is ``free`` of its
    options and the rest with its cheapest option; then the rest with each other obtainable option, cheapest
    first (the held planks cost nothing but run out; the oak log held makes the two planks still short)."""
    mixes = [recipe.fill(crafts, free, cost)]
    others = sorted({o for slot in recipe.slots if len(slot.options) > 1 for o in slot.options
                     if o not in mixes[0] and cost(o) < UNREACHABLE}, key=lambda o: (cost(o), o))
    for option in others[:MAX_CRAFT_MIXES]:
        mix = recipe.fill(crafts, free, preferring(option, cost))
        if mix not in mixes:
            mixes.append(mix)
    return mixes


def spread_mix(recipe: Recipe, crafts: int, free: dict[str, int], cost: Callable[[str], float],
               most: Callable[[str, int, int], int]) -> dict[str, int] | None:
    """What ``crafts`` crafts consume when no one option pays what is short: each slot takes what is ``free``
    of its options, then as much as can be had of each option, cheapest first (``most(option, have, need)``:
    how many more of it beyond ``have``, at most ``need``): the six planks a note block still needs, four
    made from an oak log and two from jungle wood. ``None`` when a slot stays short. The solver's ``most``
    plans each amount; the HTN's and GOAP's estimate it (:func:`made_from_held`) and plan the mix."""
    left = dict(free)
    uses: dict[str, int] = {}
    for slot in recipe.slots:
        need = slot.take(slot.count * crafts, left, uses)
        for option in sorted((o for o in slot.options if cost(o) < UNREACHABLE), key=lambda o: (cost(o), o)):
            if need <= 0:
                break
            got = most(option, uses.get(option, 0), need)
            if got:
                uses[option] = uses.get(option, 0) + got
                need -= got
        if need > 0:
            return None
    return uses


def made_from_held(md: McData, item: str, held: dict[str, int]) -> int:
    """How many ``item`` one craft step makes from what is ``held`` (planks from the logs, wood and stems
    held): an estimate for :func:`spread_mix`; the plan of the mix is what proves it."""
    best = 0
    for recipe in _recipes(md, item):
        crafts = min(sum(held.get(o, 0) for o in slot.options) // slot.count for slot in recipe.slots)
        best = max(best, crafts * recipe.count)
    return best


def needs_spread(recipe: Recipe, crafts: int, free: dict[str, int]) -> bool:
    """Whether :func:`spread_of_made` can offer a mix: a slot with several options that what is ``free`` does
    not pay (a mix of held options is one of the others)."""
    if all(sum(free.get(o, 0) for o in slot.options) >= slot.count * crafts for slot in recipe.slots):
        return False
    return any(len(slot.options) > 1 for slot in recipe.slots)


def spread_of_made(md: McData, recipe: Recipe, crafts: int, free: dict[str, int], held: dict[str, int],
                   cost: Callable[[str], float]) -> dict[str, int] | None:
    """:func:`spread_mix` with each option's amount what is free of it plus what one craft step makes of it from
    ``held``; None unless :func:`needs_spread`."""
    if not needs_spread(recipe, crafts, free):
        return None
    return spread_mix(recipe, crafts, free, cost,
                      lambda option, _have, need: min(need, made_from_held(md, option, held)))


def unknown_item(md: McData, name: str) -> PlanningFailure:
    """The refusal of a goal naming no item: an old name (world.legacy_names) is named with its 1.21.4 name,
    never taken silently."""
    modern, note = modern_name(name)
    hint = f"; {note}: ask for {modern}" if note else ""
    return PlanningFailure("unknown_item", f"{name!r} is not a {md.version} item{hint}")


def craft_only_refusal(version: str, state: PlanningState, item: str, count: int) -> PlanningFailure:
    """Why ``count`` ``item`` cannot be made from what ``state`` holds: the solver's expansion (craft-only)
    names the first ingredient that runs short; HTN and GOAP refuse with it too, so every planner gives the
    same proof. (If the solver does find a plan, the refusal says so: the other planner missed it.)"""
    md = load(version)
    expansion = _Expansion(md, state, version, gather=False, goal=item)
    try:
        refuse_if_unpayable(md, item, expansion.costs)
        expansion.obtain(item, count, frozenset())
    except PlanningFailure as failure:
        return failure
    return PlanningFailure("no_decomposition", f"{count} {item} can be made from what is held (the solver plans "
                           "it) but this planner found no way")


def preferring(option: str | None, cost: Callable[[str], float]) -> Callable[[str], float]:
    """``cost`` with ``option`` first: :meth:`Recipe.fill` then pays what is still short with it."""
    def ranked(item: str) -> float:
        return -1.0 if item == option else cost(item)
    return ranked


def recipe_cost(recipe: Recipe, cost: Callable[[str], float]) -> float:
    """Additive cost of one craft's ingredients: each slot at its cheapest option (``inf``: unpayable)."""
    total = 0.0
    for slot in recipe.slots:
        total += min(map(cost, slot.options)) * slot.count
        if total == UNREACHABLE:  # the other slots cannot make it payable (a dyed wool's sixteen wools)
            break
    return total


def refuse_if_unpayable(md: McData, item: str, costs: dict[str, float]) -> None:
    """Raise ``missing_ingredient`` with a proof when nothing held can become ``item`` (craft-only costs):
    for the goal and then the first unpayable ingredient, each recipe's slot that no held or makeable item
    fills, down to an item nothing makes. Quantities are the expansion's to check."""
    if costs.get(item, UNREACHABLE) < UNREACHABLE:
        return
    chain: list[str] = []
    seen: set[str] = set()
    current: str | None = item
    while current is not None and current not in seen and len(chain) < 4:
        seen.add(current)
        ways: list[str] = []
        nxt: str | None = None
        for recipe in _recipes(md, current):
            dead = next(s for s in recipe.slots if all(costs.get(o, UNREACHABLE) == UNREACHABLE for o in s.options))
            ways.append("craft needs " + _slot_text(dead))
            if nxt is None:
                nxt = next((o for o in dead.options if o not in seen), None)
        for smelting in md.smelting_for(current):
            ways.append(f"smelt needs {smelting.input}")
            if nxt is None and smelting.input not in seen:
                nxt = smelting.input
        chain.append(f"{current}: " + ("; ".join(dict.fromkeys(ways)) if ways else "not held and no recipe makes it"))
        current = nxt
    raise PlanningFailure("missing_ingredient", f"cannot make {item} from what is held: " + " <- ".join(chain))


def _slot_text(slot: Slot) -> str:
    names = " or ".join(slot.options[:3]) + (f" (or {len(slot.options) - 3} more)" if len(slot.options) > 3 else "")
    return f"{slot.count} {names}"


def in_view(state: PlanningState, block: str) -> bool:
    """Will acquire_material find ``block`` from here? Unsurveyed plans assume so. A survey also sees
    exposed ore deep in a cave and trees beyond the leaf's radius: those get an explore step too
    (one that ends at once when the block is already within reach)."""
    if state.available_blocks is None:
        return True
    if block not in state.available_blocks:
        return False
    return nature.where(block) in ("surface", None) and state.block_distance.get(block, 0) <= IN_VIEW_DISTANCE


def explore_moves(steps: list[PlanStep], state: PlanningState) -> dict[int, list[PlanStep]]:
    """Explore steps to insert before ``steps[i]`` (keyed by ``id(step)``): before the first mining step
    of each item none of whose blocks is in view. Every planner emits them the same way."""
    if state.available_blocks is None:
        return {}
    sources = mine_sources()
    totals: dict[str, int] = defaultdict(int)
    for step in steps:
        if step.capability == "acquire_material":
            totals[str(step.args["item"])] += int(step.args["count"])
    out: dict[int, list[PlanStep]] = {}
    done: set[str] = set()
    for step in steps:
        if step.capability != "acquire_material" or str(step.args["item"]) in done:
            continue
        item = str(step.args["item"])
        done.add(item)
        blocks = [src.block for src in sources.get(item, ()) if nature.where(src.block) is not None]
        if not blocks or any(in_view(state, b) for b in [src.block for src in sources.get(item, ())]):
            continue
        block = min(blocks, key=lambda b: (nature.search_cost_blocks(b) or 0, b))
        tools = [c for c in step.preconditions if c.check == "has_item"]
        out[id(step)] = [explore_step(item, block, tools, totals[item])]
    return out


def with_explores(steps: list[PlanStep], state: PlanningState) -> list[PlanStep]:
    """``steps`` with the explore steps of :func:`explore_moves` in place."""
    inserts = explore_moves(steps, state)
    return [s for step in steps for s in (*inserts.get(id(step), ()), step)]


def _distance(state: PlanningState, block: str) -> float:
    """Blocks to the nearest one surveyed, else the expected search for one not in view."""
    seen = state.block_distance.get(block)
    if seen is not None:
        return seen
    if state.available_blocks is not None and block not in state.available_blocks:
        return float(nature.search_cost_blocks(block) or UNSURVEYED_DISTANCE)
    return UNSURVEYED_DISTANCE


def consolidate_mining(steps: list[PlanStep], inventory: dict[str, int]) -> list[PlanStep]:
    """Gather each block in as few trips as possible, then re-derive every effect count.

    Counts stay within ``MINE_BATCH`` per dispatch (a merged step is split again).
    """
    out: list[PlanStep] = []
    for step in merge_mining(steps):
        if step.capability == "acquire_material" and int(step.args["count"]) > MINE_BATCH:
            out.extend(_split_batches(step))
        else:
            out.append(step)
    rederive_effects(out, inventory)
    return out


def merge_mining(steps: list[PlanStep], cap: int | None = None) -> list[PlanStep]:
    """``steps`` with each later mining step of a block folded into the first one (mutated in place).

    A later mining step of the same block with the same tool precondition moves
    up to the first one: its tool was already held there, and gathering earlier
    never makes a later step infeasible (and the wood for the last sticks is not
    left to be found after a long walk away from the trees). With ``cap``, a first
    step takes no more than ``cap`` blocks; the step that would exceed it stays.
    """
    merged: list[PlanStep] = []
    first_at: dict[tuple[str, str], int] = {}
    for step in steps:
        if step.capability != "acquire_material":
            merged.append(step)
            continue
        key = (str(step.args["item"]), repr(step.preconditions))
        index = first_at.get(key)
        if index is not None and cap is not None and int(merged[index].args["count"]) + int(step.args["count"]) > cap:
            index = None
        if index is None:
            first_at[key] = len(merged)
            merged.append(step)
            continue
        host = merged[index]
        for produced, count in step.produces.items():
            host.produces[produced] = host.produces.get(produced, 0) + count
        host.args["count"] = int(host.args["count"]) + int(step.args["count"])
        host.cost += step.cost
    return merged


def _split_batches(step: PlanStep) -> list[PlanStep]:
    total = int(step.args["count"])
    (item, produced), = step.produces.items()
    per_block = produced // total
    parts: list[PlanStep] = []
    while total > 0:
        batch = min(MINE_BATCH, total)
        total -= batch
        parts.append(
            PlanStep(
                name=f"mine {batch} {step.args['item']}",
                capability=step.capability,
                args={**step.args, "count": batch},
                effect=step.effect,
                preconditions=list(step.preconditions),
                cost=MINE_TRAVEL_TICKS * batch,
                group=step.group,
                retry=step.retry,
                produces={item: batch * per_block},
            )
        )
    return parts


def rederive_effects(steps: list[PlanStep], inventory: dict[str, int]) -> None:
    """Walk the plan on a virtual inventory; each effect checks the count after its step."""
    held: dict[str, int] = defaultdict(int, inventory)
    for step in steps:
        for item, count in step.consumes.items():
            held[item] -= count
        for item, count in step.produces.items():
            held[item] += count
        if step.effect is not None and step.effect.check == "has_item":
            item = str(step.effect.args["item"])
            step.effect = Check("has_item", {"item": item, "count": held[item]})
        if step.capability == "acquire_material":
            (item,) = step.produces
            step.name = f"mine {step.args['count']} {step.args['item']}"


def farm_cost(costs: dict[str, float]) -> float:
    """Estimated ticks per item grown on a farm, with a share of the hoe's cost."""
    hoe = min(costs.get(h, UNREACHABLE) for h in HOES)
    return FARM_TICKS_PER_ITEM + TOOL_AMORTIZATION * hoe if hoe < UNREACHABLE else UNREACHABLE


def _recipes(md: McData, item: str) -> list[Recipe]:
    """Recipes that actually produce something (minecraft-data has a map-extension entry with count 0)."""
    return [r for r in md.recipes_for(item) if r.count >= 1]


@functools.lru_cache(maxsize=4)
@functools.lru_cache(maxsize=4)
def _fuels(md: McData) -> tuple[tuple[str, int], ...]:
    """Every fuel that smelts at least one item, with its burn ticks (a scan of the whole item list: once)."""
    return tuple(
        (item.name, ticks) for item in md.items() if (ticks := md.fuel_ticks(item.name)) and ticks >= 100
    )


def fuel_count(burn_ticks: int, items: int) -> int:
    """How many of a fuel burning ``burn_ticks`` smelt ``items`` items (SMELT_TICKS each)."""
    return math.ceil(items * SMELT_TICKS / burn_ticks)


def rank_fuels(fuels: Iterable[tuple[str, int]], items: int, free: Callable[[str], int],
               unit_cost: Callable[[str], float], skip: Collection[str] = ()) -> list[tuple[float, str, int]]:
    """The fuels (name, burn ticks) for ``items`` smelts as (cost, fuel, count), cheapest first; the rule every
    planner chooses its fuel by. A fuel ``free`` has enough of costs nothing; the rest costs what the missing
    ones do at ``unit_cost`` each, which for a fuel held must be the price of making another, not the cost
    table's nothing (one crafting table held made four more the cheapest fuel for eight raw gold: 20 planks
    crafted into tables that burn as long as 6 planks). Among equally cheap fuels the one burning fewest items
    comes first, then the longest burning: a held lava bucket before planks."""
    ranked: list[tuple[float, int, int, str]] = []
    for fuel, burn in fuels:
        if fuel in skip:
            continue
        needed = fuel_count(burn, items)
        short = max(0, needed - free(fuel))
        cost = short * unit_cost(fuel) if short else 0.0
        if cost < UNREACHABLE:
            ranked.append((cost, needed, -burn, fuel))
    ranked.sort()
    return [(cost, fuel, needed) for cost, needed, _, fuel in ranked]


def obtainable_fuels(md: McData, costs: Mapping[str, float]) -> tuple[tuple[str, int], ...]:
    """The fuels (name, burn ticks) a plan with these ``costs`` can burn: held (cost 0) or obtainable. The others
    are never chosen, and a craft-only plan can have a few of the game's hundred-odd fuels at most."""
    return tuple(f for f in _fuels(md) if costs.get(f[0], UNREACHABLE) < UNREACHABLE)


@functools.lru_cache(maxsize=4)
def _relevant_items(version: str) -> tuple[str, ...]:
    """Items that can matter to obtaining items: everything with a recipe, furnace or mining source,
    and everything those are made from (the rest of the registry never changes a cost)."""
    graph = recipe_graph(version)
    return tuple(sorted(n for n in graph.nodes if not n.startswith("block:")))


@functools.lru_cache(maxsize=1)
def _natural_blocks() -> frozenset[str]:
    """Blocks a surface survey usually finds; used only when the planner got no survey."""
    return frozenset(
        {
            "oak_log", "stone", "dirt", "grass_block", "sand", "gravel",
            "coal_ore", "iron_ore", "copper_ore", "oak_leaves", "clay",
        }
    )


@functools.lru_cache(maxsize=1)
def _generated_blocks() -> frozenset[str]:
    return frozenset(nature.SURFACE | nature.UNDERGROUND | set(nature.MINING_Y))


def _cost_table(md: McData, version: str, state: PlanningState, gather: bool = True,
                goal: str | None = None) -> dict[str, float]:
    """h_add fixpoint: the cheapest additive cost of every item, ignoring inventory.

    Mining a block costs the walk to the nearest one the survey saw, so the
    plan gathers from the trees next to the player, not from a birch far away.
    Without ``gather`` only held items have a source, and only the items ``goal`` can be made from (and the
    fuels held or one craft from what is held) are costed: milliseconds, not the whole registry.
    """
    held = frozenset(item for item, count in state.inventory.items() if count > 0)
    if not gather:
        if goal is None:
            return _cost_fixpoint(md, version, frozenset(), held, False, _made_from(version, held))
        return _craft_only_costs(version, goal, held)
    if state.available_blocks is None:
        blocks: frozenset[str] = _natural_blocks()
    else:  # what is in view, and what the overworld generates somewhere (found by exploring)
        blocks = state.available_blocks | _generated_blocks()
    reach = frozenset((b, round(_distance(state, b))) for b in blocks)
    return _cost_fixpoint(md, version, reach, held, state.available_blocks is not None)


@functools.lru_cache(maxsize=8)
def _craft_only_costs(version: str, goal: str, held: frozenset[str]) -> dict[str, float]:
    """The craft-only cost table of ``goal`` from what is ``held``: a function of those alone, so the planners
    one route asks (and a replan from the same inventory) share it. Read-only, like :func:`_cost_fixpoint`'s."""
    return _craft_fixpoint(version, _craft_only_items(version, goal, held), dict.fromkeys(held, 0.0))


@functools.lru_cache(maxsize=4)
def _makers(version: str) -> dict[str, tuple[tuple[Recipe, ...], tuple[str, ...]]]:
    """Item -> (its crafting recipes, its furnace inputs), looked up once."""
    md = load(version)
    return {item.name: _makers_of(md, item.name) for item in md.items()}


def _makers_of(md: McData, item: str) -> tuple[tuple[Recipe, ...], tuple[str, ...]]:
    """``item``'s crafting recipes and furnace inputs, in the game data's order (raises for an unknown item)."""
    return tuple(_recipes(md, item)), tuple(s.input for s in md.smelting_for(item))


@functools.lru_cache(maxsize=4)
def _used_in(version: str) -> dict[str, frozenset[str]]:
    """Item -> what one craft or smelt makes from it."""
    out: dict[str, set[str]] = defaultdict(set)
    for item, (recipes, inputs) in _makers(version).items():
        for recipe in recipes:
            for option in recipe.inputs:
                out[option].add(item)
        for inp in inputs:
            out[inp].add(item)
    return {k: frozenset(v) for k, v in out.items()}


@functools.lru_cache(maxsize=4)
def _sources_of(version: str) -> dict[str, frozenset[str]]:
    """Item -> what one craft or smelt makes it from (the inverse of :func:`_used_in`)."""
    return {item: frozenset().union(*(r.inputs for r in recipes), inputs)
            for item, (recipes, inputs) in _makers(version).items() if recipes or inputs}


@functools.lru_cache(maxsize=4096)
def _closure(version: str, item: str) -> frozenset[str]:
    """``item`` and everything crafts and smelts can make it from."""
    sources = _sources_of(version)
    out = {item}
    todo = [item]
    while todo:
        for nxt in sources.get(todo.pop(), ()):
            if nxt not in out:
                out.add(nxt)
                todo.append(nxt)
    return frozenset(out)


def _craft_only_items(version: str, goal: str, held: frozenset[str]) -> frozenset[str]:
    """What a craft-only plan for ``goal`` can use: what the goal is made from, and when it smelts, the fuels
    held or made by one craft from what is held."""
    items = _closure(version, goal)
    if _smelts(version, goal):
        fuels = _fuel_names(version)
        if held & fuels:  # held fuel costs nothing: no fuel needs crafting
            return items | (held & fuels)
        used_in = _used_in(version)
        near = held | {made for h in held for made in used_in.get(h, ())}
        for fuel in near & fuels:
            items |= _closure(version, fuel)
    return items


@functools.lru_cache(maxsize=4096)
def _smelts(version: str, goal: str) -> bool:
    """Whether anything ``goal`` can be made from comes out of a furnace."""
    makers = _makers(version)
    return any(makers.get(i, ((), ()))[1] for i in _closure(version, goal))


@functools.lru_cache(maxsize=4)
def _fuel_names(version: str) -> frozenset[str]:
    return frozenset(f for f, _ in _fuels(load(version)))


def _made_from(version: str, held: frozenset[str]) -> tuple[str, ...]:
    """Every item a chain of crafts and smelts starting from ``held`` could reach (the graph's ancestors):
    the only items a craft-only plan can cost."""
    graph = recipe_graph(version)
    out: set[str] = set(held)
    todo = [i for i in held if i in graph]
    while todo:
        item = todo.pop()
        for maker in graph.predecessors(item):
            if maker not in out and graph.edges[maker, item]["kind"] in ("craft", "smelt"):
                out.add(maker)
                todo.append(maker)
    return tuple(sorted(out))


def _craft_fixpoint(version: str, items: Collection[str], cost: dict[str, float]) -> dict[str, float]:
    """The crafting and smelting part of :func:`_cost_fixpoint` over ``items`` (``cost`` holds the held ones):
    a worklist from the held items forward, so only what they can become is ever evaluated."""
    makers = _makers(version)
    used_in = _used_in(version)
    wanted = items if isinstance(items, frozenset) else frozenset(items)
    todo = {made for item in cost for made in used_in.get(item, ()) if made in wanted}
    while todo:
        item = todo.pop()
        recipes, inputs = makers.get(item, ((), ()))
        best = cost.get(item, UNREACHABLE)
        for recipe in recipes:
            total = float(CRAFT_TICKS)
            for slot in recipe.slots:  # map, not a generator: this line is most of a craft-only cost table
                total += min(map(cost.get, slot.options, repeat(UNREACHABLE))) * slot.count
                if total == UNREACHABLE:
                    break
            best = min(best, total / recipe.count)
        for inp in inputs:
            best = min(best, SMELT_TICKS + cost.get(inp, UNREACHABLE))
        if best < cost.get(item, UNREACHABLE) - 1e-9:
            cost[item] = best
            todo.update(made for made in used_in.get(item, ()) if made in wanted)
    return cost


@functools.lru_cache(maxsize=32)
def _cost_fixpoint(
    md: McData, version: str, reach: frozenset[tuple[str, int]], held: frozenset[str] = frozenset(),
    hunting: bool = False, only: tuple[str, ...] | None = None,
) -> dict[str, float]:
    """``held`` items cost nothing: a plan may start from what the inventory already has. With ``hunting``,
    animal drops cost a hunt. ``only``: cost just these items (the rest stay unreachable)."""
    graph = recipe_graph(version)
    sources = mine_sources(version)
    distance = dict(reach)
    items = _relevant_items(version) if only is None else only
    cost: dict[str, float] = dict.fromkeys(held, 0.0)
    if only is not None and not reach and not hunting:  # craft-only: crafts and smelts of a few items
        return _craft_fixpoint(version, items, cost)
    changed = True
    while changed:
        changed = False
        for item in items:
            best = cost.get(item, UNREACHABLE)
            for source in sources.get(item, ()):
                if source.block in distance:
                    tool = 0.0 if not source.tools else min(cost.get(t, UNREACHABLE) for t in source.tools)
                    walk = WALK_TICKS_PER_BLOCK * distance[source.block]
                    best = min(best, MINE_TRAVEL_TICKS + walk + tool * TOOL_AMORTIZATION)
            for recipe in _recipes(md, item):
                total = CRAFT_TICKS + recipe_cost(recipe, lambda i: cost.get(i, UNREACHABLE))
                best = min(best, total / recipe.count)
            for smelting in md.smelting_for(item):
                best = min(best, SMELT_TICKS + cost.get(smelting.input, UNREACHABLE))
            if hunting:
                for hunt in hunts_for(item):
                    best = min(best, hunt_cost(hunt, lambda i: cost.get(i, UNREACHABLE)))
                if farms_for(item):
                    best = min(best, farm_cost(cost))
            if best < cost.get(item, UNREACHABLE) - 1e-9:
                cost[item] = best
                changed = True
    del graph
    return cost


__all__ = [
    "STATIONS",
    "CraftingSolver",
    "craft_mixes",
    "craft_only_refusal",
    "explore_moves",
    "farm_cost",
    "fuel_count",
    "in_view",
    "merge_mining",
    "mine_sources",
    "needs_spread",
    "obtainable_fuels",
    "preferring",
    "rank_fuels",
    "recipe_cost",
    "recipe_graph",
    "rederive_effects",
    "refuse_if_elsewhere",
    "refuse_if_unpayable",
    "unknown_item",
    "with_explores",
]
