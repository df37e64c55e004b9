"""Rules-engine timings: judging one placement, and replaying whole games.

Only ``rules.apply`` is timed. Positions and games are produced beforehand with
the random move finder (``rules.randomplay.find_move``), whose search
is never inside a timed region.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, replace

from rules import (
    Exchange,
    GameConfig,
    GameState,
    IllegalMove,
    Move,
    Pass,
    Place,
    TilesDrawn,
    WordFormed,
    apply,
    deal,
    make_config,
    new_game,
)
from rules.material import LETTERS
from rules.randomplay import find_move
from rules.state import EMPTY

SEED = 2024
MIDGAME_PLACEMENTS = 18  # placements played before the judged one
JUDGE_REPEATS = 10_000
GAMES_PER_TABLE = 12
GAME_MOVE_CAP = 60  # find_move turns per game; then every player passes (R-PASS)
REPLAY_ROUNDS = 10
# (mode, players): the smallest and largest tables each mode allows, and one between.
TABLES: tuple[tuple[str, int], ...] = (
    ("marque", 2),
    ("marque", 4),
    ("sans-marque", 2),
    ("sans-marque", 4),
    ("sans-marque", 8),
)


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p99_ms: float
    repeats: int


@dataclass(frozen=True)
class Judged:
    legal: Timing
    illegal: Timing
    illegal_code: str
    placement: str
    words: str
    board_tiles: int
    moves_before: int


@dataclass(frozen=True)
class GamesResult:
    mode: str
    players: int
    games: int
    rounds: int
    moves_per_game: float
    placements_per_game: float
    exchanges_per_game: float
    median_ms_per_game: float
    games_per_second: float
    ms_per_move: float
    played_per_second: float  # whole random games, finder and engine together


@dataclass(frozen=True)
class RecordedGame:
    start: GameState
    moves: tuple[Move, ...]
    final: GameState


def _timing(samples_ns: list[int]) -> Timing:
    ms = sorted(s / 1e6 for s in samples_ns)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return Timing(statistics.median(ms), p99, len(ms))


def _fresh(config: GameConfig, rng: random.Random, players: int = 2) -> GameState:
    hands, reserve = deal(config, players, rng)
    return new_game(config, hands, reserve)


def midgame(config: GameConfig, rng: random.Random) -> tuple[GameState, int]:
    """A position after ``MIDGAME_PLACEMENTS`` random placements (exchanges in between)."""
    state = _fresh(config, rng)
    placements = moves = 0
    while placements < MIDGAME_PLACEMENTS and state.result is None and moves < 400:
        move = find_move(state, rng)
        state, _ = apply(state, move, rng=rng)
        moves += 1
        placements += isinstance(move, Place)
    return state, moves


def _pick_legal(state: GameState, rng: random.Random) -> Place:
    """The first placement find_move offers, preferring one of two tiles or more."""
    fallback: Place | None = None
    for _ in range(200):
        move = find_move(state, rng)
        if isinstance(move, Place):
            if len(move.tiles) >= 2:
                return move
            fallback = fallback or move
    if fallback is None:
        raise RuntimeError("no legal placement found on the mid-game board")
    return fallback


def _pick_illegal(state: GameState, legal: Place) -> tuple[Place, str]:
    """``legal`` with one letter changed so that it is rejected as not a word (R-PLACE-4),
    the rejection that runs every other check first."""
    hand = set(state.hands[legal.player])
    for k, (square, letter) in enumerate(legal.tiles):
        for other in LETTERS:
            if other == letter.upper() or other not in hand:
                continue
            tiles = list(legal.tiles)
            tiles[k] = (square, other)
            move = replace(legal, tiles=tuple(tiles))
            try:
                apply(state, move)
            except IllegalMove as error:
                if error.code == "not-a-word":
                    return move, error.code
    # Fall back on any rejection: the same tiles on an occupied square.
    occupied = next(i for i, c in enumerate(state.board) if c != EMPTY)
    square = state.config.layout.name_of(occupied)
    move = replace(legal, tiles=((square, legal.tiles[0][1]),))
    try:
        apply(state, move)
    except IllegalMove as error:
        return move, error.code
    raise RuntimeError("could not build an illegal placement")


def _time_apply(state: GameState, move: Move, repeats: int) -> Timing:
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        start = clock()
        try:  # noqa: SIM105 - a plain try costs less than contextlib.suppress here
            apply(state, move)
        except IllegalMove:
            pass
        samples.append(clock() - start)
    return _timing(samples)


def judge_one() -> Judged:
    config = make_config("marque", words="fr")
    rng = random.Random(SEED)
    state, moves_before = midgame(config, rng)
    legal = _pick_legal(state, rng)
    _, events = apply(state, legal)  # must not raise
    words = ", ".join(e.word for e in events if isinstance(e, WordFormed))
    illegal, code = _pick_illegal(state, legal)
    for move in (legal, illegal):  # warm-up
        _time_apply(state, move, 200)
    return Judged(
        legal=_time_apply(state, legal, JUDGE_REPEATS),
        illegal=_time_apply(state, illegal, JUDGE_REPEATS),
        illegal_code=code,
        placement=" ".join(f"{sq}{ch}" for sq, ch in legal.tiles),
        words=words,
        board_tiles=sum(1 for c in state.board if c != EMPTY),
        moves_before=moves_before,
    )


def record_game(config: GameConfig, rng: random.Random, players: int = 2) -> RecordedGame:
    """A random game to its end, each move carrying the tiles it drew (``draw=``)."""
    start = state = _fresh(config, rng, players)
    moves: list[Move] = []
    while state.result is None:
        move = find_move(state, rng) if len(moves) < GAME_MOVE_CAP else Pass(state.turn)
        state, events = apply(state, move, rng=rng)
        if isinstance(move, Place | Exchange):
            drawn = "".join(e.tiles for e in events if isinstance(e, TilesDrawn))
            move = replace(move, draw=drawn)
        moves.append(move)
    return RecordedGame(start, tuple(moves), state)


def _replay(game: RecordedGame) -> GameState:
    state = game.start
    for move in game.moves:
        state, _ = apply(state, move)
    return state


def whole_games(mode: str, players: int = 2) -> GamesResult:
    config = make_config(mode, words="fr")
    rng = random.Random(SEED + players)
    clock = time.perf_counter_ns
    started = clock()
    games = [record_game(config, rng, players) for _ in range(GAMES_PER_TABLE)]
    played_s = (clock() - started) / 1e9
    for game in games:  # the replay must reproduce the recorded game exactly
        if _replay(game) != game.final:
            raise RuntimeError(f"{mode}: replaying a recorded game gave another result")
    samples: list[int] = []
    for _ in range(REPLAY_ROUNDS):
        for game in games:
            start = clock()
            _replay(game)
            samples.append(clock() - start)
    n_moves = [len(g.moves) for g in games]
    total_moves = sum(n_moves) * REPLAY_ROUNDS
    median_ms = statistics.median(samples) / 1e6
    return GamesResult(
        mode=mode,
        players=players,
        games=len(games),
        rounds=REPLAY_ROUNDS,
        moves_per_game=statistics.mean(n_moves),
        placements_per_game=statistics.mean(
            sum(isinstance(m, Place) for m in g.moves) for g in games
        ),
        exchanges_per_game=statistics.mean(
            sum(isinstance(m, Exchange) for m in g.moves) for g in games
        ),
        median_ms_per_game=median_ms,
        games_per_second=len(samples) / (sum(samples) / 1e9),
        ms_per_move=sum(samples) / 1e6 / total_moves,
        played_per_second=len(games) / played_s,
    )
