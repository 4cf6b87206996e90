"""The semantic-guard handlers (seed 000 action contracts): what a guarded action becomes when a guard fires.

:func:`capabilities.contracts.route_action` sends a guarded action to a handler
instead of its leaf when a semantic guard fires:

* ``execute_place_block`` — ``place_block`` with ``count > 1`` or a ``placement``
  other than ``around_player``: one verified ``place_block`` leaf per block, at
  the positions the placement names (``around_player``: beside the player, at most
  4; ``line``: along ``axis`` x or z from ``position``; ``column``: upward from
  ``position``);
* ``execute_collect_items_enhanced`` — ``collect_items`` with ``exploreOnFail``:
  collect here, else walk ``explore_distance`` blocks in each horizontal direction
  in turn and collect there (a selector: the first that collects wins).

:func:`action_node` is the whole path for one action: route it, and return the
leaf, or the handler's subtree. A handler never guesses: an unknown placement, a
missing position or a count the placement cannot hold is an ``invalid_args`` error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from craftbt.capabilities.contracts import ACTION_CONTRACTS, RouteDecision, route_action
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees.model import LeafNode, Node, SelectorNode, SequenceNode
from craftbt.world.body import BlockPos

#: the cells beside the player ``place_block`` fills without a position
AROUND_PLAYER_MAX = 4
MAX_BLOCKS = 64
#: how far the explore-on-fail fallback walks before collecting again
EXPLORE_DISTANCE = 12
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))

Handler = Callable[[RouteDecision, Mapping[str, Any], BlockPos | None], Node]


def _refuse(action: str, detail: str) -> CraftbtError:
    return CraftbtError.single(ErrorCode.INVALID_ARGS, f"{action}: {detail}")


def _leaf_args(decision: RouteDecision) -> dict[str, Any]:
    """The leaf's args: the guard's own keys (``exploreOnFail``, ``placement``, ``count``) are the handler's."""
    contract = ACTION_CONTRACTS.get(decision.contract or "")
    strip = contract.strip if contract is not None else frozenset()
    return {k: v for k, v in decision.args.items() if k not in strip}


def _position(params: Mapping[str, Any]) -> BlockPos | None:
    raw = params.get("position") or params.get("pos")
    if isinstance(raw, Mapping) and all(isinstance(raw.get(k), int) for k in ("x", "y", "z")):
        return BlockPos(int(raw["x"]), int(raw["y"]), int(raw["z"]))
    return None


def execute_place_block(decision: RouteDecision, params: Mapping[str, Any], at: BlockPos | None) -> Node:
    """``count`` blocks of ``item`` where ``placement`` says, one verified leaf per block."""
    item = str(decision.args["item"])
    count = int(params.get("count") or 1)
    placement = str(params.get("placement") or "around_player")
    if not 1 <= count <= MAX_BLOCKS:
        raise _refuse(decision.action_type, f"count must be 1..{MAX_BLOCKS}, got {count}")
    if placement == "around_player":
        if count > AROUND_PLAYER_MAX:
            raise _refuse(decision.action_type, f"placement around_player holds at most {AROUND_PLAYER_MAX} "
                                                f"blocks, got count {count}: use line or column with a position")
        leaves = [LeafNode(name=f"place {item} {i + 1}/{count}", capability="place_block", args={"item": item})
                  for i in range(count)]
    elif placement in ("line", "column"):
        start = _position(params)
        if start is None:
            raise _refuse(decision.action_type, f"placement {placement} needs a position {{x, y, z}}")
        axis = str(params.get("axis") or "x")
        if placement == "line" and axis not in ("x", "z"):
            raise _refuse(decision.action_type, f"axis must be x or z, got {axis!r}")
        step = (0, 1, 0) if placement == "column" else ((1, 0, 0) if axis == "x" else (0, 0, 1))
        cells = [start.offset(dx=step[0] * i, dy=step[1] * i, dz=step[2] * i) for i in range(count)]
        leaves = [LeafNode(name=f"place {item} {i + 1}/{count}", capability="place_block",
                           args={"item": item, "pos": {"x": c.x, "y": c.y, "z": c.z}})
                  for i, c in enumerate(cells)]
    else:
        raise _refuse(decision.action_type, f"unknown placement {placement!r}: around_player, line or column")
    return leaves[0] if len(leaves) == 1 else SequenceNode(name=f"place {count} {item} ({placement})",
                                                           children=list(leaves))


def execute_collect_items_enhanced(decision: RouteDecision, params: Mapping[str, Any],
                                   at: BlockPos | None) -> Node:
    """Collect here; else walk out in each direction and collect there (explore on fail)."""
    if at is None:
        raise _refuse(decision.action_type, "exploreOnFail needs the player's position to explore from")
    args = _leaf_args(decision)
    distance = int(params.get("explore_distance") or EXPLORE_DISTANCE)
    label = args.get("itemName") or "items"
    tries: list[Node] = [LeafNode(name=f"collect {label} here", capability="collect_items", args=dict(args))]
    for n, (dx, dz) in enumerate(DIRECTIONS, start=1):
        goal = at.offset(dx=dx * distance, dz=dz * distance)
        tries.append(SequenceNode(name=f"explore {n}: collect {label} there", children=[
            LeafNode(name=f"explore {n}", capability="move_to",
                     args={"pos": {"x": goal.x, "y": goal.y, "z": goal.z}}),
            LeafNode(name=f"collect {label} #{n + 1}", capability="collect_items", args=dict(args)),
        ]))
    return SelectorNode(name=f"collect {label}, exploring on fail", memory=True, children=tries)


HANDLERS: dict[str, Handler] = {
    "execute_place_block": execute_place_block,
    "execute_collect_items_enhanced": execute_collect_items_enhanced,
}


def action_node(action_type: str, params: Mapping[str, Any], *, registry: Registry | None = None,
                at: BlockPos | None = None) -> Node:
    """One action as a tree node: its leaf, or the subtree of the handler its semantic guard chose."""
    decision = route_action(action_type, params, registry=registry)
    if decision.guard is not None and decision.handler in HANDLERS:
        return HANDLERS[decision.handler](decision, params, at)
    return LeafNode(capability=decision.leaf, args=dict(decision.args))
