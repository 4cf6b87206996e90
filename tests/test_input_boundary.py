"""The input and output boundaries (craftbt.core.inputs, craftbt.core.outputs) and the CLI on top."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.inputs import MAX_DEPTH, load_json, load_yaml, read_text
from craftbt.core.outputs import write_output
from tests.clikit import cli

TREE = "tree: t\nroot:\n  leaf: wait\n  args: {ms: 100}\n"


def _error(fn: object, *args: object, **kwargs: object) -> CraftbtError:
    with pytest.raises(CraftbtError) as info:
        fn(*args, **kwargs)  # type: ignore[operator]
    return info.value


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert "it is a FIFO" in str(_error(read_text, fifo, what="scenario"))  # and it did not block
    assert "it is a directory" in str(_error(read_text, tmp_path))
    assert "it is a device" in str(_error(read_text, "/dev/zero"))  # and it did not read forever
    assert _error(read_text, tmp_path / "nope").code is ErrorCode.FILE_NOT_FOUND
    assert "the file name is too long" in str(_error(read_text, tmp_path / ("x" * 300)))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert "too many symbolic links" in str(_error(read_text, loop))


def test_size_limit_and_utf8_with_a_location(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a" * 2000)
    assert _error(read_text, big, max_bytes=1000).code is ErrorCode.LIMIT_EXCEEDED
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"name: x\nseed: \xff\n")
    err = _error(read_text, bad, what="scenario")
    assert err.problems[0].location.line == 2 and err.problems[0].location.column == 7
    assert "scenario is not UTF-8 text: byte 0xff" in str(err)


def test_yaml_depth_is_refused_before_composing() -> None:
    # 100,000 brackets crashed the interpreter inside libyaml's composer; 600 overflowed the Python one
    for text in ("a: " + "[" * 100_000 + "]" * 100_000, "a: " + "[" * 600 + "]" * 600):
        assert f"nested deeper than {MAX_DEPTH} levels" in str(_error(load_yaml, text, "deep.yaml"))
    load_yaml("a: " + "[" * 50 + "]" * 50)


def test_duplicate_keys_aliases_and_non_finite_numbers_are_refused() -> None:
    err = _error(load_yaml, "name: a\nseed: 1\nname: b\n", "s.yaml")
    assert str(err) == "s.yaml:3:1: parse_error: duplicate key 'name'; expected each key once per mapping"
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdef", "bcdefg", strict=True))
    assert "more than 200000 values" in str(_error(load_yaml, bomb))
    assert "non-finite number" in str(_error(load_yaml, "x: .nan\n"))
    assert "duplicate key 'a'" in str(_error(load_json, '{"a": 1, "a": 2}'))
    assert "not a finite number" in str(_error(load_json, '{"a": 1e400}'))
    assert "not a finite number" in str(_error(load_json, '{"a": NaN}'))


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory", "device"])
def test_outputs_never_replace_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    path = tmp_path / "out"
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path = Path("/dev/null")
        if not stat.S_ISCHR(os.lstat(path).st_mode):  # a broken machine: never write under /dev
            pytest.skip("/dev/null is not a device on this machine")
    err = _error(write_output, path, "text", option="--out")
    assert err.code is ErrorCode.OUTPUT_ERROR and "refusing to replace" in str(err)
    assert target.read_text() == "keep me\n"
    if kind == "symlink":
        assert path.is_symlink()
    if kind == "fifo":
        assert path.is_fifo()


def test_outputs_replace_a_regular_file_atomically(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("old")
    write_output(path, "new")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]  # no temporary left behind


@pytest.mark.parametrize("make", ["symlink", "fifo"])
@pytest.mark.parametrize("command", [
    ["schema", "-o", "{out}"],
    ["convert", "{tree}", "--to", "json", "-o", "{out}"],
    ["sla", "--format", "json", "-o", "{out}"],
    ["plan", "--goal", "obtain stick", "--out", "{out}"],
])
def test_every_output_option_refuses_a_symlink_and_a_fifo(tmp_path: Path, make: str, command: list[str]) -> None:
    target = tmp_path / "precious"
    target.write_text("keep me\n")
    out = tmp_path / "out"
    if make == "symlink":
        out.symlink_to(target)
    else:
        os.mkfifo(out)
    tree = tmp_path / "tree.yaml"
    tree.write_text(TREE)
    args = [a.replace("{out}", str(out)).replace("{tree}", str(tree)) for a in command]
    done = cli(args, env={"CRAFTBT_HOME": str(tmp_path / "home")})
    assert done.code == 1, done.text
    assert "output_error" in done.err and "refusing to replace" in done.err and str(out) in done.err
    assert target.read_text() == "keep me\n"
    assert out.is_symlink() if make == "symlink" else out.is_fifo()
