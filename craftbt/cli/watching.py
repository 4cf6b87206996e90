"""What ``craftbt run`` shows while it runs: a terminal view that follows the running branch, and the
watchers ``--groot2`` adds (see docs/watching.md).

The terminal view draws only the branch that is running, from the root down to the running leaf,
each level with its finished children folded to one mark (✓ ✗) and its waiting ones counted, and a
one-line status under it: the current leaf, game ticks, dispatches, simulated and wall time. It is
redrawn at most :data:`REDRAW_S` apart, by the executor's thread between two ticks, and never by a
timer thread: between redraws a tick costs one clock read. Nothing is drawn when stderr is not a
terminal, with ``--no-live`` or with ``--quiet``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import py_trees
from py_trees.common import Status
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.executor.state import MS_PER_TICK
from craftbt.executor.watch import RunWatcher, attach

if TYPE_CHECKING:
    from craftbt.executor.executor import Executor, RunOutcome
    from craftbt.executor.state import RunState
    from craftbt.world.body import Body

#: the fewest seconds between two redraws of the terminal view
REDRAW_S = 0.25
#: ticks between two clock reads (a redraw is due at most every REDRAW_S anyway)
CHECK_EVERY = 8
MARK = {Status.SUCCESS: "[green]✓[/]", Status.FAILURE: "[red]✗[/]", Status.RUNNING: "[yellow]▶[/]",
        Status.INVALID: "[dim]·[/]"}


def _fmt_s(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, sec = divmod(int(seconds), 60)
    return f"{minutes} min {sec:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def running_branch(root: py_trees.behaviour.Behaviour) -> list[py_trees.behaviour.Behaviour]:
    """The nodes from the root down to the deepest running one (empty when the root is not running)."""
    branch: list[py_trees.behaviour.Behaviour] = []
    node: py_trees.behaviour.Behaviour | None = root
    while node is not None and node.status == Status.RUNNING:
        branch.append(node)
        node = next((c for c in node.children if c.status == Status.RUNNING), None)
    return branch


def _label(node: py_trees.behaviour.Behaviour) -> str:
    if isinstance(node, CapabilityBehaviour):
        return f"{escape(node.name)} [dim]({escape(node.spec.key)})[/]"
    return escape(node.name)


def branch_text(root: py_trees.behaviour.Behaviour, max_lines: int = 30) -> Text:
    """The running branch, one line a level, finished siblings folded to marks."""
    lines: list[str] = []
    branch = running_branch(root)
    for depth, node in enumerate(branch):
        lines.append(f"{'  ' * depth}{MARK[Status.RUNNING]} {_label(node)}")
        children = list(node.children)
        if not children or depth + 1 >= len(branch):
            continue
        done = [c for c in children if c.status in (Status.SUCCESS, Status.FAILURE)]
        waiting = sum(1 for c in children if c.status == Status.INVALID)
        if done or waiting:
            marks = "".join("✓" if c.status == Status.SUCCESS else "✗" for c in done[-12:])
            more = f"{len(done) - 12} more " if len(done) > 12 else ""
            parts = [f"done {more}{marks}"] if done else []
            parts += [f"{waiting} to go"] if waiting else []
            lines.append(f"{'  ' * (depth + 1)}[dim]{' · '.join(parts)}[/]")
    if len(lines) > max_lines:  # the deep end is what is running: keep it
        lines = ["[dim]  …[/]", *lines[-(max_lines - 1):]]
    return Text.from_markup("\n".join(lines))


class TerminalView:
    """A :class:`~executor.watch.RunWatcher` that draws the running branch and a status line on a console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.live = Live(console=console, auto_refresh=False, transient=True, redirect_stdout=False,
                         redirect_stderr=False)
        self.tree = ""
        self.runs = 0
        self.wall_start = time.perf_counter()
        self._next = 0.0
        self._count = 0

    def __enter__(self) -> TerminalView:
        self.live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.stop()

    def on_start(self, run: RunState, root: py_trees.behaviour.Behaviour, tree: str) -> None:
        self.tree = tree
        self.runs += 1
        self._next = 0.0

    def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        self._count += 1
        if self._count % CHECK_EVERY:
            return
        now = time.perf_counter()
        if now < self._next:
            return
        self._next = now + REDRAW_S
        self.live.update(self.render(run, root), refresh=True)

    def on_finish(self, outcome: RunOutcome) -> None:
        colour = "green" if outcome.ok else "red"
        self.console.print(f"[{colour}]{outcome.status}[/] {escape(outcome.tree)} [dim]{outcome.run_id}: "
                           f"{outcome.ticks} ticks, {outcome.dispatches} dispatches[/]")

    def render(self, run: RunState, root: py_trees.behaviour.Behaviour) -> Text:
        ticks = run.tick() - run.start_tick
        tip = root.tip()
        leaf = tip if isinstance(tip, CapabilityBehaviour) else (run.current.leaf if run.current else None)
        current = f"{escape(leaf.name)} ({escape(leaf.spec.key)})" if leaf is not None else "-"
        height = max(5, self.console.height - 4)
        view = branch_text(root, max_lines=height)
        run_no = f" (run {self.runs})" if self.runs > 1 else ""
        status = Text.from_markup(
            f"[bold]{escape(self.tree)}[/]{run_no}  leaf [cyan]{current}[/]  {ticks} ticks  "
            f"{run.metrics.dispatches} dispatches  sim {_fmt_s(ticks * MS_PER_TICK / 1000)}  "
            f"wall {_fmt_s(time.perf_counter() - self.wall_start)}")
        view.append("\n")
        view.append_text(status)
        return view


def ended_with(body: Body) -> str:
    """What the bot holds at the end, most first (``3 oak_log, 1 wooden_pickaxe``), for the run summary."""
    try:
        inventory: dict[str, Any] = dict(body.observe().inventory)
    except Exception:  # a body that is gone (server down) has nothing to say
        return "unknown (the body did not answer)"
    items = sorted(((int(n), item) for item, n in inventory.items() if n), key=lambda p: (-p[0], p[1]))
    return ", ".join(f"{n} {item}" for n, item in items[:12]) + (" …" if len(items) > 12 else "") or "nothing"


@contextlib.contextmanager
def watching(executor: Executor, console: Console, *, live: bool, groot2: int | None = None,
             groot2_wait: float = 0.0, groot2_host: str = "127.0.0.1") -> Iterator[list[RunWatcher]]:
    """Attach the watchers a run asked for (the terminal view when ``live`` and ``console`` is a terminal,
    a Groot2 publisher on ``groot2``) for the length of the ``with`` block."""
    watchers: list[RunWatcher] = []
    with contextlib.ExitStack() as stack:
        if groot2 is not None:
            from craftbt.executor.groot2 import Groot2Publisher

            watchers.append(stack.enter_context(Groot2Publisher(groot2, host=groot2_host,
                                                                wait_for_client_s=groot2_wait)))
        if live and console.is_terminal:
            watchers.append(stack.enter_context(TerminalView(console)))
        if watchers:
            attach(executor, *watchers)
        yield watchers
