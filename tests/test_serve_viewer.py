"""The live viewer in headless Chromium (the system browser, driven by playwright; no browser download).

The page must show the tree's node names, turn a node to SUCCESS when the run succeeds, and
treat a hostile node name as text: nothing in it may execute.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.servekit import AUTH, bot, live_server

CHROMIUM = os.environ.get("CRAFTBT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
HOSTILE = "<img src=x onerror=\"window.__pwned=1\"></script><script>window.__pwned=2</script>"

TREE = f"""\
tree: viewer_test
root:
  sequence:
    name: Viewer root
    children:
      - leaf: chat
        name: {HOSTILE!r}
        args: {{message: {HOSTILE!r}}}
      - leaf: wait
        name: Wait a little
        args: {{ms: 200}}
"""


@pytest.mark.slow
def test_the_viewer_draws_the_tree_and_recolours_it_as_it_runs(tmp_path: Path) -> None:
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set CRAFTBT_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
    with live_server(bot(tmp_path, scenario=None)) as live, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{live.url}/viewer")
            page.wait_for_function("document.getElementById('conn').textContent === 'live'", timeout=20_000)
            started = httpx.post(f"{live.url}/api/cognitive/execute", json={"tree": TREE}, headers=AUTH)
            assert started.status_code == 202, started.text
            page.wait_for_selector('g.node[data-id="n0"][data-status="SUCCESS"]', timeout=30_000)
            labels = page.eval_on_selector_all("g.node title", "els => els.map(e => e.textContent)")
            assert "Viewer root" in labels[0] and "Wait a little" in labels[2]
            assert labels[1].startswith(HOSTILE)  # shown as text, whole
            assert page.evaluate("window.__pwned") is None
            # the page's own script and the shared tree drawing (/viewer/treeview.js), nothing injected
            assert page.query_selector("img") is None and len(page.query_selector_all("script")) == 2
            assert page.eval_on_selector('g.node[data-id="n1"]', "g => g.getAttribute('data-status')") == "SUCCESS"
            assert "success" in (page.text_content("#runstatus") or "")
            assert not dialogs
        finally:
            browser.close()


ARTEFACTS = Path(__file__).resolve().parents[1] / "build" / "artifacts"
#: where the running node lies, and where the pane and the side panel are, in page pixels
WHERE = """() => {
  const id = view.runningId();
  const pane = document.getElementById("treebox").getBoundingClientRect();
  const side = document.querySelector("aside").getBoundingClientRect();
  if (id === null) return {id: null};
  const box = document.querySelector(`g.node[data-id="${id}"] rect`).getBoundingClientRect();
  return {id, box: [box.left, box.top, box.right, box.bottom], pane: [pane.left, pane.top, pane.right, pane.bottom],
          side: side.left, nodes: document.querySelectorAll("g.node").length};
}"""


def in_view(where: dict[str, Any]) -> bool:
    """Whether the running node's box lies inside the tree pane and left of the side panel."""
    left, top, right, bottom = where["box"]
    p_left, p_top, p_right, p_bottom = where["pane"]
    return bool(p_left <= left and right <= p_right and p_top <= top and bottom <= p_bottom and right <= where["side"])


@pytest.mark.slow
def test_the_viewer_follows_the_running_node_of_a_long_run(tmp_path: Path) -> None:
    """A 145-node plan: the running node stays inside the pane, never under the panel; idle, running and
    finished states are kept as screenshots (build/artifacts/viewer-*.png); the console stays clean."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; or set CRAFTBT_CHROMIUM)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (no browser download needed)")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    with live_server(bot(tmp_path, scenario=None, pace_ms=6)) as live, sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.goto(f"{live.url}/viewer")
            page.wait_for_function("document.getElementById('conn').textContent === 'live'", timeout=20_000)
            assert page.is_visible("#idle") and "No run yet" in (page.text_content("#idle") or "")
            assert "/api/cognitive/execute" in (page.text_content("#idle") or "")
            page.screenshot(path=str(ARTEFACTS / "viewer-idle.png"))
            started = httpx.post(f"{live.url}/api/cognitive/execute", headers=AUTH,
                                 json={"goal": "obtain stone_pickaxe", "planner": "htn"})
            assert started.status_code == 202, started.text
            page.wait_for_function("() => document.querySelectorAll('g.node').length >= 100", timeout=60_000)
            assert not page.is_visible("#idle")
            for _ in range(3):  # close up: the running node would leave the pane if the view did not follow it
                page.click("#zoomin")
            seen: list[str] = []
            shot = False
            while (page.text_content("#runstatus") or "").strip() not in ("success", "failure", "escalated"):
                where = page.evaluate(WHERE)
                for _ in range(5):  # a status can land between a sample and the redraw that reveals it: allow 1 s
                    if where["id"] is None or in_view(where):
                        break
                    page.wait_for_timeout(200)
                    where = page.evaluate(WHERE)
                if where["id"] is not None:
                    left, top, right, bottom = where["box"]
                    p_left, p_top, p_right, p_bottom = where["pane"]
                    assert where["nodes"] >= 100
                    assert p_left <= left and right <= p_right and p_top <= top and bottom <= p_bottom, where
                    assert right <= where["side"]  # the panel never covers it
                    seen.append(where["id"])
                    if len(set(seen)) >= 2 and not shot:
                        page.screenshot(path=str(ARTEFACTS / "viewer-running.png"))
                        shot = True
                page.wait_for_timeout(400)
            assert len(seen) >= 8 and len(set(seen)) >= 3, seen  # several moments and running nodes, each in view
            page.wait_for_selector('g.node[data-id="n0"][data-status="SUCCESS"]', timeout=30_000)
            page.wait_for_timeout(300)
            page.screenshot(path=str(ARTEFACTS / "viewer-finished.png"))
            # a finished subtree is folded to one row: far fewer rows drawn than nodes
            shown = page.eval_on_selector_all("g.node",
                                              "gs => gs.filter(g => g.getAttribute('display') !== 'none').length")
            assert shown < 40
            # the timeline's times are the events' times: a page opened now shows the run's, not its own
            late = browser.new_page()
            late.on("console",
                    lambda m: problems.append(f"late console {m.type}: {m.text}") if m.type == "error" else None)
            late.goto(f"{live.url}/viewer")
            late.wait_for_selector("#timeline time", timeout=20_000)
            first = page.eval_on_selector_all("#timeline time", "ts => ts.map(t => t.dateTime)")
            again = late.eval_on_selector_all("#timeline time", "ts => ts.map(t => t.dateTime)")
            assert again and set(again) <= set(first), (again[:3], first[:3])
        finally:
            browser.close()
    assert not problems, problems
