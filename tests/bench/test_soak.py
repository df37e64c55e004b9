"""`make soak`: its checks find what they are for, and a tiny soak runs clean end to end.

The checks (``benchmarks.soak.report``) on made-up data: a move or an email
lost or doubled fails the run. The tiny soak starts the whole stack on its own
servers (a PostgreSQL cluster from initdb, a Redis, an SMTP sink, gunicorn, a
worker, beat, mail-in), plays four players (two by email) for a few seconds
through one fault, a web worker killed, and must find every move and email once.
"""

from __future__ import annotations

import os

import pytest

from benchmarks import servers
from benchmarks.soak import SoakConfig, report, run
from benchmarks.web.client import Think

ACCEPTED = [("ann", 1, 5), ("bob", 1, 6)]
MOVES = [[1, 5, "ann"], [1, 6, "bob"]]


def test_every_accepted_move_found_once_is_neither_lost_nor_doubled() -> None:
    assert report.check_moves(ACCEPTED, MOVES) == ([], [])


def test_an_accepted_move_missing_or_stored_twice_is_reported() -> None:
    lost, _ = report.check_moves([*ACCEPTED, ("ann", 1, 7)], MOVES)
    assert lost == ["game 1 move 7 by ann: no Move row"]
    _, doubled = report.check_moves(ACCEPTED, [*MOVES, [1, 6, "bob"]])
    assert doubled == ["game 1 move 6: 2 Move rows"]
    lost, _ = report.check_moves(ACCEPTED, [[1, 5, "ann"], [1, 6, "cat"]])
    assert lost == ["game 1 move 6: accepted from bob, stored as cat's"]


def test_an_email_sent_twice_never_received_or_left_pending_is_reported() -> None:
    emails = [
        [1, "turn", "email", "sent", "<a@x>", "", 0.0],
        [2, "turn", "email", "sent", "<b@x>", "", 0.0],
        [3, "turn", "email", "pending", "<c@x>", "", 0.0],
        [4, "turn", "email", "skipped", "<d@x>", "the turn is over already", 0.0],
    ]
    found = report.check_emails(emails, {"<a@x>": 2})
    assert found["doubled"] == ["<a@x> received 2 times"]
    assert found["lost"] == ["row 2 (turn) marked sent, never received"]
    assert found["stuck"] == ["row 3 (turn) still pending"]
    clean = report.check_emails(emails[:2], {"<a@x>": 1, "<b@x>": 1})
    assert (clean["doubled"], clean["lost"], clean["stuck"]) == ([], [], [])


def test_a_reply_by_email_acknowledged_and_never_stored_or_processed_is_lost() -> None:
    mailed = [("ann", "<r1@x>", 1, 5), ("ann", "<r2@x>", 1, 7)]
    inbound = [["<r1@x>", "played", 1, 5], ["<r2@x>", "received", 1, None]]
    states, lost, doubled = report.check_mail_moves(mailed, inbound, MOVES)
    assert states == {"played": 1, "received": 1}
    assert lost == ["reply <r2@x> (game 1) stored, never processed"]
    assert doubled == []
    _, lost, _ = report.check_mail_moves(mailed[:1], [], MOVES)
    assert lost == ["reply <r1@x> (game 1) acknowledged, never stored"]


@pytest.mark.slow
@pytest.mark.services
def test_a_tiny_soak_through_a_killed_web_worker_loses_and_doubles_nothing() -> None:
    missing = servers.postgres_missing() or servers.redis_missing()
    if missing:
        if os.environ.get("DIAMINO_REQUIRE_SERVICES") == "1":
            pytest.fail(f"DIAMINO_REQUIRE_SERVICES=1 but {missing}", pytrace=False)
        pytest.skip(f"{missing}: the soak runs its own PostgreSQL and Redis")
    config = SoakConfig(
        minutes=0.35,
        tables="2x2",
        rounds=1,
        premoves=2,
        mail_share=0.5,
        faults=("web-worker-killed",),
        first_fault_s=6,
        grace_s=3,
        drain_minutes=1,
        web_workers=2,
        worker_concurrency=1,
        think=Think(arrive=(0, 0.5), move=(0.2, 0.8), confirm=(0.05, 0.2), poll=0.5),
    )
    result = run(config)
    assert result.failures == [], result.text()
    assert result.figures["faults"] == 1
    assert result.figures["moves"] > 0
    assert result.figures["accepted"] > 0
    assert result.figures["emails received"] == result.figures["emails sent"] > 0
