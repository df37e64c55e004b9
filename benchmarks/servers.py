"""Private servers a run starts and breaks at will: PostgreSQL, Redis, an SMTP sink, a push service.

Each is the run's own, on a free port of 127.0.0.1 (and of ``host`` when
one is given: ``SOAK_HOSTS=1`` serves the soak's hosts at its services
namespace's address, ``benchmarks/soak/hosts.py``), never the machine's
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
- ``PushService``: a Web Push service in a thread (``http.server``), which
  checks what a browser's would (the VAPID JWT, the aes128gcm body, decrypted
  with the device's keys made here); it accepts (201), answers 503 while
  ``refusing``, or what a test lines up in ``answers``. The web push tests
  (``tests/notifications``) and the soak's push players use it.
"""

from __future__ import annotations

import base64
import contextlib
import glob
import json
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
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from email.parser import BytesHeaderParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

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
    host: str = "127.0.0.1"  # where ``url`` points; it listens on 127.0.0.1 too

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "postgres.log"

    def url(self, database: str) -> str:
        return f"postgres://postgres@{self.host}:{self.port}/{database}"

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
        if (
            self.host != "127.0.0.1"
        ):  # initdb trusts loopback only: the hosts of ``host``'s subnet too
            with open(self.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
                hba.write("host all all samenet trust\n")

    def start(self, *settings: str) -> None:
        """Start it; ``settings`` adds ``name=value`` server settings to the defaults."""
        listen = ",".join(dict.fromkeys(["127.0.0.1", self.host]))
        options = (
            f"-c port={self.port} -c listen_addresses={listen}"
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
def private_postgres(*settings: str, host: str = "127.0.0.1") -> Iterator[PostgresServer]:
    """A running cluster in a fresh temporary folder, removed afterwards; it listens on
    127.0.0.1 and ``host``, its ``url`` is ``host``'s.

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
    server = PostgresServer(bin_dir, folder, free_port(), host)
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
    """One ``redis-server`` process on ``port`` of 127.0.0.1 and ``host``, its ``url``
    ``host``'s; ``stop``/``start`` keep the same port."""

    def __init__(self, folder: Path, host: str = "127.0.0.1") -> None:
        self.folder = folder
        self.host = host
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    def start(self) -> None:
        assert self.process is None, "already running"
        # fmt: off
        command = [
            REDIS_SERVER, "--port", str(self.port),
            "--bind", *dict.fromkeys(["127.0.0.1", self.host]),
            "--save", "", "--appendonly", "no", "--dir", str(self.folder),
            "--loglevel", "warning",
        ]
        # fmt: on
        if self.host != "127.0.0.1":  # no password: Redis answers loopback only unless told
            command += ["--protected-mode", "no"]
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
def private_redis(host: str = "127.0.0.1") -> Iterator[RedisServer]:
    """A running private Redis in a temporary folder; stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="diamino-redis-") as folder:
        server = RedisServer(Path(folder), host)
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
    ``first_received`` notes when each first came. It listens on ``host``.
    """

    def __init__(
        self, *, keep_messages: bool = True, port: int | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.host = host
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
        self._controller = Controller(self, hostname=self.host, port=self.port)
        self._controller.start()

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def recipients(self) -> list[str]:
        return sorted(message["To"] for message in self.received)


# --- Web push --------------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_bytes(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def vapid_pair() -> tuple[str, str]:
    """A VAPID key pair as the settings take it: (public, private), base64url."""
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return b64url(public_bytes(key)), b64url(private)


@dataclass
class Device:
    """A browser's side of one subscription: its keys, kept here to decrypt."""

    name: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))


@dataclass
class Received:
    device: str
    status: int
    claims: dict[str, Any] | None = None
    payload: dict[str, Any] | None = None
    error: str = ""


class PushService:
    """A Web Push service on 127.0.0.1 (or ``host``) that checks what a browser's would.

    Each device it serves has a key pair made here (as a browser makes one);
    ``subscription()`` gives what the browser would hand the page. On every POST:

    - while ``refusing``, 503 (a push service that is down: the outbox retries);
    - the VAPID header (RFC 8292): ``Authorization: vapid t=<JWT>, k=<key>``,
      ``k`` the site's public key, the JWT signed ES256 by that key, its ``aud``
      the origin of the endpoint and its ``exp`` in the future (401 otherwise);
    - the body (RFC 8291, ``Content-Encoding: aes128gcm``) decrypted with the
      device's private key and auth secret, with http_ece (400 when it cannot);
    - then the next status of ``answers`` (201 once they are used up).

    ``received`` holds a record of each request (``keep_received=False``, a long
    run: none). ``push_ids`` counts the pushes accepted (2xx) by their payload's
    ``id`` (the outbox row's, ``notifications/push.py``), ``first_received``
    notes when each first came, ``refused`` counts the 503s answered while
    ``refusing`` and ``rejected`` the requests refused for what they held.
    """

    def __init__(
        self,
        vapid_public_key: str,
        *,
        keep_received: bool = True,
        port: int = 0,
        host: str = "127.0.0.1",
    ) -> None:
        self.vapid_public_key = vapid_public_key
        self.keep_received = keep_received
        self.devices: dict[str, Device] = {}
        self.answers: list[int] = []
        self.received: list[Received] = []
        self.refusing = False
        self.refused = 0
        self.rejected: Counter[str] = Counter()
        self.push_ids: Counter[str] = Counter()
        self.first_received: dict[str, float] = {}
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                name = self.path.rsplit("/", 1)[-1]
                record = service.answer(name, self.headers, body)
                self.send_response(record.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.port = int(self.server.server_address[1])
        self.origin = f"http://{host}:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> PushService:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def subscription(self, name: str) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives the page, for a new device ``name``."""
        device = self.devices[name] = Device(name)
        return {
            "endpoint": f"{self.origin}/push/{name}",
            "keys": {"p256dh": b64url(public_bytes(device.key)), "auth": b64url(device.auth)},
        }

    def answer(self, name: str, headers: Message, body: bytes) -> Received:
        """What the service answers one POST to device ``name``; counted."""
        if self.refusing:
            with self._lock:
                self.refused += 1
            return Received(name, 503, error="refusing")
        record = self.check(name, headers, body)
        with self._lock:
            if record.error:
                self.rejected[record.error.partition(":")[0]] += 1
            else:
                record.status = self.answers.pop(0) if self.answers else 201
            if 200 <= record.status < 300 and record.payload is not None:
                push_id = str(record.payload.get("id", ""))
                self.push_ids[push_id] += 1
                self.first_received.setdefault(push_id, time.time())
            if self.keep_received:
                self.received.append(record)
        return record

    def check(self, name: str, headers: Message, body: bytes) -> Received:
        device = self.devices.get(name)
        if device is None:
            return Received(name, 404, error="no such subscription")
        try:
            claims = self.verify_vapid(headers.get("Authorization", ""))
        except ValueError as exc:
            return Received(name, 401, error=f"bad VAPID: {exc}")
        if headers.get("Content-Encoding") != "aes128gcm":
            return Received(name, 415, claims, error="not aes128gcm")
        try:
            plain = http_ece.decrypt(
                body, private_key=device.key, auth_secret=device.auth, version="aes128gcm"
            )
        except Exception as exc:
            return Received(name, 400, claims, error=f"cannot decrypt: {exc}")
        return Received(name, 0, claims, json.loads(plain))

    def verify_vapid(self, authorization: str) -> dict[str, Any]:
        """The JWT's claims once its signature, audience and expiry are right (RFC 8292)."""
        scheme, _space, params = authorization.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError("not a vapid Authorization")
        fields = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        if fields.get("k") != self.vapid_public_key:
            raise ValueError("k is not the site's public key")
        token = fields.get("t", "")
        head, claims_part, signature = token.split(".")
        if json.loads(unb64url(head)).get("alg") != "ES256":
            raise ValueError("not ES256")
        raw = unb64url(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), unb64url(self.vapid_public_key)
        )
        try:
            public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise ValueError("bad signature") from None
        claims = json.loads(unb64url(claims_part))
        if claims.get("aud") != self.origin:
            raise ValueError(f"aud {claims.get('aud')!r} is not {self.origin!r}")
        if int(claims.get("exp", 0)) <= time.time():
            raise ValueError("expired")
        return claims
