"""The runtime introspection and navigation API (seed 004, second half): six calls on any Body.

``get_vox``, ``affordances``, ``nearest``, ``block_info``, ``get_topography`` and ``nav`` return plain
JSON-ready dicts with ``minecraft:``-prefixed ids and absolute world coordinates. They read the Body
protocol only (``block_at``, ``find_blocks``, ``entities``, ``goto``), so the same code serves the
embedded world and mineflayer. Decisions where the seed is silent are documented in docs/craftscript.md:
hazard names, slope labels (``flat``, ``gentle_up``, ``up``, ``gentle_down``, ``down``; gentle = one block)
and the ``flat_cells`` rule (height equal to the agent's).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from craftbt.craftscript.navpolicy import NavFailure, NavPolicy, apply_to_body, hazard_near, path_violation
from craftbt.world import mcdata
from craftbt.world.body import (
    FACE_OFFSETS,
    ActionHandle,
    ActionStatus,
    BlockPos,
    Body,
    BodyError,
    Face,
)
from craftbt.world.mcdata import McData
from craftbt.world.terrain import HAZARDS, LIQUIDS, StairRules, stair_up_step, standable, step_holds

PREFIX = "minecraft:"
AIRS = frozenset({"air", "cave_air", "void_air"})
#: the lowest cell a topography column search goes below the agent's feet, and the highest above
TOPO_DEPTH = 16


def strip(name: str) -> str:
    return name[len(PREFIX):] if name.startswith(PREFIX) else name


def canonical(name: str) -> str:
    return name if name.startswith(PREFIX) else PREFIX + name


def registry_for(body: Body) -> McData:
    try:
        return mcdata.load(body.version)
    except mcdata.McDataFileError:
        return mcdata.load()


class Introspection:
    """The six calls, bound to one body."""

    def __init__(self, body: Body, md: McData | None = None) -> None:
        self.body = body
        self.md = md or registry_for(body)
        self._navs: dict[str, _Nav] = {}
        self._nav_seq = 0
        #: block names read so far, when the caller keeps a voxel cache (the interpreter does, and clears it
        #: whenever game time passes); None: every read goes to the body
        self.memo: dict[BlockPos, str] | None = None
        # a body that can read a name without a BlockInfo (SimBody.block_name) serves the many reads of a scan
        #: a block's name read from the body now, past any memo
        self.fresh: Callable[[BlockPos], str] = getattr(body, "block_name", None) or (lambda p: body.block_at(p).name)

    # -- helpers ------------------------------------------------------------------------------
    def name_at(self, pos: BlockPos) -> str:
        memo = self.memo
        if memo is None:
            return self.fresh(pos)
        name = memo.get(pos)
        if name is None:
            name = memo[pos] = self.fresh(pos)
        return name

    def solid(self, name: str) -> bool:
        return self.md.has_block(name) and self.md.block(name).solid

    def feet(self) -> BlockPos:
        return self.body.position().block()

    def hazards(self, center: BlockPos | None = None, radius: int = 2) -> list[str]:
        """Named hazards around ``center``: lava_near, water_near, fire_near, gravel_overhead, void_below."""
        c = center or self.feet()
        found: set[str] = set()
        for dx, dy, dz in itertools.product(range(-radius, radius + 1), repeat=3):
            name = self.name_at(c.offset(dx, dy, dz))
            if name == "lava":
                found.add("lava_near")
            elif name in ("fire", "soul_fire"):
                found.add("fire_near")
            elif name == "water":
                found.add("water_near")
        for dy in range(2, 2 + radius + 1):
            name = self.name_at(c.offset(dy=dy))
            if self.md.has_block(name) and self.md.block(name).gravity:
                found.add("gravel_overhead")
                break
        if not any(self.solid(self.name_at(c.offset(dy=-d))) for d in range(1, 5)):
            found.add("void_below")
        return sorted(found)

    def standable(self, pos: BlockPos) -> bool:
        """``can_stand``: the terrain rule every leaf uses (:func:`craftbt.world.terrain.standable`)."""
        return standable(self.name_at, self.solid, pos)

    def safe_step_up(self, front: BlockPos) -> bool:
        """Step up onto ``front`` from the cell before it (the bot's own, for ``f1``): a step of world.terrain's
        way out of a hole that holds (:func:`~craftbt.world.terrain.step_holds`: its floor, its cells, no liquid
        let in), of which only the step's head cell may still be dug (section 11 A digs it first); the others
        must be free already."""
        me = self.feet()
        dx, dz = front.x - me.x, front.z - me.z
        if dx == dz == 0:
            return False
        side = (1 if dx > 0 else -1, 0) if abs(dx) >= abs(dz) else (0, 1 if dz > 0 else -1)
        step = stair_up_step(front.offset(-side[0], 0, -side[1]), side, 1)
        head = step.at.offset(dy=1)
        return step_holds(self.name_at, self.solid, step, StairRules(may_dig=lambda cell: cell == head))

    def safe_step_down(self, front: BlockPos) -> bool:
        """Step forward and down into ``front - 1``: ``front``, the cell above it (the head walks through it
        before the drop: a staircase dug down needs it clear) and the cell below it free, a safe floor under."""
        over, head = self.name_at(front.offset(dy=1)), self.name_at(front)
        into, floor = self.name_at(front.offset(dy=-1)), self.name_at(front.offset(dy=-2))
        if any(n in HAZARDS for n in (over, head, into, floor)) or into in LIQUIDS or floor in LIQUIDS:
            return False
        return not self.solid(over) and not self.solid(head) and not self.solid(into) and self.solid(floor)

    # -- 1) get_vox -------------------------------------------------------------------------
    def get_vox(self, radius: int = 2, include_air: bool = False, grep: list[str] | None = None) -> dict[str, Any]:
        own = self.memo is None
        if own:
            self.memo = {}  # the hazard checks re-read most of the window: read each cell once
        try:
            return self._get_vox(radius, include_air, grep)
        finally:
            if own:
                self.memo = None

    def refresh(self, radius: int = 2) -> tuple[int, list[str]]:
        """Read the window around the feet into the memo (which the caller keeps); the number of non-air cells
        and the hazards. get_vox without building its payload: the interpreter's scans need only this."""
        if self.memo is None:
            raise ValueError("refresh() fills a memo: set Introspection.memo first")
        o = self.feet()
        rng = range(-radius, radius + 1)
        solid = sum(1 for dx, dy, dz in itertools.product(rng, rng, rng)
                    if self.name_at(BlockPos(o.x + dx, o.y + dy, o.z + dz)) not in AIRS)
        return solid, self.hazards(o, min(radius, 2))

    def _get_vox(self, radius: int, include_air: bool, grep: list[str] | None) -> dict[str, Any]:
        radius = max(0, min(int(radius), 8))
        o = self.feet()
        voxels: list[dict[str, Any]] = []
        matches: list[dict[str, Any]] = []
        wanted = {strip(g) for g in grep or []}
        rng = range(-radius, radius + 1)
        for dx, dy, dz in itertools.product(rng, rng, rng):
            p = o.offset(dx, dy, dz)
            name = self.name_at(p)
            cell = {"x": p.x, "y": p.y, "z": p.z, "id": canonical(name)}
            if include_air or name not in AIRS:
                voxels.append(cell)
            if wanted and any(w == name or w in name for w in wanted):
                matches.append(cell)
        side = 2 * radius + 1
        out: dict[str, Any] = {
            "window": {"radius": radius, "shape": [side, side, side], "origin": {"x": o.x, "y": o.y, "z": o.z}},
            "voxels": voxels,
            "predicates": {"HAZARDS": self.hazards(o, min(radius, 2))},
        }
        if grep:
            out["grep"] = list(grep)
            out["matches"] = matches
        return out

    # -- 2) affordances ---------------------------------------------------------------------
    def affordances(self, x: int, y: int, z: int) -> dict[str, Any]:
        pos = BlockPos(x, y, z)
        name = self.name_at(pos)
        faces = [f.value for f in Face if self._placeable_face(pos, f)]
        inv = {s.name for s in self.body.inventory()}
        best = self.md.best_tool(name, inv) if self.md.has_block(name) and name not in AIRS else None
        if best is None and self.md.has_block(name) and name not in AIRS:
            best = _preferred_tool(self.md, name)
        return {
            "position": {"x": x, "y": y, "z": z},
            "can_stand": self.standable(pos),
            "safe_step_up": self.safe_step_up(pos),
            "safe_step_down": self.safe_step_down(pos),
            "placeable_faces": faces,
            "tools": {"break_best": canonical(best) if best else None,
                      "place_requires_support": not self.solid(name)},
        }

    def _placeable_face(self, pos: BlockPos, face: Face) -> bool:
        """A block can be placed against ``face`` of ``pos``: it is solid and the cell beyond is free."""
        if not self.solid(self.name_at(pos)):
            return False
        d = FACE_OFFSETS[face]
        beyond = self.name_at(pos.offset(*d))
        return beyond in AIRS or beyond in LIQUIDS

    # -- 3) nearest -------------------------------------------------------------------------
    def nearest(self, block_id: str | None = None, entity_id: str | None = None, radius: int = 48,
                reachable: bool = False, limit: int = 8) -> dict[str, Any]:
        me = self.body.position()
        matches: list[dict[str, Any]] = []
        if block_id is not None:
            for p in self.body.find_blocks([strip(block_id)], int(radius), max_count=limit):
                matches.append({"world": [p.x, p.y, p.z], "dist": round(p.distance_to(me), 1)})
        if entity_id is not None:
            for e in self.body.entities(float(radius)):
                if e.name == strip(entity_id):
                    p = e.position.block()
                    matches.append({"world": [p.x, p.y, p.z], "dist": round(e.position.distance_to(me), 1)})
        matches.sort(key=lambda m: m["dist"])
        matches = matches[:limit]
        if reachable:
            for m in matches:
                m["reachable"] = self._reachable(BlockPos(*m["world"]), block_id is not None)
        return {"matches": matches}

    def _reachable(self, target: BlockPos, is_block: bool) -> bool:
        plan = getattr(self.body, "plan", None)
        if plan is None:
            return True  # a body that cannot plan without walking: assume yes, the goto will tell
        try:
            plan(target, 4.0 if is_block else 1.5)
        except BodyError:
            return False
        return True

    # -- 4) block_info ----------------------------------------------------------------------
    def block_info(self, id: str | None = None, x: int | None = None, y: int | None = None,
                   z: int | None = None) -> dict[str, Any]:
        state: dict[str, Any] | None = None
        if id is None:
            if x is None or y is None or z is None:
                raise ValueError("block_info needs an id or x, y and z")
            info = self.body.block_at(BlockPos(x, y, z))
            name, state = info.name, dict(info.state) or None
        else:
            name = strip(id)
        if not self.md.has_block(name):
            raise ValueError(f"unknown block {id!r}")
        b = self.md.block(name)
        category = ("air" if name in AIRS else "liquid" if name in LIQUIDS else "gravity" if b.gravity
                    else "solid" if b.solid else "non_solid")
        tool = _preferred_tool(self.md, name)
        out: dict[str, Any] = {
            "id": canonical(name),
            "state": state,
            "props": {
                "category": category,
                "preferred_tool": canonical(tool) if tool else None,
                "falls": b.gravity,
                "liquid": name in LIQUIDS,
                "place_requires_support": not b.solid and name not in AIRS and name not in LIQUIDS,
                "hardness": b.hardness,
                "diggable": b.breakable,
                "light_emission": b.emit_light,
                "drops": [canonical(d) for d in b.drops],
            },
        }
        if id is None:
            out["pos"] = [x, y, z]
        return out

    # -- 5) get_topography ------------------------------------------------------------------
    def get_topography(self, radius: int = 6) -> dict[str, Any]:
        radius = max(1, min(int(radius), 16))
        o = self.feet()
        heights: dict[tuple[int, int], int] = {}
        for dx in range(-radius, radius + 1):
            for dz in range(-radius, radius + 1):
                heights[(o.x + dx, o.z + dz)] = self._surface(o.x + dx, o.z + dz, o.y) - o.y
        slope: dict[str, str] = {}
        for (x, z), h in heights.items():
            up = max((heights.get((x + dx, z + dz), h) - h for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))),
                     default=0)
            down = min((heights.get((x + dx, z + dz), h) - h for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))),
                       default=0)
            if up == 0 and down == 0:
                continue
            label = ("gentle_up" if up == 1 else "up") if up >= -down else ("gentle_down" if down == -1 else "down")
            slope[f"{x},{z}"] = label
        values = list(heights.values())
        side = 2 * radius + 1
        return {
            "grid": {"size": [side, side], "origin": {"x": o.x, "z": o.z}},
            "heightmap": {f"{x},{z}": h for (x, z), h in heights.items()},
            "slope": slope,
            "summary": {"min": min(values), "max": max(values), "flat_cells": sum(1 for v in values if v == 0)},
        }

    def _surface(self, x: int, z: int, y0: int) -> int:
        """The standing height of a column near ``y0``: the lowest free cell above a solid one, searched outwards."""
        for d in range(TOPO_DEPTH + 1):
            for y in (y0 + d, y0 - d) if d else (y0,):
                if self.solid(self.name_at(BlockPos(x, y - 1, z))) and not self.solid(self.name_at(BlockPos(x, y, z))):
                    return y
        return y0 - TOPO_DEPTH

    # -- 6) nav -------------------------------------------------------------------------------
    def nav(self, action: str, target: dict[str, Any] | None = None, tol: float = 1.0, timeout_ms: int = 8000,
            policy: dict[str, Any] | None = None, nav_id: str | None = None) -> dict[str, Any]:
        """start (non-blocking) / status / cancel. Advance the body's clock between status calls."""
        if action == "start":
            if not target or not all(k in target for k in ("x", "y", "z")):
                raise ValueError('nav start needs target {"type":"WORLD", "x", "y", "z"}')
            try:
                rules = NavPolicy.model_validate(policy or {})
            except ValidationError as exc:
                raise ValueError(f"nav policy: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
            self._nav_seq += 1
            nid = f"nav_{self._nav_seq}"
            goal = BlockPos(int(target["x"]), int(target["y"]), int(target["z"]))
            nav = _Nav(nid, goal, float(tol), self.body.now_ticks() + max(1, timeout_ms // 50), rules)
            nav.restore = apply_to_body(self.body, rules)  # first: the path checked is the one this walk takes
            refused = path_violation(self.body, goal, float(tol), rules, self.name_at)
            if refused is not None:
                nav.state, nav.reason = "failed", refused[0].value
                nav.detail = refused[1]
                nav.finish()
            else:
                try:
                    nav.handle = self.body.goto(goal, float(tol))
                except BodyError as err:
                    nav.state = "failed"
                    nav.reason = NavFailure.UNREACHABLE.value if err.code.value == "no_path" else err.code.value
                    nav.finish()
            self._navs[nid] = nav
            return {"nav_id": nid, "state": "planning" if nav.state != "failed" else "failed",
                    **({"reason": nav.reason} if nav.reason else {}), **({"detail": nav.detail} if nav.detail else {})}
        if nav_id is None or nav_id not in self._navs:
            raise ValueError(f"unknown nav_id {nav_id!r}")
        nav = self._navs[nav_id]
        if action == "cancel":
            if nav.handle is not None and nav.handle.status() is ActionStatus.RUNNING:
                nav.handle.cancel("cancelled")
            if nav.state not in ("arrived", "failed"):
                nav.state = "canceled"
            nav.finish()
            return {"nav_id": nav_id, "state": nav.state}
        if action == "status":
            return self._status(nav)
        raise ValueError(f"unknown nav action {action!r}; use start, status or cancel")

    def _status(self, nav: _Nav) -> dict[str, Any]:
        h = nav.handle
        if nav.state in ("planning", "moving") and h is not None:
            st = h.status()
            if st is ActionStatus.SUCCEEDED:
                nav.state = "arrived"
            elif st is ActionStatus.FAILED:
                err = h.error()
                nav.state = "failed"
                nav.reason = "UNREACHABLE" if err is not None and err.code.value == "no_path" else "BLOCKED"
            elif st is ActionStatus.CANCELLED:
                nav.state = "canceled"
            elif self.body.now_ticks() > nav.deadline:
                h.cancel("timeout")
                nav.state, nav.reason = "failed", NavFailure.TIMEOUT.value
            elif (burning := hazard_near(self.fresh, self.body.position().block())):
                h.cancel("hazard")
                nav.state, nav.reason, nav.detail = "failed", NavFailure.HAZARD.value, burning
            else:
                nav.state = "moving"
            if nav.state not in ("planning", "moving"):
                nav.finish()
        here = self.body.position()
        dist = max(0.0, here.distance_to(nav.goal) - 0.0)
        out: dict[str, Any] = {
            "nav_id": nav.nav_id, "state": nav.state, "distance_remaining": round(dist, 1),
            "nodes_expanded": len(getattr(h, "path", []) or []), "replan_count": int(getattr(h, "replans", 0) or 0),
            "eta_seconds": math.ceil(dist / 4.317) if nav.state in ("planning", "moving") else 0,
        }
        if nav.reason:
            out["reason"] = nav.reason
        if nav.detail:
            out["detail"] = nav.detail
        return out


class _Nav:
    def __init__(self, nav_id: str, goal: BlockPos, tol: float, deadline: int, policy: NavPolicy) -> None:
        self.nav_id = nav_id
        self.goal = goal
        self.tol = tol
        self.deadline = deadline
        self.policy = policy
        self.handle: ActionHandle | None = None
        self.state = "planning"
        self.reason: str | None = None
        self.detail: str | None = None
        #: gives the body back the drop limit it had before this walk (once)
        self.restore: Callable[[], None] | None = None

    def finish(self) -> None:
        if self.restore is not None:
            self.restore()
            self.restore = None


def _preferred_tool(md: McData, name: str) -> str | None:
    """The iron tool of the block's effective-tool tag (``mineable/pickaxe`` -> iron_pickaxe), if any."""
    if not md.has_block(name):
        return None
    for kind in ("pickaxe", "shovel", "axe", "hoe"):
        if f"mineable/{kind}" in md.block(name).material:
            return f"iron_{kind}"
    return None
