"""The public API as a user meets it: the guide's code runs, beside files named like craftbt's internals."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import craftbt

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "python-api.md"
#: what a bot author's own project may hold: files named like craftbt's internal packages
SHADOWS = {
    "world.py": "raise RuntimeError('the user world.py was imported')\n",
    "router.py": "raise RuntimeError('the user router.py was imported')\n",
    "executor.py": "raise RuntimeError('the user executor.py was imported')\n",
    "capabilities.py": "raise RuntimeError('the user capabilities.py was imported')\n",
    "trees/__init__.py": "raise RuntimeError('the user trees package was imported')\n",
}


def guide_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)


def shadowed_folder(tmp_path: Path) -> Path:
    for name, text in SHADOWS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


#: the folder holding the craftbt this test imported (a checkout, or site-packages): the script runs that one
UNDER_TEST = str(Path(craftbt.__file__).resolve().parents[1])


def run_script(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CRAFTBT_HOME": str(cwd / ".home"), "PYTHONPATH": UNDER_TEST}
    (cwd / "script.py").write_text(code, encoding="utf-8")
    # `python script.py` puts the script's folder first on sys.path (before PYTHONPATH), as for a user's bot, so
    # the user's world.py and trees/ still come first: an internal bare import of them would find the user's
    return subprocess.run([sys.executable, "script.py"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_guide_has_code() -> None:
    assert len(guide_blocks()) >= 5


@pytest.mark.parametrize("index", range(len(guide_blocks())))
def test_guide_block_runs_beside_shadowing_files(index: int, tmp_path: Path) -> None:
    done = run_script(guide_blocks()[index], shadowed_folder(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_public_names_are_exported_and_typed() -> None:
    assert sorted(craftbt.__all__) == sorted(set(craftbt.__all__))
    for name in craftbt.__all__:
        assert hasattr(craftbt, name), name
    assert (Path(craftbt.__file__).parent / "py.typed").is_file()
    assert set(craftbt._EXPORTS) == set(craftbt.__all__) - {"__version__"}


def test_importing_a_low_layer_does_not_load_the_others() -> None:
    """The CLI installs its signal handlers through craftbt.core before any command is imported."""
    code = "import sys, craftbt.core.signals; print(sorted(m for m in sys.modules if m.startswith('craftbt.')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    loaded = done.stdout
    assert "craftbt.core.signals" in loaded
    for heavy in ("craftbt.executor", "craftbt.router", "craftbt.trees", "craftbt.world"):
        assert f"'{heavy}" not in loaded, heavy


def test_version_has_one_source() -> None:
    from importlib.metadata import version

    assert version("craftbt") == craftbt.__version__
    done = subprocess.run([sys.executable, "-m", "craftbt", "--version"], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == f"craftbt {craftbt.__version__}"


def test_library_tree_names_what_is_shipped() -> None:
    assert craftbt.library_tree("obtain_wooden_pickaxe").is_file()
    with pytest.raises(craftbt.CraftbtError) as info:
        craftbt.library_tree("no_such_tree")
    assert "obtain_wooden_pickaxe" in info.value.problems[0].message
