"""The macro plan: a partial order over modules (networkx), linearized with feasibility checks.

Nodes are content-addressed (``<module id>@<witness digest prefix>``) so the
order is stable across sessions. Linearization is a topological sort that,
among ready modules, prefers the seed's ordering principle: utility bootstrap
first, then shell and entrance, then the rest (ties keep template order).

Feasibility checks (each a coded :class:`Infeasibility`):

* ``dependency_cycle`` — the edges do not form a DAG;
* ``order_violation`` — a module comes before one of its dependencies;
* ``unsupported_cell`` — a placement has no neighbour placed by an earlier
  module or by itself and is not on the template's ground layer (nothing to
  place it against);
* ``bootstrap_late`` — a utility module ends up after a shell (an edge forced it).

Beyond those hard refusals, :func:`invariant_costs` is the gate's invariant-violation
cost (seed 001 stage 3 step 4): the plan's checkpoints are replayed on a predicted
world and every invariant it would violate lowers :attr:`MacroPlan.score`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import networkx as nx

from craftbt.capabilities.structures import Anchor, Cell, Facing, is_air
from craftbt.trees.structure_paths import unreached
from craftbt.trees.structure_template import ORDER_RANK, ModuleType, StructureTemplate, opening_cells
from craftbt.world.body import BlockPos

_NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@dataclass(frozen=True)
class Infeasibility:
    code: str
    module_id: str
    detail: str


@dataclass(frozen=True)
class InvariantCost:
    """An invariant the plan is predicted to violate at a checkpoint, and what that costs its score."""

    invariant: str
    module_id: str
    detail: str
    cost: float


#: Seed 001 stage 3 step 4: a predicted violation lowers the plan's feasibility score by its severity.
BLOCKING_COST = 1.0
DEGRADED_COST = 0.3


@dataclass(frozen=True)
class MacroPlan:
    graph: nx.DiGraph
    order: list[str]
    node_ids: dict[str, str]
    problems: list[Infeasibility]
    invariant_costs: list[InvariantCost] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        return not self.problems

    @property
    def invariant_cost(self) -> float:
        return sum(c.cost for c in self.invariant_costs)

    @property
    def score(self) -> float:
        """Feasibility score in (0, 1]: 1 when no invariant is predicted to fail, lower per violation."""
        return 1.0 / (1.0 + self.invariant_cost)


def module_graph(tpl: StructureTemplate) -> nx.DiGraph:
    specs = tpl.specs()
    g: nx.DiGraph = nx.DiGraph()
    for i, m in enumerate(tpl.modules):
        g.add_node(m.id, type=m.type, index=i, digest=specs[m.id].digest, node_id=f"{m.id}@{specs[m.id].digest[7:19]}")
    for m in tpl.modules:
        for dep in m.depends_on:
            g.add_edge(dep, m.id)
    return g


def linearize(g: nx.DiGraph) -> list[str]:
    """Kahn's algorithm with a (rank, template index) priority among ready modules."""
    indeg = {n: g.in_degree(n) for n in g.nodes}
    ready = [(ORDER_RANK[g.nodes[n]["type"]], g.nodes[n]["index"], n) for n, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        _, _, n = heapq.heappop(ready)
        out.append(n)
        for s in g.successors(n):
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(ready, (ORDER_RANK[g.nodes[s]["type"]], g.nodes[s]["index"], s))
    return out


def check_order(tpl: StructureTemplate, g: nx.DiGraph, order: list[str]) -> list[Infeasibility]:
    problems: list[Infeasibility] = []
    if len(order) != g.number_of_nodes():
        stuck = sorted(set(g.nodes) - set(order))
        return [Infeasibility("dependency_cycle", stuck[0], "modules in a cycle: " + ", ".join(stuck))]
    pos = {n: i for i, n in enumerate(order)}
    for a, b in g.edges:
        if pos[a] > pos[b]:
            problems.append(Infeasibility("order_violation", b, f"{b} is ordered before its dependency {a}"))
    shells = [pos[n] for n in order if g.nodes[n]["type"] in (ModuleType.SHELL, ModuleType.ENTRANCE)]
    for n in order:
        if g.nodes[n]["type"] is ModuleType.UTILITY and shells and pos[n] > min(shells):
            problems.append(Infeasibility("bootstrap_late", n, f"utility module {n} comes after the shell"))
    specs = tpl.specs()
    ground = min((p.dy for s in specs.values() for p in s.placements), default=0)
    placed: set[tuple[int, int, int]] = set()
    for n in order:
        own = {p.key for p in specs[n].placements}
        support = placed | own
        for p in specs[n].placements:
            if p.dy == ground:
                continue
            if not any((p.dx + a, p.dy + b, p.dz + c) in support for a, b, c in _NEIGHBOURS):
                problems.append(Infeasibility("unsupported_cell", n, f"nothing to place {p.block} at {p.key} against"))
                break
        placed |= own
    return problems


def invariant_costs(tpl: StructureTemplate, order: list[str]) -> list[InvariantCost]:
    """Predict each checkpoint's world (the placements of the modules built so far, on solid ground) and
    charge every invariant it would violate: a blocked doorway/corridor (access, blocking) and a door cut
    off on foot from the stations built so far (walkable, degraded)."""
    specs = tpl.specs()
    anchor = Anchor(origin=BlockPos(0, 0, 0), facing=Facing.N)
    world: dict[BlockPos, str] = {}

    def read(p: BlockPos) -> str:
        return world.get(p, "stone" if p.y < 0 else "air")

    out: list[InvariantCost] = []
    seen: set[tuple[str, str]] = set()
    doors: list[tuple[str, BlockPos, list[BlockPos]]] = []
    stations: list[BlockPos] = []
    cells = [c for s in specs.values() for c in (*s.placements, *s.required_empty)] or [Cell(dx=0, dy=0, dz=0)]
    lo = BlockPos(min(c.dx for c in cells) - 3, min(c.dy for c in cells) - 1, min(c.dz for c in cells) - 6)
    hi = BlockPos(max(c.dx for c in cells) + 3, max(c.dy for c in cells) + 2, max(c.dz for c in cells) + 3)
    for mid in order:
        for p in specs[mid].placements:
            world[anchor.absolute(p)] = p.block
        for c in specs[mid].required_empty:
            world.setdefault(anchor.absolute(c), "air")
        m = tpl.module(mid)
        if m.entrance is not None:
            opening = [BlockPos(*c) for c in opening_cells(m.entrance)]
            doors.append((mid, opening[0], opening))
        stations += [anchor.absolute(c) for c, _ in tpl.stations(mid)]
        for door_mid, door, opening in doors:
            blocked = [p for p in opening if not is_air(read(p))]
            if blocked and ("access", door_mid) not in seen:
                seen.add(("access", door_mid))
                out.append(
                    InvariantCost("access", mid, f"{door_mid}'s opening filled at {tuple(blocked[0])}", BLOCKING_COST)
                )
            missed = unreached(read, door, stations, lo, hi) if stations else []
            if missed and ("walkable", door_mid) not in seen:
                seen.add(("walkable", door_mid))
                out.append(
                    InvariantCost("walkable", mid, f"door of {door_mid} cut off from {tuple(missed[0])}", DEGRADED_COST)
                )
    return out


def macro_plan(tpl: StructureTemplate) -> MacroPlan:
    g = module_graph(tpl)
    order = linearize(g)
    problems = check_order(tpl, g, order)
    return MacroPlan(
        graph=g,
        order=order,
        node_ids={n: g.nodes[n]["node_id"] for n in g.nodes},
        problems=problems,
        invariant_costs=invariant_costs(tpl, order) if not problems else [],
    )
