"""Hints that say why: every reason a suggestion gives is what the engine then does."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from rules import (
    Exchange,
    GameState,
    Pass,
    Place,
    PointsScored,
    TilesDrawn,
    TilesReturned,
    apply,
    deal,
    make_config,
    new_game,
    view,
)
from rules.material import BLACK, GREEN, RED
from rules.strategy import HEAVY, Reason, best_moves, choose_move


@cache
def positions(mode: str, players: int, seed: int, every: int) -> tuple[GameState, ...]:
    """Positions of a débutant game: one every ``every`` moves, and the last ones to the end."""
    rng = random.Random(seed)
    config = make_config(mode, words="fr")
    hands, reserve = deal(config, players, rng)
    state = new_game(config, hands, reserve)
    seen: list[GameState] = []
    while not state.over and state.move_count < 100:
        seen.append(state)
        state, _ = apply(state, choose_move(view(state, state.turn), "debutant", rng), rng=rng)
    return tuple(seen[::every][:4] + seen[-4:])


CASES = [("marque", 2, 1, 5), ("marque", 3, 5, 6), ("sans-marque", 3, 3, 3)]


def codes(suggestion) -> dict[str, Reason]:
    return {reason.code: reason for reason in suggestion.reasons}


@pytest.mark.parametrize(("mode", "players", "seed", "every"), CASES)
def test_each_reason_of_the_best_moves_is_what_the_engine_does(
    mode: str, players: int, seed: int, every: int
) -> None:
    checked = 0
    for state in positions(mode, players, seed, every):
        me = state.turn
        for suggestion in best_moves(view(state, me), 3):
            move, why = suggestion.move, codes(suggestion)
            assert suggestion.reasons, suggestion.notation
            after, events = apply(state, move, rng=random.Random(0))
            if isinstance(move, Exchange):
                assert why["exchange"].tiles == move.tiles
                continue
            if isinstance(move, Pass):
                assert "pass" in why
                continue
            assert isinstance(move, Place)
            layout = state.config.layout
            kinds = [layout.cells[layout.index(square)] for square, _ in move.tiles]
            mine = sum(e.points for e in events if isinstance(e, PointsScored) and e.player == me)
            theirs = {
                e.player: e.points
                for e in events
                if isinstance(e, PointsScored) and e.player != me and e.points > 0
            }
            out = after.over and not after.hands[me]
            assert ("goes-out" in why) == out
            assert ("black-square" in why) == (out and BLACK in kinds)
            if mode == "marque":
                assert why.get("red-points", None) is None or why[
                    "red-points"
                ].amount == 10 * kinds.count(RED)
                assert ("red-points" in why) == (RED in kinds)
                if out:
                    assert why["goes-out"].amount == mine  # the reserve is empty: exact
                if GREEN in kinds and theirs:
                    assert why["green-points"].amount == 5 * kinds.count(GREEN)
            else:
                returned = "".join(e.tiles for e in events if isinstance(e, TilesReturned))
                drawn = sum(len(e.tiles) for e in events if isinstance(e, TilesDrawn))
                assert why.get("returns") is None or why["returns"].tiles == returned
                assert ("returns" in why) == bool(returned)
                assert ("green-draw" in why) == bool(drawn)
                if not out:
                    shed = len(state.hands[me]) - len(after.hands[me])
                    if shed > 0:
                        assert why["sheds"].amount == shed
                    else:  # never "-1 tiles out of your hand"
                        assert "sheds" not in why
                if out and state.reserve:
                    # The others' hands are hidden (R-HIDE-1): no figure before the end.
                    assert why["goes-out"].amount == 0
            heavy = [
                t for _, t in move.tiles if t.isupper() and state.config.tiles.values[t] >= HEAVY
            ]
            assert ("plays-heavy" in why) == bool(heavy)
            if heavy:
                assert sorted(why["plays-heavy"].tiles) == sorted(heavy)
            used = Counter("?" if t.islower() else t for _, t in move.tiles)
            kept = Counter(state.hands[me]) - used - Counter(move.returns)
            # The hand kept, before the draw: a diable drawn after the move is not "kept".
            assert ("keeps-diable" in why) == (kept["?"] > 0 and not out)
            if "keeps" in why:
                assert sorted(why["keeps"].tiles) == sorted(kept.elements())
            checked += 1
    assert checked >= 12


@pytest.mark.parametrize(("mode", "players", "seed", "every"), CASES)
def test_the_best_move_says_what_puts_it_above_the_next_best(
    mode: str, players: int, seed: int, every: int
) -> None:
    for state in positions(mode, players, seed, every):
        found = best_moves(view(state, state.turn), 2)
        if len(found) < 2:
            continue  # one thing to do: nothing to rank it against
        first, second = found
        ahead = [r for r in first.reasons if r.code.startswith("ahead-")]
        assert len(ahead) == 1
        assert ahead[0].tiles == second.notation
        if ahead[0].code == "ahead-close":
            assert abs(first.score - second.score) < 1.5
        else:
            assert ahead[0].amount >= 1
            assert first.score >= second.score
        assert not any(r.code.startswith("ahead-") for r in second.reasons)
