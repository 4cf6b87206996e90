"""The CraftScript interpreter (seed 004 sections 3-9): a generator over game ticks.

``Interpreter.run()`` is a runner in the capability sense: it yields ``None`` to wait one game tick
(or a body handle it waits on) and returns a :class:`ScriptOutcome`. World commands go through
:class:`~craftbt.craftscript.dispatch.Dispatcher` (registered capabilities) or, for the few with no
capability (move, turn, build_up, equip, drop), straight to the body; reads go through
:class:`~craftbt.craftscript.introspect.Introspection` and a voxel cache that ``move``, ``dig``,
``place``, ``goto`` (and every other world-changing command) invalidate.

Execution model: sequential; the first hard error aborts with section 7's failure shape; every
statement, loop iteration and predicate call costs one op against ``max_ops`` (10,000); macro and
function calls nest at most ``max_depth`` (10) deep.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from pydantic import ValidationError

from craftbt.capabilities.leaves.common import is_item_entity
from craftbt.capabilities.spec import ActionResult
from craftbt.craftscript import ast as a
from craftbt.craftscript.commands import COMMANDS, HAZARD_NAMES, PREDICATES
from craftbt.craftscript.dispatch import Dispatcher
from craftbt.craftscript.errors import ScriptError, ScriptErrorCode
from craftbt.craftscript.introspect import AIRS, Introspection, canonical, strip
from craftbt.craftscript.navpolicy import NavFailure, NavPolicy, apply_to_body, hazard_near, path_violation
from craftbt.world.body import FACE_OFFSETS, ActionHandle, ActionStatus, BlockPos, Body, BodyError, Face
from craftbt.world.terrain import HAZARDS

Gen = Generator[ActionHandle | None, ActionHandle | None, Any]

#: cardinal headings, clockwise from north: (dx, dz) of "forward"
HEADINGS: tuple[tuple[int, int], ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
HEADING_NAMES = ("north", "east", "south", "west")
#: transient retries for place/plant (place_timeout) and container opens (container_timeout)
RETRY_DELAYS_TICKS = (5, 10, 20)
MAX_WAIT_CHUNK_MS = 60_000
#: a log line keeps at most this many characters of its text
MAX_LOG_TEXT = 4_096
#: what each way a run can stop before its script ends means to the script's author
_STOPPED_WHY = {
    "budget_exhausted": "the run's game-time budget (max_ticks) ran out",
    "cancelled": "the run was cancelled",
    "hung": "a command made no progress (the run was stopped as hung)",
    "escalated": "the run escalated (craftbt show RUN has why)",
}
#: plant walks to within this many blocks of its cell before placing
APPROACH_DISTANCE = 3.5
#: commands after which the bot may still be falling or landing (a dig under the feet, a jump-place, a step)
SETTLE_AFTER = frozenset({"dig", "break", "place", "plant", "build_up", "move", "goto"})
#: the longest wait for the bot to come to rest after one of them (2 s of game time)
SETTLE_TICKS = 40


@dataclass(frozen=True)
class Rel:
    """A selector evaluated: forward, right, up steps (relative to the heading at the time of use)."""

    forward: int
    right: int
    up: int
    text: str


@dataclass(frozen=True)
class Pos:
    x: int
    y: int
    z: int
    label: str | None = None


Value = int | bool | str | Rel | Pos


@dataclass
class Limits:
    max_ops: int = 10_000
    max_depth: int = 10
    #: the longest string ``+`` may build: ``s = s + s`` doubles, so 10,000 ops could otherwise ask for 2**10000
    max_string: int = 100_000


@dataclass
class ScriptOutcome:
    ok: bool
    status: str  # completed | failed | canceled
    ops: int
    error: dict[str, Any] | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    logs: list[dict[str, Any]] = field(default_factory=list)
    block_changes: list[dict[str, Any]] = field(default_factory=list)
    position: list[float] = field(default_factory=list)


class FunctionSource(Protocol):
    """What the interpreter needs from a function store: the latest version of a function, or None."""

    def latest(self, name: str) -> dict[str, Any] | None: ...


class _Abort(Exception):
    def __init__(self, error: ScriptError, op: str | None = None, at: dict[str, Any] | None = None,
                 notes: dict[str, Any] | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.op = op
        self.at = at
        self.notes = notes
        #: the macro and function calls the failure happened in, innermost first (set where it is raised)
        self.calls: list[dict[str, Any]] | None = None


def _type_name(v: Value) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "string"
    return "position"


def _fmt(v: Value) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Rel):
        return v.text
    if isinstance(v, Pos):
        return f"{v.x},{v.y},{v.z}"
    return str(v)


class Interpreter:
    def __init__(
        self,
        program: a.Program,
        body: Body,
        dispatcher: Dispatcher,
        *,
        functions: FunctionSource | None = None,
        waypoints: dict[str, tuple[int, int, int]] | None = None,
        limits: Limits | None = None,
        core_macros: dict[str, a.MacroDecl] | None = None,
        args: dict[str, Value] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.program = program
        self.body = body
        self.dispatcher = dispatcher
        self.functions = functions
        self.waypoints = dict(waypoints or {})
        self.limits = limits or Limits()
        self.macros: dict[str, a.MacroDecl] = {**(core_macros or {}), **program.macros}
        self.vox = Introspection(body)
        self.md = self.vox.md
        self.clock = clock
        self.ops = 0
        self.op_index = -1
        self.depth = 0
        self.steps: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []
        self.changes: list[dict[str, Any]] = []
        #: the voxel cache (seed section 5): block names read since game time last passed; scans fill it,
        #: every read goes through it, and it is cleared whenever a command let ticks pass
        self.cache: dict[BlockPos, str] = {}
        self.vox.memo = self.cache
        self.heading = _heading_from_yaw(body.observe().yaw)
        self.scopes: list[dict[str, Value]] = [dict(args or {})]
        self._fn_cache: dict[str, a.Program] = {}
        self._last_loc = program.loc
        #: the command being run, for a failure that comes from outside the script (see :meth:`stopped`)
        self._op: str | None = None
        #: the macro and function calls running: name and call site
        self._calls: list[tuple[str, a.Loc]] = []
        #: those calls as they were when the run closed the script (the stack has unwound since)
        self._stopped_in: list[dict[str, Any]] | None = None

    # -- entry --------------------------------------------------------------------------------
    def run(self) -> Generator[ActionHandle | None, ActionHandle | None, ScriptOutcome]:
        error: dict[str, Any] | None = None
        status = "completed"
        try:
            yield from self.exec_block(self.program.body, new_scope=False)
        except _Abort as abort:
            error = self._failure(abort)
            status = "failed"
        except RecursionError:
            # bounded nesting per script (parser) times bounded call depth can still exceed Python's stack
            error = self._failure(_Abort(ScriptError(ScriptErrorCode.TOO_DEEP, "nesting too deep to run (blocks "
                                                     "inside macro and function calls)", self._last_loc)))
            status = "failed"
        except GeneratorExit:
            raise
        return ScriptOutcome(ok=error is None, status=status, ops=self.ops, error=error, steps=self.steps,
                             logs=self.logs, block_changes=self.changes, position=self._position())

    def stopped(self, run_status: str) -> ScriptOutcome:
        """The outcome of a script its run stopped before the script ended (the game-time budget used up, a
        cancel, a hung leaf, the body gone): section 7's failure located at the statement that was running,
        with everything logged, done and changed until then."""
        why = _STOPPED_WHY.get(run_status, f"the run ended as {run_status}")
        abort = _Abort(ScriptError(run_status, f"{why} while the script was running", self._last_loc), self._op,
                       None, {"run_status": run_status})
        abort.calls = self._stopped_in if self._stopped_in is not None else self._call_sites()
        error = self._failure(abort)
        return ScriptOutcome(ok=False, status="canceled" if run_status == "cancelled" else "failed", ops=self.ops,
                             error=error, steps=self.steps, logs=self.logs, block_changes=self.changes,
                             position=self._position())

    def _position(self) -> list[float]:
        try:
            p = self.body.position()
        except BodyError:  # the body is gone (the run ended escalated): no position to report
            return []
        return [p.x, p.y, p.z]

    def _failure(self, abort: _Abort) -> dict[str, Any]:
        err = abort.error
        out: dict[str, Any] = {"ok": False, "error": err.code, "message": err.message}
        if abort.op is not None:
            out["op"] = abort.op
        out["op_index"] = max(self.op_index, 0)
        out["loc"] = err.loc.as_dict() if err.loc else None
        if abort.at is not None:
            out["at"] = abort.at
        out["notes"] = abort.notes or {}
        if abort.calls:  # a failure inside a macro or function: where the script called it
            out["notes"] = {**out["notes"], "called_from": abort.calls}
        out["ts"] = int(self.clock() * 1000)
        self.logs.append({"kind": "fail", **{k: v for k, v in out.items() if k != "ok"}})
        return out

    def _fail(self, code: ScriptErrorCode | str, message: str, loc: a.Loc, *, op: str | None = None,
              at: dict[str, Any] | None = None, notes: dict[str, Any] | None = None) -> NoReturn:
        raise _Abort(ScriptError(code, message, loc), op, at, notes)

    def _tick_op(self, loc: a.Loc) -> None:
        self._last_loc = loc
        self.ops += 1
        if self.ops > self.limits.max_ops:
            self._fail(ScriptErrorCode.OP_LIMIT, f"op limit of {self.limits.max_ops} reached", loc)

    # -- statements ---------------------------------------------------------------------------
    def exec_block(self, stmts: tuple[a.Stmt, ...], new_scope: bool = True) -> Gen:
        if new_scope:
            self.scopes.append({})
        try:
            for stmt in stmts:
                yield from self.exec_stmt(stmt)
        finally:
            if new_scope:
                self.scopes.pop()

    def exec_stmt(self, s: a.Stmt) -> Gen:
        if isinstance(s, (a.MacroDecl, a.EmptyStmt)):
            return
        self._tick_op(s.loc)
        if isinstance(s, a.Command):
            yield from self.exec_command(s)
        elif isinstance(s, a.LetStmt):
            value = self.eval(s.value)
            self.scopes[-1][s.name] = value
            self.logs.append({"kind": "var_set", "name": s.name, "value": _jsonable(value), "line": s.loc.line})
        elif isinstance(s, a.AssignStmt):
            value = self.eval(s.value)
            for scope in reversed(self.scopes):
                if s.name in scope:
                    scope[s.name] = value
                    break
            else:
                self._fail(ScriptErrorCode.UNDEFINED_VARIABLE, f"assignment to undeclared variable {s.name!r}",
                           s.loc)
            self.logs.append({"kind": "var_set", "name": s.name, "value": _jsonable(value), "line": s.loc.line})
        elif isinstance(s, a.Block):
            yield from self.exec_block(s.body)
        elif isinstance(s, a.IfStmt):
            test = self._bool(self.eval(s.test), s.test.loc, "if condition")
            self.logs.append({"kind": "if", "value": test, "line": s.loc.line})
            if test:
                yield from self.exec_block(s.consequent.body)
            elif isinstance(s.alternate, a.Block):
                yield from self.exec_block(s.alternate.body)
            elif isinstance(s.alternate, a.IfStmt):
                yield from self.exec_stmt(s.alternate)
        elif isinstance(s, a.WhileStmt):
            while self._bool(self.eval(s.test), s.test.loc, "while condition"):
                self._tick_op(s.loc)
                yield from self.exec_block(s.body.body)
        elif isinstance(s, a.RepeatStmt):
            yield from self.exec_repeat(s)
        elif isinstance(s, a.AssertStmt) and not self._bool(self.eval(s.test), s.test.loc, "assert condition"):
            self._fail(ScriptErrorCode.ASSERT_FAILED, s.message or "assertion failed", s.loc, op="assert")

    def exec_repeat(self, s: a.RepeatStmt) -> Gen:
        if s.start is not None:
            assert s.end is not None
            start = self._int(self.eval(s.start), s.start.loc)
            end = self._int(self.eval(s.end), s.end.loc)
            step = self._int(self.eval(s.step), s.step.loc) if s.step is not None else 1
            if step <= 0:
                self._fail(ScriptErrorCode.BAD_ARGS, f"repeat step must be positive, got {step}", s.loc)
            values: range = range(start, end + 1, step)
        else:
            assert s.count is not None
            values = range(max(0, self._int(self.eval(s.count), s.count.loc)))
        self.logs.append({"kind": "repeat_init", "var": s.var, "from": values.start if values else None,
                          "to": values[-1] if values else None, "step": values.step, "count": len(values),
                          "line": s.loc.line})
        for v in values:
            self._tick_op(s.loc)
            if s.var is not None:
                self.logs.append({"kind": "repeat_iter", "var": s.var, "value": v, "line": s.loc.line})
                self.scopes.append({s.var: v})
            else:
                self.logs.append({"kind": "repeat_iter", "value": v, "line": s.loc.line})
                self.scopes.append({})
            try:
                yield from self.exec_block(s.body.body)
            finally:
                self.scopes.pop()
        self.logs.append({"kind": "repeat_end", "var": s.var, "line": s.loc.line})

    # -- expressions --------------------------------------------------------------------------
    def eval(self, e: a.Expr) -> Value:
        if isinstance(e, (a.Number, a.String, a.Boolean)):
            return e.value
        if isinstance(e, a.Identifier):
            for scope in reversed(self.scopes):
                if e.name in scope:
                    return scope[e.name]
            self._fail(ScriptErrorCode.UNDEFINED_VARIABLE, f"undefined variable {e.name!r}", e.loc)
        if isinstance(e, a.Selector):
            return self._selector(e)
        if isinstance(e, a.UnaryExpr):
            v = self.eval(e.arg)
            if e.op == "!":
                return not self._bool(v, e.arg.loc, "'!' operand")
            return -self._int(v, e.arg.loc)
        if isinstance(e, a.LogicalExpr):
            # short-circuit, as in C: the right side (and its predicate trace) is skipped when decided
            left = self._bool(self.eval(e.left), e.left.loc, f"'{e.op}' operand")
            if e.op == "&&" and not left:
                return False
            if e.op == "||" and left:
                return True
            return self._bool(self.eval(e.right), e.right.loc, f"'{e.op}' operand")
        if isinstance(e, a.BinaryExpr):
            return self._binary(e)
        if isinstance(e, a.Waypoint):
            name = self.eval(e.name)
            if not isinstance(name, str) or name not in self.waypoints:
                known = ", ".join(sorted(self.waypoints)) or "none defined"
                self._fail(ScriptErrorCode.UNKNOWN_WAYPOINT, f"unknown waypoint {_fmt(name)!r} (known: {known})",
                           e.loc)
            x, y, z = self.waypoints[name]
            return Pos(x, y, z, name)
        if isinstance(e, a.BlockQuery):
            return self._block_query(e)
        if isinstance(e, a.PredicateCall):
            return self.predicate(e)
        raise AssertionError(f"unhandled expression {type(e).__name__}")  # pragma: no cover

    def _binary(self, e: a.BinaryExpr) -> Value:
        left, right = self.eval(e.left), self.eval(e.right)
        if e.op in ("==", "!="):
            same = _type_name(left) == _type_name(right) and left == right
            return same if e.op == "==" else not same
        if e.op == "+" and isinstance(left, str) and isinstance(right, str):
            if len(left) + len(right) > self.limits.max_string:
                self._fail(ScriptErrorCode.TOO_LONG, f"string of {len(left) + len(right)} characters; the limit is "
                           f"{self.limits.max_string}", e.loc)
            return left + right
        li, ri = self._int(left, e.left.loc), self._int(right, e.right.loc)
        if e.op in ("+", "-", "*"):
            # the result is checked as the operands are: 2**53 + 2**53 must not reach a log or a coordinate
            return self._int(li + ri if e.op == "+" else li - ri if e.op == "-" else li * ri, e.loc)
        if e.op in ("/", "%"):
            if ri == 0:
                self._fail(ScriptErrorCode.DIVISION_BY_ZERO, "division by zero", e.loc)
            q = abs(li) // abs(ri) * (1 if (li >= 0) == (ri > 0) else -1)  # C: truncate toward zero
            return q if e.op == "/" else li - q * ri
        return {"<": li < ri, "<=": li <= ri, ">": li > ri, ">=": li >= ri}[e.op]

    def _int(self, v: Value, loc: a.Loc) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            self._fail(ScriptErrorCode.BAD_TYPE, f"expected an int, got {_type_name(v)} {_fmt(v)!r}", loc)
        if abs(v) > a.MAX_INT:
            self._fail(ScriptErrorCode.BAD_TYPE, f"integer out of range (beyond +/-{a.MAX_INT})", loc)
        return v

    def _bool(self, v: Value, loc: a.Loc, what: str) -> bool:
        if not isinstance(v, bool):
            self._fail(ScriptErrorCode.BAD_TYPE, f"{what} must be a bool, got {_type_name(v)} {_fmt(v)!r}", loc)
        return v

    def _str(self, v: Value, loc: a.Loc) -> str:
        if not isinstance(v, str):
            self._fail(ScriptErrorCode.BAD_TYPE, f"expected a string, got {_type_name(v)} {_fmt(v)!r}", loc)
        return v

    def _selector(self, e: a.Selector) -> Rel:
        f = r = u = 0
        parts: list[str] = []
        for t in e.terms:
            n = self._int(self.eval(t.count), t.count.loc)
            parts.append(f"{t.axis}{n}{'^' if t.rise > 0 else '_' if t.rise < 0 else ''}")  # u(h) shows as u3
            if t.axis == "f":
                f += n
            elif t.axis == "b":
                f -= n
            elif t.axis == "r":
                r += n
            elif t.axis == "l":
                r -= n
            elif t.axis == "u":
                u += n
            else:
                u -= n
            u += t.rise
        return Rel(f, r, u, "+".join(parts))

    def resolve(self, v: Rel | Pos) -> BlockPos:
        if isinstance(v, Pos):
            return BlockPos(v.x, v.y, v.z)
        fx, fz = HEADINGS[self.heading]
        rx, rz = HEADINGS[(self.heading + 1) % 4]
        me = self.body.position().block()
        return BlockPos(me.x + fx * v.forward + rx * v.right, me.y + v.up, me.z + fz * v.forward + rz * v.right)

    def _block_query(self, e: a.BlockQuery) -> Pos:
        query = {n.key: self.eval(n.value) for n in e.query}
        unknown = set(query) - {"id", "radius"}
        if unknown or "id" not in query:
            self._fail(ScriptErrorCode.BAD_ARGS, 'block(...) takes id:"name" and optional radius:N', e.loc)
        block_id = self._str(query["id"], e.loc)
        radius = self._int(query.get("radius", 16), e.loc)
        found = self.body.find_blocks([strip(block_id)], max(1, min(radius, 64)), max_count=1)
        if not found:
            self._fail(ScriptErrorCode.NO_TARGET, f"no {block_id} within {radius} blocks", e.loc)
        p = found[0]
        return Pos(p.x, p.y, p.z, canonical(strip(block_id)))

    # -- targets: one position value or x, y, z ------------------------------------------------
    def _target(self, args: list[Value], exprs: tuple[a.Expr, ...], start: int, loc: a.Loc) -> tuple[BlockPos, str]:
        v = args[start]
        if isinstance(v, (Rel, Pos)):
            return self.resolve(v), (v.text if isinstance(v, Rel) else v.label or "")
        if start + 2 >= len(args):
            self._fail(ScriptErrorCode.BAD_ARGS, "expected a selector, a position or x, y, z", loc)
        x, y, z = (self._int(args[start + i], exprs[start + i].loc) for i in range(3))
        return BlockPos(x, y, z), ""

    def _name_at(self, pos: BlockPos) -> str:
        return self.vox.name_at(pos)

    # -- predicates ---------------------------------------------------------------------------
    def predicate(self, e: a.PredicateCall) -> Value:
        self._tick_op(e.loc)
        if e.name not in PREDICATES:
            self._fail(ScriptErrorCode.UNKNOWN_PREDICATE, f"unknown predicate {e.name!r}", e.loc)
        args = [self.eval(x) for x in e.args]
        result: bool
        where: list[int] | None = None
        if e.name in ("safe_step_up", "safe_step_down", "can_stand", "is_air"):
            pos, _ = self._target(args, e.args, 0, e.loc)
            where = list(pos)
            if e.name == "is_air":
                result = self._name_at(pos) in AIRS
            elif e.name == "can_stand":
                result = self.vox.standable(pos)
            elif e.name == "safe_step_up":
                result = self.vox.safe_step_up(pos)
            else:
                result = self.vox.safe_step_down(pos)
        elif e.name == "has_item":
            item = strip(self._str(args[0], e.args[0].loc))
            need = self._int(args[1], e.args[1].loc) if len(args) > 1 else 1
            result = sum(s.count for s in self.body.inventory() if s.name == item) >= need
        elif e.name == "is_hazard":
            name = self._str(args[0], e.args[0].loc)
            if name not in HAZARD_NAMES:
                self._fail(ScriptErrorCode.BAD_ARGS, f"unknown hazard {name!r}; known: {', '.join(HAZARD_NAMES)}",
                           e.args[0].loc)
            result = name in self.vox.hazards()
        else:  # block_is
            pos, _ = self._target(args, e.args, 0, e.loc)
            want = strip(self._str(args[-1], e.args[-1].loc))
            where = list(pos)
            result = self._name_at(pos) == want
        self.logs.append({"kind": "predicate", "name": e.name, "args": [_jsonable(v) for v in args],
                          **({"world": where} if where else {}), "result": result, "line": e.loc.line})
        return result

    # -- commands -----------------------------------------------------------------------------
    def exec_command(self, c: a.Command) -> Gen:
        if c.name in self.macros:
            yield from self.call_macro(c, self.macros[c.name])
            return
        if c.name not in COMMANDS:
            fn = self.functions.latest(c.name) if self.functions is not None else None
            if fn is None:
                self._fail(ScriptErrorCode.UNKNOWN_COMMAND, f"unknown command {c.name!r}", c.loc)
            yield from self.call_function(c, fn)
            return
        self.op_index += 1
        op = self._op = c.name
        args = [self.eval(x) for x in c.args]
        named = {n.key: self._named(n) for n in c.named}
        self._last_loc = c.loc  # the command, not a predicate among its arguments, is what runs from here
        started = time.perf_counter()
        tick = self.body.now_ticks()
        notes: dict[str, Any] = yield from getattr(self, f"cmd_{COMMANDS_IMPL.get(op, op)}")(c, args, named)
        if op in SETTLE_AFTER:
            yield from self._settle()
        if self.body.now_ticks() != tick:
            self.cache.clear()  # time passed: anything may have changed (gravity, fluids, other players)
        step = {"ok": True, "op": op, "ms": int((time.perf_counter() - started) * 1000), "notes": notes or {},
                "op_index": self.op_index, "line": c.loc.line}
        self.steps.append(step)
        self.logs.append({"kind": "ok", **step})

    def _named(self, n: a.NamedArg) -> Value:
        # face: up (a bare face name, as in section 11 E) reads as the string "up"
        if (n.key == "face" and isinstance(n.value, a.Identifier) and n.value.name in {f.value for f in Face}
                and not any(n.value.name in s for s in self.scopes)):
            return n.value.name
        return self.eval(n.value)

    def call_macro(self, c: a.Command, m: a.MacroDecl) -> Gen:
        if c.named or len(c.args) != len(m.params):
            self._fail(ScriptErrorCode.BAD_ARGS, f"macro {m.name} takes {len(m.params)} positional argument(s)",
                       c.loc)
        bound: dict[str, Value] = {}
        for p, x in zip(m.params, c.args, strict=True):
            v = self.eval(x)
            if _type_name(v) != p.param_type:
                self._fail(ScriptErrorCode.BAD_TYPE, f"macro {m.name}: {p.name} must be {p.param_type}, got "
                           f"{_type_name(v)}", x.loc)
            bound[p.name] = v
        yield from self._call_body(m.name, m.body.body, bound, c.loc)

    def call_function(self, c: a.Command, fn: dict[str, Any]) -> Gen:
        if c.args:
            self._fail(ScriptErrorCode.BAD_ARGS, f"function {c.name} takes named arguments only, as in "
                       f"{c.name}(name: value)", c.args[0].loc)
        specs = {s["name"]: s for s in fn.get("args", [])}
        bound: dict[str, Value] = {}
        for n in c.named:
            if n.key not in specs:
                self._fail(ScriptErrorCode.BAD_ARGS, f"function {c.name} has no argument {n.key!r} "
                           f"(arguments: {', '.join(specs) or 'none'})", n.loc)
            v = self.eval(n.value)
            want = _norm_type(specs[n.key].get("type", "int"))
            if _type_name(v) != want:
                self._fail(ScriptErrorCode.BAD_TYPE, f"{c.name}: {n.key} must be {want}, got {_type_name(v)}",
                           n.loc)
            bound[n.key] = v
        for name, spec in specs.items():
            if name in bound:
                continue
            if spec.get("optional") or "default" in spec:
                if spec.get("default") is not None:
                    bound[name] = spec["default"]
                continue
            self._fail(ScriptErrorCode.BAD_ARGS, f"function {c.name}: missing required argument {name!r}", c.loc)
        key = f"{c.name}@{fn.get('version')}"
        program = self._fn_cache.get(key)
        if program is None:
            from craftbt.craftscript.parser import parse

            try:
                program = parse(fn["body"], source=f"fn:{key}")
            except ScriptError as err:
                raise _Abort(err, c.name) from None
            self._fn_cache[key] = program
        saved = self.macros
        self.macros = {**saved, **program.macros}
        try:
            yield from self._call_body(c.name, program.body, bound, c.loc)
        finally:
            self.macros = saved

    def _call_body(self, name: str, body: tuple[a.Stmt, ...], bound: dict[str, Value], loc: a.Loc) -> Gen:
        if self.depth >= self.limits.max_depth:
            self._fail(ScriptErrorCode.DEPTH_LIMIT, "Maximum function call depth exceeded", loc)
        saved = self.scopes
        self.scopes = [bound]
        self.depth += 1
        self._calls.append((name, loc))
        try:
            yield from self.exec_block(body, new_scope=False)
        except _Abort as abort:
            if abort.calls is None:  # the innermost call sees the whole stack: the failure's loc is in its body
                abort.calls = self._call_sites()
            raise
        except GeneratorExit:  # the run stopped the script here (see stopped)
            if self._stopped_in is None:
                self._stopped_in = self._call_sites()
            raise
        finally:
            self._calls.pop()
            self.depth -= 1
            self.scopes = saved

    def _call_sites(self) -> list[dict[str, Any]]:
        """Where each macro or function call now running was made, innermost first."""
        return [{"name": name, **loc.as_dict()} for name, loc in reversed(self._calls)]

    # -- dispatch helpers ---------------------------------------------------------------------
    def _dispatch(self, c: a.Command, capability: str, args: dict[str, Any], *,
                  at: dict[str, Any] | None = None, retry_note: str | None = None,
                  timeout_ms: int | None = None, watch: Callable[[], str | None] | None = None) -> Gen:
        attempt = 0
        while True:
            run = self.dispatcher.run(capability, args, f"cs:{self.op_index}:{c.name}", timeout_ms)
            result: ActionResult = yield from (run if watch is None else self._watched(run, watch, c, at))
            if result.ok:
                return result
            code = result.error.code if result.error else "failed"
            detail = result.error.detail if result.error else ""
            if retry_note and code == "timeout" and attempt < len(RETRY_DELAYS_TICKS):
                delay = RETRY_DELAYS_TICKS[attempt]
                attempt += 1
                self.logs.append({"kind": "retry", "note": retry_note, "op": c.name, "attempt": attempt,
                                  "delay_ticks": delay, "line": c.loc.line})
                for _ in range(delay):
                    yield None
                continue
            shown = code.removeprefix("guard_failed:")  # a refusal before dispatch reads as its reason
            self._fail(_runtime_code(code), f"{c.name}: {shown}: {detail}".rstrip(": "), c.loc, op=c.name, at=at,
                       notes={"capability": capability, "code": code,
                              **({"retry_note": retry_note} if retry_note and code == "timeout" else {})})

    def _watched(self, run: Generator[ActionHandle | None, ActionHandle | None, ActionResult],
                 watch: Callable[[], str | None], c: a.Command, at: dict[str, Any] | None) -> Gen:
        """Drive a dispatch, asking ``watch`` after every tick; a problem stops the leaf (closing the dispatch
        stops it) and fails the command with ``invariant_violation``."""
        try:
            sent: ActionHandle | None = None
            while True:
                try:
                    waiting = run.send(sent)
                except StopIteration as stop:
                    return stop.value
                problem = watch()
                if problem is not None:
                    run.close()
                    self._fail(ScriptErrorCode.INVARIANT_VIOLATION, f"{c.name} stopped: {problem}", c.loc, op=c.name,
                               at=at, notes={"invariant": 4, "nav": NavFailure.HAZARD.value})
                sent = yield waiting
        finally:
            run.close()

    def _body_action(self, c: a.Command, start: Callable[[], ActionHandle], at: dict[str, Any] | None = None) -> Gen:
        try:
            handle = start()
        except BodyError as err:
            self._fail(_runtime_code(err.code.value), f"{c.name}: {err.detail}", c.loc, op=c.name, at=at,
                       notes={"code": err.code.value})
        while handle.status() is ActionStatus.RUNNING:
            yield None
        if handle.status() is not ActionStatus.SUCCEEDED:
            err2 = handle.error()
            code = err2.code.value if err2 else handle.status().value
            self._fail(_runtime_code(code), f"{c.name}: {err2.detail if err2 else code}", c.loc, op=c.name, at=at,
                       notes={"code": code})
        return handle.result()

    def _settle(self) -> Gen:
        """Wait (bounded) until the bot rests on a floor: selectors count from the feet, and on a real server
        the feet are still falling for a few ticks after a dig under them or a jump."""
        last = self.body.position()
        still = 0
        for _ in range(SETTLE_TICKS):
            if last.y == int(last.y) and self.vox.solid(self.vox.fresh(last.block().offset(dy=-1))):
                return
            yield None
            here = self.body.position()
            still = still + 1 if here == last else 0
            if still >= 3:  # resting on something that is not a full block (a slab, a ladder, water)
                return
            last = here

    def _changed(self, positions: list[BlockPos], before: dict[BlockPos, str], command: str) -> None:
        self.cache.clear()
        for p in positions:
            after = self.vox.fresh(p)
            if after != before[p]:
                self.changes.append({"pos": list(p), "before": canonical(before[p]), "after": canonical(after),
                                     "action": "destroyed" if after in AIRS else "placed", "command": command,
                                     "timestamp": int(self.clock() * 1000)})

    def _auto_scan(self, c: a.Command) -> None:
        """Invariant 5: a radius-2 scan before dig, place and step up/down (fresh reads, into the cache)."""
        self.cache.clear()
        voxels, hazards = self.vox.refresh(2)
        self.logs.append({"kind": "scan", "radius": 2, "auto": True, "voxels": voxels, "hazards": hazards,
                          "line": c.loc.line})

    def _at(self, pos: BlockPos, sel: str) -> dict[str, Any]:
        return {"selector": sel or None, "world": list(pos)}

    # -- section 4 commands -------------------------------------------------------------------
    def cmd_log(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        text = " ".join(_fmt(v) for v in args)
        if len(text) > MAX_LOG_TEXT:  # 10,000 log lines of the longest string would be a gigabyte of logs
            text = f"{text[:MAX_LOG_TEXT]}... ({len(text) - MAX_LOG_TEXT} more characters)"
        self.logs.append({"kind": "log", "text": text, "line": c.loc.line})
        return {"text": text}
        yield  # pragma: no cover - a generator like every command

    def cmd_block_info(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        pos, sel = self._target(args, c.args, 0, c.loc)
        info = self.vox.block_info(x=pos.x, y=pos.y, z=pos.z)
        short = strip(info["id"])
        summary = f"{short} @ {pos.x},{pos.y},{pos.z}"
        self.logs.append({"kind": "block_info", "summary": summary, "id": info["id"], "world": list(pos),
                          "hardness": info["props"]["hardness"], "diggable": info["props"]["diggable"],
                          "line": c.loc.line})
        return {"selector": sel or None, "world": list(pos), "id": info["id"], "hardness": info["props"]["hardness"],
                "diggable": info["props"]["diggable"], "summary": summary}
        yield  # pragma: no cover

    def cmd_scan(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        radius_v = named.get("r", args[0] if args else 2)
        radius = max(0, min(self._int(radius_v, c.loc), 8))  # the largest window get_vox reads; notes say so
        self.cache.clear()
        vox = self.vox.get_vox(radius)
        self.logs.append({"kind": "scan", "radius": radius, "auto": False, "voxels": len(vox["voxels"]),
                          "hazards": vox["predicates"]["HAZARDS"], "line": c.loc.line})
        return {"radius": radius, "voxels": len(vox["voxels"]), "hazards": vox["predicates"]["HAZARDS"]}
        yield  # pragma: no cover

    def cmd_turn(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        v = args[0]
        if isinstance(v, Rel) and v.forward == 0 and v.up == 0 and v.right != 0:
            degrees = v.right  # r90 / l90 arrive as right = +90 / -90
        elif isinstance(v, int) and not isinstance(v, bool):
            degrees = v
        else:
            self._fail(ScriptErrorCode.BAD_ARGS, "turn takes r90, l90, 180 (degrees, multiples of 90)", c.loc,
                       op=c.name)
        if degrees % 90:
            self._fail(ScriptErrorCode.BAD_ARGS, f"turn by {degrees}: only multiples of 90 degrees", c.loc, op=c.name)
        self.heading = (self.heading + degrees // 90) % 4
        self._face_body()
        return {"heading": HEADING_NAMES[self.heading]}
        yield  # pragma: no cover

    def cmd_turn_face(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        name = self._str(args[0], c.args[0].loc)
        if name not in HEADING_NAMES:
            self._fail(ScriptErrorCode.BAD_ARGS, f"turn_face takes north, east, south or west, got {name!r}", c.loc,
                       op=c.name)
        self.heading = HEADING_NAMES.index(name)
        self._face_body()
        return {"heading": name}
        yield  # pragma: no cover

    def _face_body(self) -> None:
        face = getattr(self.body, "face_towards", None)
        if face is not None:
            p = self.body.position()
            dx, dz = HEADINGS[self.heading]
            face(p.x + dx * 10, p.y + 1.62, p.z + dz * 10)

    def cmd_move(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        v = args[0]
        if not isinstance(v, Rel) or v.up not in (-1, 0, 1):
            self._fail(ScriptErrorCode.BAD_ARGS, "move takes a selector such as f1, f1^ or f1_", c.loc, op=c.name)
        target = self.resolve(v)
        at = self._at(target, v.text)
        base = self.resolve(Rel(v.forward, v.right, 0, v.text))
        if v.up != 0:
            self._auto_scan(c)
        if v.up == 1 and not self.vox.safe_step_up(base):
            self._fail(ScriptErrorCode.INVARIANT_VIOLATION, f"unsafe step up onto {tuple(base)} "
                       f"({self._name_at(base)})", c.loc, op=c.name, at=at, notes={"invariant": 1})
        if v.up == -1 and not self.vox.safe_step_down(base):
            self._fail(ScriptErrorCode.INVARIANT_VIOLATION, f"unsafe step down into {tuple(target)}", c.loc,
                       op=c.name, at=at, notes={"invariant": 2})
        feet, head = self._name_at(target), self._name_at(target.offset(dy=1))
        for name in (feet, head):
            if name in HAZARDS:
                self._fail(ScriptErrorCode.INVARIANT_VIOLATION, f"{canonical(name)} at the target", c.loc,
                           op=c.name, at=at, notes={"invariant": 4})
            if self.vox.solid(name):
                self._fail(ScriptErrorCode.MOVE_BLOCKED, f"front block solid: {canonical(name)}", c.loc, op=c.name,
                           at=at)
        if not self.vox.solid(self._name_at(target.offset(dy=-1))):
            self._fail(ScriptErrorCode.MOVE_BLOCKED, f"no floor under {tuple(target)}", c.loc, op=c.name, at=at)
        start = self.body.position()
        # through move_to (stand in the target block), so geofence, permissions and the journal apply
        result = yield from self._dispatch(c, "move_to", {"pos": _xyz(target), "goal": "block", "timeout": 5_000},
                                           at=at)
        self.cache.clear()
        if result.observables.get("dispatched") is False:  # shadow mode: observed, not walked; nothing to check
            return {"selector": v.text, "world": list(target), "dispatched": False}
        here = self.body.position()
        if here.block() != target:
            self._fail(ScriptErrorCode.MOVE_BLOCKED, f"ended at {tuple(here.block())}, not {tuple(target)}", c.loc,
                       op=c.name, at=at)
        return {"selector": v.text, "from": [start.x, start.y, start.z], "world": list(target)}

    def cmd_dig(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        pos, sel = self._target(args, c.args, 0, c.loc)
        at = self._at(pos, sel)
        self._auto_scan(c)
        name = self._name_at(pos)  # fresh: the scan just read the window (and a target outside it now)
        if name in AIRS or name in ("water", "lava"):
            self._fail(ScriptErrorCode.NO_TARGET, "no block to dig", c.loc, op=c.name, at=at,
                       notes={"pos": list(pos), "id": canonical(name)})
        me = self.body.position().block()
        above = self._name_at(pos.offset(dy=1))
        if (pos.y >= me.y and abs(pos.x - me.x) <= 1 and abs(pos.z - me.z) <= 1 and self.md.has_block(above)
                and self.md.block(above).gravity):
            self._fail(ScriptErrorCode.INVARIANT_VIOLATION, f"{canonical(above)} overhead would fall", c.loc,
                       op=c.name, at=at, notes={"invariant": 3, "gravity_block": canonical(above)})
        for d in FACE_OFFSETS.values():
            if self._name_at(pos.offset(*d)) == "lava":
                self._fail(ScriptErrorCode.INVARIANT_VIOLATION, "digging would open onto minecraft:lava", c.loc,
                           op=c.name, at=at, notes={"invariant": 4, "lava": list(pos.offset(*d))})
        before = {pos: name}
        yield from self._dispatch(c, "dig_block_at", {"position": _xyz(pos)}, at=at)
        self._changed([pos], before, c.name)
        return {"selector": sel or None, "world": list(pos), "id": canonical(name)}

    def cmd_place(self, c: a.Command, args: list[Value], named: dict[str, Value], *, plant: bool = False) -> Gen:
        item = strip(self._str(args[0], c.args[0].loc))
        pos, sel = self._target(args, c.args, 1, c.loc)
        at = self._at(pos, sel)
        face_v = named.get("face", "up" if plant else None)
        call: dict[str, Any] = {"item": item, "pos": _xyz(pos)}
        if face_v is not None:
            face_s = self._str(face_v, c.loc)
            try:
                face = Face(face_s)
            except ValueError:
                self._fail(ScriptErrorCode.BAD_ARGS, f"face must be one of up, down, north, south, east, west, "
                           f"got {face_s!r}", c.loc, op=c.name)
            d = FACE_OFFSETS[face]
            against = pos.offset(-d[0], -d[1], -d[2])
        if plant and self.body.position().distance_to(pos) > APPROACH_DISTANCE:
            # plant walks within reach first (place does not: it places from where the bot stands)
            yield from self._dispatch(c, "move_to", {"pos": _xyz(pos), "range": 2.0}, at=at)
        self._auto_scan(c)
        if face_v is not None and self.vox.solid(self._name_at(against)):
            call["against"] = _xyz(against)
        # else: no block to click on that face; place_block picks any solid neighbour of the target
        before = {pos: self._name_at(pos)}
        yield from self._dispatch(c, "place_block", call, at=at, retry_note="place_timeout")
        self._changed([pos], before, c.name)
        return {"selector": sel or None, "world": list(pos), "id": canonical(item), "face": face_v,
                "against": list(call["against"].values()) if "against" in call else None}

    def cmd_plant(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        return (yield from self.cmd_place(c, args, named, plant=True))

    def cmd_equip(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        item = strip(self._str(args[0], c.args[0].loc))
        yield from self._body_action(c, lambda: self.body.equip(item, "hand"))
        return {"id": canonical(item)}

    def cmd_build_up(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        picked = strip(self._str(args[0], c.args[0].loc)) if args else self._auto_block()
        if picked is None:
            self._fail(ScriptErrorCode.COMMAND_FAILED, "build_up: no placeable block in the inventory", c.loc,
                       op=c.name, notes={"code": "missing_item"})
        item: str = picked
        feet = self.body.position().block()
        at = self._at(feet, "")
        before = {feet: self.vox.fresh(feet)}
        yield from self._dispatch(c, "build_up", {"item": item}, at=at)
        self._changed([feet], before, c.name)
        return {"id": canonical(item), "world": list(feet)}

    def _auto_block(self) -> str | None:
        """The placeable building block build_up picks: the most plentiful plain solid block carried."""
        plain = [s for s in self.body.inventory() if self.md.has_block(s.name) and self.md.block(s.name).solid
                 and not self.md.block(s.name).gravity and s.name not in ("crafting_table", "furnace", "chest",
                                                                           "tnt")]
        totals: dict[str, int] = {}
        for s in plain:
            totals[s.name] = totals.get(s.name, 0) + s.count
        return max(sorted(totals), key=lambda n: totals[n]) if totals else None

    def cmd_pickup_blocks(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        radius = self._int(args[0], c.args[0].loc) if args else 8
        reach = max(1, min(radius, COLLECT_MAX_RADIUS))
        me = self.body.position()
        if not any(is_item_entity(e) and e.position.distance_to(me) <= reach for e in self.body.entities(float(reach))):
            # nothing on the ground is nothing to do, not a failure: the bot often picks drops up by walking
            # past them (section 13's fell_oak breaks logs beside itself, then calls pickup_blocks(16))
            return {"radius": radius, "itemsCollected": 0}
        result = yield from self._dispatch(c, "collect_items", {"radius": reach})
        self.cache.clear()
        return {"radius": radius, **_small(result.observables)}

    def cmd_goto(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        pos, sel = self._target(args, c.args, 0, c.loc)
        tol = float(self._int(named.get("tol", 1), c.loc))
        call: dict[str, Any] = {"pos": _xyz(pos), "range": max(0.5, tol)}
        start = self.body.position()
        # the seed's goto blocks until arrival: allow 5 s + 0.5 s per block (move_to's own rule), not its 30 s cap
        budget = 5_000 + int(500 * start.distance_to(pos))
        if "timeout" in named:
            budget = self._int(named["timeout"], c.loc)
        call["timeout"] = max(1_000, min(budget, 300_000))
        at = self._at(pos, sel)
        policy = self._nav_policy(c, named)
        restore = apply_to_body(self.body, policy)  # first: the path checked is the one this policy's walk takes
        try:
            refused = path_violation(self.body, pos, call["range"], policy, self._name_at)
            if refused is not None:
                reason, detail = refused
                code = (ScriptErrorCode.NO_PATH if reason is NavFailure.UNREACHABLE
                        else ScriptErrorCode.INVARIANT_VIOLATION)
                self._fail(code, f"goto: {detail}", c.loc, op=c.name, at=at,
                           notes={"nav": reason.value, "policy": policy.model_dump()})
            yield from self._dispatch(c, "move_to", call, at=at, timeout_ms=call["timeout"] + 1_000,
                                      watch=lambda: hazard_near(self.vox.fresh, self.body.position().block()))
        finally:
            restore()
        self.cache.clear()
        here = self.body.position()
        trace = {"kind": "goto", "from": [start.x, start.y, start.z], "to": list(pos),
                 "arrived": [here.x, here.y, here.z], "line": c.loc.line}
        v = args[0]
        if isinstance(v, Pos) and v.label:
            trace["waypoint"] = v.label
        self.logs.append(trace)
        return {"world": list(pos), "arrived": trace["arrived"], "tol": tol}

    def _nav_policy(self, c: a.Command, named: dict[str, Value]) -> NavPolicy:
        fields = {k: v for k, v in named.items() if k in NavPolicy.model_fields}
        try:
            return NavPolicy.model_validate(fields)
        except ValidationError as exc:
            self._fail(ScriptErrorCode.BAD_ARGS, f"goto: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}",
                       c.loc, op=c.name)

    def cmd_craft(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        item = strip(self._str(args[0], c.args[0].loc))
        qty = self._int(args[1], c.args[1].loc) if len(args) > 1 else 1
        before = self._count(item)
        yield from self._dispatch(c, "craft_recipe", {"recipe": item, "qty": qty})
        return {"id": canonical(item), "count": self._count(item) - before}

    def _count(self, item: str) -> int:
        return sum(s.count for s in self.body.inventory() if s.name == item)

    def cmd_wait(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        ms = self._int(args[0], c.args[0].loc)
        left = max(0, ms)
        while left > 0:
            chunk = min(left, MAX_WAIT_CHUNK_MS)
            yield from self._dispatch(c, "wait", {"ms": chunk})
            left -= chunk
        return {"ms": ms}

    def cmd_open_container(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        pos, sel = self._target(args, c.args, 0, c.loc)
        yield from self._dispatch(c, "open_container", {"position": _xyz(pos)}, at=self._at(pos, sel),
                                  retry_note="container_timeout")
        return {"world": list(pos)}

    def cmd_close_container(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        yield from self._dispatch(c, "close_container", {})
        return {}

    def cmd_container_items(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        window = self.body.open_window()
        if window is None:
            self._fail(ScriptErrorCode.COMMAND_FAILED, "container_items: no container is open", c.loc, op=c.name,
                       notes={"code": "window_closed"})
        items = {slot: [{"id": canonical(s.name), "count": s.count} for s in stacks]
                 for slot, stacks in window.slots.items()}
        self.logs.append({"kind": "container_items", "items": items, "line": c.loc.line})
        return {"kind": window.kind, "items": items}
        yield  # pragma: no cover

    def cmd_container_put(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        slot = self._str(args[0], c.args[0].loc)
        item = strip(self._str(args[1], c.args[1].loc))
        count = self._int(args[2], c.args[2].loc)
        yield from self._dispatch(c, "transfer_items", {"item": item, "count": count, "mode": "deposit",
                                                        "slot": slot})
        return {"slot": slot, "id": canonical(item), "count": count}

    def cmd_container_take(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        slot = self._str(args[0], c.args[0].loc)
        count = self._int(args[1], c.args[1].loc)
        window = self.body.open_window()
        stacks = window.slots.get(slot, []) if window is not None else []
        if not stacks:
            self._fail(ScriptErrorCode.NO_TARGET, f"container_take: slot {slot!r} is empty or no window is open",
                       c.loc, op=c.name, notes={"slot": slot})
        item = stacks[0].name
        yield from self._dispatch(c, "transfer_items", {"item": item, "count": count, "mode": "withdraw",
                                                        "slot": slot})
        return {"slot": slot, "id": canonical(item), "count": count}

    def _transfer(self, c: a.Command, args: list[Value], mode: str) -> Gen:
        if len(args) == 5 or (len(args) == 3 and isinstance(args[0], (Rel, Pos))):
            pos, sel = self._target(args, c.args, 0, c.loc)
            rest = args[3:] if len(args) == 5 else args[1:]
            exprs = c.args[3:] if len(args) == 5 else c.args[1:]
            item = strip(self._str(rest[0], exprs[0].loc))
            count = self._int(rest[1], exprs[1].loc)
            yield from self._dispatch(c, "open_container", {"position": _xyz(pos)}, at=self._at(pos, sel),
                                      retry_note="container_timeout")
            try:
                yield from self._dispatch(c, "transfer_items", {"item": item, "count": count, "mode": mode})
            finally:
                if self.body.open_window() is not None:
                    yield from self.dispatcher.run("close_container", {}, f"cs:{self.op_index}:close")
            return {"world": list(pos), "id": canonical(item), "count": count}
        item = strip(self._str(args[0], c.args[0].loc))
        call: dict[str, Any] = {"item": item, "mode": mode}
        if len(args) > 1:
            call["count"] = self._int(args[1], c.args[1].loc)
        if self.body.open_window() is None:
            self._fail(ScriptErrorCode.COMMAND_FAILED, f"{c.name}: no container is open", c.loc, op=c.name,
                       notes={"code": "window_closed"})
        yield from self._dispatch(c, "transfer_items", call)
        return {"id": canonical(item), **({"count": call["count"]} if "count" in call else {})}

    def cmd_deposit(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        return (yield from self._transfer(c, args, "deposit"))

    def cmd_withdraw(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        return (yield from self._transfer(c, args, "withdraw"))

    def cmd_drop(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        item = strip(self._str(args[0], c.args[0].loc))
        count = self._int(named.get("count", args[1] if len(args) > 1 else 1), c.loc)
        yield from self._body_action(c, lambda: self.body.toss(item, count))
        return {"id": canonical(item), "count": count}

    def cmd_torch_cadence_7(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        """A torch at the feet when none of this script's torches is within 7 blocks (horizontal, Chebyshev)."""
        feet = self.body.position().block()
        last = getattr(self, "_last_torch", None)
        if last is not None and max(abs(feet.x - last.x), abs(feet.z - last.z)) < 7:
            return {"placed": False}
        if self._count("torch") < 1:
            return {"placed": False, "reason": "no torch"}
        before = {feet: self.vox.fresh(feet)}
        yield from self._dispatch(c, "place_block", {"item": "torch", "pos": _xyz(feet),
                                                     "against": _xyz(feet.offset(dy=-1))}, retry_note="place_timeout")
        self._changed([feet], before, c.name)
        self._last_torch = feet
        return {"placed": True, "world": list(feet)}

    def cmd_eat(self, c: a.Command, args: list[Value], named: dict[str, Value]) -> Gen:
        item = strip(self._str(args[0], c.args[0].loc))
        yield from self._dispatch(c, "consume_food", {"food_type": item})
        return {"id": canonical(item)}


#: collect_items' own upper bound on its radius: a larger pickup_blocks(N) is clamped, not refused
COLLECT_MAX_RADIUS = 32

#: command name -> implementing method suffix (aliases and shared implementations)
COMMANDS_IMPL = {"break": "dig", "open": "open_container", "close": "close_container"}

#: capability/body error codes -> section 7 codes
_CODES = {"no_path": ScriptErrorCode.NO_PATH, "timeout": ScriptErrorCode.TIMEOUT,
          "cancelled": ScriptErrorCode.CANCELLED, "not_diggable": ScriptErrorCode.NO_TARGET}


def _runtime_code(code: str) -> str:
    code = code.removeprefix("guard_failed:")
    mapped = _CODES.get(code)
    return mapped.value if mapped is not None else code


def _xyz(p: BlockPos) -> dict[str, int]:
    return {"x": p.x, "y": p.y, "z": p.z}


def _small(obs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obs.items() if isinstance(v, (int, float, str, bool)) or v is None}


def _jsonable(v: Value) -> Any:
    if isinstance(v, Rel):
        return v.text
    if isinstance(v, Pos):
        return [v.x, v.y, v.z]
    return v


def _norm_type(t: str) -> str:
    return {"number": "int", "integer": "int", "boolean": "bool", "str": "string"}.get(t, t)


def _heading_from_yaw(yaw: float) -> int:
    """Sim convention (radians, 0 faces -z, west is +pi/2) snapped to the nearest cardinal."""
    import math

    return round(-yaw / (math.pi / 2)) % 4
