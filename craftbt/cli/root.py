"""The ``craftbt`` command line. Each command group lives in a ``craftbt/cli/*_cmds.py`` module.

Exit codes: 0 success, 1 the input was checked and is wrong (or a run failed, or
the environment failed: a corrupt or read-only store, a full disk, a server that
cannot be reached or went away), 2 usage error, 3 an internal error (a bug),
130/143 stopped by SIGINT/SIGTERM (the run is closed ``cancelled`` first). A
:class:`CraftbtError` is printed as structured lines, never as a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import sys

import typer

from craftbt._version import __version__
from craftbt.cli import (
    build_cmds,
    doctor_cmds,
    eval_cmds,
    plan_cmds,
    prove_cmds,
    run_cmds,
    script_cmds,
    server_cmds,
    trees_cmds,
)
from craftbt.core import signals
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.sqlite import StorageError, classify
from craftbt.world.body import BodyError, BodyErrorCode

app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMAND_GROUPS = (trees_cmds, run_cmds, build_cmds, plan_cmds, server_cmds, script_cmds, eval_cmds, prove_cmds,
                  doctor_cmds)



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


def _environment(err: BaseException) -> str | None:
    """One line for a fault of the environment (file, disk, server), or None when it looks like our bug."""
    if isinstance(err, BodyError) and err.code in (BodyErrorCode.BODY_DISCONNECTED, BodyErrorCode.TIMEOUT):
        return f"<body>: {ErrorCode.BODY_DISCONNECTED.value}: {err.detail}; is the server running and reachable?"
    found = classify(err)
    if found is None:
        return None
    code, cause = found
    return StorageError(code, getattr(err, "filename", None) or "<storage>", cause).problems[0].render()


def main() -> None:
    signals.install()
    try:
        _main()
    finally:
        signals.done()


def _main() -> None:
    try:
        app()
    except CraftbtError as err:
        for problem in err.problems:
            print(problem.render(), file=sys.stderr)
        sys.exit(1)
    except SystemExit as done:
        cancel = signals.last()
        if cancel is None or done.code not in (1, 130):
            raise  # no signal, or the command stopped cleanly on it by itself (``server start``: exit 0)
        _interrupted(cancel)  # typer turned our Cancelled into exit 130 on its way out
    except KeyboardInterrupt as exc:  # raised before typer's own handling began
        cancel = exc if isinstance(exc, signals.Cancelled) else signals.last()
        if cancel is None:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
        _interrupted(cancel)
    except (OSError, sqlite3.Error, BodyError) as err:
        line = _environment(err)
        if line is None:
            _bug(err)
        print(line, file=sys.stderr)
        sys.exit(1)
    except Exception as err:  # a bug of ours: say so plainly, keep the traceback one variable away
        _bug(err)


def _interrupted(cancel: signals.Cancelled) -> None:
    """Say what the signal stopped; exit 128 + signal (130 SIGINT, 143 SIGTERM)."""
    what = f"run {cancel.run_id} recorded as cancelled" if cancel.run_id else "nothing was running"
    print(f"interrupted by {cancel.name}: {what}", file=sys.stderr)
    sys.exit(cancel.exit_code)


def _bug(err: BaseException) -> None:
    if os.environ.get("CRAFTBT_DEBUG"):
        raise err
    print(
        f"internal_error: {type(err).__name__}: {err}\n"
        "This is a craftbt bug. Run again with CRAFTBT_DEBUG=1 for the traceback.",
        file=sys.stderr,
    )
    sys.exit(3)
