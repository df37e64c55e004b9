"""Squares in A1 notation: column letter then row number, ``A1`` top-left.

Internally a square is an index ``row * width + col`` into the layout; these
helpers convert between the text form and ``(col, row)`` pairs.
"""

from __future__ import annotations

import re

COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_COLUMNS = len(COLUMNS)
MAX_ROWS = 99

_SQUARE = re.compile(r"([A-Za-z])([1-9][0-9]?)")


def parse_square(text: str) -> tuple[int, int]:
    """``"H8"`` -> ``(7, 7)`` (col, row), zero-based. Raises ValueError on bad text.

    Bounds are not checked against any layout: see ``Layout.index``.
    """
    match = _SQUARE.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a square: {text!r}")
    return COLUMNS.index(match.group(1).upper()), int(match.group(2)) - 1


def format_square(col: int, row: int) -> str:
    """``(7, 7)`` -> ``"H8"``."""
    if not (0 <= col < MAX_COLUMNS and 0 <= row < MAX_ROWS):
        raise ValueError(f"no name for square ({col}, {row})")
    return f"{COLUMNS[col]}{row + 1}"
