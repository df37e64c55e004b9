"""Random legal games to the end, in both modes, with 2 to 8 players.

Invariants: every tile is always exactly somewhere; the board is always made
of listed words; scores are the sum of the points events; replaying the
game's record gives the same final state.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    Exchange,
    Move,
    Pass,
    PointsScored,
    Resign,
    TilesDrawn,
    apply,
    deal,
    new_game,
    ranking,
    state_from_dict,
    state_to_dict,
)
from rules.randomplay import find_move
from rules.record import judge, parse_record, replay, write_record
from tests.rules.helpers import OPEN_WORDS, board_is_words, config, inventory

MAX_MOVES = 300


def play(mode: str, n_players: int, seed: int):
    rng = random.Random(seed)
    cfg = config(mode, words=OPEN_WORDS)
    hands, reserve = deal(cfg, n_players, rng)
    state = new_game(cfg, hands, reserve)
    full = Counter(cfg.tiles.counts)
    scores = [0] * n_players
    history = []
    while not state.over:
        roll = rng.random()
        move: Move
        if state.move_count >= MAX_MOVES or roll < 0.01:
            move = Resign(rng.choice(state.active_players()), timeout=roll < 0.005)
        elif roll < 0.06:
            move = Pass(state.turn)
        elif roll < 0.09 and state.reserve:
            move = Exchange(state.turn, state.hands[state.turn][0])
        else:
            move = find_move(state, rng)
        state, events = apply(state, move, rng=rng)
        drawn = "".join(e.tiles for e in events if isinstance(e, TilesDrawn))
        history.append((move, drawn))
        for event in events:
            if isinstance(event, PointsScored):
                scores[event.player] += event.points
        assert inventory(state) == full
        assert board_is_words(state)
        assert tuple(scores) == state.scores
        if not cfg.marque and not state.over:
            assert state.scores == (0,) * n_players
    return cfg, hands, reserve, state, history


def check_game(mode: str, n_players: int, seed: int) -> None:
    cfg, hands, reserve, final, history = play(mode, n_players, seed)
    assert final.result.scores == final.scores
    assert sorted(s for group in ranking(final) for s in group) == list(range(n_players))
    document = write_record(cfg, [f"p{i}" for i in range(n_players)], hands, history, reserve)
    record = parse_record(document, words=OPEN_WORDS)
    replayed = replay(record)
    a, b = state_to_dict(final), state_to_dict(replayed)
    assert a == b  # live draws are recorded, so even the reserve's order replays
    judgement = judge(record)
    assert all(entry["ok"] for entry in judgement["moves"])
    assert judgement["scores"] == list(final.scores)
    assert state_from_dict(state_to_dict(final), cfg) == final


@settings(max_examples=20, deadline=None)
@given(n_players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_marque_games_keep_the_invariants(n_players, seed):
    check_game("marque", n_players, seed)


@settings(max_examples=20, deadline=None)
@given(n_players=st.integers(2, 8), seed=st.integers(0, 2**32))
def test_random_sans_marque_games_keep_the_invariants(n_players, seed):
    check_game("sans-marque", n_players, seed)
