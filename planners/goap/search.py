"""A* over GOAP states (item counts + placed stations) with a relaxed-plan heuristic.

The heuristic extracts a relaxed plan from the state (h_FF-like): the goal's
deficit is expanded through the cheapest option of each item against the
state's inventory, ignoring interference between branches except that held
items are used up once. Its cost, in the same SLA-derived units as the
actions, is the estimate; the items it had to produce are the *helpful*
items, and successors are restricted to actions that produce one of them or
place a needed station (falling back to every applicable action when none
does). Plain goal-count A* expands thousands of nodes on a 30-step crafting
plan; this explores a few dozen to a few hundred.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from craftbt.planners.goap.actions import GroundAction
from craftbt.planners.htn.knowledge import Knowledge

_T = TypeVar("_T")

State = tuple[tuple[tuple[str, int], ...], frozenset[str]]


def make_state(inventory: dict[str, int], stations: frozenset[str] | set[str]) -> State:
    return tuple(sorted((k, v) for k, v in inventory.items() if v > 0)), frozenset(stations)


class SearchBudgetExceeded(Exception):
    pass


@dataclass
class SearchResult:
    actions: list[GroundAction]
    cost: float
    expanded: int


#: producers of one item whose relaxed plans the heuristic tries, best-ranked first, before it calls the item unmade
PRODUCERS_TRIED = 4


class Heuristic:
    """Relaxed-plan cost from a state to ``count`` of ``goal``, with the helpful items and stations."""

    def __init__(self, knowledge: Knowledge, actions: list[GroundAction]) -> None:
        self.k = knowledge
        self.unit: dict[str, float] = {}
        self.producers: dict[str, list[GroundAction]] = defaultdict(list)
        for a in actions:
            for item, _ in a.produces:
                self.producers[item].append(a)
        for item, acts in self.producers.items():
            self.producers[item] = sorted(acts, key=lambda a: (self._option_rank(item, a), a.cost))
        self.station_cost = {a.station_added: a.cost for a in actions if a.station_added}
        #: the second pass, tried when the first finds no relaxed plan: every level tries its next producers and
        #: tools too. Held items cost nothing in the cost table, so with two iron ingots held the first choices
        #: were ingots from an iron block and an iron pickaxe to mine the iron with, each needing more of the
        #: ingots it makes; one pass called a bucket unobtainable.
        self.thorough = False

    def _option_rank(self, item: str, action: GroundAction) -> float:
        return sum(self.k.cost(i) * n for i, n in action.consumes if i != item) + action.cost * 1e-6

    def __call__(self, state: State, goal: str, count: int) -> tuple[float, set[str]]:
        inv: dict[str, int] = defaultdict(int, dict(state[0]))
        stations = set(state[1])
        helpful: set[str] = set()
        cost = self._need(goal, count, inv, stations, helpful, frozenset())
        if cost == math.inf:
            inv, stations, helpful = defaultdict(int, dict(state[0])), set(state[1]), set()
            self.thorough = True
            try:
                cost = self._need(goal, count, inv, stations, helpful, frozenset())
            finally:
                self.thorough = False
        return cost, helpful

    def _need(self, item: str, n: int, inv: dict[str, int], stations: set[str], helpful: set[str],
              visiting: frozenset[str]) -> float:
        take = min(inv[item], n)
        inv[item] -= take
        missing = n - take
        if missing <= 0:
            return 0.0
        if item in visiting or not self.producers.get(item):
            return math.inf
        helpful.add(item)
        # the best-ranked producer whose inputs are held or made by something: a mix of held planks ranks
        # first but may need more of one kind than is held and nothing makes
        producers = self.producers[item]
        if len(producers) == 1:
            return self._produce(producers[0], item, missing, inv, stations, helpful, visiting)
        inner = visiting | {item}
        candidates = [a for a in producers if all(
            inv[i] >= k * math.ceil(missing / dict(a.produces)[item]) or (i not in inner and i in self.producers)
            for i, k in a.consumes)] or producers[:1]
        if visiting and not self.thorough:  # below the goal: the best-ranked candidate (trying more there
            # doubled the planning time)
            return self._produce(candidates[0], item, missing, inv, stations, helpful, visiting)
        # the goal's first producer whose relaxed plan grounds out: six oak planks for a note block looked
        # makeable, but one log makes four (the mix of several made options further down does)
        return _first_finite(
            candidates[:PRODUCERS_TRIED], inv, stations, helpful,
            lambda action, i, s, h: self._produce(action, item, missing, i, s, h, visiting))

    def _produce(self, action: GroundAction, item: str, missing: int, inv: dict[str, int], stations: set[str],
                 helpful: set[str], visiting: frozenset[str]) -> float:
        made = dict(action.produces)[item]
        batches = math.ceil(missing / made)
        cost = action.cost * batches
        inv[item] += made * batches - missing
        inner = visiting | {item}
        for ingredient, k in action.consumes:
            cost += self._need(ingredient, k * batches, inv, stations, helpful, inner)
        if action.tools_any and not any(inv[t] > 0 for t in action.tools_any):
            cost += self._tool(action.tools_any, inv, stations, helpful, inner)
        for station in action.stations_needed:
            if station not in stations:
                stations.add(station)
                helpful.add("station:" + station)
                cost += self.station_cost.get(station, 0.0) + self._need(station, 1, inv, stations, helpful, inner)
        return cost

    def _tool(self, tools: frozenset[str], inv: dict[str, int], stations: set[str], helpful: set[str],
              visiting: frozenset[str]) -> float:
        """The relaxed cost of the cheapest of ``tools``; in the thorough pass, of the cheapest that can be made."""
        ranked = sorted(tools, key=lambda t: (self.k.cost(t), t))

        def make(tool: str, i: dict[str, int], s: set[str], h: set[str]) -> float:
            cost = self._need(tool, 1, i, s, h, visiting)
            i[tool] += 1  # a tool is used, not consumed
            return cost

        if not self.thorough:
            return make(ranked[0], inv, stations, helpful)
        return _first_finite(ranked, inv, stations, helpful, make)


def _first_finite(options: Iterable[_T], inv: dict[str, int], stations: set[str], helpful: set[str],
                  attempt: Callable[[_T, dict[str, int], set[str], set[str]], float]) -> float:
    """The relaxed cost of the first of ``options`` whose ``attempt`` grounds out, each tried on a copy of the
    inventory, stations and helpful items; the first finite one's copies become them. Inf when none does."""
    for option in options:
        trial_inv, trial_stations, trial_helpful = defaultdict(int, inv), set(stations), set(helpful)
        cost = attempt(option, trial_inv, trial_stations, trial_helpful)
        if cost < math.inf:
            inv.clear()
            inv.update(trial_inv)
            stations |= trial_stations
            helpful |= trial_helpful
            return cost
    return math.inf


def applicable(action: GroundAction, inv: dict[str, int], stations: frozenset[str]) -> bool:
    if any(inv.get(i, 0) < n for i, n in action.needs):
        return False
    if action.tools_any and not any(inv.get(t, 0) > 0 for t in action.tools_any):
        return False
    return action.stations_needed <= stations


def apply(action: GroundAction, state: State) -> State:
    inv = dict(state[0])
    for item, n in action.consumes:
        inv[item] = inv.get(item, 0) - n
    for item, n in action.produces:
        inv[item] = inv.get(item, 0) + n
    stations = state[1] | {action.station_added} if action.station_added else state[1]
    return make_state(inv, stations)


def astar(
    start: State,
    goal: str,
    count: int,
    actions: list[GroundAction],
    heuristic: Heuristic,
    *,
    max_expansions: int = 20_000,
    timeout_ms: float = 2_000,
    helpful_only: bool = True,
) -> SearchResult | None:
    """A* from ``start`` to ``count`` of ``goal``. With ``helpful_only`` a state expands only the actions making
    what the heuristic's relaxed plan needs (when any applies); when that search runs dry having set other
    actions aside, it is run again expanding every applicable action: the relaxed plan names one mix of a
    craft (six oak planks for a note block) where only a mix of several made options is payable (four oak,
    two jungle)."""
    if helpful_only:
        pruned: list[bool] = []
        found = _astar(start, goal, count, actions, heuristic, max_expansions, timeout_ms, pruned)
        if found is not None or not pruned:
            return found
    return _astar(start, goal, count, actions, heuristic, max_expansions, timeout_ms, None)


def _astar(start: State, goal: str, count: int, actions: list[GroundAction], heuristic: Heuristic,
           max_expansions: int, timeout_ms: float, pruned: list[bool] | None) -> SearchResult | None:
    """One A* run; ``pruned`` (a flag list) set: helpful actions only, and noted there when others were set aside."""
    deadline = time.perf_counter() + timeout_ms / 1000
    h0, _ = heuristic(start, goal, count)
    if math.isinf(h0):
        return None
    tie = itertools.count()
    frontier: list[tuple[float, float, int, State]] = [(h0, h0, next(tie), start)]
    g: dict[State, float] = {start: 0.0}
    parent: dict[State, tuple[State, GroundAction]] = {}
    expanded = 0
    while frontier:
        _, _, _, state = heapq.heappop(frontier)
        inv = dict(state[0])
        if inv.get(goal, 0) >= count:
            return SearchResult(_path(parent, state), g[state], expanded)
        expanded += 1
        if expanded > max_expansions or (expanded % 64 == 0 and time.perf_counter() > deadline):
            raise SearchBudgetExceeded(f"{expanded} expansions")
        _, helpful = heuristic(state, goal, count)
        usable = [a for a in actions if applicable(a, inv, state[1])]
        preferred = [a for a in usable if any(i in helpful for i, _ in a.produces)
                     or (a.station_added is not None and "station:" + a.station_added in helpful)]
        if pruned is not None and preferred and len(preferred) < len(usable):
            if not pruned:
                pruned.append(True)
        else:
            preferred = usable
        for action in preferred:
            nxt = apply(action, state)
            cost = g[state] + action.cost
            if cost >= g.get(nxt, math.inf):
                continue
            h_next, _ = heuristic(nxt, goal, count)
            if math.isinf(h_next):
                continue
            g[nxt] = cost
            parent[nxt] = (state, action)
            heapq.heappush(frontier, (cost + h_next, h_next, next(tie), nxt))
    return None


def _path(parent: dict[State, tuple[State, GroundAction]], state: State) -> list[GroundAction]:
    out: list[GroundAction] = []
    while state in parent:
        state, action = parent[state]
        out.append(action)
    out.reverse()
    return out
