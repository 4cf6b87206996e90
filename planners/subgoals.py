"""Missing preconditions become subgoals (seed 002 FM-02, seed 003): items, stations, fuel and tools.

A leaf refused for a missing precondition says which in its code:
``precond_missing:item:<x>``, ``precond_missing:table``, ``precond_missing:furnace``,
``precond_missing:fuel``, ``precond_missing:tool[:<name>]``, ``precond_missing:hoe``, or a
feasibility fact ``has:<x>`` / ``near:<station>`` (the dispatch stage's or the whole-tree gate's),
and how many of what it lacked as data (``GuardResult.missing``: ``{"oak_planks": 3}``).
:func:`subgoal_for` reads a failure's precondition, missing items and step args (never its
human detail text) and returns what to obtain first, and whether it must then be placed; the
router plans it and splices it in front of the repaired plan. Anything else is not a
precondition: None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from craftbt.capabilities.facts import held_fact


class SubgoalKind(StrEnum):
    ITEM = "item"
    STATION = "station"
    FUEL = "fuel"
    TOOL = "tool"


class Subgoal(BaseModel):
    """What a missing precondition asks for: ``count`` more ``item``; a station is placed after."""

    kind: SubgoalKind
    item: str
    #: how many are missing (the shortfall, not the total to hold)
    count: int = Field(default=1, ge=1)
    place: bool = False
    #: the precondition as the refusal named it, e.g. ``precond_missing:table``
    precondition: str

    def total(self, held: int = 0) -> int:
        """How many to hold after the subgoal: ``held`` + the shortfall of items and fuel; a station or a
        tool already carried is enough (it only needs placing or was refused for another reason)."""
        if self.kind in (SubgoalKind.ITEM, SubgoalKind.FUEL):
            return held + self.count
        return max(self.count, held)

    def goal(self, held: int = 0) -> str:
        """The goal text the router plans (planners read a count as the total to hold): ``obtain 2 coal``."""
        total = self.total(held)
        return f"obtain {total} {self.item}" if total > 1 else f"obtain {self.item}"


#: a station refusal -> the block to obtain (and place, when the leaf needs it in reach rather than carried)
STATIONS: dict[str, tuple[str, bool]] = {
    "table": ("crafting_table", True),
    "crafting_table": ("crafting_table", True),
    "furnace": ("furnace", False),  # smelt places a furnace from the inventory itself
}
#: a tool kind named without a tool -> the cheapest tool of that kind
TOOL_KINDS = ("pickaxe", "axe", "shovel", "hoe", "sword")
#: fuel when the step named none: coal smelts 8 items
DEFAULT_FUEL = "coal"
ITEMS_PER_FUEL = {"coal": 8, "charcoal": 8}

def subgoal_for(precondition: str | None, missing: Mapping[str, int] | None = None,
                args: Mapping[str, Any] | None = None) -> Subgoal | None:
    """The subgoal a refusal asks for, or None when ``precondition`` names no missing one.

    ``precondition`` is the refusal's code as :func:`craftbt.executor.failures.precondition_of` reads it
    (``precond_missing:item:stick``, or a feasibility fact ``has:raw_iron`` / ``near:crafting_table``);
    ``missing`` is what the leaf said it lacked, as data (item -> how many more); ``args`` the step's."""
    if not precondition:
        return None
    missing = missing or {}
    args = args or {}
    kind, _, subject = precondition.partition(":")
    if kind == "near" and subject:
        item, place = STATIONS.get(subject, (subject, True))
        return Subgoal(kind=SubgoalKind.STATION, item=item, place=place, precondition=precondition)
    held = held_fact(precondition)
    if held is not None:
        return Subgoal(kind=SubgoalKind.ITEM, item=held[0], count=_count(held[0], missing),
                       precondition=precondition)
    if kind != "precond_missing" or not subject:
        return None
    what, _, named = subject.partition(":")
    if what == "item" and not named and missing:  # the code names no item; the record of what it lacked does
        named = next(iter(missing))
    if what == "item" and named:
        return Subgoal(kind=SubgoalKind.ITEM, item=named, count=_count(named, missing), precondition=precondition)
    if what in STATIONS:
        item, place = STATIONS[what]
        return Subgoal(kind=SubgoalKind.STATION, item=item, place=place, precondition=precondition)
    if what == "fuel":
        fuel = str(args.get("fuel") or DEFAULT_FUEL)
        per = ITEMS_PER_FUEL.get(fuel, 1)
        qty = int(args.get("qty") or 1)
        return Subgoal(kind=SubgoalKind.FUEL, item=fuel, count=max(1, math.ceil(qty / per)),
                       precondition=precondition)
    if what == "tool":
        tool = named or _tool_from(missing, args)
        return None if tool is None else Subgoal(kind=SubgoalKind.TOOL, item=tool, precondition=precondition)
    if what in TOOL_KINDS:
        return Subgoal(kind=SubgoalKind.TOOL, item=f"wooden_{what}", precondition=precondition)
    return None


def _count(item: str, missing: Mapping[str, int]) -> int:
    """The shortfall the refusal recorded for ``item``; 1 when it recorded none."""
    return max(1, int(missing.get(item, 1)))


def _tool_from(missing: Mapping[str, int], args: Mapping[str, Any]) -> str | None:
    """A named tool arg, else the tool the refusal said it lacked, else the cheapest of a named kind."""
    if args.get("tool"):
        return str(args["tool"])
    if missing:
        return next(iter(missing))
    kind = args.get("kind") or args.get("toolType")
    return f"wooden_{kind}" if kind in TOOL_KINDS else None


def listed_missing(subgoal: Subgoal, missing: Mapping[str, int]) -> list[Subgoal]:
    """Every item a refusal recorded as missing (``{"birch_planks": 3, "stick": 2}``), the named one first."""
    out = [subgoal]
    for name, count in missing.items():
        if name != subgoal.item:
            out.append(Subgoal(kind=SubgoalKind.ITEM, item=name, count=max(1, int(count)),
                               precondition=f"precond_missing:item:{name}"))
    return out


def craft_alternatives(recipe: str, qty: int, inventory: Mapping[str, int]) -> list[list[Subgoal]]:
    """For a refused craft: the missing ingredients of every recipe variant, fewest missing first.

    The leaf names one variant's ingredients (``pale_oak_planks`` for a stick when nothing is held);
    the world may offer another (birch). The router plans the first variant it can."""
    from craftbt.world.mcdata import UnknownName, load

    try:
        variants = load().recipes_for(recipe)
    except UnknownName:
        return []
    out: dict[tuple[str, ...], tuple[int, list[Subgoal]]] = {}
    for variant in variants:
        crafts = math.ceil(qty / variant.count)
        missing = variant.shortfall(crafts, inventory)
        if not missing:
            continue
        choices = [missing]
        for slot in variant.slots:  # a short slot may be paid with any of its options
            short = sum(missing.get(o, 0) for o in slot.options)
            if short and len(slot.options) > 1:
                rest = {k: v for k, v in missing.items() if k not in slot.options}
                choices += [{**rest, option: short} for option in slot.options]
        for choice in choices:
            group = [Subgoal(kind=SubgoalKind.ITEM, item=name, count=choice[name],
                             precondition=f"precond_missing:item:{name}") for name in sorted(choice)]
            out.setdefault(tuple(sorted(choice)), (sum(choice.values()), group))
    return [group for _, group in sorted(out.values(), key=lambda pair: pair[0])]


def crafting_order(group: list[Subgoal]) -> list[Subgoal]:
    """Subgoals planned from one state run one after the other: an item that another is crafted from
    comes after it (sticks before planks), so making the other does not eat what was just obtained."""
    from craftbt.world.mcdata import UnknownName, load

    md = load()
    names = {s.item for s in group}

    def used_by_others(subgoal: Subgoal) -> bool:
        for other in names - {subgoal.item}:
            try:
                if any(subgoal.item in r.inputs for r in md.recipes_for(other)):
                    return True
            except UnknownName:
                continue
        return False

    return sorted(group, key=used_by_others)  # stable: the named one stays first among equals
