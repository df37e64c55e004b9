"""A private PostgreSQL cluster for the fault tests: stopped and started at will.

Made with Debian's ``initdb`` and ``pg_ctl`` (``/usr/lib/postgresql/*/bin``) in
a temporary folder, on a free port of 127.0.0.1, its socket in that folder: it
is the tests' own, never the machine's PostgreSQL on 5432, which other people
use. PostgreSQL refuses to run as root, so as root the cluster belongs to the
``postgres`` user (``runuser``). Trust authentication, no fsync: a throwaway.

``postgres_server`` (a session fixture) skips with the reason where initdb is
missing, and fails instead under ``DIAMINO_REQUIRE_SERVICES=1``, as the other
``services`` tests do (tests/conftest.py). ``site_on_postgres`` gives each test
a fresh database of it, migrated, with two players at a started game, and the
environment the site's processes (gunicorn, a Celery worker) run with there.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

OWNER = "postgres"  # the system user the cluster runs as when the tests run as root
ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "diamino_faults_template"
_numbers = itertools.count(1)


def _bin_dir() -> Path | None:
    """The newest PostgreSQL's programs, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(found[-1]).parent if found else None


def _version(path: str) -> float:
    try:
        return float(Path(path).parts[-3])
    except ValueError:
        return 0.0


def postgres_missing() -> str | None:
    """Why a private cluster cannot be made here, or None when it can."""
    if _bin_dir() is None:
        return "PostgreSQL's initdb is not installed (/usr/lib/postgresql/*/bin; apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OWNER)
        except KeyError:
            return f"running as root, and there is no {OWNER!r} user to run initdb as"
        if shutil.which("runuser") is None:
            return "running as root, and runuser (util-linux) is missing"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class PostgresServer:
    """One cluster: ``url(name)`` for a database of it; stop, start and restart it."""

    bin_dir: Path
    folder: Path
    port: int

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "postgres.log"

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, program: str, *args: str, timeout: float = 120) -> None:
        command = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", OWNER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            tail = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{program} {' '.join(args)} failed:\n{done.stderr}\n{tail}")

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")

    def start(self) -> None:
        options = (
            f"-c port={self.port} -c listen_addresses=127.0.0.1"
            f" -c unix_socket_directories={self.folder} -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """``fast``: sessions are cut, as in a restart; ``immediate``: as in a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def create_database(self, name: str, template: str | None = None) -> str:
        """A new database (a copy of ``template`` if given); its URL."""
        import psycopg
        from psycopg import sql

        query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template:
            query += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(query)
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    reason = postgres_missing()
    if reason is not None:
        if os.environ.get("DIAMINO_REQUIRE_SERVICES") == "1":
            pytest.fail(f"DIAMINO_REQUIRE_SERVICES=1 but {reason}", pytrace=False)
        pytest.skip(f"{reason}; install it to run the PostgreSQL fault tests")
    folder = Path(tempfile.mkdtemp(prefix="diamino-pg-"))  # not under pytest's root-only folder
    if os.geteuid() == 0:
        owner = pwd.getpwnam(OWNER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = PostgresServer(_bin_dir(), folder, free_port())  # type: ignore[arg-type]
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            server.stop("immediate")  # unless already stopped, or never started
        shutil.rmtree(folder, ignore_errors=True)


def site_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    """Production-like settings on ``database_url``: DEBUG off, plain HTTP on loopback.

    No REDIS_URL unless ``extra`` gives one: then tasks go to Redis for a worker;
    without, they run eagerly in the web process, sessions in the database.
    """
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DIAMINO_"))}
    for name in ("DATABASE_URL", "REDIS_URL", "EMAIL_HOST", "SITE_URL"):
        keep.pop(name, None)
    return {
        **keep,
        "DJANGO_SETTINGS_MODULE": "diamino_site.settings",
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "faults-" + secrets.token_urlsafe(40),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_SSL_REDIRECT": "0",
        "DJANGO_HSTS_SECONDS": "0",
        "DJANGO_LOG_LEVEL": "WARNING",
        "DJANGO_EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "DIAMINO_DATA_DIR": str(data_dir),
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def run_site(env: dict[str, str], *command: str, timeout: float = 300) -> dict:
    """``python -m tests.faults.site COMMAND`` in ``env``; its JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.faults.site", *command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tests.faults.site {' '.join(command)} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout)


@dataclass
class Site:
    """A fresh database with two players at a started game, and how to run the site on it."""

    server: PostgresServer
    data_dir: Path
    database_url: str
    game: int
    sessions: dict[str, str]
    env: dict[str, str] = field(default_factory=dict)

    def run(self, *command: str) -> dict:
        return run_site(self.env, *command)


@pytest.fixture(scope="session")
def faults_data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="diamino-faults-") as folder:
        yield Path(folder)


@pytest.fixture(scope="session")
def migrated_template(postgres_server: PostgresServer, faults_data_dir: Path) -> str:
    """A database migrated once, which every test's database copies (faster than migrating)."""
    url = postgres_server.create_database(TEMPLATE)
    run_site(site_env(url, faults_data_dir), "prepare")
    return TEMPLATE


def make_site(server: PostgresServer, template: str, data_dir: Path, **extra: str) -> Site:
    """A new database copied from the template, seeded in ``extra``'s environment."""
    url = server.create_database(f"diamino_faults_{os.getpid()}_{next(_numbers)}", template)
    env = site_env(url, data_dir, **extra)
    seeded = run_site(env, "seed")
    return Site(server, data_dir, url, seeded["game"], seeded["sessions"], env)
