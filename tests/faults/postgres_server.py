"""A private PostgreSQL cluster for the fault tests: stopped and started at will.

The cluster is ``benchmarks.servers.PostgresServer`` (initdb and pg_ctl in a
temporary folder, on a free port: never the machine's PostgreSQL on 5432),
which the soak uses too.

``postgres_server`` (a session fixture) skips with the reason where initdb is
missing, and fails instead under ``DIAMINO_REQUIRE_SERVICES=1``, as the other
``services`` tests do (tests/conftest.py). ``site_on_postgres`` gives each test
a fresh database of it, migrated, with two players at a started game, and the
environment the site's processes (gunicorn, a Celery worker) run with there.
"""

from __future__ import annotations

import itertools
import json
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from benchmarks.servers import PostgresServer, postgres_missing, private_postgres

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = "diamino_faults_template"
_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    reason = postgres_missing()
    if reason is not None:
        if os.environ.get("DIAMINO_REQUIRE_SERVICES") == "1":
            pytest.fail(f"DIAMINO_REQUIRE_SERVICES=1 but {reason}", pytrace=False)
        pytest.skip(f"{reason}; install it to run the PostgreSQL fault tests")
    with private_postgres() as server:
        yield server


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
