"""The CraftScript interpreter on the embedded world (seed 004 sections 3-11, 13); tests inspect the world after."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.craftscript.functions import FunctionStore
from craftbt.world.body import ActionHandle, BlockPos, Face
from tests.csh import StuckAction, body, name_at, run, texts

# flat_empty: feet at 0,64,0 facing north (-z); grass at y=63, dirt below.


def test_smoke_logs_and_block_info() -> None:
    out, _ = run('log("hello", 1, 2, 3); block_info(f1); log("a\\"b\\tc", -42, true);')
    assert out.ok and texts(out) == ["hello 1 2 3", 'a"b\tc -42 true']
    infos = [e for e in out.logs if e["kind"] == "block_info"]
    assert infos[0]["summary"] == "air @ 0,64,-1"


def test_selectors_follow_the_heading() -> None:
    out, _ = run("block_info(f2+u1+r-1); block_info(l1); turn(r90); block_info(f1); turn_face(\"south\"); "
                 "block_info(f1); turn(l90); block_info(f1^);")
    worlds = [e["world"] for e in out.logs if e["kind"] == "block_info"]
    assert worlds == [[-1, 65, -2], [-1, 64, 0], [1, 64, 0], [0, 64, 1], [1, 65, 0]]


def test_arithmetic_variables_and_scoping() -> None:
    out, _ = run("let a = 2 + 3 * 4; let c = (2 + 3) * 4; log(a, c, 7 / 2, -7 / 2); let n = 0; "
                 "repeat(3) { if (true) { n = n + 1; } } log(n); let p = 9; if (p == 9) { log(\"eq\"); }")
    assert texts(out) == ["14 20 3 -3", "3", "eq"]
    sets = [e for e in out.logs if e["kind"] == "var_set"]
    assert sets[0] == {"kind": "var_set", "name": "a", "value": 14, "line": 1}


def test_repeat_forms_and_trace() -> None:
    out, _ = run("repeat(x: 0..10:2) { log(x); } repeat(i: 3) { log(i); } repeat(0) { log(\"never\"); }")
    assert texts(out) == ["0", "2", "4", "6", "8", "10", "0", "1", "2"]
    kinds = [e["kind"] for e in out.logs]
    assert kinds.count("repeat_init") == 3 and kinds.count("repeat_end") == 3 and kinds.count("repeat_iter") == 9
    bad, _ = run("repeat(x: 0..4:0) { }")
    assert not bad.ok and bad.error is not None and bad.error["error"] == "bad_args"


def test_runtime_error_shape_and_abort() -> None:
    out, _ = run('log("a");\nlog("b");\nbreak(0, 70, 0);\nlog("c");')
    assert not out.ok and texts(out) == ["a", "b"]
    err = out.error
    assert err is not None
    assert set(err) >= {"ok", "error", "message", "op", "op_index", "loc", "at", "notes", "ts"}
    assert err["error"] == "no_target" and err["op"] == "break" and err["op_index"] == 2
    assert err["loc"] == {"line": 3, "column": 1} and err["notes"]["pos"] == [0, 70, 0]


def test_assert_and_division_by_zero() -> None:
    out, _ = run('log("a"); assert(false, "no floor"); log("b");')
    assert out.error is not None and out.error["error"] == "assert_failed" and out.error["message"] == "no floor"
    assert out.error["loc"] == {"line": 1, "column": 11} and texts(out) == ["a"]
    div, _ = run("log(1/0);")
    assert div.error is not None and div.error["error"] == "division_by_zero"


def test_op_cap_stops_infinite_loops() -> None:
    out, _ = run("while (true) { }")
    assert out.error is not None and out.error["error"] == "op_limit"
    small, _ = run('repeat(10) { log(1); }', max_ops=5)
    assert not small.ok and len(texts(small)) < 5


def test_string_growth_stops_at_the_string_limit() -> None:
    # s = s + s doubles: under the op cap alone 60 doublings would ask for 2**61 characters
    out, _ = run('let s = "ab";\nrepeat(20) {\n  s = s + s;\n}\nlog("never");')
    assert out.error is not None and out.error["error"] == "too_long", out.error
    assert out.error["loc"]["line"] == 3 and out.error["loc"]["column"] == 7 and texts(out) == []
    long, _ = run('let s = "x";\nrepeat(16) { s = s + s; }\nlog(s);')  # 65,536 characters: a string, but a log line
    assert long.ok and texts(long) == ["x" * 4096 + "... (61440 more characters)"]


def test_integers_stay_within_2_to_the_53() -> None:
    out, _ = run("let x = 9007199254740992;\nlog(x);\nx = x + x;\nlog(x);")
    assert texts(out) == ["9007199254740992"]  # 2**53 itself is fine, twice it is not
    assert out.error is not None and out.error["error"] == "type_error" and out.error["loc"]["line"] == 3
    assert "out of range" in out.error["message"]


def test_a_guard_refusal_reads_as_its_reason() -> None:
    out, _ = run('place("torch", 1, 64, 0);')
    assert out.error is not None and out.error["error"] == "precond_missing:item:torch"
    assert out.error["message"] == "place: precond_missing:item:torch: no torch in the inventory"
    assert out.error["notes"]["code"] == "guard_failed:precond_missing:item:torch"  # the capability's own code


def test_dig_place_and_block_changes() -> None:
    out, b = run('dig(0,63,1); break(f1+d1); place("minecraft:cobblestone", 2, 64, 0); '
                 'place("cobblestone", f1+d1, face:"up");', give={"cobblestone": 4})
    assert out.ok, out.error
    assert name_at(b, 0, 63, 1) == "air" and name_at(b, 2, 64, 0) == "cobblestone"
    assert name_at(b, 0, 63, -1) == "cobblestone"
    assert [c["pos"] for c in out.block_changes] == [[0, 63, 1], [0, 63, -1], [2, 64, 0], [0, 63, -1]]
    dig = next(s for s in out.steps if s["op"] == "break")
    assert dig["notes"]["selector"] == "f1+d1" and dig["notes"]["id"] == "minecraft:grass_block"
    assert any(e["kind"] == "scan" and e["auto"] for e in out.logs)  # invariant 5


def test_predicates() -> None:
    out, _b = run('log(is_air(f1), is_air(0,63,0), can_stand(f1), has_item("minecraft:torch"), has_item("torch"), '
                 'has_item("stone"), block_is(0,63,0,"grass_block"), block_is(0,63,0,"minecraft:grass_block"), '
                 'block_is(d1, "dirt"), is_hazard("lava_near"));', give={"torch": 1})
    assert texts(out) == ["true false true true true false true true false false"]
    assert sum(1 for e in out.logs if e["kind"] == "predicate") == 10


def test_move_and_invariants() -> None:
    out, b = run("move(f1); move(f1);")
    assert out.ok and b.position().block() == (0, 64, -2)
    up, b2 = run("move(f1^);")
    assert up.error is not None and up.error["error"] == "invariant_violation" and up.error["op_index"] == 0
    assert b2.position().block() == (0, 64, 0)
    cache, _ = run("log(is_air(f1+d1)); dig(f1+d1); log(is_air(f1+d1));")
    assert texts(cache) == ["false", "true"]


def test_gravity_overhead_invariant() -> None:
    from tests.csh import body
    b = body()
    b.world.set_block((0, 66, 0), ("stone", ()))
    b.world.set_block((0, 67, 0), ("gravel", ()))
    out, _ = run("dig(u2);", on=b)
    assert out.error is not None and out.error["error"] == "invariant_violation"
    assert name_at(b, 0, 66, 0) == "stone"


def test_build_up_goto_craft_wait() -> None:
    out, b = run('build_up("dirt"); build_up();', give={"dirt": 3})
    assert out.ok and b.position().block() == (0, 66, 0)
    assert name_at(b, 0, 64, 0) == "dirt" and name_at(b, 0, 65, 0) == "dirt"
    out2, b2 = run('goto(10, 64, 10, tol:1); craft("stick", 4); wait(10000);', give={"oak_planks": 2})
    assert out2.ok and b2.position().distance_to(b2.position().__class__(10.5, 64, 10.5)) <= 1.5
    assert b2.world.player.inventory.count("stick") == 4
    goto = next(e for e in out2.logs if e["kind"] == "goto")
    assert goto["to"] == [10, 64, 10]


def test_waypoints() -> None:
    out, b = run('goto(waypoint("home"), tol:1); goto(waypoint("nowhere"), tol:1);', waypoints={"home": (5, 64, 5)})
    assert b.position().distance_to(b.position().__class__(5.5, 64, 5.5)) <= 1.5
    assert out.error is not None and out.error["error"] == "unknown_waypoint" and "nowhere" in out.error["message"]


def test_example_10c_and_11a_staircase() -> None:
    out, _ = run('log("hello", 1, 2, 3);\nblock_info(f1);')
    assert out.ok
    src = ('macro stair_up_step() {\n  assert(safe_step_up(f1), "no safe step");\n  dig(f1+u2);\n  move(f1^);\n}\n\n'
           "repeat(12) { stair_up_step(); }")
    out, b = run(src, "craftscript_staircase")
    assert out.ok, out.error
    assert b.position().block() == (0, 76, -12) and len(out.block_changes) == 12
    flat, _ = run(src)
    assert flat.error is not None and flat.error["message"] == "no safe step" and flat.error["loc"]["line"] == 2


def test_example_11c_pillar_and_11e_tower() -> None:
    out, b = run("build_pillar(4);\ndescend_pillar_safely(4);", give={"cobblestone": 4})
    assert out.ok, out.error
    assert b.position().block() == (0, 64, 0) and all(name_at(b, 0, y, 0) == "air" for y in range(64, 68))
    assert b.world.player.health == 20
    tower, t = run('goto(140, 64, 92, tol:0);\nrepeat(h: 1..6) { build_up(); }\n'
                   'if (has_item("minecraft:torch")) { place("minecraft:torch", 140, 64+6, 92, face: up); }',
                   give={"cobblestone": 6, "torch": 1})
    assert tower.ok, tower.error
    assert t.position().block() == (140, 70, 92)
    assert all(name_at(t, 140, y, 92) == "cobblestone" for y in range(64, 70))
    assert name_at(t, 140, 70, 92) == "torch"


EXAMPLE_11C = ('build_pillar(4);\nplace("minecraft:oak_planks", f1+u1, face:"up");\n'
               "descend_pillar_safely(4);")
EXAMPLE_11E = ("// Start near the target, then build up 6 blocks\ngoto(140, 64, 92, tol:1);\nrepeat(h: 1..6) {\n"
               "  build_up(); // jumps and places beneath using reliable move-listener logic\n}\n// Mark the top\n"
               'if (has_item("minecraft:torch")) { place("minecraft:torch", 140, 64+6, 92, face: up); }')


def test_examples_11c_and_11e_verbatim_on_their_scenario() -> None:
    out, b = run(EXAMPLE_11C, "craftscript_pillar")
    assert out.ok, out.error
    assert name_at(b, 140, 69, 91) == "oak_planks"  # on the wall, placed from the top of the pillar
    assert b.position().block() == (140, 64, 92) and all(name_at(b, 140, y, 92) == "air" for y in range(64, 68))
    out, b = run(EXAMPLE_11E, "craftscript_pillar")
    assert out.ok, out.error
    assert all(name_at(b, 140, y, 92) == "cobblestone" for y in range(64, 70))
    assert name_at(b, 140, 70, 92) == "torch" and b.position().block() == (140, 70, 92)


def test_example_11d_grid_plants_only_on_dirt() -> None:
    src = ("let ox = 113; let oy = 64; let oz = 114;\nrepeat(ix: 0..4) {\n  repeat(iz: 0..3) {\n"
           "    let px = ox + ix * 6;\n    let pz = oz + iz * 6;\n    if (block_is(px, oy - 1, pz, \"dirt\")) {\n"
           "      plant(\"oak_sapling\", px, oy, pz);\n    }\n  }\n}")
    out, b = run(src, "craftscript_grid")
    assert out.ok, out.error
    assert name_at(b, 113, 64, 114) == "oak_sapling" and name_at(b, 119, 64, 120) == "oak_sapling"
    assert len(out.block_changes) == 2


def test_example_10b_tree_pillar() -> None:
    src = ('let tx=102; let ty=64; let tz=108;\nlog("goto base", tx, ty, tz);\ngoto(tx, ty, tz, tol:1);\n'
           'repeat(py: ty..(ty+10)) {\n  if (block_is(tx, py, tz, "oak_log")) {\n    log("found log at y=", py);\n'
           '    break(tx, py, tz);\n  }\n}\nlog("build_up #1"); build_up();\nlog("build_up #2"); build_up();\n'
           "block_info(tx, ty+2, tz);")
    out, b = run(src, "craftscript_tree")
    assert out.ok, out.error
    assert all(name_at(b, 102, y, 108) == "air" for y in range(64, 70))
    assert [t for t in texts(out) if t.startswith("found")] == [f"found log at y= {y}" for y in range(64, 70)]


def test_functions_versions_recursion(tmp_path: Path) -> None:
    store = FunctionStore("Sterling", tmp_path / "fn.sqlite")
    store.create("tower", 'log("v1");', args=[{"name": "h", "type": "int"}])
    store.edit("tower", 'repeat(h) { build_up("dirt"); } log("built", h);', change_summary="build")
    out, b = run("tower(h: 2);", give={"dirt": 2}, functions=store)
    assert out.ok and texts(out) == ["built 2"] and b.position().block() == (0, 66, 0)
    assert [v["version"] for v in store.versions("tower")["versions"]] == [2, 1]
    store.create("rec", "rec(n: n + 1);", args=[{"name": "n", "type": "int"}])
    deep, _ = run("rec(n: 0);", functions=store)
    assert deep.error is not None and deep.error["message"] == "Maximum function call depth exceeded"
    store.create("bad", 'log("x");\nassert(false, "missing_item");')
    failed, _ = run("bad();", functions=store)
    assert failed.error is not None and failed.error["loc"] == {"line": 2, "column": 1, "source": "fn:bad@1"}
    store.create("opt", "log(height);", args=[{"name": "height", "type": "int", "default": 10}])
    opt, _ = run("opt();", functions=store)
    assert texts(opt) == ["10"]
    store.delete("tower")
    assert store.latest("tower") is None


@pytest.mark.slow
def test_example_10a_planting_grid_on_flat_grass() -> None:
    src = ("let ox = 113; let oy = 64; let oz = 114;\nrepeat(ix: 0..4) {\n  repeat(iz: 0..3) {\n"
           "    let px = ox + ix * 6; let pz = oz + iz * 6;\n    log(\"check spot\", px, oy, pz);\n"
           "    block_info(px, oy - 1, pz);\n"
           "    if (block_is(px, oy - 1, pz, \"dirt\") || block_is(px, oy - 1, pz, \"grass_block\")) {\n"
           "      log(\"planting at\", px, pz);\n      goto(px, oy, pz, tol:1);\n"
           "      plant(\"oak_sapling\", px, oy, pz);\n    } else {\n      log(\"skip\", px, pz);\n    }\n  }\n}")
    out, b = run(src, give={"oak_sapling": 20})
    assert out.ok, out.error
    assert sum(1 for t in texts(out) if t.startswith("planting at")) == 20
    assert all(name_at(b, 113 + 6 * i, 64, 114 + 6 * j) == "oak_sapling" for i in range(5) for j in range(4))


def test_section4_container_commands_on_a_furnace_and_a_chest() -> None:
    out, b = run('open_container(2, 64, 0);\ncontainer_put("input", "raw_iron", 3);\n'
                 'container_put("fuel", "coal", 2);\ncontainer_items();\nwait(35000);\n'
                 'container_take("output", 3);\nclose_container();',
                 "furnace_with_fuel")
    assert out.ok, out.error
    inv = b.world.player.inventory
    assert inv.count("iron_ingot") == 3 and inv.count("raw_iron") == 0 and inv.count("coal") == 6
    listed = next(e for e in out.logs if e["kind"] == "container_items")
    assert listed["items"]["input"] == [{"id": "minecraft:raw_iron", "count": 3}], listed
    assert b.open_window() is None
    out, b = run('deposit(2, 64, 0, "apple", 4);\nwithdraw(2, 64, 0, "apple", 1);\nopen(2, 64, 0);\n'
                 'deposit("apple");\nwithdraw("apple", 2);\nclose();', "chest_with_items")
    assert out.ok, out.error
    assert b.world.player.inventory.count("apple") == 2 and b.open_window() is None
    assert [s["op"] for s in out.steps] == ["deposit", "withdraw", "open", "deposit", "withdraw", "close"]


def test_section4_inventory_commands() -> None:
    out, b = run('eat("minecraft:bread");\nequip("bread");\ndrop("minecraft:bread", count: 2);', "food_when_hungry")
    assert out.ok, out.error
    assert b.world.player.inventory.count("bread") == 13 and b.world.player.food > 10
    out, b = run("dig(f1+d1);\npickup_blocks(8);")
    assert out.ok, out.error
    assert b.world.player.inventory.count("dirt") == 1


def test_example_11b_goto_waypoint_and_place_a_torch() -> None:
    b = body(give={"torch": 1})
    for z in range(2, 9):  # a wall two blocks east of wherever, within tol 1 of home, the bot stops
        b.world.set_block((7, 64, z), ("stone", ()))
    src = ('goto(waypoint("home"), tol:1);\nif (has_item("minecraft:torch")) {\n'
           '  place("minecraft:torch", r1, face:"west");\n}')
    out, _ = run(src, on=b, waypoints={"home": (5, 64, 5)})
    assert out.ok, out.error
    here = b.position().block()
    assert here.distance_to(b.position().__class__(5, 64, 5)) <= 1.5 and here.x == 5, here
    assert name_at(b, 6, 64, here.z) == "wall_torch"  # r1 (heading north: east), hung on the wall's west face
    assert b.world.player.inventory.count("torch") == 0
    out, _ = run(src, on=b, waypoints={"home": (5, 64, 5)})  # no torch left: the if skips the place
    assert out.ok and [s["op"] for s in out.steps] == ["goto"]


def test_place_timeouts_are_retried_with_backoff() -> None:
    b = body(give={"dirt": 1})
    real = b.place
    calls: list[int] = []

    def slow_then_fine(item: str, against: BlockPos, face: Face) -> ActionHandle | StuckAction:
        calls.append(b.now_ticks())
        return StuckAction("place") if len(calls) <= 2 else real(item, against, face)

    b.place = slow_then_fine  # type: ignore[method-assign]
    out, _ = run('place("dirt", 2, 64, 0);', on=b)
    assert out.ok, out.error
    assert name_at(b, 2, 64, 0) == "dirt" and len(calls) == 3
    retries = [e for e in out.logs if e["kind"] == "retry"]
    assert [(r["note"], r["attempt"], r["delay_ticks"]) for r in retries] == [("place_timeout", 1, 5),
                                                                            ("place_timeout", 2, 10)]
    b2 = body(give={"dirt": 1})
    b2.place = lambda item, against, face: StuckAction("place")  # type: ignore[method-assign,assignment,misc,return-value]
    out2, _ = run('place("dirt", 2, 64, 0);', on=b2)
    assert not out2.ok and out2.error is not None and out2.error["error"] == "timeout"
    assert out2.error["notes"]["retry_note"] == "place_timeout"
    assert len([e for e in out2.logs if e["kind"] == "retry"]) == 3  # 5, 10, 20 ticks, then it gives up


def test_core_macros_stairs_tunnel_and_torch_cadence() -> None:
    out, b = run("repeat(12) { stair_up_step(); }\nturn(180);\nrepeat(3) { stair_down_step(); }",
                 "craftscript_staircase")
    assert out.ok, out.error
    assert b.position().block() == (0, 73, -9)
    out, b = run("tunnel_forward();\ntunnel_forward();", "craftscript_staircase")
    assert out.ok, out.error
    assert b.position().block() == (0, 64, -2)
    assert [name_at(b, 0, y, z) for y, z in ((64, -1), (64, -2), (65, -2))] == ["air", "air", "air"]
    out, b = run("torch_cadence_7();\nrepeat(7) { move(f1); torch_cadence_7(); }", give={"torch": 5})
    assert out.ok, out.error
    assert name_at(b, 0, 64, 0) == "torch" and name_at(b, 0, 64, -7) == "torch"
    assert b.world.player.inventory.count("torch") == 3  # two placed: 7 blocks apart, none in between


def test_stairs_dug_down_into_the_ground_clear_the_head_cell() -> None:
    # from the second step down, the cell over f1 is ground: the head passes through it before the drop
    # (a shovel in hand: a drop picked up mid-dig does not land in the empty hand and cancel the dig)
    out, b = run('turn_face("east");\nrepeat(4) { stair_down_step(); }', give={"stone_shovel": 1})
    assert out.ok, out.error
    assert b.position().block() == (4, 60, 0)
    assert [name_at(b, 4, y, 0) for y in (60, 61, 62)] == ["air", "air", "air"]
    b = body()
    for y in (64, 63):
        b.world.set_block((1, y, 0), ("air", ()))
    b.world.set_block((1, 65, 0), ("stone", ()))  # a ledge over the step down
    out, _ = run('turn_face("east");\nlog(safe_step_down(f1));\nmove(f1_);', on=b)
    assert texts(out) == ["false"]
    assert out.error is not None and out.error["error"] == "invariant_violation", out.error
    assert out.error["notes"]["invariant"] == 2 and out.error["loc"]["line"] == 3


def test_invariant_4_no_dig_next_to_lava_and_the_hazard_predicate() -> None:
    b = body()
    b.world.set_block((2, 64, 0), ("stone", ()))
    b.world.set_block((2, 64, 1), ("lava", ()))  # beside the stone, within 2 blocks of the bot
    out, _ = run('log(is_hazard("lava_near"));\ndig(2, 64, 0);', on=b)
    assert out.logs[0]["kind"] == "predicate" and out.logs[0]["result"] is True
    assert out.error is not None and out.error["error"] == "invariant_violation"
    assert out.error["notes"]["invariant"] == 4 and out.error["loc"]["line"] == 2
    assert name_at(b, 2, 64, 0) == "stone"
