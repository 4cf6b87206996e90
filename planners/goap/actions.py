"""Ground GOAP actions from the registry: declared preconditions and effects, instantiated per item.

Each capability GOAP can use has a grounder (a table, :data:`GROUNDERS`) that
enumerates argument sets over the items relevant to the goal (recipe data from
minecraft-data). For every argument set the capability's declared facts are
instantiated (``has:{recipe}`` -> ``has:stick``) and interpreted by
:func:`interpret`; a fact GOAP cannot interpret makes the action unusable
rather than silently ignored. The numeric side (how many of an ingredient a
recipe consumes, which tool a block needs, which station a recipe needs) comes
from the recipe data and is added to the declared facts.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from craftbt.capabilities.facts import instantiate
from craftbt.planners.base import STATIONS
from craftbt.planners.goap.costs import ActionCosts
from craftbt.planners.htn.knowledge import SEARCH_RADIUS, Knowledge, Option
from craftbt.planners.living import ENGAGE_RADIUS, HOES, NIGHT_WAIT_TICKS, Farm, Hunt
from craftbt.planners.solver import preferring, spread_of_made
from craftbt.world.mcdata import Recipe

#: Grounders of what living things give: used only on a surveyed world.
LIVING = frozenset({"collect_items", "harvest_crop", "milk_animal"})

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

#: an item's options costing more than this times its cheapest option are not grounded
RELEVANCE_SLACK = 2.5
#: the highest cost an item worth grounding has (the cost table's infinity: no source, nothing makes it)
UNREACHABLE_COST = sys.float_info.max
MAX_FUELS = 3
MAX_SMELT_BATCH = 8


@dataclass(frozen=True)
class GroundAction:
    name: str
    capability: str
    args: dict[str, Any] = field(hash=False, compare=False)
    needs: tuple[tuple[str, int], ...] = ()  # items that must be held
    consumes: tuple[tuple[str, int], ...] = ()
    produces: tuple[tuple[str, int], ...] = ()
    tools_any: frozenset[str] = frozenset()  # at least one must be held
    stations_needed: frozenset[str] = frozenset()
    station_added: str | None = None
    cost: float = 1.0
    facts_pre: tuple[str, ...] = ()
    facts_eff: tuple[str, ...] = ()
    #: a hunt or a farm: one action for the search, several plan steps (``planners.living``) when emitted
    hunt: Hunt | None = field(default=None, hash=False, compare=False)
    farm: Farm | None = field(default=None, hash=False, compare=False)


def interpret(fact: str, knowledge: Knowledge) -> tuple[str, str] | None:
    """A declared fact -> (kind, subject) GOAP models: ``has`` item, ``near`` station/block, ``smelted``."""
    kind, _, subject = fact.partition(":")
    if kind == "has" and subject:
        return "has", subject
    if kind == "near" and subject:
        return "near", subject
    if kind == "has_smelted" and subject:
        return "smelted", subject
    if kind == "holds" and subject:  # a tool of any tier (till_soil: holds:hoe), from the action's tools_any
        return "holds", subject
    if fact == "mature_crop":  # a farm action waits for its own crops to ripen
        return "ripe", ""
    return None


def relevant_items(goal: str, knowledge: Knowledge) -> set[str]:
    """The goal's closure over the options worth considering (within the cost slack)."""
    seen: set[str] = set()
    todo = [goal]
    fuels: list[str] | None = None  # ranked once, when a smelt first needs them
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        options = knowledge.options(item)
        if not options:
            continue
        # the bar is set by a way that makes the item, not by unpacking a block packed from it: with 2 wheat
        # held, wheat from a hay bale (made of 9 held wheat, priced at nothing) hid the farm the third one needs
        best = min((o.cost for o in options if not _unpacks(o, item, knowledge)), default=options[0].cost)
        for option in options:
            if option.cost > best * RELEVANCE_SLACK:
                continue
            if option.kind == "mine":
                todo.extend(option.tools)
            elif option.kind == "craft" and option.recipe is not None:
                for slot in option.recipe.slots:  # a slot's held options and those about as cheap as the
                    # cheapest one not held (held ones cost nothing, but only as many as are held); never one
                    # nothing gives (craft-only: the eleven kinds of planks not held made eleven dead crafts)
                    cheapest = min((knowledge.cost(o) for o in slot.options if not knowledge.held.get(o, 0)),
                                   default=math.inf)
                    todo.extend(o for o in slot.options if knowledge.held.get(o, 0) > 0
                                or knowledge.cost(o) <= min(cheapest * RELEVANCE_SLACK, UNREACHABLE_COST))
                if option.recipe.needs_table:
                    todo.append("crafting_table")
            elif option.smelt_input is not None:
                if fuels is None:
                    fuels = [f for f, _ in _cheap_fuels(knowledge)]
                todo.extend([option.smelt_input, "furnace", *fuels])
            elif option.farm is not None:
                todo.extend(HOES)
            elif option.hunt is not None:
                todo.extend(option.hunt.weapons)
                if option.hunt.uses is not None:
                    todo.append(option.hunt.uses)
    return seen


def _unpacks(option: Option, item: str, knowledge: Knowledge) -> bool:
    """Whether ``option`` crafts ``item`` back out of something made only from ``item`` (wheat from a hay bale,
    ingots from a block)."""
    recipe = option.recipe
    return recipe is not None and bool(recipe.inputs) and all(
        any(o.recipe is not None and item in o.recipe.inputs for o in knowledge.options(i)) for i in recipe.inputs)


def _cheap_fuels(knowledge: Knowledge) -> list[tuple[str, int]]:
    ranked = sorted(knowledge.fuels(), key=lambda f: (knowledge.cost(f[0]) / f[1], f[0]))
    return [f for f in ranked if knowledge.cost(f[0]) < math.inf][:MAX_FUELS]


Grounder = Callable[[Knowledge, set[str], ActionCosts], Iterator[GroundAction]]


def _mine(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    for item in sorted(items):
        for option in k.options(item):
            if option.kind == "mine" and option.block is not None:
                yield GroundAction(
                    name=f"mine 1 {item}", capability="acquire_material",
                    args={"item": item, "count": 1, "radius": SEARCH_RADIUS},
                    produces=((item, 1),), tools_any=option.tools, cost=costs.cost("acquire_material", 1),
                )
                break  # one action per item: acquire_material finds whichever block drops it


def _craft(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    for item in sorted(items):
        for option in k.options(item):
            if option.kind != "craft" or option.recipe is None:
                continue
            recipe = option.recipe
            for ingredients in _mixes(recipe, k, items):
                yield GroundAction(
                    name=f"craft {recipe.count} {item} from {'+'.join(f'{n} {i}' for i, n in ingredients)}",
                    capability="craft_recipe", args={"recipe": item, "qty": recipe.count},
                    needs=ingredients, consumes=ingredients, produces=((item, recipe.count),),
                    stations_needed=frozenset({"crafting_table"}) if recipe.needs_table else frozenset(),
                    cost=costs.cost("craft_recipe", 1),
                )


#: Mixed crafts grounded per recipe from the held inventory (one per successive craft it pays for).
MAX_MIXES = 4


def _mixes(recipe: Recipe, k: Knowledge, items: set[str]) -> list[tuple[tuple[str, int], ...]]:
    """One craft's concrete ingredients, as A* may use them: each slot filled from what is held (mixing
    its options as the inventory has them, for a few successive crafts) and the rest with each relevant
    option in turn, and each relevant option alone. Only mixes of relevant items."""
    out: dict[tuple[tuple[str, int], ...], None] = {}
    options = [o for slot in recipe.slots for o in slot.options if o in items]
    inputs = recipe.inputs
    free = {i: n for i, n in k.held.items() if i in inputs}
    left = dict(free)
    for _ in range(MAX_MIXES):
        uses = recipe.fill(1, left, k.cost)
        out[tuple(sorted(uses.items()))] = None
        # a preferred option changes the fill only in a slot ``left`` cannot pay (Recipe.fill takes what is
        # held first): the others would add the same mix again, a fill each (a quarter of a craft-only plan)
        short = _short_options(recipe, left)
        for prefer in options:
            if prefer in short:
                mix = recipe.fill(1, left, preferring(prefer, k.cost))
                out[tuple(sorted(mix.items()))] = None
        if any(left.get(i, 0) < n for i, n in uses.items()):
            break
        for i, n in uses.items():
            left[i] -= n
    plain: dict[str, int] | None = None
    for option in options:  # this option in its slot, the other slots at their cheapest
        if any(option in slot.options and len(slot.options) > 1 for slot in recipe.slots):
            uses = recipe.fill(1, {}, preferring(option, k.cost))
        else:  # the only option of its slot: preferring it is the plain fill
            uses = plain = plain if plain is not None else recipe.fill(1, {}, k.cost)
        out[tuple(sorted(uses.items()))] = None
    spread = spread_of_made(k.md, recipe, 1, free, k.held, k.cost)  # a slot paid from several made options
    if spread is not None:
        out[tuple(sorted(spread.items()))] = None
    return [m for m in out if all(i in items for i, _ in m)]


def _short_options(recipe: Recipe, held: dict[str, int]) -> set[str]:
    """The options of the slots ``held`` cannot pay for one craft (taken slot by slot, as Recipe.fill takes)."""
    left = dict(held)
    taken: dict[str, int] = {}
    return {o for slot in recipe.slots if slot.take(slot.count, left, taken) > 0 for o in slot.options}


def _smelt(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    for item in sorted(items):
        for option in k.options(item):
            if option.kind != "smelt" or option.smelt_input is None or option.smelt_input not in items:
                continue
            for fuel, ticks in _cheap_fuels(k):
                if fuel in (item, option.smelt_input):
                    continue
                for qty in range(1, MAX_SMELT_BATCH + 1):  # A* picks the batch the plan needs
                    fuel_n = k.fuel_needed(ticks, qty)
                    yield GroundAction(
                        name=f"smelt {qty} {option.smelt_input} with {fuel}", capability="smelt",
                        args={"input": option.smelt_input, "qty": qty, "fuel": fuel},
                        needs=((option.smelt_input, qty), (fuel, fuel_n)),
                        consumes=((option.smelt_input, qty), (fuel, fuel_n)), produces=((item, qty),),
                        stations_needed=frozenset({"furnace"}), cost=costs.cost("smelt", qty),
                    )


def _place(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    for station in STATIONS:
        if station in items:
            yield GroundAction(
                name=f"place {station}", capability="place_workstation", args={"workstation": station},
                needs=((station, 1),), consumes=((station, 1),), station_added=station,
                cost=costs.cost("place_workstation", 1),
            )


def _hunt(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    """One kill's worth of an animal drop (emitted as find, kill, pick up)."""
    for item in sorted(items):
        for option in k.options(item):
            if option.hunt is not None and option.hunt.uses is None:
                got = max(1, math.floor(option.hunt.per_kill))
                yield GroundAction(
                    name=f"hunt a {option.hunt.animal} for {item}", capability="collect_items",
                    args={"itemName": item, "radius": 8, "maxItems": 16}, produces=((item, got),),
                    cost=costs.cost("explore", 1) / 10 + costs.cost("attack_entity", 1)
                    + (NIGHT_WAIT_TICKS if option.hunt.night else 0), hunt=option.hunt,
                    tools_any=frozenset(option.hunt.weapons),
                )


def _milk(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    """One milking: a held bucket (``Hunt.uses``) used on the animal (emitted as find, milk)."""
    for item in sorted(items):
        for option in k.options(item):
            hunt = option.hunt
            if hunt is not None and hunt.uses is not None:
                yield GroundAction(
                    name=f"milk a {hunt.animal}", capability="milk_animal",
                    args={"entityType": hunt.animal, "radius": ENGAGE_RADIUS}, needs=((hunt.uses, 1),),
                    consumes=((hunt.uses, 1),), produces=((item, 1),),
                    cost=costs.cost("explore", 1) / 10 + costs.cost("milk_animal", 1), hunt=hunt,
                )


#: A GOAP farm action grows this many items (a loaf of bread's worth of wheat).
FARM_BATCH = 3


def _farm(k: Knowledge, items: set[str], costs: ActionCosts) -> Iterator[GroundAction]:
    """A row of crops grown from grass seeds with a hoe (emitted as seeds, till, plant, harvest when ripe)."""
    for item in sorted(items):
        for option in k.options(item):
            if option.farm is not None:
                # crops standing in view (a replan's): one item an action, so the harvest waits for as many ripe
                # crops as the plan needs (cake, 2 wheat held: a batch of 3 waited for three ripe of five)
                batch = 1 if option.farm.crop in k.surveyed else FARM_BATCH
                yield GroundAction(
                    name=f"farm {batch} {item}", capability="harvest_crop",
                    args={"crop": option.farm.crop}, produces=((item, batch),), tools_any=frozenset(HOES),
                    cost=option.cost * batch * MS_PER_TICK, farm=option.farm,
                )


#: Game ticks to milliseconds: living.py estimates in ticks, GOAP costs in milliseconds.
MS_PER_TICK = 50

GROUNDERS: dict[str, Grounder] = {
    "acquire_material": _mine,
    "craft_recipe": _craft,
    "smelt": _smelt,
    "place_workstation": _place,
    "collect_items": _hunt,
    "milk_animal": _milk,
    "harvest_crop": _farm,
}


def ground(goal: str, knowledge: Knowledge, registry: Registry, costs: ActionCosts) -> list[GroundAction]:
    """Every usable action for ``goal``; declared facts must be interpretable and agree with the grounding."""
    items = relevant_items(goal, knowledge)
    out: list[GroundAction] = []
    for capability, grounder in GROUNDERS.items():
        if capability in LIVING and not knowledge.living:
            continue
        if not registry.has(capability):
            continue
        spec = registry.get(capability)
        for action in grounder(knowledge, items, costs):
            pre = tuple(f for f in (instantiate(p, action.args) for p in spec.preconditions) if f)
            eff = tuple(f for f in (instantiate(e, action.args) for e in spec.effects) if f)
            facts = [interpret(f, knowledge) for f in (*pre, *eff)]
            if any(f is None for f in facts):
                continue
            needs = dict(action.needs)
            for meaning in facts[:len(pre)]:  # the preconditions' meanings, interpreted once above
                # near:<block> of acquire_material holds when the survey saw a dropper (the grounder
                # checked); near:<station> is the station requirement added from the recipe data
                if meaning is not None and meaning[0] == "has":
                    needs.setdefault(meaning[1], 1)
            out.append(GroundAction(
                name=action.name, capability=action.capability, args=action.args,
                needs=tuple(sorted(needs.items())), consumes=action.consumes, produces=action.produces,
                tools_any=action.tools_any, stations_needed=action.stations_needed,
                station_added=action.station_added, cost=action.cost, facts_pre=pre, facts_eff=eff,
                hunt=action.hunt, farm=action.farm,
            ))
    return out
