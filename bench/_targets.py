"""One line per benchmark target: the figure, its ratio against a baseline measured in the same run,
the target, and OK or NOT met.

Every script under ``bench/`` prints its targets through :func:`report` so that ``make bench`` can be
read (and grepped for ``NOT met``) in one pass.
"""

from __future__ import annotations

from enum import Enum


class Direction(Enum):
    """Whether a figure must stay at or below its target, or reach at least its target."""

    AT_MOST = "<="
    AT_LEAST = ">="


def verdict(value: float, target: float, direction: Direction) -> str:
    """``OK`` when ``value`` meets ``target`` in ``direction``, else ``NOT met``."""
    met = value <= target if direction is Direction.AT_MOST else value >= target
    return "OK" if met else "NOT met"


def report(name: str, value: float, unit: str, target: float, direction: Direction = Direction.AT_MOST,
           *, absolute: str = "") -> bool:
    """Print ``TARGET name: value unit (target <= t unit): OK`` plus the absolute figure; return whether met.

    ``value`` is what the target is about (often a ratio against the in-run baseline, unit ``x``);
    ``absolute`` carries the raw measurement beside it, e.g. ``"0.84 ms per section vs 9.6 ms"``.
    """
    result = verdict(value, target, direction)
    extra = f"   [{absolute}]" if absolute else ""
    print(f"TARGET {name}: {value:.3g} {unit} (target {direction.value} {target:g} {unit}): {result}{extra}",
          flush=True)
    return result == "OK"
