"""The board as an email can show it: a table with inline styles, and a text grid.

Email clients ignore style sheets and most CSS, so every cell carries its own
``style``. Both pictures are made from a spectator's ``GameView`` (nobody's
tiles but those on the board, R-HIDE-1).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.presenters import GameView, SquareView

# Short on purpose: 225 cells each carry it, and Gmail clips messages over 102 kB.
CELL = "width:20px;height:20px;padding:0;text-align:center;font:700 12px/20px monospace;border:1px solid #7c5230;"
BACKGROUNDS = {
    "plain": "background:#f1e6cc;color:#1f2328;",
    "start": "background:#2f7d55;color:#ffffff;",
    "black": "background:#2b2622;color:#d8d0c4;",
    "green": "background:#cde5c9;color:#1f5a33;",
    "red": "background:#f3c6bd;color:#8e2119;",
}
TILE = "background:#fbf0d2;color:#1f2328;"
LAST_TILE = "background:#f7d27a;color:#1f2328;"
DIABLE = "font-style:italic;color:#8e2119;"
# The frame around the squares, and the ground of the column letters and row numbers on
# it: #fbeed6 on #7c5230 is 5.9:1, over the 4.5:1 WCAG 1.4.3 asks of small text (on the
# frame's former #a0703e it was 3.7:1). The heads carry it themselves: their contrast
# does not hang on the table's background reaching them.
FRAME = "#7c5230"
TABLE = f"border-collapse:collapse;margin:0 auto 8px;background:{FRAME};"
HEAD = (
    "padding:0 3px;text-align:center;font:600 11px/20px Menlo,Consolas,monospace;"
    f"background:{FRAME};color:#fbeed6;"
)

# Empty squares in the text grid; tiles show their letter (lower case for a diable).
TEXT_MARKS = {"plain": ".", "start": "*", "black": "#", "green": "-", "red": "+"}


@dataclass(frozen=True)
class Cell:
    text: str
    style: str
    title: str  # the square's name, e.g. "H8"


@dataclass(frozen=True)
class Row:
    label: str  # the row number, "1" at the top
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Picture:
    table_style: str
    head_style: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]


def _cell(square: SquareView) -> Cell:
    if square.letter is None:
        return Cell("", CELL + BACKGROUNDS[square.kind], square.name)
    style = CELL + (LAST_TILE if square.is_last_move else TILE)
    if square.is_diable:
        style += DIABLE
    return Cell(square.letter, style, square.name)


def html_picture(view: GameView) -> Picture:
    rows = tuple(
        Row(str(number), tuple(_cell(square) for square in squares))
        for number, squares in enumerate(view.rows, start=1)
    )
    return Picture(TABLE, HEAD, view.columns, rows)


def text_picture(view: GameView) -> str:
    """A fixed-width grid with column letters and row numbers."""
    width = len(str(len(view.rows)))
    lines = [" " * (width + 2) + " ".join(view.columns)]
    for number, squares in enumerate(view.rows, start=1):
        marks = []
        for square in squares:
            if square.letter is None:
                marks.append(TEXT_MARKS[square.kind])
            else:
                marks.append(square.letter.lower() if square.is_diable else square.letter)
        lines.append(f"{number:>{width}}  " + " ".join(marks))
    return "\n".join(lines)
