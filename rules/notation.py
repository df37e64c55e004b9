"""Text notations: one for moves (the move history), one for the board.

See docs/NOTATION.md. A placement is written from the first square of its
main word, with the direction and the whole main word; letters already on the
board are in parentheses, diables in lower case, and red-devil returns as a
count only (R-HIDE-1)::

    H8→ CHAT      H8↓ C(HA)t −1      Échange 3      Passe      Abandon      Temps dépassé

The board is its rows, top first, joined by ``/``: ``.`` an empty square,
``A``-``Z`` a letter tile, ``a``-``z`` a diable standing for that letter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.material import Layout
from rules.placement import check_placement
from rules.squares import parse_square
from rules.state import EMPTY, Exchange, GameState, Move, Pass, Place, Resign

ACROSS = "→"
DOWN = "↓"
MINUS = "−"
EXCHANGE = "Échange"
PASS = "Passe"
RESIGN = "Abandon"
TIMEOUT = "Temps dépassé"

_PLACE = re.compile(
    r"([A-Za-z][1-9][0-9]?)\s*(→|->|↓|v|V)\s+([A-Za-z()]+)(?:\s+(?:−|-)\s*([0-9]{1,3}))?"
)
_WORD = re.compile(r"(?:[A-Za-z]|\([A-Za-z]+\))+")
_EXCHANGE = re.compile(r"(?:Échange|Echange|échange|echange)\s+([0-9]{1,3})")


@dataclass(frozen=True, slots=True)
class NotatedMove:
    """A move as the history shows it.

    ``kind``: ``"place"``, ``"exchange"``, ``"pass"``, ``"resign"`` or
    ``"timeout"``. For a placement: ``start`` square, ``across``, ``word``
    (with parentheses around letters already on the board) and ``returns``
    (how many tiles went back). For an exchange: ``count``.
    """

    kind: str
    start: str = ""
    across: bool = True
    word: str = ""
    returns: int = 0
    count: int = 0

    def __str__(self) -> str:
        return format_notation(self)

    def placements(self, layout: Layout) -> tuple[tuple[str, str], ...]:
        """The (square, letter) pairs of the new tiles, walking the main word."""
        col, row = parse_square(self.start)
        tiles: list[tuple[str, str]] = []
        inside = False
        for char in self.word:
            if char == "(":
                inside = True
                continue
            if char == ")":
                inside = False
                continue
            if not inside:
                if col >= layout.width or row >= layout.height:
                    raise ValueError(f"{self} runs off the board")
                tiles.append((layout.name_of(row * layout.width + col), char))
            if self.across:
                col += 1
            else:
                row += 1
        return tuple(tiles)


def format_notation(notated: NotatedMove) -> str:
    """The text of ``notated``."""
    if notated.kind == "place":
        text = f"{notated.start}{ACROSS if notated.across else DOWN} {notated.word}"
        return f"{text} {MINUS}{notated.returns}" if notated.returns else text
    if notated.kind == "exchange":
        return f"{EXCHANGE} {notated.count}"
    if notated.kind == "pass":
        return PASS
    if notated.kind == "resign":
        return RESIGN
    if notated.kind == "timeout":
        return TIMEOUT
    raise ValueError(f"unknown move kind {notated.kind!r}")


def parse_notation(text: str) -> NotatedMove:
    """Read a move's text (ASCII forms ``->``, ``v``, ``-``, ``Echange`` accepted)."""
    text = " ".join(text.split())
    match = _PLACE.fullmatch(text)
    if match:
        square, arrow, word, returns = match.groups()
        if not _WORD.fullmatch(word) or sum(c.isalpha() for c in word) < 2:
            raise ValueError(f"not a word in the notation: {word!r}")
        return NotatedMove(
            "place",
            start=square.upper(),
            across=arrow in ("→", "->"),
            word=word,
            returns=int(returns or 0),
        )
    match = _EXCHANGE.fullmatch(text)
    if match:
        return NotatedMove("exchange", count=int(match.group(1)))
    folded = text.lower().replace("é", "e")
    for kind, words in (
        ("pass", ("passe",)),
        ("resign", ("abandon",)),
        ("timeout", ("temps depasse",)),
    ):
        if folded in words:
            return NotatedMove(kind)
    raise ValueError(f"not a move: {text!r}")


def notate(state: GameState, move: Move) -> NotatedMove:
    """The notation of ``move`` played on ``state`` (the state before the move).

    Raises IllegalMove if the placement is not legal on ``state``.
    """
    if isinstance(move, Place):
        placement = check_placement(state, move)
        layout = state.config.layout
        word, start, across = placement.words[0]
        step = 1 if across else layout.width
        new = set(placement.squares)
        parts: list[str] = []
        inside = False
        for k in range(len(word)):
            index = start + k * step
            if (index in new) == inside:
                parts.append(")" if inside else "(")
                inside = not inside
            parts.append(placement.board[index])
        if inside:
            parts.append(")")
        return NotatedMove(
            "place",
            start=layout.name_of(start),
            across=across,
            word="".join(parts),
            returns=len(move.returns) if isinstance(move.returns, str) else 0,
        )
    if isinstance(move, Exchange):
        return NotatedMove("exchange", count=len(move.tiles))
    if isinstance(move, Pass):
        return NotatedMove("pass")
    if isinstance(move, Resign):
        return NotatedMove("timeout" if move.timeout else "resign")
    raise TypeError(f"not a move: {move!r}")


def notation_to_move(text: str, state: GameState, player: int) -> Move:
    """A move from its text, for ``player`` on ``state``.

    The notation hides exchanged and returned tiles (R-HIDE-1), so an exchange
    cannot be rebuilt (ValueError) and a placement's ``returns`` is empty.
    Letters in parentheses must be the ones on the board.
    """
    notated = parse_notation(text)
    if notated.kind == "place":
        layout = state.config.layout
        col, row = parse_square(notated.start)
        step = 1 if notated.across else layout.width
        index = row * layout.width + col
        inside = False
        for char in notated.word:
            if char in "()":
                inside = char == "("
                continue
            if inside and (index >= len(state.board) or state.board[index].upper() != char.upper()):
                raise ValueError(f"{char} in parentheses is not on the board")
            index += step
        return Place(player, notated.placements(layout))
    if notated.kind == "pass":
        return Pass(player)
    if notated.kind in ("resign", "timeout"):
        return Resign(player, timeout=notated.kind == "timeout")
    raise ValueError("an exchange's tiles are hidden: the notation gives only their number")


def board_to_text(board: str, width: int) -> str:
    """The board's text form: rows joined by ``/``."""
    return "/".join(board[i : i + width] for i in range(0, len(board), width))


def board_from_text(text: str, layout: Layout) -> str:
    """Inverse of ``board_to_text`` (newlines also separate rows); ValueError if unusable."""
    rows = [row.strip() for row in re.split(r"[/\n]", text.strip())]
    if len(rows) != layout.height or any(len(row) != layout.width for row in rows):
        raise ValueError(f"the board must be {layout.height} rows of {layout.width} squares")
    board = "".join(rows)
    if any(not (c == EMPTY or (c.isascii() and c.isalpha())) for c in board):
        raise ValueError("the board holds only '.', A-Z and a-z")
    return board


def position_text(state: GameState) -> str:
    """The board of ``state`` in its text form."""
    return board_to_text(state.board, state.config.layout.width)
