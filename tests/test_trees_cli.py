"""The tree commands through typer's CliRunner: exit codes 0/1/2, output shapes, PNG bytes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from craftbt.cli import app
from craftbt.trees.schema import tree_schema
from tests.leafkit import shared_registry

REPO = Path(__file__).resolve().parent.parent
LIB = REPO / "trees" / "library"
CORPUS = REPO / "tests" / "corpus"
runner = CliRunner()


def test_validate_accepts_the_library() -> None:
    files = [str(p) for p in sorted(LIB.rglob("*.yaml")) if "structures" not in p.parts]  # templates
    result = runner.invoke(app, ["validate", *files])
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok") == len(files)


def test_validate_rejects_broken_files_one_problem_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    result = runner.invoke(app, ["validate", "tests/corpus/unknown_leaf.yaml", "trees/library/greet.yaml"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "tests/corpus/unknown_leaf.yaml:5:9: unknown_capability: unknown capability 'craft_recpie' "
        "(at root.sequence.children[0].leaf); expected a registered capability name; did you mean 'craft_recipe'?",
        "trees/library/greet.yaml: ok",
    ]


def test_validate_json_output() -> None:
    result = runner.invoke(app, ["validate", "--json", str(CORPUS / "bad_yaml.yaml"), str(LIB / "greet.yaml")])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    first, second = report["files"]
    assert first["problems"][0]["code"] == "parse_error" and first["problems"][0]["line"] == 7
    assert second == {"file": str(LIB / "greet.yaml"), "ok": True, "problems": []}


def test_validate_missing_file_and_usage() -> None:
    missing = runner.invoke(app, ["validate", "no/such/tree.yaml"])
    assert missing.exit_code == 1
    assert "file_not_found: cannot read tree file 'no/such/tree.yaml': no such file" in missing.stdout
    assert "Traceback" not in missing.output
    assert runner.invoke(app, ["validate"]).exit_code == 2
    assert runner.invoke(app, ["render", str(LIB / "greet.yaml"), "--format", "gif"]).exit_code == 2
    assert runner.invoke(app, ["convert", str(LIB / "greet.yaml")]).exit_code == 2


def test_render_png_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "tree.png"
    result = runner.invoke(app, ["render", str(LIB / "obtain_wooden_pickaxe.yaml"), "--format", "png", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5_000


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("ascii", "craft_recipe@1.0.0 recipe={tool} qty=1"),
        ("unicode", "place_workstation@1.0.0 workstation=crafting_table"),
        ("dot", "digraph obtain_wooden_pickaxe"),
        ("svg", "<svg"),
        ("html", "<title>obtain_wooden_pickaxe</title>"),
    ],
)
def test_render_text_formats(fmt: str, needle: str) -> None:
    result = runner.invoke(app, ["render", str(LIB / "obtain_wooden_pickaxe.yaml"), "-f", fmt])
    assert result.exit_code == 0, result.output
    assert needle in result.stdout
    assert "has_item?" in result.stdout or fmt in ("svg", "dot")


def test_render_an_invalid_file_fails_cleanly() -> None:
    result = runner.invoke(app, ["render", str(CORPUS / "cycle_a.yaml")])
    assert result.exit_code == 1 and "subtree_cycle" in result.output and "Traceback" not in result.output


def test_convert_between_formats(tmp_path: Path) -> None:
    src = LIB / "obtain_wooden_pickaxe.yaml"
    xml = tmp_path / "t.xml"
    assert runner.invoke(app, ["convert", str(src), "--to", "btcpp-xml", "-o", str(xml)]).exit_code == 0
    # the XML keeps the subtree path relative to the library, so it validates from anywhere
    back = runner.invoke(app, ["convert", str(xml), "--to", "json"])
    assert back.exit_code == 0, back.output
    as_yaml = runner.invoke(app, ["convert", str(src), "--to", "yaml"])
    assert json.loads(back.stdout) == yaml.safe_load(as_yaml.stdout)
    assert json.loads(back.stdout)["root"]["sequence"]["name"] == "Get a wooden pickaxe"


def test_capabilities_table_and_manifest() -> None:
    table = runner.invoke(app, ["capabilities"])
    assert table.exit_code == 0 and "craft_recipe" in table.stdout and "checks: " in table.stdout
    manifest = json.loads(runner.invoke(app, ["capabilities", "--json"]).stdout)
    entry = next(e for e in manifest["capabilities"] if e["name"] == "chat")
    assert set(entry) >= {"name", "version", "family", "permissions", "args_schema", "timeout_ms", "retries"}


def test_schema_command_prints_the_generated_schema() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema == json.loads(json.dumps(tree_schema(shared_registry())))
    jsonschema.Draft202012Validator.check_schema(schema)
