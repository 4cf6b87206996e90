"""Sparse chunked voxel storage: 16x16x16 sections of block-state indices into one palette.

A block state is ``(name, props)`` where ``props`` is a sorted tuple of
``(key, value)`` pairs. The world keeps one palette for all sections; index 0
is always air, so an absent section reads as air. Each section is an
``array('H')`` of 4096 entries laid out column-major (``x, z, y``) so a
generator can fill a vertical run with one slice assignment.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

StateProps = tuple[tuple[str, Any], ...]
BlockState = tuple[str, StateProps]

AIR: BlockState = ("air", ())
SECTION_VOLUME = 4096
_ZEROS = bytes(SECTION_VOLUME * 2)


def make_state(name: str, props: dict[str, Any] | None = None) -> BlockState:
    return (name, tuple(sorted((props or {}).items())))


def section_index(x: int, y: int, z: int) -> int:
    """Offset of a block inside its section (column-major: a column is 16 consecutive entries)."""
    return ((x & 15) << 8) | ((z & 15) << 4) | (y & 15)


class Palette:
    """Interns block states; indices are stable for the life of the world."""

    def __init__(self) -> None:
        self.states: list[BlockState] = [AIR]
        self._index: dict[BlockState, int] = {AIR: 0}

    def id_of(self, state: BlockState) -> int:
        idx = self._index.get(state)
        if idx is None:
            idx = len(self.states)
            if idx > 0xFFFF:
                raise OverflowError("block-state palette is full")
            self.states.append(state)
            self._index[state] = idx
        return idx

    def state(self, idx: int) -> BlockState:
        return self.states[idx]

    def __len__(self) -> int:
        return len(self.states)


class BlockStore:
    """Block-state ids by position; sections are created on first non-air write."""

    def __init__(self, palette: Palette | None = None) -> None:
        self.palette = palette or Palette()
        self.sections: dict[tuple[int, int, int], array[int]] = {}
        #: the highest section y of each column (cx, cz): the top of a column is read for every light level
        self.top_section: dict[tuple[int, int], int] = {}

    def get(self, x: int, y: int, z: int) -> int:
        sec = self.sections.get((x >> 4, y >> 4, z >> 4))
        if sec is None:
            return 0
        return sec[((x & 15) << 8) | ((z & 15) << 4) | (y & 15)]

    def set(self, x: int, y: int, z: int, state_id: int) -> int:
        """Write one block; returns the previous state id."""
        key = (x >> 4, y >> 4, z >> 4)
        sec = self.sections.get(key)
        if sec is None:
            if state_id == 0:
                return 0
            sec = self.new_section(key)
        i = ((x & 15) << 8) | ((z & 15) << 4) | (y & 15)
        old = sec[i]
        sec[i] = state_id
        return old

    def new_section(self, key: tuple[int, int, int]) -> array[int]:
        sec = array("H")
        sec.frombytes(_ZEROS)
        self.add_section(key, sec)
        return sec

    def add_section(self, key: tuple[int, int, int], sec: array[int]) -> None:
        """Put a whole section in (a generated chunk, a loaded snapshot): the one way sections are added."""
        self.sections[key] = sec
        column = (key[0], key[2])
        top = self.top_section.get(column)
        if top is None or key[1] > top:
            self.top_section[column] = key[1]

    def clear(self) -> None:
        self.sections.clear()
        self.top_section.clear()

    def section(self, key: tuple[int, int, int]) -> array[int]:
        sec = self.sections.get(key)
        return sec if sec is not None else self.new_section(key)

    def iter_sections(self) -> Iterator[tuple[tuple[int, int, int], array[int]]]:
        """Sections in a deterministic (sorted) order."""
        for key in sorted(self.sections):
            yield key, self.sections[key]

    def sections_between(
        self, low: tuple[int, int, int], high: tuple[int, int, int]
    ) -> Iterator[tuple[tuple[int, int, int], array[int]]]:
        """The sections with keys from ``low`` to ``high`` (inclusive, in section units), in sorted order:
        a search near the bot looks up a few dozen keys instead of sorting every section of the world."""
        spans = [range(lo, hi + 1) for lo, hi in zip(low, high, strict=True)]
        if len(spans[0]) * len(spans[1]) * len(spans[2]) > len(self.sections):
            for key, sec in self.iter_sections():
                if all(lo <= k <= hi for k, lo, hi in zip(key, low, high, strict=True)):
                    yield key, sec
            return
        for sx in spans[0]:
            for sy in spans[1]:
                for sz in spans[2]:
                    found = self.sections.get((sx, sy, sz))
                    if found is not None:
                        yield (sx, sy, sz), found
