"""``craftbt node install``: the pinned Node packages (mineflayer, pathfinder, minecraft-data,
flying-squid) for ``--body mineflayer`` and ``craftbt server start``, installed with ``npm ci``.

Exit codes: 0 installed (or already current), 1 Node or npm missing, too old, or ``npm ci`` failed
(the reason and npm's last lines are printed).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

node_app = typer.Typer(help="The Node packages a real server needs (mineflayer, flying-squid).",
                       no_args_is_help=True)


@node_app.command("install")
def install_cmd(
    prefix: Annotated[Path | None, typer.Option(
        "--prefix", metavar="DIR",
        help="Install into DIR/node_modules (default: $CRAFTBT_HOME/node, or .craftbt/node here).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Run npm ci even when DIR is already current.")] = False,
) -> None:
    """Install the pinned Node packages with npm ci (needs Node 20+ and npm on PATH).

    Example: craftbt node install && craftbt server start
    """
    from craftbt.world.mineflayer.node_env import ENV_NODE_MODULES, find_node_modules
    from craftbt.world.mineflayer.node_install import NodeInstallError, install

    try:
        done = install(prefix, force=force)
    except NodeInstallError as err:
        print(f"craftbt node: {err.code.value}: {err.detail}", file=sys.stderr)
        raise typer.Exit(1) from None
    packages = ", ".join(f"{name} {version}" for name, version in done.versions.items())
    if done.skipped:
        print(f"already installed in {done.node_modules} (same lock): {packages}; --force reinstalls")
    else:
        print(f"installed {packages} into {done.node_modules} with npm ci in {done.seconds:.0f} s "
              f"(Node {done.node_version})")
    found = find_node_modules()
    if found is None or found.resolve() != done.node_modules.resolve():
        print(f"craftbt looks elsewhere from here; to use these: export {ENV_NODE_MODULES}={done.node_modules}")


def register(app: typer.Typer) -> None:
    app.add_typer(node_app, name="node")
