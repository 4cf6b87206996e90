"""Hostile inputs for the command line, as hypothesis strategies: scenarios, structure templates,
goals, options, plugins and broken ``CRAFTBT_HOME`` states.

A strategy draws a :class:`Case`: the arguments, the files to create first (text, bytes, a FIFO, a
directory, a symlink), extra environment, and the words one of which a failure message must
contain (the file, option or value at fault). :func:`play` runs a case in a fresh directory
through the console script's own error mapping and returns what happened.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from tests.clikit import Done, cli

ROOT = Path(__file__).resolve().parent.parent

#: click's usage errors: each names the option or argument it refused
CLICK_USAGE = ["No such option", "Invalid value for", "Missing argument", "Missing option", "requires an argument",
               "Got unexpected extra argument"]
#: a file to create: text, bytes, or one of the markers below
FIFO, DIRECTORY = object(), object()


@dataclass
class Case:
    surface: str
    args: list[str]
    files: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)


@dataclass
class Played:
    case: Case
    done: Done
    seconds: float


def play(case: Case) -> Played:
    """Run ``case`` in a fresh temporary directory: ``{tmp}`` in args and file names is that directory."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        for name, content in case.files.items():
            path = Path(name.replace("{tmp}", tmp))
            path.parent.mkdir(parents=True, exist_ok=True)
            if content is FIFO:
                os.mkfifo(path)
            elif content is DIRECTORY:
                path.mkdir(exist_ok=True)
            elif isinstance(content, tuple) and content[0] == "symlink":
                path.symlink_to(content[1].replace("{tmp}", tmp))
            elif isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        args = [a.replace("{tmp}", tmp) for a in case.args]
        env = {"CRAFTBT_HOME": f"{tmp}/home", "CRAFTBT_PLUGINS": "", **case.env}
        env = {k: v.replace("{tmp}", tmp) for k, v in env.items()}
        started = time.perf_counter()
        done = cli(args, env=env)
        seconds = time.perf_counter() - started
        # what the message may name: the paths as the user typed them, with the directory filled in
        case = Case(case.surface, args, case.files, env, [n.replace("{tmp}", tmp) for n in case.names])
        return Played(case, done, seconds)


def check(played: Played) -> None:
    """The contract: exit 0, 1 or 2; no traceback, no "craftbt bug"; a failure names the input."""
    done, case = played.done, played.case
    assert done.code in (0, 1, 2), f"{case.surface} {case.args}: exit {done.code}\n{done.text[-2000:]}"
    assert "Traceback" not in done.text, f"{case.args}\n{done.text[-2000:]}"
    assert "internal_error" not in done.text and "craftbt bug" not in done.text, f"{case.args}\n{done.text[-2000:]}"
    if done.code != 0:
        assert done.text.strip(), f"{case.args}: exit {done.code} with nothing said"
        # a usage error is click's own message, which names the option or argument it could not take
        names = [*case.names, *(CLICK_USAGE if done.code == 2 else [])]
        assert any(n in done.text for n in names), (
            f"{case.surface} {case.args}: the message names none of {case.names}:\n{done.text[-1500:]}")


# -- building blocks --------------------------------------------------------------------------------
HUGE = st.sampled_from([10**30, -(10**30), 2**63, -(2**63) - 1, 2**64, 10**400])
NASTY_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 1e-320])
NASTY_TEXT = st.sampled_from(["", "²", "\uff11\uff12", "٣", "\u017f", "\u202e", "%", "_", "a" * 5000, "~", "^", "-",
                              "1_000", "0x10", "1e3", " 7 ", "nan", "inf", "-0", "\x00", "é"])
WEIRD = st.one_of(HUGE, NASTY_FLOATS, NASTY_TEXT, st.none(), st.booleans(), st.lists(st.integers(-3, 3), max_size=4),
                  st.dictionaries(st.sampled_from(["a", "x", "block"]), st.integers(0, 3), max_size=2))
SMALL = st.integers(-8, 8)
NUMBER = st.one_of(SMALL, st.integers(-400, 400), HUGE, NASTY_FLOATS, st.floats(-1e6, 1e6, allow_nan=False))
TRIPLE = st.one_of(st.tuples(NUMBER, NUMBER, NUMBER).map(list), st.lists(NUMBER, max_size=5), WEIRD)
BLOCKS = st.sampled_from(["stone", "dirt", "oak_log[axis=y]", "oak_log[axis=x]", "stone[foo=bar]", "water", "lava",
                          "fire", "air", "not_a_block", "minecraft:stone", "oak_planks", "stone[", "stone[a=b,a=c]",
                          "farmland[moisture=7]", "oak_stairs[facing=north]", "chest", "crafting_table", "bedrock",
                          "Stone", "oak_log[axis=²]"]) | NASTY_TEXT
ITEMS = st.sampled_from(["stick", "oak_log", "cobblestone", "torch", "water", "fire", "nope",
                         "diamond_pickaxe"]) | NASTY_TEXT
MOBS = st.sampled_from(["zombie", "cow", "skeleton", "creeper", "player", "ender_dragon", "wither", "arrow",
                        "item", "boat", "giant", "nope"]) | NASTY_TEXT
COMMANDS = st.one_of(
    st.sampled_from([
        "/give @p stick ²", "/give @p stick \uff11\uff12", "/give @p stick 99999999999999", "/give @p stick 0",
        "/setblock nan 64 0 stone", "/setblock 0 400 0 stone", "/setblock ~ ~-1 ~ stone[foo=bar]",
        "/fill 0 0 0 1000 1000 1000 stone", "/fill 0 60 0 2 62 2 stone hollow", "/fill ~ ~ ~ ~1 ~1 ~1 water",
        "/tp 1e400 0 0", "/tp inf 64 0", "/tp 0 -99999 0", "/tp @p 0 70 0", "/tp ~ ~ ~",
        "/summon zombie ~ ~ ~", "/summon item ~ ~ ~ {Item:{id:\"stick\",Count:999999999999}}",
        "/summon ender_dragon ~ ~ ~", "/summon zombie nan 64 0", "/time set 99999999999999", "/time set -5",
        "/time set ²", "/time add 100t", "/effect give @p hunger 99999999999 300", "/effect give @p hunger ² 1",
        "/gamerule randomTickSpeed ²", "/gamerule randomTickSpeed 99999", "/weather thunder", "/kill @e",
        "/kill @e[type=zombie]", "/clear @p stick", "/say hi", "/op x", "/nope", "", "/", "/give", "/fill [",
        "/setblock 0 64 0 \"stone", "/give @p stick{a:[}", "/kill @e[type=\u017f]",
    ]),
    st.text(max_size=40).map(lambda t: "/" + t),
)


def _dump(doc: Any) -> str:
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def file_text(doc: Any) -> st.SearchStrategy[str | bytes]:
    """The document as YAML or JSON text, or a hostile rendering of it (bad bytes, deep, duplicate keys)."""
    yaml_text = _dump(doc)
    return st.one_of(
        st.just(yaml_text),
        st.just(yaml_text),
        st.just(json.dumps(doc, default=str)),
        st.just(b"\xff\xfe" + yaml_text.encode()),
        st.just(yaml_text.encode() + b"\n# \xc3\x28\n"),
        st.integers(50, 200_000).map(lambda n: "a: " + "[" * n + "]" * n),
        st.integers(50, 3000).map(lambda n: "".join(" " * i + "k:\n" for i in range(n))),
        st.just(yaml_text + ("name: twice\n" if isinstance(doc, dict) and "name" in doc else "template: twice\n")),
        st.just('a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
                "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"),
        st.just("a: !!python/object:os.system {}\n"),
        st.just("name: x\nseed: !!binary aGVsbG8=\n"),
        st.text(max_size=80),
    )


def file_kind(content: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually the content; sometimes a FIFO, a directory, a symlink loop, or nothing at all."""
    return st.one_of(content, content, content, content, content,
                     st.sampled_from([FIFO, DIRECTORY, ("symlink", "{tmp}/loop"), None]))


def _files(name: str, content: Any) -> dict[str, Any]:
    if content is None:
        return {}
    if isinstance(content, tuple):  # a symlink to itself: ELOOP
        return {name: ("symlink", name)}
    return {name: content}


# -- scenarios --------------------------------------------------------------------------------------
def _entry(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


SCENARIO_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "seed": st.one_of(st.integers(-5, 5), HUGE, WEIRD),
    "generator": st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(["flat", "natural", "starter", "void", "²"])}),
        st.fixed_dictionaries({"type": st.just("flat"), "layers": st.lists(
            _entry({"block": BLOCKS, "count": st.one_of(st.integers(0, 400), HUGE, WEIRD)}), max_size=4)}),
        WEIRD),
    "time": st.one_of(st.sampled_from(["day", "night", "noon", "dusk"]), st.integers(-10, 30000), HUGE, WEIRD),
    "weather": st.one_of(st.sampled_from(["clear", "rain", "thunder", "snow"]), WEIRD),
    "rules": st.one_of(_entry({"random_tick_speed": st.one_of(st.integers(-1, 5000), WEIRD),
                               "mob_spawning": st.one_of(st.booleans(), WEIRD)}), WEIRD),
    "player": st.one_of(_entry({
        "position": TRIPLE, "health": st.one_of(st.floats(-5, 25, allow_nan=False), NASTY_FLOATS, WEIRD),
        "food": st.one_of(st.integers(-5, 25), WEIRD), "saturation": st.one_of(NASTY_FLOATS, st.integers(0, 20)),
        "name": st.one_of(st.sampled_from(["Sterling", "x" * 17, "bad name", ""]), NASTY_TEXT),
        "inventory": st.lists(_entry({"item": ITEMS, "count": st.one_of(st.integers(-1, 3000), HUGE, WEIRD)}),
                              max_size=3)}), WEIRD),
    "fill": st.lists(st.one_of(_entry({"from": TRIPLE, "to": TRIPLE, "block": BLOCKS,
                                       "relative": st.one_of(st.booleans(), WEIRD)}),
                               st.fixed_dictionaries({"from": st.just([0, -60, 0]), "to": st.sampled_from(
                                   [[2000, 300, 2000], [64, 63, 64], [2, -58, 2], [200, -1, 200]]),
                                   "block": st.just("stone"), "relative": st.just(False)})), max_size=3),
    "blocks": st.lists(_entry({"pos": TRIPLE, "block": BLOCKS, "relative": st.booleans()}), max_size=4),
    "mobs": st.lists(_entry({"type": MOBS, "pos": TRIPLE, "count": st.one_of(st.integers(-1, 100), WEIRD),
                             "no_ai": st.booleans()}), max_size=3),
    "items": st.lists(_entry({"item": ITEMS, "pos": TRIPLE, "count": st.one_of(st.integers(-1, 100), WEIRD)}),
                      max_size=3),
    "explosions": st.lists(_entry({"pos": TRIPLE, "power": st.one_of(st.floats(-1, 20, allow_nan=False),
                                                                     NASTY_FLOATS, WEIRD)}), max_size=2),
    "commands": st.lists(COMMANDS, max_size=3),
    "bogus": WEIRD,
}


@st.composite
def scenario_case(draw: st.DrawFn) -> Case:
    doc: dict[str, Any] = {"name": draw(st.one_of(st.just("hostile"), WEIRD))}
    doc.update(draw(st.fixed_dictionaries({}, optional=SCENARIO_FIELDS)))
    if "generator" not in doc:
        doc["generator"] = {"type": "flat"}  # the natural generators are slower; they are drawn above too
    content = draw(file_kind(file_text(doc)))
    path = "{tmp}/scenario.yaml"
    tree = "{tmp}/tree.yaml"
    files = {tree: "tree: t\nroot:\n  leaf: wait\n  args: {ms: 100}\n", **_files(path, content)}
    command = ["run", tree, "--scenario", path, "--json", "--max-ticks", "40"]
    return Case("scenario", command, files, names=[path, "scenario", '"status"', "--scenario"])


# -- structure templates ----------------------------------------------------------------------------
BOX = _entry({"from": TRIPLE, "to": TRIPLE, "block": BLOCKS, "hollow": st.booleans()})
SMALL_BOX = st.fixed_dictionaries({"from": st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)).map(list),
                                   "to": st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)).map(list),
                                   "block": st.sampled_from(["stone", "oak_planks", "cobblestone", "water", "fire"])})
MODULE = _entry({
    "id": st.one_of(st.sampled_from(["base", "walls", "roof", "Bad Id"]), NASTY_TEXT),
    "type": st.one_of(st.sampled_from(["shell", "floor", "roof", "decor", "tower"]), WEIRD),
    "depends_on": st.lists(st.sampled_from(["base", "walls", "roof", "ghost"]), max_size=2),
    "fill": st.lists(st.one_of(SMALL_BOX, BOX, st.just({"from": [0, 0, 0], "to": [999, 999, 999], "block": "stone"})),
                     max_size=2),
    "cells": st.lists(_entry({"dx": NUMBER, "dy": NUMBER, "dz": NUMBER, "block": BLOCKS}), max_size=3),
    "empty": st.lists(st.one_of(SMALL_BOX, BOX), max_size=1),
    "entrance": TRIPLE,
    "stations": st.lists(TRIPLE, max_size=2),
})
AT = st.one_of(
    st.sampled_from(["3,-60,3", "0,-60,0", "3,64,3", "3,1000,3", "3,-65,3", "1,2", "1,2,3,4", "", "a,b,c",
                     "\uff11,\uff12,\uff13", "1_0,-60,0", "30000000,-60,0", "nan,-60,0", "1e3,-60,0", " 3 , -60 , 3 "]),
    st.tuples(NUMBER, NUMBER, NUMBER).map(lambda t: ",".join(map(str, t))),
    NASTY_TEXT,
)
FACING = st.one_of(st.sampled_from(["N", "e", "S", "W", "north", "\u017f", "\uff2e", "", "NN"]), NASTY_TEXT)


@st.composite
def template_case(draw: st.DrawFn) -> Case:
    doc: dict[str, Any] = {"template": draw(st.one_of(st.just("hostile"), WEIRD)),
                           "modules": draw(st.one_of(st.lists(MODULE, min_size=1, max_size=3), WEIRD))}
    content = draw(file_kind(file_text(doc)))
    path = "{tmp}/template.yaml"
    at, facing = draw(AT), draw(FACING)
    ref = draw(st.sampled_from([path, path, path, "shelter", "nope", "{tmp}", "x" * 300, "status"]))
    args = ["build", ref, "--at", at, "--facing", facing, "--state", "{tmp}/state", "--json"]
    files = _files(path, content)
    if draw(st.booleans()):
        files.update(draw(broken_state()))
    return Case("template", args, files, names=[path, ref[:100], "--at", "--facing", "template", "state",
                                                "--body", '"status"', "structure"])


@st.composite
def broken_state(draw: st.DrawFn) -> dict[str, Any]:
    target = draw(st.sampled_from(["{tmp}/state/world.snap", "{tmp}/state/build.sqlite", "{tmp}/state"]))
    content = draw(st.one_of(st.binary(max_size=200), st.just(b"CRAFTBT-SIM\x00" + b"\x00" * 20),
                             st.sampled_from([FIFO, DIRECTORY])))
    return {target: content}


# -- goals ------------------------------------------------------------------------------------------
COUNTS = st.one_of(st.sampled_from(["", "0 ", "1 ", "3 ", "576 ", "577 ", "2304 ", "9" * 5000 + " ", "² ",
                                    "\uff11\uff12 ", "3x ", "-1 ", "1_0 "]),
                   st.integers(0, 10**6).map(lambda n: f"{n} "))
TARGETS = st.sampled_from(["stick", "oak_planks", "iron_pickaxe", "hut", "shelter", "cottage", "cake", "dragon_egg",
                           "minecraft:stick", "Stick", "night", "", "\u017ftick"])
VERBS = st.sampled_from(["obtain", "get", "craft", "build", "explore", "survive", "fly", "OBTAIN", "\u017furvive"])
PLANNERS = st.sampled_from(["auto", "solver", "htn", "goap", "llm", "fast_path", "magic", "", "\u017folver"])


@st.composite
def goal_case(draw: st.DrawFn) -> Case:
    goal = draw(st.one_of(st.builds(lambda v, c, t: f"{v} {c}{t}", VERBS, COUNTS, TARGETS), NASTY_TEXT,
                          st.text(max_size=30)))
    planner = draw(PLANNERS)
    out = draw(st.sampled_from([None, "{tmp}/plan.yaml", "{tmp}/plan.json", "{tmp}/fifo", "{tmp}/link", "{tmp}",
                                "{tmp}/no/such/dir/plan.yaml"]))
    command = draw(st.sampled_from(["plan", "run"]))
    args = [command, "--goal", goal, "--planner", planner, "--json"]
    files: dict[str, Any] = {}
    if command == "plan" and out is not None:
        args += ["--out", out]
        files = {"{tmp}/fifo": FIFO, "{tmp}/target": "keep me\n", "{tmp}/link": ("symlink", "{tmp}/target")}
    elif command == "run":
        args += ["--max-ticks", "200"]
    return Case("goal", args, files, names=[goal[:60] or "goal", "--goal", "--planner", "--out", "planner",
                                            '"status"', "goal"])


# -- other options ----------------------------------------------------------------------------------
INTS = st.one_of(st.sampled_from(["0", "1", "-1", "9223372036854775808", "-9223372036854775809", "²", "\uff11\uff12",
                                  "1_0", "1e3", "nan", "", " 3", "0x10", "70000", "99999999999999999999999"]),
                 st.integers(-(2**70), 2**70).map(str))
RUN_IDS = st.one_of(st.sampled_from(["%", "_", "run-", "run-%", "a" * 100_000, "", "run-0", "\\", "'; DROP"]),
                    st.text(max_size=20))
CAPS = st.one_of(st.sampled_from(["chat", "chat@%", "chat@²", "chat@1", "chat@1.0.0", "chat@", "@", "nope@1",
                                  "chat@99999999999999999999", "chat@1.0.0.0", "CHAT"]), NASTY_TEXT)
SINCE = st.one_of(st.sampled_from(["30m", "2h", "7d", "²h", "nan", "inf", "-1", "1e400", "", "h", "99999999999d",
                                   "1700000000", "\uff11h"]), NASTY_TEXT)


@st.composite
def option_case(draw: st.DrawFn) -> Case:
    tree = "{tmp}/tree.yaml"
    files = {tree: "tree: t\nroot:\n  leaf: wait\n  args: {ms: 100}\n"}
    pick = draw(st.integers(0, 11))
    if pick == 0:
        v = draw(INTS)
        return Case("options", ["run", tree, "--seed", v, "--json", "--max-ticks", "40"], files, names=["--seed"])
    if pick == 1:
        v = draw(INTS)
        return Case("options", ["run", tree, "--max-ticks", v, "--json"], files, names=["--max-ticks", '"status"'])
    if pick == 2:
        v = draw(st.one_of(st.sampled_from(["survival", "full", "observer", "admin", ""]), NASTY_TEXT))
        return Case("options", ["run", tree, "--profile", v, "--json", "--max-ticks", "40"], files,
                    names=["--profile", '"status"'])
    if pick == 3:
        v = draw(st.one_of(st.sampled_from(["0,0,0:1,1,1", "nan,0,0:1,1,1", "1,2:3,4", "", "²,0,0:1,1,1",
                                            "-9999999999999999999,0,0:1,1,1"]), NASTY_TEXT))
        return Case("options", ["run", tree, "--geofence", v, "--json", "--max-ticks", "40"], files,
                    names=["--geofence", '"status"'])
    if pick == 4:
        return Case("options", ["runs", "--limit", draw(INTS)], files, names=["--limit"])
    if pick == 5:
        return Case("options", ["show", draw(RUN_IDS)], files, names=["RUN_ID", "run", "Missing argument"])
    if pick == 6:
        args = ["sla", "--since", draw(SINCE), "--capability", draw(CAPS), "--last-failures", draw(INTS),
                "--format", draw(st.sampled_from(["table", "json", "html", "xml"]))]
        # a device as output is tested once, guarded, in test_input_boundary: a suite must not write under /dev
        out = draw(st.sampled_from([None, "{tmp}/sla.json", "{tmp}/fifo", "{tmp}/link", "{tmp}"]))
        if out is not None:
            args += ["-o", out]
            files.update({"{tmp}/fifo": FIFO, "{tmp}/target": "keep\n", "{tmp}/link": ("symlink", "{tmp}/target")})
        return Case("options", args, files, names=["--since", "--capability", "--last-failures", "--format",
                                                   "--output", "-o"])
    if pick == 7:
        return Case("options", ["lifecycle", "set", draw(CAPS), draw(st.sampled_from(["shadow", "active", "gone"]))],
                    files, names=["NAME@VERSION", "stage", "capability", "chat", "version"])
    if pick == 8:
        return Case("options", ["lifecycle", "promote", draw(CAPS)], files,
                    names=["capability", "promoted", "version", "chat"])
    if pick == 9:
        v = draw(st.sampled_from(["{tmp}/nope", "{tmp}/tree.yaml", "/dev/null", "{tmp}", "x" * 300]))
        return Case("options", ["gate", "--tests", v], files, names=["--tests", "divergence"])
    if pick == 10:
        out = draw(st.sampled_from(["{tmp}/out.json", "{tmp}/fifo", "{tmp}/link", "{tmp}", "{tmp}/dir/x.json"]))
        files.update({"{tmp}/fifo": FIFO, "{tmp}/target": "keep\n", "{tmp}/link": ("symlink", "{tmp}/target")})
        command = draw(st.sampled_from([["schema", "-o", out], ["convert", tree, "--to", "json", "-o", out],
                                        ["render", tree, "-f", "ascii", "-o", out]]))
        return Case("options", command, files, names=["--output", out])
    v = draw(st.one_of(st.sampled_from([tree, "/dev/zero", "{tmp}/fifo", "{tmp}", "x" * 300, "{tmp}/nope.yaml",
                                        "{tmp}/bad.yaml", "{tmp}/bad.xml"]), NASTY_TEXT))
    files.update({"{tmp}/fifo": FIFO, "{tmp}/bad.yaml": b"tree: t\nroot: \xff\n",
                  "{tmp}/bad.xml": "<root>" * 5000})
    command = draw(st.sampled_from([["validate", v], ["render", v, "-f", "ascii"], ["run", v, "--max-ticks", "40"],
                                    ["convert", v, "--to", "btcpp-xml"]]))
    return Case("options", command, files, names=[v[:100] if v else "Missing", "tree", "Missing", "Invalid value"])


# -- plugins ----------------------------------------------------------------------------------------
BAD_PLUGINS = ["family_string", "permissions_strings", "args_not_pydantic", "args_without_schema", "duplicate",
               "exits_on_load", "interrupts_on_load", "raises_on_load", "not_a_spec", "runner_not_generator",
               "runner_raises", "guard_raises", "guard_exits", "guard_returns_junk", "acceptance_raises",
               "acceptance_returns_junk"]


@st.composite
def plugin_case(draw: st.DrawFn) -> Case:
    plugin = draw(st.one_of(st.sampled_from(BAD_PLUGINS).map(lambda p: f"tests.bad_plugins:{p}"),
                            st.sampled_from(["examples.wave:register", "nope:register", "examples.wave",
                                             "examples.wave:nothing", ":", "tests.bad_plugins:", "os:getcwd"])))
    command = draw(st.sampled_from([
        ["run", str(ROOT / "examples" / "wave.yaml"), "--scenario", "flat_empty", "--json", "--max-ticks", "200"],
        ["capabilities"], ["validate", str(ROOT / "examples" / "wave.yaml")], ["lifecycle", "list"]]))
    return Case("plugin", command, env={"CRAFTBT_PLUGINS": plugin},
                names=[plugin, "plugin", '"status"', "unknown capability"])


# -- a broken CRAFTBT_HOME --------------------------------------------------------------------------
@st.composite
def home_case(draw: st.DrawFn) -> Case:
    name = draw(st.sampled_from(["journal.sqlite", "priors.sqlite", "lifecycle.json", "golden", ""]))
    content = draw(st.one_of(st.binary(max_size=300), st.text(max_size=60),
                             st.just('{"stages": {"chat@1.0.0": "bogus"}}'), st.just('{"stages": []}'),
                             st.just("SQLite format 3\x00" + "\x00" * 200),
                             st.sampled_from([FIFO, DIRECTORY, ("symlink", "{tmp}/home/loop")])))
    target = f"{{tmp}}/home/{name}" if name else "{tmp}/home"
    tree = "{tmp}/tree.yaml"
    files: dict[str, Any] = {tree: "tree: t\nroot:\n  leaf: wait\n  args: {ms: 100}\n"}
    files.update(_files(target, content))
    command = draw(st.sampled_from([["runs"], ["sla"], ["show", "run-0"], ["lifecycle", "list"],
                                    ["lifecycle", "set", "chat@1.0.0", "shadow"], ["run", tree, "--json",
                                                                                  "--max-ticks", "40"],
                                    ["plan", "--goal", "obtain stick", "--json"]]))
    return Case("home", command, files, names=[target.removesuffix("/" + name) if name else target, "database",
                                               "lifecycle", "home", '"status"', "run-0"])


SURFACES: dict[str, st.SearchStrategy[Case]] = {
    "scenario": scenario_case(),
    "template": template_case(),
    "goal": goal_case(),
    "options": option_case(),
    "plugin": plugin_case(),
    "home": home_case(),
}
#: the mix of a run: goals and plugins cost most (planning, a registry per case), so they come less often
ANY_CASE = st.one_of(*(SURFACES[s] for s in ("scenario", "scenario", "template", "template", "options", "options",
                                              "home", "goal", "plugin")))
