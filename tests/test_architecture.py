"""The architecture documents tell the truth, and the wheel is one well-behaved package."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_layer_picture_matches_the_import_graph() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


#: the README is also the package's long description on PyPI, so its links are absolute
REPO_URL = "https://github.com/craftbt/craftbt/"


def test_readme_links_the_docs_and_they_exist() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for doc in ("docs/ARCHITECTURE.md", "docs/tree-format.md", "docs/python-api.md", "docs/install.md",
                "docs/getting-started.md", "docs/cli-reference.md", "docs/benchmarks.md", "docs/tutorials/index.md"):
        assert f"]({REPO_URL}blob/main/{doc})" in readme, doc
    for target in re.findall(r"\]\(([^)]+)\)", readme):
        assert target.startswith(("https://", "#")), f"relative link {target}"
        if target.startswith(REPO_URL):
            path = target.removeprefix(REPO_URL).split("/", 2)[2].split("#")[0]
            assert (ROOT / path).exists(), target


def test_readme_is_short_and_opens_with_the_two_setup_commands() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    opening = "\n".join(lines[:12])
    assert "make demo" in opening and "make test" in opening
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_user_facing_text_uses_feature_names_not_source_document_numbers() -> None:
    pages = [ROOT / "README.md", *[p for p in (ROOT / "docs").rglob("*.md") if p.name != "conformance.md"]]
    jargon = re.compile(r"\bseed 00[0-9]\b|\bS00[0-9]|\bF1-F6\b|\bissue [0-9]+\b|\bsection [0-9]+", re.I)
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in pages for m in jargon.finditer(p.read_text("utf-8"))]
    assert found == []


def test_architecture_names_only_packages_that_exist() -> None:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for dotted in set(re.findall(r"`craftbt\.([a-z][a-z_]*)`", text)):
        assert (ROOT / "craftbt" / dotted).exists() or (ROOT / "craftbt" / f"{dotted}.py").exists(), dotted


def rooms() -> list[str]:
    """Every package directory under craftbt/, the symlinked ones included (``is_dir`` follows links)."""
    return sorted(p.name for p in (ROOT / "craftbt").iterdir() if p.is_dir() and (p / "__init__.py").exists())


def test_architecture_describes_every_room() -> None:
    """A room added without a row in the layer table fails here (craftscript once went undescribed)."""
    table = [line for line in (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("|")]
    found = rooms()
    assert {"bot", "craftscript", "serve", "evaluation", "autonomy"} <= set(found), found  # the walk sees links
    missing = [room for room in found if not any(f"`craftbt.{room}`" in row for row in table)]
    assert missing == [], f"rooms without a row in docs/ARCHITECTURE.md's layer table: {missing}"


def test_no_bare_package_imports_outside_the_namespace() -> None:
    """The symlinked folders are importable by bare name from the repository root; nothing may do so."""
    linked = [p.name for p in (ROOT / "craftbt").iterdir() if p.is_symlink()]
    assert "craftscript" in linked and "bot" in linked
    bare = re.compile(rf"^\s*(from|import) ({'|'.join(linked)})\b", re.M)
    offenders = []
    for folder in (*linked, "craftbt", "tests", "bench", "examples", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            if "node_modules" not in path.parts and bare.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


@pytest.mark.slow
def test_wheel_installs_one_package_that_runs_anywhere(tmp_path: Path) -> None:
    """Build the wheel, install it into a fresh venv, use it from an empty folder with no repository around."""
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", str(dist),
                    str(ROOT)], check=True, capture_output=True, timeout=600)
    wheel = next(dist.glob("craftbt-*.whl"))
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"craftbt", wheel.name.split("-py3")[0] + ".dist-info"}
    names = zipfile.ZipFile(wheel).namelist()
    assert "craftbt/trees/library/obtain_wooden_pickaxe.yaml" in names
    assert "craftbt/py.typed" in names
    # the Node side for `craftbt node install`, and the licence, travel in the wheel and the sdist
    node = "craftbt/world/mineflayer/node/"
    assert {f"{node}package.json", f"{node}package-lock.json"} <= set(names)
    info = wheel.name.split("-py3")[0] + ".dist-info"
    assert f"{info}/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    runtime = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert runtime and not [line for line in runtime if "==" in line], runtime
    assert "Provides-Extra: serve" in metadata and "Project-URL:" in metadata and "Classifier:" in metadata
    assert not re.search(r"\]\((?!https?://|#)", metadata), "relative links in the long description"
    sdist = next(dist.glob("craftbt-*.tar.gz"))
    with tarfile.open(sdist) as tar:
        assert any(name.endswith("/LICENSE") for name in tar.getnames())
    twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
                           capture_output=True, text=True, timeout=300)
    assert twine.returncode == 0, twine.stdout + twine.stderr

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / "bin" / "python"
    # The dependencies come from this interpreter's site-packages (no network in tests): a path entry, not a
    # site dir, so the repository's editable-install finder there is not activated.
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "craftbt_test_deps.pth").write_text(deps + "\n", encoding="utf-8")
    before = {p.name for p in Path(site).iterdir()}
    # --force-reinstall: the deps folder on the path holds the checkout's own editable craftbt of the same version
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--force-reinstall", str(wheel)],
                   check=True,
                   timeout=300)
    added = {p.name for p in Path(site).iterdir()} - before - {"__pycache__"}
    assert added == {"craftbt", wheel.name.split("-py3")[0] + ".dist-info"}

    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "world.py").write_text("raise RuntimeError('user world.py imported')\n", encoding="utf-8")
    env = {**os.environ, "CRAFTBT_HOME": str(work / ".home"), "PYTHONPATH": ""}
    craftbt = str(venv / "bin" / "craftbt")
    check = subprocess.run([str(py), "-c", "import craftbt; print(craftbt.__file__, craftbt.library_tree('greet'))"],
                           cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stderr
    assert str(venv) in check.stdout
    tree = check.stdout.split()[1]
    for args in (["--version"], ["validate", tree], ["run", tree]):
        done = subprocess.run([craftbt, *args], cwd=work, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    guide = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8"),
                       flags=re.S)
    (work / "guide.py").write_text(guide[1], encoding="utf-8")
    done = subprocess.run([str(py), "guide.py"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert shutil.which("craftbt", path=str(venv / "bin"))
