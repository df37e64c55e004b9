"""Applying a move: ``apply(state, move) -> (new_state, events)``.

The engine is deterministic given the draws: tiles come from the top of the
reserve, or exactly the tiles a move's ``draw`` names, or (live play, with an
``rng``) tiles picked at random anywhere in it; tiles given back go to the
bottom. Drawing at random is the shuffle of R-EXCH-1 and R-PLACE-8.
"""

from __future__ import annotations

import random
from dataclasses import replace

from rules.errors import IllegalMove, tiles_en, tiles_fr
from rules.material import DIABLE, TILE_CHARS
from rules.placement import Placement, check_placement
from rules.state import (
    ACTIVE,
    RESIGNED,
    TIMED_OUT,
    Event,
    Exchange,
    GameOver,
    GameResult,
    GameState,
    Move,
    Pass,
    Passed,
    Place,
    PointsScored,
    Resign,
    Resigned,
    SquareCovered,
    TilesDrawn,
    TilesPlaced,
    TilesReturned,
    WordFormed,
)

MARQUE_HAND = 12
GREEN_PENALTY_POINTS = 5
RED_BONUS_POINTS = 10
FIN_DE_PARTIE = 25
FIN_DE_PARTIE_BLACK = 50


def apply(
    state: GameState, move: Move, *, rng: random.Random | None = None
) -> tuple[GameState, tuple[Event, ...]]:
    """Play ``move`` on ``state``; return the new state and what happened.

    Raises IllegalMove (and changes nothing) if the rules forbid the move.
    """
    if state.result is not None:
        raise IllegalMove("game-over", "R-END-1", "La partie est terminée.", "The game is over.")
    if isinstance(move, Place):
        return _place(state, move, rng)
    if isinstance(move, Exchange):
        return _exchange(state, move, rng)
    if isinstance(move, Pass):
        return _pass(state, move)
    if isinstance(move, Resign):
        return _resign(state, move)
    raise TypeError(f"not a move: {move!r}")


def legal(state: GameState, move: Move) -> bool:
    """True if ``move`` may be played on ``state``."""
    try:
        apply(state, move)
    except IllegalMove:
        return False
    return True


# --- helpers ---------------------------------------------------------------


def _check_player(state: GameState, player: object, *, turn: bool = True) -> None:
    if type(player) is not int or not 0 <= player < len(state.hands):
        raise IllegalMove(
            "not-in-game",
            "R-END-4",
            f"Il n’y a pas de joueur {player!s:.10} dans cette partie.",
            f"There is no player {player!s:.10} in this game.",
        )
    if state.status[player] != ACTIVE:
        raise IllegalMove(
            "not-in-game",
            "R-END-4",
            "Vous avez quitté cette partie.",
            "You have left this game.",
        )
    if turn and state.turn != player:
        raise IllegalMove(
            "not-your-turn",
            "R-TURN-1",
            "Ce n’est pas votre tour.",
            "It is not your turn.",
        )


def _next_turn(status: tuple[str, ...], player: int) -> int:
    n = len(status)
    for step in range(1, n + 1):
        seat = (player + step) % n
        if status[seat] == ACTIVE:
            return seat
    return player


def _take(
    reserve: list[str], count: int, draw: str | None, rule: str, rng: random.Random | None
) -> str:
    """Remove ``count`` tiles from ``reserve``: exactly ``draw`` when given, else
    tiles picked at random by ``rng``, else the top ones.

    Picking at random from the reserve is the live game's shuffle: the drawn
    tiles are recorded, and replaying them (``draw``) leaves the reserve in
    exactly the same order, so a game's state is always its moves replayed.
    """
    if draw is None and rng is not None:
        # Pick the letters at random, then take each one's first copy, exactly
        # as a replay of ``draw`` does: equal tiles are interchangeable.
        draw = "".join(reserve[i] for i in rng.sample(range(len(reserve)), count))
    if draw is None:
        taken = reserve[:count]
        del reserve[:count]
        return "".join(taken)
    if not isinstance(draw, str) or len(draw) != count:
        given = len(draw) if isinstance(draw, str) else 0
        raise IllegalMove(
            "draw-count",
            rule,
            f"Ce coup pioche {tiles_fr(count)}, pas {given}.",
            f"This move draws {tiles_en(count)}, not {given}.",
        )
    for tile in draw:
        try:
            reserve.remove(tile)
        except ValueError:
            raise IllegalMove(
                "draw-not-in-reserve",
                rule,
                f"La réserve ne contient pas la lettre {tile} piochée.",
                f"The reserve does not hold the drawn tile {tile}.",
            ) from None
    return draw


def _without(hand: tuple[str, ...], tiles: str, code: str, rule: str) -> list[str]:
    """``hand`` minus ``tiles``; IllegalMove(code) if a tile is missing."""
    rest = list(hand)
    verb_fr, verb_en = (
        ("à rendre", "to give back") if code == "returns" else ("à échanger", "to exchange")
    )
    for tile in tiles:
        if tile not in TILE_CHARS or tile not in rest:
            shown_fr, shown_en = ("diable", "joker") if tile == DIABLE else (tile, tile)
            raise IllegalMove(
                code,
                rule,
                f"Vous n’avez pas de {shown_fr} en main {verb_fr}.",
                f"You have no {shown_en} in your hand {verb_en}.",
            )
        rest.remove(tile)
    return rest


def _no_draw(move: Pass | Resign, rule: str) -> None:
    if move.draw:
        _take([], 0, move.draw, rule, None)


# --- place -----------------------------------------------------------------


def _place(
    state: GameState, move: Place, rng: random.Random | None
) -> tuple[GameState, tuple[Event, ...]]:
    player = move.player
    _check_player(state, player)
    placement = check_placement(state, move)
    config = state.config
    marque = config.marque
    layout = config.layout
    hand = list(placement.hand_after)
    reserve = list(state.reserve)
    returns = move.returns

    if not isinstance(returns, str):
        returns = ""
    owed = _owed(state, placement)
    if len(returns) != owed:
        if marque:
            fr = "Dans le jeu avec marque, les diables rouges rapportent 10 points\u00a0: ne rendez rien."
            en = "In the scored game red devils give 10 points: give nothing back."
        else:
            fr = f"Rendez exactement {tiles_fr(owed)} de votre main pour les diables rouges."
            en = f"Give back exactly {tiles_en(owed)} from your hand for the red devils."
        raise IllegalMove("returns", "R-PLACE-7", fr, en)
    if returns:
        hand = _without(tuple(hand), returns, "returns", "R-PLACE-7")
        reserve.extend(returns)

    penalty = 0 if marque else min(len(placement.green), len(reserve))
    refill = min(max(0, MARQUE_HAND - len(hand)), len(reserve)) if marque else 0
    drawn = _take(reserve, penalty + refill, move.draw, "R-PLACE-8", rng)
    hand.extend(drawn)

    events: list[Event] = [TilesPlaced(player, tuple((sq, ch) for sq, ch in move.tiles))]
    events.extend(
        WordFormed(player, word, layout.name_of(start), across, k == 0)
        for k, (word, start, across) in enumerate(placement.words)
    )
    scores = list(state.scores)
    status = state.status
    for index in placement.green:
        effect = "others-plus-5" if marque else "penalty-draw"
        events.append(SquareCovered(player, layout.name_of(index), "green", effect))
    for index in placement.red:
        effect = "plus-10" if marque else "return"
        events.append(SquareCovered(player, layout.name_of(index), "red", effect))
    for index in placement.black:
        effect = "fin-de-partie-50" if marque else "double"
        events.append(SquareCovered(player, layout.name_of(index), "black", effect))
    if returns:
        events.append(TilesReturned(player, returns, "red-devil"))
    if drawn:
        events.append(TilesDrawn(player, drawn, "refill" if marque else "penalty"))
    if marque:
        if placement.red:
            points = RED_BONUS_POINTS * len(placement.red)
            scores[player] += points
            events.append(PointsScored(player, points, "red-devil"))
        if placement.green:
            points = GREEN_PENALTY_POINTS * len(placement.green)
            for seat, seat_status in enumerate(status):
                if seat != player and seat_status == ACTIVE:
                    scores[seat] += points
                    events.append(PointsScored(seat, points, "green-devil"))

    hands = list(state.hands)
    hands[player] = tuple(hand)
    new = replace(
        state,
        board=placement.board,
        hands=tuple(hands),
        reserve=tuple(reserve),
        scores=tuple(scores),
        turn=_next_turn(status, player),
        passed=(),
        move_count=state.move_count + 1,
        started=True,
    )
    if not hand:
        new = _finish(new, "out", player, bool(placement.black), events)
    return new, tuple(events)


# --- exchange, pass, resign --------------------------------------------------


def _exchange(
    state: GameState, move: Exchange, rng: random.Random | None
) -> tuple[GameState, tuple[Event, ...]]:
    player = move.player
    _check_player(state, player)
    tiles = move.tiles
    if not isinstance(tiles, str) or not tiles:
        raise IllegalMove(
            "exchange-empty",
            "R-EXCH-1",
            "Choisissez au moins une lettre à échanger.",
            "Choose at least one tile to exchange.",
        )
    hand = _without(state.hands[player], tiles, "not-in-hand", "R-HAND-1")
    if len(state.reserve) < len(tiles):
        raise IllegalMove(
            "reserve-too-small",
            "R-EXCH-1",
            f"La réserve n’a que {tiles_fr(len(state.reserve))}\u00a0: échangez-en moins.",
            f"The reserve holds only {tiles_en(len(state.reserve))}: exchange fewer.",
        )
    reserve = list(state.reserve)
    drawn = _take(reserve, len(tiles), move.draw, "R-EXCH-1", rng)
    reserve.extend(tiles)
    hand.extend(drawn)
    hands = list(state.hands)
    hands[player] = tuple(hand)
    new = replace(
        state,
        hands=tuple(hands),
        reserve=tuple(reserve),
        turn=_next_turn(state.status, player),
        passed=(),
        move_count=state.move_count + 1,
    )
    return new, (TilesReturned(player, tiles, "exchange"), TilesDrawn(player, drawn, "exchange"))


def _pass(state: GameState, move: Pass) -> tuple[GameState, tuple[Event, ...]]:
    player = move.player
    _check_player(state, player)
    _no_draw(move, "R-PASS-1")
    passed = (*state.passed, player)
    new = replace(
        state,
        turn=_next_turn(state.status, player),
        passed=passed,
        move_count=state.move_count + 1,
    )
    events: list[Event] = [Passed(player)]
    if set(new.active_players()) <= set(passed):
        new = _finish(new, "blocked", None, False, events)
    return new, tuple(events)


def _resign(state: GameState, move: Resign) -> tuple[GameState, tuple[Event, ...]]:
    player = move.player
    _check_player(state, player, turn=False)
    _no_draw(move, "R-END-4")
    status = list(state.status)
    status[player] = TIMED_OUT if move.timeout else RESIGNED
    status_t = tuple(status)
    turn = _next_turn(status_t, player) if state.turn == player else state.turn
    new = replace(state, status=status_t, turn=turn, move_count=state.move_count + 1)
    events: list[Event] = [Resigned(player, bool(move.timeout))]
    active = new.active_players()
    if len(active) == 1:
        new = _finish(new, "last-player", active[0], False, events)
    elif set(active) <= set(new.passed):
        new = _finish(new, "blocked", None, False, events)
    return new, tuple(events)


# --- end of the game -------------------------------------------------------


def _finish(
    state: GameState, end: str, player: int | None, black: bool, events: list[Event]
) -> GameState:
    """Score the end (R-END-2, R-END-3) and mark the game over."""
    n = len(state.hands)
    values = [state.hand_value(i) for i in range(n)]
    scores = list(state.scores)
    others = sum(v for i, v in enumerate(values) if i != player)

    def score(seat: int, points: int, reason: str) -> None:
        if points:
            scores[seat] += points
            events.append(PointsScored(seat, points, reason))

    if not state.config.marque:
        if player is None:  # blocked: no winner and no score
            winners: tuple[int, ...] = ()
        else:
            score(player, others * (2 if black else 1), "others-tiles")
            winners = (player,)
    else:
        if end == "out" and player is not None:
            score(player, FIN_DE_PARTIE_BLACK if black else FIN_DE_PARTIE, "fin-de-partie")
            score(player, others, "others-tiles")
        for seat in range(n):
            if seat != player or end != "out":
                score(seat, -values[seat], "own-tiles")
        if end == "last-player" and player is not None:
            winners = (player,)
        else:
            active = state.active_players()
            best = max(scores[i] for i in active)
            winners = tuple(i for i in active if scores[i] == best)
    result = GameResult(
        end=end,  # type: ignore[arg-type]
        winners=winners,
        scores=tuple(scores),
        out_player=player,
        black_square=black,
    )
    events.append(GameOver(result))
    return replace(state, scores=tuple(scores), result=result)


def returns_owed(state: GameState, move: Place) -> int:
    """How many tiles ``move`` must give back for red devils (R-PLACE-7).

    Sans marque only: one per red devil covered, at most the tiles left in
    hand once the placement is on the board. Raises IllegalMove if the
    placement itself is illegal.
    """
    return _owed(state, check_placement(state, move))


def _owed(state: GameState, placement: Placement) -> int:
    if state.config.marque:
        return 0
    return min(len(placement.red), len(placement.hand_after))
