"""The package installs beside other code: ranges, not pins; extras for what not every user needs; the core
ticks trees and plans goals with no extra installed; a missing extra names the pip command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from craftbt.cli.root import run
from craftbt.core import extras

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
LOCK = ROOT / "requirements" / "lock.txt"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")


def test_runtime_requirements_are_ranges_not_pins() -> None:
    for requirement in PROJECT["dependencies"] + [r for group in PROJECT["optional-dependencies"].values()
                                                  for r in group]:
        assert "==" not in requirement, requirement


def test_the_lock_pins_every_requirement_of_every_extra() -> None:
    pinned = {_name(line.split("==")[0]) for line in LOCK.read_text(encoding="utf-8").splitlines()
              if "==" in line and not line.startswith("#")}
    wanted = {_name(r) for r in PROJECT["dependencies"]}
    wanted |= {_name(r) for group in PROJECT["optional-dependencies"].values() for r in group}
    assert wanted - {"craftbt"} <= pinned, sorted(wanted - pinned)


def test_each_extra_brings_the_modules_the_code_asks_it_for() -> None:
    groups = PROJECT["optional-dependencies"]
    for extra, modules in extras.MODULES.items():
        names = {_name(r) for r in groups[extra.value]}
        for inner in [r for r in groups[extra.value] if r.startswith("craftbt[")]:
            for sub in inner[len("craftbt["):-1].split(","):
                names |= {_name(r) for r in groups[sub]}
        assert set(modules) <= names, (extra, modules, names)


def test_a_missing_extra_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(extras, "missing_modules", lambda extra: ["fastapi"])
    assert run(["serve", "--port", "1"]) == 1
    err = capsys.readouterr().err
    assert "missing_extra" in err and "pip install 'craftbt[serve]'" in err and "Traceback" not in err


BLOCKED = ("fastapi", "uvicorn", "websockets", "mcp", "starlette", "ray", "numpy")
CORE_ONLY = f"""
import sys
BLOCKED = {BLOCKED!r}
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Block())
import craftbt
from craftbt.cli.root import run
out = craftbt.run_tree(craftbt.library_tree("obtain_wooden_pickaxe"), craftbt.starter_world(seed=0))
assert out.status == "success", out
plan = craftbt.plan_goal("obtain wooden_pickaxe", craftbt.starter_world(seed=0))
assert plan.plan.tree.root is not None and plan.chosen, plan
assert run(["run", "obtain_wooden_pickaxe", "--world", "flat"]) in (0, 1)
assert run(["--help"]) == 0
code = run(["run", "obtain_wooden_pickaxe", "--world", "natural"])
assert code == 1, code
print("core ok")
"""


def test_the_core_runs_trees_and_plans_without_any_extra(tmp_path: Path) -> None:
    env = {**os.environ, "CRAFTBT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CORE_ONLY], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "core ok" in done.stdout
    assert "pip install 'craftbt[natural]'" in done.stderr
