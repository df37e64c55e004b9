"""The analysis of a finished game (``BENCH=analysis``; issue #38 item 3).

A finished game's analysis runs one search per move (``rules.analysis``:
``best_moves`` from the mover's view before each move), in the worker, never in
a request. This times it, in CPU seconds, on whole random games to their end
(``benchmarks.engine.record_game``, a fixed seed): a 2-player sans-marque game,
whose hands hold 40 tiles, and a 4-player avec-marque game. Target: under 10 s
of CPU for a whole game on this machine.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from benchmarks import engine
from benchmarks.markdown import met, table
from rules import make_config
from rules.analysis import analyse_moves

SEED = 38
CASES = (("sans-marque", 2), ("marque", 4))
TARGET_S = 10.0


@dataclass(frozen=True)
class GameAnalysis:
    mode: str
    players: int
    moves: int  # moves in the game
    analysed: int  # the analysis's entries (placements, exchanges, passes)
    cpu_s: float
    wall_s: float

    @property
    def label(self) -> str:
        return f"{self.players} players, {self.mode}"


def analyse_one(mode: str, players: int, seed: int = SEED) -> GameAnalysis:
    config = make_config(mode, words="fr")
    game = engine.record_game(config, random.Random(seed), players)
    started_cpu, started = time.process_time(), time.perf_counter()
    entries = analyse_moves(game.start, game.moves)
    return GameAnalysis(
        mode,
        players,
        len(game.moves),
        len(entries),
        time.process_time() - started_cpu,
        time.perf_counter() - started,
    )


def warm_up() -> None:
    """Load what every search needs once (the word list, the move generator's tables) on
    another game's first move, so that the first game timed does not pay for it."""
    config = make_config("marque", words="fr")
    game = engine.record_game(config, random.Random(SEED + 1), 2)
    analyse_moves(game.start, game.moves[:1])


def run() -> list[GameAnalysis]:
    warm_up()
    return [analyse_one(mode, players) for mode, players in CASES]


def targets(results: list[GameAnalysis]) -> list[tuple[str, str, bool]]:
    return [
        (
            f"Analysis of a whole game ({r.label}) < {TARGET_S:g} s of CPU",
            f"{r.cpu_s:.1f} s",
            r.cpu_s < TARGET_S,
        )
        for r in results
    ]


def blocks(results: list[GameAnalysis]) -> dict[str, str]:
    rows = [
        (
            r.label,
            str(r.moves),
            str(r.analysed),
            f"{r.cpu_s:.1f}",
            f"{r.wall_s:.1f}",
            f"{1000 * r.cpu_s / max(1, r.analysed):.0f}",
            met(r.cpu_s < TARGET_S),
        )
        for r in results
    ]
    return {
        "analysis": table(
            "Game (random, to its end) | Moves | Analysed | CPU (s) | Wall (s) | CPU per move (ms) "
            f"| < {TARGET_S:g} s CPU?",
            rows,
            "lrrrrrl",
        )
    }
