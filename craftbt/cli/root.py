"""The ``craftbt`` command line. Each command group lives in a ``craftbt/cli/*_cmds.py`` module.

Exit codes: 0 success, 1 the input was checked and is wrong (or a run failed),
2 usage error, 3 an internal error (a bug). A :class:`CraftbtError` is printed
as structured lines, never as a traceback.
"""

from __future__ import annotations

import os
import sys

import typer

from craftbt._version import __version__
from craftbt.cli import (
    build_cmds,
    eval_cmds,
    plan_cmds,
    prove_cmds,
    run_cmds,
    script_cmds,
    serve_cmds,
    server_cmds,
    trees_cmds,
)
from craftbt.core.errors import CraftbtError

app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMAND_GROUPS = (trees_cmds, run_cmds, build_cmds, plan_cmds, server_cmds, script_cmds, eval_cmds, prove_cmds,
                  serve_cmds)



def _print_version(value: bool) -> None:
    if value:
        print(f"craftbt {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Behavior-tree runtime with a capability registry for Minecraft bots."""


for _group in COMMAND_GROUPS:
    _group.register(app)


def main() -> None:
    try:
        app()
    except CraftbtError as err:
        for problem in err.problems:
            print(problem.render(), file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as err:  # a bug of ours: say so plainly, keep the traceback one variable away
        if os.environ.get("CRAFTBT_DEBUG"):
            raise
        print(
            f"internal_error: {type(err).__name__}: {err}\n"
            "This is a craftbt bug. Run again with CRAFTBT_DEBUG=1 for the traceback.",
            file=sys.stderr,
        )
        sys.exit(3)
