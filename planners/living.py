"""Plan steps for what living things give: hunting animals for their drops, milking cows and farming crops.

One implementation for every planner: the solver, the HTN domain and GOAP build their hunting, milking and
farming steps here, so all three emit the same capabilities with the same arguments
(``explore`` -> ``attack_entity`` -> ``collect_items`` per kill; ``explore`` -> ``milk_animal`` per bucket
filled; ``acquire_material`` of seeds from grass -> ``till_soil`` -> ``plant_crop`` -> ``harvest_crop``
waiting for the crop to ripen).

Costs are game-tick estimates for comparing options, not promises.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from craftbt.planners.ppa import Check, PlanStep
from craftbt.world import nature

#: Estimated ticks to find (explore), chase and kill one animal and pick its drops up.
HUNT_TICKS = 400
#: Game-time budget (10 minutes) and reach of the explore step that looks for an animal: animals spawn with
#: their chunks in grassy biomes only, so a spawn in a forest or a desert walks a while. 96 blocks: herds
#: stand 60-120 blocks from spawn on natural seeds 24, 25 and 27. (With rings 16 blocks apart, 96 did no
#: better than 48; an animal's search now spaces its rings by the 32 blocks it sees, see ``exploration``.)
FIND_ANIMAL_TICKS = 12_000
FIND_ANIMAL_DISTANCE = 96
#: How far from the bot a kill or a milking looks for its animal once the search brought one into view.
ENGAGE_RADIUS = 32.0
#: A hostile mob (string from spiders, gunpowder from creepers, bones from skeletons) spawns in the dark: on
#: the surface that is night, up to 12,000 ticks away from a morning start. Its search may span a whole day
#: (24,000 ticks), and a hunt counts the expected wait for the night (half a day) in its cost.
FIND_NIGHT_MOB_TICKS = 24_000
NIGHT_WAIT_TICKS = 6_000
#: Swords a hunt of a mob of the night fights with, cheapest first: bare-handed (1 damage a hit against a
#: spider's 16 health) the bot backed off at low health in every night hunt on natural seed 0.
WEAPONS = ("wooden_sword", "stone_sword", "iron_sword")
#: Hoes a farm can be tilled with, cheapest first.
HOES = ("wooden_hoe", "stone_hoe", "iron_hoe")


@dataclass(frozen=True)
class Hunt:
    """Kill ``animal`` (any mob) for an item: ``per_kill`` is what one kill is counted on to drop; ``night``: the
    mob is found only in the dark (``world.nature.night_only``)."""

    animal: str
    per_kill: float
    night: bool = False
    #: milking (``world.nature.used_on_for``): the item used on the animal, spent for each one it gives (a bucket
    #: for a milk bucket); the animal lives, so nothing is killed or picked up
    uses: str | None = None

    @property
    def weapons(self) -> tuple[str, ...]:
        """Swords one of which must be held for this hunt (none for animals)."""
        return WEAPONS if self.night else ()

    @property
    def cost(self) -> float:
        """Estimated ticks per item: the hunt, and for a mob of the night the expected wait for the dark."""
        return HUNT_TICKS / self.per_kill + (NIGHT_WAIT_TICKS if self.night else 0.0)


def hunts_for(item: str) -> list[Hunt]:
    """The mobs whose kill drops ``item``, counting a little under the average of a random yield, and the
    animals that give it when an item is used on them (a cow milked with a bucket: one for one)."""
    out = [Hunt(animal, 1.0, uses=used) for animal, used in nature.used_on_for(item)]
    for animal, average in nature.hunted_for(item):
        lo_hi = {(lo, hi) for i, lo, hi in nature.MOB_LOOT[animal] if i == item}
        fixed = all(lo == hi for lo, hi in lo_hi)
        out.append(Hunt(animal, average if fixed else max(0.5, 0.75 * average), nature.night_only(animal)))
    return out


def hunt_cost(hunt: Hunt, cost_of: Callable[[str], float]) -> float:
    """Estimated ticks per item: the hunt's own, plus the item a milking spends (``cost_of`` prices it)."""
    return hunt.cost + (cost_of(hunt.uses) if hunt.uses is not None else 0.0)


def kills_needed(count: int, hunt: Hunt) -> list[int]:
    """How many of the wanted item each kill is counted on for, kill by kill (sums to ``count``).

    A kill counted on for none is not planned: it only ever ran after the kills before it had dropped all that
    was wanted (a pick-up that finds too little fails, and the goal run plans again from what is held), and a
    second spider for one string searched through a whole day and night (natural seed 0's fishing rod)."""
    kills = math.ceil(count / hunt.per_kill)
    counts = [min(count, math.ceil((k + 1) * hunt.per_kill)) - min(count, math.ceil(k * hunt.per_kill))
              for k in range(kills)]
    return [n for n in counts if n > 0]


def find_animal_step(animal: str, item: str) -> PlanStep:
    """Bring a mob into view (ends at once when one is near); a mob of the night may be searched a whole day."""
    night = nature.night_only(animal)
    return PlanStep(name=f"find a {animal}", capability="explore",
                    args={"target": animal, "max_ticks": FIND_NIGHT_MOB_TICKS if night else FIND_ANIMAL_TICKS,
                          "max_distance": FIND_ANIMAL_DISTANCE},
                    cost=HUNT_TICKS / 2 + (NIGHT_WAIT_TICKS if night else 0), group=f"hunt {item}")


def equip_step(item: str) -> PlanStep:
    """Take the best sword held in hand before a fight with a mob of the night."""
    return PlanStep(name="equip a sword", capability="equip_weapon", args={"preferredType": "sword"},
                    cost=5.0, group=f"hunt {item}")


def kill_step(animal: str, item: str) -> PlanStep:
    return PlanStep(name=f"kill a {animal}", capability="attack_entity",
                    args={"entityType": animal, "radius": ENGAGE_RADIUS, "retreatHealth": 4.0},
                    cost=HUNT_TICKS / 4, group=f"hunt {item}")


#: How far from the bot a hunt's pick-up looks for the drop: the safety fast path's retreat (12 blocks) may come
#: between the kill and the pick-up (natural seed 0's firework rocket: a spider walked up as the creeper fell, the
#: retreat left its gunpowder 12.5 blocks off, a pick-up of 8 found nothing and the hunt began again for a day).
PICKUP_RADIUS = 16


#: How many times a hunt for a drop a kill may not give (string, leather, gunpowder: 0-2 a kill) is tried in one
#: plan: a kill that dropped none is followed by another, as a player would, not by a replan (natural seed 0's
#: fishing rod: two dawn spiders dropped no string, each pick-up failure cost a replan, and the goal run ended).
HUNT_ATTEMPTS = 4


def may_drop_none(item: str) -> bool:
    """Whether a kill for ``item`` can drop none of it (vanilla's random loot counts start at 0)."""
    return any(lo == 0 for loot in nature.MOB_LOOT.values() for i, lo, _ in loot if i == item)


def pickup_step(item: str, got: int, held_after: int) -> PlanStep:
    """Walk over the drops; its effect is ``held_after`` of ``item`` in the inventory. A drop a kill may not give
    makes the hunt's group tried again (:data:`HUNT_ATTEMPTS`)."""
    return PlanStep(name=f"pick up {item}", capability="collect_items",
                    args={"itemName": item, "radius": PICKUP_RADIUS, "maxItems": 16},
                    effect=Check("has_item", {"item": item, "count": held_after}),
                    cost=HUNT_TICKS / 4, group=f"hunt {item}", produces={item: got},
                    group_attempts=HUNT_ATTEMPTS if may_drop_none(item) else None)


def milk_step(hunt: Hunt, item: str, held_after: int) -> PlanStep:
    """Use ``hunt.uses`` (a bucket) on the nearest adult ``hunt.animal``; its effect is ``held_after`` of ``item``."""
    assert hunt.uses is not None
    return PlanStep(name=f"milk a {hunt.animal}", capability="milk_animal",
                    args={"entityType": hunt.animal, "radius": ENGAGE_RADIUS},
                    preconditions=[Check("has_item", {"item": hunt.uses, "count": 1})],
                    effect=Check("has_item", {"item": item, "count": held_after}),
                    cost=HUNT_TICKS / 4, group=f"hunt {item}", consumes={hunt.uses: 1}, produces={item: 1})


def hunt_steps(item: str, count: int, hunt: Hunt, held: int) -> list[PlanStep]:
    """Per kill: find the animal, (a mob of the night: take a sword in hand,) kill it, pick the drop up; ``held``
    is what the inventory had before. The sword must be held already (``Hunt.weapons``). A milking: per item,
    find the animal and use one ``hunt.uses`` on it (they must be held already)."""
    steps: list[PlanStep] = []
    if hunt.uses is not None:
        for _ in range(count):
            held += 1
            steps += [find_animal_step(hunt.animal, item), milk_step(hunt, item, held)]
        return steps
    for got in kills_needed(count, hunt):
        held += got
        armed = [equip_step(item)] if hunt.weapons else []
        steps += [find_animal_step(hunt.animal, item), *armed, kill_step(hunt.animal, item),
                  pickup_step(item, got, held)]
    return steps


# -- farming ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Farm:
    """Grow ``item`` from ``seed`` planted as ``crop``: one ripe crop gives one ``item``."""

    item: str
    crop: str
    seed: str


#: Crops whose seeds the overworld gives without a village: wheat seeds drop from grass (1 in 8).
FARMS: dict[str, Farm] = {"wheat": Farm("wheat", "wheat", "wheat_seeds")}
#: Crops ripen at random and the first ``count`` ripe are harvested: plant three per item wanted plus two
#: (the third-fastest of eleven dry crops ripens about 30% sooner than an average one).
PLANT_PER_ITEM = 3
FARM_SPARE = 2
MAX_PLANTED = 12
#: Blocks of grass broken per seed (vanilla's short_grass drops wheat_seeds with chance 1/8).
GRASS_PER_SEED = 8
#: How long the harvest waits for the crops to ripen. The sim grows crops at vanilla's rate (a random tick
#: every 68 s on average per block, 7 stages, a chance per tick of 1/(floor(25/speed)+1)): a row on dry
#: farmland (speed 2.5, 1 in 11) averages 87 minutes, a hydrated row (speed 5.5, 1 in 5) 40 minutes.
RIPEN_WAIT_TICKS = 150_000
#: Estimated ticks per item farmed, for comparing options (the wait dominates; shared by a whole plot).
FARM_TICKS_PER_ITEM = 20_000
FARM_RADIUS = 24  # a replan may start some way from the plot it waits for


def farms_for(item: str) -> list[Farm]:
    farm = FARMS.get(item)
    return [farm] if farm is not None else []


def planted_for(count: int) -> int:
    """How many seeds a farm for ``count`` items plants."""
    return min(MAX_PLANTED, PLANT_PER_ITEM * count + FARM_SPARE)


def find_grass_step(farm: Farm) -> PlanStep:
    """Bring grass (what drops the seed) into view: ends at once when some is near."""
    return PlanStep(name=f"find grass for {farm.seed}", capability="explore",
                    args={"target": farm.seed, "max_ticks": FIND_ANIMAL_TICKS},
                    cost=HUNT_TICKS / 2, group=f"farm {farm.item}")


def break_grass_step(farm: Farm, batch: int, held_after: int) -> PlanStep:
    """Break grass until ``batch`` more seeds arrived (at most 8: acquire_material's bound)."""
    return PlanStep(
        name=f"break grass for {batch} {farm.seed}", capability="acquire_material",
        args={"item": farm.seed, "count": batch, "radius": 32},
        effect=Check("has_item", {"item": farm.seed, "count": held_after}),
        cost=60.0 * GRASS_PER_SEED * batch, group=f"farm {farm.item}", retry=2, produces={farm.seed: batch},
    )


def seed_batches(seeds: int) -> list[int]:
    return [min(8, seeds - start) for start in range(0, seeds, 8)]


def seed_steps(farm: Farm, seeds: int, held: int) -> list[PlanStep]:
    """Find grass, then break it until ``seeds`` seeds arrived (in dispatches of at most 8)."""
    steps = [find_grass_step(farm)]
    for batch in seed_batches(seeds):
        held += batch
        steps.append(break_grass_step(farm, batch, held))
    return steps


def till_step(farm: Farm, hoe: str) -> PlanStep:
    """Till one cell, by water when there is some, in a row with the farmland already tilled."""
    return PlanStep(name="till soil", capability="till_soil", args={"radius": 8, "near_water": True},
                    preconditions=[Check("has_item", {"item": hoe, "count": 1})], cost=20.0,
                    group=f"farm {farm.item}")


def sow_step(farm: Farm) -> PlanStep:
    return PlanStep(name=f"plant {farm.crop}", capability="plant_crop", args={"crop": farm.crop, "radius": 8},
                    preconditions=[Check("has_item", {"item": farm.seed, "count": 1})], cost=20.0,
                    group=f"farm {farm.item}", consumes={farm.seed: 1})


def plot_steps(farm: Farm, count: int, hoe: str, produced_after: int) -> list[PlanStep]:
    """Till and sow ``planted_for(count)`` cells, then wait for ``count`` ripe crops and harvest them.
    The seeds must be held already."""
    planted = planted_for(count)
    steps = [s for _ in range(planted) for s in (till_step(farm, hoe), sow_step(farm))]
    return [*steps, harvest_step(farm, count, produced_after, planted)]


def harvest_step(farm: Farm, count: int, produced_after: int, planted: int) -> PlanStep:
    """Wait for ``count`` of the crops standing near to ripen, then harvest them and pick the produce up."""
    return PlanStep(
        name=f"harvest {count} ripe {farm.crop}", capability="harvest_crop",
        args={"crop": farm.crop, "radius": FARM_RADIUS, "max_crops": max(planted, count), "min_ripe": count,
              "wait_ticks": RIPEN_WAIT_TICKS},
        effect=Check("has_item", {"item": farm.item, "count": produced_after}),
        cost=float(FARM_TICKS_PER_ITEM * count), group=f"farm {farm.item}", produces={farm.item: count},
    )


__all__ = [
    "FARMS",
    "HOES",
    "HUNT_TICKS",
    "WEAPONS",
    "Farm",
    "Hunt",
    "break_grass_step",
    "equip_step",
    "farms_for",
    "find_animal_step",
    "find_grass_step",
    "harvest_step",
    "hunt_cost",
    "hunt_steps",
    "hunts_for",
    "kill_step",
    "kills_needed",
    "milk_step",
    "pickup_step",
    "planted_for",
    "plot_steps",
    "seed_batches",
    "seed_steps",
    "sow_step",
    "till_step",
]
