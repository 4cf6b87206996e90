"""Structure templates: modules of block placements relative to a reference corner, loaded from YAML.

A template file (``trees/structures/*.yaml``) names its modules; each
module has a ``type`` (utility, shell, entrance, floor, roof, feature,
interior, decor), ``depends_on`` edges, and cells drawn facing north (front
towards -z) as offsets from the template's reference corner:

* ``fill``: boxes ``{from: [dx,dy,dz], to: [dx,dy,dz], block: name, hollow: bool}``
  (``hollow`` keeps only the walls of the box, no top or bottom),
* ``cells``: single placements ``{dx, dy, dz, block}``,
* ``empty``: boxes that must stay air (doorways, interior headroom); they
  also carve any placement of the same module out of the fill,
* ``omit``: boxes carved out of the fill without being required empty (a
  window hole another module fills),
* ``entrance``: the doorway's bottom cell (the Access invariant probes it),
* ``stations``: which placements are workstations / storage the station
  registry should track (derived from the block names when omitted).

Loading never half-succeeds: every problem is collected and raised as one
:class:`~craftbt.core.errors.CraftbtError` naming the file, line and field.
"""

from __future__ import annotations

import hashlib
import json
import math
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from craftbt.capabilities.structures import Anchor, Cell, Facing, ModuleSpec, Placement
from craftbt.core.errors import CraftbtError, ErrorCode, Location, Problem
from craftbt.core.inputs import read_text
from craftbt.core.yamlpos import compose_and_load, line_of
from craftbt.world.body import BlockPos

LIBRARY_DIR = Path(__file__).resolve().parent / "structures"
#: Blocks the station registry tracks (seed 001 StationEntry.kind, plus the storage anchor).
STATION_BLOCKS = ("crafting_table", "furnace", "smoker", "blast_furnace", "anvil", "chest")


class ModuleType(StrEnum):
    UTILITY = "utility"
    SHELL = "shell"
    ENTRANCE = "entrance"
    FLOOR = "floor"
    ROOF = "roof"
    FEATURE = "feature"
    INTERIOR = "interior"
    DECOR = "decor"


#: Seed 001 "module ordering principle": utility bootstrap, then shell/entrance, then the rest.
ORDER_RANK: dict[ModuleType, int] = {
    ModuleType.UTILITY: 0,
    ModuleType.SHELL: 1,
    ModuleType.ENTRANCE: 1,
    ModuleType.FLOOR: 2,
    ModuleType.INTERIOR: 2,
    ModuleType.FEATURE: 3,
    ModuleType.ROOF: 3,
    ModuleType.DECOR: 4,
}
#: Seed 001 Access invariant: the corridor in front of a doorway is this many cells long (2 high, like the door).
ACCESS_CORRIDOR = 3
#: Module types whose witness is checked by the Structural invariant after they complete.
STRUCTURAL_TYPES = frozenset({ModuleType.SHELL, ModuleType.ENTRANCE, ModuleType.ROOF, ModuleType.FLOOR})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


#: Offsets from the reference corner stay within this many blocks on every axis.
MAX_OFFSET = 256
#: One box may cover at most this many cells (vanilla's /fill limit), and a whole template's boxes
#: this many together: both are checked on the numbers, before any box is expanded cell by cell.
MAX_BOX_VOLUME = 32_768
MAX_TEMPLATE_VOLUME = 262_144
Offset = Annotated[int, Field(ge=-MAX_OFFSET, le=MAX_OFFSET)]
Triple = tuple[int, int, int]
OffsetTriple = tuple[Offset, Offset, Offset]


class Box(_Strict):
    from_: OffsetTriple = Field(alias="from")
    to: OffsetTriple
    block: str | None = Field(default=None, pattern=r"^[a-z0-9_]+$", max_length=64)
    hollow: bool = False

    @property
    def volume(self) -> int:
        return math.prod(abs(a - b) + 1 for a, b in zip(self.from_, self.to, strict=True))

    @model_validator(mode="after")
    def _bounded(self) -> Box:
        if self.volume > MAX_BOX_VOLUME:
            raise ValueError(f"the box holds {self.volume} cells, more than the {MAX_BOX_VOLUME} allowed")
        return self

    def cells(self) -> list[Triple]:
        lo = [min(a, b) for a, b in zip(self.from_, self.to, strict=True)]
        hi = [max(a, b) for a, b in zip(self.from_, self.to, strict=True)]
        out: list[Triple] = []
        for dx in range(lo[0], hi[0] + 1):
            for dy in range(lo[1], hi[1] + 1):
                for dz in range(lo[2], hi[2] + 1):
                    edge = dx in (lo[0], hi[0]) or dz in (lo[2], hi[2])
                    if self.hollow and not edge:
                        continue
                    out.append((dx, dy, dz))
        return out


class CellSpec(_Strict):
    dx: Offset
    dy: Offset
    dz: Offset
    block: str = Field(pattern=r"^[a-z0-9_]+$", max_length=64)


class ModuleTemplate(_Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$", max_length=64)
    type: ModuleType
    description: str = ""
    depends_on: list[str] = Field(default_factory=list, max_length=64)
    fill: list[Box] = Field(default_factory=list, max_length=1024)
    cells: list[CellSpec] = Field(default_factory=list, max_length=MAX_BOX_VOLUME)
    empty: list[Box] = Field(default_factory=list, max_length=1024)
    omit: list[Box] = Field(default_factory=list, max_length=1024)
    entrance: OffsetTriple | None = None
    stations: list[OffsetTriple] | None = Field(default=None, max_length=1024)

    @field_validator("fill")
    @classmethod
    def _fill_has_block(cls, boxes: list[Box]) -> list[Box]:
        for box in boxes:
            if box.block is None:
                raise ValueError("every fill box needs a block")
        return boxes


class StructureTemplate(_Strict):
    """A whole structure: modules plus the edges between them (the macro plan's input)."""

    template: str = Field(pattern=r"^[a-z0-9_]+$", max_length=64)
    version: int = 1
    description: str = ""
    modules: list[ModuleTemplate] = Field(min_length=1, max_length=64)
    source: str | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _bounded(self) -> StructureTemplate:
        total = sum(b.volume for m in self.modules for b in (*m.fill, *m.empty, *m.omit))
        if total > MAX_TEMPLATE_VOLUME:
            raise ValueError(f"the boxes hold {total} cells together, more than the {MAX_TEMPLATE_VOLUME} allowed")
        return self

    def module(self, module_id: str) -> ModuleTemplate:
        for m in self.modules:
            if m.id == module_id:
                return m
        raise KeyError(module_id)

    def spec(self, module_id: str) -> ModuleSpec:
        """The module as a :class:`ModuleSpec` (offsets as drawn; anchoring rotates them)."""
        return module_spec(self.module(module_id))

    def specs(self) -> dict[str, ModuleSpec]:
        return {m.id: module_spec(m) for m in self.modules}

    def canonical(self) -> dict[str, Any]:
        specs = self.specs()
        return {
            "template": self.template,
            "version": self.version,
            "modules": [
                {
                    "id": m.id,
                    "type": m.type.value,
                    "depends_on": sorted(m.depends_on),
                    "digest": specs[m.id].digest,
                    "entrance": list(m.entrance) if m.entrance else None,
                }
                for m in self.modules
            ],
        }

    @property
    def digest(self) -> str:
        """Seed 001 ``templateDigest``: content address of the modules and their edges."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()

    def block_count(self) -> int:
        return sum(len(s.placements) for s in self.specs().values())

    def materials(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for spec in self.specs().values():
            for block, n in spec.materials().items():
                out[block] = out.get(block, 0) + n
        return dict(sorted(out.items()))

    def footprint(self, anchor: Anchor) -> tuple[BlockPos, BlockPos]:
        """Inclusive bounds of every cell of every module, anchored."""
        cells = [anchor.absolute(c) for s in self.specs().values() for c in (*s.placements, *s.required_empty)]
        lo = BlockPos(min(c.x for c in cells), min(c.y for c in cells), min(c.z for c in cells))
        hi = BlockPos(max(c.x for c in cells), max(c.y for c in cells), max(c.z for c in cells))
        return lo, hi

    def stations(self, module_id: str) -> list[tuple[Cell, str]]:
        """Station cells (as drawn) of a module, with their block."""
        m = self.module(module_id)
        spec = module_spec(m)
        by_key = {p.key: p.block for p in spec.placements}
        if m.stations is not None:
            return [(Cell(dx=k[0], dy=k[1], dz=k[2]), by_key[k]) for k in m.stations if k in by_key]
        return [(Cell(dx=p.dx, dy=p.dy, dz=p.dz), p.block) for p in spec.placements if p.block in STATION_BLOCKS]


def module_spec(m: ModuleTemplate) -> ModuleSpec:
    """Fill boxes, carve ``omit``, add single cells (overriding), then carve the empty boxes out."""
    placed: dict[Triple, str] = {}
    for box in m.fill:
        assert box.block is not None
        for cell in box.cells():
            placed[cell] = box.block
    for box in m.omit:
        for cell in box.cells():
            placed.pop(cell, None)
    for c in m.cells:
        placed[(c.dx, c.dy, c.dz)] = c.block
    empty: list[Triple] = []
    for box in m.empty:
        for cell in box.cells():
            placed.pop(cell, None)
            if cell not in empty:
                empty.append(cell)
    return ModuleSpec(
        module_id=m.id,
        placements=[Placement(dx=k[0], dy=k[1], dz=k[2], block=b) for k, b in sorted(placed.items())],
        required_empty=[Cell(dx=k[0], dy=k[1], dz=k[2]) for k in sorted(empty)],
        description=m.description,
    )


# -- loading ---------------------------------------------------------------------------------------
def _problem(
    file: str | None,
    message: str,
    *,
    code: ErrorCode = ErrorCode.SCHEMA_ERROR,
    path: str = "",
    line: int | None = None,
    expected: str | None = None,
    suggestion: str | None = None,
) -> Problem:
    return Problem(code, message, Location(file=file, line=line, path=path), expected, suggestion)


def _problem_at(
    file: str | None, node: Any, at: tuple[str | int, ...], message: str, *, suggestion: str | None = None
) -> Problem:
    """A problem at a document path: its dotted path and its line both come from ``at``."""
    return _problem(file, message, path=".".join(str(p) for p in at), line=line_of(node, at), suggestion=suggestion)


def parse_template(
    text: str, file: str | None = None, *, known_blocks: frozenset[str] | None = None,
    known_items: frozenset[str] | None = None,
) -> StructureTemplate:
    """Parse and check a template; raises one CraftbtError with every problem found."""
    node, data = compose_and_load(text, file)  # depth, duplicate keys, finite numbers: parse_error
    if not isinstance(data, dict):
        raise CraftbtError(
            _problem(
                file,
                f"a structure template must be a mapping, got {type(data).__name__}",
                expected="a mapping with 'template' and 'modules'",
            )
        )
    try:
        tpl = StructureTemplate.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            problems.append(_problem_at(file, node, tuple(err["loc"]), err["msg"]))
        raise CraftbtError(problems) from None
    problems = check_template(tpl, file, node, known_blocks, known_items)
    if problems:
        raise CraftbtError(problems)
    return tpl.model_copy(update={"source": file})


def check_template(
    tpl: StructureTemplate, file: str | None = None, node: Any = None, known_blocks: frozenset[str] | None = None,
    known_items: frozenset[str] | None = None,
) -> list[Problem]:
    """Semantic checks: unique ids, known edges, no cycle, buildable modules, no cross-module conflicts."""
    import difflib

    import networkx as nx

    problems: list[Problem] = []
    ids = [m.id for m in tpl.modules]
    seen: set[str] = set()
    for i, mid in enumerate(ids):
        if mid in seen:
            problems.append(
                _problem_at(
                    file,
                    node,
                    ("modules", i, "id"),
                    f"module id {mid!r} is used twice",
                )
            )
        seen.add(mid)
    graph: nx.DiGraph = nx.DiGraph()
    graph.add_nodes_from(ids)
    owner: dict[Triple, str] = {}
    for i, m in enumerate(tpl.modules):
        for j, dep in enumerate(m.depends_on):
            if dep not in seen:
                close = difflib.get_close_matches(dep, ids, n=1)
                problems.append(
                    _problem_at(
                        file,
                        node,
                        ("modules", i, "depends_on", j),
                        f"module {m.id!r} depends on unknown module {dep!r}",
                        suggestion=close[0] if close else None,
                    )
                )
            elif dep == m.id:
                problems.append(_problem(file, f"module {m.id!r} depends on itself", path=f"modules.{i}.depends_on"))
            else:
                graph.add_edge(dep, m.id)
        try:
            spec = module_spec(m)
        except ValidationError as exc:
            problems.append(
                _problem_at(
                    file,
                    node,
                    ("modules", i),
                    f"module {m.id!r} is not buildable: {exc.errors()[0]['msg']}",
                )
            )
            continue
        for p in spec.placements:
            if known_blocks is not None and p.block not in known_blocks:
                close = difflib.get_close_matches(p.block, sorted(known_blocks), n=1)
                problems.append(
                    _problem_at(
                        file,
                        node,
                        ("modules", i),
                        f"unknown block {p.block!r} in module {m.id!r}",
                        suggestion=close[0] if close else None,
                    )
                )
                break
        for p in spec.placements:
            # a block is placed from an item of the same name: water, lava or fire have none to give or carry
            if known_items is not None and p.block not in known_items and (
                    known_blocks is None or p.block in known_blocks):
                problems.append(_problem_at(file, node, ("modules", i),
                                            f"block {p.block!r} in module {m.id!r} has no item to place it with"))
                break
        for p in spec.placements:
            other = owner.get(p.key)
            if other is not None and other != m.id:
                problems.append(
                    _problem_at(
                        file,
                        node,
                        ("modules", i),
                        f"modules {other!r} and {m.id!r} both place a block at {p.key}",
                    )
                )
                break
            owner[p.key] = m.id
        if m.entrance is not None and m.entrance not in {c.key for c in spec.required_empty}:
            problems.append(
                _problem_at(
                    file,
                    node,
                    ("modules", i, "entrance"),
                    f"entrance {m.entrance} of {m.id!r} is not one of its empty cells",
                )
            )
    if not problems and not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        problems.append(
            _problem(file, "module dependencies form a cycle: " + " -> ".join(a for a, _ in cycle), path="modules")
        )
    # A placement of one module inside another's required-empty cells can never satisfy both witnesses.
    for i, m in enumerate(tpl.modules):
        for c in module_spec(m).required_empty if not problems else []:
            if c.key in owner:
                problems.append(
                    _problem(
                        file,
                        f"{m.id!r} requires {c.key} empty but {owner[c.key]!r} fills it",
                        path=f"modules.{i}.empty",
                    )
                )
                break
    problems += _unrepairable_entrances(tpl, owner, file) if not problems else []
    return problems


def opening_cells(entrance: Triple) -> list[Triple]:
    """The doorway column and the corridor in front of it (as drawn: outward is -z), the Access probe set."""
    ex, ey, ez = entrance
    return [(ex, ey + h, ez - step) for step in range(ACCESS_CORRIDOR + 1) for h in (0, 1)]


def _unrepairable_entrances(tpl: StructureTemplate, owner: dict[Triple, str], file: str | None) -> list[Problem]:
    """An access repair digs the opening's cells; one a module places could never be both built and clear."""
    out: list[Problem] = []
    for i, m in enumerate(tpl.modules):
        if m.entrance is None:
            continue
        for cell in opening_cells(m.entrance):
            if cell in owner:
                out.append(
                    _problem(
                        file,
                        f"the entrance of {m.id!r} cannot be kept clear: {owner[cell]!r} places a block at {cell} "
                        f"(the doorway and the {ACCESS_CORRIDOR} cells in front of it must stay air)",
                        path=f"modules.{i}.entrance",
                    )
                )
                break
    return out


def load_template(ref: str | Path, *, known_blocks: frozenset[str] | None = None) -> StructureTemplate:
    """A template by path, or by name from the library (``shelter`` -> ``structures/shelter.yaml``)."""
    path = Path(ref)
    if not path.suffix and not _exists(path):
        path = LIBRARY_DIR / f"{ref}.yaml"
    if not _exists(path):
        names = sorted(p.stem for p in LIBRARY_DIR.glob("*.yaml"))
        import difflib

        close = difflib.get_close_matches(str(ref), names, n=1)
        raise CraftbtError.single(
            ErrorCode.FILE_NOT_FOUND,
            f"no structure template {str(ref)!r}",
            expected="a path or one of: " + ", ".join(names),
            suggestion=close[0] if close else None,
        )
    text = read_text(path, what="structure template")  # a directory, a FIFO, a huge or non-UTF-8 file: located
    known_items: frozenset[str] | None = None
    if known_blocks is None:
        from craftbt.world.mcdata import load

        md = load()
        known_blocks = frozenset(b.name for b in md.blocks())
        known_items = frozenset(i.name for i in md.items())
    return parse_template(text, str(path), known_blocks=known_blocks, known_items=known_items)


def _exists(path: Path) -> bool:
    """Whether anything is at ``path`` (a name too long or with a NUL byte is simply not there)."""
    try:
        return path.exists() or path.is_symlink()
    except (OSError, ValueError):
        return False


def anchor_for(origin: BlockPos, facing: Facing | str) -> Anchor:
    return Anchor(origin=origin, facing=Facing(facing))
