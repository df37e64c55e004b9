"""Private servers a run starts and breaks at will: PostgreSQL, Redis and an SMTP sink.

Each is the run's own, on a free port of 127.0.0.1, never the machine's
PostgreSQL (5432) or Redis (6379), which other people use. The soak
(``benchmarks/soak``) plays on them while it stops, freezes and restarts
them; the fault tests (``tests/faults``) wrap them in fixtures.

- ``PostgresServer``: a cluster made with Debian's ``initdb`` and ``pg_ctl``
  (``/usr/lib/postgresql/*/bin``) in a temporary folder, its socket there.
  PostgreSQL refuses to run as root, so as root the cluster belongs to the
  ``postgres`` user (``runuser``). Trust authentication, no fsync: a throwaway.
- ``RedisServer``: a ``redis-server`` keeping no files (``--save ""
  --appendonly no``), so stopping it loses what it held, as a restarted Redis
  without persistence would.
- ``SmtpServer``: aiosmtpd in a thread; it accepts, refuses every ``MAIL
  FROM`` with 451 while ``refusing``, or is not there (``stop``).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes
from email.message import Message
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import Any

OWNER = "postgres"  # the system user a cluster runs as when the run is root's
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now (the system's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- PostgreSQL ------------------------------------------------------------------


def postgres_bin_dir() -> Path | None:
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
    if postgres_bin_dir() is None:
        return "PostgreSQL's initdb is not installed (/usr/lib/postgresql/*/bin; apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OWNER)
        except KeyError:
            return f"running as root, and there is no {OWNER!r} user to run initdb as"
        if shutil.which("runuser") is None:
            return "running as root, and runuser (util-linux) is missing"
    return None


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

    def start(self, *settings: str) -> None:
        """Start it; ``settings`` adds ``name=value`` server settings to the defaults."""
        options = (
            f"-c port={self.port} -c listen_addresses=127.0.0.1"
            f" -c unix_socket_directories={self.folder} -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off"
        )
        options += "".join(f" -c {setting}" for setting in settings)
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")
        self._settings = settings

    def stop(self, mode: str = "fast") -> None:
        """``fast``: sessions are cut, as in a restart; ``immediate``: as in a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start(*getattr(self, "_settings", ()))

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


@contextlib.contextmanager
def private_postgres(*settings: str) -> Iterator[PostgresServer]:
    """A running cluster in a fresh temporary folder, removed afterwards.

    Check ``postgres_missing()`` first: this raises where initdb cannot run.
    """
    reason = postgres_missing()
    bin_dir = postgres_bin_dir()
    if reason is not None or bin_dir is None:
        raise RuntimeError(reason)
    folder = Path(tempfile.mkdtemp(prefix="diamino-pg-"))  # not under a root-only folder
    if os.geteuid() == 0:
        owner = pwd.getpwnam(OWNER)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = PostgresServer(bin_dir, folder, free_port())
    try:
        server.init()
        server.start(*settings)
        yield server
    finally:
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            server.stop("immediate")  # unless already stopped, or never started
        shutil.rmtree(folder, ignore_errors=True)


# --- Redis -----------------------------------------------------------------------


def redis_missing() -> str | None:
    if not os.path.exists(REDIS_SERVER):
        return "redis-server is not installed (apt-get install redis-server)"
    return None


class RedisServer:
    """One ``redis-server`` process on ``port``; ``stop``/``start`` keep the same port."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert self.process is None, "already running"
        # fmt: off
        command = [
            REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", str(self.folder),
            "--loglevel", "warning",
        ]
        # fmt: on
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop it: connections are refused (error 111) until ``start``."""
        if self.process is None:
            return
        self.resume()
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process = None

    def hang(self) -> None:
        """Freeze it (SIGSTOP): connections are accepted and never answered."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


@contextlib.contextmanager
def private_redis() -> Iterator[RedisServer]:
    """A running private Redis in a temporary folder; stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="diamino-redis-") as folder:
        server = RedisServer(Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


# --- SMTP ------------------------------------------------------------------------


class SmtpServer:
    """An SMTP server that accepts, refuses with 451 (``refusing``), or is stopped.

    ``received`` holds every accepted message whole, for a test to read;
    ``keep_messages=False`` (a long run: thousands of emails) keeps only their
    headers. ``message_ids`` counts the accepted messages by ``Message-ID``, and
    ``first_received`` notes when each first came.
    """

    def __init__(self, *, keep_messages: bool = True, port: int | None = None) -> None:
        self.port = port or free_port()
        self.refusing = False
        self.keep_messages = keep_messages
        self.received: list[Message] = []
        self.message_ids: Counter[str] = Counter()
        self.first_received: dict[str, float] = {}  # Message-ID: time.time() it first came
        self.refused = 0
        self._lock = threading.Lock()
        self._controller: Any = None

    # aiosmtpd handler hooks
    async def handle_MAIL(
        self, server: Any, session: Any, envelope: Any, address: str, mail_options: list[str]
    ) -> str:
        if self.refusing:
            self.refused += 1
            return "451 4.3.0 Try again later"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or b""
        if self.keep_messages:
            message = message_from_bytes(raw)
        else:
            message = BytesHeaderParser().parsebytes(raw)
        with self._lock:
            self.received.append(message)
            message_id = str(message.get("Message-ID", "")).strip()
            self.message_ids[message_id] += 1
            self.first_received.setdefault(message_id, time.time())
        return "250 Message accepted for delivery"

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        assert self._controller is None, "already running"
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def recipients(self) -> list[str]:
        return sorted(message["To"] for message in self.received)
