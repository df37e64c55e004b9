"""The services and the server the load benchmark runs against.

Everything is the benchmark's own: a database ``diamino_bench_seed`` where the
players and games are made, copied to ``diamino_bench`` for each load step, both
created and dropped here, Redis database 11 (flushed before and after, and between
steps), a data folder in a
temporary directory, and a gunicorn started on a free port and stopped at the
end. Nothing of the developer's ``data/`` or databases is touched. On a shared
server, ``BENCH_DATABASE_URL`` (any ``diamino_…bench…`` name), ``BENCH_REDIS_URL``
and ``BENCH_PORT`` name one's own instead.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/diamino_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"


class ServiceUnavailable(RuntimeError):
    """PostgreSQL or Redis cannot be used: the site benchmark cannot run."""


@dataclass(frozen=True)
class Services:
    database_url: str
    redis_url: str
    postgres_version: str
    redis_version: str


def _admin_url(database_url: str) -> tuple[str, str]:
    """The maintenance database's URL and the bench database's name."""
    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    if not is_bench_database(name):
        raise ServiceUnavailable(
            f"refusing to use {name!r}: the bench database's name must start with diamino_"
            " and contain bench or soak (e.g. diamino_bench, diamino_h1_bench, diamino_soak):"
            " the run drops it"
        )
    return urlunsplit(parts._replace(path="/postgres")), name


def is_bench_database(name: str) -> bool:
    """A name the run may create and drop: ``diamino_bench*``, ``diamino_<who>_bench*``
    or the soak's ``diamino_soak*``."""
    return name.startswith("diamino_") and ("bench" in name or "soak" in name)


def database_name(database_url: str) -> str:
    return _admin_url(database_url)[1]


def check_services(database_url: str, redis_url: str) -> Services:
    """Both services answer, with their versions; ServiceUnavailable says which does not."""
    import psycopg
    import redis

    admin, _name = _admin_url(database_url)
    try:
        with psycopg.connect(admin, connect_timeout=3) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            assert row is not None  # SHOW answers one row
            postgres = row[0]
    except psycopg.Error as exc:
        raise ServiceUnavailable(f"PostgreSQL at {admin} does not answer: {exc}") from exc
    try:
        info = redis.Redis.from_url(redis_url, socket_connect_timeout=3).info("server")
    except redis.RedisError as exc:
        raise ServiceUnavailable(f"Redis at {redis_url} does not answer: {exc}") from exc
    return Services(
        database_url, redis_url, f"PostgreSQL {postgres}", f"Redis {info['redis_version']}"
    )


def _drop(admin: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def _flush_redis(redis_url: str) -> None:
    import redis

    redis.Redis.from_url(redis_url).flushdb()  # our own database number only


def seed_database_url(database_url: str) -> str:
    """Where the players and games are made once: the bench database's name plus ``_seed``.

    Every load step plays on a fresh copy of it (``step_database``): the games
    advance while they are played, and a game played through several steps
    would end.
    """
    parts = urlsplit(database_url)
    return urlunsplit(parts._replace(path=parts.path + "_seed"))


@contextmanager
def fresh_database(services: Services) -> Iterator[None]:
    """Empty bench and seed databases (and Redis db) for the run, dropped afterwards."""
    import psycopg
    from psycopg import sql

    admin, name = _admin_url(services.database_url)
    _, seed_name = _admin_url(seed_database_url(services.database_url))
    for leftover in (name, seed_name):  # a run that crashed may have left them behind
        _drop(admin, leftover)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(seed_name)))
        # Seeding commits thousands of small transactions; waiting for each to reach the
        # disk buys nothing here. A copy does not inherit this: the steps commit as in
        # production.
        conn.execute(
            sql.SQL("ALTER DATABASE {} SET synchronous_commit TO off").format(
                sql.Identifier(seed_name)
            )
        )
    _flush_redis(services.redis_url)
    try:
        yield
    finally:
        for made in (name, seed_name):
            _drop(admin, made)
        _flush_redis(services.redis_url)


def step_database(services: Services, attempts: int = 10) -> None:
    """The bench database afresh, a copy of the seed database; Redis emptied.

    The cache is emptied too: its keys name a game's version, and the copy's
    games are back at versions the step before has played past.
    """
    import psycopg
    from psycopg import sql

    admin, name = _admin_url(services.database_url)
    _, seed_name = _admin_url(seed_database_url(services.database_url))
    _drop(admin, name)
    create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
        sql.Identifier(name), sql.Identifier(seed_name)
    )
    for attempt in range(attempts):
        try:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(create)
            break
        except psycopg.errors.ObjectInUse:  # autovacuum visiting the seed database
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)
    _flush_redis(services.redis_url)


def free_port() -> int:
    """``BENCH_PORT`` if set (a shared machine's allotted port), else any free one."""
    if os.environ.get("BENCH_PORT"):
        return int(os.environ["BENCH_PORT"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def site_env(services: Services, data_dir: Path, port: int) -> dict[str, str]:
    """The production-like settings the bench server runs with.

    DEBUG off and a real secret; plain HTTP on loopback, so the HTTPS redirect
    and secure-only cookies are off (in production a proxy terminates TLS);
    the benchmark switch on for the bare view and the X-Queries header.
    """
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DIAMINO_"))}
    for name in ("DATABASE_URL", "REDIS_URL", "EMAIL_HOST", "SITE_URL"):
        keep.pop(name, None)
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "diamino_site.settings",
        "DATABASE_URL": services.database_url,
        "REDIS_URL": services.redis_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "bench-" + secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": f"http://127.0.0.1:{port}",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_SSL_REDIRECT": "0",
        "DJANGO_HSTS_SECONDS": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "DIAMINO_DATA_DIR": str(data_dir),
        "DIAMINO_BENCH_VIEWS": "1",
        # A few simulated players play far faster than people: the limits would refuse them.
        "DIAMINO_RATE_LIMIT_SCALE": "1000",
        "PYTHONPATH": str(ROOT),
    }


def seed(
    env: dict[str, str], tables: str, premoves: int, first: int = 1, rounds: int = 1
) -> dict[str, object]:
    """Migrate, make the players and games (``benchmarks.web.seed``); its JSON.

    ``first`` is the first player's number: seeding again adds players after those made.
    ``rounds`` games are made for each table, to be played one after the other.
    """
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.web.seed",
            "--tables",
            tables,
            "--premoves",
            str(premoves),
            "--first",
            str(first),
            "--rounds",
            str(rounds),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(f"seeding the bench database failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout)


def profile(
    env: dict[str, str], seeded: dict[str, object], folder: Path, repeats: int, text: str | None
) -> dict[str, dict[str, object]]:
    """One request at a time, in-process, under pyinstrument (``benchmarks.web.profile``)."""
    players = folder / "players.json"
    players.write_text(json.dumps(seeded))
    command = [sys.executable, "-m", "benchmarks.web.profile", "--players", str(players)]
    command += ["--repeats", str(repeats)]
    if text:
        command += ["--text", str(ROOT / text)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise RuntimeError(f"profiling the endpoints failed:\n{result.stderr[-4000:]}")
    return json.loads(result.stdout)


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    base_url: str
    workers: int
    log: Path

    def worker_pids(self) -> list[int]:
        """gunicorn's workers: the master's children."""
        try:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
            return [int(p) for p in children.read_text().split()]
        except OSError:
            return []

    def warm_up(self, paths: list[str], session: str) -> None:
        """Each worker, in all likelihood, serves each page before anything is measured.

        A fresh worker's first game page compiles its templates and opens the word list
        (262 ms against 26 for the next one on the machine of 2026-12-03 afternoon), and
        fills the Redis page cache that ``step_database`` emptied. Sync workers take the
        connections as the kernel hands them out, so each page is asked for by two
        clients a worker at once, twice. Only these pages: a worker's first preview or
        Play still pays for the rules engine's first use. The site's load bench warms
        its workers the same way through its simulated players (``web/__init__.py``).
        """

        def get(path: str) -> None:
            headers = {"Cookie": f"sessionid={session}"}
            request = urllib.request.Request(self.base_url + path, headers=headers)
            with urllib.request.urlopen(request, timeout=60) as answer:
                answer.read()

        with ThreadPoolExecutor(2 * self.workers) as clients:
            for _ in range(2):
                list(clients.map(get, [path for path in paths for _ in range(2 * self.workers)]))


def _cpu_of(pid: int) -> float | None:
    """User + system CPU seconds of ``pid`` so far; None once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def postgres_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` (their title names it)."""
    pids = []
    needle = f" {database} ".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if title.startswith(b"postgres:") and needle in title:
            pids.append(int(entry.name))
    return pids


class CpuMeter:
    """CPU seconds used by the server side: gunicorn (master and workers) and the
    PostgreSQL backends of the bench database, sampled every ``interval`` s.

    Unlike latency and throughput, CPU time per request hardly changes when other
    programs share the machine, so it is the figure to compare between runs. A
    process that exits between two samples loses at most ``interval`` s of CPU
    (gunicorn's workers live the whole run; Django reconnects to PostgreSQL after
    ``conn_max_age``, 60 s).
    """

    def __init__(self, server: Server, database: str, interval: float = 0.25) -> None:
        self.server = server
        self.database = database
        self.interval = interval
        self.totals = {"gunicorn": 0.0, "postgres": 0.0}
        self._last: dict[int, tuple[str, float]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="cpu-meter", daemon=True)

    def __enter__(self) -> CpuMeter:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> dict[str, float]:
        """Bring the totals up to date and return a copy."""
        groups = [
            ("gunicorn", pid) for pid in [self.server.process.pid, *self.server.worker_pids()]
        ]
        groups += [("postgres", pid) for pid in postgres_backends(self.database)]
        with self._lock:
            for group, pid in groups:
                now = _cpu_of(pid)
                if now is None:
                    continue
                before = self._last.get(pid)
                # A new process is counted from its first sample (its start-up is not load).
                self.totals[group] += now - before[1] if before else 0.0
                self._last[pid] = (group, now)
            return dict(self.totals)


@contextmanager
def gunicorn(
    env: dict[str, str],
    port: int,
    workers: int,
    data_dir: Path,
    *,
    host: str = "127.0.0.1",
    name: str = "gunicorn",
    wrap: Callable[[list[str]], list[str]] | None = None,
) -> Iterator[Server]:
    """gunicorn's sync workers on ``host``:``port``, stopped (and waited for) at the end,
    its output in ``data_dir``/``name``.log. ``wrap`` puts the command in front of what
    runs it (``SOAK_HOSTS=1``: a host of its own), which must exec gunicorn in the
    same process, so that the process is the master."""
    log = data_dir / f"{name}.log"
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "diamino_site.wsgi",
        "--workers",
        str(workers),
        "--bind",
        f"{host}:{port}",
        "--backlog",
        "2048",  # hundreds of players may be waiting at once
        "--timeout",
        "60",
        "--log-level",
        "warning",
    ]
    if wrap is not None:
        command = wrap(command)
    with open(log, "wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Server(process, f"http://{host}:{port}", workers, log)
    try:
        _wait_ready(server)
        yield server
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    """SIGTERM, waited for; SIGKILL if it does not end within ``timeout`` seconds."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _wait_ready(server: Server, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {server.log.read_text()[-3000:]}")
        if len(server.worker_pids()) >= server.workers:
            try:
                with urllib.request.urlopen(server.base_url + "/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer /healthz within {timeout:.0f} s")


@contextmanager
def data_folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="diamino-bench-") as folder:
        yield Path(folder)
