"""Leaf families. ``register_all`` registers every shipped capability and check.

One module per family; each exposes ``register(registry)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from craftbt.capabilities import checks
from craftbt.capabilities.leaves import (
    combat,
    construction,
    container,
    crafting,
    exploration,
    farming,
    interaction,
    movement,
    sensing,
    world_interaction,
)

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

FAMILIES = (
    movement,
    interaction,
    sensing,
    crafting,
    container,
    combat,
    farming,
    world_interaction,
    construction,
    exploration,
)


def register_all(registry: Registry) -> None:
    checks.register(registry)
    for family in FAMILIES:
        family.register(registry)
