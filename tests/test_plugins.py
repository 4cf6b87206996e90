"""User capabilities arrive through plugins (entry points or CRAFTBT_PLUGINS), exactly as the README says."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import craftbt.capabilities.default as registry_module
from craftbt.core.errors import CraftbtError, ErrorCode

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh_default(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry_module, "_default", None)
    yield
    registry_module._default = None


def test_env_plugin_registers_a_capability(fresh_default: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRAFTBT_PLUGINS", "examples.wave:register")
    assert registry_module.default_registry().get("wave").key == "wave@1.0.0"


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("examples.wave", "not 'module:attribute'"), ("examples.nope:register", "ModuleNotFoundError")],
)
def test_bad_plugin_is_a_structured_error(
    fresh_default: None, monkeypatch: pytest.MonkeyPatch, value: str, fragment: str
) -> None:
    monkeypatch.setenv("CRAFTBT_PLUGINS", value)
    with pytest.raises(CraftbtError) as info:
        registry_module.default_registry()
    assert info.value.code is ErrorCode.PLUGIN_ERROR
    assert fragment in str(info.value)


def test_cli_runs_a_tree_that_uses_a_plugin_capability(tmp_path: Path) -> None:
    env = {**os.environ, "CRAFTBT_PLUGINS": "examples.wave:register", "CRAFTBT_HOME": str(tmp_path)}
    craftbt = str(Path(sys.executable).parent / "craftbt")  # the console script: cwd is not on sys.path
    cmd = [craftbt, "run", "examples/wave.yaml", "--scenario", "flat_empty", "--json"]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"status": "success"' in done.stdout
    without = subprocess.run(
        [sys.executable, "-m", "craftbt", "validate", "examples/wave.yaml"],
        cwd=ROOT, env={**env, "CRAFTBT_PLUGINS": ""}, capture_output=True, text=True, timeout=120,
    )
    assert without.returncode == 1 and "unknown capability 'wave'" in without.stdout + without.stderr


def test_a_plugin_in_the_working_directory_loads_without_touching_sys_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from craftbt.capabilities.default import _import_plugin

    (tmp_path / "localplug_32b").mkdir()
    (tmp_path / "localplug_32b" / "__init__.py").write_text("")
    (tmp_path / "localplug_32b" / "caps.py").write_text("def register(registry):\n    return None\n")
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    try:
        module = _import_plugin("localplug_32b.caps")
        assert callable(module.register)
        assert sys.path == before
    finally:
        for name in ("localplug_32b", "localplug_32b.caps"):
            sys.modules.pop(name, None)


def test_build_up_is_a_built_in_leaf() -> None:
    from craftbt.capabilities.default import register_all
    from craftbt.capabilities.registry import Registry

    registry = Registry()
    register_all(registry)  # no plugin, no entry point
    assert registry.has("build_up") and registry.has("run_script")  # craftscript joins by reference too
