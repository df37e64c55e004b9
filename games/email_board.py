"""The board as an email can show it: a table with inline styles, and a text grid.

Email clients ignore style sheets and most CSS, so every cell carries its own
``style``. Both pictures are made from a spectator's ``GameView`` (nobody's
tiles but those on the board, R-HIDE-1).

``text_position(game, seat)`` is the whole position as one player may see it, in
plain monospace text (play by mail, #24): the board with its coordinates and the
squares' kinds, that player's own hand with the values, the scores and hand
sizes, the reserve, the deadline and the last moves. The turn emails, the
reminders, the digest and the answers to an emailed move (``bymail``) all show
it; ``how_to_answer()`` is the two lines that say how to reply with a move.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.presenters import GameView, SeatView, SquareView, TileView

if TYPE_CHECKING:
    from games.models import Game, Seat

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


# How many moves the text position lists, newest first.
LAST_MOVES = 4
# Sans marque hands run to 40 tiles: the text hand wraps after this many.
HAND_COLUMNS = 20


def legend() -> str:
    """The key to the text grid's marks, in the active language."""
    return _(
        "Empty squares: * start, # black square, - green devil, + red devil. "
        "A lower-case letter is a joker."
    )


def text_hand(tiles: tuple[TileView, ...], *, numbered: bool) -> str:
    """A hand as aligned rows: the slot numbers (avec marque), the letters, their values.

    ``?`` is a diable (value 0). Lines wrap after ``HAND_COLUMNS`` tiles.
    """
    slot, tile, points = (
        pgettext("hand row", "slot"),
        pgettext("hand row", "tile"),
        pgettext("hand row", "points"),
    )
    labels = [slot, tile, points] if numbered else [tile, points]
    width = max(len(label) for label in labels)
    blocks = []
    for start in range(0, len(tiles), HAND_COLUMNS):
        chunk = tiles[start : start + HAND_COLUMNS]
        rows = [
            [str(t.index + 1) for t in chunk],
            [t.letter for t in chunk],
            [str(t.value) for t in chunk],
        ]
        if not numbered:
            rows = rows[1:]
        blocks.append(
            "\n".join(
                f"  {label:<{width}} " + "".join(f"{cell:>3}" for cell in row)
                for label, row in zip(labels, rows, strict=True)
            )
        )
    return "\n".join(blocks)


def _seat_line(seat: SeatView, *, scores: bool, over: bool) -> str:
    tiles = ngettext("%(count)d tile in hand", "%(count)d tiles in hand", seat.hand_size) % {
        "count": seat.hand_size
    }
    name = _("%(name)s (you)") % {"name": seat.name} if seat.is_me else seat.name
    parts = [_("%(points)d points") % {"points": seat.score}] if scores else []
    parts.append(tiles)
    line = "- " + _("%(name)s: %(details)s") % {"name": name, "details": ", ".join(parts)}
    if seat.status == "resigned":
        line += " (" + _("resigned") + ")"
    elif seat.status == "timed-out":
        line += " (" + _("timed out") + ")"
    if seat.is_turn and not over:
        line += " — " + _("to play")
    return line


def reserve_line(count: int) -> str:
    """ "Reserve: 64 tiles", in the active language."""
    return ngettext("Reserve: %(count)d tile", "Reserve: %(count)d tiles", count) % {"count": count}


def _when(moment: object, time_zone: str) -> str:
    try:
        zone = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    local = timezone.localtime(moment, zone)  # type: ignore[arg-type]
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} ({time_zone})"


def text_position(game: Game, seat: Seat | None) -> str:
    """The position of ``game`` as ``seat``'s player may see it, as monospace text.

    Board (coordinates, square kinds, the legend), the player's own hand with
    each tile's value (numbered slots avec marque, R-BOARD-2) and its total,
    every player's score (avec marque, or once over) and hand size, the
    reserve's size, the deadline of the player to move (in ``seat``'s player's
    time zone) and the last moves. Only that player's hand, nobody else's
    (R-HIDE-1); ``seat`` None gives a spectator's position, without a hand.
    In the active language: call it under ``translation.override``.
    This is the one function the turn emails and the answers to an emailed
    move (``bymail``) share.
    """
    from games import selectors

    viewer = seat.player if seat is not None else None
    view = selectors.game_view(game, viewer)
    return position_of(view, viewer.time_zone if viewer is not None else settings.TIME_ZONE)


def position_of(view: GameView, time_zone: str) -> str:
    """``text_position`` from a ``GameView`` already built (the viewer's), deadline in ``time_zone``."""
    marque = view.mode == "marque"
    lines = [text_picture(view), legend(), ""]
    if view.my_hand is not None and not view.over:
        total = sum(t.value for t in view.my_hand)
        lines.append(
            ngettext(
                "Your hand (%(count)d tile, %(points)d points):",
                "Your hand (%(count)d tiles, %(points)d points):",
                len(view.my_hand),
            )
            % {"count": len(view.my_hand), "points": total}
        )
        lines += [text_hand(view.my_hand, numbered=marque), ""]
    lines.append(_("Players:"))
    lines += [_seat_line(s, scores=marque or view.over, over=view.over) for s in view.seats]
    lines.append(reserve_line(view.reserve_size))
    to_move = next((s for s in view.seats if s.is_turn), None)
    if to_move is not None and to_move.deadline is not None and not view.over:
        lines.append(_("Deadline:") + " " + _when(to_move.deadline, time_zone))
    if view.moves:
        lines += ["", _("Last moves:")]
        for move in reversed(view.moves[-LAST_MOVES:]):
            line = f"  {move.number}. " + _("%(name)s: %(details)s") % {
                "name": move.player,
                "details": move.notation,
            }
            if move.words:
                line += " — " + ", ".join(move.words)
            if move.kind == "place" and marque:
                line += " — " + _("%(points)d points") % {"points": move.points}
            lines.append(line)
    return "\n".join(lines)


def how_to_answer() -> str:
    """The lines of a turn email that say how to play by answering it.

    None begins with "later:" / "plus tard :": an example quoted back is never read
    as a queued move (``rules.reply_notation.parse_later_read``).
    """
    return "\n".join(
        [
            _(
                "To play, answer this email with your move on the first line: H8 CHAT "
                "(across from H8), H8 v CHAT (down), exchange ABC, pass or resign."
            ),
            _(
                "Letters already on the board may be written in parentheses, C(HA)T; "
                "a joker in lower case, CHAt. Only your own text is read, not the quoted email."
            ),
            _(
                'Your next move too, on a line of its own starting with "later:" (later: L8 '
                "CHATS): it is played as soon as your turn comes, if it is still legal."
            ),
        ]
    )
