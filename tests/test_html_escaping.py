"""Every HTML page craftbt writes escapes what it inserts: hostile node names never become markup."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor
from craftbt.executor.sla import build_report, render_html
from craftbt.trees import model as m
from craftbt.trees.loader import load_text
from craftbt.trees.render import render
from tests.executor_fakes import make_registry
from tests.fakes import FlatFakeBody
from tests.test_executor_core import FENCE, leaf, tree

HOSTILE = ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "\"><svg onload=alert(3)>")
#: markup a hostile name would add to a page if it were inserted raw
INJECTED = re.compile(r"<script>alert|<img src=x|<svg onload|<b onmouseover", re.IGNORECASE)


def hostile_tree() -> m.TreeDefinition:
    loaded = load_text(json.dumps({
        "tree": "hostile",
        "description": "<img src=x onerror=alert(9)>",
        "root": {"sequence": {"name": HOSTILE[0], "children": [
            {"leaf": "chat", "name": HOSTILE[1], "args": {"message": "<b onmouseover=alert(4)>hi</b>"}},
            {"leaf": "wait", "name": HOSTILE[2], "args": {"ms": 10}},
        ]}},
    }), file="hostile.json")
    assert loaded.definition is not None, loaded.problems
    return loaded.definition


def test_tree_html_escapes_node_names_and_args() -> None:
    page = render(hostile_tree(), "html", default_registry())
    assert isinstance(page, str)
    assert not INJECTED.search(page), page
    # names travel as JSON data with "<" escaped (the view puts them in with textContent); the title is escaped
    assert "\\u003cscript>alert(1)\\u003c/script>" in page and "\\u003cb onmouseover" in page
    assert "&lt;img src=x onerror=alert(9)&gt;" in page


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_tree_svg_has_no_markup_from_names() -> None:
    page = render(hostile_tree(), "svg", default_registry())
    assert isinstance(page, str) and "<svg" in page
    assert not INJECTED.search(page)
    assert "alert(1)" in page  # drawn as text


def test_tree_dot_is_not_injectable() -> None:
    dot = render(hostile_tree(), "dot", default_registry())
    assert isinstance(dot, str)
    assert "<script>" not in dot and "<svg" not in dot


def test_sla_report_escapes_node_names_and_details(tmp_path: Path) -> None:
    body = FlatFakeBody(inventory={"cobblestone": 64})
    ex = Executor(make_registry(body, flaky_failures=1), body, config=ExecutorConfig(geofence=FENCE), home=tmp_path)
    out = ex.run(tree(leaf("flaky", name=HOSTILE[0]), leaf("move", {"pos": {"x": 1, "y": 64, "z": 0}},
                                                          name=HOSTILE[1])))
    assert out.metrics["dispatches"] >= 2
    report = build_report(ex.journal, last_n=5)
    assert any(f["node"] == HOSTILE[0] for row in report["capabilities"] for f in row["last_failures"])
    page = render_html(report)
    ex.journal.close()
    assert not INJECTED.search(page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
