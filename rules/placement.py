"""Checking a placement: squares, hand, geometry, black squares and words.

``check_placement`` either raises IllegalMove or returns a ``Placement`` with
everything ``apply`` needs (the new board, the words, the devils covered).
The order of the checks decides which mistake is reported first: the input,
then the hand, then the line, then black squares, then the words.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import IllegalMove
from rules.material import BLACK, DIABLE, GREEN, RED
from rules.squares import parse_square
from rules.state import EMPTY, GameState, Place

FIRST_MOVE_MIN = 2
FIRST_MOVE_MAX = 8


@dataclass(frozen=True, slots=True)
class Placement:
    """A checked placement."""

    squares: tuple[int, ...]
    """Board indexes, in the order the move gave them."""
    hand_after: tuple[str, ...]
    """The hand once the tiles are on the board (before returns and draws)."""
    board: str
    words: tuple[tuple[str, int, bool], ...]
    """(word, start index, across), main word first."""
    green: tuple[int, ...]
    red: tuple[int, ...]
    black: tuple[int, ...]


def _read_tiles(state: GameState, move: Place) -> tuple[list[int], list[str], list[str]]:
    """Squares, board characters and hand tiles of the move, checked one by one."""
    layout = state.config.layout
    board = state.board
    tiles = move.tiles
    if not isinstance(tiles, tuple | list) or not tiles:
        raise IllegalMove(
            "no-tiles", "R-PLACE-1", "Posez au moins une lettre.", "Place at least one tile."
        )
    squares: list[int] = []
    chars: list[str] = []
    needed: list[str] = []
    seen: set[int] = set()
    for item in tiles:
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise IllegalMove(
                "bad-square",
                "R-PLACE-3",
                "Chaque lettre posée doit avoir une case et une lettre.",
                "Each tile placed needs a square and a letter.",
            )
        square, letter = item
        try:
            parse_square(square)
        except ValueError:
            raise IllegalMove(
                "bad-square",
                "R-PLACE-3",
                f"{square!s:.10} n’est pas une case (écrivez par exemple H8).",
                f"{square!s:.10} is not a square (write for example H8).",
            ) from None
        try:
            index = layout.index(square)
        except ValueError:
            raise IllegalMove(
                "off-board",
                "R-PLACE-3",
                f"La case {square} est hors du plateau.",
                f"Square {square} is off the board.",
            ) from None
        name = layout.name_of(index)
        if letter == DIABLE:
            raise IllegalMove(
                "diable-letter",
                "R-PLACE-9",
                f"Dites quelle lettre remplace le diable en {name}.",
                f"Say which letter the joker on {name} stands for.",
            )
        if not isinstance(letter, str) or len(letter) != 1 or not letter.isascii():
            letter_text = f"{letter!s:.10}"
            raise IllegalMove(
                "bad-letter",
                "R-PLACE-9",
                f"«\u00a0{letter_text}\u00a0» en {name} n’est pas une lettre de A à Z.",
                f"'{letter_text}' on {name} is not a letter from A to Z.",
            )
        if "A" <= letter <= "Z":
            tile = letter
        elif "a" <= letter <= "z":
            tile = DIABLE
        else:
            raise IllegalMove(
                "bad-letter",
                "R-PLACE-9",
                f"«\u00a0{letter}\u00a0» en {name} n’est pas une lettre de A à Z.",
                f"'{letter}' on {name} is not a letter from A to Z.",
            )
        if index in seen:
            raise IllegalMove(
                "duplicate-square",
                "R-PLACE-1",
                f"Vous posez deux lettres en {name}.",
                f"You place two tiles on {name}.",
            )
        if board[index] != EMPTY:
            raise IllegalMove(
                "occupied",
                "R-PLACE-3",
                f"La case {name} est déjà occupée.",
                f"Square {name} is already taken.",
            )
        seen.add(index)
        squares.append(index)
        chars.append(letter)
        needed.append(tile)
    return squares, chars, needed


def _hand_after(hand: tuple[str, ...], needed: list[str]) -> tuple[str, ...]:
    rest = list(hand)
    for tile in needed:
        try:
            rest.remove(tile)
        except ValueError:
            fr = "de diables" if tile == DIABLE else f"de {tile}"
            en = "jokers" if tile == DIABLE else f"{tile} tiles"
            raise IllegalMove(
                "not-in-hand",
                "R-HAND-1",
                f"Vous n’avez pas assez {fr} en main.",
                f"You do not hold enough {en} in your hand.",
            ) from None
    return tuple(rest)


def _check_first(state: GameState, squares: list[int], across: bool | None) -> None:
    layout = state.config.layout
    start = layout.start
    start_name = layout.name_of(start)
    if across is None:
        raise IllegalMove(
            "first-move-direction",
            "R-PLACE-2",
            f"Le premier mot part de {start_name} vers la droite ou vers le bas.",
            f"The first word goes from {start_name} to the right or downwards.",
        )
    if start not in squares:
        raise IllegalMove(
            "first-move-start",
            "R-PLACE-2",
            f"La première lettre du premier mot se pose sur la case Départ {start_name}.",
            f"The first letter of the first word goes on the Start square {start_name}.",
        )
    if not FIRST_MOVE_MIN <= len(squares) <= FIRST_MOVE_MAX:
        raise IllegalMove(
            "first-move-length",
            "R-PLACE-2",
            "Le premier mot a de 2 à 8 lettres.",
            "The first word has 2 to 8 letters.",
        )
    if min(squares) != start:
        raise IllegalMove(
            "first-move-direction",
            "R-PLACE-2",
            f"Le premier mot part de {start_name} vers la droite ou vers le bas,"
            " jamais vers la gauche ou vers le haut.",
            f"The first word goes from {start_name} to the right or downwards, never left or up.",
        )
    step = 1 if across else layout.width
    if set(squares) != {start + k * step for k in range(len(squares))}:
        raise IllegalMove(
            "gap",
            "R-PLACE-2",
            "Les lettres du premier mot se suivent sans case vide.",
            "The letters of the first word follow each other with no empty square.",
        )


def _check_line(state: GameState, squares: list[int], across: bool | None) -> None:
    layout = state.config.layout
    width = layout.width
    board = state.board
    if across is None:
        raise IllegalMove(
            "not-in-line",
            "R-PLACE-1",
            "Posez toutes vos lettres sur une même ligne ou une même colonne.",
            "Put all your tiles in one row or one column.",
        )
    step = 1 if across else width
    new = set(squares)
    for index in range(min(squares), max(squares) + 1, step):
        if index not in new and board[index] == EMPTY:
            name = layout.name_of(index)
            raise IllegalMove(
                "gap",
                "R-PLACE-3",
                f"Il reste un trou en {name}\u00a0: vos lettres doivent former une ligne continue.",
                f"There is a gap on {name}: your tiles must form one unbroken line.",
            )
    height = layout.height
    for index in squares:
        col, row = index % width, index // width
        if (
            (col > 0 and board[index - 1] != EMPTY)
            or (col < width - 1 and board[index + 1] != EMPTY)
            or (row > 0 and board[index - width] != EMPTY)
            or (row < height - 1 and board[index + width] != EMPTY)
        ):
            return
    raise IllegalMove(
        "not-touching",
        "R-PLACE-3",
        "Une de vos lettres doit toucher une lettre déjà posée.",
        "One of your tiles must touch a tile already on the board.",
    )


def _run(board: str, index: int, across: bool, width: int) -> tuple[int, str]:
    """The maximal run through ``index`` (start index, letters as on the board)."""
    if across:
        row_start = index - index % width
        row_end = row_start + width
        start = index
        while start > row_start and board[start - 1] != EMPTY:
            start -= 1
        end = index + 1
        while end < row_end and board[end] != EMPTY:
            end += 1
        return start, board[start:end]
    size = len(board)
    start = index
    while start >= width and board[start - width] != EMPTY:
        start -= width
    end = index + width
    while end < size and board[end] != EMPTY:
        end += width
    return start, board[start:end:width]


def near_squares(layout_width: int, board: str, squares: tuple[int, ...]) -> frozenset[int]:
    """The squares of the words tiles on ``squares`` make on ``board`` (the tiles laid
    on it), and every square next to one of them (left, right, above, below).

    Every run through a tile counts, a lone tile's own square too: what a move
    placed there since could change its words, or take its squares.
    """
    width = layout_width
    size = len(board)
    zone: set[int] = set()
    for index in squares:
        for across in (True, False):
            start, letters = _run(board, index, across, width)
            step = 1 if across else width
            zone.update(start + k * step for k in range(max(1, len(letters))))
    near = set(zone)
    for index in zone:
        col = index % width
        if col > 0:
            near.add(index - 1)
        if col < width - 1:
            near.add(index + 1)
        if index >= width:
            near.add(index - width)
        if index + width < size:
            near.add(index + width)
    return frozenset(near)


def board_words(board: str, width: int) -> list[tuple[str, int, bool]]:
    """Every maximal run of two or more tiles on ``board``: (word, start, across)."""
    found: list[tuple[str, int, bool]] = []
    height = len(board) // width
    for row in range(height):
        line = board[row * width : (row + 1) * width]
        col = 0
        for part in line.split(EMPTY):
            if len(part) >= 2:
                found.append((part.upper(), row * width + col, True))
            col += len(part) + 1
    for col in range(width):
        line = board[col::width]
        row = 0
        for part in line.split(EMPTY):
            if len(part) >= 2:
                found.append((part.upper(), row * width + col, False))
            row += len(part) + 1
    return found


def check_placement(state: GameState, move: Place) -> Placement:
    """Check ``move`` against R-PLACE-1..5, R-PLACE-9, R-HAND-1 and R-DICT-1."""
    layout = state.config.layout
    width = layout.width
    squares, chars, needed = _read_tiles(state, move)
    hand_after = _hand_after(state.hands[move.player], needed)

    rows = {i // width for i in squares}
    cols = {i % width for i in squares}
    if len(squares) == 1:
        across: bool | None = True
    elif len(rows) == 1:
        across = True
    elif len(cols) == 1:
        across = False
    else:
        across = None
    if state.started:
        _check_line(state, squares, across)
    else:
        _check_first(state, squares, across)

    cells = layout.cells
    black = tuple(i for i in squares if cells[i] == BLACK)
    if black:
        _check_black(state, black, hand_after, squares)

    board_list = list(state.board)
    for index, char in zip(squares, chars, strict=True):
        board_list[index] = char
    board = "".join(board_list)

    if len(squares) == 1:
        # A lone tile's main word is the horizontal one if it has one (NOTATION.md).
        across = len(_run(board, squares[0], True, width)[1]) >= 2
    words: list[tuple[str, int, bool]] = []
    start, letters = _run(board, squares[0], bool(across), width)
    if len(letters) >= 2:
        words.append((letters.upper(), start, bool(across)))
    for index in squares:
        start, letters = _run(board, index, not across, width)
        if len(letters) >= 2:
            words.append((letters.upper(), start, not across))

    word_list = state.config.words
    bad = [word for word, _, _ in words if word not in word_list]
    if bad:
        fr_list = ", ".join(dict.fromkeys(bad))
        if len(set(bad)) == 1:
            fr, en = f"Le mot {fr_list} n’existe pas.", f"{fr_list} is not a word."
        else:
            fr, en = f"Les mots {fr_list} n’existent pas.", f"{fr_list} are not words."
        raise IllegalMove("not-a-word", "R-PLACE-4", fr, en)

    return Placement(
        squares=tuple(squares),
        hand_after=hand_after,
        board=board,
        words=tuple(words),
        green=tuple(i for i in squares if cells[i] == GREEN),
        red=tuple(i for i in squares if cells[i] == RED),
        black=black,
    )


def _check_black(
    state: GameState,
    black: tuple[int, ...],
    hand_after: tuple[str, ...],
    squares: list[int],
) -> None:
    """R-PLACE-5: one black square, only on the move that leaves the hand empty for good."""
    layout = state.config.layout
    names = ", ".join(layout.name_of(i) for i in black)
    if len(black) > 1:
        raise IllegalMove(
            "black-square",
            "R-PLACE-5",
            f"Vous ne pouvez couvrir qu’une case noire ({names}).",
            f"You may cover only one black square ({names}).",
        )
    cells = layout.cells
    if hand_after:
        reason_fr = "seulement avec le coup qui pose toutes vos lettres"
        reason_en = "only with the move that places all your tiles"
    elif state.config.marque and state.reserve:
        reason_fr = "seulement quand la réserve est vide"
        reason_en = "only once the reserve is empty"
    elif not state.config.marque and state.reserve and any(cells[i] == GREEN for i in squares):
        reason_fr = "pas quand un diable vert vous fait piocher"
        reason_en = "not when a green devil makes you draw"
    else:
        return
    raise IllegalMove(
        "black-square",
        "R-PLACE-5",
        f"La case noire {names} ne peut être couverte que pour finir la partie, {reason_fr}.",
        f"Black square {names} may be covered only to finish, {reason_en}.",
    )
