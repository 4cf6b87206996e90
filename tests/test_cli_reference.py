"""The CLI reference page is what the commands say, and help names values, not Python types."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from craftbt.cli.help_format import label_name
from craftbt.cli.root import run

ROOT = Path(__file__).resolve().parents[1]


def test_the_reference_page_is_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_cli_reference.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("label", "name"), [("<bool>", "BOOLEAN"), ("<list[Path]>", "PATH..."), ("<str>", "TEXT"),
                                             ("<int range>", "INTEGER"), ("<sim|mineflayer>", "[sim|mineflayer]")])
def test_typer_labels_become_value_names(label: str, name: str) -> None:
    assert label_name(label) == name


@pytest.mark.parametrize("command", [["run"], ["eval"], ["validate"], ["serve"], ["node", "install"],
                                     ["script", "run"]])
def test_help_shows_no_python_types(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"<(bool|str|int|float|path|Path|list\[[^\]]*\])[^>]*>", out), out


def test_the_reference_has_every_command_and_no_python_types() -> None:
    page = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    for command in ("craftbt run", "craftbt node install", "craftbt eval", "craftbt serve", "craftbt trees"):
        assert f"## `{command}`" in page, command
    assert "<bool>" not in page and "list[" not in page
