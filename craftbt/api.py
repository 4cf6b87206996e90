"""The public Python API: load and validate trees, run them on a body, plan goals.

Everything a script needs is importable from :mod:`craftbt` itself; the packages
below it (``craftbt.trees``, ``craftbt.executor``, ...) are internal and may change.

A typical session::

    import craftbt

    with craftbt.create_bot(world="starter", seed=0, home=".craftbt") as bot:
        outcome = bot.run_tree(craftbt.library_tree("obtain_wooden_pickaxe"))
        print(outcome.status, outcome.run_id)

The functions below that take a ``body`` (:func:`run_tree`, :func:`run_goal`, :func:`plan_goal`) are the
same thing for a body you made yourself: each makes a :class:`Bot` on it for the one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import py_trees

from craftbt.bot.body import BodySpec
from craftbt.bot.bot import Bot, ScriptRun, create_bot, is_tree_text
from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import RunOutcome
from craftbt.executor.journal import Journal, StepRecord
from craftbt.executor.watch import RunWatcher, attach
from craftbt.planners.intent import Intent
from craftbt.router.router import GoalRun, RoutingDecision
from craftbt.trees.build import build
from craftbt.trees.model import TreeDefinition
from craftbt.trees.paths import library_file, library_names
from craftbt.trees.validate import Checked, validate_path, validate_text
from craftbt.world.body import Body

TreeSource = str | Path | TreeDefinition


def library_tree(name: str) -> Path:
    """The path of a tree shipped in the library, e.g. ``library_tree("obtain_wooden_pickaxe")``."""
    path = library_file(name)
    if path is None:
        raise CraftbtError.single(ErrorCode.FILE_NOT_FOUND,
                                  f"no library tree {name!r}; shipped: {', '.join(library_names())}")
    return path


def validate_tree(source: str | Path, *, registry: Registry | None = None, text: bool = False) -> Checked:
    """Check a tree file (or, with ``text=True``, YAML/JSON text) against the registry.

    Never raises for bad content: ``checked.ok`` says whether it is valid and
    ``checked.problems`` lists every problem with its file, line and column.
    A string of several lines is text whatever ``text`` says: no file name has a newline.
    """
    registry = registry or default_registry()
    if text or is_tree_text(source):
        return validate_text(str(source), registry, file="<text>")
    return validate_path(source, registry)


def load_tree(source: str | Path, *, registry: Registry | None = None, text: bool = False) -> TreeDefinition:
    """Load and validate a tree file (or text); raise :class:`CraftbtError` with every located problem."""
    checked = validate_tree(source, registry=registry, text=text)
    checked.raise_for_problems()
    assert checked.definition is not None  # no problems means a definition
    return checked.definition


def _definition(tree: TreeSource, registry: Registry) -> TreeDefinition:
    return tree if isinstance(tree, TreeDefinition) else load_tree(tree, registry=registry)


def build_tree(
    tree: TreeSource, body: Body, *, registry: Registry | None = None
) -> py_trees.behaviour.Behaviour:
    """A py_trees tree of capability behaviours on ``body``, to tick yourself.

    This skips the executor (no journal, geofence or retries): use :func:`run_tree`
    to run a tree the way ``craftbt run`` does.
    """
    registry = registry or default_registry()
    definition = _definition(tree, registry)
    return build(definition, CapabilityContext(body=body, registry=registry)).root


def _bot(body: Body, registry: Registry | None, config: ExecutorConfig | None, home: str | Path | None,
         seed: int = 0, watchers: Sequence[RunWatcher] = ()) -> Bot:
    """A bot on a body the caller made (and keeps: closing the bot leaves the body connected)."""
    bot = Bot(body, registry=registry, config=config, home=home, seed=seed)
    if watchers:
        attach(bot.executor, *watchers)  # e.g. a Groot2Publisher: Groot2 or btview watch the run
    return bot


def run_tree(
    tree: TreeSource,
    body: Body,
    *,
    registry: Registry | None = None,
    config: ExecutorConfig | None = None,
    home: str | Path | None = None,
    seed: int | None = None,
    watchers: Sequence[RunWatcher] = (),
) -> RunOutcome:
    """Run a tree through the executor's Plan-to-Body pipeline, as ``craftbt run`` does.

    The run is journalled under ``home`` (default ``$CRAFTBT_HOME`` or ``.craftbt``);
    the outcome carries its status, run id, failures and metrics, and
    :func:`run_steps` reads each step's verdict back from the journal. ``watchers`` follow the run as it
    ticks (:class:`craftbt.RunWatcher`; ``craftbt.Groot2Publisher(1667)`` serves it to Groot2 monitors).
    """
    registry = registry or default_registry()
    definition = _definition(tree, registry)
    base_dir = Path(tree).parent if isinstance(tree, str | Path) and not is_tree_text(tree) else None
    with _bot(body, registry, config, home, seed or 0, watchers) as bot:
        return bot.run_tree(definition, base_dir=base_dir)


def plan_goal(
    goal: str, body: Body, *, planner: str = "auto", registry: Registry | None = None, seed: int = 0,
    craft_only: bool = False,
) -> RoutingDecision:
    """Plan ``goal`` (``"obtain iron_pickaxe"``) from what ``body`` sees, with one planner or routed.

    ``planner`` is ``auto`` (the router picks) or one of ``solver``, ``htn``, ``goap``, ``llm``;
    ``decision.plan.tree`` is the tree definition to run. ``craft_only`` plans from what the body holds and
    the stations in reach alone, or refuses naming the missing ingredient.
    """
    with _bot(body, registry, None, None, seed) as bot:
        return bot.plan(goal, planner=planner, craft_only=craft_only)


def run_goal(
    goal: str,
    body: Body,
    *,
    planner: str = "auto",
    registry: Registry | None = None,
    config: ExecutorConfig | None = None,
    home: str | Path | None = None,
    seed: int = 0,
    max_replans: int = 2,
    shelter_at_night: bool = True,
    watchers: Sequence[RunWatcher] = (),
) -> GoalRun:
    """Plan, run and replan ``goal`` until it succeeds or the replans run out, as ``craftbt run --goal`` does.

    With ``shelter_at_night`` (the default) surface work stops at sunset: the bot sits the night out in a
    roofed pit and the goal is planned again in the morning (``GoalRun.nights`` says how each night went).
    """
    with _bot(body, registry, config, home, seed, watchers) as bot:
        return bot.run_goal(goal, planner=planner, max_replans=max_replans, shelter_at_night=shelter_at_night)


def run_steps(run_id: str, *, home: str | Path | None = None) -> list[StepRecord]:
    """The journal's steps of one run, typed: capability, outcome, error and acceptance verdict of each."""
    journal = Journal(Path(home) / "journal.sqlite" if home is not None else None, read_only=True)
    try:
        return journal.steps(run_id)
    finally:
        journal.close()


__all__ = [
    "BodySpec",
    "Bot",
    "Bounds",
    "CraftbtError",
    "ExecutorConfig",
    "GoalRun",
    "Intent",
    "RoutingDecision",
    "RunOutcome",
    "ScriptRun",
    "StepRecord",
    "build_tree",
    "create_bot",
    "library_tree",
    "load_tree",
    "plan_goal",
    "run_goal",
    "run_steps",
    "run_tree",
    "validate_tree",
]
