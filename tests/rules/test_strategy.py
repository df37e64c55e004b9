"""Computer players: legal, complete moves; whole games; no hidden information;
the confirmé beats the débutant; the fast evaluation equals the engine."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from functools import cache

import pytest

from rules import (
    Exchange,
    GameState,
    IllegalMove,
    Move,
    Pass,
    Place,
    PointsScored,
    TilesDrawn,
    apply,
    deal,
    make_config,
    new_game,
    view,
)
from rules.analysis import analyse_game, analyse_moves
from rules.evaluation import Seen, open_reds, unseen
from rules.movegen import generate, position
from rules.record import parse_record, write_record
from rules.strategy import LEVELS, Judge, best_moves, choose_move, evaluate_move
from tests.rules.helpers import SMALL, inventory, put, start

pytestmark = pytest.mark.slow  # seconds of CPU each: run first (tests/conftest.py)

MAX_MOVES = 400


@cache
def config(mode: str):
    return make_config(mode, words="fr")


def new(mode: str, players: int, seed: int) -> tuple[GameState, random.Random]:
    rng = random.Random(seed)
    cfg = config(mode)
    hands, reserve = deal(cfg, players, rng)
    return new_game(cfg, hands, reserve), rng


def play(
    mode: str, levels: tuple[str, ...], seed: int, stop: int | None = None, open_end: bool = False
) -> tuple[GameState, list[tuple[Move, str]], GameState]:
    """A game between bots of ``levels`` (seat order) to the end, or ``stop`` moves;
    with ``open_end``, the position before the move that would end the game."""
    state, rng = new(mode, len(levels), seed)
    first = state
    history = []
    full = Counter(state.config.tiles.counts)
    while not state.over and state.move_count < (stop or MAX_MOVES):
        move = choose_move(view(state, state.turn), levels[state.turn], rng)
        after, events = apply(state, move, rng=rng)  # raises if the move is illegal
        if open_end and after.over:
            break
        state = after
        history.append((move, "".join(e.tiles for e in events if isinstance(e, TilesDrawn))))
        assert inventory(state) == full
    return first, history, state


# --- every chosen move is legal and complete ------------------------------------------


@pytest.mark.parametrize(
    ("mode", "players", "seed"),
    [("marque", 2, 1), ("marque", 3, 2), ("marque", 4, 3)]
    + [("sans-marque", n, 10 + n) for n in (2, 3, 5, 8)],
)
def test_bots_play_whole_games_to_the_end_with_legal_moves(mode, players, seed):
    levels = tuple(LEVELS[k % 2] for k in range(players))
    _, history, final = play(mode, levels, seed)
    assert final.over, f"no end after {len(history)} moves"
    assert any(isinstance(move, Place) for move, _ in history)


@cache
def positions(mode: str) -> tuple[GameState, ...]:
    """Positions along a few bot games of 2 to 8 players (cached: both levels use them)."""
    rng = random.Random(7)
    found: list[GameState] = []
    for seed, players in enumerate([2, 3, 4] if mode == "marque" else [2, 4, 6, 8]):
        levels = tuple(rng.choice(LEVELS) for _ in range(players))
        state, game_rng = new(mode, players, 100 + seed)
        while not state.over and state.move_count < 10:
            found.append(state)
            state, _ = apply(
                state,
                choose_move(view(state, state.turn), levels[state.turn], game_rng),
                rng=game_rng,
            )
    return tuple(found[::2])


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
@pytest.mark.parametrize("level", LEVELS)
def test_chosen_moves_are_legal_in_many_positions(mode, level):
    for k, state in enumerate(positions(mode)):
        move = choose_move(view(state, state.turn), level, random.Random(k))
        apply(state, move)  # raises IllegalMove if not
        if isinstance(move, Place) and not state.config.marque:
            layout = state.config.layout
            reds = sum(layout.cells[layout.index(sq)] == "R" for sq, _ in move.tiles)
            assert len(move.returns) == min(reds, len(state.hands[state.turn]) - len(move.tiles))


def test_red_devil_returns_are_the_awkward_tiles():
    # Sans marque, T A on E7 F7, G7 a red devil: S there makes TAS and owes one tile.
    state = put(start("sans-marque", ("SEKA", "ETAROIS"), layout=SMALL), "E7", True, "TA")
    state = replace(state, config=replace(state.config, words=config("marque").words))
    judge = Judge(view(state, 0))
    assert judge.worst(["E", "K", "A"], 1) == "K"
    tas = next(
        c for c in generate(position(view(state, 0))) if c.tiles == ((SMALL.index("G7"), "S"),)
    )
    returns, effects = judge.place_effects(tas, "confirme", random.Random(1))
    assert returns == "K" and effects.kept == ("E", "A") and effects.shed == 2
    # Here the confirmé does better: SAKE over the black square D6 goes out, doubled.
    move = choose_move(view(state, 0), "confirme", random.Random(1))
    assert len(move.tiles) == 4 and "D6" in dict(move.tiles)
    assert apply(state, move)[0].result.black_square


def test_it_exchanges_when_it_cannot_place_and_passes_when_it_cannot_exchange():
    stuck = start("marque", ("KWXYZQJ", "ETAROIS"))
    stuck = replace(put(stuck, "H8", True, "ZZ"), config=config("marque"))
    assert generate(position(view(stuck, 0))) == []
    for level in LEVELS:
        move = choose_move(view(stuck, 0), level, random.Random(1))
        assert isinstance(move, Exchange)
        apply(stuck, move)
    empty = replace(stuck, reserve=())
    for level in LEVELS:
        assert choose_move(view(empty, 0), level, random.Random(1)) == Pass(0)


# --- hidden information --------------------------------------------------------------


@pytest.mark.parametrize("mode", ["marque", "sans-marque"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_choice_does_not_depend_on_hidden_tiles(mode, level):
    _, _, state = play(mode, ("confirme", "debutant", "confirme"), 31, stop=6, open_end=True)
    me = state.turn
    # Deal the same unseen tiles differently between the reserve and the other hands.
    pool = list(state.reserve) + [t for seat, h in enumerate(state.hands) if seat != me for t in h]
    random.Random(5).shuffle(pool)
    hands = list(state.hands)
    k = 0
    for seat, hand in enumerate(state.hands):
        if seat != me:
            hands[seat] = tuple(pool[k : k + len(hand)])
            k += len(hand)
    other = replace(state, hands=tuple(hands), reserve=tuple(pool[k:]))
    assert other != state and view(other, me) == view(state, me)
    first = choose_move(view(state, me), level, random.Random(9))
    second = choose_move(view(other, me), level, random.Random(9))
    assert first == second


def test_the_view_holds_no_hidden_tiles():
    state, _ = new("marque", 3, 4)
    seen = view(state, 1)
    assert "reserve" not in type(seen).__dataclass_fields__
    assert seen.hands is None and seen.hand == state.hands[1]
    assert sum(unseen(seen).values()) == len(state.reserve) + len(state.hands[0]) + len(
        state.hands[2]
    )


# --- the fast evaluation equals the engine ---------------------------------------------


@pytest.mark.parametrize(
    ("mode", "players", "seed", "stop"),
    [
        ("marque", 2, 41, 4),
        ("marque", 3, 42, 12),
        ("marque", 4, 43, 30),
        ("marque", 2, 44, 60),
        ("sans-marque", 2, 45, 2),
        ("sans-marque", 4, 46, 6),
        ("sans-marque", 8, 47, 20),
    ],
)
def test_effects_of_a_placement_match_the_engine(mode, players, seed, stop):
    levels = tuple(LEVELS[k % 2] for k in range(players))
    _, _, state = play(mode, levels, seed, stop=stop, open_end=True)
    me = state.turn
    seen = Seen(view(state, me))
    moves = generate(position(view(state, me)))
    rng = random.Random(seed)
    sample = rng.sample(moves, min(150, len(moves)))
    sample += [m for m in moves if m.red or m.green or m.black or m.size == len(state.hands[me])]
    for cand in sample:
        owed = seen.returns_owed(cand)
        kept = list(state.hands[me])
        for tile in cand.used:
            kept.remove(tile)
        returns = "".join(rng.sample(kept, owed))
        eff = seen.effects(cand, returns)
        after, events = apply(state, cand.place(state.config.layout, me, returns))
        points = Counter()
        for event in events:
            if isinstance(event, PointsScored) and event.reason not in ("own-tiles",):
                points[event.player] += event.points
        assert eff.out == (not after.hands[me])
        assert eff.drawn == sum(len(e.tiles) for e in events if isinstance(e, TilesDrawn))
        assert eff.shed == len(state.hands[me]) - len(after.hands[me]) or state.config.marque
        if mode == "marque" or (eff.out and not state.reserve):
            assert eff.gain == points[me]
        for seat in range(players):
            if seat != me and state.config.marque:
                assert points[seat] == eff.others * (state.status[seat] == "active")
        if eff.out and state.config.marque:
            lost = -sum(
                e.points for e in events if isinstance(e, PointsScored) and e.reason == "own-tiles"
            )
            assert eff.others_lose == lost


# --- strength ------------------------------------------------------------------------


def test_confirme_beats_debutant_avec_marque():
    """Fixed seeds, seats alternated; a generous margin, so it cannot flake."""
    confirme = debutant = wins = 0
    games = 4
    for seed in range(games):
        levels = ("confirme", "debutant") if seed % 2 == 0 else ("debutant", "confirme")
        _, _, final = play("marque", levels, 500 + seed)
        c = levels.index("confirme")
        confirme += final.scores[c]
        debutant += final.scores[1 - c]
        wins += c in final.result.winners
    assert confirme > debutant + 20 * games
    assert wins >= games - 1


# --- hints and analysis ---------------------------------------------------------------


def test_best_moves_are_ranked_legal_and_described():
    _, _, state = play("marque", ("confirme", "confirme"), 61, stop=8, open_end=True)
    seen = view(state, state.turn)
    best = best_moves(seen, 5)
    assert len(best) == 5
    assert [b.score for b in best] == sorted((b.score for b in best), reverse=True)
    for suggestion in best:
        apply(state, suggestion.move)
        if isinstance(suggestion.move, Place):
            assert suggestion.words and suggestion.notation[0].isalpha()
    assert best[0].move == choose_move(seen, "confirme", random.Random(3))


def test_analysis_replays_a_record_and_scores_each_move_from_the_movers_view():
    first, history, final = play("marque", ("debutant", "confirme"), 71, stop=10)
    document = write_record(first.config, ["a", "b"], first.hands, history, first.reserve)
    assert document["dictionary"] == "fr-1"
    record = parse_record(document, words=first.config.words)
    analyses = analyse_game(record)
    assert analyses == analyse_moves(record.initial, record.moves)
    assert [a.number for a in analyses] == list(range(1, len(history) + 1))
    state = record.initial
    for entry, move in zip(analyses, record.moves, strict=True):
        seen = view(state, entry.player)
        assert entry.played == evaluate_move(seen, move)
        assert entry.best == best_moves(seen, 1)[0]
        assert entry.missed >= 0
        state, _ = apply(state, move)
    assert state == final


def test_it_refuses_to_move_out_of_turn_and_to_weigh_moves_that_cannot_be_played():
    state, _ = new("marque", 2, 81)
    with pytest.raises(ValueError):
        choose_move(view(state, 1), "confirme")
    with pytest.raises(ValueError):
        choose_move(view(state, 0), "expert")
    seen = view(state, 0)
    hand = "".join(state.hands[0])
    missing = next(t for t in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if t not in hand)
    with pytest.raises(IllegalMove):
        evaluate_move(seen, Exchange(0, missing))
    with pytest.raises(IllegalMove):
        evaluate_move(seen, Place(0, (("A1", hand[0]),)))  # not on Départ
    assert evaluate_move(seen, Pass(0)).notation == "Passe"


def test_open_red_devils_are_those_a_word_could_reach():
    layout = config("marque").layout
    board = list("." * 225)
    board[layout.index("D8")] = "A"  # three squares right of the red devil A8
    reds = open_reds("".join(board), layout.cells, layout.width)
    assert reds == {layout.index("A8")}
