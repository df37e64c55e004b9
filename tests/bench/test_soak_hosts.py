"""``SOAK_HOSTS=1`` (``benchmarks/soak/hosts.py``): the namespaces it makes, what a host
sees, and the teardown. The namespace tests need root (``ip netns add``); elsewhere
they are skipped, saying why."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.soak import SoakConfig, hosts
from benchmarks.soak import __main__ as soak_main


def _netns() -> set[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


def test_the_plan_makes_and_deletes_only_its_own_namespaces() -> None:
    plan = hosts.Plan("diamino-soak-7")
    ours = set(plan.namespaces)
    assert ours == {
        "diamino-soak-7-services",
        "diamino-soak-7-web-1",
        "diamino-soak-7-web-2",
        "diamino-soak-7-worker",
        "diamino-soak-7-beat",
    }
    setup = plan.setup()
    for command in setup:
        # Either it makes one of ours, or it runs in one of ours: nothing in the
        # machine's own network namespace, which other people's processes share.
        assert (command[:3] == ["ip", "netns", "add"] and command[3] in ours) or (
            command[:2] == ["ip", "-n"] and command[2] in ours
        ), command
    for host, address in hosts.HOSTS.items():
        name = plan.namespace(host)
        assert [*["ip", "-n", name], "addr", "add", f"{address}/24", "dev", "eth0"] in setup
        assert any(c[-2:] == ["netns", name] and "veth" in c for c in setup), host
    assert sorted(c[-1] for c in plan.teardown()) == sorted(ours)
    assert all(c[:3] == ["ip", "netns", "delete"] for c in plan.teardown())


def test_soak_hosts_is_a_setting() -> None:
    assert SoakConfig.from_env({"SOAK_HOSTS": "1"}).hosts
    assert not SoakConfig.from_env({"SOAK_HOSTS": "0"}).hosts
    assert not SoakConfig.from_env({}).hosts


def test_where_namespaces_cannot_be_made_it_stops_at_once_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setenv("SOAK_HOSTS", "1")
    monkeypatch.delenv(hosts.ENV_NAME, raising=False)
    started = time.monotonic()
    assert soak_main.main() == 2
    assert time.monotonic() - started < 5  # nothing was started
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("soak: cannot run with SOAK_HOSTS=1: ")
    assert "root" in err[0]


PROBE = """
import json, os, socket, sys
own, other, outside, port = sys.argv[1:5]
with open(os.path.join(own, "written-by-the-host"), "w") as f:
    f.write("mine")
with socket.create_connection((sys.argv[5], int(port)), timeout=10) as s:
    heard = s.recv(16).decode()
print(json.dumps({
    "pid": os.getpid(),
    "own": sorted(os.listdir(own)),
    "other": os.path.exists(other),
    "outside": os.path.exists(outside),
    "tmp": os.path.exists(os.path.join("/tmp", "diamino-hosts-probe")),
    "cwd": os.getcwd(),
    "heard": heard,
}))
"""

LISTENER = """
import socket, sys
with socket.create_server((sys.argv[1], 0)) as server:
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    conn.sendall(b"services")
    conn.close()
"""


def need_namespaces() -> None:
    reason = hosts.namespaces_missing()
    if reason:
        pytest.skip(f"SOAK_HOSTS=1 cannot run here: {reason}")


@pytest.fixture
def plan() -> Iterator[hosts.Plan]:
    need_namespaces()
    made = hosts.Plan(f"diamino-test-{os.getpid()}")
    try:
        hosts.make(made)
        yield made
    finally:
        assert hosts.unmake(made) == []


def test_a_host_sees_its_own_folder_only_and_reaches_the_services(
    plan: hosts.Plan, tmp_path: Path
) -> None:
    soak_folder = tmp_path / "soak"
    own, other = soak_folder / "hosts" / "worker", soak_folder / "hosts" / "beat"
    own.mkdir(parents=True)
    other.mkdir(parents=True)
    (own / "already-there").write_text("x")
    (other / "beat-only").write_text("x")
    outside = tmp_path / "outside"  # another folder of the machine's, beside the soak's
    outside.write_text("x")
    in_tmp = Path("/tmp/diamino-hosts-probe")
    in_tmp.touch()
    listener = subprocess.Popen(
        plan.inside([sys.executable, "-c", LISTENER, hosts.SERVICES_ADDRESS]),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert listener.stdout is not None
        port = listener.stdout.readline().strip()
        place = hosts.Place(plan, "worker", own, (str(soak_folder),))
        paths = [str(own), str(other / "beat-only"), str(outside)]
        probe = subprocess.Popen(
            place.wrap([sys.executable, "-c", PROBE, *paths, port, hosts.SERVICES_ADDRESS]),
            cwd=Path(__file__).parent,
            env=place.env(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out, err = probe.communicate(timeout=60)
        assert probe.returncode == 0, err
        seen = json.loads(out)
    finally:
        in_tmp.unlink()
        listener.kill()
        listener.wait()
    assert seen["own"] == ["already-there", "written-by-the-host"]
    assert (own / "written-by-the-host").read_text() == "mine"  # its own folder is on disk
    assert seen["other"] is False  # another host's folder: not there
    # /tmp is its own, unless the checkout itself is under /tmp (hosts.hideable).
    tmp_hidden = hosts.hideable(("/tmp",)) == ["/tmp"]
    assert seen["outside"] is not tmp_hidden and seen["tmp"] is not tmp_hidden
    assert seen["cwd"] == str(Path(__file__).parent)
    assert seen["heard"] == "services"
    # The program is the process started (the wrappers exec it): a signal to it, or to
    # its process group, reaches the program itself.
    assert seen["pid"] == probe.pid


def test_unmake_ends_what_is_left_in_the_namespaces_and_deletes_them(tmp_path: Path) -> None:
    need_namespaces()
    plan = hosts.Plan(f"diamino-test-{os.getpid()}-left")
    try:
        hosts.make(plan)
        assert set(plan.namespaces) <= _netns()
        place = hosts.Place(plan, "web-1", tmp_path, ())
        left = subprocess.Popen(place.wrap(["sleep", "300"]), start_new_session=True)
    finally:
        assert hosts.unmake(plan) == []
    assert left.wait(timeout=10) != 0  # killed
    assert not set(plan.namespaces) & _netns()


def test_a_folder_holding_the_code_is_never_hidden_from_the_hosts() -> None:
    """A clone under /tmp: /tmp stays, or the hosts would have no code to run."""
    checkout = hosts.CODE[0]
    assert hosts.hideable((str(checkout.parent), "/elsewhere")) == ["/elsewhere"]
    assert hosts.hideable((str(checkout / "data"),)) == [str(checkout / "data")]
