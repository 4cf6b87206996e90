"""``craftbt eval --body mineflayer`` end to end: one goal on one natural seed, on the embedded world and on
flying-squid serving that world (started by the episode itself), reported side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.cli import app
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES
from tests.e2e.squidkit import skip_without_node

pytestmark = pytest.mark.e2e


def test_eval_runs_the_goal_on_the_server_beside_the_embedded_world(tmp_path: Path) -> None:
    skip_without_node(BODY_PACKAGES + SERVER_PACKAGES)
    args = ["eval", "--body", "mineflayer", "--world", "natural", "--goals", "obtain wooden_pickaxe", "--seeds", "1",
            "--max-ticks", "6000", "--out", str(tmp_path / "out")]
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert report["ran"] == 2
    assert report["side_by_side"] == [{"goal": "obtain wooden_pickaxe", "seed": 1, "planner": "auto",
                                       "world": "natural", "embedded": "success", "server": "success"}]
    assert report["agreement"]["server_share"] == 1.0
    assert {c["world"] for c in report["cells"]} == {"natural", "natural@server"}
    again = CliRunner().invoke(app, args)  # resumed: nothing runs again, the same table is printed
    assert again.exit_code == 0, again.output
    assert "0 episodes run" in again.output and "2 already done" in again.output
    assert "the server succeeded in 1 of the 1 episodes the embedded world succeeded in: 100%" in again.output
