"""Interop judged by the real libraries: BehaviorTree.CPP 4.10 (``btjudge``) loads and ticks what we
export; real XML from the BehaviorTree.CPP and Nav2 repositories imports or is refused at FILE:LINE:COL."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.trees import model as m
from craftbt.trees.btcpp import id_to_path, path_to_id
from craftbt.trees.btcpp_export import to_xml
from craftbt.trees.btcpp_import import from_xml, import_xml
from craftbt.trees.loader import load_file
from tests.leafkit import shared_registry

REPO = Path(__file__).resolve().parent.parent
LIBRARY = sorted((REPO / "trees" / "library").rglob("*.yaml"))
ALL_CONSTRUCTS = REPO / "tests" / "corpus" / "interop" / "all_constructs.yaml"
REAL_XML = sorted((REPO / "tests" / "corpus" / "btcpp_real").rglob("*.xml"))
LOCATED = re.compile(r"^[^:]+:\d+:\d+: ")


def _btjudge() -> Path | None:
    """BT.CPP 4.10 as a loader: $CRAFTBT_BTJUDGE, the shared tools beside the checkout, or PATH."""
    candidates = [os.environ.get("CRAFTBT_BTJUDGE", "")]
    candidates += [str(p / "shared" / "tools" / "btjudge" / "btjudge") for p in (REPO.parent, REPO.parent.parent)]
    candidates.append(shutil.which("btjudge") or "")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


BTJUDGE = _btjudge()
needs_btjudge = pytest.mark.skipif(BTJUDGE is None, reason="btjudge (BehaviorTree.CPP 4.10 loader) not found; "
                                   "set CRAFTBT_BTJUDGE to its path")


def judge(xml: str, tmp_path: Path, mode: str) -> str:
    assert BTJUDGE is not None
    path = tmp_path / f"tree-{mode}.xml"
    path.write_text(xml, encoding="utf-8")
    out = subprocess.run([str(BTJUDGE), str(path), mode], capture_output=True, text=True, timeout=60, check=False)
    return out.stdout + out.stderr


@needs_btjudge
@pytest.mark.parametrize("path", [*LIBRARY, ALL_CONSTRUCTS], ids=lambda p: p.name)
@pytest.mark.parametrize("mode", ["ok", "condfail", "allfail"])
def test_btcpp_loads_and_ticks_every_export(path: Path, mode: str, tmp_path: Path) -> None:
    xml = to_xml(load_file(path), registry=shared_registry(), base_dir=path.parent)
    report = judge(xml, tmp_path, mode)
    result = report.strip().splitlines()[-1]
    assert re.fullmatch(r"RESULT loaded-and-ticked final=(SUCCESS|FAILURE|RUNNING) input_errors=0", result), report


@needs_btjudge
def test_all_constructs_runs_every_action_in_btcpp(tmp_path: Path) -> None:
    report = judge(to_xml(load_file(ALL_CONSTRUCTS), registry=shared_registry()), tmp_path, "ok")
    assert "final=SUCCESS input_errors=0" in report, report
    # the subtree ran and read the caller's {spot} through port remapping
    assert "move_to(part_move) chat(part_chat)" in report, report


def test_all_constructs_round_trips_through_xml() -> None:
    defn = load_file(ALL_CONSTRUCTS)
    xml = to_xml(defn, registry=shared_registry())
    back = from_xml(xml, registry=shared_registry())
    assert back.model_dump() == defn.model_dump()
    # nothing outside BT.CPP's XSD: no <Blackboard>, no _description, object args as json: literals
    assert "<Blackboard" not in xml and "_description" not in xml
    assert 'pos="json:{&quot;x&quot;: 1, &quot;y&quot;: 64, &quot;z&quot;: 2}"' in xml
    assert '<SubTree ID="part-2Eyaml" _autoremap="true" target="{spot}" />' in xml
    assert '<Decorator ID="OneShot" />' in xml and '<Decorator ID="EternalGuard">' in xml


@pytest.mark.parametrize("path", ["common/eat_if_hungry.yaml", "a-b/c d.yml", "x.json", "ünï/tree.yaml"])
def test_subtree_ids_are_valid_model_names_and_reverse(path: str) -> None:
    ident = path_to_id(path)
    assert not set(ident) & set(" \t\n\r<>&\"'/\\:*?|.")  # BT.CPP's findForbiddenChar
    assert id_to_path(ident) == path


# -- import of real XML ----------------------------------------------------------------
def test_the_real_corpus_is_there() -> None:
    assert len(REAL_XML) >= 60


@pytest.mark.parametrize("path", REAL_XML, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_real_xml_imports_or_is_refused_with_a_location(path: Path) -> None:
    from craftbt.cli.trees_cmds import check_file

    checked = check_file(path, shared_registry())  # must not raise: every outcome is a Checked
    for problem in checked.problems:
        assert LOCATED.match(problem.render()), problem.render()
        assert problem.location.file == str(path)


def _problems(xml: str) -> list[str]:
    with pytest.raises(CraftbtError) as err:
        import_xml(xml, file="t.xml", registry=shared_registry())
    return [p.render() for p in err.value.problems]


def _tree(body: str) -> str:
    return f'<root BTCPP_format="4">\n  <BehaviorTree ID="T">\n    {body}\n  </BehaviorTree>\n</root>'


def test_unsupported_control_names_what_to_write() -> None:
    (msg,) = _problems(_tree("<RecoveryNode><wait/><wait/></RecoveryNode>"))
    assert msg.startswith("t.xml:3:5: conversion_error: unknown control node <RecoveryNode> with 2 children")
    assert "expected sequence, selector or parallel" in msg
    (msg,) = _problems(_tree("<IfThenElse><has_item item='x'/><wait/></IfThenElse>"))
    assert "BT.CPP's <IfThenElse> has no craftbt equivalent" in msg and "selector of [sequence" in msg
    (msg,) = _problems(_tree("<RateController hz='1'><wait/></RateController>"))
    assert "unknown decorator <RateController>" in msg


def test_script_conditions_are_refused_not_dropped() -> None:
    (msg,) = _problems(_tree("<Sequence><wait _while='battery &gt; 10'/></Sequence>"))
    assert msg.startswith("t.xml:3:15: conversion_error: <wait> _while=")
    assert "eternal_guard" in msg


def test_builtins_map_to_py_trees_equivalents_and_capabilities() -> None:
    defn = from_xml(_tree("<Sequence><AlwaysSuccess/><Sleep msec='250'/><ForceSuccess><AlwaysFailure/></ForceSuccess>"
                          "<KeepRunningUntilFailure><wait/></KeepRunningUntilFailure>"
                          "<RetryUntilSuccessful num_attempts='-1'><wait/></RetryUntilSuccessful>"
                          "<Delay delay_msec='100'><wait/></Delay></Sequence>"), registry=shared_registry())
    seq = defn.root
    assert isinstance(seq, m.SequenceNode)
    ok, sleep, forced, keep, retry, delay = seq.children
    assert isinstance(ok, m.LeafNode) and (ok.capability, ok.args) == ("wait", {"ms": 0})
    assert isinstance(sleep, m.LeafNode) and sleep.args == {"ms": 250}
    assert isinstance(forced, m.DecoratorNode) and isinstance(forced.child, m.DecoratorNode)
    assert forced.child.decorator is m.DecoratorKind.SUCCESS_IS_FAILURE
    assert isinstance(keep, m.DecoratorNode) and keep.params == {"count": -1}
    assert isinstance(retry, m.DecoratorNode) and retry.params == {"attempts": -1}
    assert isinstance(delay, m.SequenceNode) and isinstance(delay.children[0], m.LeafNode)


def test_leading_set_blackboard_becomes_initial_values() -> None:
    defn = from_xml(_tree("<Sequence><SetBlackboard output_key='n' value='3'/><chat message='{n}'/></Sequence>"))
    assert defn.blackboard == {"n": 3}


@pytest.mark.parametrize(("body", "message"), [
    ("<Timeout msec='-5'><wait/></Timeout>", "t.xml:3:5: bad_decorator: decorator 'timeout' parameter 'duration_ms'"),
    ("<Repeat num_cycles='0'><wait/></Repeat>", "t.xml:3:5: bad_decorator: decorator 'repeat' parameter 'count' is 0"),
    ("<Sequence/>", "t.xml:3:5: conversion_error: <Sequence> has no children"),
])
def test_the_loaders_structural_checks_apply_to_xml(body: str, message: str) -> None:
    assert any(p.startswith(message) for p in _problems(_tree(body))), _problems(_tree(body))


def test_validation_problems_point_at_the_element(tmp_path: Path) -> None:
    from craftbt.cli.trees_cmds import check_file

    path = tmp_path / "t.xml"
    path.write_text(_tree("<Sequence>\n      <craft_recipe recipe='torch' qty='banana'/>\n    </Sequence>"))
    (problem,) = check_file(path, shared_registry()).problems
    assert problem.code is ErrorCode.INVALID_ARGS
    assert problem.render().startswith(f"{path}:4:7: invalid_args: craft_recipe@1.0.0: argument 'qty' is 'banana'")


def test_every_problem_of_a_file_is_reported_in_order() -> None:
    retry = "<RetryUntilSuccessful num_attempts='-1'><has_itme item='x'/></RetryUntilSuccessful>"
    timeout = "<Timeout msec='-5'><wait/></Timeout>"
    problems = _problems(_tree(f"<Sequence>\n      {timeout}\n      {retry}\n    </Sequence>"))
    assert [p.split(": ")[0:2] for p in problems] == [["t.xml:4:7", "bad_decorator"],
                                                      ["t.xml:5:47", "unknown_capability"]]
    assert problems[1].endswith("did you mean 'has_item'?")
