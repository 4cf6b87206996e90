"""A small total-order HTN engine with backtracking that keeps the decomposition tree.

Tasks are ``(name, *args)`` tuples. A primitive task names an :class:`Operator`:
a function that checks and applies its effect to a copy of the state and
returns the :class:`~planners.ppa.PlanStep` it stands for (or ``None`` for pure
bookkeeping such as reserving an ingredient). A compound task names
:class:`Method` alternatives; each method yields zero or more bindings
(``label``, subtasks). The alternatives of a task are ordered by an injected
function (the planner orders by estimated cost and by the priors store).

The search is depth-first over generators, so a dead end anywhere backtracks
into the most recent choice point, including choices made for earlier sibling
tasks. Unlike GTPyhop 2.0.2 (whose default strategy never backtracks, whose
``max_expansions`` is not enforced and whose global domain is not
thread-safe), the budget here is enforced on expansions and on wall time, each
engine owns its domain, and the result is the decomposition tree, not a flat
action list.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from craftbt.planners.ppa import PlanStep


class HtnState(Protocol):
    def copy(self) -> Any: ...


S = TypeVar("S", bound=HtnState)

Task = tuple[Any, ...]
OperatorFn = Callable[..., PlanStep | bool | None]
#: a method yields ``(label, subtasks)`` or ``(label, subtasks, estimated_cost)`` per binding
MethodFn = Callable[..., Iterable[tuple[Any, ...]]]


@dataclass(frozen=True)
class Operator:
    """A primitive task. ``capability`` is the leaf it emits (``None``: bookkeeping only)."""

    task: str
    capability: str | None
    apply: OperatorFn


@dataclass(frozen=True)
class Method:
    """One way to decompose ``task``; ``library`` names the method library it belongs to."""

    task: str
    name: str
    decompose: MethodFn
    library: str = "general"


@dataclass
class Alternative:
    method: Method
    label: str
    subtasks: list[Task]
    cost: float = 0.0

    @property
    def method_id(self) -> str:
        return f"{self.method.task}:{self.method.name}" + (f":{self.label}" if self.label else "")


@dataclass
class Domain:
    """Operators and methods by task name; each planner instance owns one."""

    operators: dict[str, Operator] = field(default_factory=dict)
    methods: dict[str, list[Method]] = field(default_factory=dict)
    #: For a task name, how many leading arguments name its goal: ``obtain`` with 1 makes
    #: ``("obtain", "iron_ingot", 9)`` under ``("obtain", "iron_ingot", 1)`` a cycle, as an
    #: identical task is. Without it a recipe loop (ingot <- nugget <- smelted shovel <- ingot)
    #: recursed with ever larger counts until the depth budget ran out.
    goal_args: dict[str, int] = field(default_factory=dict)

    def goal_of(self, task: Task) -> Task:
        """The part of ``task`` that says what it achieves (the whole task unless ``goal_args`` says less)."""
        n = self.goal_args.get(task[0])
        return task if n is None else task[: 1 + n]

    def operator(self, task: str, capability: str | None) -> Callable[[OperatorFn], OperatorFn]:
        def register(fn: OperatorFn) -> OperatorFn:
            self.operators[task] = Operator(task, capability, fn)
            return fn

        return register

    def method(self, task: str, name: str, library: str = "general") -> Callable[[MethodFn], MethodFn]:
        def register(fn: MethodFn) -> MethodFn:
            self.methods.setdefault(task, []).append(Method(task, name, fn, library))
            return fn

        return register

    def capabilities(self) -> frozenset[str]:
        return frozenset(op.capability for op in self.operators.values() if op.capability is not None)


@dataclass
class PrimitiveNode:
    task: Task
    operator: Operator
    step: PlanStep | None


@dataclass
class CompoundNode:
    task: Task
    alternative: Alternative
    children: list[PrimitiveNode | CompoundNode]
    pre_state: Any = None
    post_state: Any = None
    #: other alternatives that were applicable here, best first (for fallback selectors)
    others: list[Alternative] = field(default_factory=list)


DecompNode = PrimitiveNode | CompoundNode


class BudgetExceeded(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


Order = Callable[[Task, list[Alternative], Any], list[Alternative]]


def keep_order(task: Task, alternatives: list[Alternative], state: Any) -> list[Alternative]:
    return alternatives


@dataclass
class Solution(Generic[S]):
    nodes: list[DecompNode]
    state: S
    expansions: int


class Engine(Generic[S]):
    """Depth-first decomposition with backtracking, bounded by expansions, depth and time."""

    def __init__(
        self,
        domain: Domain,
        order: Order = keep_order,
        *,
        max_expansions: int = 20_000,
        timeout_ms: float = 2_000,
        max_depth: int = 64,
    ) -> None:
        self.domain = domain
        self.order = order
        self.max_expansions = max_expansions
        self.timeout_ms = timeout_ms
        self.max_depth = max_depth
        self.expansions = 0
        self._deadline = 0.0

    def solve(self, state: S, tasks: list[Task]) -> Solution[S] | None:
        """The first decomposition of ``tasks`` from ``state``; ``None`` when none exists.

        Raises :class:`BudgetExceeded` when the expansion, depth or time budget runs out.
        """
        self.expansions = 0
        self._deadline = time.perf_counter() + self.timeout_ms / 1000
        for nodes, final in self._seq(tasks, state, ()):
            return Solution(nodes, final, self.expansions)
        return None

    def alternatives(self, task: Task, state: S) -> list[Alternative]:
        found: list[Alternative] = []
        for method in self.domain.methods.get(task[0], []):
            for label, subtasks, *cost in method.decompose(state, *task[1:]):
                found.append(Alternative(method, label, subtasks, float(cost[0]) if cost else 0.0))
        return self.order(task, found, state)

    def decompose_one(self, task: Task, state: S, alternative: Alternative) -> tuple[list[DecompNode], S] | None:
        """The first decomposition of ``task`` through one given alternative (fallback branches)."""
        for nodes, final in self._seq(alternative.subtasks, state, (self.domain.goal_of(task),)):
            return nodes, final
        return None

    def _tick(self, depth: int) -> None:
        self.expansions += 1
        if self.expansions > self.max_expansions:
            raise BudgetExceeded(f"more than {self.max_expansions} expansions")
        if depth > self.max_depth:
            raise BudgetExceeded(f"decomposition deeper than {self.max_depth}")
        if self.expansions % 64 == 0 and time.perf_counter() > self._deadline:
            raise BudgetExceeded(f"planning took longer than {self.timeout_ms:.0f} ms")

    def _seq(self, tasks: list[Task], state: S, stack: tuple[Task, ...]) -> Iterator[tuple[list[DecompNode], S]]:
        """Every decomposition of ``tasks`` in order, depth first, the same order as nested recursion.
        ``stack``: the goals (:meth:`Domain.goal_of`) of the compound tasks being decomposed, outermost first.

        One loop with a stack of per-task iterators, not one generator per remaining task: through a
        recursion each result climbed back up as many generators as the sequence had tasks and was
        copied at each (quadratic in the length of a sequence, and plans are long sequences).
        """
        n = len(tasks)
        if not n:
            yield [], state
            return
        iters = [self._task(tasks[0], state, stack)]  # iters[i] decomposes tasks[i]
        nodes: list[DecompNode] = []  # nodes[i]: the current decomposition of tasks[i]
        while iters:
            i = len(iters) - 1
            found = next(iters[i], None)
            if found is None:
                iters.pop()  # tasks[i] has no more: backtrack into tasks[i - 1]
                continue
            node, after = found
            del nodes[i:]
            nodes.append(node)
            if i + 1 == n:
                yield list(nodes), after
            else:
                iters.append(self._task(tasks[i + 1], after, stack))

    def _task(self, task: Task, state: S, stack: tuple[Task, ...]) -> Iterator[tuple[DecompNode, S]]:
        self._tick(len(stack))
        operator = self.domain.operators.get(task[0])
        if operator is not None:
            after = state.copy()
            step = operator.apply(after, *task[1:])
            if step is False:
                return
            yield PrimitiveNode(task, operator, step if isinstance(step, PlanStep) else None), after
            return
        goal = self.domain.goal_of(task)
        if goal in stack:  # the stack holds goals, each worked out once: this ran for every level at every task
            return  # a goal needed to achieve itself (in any amount): this branch cannot ground out
        alternatives = self.alternatives(task, state)
        for index, alternative in enumerate(alternatives):
            for children, after in self._seq(alternative.subtasks, state, (*stack, goal)):
                others = alternatives[index + 1:]
                yield CompoundNode(task, alternative, children, state, after, others), after


def walk(nodes: list[DecompNode]) -> Iterator[DecompNode]:
    for node in nodes:
        yield node
        if isinstance(node, CompoundNode):
            yield from walk(node.children)


def plan_steps(nodes: list[DecompNode]) -> list[PlanStep]:
    return [n.step for n in walk(nodes) if isinstance(n, PrimitiveNode) and n.step is not None]


def methods_used(nodes: list[DecompNode]) -> list[str]:
    return list(dict.fromkeys(n.alternative.method_id for n in walk(nodes) if isinstance(n, CompoundNode)))
