"""The players' replay: any game a viewer may see, stepped through move by move.

The game page's replay (``static/js/board.js``, ``initReplay``) asks
``views.replay`` for this once, then steps on the board without asking again.
Each step is the game after ``k`` moves (0: the deal): the tiles that move
laid, its notation, words and points as the history shows them, every
seat's score then, and the viewer's OWN hand then.

Hidden information (R-HIDE-1) is the point of this module, unlike the staff
replay (``review.py``) that shows every rack on purpose:

- a seated player gets their own hand at each step, rebuilt by the engine from
  the stored deal and moves (``rules.view`` for their seat), never another's;
- a spectator gets no hand at all, running game or finished;
- once the game is over the final hands are public (the game page lists them):
  the last step carries every seat's final hand, and only the last step.

A running game is stepped through up to the version the viewer's page shows
(``upto``), never past the game's own move count: a move that lands while
the player looks at the past is not in it (the page's poll brings it, and the
replay starts again from the new position).
"""

from __future__ import annotations

from typing import Any

import rules
from games import bridge
from games.models import Game
from games.presenters import notation_shown
from games.selectors import seat_name


def replay_for(game: Game, user: Any, upto: int | None = None) -> dict[str, Any]:
    """The steps of ``game`` from the deal to move ``upto`` (None: the last), as ``user`` may see them.

    A stored move the engine refuses (a corrupt game, which the staff's check
    reports) ends the steps there: the ones before it can still be shown.
    """
    seats = sorted(game.seats.select_related("player"), key=lambda s: s.drawn_position)
    names = [seat_name(s) for s in seats]
    me = next((s for s in seats if s.player_id == getattr(user, "pk", None)), None)
    mine = me.drawn_position if me is not None else None
    last = game.move_count if upto is None else max(0, min(upto, game.move_count))

    rows = list(
        game.moves.filter(number__lte=last).select_related("seat__player").order_by("number")
    )
    run = bridge.replayed(game, [row.record for row in rows], seats)
    steps = [_step(0, run.states[0], mine, None, ())]
    for row, state in zip(rows, run.states[1:], strict=False):  # to a refused move, if any
        placed = tuple(
            (square, letter.upper(), letter.islower())
            for square, letter in row.record.get("place", [])
        )
        steps.append(_step(row.number, state, mine, row, placed))
    state = run.states[-1]
    final_hands = rules.view(state, mine).hands
    if game.is_over and len(steps) == last + 1 and final_hands is not None:
        # The final hands are public once the game has its result (the page lists
        # them); an annulled game has none, and its racks stay private.
        steps[-1]["hands"] = ["".join(hand) for hand in final_hands]
    return {"players": names, "viewer": mine, "total": len(steps) - 1, "steps": steps}


def _step(
    number: int,
    state: rules.GameState,
    mine: int | None,
    row: Any,
    placed: tuple[tuple[str, str, bool], ...],
) -> dict[str, Any]:
    # ``rules.view`` is the one place that decides what a seat may see: its
    # ``hand`` is the viewer's own (None for a spectator), and its ``hands``
    # (every rack) are left out here even once the game is over.
    seen = rules.view(state, mine)
    return {
        "step": number,
        "move": None
        if row is None
        else {
            "player": seat_name(row.seat),
            "notation": notation_shown(row.notation),
            "words": list(row.words),
            "points": row.points,
        },
        "place": [list(p) for p in placed],
        "scores": list(seen.scores),
        "hand": None if seen.hand is None else "".join(seen.hand),
    }
