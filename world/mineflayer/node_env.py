"""Locate Node and the project's ``node_modules`` (mineflayer, pathfinder, flying-squid).

Both the bridge (the body) and the flying-squid subprocess (the test server)
load packages by absolute path from the directory found here, so nothing
depends on the current working directory and nothing is ever installed on
the fly.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: Packages the body and the test server need, as pinned in package.json.
BODY_PACKAGES = ("mineflayer", "mineflayer-pathfinder", "minecraft-data")
SERVER_PACKAGES = ("flying-squid",)

ENV_NODE_MODULES = "CRAFTBT_NODE_MODULES"

PACKAGE_DIR = Path(__file__).resolve().parent


def find_node_modules() -> Path | None:
    """The ``node_modules`` directory to load from, or None if there is none.

    Order: ``$CRAFTBT_NODE_MODULES``, then the nearest ``node_modules`` above
    this package (the checkout), then above the current directory.
    """
    explicit = os.environ.get(ENV_NODE_MODULES)
    if explicit:
        path = Path(explicit).expanduser().resolve()
        return path if path.is_dir() else None
    for start in (PACKAGE_DIR, Path.cwd().resolve()):
        for parent in (start, *start.parents):
            candidate = parent / "node_modules"
            if (candidate / "mineflayer").is_dir() or (candidate / "flying-squid").is_dir():
                return candidate
    return None


def node_binary() -> str | None:
    return os.environ.get("NODE_BIN") or shutil.which("node")


def missing_packages(packages: tuple[str, ...]) -> list[str]:
    """Which of ``packages`` cannot be loaded; every one when Node or node_modules is absent."""
    if node_binary() is None:
        return ["node", *packages]
    root = find_node_modules()
    if root is None:
        return list(packages)
    return [p for p in packages if not (root / p / "package.json").is_file()]


def setup_hint(missing: list[str]) -> str:
    return (
        f"missing {', '.join(missing)}; run `npm ci` in the checkout (package.json pins them) "
        f"or set {ENV_NODE_MODULES} to a node_modules directory that has them"
    )
