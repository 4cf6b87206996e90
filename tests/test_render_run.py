"""`craftbt render --run`: a finished run drawn from the journal, each node in the status it ended in."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.cli import app
from craftbt.trees.render import STATUS_FILL

TREES = Path(__file__).resolve().parent / "corpus"


def _fills(dot: str) -> dict[str, str]:
    """dot node label's first line -> fill colour."""
    out: dict[str, str] = {}
    for name, attrs in re.findall(r'^"?([^"\n\[]+?)"?\s*\[(.*?)\];$', dot, flags=re.M):
        fill = re.search(r'fillcolor="([^"]+)"', attrs)
        if fill:
            out[name.strip().split("\\n")[0].removeprefix("Ⓜ ")] = fill.group(1)
    return out


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    return tmp_path


def _run(tree: Path, runner: CliRunner) -> str:
    done = runner.invoke(app, ["run", str(tree), "--json"])
    return str(json.loads(done.stdout)["run_id"])


def test_a_failed_leaf_is_red_and_the_ones_it_stopped_stay_grey(home: Path, tmp_path: Path) -> None:
    tree = tmp_path / "t.yaml"
    tree.write_text(
        "tree: two_steps\nversion: 1\nroot:\n  sequence:\n    name: both\n    children:\n"
        "      - leaf: chat\n        name: hello\n        args: {message: hi}\n"
        "      - leaf: craft_recipe\n        name: impossible\n        args: {recipe: diamond_pickaxe, qty: 1}\n"
        "      - leaf: chat\n        name: never\n        args: {message: unreachable}\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    run_id = _run(tree, runner)
    drawn = runner.invoke(app, ["render", "--run", run_id, "-f", "dot"])
    assert drawn.exit_code == 0, drawn.output
    fills = _fills(drawn.stdout)
    assert fills["hello"] == STATUS_FILL["SUCCESS"]
    assert fills["impossible"] == STATUS_FILL["FAILURE"]
    assert fills["never"] == STATUS_FILL["INVALID"]
    assert fills["both"] == STATUS_FILL["FAILURE"]
    text = runner.invoke(app, ["render", "--run", run_id, "-f", "unicode"]).stdout
    assert "hello" in text and "✓" in text and "✕" in text


def test_render_needs_exactly_one_of_file_or_run(home: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["render"]).exit_code == 1
    missing = runner.invoke(app, ["render", "--run", "run-nope"])
    assert missing.exit_code == 1
    assert "no run 'run-nope'" in missing.output
