"""One definition of a failed step (``executor.journal.StepOutcome``): ``runs``, ``show``, ``sla`` and the HTTP
API count the same failures of the same runs, and ``craftbt.run_steps`` returns them typed.

Two real runs: ``obtain_stone_pickaxe`` succeeds with one step the tree moved on from (``move_to#11``,
interrupted: not a failure), and a tree whose first leaf truly fails (no diamond ore in reach) inside a
``failure_is_success``, so the run succeeds with one failed step.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from craftbt import StepRecord, run_steps
from craftbt.capabilities.spec import Verdict
from craftbt.cli import app
from craftbt.executor.journal import StepOutcome
from tests.servekit import app_for, bot

ROOT = Path(__file__).resolve().parents[1]
FAILING = """\
tree: one_failed_step
root:
  sequence:
    children:
      - failure_is_success:
          child:
            leaf: find_resource
            args: {blockType: diamond_ore, radius: 4, maxResults: 1, store_as: found}
      - leaf: chat
        args: {message: done}
"""


def test_runs_show_sla_and_the_api_agree_on_failed_steps(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CRAFTBT_HOME": str(home)}
    runner = CliRunner()
    tree = tmp_path / "fail.yaml"
    tree.write_text(FAILING, encoding="utf-8")
    for path in (ROOT / "trees" / "library" / "obtain_stone_pickaxe.yaml", tree):
        done = runner.invoke(app, ["run", str(path), "--quiet"], env=env)
        assert done.exit_code == 0, done.output
    runs = json.loads(runner.invoke(app, ["runs", "--json"], env=env).stdout)
    by_runs = {r["tree_name"]: r["failures"] for r in runs}
    assert by_runs == {"obtain_stone_pickaxe": 0, "one_failed_step": 1}
    by_show = {}
    for r in runs:
        detail = json.loads(runner.invoke(app, ["show", r["run_id"], "--json"], env=env).stdout)
        marks = [s["outcome"] for s in detail["steps"]]
        assert detail["failures"] == marks.count("failed")
        by_show[detail["tree_name"]] = detail["failures"]
        if detail["tree_name"] == "obtain_stone_pickaxe":
            assert "interrupted" in marks  # move_to#11: the tree moved on; not a failure
    assert by_show == by_runs
    sla = json.loads(runner.invoke(app, ["sla", "--format", "json"], env=env).stdout)
    by_capability = {row["key"]: row["failures"] for row in sla["capabilities"]}
    assert sum(by_capability.values()) == sum(by_runs.values()) == 1
    assert by_capability["find_resource@1.0.0"] == 1 and by_capability.get("move_to@1.0.0", 0) == 0
    with TestClient(app_for(bot(home, scenario=None))) as client:
        listed = client.get("/api/runs").json()["runs"]
        assert {r["tree_name"]: r["failures"] for r in listed} == by_runs
        for r in listed:
            assert client.get(f"/api/runs/{r['run_id']}").json()["journal"]["failures"] == by_runs[r["tree_name"]]
    # the Python API reads the same steps typed: the same outcome per step, the verdict an enum
    for r in runs:
        steps = run_steps(r["run_id"], home=home)
        assert all(isinstance(s, StepRecord) for s in steps)
        assert [s.outcome for s in steps].count(StepOutcome.FAILED) == by_runs[r["tree_name"]]
        if r["tree_name"] == "one_failed_step":
            assert [s.capability for s in steps] == ["find_resource", "chat"]
            assert steps[0].ok is False and steps[0].error_code and steps[1].verdict is Verdict.VERIFIED
