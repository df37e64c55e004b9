"""The bridge between a Game row and the rules engine.

Everything the site asks of ``rules/`` goes through here: the configuration a
game was created with, the start, playing and previewing a move, the record,
and replaying the stored moves. Nothing here decides a rule.
"""

from __future__ import annotations

import random
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


def preview(game: Game, position: int, move: rules.Move, lang: str) -> Any:
    """Judge ``move`` for the player at ``position`` without saving anything."""
    return preview_state(state_of(game), position, move, lang)


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


def record_of(game: Game) -> dict[str, Any]:
    """The game record (RECORD.md): the deal and every move with what it drew."""
    config = config_of(game)
    if game.setup is None:
        raise ValueError(f"game {game.pk} has not started: it has no record")
    seats = sorted(game.seats.select_related("player"), key=lambda s: s.drawn_position)
    document = rules_record.write_record(
        config,
        [s.player.username for s in seats],
        game.setup["hands"],
        [],
        reserve=game.setup["reserve"],
    )
    document["moves"] = list(game.moves.order_by("number").values_list("record", flat=True))
    return document


def replay(game: Game) -> list[rules.GameState]:
    """Every state from the deal to the last move, replaying the stored moves.

    Raises IllegalMove if a stored move is not legal: the game is corrupt.
    """
    parsed = rules_record.parse_record(record_of(game))
    states = [parsed.initial]
    for move in parsed.moves:
        state, _events = rules.apply(states[-1], move)
        states.append(state)
    return states


def check_word(text: str) -> wordlist.CheckResult:
    """ "Vérifier un mot": the folded word and whether the current list has it."""
    return wordlist.check(text)
