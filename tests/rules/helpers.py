"""Shared helpers for the rules tests: small configs and hand-built positions.

The random move finder that drives random games is ``rules.randomplay.find_move``."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

from rules import (
    GameConfig,
    GameState,
    Layout,
    WordSet,
    make_config,
    new_game,
)
from rules.placement import board_words
from rules.state import EMPTY

WORDS = WordSet(
    [
        "CHAT",
        "CHATS",
        "AS",
        "TA",
        "TE",
        "ET",
        "EN",
        "NE",
        "SE",
        "ES",
        "LE",
        "LA",
        "AN",
        "OR",
        "ORE",
        "RA",
        "AI",
        "IL",
        "EU",
        "DO",
        "MA",
        "MI",
        "NU",
        "SA",
        "ZA",
        "QI",
        "KA",
        "TAS",
        "RAT",
        "RATS",
        "EST",
        "ETE",
        "ETES",
        "LES",
        "MOT",
        "MOTS",
        "ROI",
        "ROIS",
    ]
)


class NoDoubles:
    """For random games: a word is 2-15 letters with no letter twice in a row.

    Permissive enough that random play flows to the end, strict enough that
    the engine must reject some runs."""

    id = "no-doubles"

    def __contains__(self, word: object) -> bool:
        return (
            isinstance(word, str)
            and 2 <= len(word) <= 15
            and word.isalpha()
            and all(a != b for a, b in itertools.pairwise(word))
        )


OPEN_WORDS = NoDoubles()

# A 7x7 board with every kind of square, for focused tests.
SMALL_ROWS = [
    "#.....R",
    ".......",
    "...G...",
    "R..D..G",
    ".......",
    "...#...",
    "#.....R",
]
SMALL = Layout.from_rows(SMALL_ROWS, "")


def config(mode: str = "marque", layout: Layout | str = "classique", words=WORDS) -> GameConfig:
    """A config on the classique tile set with the small word list."""
    return make_config(mode, layout, "classique", words)


def start(
    mode: str = "marque",
    hands: tuple[str, ...] = ("CHATSEL", "ETAROIS"),
    layout: Layout | str = "classique",
    words=WORDS,
) -> GameState:
    """A fresh game where the reserve is the rest of the classique set, in set order."""
    return new_game(config(mode, layout, words), [tuple(h) for h in hands])


def put(state: GameState, square: str, across: bool, letters: str, **changes) -> GameState:
    """``state`` with ``letters`` written on the board from ``square`` (no checks)."""
    layout = state.config.layout
    index = layout.index(square)
    step = 1 if across else layout.width
    board = list(state.board)
    for k, letter in enumerate(letters):
        board[index + k * step] = letter
    changes.setdefault("started", True)
    return replace(state, board="".join(board), **changes)


def tiles(*pairs: str) -> tuple[tuple[str, str], ...]:
    """``tiles("H8C", "I8h")`` -> ``(("H8", "C"), ("I8", "h"))``."""
    return tuple((p[:-1], p[-1]) for p in pairs)


def inventory(state: GameState) -> Counter[str]:
    """Every tile of the game wherever it is: board (diables as ?), hands, reserve."""
    count: Counter[str] = Counter()
    for char in state.board:
        if char != EMPTY:
            count["?" if char.islower() else char] += 1
    for hand in state.hands:
        count.update(hand)
    count.update(state.reserve)
    return count


def board_is_words(state: GameState) -> bool:
    """True if every run of two or more tiles on the board is a listed word."""
    words = state.config.words
    width = state.config.layout.width
    return all(word in words for word, _, _ in board_words(state.board, width))
