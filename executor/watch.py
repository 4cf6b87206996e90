"""Watchers: things that follow a run as it ticks (a terminal view, a Groot2 monitor, ...).

A :class:`RunWatcher` hears three things: a run started (its id and built tree), a tick ended (the
executor's tick-listener moment: the tree's statuses are those of this tick), and a run closed (its
outcome). :func:`attach` joins the executor's tick and close listeners once and fans them out to any
number of watchers; a goal run (plan, run, replan) is several executor runs, so a watcher sees several
start/finish pairs.

Watchers run on the executor's thread between two ticks: they must be cheap (render at a low rate,
copy a few bytes) and never raise; one that raises is dropped with a note on stderr, the run goes on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import py_trees

if TYPE_CHECKING:
    from craftbt.executor.executor import Executor, RunOutcome
    from craftbt.executor.state import RunState


@runtime_checkable
class RunWatcher(Protocol):
    """Follows runs; every method is called on the executor's thread."""

    def on_start(self, run: RunState, root: py_trees.behaviour.Behaviour, tree: str) -> None:
        """A run's first tick ended; ``root`` is its built tree (the same object every later tick), ``tree``
        the tree's name."""

    def on_tick(self, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        """A tick ended (the first one too, right after ``on_start``)."""

    def on_finish(self, outcome: RunOutcome) -> None:
        """The run closed: its journal row and report exist."""


@dataclass
class Watchers:
    """Several watchers behind one tick listener and one close listener."""

    watchers: list[RunWatcher] = field(default_factory=list)
    _run_id: str | None = None

    def add(self, watcher: RunWatcher) -> None:
        self.watchers.append(watcher)

    def _each(self, call: Callable[[RunWatcher], Any]) -> None:
        for watcher in list(self.watchers):
            try:
                call(watcher)
            except Exception as exc:  # a view must never end a run
                self.watchers.remove(watcher)
                print(f"craftbt: watcher {type(watcher).__name__} stopped: {type(exc).__name__}: {exc}",
                      file=sys.stderr)

    def tick(self, executor: Executor, run: RunState, root: py_trees.behaviour.Behaviour) -> None:
        """The executor's tick listener."""
        if run.run_id != self._run_id:
            self._run_id = run.run_id
            executed = executor._executed  # the definition this run is running (set before its first tick)
            name = executed[0].tree if executed is not None else run.run_id
            self._each(lambda w: w.on_start(run, root, name))
        self._each(lambda w: w.on_tick(run, root))

    def finish(self, outcome: RunOutcome) -> None:
        self._run_id = None
        self._each(lambda w: w.on_finish(outcome))


def attach(executor: Executor, *watchers: RunWatcher) -> Watchers:
    """Wire ``watchers`` onto ``executor``: after each of its ticks and at the close of each of its runs.

    Returns the fan-out; more watchers may be added to it later. Attaching twice adds to the same fan-out.
    """
    owners = (getattr(listener, "__self__", None) for listener in executor.tick_listeners)
    fan = next((owner for owner in owners if isinstance(owner, Watchers)), None)
    if fan is None:
        fan = Watchers()
        executor.tick_listeners.append(fan.tick)
        executor.close_listeners.append(fan.finish)
    for watcher in watchers:
        fan.add(watcher)
    return fan
