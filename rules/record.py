"""Game records (RECORD.md, ``diamino-record/1``): read, judge and write.

A record holds the set-up, the deal and every move with the tiles it drew, so
a game replays the same way every time. ``judge`` replays one and reports each
move; ``write_record`` builds one from the moves the site stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rules.dictionary import WordList, word_list_from_data, word_list_to_data
from rules.engine import apply
from rules.errors import IllegalMove, RecordError, tiles_en, tiles_fr
from rules.material import TILE_CHARS, layout_from_data, layout_to_data, tiles_from_data
from rules.material import tiles_to_data as _tiles_to_data
from rules.setup import new_game, player_counts
from rules.state import (
    MODES,
    Event,
    Exchange,
    GameConfig,
    GameState,
    Move,
    Pass,
    Place,
    Resign,
    TilesDrawn,
    WordFormed,
)

FORMAT = "diamino-record/1"
ACTIONS = ("place", "exchange", "pass", "resign")


@dataclass(frozen=True, slots=True)
class Record:
    """A parsed record: configuration, player names, initial state, moves."""

    config: GameConfig
    players: tuple[str, ...]
    initial: GameState
    moves: tuple[Move, ...]
    reserve_given: bool = True
    """False when the record left the reserve out: then every draw must be named."""


def load_json(text: str | bytes) -> Any:
    """Parse JSON text; RecordError if it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"not a JSON document: {str(exc).splitlines()[0][:120]}") from None


def parse_record(document: Any, *, words: WordList | None = None) -> Record:
    """A Record from a parsed JSON document (or JSON text); RecordError if unusable.

    ``words``, when given, is used instead of loading the record's dictionary
    (the site passes the list it already holds).
    """
    if isinstance(document, str | bytes):
        document = load_json(document)
    if not isinstance(document, dict):
        raise RecordError("a record is a JSON object")
    if document.get("format") != FORMAT:
        raise RecordError(f'unknown format {_short(document.get("format"))}, expected "{FORMAT}"')
    mode = document.get("mode")
    if mode not in MODES:
        raise RecordError(f'unknown mode {_short(mode)}, expected "marque" or "sans-marque"')
    try:
        layout = layout_from_data(document.get("layout"))
        tiles = tiles_from_data(document.get("tiles", "classique"))
        if words is None:
            words = word_list_from_data(document.get("dictionary"))
    except (ValueError, RecursionError) as exc:
        raise RecordError(str(exc)) from None
    config = GameConfig(mode=mode, layout=layout, tiles=tiles, words=words)

    players = document.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names")
    if len(players) not in player_counts(mode):
        counts = player_counts(mode)
        raise RecordError(
            f"{mode} is played by {counts.start} to {counts.stop - 1} players, not {len(players)}"
        )
    hands = document.get("hands")
    if not isinstance(hands, list) or not all(isinstance(h, str) for h in hands):
        raise RecordError("hands must be a list of strings, one per player")
    if len(hands) != len(players):
        raise RecordError(f"{len(hands)} hands for {len(players)} players")
    reserve = document.get("reserve")
    if reserve is not None and not isinstance(reserve, str):
        raise RecordError("reserve must be a string")
    for where, text in [*(("a hand", h) for h in hands), ("the reserve", reserve or "")]:
        for tile in text:
            if tile not in TILE_CHARS or tile not in tiles.counts:
                raise RecordError(f"{where} holds {tile!r}, which is not a tile of the set")
    try:
        initial = new_game(config, hands, None if reserve is None else tuple(reserve))
    except ValueError as exc:
        raise RecordError(str(exc)) from None

    raw_moves = document.get("moves", [])
    if not isinstance(raw_moves, list):
        raise RecordError("moves must be a list")
    moves = tuple(_parse_move(k + 1, raw) for k, raw in enumerate(raw_moves))
    return Record(config, tuple(players), initial, moves, reserve is not None)


def _short(value: Any) -> str:
    return json.dumps(value)[:40] if _jsonable(value) else "?"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def _parse_move(number: int, raw: Any) -> Move:
    def bad(why: str) -> RecordError:
        return RecordError(f"move {number}: {why}")

    if not isinstance(raw, dict):
        raise bad("a move is a JSON object")
    player = raw.get("player")
    if type(player) is not int:
        raise bad("player must be a seat number")
    actions = [a for a in ACTIONS if a in raw]
    if len(actions) != 1:
        raise bad("a move has exactly one of place, exchange, pass, resign")
    draw = raw.get("draw")
    if draw is not None and not isinstance(draw, str):
        raise bad("draw must be a string")
    action = actions[0]
    value = raw[action]
    if action == "place":
        if not isinstance(value, list):
            raise bad("place must be a list of [square, letter]")
        tiles = []
        for pair in value:
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not all(isinstance(x, str) for x in pair)
            ):
                raise bad("place must be a list of [square, letter] strings")
            tiles.append((pair[0], pair[1]))
        returns = raw.get("returns", "")
        if not isinstance(returns, str):
            raise bad("returns must be a string")
        return Place(player, tuple(tiles), returns, draw)
    if action == "exchange":
        if not isinstance(value, str):
            raise bad("exchange must be a string of tiles")
        return Exchange(player, value, draw)
    if value is not True:
        raise bad(f"{action} must be true")
    if action == "pass":
        return Pass(player, draw)
    timeout = raw.get("timeout", False)
    if not isinstance(timeout, bool):
        raise bad("timeout must be true or false")
    return Resign(player, timeout, draw)


def _apply(record: Record, state: GameState, move: Move) -> tuple[GameState, tuple[Event, ...]]:
    new, events = apply(state, move)
    if not record.reserve_given and move.draw is None:
        drawn = "".join(e.tiles for e in events if isinstance(e, TilesDrawn))
        if drawn:
            rule = "R-EXCH-1" if isinstance(move, Exchange) else "R-PLACE-8"
            raise IllegalMove(
                "draw-missing",
                rule,
                f"La partie n’a pas de réserve\u00a0: dites ce que ce coup pioche "
                f"({tiles_fr(len(drawn))}, draw).",
                f"The record has no reserve: say which {tiles_en(len(drawn))} this move "
                "draws (draw).",
            )
    return new, events


def judge(record: Record) -> dict[str, Any]:
    """Replay ``record`` and report every move and the outcome (RECORD.md)."""
    state = record.initial
    entries: list[dict[str, Any]] = []
    for move in record.moves:
        try:
            state, events = _apply(record, state, move)
        except IllegalMove as exc:
            entries.append(
                {
                    "ok": False,
                    "rule": exc.rule,
                    "code": exc.code,
                    "message": exc.message_en,
                    "message_fr": exc.message_fr,
                }
            )
            continue
        entries.append(
            {
                "ok": True,
                "words": [e.word for e in events if isinstance(e, WordFormed)],
                "scores": list(state.scores),
                "hand_sizes": [len(h) for h in state.hands],
                "reserve": len(state.reserve),
            }
        )
    result = state.result
    return {
        "moves": entries,
        "over": result is not None,
        "end": None if result is None else result.end,
        "winners": [] if result is None else list(result.winners),
        "scores": list(state.scores),
        "hands": ["".join(h) for h in state.hands],
    }


def replay(record: Record) -> GameState:
    """The state after every legal move of ``record`` (illegal ones are skipped)."""
    state = record.initial
    for move in record.moves:
        try:
            state, _ = _apply(record, state, move)
        except IllegalMove:
            continue
    return state


def judge_document(document: Any) -> dict[str, Any]:
    """Parse and judge; RecordError if the document is unusable."""
    return judge(parse_record(document))


def move_to_data(move: Move, drawn: str | None = None) -> dict[str, Any]:
    """A move in record form; ``drawn`` (the tiles it drew) becomes ``draw``."""
    data: dict[str, Any] = {"player": move.player}
    if isinstance(move, Place):
        data["place"] = [[square, letter] for square, letter in move.tiles]
        if move.returns:
            data["returns"] = move.returns
    elif isinstance(move, Exchange):
        data["exchange"] = move.tiles
    elif isinstance(move, Pass):
        data["pass"] = True
    elif isinstance(move, Resign):
        data["resign"] = True
        if move.timeout:
            data["timeout"] = True
    else:
        raise TypeError(f"not a move: {move!r}")
    if drawn is None:
        drawn = move.draw
    if drawn is not None and isinstance(move, Place | Exchange):
        data["draw"] = drawn
    return data


def write_record(
    config: GameConfig,
    players: Sequence[str],
    hands: Sequence[Sequence[str]],
    moves: Sequence[tuple[Move, str | None]],
    reserve: Sequence[str] | None = None,
) -> dict[str, Any]:
    """A record document (a JSON-able dict) from the deal and the moves played.

    ``moves`` pairs each move with the tiles it drew (None to leave ``draw``
    out and draw from the top of ``reserve`` when replaying).
    """
    document: dict[str, Any] = {
        "format": FORMAT,
        "mode": config.mode,
        "layout": layout_to_data(config.layout),
        "tiles": _tiles_to_data(config.tiles),
        "dictionary": word_list_to_data(config.words),
        "players": list(players),
        "hands": ["".join(h) for h in hands],
    }
    if reserve is not None:
        document["reserve"] = "".join(reserve)
    document["moves"] = [move_to_data(move, drawn) for move, drawn in moves]
    return document
