"""craftbt: a behavior-tree runtime with a capability registry for Minecraft bots.

The names below are the public API; everything under ``craftbt.<package>`` is internal.
See ``docs/python-api.md`` for a guide.
"""

from craftbt._version import __version__
from craftbt.api import (
    Bounds,
    CraftbtError,
    ExecutorConfig,
    GoalRun,
    Intent,
    RoutingDecision,
    RunOutcome,
    build_tree,
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
from craftbt.trees.model import TreeDefinition
from craftbt.world.body import Body, BodyError, Observation
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.scenarios.loader import load_scenario, starter_world
from craftbt.world.sim.body import SimBody

__all__ = [
    "ActionResult",
    "Body",
    "BodyError",
    "Bounds",
    "CapabilityContext",
    "CapabilitySpec",
    "CraftbtError",
    "ExecutorConfig",
    "Family",
    "GoalRun",
    "GuardResult",
    "Intent",
    "MineflayerBody",
    "Observation",
    "Permission",
    "Registry",
    "RoutingDecision",
    "RunOutcome",
    "RunnerGen",
    "SimBody",
    "StrictArgs",
    "TreeDefinition",
    "VerificationResult",
    "__version__",
    "act",
    "build_tree",
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
