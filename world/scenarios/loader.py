"""Scenario files -> a ready SimBody, with structured errors (code ``invalid_scenario``).

Every problem names the file, the line where YAML can tell it, the path of
the field, and what was expected; unknown block, item and entity names get a
"did you mean". Names are checked against the registry before any world is
built; commands are checked when they are run (on a fresh world, so a bad
file never leaves a half-built world behind for anyone).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.core.inputs import read_text
from craftbt.core.yamlpos import compose_and_load, line_of
from craftbt.world.body import BodyError, Position
from craftbt.world.mcdata import McData, UnknownName, load
from craftbt.world.scenarios.schema import BORDER, Scenario
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.commands import parse_block
from craftbt.world.sim.flags import MAX_Y, MIN_Y
from craftbt.world.sim.generator import FlatGenerator, NaturalGenerator
from craftbt.world.sim.generators import AnyGenerator
from craftbt.world.sim.mobs import explode
from craftbt.world.sim.natural import NaturalWorldGenerator
from craftbt.world.sim.starter import find_spawn, make_starter
from craftbt.world.sim.world import World

SCENARIO_DIR = Path(__file__).parent
#: Entity categories a scenario may spawn as mobs; bosses the simulation does not model are refused.
MOB_CATEGORIES = ("hostile", "passive")
UNSUPPORTED_MOBS = frozenset({"ender_dragon", "wither", "giant"})


def _problem(file: str | None, message: str, path: str = "", *, line: int | None = None,
             expected: str | None = None, suggestion: str | None = None) -> Problem:
    return Problem(ErrorCode.INVALID_SCENARIO, message, Location(file=file, line=line, path=path), expected,
                   suggestion)


def parse_scenario(text: str, file: str | None = None, md: McData | None = None) -> Scenario:
    """Parse and validate scenario text (YAML or JSON); raises CraftbtError(invalid_scenario)."""
    try:
        node, data = compose_and_load(text, file)  # depth, duplicate keys, finite numbers
    except CraftbtError as bad:
        for p in bad.problems:
            p.code = ErrorCode.INVALID_SCENARIO  # the scenario's one code, located where YAML says
        raise CraftbtError(bad.problems) from None
    if not isinstance(data, dict):
        raise CraftbtError(_problem(file, f"a scenario must be a mapping, got {type(data).__name__}",
                                    expected="a mapping with at least 'name'"))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            path = ".".join(str(p) for p in loc)
            problems.append(_problem(file, err["msg"], path, line=line_of(node, loc),
                                     expected=_expected(err)))
        raise CraftbtError(problems) from None
    check_names(scenario, file, node, md or load())
    return scenario


def _expected(err: Any) -> str | None:
    ctx = err.get("ctx") or {}
    if "expected" in ctx:
        return str(ctx["expected"])
    bounds = [f"{sign} {ctx[key]}" for key, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
              if key in ctx]
    if bounds:
        return " and ".join(bounds)
    kind = str(err.get("type", ""))
    if kind in ("value_error", "assertion_error"):
        return None  # the message says it all
    if kind == "string_pattern_mismatch":
        return "a plain name: lowercase letters, digits and _ (a layer takes no [block state])"
    if kind == "extra_forbidden":
        return "no such field"
    if kind == "missing":
        return "this field"
    return kind or None


def check_names(scenario: Scenario, file: str | None, node: Any, md: McData) -> None:
    problems: list[Problem] = []

    def check(kind: str, name: str, path: tuple[Any, ...]) -> None:
        try:
            if kind == "block":
                base = name.split("[", 1)[0]
                md.block(base)
            elif kind == "item":
                md.item(name)
            else:
                entity = md.entity(name)
                if entity.category not in MOB_CATEGORIES or entity.name in UNSUPPORTED_MOBS:
                    problems.append(_problem(file, f"{name!r} cannot be a scenario mob", ".".join(map(str, path)),
                                             line=line_of(node, path),
                                             expected="a hostile or passive mob, not a player, boss or object"))
        except UnknownName as exc:
            problems.append(_problem(file, f"unknown {kind} {name!r}", ".".join(map(str, path)),
                                     line=line_of(node, path), expected=f"a Minecraft {md_version()} {kind} name",
                                     suggestion=exc.suggestion))

    for i, item in enumerate(scenario.player.inventory):
        check("item", item.item, ("player", "inventory", i, "item"))
    for i, layer in enumerate(scenario.generator.layers or []):
        check("block", layer.block, ("generator", "layers", i, "block"))
    for i, edit in enumerate(scenario.blocks):
        check("block", edit.block, ("blocks", i, "block"))
    for i, f in enumerate(scenario.fill):
        check("block", f.block, ("fill", i, "block"))
    for i, mob in enumerate(scenario.mobs):
        check("entity", mob.type, ("mobs", i, "type"))
    for i, it in enumerate(scenario.items):
        check("item", it.item, ("items", i, "item"))
    if problems:
        raise CraftbtError(problems)


def md_version() -> str:
    return "1.21.4"


def build(scenario: Scenario, *, seed: int | None = None, file: str | None = None, md: McData | None = None,
          realtime: bool = False) -> SimBody:
    """A SimBody in the situation the scenario describes."""
    md = md or load()
    world_seed = scenario.seed if seed is None else seed
    gen_spec = scenario.generator
    generator: AnyGenerator
    if gen_spec.type == "natural_world":
        generator = NaturalWorldGenerator(world_seed)
    elif gen_spec.type == "flat":
        layers = [(md.block(layer.block).name, layer.count) for layer in gen_spec.layers] if gen_spec.layers else None
        generator = FlatGenerator(layers) if layers else FlatGenerator()
    else:
        generator = NaturalGenerator(world_seed, tree_chance=gen_spec.tree_chance or 0.02)
    world = World(md, world_seed, generator, time_of_day=scenario.time_ticks(), realtime=realtime,
                  player_name=scenario.player.name)
    if gen_spec.type == "starter":
        make_starter(world)
    elif gen_spec.type in ("natural", "natural_world"):
        find_spawn(world)
    body = SimBody(world, realtime=realtime)
    body.scenario_name = scenario.name
    pl = world.player
    if scenario.player.position is not None:
        pl.position = Position(*scenario.player.position)
        world.spawn = pl.position
    pl.health, pl.food, pl.saturation = scenario.player.health, scenario.player.food, scenario.player.saturation
    pl.operator = scenario.player.operator
    world.weather = scenario.weather
    world.biome = scenario.biome
    r = scenario.rules
    if r.random_tick_speed is not None:
        world.rules.random_tick_speed = r.random_tick_speed
    if r.mob_spawning is not None:
        world.rules.do_mob_spawning = r.mob_spawning
    if r.daylight_cycle is not None:
        world.rules.do_daylight_cycle = r.daylight_cycle
    feet = pl.position.block()

    def at(pos: tuple[int, int, int], relative: bool) -> tuple[int, int, int]:
        return (feet.x + pos[0], feet.y + pos[1], feet.z + pos[2]) if relative else pos

    problems: list[Problem] = []

    def outside(pos: tuple[float, float, float], path: str) -> bool:
        """A position (after ``relative`` is applied) outside the world is a problem, not a crash."""
        x, y, z = pos
        if abs(x) <= BORDER and abs(z) <= BORDER and MIN_Y <= y <= MAX_Y + (0 if isinstance(y, int) else 64):
            return False
        problems.append(_problem(file, f"position {tuple(pos)} is outside the world", path,
                                 expected=f"x and z within +-{BORDER}, y within {MIN_Y}..{MAX_Y}"))
        return True

    for i, f in enumerate(scenario.fill):
        a, b = at(f.start, f.relative), at(f.end, f.relative)
        if outside(a, f"fill.{i}.from") or outside(b, f"fill.{i}.to"):
            continue
        state = _block_state(body, f.block, file, f"fill.{i}.block", problems)
        if state is None:
            continue
        for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1):
            for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1):
                for z in range(min(a[2], b[2]), max(a[2], b[2]) + 1):
                    world.set_block((x, y, z), state)
    for i, edit in enumerate(scenario.blocks):
        state = _block_state(body, edit.block, file, f"blocks.{i}.block", problems)
        if state is not None and not outside(at(edit.pos, edit.relative), f"blocks.{i}.pos"):
            world.set_block(at(edit.pos, edit.relative), state)
    for i, mob in enumerate(scenario.mobs):
        mx, my, mz = mob.pos
        if mob.relative:
            mx, my, mz = pl.position.x + mx, pl.position.y + my, pl.position.z + mz
        if outside((mx, my, mz), f"mobs.{i}.pos"):
            continue
        for _ in range(mob.count):
            world.spawn_mob(mob.type, mx, my, mz, no_ai=mob.no_ai)
    for i, it in enumerate(scenario.items):
        ix, iy, iz = it.pos
        if it.relative:
            ix, iy, iz = math.floor(pl.position.x) + ix + 0.5, pl.position.y + iy, math.floor(pl.position.z) + iz + 0.5
        if outside((ix, iy, iz), f"items.{i}.pos"):
            continue
        world.spawn_item(md.item(it.item).name, it.count, ix, iy, iz, delay=0, jitter=False)
    for i, blast in enumerate(scenario.explosions):
        bx, by, bz = blast.pos
        if blast.relative:
            bx, by, bz = pl.position.x + bx, pl.position.y + by, pl.position.z + bz
        if outside((bx, by, bz), f"explosions.{i}.pos"):
            continue
        explode(world, bx, by, bz, blast.power, source="scenario")
    for i, item in enumerate(scenario.player.inventory):
        if pl.inventory.add(md.item(item.item).name, item.count):
            problems.append(_problem(file, f"the inventory cannot hold {item.count} {item.item}",
                                     f"player.inventory.{i}", expected="at most 36 stacks in all"))
    for i, command in enumerate(scenario.commands):
        try:
            body.run_command(command)
        except BodyError as err:
            problems.append(_problem(file, f"command {command!r} failed: {err.detail}", f"commands.{i}",
                                     expected="a supported operator command"))
    if problems:
        raise CraftbtError(problems)
    return body


def _block_state(body: SimBody, text: str, file: str | None, path: str, problems: list[Problem]) -> Any:
    try:
        return parse_block(body, text)
    except BodyError as err:
        problems.append(_problem(file, err.detail, path, expected="name or name[key=value,...]"))
        return None


def resolve_path(path: str | Path) -> Path:
    """A scenario path as given, or the name of a shipped scenario (``starter`` -> world/scenarios/starter.yaml)."""
    p = Path(path)
    try:
        if p.exists() or p.is_symlink():
            return p
    except (OSError, ValueError):  # a name too long, a NUL byte: the reader reports it
        return p
    shipped = SCENARIO_DIR / (p.name if p.suffix else f"{p.name}.yaml")
    return shipped if shipped.exists() else p


def load_scenario(path: str | Path, seed: int | None = None, *, realtime: bool = False) -> SimBody:
    """Read, validate and build a scenario file; ``seed`` overrides the file's seed."""
    p = resolve_path(path)
    text = read_text(p, what="scenario")
    scenario = parse_scenario(text, str(p))
    return build(scenario, seed=seed, file=str(p), realtime=realtime)


def starter_world(seed: int = 0, *, realtime: bool = False) -> SimBody:
    """The default world: natural terrain with trees, exposed stone, coal and iron near spawn; empty inventory."""
    return build(Scenario(name="starter", seed=seed, generator={"type": "starter"}), realtime=realtime)  # type: ignore[arg-type]


#: ``--world`` names: the generator each builds. ``natural`` is the vanilla-like world (caves, ores by
#: depth, biomes, animals); ``starter`` adds trees and an ore outcrop by spawn; ``flat`` is superflat.
WORLDS = {"natural": "natural_world", "starter": "starter", "flat": "flat"}


def world_body(world: str, seed: int = 0, *, realtime: bool = False) -> SimBody:
    """A fresh body from an empty inventory on the named kind of world (see ``WORLDS``)."""
    kind = WORLDS.get(world)
    if kind is None:
        raise CraftbtError(Problem(ErrorCode.INVALID_ARGUMENT, f"unknown world {world!r}",
                                   Location(path="--world"), expected=" | ".join(WORLDS)))
    return build(Scenario(name=f"{world}", seed=seed, generator={"type": kind}), realtime=realtime)  # type: ignore[arg-type]


#: Workstations an inventory world puts beside the player (Plancraft's grid and furnace).
HELD_STATIONS = ("crafting_table", "furnace")


def inventory_world(inventory: dict[str, int], world: str = "flat", seed: int = 0, *,
                    stations: tuple[str, ...] = HELD_STATIONS, realtime: bool = False) -> SimBody:
    """A fresh body on the named kind of world holding ``inventory``, with ``stations`` placed two blocks
    away; a name or count the world refuses is a located error (``--inventory``)."""
    kind = WORLDS.get(world)
    if kind is None:
        raise CraftbtError(Problem(ErrorCode.INVALID_ARGUMENT, f"unknown world {world!r}",
                                   Location(path="--world"), expected=" | ".join(WORLDS)))
    try:
        scenario = Scenario.model_validate({
            "name": f"{world} holding an inventory", "seed": seed, "generator": {"type": kind},
            "player": {"inventory": [{"item": i, "count": n} for i, n in inventory.items() if n > 0]},
            "blocks": [{"pos": [2, 0, 2 * k - 1], "block": s} for k, s in enumerate(stations)],
        })
    except ValidationError as err:
        raise CraftbtError(Problem(ErrorCode.INVALID_ARGUMENT, f"inventory refused: {err.errors()[0]['msg']}",
                                   Location(path="--inventory"), expected="item names with counts 1-2304")) from None
    check_names(scenario, "--inventory", None, load())  # an unknown name: a located error with a suggestion
    return build(scenario, realtime=realtime, file="--inventory")


def shipped_scenarios() -> list[Path]:
    return sorted(SCENARIO_DIR.glob("*.yaml"))

