"""The staff replay: a game at any move, with every hand and the reserve.

This is the one read that breaks R-HIDE-1 on purpose, so it lives apart from
``selectors.py`` (whose views are built for one player) and only the staff
views in ``staff_views.py`` call it. Each step is rebuilt by the engine from
the stored deal and moves, not read from the cached state: the page shows
what the rules say happened, and "check the game" (``audit.py``) says whether
the stored copies agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import get_language

import rules
from games import bridge
from games.models import Game, Seat
from games.presenters import SquareView
from games.selectors import board_columns, board_rows, seat_name


@dataclass(frozen=True)
class ReplaySeat:
    position: int
    name: str
    hand: str  # every tile, "?" for a diable
    hand_value: int
    score: int
    status: str  # "active", "resigned", "timed-out"
    is_turn: bool  # to move after this step
    is_winner: bool

    @property
    def status_label(self) -> str:
        return str(Seat.Status(self.status).label)


@dataclass(frozen=True)
class ReplayMove:
    """The move that led to a step, as the engine replayed it."""

    number: int
    player: str
    kind: str
    notation: str
    words: tuple[str, ...]
    points: int  # for the player who moved
    drawn: str
    returned: str
    played_at: datetime


@dataclass(frozen=True)
class ReplayStep:
    """The game after ``step`` moves (0: the deal)."""

    step: int
    total: int  # moves stored
    playable: int  # moves the engine could replay (== total unless the game is corrupt)
    mode: str
    columns: tuple[str, ...]
    rows: tuple[tuple[SquareView, ...], ...]
    seats: tuple[ReplaySeat, ...]
    reserve: str  # in draw order, top first
    move: ReplayMove | None  # None at step 0
    moves: tuple[tuple[int, str, str], ...]  # (number, player, notation) of every stored move
    state: rules.GameState
    over: bool
    error: str = ""  # why the move after ``playable`` cannot be replayed

    @property
    def reserve_size(self) -> int:
        return len(self.reserve)

    @property
    def previous(self) -> int | None:
        return self.step - 1 if self.step > 0 else None

    @property
    def next(self) -> int | None:
        return self.step + 1 if self.step < self.playable else None


def replay_step(game: Game, step: int | None) -> ReplayStep:
    """``game`` after ``step`` moves (None, or past the end: after the last one).

    The whole game is replayed each time (a few hundred moves at most) so the
    page knows how far it goes. A stored move the engine refuses stops the
    replay there: the steps before it can be shown and ``error`` says why.
    """
    config = bridge.config_of(game)
    seats = sorted(game.seats.select_related("player"), key=lambda s: s.drawn_position)
    names = {s.position: seat_name(s) for s in seats}
    rows = list(game.moves.select_related("seat").order_by("number"))
    run = bridge.replayed(game, [row.record for row in rows], seats)
    states, summaries = run.states, run.summaries
    error = ""
    if run.refused is not None:
        exc = run.refused
        error = f"{exc.rule} {exc.code}: {exc.message(get_language() or 'fr')}"
    playable = len(states) - 1
    current = playable if step is None else max(0, min(step, playable))
    state = states[current]

    move_view = None
    last: set[str] = set()
    if current > 0:
        row, move, summary = rows[current - 1], run.moves[current - 1], summaries[current - 1]
        move_view = ReplayMove(
            number=row.number,
            player=names.get(move.player, "?"),
            kind=row.kind,
            notation=rules.format_notation(rules.notate(states[current - 1], move)),
            words=summary.words,
            points=summary.points[move.player],
            drawn=summary.drawn,
            returned=summary.returned,
            played_at=row.created_at,
        )
        if isinstance(move, rules.Place):
            last = {square for square, _letter in move.tiles}
    winners = set(state.result.winners) if state.result else set()
    return ReplayStep(
        step=current,
        total=len(rows),
        playable=playable,
        mode=game.mode,
        columns=board_columns(config),
        rows=board_rows(config, state.board, last),
        seats=tuple(
            ReplaySeat(
                position=position,
                name=names.get(position, "?"),
                hand="".join(state.hands[position]),
                hand_value=state.hand_value(position),
                score=state.scores[position],
                status=state.status[position],
                is_turn=not state.over and state.turn == position,
                is_winner=position in winners,
            )
            for position in range(state.n_players)
        ),
        reserve="".join(state.reserve),
        move=move_view,
        moves=tuple((row.number, names.get(row.seat.position, "?"), row.notation) for row in rows),
        state=state,
        over=state.over,
        error=error,
    )
