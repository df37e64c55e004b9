"""The unseen tiles (``rules.evaluation.unseen``) against the true state, in random games.

``unseen`` reads a ``PlayerView`` only: it cannot see the reserve or the other
hands, yet what it finds must be exactly them (R-HIDE-1). The game page's
"Unseen tiles" panel is built on it (``games.presenters.UnseenView``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from rules import Exchange, Move, Pass, apply, deal, new_game, view
from rules.evaluation import unseen
from rules.randomplay import find_move
from rules.state import EMPTY
from tests.rules.helpers import OPEN_WORDS, config

MAX_MOVES = 120


def positions(mode: str, n_players: int, seed: int):
    """Every position of a random game (exchanges and passes among the moves)."""
    rng = random.Random(seed)
    cfg = config(mode, words=OPEN_WORDS)
    hands, reserve = deal(cfg, n_players, rng)
    state = new_game(cfg, hands, reserve)
    yield state
    while not state.over and state.move_count < MAX_MOVES:
        roll = rng.random()
        move: Move
        if roll < 0.05:
            move = Pass(state.turn)
        elif roll < 0.12 and len(state.reserve) >= 2:
            move = Exchange(state.turn, "".join(state.hands[state.turn][:2]))
        else:
            move = find_move(state, rng)
        state, _ = apply(state, move, rng=rng)
        yield state


def on_board(board: str) -> Counter[str]:
    """The tiles on the board, a diable (lower case) as a diable of the set."""
    return Counter("?" if c.islower() else c for c in board if c != EMPTY)


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
@pytest.mark.parametrize(("n_players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_unseen_is_the_other_hands_and_the_reserve(mode, n_players, seed):
    checked = 0
    for state in positions(mode, n_players, seed):
        full = Counter(state.config.tiles.counts)
        for seat in range(n_players):
            expected = full - on_board(state.board) - Counter(state.hands[seat])
            hidden = Counter(state.reserve)
            for other, hand in enumerate(state.hands):
                if other != seat:
                    hidden.update(hand)
            found = unseen(view(state, seat))
            assert found == expected
            assert found == hidden
        # A spectator sees no hand: every hand and the reserve are unseen.
        everything = Counter(state.reserve)
        for hand in state.hands:
            everything.update(hand)
        assert unseen(view(state)) == full - on_board(state.board) == everything
        checked += 1
    assert checked > 5


def test_unseen_counts_a_diable_on_the_board_as_a_diable():
    cfg = config("marque", words=OPEN_WORDS)
    full = Counter(cfg.tiles.counts)
    state = new_game(cfg, [tuple("ABCDFGH"), tuple("IJKLMNO")])
    width = cfg.layout.width
    board = list(state.board)
    board[7 * width + 7] = "e"  # a diable standing for E
    board[7 * width + 8] = "T"
    placed = replace(state, board="".join(board))
    found = unseen(view(placed, 0))
    assert found["?"] == full["?"] - 1
    assert found["E"] == full["E"]  # the E it stands for is still unseen
    assert found["T"] == full["T"] - 1
