"""The confirmé's ranking weighs few candidates in full yet chooses as weighing all
would; a search past its time limit answers with what it found, never an error."""

from __future__ import annotations

import itertools
import random
import time
from functools import cache

import pytest

from rules import Exchange, GameState, Pass, Place, apply, deal, make_config, new_game, view
from rules.strategy import (
    PASS_COST,
    Judge,
    _bounds,
    _candidates,
    _deadline,
    _Option,
    _rank_confirme,
    _refine,
    best_moves,
    choose_move,
)

pytestmark = pytest.mark.slow  # seconds of CPU each: run first (tests/conftest.py)


@cache
def config(mode: str):
    return make_config(mode, words="fr")


def _rank_everything(judge: Judge, cands, rng) -> list[_Option]:
    """The ranking as it was before bounds: every candidate weighed in full."""
    s = judge.s
    if not s.marque and len(cands) > 160:

        def rough(c) -> int:
            size = c.size
            return size + min(c.red, len(s.hand) - size) - min(c.green, s.reserve + c.red)

        top = max(rough(c) for c in cands)
        cands = [c for c in cands if rough(c) >= top - 2]
    options = []
    for cand in cands:
        returns, eff = judge.place_effects(cand, "confirme", rng)
        options.append(_Option(judge.equity(eff, cand), None, eff, cand, returns))
    options.sort(key=lambda o: -o.score)
    _refine(judge, options)
    exchange = judge.exchange_option()
    if exchange is not None:
        options.append(_Option(exchange[0], Exchange(s.player, exchange[1])))
    options.append(_Option(judge.leave(s.hand) - PASS_COST, Pass(s.player)))
    options.sort(key=lambda o: -o.score)
    return options


def _positions(mode: str, players: int, seed: int, every: int) -> list[GameState]:
    """Three positions of a game between confirmé players, one every ``every`` moves."""
    rng = random.Random(seed)
    hands, reserve = deal(config(mode), players, rng)
    state = new_game(config(mode), hands, reserve)
    found: list[GameState] = []
    while not state.over and len(found) < 3:
        if state.move_count % every == 0:
            found.append(state)
        state, _ = apply(state, choose_move(view(state, state.turn), "confirme", rng), rng=rng)
    return found


@pytest.mark.parametrize(
    ("mode", "players", "seed", "every"),
    [("marque", 2, 3, 8), ("marque", 4, 4, 7), ("sans-marque", 5, 5, 6), ("sans-marque", 8, 6, 4)],
)
def test_the_best_moves_are_those_weighing_every_candidate_gives(mode, players, seed, every):
    compared = 0
    for state in _positions(mode, players, seed, every):
        judge = Judge(view(state, state.turn))
        cands = _candidates(judge.s)
        for cand, bound in zip(cands, _bounds(judge, cands), strict=True):
            _, eff = judge.place_effects(cand, "confirme", random.Random(0))
            assert judge.equity(eff, cand) <= bound
        expected = _rank_everything(Judge(view(state, state.turn)), cands, random.Random(0))
        ranked = _rank_confirme(judge, cands, random.Random(0), 3)
        assert [(o.resolve(judge), o.score) for o in ranked[:3]] == [
            (e.resolve(judge), e.score) for e in expected[:3]
        ]
        compared += len(cands)
    assert compared > 200


def test_a_forty_tile_first_move_is_chosen_as_weighing_every_candidate_would():
    rng = random.Random(3)
    hands, reserve = deal(config("sans-marque"), 2, rng)
    seen = view(new_game(config("sans-marque"), hands, reserve), 0)
    judge = Judge(seen)
    cands = _candidates(judge.s)
    expected = _rank_everything(Judge(seen), cands, random.Random(0))[:2]
    assert [(s.move, s.score) for s in best_moves(seen, 2)] == [
        (o.resolve(judge), o.score) for o in expected
    ]


def _forty_tiles_first_move() -> GameState:
    hands, reserve = deal(config("sans-marque"), 2, random.Random(2))  # two diables
    return new_game(config("sans-marque"), hands, reserve)


def test_a_hint_past_its_time_limit_answers_with_what_it_found():
    state = _forty_tiles_first_move()
    started = time.process_time()
    hint = best_moves(view(state, state.turn), 1, limit=1e-6)[0]
    assert time.process_time() - started < 1.0  # the search alone takes longer
    # Nothing was found in a microsecond: the best move found is an exchange.
    assert isinstance(hint.move, Exchange) and hint.reasons[0].code == "exchange"
    apply(state, hint.move)  # legal


@pytest.mark.parametrize("level", ["debutant", "confirme"])
def test_a_computer_player_past_its_time_limit_still_plays_a_legal_move(level):
    state = _forty_tiles_first_move()
    move = choose_move(view(state, state.turn), level, random.Random(1), limit=1e-6)
    assert isinstance(move, Exchange | Pass)
    apply(state, move)
    # With time enough, the same player places a word.
    assert isinstance(choose_move(view(state, 0), level, random.Random(1), limit=30), Place)


def _clock_ticking_per_look(monkeypatch) -> None:
    """A clock that moves one second each time it is read: a search's limit of ``n``
    seconds then passes after the same ``n`` looks on any machine, mid-search."""
    ticks = itertools.count()
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))


@pytest.mark.parametrize("level", ["hint", "debutant", "confirme"])
def test_a_search_stopped_mid_way_answers_with_a_placement_it_found(monkeypatch, level):
    state = _forty_tiles_first_move()
    seen = view(state, state.turn)
    everything = _candidates(Judge(seen).s)
    _clock_ticking_per_look(monkeypatch)
    found = _candidates(Judge(seen).s, _deadline(20))
    assert 0 < len(found) < len(everything)  # the limit stopped the search part way
    layout = config("sans-marque").layout
    placements = {cand.place(layout, state.turn).tiles for cand in found}

    _clock_ticking_per_look(monkeypatch)  # the same looks again: the same placements found
    if level == "hint":
        hint = best_moves(seen, 1, limit=20)[0]
        move = hint.move
        assert hint.score <= best_moves(seen, 1)[0].score  # no limit: the best of all
    else:
        move = choose_move(seen, level, random.Random(1), limit=20)
    # Not an exchange: the best of what it found in time, which was placements.
    assert isinstance(move, Place) and move.tiles in placements
    apply(state, move)  # legal


@pytest.mark.parametrize("limit", [0, -1.0, float("nan")])
def test_a_time_limit_must_be_a_positive_number_of_seconds(limit):
    with pytest.raises(ValueError, match="positive number of seconds"):
        best_moves(view(_forty_tiles_first_move(), 0), 1, limit=limit)
