"""Post-game analysis: the move played is judged exactly as the best moves are."""

from __future__ import annotations

from dataclasses import replace

from rules import Exchange, Pass, Place, make_config, new_game, view
from rules.analysis import analyse_moves
from rules.state import same_move
from rules.strategy import best_moves
from tests.rules.helpers import put


def endgame(hand: str):
    """MAISON across H8, the reserve empty, ``hand`` to play."""
    state = new_game(make_config("marque", words="fr"), [tuple(hand), tuple("EEEEEEE")])
    return put(state, "H8", True, "MAISON", reserve=())


def test_the_best_move_played_is_marked_best_with_nothing_missed():
    # KA now leaves TU, which goes out next turn: the ranking's second look
    # adds a bonus the move played must get too, or it "misses" 20 points.
    state = endgame("TUKA")
    best = best_moves(view(state, 0), 1)[0]
    assert isinstance(best.move, Place)
    # As a record gives it back: with its (empty) draw, the tiles in another order.
    played = replace(best.move, tiles=best.move.tiles[::-1], draw="")

    (entry,) = analyse_moves(state, [played])

    assert entry.played.notation == entry.best.notation == best.notation
    assert entry.played.score == entry.best.score
    assert entry.played_best is True
    assert entry.missed == 0.0


def test_a_move_is_the_same_whatever_was_drawn_after_it():
    place = Place(0, (("H8", "K"), ("I8", "A")), draw=None)
    assert same_move(place, replace(place, tiles=place.tiles[::-1], draw="EE"))
    assert not same_move(place, replace(place, tiles=(("H8", "K"), ("I8", "a"))))
    assert not same_move(place, replace(place, returns="Q"))
    assert not same_move(place, replace(place, player=1))
    assert same_move(Exchange(0, "AB"), Exchange(0, "BA", draw="CD"))
    assert not same_move(Exchange(0, "AB"), Exchange(0, "AC"))
    assert same_move(Pass(0), Pass(0, draw=""))
    assert not same_move(Pass(0), Exchange(0, "A"))
