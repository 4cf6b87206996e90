"""The ``craftbt`` command line. Each command group lives in a ``craftbt/cli/*_cmds.py`` module.

Exit codes: 0 success, 1 the input was checked and is wrong (or a run failed, or
the environment failed: a corrupt or read-only store, a full disk, a server that
cannot be reached or went away), 2 usage error, 3 an internal error (a bug),
130/143 stopped by SIGINT/SIGTERM (the run is closed ``cancelled`` first). Exit 3 is
never a user's or a plugin's fault. A :class:`CraftbtError` is printed as structured
lines, never as a traceback; ``CRAFTBT_DEBUG=1`` adds the traceback and keeps the exit code.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import sys
import traceback

import typer

from craftbt._version import __version__
from craftbt.cli import (
    build_cmds,
    doctor_cmds,
    eval_cmds,
    help_format,
    live_cmds,
    node_cmds,
    plan_cmds,
    prove_cmds,
    run_cmds,
    script_cmds,
    serve_cmds,
    server_cmds,
    trees_cmds,
)
from craftbt.core import signals
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home
from craftbt.core.inputs import os_reason
from craftbt.core.sqlite import StorageError, classify
from craftbt.world.body import BodyError, BodyErrorCode

help_format.install()  # value names (FILE, INTEGER) in help, not Python types
app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
)

COMMAND_GROUPS = (trees_cmds, run_cmds, build_cmds, plan_cmds, server_cmds, script_cmds, eval_cmds, prove_cmds,
                  doctor_cmds, live_cmds, serve_cmds, node_cmds)



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


def _environment(err: BaseException) -> str | None:
    """One line for a fault of the environment (file, disk, server), or None when it looks like our bug."""
    if isinstance(err, BodyError) and err.code in (BodyErrorCode.BODY_DISCONNECTED, BodyErrorCode.TIMEOUT):
        return f"<body>: {ErrorCode.BODY_DISCONNECTED.value}: {err.detail}; is the server running and reachable?"
    found = classify(err)
    if found is not None:
        code, cause = found
        return StorageError(code, getattr(err, "filename", None) or "<storage>", cause).problems[0].render()
    if isinstance(err, sqlite3.DatabaseError):  # a corrupt or foreign file where a database should be
        return CraftbtError.single(
            ErrorCode.ENVIRONMENT_ERROR, f"a database under {default_home()} (or --state) cannot be used: {err}",
            expected="a craftbt database; move the broken file away and run again").problems[0].render()
    if isinstance(err, OSError):  # a full disk, a read-only home, a path that cannot be made
        where = f" {err.filename!r}" if err.filename else ""
        return CraftbtError.single(ErrorCode.ENVIRONMENT_ERROR, f"cannot use{where}: {os_reason(err)}"
                                   ).problems[0].render()
    return None


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (``sys.argv[1:]`` when None) in this process; return the exit code."""
    try:
        main(argv)
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def main(argv: list[str] | None = None) -> None:
    signals.install()
    try:
        _main(argv)
    finally:
        signals.done()


def _main(argv: list[str] | None) -> None:
    _printable_streams()
    try:
        app(args=argv, prog_name="craftbt")
    except CraftbtError as err:
        _debug_traceback()
        _report(err)
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
        _debug_traceback()
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
    _debug_traceback()
    print(
        f"internal_error: {type(err).__name__}: {err}\n"
        "This is a craftbt bug."
        + ("" if os.environ.get("CRAFTBT_DEBUG") else " Run again with CRAFTBT_DEBUG=1 for the traceback."),
        file=sys.stderr,
    )
    sys.exit(3)
