"""Every script in examples/ runs, from a folder outside the checkout, and its tutorial page links it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("[0-9][0-9]_*.py"))
#: the two that start services or subprocess matrices take longer than the rest
SLOW = {"09_serve_and_mcp.py", "10_evaluate_a_matrix.py"}
TUTORIALS = ROOT / "docs" / "tutorials"


def test_ten_numbered_examples_in_learning_order() -> None:
    assert [p.name[:2] for p in EXAMPLES] == [f"{i:02d}" for i in range(1, 11)]


@pytest.mark.parametrize("script", [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else [])
                                    for p in EXAMPLES])
def test_example_runs(script: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CRAFTBT_HOME": str(tmp_path / "home")}
    env.pop("CRAFTBT_MC_HOST", None)  # 08 skips cleanly without a server; the e2e suite drives a real one
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stdout.strip(), "an example says what it did"


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_each_example_has_a_tutorial_page_that_includes_it(script: Path) -> None:
    pages = list(TUTORIALS.glob(f"{script.name[:2]}-*.md"))
    assert len(pages) == 1, script.name
    assert f"examples/{script.name}" in pages[0].read_text(encoding="utf-8")
