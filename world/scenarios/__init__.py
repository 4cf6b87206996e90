"""Scenario files (``world/scenarios/*.yaml``): situations for the simulated world, and their loader."""

from craftbt.world.scenarios.loader import load_scenario, parse_scenario, shipped_scenarios, starter_world
from craftbt.world.scenarios.schema import Scenario

__all__ = ["Scenario", "load_scenario", "parse_scenario", "shipped_scenarios", "starter_world"]
