"""Watchers over the executor's tick hook, and the terminal view of ``craftbt run``."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import py_trees
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.capabilities.default import default_registry
from craftbt.cli import app
from craftbt.cli.watching import TerminalView, branch_text, ended_with, running_branch
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.state import RunState
from craftbt.executor.watch import attach
from craftbt.trees.loader import load_path
from craftbt.world.scenarios.loader import world_body

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "trees" / "library" / "obtain_stone_pickaxe.yaml"


class Spy:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.frames: list[str] = []

    def on_start(self, run: RunState, root: py_trees.behaviour.Behaviour, tree: str) -> None:
        self.calls.append(f"start {tree}")

    def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        self.calls.append("tick")
        if len(self.calls) == 300:  # acquire_material#8 is at work: the wooden pickaxe subtree is done
            self.frames.append(branch_text(root).plain)
            self.branch = [n.name for n in running_branch(root)]

    def on_finish(self, outcome: RunOutcome) -> None:
        self.calls.append(f"finish {outcome.status}")


class Broken(Spy):
    def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        raise RuntimeError("a view with a bug")


def _executor(tmp_path: Path, on_tick: Any = None) -> Executor:
    body = world_body("starter", 0)
    return Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path,
                    on_tick=on_tick)


def test_watchers_hear_start_ticks_and_finish_and_a_broken_one_is_dropped(tmp_path: Path) -> None:
    before: list[int] = []
    executor = _executor(tmp_path, on_tick=lambda ex, run, root: before.append(1))
    spy, broken = Spy(), Broken()
    attach(executor, spy, broken)
    definition = load_path(TREE).definition
    assert definition is not None
    outcome = executor.run(definition, base_dir=TREE.parent)
    assert outcome.ok
    assert spy.calls[0] == "start obtain_stone_pickaxe" and spy.calls[-1] == "finish success"
    assert spy.calls.count("tick") == len(before) == outcome.ticks + 1  # the callback it had is kept
    assert broken not in attach(executor).watchers  # dropped after its first error; the run went on
    # the view of the running branch: root down to the running leaf, finished siblings folded to marks
    frame = spy.frames[0]
    assert spy.branch[0] == "Get a stone pickaxe" and spy.branch[-1] == "acquire_material#8"
    assert "Get a wooden pickaxe" not in frame  # a finished subtree is one mark, not its nodes
    assert "done ✓" in frame and "to go" in frame
    assert frame.splitlines()[-1].strip().startswith("▶ acquire_material#8")


def test_the_terminal_view_draws_a_status_line(tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, height=30)
    executor = _executor(tmp_path)
    view = TerminalView(console)
    frames: list[str] = []

    class Grab(Spy):
        def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
            if isinstance(root.tip(), CapabilityBehaviour) and not frames:
                frames.append(view.render(run, root).plain)

    attach(executor, view, Grab())
    definition = load_path(TREE).definition
    assert definition is not None
    with view:
        executor.run(definition, base_dir=TREE.parent)
    status = frames[0].splitlines()[-1]
    for part in ("obtain_stone_pickaxe", "leaf acquire_material#1 (acquire_material@", "ticks", "dispatches",
                 "sim ", "wall "):
        assert part in status, status
    assert "success obtain_stone_pickaxe" in Text.from_ansi(out.getvalue()).plain  # each closed run: a line
    assert "stone_pickaxe" in ended_with(executor.inner_body)


def test_quiet_prints_one_line_and_no_live_keeps_the_summary(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"CRAFTBT_HOME": str(tmp_path)}
    quiet = runner.invoke(app, ["run", str(TREE), "--quiet"], env=env)
    assert quiet.exit_code == 0, quiet.output
    lines = [line for line in quiet.stdout.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("success run-") and "ended with" in lines[0]
    plain = runner.invoke(app, ["run", str(TREE), "--no-live"], env=env)
    assert plain.exit_code == 0 and "ended with" in plain.stdout and "simulated time" in plain.stdout


def test_a_goals_summary_gives_the_whole_goals_time_beside_its_last_runs(tmp_path: Path) -> None:
    """Natural seed 22's wooden pickaxe: a plan fails and a replan succeeds. The table said only the last run's
    time (a fishing rod that took six days printed 10.40 s); it now gives the goal's, summed over its runs."""
    from craftbt.executor.journal import Journal

    result = CliRunner().invoke(app, ["run", "--goal", "obtain wooden_pickaxe", "--world", "natural", "--seed",
                                      "22", "--no-live"], env={"CRAFTBT_HOME": str(tmp_path)})
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in result.stdout.splitlines() if line.count("│") == 3}
    journal = Journal(tmp_path / "journal.sqlite", read_only=True)
    try:
        ticks = [run["sim_ticks"] for run in sorted(journal.list_runs(100), key=lambda run: run["started_at"])]
    finally:
        journal.close()
    assert len(ticks) >= 2 and rows["goal's time"].endswith(f"over {len(ticks)} run(s) and 0 night(s)"), rows
    assert f"({sum(ticks)} ticks)" in rows["goal's time"] and f"({ticks[-1]} ticks)" in rows["last run's time"]


def test_the_python_api_takes_watchers(tmp_path: Path) -> None:
    import craftbt

    spy = Spy()
    assert isinstance(spy, craftbt.RunWatcher)
    outcome = craftbt.run_tree(str(TREE), craftbt.starter_world(seed=0), home=tmp_path, watchers=[spy])
    assert outcome.ok and spy.calls[0] == "start obtain_stone_pickaxe" and spy.calls[-1] == "finish success"
