"""``SOAK_HOSTS=1``: the two web processes, the worker and beat each on a host of its own.

A *host* here is a Linux network namespace with its own address, and a mount
namespace in which the process sees its own data folder (``DIAMINO_DATA_DIR``)
and nothing of the others': ``/tmp``, ``/var/tmp`` and ``/dev/shm`` are fresh
empty tmpfs, and so are the soak's own folder (the other hosts' folders, the
logs) and the checkout's ``data/``. What stays shared is what every machine of a
deployment holds the same: the code, the virtualenv and the word lists. So if
anything relied on one machine's files (a lock file, a cache on disk, a
schedule, an upload), the soak would lose or double something and fail.

The network, all of it in namespaces the soak makes (``Plan.setup``) and
deletes (``Plan.teardown``), with nothing added to the machine's own
network namespace, which other people's processes share::

    <prefix>-services   10.213.0.1/24 on a bridge: PostgreSQL, Redis, the SMTP
                        sink, the push service, mail-in, and the soak itself
                        (the players, the faults, the audit)
    <prefix>-web-1      10.213.0.11   gunicorn on port 8000
    <prefix>-web-2      10.213.0.12   gunicorn on port 8000
    <prefix>-worker     10.213.0.21   the Celery worker
    <prefix>-beat       10.213.0.22   Celery beat

each host joined to the bridge by a veth pair. The players are spread over the
two web hosts' addresses, one player always on the same one (as behind a
load balancer with sticky connections), alternately.

The command runs as two processes: the outer one (``run_outside``, in the
machine's namespace) makes the namespaces, runs the soak again inside the
services namespace (``ip netns exec``), waits for it, and then, whatever
happened (an exception, Ctrl-C, SIGTERM), kills any process left in the
namespaces and deletes them. The inner one knows its namespaces by
``DIAMINO_SOAK_NETNS`` (their prefix).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from benchmarks import servers
from benchmarks.web import stack as web_stack

ENV_NAME = "DIAMINO_SOAK_NETNS"  # the outer process tells the inner one the namespaces' prefix
SERVICES_ADDRESS = "10.213.0.1"
PREFIX_LENGTH = 24
HOSTS = {
    "web-1": "10.213.0.11",
    "web-2": "10.213.0.12",
    "worker": "10.213.0.21",
    "beat": "10.213.0.22",
}
WEB_HOSTS = ("web-1", "web-2")
WEB_PORT = 8000
BRIDGE = "br0"
# Run in each host's own mount namespace before its program: hide every folder in
# ``$2`` (colon-separated) under an empty tmpfs, then bind the host's own data folder
# (``$1``, the shell's working directory meanwhile, reached through /proc/self/cwd
# since its path is hidden by then) back at its path, and exec the program in the
# same process, from the directory it was started in.
PRIVATE_DISK = (
    'own=$1; hide=$2; shift 2; back=$PWD; cd "$own" || exit 111; IFS=:; '
    'for dir in $hide; do [ -d "$dir" ] || continue; '
    'mount -t tmpfs -o size=512m,mode=1777 diamino-host "$dir" || exit 111; done; '
    'mkdir -p "$own" && mount --no-canonicalize --bind /proc/self/cwd "$own" || exit 111; '
    'cd "$back" && exec "$@"'
)
HIDDEN = ("/tmp", "/var/tmp", "/dev/shm")
# The checkout and the venv the hosts run: a folder of HIDDEN that holds either (a
# clone made under /tmp) stays as it is, or the hosts would find no code to run.
CODE = (Path(__file__).resolve().parents[2], Path(sys.prefix).resolve())


def hideable(folders: tuple[str, ...]) -> list[str]:
    """``folders`` less those that hold the code the hosts run (``CODE``)."""
    return [d for d in folders if not any(code.is_relative_to(d) for code in CODE)]


class HostsUnavailable(RuntimeError):
    """The namespaces cannot be made here: why, in one line."""


def missing() -> str | None:
    """Why SOAK_HOSTS=1 cannot run here, or None."""
    reason = namespaces_missing()
    if reason:
        return reason
    reason = servers.postgres_missing() or servers.redis_missing()
    if reason:
        return f"{reason}; the hosts reach only the soak's own servers"
    return None


def namespaces_missing() -> str | None:
    """Why the namespaces cannot be made here, or None."""
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux's"
    if os.geteuid() != 0:
        return "making network namespaces (ip netns add) needs root; run it as root or without SOAK_HOSTS"
    for tool, package in (("ip", "iproute2"), ("unshare", "util-linux"), ("mount", "util-linux")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install {package})"
    return None


@dataclass(frozen=True)
class Plan:
    """The namespaces of one run, named ``<prefix>-<host>``, and the commands about them."""

    prefix: str

    @property
    def services(self) -> str:
        return f"{self.prefix}-services"

    def namespace(self, host: str) -> str:
        return f"{self.prefix}-{host}"

    @property
    def namespaces(self) -> list[str]:
        return [self.services, *(self.namespace(host) for host in HOSTS)]

    def setup(self) -> list[list[str]]:
        """The ``ip`` commands that make the namespaces and join them, in order. Each names
        one of this run's namespaces (``netns add``, ``-n``): none touches the machine's."""
        hub = ["ip", "-n", self.services]
        commands = [["ip", "netns", "add", name] for name in self.namespaces]
        commands += [
            [*hub, "link", "set", "lo", "up"],
            [*hub, "link", "add", BRIDGE, "type", "bridge"],
            [*hub, "addr", "add", f"{SERVICES_ADDRESS}/{PREFIX_LENGTH}", "dev", BRIDGE],
            [*hub, "link", "set", BRIDGE, "up"],
        ]
        for host, address in HOSTS.items():
            near, there = f"v-{host}", ["ip", "-n", self.namespace(host)]
            peer = ["peer", "name", "eth0", "netns", self.namespace(host)]
            commands += [
                [*hub, "link", "add", near, "type", "veth", *peer],
                [*hub, "link", "set", near, "master", BRIDGE],
                [*hub, "link", "set", near, "up"],
                [*there, "link", "set", "lo", "up"],
                [*there, "addr", "add", f"{address}/{PREFIX_LENGTH}", "dev", "eth0"],
                [*there, "link", "set", "eth0", "up"],
            ]
        return commands

    def teardown(self) -> list[list[str]]:
        return [["ip", "netns", "delete", name] for name in reversed(self.namespaces)]

    def inside(self, command: list[str]) -> list[str]:
        """``command`` run in the services namespace."""
        return ["ip", "netns", "exec", self.services, *command]

    def on_host(
        self, host: str, data_dir: Path, hidden: tuple[str, ...], command: list[str]
    ) -> list[str]:
        """``command`` run on ``host``: its network namespace, a mount namespace of its own
        where ``HIDDEN`` and ``hidden`` are empty and ``data_dir`` is all it has on disk.
        ``ip netns exec``, ``unshare`` and the shell each exec the next: the process
        started is the program itself (its pid, its process group)."""
        hide = ":".join(hideable((*HIDDEN, *hidden)))
        return [
            *("ip", "netns", "exec", self.namespace(host)),
            *("unshare", "--mount", "--propagation", "private"),
            *("sh", "-c", PRIVATE_DISK, "diamino-host", str(data_dir), hide),
            *command,
        ]


@dataclass(frozen=True)
class Place:
    """One host of the run: its name, its data folder, and the folders it must not see
    besides ``HIDDEN`` (the soak's own folder: the logs, the other hosts' folders)."""

    plan: Plan
    host: str
    data_dir: Path
    hidden: tuple[str, ...]

    @property
    def address(self) -> str:
        return HOSTS[self.host]

    def wrap(self, command: list[str]) -> list[str]:
        return self.plan.on_host(self.host, self.data_dir, self.hidden, command)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        return host_env(env, self.data_dir)


def shared_env(env: Mapping[str, str]) -> dict[str, str]:
    """The site's settings as the hosts see the services: at the services' address,
    the site at the first web host's."""
    web = [HOSTS[h] for h in WEB_HOSTS]
    return {
        **env,
        "EMAIL_HOST": SERVICES_ADDRESS,
        "SITE_URL": f"http://{web[0]}:{WEB_PORT}",
        "DJANGO_ALLOWED_HOSTS": ",".join([*web, "127.0.0.1", "localhost"]),
    }


def host_env(env: Mapping[str, str], data_dir: Path) -> dict[str, str]:
    """One host's settings: its own data folder, its own (private) /tmp."""
    return {**env, "DIAMINO_DATA_DIR": str(data_dir), "TMPDIR": "/tmp"}


def folder_summary(data_dir: Path) -> str:
    """What a host left in its data folder: its top-level entries, files and bytes."""
    entries = sorted(p.name for p in data_dir.iterdir()) if data_dir.is_dir() else []
    files = [p for p in data_dir.rglob("*") if p.is_file()] if entries else []
    size = sum(p.stat().st_size for p in files)
    listed = ", ".join(entries[:6]) + (", …" if len(entries) > 6 else "")
    return f"{listed or 'nothing'} ({len(files)} files, {size / 1e6:.1f} MB)"


def say(text: str) -> None:
    print(f"soak {time.strftime('%H:%M:%S', time.gmtime())}: {text}", file=sys.stderr, flush=True)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def make(plan: Plan) -> None:
    """Run ``plan.setup()``; HostsUnavailable with the first failing command and its error."""
    for command in plan.setup():
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            error = (done.stderr or done.stdout).strip().splitlines()
            raise HostsUnavailable(
                f"{' '.join(command)} failed: {error[-1] if error else done.returncode}"
            )


def unmake(plan: Plan) -> list[str]:
    """Kill what is left in the run's namespaces (only the soak starts anything there),
    then delete them; what could not be done, for the caller to say."""
    problems = []
    existing = set(
        subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
    )
    mine = [name for name in plan.namespaces if name in existing]
    for name in mine:
        pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
        for pid in pids.stdout.split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
    for command in plan.teardown():
        if command[-1] not in mine:
            continue
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            problems.append(f"{' '.join(command)}: {done.stderr.strip()}")
    return problems


def run_outside(stop_after_s: float = 180.0) -> int:
    """The outer process of ``SOAK_HOSTS=1``: make the namespaces, run the soak inside the
    services one, delete them; its exit status (2 with one line when it cannot run)."""
    reason = missing()
    if reason:
        print(f"soak: cannot run with SOAK_HOSTS=1: {reason}", file=sys.stderr)
        return 2
    plan = Plan(f"diamino-soak-{os.getpid()}")
    child: subprocess.Popen[bytes] | None = None
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        try:
            make(plan)
        except HostsUnavailable as exc:
            print(f"soak: cannot run with SOAK_HOSTS=1: {exc}", file=sys.stderr)
            return 2
        say(
            f"hosts: {', '.join(f'{h} {a}' for h, a in HOSTS.items())}; services {SERVICES_ADDRESS}"
        )
        # Its own session: a Ctrl-C reaches this process only, which passes one SIGINT on,
        # so that a second Ctrl-C does not cut the inner soak's own stopping short.
        child = subprocess.Popen(
            plan.inside([sys.executable, "-m", "benchmarks.soak"]),
            cwd=web_stack.ROOT,
            env={**os.environ, ENV_NAME: plan.prefix},
            start_new_session=True,
        )
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                break
        # The inner soak stops its players (a fault under way ends first: up to a minute),
        # then its processes and servers; what is still running after that is killed.
        say("interrupted: the soak stops its processes, then the namespaces are deleted")
        child.send_signal(signal.SIGINT)
        deadline = time.monotonic() + stop_after_s
        while child.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(KeyboardInterrupt):
                time.sleep(0.5)
        return 130
    finally:
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
        for problem in unmake(plan):
            say(f"could not delete a namespace: {problem}")
        signal.signal(signal.SIGTERM, previous)
