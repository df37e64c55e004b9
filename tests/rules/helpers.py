"""Shared helpers for the rules tests: small configs, hand-built positions, a move finder."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace

from rules import (
    Exchange,
    GameConfig,
    GameState,
    IllegalMove,
    Layout,
    Move,
    Pass,
    Place,
    WordSet,
    apply,
    make_config,
    new_game,
)
from rules.material import LETTERS
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
_OPEN_FIRST = [a + b for a in LETTERS for b in LETTERS if a != b]

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


def find_move(state: GameState, rng: random.Random, tries: int = 150) -> Move:
    """A legal move for the player to move: a short placement if one is found quickly,
    else an exchange, else a pass. Good enough to drive random games to their end."""
    player = state.turn
    hand = state.hands[player]
    layout = state.config.layout
    width = layout.width
    board = state.board
    candidates: list[Place] = []
    if not state.started:
        listed = getattr(state.config.words, "words", None)
        for word in sorted(listed) if listed is not None else _OPEN_FIRST:
            if 2 <= len(word) <= 8:
                place = _spell(state, layout.start, rng.random() < 0.5, word, hand)
                if place is not None:
                    candidates.append(Place(player, place))
        rng.shuffle(candidates)
    else:
        anchors = [
            i
            for i, c in enumerate(board)
            if c == EMPTY
            and any(
                0 <= j < len(board) and board[j] != EMPTY and _adjacent(i, j, width)
                for j in (i - 1, i + 1, i - width, i + width)
            )
        ]
        rng.shuffle(anchors)
        for anchor in anchors[:40]:
            for tile in set(hand):
                letter = rng.choice(LETTERS).lower() if tile == "?" else tile
                candidates.append(Place(player, ((layout.name_of(anchor), letter),)))
            across = rng.random() < 0.5
            step = 1 if across else width
            nxt = anchor + step
            if nxt < len(board) and (not across or nxt % width) and board[nxt] == EMPTY:
                word = "".join(rng.sample(hand, 2)).replace("?", "E") if len(hand) > 1 else ""
                if word:
                    place = _spell(state, anchor, across, word, hand)
                    if place is not None:
                        candidates.append(Place(player, place))
        rng.shuffle(candidates)
    for place in candidates[:tries]:
        for move in _with_returns(state, place, rng):
            try:
                apply(state, move)
            except IllegalMove:
                continue
            return move
    if state.reserve and hand:
        count = rng.randint(1, min(len(hand), len(state.reserve)))
        return Exchange(player, "".join(rng.sample(hand, count)))
    return Pass(player)


def _adjacent(i: int, j: int, width: int) -> bool:
    return abs(i - j) == width or (abs(i - j) == 1 and i // width == j // width)


def _spell(
    state: GameState, index: int, across: bool, word: str, hand: tuple[str, ...]
) -> tuple[tuple[str, str], ...] | None:
    """The tiles that write ``word`` from ``index``, using diables where needed."""
    layout = state.config.layout
    width = layout.width
    step = 1 if across else width
    rest = list(hand)
    placed = []
    for k, letter in enumerate(word):
        i = index + k * step
        if i >= len(state.board) or (across and i // width != index // width):
            return None
        if state.board[i] != EMPTY:
            if state.board[i].upper() != letter:
                return None
            continue
        if letter in rest:
            rest.remove(letter)
            placed.append((layout.name_of(i), letter))
        elif "?" in rest:
            rest.remove("?")
            placed.append((layout.name_of(i), letter.lower()))
        else:
            return None
    return tuple(placed) or None


def _with_returns(state: GameState, place: Place, rng: random.Random) -> list[Place]:
    """``place`` with random returns, trying each count the red devils could ask for."""
    if state.config.marque:
        return [place]
    hand = list(state.hands[place.player])
    for _, letter in place.tiles:
        hand.remove("?" if letter.islower() else letter)
    rng.shuffle(hand)
    return [replace(place, returns="".join(hand[:k])) for k in range(0, min(3, len(hand)) + 1)]
