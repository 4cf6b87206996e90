"""The HTN method library: gathering, crafting, smelting, building, farming and survival.

Compound tasks and their methods (alternatives in brackets):

* ``obtain(item, n)``: make ``n`` free in the virtual inventory and reserve them [held | produce].
* ``produce(item, n)``: gathering [mine:<block> per source block], crafting [craft:<ingredients>
  per recipe], smelting [smelt:<input>].
* ``tool(tools)``: [held | make:<tool>], ``station(name)``: [in_reach | place].
* ``fuel_for(input, n)``: [fuel:<item> per fuel].
* ``build(module_id)``: [module: gather the bill of materials, then ``build_module``].
* ``produce`` also: hunting [hunt:<animal>: find it, kill it, pick the drop up, per kill] and farming
  [farm:standing when crops stand in view: wait for them to ripen and harvest | farm:plant -> ``grow``].
* ``grow(item, n)``: [plant: a hoe, seeds from grass, a row tilled and sown, the harvest once ripe].
* ``farm(crop)``: [plant: get a hoe, till, plant] (a field to build).
* ``survive(need)``: hunger [eat:<food>], night [sleep | shelter], threat [retreat | block_in].

Reservations follow the solver: an ingredient obtained for one recipe is not
spent by the next. Operators check their preconditions against the virtual
state, apply their effects and return the PPA :class:`~planners.ppa.PlanStep`
(effect check, precondition checks, the leaf) that the tree is made of.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from craftbt.capabilities.structures import LIBRARY as MODULES
from craftbt.planners import living
from craftbt.planners.htn.engine import Domain, Task
from craftbt.planners.htn.knowledge import MINE_BATCH, SEARCH_RADIUS, Knowledge
from craftbt.planners.ppa import Check, PlanStep
from craftbt.planners.solver import (
    CRAFT_TICKS,
    MAX_CRAFT_QTY,
    MAX_SMELT_QTY,
    MINE_TRAVEL_TICKS,
    PLACE_TICKS,
    SMELT_TICKS,
    chunks,
    craft_mixes,
    needs_spread,
    rank_fuels,
    spread_of_made,
)
from craftbt.world.body import BlockPos
from craftbt.world.daytime import is_night
from craftbt.world.mcdata import Recipe

#: crop item -> (crop block, seed item) for the farming library
CROPS: dict[str, tuple[str, str]] = {
    "wheat": ("wheat", "wheat_seeds"),
    "carrot": ("carrots", "carrot"),
    "potato": ("potatoes", "potato"),
    "beetroot": ("beetroots", "beetroot_seeds"),
}
HOES = living.HOES
#: blocks good for blocking in or a pillar, cheapest first
BLOCKING = ("dirt", "cobblestone", "oak_planks")
STATION_RADIUS = 6


@dataclass
class CraftState:
    """The virtual world an HTN decomposition runs against."""

    knowledge: Knowledge
    inventory: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    reserved: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    stations: set[str] = field(default_factory=set)
    position: BlockPos | None = None
    time_of_day: int = 1000
    health: float = 20.0
    food: int = 20

    def copy(self) -> CraftState:
        return CraftState(
            self.knowledge, defaultdict(int, self.inventory), defaultdict(int, self.reserved), set(self.stations),
            self.position, self.time_of_day, self.health, self.food,
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> CraftState:
        return self.copy()  # the knowledge (recipe data, costs) is shared and never changed

    def free(self, item: str) -> int:
        return self.inventory[item] - self.reserved[item]

    @property
    def night(self) -> bool:
        return is_night(self.time_of_day)


def has(item: str, count: int) -> Check:
    return Check("has_item", {"item": item, "count": max(1, count)})


def near(block: str) -> Check:
    return Check("block_nearby", {"block": block, "radius": STATION_RADIUS})


def _craft_mixes(recipe: Recipe, crafts: int, s: CraftState) -> list[dict[str, int]]:
    """The solver's mixes of ``recipe`` for this state, each its own method (the priors can then demote
    one that keeps failing here: birch planks where oak ones were cheapest)."""
    free = {i: max(0, s.free(i)) for i in recipe.inputs}
    mixes = craft_mixes(recipe, crafts, free, s.knowledge.cost)
    if not needs_spread(recipe, crafts, free):  # before the whole inventory is read (a Plancraft one: 30 items)
        return mixes
    held = {i: max(0, s.free(i)) for i in s.inventory}
    spread = spread_of_made(s.knowledge.md, recipe, crafts, free, held, s.knowledge.cost)
    return mixes if spread is None or spread in mixes else [*mixes, spread]


def build_domain() -> Domain:
    """A fresh domain (each planner owns one: nothing global, safe across threads)."""
    d = Domain(goal_args={"obtain": 1, "produce": 1})

    # -- bookkeeping -------------------------------------------------------------------------------
    @d.operator("!reserve", None)
    def reserve(s: CraftState, item: str, n: int) -> PlanStep | bool | None:
        if s.free(item) < n:
            return False
        s.reserved[item] += n
        return None

    @d.operator("!unreserve", None)
    def unreserve(s: CraftState, item: str, n: int) -> PlanStep | bool | None:
        s.reserved[item] = max(0, s.reserved[item] - n)
        return None

    # -- gathering ---------------------------------------------------------------------------------
    @d.operator("!mine", "acquire_material")
    def mine(s: CraftState, item: str, block: str, n: int, tools: tuple[str, ...]) -> PlanStep | bool | None:
        if block not in s.knowledge.blocks:
            return False
        held = [t for t in tools if s.inventory[t] > 0]
        if tools and not held:
            return False
        s.inventory[item] += n
        return PlanStep(
            name=f"mine {n} {item}",
            capability="acquire_material",
            args={"item": item, "count": n, "radius": SEARCH_RADIUS},
            effect=has(item, s.inventory[item]),
            preconditions=[has(held[0], 1)] if held else [],
            cost=MINE_TRAVEL_TICKS * n,
            retry=2,
            produces={item: n},
        )

    @d.method("obtain", "held", "gathering")
    def obtain_held(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        if s.free(item) >= n:
            yield "", [("!reserve", item, n)]

    @d.method("obtain", "produce", "gathering")
    def obtain_produce(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        missing = n - s.free(item)
        if missing > 0:
            yield "", [("produce", item, missing), ("!reserve", item, n)]

    @d.method("produce", "mine", "gathering")
    def produce_mine(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        for option in s.knowledge.options(item):
            if option.kind != "mine" or option.block is None:
                continue
            tools = tuple(sorted(option.tools, key=s.knowledge.cost))
            batches: list[Task] = []
            left = n
            while left > 0:
                batch = min(MINE_BATCH, left)
                batches.append(("!mine", item, option.block, batch, tools))
                left -= batch
            yield option.block, ([("tool", tools)] if tools else []) + batches, option.cost * n

    @d.method("tool", "held", "gathering")
    def tool_held(s: CraftState, tools: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
        if any(s.inventory[t] > 0 for t in tools):
            yield "", []

    @d.method("tool", "make", "crafting")
    def tool_make(s: CraftState, tools: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
        if any(s.inventory[t] > 0 for t in tools):
            return
        for tool in tools:  # tools are used, not consumed: obtain one, then release the reservation
            if s.knowledge.cost(tool) < math.inf:
                yield tool, [("obtain", tool, 1), ("!unreserve", tool, 1)], s.knowledge.cost(tool)

    # -- crafting ----------------------------------------------------------------------------------
    @d.operator("!craft", "craft_recipe")
    def craft(
        s: CraftState, item: str, ingredients: tuple[tuple[str, int], ...], crafts: int, per: int, table: bool
    ) -> PlanStep | bool | None:
        """``ingredients``: what these ``crafts`` consume in all (a slot's options mixed)."""
        if any(s.inventory[i] < n for i, n in ingredients):
            return False
        if table and "crafting_table" not in s.stations:
            return False
        for ingredient, n in ingredients:
            s.inventory[ingredient] -= n
            s.reserved[ingredient] = max(0, s.reserved[ingredient] - n)
        made = crafts * per
        s.inventory[item] += made
        return PlanStep(
            name=f"craft {made} {item}",
            capability="craft_recipe",
            args={"recipe": item, "qty": made},
            effect=has(item, s.inventory[item]),
            preconditions=[has(i, n) for i, n in ingredients] + ([near("crafting_table")] if table else []),
            cost=CRAFT_TICKS * crafts,
            produces={item: made},
            consumes=dict(ingredients),
        )

    @d.method("produce", "craft", "crafting")
    def produce_craft(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        for option in s.knowledge.options(item):
            if option.kind != "craft" or option.recipe is None:
                continue
            recipe = option.recipe
            crafts = math.ceil(n / recipe.count)
            for uses in _craft_mixes(recipe, crafts, s):
                ingredients = tuple(sorted(uses.items()))
                subtasks: list[Task] = [("obtain", i, k) for i, k in ingredients]
                if recipe.needs_table:
                    subtasks.append(("station", "crafting_table"))
                # a step crafts at most MAX_CRAFT_QTY items (craft_recipe's bound): more is several steps
                left = dict(uses)
                for batch in chunks(crafts, max(1, MAX_CRAFT_QTY // recipe.count)):
                    part = recipe.fill(batch, left)
                    for i, k in part.items():
                        left[i] -= k
                    subtasks.append(("!craft", item, tuple(sorted(part.items())), batch, recipe.count,
                                     recipe.needs_table))
                # what is already held costs nothing: prefer the mix the inventory can pay for
                short = sum(max(0, k - s.free(i)) * s.knowledge.cost(i) for i, k in ingredients)
                yield "+".join(i for i, _ in ingredients), subtasks, CRAFT_TICKS * crafts + short


    # -- building (workstations and modules) ---------------------------------------------------------
    @d.operator("!place", "place_workstation")
    def place(s: CraftState, station: str) -> PlanStep | bool | None:
        if s.inventory[station] < 1:
            return False
        s.inventory[station] -= 1
        s.reserved[station] = max(0, s.reserved[station] - 1)
        s.stations.add(station)
        return PlanStep(
            name=f"place {station}",
            capability="place_workstation",
            args={"workstation": station},
            effect=near(station),
            preconditions=[has(station, 1)],
            cost=PLACE_TICKS,
            consumes={station: 1},
        )

    @d.method("station", "in_reach", "building")
    def station_in_reach(s: CraftState, station: str) -> Iterator[tuple[Any, ...]]:
        if station in s.stations:
            yield "", []

    @d.method("station", "place", "building")
    def station_place(s: CraftState, station: str) -> Iterator[tuple[Any, ...]]:
        if station not in s.stations:
            yield "", [("obtain", station, 1), ("!place", station)]

    @d.operator("!build_module", "build_module")
    def build_module(s: CraftState, module_id: str) -> PlanStep | bool | None:
        module = MODULES.get(module_id)
        if module is None or s.position is None:
            return False
        bill = _bill(module_id)
        if any(s.inventory[b] < n for b, n in bill.items()):
            return False
        for block, n in bill.items():
            s.inventory[block] -= n
            s.reserved[block] = max(0, s.reserved[block] - n)
        origin = s.position.offset(dx=2, dz=2)
        return PlanStep(
            name=f"build {module_id}",
            capability="build_module",
            args={"module_id": module_id, "origin": {"x": origin.x, "y": origin.y, "z": origin.z}},
            preconditions=[has(b, n) for b, n in bill.items()],
            cost=PLACE_TICKS * sum(bill.values()),
            consumes=bill,
        )

    @d.method("build", "module", "building")
    def build(s: CraftState, module_id: str) -> Iterator[tuple[Any, ...]]:
        if module_id in MODULES:
            yield module_id, [("obtain", b, n) for b, n in _bill(module_id).items()] + [("!build_module", module_id)]

    # -- smelting ------------------------------------------------------------------------------------
    @d.operator("!smelt", "smelt")
    def smelt(s: CraftState, input_item: str, n: int, fuel: str, fuel_n: int) -> PlanStep | bool | None:
        result = s.knowledge.md.smelting_result(input_item)
        if result is None or "furnace" not in s.stations:
            return False
        if s.inventory[input_item] < n or s.inventory[fuel] < fuel_n + (n if fuel == input_item else 0):
            return False
        for item, k in ((input_item, n), (fuel, fuel_n)):
            s.inventory[item] -= k
            s.reserved[item] = max(0, s.reserved[item] - k)
        s.inventory[result.output] += n
        return PlanStep(
            name=f"smelt {n} {input_item}",
            capability="smelt",
            args={"input": input_item, "qty": n, "fuel": fuel},
            effect=has(result.output, s.inventory[result.output]),
            preconditions=[has(input_item, n), has(fuel, fuel_n), near("furnace")],
            cost=SMELT_TICKS * n,
            produces={result.output: n},
            consumes={input_item: n, fuel: fuel_n},
        )

    @d.method("produce", "smelt", "smelting")
    def produce_smelt(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        for option in s.knowledge.options(item):
            if option.kind == "smelt" and option.smelt_input is not None:
                yield option.smelt_input, [
                    ("obtain", option.smelt_input, n), ("station", "furnace"), ("fuel_for", option.smelt_input, n)
                ], option.cost * n

    @d.method("fuel_for", "fuel", "smelting")
    def fuel_for(s: CraftState, input_item: str, n: int) -> Iterator[tuple[Any, ...]]:
        output = s.knowledge.md.smelting_result(input_item)
        fuels = s.knowledge.fuels()
        ticks_of = dict(fuels)
        ranked = rank_fuels(fuels, n, s.free, s.knowledge.made_cost,
                            skip=(input_item, output.output if output else ""))
        # (the small tie-break keeps rank_fuels' order where the engine ranks methods by cost)
        for rank, (cost, fuel, _k) in enumerate(ranked[:4]):
            cost += rank * 1e-3
            # a step smelts at most MAX_SMELT_QTY items (smelt's bound); each batch gets its own fuel
            steps: list[Task] = [("!smelt", input_item, b, fuel, s.knowledge.fuel_needed(ticks_of[fuel], b))
                                 for b in chunks(n, MAX_SMELT_QTY)]
            need = sum(step[4] for step in steps)
            yield fuel, [("obtain", fuel, need), *steps], cost

    # -- hunting -------------------------------------------------------------------------------------
    @d.operator("!find_animal", "explore")
    def find_animal(s: CraftState, animal: str, item: str) -> PlanStep | bool | None:
        return living.find_animal_step(animal, item)

    @d.operator("!equip_weapon", "equip_weapon")
    def equip_weapon(s: CraftState, item: str) -> PlanStep | bool | None:
        return living.equip_step(item)

    @d.operator("!kill", "attack_entity")
    def kill(s: CraftState, animal: str, item: str) -> PlanStep | bool | None:
        return living.kill_step(animal, item)

    @d.operator("!pick_up", "collect_items")
    def pick_up(s: CraftState, item: str, n: int) -> PlanStep | bool | None:
        s.inventory[item] += n
        return living.pickup_step(item, n, s.inventory[item])

    @d.operator("!milk", "milk_animal")
    def milk(s: CraftState, animal: str, item: str, used: str) -> PlanStep | bool | None:
        if s.inventory[used] < 1:
            return False
        s.inventory[used] -= 1
        s.reserved[used] = max(0, s.reserved[used] - 1)
        s.inventory[item] += 1
        return living.milk_step(living.Hunt(animal, 1.0, uses=used), item, s.inventory[item])

    @d.method("produce", "hunt", "hunting")
    def produce_hunt(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        for option in s.knowledge.options(item):
            if option.hunt is None:
                continue
            hunt = option.hunt
            if hunt.uses is not None:  # milking: the buckets first, then one animal found and milked per bucket
                milked: list[Task] = [task for _ in range(n) for task in (
                    ("!find_animal", hunt.animal, item), ("!milk", hunt.animal, item, hunt.uses))]
                yield f"milk {hunt.animal}", [("obtain", hunt.uses, n), *milked], option.cost * n
                continue
            armed: list[Task] = [("!equip_weapon", item)] if hunt.weapons else []
            subtasks: list[Task] = [("tool", hunt.weapons)] if hunt.weapons else []
            subtasks += [task for got in living.kills_needed(n, hunt) for task in (
                ("!find_animal", hunt.animal, item), *armed, ("!kill", hunt.animal, item), ("!pick_up", item, got))]
            yield hunt.animal, subtasks, option.cost * n

    # -- farming -------------------------------------------------------------------------------------
    @d.operator("!find_grass", "explore")
    def find_grass(s: CraftState, item: str) -> PlanStep | bool | None:
        return living.find_grass_step(living.FARMS[item])

    @d.operator("!break_grass", "acquire_material")
    def break_grass(s: CraftState, item: str, n: int) -> PlanStep | bool | None:
        farm = living.FARMS[item]
        s.inventory[farm.seed] += n
        return living.break_grass_step(farm, n, s.inventory[farm.seed])

    @d.operator("!till", "till_soil")
    def till(s: CraftState, item: str) -> PlanStep | bool | None:
        hoe = next((h for h in HOES if s.inventory[h] > 0), None)
        if hoe is None:
            return False
        return living.till_step(_farm_of(item), hoe)

    @d.operator("!plant", "plant_crop")
    def plant(s: CraftState, item: str) -> PlanStep | bool | None:
        farm = _farm_of(item)
        if s.inventory[farm.seed] < 1:
            return False
        s.inventory[farm.seed] -= 1
        s.reserved[farm.seed] = max(0, s.reserved[farm.seed] - 1)
        return living.sow_step(farm)

    @d.operator("!harvest", "harvest_crop")
    def harvest(s: CraftState, item: str, n: int, planted: int) -> PlanStep | bool | None:
        s.inventory[item] += n
        return living.harvest_step(living.FARMS[item], n, s.inventory[item], planted)

    @d.method("produce", "farm", "farming")
    def produce_farm(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        for option in s.knowledge.options(item):
            if option.farm is None:
                continue
            if option.farm.crop in s.knowledge.surveyed:  # crops stand in view already: wait and harvest
                yield "standing", [("!harvest", item, n, n)], option.cost * n
                continue
            yield "plant", [("grow", item, n)], option.cost * n

    @d.method("farm", "plant", "farming")
    def farm(s: CraftState, crop_item: str) -> Iterator[tuple[Any, ...]]:
        """A field to build (``build wheat_farm``): a hoe, one seed, one cell tilled and sown."""
        if crop_item in CROPS:
            seed = _farm_of(crop_item).seed
            yield crop_item, [("tool", HOES), ("obtain", seed, 1), ("!unreserve", seed, 1), ("!till", crop_item),
                              ("!plant", crop_item)]

    @d.method("grow", "plant", "farming")
    def grow(s: CraftState, item: str, n: int) -> Iterator[tuple[Any, ...]]:
        """Grow ``n`` of ``item`` from nothing: a hoe, seeds from grass, a row sown, the harvest once ripe."""
        found = living.FARMS.get(item)
        if found is None:
            return
        planted = living.planted_for(n)
        short = max(0, planted - s.free(found.seed))
        seeds: list[Task] = ([("!find_grass", item)] + [("!break_grass", item, b) for b in living.seed_batches(short)]
                             if short else [])
        sow: list[Task] = [t for _ in range(planted) for t in (("!till", item), ("!plant", item))]
        yield item, [("tool", HOES), *seeds, *sow, ("!harvest", item, n, planted)]

    # -- survival ------------------------------------------------------------------------------------
    @d.operator("!eat", "consume_food")
    def eat(s: CraftState, food: str) -> PlanStep | bool | None:
        if s.inventory[food] < 1:
            return False
        s.inventory[food] -= 1
        s.food = 20
        return PlanStep(name=f"eat {food}", capability="consume_food", args={"food_type": food},
                        effect=Check("food_above", {"value": 17}), preconditions=[has(food, 1)], cost=CRAFT_TICKS,
                        consumes={food: 1})

    @d.operator("!sleep", "sleep")
    def sleep(s: CraftState) -> PlanStep | bool | None:
        if not s.night:
            return False
        s.time_of_day = 0
        return PlanStep(name="sleep", capability="sleep", args={}, cost=PLACE_TICKS)

    @d.operator("!retreat", "retreat_from_threat")
    def retreat(s: CraftState) -> PlanStep | bool | None:
        return PlanStep(name="retreat", capability="retreat_from_threat", args={}, cost=PLACE_TICKS)

    @d.operator("!block_in", "retreat_and_block")
    def block_in(s: CraftState, block: str) -> PlanStep | bool | None:
        if s.inventory[block] < 1:
            return False
        return PlanStep(name=f"block in with {block}", capability="retreat_and_block",
                        args={"blockType": block}, preconditions=[has(block, 1)], cost=PLACE_TICKS)

    @d.method("survive", "eat", "survival")
    def survive_eat(s: CraftState, need: str) -> Iterator[tuple[Any, ...]]:
        if need != "hunger":
            return
        md = s.knowledge.md
        foods = sorted((f for f, n in s.inventory.items() if n > 0 and md.food(f) is not None),
                       key=lambda f: -(md.food(f).food_points if md.food(f) else 0))  # type: ignore[union-attr]
        for food in foods:
            yield food, [("!eat", food)]

    @d.method("survive", "sleep", "survival")
    def survive_sleep(s: CraftState, need: str) -> Iterator[tuple[Any, ...]]:
        if need == "night" and s.night:
            yield "", [("!sleep",)], PLACE_TICKS

    @d.method("survive", "shelter", "survival")
    def survive_shelter(s: CraftState, need: str) -> Iterator[tuple[Any, ...]]:
        if need in ("night", "threat"):
            for block in BLOCKING:
                if s.knowledge.cost(block) < math.inf or s.free(block) > 0:
                    yield block, [("obtain", block, 1), ("!unreserve", block, 1), ("!block_in", block)], (
                        PLACE_TICKS + (0 if s.free(block) > 0 else s.knowledge.cost(block)))

    @d.method("survive", "retreat", "survival")
    def survive_retreat(s: CraftState, need: str) -> Iterator[tuple[Any, ...]]:
        if need == "threat":
            yield "", [("!retreat",)], PLACE_TICKS

    return d


def _farm_of(crop_item: str) -> living.Farm:
    """The farm of a crop item (wheat, carrot, potato, beetroot): the block it is planted as, its seed."""
    block, seed = CROPS[crop_item]
    return living.Farm(crop_item, block, seed)


def _bill(module_id: str) -> dict[str, int]:
    bill: dict[str, int] = defaultdict(int)
    for placement in MODULES[module_id].placements:
        bill[placement.block] += 1
    return dict(bill)


#: survive(<need>) targets the library answers
SURVIVAL_NEEDS = ("hunger", "night", "threat")
#: what the HTN method library covers, for documentation and ``craftbt plan --explain``
LIBRARIES = ("gathering", "crafting", "smelting", "building", "hunting", "farming", "survival")
