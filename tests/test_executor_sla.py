"""SLA report (JSON contract, HTML with plots rendered in headless Chromium), lifecycle and canaries, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from craftbt.capabilities.spec import CapabilitySpec
from craftbt.cli import app
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.journal import Journal
from craftbt.executor.lifecycle import Lifecycle, Stage, promote
from craftbt.executor.sla import SCHEMA, build_report, percentile, render_html
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, tree


def populate(tmp_path: Path, runs: int = 4) -> Journal:
    body = FlatFakeBody(inventory={"cobblestone": 64})
    ex = Executor(make_registry(body, flaky_failures=1), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    for i in range(runs):
        ex.run(tree(leaf("move", {"pos": {"x": i + 1, "y": 64, "z": 0}}), leaf("flaky"),
                    leaf("place", {"item": "cobblestone", "position": {"x": i, "y": 64, "z": 3}})))
    return ex.journal


def test_percentile_nearest_rank() -> None:
    assert percentile([], 95) is None
    assert percentile([5.0], 50) == 5.0
    assert percentile([float(v) for v in range(1, 101)], 95) == 95.0


def test_sla_json_contract(tmp_path: Path) -> None:
    journal = populate(tmp_path)
    report = build_report(journal, last_n=3)
    assert report["schema"] == SCHEMA
    rows = {r["key"]: r for r in report["capabilities"]}
    assert set(rows) == {"move@1.0.0", "flaky@1.0.0", "place@1.0.0"}
    flaky = rows["flaky@1.0.0"]
    assert flaky["attempts"] == 5 and flaky["failures"] == 1 and flaky["retries"] == 1
    assert flaky["success_rate"] == pytest.approx(0.8)
    assert flaky["last_failures"][0]["code"] == "no_path"
    move = rows["move@1.0.0"]
    assert move["duration_ms"]["p50"] == 250.0 and move["ttfa_ms"]["p95"] == 0.0
    assert move["verdicts"]["verified"] == 4
    ex = report["executor"]
    assert ex["runs"] == 4 and ex["runs_by_status"] == {"success": 4}
    assert ex["local_retry_success_rate"] == 1.0 and ex["local_retries_per_run"] == pytest.approx(0.25)
    assert ex["plan_repair_rate"] == 0.0  # local retries are not plan repairs: nothing was replanned
    assert ex["steps_to_success"]["t"] == pytest.approx(13 / 4)
    assert ex["actions_per_s"] > 0
    json.dumps(report)  # serialisable
    # the journal, the golden-run reports and the SLA agree on dispatch counts
    total = sum(r["attempts"] for r in report["capabilities"])
    assert total == sum(r["summary"]["dispatches"] for r in journal.run_rows())


def test_sla_filters(tmp_path: Path) -> None:
    journal = populate(tmp_path, runs=2)
    assert [r["key"] for r in build_report(journal, capability="place")["capabilities"]] == ["place@1.0.0"]
    assert build_report(journal, since=9e12)["capabilities"] == []


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (CI installs it: apt-get install chromium)")
def test_sla_html_charts_render_in_headless_chromium(tmp_path: Path) -> None:
    journal = populate(tmp_path)
    page = tmp_path / "sla.html"
    page.write_text(render_html(build_report(journal)), encoding="utf-8")
    html = page.read_text()
    assert "http://" not in html and "https://" not in html  # self-contained: no CDN, no fetches
    browser = chromium()
    assert browser is not None
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-dev-shm-usage", "--virtual-time-budget=2000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    # 3 capabilities x 2 plots, each laid out with a non-empty bounding box by the browser
    assert 'data-charts-rendered="6"' in dom
    assert dom.count('data-rendered="true"') == 6
    assert dom.count('class="bar"') >= 3


def test_lifecycle_shadow_canary_and_promotion(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 64})
    registry = make_registry(body)
    tap = registry.get("tap")
    registry.register(CapabilitySpec(name="tap", version="1.1.0", family=tap.family, args_model=tap.args_model,
                                     runner=tap.runner, acceptance=tap.acceptance, permissions=tap.permissions))
    lifecycle = Lifecycle(tmp_path / "lifecycle.json")
    lifecycle.set("tap@1.1.0", Stage.SHADOW)
    ex = Executor(registry, body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, lifecycle=lifecycle)
    early = promote("tap@1.1.0", registry, lifecycle, ex.journal)
    assert not early.promoted and "shadow observations" in early.reasons[0]
    for _ in range(3):
        out = ex.run(tree(leaf("tap")))  # resolves to 1.1.0 (newest), rebound to the active 1.0.0
        assert out.status == "success"
    steps = ex.journal.step_rows(capability="tap")
    real = [s for s in steps if not s["shadow"]]
    canary = [s for s in steps if s["lifecycle"] == "shadow"]
    assert {s["version"] for s in real} == {"1.0.0"} and len(real) == 3
    assert {s["version"] for s in canary} == {"1.1.0"} and len(canary) == 3
    assert len(body.handles) == 3  # the canary ran on a fork: the real body saw only the active dispatches
    decision = promote("tap@1.1.0", registry, lifecycle, ex.journal)
    assert decision.promoted, decision.reasons
    assert lifecycle.stage("tap@1.1.0") is Stage.ACTIVE and lifecycle.stage("tap@1.0.0") is Stage.RETIRED


def test_promotion_refused_when_canary_is_worse(tmp_path: Path) -> None:
    body = FlatFakeBody()
    registry = make_registry(body)
    tap = registry.get("tap")
    fatal = registry.get("fatal")
    registry.register(CapabilitySpec(name="tap", version="2.0.0", family=tap.family, args_model=tap.args_model,
                                     runner=lambda ctx, args: fatal.runner(ctx, args), acceptance=tap.acceptance))
    lifecycle = Lifecycle(tmp_path / "lc.json")
    lifecycle.set("tap@2.0.0", Stage.SHADOW)
    ex = Executor(registry, body, config=ExecutorConfig(geofence=FENCE), home=tmp_path, lifecycle=lifecycle)
    for _ in range(3):
        ex.run(tree(leaf("tap")))
    decision = promote("tap@2.0.0", registry, lifecycle, ex.journal)
    assert not decision.promoted
    assert any("success rate" in r and "worse" in r for r in decision.reasons)
    assert lifecycle.stage("tap@2.0.0") is Stage.SHADOW


def test_cli_runs_show_sla(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    journal = populate(tmp_path, runs=2)
    run_id = journal.list_runs()[0]["run_id"]
    runner = CliRunner()
    listed = runner.invoke(app, ["runs", "--json"])
    assert listed.exit_code == 0 and run_id in listed.output
    shown = runner.invoke(app, ["show", run_id, "--json"])
    assert shown.exit_code == 0 and json.loads(shown.output)["run_id"] == run_id
    missing = runner.invoke(app, ["show", "run-nope"])
    assert missing.exit_code != 0
    out = tmp_path / "sla.json"
    sla = runner.invoke(app, ["sla", "--format", "json", "-o", str(out)])
    assert sla.exit_code == 0 and json.loads(out.read_text())["schema"] == SCHEMA
    bad = runner.invoke(app, ["sla", "--format", "pdf"])
    assert bad.exit_code != 0


def test_cli_capabilities_promote_is_the_lifecycle_promotion(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path))
    runner = CliRunner()
    assert runner.invoke(app, ["lifecycle", "set", "chat@1.0.0", "shadow"]).exit_code == 0
    refused = runner.invoke(app, ["capabilities", "promote", "chat@1.0.0"])
    assert refused.exit_code == 1 and "0 shadow observations" in refused.output
    unknown = runner.invoke(app, ["capabilities", "promote", "nosuch@1.0.0"])
    assert unknown.exit_code == 1 and "unknown_capability" in str(unknown.exception)  # main() prints it
    listing = runner.invoke(app, ["capabilities", "--json"])  # the group still lists without a subcommand
    assert listing.exit_code == 0 and json.loads(listing.output)["capabilities"]
