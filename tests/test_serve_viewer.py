"""The live viewer in headless Chromium (the system browser, driven by playwright; no browser download).

The page must show the tree's node names, turn a node to SUCCESS when the run succeeds, and
treat a hostile node name as text: nothing in it may execute.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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
            assert page.query_selector("img") is None and len(page.query_selector_all("script")) == 1
            assert page.eval_on_selector('g.node[data-id="n1"]', "g => g.getAttribute('data-status')") == "SUCCESS"
            assert "success" in (page.text_content("#runstatus") or "")
            assert not dialogs
        finally:
            browser.close()
