"""The ``craftbt`` command line. Each command group lives in a ``craftbt/cli/*_cmds.py`` module.

Exit codes: 0 success, 1 the input was checked and is wrong, the environment is broken (a corrupt
database under ``$CRAFTBT_HOME``, a server that cannot be reached) or a run failed, 2 usage error,
3 an internal error (a bug of craftbt's, never a user's or a plugin's). A :class:`CraftbtError` is
printed as structured lines, never as a traceback; ``CRAFTBT_DEBUG=1`` adds the traceback and keeps
the exit code.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import sys
import traceback
from typing import NoReturn

import typer

from craftbt._version import __version__
from craftbt.cli import build_cmds, eval_cmds, plan_cmds, run_cmds, script_cmds, server_cmds, trees_cmds
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.core.inputs import os_reason

app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMAND_GROUPS = (trees_cmds, run_cmds, build_cmds, plan_cmds, server_cmds, script_cmds, eval_cmds)



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


def _printable_streams() -> None:
    """A terminal or pipe that cannot encode a character (``PYTHONIOENCODING=ascii`` and an em dash)
    gets an escape instead of a crash."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(ValueError, OSError):  # a closed or unusual stream: leave it alone
                stream.reconfigure(errors="backslashreplace")


def _report(err: CraftbtError) -> None:
    for problem in err.problems:
        print(problem.render(), file=sys.stderr)


def _debug_traceback() -> None:
    if os.environ.get("CRAFTBT_DEBUG"):
        traceback.print_exc(file=sys.stderr)


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` when None); return the exit code."""
    _printable_streams()
    try:
        app(args=argv, prog_name="craftbt", standalone_mode=True)
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except CraftbtError as err:
        _debug_traceback()
        _report(err)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except sqlite3.DatabaseError as err:  # a corrupt or foreign file where a database should be
        _debug_traceback()
        _report(CraftbtError.single(
            ErrorCode.ENVIRONMENT_ERROR, f"a database under {default_home()} (or --state) cannot be used: {err}",
            expected="a craftbt database; move the broken file away and run again"))
        return 1
    except OSError as err:  # the environment: a full disk, a read-only home, a path that cannot be made
        _debug_traceback()
        where = f" {err.filename!r}" if err.filename else ""
        _report(CraftbtError.single(ErrorCode.ENVIRONMENT_ERROR, f"cannot use{where}: {os_reason(err)}"))
        return 1
    except Exception as err:  # a bug of ours: say so plainly, keep the traceback one variable away
        _debug_traceback()
        print(
            f"internal_error: {type(err).__name__}: {err}\n"
            "This is a craftbt bug."
            + ("" if os.environ.get("CRAFTBT_DEBUG") else " Run again with CRAFTBT_DEBUG=1 for the traceback."),
            file=sys.stderr,
        )
        return 3
    return 0


def main(argv: list[str] | None = None) -> NoReturn:
    sys.exit(run(argv))
