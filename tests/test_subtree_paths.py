"""Tree files read only where they should: subtree paths stay inside the allowed roots, refused unopened."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from craftbt.capabilities.default import default_registry
from craftbt.cli.root import app
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees.paths import ENV_VAR, set_tree_path
from craftbt.trees.validate import validate_path

LEAF = "tree: {name}\nroot:\n  sequence:\n    children:\n      - leaf: wait\n        args: {{ms: 50}}\n"


def including(folder: Path, target: str, name: str = "main.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"tree: main\nroot:\n  sequence:\n    children:\n      - subtree: {target}\n", encoding="utf-8")
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A tree file outside every root that nobody may read (mode 000)."""
    path = tmp_path / "outside" / "secret.yaml"
    path.parent.mkdir()
    path.write_text(LEAF.format(name="secret"), encoding="utf-8")
    path.chmod(0)
    return path


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file opened from now on (root can read a mode-000 file, so watch the opens too)."""
    seen: list[str] = []
    real_open = io.open

    def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(os.fspath(file) if isinstance(file, str | os.PathLike) else str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", spy)
    monkeypatch.setattr("builtins.open", spy)
    return seen


@pytest.fixture(autouse=True)
def _no_extra_roots(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv(ENV_VAR, raising=False)
    set_tree_path([])
    yield
    set_tree_path([])


def refusals(path: Path) -> list[Any]:
    checked = validate_path(path, default_registry())
    return [p for p in checked.problems if p.code is ErrorCode.SUBTREE_OUTSIDE_ROOTS]


def test_absolute_path_is_refused_located_and_never_opened(tmp_path: Path, secret: Path, opened: list[str]) -> None:
    main = including(tmp_path / "trees", str(secret))
    [problem] = refusals(main)
    assert problem.location.line == 5 and problem.location.file == str(main)
    assert "absolute" in problem.message
    assert not any(f.endswith("secret.yaml") for f in opened), opened


def test_etc_passwd_is_refused(tmp_path: Path, opened: list[str]) -> None:
    [problem] = refusals(including(tmp_path, "/etc/passwd"))
    assert "absolute" in problem.message and "/etc/passwd" not in opened


def test_dotdot_escape_is_refused_unopened(tmp_path: Path, secret: Path, opened: list[str]) -> None:
    main = including(tmp_path / "trees", "../outside/secret.yaml")
    [problem] = refusals(main)
    assert "'..'" in problem.message and not any(f.endswith("secret.yaml") for f in opened)
    assert refusals(including(tmp_path / "trees", "../../../../etc/hostname", "b.yaml"))


def test_symlink_out_of_the_root_is_refused_unopened(tmp_path: Path, secret: Path, opened: list[str]) -> None:
    folder = tmp_path / "trees"
    folder.mkdir()
    (folder / "link.yaml").symlink_to(secret)
    [problem] = refusals(including(folder, "link.yaml"))
    assert "symlink" in problem.message and not any(f.endswith(("secret.yaml", "link.yaml")) for f in opened)


def test_inside_paths_and_tree_path_roots_still_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "trees"
    (folder / "parts").mkdir(parents=True)
    (folder / "parts" / "p.yaml").write_text(LEAF.format(name="p"), encoding="utf-8")
    assert validate_path(including(folder, "parts/../parts/p.yaml"), default_registry()).ok
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "s.yaml").write_text(LEAF.format(name="s"), encoding="utf-8")
    main = including(folder, "s.yaml", "uses_shared.yaml")
    assert not validate_path(main, default_registry()).ok  # not a root yet
    monkeypatch.setenv(ENV_VAR, str(shared))
    assert validate_path(main, default_registry()).ok
    monkeypatch.delenv(ENV_VAR)
    set_tree_path([shared])
    assert validate_path(main, default_registry()).ok
    assert validate_path(Path(__file__).parents[1] / "trees/library/obtain_stone_pickaxe.yaml",
                         default_registry()).ok  # the library includes its own files


def test_cli_run_exits_1_with_a_located_error(tmp_path: Path, secret: Path, opened: list[str]) -> None:
    main = including(tmp_path / "trees", str(secret))
    result = CliRunner().invoke(app, ["run", str(main)])
    assert isinstance(result.exception, CraftbtError)  # the entry point prints it and exits 1
    [problem] = result.exception.problems
    assert problem.code is ErrorCode.SUBTREE_OUTSIDE_ROOTS and problem.location.line == 5
    assert not any(f.endswith("secret.yaml") for f in opened)


def test_cli_validate_takes_tree_path(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "s.yaml").write_text(LEAF.format(name="s"), encoding="utf-8")
    main = including(tmp_path / "trees", "s.yaml")
    assert CliRunner().invoke(app, ["validate", str(main)]).exit_code == 1
    assert CliRunner().invoke(app, ["validate", str(main), "--tree-path", str(shared)]).exit_code == 0
