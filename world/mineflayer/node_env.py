"""Locate Node and the project's ``node_modules`` (mineflayer, pathfinder, flying-squid).

Both the bridge (the body) and the flying-squid subprocess (the test server)
load packages by absolute path from the directory found here, so nothing
depends on the current working directory and nothing is ever installed on
the fly: ``craftbt node install`` (:mod:`node_install`) puts them under
``$CRAFTBT_HOME/node``, a checkout's ``npm ci`` beside package.json.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from craftbt.core.home import default_home

#: Packages the body and the test server need, as pinned in package.json.
BODY_PACKAGES = ("mineflayer", "mineflayer-pathfinder", "minecraft-data")
SERVER_PACKAGES = ("flying-squid",)

ENV_NODE_MODULES = "CRAFTBT_NODE_MODULES"

PACKAGE_DIR = Path(__file__).resolve().parent


def find_node_modules() -> Path | None:
    """The ``node_modules`` directory to load from, or None if there is none.

    Order: ``$CRAFTBT_NODE_MODULES``, then the nearest ``node_modules`` above
    this package (the checkout), then ``node/node_modules`` under
    ``$CRAFTBT_HOME`` (where ``craftbt node install`` puts them; ``.craftbt`` in
    the working directory without it), then above the current directory.
    """
    explicit = os.environ.get(ENV_NODE_MODULES)
    if explicit:
        path = Path(explicit).expanduser().resolve()
        return path if path.is_dir() else None
    candidates = [parent / "node_modules" for parent in (PACKAGE_DIR, *PACKAGE_DIR.parents)]
    candidates.append(default_home().resolve() / "node" / "node_modules")
    here = Path.cwd().resolve()
    candidates += [parent / "node_modules" for parent in (here, *here.parents)]
    for candidate in candidates:
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


#: the command that installs the pinned Node packages (every "missing mineflayer" message names it)
INSTALL_COMMAND = "craftbt node install"


def setup_hint(missing: list[str]) -> str:
    if "node" in missing:
        return (f"missing {', '.join(missing)}; install Node.js 20 or newer (https://nodejs.org), "
                f"then run `{INSTALL_COMMAND}`")
    return (
        f"missing {', '.join(missing)}; run `{INSTALL_COMMAND}` (the pinned versions, under $CRAFTBT_HOME/node), "
        f"or `npm ci` in a checkout, or set {ENV_NODE_MODULES} to a node_modules directory that has them"
    )
