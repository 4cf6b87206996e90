"""The geofence covers movement: targets before dispatch, the path while it runs, first stage, fail closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from craftbt.capabilities.default import default_registry
from craftbt.executor.config import Bounds, ExecutorConfig
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.pipeline import ADMISSION_STAGES, STAGES
from craftbt.trees import model as m
from craftbt.world.scenarios.loader import build
from craftbt.world.scenarios.schema import Scenario


def flat(**extra: Any) -> Any:
    return build(Scenario.model_validate({"name": "flat", "generator": {"type": "flat"}, **extra}))


def move(x: int, y: int, z: int) -> m.TreeDefinition:
    return m.TreeDefinition(tree="mv", root=m.SequenceNode(children=[
        m.LeafNode(capability="move_to", args={"pos": {"x": x, "y": y, "z": z}})]))


def run(defn: m.TreeDefinition, tmp_path: Path, body: Any, **config: Any) -> RunOutcome:
    ex = Executor(default_registry(), body, config=ExecutorConfig(**config), home=tmp_path)
    try:
        return ex.run(defn)
    finally:
        ex.journal.close()


def reasons(out: RunOutcome) -> list[str]:
    return [d.reason for d in out.failures]


def test_geofence_is_the_first_stage() -> None:
    # the admission policy opens with the geofence (fail closed); only a resume's completed steps, which
    # dispatch nothing and refuse nothing, are recognised before it
    assert ADMISSION_STAGES[0][0] == "geofence"
    assert [name for name, _ in STAGES][:2] == ["resumed", "geofence"]


def test_movement_without_a_geofence_is_refused(tmp_path: Path) -> None:
    body = flat()
    start = body.position()
    out = run(move(int(start.x) + 5, int(start.y), int(start.z)), tmp_path, body)
    assert "geofence_unconfigured" in reasons(out) and out.dispatches == 0


def test_movement_target_outside_the_fence_is_refused_first(tmp_path: Path) -> None:
    body = flat()
    p = body.position()
    fence = Bounds(min_x=int(p.x) - 8, min_y=-64, min_z=int(p.z) - 8, max_x=int(p.x) + 8, max_y=320,
                   max_z=int(p.z) + 8)
    # read_only lacks the movement permission: the fence, stage one, still speaks first
    out = run(move(int(p.x) + 40, int(p.y), int(p.z)), tmp_path, body, geofence=fence, profile="read_only")
    assert reasons(out)[0] == "geofence_violation:target" and out.dispatches == 0
    assert body.position() == p


def test_a_path_that_leaves_the_fence_is_stopped(tmp_path: Path) -> None:
    body = flat()
    p = body.position().block()
    # a wall across the fenced strip: the only way round is outside the fence (z > p.z + 2)
    wall = {"from": [4, 0, -6], "to": [4, 2, 2], "block": "stone"}
    body = flat(fill=[wall])
    fence = Bounds(min_x=p.x - 2, min_y=-64, min_z=p.z - 6, max_x=p.x + 10, max_y=320, max_z=p.z + 2)
    out = run(move(p.x + 8, p.y, p.z), tmp_path, body, geofence=fence)
    assert out.status != "success"
    assert "geofence_violation:path" in reasons(out), reasons(out)
    # stopped at the crossing: at most a block or so past the edge
    assert body.position().z <= fence.max_z + 2.5
