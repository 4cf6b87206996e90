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
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import networkx as nx

from craftbt.trees.structure_template import ORDER_RANK, ModuleType, StructureTemplate

_NEIGHBOURS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@dataclass(frozen=True)
class Infeasibility:
    code: str
    module_id: str
    detail: str


@dataclass(frozen=True)
class MacroPlan:
    graph: nx.DiGraph
    order: list[str]
    node_ids: dict[str, str]
    problems: list[Infeasibility]

    @property
    def feasible(self) -> bool:
        return not self.problems


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


def macro_plan(tpl: StructureTemplate) -> MacroPlan:
    g = module_graph(tpl)
    order = linearize(g)
    problems = check_order(tpl, g, order)
    return MacroPlan(graph=g, order=order, node_ids={n: g.nodes[n]["node_id"] for n in g.nodes}, problems=problems)
