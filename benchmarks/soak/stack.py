"""The soak's production stack: its processes, and the faults done to them.

The web processes are ``benchmarks.web.stack.gunicorn`` (the bench's);
here are the others a production site runs — a Celery worker, beat and the
mail-in SMTP server — each started in a session of its own so that the whole
of it (a prefork worker's children too) can be killed at once, and started
again as a supervisor (systemd's ``Restart=``) would.

A fault (``FAULTS``) is a function of the stack, run in a thread while the
players play; it returns when the service is back, and the soak notes its
window.

With ``SOAK_HOSTS=1`` (``hosts.py``) the worker and beat are each started on a
host of their own and there are two web servers, each on its own host; the
faults are the same (a signal reaches a process in another network namespace
as any other).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.servers import PostgresServer, PushService, RedisServer, SmtpServer
from benchmarks.soak import hosts as soak_hosts
from benchmarks.web import stack as web_stack

ROOT = web_stack.ROOT
# A supervisor's delay before it starts again a process that ended (systemd's RestartSec=).
RESTART_AFTER = 5.0
BIN = Path(sys.executable).parent


class Process:
    """One long-running program of the stack, its output appended to ``log``."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        # Exits nobody asked for (the exit code of each), restarted by ``supervise``.
        self.exits: list[int] = []
        self.wanted = False  # started and not stopped or killed on purpose since
        self.lock = threading.Lock()

    def start(self) -> None:
        with self.lock, open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killpg reaches its children
            )
            self.starts += 1
            self.wanted = True

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL to the whole group, as a lost machine or the OOM killer would."""
        with self.lock:
            self.wanted = False
            if self.process is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)

    def stop(self, timeout: float = 30) -> None:
        """SIGTERM (a warm shutdown for Celery), then SIGKILL after ``timeout`` s."""
        with self.lock:
            self.wanted = False
            if self.process is None or self.process.poll() is not None:
                return
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
            except ProcessLookupError:
                pass

    def exited_unasked(self) -> int | None:
        """The exit code when the process ended though it was wanted, else None (noted once)."""
        with self.lock:
            if not self.wanted or self.process is None:
                return None
            code = self.process.poll()
            if code is None:
                return None
            self.wanted = False
            self.exits.append(code)
            return code


@contextlib.contextmanager
def supervise(processes: dict[str, Process], restart_after: float) -> Iterator[None]:
    """Start again, ``restart_after`` s later, a process that ended on its own, as
    systemd's ``Restart=always`` does in production (README, "Operations"): a Celery
    worker exits on an error it cannot recover from (seen here: kombu's Redis transport
    raising while it put back its unacknowledged tasks after Redis went away).
    Each such exit is counted (``Process.exits``) and reported."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.5):
            for process in processes.values():
                if process.exited_unasked() is not None and not done.wait(restart_after):
                    process.start()

    thread = threading.Thread(target=watch, name="soak-supervisor", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(timeout=restart_after + 5)


def site_env(
    services: web_stack.Services,
    folder: Path,
    port: int,
    smtp_port: int,
    mail_in_port: int,
    vapid: tuple[str, str] | None = None,
) -> dict[str, str]:
    """The bench's production-like settings, with real SMTP out and mail-in on, and web
    push on when ``vapid`` (the run's key pair, public and private) is given."""
    env = web_stack.site_env(services, folder, port)
    env.pop("DJANGO_EMAIL_BACKEND")  # EMAIL_HOST set: Django's SMTP backend, as in production
    env.pop("DIAMINO_BENCH_VIEWS")
    return {
        **env,
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_USE_TLS": "0",
        "DEFAULT_FROM_EMAIL": "Diamino <diamino@soak.invalid>",
        "MAIL_IN_DOMAIN": "soak.invalid",
        "MAIL_IN_ENABLED": "1",
        "MAIL_IN_HOST": "127.0.0.1",
        "MAIL_IN_PORT": str(mail_in_port),
        # Simulated players reply far faster than people do.
        "MAIL_IN_RATE_COUNT": "1000",
        **(
            {
                "DIAMINO_VAPID_PUBLIC_KEY": vapid[0],
                "DIAMINO_VAPID_PRIVATE_KEY": vapid[1],
                "DIAMINO_VAPID_SUBJECT": "mailto:diamino@soak.invalid",
            }
            if vapid
            else {}
        ),
    }


def processes(
    env: dict[str, str],
    folder: Path,
    concurrency: int,
    on_hosts: Mapping[str, soak_hosts.Place] | None = None,
) -> dict[str, Process]:
    """The worker, beat and mail-in, not started yet; with ``on_hosts``, the worker and
    beat each on its host (mail-in stays with the services)."""
    celery = str(BIN / "celery")
    places = on_hosts or {}
    beat_folder = places["beat"].data_dir if "beat" in places else folder

    def placed(name: str, command: list[str]) -> Process:
        if name not in places:
            return Process(name, command, env, folder / f"{name}.log")
        place = places[name]
        return Process(name, place.wrap(command), place.env(env), folder / f"{name}.log")

    return {
        "worker": placed(
            "worker",
            [
                celery,
                "-A",
                "diamino_site",
                "worker",
                "--loglevel=WARNING",
                "--concurrency",
                str(concurrency),
                "--without-gossip",
                "--without-mingle",
            ],
        ),
        "beat": placed(
            "beat",
            [
                celery,
                "-A",
                "diamino_site",
                "beat",
                "--loglevel=WARNING",
                "--schedule",
                str(beat_folder / "celerybeat-schedule"),
            ],
        ),
        "mail-in": Process(
            "mail-in",
            [sys.executable, "manage.py", "mail_in"],
            env,
            folder / "mail-in.log",
        ),
    }


@dataclass
class Stack:
    """What the faults act on."""

    redis: RedisServer
    smtp: SmtpServer
    webs: dict[str, web_stack.Server]  # "gunicorn", or each web host's by its name
    processes: dict[str, Process]
    postgres: PostgresServer | None  # None: the machine's PostgreSQL, never restarted
    push: PushService | None = None
    redis_seconds: float = 30.0
    smtp_seconds: float = 60.0
    push_seconds: float = 60.0
    restart_after: float = RESTART_AFTER
    rng: random.Random = field(default_factory=random.Random)

    def logs(self) -> dict[str, Path]:
        return {p.name: p.log for p in self.processes.values()} | {
            name: web.log for name, web in self.webs.items()
        }

    def log_sizes(self) -> dict[str, int]:
        sizes = {}
        for name, path in self.logs().items():
            try:
                sizes[name] = path.stat().st_size
            except OSError:
                sizes[name] = 0
        return sizes


def redis_stopped(stack: Stack) -> str:
    stack.redis.stop()
    time.sleep(stack.redis_seconds)
    stack.redis.start()
    return f"{stack.redis_seconds:.0f} s, its data lost (no persistence)"


def redis_frozen(stack: Stack) -> str:
    stack.redis.hang()
    time.sleep(stack.redis_seconds)
    stack.redis.resume()
    return f"SIGSTOP for {stack.redis_seconds:.0f} s"


def worker_killed(stack: Stack) -> str:
    worker = stack.processes["worker"]
    worker.kill()
    time.sleep(stack.restart_after)
    worker.start()
    return (
        f"SIGKILL to the worker and its children, started again {stack.restart_after:.0f} s later"
    )


def postgres_restarted(stack: Stack) -> str:
    assert stack.postgres is not None
    started = time.monotonic()
    stack.postgres.restart("fast")
    return f"pg_ctl restart -m fast, {time.monotonic() - started:.1f} s"


def smtp_451(stack: Stack) -> str:
    stack.smtp.refusing = True
    before = stack.smtp.refused
    time.sleep(stack.smtp_seconds)
    stack.smtp.refusing = False
    return f"{stack.smtp_seconds:.0f} s, {stack.smtp.refused - before} MAIL FROM refused"


def push_503(stack: Stack) -> str:
    if stack.push is None:
        return "no push service in this run"
    stack.push.refusing = True
    before = stack.push.refused
    time.sleep(stack.push_seconds)
    stack.push.refusing = False
    return f"{stack.push_seconds:.0f} s, {stack.push.refused - before} pushes answered 503"


def web_worker_killed(stack: Stack) -> str:
    names = sorted(stack.webs)
    name = stack.rng.choice(names) if len(names) > 1 else names[0]
    where = "" if len(stack.webs) == 1 else f" on {name}"
    pids = stack.webs[name].worker_pids()
    if not pids:
        return f"no gunicorn worker to kill{where}"
    pid = stack.rng.choice(pids)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return f"gunicorn worker {pid}{where} had already gone"
    return f"SIGKILL to gunicorn worker {pid}{where} (the master starts another)"


FAULTS: dict[str, Callable[[Stack], str]] = {
    "redis-stopped": redis_stopped,
    "redis-frozen": redis_frozen,
    "worker-killed": worker_killed,
    "postgres-restarted": postgres_restarted,
    "smtp-451": smtp_451,
    "push-503": push_503,
    "web-worker-killed": web_worker_killed,
}


def fault_seconds(name: str, stack: Stack) -> float:
    """About how long ``name`` lasts: a fault starts only if it can end before the players stop."""
    return {
        "redis-stopped": stack.redis_seconds,
        "redis-frozen": stack.redis_seconds,
        "worker-killed": stack.restart_after + 5,
        "postgres-restarted": 10.0,
        "smtp-451": stack.smtp_seconds,
        "push-503": stack.push_seconds,
        "web-worker-killed": 1.0,
    }[name]
