"""The build runner: checkpointed module execution, resume with reconciliation, repair, sub-tasks.

One :meth:`BuildRunner.run` call is one session. It always starts with
:meth:`resume` (stage 2) — reconcile in-flight actions, validate the site
signature, re-validate the station registry, scan the completed modules and
the module at the cursor — then, module by module from ``module_cursor``:

1. scan the module's witness and classify the delta; the micro plan is
   recomputed from it (every placement for a fresh or destroyed module, only
   the diff for a partial or drifted one) — never "continue from step N";
2. a material deficit spawns a resource sub-task (stage 4) and blocks the
   parent until it completes: the materials carried and the bot back where it
   left the build (:mod:`router.build.return_trip`);
3. the work package (a tree: ``place_block_at``/``dig_block_at`` leaves, then
   ``verify_module``) runs through the :class:`~executor.executor.Executor` on a
   :class:`~executor.build_state.journal_body.JournalingBody`;
4. the checkpoint hook re-scans the witness (the same code path as
   ``verify_module``), runs the invariant set, repairs blocking deltas (at
   most :data:`MAX_REPAIRS` rounds; an access delta by digging its cells,
   wherever the template keeps them), re-places a lost or unreachable station
   (``ensure_workstation``, :mod:`router.build.stations`) or the storage
   chest, appends a content-addressed checkpoint, advances the cursor and
   emits ``build_checkpoint``.

Repairs converge (:mod:`router.build.convergence`): a work package whose
world, steps and materials are what they were at the last attempt is not run
again; the module is reported ``blocked`` with its cells and the last reason.
On resume, after reconciliation (places and digs from the world, crafts and
container moves from the inventory delta), a sub-task a crash interrupted
resumes on its own before the parent recomputes; layout repair comes before
utility (stations).

Crash-safety design (simulator): the world is an atomic snapshot file in the
state directory (write to a temporary file, ``os.replace``). An action row is
committed ``in_flight`` before its command; its ``done`` waits until the world
holding its effect is saved: every ``persist_every`` ticks, after each work
package and before every checkpoint row (``JournalingBody.flush``).
So after a SIGKILL at any instant the world file is never behind the database:
a ``done`` row or a checkpoint always describes blocks the world file holds;
the world may be ahead of ``in_flight`` rows (effects saved, rows not yet
closed), which reconciliation settles as ``done`` without placing again. On a
real server the world is the server's and resume reads it through the body.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.structures import Facing, ModuleWitness, is_air, is_replaceable
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.executor.build_state.invariants import check_all, required_stations
from craftbt.executor.build_state.journal_body import JournalingBody
from craftbt.executor.build_state.models import (
    Bounds,
    BuildCheckpoint,
    BuildMetadata,
    BuildStatus,
    InvariantResult,
    MacroNode,
    MacroPlanRecord,
    OpenDelta,
    Provenance,
    Severity,
    SiteSignature,
    StationEntry,
    Vec,
    checkpoint_id,
)
from craftbt.executor.build_state.store import BuildStore
from craftbt.executor.config import Bounds as Fence
from craftbt.executor.config import ExecutorConfig
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.planners.building.decompose import BuildStep, StepKind, materials_for
from craftbt.planners.building.order import MacroPlan
from craftbt.planners.building.planner import BuildingPlanner, clearance_package, deficits, work_package
from craftbt.router.build.convergence import AttemptGuard, attempt_digest, stuck_report, why
from craftbt.router.build.return_trip import record_departure, return_to_site
from craftbt.router.build.stations import WORKSTATION_KINDS, adopt_journaled, ensure_workstation
from craftbt.trees import structure_paths
from craftbt.trees.structure_template import StructureTemplate, anchor_for
from craftbt.trees.structure_witness import ModuleState, ModuleWitnessV1, classify, scan
from craftbt.world.body import BlockPos, Body
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.snapshot import dumps

MAX_REPAIRS = 3
MAX_MODULE_ATTEMPTS = 4
#: Checkpoint rounds spent on utility repairs (ensure_workstation, the storage anchor): never blocking ones.
UTILITY_ROUNDS = 3
#: Share of the completed modules' placements that must still match for the site to be recognized.
SITE_MATCH_SHARE = 0.2
FENCE_MARGIN = 16
#: The resume action when the site is unrecognizable (seed 001: "replan_from_bootstrap").
REPLAN_SITE = "replan_from_bootstrap"

ProgressFn = Callable[[str, dict[str, Any]], None]


class Acquirer(Protocol):
    def __call__(self, runner: BuildRunner, subtask: dict[str, Any]) -> bool: ...


class ModuleScan(BaseModel):
    module_id: str
    state: ModuleState
    missing: int
    wrong: int
    obstructed: int


class ResumeReport(BaseModel):
    reconciled_done: int = 0
    reconciled_lost: int = 0
    stations_adopted: int = 0
    site_valid: bool = True
    stations: list[dict[str, Any]] = Field(default_factory=list)
    completed_scans: list[ModuleScan] = Field(default_factory=list)
    current: ModuleScan | None = None
    action: str = "advance"
    scan_ms: float = 0.0


def macro_record(macro: MacroPlan) -> MacroPlanRecord:
    """The macro plan to persist: content-addressed nodes, dependency edges between them, the order."""
    ids = macro.node_ids
    return MacroPlanRecord(
        nodes=[MacroNode(module_id=m, node_id=ids[m]) for m in macro.order],
        edges=sorted((ids[a], ids[b]) for a, b in macro.graph.edges),
        order=list(macro.order),
    )


def read_fn(body: Body) -> Callable[[BlockPos], str | None]:
    return lambda p: body.block_at(p).name


def standable_fn(body: Body) -> Callable[[BlockPos], bool]:
    """Where a player can stand in the body's world (:func:`craftbt.trees.structure_paths.standable`)."""
    read = read_fn(body)
    return lambda p: structure_paths.standable(read, p)


def atomic_sim_persist(body: SimBody, path: Path) -> Callable[[], None]:
    """Save the simulator's world to ``path`` atomically (temporary file, then ``os.replace``)."""

    def persist() -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(dumps(body))
        os.replace(tmp, path)

    return persist


class BuildRunner:
    def __init__(
        self,
        store: BuildStore,
        body: Body,
        template: StructureTemplate,
        origin: BlockPos,
        facing: Facing | str,
        *,
        build_id: str | None = None,
        persist: Callable[[], None] | None = None,
        registry: Registry | None = None,
        home: Path | None = None,
        acquirer: Acquirer | None = None,
        progress: ProgressFn | None = None,
        body_kind: str = "sim",
        max_ticks: int = 20 * 60 * 20,
    ) -> None:
        self.store = store
        self.template = template
        self.origin = origin
        self.facing = Facing(facing)
        self.plan = BuildingPlanner().plan_build(template, origin, self.facing)
        self.witnesses = self.plan.witnesses
        self.build_id = build_id or f"{template.template}@{origin.x},{origin.y},{origin.z}:{self.facing.value}"
        self.persist = persist
        self.raw_body = body
        self.body = JournalingBody(body, store, self.build_id, persist=persist)
        self.registry = registry or default_registry()
        self.home = home or store.path.parent / "executor"
        self.acquirer = acquirer
        self.progress = progress or (lambda kind, data: None)
        self.body_kind = body_kind
        self.max_ticks = max_ticks
        lo, hi = template.footprint(anchor_for(origin, self.facing))
        self.site = SiteSignature(
            position=Vec(x=origin.x, y=origin.y, z=origin.z),
            facing=self.facing,
            ref_corner=Vec(x=origin.x, y=origin.y, z=origin.z),
            footprint_bounds=Bounds(min=Vec(x=lo.x, y=lo.y, z=lo.z), max=Vec(x=hi.x, y=hi.y, z=hi.z)),
        )
        fence = Fence(
            min_x=lo.x - FENCE_MARGIN,
            min_y=lo.y - FENCE_MARGIN,
            min_z=lo.z - FENCE_MARGIN,
            max_x=hi.x + FENCE_MARGIN,
            max_y=hi.y + FENCE_MARGIN,
            max_z=hi.z + FENCE_MARGIN,
        )
        self.config = ExecutorConfig(geofence=fence, profile="survival", max_ticks=max_ticks)
        self._executor: Executor | None = None
        self.outcomes: list[RunOutcome] = []
        self.guard = AttemptGuard()
        self.standable = standable_fn(body)
        self.meta: BuildMetadata | None = None
        self._ensuring: set[str] = set()
        self.read = read_fn(body)

    # -- metadata --------------------------------------------------------------------------------
    def load_or_create(self) -> BuildMetadata:
        meta = self.store.load_build(self.build_id)
        if meta is not None:
            if meta.template_digest != self.template.digest:  # narrative invariant: a user's input error
                raise CraftbtError.single(
                    ErrorCode.INVALID_ARGUMENT,
                    f"build {self.build_id} was started from another version of template {meta.template!r} "
                    f"({meta.template_digest[:19]} != {self.template.digest[:19]})",
                    expected="the template the build started with",
                    suggestion="restore that template, or build this one with another --state directory",
                )
            return meta
        meta = BuildMetadata(
            build_id=self.build_id,
            task_id=f"task:{uuid.uuid4().hex[:10]}",
            template=self.template.template,
            template_digest=self.template.digest,
            site_signature=self.site,
            module_order=list(self.plan.order),
            module_cursor=0,
            completed_modules=[],
            witnesses={k: w.to_seed() for k, w in self.witnesses.items()},
            macro_plan=macro_record(self.plan.macro),
        )
        self.store.upsert_task(
            meta.task_id,
            kind="build",
            goal={"template": meta.template, "build_id": meta.build_id},
            status=BuildStatus.PENDING.value,
        )
        self.store.save_build(meta)
        return meta

    def _save(self, meta: BuildMetadata) -> None:
        self.store.save_build(meta)
        self.store.upsert_task(
            meta.task_id,
            kind="build",
            goal={"template": meta.template, "build_id": meta.build_id},
            status=meta.status.value,
            blocked_reason=meta.blocked_reason,
        )

    def save(self, meta: BuildMetadata) -> None:
        self._save(meta)

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = Executor(
                self.registry,
                self.body,
                config=self.config,  # type: ignore[arg-type]
                home=self.home,
                body_kind=self.body_kind,
            )
        return self._executor

    # -- resume (stage 2) --------------------------------------------------------------------------
    def reconcile(self) -> tuple[int, int]:
        """Step 0: every in-flight step is settled: a place/dig from the world's cell, a craft or container
        move from the inventory delta; effect present -> done (never re-run), else lost (back to pending)."""
        done = lost = 0
        for row in self.store.in_flight(self.build_id):
            pos = BlockPos(row["x"], row["y"], row["z"])
            name = self.raw_body.block_at(pos).name
            realized = name == row["block"] if row["kind"] == "place" else is_air(name)
            if realized:
                self.store.end_action(row["seq"], "done", "reconciled")
                done += 1
            else:
                self.store.end_action(row["seq"], "lost", "not_realized")
                lost += 1
        # Gather/craft/smelt: an inventory step is realized when the count moved the way it moves.
        inventory = self.inventory()
        for row in self.store.steps_in_flight(self.build_id):
            now = inventory.get(row["item"], 0)
            realized = now < row["before"] if row["kind"] == "put" else now > row["before"]
            self.store.end_step(
                row["seq"], "done" if realized else "lost", "reconciled" if realized else "not_realized"
            )
            done += realized
            lost += not realized
        return done, lost

    def site_probes(self, meta: BuildMetadata) -> list[BlockPos]:
        """Seed 001 resume step 2: the reference corner and 8 footprint-edge cells (corners and mid-sides)."""
        sig = meta.site_signature
        b, r = sig.footprint_bounds, sig.ref_corner
        xs = (b.min.x, (b.min.x + b.max.x) // 2, b.max.x)
        zs = (b.min.z, (b.min.z + b.max.z) // 2, b.max.z)
        edges = [BlockPos(x, b.min.y, z) for x in xs for z in zs if x in (b.min.x, b.max.x) or z in (b.min.z, b.max.z)]
        return [BlockPos(r.x, r.y, r.z), *edges]

    def site_valid(self, meta: BuildMetadata) -> bool:
        """Recognizable: the probes the completed modules speak for still agree with them, the completed
        placements mostly stand, and (nothing built yet) the ground under the probes is there."""
        expected: dict[BlockPos, str] = {}
        for mid in meta.completed_modules:
            expected.update({p: b for p, b in self.witnesses[mid].absolute_placements()})
            expected.update({p: "air" for p in self.witnesses[mid].absolute_empty()})
        probes = self.site_probes(meta)
        spoken = [(p, expected[p]) for p in probes if p in expected]
        agree = sum((self.read(p) or "air") == e or (e == "air" and is_air(self.read(p) or "air")) for p, e in spoken)
        if spoken and not agree:  # every probe the built modules speak for disagrees: not this site any more
            return False
        total = matched = 0
        for mid in meta.completed_modules:
            for pos, block in self.witnesses[mid].absolute_placements():
                total += 1
                matched += self.read(pos) == block
        if total and matched < SITE_MATCH_SHARE * total:
            return False
        if meta.completed_modules:
            return True
        ground = [p.offset(dy=-1) for p in probes]
        return 2 * sum(not is_replaceable(self.read(p) or "air") for p in ground) >= len(ground)

    def revalidate_stations(self, meta: BuildMetadata) -> list[dict[str, Any]]:
        now = self.raw_body.now_ticks()
        standable = standable_fn(self.raw_body)
        out = []
        for entry in meta.station_registry:
            pos = BlockPos(entry.pos.x, entry.pos.y, entry.pos.z)
            present = self.read(pos) == entry.kind
            from craftbt.executor.build_state.invariants import _near_standable

            entry.reachable = present and _near_standable(pos, standable)
            entry.last_verified_at = now
            out.append(
                {"kind": entry.kind, "pos": [pos.x, pos.y, pos.z], "present": present, "reachable": entry.reachable}
            )
        return out

    def module_scan(self, module_id: str, *, begun: bool = True) -> tuple[ModuleWitness, ModuleScan]:
        """Scan and classify; a module not yet ``begun`` with nothing of it in the world is ``pending``."""
        w = self.witnesses[module_id]
        diff = scan(w, self.read)
        untouched = not diff.wrong and len(diff.missing) == len(w.expected_placements) > 0
        return diff, ModuleScan(
            module_id=module_id,
            state=ModuleState.PENDING if untouched and not begun else classify(w, diff),
            missing=len(diff.missing),
            wrong=len(diff.wrong),
            obstructed=len(diff.obstructed),
        )

    def resume(self, meta: BuildMetadata) -> ResumeReport:
        t0 = time.perf_counter()
        report = ResumeReport()
        report.reconciled_done, report.reconciled_lost = self.reconcile()
        report.stations_adopted = adopt_journaled(self, meta, self.store.actions(self.build_id))
        report.site_valid = self.site_valid(meta)
        if not report.site_valid:
            meta.module_cursor = 0
            meta.completed_modules = []
            report.action = REPLAN_SITE
        report.stations = self.revalidate_stations(meta)
        for mid in meta.completed_modules:
            _, s = self.module_scan(mid)
            report.completed_scans.append(s)
        if not meta.done:
            cur = meta.module_order[meta.module_cursor]
            begun = any(a["module_id"] == cur for a in self.store.actions(self.build_id))
            _, report.current = self.module_scan(cur, begun=begun)
            if report.action != REPLAN_SITE:
                report.action = {
                    ModuleState.PENDING: "build",
                    ModuleState.COMPLETED: "advance",
                    ModuleState.PARTIALLY_COMPLETED: "repair",
                    ModuleState.DRIFTED: "repair",
                    ModuleState.DESTROYED: "replan_module",
                }[report.current.state]
        if any(s.state is not ModuleState.COMPLETED for s in report.completed_scans) and report.action != REPLAN_SITE:
            report.action = "repair"
        report.scan_ms = (time.perf_counter() - t0) * 1000
        last = meta.checkpoints[-1].checkpoint_id if meta.checkpoints else None
        self.store.emit(
            self.build_id,
            "build_resume",
            {
                "taskId": meta.task_id,
                "moduleCursor": meta.module_cursor,
                "lastCheckpoint": last,
                **report.model_dump(mode="json"),
            },
        )
        self._save(meta)
        self.progress("resume", report.model_dump(mode="json"))
        return report

    # -- execution ------------------------------------------------------------------------------
    def run_package(self, witness: ModuleWitnessV1, diff: ModuleWitness | None, label: str) -> RunOutcome | None:
        tree, steps = work_package(self.template, witness, diff, label)
        self.progress(
            "package",
            {
                "module": witness.module_id,
                "label": label,
                "steps": len(steps),
                "places": sum(s.kind is StepKind.PLACE for s in steps),
            },
        )
        self.store.emit(
            self.build_id, "build_package", {"moduleId": witness.module_id, "label": label, "steps": len(steps)}
        )
        self.body.module_id = witness.module_id
        outcome = self.executor().run(tree, task_id=self.build_id)
        self.outcomes.append(outcome)
        self.body.flush()  # the world persisted, then this package's rows closed done
        return outcome

    def inventory(self) -> dict[str, int]:
        return dict(self.raw_body.observe().inventory)

    def resume_subtasks(self, meta: BuildMetadata) -> bool:
        """A sub-task a crash interrupted resumes on its own, from its last progress entry, before the parent
        recomputes anything (seed 001 stage 4: sub-tasks are independently checkpointable). False: it failed."""
        for task in self.store.subtasks(meta.task_id):
            if task["status"] not in ("pending", "running"):
                continue
            last = task["progress"][-1] if task["progress"] else {}
            have = self.inventory().get(task["goal"]["item"], 0)
            self.store.task_progress(
                task["task_id"], {"resumed": True, "from": last.get("phase", "start"), "have": have}
            )
            self.store.emit(self.build_id, "subtask_resumed", {"taskId": task["task_id"], "from": last, "have": have})
            self.progress(
                "subtask",
                {
                    "task": task["task_id"],
                    "item": task["goal"]["item"],
                    "count": task["goal"]["count"] - have,
                    "resumed": True,
                },
            )
            ok = have >= task["goal"]["count"] or (self.acquirer is not None and self.acquirer(self, task))
            # done means the materials are carried and the bot is back where it left the build
            ok = ok and self.inventory().get(task["goal"]["item"], 0) >= task["goal"]["count"]
            status = "done" if ok and return_to_site(self, task) else "failed"
            self.store.upsert_task(
                task["task_id"], kind="acquire", goal=task["goal"], status=status, parent_task_id=meta.task_id
            )
            if status == "failed":
                meta.status = BuildStatus.BLOCKED_ON_SUBTASK
                meta.blocked_reason = f"awaiting_materials:{task['task_id']}"
                self._save(meta)
                return False
            self.store.emit(
                self.build_id,
                "subtask_completed",
                {"taskId": task["task_id"], "parentTaskId": meta.task_id, "resumed": True},
            )
        return True

    def ensure_materials(self, meta: BuildMetadata, steps: list[BuildStep]) -> bool:
        """Stage 4: a deficit spawns a sub-task per item; the parent blocks until each completes."""
        # Only cells the world does not already hold need material: a replanned module re-lists every
        # placement, and place_block_at skips the ones already standing.
        read = read_fn(self.raw_body)
        pending = [s for s in steps if not (s.kind is StepKind.PLACE and read(s.pos) == s.block)]
        short = deficits(materials_for(pending), self.inventory())
        if not short:
            if meta.status is BuildStatus.BLOCKED_ON_SUBTASK:  # the materials are here now (e.g. resumed)
                meta.status = BuildStatus.BUILDING
                meta.blocked_reason = None
                self._save(meta)
            return True
        for item, count in short.items():
            mine = [t for t in self.store.subtasks(meta.task_id) if t["goal"].get("item") == item]
            existing = mine[-1] if mine and mine[-1]["status"] != "done" else None
            sub_id = existing["task_id"] if existing else f"{meta.task_id}:acquire:{item}:{len(mine) + 1}"
            target = self.inventory().get(item, 0) + count
            if existing is None:
                self.store.upsert_task(
                    sub_id,
                    kind="acquire",
                    goal={"item": item, "count": target, "deficit": count},
                    status="pending",
                    parent_task_id=meta.task_id,
                )
                self.store.emit(
                    self.build_id,
                    "subtask_spawned",
                    {"taskId": sub_id, "parentTaskId": meta.task_id, "item": item, "count": count},
                )
            meta.status = BuildStatus.BLOCKED_ON_SUBTASK
            meta.blocked_reason = f"awaiting_materials:{sub_id}"
            self._save(meta)
            self.progress("subtask", {"task": sub_id, "item": item, "count": count})
            task = self.store.task(sub_id)
            assert task is not None
            self.store.upsert_task(
                sub_id, kind="acquire", goal=task["goal"], status="running", parent_task_id=meta.task_id
            )
            record_departure(self, sub_id)  # before the sub-task moves the bot: where it must come back to
            ok = self.acquirer is not None and self.acquirer(self, task)
            ok = ok and self.inventory().get(item, 0) >= task["goal"]["count"]
            if not ok or not return_to_site(self, task):
                self.store.upsert_task(
                    sub_id, kind="acquire", goal=task["goal"], status="failed", parent_task_id=meta.task_id
                )
                return False
            self.store.upsert_task(
                sub_id, kind="acquire", goal=task["goal"], status="done", parent_task_id=meta.task_id
            )
            self.store.emit(
                self.build_id,
                "subtask_completed",
                {"taskId": sub_id, "parentTaskId": meta.task_id, "inventory": {item: self.inventory().get(item, 0)}},
            )
        meta.status = BuildStatus.BUILDING
        meta.blocked_reason = None
        self._save(meta)
        return True

    def run(self, *, stop_after_modules: int | None = None) -> BuildMetadata:
        meta = self.meta = self.load_or_create()
        self.resume(meta)
        if not self.resume_subtasks(meta):
            return meta
        meta.status = BuildStatus.BUILDING if meta.status is not BuildStatus.BLOCKED_ON_SUBTASK else meta.status
        built_now = 0
        attempts = 0
        resumed_scan = True
        while not meta.done:
            if stop_after_modules is not None and built_now >= stop_after_modules:
                break
            mid = meta.module_order[meta.module_cursor]
            witness = self.witnesses[mid]
            # Layout first: drift found on resume is repaired before anything new is built; drift during
            # the session is the checkpoint invariants' job.
            for done_mid in list(meta.completed_modules) if resumed_scan else []:
                ddiff, dscan = self.module_scan(done_mid)
                if dscan.state is not ModuleState.COMPLETED:
                    self.store.emit(
                        self.build_id, "build_repair", {"moduleId": done_mid, **dscan.model_dump(mode="json")}
                    )
                    self.run_package(self.witnesses[done_mid], ddiff, "repair")
            if resumed_scan:  # then utility: a registered station that is gone or unreachable is ensured
                self.ensure_stations(meta)
            resumed_scan = False
            diff, mscan = self.module_scan(mid)
            if mscan.state is not ModuleState.COMPLETED:
                attempts += 1
                if attempts > MAX_MODULE_ATTEMPTS:
                    meta.status = BuildStatus.FAILED
                    meta.blocked_reason = f"module_attempts_exhausted:{mid}"
                    self._save(meta)
                    return meta
                untouched = mscan.missing == len(witness.expected_placements) and not mscan.wrong
                # A wrong or obstructing block must be dug even when the module counts as destroyed:
                # a fresh package only places, so it would meet the same occupied cell again.
                fresh = (mscan.state is ModuleState.DESTROYED or untouched) and not (mscan.wrong or mscan.obstructed)
                _, steps = work_package(self.template, witness, None if fresh else diff, "x")
                if self.guard.repeats(mid, attempt_digest(diff, steps, self.inventory())):
                    return self.stuck(meta, mid, diff)  # nothing changed since the last attempt: stop, say why
                if not self.ensure_materials(meta, steps):
                    return meta
                label = "module" if fresh else "repair"
                self.run_package(witness, None if fresh else diff, label)
                continue  # re-scan: the checkpoint is taken on what the world holds
            if not self.checkpoint(meta, mid):
                return meta
            attempts = 0
            built_now += 1
        if meta.done:
            meta.status = BuildStatus.COMPLETE
            self._save(meta)
            self.store.emit(
                self.build_id,
                "build_complete",
                {"taskId": meta.task_id, "checkpoints": len(self.store.checkpoints(self.build_id))},
            )
        self.body.flush()
        return meta

    def ensure_stations_for(self, kinds: set[str]) -> list[str]:
        """Before a sub-task's craft/smelt steps: its station kinds the registry knows are made usable."""
        if self.meta is None:
            return []
        registered = {e.kind for e in self.meta.station_registry}
        todo = (kinds & registered) - self._ensuring
        if not todo:
            return []
        self._ensuring |= todo
        try:  # always through the leaf: it walks to the registered station, so the craft step finds it near
            return [k for k in sorted(todo) if ensure_workstation(self, self.meta, k) is None]
        finally:
            self._ensuring -= todo

    def ensure_stations(self, meta: BuildMetadata, kinds: set[str] | None = None) -> list[str]:
        """ensure_workstation for each required kind (or ``kinds``) with no usable registry entry; the failures."""
        self.revalidate_stations(meta)
        want = kinds if kinds is not None else set(required_stations(self.template, meta.completed_modules))
        failed = []
        for kind in sorted(want & set(WORKSTATION_KINDS)):
            if any(e.kind == kind and e.reachable for e in meta.station_registry):
                continue
            if ensure_workstation(self, meta, kind) is None:
                failed.append(kind)
        return failed

    def clear_cells(self, meta: BuildMetadata, delta: OpenDelta) -> bool:
        """Access repair: dig every blocked doorway/corridor cell; False (blocked) when that cannot progress."""
        cells = [BlockPos(c.x, c.y, c.z) for c in delta.cells]
        steps = [
            BuildStep(StepKind.DIG, delta.module_id, p, self.read(p) or "unknown")
            for p in cells
            if not is_air(self.read(p) or "air")
        ]
        if not steps:
            return True
        digest = "clear:" + ",".join(s.step_id for s in steps)
        if self.guard.repeats(f"clear:{delta.module_id}", digest):
            report = {
                "moduleId": delta.module_id,
                "cells": [
                    {"pos": list(s.pos), "expected": "air", "observed": s.block, "issue": "obstructed"} for s in steps
                ],
                "why": why(self.outcomes[-1] if self.outcomes else None),
            }
            report["text"] = (
                f"no_progress:{delta.module_id}: {len(steps)} doorway/corridor cells cannot be cleared: "
                + ", ".join(f"{tuple(s.pos)}={s.block}" for s in steps[:6])
                + f"; last attempt {report['why']}"
            )
            meta.status = BuildStatus.BLOCKED
            meta.blocked_reason = str(report["text"])
            self._save(meta)
            self.store.emit(self.build_id, "build_blocked", {"taskId": meta.task_id, **report})
            return False
        self.progress("package", {"module": delta.module_id, "label": "clear access", "steps": len(steps), "places": 0})
        self.store.emit(
            self.build_id, "build_repair", {"moduleId": delta.module_id, "clear": [list(s.pos) for s in steps]}
        )
        self.body.module_id = delta.module_id
        outcome = self.executor().run(clearance_package(self.template, delta.module_id, steps), task_id=self.build_id)
        self.outcomes.append(outcome)
        self.body.flush()  # the world persisted, then this package's rows closed done
        return True

    def stuck(self, meta: BuildMetadata, mid: str, diff: ModuleWitness) -> BuildMetadata:
        """Blocked, not retried: the same package would meet the same world; name the cells and the reason."""
        report = stuck_report(mid, diff, self.outcomes[-1] if self.outcomes else None)
        meta.status = BuildStatus.BLOCKED
        meta.blocked_reason = report["text"]
        self._save(meta)
        self.store.emit(self.build_id, "build_blocked", {"taskId": meta.task_id, **report})
        self.progress("blocked", report)
        return meta

    # -- checkpoint (stage 1 + 3) ------------------------------------------------------------------------
    def register_stations(self, meta: BuildMetadata, mid: str) -> None:
        index = meta.module_order.index(mid)
        anchor = self.witnesses[mid].anchor()
        known = {(e.pos.x, e.pos.y, e.pos.z) for e in meta.station_registry}
        for cell, block in self.template.stations(mid):
            pos = anchor.absolute(cell)
            if (pos.x, pos.y, pos.z) in known or self.read(pos) != block:
                continue
            meta.station_registry.append(
                StationEntry(
                    kind=block,  # type: ignore[arg-type]  # template.stations() yields only STATION_BLOCKS
                    pos=Vec(x=pos.x, y=pos.y, z=pos.z),
                    reachable=True,
                    last_verified_at=self.raw_body.now_ticks(),
                    provenance=Provenance(
                        source="placed", module_index=index, step_id=BuildStep(StepKind.PLACE, mid, pos, block).step_id
                    ),
                )
            )

    def repair_utility(self, meta: BuildMetadata, deltas: list[OpenDelta], tried: set[str]) -> bool:
        """Seed 001 "utility failure -> ensure_workstation" (once per issue per checkpoint; it never blocks)."""
        acted = False
        for d in deltas:
            if d.issue in tried or not d.issue.startswith(("reachability:", "storage:")):
                continue
            tried.add(d.issue)
            kind = d.issue.rsplit(" ", 1)[-1]
            if kind in WORKSTATION_KINDS:
                acted = ensure_workstation(self, meta, kind) is not None or acted
            elif d.module_id in self.witnesses:  # the storage anchor: its module's witness holds the chest
                diff, _ = self.module_scan(d.module_id)
                if not diff.complete:
                    self.run_package(self.witnesses[d.module_id], diff, "repair")
                    self.register_stations(meta, d.module_id)
                    acted = True
        return acted

    def checkpoint(self, meta: BuildMetadata, mid: str) -> bool:
        """The module's witness verified: run invariants, repair blocking deltas, append the checkpoint."""
        self.register_stations(meta, mid)
        built = [*meta.completed_modules, mid]
        found: list[OpenDelta] = []
        results: list[InvariantResult] = []
        utility_tried: set[str] = set()
        # MAX_REPAIRS rounds of layout repair, plus one round per utility issue (reachability, storage)
        for _ in range(MAX_REPAIRS + 1 + UTILITY_ROUNDS):
            results, deltas = check_all(
                self.template,
                meta.site_signature,
                self.witnesses,
                built,
                meta.station_registry,
                self.read,
                standable_fn(self.raw_body),
            )
            for d in deltas:
                if all(d.issue != f.issue for f in found):
                    found.append(d)
            if self.repair_utility(meta, deltas, utility_tried):
                continue  # a station was re-placed or the storage module repaired: check again
            blocking = [d for d in deltas if d.severity is Severity.BLOCKING]
            if not blocking:
                break
            self.store.emit(
                self.build_id,
                "build_invariant_failed",
                {
                    "taskId": meta.task_id,
                    "moduleCursor": meta.module_cursor,
                    "openDeltas": [d.model_dump(mode="json", by_alias=True) for d in blocking],
                },
            )
            meta.open_deltas = blocking
            self._save(meta)
            for d in blocking:
                if d.cells:  # a blocked opening: dig its cells wherever the template keeps them
                    if not self.clear_cells(meta, d):
                        return False
                    continue
                target = d.module_id if d.module_id in self.witnesses else mid
                diff, _ = self.module_scan(target)
                if not diff.complete:
                    _, steps = work_package(self.template, self.witnesses[target], diff, "x")
                    if self.guard.repeats(f"repair:{target}", attempt_digest(diff, steps, self.inventory())):
                        self.stuck(meta, target, diff)
                        return False
                    self.run_package(self.witnesses[target], diff, "repair")
        else:
            meta.status = BuildStatus.BLOCKED
            meta.blocked_reason = "blocking_invariant:" + "; ".join(d.issue for d in meta.open_deltas)
            self._save(meta)
            return False
        still_open = {d.issue for d in deltas}
        open_deltas = [d.model_copy(update={"status": "open" if d.issue in still_open else "repaired"}) for d in found]
        self.body.flush()  # the world the checkpoint certifies is on disk before the checkpoint row
        cursor = meta.module_cursor + 1
        ckpt = BuildCheckpoint(
            checkpoint_id=checkpoint_id(meta.template_digest, cursor, built),
            template_digest=meta.template_digest,
            module_cursor=cursor,
            completed_modules=built,
            station_snapshot=[e.model_copy() for e in meta.station_registry],
            invariant_results=results,
            open_deltas=open_deltas,
            inventory_summary=self.inventory(),
            saved_at=int(time.time() * 1000),
        )
        new = self.store.append_checkpoint(self.build_id, ckpt)
        meta.module_cursor = cursor
        meta.completed_modules = built
        meta.open_deltas = [d for d in open_deltas if d.status == "open"]
        meta.checkpoints = self.store.checkpoints(self.build_id)
        self._save(meta)
        event = {
            "taskId": meta.task_id,
            "checkpointId": ckpt.checkpoint_id,
            "moduleCursor": cursor,
            "moduleId": mid,
            "completedModules": built,
            "new": new,
            "invariantResults": [r.model_dump(mode="json") for r in results],
            "witnessDigest": self.witnesses[mid].witness_digest,
        }
        self.store.emit(self.build_id, "build_checkpoint", event)
        self.progress("checkpoint", event)
        return True
