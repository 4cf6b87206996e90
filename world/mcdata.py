"""Minecraft registry data (blocks, items, recipes, smelting, fuels, foods, entities, tools) for one version.

No data is typed in here: it is read from ``world/data/mcdata-<version>.json.gz``, which
``scripts/gen_mcdata.py`` generates from the npm ``minecraft-data`` package. minecraft-data has no
smelting recipes or fuel burn times and loses a few loot numbers; the generator fills those from small
tables that mirror named vanilla files, and the data file's header lists every source and table.
Shipping the generated file inside the package means ``pip install`` alone gives a working world.
:func:`load` parses it once per version (about 15 ms) and caches the result.

Rules (vanilla mechanics applied on top of the data):

* dig time: ``progress/tick = speed / hardness / (30 if harvestable else 100)``; the block breaks when
  progress reaches 1 (instantly when one tick's progress exceeds 1); ``None`` for unbreakable blocks.
* harvest: a block with harvest tools drops nothing when a player mines it without one of them.
* drops: each block's loot entries from minecraft-data's ``blockLoot`` (see :meth:`McData.drops`), with
  the tool conditions vanilla's loot tables set (shears, a tool tag); enchantments (silk touch, fortune,
  efficiency) and potion effects are not modelled.

Names may be given with or without the ``minecraft:`` prefix. Unknown names raise :class:`UnknownName`,
a :class:`~world.body.BodyError` (code ``unknown_block``/``unknown_item``/``unknown_entity``) that is
also a :class:`KeyError`.
"""

from __future__ import annotations

import difflib
import functools
import gzip
import json
import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from typing import Any

from craftbt.world.body import BodyError, BodyErrorCode

DEFAULT_VERSION = "1.21.4"
FORMAT = 3
"""Version of the shipped file's layout; the loader refuses any other (2: ``item_tags`` and tool-tag loot
conditions; 3: recipes as slots of alternatives)."""

TOOL_TIERS = ("wooden", "stone", "iron", "golden", "diamond", "netherite")
"""Tier names in item ids, weakest first. ``golden`` mines like wooden but fast."""

_TOOL_KINDS = ("pickaxe", "axe", "shovel", "hoe", "sword")


class UnknownName(BodyError, KeyError):
    """A block, item or entity name the registry does not have (a ``BodyError`` and a ``KeyError``)."""

    def __init__(self, kind: str, name: str, known: Iterable[str]) -> None:
        code = {
            "block": BodyErrorCode.UNKNOWN_BLOCK,
            "item": BodyErrorCode.UNKNOWN_ITEM,
            "entity": BodyErrorCode.UNKNOWN_ENTITY,
        }[kind]
        close = difflib.get_close_matches(name, list(known), n=1)
        self.kind = kind
        self.name = name
        self.suggestion: str | None = close[0] if close else None
        detail = f"unknown {kind} {name!r}"
        if self.suggestion:
            detail += f"; did you mean {self.suggestion!r}?"
        super().__init__(code, detail)

    def __str__(self) -> str:  # KeyError would repr() the message
        return Exception.__str__(self)


class McDataFileError(RuntimeError):
    """The shipped data file is missing or was written by an incompatible generator."""


class LootCondition(StrEnum):
    SILK_TOUCH = "silk_touch"
    """Only with a silk-touch tool: enchantments are not modelled, so such entries never drop."""
    SHEARS = "shears"
    """Only when mined with shears; when it drops, nothing else from the block does."""
    CLUSTER_MAX_HARVESTABLES = "cluster_max_harvestables"
    """Only with a tool in vanilla's ``#cluster_max_harvestables`` item tag (every pickaxe; see
    :meth:`McData.item_tag`): an amethyst cluster gives a pickaxe 4 shards, anything else 2."""


@dataclass(frozen=True, slots=True)
class LootEntry:
    """One entry of a block's loot, from minecraft-data ``blockLoot`` (see ``scripts/gen_mcdata.py``)."""

    item: str
    chance: float
    min_count: int
    max_count: int
    condition: LootCondition | None = None
    block_age: int | None = None
    """Only when the block's ``age`` state equals this (crops)."""
    group: int | None = None
    """Entries sharing a group are ordered alternatives: the first whose condition and chance pass drops.
    ``None``: the entry drops on its own."""


@dataclass(frozen=True, slots=True)
class BlockData:
    id: int
    name: str
    hardness: float | None
    """``None`` for unbreakable blocks (bedrock, barrier, ...: minecraft-data's -1)."""
    diggable: bool
    solid: bool
    """The collision box is a full block (minecraft-data ``boundingBox == "block"``)."""
    transparent: bool
    emit_light: int
    filter_light: int
    material: str
    """The effective-tool tag, e.g. ``mineable/pickaxe``; ``;``-joined when several apply."""
    harvest_tools: frozenset[str]
    """Items that harvest the block (it drops nothing otherwise); empty means any tool or the hand."""
    drops: tuple[str, ...]
    """minecraft-data's ``drops`` item names (the fallback when a block has no loot entries)."""
    gravity: bool
    """Falls when unsupported (sand, gravel, concrete powder, anvils, ...)."""
    loot: tuple[LootEntry, ...]
    max_state: int
    """Number of block states minus one (``maxStateId - minStateId``)."""

    @property
    def breakable(self) -> bool:
        return self.diggable and self.hardness is not None


@dataclass(frozen=True, slots=True)
class ItemData:
    id: int
    name: str
    stack_size: int


@dataclass(frozen=True, slots=True)
class Slot:
    """Cells of a recipe that take any of the same items (one vanilla tag or item), mixed freely."""

    options: tuple[str, ...]
    count: int
    """Cells per craft: one craft consumes ``count`` items, any mix of ``options``."""

    def take(self, need: int, left: dict[str, int], out: dict[str, int]) -> int:
        """Move up to ``need`` of this slot's options from ``left`` into ``out``; returns how many are still
        short. An option that pays the whole need alone is taken from the smallest such stack (leftovers go
        first, and a stack gathered in bulk for later steps, a build's 72 planks, stays whole); otherwise the
        most held first, mixing options (a chest from five oak and three birch planks)."""
        held = [o for o in self.options if left.get(o, 0) > 0]
        if not held and need > 0:  # nothing to move (a fill from nothing held: most of a plan's fills)
            return need
        whole = [o for o in (held if need > 0 else self.options) if left.get(o, 0) >= need]
        if whole:
            option = min(whole, key=lambda o: (left[o], o))
            out[option] = out.get(option, 0) + need
            left[option] -= need
            return 0
        for option in sorted(held, key=lambda o: (-left[o], o)):
            take = min(need, left.get(option, 0))
            if take <= 0:
                break
            out[option] = out.get(option, 0) + take
            left[option] -= take
            need -= take
        return need


@dataclass(frozen=True, slots=True)
class Recipe:
    """One vanilla crafting recipe: its ingredient slots hold alternatives (a chest takes any 8 planks)."""

    result: str
    count: int
    slots: tuple[Slot, ...]
    shape: tuple[tuple[str | None, ...], ...] | None
    """Rows of each cell's first option (``None`` = empty cell); ``None`` for shapeless recipes."""
    width: int
    height: int
    """For shapeless recipes: the side of the smallest square grid that holds the ingredients."""
    inputs: frozenset[str] = field(init=False, repr=False, compare=False)
    """Every item any slot accepts (worked out once: every planner's cost table and expansion asks)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", frozenset(o for slot in self.slots for o in slot.options))

    @property
    def ingredients(self) -> dict[str, int]:
        """Item name -> how many one craft consumes, taking every slot's first option (one variant)."""
        out: dict[str, int] = {}
        for slot in self.slots:
            out[slot.options[0]] = out.get(slot.options[0], 0) + slot.count
        return out

    @property
    def needs_table(self) -> bool:
        """True iff the recipe does not fit the 2x2 inventory grid."""
        return self.width > 2 or self.height > 2

    @property
    def shapeless(self) -> bool:
        return self.shape is None

    def fill(
        self, crafts: int, held: Mapping[str, int], cost: Callable[[str], float] | None = None
    ) -> dict[str, int]:
        """The items ``crafts`` crafts consume: each slot takes what ``held`` has of its options (most held
        first, so a chest mixes oak and birch planks), and what is still short as its cheapest option by
        ``cost`` (among equals, one already taken, then the first). Every body and planner picks
        ingredients with this, so a plan's mixed craft is the craft the body makes. Slots never share an
        option in vanilla's data, but a shared one is still counted once."""
        left = dict(held)
        out: dict[str, int] = {}
        for slot in self.slots:
            need = slot.take(slot.count * crafts, left, out)
            if need > 0:  # the cheapest option; among equals one already taken, then the data's order
                rank = cost or (lambda o: 0.0)
                option = min(enumerate(slot.options), key=lambda io: (rank(io[1]), io[1] not in out, io[0]))[1]
                out[option] = out.get(option, 0) + need
        return out

    def shortfall(self, crafts: int, held: Mapping[str, int]) -> dict[str, int]:
        """What ``held`` lacks for ``crafts`` crafts (empty: the inventory pays for them now)."""
        return {i: n - held.get(i, 0) for i, n in self.fill(crafts, held).items() if n > held.get(i, 0)}


@dataclass(frozen=True, slots=True)
class SmeltingRecipe:
    input: str
    output: str
    count: int
    cook_ticks: int
    experience: float


@dataclass(frozen=True, slots=True)
class FoodData:
    name: str
    food_points: int
    saturation: float


@dataclass(frozen=True, slots=True)
class EntityData:
    id: int
    name: str
    type: str
    """minecraft-data ``type``: player, hostile, animal, passive, mob, water_creature, ambient, ..."""
    category: str
    """Coarse kind: ``player``, ``hostile``, ``passive``, ``projectile``, ``vehicle`` or ``other``."""
    width: float
    height: float

    @property
    def hostile(self) -> bool:
        return self.category == "hostile"


def _strip(name: str) -> str:
    return name[10:] if name.startswith("minecraft:") else name


class McData:
    """Lookups over one version's registry data. Build with :func:`load`; instances are immutable."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        header = raw["header"]
        if header.get("format") != FORMAT:
            raise McDataFileError(f"data file format {header.get('format')!r}, loader expects {FORMAT}")
        self.version: str = header["minecraft_version"]
        self.protocol_version: int = header["protocol_version"]
        self.data_version: str = header["minecraft_data_version"]
        """Version of the npm ``minecraft-data`` package the file was generated from."""
        self.sources: Mapping[str, str] = dict(header["sources"])
        self.header: Mapping[str, Any] = header

        self._items: dict[str, ItemData] = {
            name: ItemData(id_, name, stack) for id_, name, stack in raw["items"]
        }
        self._blocks: dict[str, BlockData] = {}
        for b in raw["blocks"]:
            loot = tuple(
                LootEntry(e[0], e[1], e[2], e[3], None if e[4] is None else LootCondition(e[4]), e[5], e[6])
                for e in b["loot"]
            )
            self._blocks[b["name"]] = BlockData(
                id=b["id"],
                name=b["name"],
                hardness=b["hardness"],
                diggable=b["diggable"],
                solid=b["solid"],
                transparent=b["transparent"],
                emit_light=b["emit_light"],
                filter_light=b["filter_light"],
                material=b["material"],
                harvest_tools=frozenset(b["harvest_tools"]),
                drops=tuple(b["drops"]),
                gravity=b["gravity"],
                loot=loot,
                max_state=b["max_state"],
            )
        self._materials: dict[str, dict[str, float]] = raw["materials"]
        self._speed_cache: dict[tuple[str, str], float] = {}

        self._recipes: dict[str, list[Recipe]] = {}
        for r in raw["recipes"]:
            slots = tuple(Slot(tuple(options), count) for options, count in r["slots"])
            if r["shape"] is None:
                n = sum(slot.count for slot in slots)
                side = 1 if n == 1 else 2 if n <= 4 else 3
                width = height = side
                shape_t = None
            else:
                shape_t = tuple(tuple(None if i is None else slots[i].options[0] for i in row) for row in r["shape"])
                height = len(shape_t)
                width = max(len(row) for row in shape_t)
            recipe = Recipe(r["result"], r["count"], slots, shape_t, width, height)
            self._recipes.setdefault(r["result"], []).append(recipe)

        self._smelt_by_input: dict[str, SmeltingRecipe] = {}
        self._smelt_by_output: dict[str, list[SmeltingRecipe]] = {}
        for inp, out, count, ticks, xp in raw["smelting"]:
            s = SmeltingRecipe(inp, out, count, ticks, xp)
            self._smelt_by_input.setdefault(inp, s)
            self._smelt_by_output.setdefault(out, []).append(s)
        self._fuels: dict[str, int] = dict(raw["fuels"])
        self._foods: dict[str, FoodData] = {
            name: FoodData(name, points, sat) for name, points, sat in raw["foods"]
        }
        self._entities: dict[str, EntityData] = {
            e[1]: EntityData(*e) for e in raw["entities"]
        }
        self._item_tags: dict[str, frozenset[str]] = {
            tag: frozenset(members) for tag, members in raw["item_tags"].items()
        }
        self._blocks_by_id = {b.id: b for b in self._blocks.values()}
        self._items_by_id = {i.id: i for i in self._items.values()}

    # -- blocks, items, entities ------------------------------------------------------------------

    def has_block(self, name: str) -> bool:
        return _strip(name) in self._blocks

    def block(self, name: str) -> BlockData:
        try:
            return self._blocks[_strip(name)]
        except KeyError:
            raise UnknownName("block", name, self._blocks) from None

    def block_by_id(self, block_id: int) -> BlockData:
        try:
            return self._blocks_by_id[block_id]
        except KeyError:
            raise UnknownName("block", str(block_id), ()) from None

    def blocks(self) -> Iterable[BlockData]:
        return self._blocks.values()

    def has_item(self, name: str) -> bool:
        return _strip(name) in self._items

    def item(self, name: str) -> ItemData:
        try:
            return self._items[_strip(name)]
        except KeyError:
            raise UnknownName("item", name, self._items) from None

    def item_by_id(self, item_id: int) -> ItemData:
        try:
            return self._items_by_id[item_id]
        except KeyError:
            raise UnknownName("item", str(item_id), ()) from None

    def items(self) -> Iterable[ItemData]:
        return self._items.values()

    def has_entity(self, name: str) -> bool:
        return _strip(name) in self._entities

    def entity(self, name: str) -> EntityData:
        try:
            return self._entities[_strip(name)]
        except KeyError:
            raise UnknownName("entity", name, self._entities) from None

    def entities(self) -> Iterable[EntityData]:
        return self._entities.values()

    def item_tag(self, tag: str) -> frozenset[str]:
        """The items in vanilla item tag ``tag`` (a bare name, e.g. ``cluster_max_harvestables``).

        Only the tags loot conditions test are shipped; any other raises ``KeyError``.
        """
        return self._item_tags[tag]

    # -- crafting, smelting, food ----------------------------------------------------------------

    def recipes_for(self, item: str) -> list[Recipe]:
        """Every crafting recipe producing ``item`` (empty if none); raises for unknown items."""
        name = self.item(item).name
        return list(self._recipes.get(name, ()))

    def smelting_result(self, input_item: str) -> SmeltingRecipe | None:
        """The furnace recipe that consumes ``input_item``, or ``None`` if it does not smelt."""
        return self._smelt_by_input.get(self.item(input_item).name)

    def smelting_for(self, output: str) -> list[SmeltingRecipe]:
        """Every furnace recipe producing ``output``."""
        return list(self._smelt_by_output.get(self.item(output).name, ()))

    def smelting_recipes(self) -> list[SmeltingRecipe]:
        """Every furnace recipe, one per input (the one :meth:`smelting_result` gives)."""
        return list(self._smelt_by_input.values())

    def fuels(self) -> dict[str, int]:
        """Burn time in ticks of every fuel item."""
        return dict(self._fuels)

    def fuel_ticks(self, item: str) -> int | None:
        """Furnace burn time of one ``item`` in ticks, or ``None`` if it is not fuel."""
        return self._fuels.get(self.item(item).name)

    def food(self, name: str) -> FoodData | None:
        return self._foods.get(self.item(name).name)

    # -- tools and digging -------------------------------------------------------------------------

    def tool_tier(self, item: str | None) -> str | None:
        """``wooden``/``stone``/``iron``/``golden``/``diamond``/``netherite`` for tier tools, else None."""
        if item is None:
            return None
        name = self.item(item).name
        tier, _, kind = name.partition("_")
        return tier if tier in TOOL_TIERS and kind in _TOOL_KINDS else None

    def tool_speed(self, item: str | None, block: str) -> float:
        """Mining speed multiplier of ``item`` (``None`` = hand) on ``block``: 1.0 unless it is effective.

        A ``;``-joined material takes the best multiplier of its parts (minecraft-data's own combined
        entries undercount: they give a wooden hoe 1.0 on leaves, where vanilla gives 2.0).
        """
        b = self.block(block)
        if item is None:
            return 1.0
        name = self.item(item).name
        key = (name, b.material)
        cached = self._speed_cache.get(key)
        if cached is None:
            cached = max(
                (self._materials.get(part, {}).get(name, 1.0) for part in b.material.split(";")),
                default=1.0,
            )
            self._speed_cache[key] = cached
        return cached

    def can_harvest(self, block: str, tool: str | None) -> bool:
        """Whether mining ``block`` with ``tool`` (``None`` = hand) yields its drops."""
        b = self.block(block)
        if not b.harvest_tools:
            return True
        return tool is not None and self.item(tool).name in b.harvest_tools

    def dig_time_ticks(
        self, block: str, tool: str | None, *, in_water: bool = False, on_ground: bool = True
    ) -> int | None:
        """Ticks to break ``block`` with ``tool`` (``None`` = hand); 0 = instant; ``None`` if unbreakable.

        Vanilla's rule without enchantments or effects: speed is divided by 5 underwater (no aqua
        affinity) and by 5 again when not standing on the ground.
        """
        b = self.block(block)
        if not b.breakable or b.hardness is None:
            return None
        if b.hardness == 0:
            return 0
        speed = self.tool_speed(tool, b.name)
        if in_water:
            speed /= 5
        if not on_ground:
            speed /= 5
        per_tick = speed / b.hardness / (30 if self.can_harvest(b.name, tool) else 100)
        if per_tick > 1:
            return 0
        # A tiny epsilon keeps exact quotients (1/(1/20) = 20.000000000000004) from rounding up.
        return math.ceil(1 / per_tick - 1e-9)

    def best_tool(self, block: str, available: Iterable[str]) -> str | None:
        """The available item that breaks ``block`` fastest while still harvesting it.

        ``None`` when the bare hand is as fast (and harvests), when nothing available can harvest a block
        that needs a tool, or when the block is unbreakable. Ties keep the item given first.
        """
        b = self.block(block)
        best: str | None = None
        best_ticks = self.dig_time_ticks(b.name, None) if self.can_harvest(b.name, None) else None
        for item in available:
            name = self.item(item).name
            if not self.can_harvest(b.name, name):
                continue
            ticks = self.dig_time_ticks(b.name, name)
            if ticks is not None and (best_ticks is None or ticks < best_ticks):
                best, best_ticks = name, ticks
        return best

    def drops(
        self,
        block: str,
        tool: str | None,
        rng: random.Random,
        *,
        age: int | None = None,
        by_player: bool = True,
    ) -> list[tuple[str, int]]:
        """What breaking ``block`` with ``tool`` drops: ``[(item, count), ...]`` (empty if not harvested).

        The harvest-tool requirement applies to players only: pass ``by_player=False`` for explosions
        and other non-player breaking, which drop the loot as vanilla does (explosion decay is the
        caller's roll).

        Each alternatives group drops its first entry whose condition holds and whose chance roll
        succeeds; independent entries roll on their own (skipped when a shears-only entry dropped, as
        leaves drop only themselves to shears). Counts are uniform in ``[min_count, max_count]``; a count
        of 0 drops nothing. ``age`` is the block's ``age`` state for crops. A block without loot entries
        drops its minecraft-data ``drops`` items, one each. Deterministic for a given ``rng`` state.
        """
        b = self.block(block)
        tool_name = None if tool is None else self.item(tool).name
        if by_player and not self.can_harvest(b.name, tool_name):
            return []
        if not b.loot:
            return [(name, 1) for name in b.drops]
        out: list[tuple[str, int]] = []
        sheared = False
        chosen_groups: set[int] = set()
        for e in b.loot:
            if e.group is not None and e.group in chosen_groups:
                continue
            if e.group is None and sheared:
                continue
            if not self._loot_applies(e, tool_name, age):
                continue
            if e.chance < 1 and rng.random() >= e.chance:
                continue
            if e.group is not None:
                chosen_groups.add(e.group)
                sheared = e.condition is LootCondition.SHEARS
            count = e.min_count if e.min_count == e.max_count else rng.randint(e.min_count, e.max_count)
            if count > 0:
                out.append((e.item, count))
        return out

    def _loot_applies(self, entry: LootEntry, tool: str | None, age: int | None) -> bool:
        if entry.block_age is not None and entry.block_age != age:
            return False
        if entry.condition is LootCondition.SILK_TOUCH:
            return False
        if entry.condition is LootCondition.SHEARS:
            return tool == "shears"
        if entry.condition is LootCondition.CLUSTER_MAX_HARVESTABLES:
            return tool in self._item_tags[entry.condition.value]
        return True


def data_file_name(version: str) -> str:
    return f"mcdata-{version}.json.gz"


def shipped_versions() -> list[str]:
    """The Minecraft versions craftbt ships registry data for (``world/data/mcdata-<version>.json.gz``)."""
    folder = resources.files("craftbt.world") / "data"
    names = [entry.name for entry in folder.iterdir()]
    found = [n.removeprefix("mcdata-").removesuffix(".json.gz") for n in names if n.startswith("mcdata-")]
    return sorted(found, key=lambda v: tuple(int(p) if p.isdigit() else 0 for p in v.split(".")))


def read_raw(version: str = DEFAULT_VERSION) -> dict[str, Any]:
    """The shipped data file for ``version``, parsed but not indexed."""
    ref = resources.files("craftbt.world") / "data" / data_file_name(version)
    try:
        payload = ref.read_bytes()
    except FileNotFoundError:
        raise McDataFileError(
            f"no registry data for Minecraft {version} (expected world/data/{data_file_name(version)}); "
            "regenerate it with scripts/gen_mcdata.py"
        ) from None
    result: dict[str, Any] = json.loads(gzip.decompress(payload))
    return result


def load(version: str = DEFAULT_VERSION) -> McData:
    """The registry data for ``version`` (parsed once, then cached: every call returns the same object)."""
    return _load_cached(version)


@functools.lru_cache(maxsize=4)
def _load_cached(version: str) -> McData:
    return McData(read_raw(version))


def load_or_default(version: str) -> McData:
    """The registry data for a body's ``version``, the shipped default's when that one is absent (said once
    per version: recipes, drops and blocks may differ on that server)."""
    try:
        return load(version)
    except McDataFileError:
        _warn_fallback(version)
        return load()


@functools.lru_cache(maxsize=16)
def _warn_fallback(version: str) -> None:
    """Say once per version that its registry data is missing and the default stands in (seed 002)."""
    import warnings

    warnings.warn(f"no minecraft-data for Minecraft {version}: using {DEFAULT_VERSION}'s "
                  "(recipes, drops and blocks may differ on this server)", RuntimeWarning, stacklevel=4)
