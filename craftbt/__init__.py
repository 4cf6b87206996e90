"""craftbt: a behavior-tree runtime with a capability registry for Minecraft bots.

The names below are the public API; everything under ``craftbt.<package>`` is internal.
See ``docs/python-api.md`` for a guide.

Each name is imported when first used (``_EXPORTS`` says from where), so ``import craftbt.core``
or the command line's entry point does not first load every layer: the CLI installs its signal
handlers before the commands are imported.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from craftbt._version import __version__

#: public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    "BodySpec": "craftbt.api",
    "Bot": "craftbt.api",
    "Bounds": "craftbt.api",
    "CraftbtError": "craftbt.api",
    "ExecutorConfig": "craftbt.api",
    "GoalRun": "craftbt.api",
    "Intent": "craftbt.api",
    "RoutingDecision": "craftbt.api",
    "RunOutcome": "craftbt.api",
    "ScriptRun": "craftbt.api",
    "StepRecord": "craftbt.api",
    "build_tree": "craftbt.api",
    "create_bot": "craftbt.api",
    "library_tree": "craftbt.api",
    "load_tree": "craftbt.api",
    "plan_goal": "craftbt.api",
    "run_goal": "craftbt.api",
    "run_steps": "craftbt.api",
    "run_tree": "craftbt.api",
    "validate_tree": "craftbt.api",
    "CapabilityContext": "craftbt.capabilities.context",
    "default_registry": "craftbt.capabilities.default",
    "StrictArgs": "craftbt.capabilities.leaves.common",
    "act": "craftbt.capabilities.leaves.common",
    "Registry": "craftbt.capabilities.registry",
    "ActionResult": "craftbt.capabilities.spec",
    "CapabilitySpec": "craftbt.capabilities.spec",
    "Family": "craftbt.capabilities.spec",
    "GuardResult": "craftbt.capabilities.spec",
    "Permission": "craftbt.capabilities.spec",
    "RunnerGen": "craftbt.capabilities.spec",
    "VerificationResult": "craftbt.capabilities.spec",
    "TreeDefinition": "craftbt.trees.model",
    "Groot2Publisher": "craftbt.executor.groot2",
    "RunWatcher": "craftbt.executor.watch",
    "Body": "craftbt.world.body",
    "BodyError": "craftbt.world.body",
    "Observation": "craftbt.world.body",
    "MineflayerBody": "craftbt.world.mineflayer.body",
    "load_scenario": "craftbt.world.scenarios.loader",
    "starter_world": "craftbt.world.scenarios.loader",
    "SimBody": "craftbt.world.sim.body",
}

if TYPE_CHECKING:  # what type checkers and editors see; at run time __getattr__ imports
    from craftbt.api import (
        BodySpec,
        Bot,
        Bounds,
        CraftbtError,
        ExecutorConfig,
        GoalRun,
        Intent,
        RoutingDecision,
        RunOutcome,
        ScriptRun,
        StepRecord,
        build_tree,
        create_bot,
        library_tree,
        load_tree,
        plan_goal,
        run_goal,
        run_steps,
        run_tree,
        validate_tree,
    )
    from craftbt.capabilities.context import CapabilityContext
    from craftbt.capabilities.default import default_registry
    from craftbt.capabilities.leaves.common import StrictArgs, act
    from craftbt.capabilities.registry import Registry
    from craftbt.capabilities.spec import (
        ActionResult,
        CapabilitySpec,
        Family,
        GuardResult,
        Permission,
        RunnerGen,
        VerificationResult,
    )
    from craftbt.executor.groot2 import Groot2Publisher
    from craftbt.executor.watch import RunWatcher
    from craftbt.trees.model import TreeDefinition
    from craftbt.world.body import Body, BodyError, Observation
    from craftbt.world.mineflayer.body import MineflayerBody
    from craftbt.world.scenarios.loader import load_scenario, starter_world
    from craftbt.world.sim.body import SimBody


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'craftbt' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ActionResult",
    "Body",
    "BodyError",
    "BodySpec",
    "Bot",
    "Bounds",
    "CapabilityContext",
    "CapabilitySpec",
    "CraftbtError",
    "ExecutorConfig",
    "Family",
    "GoalRun",
    "Groot2Publisher",
    "GuardResult",
    "Intent",
    "MineflayerBody",
    "Observation",
    "Permission",
    "Registry",
    "RoutingDecision",
    "RunOutcome",
    "RunWatcher",
    "RunnerGen",
    "ScriptRun",
    "SimBody",
    "StepRecord",
    "StrictArgs",
    "TreeDefinition",
    "VerificationResult",
    "__version__",
    "act",
    "build_tree",
    "create_bot",
    "default_registry",
    "library_tree",
    "load_scenario",
    "load_tree",
    "plan_goal",
    "run_goal",
    "run_steps",
    "run_tree",
    "starter_world",
    "validate_tree",
]
