"""Every generator a world may run on, and a generator rebuilt from its ``describe()`` form."""

from __future__ import annotations

from craftbt.world.sim.generator import FlatGenerator, NaturalGenerator
from craftbt.world.sim.natural import NaturalWorldGenerator

#: The flat and legacy hills generators (scenarios, the starter world) and the vanilla-like natural world.
AnyGenerator = FlatGenerator | NaturalGenerator | NaturalWorldGenerator


def from_spec(spec: dict[str, object], seed: int) -> AnyGenerator:
    """A generator from its ``describe()`` form (used by scenarios and snapshots)."""
    kind = spec.get("type")
    if kind == "natural_world":
        return NaturalWorldGenerator(seed)
    if kind == "flat":
        raw = spec.get("layers")
        layers = [(str(n), int(c)) for n, c in raw] if isinstance(raw, list) else None  # type: ignore[misc]
        return FlatGenerator(layers) if layers else FlatGenerator()
    if kind == "natural":
        chance = spec.get("tree_chance", 0.02)
        return NaturalGenerator(seed, tree_chance=float(chance))  # type: ignore[arg-type]
    raise ValueError(f"unknown generator type {kind!r}")
