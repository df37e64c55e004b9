"""The site under load: gunicorn on PostgreSQL and Redis, played by simulated players.

``run(config)`` seeds players and games once (``seed.py``, in the seed
database), then, each on a fresh copy of it and a fresh gunicorn
(``stack.py``), drives the site from this process (``client.py``):

1. the endpoints one at a time, closed loop, with the scenario's players
   (``closed_players``): the bare view (the ceiling, for information), the
   poll, the preview, the game page, then one chain per game submitting moves flat out
   (the move's CPU is the chains' less their page reads at the page's figure);
2. play steps: every player plays as on the page, with thinking time, the
   number of players chosen by ``search.next_load``: the ladder up to the first
   step whose game page or move p95 reaches ``capacity_ms`` (or that has an
   error), the target's number of players in any case, then a few halvings.

Everything stops by itself: each phase is bounded in time, each request by
``client.TIMEOUT_S``, the steps by the ladder's top and by ``budget_s`` (no
step starts after it), and the load goes to 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import aiohttp

from benchmarks.web import page, search, stack
from benchmarks.web.client import (
    Failed,
    Phase,
    PhaseResult,
    Player,
    Think,
    bare_worker,
    by_game,
    chain_worker,
    page_worker,
    poll_worker,
    preview_worker,
)
from rules import Place

PAGE, MOVE = "page", "submit"  # the two endpoints the targets judge


@dataclass(frozen=True)
class WebConfig:
    unit: str = "2x13,3x4,4x3"  # 50 players in 20 games: 13 of 2, 4 of 3, 3 of 4
    premoves: int = 16  # moves played in each game before the run: mid-game boards
    workers: int = 2 * (os.cpu_count() or 1)  # gunicorn sync workers
    closed_players: int = 50  # the closed-loop phases' players
    target_players: int = 200  # the p95 target's players
    target_ms: float = 100.0
    capacity_ms: float = 200.0
    ladder: tuple[int, ...] = (50, 100, 200, 400, 800)
    halvings: int = 2
    budget_s: float = 420.0  # no play step starts after this many seconds of steps
    capacity_s: float = 8.0  # each closed-loop phase
    warmup_s: float = 2.0
    play_s: float = 60.0  # each play step: a few moves in every game at a person's pace
    play_warmup_s: float = 10.0  # the arrivals
    think: Think = field(default_factory=Think)
    profile_repeats: int = 20
    profile_text: str | None = "data/bench/profiles"  # pyinstrument's trees, for a human
    database_url: str = stack.DEFAULT_DATABASE_URL
    redis_url: str = stack.DEFAULT_REDIS_URL

    @property
    def kinds(self) -> list[tuple[int, int]]:
        """``unit`` read: the seats and count of each kind of table."""
        pairs = [part.split("x") for part in self.unit.split(",")]
        return [(int(seats), int(count)) for seats, count in pairs]

    @property
    def unit_players(self) -> int:
        return sum(seats * count for seats, count in self.kinds)

    @property
    def unit_games(self) -> int:
        return sum(count for _seats, count in self.kinds)

    @classmethod
    def from_env(cls) -> WebConfig:
        """``BENCH_WEB_SCALE`` (e.g. 0.25) shortens every phase, for a quick look."""
        scale = float(os.environ.get("BENCH_WEB_SCALE", "1"))
        base = cls()
        return cls(
            capacity_s=base.capacity_s * scale,
            play_s=base.play_s * scale,
            budget_s=base.budget_s * scale,
            warmup_s=min(base.warmup_s, base.capacity_s * scale / 4),
            play_warmup_s=min(base.play_warmup_s, base.play_s * scale / 4),
            database_url=os.environ.get("BENCH_DATABASE_URL", stack.DEFAULT_DATABASE_URL),
            redis_url=os.environ.get("BENCH_REDIS_URL", stack.DEFAULT_REDIS_URL),
        )


@dataclass(frozen=True)
class WebResult:
    config: WebConfig
    services: stack.Services
    seed_seconds: float
    closed: dict[str, PhaseResult]  # the closed-loop phases, by name
    steps: dict[int, PhaseResult]  # the play steps, by number of players
    profile: dict[str, dict[str, object]]
    stopped_by_budget: bool = False

    @property
    def errors(self) -> int:
        return sum(p.errors for p in [*self.closed.values(), *self.steps.values()])

    def passed(self, players: int) -> bool:
        return within(self.steps[players], self.config.capacity_ms)

    @property
    def capacity(self) -> search.Bracket:
        return search.bracket({n: self.passed(n) for n in self.steps})


def within(phase: PhaseResult, limit_ms: float) -> bool:
    """The game page's and the move's p95 under ``limit_ms``, and no error."""
    endpoints = [phase.endpoints.get(name) for name in (PAGE, MOVE)]
    return phase.errors == 0 and all(e is not None and e.latency.p95 < limit_ms for e in endpoints)


def say(text: str) -> None:
    print(f"  site {time.strftime('%H:%M:%S', time.gmtime())}: {text}", file=sys.stderr, flush=True)


def run(config: WebConfig) -> WebResult:
    """The whole site benchmark; ServiceUnavailable when PostgreSQL or Redis is missing."""
    unit = config.unit_players
    for count in (*config.ladder, config.target_players, config.closed_players):
        if count % unit:
            raise ValueError(f"{count} players is not a whole number of {unit}-player units")
    services = stack.check_services(config.database_url, config.redis_url)
    with stack.data_folder() as folder, stack.fresh_database(services):
        port = stack.free_port()
        env = stack.site_env(services, folder, port)
        # The same settings, the secret key above all: the sessions made there are signed with it.
        seed_env = {**env, "DATABASE_URL": stack.seed_database_url(services.database_url)}
        seeded: list[dict[str, Any]] = []
        seed_seconds = 0.0

        def seed_up_to(players: int) -> list[dict[str, Any]]:
            nonlocal seed_seconds
            units = (players - len(seeded)) // unit
            if units > 0:
                say(f"seeding {units * unit} more players...")
                spec = ",".join([config.unit] * units)
                made = stack.seed(seed_env, spec, config.premoves, first=len(seeded) + 1)
                seeded.extend(made["players"])  # type: ignore[arg-type]
                seed_seconds += float(made["seed_seconds"])  # type: ignore[arg-type]
            return seeded[:players]

        seed_up_to(max(config.closed_players, config.target_players))
        stack.step_database(services)
        profile = stack.profile(
            env,
            {"players": seeded[: config.closed_players]},
            folder,
            config.profile_repeats,
            config.profile_text,
        )

        def served(players: list[dict[str, Any]], drive: Callable[..., Any]) -> Any:
            stack.step_database(services)
            with (
                stack.gunicorn(env, port, config.workers, folder) as server,
                stack.CpuMeter(server, stack.database_name(services.database_url)) as meter,
            ):
                return asyncio.run(drive(server, meter, players, config))

        say(f"each endpoint alone, {config.closed_players} players")
        closed = served(seeded[: config.closed_players], _closed)
        steps: dict[int, PhaseResult] = {}
        started = time.monotonic()
        stopped = False
        while True:
            players = search.next_load(
                {n: within(p, config.capacity_ms) for n, p in steps.items()},
                config.ladder,
                unit,
                required=(config.closed_players, config.target_players),
                halvings=config.halvings,
            )
            if players is None:
                break
            if time.monotonic() - started > config.budget_s:
                stopped = True
                break
            playing = seed_up_to(players)
            say(f"{players} players playing ({config.play_s:.0f} s)...")
            steps[players] = served(playing, _play)
    return WebResult(config, services, seed_seconds, closed, steps, profile, stopped)


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


def _players(
    base_url: str, connector: aiohttp.BaseConnector, seeded: list[dict[str, Any]]
) -> list[Player]:
    return [
        Player(base_url, connector, str(p["username"]), int(p["game"]), str(p["session"]), k)
        for k, p in enumerate(seeded)
    ]


async def _closed(
    server: stack.Server, meter: stack.CpuMeter, seeded: list[dict[str, Any]], config: WebConfig
) -> dict[str, PhaseResult]:
    connector = aiohttp.TCPConnector(limit=0, force_close=True)  # gunicorn's sync workers close
    players = _players(server.base_url, connector, seeded)
    strangers = [Player(server.base_url, connector, seed=10_000 + k) for k in range(len(players))]

    def phase(name: str, seconds: float, warmup: float) -> Phase:
        say(f"{name} ({seconds:.0f} s)...")
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
        # Half of a playing player's requests: the poll while the others think.
        results["poll"] = await phase("poll", c, w).run([poll_worker(p) for p in players])
        movers = _preview_moves(players)
        if movers:
            previews = [preview_worker(*movers[k % len(movers)]) for k in range(len(players))]
            results["preview"] = await phase("preview", c, w).run(previews)
        # The move's CPU is the chains' less their page reads, counted at this phase's.
        results["page"] = await phase("page", c, w).run([page_worker(p) for p in players])
        await _each_once(players, between)  # the chains start from what each page says now
        chains = [chain_worker(game) for game in by_game(players).values()]
        results["flat out"] = await phase("flat out", c, w).run(chains)
    finally:
        for p in [*players, *strangers]:
            await p.close()
        await connector.close()
    results["between phases"] = between.result(len(players), None)
    return results


async def _play(
    server: stack.Server, meter: stack.CpuMeter, seeded: list[dict[str, Any]], config: WebConfig
) -> PhaseResult:
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    players = _players(server.base_url, connector, seeded)
    try:
        phase = Phase(f"{len(players)} players", config.play_s, config.play_warmup_s, meter.sample)
        # A fresh server: each worker loads its templates and the word list on first use.
        # These reads come before the phase's window: their errors count, not their times.
        for _ in range(2):
            await _each_once(players[: 2 * config.workers], phase)
        return await phase.run([partial(Player.play, p, think=config.think) for p in players])
    finally:
        for p in players:
            await p.close()
        await connector.close()
