"""Every message the hostile-input issue found misleading now names the right option, field or file;
exit codes say whose fault it is (1 input or environment, 2 usage, 3 only craftbt's bugs)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import craftbt.cli.run_cmds as run_cmds
from tests.clikit import cli

ROOT = Path(__file__).resolve().parent.parent
TREE = "tree: t\nroot:\n  leaf: wait\n  args: {ms: 100}\n"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "tree.yaml").write_text(TREE)
    return {"CRAFTBT_HOME": str(tmp_path / "home")}


@pytest.mark.parametrize(("args", "code", "fragments"), [
    (["run", "{tmp}/tree.yaml", "--profile", "bogus"], 1, ["--profile 'bogus'", "one of operator, full, survival"]),
    (["run", "{tmp}/tree.yaml", "--max-ticks", "0"], 2, ["--max-ticks", "0 is outside 1.."]),
    (["run", "{tmp}/tree.yaml", "--seed", "9223372036854775808"], 2, ["--seed", "is outside"]),
    (["run", "{tmp}/tree.yaml", "--port", "70000", "--body", "mineflayer"], 2, ["--port", "outside 1..65535"]),
    (["plan", "--goal", "obtain stick", "--planner", "fast_path"], 1, ["fast_path", "only safety goals"]),
    (["plan", "--goal", "build hut", "--planner", "solver"], 1, ["--planner solver does not plan 'build' goals"]),
    (["show", "%"], 1, ["RUN_ID '%' is not a run id"]),
    (["show", "a" * 100_000], 1, ["is not a run id"]),
    (["sla", "--capability", "chat@%"], 1, ["--capability 'chat@%'"]),
    (["sla", "--since", "nan"], 1, ["--since 'nan'"]),
    (["sla", "--since", "²h"], 1, ["--since '²h'"]),
    (["runs", "--limit", "9223372036854775808"], 2, ["--limit", "outside 1..100000"]),
    (["lifecycle", "set", "chat@²", "shadow"], 1, ["'chat@²' is not NAME@VERSION"]),
    (["gate", "--tests", "/nonexistent"], 1, ["--tests '/nonexistent' is not a directory"]),
    (["build", "shelter", "--at", "3,64,3", "--facing", "\u017f"], 1, ["--facing", "is not a facing"]),
    (["build", "shelter", "--at", "\uff13,64,3"], 1, ["--at X", "ASCII digits"]),
    (["build", "shelter", "--at", "3,1000,3"], 1, ["--at Y 1000 is outside -64..319"]),
    (["build", "shelter", "--at", "3,64"], 1, ["--at '3,64' has 2 part(s)"]),
    (["build", "{tmp}", "--at", "3,64,3"], 1, ["structure template", "it is a directory"]),
])
def test_messages_name_the_input(args: list[str], code: int, fragments: list[str], home: dict[str, str]) -> None:
    tmp = str(Path(home["CRAFTBT_HOME"]).parent)
    done = cli([a.replace("{tmp}", tmp) for a in args] + (["--state", f"{tmp}/state"] if args[0] == "build" else []),
               env=home)
    assert done.code == code, done.text
    for fragment in fragments:
        assert fragment in done.text, done.text
    assert "Traceback" not in done.text and "craftbt bug" not in done.text


def test_a_template_block_without_an_item_is_refused_before_building(tmp_path: Path, home: dict[str, str]) -> None:
    tpl = tmp_path / "pool.yaml"
    tpl.write_text("template: pool\nmodules:\n  - id: a\n    type: shell\n"
                   "    cells: [{dx: 0, dy: 0, dz: 0, block: water}]\n")
    done = cli(["build", str(tpl), "--at", "3,-60,3", "--state", str(tmp_path / "state")], env=home)
    assert done.code == 1 and "block 'water' in module 'a' has no item to place it with" in done.err, done.text


def test_a_huge_template_box_is_refused_before_it_is_expanded(tmp_path: Path, home: dict[str, str]) -> None:
    tpl = tmp_path / "big.yaml"
    tpl.write_text("template: big\nmodules:\n  - id: a\n    type: shell\n"
                   "    fill: [{from: [0, 0, 0], to: [256, 256, 256], block: stone}]\n")
    done = cli(["build", str(tpl), "--at", "3,-60,3", "--state", str(tmp_path / "state")], env=home)
    assert done.code == 1 and "the box holds 16974593 cells, more than the 32768 allowed" in done.err, done.text


def test_a_damaged_environment_is_an_environment_error(tmp_path: Path, home: dict[str, str]) -> None:
    Path(home["CRAFTBT_HOME"]).mkdir()
    (Path(home["CRAFTBT_HOME"]) / "journal.sqlite").write_bytes(os.urandom(4096))
    done = cli(["runs"], env=home)
    # the storage layer names the file and the cause (craftbt.core.sqlite)
    assert done.code == 1 and "journal.sqlite: storage_corrupt: not an SQLite database" in done.err, done.text
    (Path(home["CRAFTBT_HOME"]) / "journal.sqlite").unlink()
    (Path(home["CRAFTBT_HOME"]) / "lifecycle.json").write_text('{"stages": {"chat@1.0.0": "bogus"}}')
    done = cli(["lifecycle", "list"], env=home)
    assert done.code == 1 and "lifecycle.json is not a lifecycle file" in done.err, done.text
    state = tmp_path / "state"
    state.mkdir()
    (state / "world.snap").write_bytes(b"junk")
    done = cli(["build", "shelter", "--at", "3,-60,3", "--state", str(state)], env=home)
    assert done.code == 1 and "the world snapshot" in done.err and "cannot be loaded" in done.err, done.text


def test_only_a_bug_is_exit_3_and_debug_keeps_the_code(monkeypatch: pytest.MonkeyPatch, home: dict[str, str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(run_cmds.Journal, "list_runs", broken)
    done = cli(["runs"], env=home)
    assert done.code == 3 and "This is a craftbt bug" in done.err and "Traceback" not in done.err
    done = cli(["runs"], env={**home, "CRAFTBT_DEBUG": "1"})
    assert done.code == 3 and "Traceback" in done.err and "RuntimeError: a bug of ours" in done.err


def test_an_ascii_terminal_gets_escapes_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "tree.yaml").write_text(TREE)
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "CRAFTBT_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "craftbt", "run", str(tmp_path / "tree.yaml")], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="ascii", errors="replace", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "\\u2014" in done.stdout  # the summary's em dash, escaped
