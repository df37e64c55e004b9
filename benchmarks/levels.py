"""How the two levels play against a greedy player (docs/COMPUTER.md, "Levels measured").

    python -m benchmarks.levels [--games 30]

Plays ``--games`` 2-player avec marque games of the débutant against a greedy
player, and as many of the confirmé against it, from the same fixed seeds
(the seats alternate), and prints, for each level, the average length of the
main words it played, the share of its placements that used a diable, the
share of its words that are common (``rules.common_words``), and its win rate
(a draw counts half). Single process, one game at a time (20–30 s of CPU per
level for 30 games): gentle on a shared machine. Not part of `make bench`.

The greedy player is defined here, not in ``rules.strategy``: it places the
move that scores the most points at once (red devils, green devils given
away, going out), the most tiles on ties, all diables allowed; with nothing
to place it exchanges its heaviest tiles, then passes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import UTC, datetime

from benchmarks.machine import cpu_model, load_average
from rules import apply, deal, make_config, new_game, view
from rules.common_words import common_in
from rules.evaluation import Seen
from rules.movegen import Position, generate
from rules.placement import check_placement
from rules.player_view import PlayerView
from rules.state import Exchange, Move, Pass, Place
from rules.strategy import choose_move

SEED = 3300
GAMES = 30


def greedy(seen: PlayerView) -> Move:
    """The move scoring the most points at once (ties: the most tiles placed)."""
    s = Seen(seen)
    pos = Position(s.config, seen.board, s.hand, seen.started, s.reserve)
    best, best_key = None, None
    for cand in generate(pos):
        effects = s.effects(cand, "")
        key = (effects.gain - effects.others, cand.size)
        if best_key is None or key > best_key:
            best, best_key = cand, key
    if best is not None:
        return best.place(s.config.layout, s.player)
    if s.reserve:
        heavy = sorted(s.hand, key=lambda t: -s.tiles.values[t])
        return Exchange(s.player, "".join(heavy[: min(3, s.reserve)]))
    return Pass(s.player)


def play(level: str, games: int) -> dict[str, float]:
    """``games`` games of ``level`` against the greedy player: the level's figures."""
    config = make_config("marque", words="fr")
    common = common_in(config.words)
    lengths: list[int] = []
    placements = with_diable = words = common_words = 0
    wins = 0.0
    started = time.process_time()
    for game in range(games):
        rng = random.Random(SEED + game)
        seat = game % 2  # the level's seat
        hands, reserve = deal(config, 2, rng)
        state = new_game(config, hands, reserve)
        while not state.over:
            seen = view(state, state.turn)
            if state.turn == seat:
                move = choose_move(seen, level, rng)
                if isinstance(move, Place):
                    placements += 1
                    with_diable += any(c.islower() for _, c in move.tiles)
                    formed = [w for w, _, _ in check_placement(state, move).words]
                    lengths.append(len(formed[0]))
                    words += len(formed)
                    common_words += sum(w in common for w in formed)
            else:
                move = greedy(seen)
            state, _ = apply(state, move, rng=rng)
        mine, theirs = state.scores[seat], state.scores[1 - seat]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    return {
        "games": games,
        "placements": placements,
        "word_length": statistics.mean(lengths) if lengths else 0.0,
        "diable_share": with_diable / placements if placements else 0.0,
        "common_share": common_words / words if words else 0.0,
        "win_rate": wins / games,
        "cpu_s": time.process_time() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.levels")
    parser.add_argument("--games", type=int, default=GAMES)
    args = parser.parse_args(argv)
    print(f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {cpu_model()}, load {load_average()}")
    print(
        "level | games | placements | main word (letters) | with a diable | common words | win rate | CPU s"
    )
    for level in ("debutant", "confirme"):
        r = play(level, args.games)
        print(
            f"{level} | {r['games']} | {r['placements']} | {r['word_length']:.2f} | "
            f"{r['diable_share']:.0%} | {r['common_share']:.0%} | {r['win_rate']:.0%} | "
            f"{r['cpu_s']:.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
