"""Reports people read: the SLA page's charts have labelled axes, counts and times; the executor table is
in human units; ``render -f html`` is the viewer's interactive drawing."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig, scenario_fence
from craftbt.executor.executor import Executor
from craftbt.executor.sla import build_report, executor_rows, human_ms, render_html
from craftbt.trees.loader import load_path
from craftbt.trees.render import render
from craftbt.world.scenarios.loader import world_body
from tests.test_html_escaping import HOSTILE, hostile_tree

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CRAFTBT_CHROMIUM", "/usr/bin/chromium")


def test_human_units() -> None:
    assert [human_ms(v) for v in (None, 850, 12_500, 200_000, 7_500_000)] == [
        "—", "850 ms", "12.5 s", "3 min 20 s", "2 h 05 min"]


def test_sla_charts_have_axes_counts_and_times(tmp_path: Path) -> None:
    body = world_body("starter", 0)
    executor = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body)), home=tmp_path)
    tree = ROOT / "trees" / "library" / "obtain_stone_pickaxe.yaml"
    definition = load_path(tree).definition
    assert definition is not None
    assert executor.run(definition, base_dir=tree.parent).ok
    report = build_report(executor.journal)
    page = render_html(report)
    crafting = next(r for r in report["capabilities"] if r["key"].startswith("craft_recipe"))
    index = report["capabilities"].index(crafting)
    histogram = re.search(rf'<svg class="chart histogram" id="dur-{index}".*?</svg>', page)
    assert histogram is not None
    chart = histogram.group(0)
    assert ">step duration</text>" in chart and ">steps</text>" in chart  # both axes say what they measure
    counts = [int(c) for c in re.findall(r'<text class="count"[^>]*>(\d+)</text>', chart)]
    assert sum(counts) == crafting["attempts"]  # every bar carries its count
    assert re.search(r">\d+ ms</text>", chart)  # x ticks in time units
    timeline = re.search(rf'<svg class="chart timeline" id="ok-{index}".*?</svg>', page)
    assert timeline is not None
    assert ">when the step ended</text>" in timeline.group(0) and ">success so far</text>" in timeline.group(0)
    assert len(re.findall(r">\d\d:\d\d:\d\d</text>", timeline.group(0))) == 4  # a clock on the time axis
    rows = dict(executor_rows(report["executor"]))
    assert rows["runs by status"] == "success 1" and rows["game time run"].endswith(" s")
    assert not re.search(r"\d\.\d{5,}", page) and "{'" not in page  # no raw floats or Python reprs


@pytest.mark.slow
def test_render_html_is_the_viewers_drawing_and_names_stay_text(tmp_path: Path) -> None:
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    page_file = tmp_path / "tree.html"
    text = render(hostile_tree(), "html", default_registry())
    assert isinstance(text, str)
    page_file.write_text(text, encoding="utf-8")
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"], headless=True)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 600})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(page_file.as_uri())
            titles = page.eval_on_selector_all("g.node title", "ts => ts.map(t => t.textContent)")
            assert len(titles) == 3 and titles[0] == HOSTILE[0]  # the name, whole, as text
            assert page.query_selector("img") is None and page.evaluate("typeof alert") == "function"
            assert page.query_selector_all("script") and len(page.query_selector_all("script")) == 2
            before = page.eval_on_selector("g.viewport", "g => g.getAttribute('transform')")
            page.click("#zoomin")
            assert page.eval_on_selector("g.viewport", "g => g.getAttribute('transform')") != before
            page.click('g.node[data-id="n0"]')  # the root's fold: its children hide
            # the fold redraws on the next animation frame: wait for it (bounded), then count
            page.wait_for_function("() => [...document.querySelectorAll('g.node')]"
                                   ".some(g => g.getAttribute('display') === 'none')", timeout=5000)
            hidden = page.eval_on_selector_all("g.node", "gs => gs.filter(g => g.getAttribute('display') === 'none')"
                                                         ".length")
            assert hidden == 2
        finally:
            browser.close()
    assert not errors, errors
