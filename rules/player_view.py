"""What a player may see (R-HIDE-1), and the order of seats by result."""

from __future__ import annotations

from dataclasses import dataclass

from rules.state import ACTIVE, GameConfig, GameResult, GameState


@dataclass(frozen=True, slots=True)
class PlayerView:
    """A state as one player (or a spectator) may see it.

    ``hand`` is the viewer's own hand (None for a spectator). ``hands`` holds
    every hand only once the game is over; before that it is None. The
    reserve is a size only. ``config`` (mode, layout, tile set, word list)
    is public: it lets a computer player search moves from the view alone.
    """

    viewer: int | None
    board: str
    hand: tuple[str, ...] | None
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    status: tuple[str, ...]
    reserve_size: int
    turn: int
    move_count: int
    started: bool
    consecutive_passes: int
    result: GameResult | None
    hands: tuple[tuple[str, ...], ...] | None
    config: GameConfig | None = None


def view(state: GameState, player: int | None = None) -> PlayerView:
    """``state`` as seen by seat ``player``, or by a spectator when None."""
    own = None
    if player is not None and 0 <= player < len(state.hands):
        own = state.hands[player]
    return PlayerView(
        viewer=player,
        board=state.board,
        hand=own,
        hand_sizes=tuple(len(h) for h in state.hands),
        scores=state.scores,
        status=state.status,
        reserve_size=len(state.reserve),
        turn=state.turn,
        move_count=state.move_count,
        started=state.started,
        consecutive_passes=len(state.passed),
        result=state.result,
        hands=state.hands if state.result is not None else None,
        config=state.config,
    )


def _key(state: GameState, seat: int) -> tuple[int, int, int]:
    left = 0 if state.status[seat] == ACTIVE else 1
    winner = 0 if state.result is not None and seat in state.result.winners else 1
    if state.config.marque:
        return (left, winner, -state.scores[seat])
    return (left, winner, state.hand_value(seat))


def ranking(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Seats grouped by result, best first; a group holds seats that tie.

    Players still in the game come before those who left (R-END-4); then the
    winners; then, avec marque, the most points, sans marque, the least value
    left in hand (R-END-2). Works during the game too (the current standing).
    """
    seats = sorted(range(len(state.hands)), key=lambda s: (_key(state, s), s))
    groups: list[list[int]] = []
    last = None
    for seat in seats:
        key = _key(state, seat)
        if groups and key == last:
            groups[-1].append(seat)
        else:
            groups.append([seat])
        last = key
    return tuple(tuple(g) for g in groups)


def ranks(state: GameState) -> tuple[int, ...]:
    """Each seat's place (1 = best); tied seats share a place, as in 1, 1, 3."""
    places = [0] * len(state.hands)
    place = 1
    for group in ranking(state):
        for seat in group:
            places[seat] = place
        place += len(group)
    return tuple(places)
