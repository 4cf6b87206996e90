"""The command line: ``craftbt`` and its command groups; each group module exposes ``register(app)``.

:func:`main` routes SIGINT and SIGTERM through :mod:`craftbt.core.signals` before it imports the
commands (a second or so of imports), so a signal at any point of a command is handled.
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    """The ``craftbt`` entry point."""
    from craftbt.core import signals

    signals.install()
    try:
        from craftbt.cli.root import main as run_main

        run_main()
    except signals.Cancelled as cancel:  # while the commands were still being imported
        print(f"interrupted by {cancel.name}: nothing was running", file=sys.stderr)
        sys.exit(cancel.exit_code)


def __getattr__(name: str) -> Any:
    if name == "app":  # the typer app, imported when asked for (``main`` installs the signals first)
        from craftbt.cli.root import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "main"]
