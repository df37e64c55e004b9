"""Check the game: replay the stored moves and compare with what the database holds.

The state on the Game row, the seats' hands and scores and the Move rows'
notation, words and points are all caches of one thing, the deal plus the
moves with their draws. ``game_check`` rebuilds them through the engine and
names every place where the stored copy says something else, so staff can
tell a corrupted game (a bad migration, a hand edit in the shell, a bug in a
service) from a sound one. It never raises on bad data: bad data is what it
is looking for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language

import rules
from games import bridge
from games.models import Game, Move, Seat
from rules import record as rules_record

EMPTY_SQUARE = "."


@dataclass(frozen=True)
class Difference:
    """One disagreement between the replay and the database.

    ``field`` says where, in the terms of the data (``seat 1 (bob) hand``,
    ``state.board H8``, ``move 3 points``); ``expected`` is what replaying the
    moves gives and ``stored`` what the database holds, both as JSON text so
    an empty string or a missing value stays visible.
    """

    field: str
    expected: str
    stored: str

    def __str__(self) -> str:
        return f"{self.field}: expected {self.expected}, stored {self.stored}"


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _seat_label(seat: Seat) -> str:
    return f"seat {seat.position} ({seat.player})"


def game_check(game: Game) -> list[Difference]:
    """Every difference between replaying ``game``'s moves and its stored rows.

    An empty list means the game is consistent. An open table (no deal yet)
    has nothing to check and gives an empty list too.
    """
    if game.setup is None:
        return []
    seats = sorted(
        game.seats.select_related("player"), key=lambda s: (s.position is None, s.position)
    )
    moves = list(game.moves.select_related("seat").order_by("number"))
    differences = _check_numbering(game, moves)
    try:
        config = bridge.config_of(game)
        document = bridge.record_of(game)
        document["moves"] = [m.record for m in moves]  # the very rows compared below
        parsed = rules_record.parse_record(document, words=config.words)
    except (rules.RecordError, KeyError, TypeError, ValueError) as exc:
        # The deal or a move is not even readable: nothing can be replayed.
        return [*differences, Difference("record", _show("a usable record"), _show(str(exc)))]
    state = parsed.initial
    for row, move in zip(moves, parsed.moves, strict=True):
        before = state
        try:
            state, events = rules.apply(before, move)
        except rules.IllegalMove as exc:
            # The moves after this one were played on a position the engine never
            # reached, so comparing anything further would only add noise.
            message = f"{exc.rule} {exc.code}: {exc.message(get_language() or 'fr')}"
            differences.append(
                Difference(f"move {row.number}", _show("a legal move"), _show(message))
            )
            return differences
        differences += _check_move(row, before, move, events)
    differences += _check_state(game, state, seats)
    differences += _check_seats(state, seats)
    differences += _check_game_row(game, state, seats, len(moves))
    return differences


def _check_numbering(game: Game, moves: list[Move]) -> list[Difference]:
    """Moves are numbered 1, 2, 3… with no gap, as many as the game counts."""
    numbers = {m.number for m in moves}
    highest = max([*numbers, game.move_count, 0])
    return [
        Difference(f"move {n}", _show("a stored move"), _show(None))
        for n in range(1, highest + 1)
        if n not in numbers
    ]


def _kind(move: rules.Move) -> str:
    """The Move row's ``kind`` for an engine move (a time-out is a resign the site applied)."""
    if isinstance(move, rules.Resign):
        return "timeout" if move.timeout else "resign"
    return {rules.Place: "place", rules.Exchange: "exchange", rules.Pass: "pass"}[type(move)]


def _check_move(
    row: Move, before: rules.GameState, move: rules.Move, events: tuple[rules.Event, ...]
) -> list[Difference]:
    """The Move row's copies (who, kind, notation, words, points, tiles) against the engine's."""
    summary = rules.summarize(events, before.n_players)
    expected = {
        "seat": move.player,
        "kind": _kind(move),
        "notation": rules.format_notation(rules.notate(before, move)),
        "words": list(summary.words),
        "points": summary.points[move.player],
        "tiles drawn": summary.drawn,
        "tiles returned": summary.returned,
    }
    stored = {
        "seat": row.seat.position,
        "kind": row.kind,
        "notation": row.notation,
        "words": list(row.words),
        "points": row.points,
        "tiles drawn": row.tiles_drawn,
        "tiles returned": row.tiles_returned,
    }
    return [
        Difference(f"move {row.number} {key}", _show(expected[key]), _show(stored[key]))
        for key in expected
        if expected[key] != stored[key]
    ]


def _check_state(game: Game, state: rules.GameState, seats: list[Seat]) -> list[Difference]:
    """The cached state, key by key; the board square by square, hands seat by seat."""
    stored = game.state
    if not isinstance(stored, dict):
        return [Difference("state", _show("a state"), _show(stored))]
    expected = rules.state_to_dict(state)
    names = {s.position: str(s.player) for s in seats}
    differences: list[Difference] = []
    for key in [*expected, *(k for k in stored if k not in expected)]:
        want: Any = expected.get(key)  # the state's JSON: the engine's, and the row's
        have: Any = stored.get(key)
        if want == have:
            continue
        if key == "board" and isinstance(have, str):
            differences += _check_board(state.config.layout, want, have)
        elif key in ("hands", "scores", "status") and isinstance(have, list):
            for position in range(max(len(want), len(have))):
                w = want[position] if position < len(want) else None
                h = have[position] if position < len(have) else None
                if w != h:
                    label = f"state.{key} seat {position} ({names.get(position, '?')})"
                    differences.append(Difference(label, _show(w), _show(h)))
        else:
            differences.append(Difference(f"state.{key}", _show(want), _show(have)))
    return differences


def _check_board(layout: Any, want: str, have: str) -> list[Difference]:
    want_cells, have_cells = want.replace("/", ""), have.replace("/", "")
    if len(want_cells) != len(have_cells):
        return [
            Difference(
                "state.board",
                _show(f"{len(want_cells)} squares"),
                _show(f"{len(have_cells)} squares"),
            )
        ]
    return [
        Difference(f"state.board {layout.name_of(i)}", _show(w), _show(h))
        for i, (w, h) in enumerate(zip(want_cells, have_cells, strict=True))
        if w != h
    ]


def _check_seats(state: rules.GameState, seats: list[Seat]) -> list[Difference]:
    """Each seat's copy of its hand, score, status and, at the end, result."""
    places = rules.ranks(state) if state.result is not None else None
    differences: list[Difference] = []
    for seat in seats:
        position = seat.position
        if position is None or not 0 <= position < state.n_players:
            differences.append(
                Difference(
                    f"seat {position} ({seat.player}) position",
                    _show("a seat in play"),
                    _show(position),
                )
            )
            continue
        expected: dict[str, Any] = {
            "hand": "".join(state.hands[position]),
            "score": state.scores[position],
            "status": state.status[position],
        }
        stored: dict[str, Any] = {"hand": seat.hand, "score": seat.score, "status": seat.status}
        if state.result is not None and places is not None:
            expected |= {"winner": position in state.result.winners, "rank": places[position]}
            stored |= {"winner": seat.is_winner, "rank": seat.rank}
        differences += [
            Difference(f"{_seat_label(seat)} {key}", _show(expected[key]), _show(stored[key]))
            for key in expected
            if expected[key] != stored[key]
        ]
    return differences


def _check_game_row(
    game: Game, state: rules.GameState, seats: list[Seat], n_moves: int
) -> list[Difference]:
    """The game row's copies: move count, status and end, who is to move."""
    result = state.result
    expected: dict[str, Any] = {"move_count": n_moves}
    stored: dict[str, Any] = {"move_count": game.move_count}
    by_position = {s.position: s for s in seats}
    to_move = None if result is not None else by_position.get(state.turn)
    # An annulled game keeps the position it was annulled in, and nobody is to move.
    if game.status == Game.Status.ANNULLED:
        to_move = None
    else:
        expected["status"] = Game.Status.FINISHED if result is not None else Game.Status.RUNNING
        stored["status"] = game.status
    expected["to_move"] = None if to_move is None else _seat_label(to_move)
    stored["to_move"] = None if game.to_move is None else _seat_label(game.to_move)
    expected["end"] = "" if result is None else result.end
    stored["end"] = game.end
    return [
        Difference(f"game {key}", _show(expected[key]), _show(stored[key]))
        for key in expected
        if expected[key] != stored[key]
    ]
