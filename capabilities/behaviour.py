"""The py_trees behaviour that runs any capability, and the one that runs any check.

Lifecycle of :class:`CapabilityBehaviour` on each activation:

    initialise: resolve ``{key}`` blackboard references -> validate args against
                the capability's model -> dispatch hooks ``admit`` (the executor
                pipeline, which runs the capability guard in its place; an
                admission with a reason succeeds without dispatch) -> observe
                "pre" -> start the runner generator
    update:     poll the handle the runner waits on (RUNNING) -> resume the
                runner -> on return, observe "post" and run acceptance:
                verified -> SUCCESS; contradicted -> FAILURE; inconclusive ->
                probe again on later ticks (never re-dispatch), accepted when
                the probe budget runs out
    terminate:  if interrupted while running, cancel the body action and close
                the runner

Under the executor a :class:`~capabilities.context.LeafSupervisor` is attached
(``leaf.supervisor``): each tick asks it whether the capability steps, and the
parent sees the status it decides (a local retry or a backoff stays RUNNING)
while the capability's own lifecycle is tracked in ``run_status``.

The structured :class:`ActionResult` is kept on the node (``self.result``) and
on the blackboard under ``/results/<node name>`` and ``/last_result``.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Generator, Iterator
from typing import Any

import py_trees
from pydantic import BaseModel, ValidationError

from craftbt.capabilities.context import CapabilityContext, LeafSupervisor
from craftbt.capabilities.contracts import normalize_spec_args
from craftbt.capabilities.plugin_faults import blame
from craftbt.capabilities.spec import (
    ActionResult,
    CapabilitySpec,
    CheckSpec,
    RunnerGen,
    Verdict,
    VerificationResult,
)
from craftbt.world.body import TICKS_PER_SECOND, ActionHandle, ActionStatus, BodyError, Observation, block_key

REFERENCE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_/.]*)\}")

#: How many extra ticks an inconclusive verdict is re-probed before it is accepted.
PROBE_TICKS = 10


def blackboard_key(key: str) -> str:
    return key if key.startswith("/") else "/" + key


def find_references(value: Any) -> set[str]:
    """Every ``{key}`` blackboard reference inside an args value."""
    if isinstance(value, str):
        return set(REFERENCE.findall(value))
    if isinstance(value, dict):
        return set().union(*(find_references(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(find_references(v) for v in value)) if value else set()
    return set()


def resolve_references(value: Any, lookup: dict[str, Any]) -> Any:
    """Replace references; a string that is exactly ``"{key}"`` takes the value's type."""
    if isinstance(value, str):
        whole = REFERENCE.fullmatch(value)
        if whole:
            return lookup[whole.group(1)]
        return REFERENCE.sub(lambda m: str(lookup[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: resolve_references(v, lookup) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_references(v, lookup) for v in value]
    return value


def read_blackboard(keys: set[str]) -> dict[str, Any]:
    storage = py_trees.blackboard.Blackboard.storage
    out: dict[str, Any] = {}
    for key in keys:
        full = blackboard_key(key)
        if full not in storage:
            raise KeyError(key)
        out[key] = storage[full]
    return out


RESULTS_NAMESPACE = "/results/"
LAST_RESULT_KEY = "/last_result"


def publish_result(client: py_trees.blackboard.Client, name: str, result: ActionResult) -> None:
    """Write ``/results/<name>`` and ``/last_result`` through the Blackboard client API.

    Registered keys and client writes are what py_trees' own tools read: ``unicode_blackboard``,
    the activity stream and ``dot_tree(with_blackboard_variables=True)`` all show them. The key is
    registered again whenever ``Blackboard.clear()`` (between runs, in tests) forgot the clients and
    key metadata; while the registration stands (:func:`_writes`) it is not repeated. py_trees reads a
    ``.`` in a key as attribute access, so a leaf whose name has one is written to the storage
    directly (visible to displays, not attributed).
    """
    board = py_trees.blackboard.Blackboard
    board.clients.setdefault(client.unique_identifier, client.name)
    for key in (RESULTS_NAMESPACE + name, LAST_RESULT_KEY):
        if "." in key:
            board.storage[key] = result
            continue
        if not _writes(client, key):
            client.register_key(key=key, access=py_trees.common.Access.WRITE)
        client.set(key, result, overwrite=True)


def _writes(client: py_trees.blackboard.Client, key: str) -> bool:
    """Whether ``client`` is still registered as a writer of the absolute ``key`` (``Blackboard.clear()``
    forgets the metadata): registering again would change nothing, and costs more than the write itself."""
    meta = py_trees.blackboard.Blackboard.metadata.get(key)
    return meta is not None and client.unique_identifier in meta.write and key in client.write


class CapabilityBehaviour(py_trees.behaviour.Behaviour):  # type: ignore[misc]
    """Runs one capability with fixed (possibly templated) raw args."""

    def __init__(
        self,
        name: str,
        spec: CapabilitySpec,
        raw_args: dict[str, Any],
        ctx: CapabilityContext,
        *,
        timeout_ms: int | None = None,
        idempotency_key: str | None = None,
    ) -> None:
        #: the executor's supervisor, when one is attached (see :meth:`tick`); set first, because
        #: py_trees' constructor already calls ``tick()`` to prepare its iterator
        self.supervisor: LeafSupervisor | None = None
        super().__init__(name=name)
        self.spec = spec
        # the action contract's normalizer, before any validation (aliases, defaults, null-as-absent); what it
        # changed is kept for the step's record
        self.raw_args, self.normalized = normalize_spec_args(spec, raw_args)
        self.ctx = ctx
        #: the tree's own ``timeout_ms`` for this node, if it set one (it wins over the capability's)
        self.node_timeout_ms = timeout_ms
        self.timeout_ms = timeout_ms or spec.timeout_ms
        self.idempotency_key = idempotency_key
        self._references = find_references(self.raw_args)
        # Args without references are validated once, not on every activation.
        self._static_args: BaseModel | None = None
        if not self._references:
            self._static_args = spec.args_model.model_validate(self.raw_args)
        self.result: ActionResult | None = None
        self.args: BaseModel | None = None
        self._gen: RunnerGen | None = None
        self._handle: ActionHandle | None = None
        self._pre: Observation | None = None
        self._deadline_tick = 0
        self._probes_left = 0
        self._pending: ActionResult | None = None
        self._first_action_seen = False
        #: every block this run dug, [x, y, z, block] (see _note_dig)
        self._digs: list[list[Any]] = []
        self._primed = False
        self._start_tick = 0
        self._started_wall = 0.0
        #: the capability's own lifecycle status; ``status`` is what the parent sees, which a supervisor
        #: may keep RUNNING across a local retry or a backoff
        self.run_status = py_trees.common.Status.INVALID

    # -- ticking ----------------------------------------------------------------
    def tick(self) -> Iterator[py_trees.behaviour.Behaviour]:
        """py_trees' tick; with a supervisor attached, the supervisor decides when the capability
        steps and which status the parent sees, without a decorator node per leaf.

        Not a generator itself: an unsupervised leaf gets py_trees' own generator, no extra layer."""
        if self.supervisor is None:
            return super().tick()  # type: ignore[no-any-return]
        return self._supervised_tick(self.supervisor)

    def _supervised_tick(self, supervisor: LeafSupervisor) -> Iterator[py_trees.behaviour.Behaviour]:
        status = supervisor.tick()
        if status != py_trees.common.Status.RUNNING:
            self.stop(status)
        self.status = status
        yield self

    def step(self) -> py_trees.common.Status:
        """One lifecycle tick of the capability, as py_trees' tick runs it (initialise when not running,
        then update), recorded in ``run_status`` and leaving ``status`` to the supervisor."""
        if self.run_status != py_trees.common.Status.RUNNING:
            self.initialise()
        self.run_status = self.update()
        return self.run_status

    def settle(self) -> bool:
        """The parent halts this leaf: judge it now if its action already landed; True when it has a result.

        A reactive parent (a selector with ``memory: false`` whose first child checks the step's
        effect) halts the leaf on the tick the effect appears, before the probe ticks run. The
        action is done, so its acceptance still runs once, here: a halt is not a failure. A runner
        whose last body action has finished is resumed to its return; should it start another action
        instead, that action is cancelled and the leaf is interrupted (no result)."""
        if self.result is not None:
            return True
        if self._pending is None and self._gen is not None:
            handle = self._handle
            if handle is not None and handle.status() is ActionStatus.RUNNING:
                return False  # stopped mid-action: that is an interruption
            self._advance(handle)
            if self.result is not None:
                return True
            if self._pending is None:
                return False  # the runner went on to more work
        if self._pending is None or self._pre is None or self.args is None:
            return False
        result = self._pending
        self._pending = None
        post = self._probe_receipt(self.ctx.body.observe(), result)
        verification = self.spec.acceptance(self._pre, post, self.args, result)
        verification = VerificationResult(
            verdict=verification.verdict, evidence={**verification.evidence, "judged_on_halt": True},
        )
        result.verification = verification
        if verification.verdict is Verdict.CONTRADICTED:
            result.ok = False
            result.error = _contradiction(verification)
        self._finish(result, self._start_tick)
        return True

    def interrupt(self) -> None:
        """Stop a running capability without a result: cancel its body action and close the runner."""
        if self._gen is not None and self.result is None:
            self._cancel("interrupted")
        self.run_status = py_trees.common.Status.INVALID

    # -- lifecycle ------------------------------------------------------------
    def blackboard_client(self) -> py_trees.blackboard.Client:
        """This leaf's py_trees blackboard client (made on first use, named after the leaf)."""
        client: py_trees.blackboard.Client | None = getattr(self, "_board_client", None)
        if client is None:
            client = self.attach_blackboard_client(name=self.name)
            self._board_client = client
        return client

    def initialise(self) -> None:
        self.result = None
        self._pending = None
        self._gen = None
        self._handle = None
        self._first_action_seen = False
        self._digs = []
        start_tick = self.ctx.body.now_ticks()
        try:
            self.args = self._resolve_args()
        except _Refusal as refusal:
            self._finish(refusal.result, start_tick)
            return
        if self.node_timeout_ms is None:
            self.timeout_ms = self.spec.timeout_for(self.args)  # smelt 16 items takes longer than smelt 1
        self._deadline_tick = start_tick + max(1, self.timeout_ms * TICKS_PER_SECOND // 1000)
        # admit runs the capability guard at its place in the dispatch pipeline (seed 000 order).
        admitted = self.ctx.hooks.admit(self.ctx, self.spec, self.args, self.name)
        if not admitted.ok:
            self._finish(ActionResult.failure(admitted.reason or "refused", admitted.detail or "",
                                              missing=admitted.missing), start_tick)
            return
        if admitted.reason is not None:
            # Admitted without dispatch (shadow mode, a collapsed duplicate): succeed, touch nothing.
            self._finish(
                ActionResult.success(dispatched=False, skipped=admitted.reason, detail=admitted.detail or ""),
                start_tick,
            )
            return
        self._pre = self.ctx.body.observe()
        self._start_tick = start_tick
        self._started_wall = time.time()
        try:
            gen = self.spec.runner(self.ctx, self.args)
        except (Exception, SystemExit) as exc:
            blame(self.spec, "runner", exc)
            raise
        if not isinstance(gen, Generator):
            why = TypeError(f"the runner returned {type(gen).__name__}, not a generator (it must yield)")
            blame(self.spec, "runner", why)
            raise why
        self._gen = gen
        self._primed = False
        self._advance(None)

    def update(self) -> py_trees.common.Status:
        if self.result is not None:
            return py_trees.common.Status.SUCCESS if self.result.ok else py_trees.common.Status.FAILURE
        if self._pending is not None:
            return self._probe()
        if self.ctx.body.now_ticks() > self._deadline_tick:
            self._cancel("timeout")
            self._finish(
                ActionResult.failure("timeout", f"exceeded {self.timeout_ms} ms", retryable=True),
                self._start_tick,
            )
            return py_trees.common.Status.FAILURE
        handle = self._handle
        if handle is not None and handle.status() is ActionStatus.RUNNING:
            return py_trees.common.Status.RUNNING
        self._advance(handle)
        if self.result is not None:
            return self.update()
        if self._pending is not None:
            return self._probe()
        return py_trees.common.Status.RUNNING

    def terminate(self, new_status: py_trees.common.Status) -> None:
        if self.supervisor is not None:
            self.supervisor.terminate(new_status)
        elif new_status == py_trees.common.Status.INVALID and self._gen is not None and self.result is None:
            self._cancel("interrupted")

    # -- internals ------------------------------------------------------------
    def _resolve_args(self) -> BaseModel:
        if self._static_args is not None:
            return self._static_args
        try:
            values = read_blackboard(self._references)
        except KeyError as missing:
            raise _Refusal(
                ActionResult.failure("unknown_blackboard_key", f"blackboard has no key {missing}")
            ) from None
        try:
            return self.spec.args_model.model_validate(resolve_references(self.raw_args, values))
        except ValidationError as exc:
            raise _Refusal(ActionResult.failure("invalid_args", _summarise(exc))) from None

    def _advance(self, sent: ActionHandle | None) -> None:
        """Resume the runner until it yields a running handle or returns."""
        assert self._gen is not None
        try:
            while True:
                if sent is not None:
                    self._note_dig(sent)
                if self._primed:
                    yielded = self._gen.send(sent)
                else:
                    self._primed = True
                    yielded = next(self._gen)
                self._handle = yielded
                if yielded is None:
                    return  # the runner waits one tick
                if not self._first_action_seen:
                    self._first_action_seen = True
                    self.ctx.hooks.first_action(self.spec, self.name)
                if yielded.status() is ActionStatus.RUNNING:
                    return
                sent = yielded
        except StopIteration as stop:
            self._gen = None
            self._handle = None
            result = stop.value if isinstance(stop.value, ActionResult) else ActionResult.failure(
                "runner_returned_nothing", f"{self.spec.key} runner returned {stop.value!r}"
            )
            self._complete(result)
        except BodyError as err:
            self._gen = None
            self._handle = None
            self._complete(ActionResult.failure(err.code.value, err.detail, retryable=err.retryable))
        except (Exception, SystemExit) as exc:
            blame(self.spec, "runner", exc)
            raise

    def _note_dig(self, handle: ActionHandle) -> None:
        """Remember a block the runner dug, whichever helper dug it (the target, a way to a drop, a path)."""
        if handle.kind != "dig" or handle.status() is not ActionStatus.SUCCEEDED:
            return
        done = handle.result()
        pos = done.get("pos")
        if isinstance(pos, list | tuple) and len(pos) == 3:
            self._digs.append([*(int(c) for c in pos), str(done.get("block"))])

    def _complete(self, result: ActionResult) -> None:
        if self._digs:
            # every block the run dug, [x, y, z, block], in the order dug: what the journal keeps of it
            result.observables.setdefault("digs", list(self._digs))
        result.started_tick = self._start_tick
        result.started_at = self._started_wall
        if not result.ok:
            self._finish(result, self._start_tick)
            return
        self._pending = result
        self._probes_left = PROBE_TICKS

    def _probe(self) -> py_trees.common.Status:
        assert self._pending is not None and self._pre is not None and self.args is not None
        post = self._probe_receipt(self.ctx.body.observe(), self._pending)
        try:
            verification = self.spec.acceptance(self._pre, post, self.args, self._pending)
        except (Exception, SystemExit) as exc:
            blame(self.spec, "acceptance check", exc)
            raise
        if not isinstance(verification, VerificationResult):
            why = TypeError(f"the acceptance check returned {type(verification).__name__}, not a VerificationResult")
            blame(self.spec, "acceptance check", why)
            raise why
        if verification.verdict is Verdict.INCONCLUSIVE and self._probes_left > 0:
            self._probes_left -= 1
            return py_trees.common.Status.RUNNING
        result = self._pending
        self._pending = None
        if verification.verdict is Verdict.INCONCLUSIVE:
            verification = VerificationResult(
                verdict=Verdict.INCONCLUSIVE,
                evidence={**verification.evidence, "accepted_on_probe_timeout": True},
            )
        result.verification = verification
        if verification.verdict is Verdict.CONTRADICTED:
            result.ok = False
            result.error = _contradiction(verification)
        self._finish(result, self._start_tick)
        return py_trees.common.Status.SUCCESS if result.ok else py_trees.common.Status.FAILURE

    def _probe_receipt(self, post: Observation, result: ActionResult) -> Observation:
        """Read what a receipt names, so acceptance can check it against the world (receipt-anchored).

        Blocks and their states at the receipt's positions; with ``extra.probe_light`` the light level
        there, with ``extra.probe_entities`` (a radius) the entities around the bot, with
        ``extra.probe_chat_since`` (a chat-log index) the chat heard since, with ``extra.probe_weather`` the
        weather. A position the body cannot read (an unloaded chunk on a server) stays unprobed: acceptance
        calls that inconclusive.
        """
        receipt = result.receipt
        if receipt is None:
            return post
        positions = list(receipt.positions)
        if receipt.position is not None:
            positions.append(receipt.position)
        update: dict[str, Any] = {}
        body = self.ctx.body
        if positions:
            infos = {}
            for p in positions:
                try:
                    infos[block_key(p)] = body.block_at(p)
                except BodyError:
                    continue  # not loaded / out of reach: unprobed, so inconclusive, never a crash
            update["blocks"] = {key: info.name for key, info in infos.items()}
            # States too, so state-changing leaves (levers, doors, crops) verify against a fresh probe.
            update["block_states"] = {key: dict(info.state) for key, info in infos.items()}
            if receipt.extra.get("probe_light"):
                light = {}
                for p in positions:
                    try:
                        light[block_key(p)] = body.light_level(p)
                    except BodyError:
                        continue
                update["light_levels"] = light
        radius = receipt.extra.get("probe_entities")
        if isinstance(radius, int | float):
            with contextlib.suppress(BodyError):
                update["entities"] = body.entities(float(radius))
        weather = getattr(body, "weather", None)
        if receipt.extra.get("probe_weather") and callable(weather):
            with contextlib.suppress(BodyError):
                update["weather"] = weather()
        since = receipt.extra.get("probe_chat_since")
        heard = getattr(body, "chat_messages", None)
        if isinstance(since, int) and callable(heard):
            with contextlib.suppress(BodyError):
                update["chat"] = list(heard(since)[1])
        return post.model_copy(update=update) if update else post

    def _finish(self, result: ActionResult, start_tick: int) -> None:
        result.started_tick = start_tick
        result.ended_tick = self.ctx.body.now_ticks()
        result.ended_at = time.time()
        self.result = result
        self._pre = None  # judged: a finished leaf holds no observation (a long run keeps thousands of leaves)
        publish_result(self.blackboard_client(), self.name, result)
        self.ctx.hooks.finished(self.spec, self.args, self.name, result)

    def _cancel(self, reason: str) -> None:
        if self._handle is not None:
            self._handle.cancel(reason)
            self._handle = None
        if self._gen is not None:
            self._gen.close()
            self._gen = None


class _Refusal(Exception):
    def __init__(self, result: ActionResult) -> None:
        super().__init__(result.error.code if result.error else "refused")
        self.result = result


def _summarise(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '<args>'}: {err['msg']}" for err in exc.errors()
    )


def _contradiction(verification: VerificationResult) -> Any:
    from craftbt.capabilities.spec import ActionError

    return ActionError(code="verification_contradicted", detail=str(verification.evidence), retryable=True)


class CheckBehaviour(py_trees.behaviour.Behaviour):  # type: ignore[misc]
    """A condition node: SUCCESS when the read-only predicate holds, else FAILURE."""

    def __init__(self, name: str, check: CheckSpec, raw_args: dict[str, Any], ctx: CapabilityContext) -> None:
        super().__init__(name=name)
        self.check = check
        self.raw_args = raw_args
        self.ctx = ctx
        self._references = find_references(raw_args)
        self._static_args = None if self._references else check.args_model.model_validate(raw_args)

    def update(self) -> py_trees.common.Status:
        args = self._static_args
        if args is None:
            try:
                values = read_blackboard(self._references)
                args = self.check.args_model.model_validate(resolve_references(self.raw_args, values))
            except (KeyError, ValidationError) as exc:
                self.feedback_message = f"cannot evaluate: {exc}"
                return py_trees.common.Status.FAILURE
        try:
            held = self.check.predicate(self.ctx, args)
        except (Exception, SystemExit) as exc:
            blame(self.check, "predicate", exc)
            raise
        return py_trees.common.Status.SUCCESS if held else py_trees.common.Status.FAILURE
