"""``craftbt node install`` without a network: a fake node and npm stand in, the logic is real."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from craftbt.cli.root import run
from craftbt.world.mineflayer import node_env
from craftbt.world.mineflayer.node_install import MANIFEST_DIR, REPORTED

FAKE_NPM = """#!/bin/sh
# records its arguments and fakes what npm ci leaves behind
echo "$@" > "$PWD/npm-args.txt"
{fail}
for p in {packages}; do
  mkdir -p "node_modules/$p"
  echo '{{"name": "'$p'", "version": "1.2.3"}}' > "node_modules/$p/package.json"
done
"""


def executable(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """NODE_BIN prints v22.1.0, NPM_BIN fakes npm ci; CRAFTBT_HOME in tmp; the checkout's node_modules hidden."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("NODE_BIN", executable(bin_dir / "node", "#!/bin/sh\necho v22.1.0\n"))
    monkeypatch.setenv("NPM_BIN", executable(bin_dir / "npm", FAKE_NPM.format(fail="", packages=" ".join(REPORTED))))
    monkeypatch.setenv("CRAFTBT_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(node_env.ENV_NODE_MODULES, raising=False)
    monkeypatch.setattr(node_env, "PACKAGE_DIR", tmp_path / "site" / "craftbt" / "world" / "mineflayer")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_wheel_manifests_are_the_checkouts() -> None:
    root = Path(__file__).resolve().parents[1]
    for name in ("package.json", "package-lock.json"):
        assert (MANIFEST_DIR / name).read_bytes() == (root / name).read_bytes()


def test_install_runs_npm_ci_under_craftbt_home_and_the_body_finds_it(
        fakes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert node_env.find_node_modules() is None
    assert run(["node", "install"]) == 0
    prefix = fakes / "home" / "node"
    assert (prefix / "npm-args.txt").read_text().split() == ["ci", "--no-audit", "--no-fund", "--loglevel=error"]
    assert json.loads((prefix / "package.json").read_text())["dependencies"]["mineflayer"]
    out = capsys.readouterr().out
    assert f"into {prefix / 'node_modules'}" in out and "mineflayer 1.2.3" in out and "Node v22.1.0" in out
    assert node_env.find_node_modules() == prefix / "node_modules"
    assert node_env.missing_packages(node_env.BODY_PACKAGES) == []

    (prefix / "npm-args.txt").unlink()
    assert run(["node", "install"]) == 0  # same lock, every package there: npm is not run again
    assert "already installed" in capsys.readouterr().out and not (prefix / "npm-args.txt").exists()
    assert run(["node", "install", "--force"]) == 0
    assert (prefix / "npm-args.txt").exists()


def test_prefix_elsewhere_says_how_to_use_it(fakes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["node", "install", "--prefix", str(fakes / "mine")]) == 0
    assert f"{node_env.ENV_NODE_MODULES}={fakes / 'mine' / 'node_modules'}" in capsys.readouterr().out


def test_old_node_is_refused_before_npm_runs(fakes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["NODE_BIN"] = executable(fakes / "bin" / "node", "#!/bin/sh\necho v18.19.0\n")
    assert run(["node", "install"]) == 1
    err = capsys.readouterr().err
    assert "node_too_old" in err and "v18.19.0" in err and ">=20" in err
    assert not (fakes / "home" / "node" / "npm-args.txt").exists()


def test_missing_node_and_failing_npm_are_exit_1(fakes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["NODE_BIN"] = str(fakes / "bin" / "no-such-node")
    assert run(["node", "install"]) == 1
    assert "node_missing" in capsys.readouterr().err
    os.environ["NODE_BIN"] = executable(fakes / "bin" / "node", "#!/bin/sh\necho v20.0.0\n")
    executable(fakes / "bin" / "npm", FAKE_NPM.format(fail="echo 'npm ERR! network down' >&2; exit 1",
                                                       packages=""))
    assert run(["node", "install"]) == 1
    err = capsys.readouterr().err
    assert "npm_failed" in err and "network down" in err


def test_every_missing_mineflayer_message_names_the_command() -> None:
    assert "`craftbt node install`" in node_env.setup_hint(["mineflayer"])
    assert "`craftbt node install`" in node_env.setup_hint(["node", "mineflayer"])
