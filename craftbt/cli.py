"""The ``craftbt`` command line. Each command group lives in ``craftbt/commands/``.

Exit codes: 0 success, 1 the input was checked and is wrong (or a run failed),
2 usage error. A :class:`CraftbtError` is printed as structured lines, never as
a traceback.
"""

from __future__ import annotations

import sys

import typer

from craftbt.commands import run_cmds, trees_cmds
from craftbt.errors import CraftbtError

app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMAND_GROUPS = (trees_cmds, run_cmds)

for _group in COMMAND_GROUPS:
    _group.register(app)


def main() -> None:
    try:
        app()
    except CraftbtError as err:
        for problem in err.problems:
            print(problem.render(), file=sys.stderr)
        sys.exit(1)
