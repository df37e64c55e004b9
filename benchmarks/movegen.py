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
from benchmarks.words import ROOT
from rules import GameState, apply, deal, make_config, new_game, view
from rules.material import DIABLE
from rules.movegen import Position, generate, position
from rules.state import EMPTY
from rules.strategy import choose_move

SEED = 2024
POSITIONS = 20
MIDGAME_TILES = 35  # tiles on the board when a position is taken
REPEATS = 3  # each position is generated this often; the fastest run counts
HAND_TARGET_MS = 100.0
BIG_HAND_TARGET_S = 1.0
BIG_HAND = 40
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


def _time(pos: Position, diables: int | None = None, repeats: int = REPEATS) -> tuple[float, int]:
    """Fastest of ``repeats`` runs, in ms, and the number of placements."""
    best = float("inf")
    count = 0
    gc.collect()
    for _ in range(repeats):
        start = time.process_time()
        found = generate(pos, diables)
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
    return Position(config, state.board, tuple(hand), True, len(pool) - BIG_HAND)


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
    big_plain = [_time(_big_hand(s, rng, False)) for s in states[:10]]
    big_diable_pos = [_big_hand(s, rng, True) for s in states[:5]]
    big_diable = [_time(p, repeats=1) for p in big_diable_pos]  # seconds each
    capped = [_time(p, 0) for p in big_diable_pos]
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
    )


def _met(ok: bool) -> str:
    return "yes" if ok else "**not met**"


def render(result: MovegenResult) -> str:
    """The report's section, in the style of ``docs/PERFORMANCE.md``."""
    r = result
    rows = [
        ("12-tile hand (avec marque), all", r.hand12, f"median < {HAND_TARGET_MS:g} ms", True),
        ("12-tile hand, no diable in it", r.hand12_plain, "", False),
        (f"{BIG_HAND}-tile hand, no diable", r.big_plain, f"< {BIG_HAND_TARGET_S:g} s", True),
        (f"{BIG_HAND}-tile hand with a diable", r.big_diable, f"< {BIG_HAND_TARGET_S:g} s", True),
        (
            f"{BIG_HAND}-tile hand with a diable, searched without it",
            r.big_diable_capped,
            "",
            False,
        ),
    ]
    lines = [
        "## 5. Move generator and computer players",
        "",
        f"Positions: {POSITIONS} 2-player avec marque games between confirmé players (seeds "
        f"{SEED}…{SEED + POSITIONS - 1}), taken when the board first holds {MIDGAME_TILES} tiles "
        f"(mean {r.board_tiles:.1f}); the hand is the real hand of the player to move. The "
        f"{BIG_HAND}-tile hands are drawn (fixed seed) from the tiles not on those boards and "
        'searched in sans marque; "with a diable" puts one diable in the hand. Each search is '
        f"`rules.movegen.generate` alone, run {REPEATS} times (once with a diable), the fastest "
        "counted, in CPU time of the process (`time.process_time`): the machine is shared "
        f"(load average {r.load:.1f} on {os.cpu_count()} CPUs) and wall time grows with the "
        "others' load. What each target asks: the median for 12 tiles; every position for 40 tiles.",
        "",
        "| Search | Positions | Median (ms) | p95 (ms) | Max (ms) | Placements (median / max) "
        "| Target | Met? |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, t, target, judged in rows:
        if judged:
            limit = HAND_TARGET_MS if "12" in name else BIG_HAND_TARGET_S * 1000
            met = _met(t.median_ms < limit) if "12" in name else _met(t.max_ms < limit)
        else:
            met = "n/a"
        lines.append(
            f"| {name} | {t.positions} | {t.median_ms:.1f} | {t.p95_ms:.1f} | {t.max_ms:.1f} | "
            f"{t.moves_median:,.0f} / {t.moves_max:,} | {target or 'none set'} | {met} |"
        )
    d = r.dawg
    lines += [
        "",
        "The word list as a DAWG (`rules.dawg`): packed cells built from the list by "
        "`make dawg` into a file, mapped and checked by each process; measured in a fresh "
        "interpreter, CPU time (the wall clock beside it):",
        "",
        "| Measure | Value |",
        "|---|---:|",
        f"| Build time (`rules.dawg.pack`) | {d['build_s']:.2f} s "
        f"({d.get('build_wall_s', d['build_s']):.2f} s wall) |",
        f"| Peak memory while building (tracemalloc) | {d['peak_mb']:.1f} MB |",
        f"| Words / nodes | {int(d['words']):,} / {int(d['nodes']):,} |",
        f"| File size | {d['file_mb']:.1f} MB |",
        f"| Map and check the file (header, size, sha256) | {d['load_s'] * 1000:.0f} ms "
        f"({d.get('load_wall_s', d['load_s']) * 1000:.0f} ms wall) |",
        "",
        *(coldstart.render(r.cold) if r.cold is not None else []),
        f"Computer players: CPU seconds per move over {BOT_GAMES} whole 2-player games per "
        "mode, confirmé against débutant (seats alternated); includes the search.",
        "",
        "| Mode and level | Moves | Median (s) | p95 (s) | Max (s) |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, f in r.bots.items():
        lines.append(
            f"| {name} | {int(f['moves'])} | {f['median_s']:.3f} | {f['p95_s']:.3f} | "
            f"{f['max_s']:.3f} |"
        )
    lines.append("")
    return "\n".join(lines)


def targets(result: MovegenResult) -> list[tuple[str, str, bool]]:
    """The report's target rows: (target, this run's figure, met)."""
    r = result
    big = max(r.big_plain.max_ms, r.big_diable.max_ms)
    cold = coldstart.targets(r.cold) if r.cold is not None else []
    return [
        (
            f"All placements for a 12-tile hand, median < {HAND_TARGET_MS:g} ms",
            f"{r.hand12.median_ms:.1f} ms",
            r.hand12.median_ms < HAND_TARGET_MS,
        ),
        (
            f"All placements for a {BIG_HAND}-tile hand, with or without a diable, "
            f"< {BIG_HAND_TARGET_S:g} s at every position",
            f"slowest {big:.0f} ms",
            big < BIG_HAND_TARGET_S * 1000,
        ),
        *cold,
    ]


if __name__ == "__main__":
    outcome = run()
    print(render(outcome))
