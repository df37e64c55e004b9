"""A random legal-move finder: enough to drive random games to their end.

Tests (property tests, replays), ``make bench`` (random games per second) and
the site load generator (each simulated player picks its move from what its own
page shows) all need "some legal move, found quickly". It is not a move
generator: it tries short placements around the tiles already down and falls
back on an exchange, then a pass. It only calls ``rules.apply`` on the state it
is given, so it never needs more than that state holds.
"""

from __future__ import annotations

import random
from dataclasses import replace

from rules.engine import apply
from rules.errors import IllegalMove
from rules.material import LETTERS
from rules.state import EMPTY, Exchange, GameState, Move, Pass, Place

# Two-letter openings tried on the start square when the word list cannot be
# enumerated (the French trie): cheap to try and some are words.
_OPEN_FIRST = [a + b for a in LETTERS for b in LETTERS if a != b]


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
                spelled = _spell(state, layout.start, rng.random() < 0.5, word, hand)
                if spelled is not None:
                    candidates.append(Place(player, spelled))
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
                    spelled = _spell(state, anchor, across, word, hand)
                    if spelled is not None:
                        candidates.append(Place(player, spelled))
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
