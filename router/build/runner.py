"""The build runner: checkpointed module execution, resume with reconciliation, repair, sub-tasks.

One :meth:`BuildRunner.run` call is one session. It always starts with
:meth:`resume` (stage 2) — reconcile in-flight actions, validate the site
signature, re-validate the station registry, scan the completed modules and
the module at the cursor — then, module by module from ``module_cursor``:

1. scan the module's witness and classify the delta; the micro plan is
   recomputed from it (every placement for a fresh or destroyed module, only
   the diff for a partial or drifted one) — never "continue from step N";
2. a material deficit spawns a resource sub-task (stage 4) and blocks the
   parent until it completes;
3. the work package (a tree: ``place_block_at``/``dig_block_at`` leaves, then
   ``verify_module``) runs through the :class:`~executor.executor.Executor` on a
   :class:`~executor.build_state.journal_body.JournalingBody`;
4. the checkpoint hook re-scans the witness (the same code path as
   ``verify_module``), runs the invariant set, repairs blocking deltas (at
   most :data:`MAX_REPAIRS` rounds), appends a content-addressed checkpoint,
   advances the cursor and emits ``build_checkpoint``.

Crash-safety design (simulator): the world is an atomic snapshot file in the
state directory (write to a temporary file, ``os.replace``), saved after every
realized placement/dig *before* the action row is closed, at every checkpoint
*before* the checkpoint row is written, and every ``persist_every`` ticks.
So after a SIGKILL at any instant the world file is never behind the database:
a ``done`` row or a checkpoint always describes blocks the world file holds;
the world may be one action ahead (an ``in_flight`` row whose effect was
saved), which reconciliation settles as ``done`` without placing again. On a
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
from craftbt.executor.build_state.invariants import check_all
from craftbt.executor.build_state.journal_body import JournalingBody
from craftbt.executor.build_state.models import (
    Bounds,
    BuildCheckpoint,
    BuildMetadata,
    BuildStatus,
    InvariantResult,
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
from craftbt.planners.building.planner import BuildingPlanner, deficits, work_package
from craftbt.trees.structure_template import StructureTemplate, anchor_for
from craftbt.trees.structure_witness import ModuleState, ModuleWitnessV1, classify, scan
from craftbt.world.body import BlockPos, Body
from craftbt.world.sim.body import SimBody
from craftbt.world.sim.snapshot import dumps

MAX_REPAIRS = 3
MAX_MODULE_ATTEMPTS = 4
#: Share of the completed modules' placements that must still match for the site to be recognized.
SITE_MATCH_SHARE = 0.2
FENCE_MARGIN = 16

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
    site_valid: bool = True
    stations: list[dict[str, Any]] = Field(default_factory=list)
    completed_scans: list[ModuleScan] = Field(default_factory=list)
    current: ModuleScan | None = None
    action: str = "advance"
    scan_ms: float = 0.0


def read_fn(body: Body) -> Callable[[BlockPos], str | None]:
    return lambda p: body.block_at(p).name


def standable_fn(body: Body) -> Callable[[BlockPos], bool]:
    def standable(p: BlockPos) -> bool:
        below = body.block_at(p.offset(dy=-1)).name
        return (
            not is_replaceable(below) and is_air(body.block_at(p).name) and is_air(body.block_at(p.offset(dy=1)).name)
        )

    return standable


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
        self.read = read_fn(body)

    # -- metadata --------------------------------------------------------------------------------
    def load_or_create(self) -> BuildMetadata:
        meta = self.store.load_build(self.build_id)
        if meta is not None:
            if meta.template_digest != self.template.digest:
                raise ValueError(
                    f"build {self.build_id} was started from another template "
                    f"({meta.template_digest} != {self.template.digest})"
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
        """Step 0: every in-flight action is settled from the world: effect present -> done, else lost."""
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
        return done, lost

    def site_valid(self, meta: BuildMetadata) -> bool:
        """The completed modules' placements still mostly stand, and the ground under the footprint is there."""
        total = matched = 0
        for mid in meta.completed_modules:
            for pos, block in self.witnesses[mid].absolute_placements():
                total += 1
                matched += self.read(pos) == block
        if total and matched < SITE_MATCH_SHARE * total:
            return False
        b = meta.site_signature.footprint_bounds
        ground = [BlockPos(x, b.min.y - 1, z) for x in (b.min.x, b.max.x) for z in (b.min.z, b.max.z)]
        solid = sum(not is_replaceable(self.read(p) or "air") for p in ground)
        return solid >= 2 or bool(meta.completed_modules)

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

    def module_scan(self, module_id: str) -> tuple[ModuleWitness, ModuleScan]:
        w = self.witnesses[module_id]
        diff = scan(w, self.read)
        return diff, ModuleScan(
            module_id=module_id,
            state=classify(w, diff),
            missing=len(diff.missing),
            wrong=len(diff.wrong),
            obstructed=len(diff.obstructed),
        )

    def resume(self, meta: BuildMetadata) -> ResumeReport:
        t0 = time.perf_counter()
        report = ResumeReport()
        report.reconciled_done, report.reconciled_lost = self.reconcile()
        report.site_valid = self.site_valid(meta)
        if not report.site_valid:
            meta.module_cursor = 0
            meta.completed_modules = []
            report.action = "replan_build"
        report.stations = self.revalidate_stations(meta)
        for mid in meta.completed_modules:
            _, s = self.module_scan(mid)
            report.completed_scans.append(s)
        if not meta.done:
            _, report.current = self.module_scan(meta.module_order[meta.module_cursor])
            if report.action != "replan_build":
                report.action = {
                    ModuleState.COMPLETED: "advance",
                    ModuleState.PARTIALLY_COMPLETED: "repair",
                    ModuleState.DRIFTED: "repair",
                    ModuleState.DESTROYED: "replan_module",
                }[report.current.state]
        if (
            any(s.state is not ModuleState.COMPLETED for s in report.completed_scans)
            and report.action != "replan_build"
        ):
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
        self.body.module_id = witness.module_id
        outcome = self.executor().run(tree, task_id=self.build_id)
        self.outcomes.append(outcome)
        self.body.settle()
        return outcome

    def inventory(self) -> dict[str, int]:
        return dict(self.raw_body.observe().inventory)

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
            ok = self.acquirer is not None and self.acquirer(self, task)
            if not ok or self.inventory().get(item, 0) < task["goal"]["count"]:
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
        meta = self.load_or_create()
        self.resume(meta)
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
                fresh = mscan.state is ModuleState.DESTROYED or untouched
                _, steps = work_package(self.template, witness, None if fresh else diff, "x")
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
        if self.persist is not None:
            self.persist()
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

    def checkpoint(self, meta: BuildMetadata, mid: str) -> bool:
        """The module's witness verified: run invariants, repair blocking deltas, append the checkpoint."""
        self.register_stations(meta, mid)
        built = [*meta.completed_modules, mid]
        found: list[OpenDelta] = []
        results: list[InvariantResult] = []
        for _ in range(MAX_REPAIRS + 1):
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
                target = d.module_id if d.module_id in self.witnesses else mid
                diff, _ = self.module_scan(target)
                if not diff.complete:
                    self.run_package(self.witnesses[target], diff, "repair")
        else:
            meta.status = BuildStatus.BLOCKED
            meta.blocked_reason = "blocking_invariant:" + "; ".join(d.issue for d in meta.open_deltas)
            self._save(meta)
            return False
        still_open = {d.issue for d in deltas}
        open_deltas = [d.model_copy(update={"status": "open" if d.issue in still_open else "repaired"}) for d in found]
        if self.persist is not None:
            self.persist()  # the world the checkpoint certifies is on disk before the checkpoint row
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
