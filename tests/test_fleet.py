"""`craftbt fleet`: a shared queue of goals and trees, each item run once by some bot with its own journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from craftbt.cli import app
from craftbt.evaluation.fleet import FleetSpec, WorkItem, run_fleet
from craftbt.executor.journal import Journal

GREET = str(Path(__file__).resolve().parents[1] / "trees" / "library" / "greet.yaml")


def _items() -> list[WorkItem]:
    return [WorkItem(kind="goal", text="obtain stick"), WorkItem(kind="tree", text=GREET),
            WorkItem(kind="goal", text="obtain wooden_pickaxe")]


def test_every_item_runs_once_and_each_bot_keeps_its_own_journal(tmp_path: Path) -> None:
    results = run_fleet(FleetSpec(bots=2), _items(), tmp_path)
    assert sorted(r.item.text for r in results) == sorted(i.text for i in _items())
    assert all(r.status == "success" for r in results), [r.model_dump() for r in results]
    assert {r.bot for r in results} == {0, 1}
    for bot in (0, 1):
        journal = Journal(tmp_path / f"bot{bot}" / "journal.sqlite")
        try:
            mine = {row["run_id"] for row in journal.list_runs(50)}
        finally:
            journal.close()
        assert mine == {r.run_id for r in results if r.bot == bot}


def test_cli_reports_per_bot_and_fails_when_an_item_fails(tmp_path: Path) -> None:
    ok = CliRunner().invoke(app, ["fleet", "--bots", "2", "--tree", GREET, "--repeat", "2", "--out", str(tmp_path),
                                  "--json"])
    assert ok.exit_code == 0, ok.output
    report = json.loads(ok.stdout)
    assert sum(b["items"] for b in report["bots"]) == 2
    bad = CliRunner().invoke(app, ["fleet", "--bots", "1", "--goals", "obtain <nothing>", "--out", str(tmp_path)])
    assert bad.exit_code == 1
    none = CliRunner().invoke(app, ["fleet", "--bots", "1", "--out", str(tmp_path)])
    assert none.exit_code == 1


@pytest.mark.slow
def test_bots_as_ray_actors_share_the_queue(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    items = [WorkItem(kind="tree", text=GREET)] * 6
    results = run_fleet(FleetSpec(bots=3), items, tmp_path, workers=3)
    assert len(results) == 6 and all(r.status == "success" for r in results)
    assert {r.bot for r in results} <= {0, 1, 2} and len({r.run_id for r in results}) == 6
