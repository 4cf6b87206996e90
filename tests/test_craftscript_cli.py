"""``craftbt script run|check`` and ``craftbt fn`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.cli.root import app

FLAT = str(Path(__file__).resolve().parents[1] / "world" / "scenarios" / "flat_empty.yaml")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_script_run_json_shape_and_journal() -> None:
    code, out, _ = cli("script", "run", "-e", 'log("hi"); place("cobblestone", 2, 64, 0);', "--scenario", FLAT,
                       "--give", "cobblestone:1", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"ok", "status", "ops", "error", "logs", "block_changes", "position", "run_id"}
    assert data["ok"] and data["error"] is None and data["status"] == "completed"
    assert data["block_changes"] == [{"pos": [2, 64, 0], "before": "minecraft:air", "after": "minecraft:cobblestone",
                                      "action": "placed", "command": "place",
                                      "timestamp": data["block_changes"][0]["timestamp"]}]
    code, out, _ = cli("show", data["run_id"], "--json")
    assert code == 0 and "place_block" in out


def test_script_run_failure_exits_1_with_section7_error(tmp_path: Path) -> None:
    f = tmp_path / "s.cs"
    f.write_text('log("a");\nbreak(0, 70, 0);\nlog("b");\n')
    code, out, _ = cli("script", "run", str(f), "--scenario", FLAT, "--json")
    data = json.loads(out)
    assert code == 1 and data["error"]["error"] == "no_target" and data["error"]["loc"]["line"] == 2


def test_script_run_json_of_a_script_that_does_not_compile_has_the_run_shape(tmp_path: Path) -> None:
    f = tmp_path / "typo.cs"
    f.write_text('log("a");\ndgi(f1);\nmvoe(f1);\n')
    code, out, _ = cli("script", "run", str(f), "--scenario", FLAT, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and data["status"] == "compile_error" and data["run_id"] is None
    assert data["error"]["error"] == "unknown_command" and data["error"]["loc"] == {"line": 2, "column": 1,
                                                                                   "source": str(f)}
    assert data["error"]["notes"] == {"suggestion": "dig"}
    assert [e["loc"]["line"] for e in data["errors"]] == [2, 3]


def test_script_run_in_shadow_mode_observes_every_command_and_changes_nothing() -> None:
    code, out, _ = cli("script", "run", "-e", 'dig(f1+d1); move(f1); goto(3, 64, 3); log("end");', "--scenario",
                       FLAT, "--shadow", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"], data["error"]
    assert [s["op"] for s in data["steps"]] == ["dig", "move", "goto", "log"]
    assert data["block_changes"] == [] and data["position"] == [0.5, 64.0, 0.5]


def test_a_failure_inside_a_macro_says_where_the_script_called_it(tmp_path: Path) -> None:
    f = tmp_path / "m.cs"
    f.write_text('macro outer() {\n  stair_up_step();\n}\nlog("start");\n  outer();\n')
    code, out, _ = cli("script", "run", str(f), "--scenario", FLAT, "--json")
    error = json.loads(out)["error"]
    assert code == 1 and error["error"] == "assert_failed" and error["loc"]["source"] == "core_macros.cs"
    assert error["notes"]["called_from"] == [{"name": "stair_up_step", "line": 2, "column": 3, "source": str(f)},
                                             {"name": "outer", "line": 5, "column": 3, "source": str(f)}]
    code, _, err = cli("script", "run", str(f), "--scenario", FLAT)
    assert code == 1 and f"  in stair_up_step, called at {f}:2:3\n  in outer, called at {f}:5:3" in err


def test_script_check_reports_file_line_col(tmp_path: Path) -> None:
    f = tmp_path / "F.cs"
    f.write_text('log("a"); dgi(f1);\n')
    code, _, err = cli("script", "check", str(f))
    assert code == 1 and f"{f}:1:11: unknown_command" in err and "did you mean 'dig'" in err
    f.write_text('log("a");\n')
    assert cli("script", "check", str(f))[0] == 0


def test_fn_lifecycle(tmp_path: Path) -> None:
    v1, v2 = tmp_path / "v1.cs", tmp_path / "v2.cs"
    v1.write_text('log("v1", h);\n')
    v2.write_text('repeat(h) { build_up("dirt"); }\nlog("built");\n')
    code, out, _ = cli("fn", "create", "tower", "--body-file", str(v1), "--arg", "h:int", "--json")
    assert code == 0 and json.loads(out)["version"] == 1
    assert json.loads(cli("fn", "edit", "tower", "--body-file", str(v2), "--json")[1])["version"] == 2
    versions = json.loads(cli("fn", "versions", "tower", "--json")[1])["versions"]
    assert [v["version"] for v in versions] == [2, 1] and versions[1]["change_summary"] == "Initial version"
    listed = json.loads(cli("fn", "list", "--json")[1])["functions"]
    assert listed[0]["name"] == "tower" and listed[0]["current_version"] == 2
    assert json.loads(cli("fn", "show", "tower", "--json")[1])["body"] == v2.read_text()
    code, out, _ = cli("script", "run", "-e", "tower(h:3);", "--scenario", FLAT, "--give", "dirt:3", "--json")
    data = json.loads(out)
    assert code == 0 and [e["text"] for e in data["logs"] if e["kind"] == "log"] == ["built"]
    assert data["position"][1] == 67.0
    assert cli("script", "run", "-e", "tower(3);", "--scenario", FLAT)[0] == 1
    assert cli("fn", "delete", "tower")[0] == 0
    assert cli("fn", "versions", "tower")[0] == 1
    assert cli("fn", "create", "dig", "--body-file", str(v1))[0] == 1


def test_fn_bodies_that_do_not_parse_are_located_in_their_file_and_names_must_be_callable(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cs"
    bad.write_text('log("a");\nrepeat(n) { dig(d1) }\n')
    code, _, err = cli("fn", "create", "broken", "--body-file", str(bad), "--arg", "n:int")
    assert code == 1 and err.strip() == f"{bad}:2:21: syntax_error: missing ';' before '}}'"
    code, out, _ = cli("fn", "create", "broken", "--body-file", str(bad), "--json")
    assert code == 1 and json.loads(out)["loc"] == {"line": 2, "column": 21, "source": str(bad)}
    good = tmp_path / "good.cs"
    good.write_text('log("mine");\n')
    assert cli("fn", "create", "broken", "--body-file", str(good))[0] == 0
    code, _, err = cli("fn", "edit", "broken", "--body-file", str(bad))
    assert code == 1 and err.startswith(f"{bad}:2:21: syntax_error")
    # a core macro is called before a function of the same name, a predicate is read where a value is
    for name, what in (("build_pillar", "a core macro"), ("is_air", "a predicate"), ("has_item", "a predicate")):
        code, _, err = cli("fn", "create", name, "--body-file", str(good))
        assert code == 1 and f"function name {name!r} is {what}" in err, err


@pytest.mark.parametrize("world", ["flat", "natural"])
def test_script_run_world_picks_the_generated_world(world: str) -> None:
    from craftbt.world.scenarios.loader import world_body

    code, out, _ = cli("script", "run", "-e", "block_info(d1);", "--world", world, "--json")
    assert code == 0, out
    data = json.loads(out)
    info = next(e for e in data["logs"] if e["kind"] == "block_info")
    expected = world_body(world, 0)
    x, y, z = info["world"]
    assert info["id"] == "minecraft:" + expected.block_at(expected.position().block().offset(dy=-1)).name
    assert [x, y, z] == list(expected.position().block().offset(dy=-1))


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--geofence", "1,2", "--geofence: geofence '1,2' is not 'x1,y1,z1:x2,y2,z2'"),
    ("--profile", "nope", "--profile 'nope' is not a permission profile"),
])
def test_script_run_bad_options_are_usage_errors(option: str, value: str, says: str) -> None:
    result = CliRunner().invoke(app, ["script", "run", "-e", "log(1);", "--world", "flat", option, value])
    assert result.exit_code == 1 and says in result.stderr + str(result.exception)  # not 3, a craftbt bug


def test_script_run_unknown_world_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["script", "run", "-e", "log(1);", "--world", "mars"])
    assert result.exit_code != 0
    assert "unknown world 'mars'" in result.stderr + str(result.exception)


def test_script_logs_and_trace_read_a_finished_run_back() -> None:
    code, out, _ = cli("script", "run", "-e", 'log("go"); place("dirt", 2, 64, 0); goto(3, 64, 3, tol: 1);\n'
                       'dig(2, 64, 0);', "--scenario", FLAT, "--give", "dirt:1", "--json")
    assert code == 0, out
    run_id = json.loads(out)["run_id"]
    code, out, _ = cli("script", "logs", run_id, "--json")
    logs = json.loads(out)
    assert code == 0 and logs["job_id"] == run_id and logs["status"] == "completed" and logs["error"] is None
    assert [e["op"] for e in logs["logs"] if e["kind"] == "ok"] == ["log", "place", "goto", "dig"]
    code, out, _ = cli("script", "trace", run_id[:10], "--json")  # a unique prefix, as craftbt show takes
    trace = json.loads(out)
    assert code == 0 and trace["total_changes"] == 2
    assert [(c["action"], c["x"], c["y"], c["z"], c["block_id"], c["command"]) for c in trace["changes"]] == [
        ("placed", 2, 64, 0, "minecraft:dirt", "place"), ("destroyed", 2, 64, 0, "minecraft:dirt", "dig")]
    assert [m["to"] for m in trace["movement"]] == [[3, 64, 3]]
    result = CliRunner().invoke(app, ["script", "trace", "run-nosuchrun"])
    assert result.exit_code == 1 and "no script run 'run-nosuchrun'" in result.stderr + str(result.exception)


def test_a_run_stopped_by_its_budget_is_a_located_failure_that_keeps_what_it_did(tmp_path: Path) -> None:
    f = tmp_path / "slow.cs"
    f.write_text('place("dirt", 2, 64, 0);\nlog("placed");\n  wait(600000);\nlog("never");\n')
    code, out, _ = cli("script", "run", str(f), "--scenario", FLAT, "--give", "dirt:1", "--max-ticks", "200",
                       "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "failed"
    assert data["error"]["error"] == "budget_exhausted" and data["error"]["op"] == "wait"
    assert data["error"]["loc"] == {"line": 3, "column": 3, "source": str(f)}
    assert "called_from" not in data["error"]["notes"]
    assert [c["pos"] for c in data["block_changes"]] == [[2, 64, 0]]
    assert [e["text"] for e in data["logs"] if e["kind"] == "log"] == ["placed"]
    code, _, err = cli("script", "run", str(f), "--scenario", FLAT, "--give", "dirt:1", "--max-ticks", "200")
    assert code == 1 and f"{f}:3:3: budget_exhausted" in err
    logs = json.loads(cli("script", "logs", data["run_id"], "--json")[1])
    assert logs["error"]["loc"]["line"] == 3 and logs["logs"][-1]["kind"] == "fail"
    code, out, _ = cli("script", "run", "-e", "macro slow() {\n  wait(600000);\n}\nslow();", "--scenario", FLAT,
                       "--max-ticks", "200", "--json")
    error = json.loads(out)["error"]
    assert code == 1 and error["loc"] == {"line": 2, "column": 3, "source": "<eval>"}
    assert error["notes"]["called_from"] == [{"name": "slow", "line": 4, "column": 1, "source": "<eval>"}]
