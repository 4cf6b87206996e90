"""Where a ``subtree:`` may read from: the including file's folder, the library, and the tree-path roots.

A tree file comes from people and from LLMs, so a subtree path is a request to
read a file, checked before anything is opened: absolute paths and ``..``
that climbs out of a root are refused, and so is a file whose real location
(symlinks followed) lies outside the root it was found under. Roots are the
including file's folder, ``trees/library/``, the folders in
``CRAFTBT_TREE_PATH`` (``os.pathsep``-separated) and those given with
``--tree-path``. Only ``stat`` is used on a candidate; reading it is the
caller's business once this module has said yes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

LIBRARY_DIR = Path(__file__).resolve().parent / "library"
ENV_VAR = "CRAFTBT_TREE_PATH"

#: roots given on the command line (``--tree-path``), searched after the library and before the environment
_cli_roots: list[Path] = []


def set_tree_path(paths: list[Path]) -> None:
    """The ``--tree-path`` roots of this process (the CLI sets them once per command)."""
    _cli_roots[:] = [Path(p) for p in paths]


def tree_roots(base_dir: Path | None) -> list[Path]:
    """Every folder a subtree of a file in ``base_dir`` may come from, in search order."""
    roots = [base_dir] if base_dir is not None else []
    roots.append(LIBRARY_DIR)
    roots.extend(_cli_roots)
    roots.extend(Path(p) for p in os.environ.get(ENV_VAR, "").split(os.pathsep) if p.strip())
    return roots


def library_names() -> list[str]:
    """The trees shipped in the library, by name (``obtain_wooden_pickaxe``)."""
    return sorted(p.stem for p in LIBRARY_DIR.glob("*.yaml"))


def library_file(name: str) -> Path | None:
    """The library tree called ``name`` (``obtain_wooden_pickaxe`` or ``obtain_wooden_pickaxe.yaml``), or None."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    path = LIBRARY_DIR / (name if name.endswith((".yaml", ".yml", ".json")) else f"{name}.yaml")
    return path if path.is_file() else None


def tree_argument(path: Path) -> Path:
    """A tree named on the command line: the file when it exists, else the library tree of that name, else
    ``path`` unchanged (reading it then says the file is missing)."""
    if path.exists():
        return path
    return library_file(str(path)) or path


@dataclass(frozen=True)
class Resolved:
    """Where a subtree path leads: ``path`` (found inside a root), else ``refusal`` (why not), else neither."""

    path: Path | None = None
    refusal: str | None = None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve(target: str, base_dir: Path | None) -> Resolved:
    """Check ``target`` against the roots without opening anything."""
    if not target.strip():
        return Resolved()
    if target.startswith(("/", "\\", "~")) or Path(target).is_absolute() or Path(target).drive:
        return Resolved(refusal=f"absolute subtree path {target!r} is refused; name a file relative to the "
                                "including file, the library or a --tree-path root")
    normal = os.path.normpath(target.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return Resolved(refusal=f"subtree path {target!r} climbs out of its root with '..'")
    refusal: str | None = None
    for root in tree_roots(base_dir):
        candidate = root / normal
        if not candidate.is_file():  # stat only
            continue
        real_root = root.resolve()
        if not _inside(candidate.resolve(), real_root):
            refusal = refusal or f"subtree {target!r} under {root} is a symlink to a file outside that root"
            continue
        return Resolved(path=Path(os.path.normpath(candidate)))
    return Resolved(refusal=refusal)
