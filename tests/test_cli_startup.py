"""The command line starts at once: a command's module loads only when that command runs.

``craftbt --version`` / ``--help`` load no leaf, tree or planner; ``craftbt validate`` loads no planner,
executor, simulator, server, Ray, FastAPI or numpy. The root help's summaries (``COMMANDS``) are the
commands' own, and every command a module registers is listed there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import typer
from typer.core import TyperGroup

from craftbt.cli import root

ROOT = Path(__file__).resolve().parent.parent

#: what ``validate`` has no use for (the top package name, or a craftbt room)
HEAVY = ("ray", "fastapi", "numpy", "uvicorn", "starlette", "networkx", "craftbt.planners", "craftbt.executor",
         "craftbt.router", "craftbt.world.sim", "craftbt.serve", "craftbt.evaluation", "craftbt.autonomy")


def _modules_after(argv: list[str]) -> tuple[int, list[str]]:
    """Run the command line on ``argv`` in a fresh interpreter; its exit code and every module it imported."""
    code = (
        "import json, sys\n"
        "from craftbt.cli.root import run\n"
        f"code = run({argv!r})\n"
        "print('MODULES=' + json.dumps(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False, timeout=120)
    line = next(x for x in done.stdout.splitlines() if x.startswith("MODULES="))
    return done.returncode, json.loads(line.removeprefix("MODULES="))


def _loaded(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


def test_validate_imports_no_planner_server_or_numpy() -> None:
    code, modules = _modules_after(["validate", "trees/library/greet.yaml"])
    assert code == 0
    assert "craftbt.trees.validate" in modules  # it did validate
    assert _loaded(modules, HEAVY) == []


def test_version_and_help_load_only_the_command_line() -> None:
    for argv in (["--version"], ["--help"]):
        code, modules = _modules_after(argv)
        assert code == 0
        extra = [m for m in _loaded(modules, ("craftbt",))
                 if m not in ("craftbt", "craftbt._version", "craftbt.cli", "craftbt.cli.root",
                              "craftbt.cli.help_format")
                 and not m.startswith("craftbt.core")]
        assert extra == [], argv
        assert _loaded(modules, ("pydantic", "py_trees", "rich.markdown")) == [], argv


def test_every_registered_command_is_listed_with_its_own_summary() -> None:
    scratch = typer.Typer()
    modules = sorted({m for entry in root.COMMANDS.values() for m in entry.modules})
    import importlib

    for module in modules:
        importlib.import_module(f"craftbt.cli.{module}").register(scratch)
    group = typer.main.get_group(scratch)
    assert sorted(group.commands) == sorted(root.COMMANDS)
    for name, entry in root.COMMANDS.items():
        command = root.load_command(name)
        assert command is not None
        assert command.get_short_help_str(limit=1000) == entry.summary, name
        assert set(entry.modules) >= {m for m in modules if name in _names(m)}, name


def _names(module: str) -> set[str]:
    import importlib

    app = typer.Typer()
    importlib.import_module(f"craftbt.cli.{module}").register(app)
    group = typer.main.get_group(app)
    assert isinstance(group, TyperGroup)
    return set(group.commands)


def test_an_unknown_command_is_a_usage_error() -> None:
    from tests.clikit import cli

    done = cli(["frobnicate"])
    assert done.code == 2 and "frobnicate" in done.err
