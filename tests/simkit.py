"""Test helper: an embedded-world body on flat ground for leaf situations set up with operator commands.

Skips the calling test when the embedded world (``world.sim.body.SimBody``) is not importable.
"""

from __future__ import annotations

from typing import Any

import pytest

from craftbt.world.body import BlockPos


def sim_body(seed: int = 1) -> tuple[Any, BlockPos]:
    """A fresh flat-world SimBody and the block the player stands in (situations: /setblock, /give)."""
    body_module = pytest.importorskip("craftbt.world.sim.body")
    body = body_module.SimBody(seed=seed)
    return body, body.position().block()
