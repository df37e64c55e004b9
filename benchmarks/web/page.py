"""What a simulated player reads off its game page, and the move it then chooses.

A real player sees the board, their own hand, the others' hand sizes and the
reserve's size; the page shows exactly that (R-HIDE-1). The load generator
reads the same things out of the HTML and rebuilds a position from them, with
placeholder tiles standing for what it cannot see (the other hands and the
reserve). None of the placeholders can change whether the player's own
placement, exchange or pass is legal, so ``rules.randomplay.find_move`` on that
position finds a move the server will accept: the server is never given a hint
and the client never reads the database.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from rules import Exchange, GameConfig, GameState, Move, Pass, Place, make_config
from rules.randomplay import find_move
from rules.state import ACTIVE, EMPTY

# Stands for a tile the player cannot see; any letter of the set would do.
UNSEEN = "E"

_AREA = re.compile(r'<div id="game-area"(.*?)>', re.S)
_ATTR = re.compile(r'data-([a-z-]+)="([^"]*)"')
_SINCE = re.compile(r'hx-get="[^"]*\?since=([^"&]+)"')
_CELL = re.compile(r'<div role="gridcell"([^>]*)>(.*?)</div>', re.S)
_HAND = re.compile(r'class="tile hand-tile[^"]*" data-index="\d+" data-letter="(.)"')
_SEAT = re.compile(r'<li class="seat status-([a-z-]+)([^"]*)">')
_HAND_SIZE = re.compile(r'<dl class="seat-facts">\s*<div><dt>[^<]*</dt><dd>(\d+)</dd>')
_RESERVE = re.compile(r'<p class="reserve">\s*(\d+)')
_CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"')
_PREVIEW_OK = re.compile(r'id="preview" class="[^"]*" data-ok="(true|false)"')
_MOVE_ERROR = re.compile(r'<div id="move-error" class="move-error" role="alert">')


class PageError(ValueError):
    """The page does not look like a game page: the server answered something else."""


@dataclass(frozen=True)
class Seen:
    """One player's view of the game, as the page shows it."""

    version: int  # the move counter the page was built at
    mode: str
    my_turn: bool
    over: bool
    board: dict[str, str]  # square -> letter; lower case for a diable
    hand: tuple[str, ...]
    my_position: int | None
    hand_sizes: tuple[int, ...]
    statuses: tuple[str, ...]
    reserve_size: int
    csrf_token: str | None  # only the full page carries it (on <body>)
    # What the page's poll sends (``?since=``: the game's live token). Its ``&chat=``
    # (the chat's count) is left out: the bench's players do not chat.
    since: str = ""


def read(html: str) -> Seen:
    """The page (or its ``#game_area`` fragment) as a player sees it."""
    area = _AREA.search(html)
    if area is None:
        raise PageError("no game area in the answer")
    data = dict(_ATTR.findall(area.group(1)))
    board: dict[str, str] = {}
    for attributes, inner in _CELL.findall(html):
        cell = dict(_ATTR.findall(attributes))
        letter = cell.get("letter")
        if letter:
            board[cell["square"]] = letter.lower() if "is-diable" in inner else letter
    seats = _SEAT.findall(html)
    me = next((k for k, (_status, flags) in enumerate(seats) if "is-me" in flags), None)
    reserve = _RESERVE.search(html)
    token = _CSRF.search(html)
    since = _SINCE.search(area.group(1))
    return Seen(
        version=int(data["version"]),
        mode=data["mode"],
        my_turn=data["my-turn"] == "true",
        over=data["over"] == "true",
        board=board,
        hand=tuple(_HAND.findall(html)),
        my_position=me,
        hand_sizes=tuple(int(n) for n in _HAND_SIZE.findall(html)),
        statuses=tuple(status for status, _flags in seats),
        reserve_size=int(reserve.group(1)) if reserve else 0,
        csrf_token=token.group(1) if token else None,
        since=since.group(1) if since else data["version"],
    )


@cache
def config_for(mode: str) -> GameConfig:
    """The bench games' configuration: classique board and tiles, the French list."""
    return make_config(mode, "classique", "classique", "fr")


def position(seen: Seen) -> GameState:
    """A position consistent with everything the player sees, to look for a move in."""
    if seen.my_position is None:
        raise PageError("the page shows no hand: the player is not seated")
    config = config_for(seen.mode)
    layout = config.layout
    board = [EMPTY] * (layout.width * layout.height)
    for square, letter in seen.board.items():
        board[layout.index(square)] = letter
    hands = tuple(
        seen.hand if k == seen.my_position else (UNSEEN,) * size
        for k, size in enumerate(seen.hand_sizes)
    )
    return GameState(
        config=config,
        board="".join(board),
        hands=hands,
        reserve=(UNSEEN,) * seen.reserve_size,
        scores=(0,) * len(hands),
        status=seen.statuses or (ACTIVE,) * len(hands),
        turn=seen.my_position,
        passed=(),
        move_count=seen.version,
        started=bool(seen.board),
    )


def choose(seen: Seen, rng: random.Random) -> Move:
    """A legal move for the player, found on what the page shows."""
    return find_move(position(seen), rng)


def form_fields(move: Move, version: int) -> dict[str, str]:
    """The fields the page's move form posts for ``move``."""
    if isinstance(move, Place):
        return {
            "version": str(version),
            "action": "place",
            "placements": ",".join(f"{square}={letter}" for square, letter in move.tiles),
            "returns": move.returns,
        }
    if isinstance(move, Exchange):
        return {"version": str(version), "action": "exchange", "exchange": move.tiles}
    if isinstance(move, Pass):
        return {"version": str(version), "action": "pass"}
    raise ValueError(f"a player does not post {move!r} through the move form")


def preview_ok(html: str) -> bool:
    """The preview fragment says the placement is legal."""
    match = _PREVIEW_OK.search(html)
    return match is not None and match.group(1) == "true"


def move_refused(html: str) -> bool:
    """The answer to a move carries an error (htmx shows a refusal, even 409, with a 200)."""
    return _MOVE_ERROR.search(html) is not None
