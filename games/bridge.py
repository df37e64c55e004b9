"""The bridge between a Game row and the rules engine.

Everything the site asks of ``rules/`` goes through here: the configuration a
game was created with, the start, playing and previewing a move, the record,
and replaying the stored moves. Nothing here decides a rule.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from django.utils.translation import gettext as _

import rules
from games.models import Game
from rules import record as rules_record
from rules import wordlist
from rules.engine import returns_owed


@dataclass(frozen=True)
class Preview:
    """What a placement would do, judged without saving (``services.move_preview``)."""

    ok: bool
    words: tuple[str, ...] = ()
    devils: tuple[str, ...] = ()
    points: int = 0
    # The points depend on hands the player may not see: ``points`` is 0, not the figure.
    points_hidden: bool = False
    goes_out: bool = False
    returns_needed: int = 0
    message: str = ""
    rule: str = ""
    code: str = ""


@lru_cache(maxsize=64)
def _config(mode: str, layout: str, tiles: str, word_list: str) -> rules.GameConfig:
    return rules.make_config(mode, layout, tiles, word_list)


def config_of(game: Game) -> rules.GameConfig:
    """The engine configuration fixed when ``game`` was created (R-DICT-1)."""
    return _config(game.mode, game.layout, game.tiles, game.word_list)


def current_word_list_id() -> str:
    """The id new games are created with (e.g. ``fr-1``); old ids stay loadable."""
    return wordlist.resolve("fr")


def state_of(game: Game) -> rules.GameState:
    if game.state is None:
        raise ValueError(f"game {game.pk} has not started: it has no state")
    return rules.state_from_dict(game.state, config_of(game))


@dataclass(frozen=True)
class Started:
    draw: rules.FirstPlayerDraw
    rotation: tuple[int, ...]  # joined-order index of the player at each position
    state: rules.GameState
    setup: dict[str, Any]  # {"hands": [...], "reserve": "..."} in position order


def start(game: Game, n_players: int, rng: random.Random, *, draw_first: bool = True) -> Started:
    """First-player draw (R-SETUP-1), then the deal (R-SETUP-4) in play order.

    ``draw_first=False``: no draw, the seats play in the order they were taken
    (an organised game whose organiser decides who moves first: a league's
    schedule balances it, ``leagues/``); the draw recorded is then empty.
    """
    config = config_of(game)
    if draw_first:
        draw = rules.draw_first_player(config.tiles, n_players, rng)
    else:
        draw = rules.FirstPlayerDraw((), 0)
    rotation = rules.seat_rotation(draw.first, n_players)
    hands, reserve = rules.deal(config, n_players, rng)
    state = rules.new_game(config, hands, reserve)
    setup = {"hands": ["".join(h) for h in hands], "reserve": "".join(reserve)}
    return Started(draw, rotation, state, setup)


@dataclass(frozen=True)
class Played:
    kind: str
    state: rules.GameState
    summary: rules.MoveSummary
    record: dict[str, Any]
    notation: str


def _kind(move: rules.Move) -> str:
    if isinstance(move, rules.Place):
        return "place"
    if isinstance(move, rules.Exchange):
        return "exchange"
    if isinstance(move, rules.Pass):
        return "pass"
    return "timeout" if move.timeout else "resign"


def play(game: Game, move: rules.Move, rng: random.Random) -> Played:
    """Apply ``move`` to the game's state; IllegalMove if the rules forbid it."""
    before = state_of(game)
    state, events = rules.apply(before, move, rng=rng)
    summary = rules.summarize(events, before.n_players)
    notation = rules.format_notation(rules.notate(before, move))
    drawn = summary.drawn if isinstance(move, rules.Place | rules.Exchange) else None
    record = rules_record.move_to_data(move, drawn)
    return Played(_kind(move), state, summary, record, notation)


def with_player(move: rules.Move, position: int) -> rules.Move:
    """``move`` made by the player at ``position`` (forms build moves without a seat)."""
    return replace(move, player=position)


def queued_notation(state: rules.GameState, move: rules.Place) -> str:
    """The notation of a queued placement as if played on ``state``; its squares and
    letters (``H8=C I8=H``) while it is not legal there."""
    try:
        return rules.format_notation(rules.notate(state, move))
    except rules.IllegalMove:
        return " ".join(f"{square}={letter}" for square, letter in move.tiles)


def describe_devils(
    events: tuple[rules.Event, ...], marque: bool, owed: int = 0
) -> tuple[str, ...]:
    """What each special square covered does, in the active language.

    ``owed``: the tiles the move gives back (sans marque); a red devil beyond
    them asks for nothing, the hand being empty (R-PLACE-7).
    """
    texts = {
        ("red", True): _("Red devil on %(square)s: +10 points"),
        ("red", False): _("Red devil on %(square)s: give back one tile"),
        ("red-free", False): _("Red devil on %(square)s: nothing to give back, your hand is empty"),
        ("green", True): _("Green devil on %(square)s: +5 points to each other player"),
        ("green", False): _("Green devil on %(square)s: draw one more tile"),
        ("black", True): _("Black square on %(square)s: fin de partie doubled to 50"),
        ("black", False): _("Black square on %(square)s: your winnings doubled"),
    }
    described = []
    for event in events:
        if not isinstance(event, rules.SquareCovered):
            continue
        kind = event.kind
        if kind == "red" and not marque:
            kind, owed = ("red", owed - 1) if owed else ("red-free", 0)
        described.append(texts[(kind, marque)] % {"square": event.square})
    return tuple(described)


def _returns_owed(state: rules.GameState, move: rules.Move) -> int:
    if not isinstance(move, rules.Place):
        return 0
    try:
        return returns_owed(state, move)
    except rules.IllegalMove:
        return 0  # apply() reports the placement's own mistake


def preview(
    game: Game, position: int, move: rules.Move, lang: str, *, as_if_to_move: bool = False
) -> Any:
    """Judge ``move`` for the player at ``position`` without saving anything.

    ``as_if_to_move``: judged as if it were their turn now (a move being queued
    while another player is to move: what it would do on this board).
    """
    state = state_of(game)
    if as_if_to_move:
        state = replace(state, turn=position)
    return preview_state(state, position, move, lang)


def preview_state(state: rules.GameState, position: int, move: rules.Move, lang: str) -> Preview:
    """Judge ``move`` on ``state`` (no game row: the guided game's positions too)."""
    move = with_player(move, position)
    owed = _returns_owed(state, move)
    try:
        after, events = rules.apply(state, move)
    except rules.IllegalMove as exc:
        if exc.code == "returns" and owed:
            return Preview(ok=False, returns_needed=owed, message=exc.message(lang), code=exc.code)
        return Preview(ok=False, message=exc.message(lang), rule=exc.rule, code=exc.code)
    summary = rules.summarize(events, state.n_players)
    goes_out = after.result is not None and after.result.out_player == position
    # Going out scores the value of the other hands (R-END-2, R-END-3). The
    # player can work it out only once the reserve is empty (the tiles they do
    # not see are then exactly the other hands); before that the figure would
    # tell them what R-HIDE-1 keeps hidden. Avec marque nobody goes out before
    # the reserve is empty (the refill), sans marque anyone can.
    points_hidden = goes_out and len(state.reserve) > 0
    return Preview(
        ok=True,
        words=summary.words,
        devils=describe_devils(events, state.config.marque, owed),
        points=0 if points_hidden else summary.points[position],
        points_hidden=points_hidden,
        goes_out=goes_out,
        returns_needed=owed,
    )


# --- records and replays ----------------------------------------------------------


def record_of(game: Game, seats: Sequence[Any] | None = None) -> dict[str, Any]:
    """The game record (RECORD.md): the deal and every move with what it drew.

    ``seats``: the game's seats with their players, when the caller has them.
    """
    document = _deal_record(game, seats)
    document["moves"] = list(game.moves.order_by("number").values_list("record", flat=True))
    return document


def _deal_record(game: Game, seats: Sequence[Any] | None) -> dict[str, Any]:
    """The record's deal and players, with no move yet."""
    config = config_of(game)
    if game.setup is None:
        raise ValueError(f"game {game.pk} has not started: it has no record")
    found = game.seats.select_related("player") if seats is None else seats
    ordered = sorted(found, key=lambda s: s.drawn_position)
    return rules_record.write_record(
        config,
        [s.player.username for s in ordered],
        game.setup["hands"],
        [],
        reserve=game.setup["reserve"],
    )


@dataclass(frozen=True)
class Replayed:
    """A game's stored moves replayed by the engine from its deal (``replayed``)."""

    moves: list[rules.Move]  # every stored move, as the engine reads it
    states: list[rules.GameState]  # the deal, then the state after each legal move
    summaries: list[rules.MoveSummary]  # what each legal move did
    refused: rules.IllegalMove | None  # the first stored move the engine refused, if any


def replayed(
    game: Game, records: Iterable[dict[str, Any]], seats: Sequence[Any] | None = None
) -> Replayed:
    """``game`` replayed from its deal through ``records`` (its stored moves, in order).

    A move the engine refuses (a corrupt game, which the staff's check reports)
    ends the replay there: the states before it can still be shown. The one
    place the stored moves are replayed: the players' replay, the staff's and
    ``replay`` below all come here.
    """
    document = _deal_record(game, seats)
    document["moves"] = list(records)
    parsed = rules_record.parse_record(document, words=config_of(game).words)
    states = [parsed.initial]
    summaries: list[rules.MoveSummary] = []
    for move in parsed.moves:
        try:
            state, events = rules.apply(states[-1], move)
        except rules.IllegalMove as exc:
            return Replayed(list(parsed.moves), states, summaries, exc)
        states.append(state)
        summaries.append(rules.summarize(events, state.n_players))
    return Replayed(list(parsed.moves), states, summaries, None)


def replay(game: Game) -> list[rules.GameState]:
    """Every state from the deal to the last move, replaying the stored moves.

    Raises IllegalMove if a stored move is not legal: the game is corrupt.
    """
    run = replayed(game, game.moves.order_by("number").values_list("record", flat=True))
    if run.refused is not None:
        raise run.refused
    return run.states


def check_word(text: str) -> wordlist.CheckResult:
    """ "Vérifier un mot": the folded word and whether the current list has it."""
    return wordlist.check(text)
