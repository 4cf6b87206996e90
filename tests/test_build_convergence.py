"""Seed 001: every template builds from an empty site, and repairs converge or stop with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.structures import Anchor, Cell, Facing
from tests.buildkit import AT, HELD_OUT, SHIPPED, make_runner, world_matches


@pytest.mark.parametrize("template", [*SHIPPED, str(HELD_OUT)], ids=[*SHIPPED, "held_out_lookout"])
def test_every_template_builds_from_an_empty_site(tmp_path: Path, template: str) -> None:
    runner, body, store = make_runner(tmp_path, template, facing="E")
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    assert world_matches(runner, body)
    assert all(n == 1 for n in store.placement_counts(runner.build_id).values())
    assert len(meta.checkpoints) == len(runner.template.modules)


def test_identical_work_package_is_not_rerun_and_the_module_is_reported_blocked(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "hut")
    stuck = Anchor(origin=AT, facing=Facing.N).absolute(Cell(dx=0, dy=1, dz=2))  # a back-wall cell of the shell
    body.set_block(stuck, "bedrock")  # wrong, and cannot be dug: no package can ever fix it
    meta = runner.run()
    assert meta.status.value == "blocked"
    assert meta.blocked_reason is not None and meta.blocked_reason.startswith("no_progress:shell")
    assert str(tuple(stuck)) in meta.blocked_reason and "not_diggable" in meta.blocked_reason
    packages = [e for e in store.events(runner.build_id, "build_blocked")]
    assert packages and {"pos": list(stuck), "expected": "cobblestone", "observed": "bedrock", "issue": "wrong"} in (
        packages[0]["cells"]
    )
    # One attempt (dig the bedrock, place the rest); the same package against the same world is refused,
    # not re-run to the attempt cap.
    shell_runs = [o for o in runner.outcomes if "shell" in o.tree]
    assert len(shell_runs) == 1
