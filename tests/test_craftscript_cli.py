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


def test_script_run_unknown_world_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["script", "run", "-e", "log(1);", "--world", "mars"])
    assert result.exit_code != 0
    assert "unknown world 'mars'" in result.stderr + str(result.exception)
