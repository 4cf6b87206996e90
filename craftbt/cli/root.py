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
import importlib
import io
import os
import sqlite3
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from craftbt._version import __version__
from craftbt.cli import help_format
from craftbt.core import signals
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.home import default_home


@dataclass(frozen=True)
class Entry:
    """One top-level command: the ``craftbt.cli`` modules whose ``register(app)`` builds it, and the one-line
    summary ``craftbt --help`` lists (a test holds it equal to the command's own help)."""

    modules: tuple[str, ...]
    summary: str


#: Every top-level command. A command's module is imported only when that command runs (or shows its own
#: help), so ``craftbt --version``, ``--help`` and ``validate`` do not load planners, servers or the simulator.
COMMANDS: dict[str, Entry] = {
    "validate": Entry(("trees_cmds",), "Check tree files against the registry; print every problem."),
    "render": Entry(("trees_cmds",),
                    "Draw a tree, or with --run a finished run (png needs -o or a redirected stdout)."),
    "schema": Entry(("trees_cmds",), "Print the JSON Schema of tree files, generated from the registry."),
    "convert": Entry(("trees_cmds",), "Convert a validated tree between YAML, JSON and BehaviorTree.CPP v4 XML."),
    "run": Entry(("run_cmds",), "Run a tree (or plan one for --goal) on a body; record the journal, golden-run "
                                "report and SLA rows."),
    "runs": Entry(("run_cmds",), "List recent runs from the journal (read-only: works on a read-only copy)."),
    "show": Entry(("run_cmds",), "Print one run: provenance, steps with verdicts, decisions (read-only)."),
    "sla": Entry(("run_cmds",), "Per capability@version SLA: attempts, success rate, durations, TTFA, retries, "
                                "timeouts, failures."),
    "build": Entry(("build_cmds",), "Build a structure template with checkpoints; ``build status`` shows the build "
                                    "state."),
    "plan": Entry(("plan_cmds",), "Plan a goal on the embedded world: print the chosen tree and why it was chosen."),
    "gate": Entry(("plan_cmds",), "Fail (exit 1) when planners can emit unregistered verbs or a capability lacks "
                                  "acceptance check/test."),
    "eval": Entry(("eval_cmds",), "Evaluate goals over seeds, planners and worlds; every episode once, results "
                                  "under --out."),
    "fleet": Entry(("eval_cmds",), "Run a queue of goals and trees on a fleet of bots, each with its own body, "
                                   "executor and journal."),
    "prove": Entry(("prove_cmds",), "Prove planner -> dispatch -> verify on a body: 4 checkpoints, proof_passed, "
                                    "or the failure's name and a non-zero exit."),
    "doctor": Entry(("doctor_cmds",), "Check CRAFTBT_HOME: integrity_check of every store, runs left open; say how "
                                      "to recover."),
    "live": Entry(("live_cmds",), "Live autonomously: needs -> goals -> plans -> actions, for N game days; report "
                                  "at the end."),
    "serve": Entry(("serve_cmds",), "Serve one bot over HTTP and WebSocket, with an MCP endpoint at /mcp and a live "
                                    "viewer at /viewer."),
    "mcp": Entry(("serve_cmds",), "Serve one bot as an MCP server over stdio (for MCP clients that start their "
                                  "servers)."),
    # run_cmds adds ``capabilities promote`` to the group trees_cmds makes
    "capabilities": Entry(("trees_cmds", "run_cmds"),
                          "List registered capabilities (the manifest); promote a canary version."),
    "lifecycle": Entry(("run_cmds",), "Capability lifecycle: shadow, active, retired, revoked; canary promotion."),
    "server": Entry(("server_cmds",), "A local Minecraft server (flying-squid) for demos and tests."),
    "script": Entry(("script_cmds",), "Run and check CraftScript scripts."),
    "fn": Entry(("script_cmds",), "Persistent, versioned CraftScript functions (per bot)."),
    "trees": Entry(("trees_cmds",), "List the library's trees: each runs by name (craftbt run obtain_wooden_pickaxe)."),
    "node": Entry(("node_cmds",), "The Node packages a real server needs (mineflayer, flying-squid)."),
}

#: the command modules registered so far, on one scratch app the lazy group takes its commands from
_loaded = typer.Typer(add_completion=False)
_registered: set[str] = set()


def load_command(name: str) -> Any:
    """The (typer-built click) command ``name``, None when there is no such command; imports the modules that
    define it."""
    entry = COMMANDS.get(name)
    if entry is None:
        return None
    for module in entry.modules:
        if module not in _registered:
            importlib.import_module(f"craftbt.cli.{module}").register(_loaded)
            _registered.add(module)
    group = typer.main.get_group(_loaded)
    return group.get_command(typer.Context(group), name)


class LazyGroup(TyperGroup):
    """The root command group: names and summaries from :data:`COMMANDS`; a command's module loads when used."""

    listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self.listing:  # the root help: the summaries say enough, nothing is imported
            entry = COMMANDS.get(cmd_name)
            return None if entry is None else TyperCommand(cmd_name, help=entry.summary, short_help=entry.summary)
        return load_command(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


help_format.install()  # value names (FILE, INTEGER) in help, not Python types
app = typer.Typer(
    name="craftbt",
    help="Behavior-tree runtime with a capability registry for Minecraft bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish
    cls=LazyGroup,
    # click's own help layout: typer's rich one imports rich's markdown (a third of a second) before it
    # prints a line; a command's own ``--help`` keeps the rich layout
    rich_markup_mode=None,
)


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
    from craftbt.core.inputs import os_reason
    from craftbt.core.sqlite import StorageError, classify
    from craftbt.world.body import BodyError, BodyErrorCode

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
    except Exception as err:  # the environment's fault (file, disk, server), else a bug of ours: say so plainly
        line = _environment(err)
        if line is None:
            _bug(err)
        _debug_traceback()
        print(line, file=sys.stderr)
        sys.exit(1)


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
