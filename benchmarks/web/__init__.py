"""The site under load: gunicorn on PostgreSQL and Redis, played by simulated players.

``run(config)`` creates the bench database, seeds players and games
(``seed.py``), starts gunicorn (``stack.py``), then drives it from this
process (``client.py``) through these phases, in this order:

1. ``bare``: the ceiling, ``/_bench/bare`` answered through the whole
   middleware stack, no cookie; one worker per player, closed loop;
2. ``floor``: ``/_bench/floor/<game>``, the least a game page can do (the
   game and the player's seat read, the hand answered as text), closed loop;
3. three rounds of ``bare, signed in`` (the bare view with the players'
   cookies: the session and user look-ups every page pays) then ``page``
   (every player loads their game page, closed loop), side by side because
   the machine's speed drifts between minutes: the page's target is the
   median of the three rounds' ratios (``PAGE_ROUNDS``);
4. ``preview``: the players to move preview a legal placement, closed loop;
5. ``play``: the players play as people do, with thinking time (the latency
   targets are read here);
6. the signed-in bare view and the page again, then ``flat out``: one chain
   per game, whoever is to move loads the page and submits at once (the
   submission's capacity: moves in one game are sequential, so there are as
   many chains as games), then the signed-in bare view once more
   (``CHAIN_ROUND``): the move's CPU is the chains' less their page reads at
   the page's figure just before, against the bare view's around it;
7. ``bare, again``: the ceiling once more, to see whether the machine's load
   changed during the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from dataclasses import dataclass, field
from functools import partial

import aiohttp

from benchmarks.web import page, stack
from benchmarks.web.client import (
    Failed,
    Phase,
    PhaseResult,
    Player,
    Think,
    bare_worker,
    by_game,
    chain_worker,
    floor_worker,
    page_worker,
    preview_worker,
)
from rules import Place

# The signed-in bare view and the game page, each phase next to the other, three
# times: issue #20's page target is the median of the three ratios.
PAGE_ROUNDS = (
    ("bare, signed in", "page"),
    ("bare, signed in · 2", "page · 2"),
    ("bare, signed in · 3", "page · 3"),
)
# Around the flat-out chains: the bare view before, the page before, the bare view after.
CHAIN_ROUND = ("bare, signed in · chains", "page · chains", "bare, signed in · after the chains")


@dataclass(frozen=True)
class WebConfig:
    tables: str = "2x13,3x4,4x3"  # 50 players in 20 games: 13 of 2, 4 of 3, 3 of 4
    premoves: int = 16  # moves played in each game before the run: mid-game boards
    workers: int = 2 * (os.cpu_count() or 1)  # gunicorn sync workers
    capacity_s: float = 8.0
    play_s: float = 45.0
    warmup_s: float = 2.0
    play_warmup_s: float = 5.0
    think: Think = field(default_factory=Think)
    profile_repeats: int = 20
    profile_text: str | None = "data/bench/profiles"  # pyinstrument's trees, for a human
    database_url: str = stack.DEFAULT_DATABASE_URL
    redis_url: str = stack.DEFAULT_REDIS_URL

    @classmethod
    def from_env(cls) -> WebConfig:
        """``BENCH_WEB_SCALE`` (e.g. 0.25) shortens every phase, for a quick look."""
        scale = float(os.environ.get("BENCH_WEB_SCALE", "1"))
        base = cls()
        return cls(
            capacity_s=base.capacity_s * scale,
            play_s=base.play_s * scale,
            warmup_s=min(base.warmup_s, base.capacity_s * scale / 4),
            play_warmup_s=min(base.play_warmup_s, base.play_s * scale / 4),
            database_url=os.environ.get("BENCH_DATABASE_URL", stack.DEFAULT_DATABASE_URL),
            redis_url=os.environ.get("BENCH_REDIS_URL", stack.DEFAULT_REDIS_URL),
        )


@dataclass(frozen=True)
class WebResult:
    config: WebConfig
    services: stack.Services
    players: int
    games: int
    seed_seconds: float
    phases: dict[str, PhaseResult]
    profile: dict[str, dict[str, object]]

    @property
    def errors(self) -> int:
        return sum(p.errors for p in self.phases.values())


def run(config: WebConfig) -> WebResult:
    """The whole site benchmark; ServiceUnavailable when PostgreSQL or Redis is missing."""
    services = stack.check_services(config.database_url, config.redis_url)
    with stack.data_folder() as folder, stack.fresh_database(services):
        port = stack.free_port()
        env = stack.site_env(services, folder, port)
        seeded = stack.seed(env, config.tables, config.premoves)
        profile = stack.profile(env, seeded, folder, config.profile_repeats, config.profile_text)
        with (
            stack.gunicorn(env, port, config.workers, folder) as server,
            stack.CpuMeter(server, stack.database_name(services.database_url)) as meter,
        ):
            phases = asyncio.run(_drive(server, meter, seeded["players"], config))  # type: ignore[arg-type]
    return WebResult(
        config=config,
        services=services,
        players=len(seeded["players"]),  # type: ignore[arg-type]
        games=int(seeded["games"]),  # type: ignore[call-overload]
        seed_seconds=float(seeded["seed_seconds"]),  # type: ignore[arg-type]
        phases=phases,
        profile=profile,
    )


def _preview_moves(players: list[Player]) -> list[tuple[Player, Place, int]]:
    """For each player to move, a legal placement found on their page (retrying the finder)."""
    chosen = []
    for player in players:
        seen = player.seen
        if seen is None or not seen.my_turn:
            continue
        for _ in range(20):
            move = page.choose(seen, player.rng)
            if isinstance(move, Place):
                chosen.append((player, move, seen.version))
                break
    return chosen


async def _each_once(players: list[Player], phase: Phase) -> None:
    """Every player loads their page once (the answers count for errors, not timings)."""

    async def load(player: Player) -> None:
        with contextlib.suppress(Failed):
            await player.load_page(phase, "page, between phases")

    phase.stop_at = float("inf")
    await asyncio.gather(*(load(p) for p in players))


async def _drive(
    server: stack.Server,
    meter: stack.CpuMeter,
    seeded: list[dict[str, object]],
    config: WebConfig,
) -> dict[str, PhaseResult]:
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # gunicorn's sync workers close
    players = [
        Player(server.base_url, connector, str(p["username"]), int(p["game"]), str(p["session"]), k)  # type: ignore[call-overload]
        for k, p in enumerate(seeded)
    ]
    strangers = [Player(server.base_url, connector, seed=10_000 + k) for k in range(len(players))]

    def phase(name: str, seconds: float, warmup: float) -> Phase:
        print(f"  site: {name} ({seconds:.0f} s)...", file=sys.stderr, flush=True)
        return Phase(name, seconds, warmup, meter.sample)

    c, w = config.capacity_s, config.warmup_s
    results: dict[str, PhaseResult] = {}
    # Requests that are not measured (warming up, reading the pages between phases)
    # are still checked: their errors count in the total.
    between = Phase("between phases", 0, 0, meter.sample)
    try:
        # Each gunicorn worker loads its templates and the word list on first use.
        results["warm-up"] = await phase("warm-up", 2 * w, 2 * w).run(
            [page_worker(p) for p in players]
        )
        results["bare"] = await phase("bare", c, w).run([bare_worker(s) for s in strangers])
        results["floor"] = await phase("floor", c, w).run([floor_worker(p) for p in players])
        # The ratios' two sides measured side by side, in rounds: the machine's
        # speed drifts from one minute to the next far more than the code's cost.
        for bare_name, page_name in PAGE_ROUNDS:
            results[bare_name] = await phase(bare_name, c, w).run([bare_worker(p) for p in players])
            results[page_name] = await phase(page_name, c, w).run([page_worker(p) for p in players])
        movers = _preview_moves(players)
        if movers:
            previews = [preview_worker(*movers[k % len(movers)]) for k in range(len(players))]
            results["preview"] = await phase("preview", c, w).run(previews)
        results["play"] = await phase("play", config.play_s, config.play_warmup_s).run(
            [partial(Player.play, p, think=config.think) for p in players]
        )
        # The move's CPU is the chains' less their page reads: those counted at the
        # page's CPU measured just before, the bare view's just before and after.
        bare_before, page_before, bare_after = CHAIN_ROUND
        results[bare_before] = await phase(bare_before, c, w).run([bare_worker(p) for p in players])
        results[page_before] = await phase(page_before, c, w).run([page_worker(p) for p in players])
        await _each_once(players, between)  # the chains start from what each page says now
        chains = [chain_worker(game) for game in by_game(players).values()]
        results["flat out"] = await phase("flat out", c, w).run(chains)
        results[bare_after] = await phase(bare_after, c, w).run([bare_worker(p) for p in players])
        results["bare, again"] = await phase("bare, again", c, w).run(
            [bare_worker(s) for s in strangers]
        )
    finally:
        for p in [*players, *strangers]:
            await p.close()
        await connector.close()
    results["between phases"] = between.result(len(players), None)
    return results
