"""Tile sets and board layouts: data files, loaded by name or given inline.

A layout is a grid of one-character squares (R-BOARD-1): ``.`` plain, ``D``
Départ (exactly one), ``#`` black, ``G`` green devil, ``R`` red devil. A tile
set maps each tile (``A``-``Z``, ``?`` for the diable) to its count and value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rules.squares import MAX_COLUMNS, MAX_ROWS, format_square, parse_square

DATA = Path(__file__).parent / "data"

PLAIN = "."
START = "D"
BLACK = "#"
GREEN = "G"
RED = "R"
SQUARE_KINDS = PLAIN + START + BLACK + GREEN + RED

DIABLE = "?"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
TILE_CHARS = LETTERS + DIABLE


@dataclass(frozen=True, slots=True)
class Layout:
    """A rectangular board.

    ``name`` is the built-in name, or ``""`` for a layout given inline.
    ``cells`` holds the squares row by row (``width * height`` characters).
    ``start`` is the index of the Départ square.
    """

    name: str
    width: int
    height: int
    cells: str
    start: int

    @classmethod
    def from_rows(cls, rows: Iterable[str], name: str = "") -> Layout:
        """Build a layout from its row strings; raises ValueError if it is not usable."""
        rows = [row.strip() for row in rows]
        rows = [row for row in rows if row]
        if not rows:
            raise ValueError("the layout has no rows")
        width = len(rows[0])
        if any(len(row) != width for row in rows):
            raise ValueError("the layout is not rectangular")
        if width > MAX_COLUMNS or len(rows) > MAX_ROWS:
            raise ValueError(f"the layout is larger than {MAX_COLUMNS}x{MAX_ROWS}")
        cells = "".join(rows)
        bad = set(cells) - set(SQUARE_KINDS)
        if bad:
            raise ValueError(f"unknown square kind {sorted(bad)[0]!r} in the layout")
        if cells.count(START) != 1:
            raise ValueError("the layout needs exactly one D (Départ) square")
        return cls(name, width, len(rows), cells, cells.index(START))

    def rows(self) -> list[str]:
        """The layout as row strings, top first."""
        w = self.width
        return [self.cells[i : i + w] for i in range(0, len(self.cells), w)]

    def index(self, square: str) -> int:
        """Index of the square named ``square``; ValueError if unreadable or off the board."""
        col, row = parse_square(square)
        if col >= self.width or row >= self.height:
            raise ValueError(f"{square} is off the board")
        return row * self.width + col

    def name_of(self, index: int) -> str:
        """A1 name of the square at ``index``."""
        return format_square(index % self.width, index // self.width)


@dataclass(frozen=True, slots=True)
class TileSet:
    """The tiles of a game: ``counts`` and ``values`` by tile character.

    ``name`` is the built-in name, or ``""`` for a set given inline.
    """

    name: str
    counts: Mapping[str, int] = field(hash=False)
    values: Mapping[str, int] = field(hash=False)

    @classmethod
    def from_mapping(cls, data: Mapping[str, object], name: str = "") -> TileSet:
        """Build from ``{"A": [count, value], ..., "?": [2, 0]}``; ValueError if unusable."""
        if not isinstance(data, Mapping) or not data:
            raise ValueError("a tile set is a non-empty object of tile: [count, value]")
        counts: dict[str, int] = {}
        values: dict[str, int] = {}
        for tile in sorted(data):
            spec = data[tile]
            if not isinstance(tile, str) or len(tile) != 1 or tile not in TILE_CHARS:
                raise ValueError(f"unknown tile {tile!r} in the tile set")
            if (
                not isinstance(spec, list | tuple)
                or len(spec) != 2
                or not all(type(n) is int for n in spec)
                or spec[0] < 0
                or not 0 <= spec[1] <= 1000
                or spec[0] > 10000
            ):
                raise ValueError(f"tile {tile}: expected [count, value] with counts >= 0")
            if spec[0]:
                counts[tile], values[tile] = spec[0], spec[1]
        if not counts:
            raise ValueError("the tile set has no tiles")
        return cls(name, counts, values)

    @property
    def total(self) -> int:
        """Number of tiles in the set."""
        return sum(self.counts.values())

    def as_mapping(self) -> dict[str, list[int]]:
        """The JSON form ``{"A": [count, value], ...}``."""
        return {t: [self.counts[t], self.values[t]] for t in sorted(self.counts)}

    def tiles(self) -> list[str]:
        """Every tile of the set once, in a fixed order (the unshuffled bag)."""
        return [t for t in sorted(self.counts) for _ in range(self.counts[t])]

    def value_of(self, tiles: Iterable[str]) -> int:
        """Total value of ``tiles`` (tile characters; unknown ones count 0)."""
        values = self.values
        return sum(values.get(t, 0) for t in tiles)


@lru_cache(maxsize=32)
def load_layout(name: str) -> Layout:
    """The built-in layout ``name`` (a file in ``data/layouts``); ValueError if unknown."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"unknown layout {name!r}")
    path = DATA / "layouts" / f"{name}.txt"
    if not path.is_file():
        raise ValueError(f"unknown layout {name!r}")
    return Layout.from_rows(path.read_text(encoding="utf-8").splitlines(), name)


@lru_cache(maxsize=32)
def load_tiles(name: str) -> TileSet:
    """The built-in tile set ``name`` (a file in ``data/tiles``); ValueError if unknown."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"unknown tile set {name!r}")
    path = DATA / "tiles" / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"unknown tile set {name!r}")
    return TileSet.from_mapping(json.loads(path.read_text(encoding="utf-8")), name)


def layout_from_data(data: object) -> Layout:
    """A layout from its record form: a built-in name or a list of row strings."""
    if isinstance(data, str):
        return load_layout(data)
    if isinstance(data, list) and all(isinstance(row, str) for row in data):
        return Layout.from_rows(data)
    raise ValueError("layout must be a name or a list of row strings")


def tiles_from_data(data: object) -> TileSet:
    """A tile set from its record form: a built-in name or ``{"A": [count, value], ...}``."""
    if isinstance(data, str):
        return load_tiles(data)
    if isinstance(data, dict):
        return TileSet.from_mapping(data)
    raise ValueError("tiles must be a name or an object of tile: [count, value]")


def layout_to_data(layout: Layout) -> str | list[str]:
    """The record form of ``layout``: its name if built-in, else its rows."""
    return layout.name or layout.rows()


def tiles_to_data(tiles: TileSet) -> str | dict[str, list[int]]:
    """The record form of ``tiles``: its name if built-in, else the mapping."""
    return tiles.name or tiles.as_mapping()
