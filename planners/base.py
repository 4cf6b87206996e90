"""The Planner protocol, what a plan is, and the world state planners read.

Planners only emit tree definitions (``trees.model.TreeDefinition``); they
never tick a tree. A plan validates, renders, saves and runs exactly like a
hand-written tree file.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field

from craftbt.planners.intent import Intent
from craftbt.trees.model import TreeDefinition
from craftbt.world.body import BlockPos, Body

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

#: Workstations a plan may need; a placed one is reused when within this many blocks.
STATION_REUSE_RADIUS = 6


class PlanResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    planner: str
    tree: TreeDefinition
    estimated_cost: float = Field(ge=0)
    confidence: float = Field(ge=0, le=1)
    explanation: str
    steps: int = 0
    #: the method/alternative chosen, for priors (e.g. "solver:mine_then_craft")
    method: str = "default"
    #: every method the plan relies on (HTN: one per decomposed task), for the priors store
    methods: list[str] = Field(default_factory=list)
    #: items the plan consumes that the inventory lacks (a build's materials): the router resolves each
    #: as an ``obtain`` subgoal spliced in front of the plan
    needs: dict[str, int] = Field(default_factory=dict)


class PlanningFailure(Exception):
    """A planner cannot reach the goal from this state; ``reason`` is a stable code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass
class PlanningState:
    """What a planner knows of the world: inventory, blocks seen nearby, stations in reach.

    ``available_blocks`` is ``None`` when nothing was surveyed; planners then
    assume any naturally generated block can be found.
    """

    inventory: dict[str, int] = field(default_factory=dict)
    available_blocks: frozenset[str] | None = None
    #: distance from the player to the nearest exposed block of each available kind
    block_distance: dict[str, float] = field(default_factory=dict)
    stations: frozenset[str] = frozenset()
    position: BlockPos | None = None
    time_of_day: int = 1000
    health: float = 20.0
    food: int = 20
    #: False: plan only from the inventory and the stations in reach (craft and smelt, no mining, hunting,
    #: farming or exploring); a refusal then names the missing ingredient
    gathering: bool = True

    def gathers(self, registry: Registry) -> bool:
        """Whether a plan may gather: this state allows it and ``registry`` can mine (a craft-only registry
        yields no gathering fallback)."""
        return self.gathering and registry.has("acquire_material")

    @classmethod
    def held(cls, body: Body) -> PlanningState:
        """Craft-only: the inventory and the stations in reach, no survey and no gathering (milliseconds)."""
        obs = body.observe()
        near = body.find_blocks(list(STATIONS), STATION_REUSE_RADIUS, max_count=8)
        return cls(inventory=dict(obs.inventory), available_blocks=frozenset(),
                   stations=frozenset(body.block_at(pos).name for pos in near), position=obs.position.block(),
                   time_of_day=obs.time_of_day, health=obs.health, food=obs.food, gathering=False)

    @classmethod
    def survey(cls, body: Body, candidates: list[str], radius: int = 48,
               avoid: Collection[BlockPos] = ()) -> PlanningState:
        """Observe the body: inventory, which candidate blocks exist nearby, which stations are close.

        Blocks in ``avoid`` (found unreachable earlier) do not count as seen."""
        obs = body.observe()
        # Nearest per kind, not one capped find_blocks: a shared max_count lets abundant stone crowd out rare ore.
        here = obs.position
        nearest = dict(body.nearest_blocks(candidates, radius, exposed=True))
        for name in [n for n, pos in nearest.items() if pos in avoid]:
            others = [p for p in body.find_blocks([name], radius, max_count=AVOID_LOOKAHEAD, exposed=True)
                      if p not in avoid]
            if others:
                nearest[name] = min(others, key=lambda p: p.distance_to(here))
            else:
                del nearest[name]
        distance = {
            name: round(nearest[name].distance_to(here), 1) for name in dict.fromkeys(candidates) if name in nearest
        }
        near = body.find_blocks(list(STATIONS), STATION_REUSE_RADIUS, max_count=8)
        stations = frozenset(body.block_at(pos).name for pos in near)
        return cls(
            inventory=dict(obs.inventory),
            available_blocks=frozenset(distance),
            block_distance=distance,
            stations=stations,
            position=obs.position.block(),
            time_of_day=obs.time_of_day,
            health=obs.health,
            food=obs.food,
        )

    def without_blocks(self, blocks: Collection[str]) -> PlanningState:
        """This state with ``blocks`` no longer in view: planners then plan an explore for them."""
        if self.available_blocks is None:
            return self
        return replace(self, available_blocks=self.available_blocks - frozenset(blocks),
                       block_distance={k: v for k, v in self.block_distance.items() if k not in blocks})


#: Blocks of one kind looked at past those to avoid, when the nearest of that kind is one.
AVOID_LOOKAHEAD = 64

#: Blocks that are workstations: placed with ``place_workstation`` and reused when in reach.
STATIONS = ("crafting_table", "furnace", "blast_furnace", "smoker")


class Planner(Protocol):
    """Turns an intent into a tree definition."""

    @property
    def name(self) -> str: ...

    def available(self) -> bool:
        """False when the planner cannot run here (e.g. no LLM configured); the router skips it."""
        ...

    def can_handle(self, intent: Intent) -> bool: ...

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult: ...

    def emittable_verbs(self) -> frozenset[str]:
        """Every capability name this planner can put in a tree (the divergence gate reads it)."""
        ...
