"""``make soak``: the production stack played for an hour while faults arrive.

``run(config)`` starts, all on this machine and all its own: a PostgreSQL
cluster (``initdb`` in a temporary folder; where initdb is missing, a database
on the machine's PostgreSQL, and then no PostgreSQL restart), a Redis, an SMTP
sink, a Web Push service (``servers.PushService``; the site has VAPID keys made
for the run), gunicorn, a Celery worker and beat, and the mail-in SMTP server
(``benchmarks.servers``, ``stack.py``). It seeds players and games as the
bench does (``benchmarks.web.seed``, several games per table, played one
after the other), gives a tenth of the players a push device the push
service serves (``audit.py devices``: a subscription with a key pair made
here), then plays them with the bench's simulated players
(``benchmarks.web.client.Player``), another tenth answering their turn emails
instead (``mail.py``), for ``minutes``. Every few minutes, at random, a
fault (``stack.FAULTS``): Redis stopped, Redis frozen, the worker killed -9,
PostgreSQL restarted, SMTP answering 451, the push service answering 503, a
web worker killed.

Then the players stop, the outbox is left to drain (the sweeps, the
retries), the database is read (``audit.py``) and ``report.py`` checks and
prints: moves played, lost and doubled, the games' audit and tile inventory,
emails written, sent, lost and doubled (counted at the sink by Message-ID),
pushes likewise (counted at the push service by the decrypted payload's
``id``, the outbox row's), the replies by email, 5xx answers, the latency outside the fault windows,
and the errors in the logs. The exit status is 1 on any loss or double.

With ``SOAK_HOSTS=1`` (``hosts.py``) ``run`` is given the namespaces' plan:
the two web servers (half the web workers each), the worker and beat each run
on a host of its own (a network namespace, its own data folder and nothing
else of the machine's disk but the code), the services listen on the services
namespace's address, and the players are spread over the two web hosts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import servers
from benchmarks.soak import hosts as soak_hosts
from benchmarks.soak import report
from benchmarks.soak import stack as soak_stack
from benchmarks.soak.mail import MailPlayer
from benchmarks.web import stack as web_stack
from benchmarks.web.client import Phase, Player, Think

COLLECTSTATIC = ("collectstatic", "--no-input", "--verbosity", "0")
UNIT = "2x13,3x4,4x3"  # the bench's 50 players in 20 tables
UNIT_PLAYERS = 50


@dataclass(frozen=True)
class SoakConfig:
    minutes: float = 60.0
    players: int = 200
    tables: str = ""  # "SEATSxCOUNT,..."; empty: the bench's unit, players / 50 times
    rounds: int = 0  # games per table; 0: enough for ``minutes``
    premoves: int = 16
    mail_share: float = 0.1  # the players who answer their turn emails
    push_share: float = 0.1  # the players with a push device (the first of each 1 / share)
    faults: tuple[str, ...] = tuple(soak_stack.FAULTS)
    fault_gap_s: float = 0.0  # the mean pause between faults; 0: from ``minutes``
    first_fault_s: float = 0.0  # the first fault's time; 0: at random within the first gap
    redis_seconds: float = 30.0
    smtp_seconds: float = 60.0
    push_seconds: float = 60.0
    grace_s: float = 15.0  # after a fault ends, still its window
    drain_minutes: float = 15.0
    web_workers: int = 2 * (os.cpu_count() or 1)
    worker_concurrency: int = 2
    seed: int = 34
    think: Think = field(default_factory=Think)
    database_url: str = "postgres://postgres@127.0.0.1:5432/diamino_soak"
    hosts: bool = False  # SOAK_HOSTS=1: each web process, the worker and beat on a host

    @property
    def table_spec(self) -> str:
        if self.tables:
            return self.tables
        if self.players % UNIT_PLAYERS:
            raise ValueError(f"SOAK_PLAYERS: a multiple of {UNIT_PLAYERS}, or set SOAK_TABLES")
        return ",".join([UNIT] * (self.players // UNIT_PLAYERS))

    @property
    def game_rounds(self) -> int:
        """A game of 2 lasts about 20 minutes at the players' pace: enough to never run out."""
        return self.rounds or 2 + math.ceil(self.minutes / 20)

    @property
    def gap_s(self) -> float:
        if self.fault_gap_s:
            return self.fault_gap_s
        return min(240.0, max(15.0, self.minutes * 60 / (2 * max(1, len(self.faults)))))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> SoakConfig:
        base = cls()
        faults = environ.get("SOAK_FAULTS")
        chosen = tuple(f.strip() for f in faults.split(",") if f.strip()) if faults else base.faults
        unknown = set(chosen) - set(soak_stack.FAULTS)
        if unknown:
            raise SystemExit(
                f"SOAK_FAULTS: unknown {sorted(unknown)}; use {list(soak_stack.FAULTS)}"
            )

        def number(name: str, default: float) -> float:
            return float(environ.get(name, "") or default)

        return cls(
            minutes=number("SOAK_MINUTES", base.minutes),
            players=int(number("SOAK_PLAYERS", base.players)),
            tables=environ.get("SOAK_TABLES", ""),
            rounds=int(number("SOAK_ROUNDS", 0)),
            premoves=int(number("SOAK_PREMOVES", base.premoves)),
            mail_share=number("SOAK_MAIL_SHARE", base.mail_share),
            push_share=number("SOAK_PUSH_SHARE", base.push_share),
            faults=chosen,
            fault_gap_s=number("SOAK_FAULT_GAP", 0),
            first_fault_s=number("SOAK_FIRST_FAULT", 0),
            redis_seconds=number("SOAK_REDIS_SECONDS", base.redis_seconds),
            smtp_seconds=number("SOAK_SMTP_SECONDS", base.smtp_seconds),
            push_seconds=number("SOAK_PUSH_SECONDS", base.push_seconds),
            drain_minutes=number("SOAK_DRAIN_MINUTES", base.drain_minutes),
            seed=int(number("SOAK_SEED", base.seed)),
            think=scaled(base.think, number("SOAK_THINK_SCALE", 1.0)),
            database_url=environ.get("SOAK_DATABASE_URL", base.database_url),
            hosts=environ.get("SOAK_HOSTS", "") not in ("", "0"),
        )


def scaled(think: Think, scale: float) -> Think:
    """The players' pauses times ``scale`` (a tiny run's players play faster than people)."""
    if scale == 1.0:
        return think

    def times(pair: tuple[float, float]) -> tuple[float, float]:
        return (pair[0] * scale, pair[1] * scale)

    return Think(
        arrive=times(think.arrive),
        move=times(think.move),
        confirm=times(think.confirm),
        poll=think.poll * scale,
    )


def say(text: str) -> None:
    print(f"soak {time.strftime('%H:%M:%S', time.gmtime())}: {text}", file=sys.stderr, flush=True)


def run(config: SoakConfig, plan: soak_hosts.Plan | None = None) -> report.Report:
    """The whole soak; raises ``web_stack.ServiceUnavailable`` when a service is missing.

    ``plan``: the namespaces ``hosts.run_outside`` made, this process running in the
    services one (``SOAK_HOSTS=1``)."""
    missing = servers.redis_missing()
    if missing:
        raise web_stack.ServiceUnavailable(missing)
    notes: list[str] = []
    faults = config.faults
    private_pg = servers.postgres_missing() is None
    if plan is not None and not private_pg:
        raise web_stack.ServiceUnavailable(
            f"SOAK_HOSTS=1 needs a PostgreSQL of the soak's own: {servers.postgres_missing()}"
        )
    # Where the services listen: the hosts reach them at the services namespace's address.
    address = soak_hosts.SERVICES_ADDRESS if plan is not None else "127.0.0.1"
    if not private_pg:
        notes.append(
            "PostgreSQL restart not tried: "
            f"{servers.postgres_missing()}; the soak used {config.database_url}"
        )
        faults = tuple(f for f in faults if f != "postgres-restarted")
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="diamino-soak-")))
        say("starting PostgreSQL, Redis, the SMTP sink and the push service...")
        postgres = (
            stack.enter_context(servers.private_postgres("max_connections=200", host=address))
            if private_pg
            else None
        )
        redis = stack.enter_context(servers.private_redis(host=address))
        sink = servers.SmtpServer(keep_messages=False, host=address)
        sink.start()
        stack.callback(sink.stop)
        vapid = servers.vapid_pair()
        push = stack.enter_context(servers.PushService(vapid[0], keep_received=False, host=address))
        database_url = postgres.url("diamino_soak") if postgres else config.database_url
        services = web_stack.check_services(database_url, redis.url)
        stack.enter_context(web_stack.fresh_database(services))
        port, mail_in_port = servers.free_port(), servers.free_port()
        env = soak_stack.site_env(services, folder, port, sink.port, mail_in_port, vapid)
        places = _places(plan, folder) if plan is not None else {}
        if plan is not None:
            env = soak_hosts.shared_env(env)
        say(f"seeding {config.table_spec} x {config.game_rounds} games...")
        seed_env = {**env, "DATABASE_URL": web_stack.seed_database_url(services.database_url)}
        seeded = web_stack.seed(
            seed_env, config.table_spec, config.premoves, rounds=config.game_rounds
        )
        web_stack.step_database(services)
        devices = _devices(env, seeded["players"], config.push_share, push)  # type: ignore[arg-type]
        moves_before = _move_count(services.database_url)
        procs = soak_stack.processes(env, folder, config.worker_concurrency, places)
        for process in procs.values():
            process.start()
            stack.callback(process.stop)
        stack.enter_context(soak_stack.supervise(procs, soak_stack.RESTART_AFTER))
        _audit(env, "queue")
        if plan is None:
            say("starting gunicorn; the seed's emails go first...")
            webs = {
                "gunicorn": stack.enter_context(
                    web_stack.gunicorn(env, port, config.web_workers, folder)
                )
            }
        else:
            webs = _web_hosts(stack, env, places, config.web_workers, folder)
        # The emails the seed wrote are sent (or skipped) before the players start, so the
        # emails' delays measure the soak, not a backlog it began with.
        seed_drained_s = _drain(services.database_url, config.drain_minutes * 60)
        play_started = time.time()
        the_stack = soak_stack.Stack(
            redis=redis,
            smtp=sink,
            webs=webs,
            processes=procs,
            postgres=postgres,
            push=push,
            redis_seconds=config.redis_seconds,
            smtp_seconds=config.smtp_seconds,
            push_seconds=config.push_seconds,
            rng=random.Random(config.seed),
        )
        say(f"{len(seeded['players'])} players playing for {config.minutes:g} min...")  # type: ignore[arg-type]
        played = asyncio.run(
            _play(the_stack, seeded["players"], config, faults, mail_in_port)  # type: ignore[arg-type]
        )
        played.push_players = devices
        say("players stopped; the outbox drains...")
        drained_s = _drain(services.database_url, config.drain_minutes * 60)
        time.sleep(3)  # a send that finished as the count reached zero: its bytes at the sink
        audit = _audit(env)
        alive = {name: p.alive() for name, p in procs.items()}
        alive |= {name: web.process.poll() is None for name, web in webs.items()}
        host_lines = _host_lines(places, config, webs) if places else []
        logs = the_stack.logs()
        log_errors = report.log_errors(logs, played.windows)
        kept = web_stack.ROOT / "data" / "soak" / "logs"
        shutil.rmtree(kept, ignore_errors=True)
        kept.mkdir(parents=True)
        for name, path in logs.items():
            if path.exists():
                shutil.copy(path, kept / f"{name}.log")
    return report.build(
        config=config,
        faults_run=faults,
        played=played,
        audit=audit,
        moves_before=moves_before,
        sink_ids=dict(sink.message_ids),
        sink_times=dict(sink.first_received),
        play_started=play_started,
        seed_drained_s=seed_drained_s,
        sink_refused=sink.refused,
        drained_s=drained_s,
        alive=alive,
        restarts={name: p.starts - 1 for name, p in procs.items()},
        exits={name: list(p.exits) for name, p in procs.items() if p.exits},
        log_errors=log_errors,
        notes=notes,
        services=services,
        hosts=host_lines,
        pushes=report.PushCounts(
            ids=dict(push.push_ids),
            first_received=dict(push.first_received),
            refused=push.refused,
            rejected=dict(push.rejected),
        ),
    )


async def _play(
    the_stack: soak_stack.Stack,
    seeded: list[dict[str, Any]],
    config: SoakConfig,
    faults: tuple[str, ...],
    mail_in_port: int,
) -> report.Played:
    import aiohttp

    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    rng = random.Random(config.seed)
    mail_every = round(1 / config.mail_share) if config.mail_share > 0 else 0
    players: list[Player] = []
    # With two web hosts, every other player on each (a player stays on one: sticky).
    bases = [web.base_url for web in the_stack.webs.values()]
    for k, p in enumerate(seeded):
        args = (bases[k % len(bases)], connector, str(p["username"]), int(p["game"]))
        if mail_every and k % mail_every == mail_every - 1:
            players.append(
                MailPlayer(
                    *args,
                    str(p["session"]),
                    k,
                    sink=the_stack.smtp,
                    mail_in_port=mail_in_port,
                )
            )
        else:
            players.append(Player(*args, str(p["session"]), k))
    games = {str(p["username"]): [int(g) for g in p["games"]] for p in seeded}
    windows: list[report.Window] = []
    phase = Phase("soak", config.minutes * 60, 0.0, dict)
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="soak-faults")

    crashes: Counter[str] = Counter()

    async def one_player(player: Player) -> None:
        for game in games[player.username]:
            player.game = game
            player.seen = None
            try:
                await player.play(phase, config.think)
            except Exception as exc:  # the simulated player's own bug: noted, next game
                crashes[f"{type(exc).__name__}: {exc}"[:200]] += 1
            if not phase.running():
                return

    async def pause(seconds: float) -> None:
        await asyncio.sleep(max(0.0, min(seconds, phase.stop_at - time.monotonic())))

    async def fault_loop(_phase: Phase) -> None:
        if not faults:
            return
        loop = asyncio.get_running_loop()
        order: list[str] = []
        await pause(config.first_fault_s or rng.uniform(0.25, 0.75) * config.gap_s)
        while phase.running():
            if not order:
                order = rng.sample(faults, len(faults))
            name = order.pop()
            if phase.stop_at - time.monotonic() < soak_stack.fault_seconds(name, the_stack) + 5:
                break
            say(f"fault: {name}")
            started, wall, before = time.monotonic(), time.time(), the_stack.log_sizes()
            try:
                note = await loop.run_in_executor(executor, soak_stack.FAULTS[name], the_stack)
            except Exception as exc:  # the fault itself failed: say so in the report
                note = f"the fault failed: {type(exc).__name__}: {exc}"
            ended, wall_end = time.monotonic(), time.time()
            gap = rng.uniform(0.5, 1.5) * config.gap_s
            await pause(config.grace_s)  # what follows the fault is still its doing
            after = the_stack.log_sizes()
            spans = {k: (before.get(k, 0), after[k]) for k in after}
            windows.append(report.Window(name, started, ended, wall, wall_end, note, spans))
            await pause(gap - config.grace_s)

    # Ctrl-C, or the SIGINT ``hosts.run_outside`` passes on: the players stop now.
    # asyncio.run's own handler only cancels, and a cancellation can be lost in a
    # request (seen once: the players played on); the phase's end cannot be missed.
    main, interrupted = asyncio.current_task(), []
    loop = asyncio.get_running_loop()

    def interrupt() -> None:
        interrupted.append(True)
        if not phase.stop_at and main is not None:  # the players have not begun
            main.cancel()
        phase.stop_at = min(phase.stop_at, time.monotonic())
        for task in asyncio.all_tasks(loop):
            if task is not main:
                task.cancel()

    handled = threading.current_thread() is threading.main_thread()  # signals go there only
    if handled:
        loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        await phase.run([*(partial_player(one_player, p) for p in players), fault_loop])
    except asyncio.CancelledError:
        if not interrupted:
            raise
    finally:
        if handled:
            loop.remove_signal_handler(signal.SIGINT)
        executor.shutdown(wait=True)
        await asyncio.gather(*(p.close() for p in players))
        await connector.close()
    if interrupted:
        raise KeyboardInterrupt
    return report.Played(
        samples=phase.samples,
        windows=windows,
        accepted=[(p.username, game, number) for p in players for game, number in p.accepted],
        mailed=[
            (p.username, *sent) for p in players if isinstance(p, MailPlayer) for sent in p.mailed
        ],
        mail_fallbacks=_sum_counts(p.fallbacks for p in players if isinstance(p, MailPlayer)),
        mail_players=sum(isinstance(p, MailPlayer) for p in players),
        players=len(players),
        seconds=phase.stop_at - phase.start,
        crashes=dict(crashes),
    )


def _places(plan: soak_hosts.Plan, folder: Path) -> dict[str, soak_hosts.Place]:
    """Each host's place: a data folder of its own in the soak's folder, which it does not
    see (nor the checkout's ``data/``, where the soak keeps its logs)."""
    hidden = (str(folder), str(web_stack.ROOT / "data"))
    places = {}
    for host in soak_hosts.HOSTS:
        data_dir = folder / "hosts" / host
        data_dir.mkdir(parents=True)
        places[host] = soak_hosts.Place(plan, host, data_dir, hidden)
    return places


def _web_hosts(
    stack: contextlib.ExitStack,
    env: dict[str, str],
    places: dict[str, soak_hosts.Place],
    web_workers: int,
    folder: Path,
) -> dict[str, web_stack.Server]:
    """gunicorn on each web host, half the web workers each, after ``collectstatic`` into
    the host's own folder (the release installed on that machine)."""
    webs = {}
    for host in soak_hosts.WEB_HOSTS:
        place = places[host]
        say(f"{host}: collectstatic into its own folder, then gunicorn on {place.address}...")
        done = subprocess.run(
            place.wrap([sys.executable, str(web_stack.ROOT / "manage.py"), *COLLECTSTATIC]),
            cwd=web_stack.ROOT,
            env=place.env(env),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise RuntimeError(f"collectstatic on {host} failed:\n{done.stderr[-3000:]}")
        webs[host] = stack.enter_context(
            web_stack.gunicorn(
                place.env(env),
                soak_hosts.WEB_PORT,
                max(1, web_workers // len(soak_hosts.WEB_HOSTS)),
                folder,
                host=place.address,
                name=host,
                wrap=place.wrap,
            )
        )
    return webs


def _host_lines(
    places: dict[str, soak_hosts.Place],
    config: SoakConfig,
    webs: dict[str, web_stack.Server],
) -> list[str]:
    """What ran where, and what each host left in its own folder."""
    what = {
        **{h: f"gunicorn, {webs[h].workers} workers" for h in webs},
        "worker": f"Celery worker, {config.worker_concurrency} processes",
        "beat": "Celery beat",
    }
    lines = [
        f"{host} {place.address}: {what.get(host, '')}; its folder at the end: "
        f"{soak_hosts.folder_summary(place.data_dir)}"
        for host, place in places.items()
    ]
    return [
        *lines,
        f"services {soak_hosts.SERVICES_ADDRESS}: PostgreSQL, Redis, SMTP sink, push service, "
        "mail-in, the players",
    ]


def partial_player(play: Any, player: Player) -> Any:
    async def work(_phase: Phase) -> None:
        await play(player)

    return work


def push_players(players: list[dict[str, Any]], share: float) -> list[dict[str, Any]]:
    """The players with a device: every ``1 / share``-th, from the first (the mail players
    are the last of each ``1 / mail_share``)."""
    every = round(1 / share) if share > 0 else 0
    return [p for k, p in enumerate(players) if every and k % every == 0]


def _devices(
    env: dict[str, str], players: list[dict[str, Any]], share: float, push: servers.PushService
) -> int:
    """A device for each push player, its keys made here as a browser makes them, its
    endpoint at ``push``, stored in the soak's database; how many."""
    chosen = push_players(players, share)
    subscriptions = []
    for p in chosen:
        name = str(p["username"])
        browser = push.subscription(name)
        subscriptions.append({"username": name, "endpoint": browser["endpoint"], **browser["keys"]})
    if subscriptions:
        _audit(env, "devices", stdin=json.dumps(subscriptions))
    return len(subscriptions)


def _sum_counts(counts: Any) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in counts:
        for key, value in one.items():
            total[key] = total.get(key, 0) + value
    return total


def _query(database_url: str, sql: str) -> Any:
    import psycopg

    with psycopg.connect(database_url, connect_timeout=5) as conn:
        row = conn.execute(sql).fetchone()  # sql: our own constant queries
        return row[0] if row else None


def _move_count(database_url: str) -> int:
    return int(_query(database_url, "SELECT count(*) FROM games_move") or 0)


def _drain(database_url: str, limit_s: float) -> float:
    """Wait until no email or push is pending or being sent and no reply waits; the seconds it took."""
    started = time.monotonic()
    sql = (
        "SELECT (SELECT count(*) FROM notifications_notification"
        "        WHERE status IN ('pending', 'sending'))"
        " + (SELECT count(*) FROM bymail_inboundmessage WHERE state = 'received')"
    )
    last_said = 0.0
    while time.monotonic() - started < limit_s:
        try:
            waiting = int(_query(database_url, sql) or 0)
        except Exception:  # the database restarting at the very end: ask again
            waiting = -1
        if waiting == 0:
            return time.monotonic() - started
        if time.monotonic() - last_said > 60:
            say(f"{waiting} email(s), push(es) or replies still waiting...")
            last_said = time.monotonic()
        time.sleep(5)
    return time.monotonic() - started


def _audit(env: dict[str, str], *command: str, stdin: str = "") -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.soak.audit", *command],
        cwd=web_stack.ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"reading the soak's database failed:\n{done.stderr[-4000:]}")
    return dict(json.loads(done.stdout))
