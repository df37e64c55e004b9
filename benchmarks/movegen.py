"""Move-generator and computer-player timings (issue 12), for ``make bench``.

Positions come from games the computer players play against each other on
the real French list, classique board and tiles, with fixed seeds; only the
generator (``rules.movegen.generate``) or the player (``choose_move``) is
inside a timed region. Times are the process's CPU time
(``time.process_time``): the benchmark machine is shared, and wall time
there grows with the other processes' load, not with the search. The DAWG's build and load
times are measured in a fresh interpreter so that nothing is cached; what a process pays
for it at its first hint, and the site's processes' memory, in ``benchmarks.coldstart``.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, replace

from benchmarks import coldstart
from benchmarks.markdown import met, table
from benchmarks.words import ROOT
from rules import GameState, apply, deal, make_config, new_game, view
from rules.material import DIABLE
from rules.movegen import Position, generate, position, words
from rules.player_view import PlayerView
from rules.state import EMPTY
from rules.strategy import best_moves, choose_move

SEED = 2024
POSITIONS = 20
MIDGAME_TILES = 35  # tiles on the board when a position is taken
REPEATS = 3  # each position is generated this often; the fastest run counts
HAND_TARGET_MS = 100.0
BIG_HAND_TARGET_S = 0.5
"""The search for a 40-tile hand, at every position (issue 38; 1 s before): without a
diable, or with one expanded lazily (``rules.movegen.words``), first move included."""
REFERENCE = "none: reference"
"""The target column of the rows that expand every diable (``generate``): no player
waits for that list (a hint searches without the diable, or lazily), and most of its
time is building its up to a million placements (docs/PERFORMANCE.md)."""
HINT_TARGET_S = 1.0
"""A whole hint for a 40-tile hand (search, ranking, reasons), at every position."""
BIG_HAND = 40
FIRST_MOVES = 5
"""40-tile first moves on the empty board, each with and without a diable."""
BOT_GAMES = 4


@dataclass(frozen=True)
class Timing:
    median_ms: float
    p95_ms: float
    max_ms: float
    positions: int
    moves_median: float
    moves_max: int


@dataclass(frozen=True)
class MovegenResult:
    hand12: Timing
    hand12_plain: Timing
    """Only the hands without a diable."""
    board_tiles: float
    big_plain: Timing
    """40-tile hands without a diable."""
    big_diable: Timing
    """40-tile hands with one or two diables, all placements."""
    big_diable_capped: Timing
    """The same hands searched without their diables, as the computer players do."""
    dawg: dict[str, float]
    bots: dict[str, dict[str, float]]
    load: float
    """The machine's load average over the last 5 minutes when the run ended."""
    cold: coldstart.ColdStart | None = None
    big_diable_words: Timing | None = None
    """40-tile hands with a diable, the diables expanded lazily (``rules.movegen.words``)."""
    first_plain: Timing | None = None
    """40-tile first moves on the empty board, no diable."""
    first_diable: Timing | None = None
    """40-tile first moves with a diable, all placements."""
    first_diable_words: Timing | None = None
    """The same, the diables expanded lazily."""
    hints: Timing | None = None
    """``best_moves`` for every 40-tile position above (ms; "placements": 1)."""


def _timing(samples: list[tuple[float, int]]) -> Timing:
    ms = sorted(s for s, _ in samples)
    moves = [m for _, m in samples]
    return Timing(
        median_ms=statistics.median(ms),
        p95_ms=ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))],
        max_ms=ms[-1],
        positions=len(ms),
        moves_median=statistics.median(moves),
        moves_max=max(moves),
    )


def _time(
    pos: Position, diables: int | None = None, repeats: int = REPEATS, lazy: bool = False
) -> tuple[float, int]:
    """Fastest of ``repeats`` runs, in ms, and the number of placements (``lazy``:
    of words, the diables not expanded)."""
    best = float("inf")
    count = 0
    gc.collect()
    search = words if lazy else generate
    for _ in range(repeats):
        start = time.process_time()
        found = search(pos, diables)
        best = min(best, (time.process_time() - start) * 1000)
        count = len(found)
        del found
    return best, count


def midgame(seed: int) -> GameState:
    """A 2-player marque game between confirmé players, when the board first holds
    ``MIDGAME_TILES`` tiles (or the last position before the end)."""
    config = make_config("marque", words="fr")
    rng = random.Random(seed)
    hands, reserve = deal(config, 2, rng)
    state = new_game(config, hands, reserve)
    while sum(c != EMPTY for c in state.board) < MIDGAME_TILES:
        move = choose_move(view(state, state.turn), "confirme", rng)
        after, _ = apply(state, move, rng=rng)
        if after.over:
            break
        state = after
    return state


def _big_hand(state: GameState, rng: random.Random, diables: bool) -> Position:
    """The board of ``state`` in sans marque, with a 40-tile hand of tiles not on it."""
    pool = [t for h in state.hands for t in h] + list(state.reserve)
    letters = [t for t in pool if t != DIABLE]
    rng.shuffle(letters)
    hand = [*letters[: BIG_HAND - 1], DIABLE] if diables else letters[:BIG_HAND]
    config = replace(state.config, mode="sans-marque")
    return Position(config, state.board, tuple(hand), state.started, len(pool) - BIG_HAND)


def first_move(seed: int) -> GameState:
    """A new 2-player sans marque game (40-tile hands), before its first move."""
    config = make_config("sans-marque", words="fr")
    hands, reserve = deal(config, 2, random.Random(seed))
    return new_game(config, hands, reserve)


def _seen(pos: Position, state: GameState) -> PlayerView:
    """The view of the player to move in ``state`` holding ``pos.hand`` (the other
    hand and the reserve from the tiles left), for a hint."""
    rest = [t for h in state.hands for t in h] + list(state.reserve)
    for tile in pos.hand:
        rest.remove(tile)
    hands = [tuple(rest[:BIG_HAND]) for _ in state.hands]
    hands[state.turn] = pos.hand
    shown = replace(state, config=pos.config, hands=tuple(hands), reserve=tuple(rest[BIG_HAND:]))
    return view(shown, shown.turn)


def _time_hint(seen: PlayerView) -> tuple[float, int]:
    """CPU ms of a whole hint (``best_moves``: search, ranking, reasons), once."""
    gc.collect()
    start = time.process_time()
    best_moves(seen, 1)
    return (time.process_time() - start) * 1000, 1


def dawg_figures() -> dict[str, float]:
    """Build time and peak memory of the DAWG, its file, and the time to map and
    check it, in a fresh interpreter."""
    code = (
        "import json, os, time, tracemalloc\n"
        "from rules import wordlist\n"
        "from rules.dawg import pack\n"
        "from rules.dawg_file import open_checked, path_of\n"
        "words = wordlist.load('fr')\n"
        "clock = time.perf_counter; cpu = time.process_time\n"
        "start = clock(), cpu(); open_checked('fr'); load = clock() - start[0], cpu() - start[1]\n"
        "start = clock(), cpu(); cells, nodes, count = pack(words)\n"
        "build = clock() - start[0], cpu() - start[1]\n"
        "del cells; tracemalloc.start(); pack(words)\n"
        "peak = tracemalloc.get_traced_memory()[1]\n"
        "print(json.dumps({'build_s': build[1], 'build_wall_s': build[0], 'load_s': load[1],\n"
        "    'load_wall_s': load[0], 'nodes': nodes, 'words': count,\n"
        "    'file_mb': os.path.getsize(path_of('fr')) / 2**20, 'peak_mb': peak / 2**20}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def bot_games() -> dict[str, dict[str, float]]:
    """Seconds per move of each level, over whole 2-player games against the other level."""
    figures: dict[str, dict[str, float]] = {}
    for mode in ("marque", "sans-marque"):
        config = make_config(mode, words="fr")
        times: dict[str, list[float]] = {"debutant": [], "confirme": []}
        for game in range(BOT_GAMES):
            rng = random.Random(SEED + game)
            levels = ("confirme", "debutant") if game % 2 == 0 else ("debutant", "confirme")
            hands, reserve = deal(config, 2, rng)
            state = new_game(config, hands, reserve)
            while not state.over:
                level = levels[state.turn]
                seen = view(state, state.turn)
                start = time.process_time()
                move = choose_move(seen, level, rng)
                times[level].append(time.process_time() - start)
                state, _ = apply(state, move, rng=rng)
        for level, samples in times.items():
            samples.sort()
            figures[f"{mode} {level}"] = {
                "moves": len(samples),
                "median_s": statistics.median(samples),
                "p95_s": samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))],
                "max_s": samples[-1],
            }
    return figures


def run() -> MovegenResult:
    dawg = dawg_figures()
    states = [midgame(SEED + k) for k in range(POSITIONS)]
    hand12 = [_time(position(view(s, s.turn))) for s in states]
    plain = [t for t, s in zip(hand12, states, strict=True) if DIABLE not in s.hands[s.turn]]
    rng = random.Random(SEED)
    big_plain_pos = [_big_hand(s, rng, False) for s in states[:10]]
    big_plain = [_time(p) for p in big_plain_pos]
    big_diable_pos = [_big_hand(s, rng, True) for s in states[:5]]
    big_diable = [_time(p, repeats=1) for p in big_diable_pos]  # seconds each
    capped = [_time(p, 0) for p in big_diable_pos]
    diable_words = [_time(p, repeats=1, lazy=True) for p in big_diable_pos]
    starts = [first_move(SEED + k) for k in range(FIRST_MOVES)]
    first_plain_pos = [_big_hand(s, rng, False) for s in starts]
    first_diable_pos = [_big_hand(s, rng, True) for s in starts]
    hint_cases = [
        *zip(big_plain_pos, states, strict=False),
        *zip(big_diable_pos, states, strict=False),
        *zip(first_plain_pos, starts, strict=True),
        *zip(first_diable_pos, starts, strict=True),
    ]
    return MovegenResult(
        hand12=_timing(hand12),
        hand12_plain=_timing(plain),
        board_tiles=statistics.mean(sum(c != EMPTY for c in s.board) for s in states),
        big_plain=_timing(big_plain),
        big_diable=_timing(big_diable),
        big_diable_capped=_timing(capped),
        dawg=dawg,
        bots=bot_games(),
        load=os.getloadavg()[1],
        cold=coldstart.run(states),
        big_diable_words=_timing(diable_words),
        first_plain=_timing([_time(p) for p in first_plain_pos]),
        first_diable=_timing([_time(p, repeats=1) for p in first_diable_pos]),
        first_diable_words=_timing([_time(p, repeats=1, lazy=True) for p in first_diable_pos]),
        hints=_timing([_time_hint(_seen(p, s)) for p, s in hint_cases]),
    )


def blocks(result: MovegenResult) -> dict[str, str]:
    """The report's generated tables for this part (the prose is in docs/PERFORMANCE.md)."""
    r = result
    big_ms = BIG_HAND_TARGET_S * 1000
    big = f"< {BIG_HAND_TARGET_S:g} s"
    # (name, timing, target, limit in ms for the max, or None: not judged)
    rows: list[tuple[str, Timing | None, str, float | None]] = [
        ("12-tile hand (avec marque), all", r.hand12, f"median < {HAND_TARGET_MS:g} ms", None),
        ("12-tile hand, no diable in it", r.hand12_plain, "", None),
        (f"{BIG_HAND}-tile hand, no diable", r.big_plain, big, big_ms),
        (f"{BIG_HAND}-tile hand with a diable, all placements", r.big_diable, REFERENCE, None),
        (
            f"{BIG_HAND}-tile hand with a diable, the diables expanded lazily",
            r.big_diable_words,
            big,
            big_ms,
        ),
        (f"{BIG_HAND}-tile hand with a diable, searched without it", r.big_diable_capped, "", None),
        (f"{BIG_HAND}-tile first move, no diable", r.first_plain, big, big_ms),
        (
            f"{BIG_HAND}-tile first move with a diable, all placements",
            r.first_diable,
            REFERENCE,
            None,
        ),
        (
            f"{BIG_HAND}-tile first move with a diable, the diables expanded lazily",
            r.first_diable_words,
            big,
            big_ms,
        ),
        (
            f"Whole hint (`best_moves`) at each {BIG_HAND}-tile position above",
            r.hints,
            f"< {HINT_TARGET_S:g} s",
            HINT_TARGET_S * 1000,
        ),
    ]

    def judged(name: str, t: Timing, limit: float | None) -> str:
        if name.startswith("12-tile hand (avec marque)"):
            return met(t.median_ms < HAND_TARGET_MS)
        return "n/a" if limit is None else met(t.max_ms < limit)

    search = table(
        "Search | Positions | Median (ms) | p95 (ms) | Max (ms) | Placements (median / max) "
        "| Target | Met?",
        [
            (
                name,
                t.positions,
                f"{t.median_ms:.1f}",
                f"{t.p95_ms:.1f}",
                f"{t.max_ms:.1f}",
                "—" if t is r.hints else f"{t.moves_median:,.0f} / {t.moves_max:,}",
                target or "none set",
                judged(name, t, limit),
            )
            for name, t, target, limit in rows
            if t is not None
        ],
        "lrrrrrll",
    )
    search += (
        f"\n\nMean tiles on the board: {r.board_tiles:.1f}; load average (5 min) at the end: "
        f"{r.load:.1f} on {os.cpu_count()} CPUs."
    )
    d = r.dawg
    dawg = table(
        "Measure | Value",
        [
            (
                "Build time (`rules.dawg.pack`)",
                f"{d['build_s']:.2f} s ({d.get('build_wall_s', d['build_s']):.2f} s wall)",
            ),
            ("Peak memory while building (tracemalloc)", f"{d['peak_mb']:.1f} MB"),
            ("Words / nodes", f"{int(d['words']):,} / {int(d['nodes']):,}"),
            ("File size", f"{d['file_mb']:.1f} MB"),
            (
                "Map and check the file (header, size, sha256)",
                f"{d['load_s'] * 1000:.0f} ms ({d.get('load_wall_s', d['load_s']) * 1000:.0f} ms wall)",
            ),
        ],
        "lr",
    )
    bots = table(
        "Mode and level | Moves | Median (s) | p95 (s) | Max (s)",
        [
            (
                name,
                int(f["moves"]),
                f"{f['median_s']:.3f}",
                f"{f['p95_s']:.3f}",
                f"{f['max_s']:.3f}",
            )
            for name, f in r.bots.items()
        ],
        "lrrrr",
    )
    found = {"movegen-search": search, "movegen-dawg": dawg, "movegen-bots": bots}
    if r.cold is not None:
        found.update(coldstart.blocks(r.cold))
    return found


def targets(result: MovegenResult) -> list[tuple[str, str, bool]]:
    """The report's target rows: (target, this run's figure, met)."""
    r = result
    cold = coldstart.targets(r.cold) if r.cold is not None else []
    lazy = [r.big_plain, r.big_diable_words, r.first_plain, r.first_diable_words]
    searched = max(t.max_ms for t in lazy if t is not None)
    rows = [
        (
            f"All placements for a 12-tile hand, median < {HAND_TARGET_MS:g} ms",
            f"{r.hand12.median_ms:.1f} ms",
            r.hand12.median_ms < HAND_TARGET_MS,
        ),
        (
            f"The search for a {BIG_HAND}-tile hand, with or without a diable (expanded "
            f"lazily), first move included, < {BIG_HAND_TARGET_S:g} s at every position",
            f"slowest {searched:.0f} ms",
            searched < BIG_HAND_TARGET_S * 1000,
        ),
    ]
    if r.hints is not None:
        rows.append(
            (
                f"A whole hint for a {BIG_HAND}-tile hand, first move included, "
                f"< {HINT_TARGET_S:g} s at every position",
                f"slowest {r.hints.max_ms:.0f} ms",
                r.hints.max_ms < HINT_TARGET_S * 1000,
            )
        )
    return [*rows, *cold]


if __name__ == "__main__":
    for name, text in blocks(run()).items():
        print(f"{name}:\n{text}\n")
