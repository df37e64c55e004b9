"""`make soak`: its checks find what they are for, and a tiny soak runs clean end to end.

The checks (``benchmarks.soak.report``) on made-up data: a move, an email or
a push lost or doubled fails the run. The push sink counts what it took, not
what it answered 503 to. The tiny soak starts the whole stack on its own
servers (a PostgreSQL cluster from initdb, a Redis, an SMTP sink, a push
service, gunicorn, a worker, beat, mail-in), plays four players (two by email,
two with a push device) for a few seconds through one fault, a web worker
killed, and must find every move, email and push once.
"""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest
from pywebpush import WebPushException, webpush

from benchmarks import servers
from benchmarks.soak import SoakConfig, push_players, report, run
from benchmarks.soak import stack as soak_stack
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


PUSH_ROWS = [
    [11, "turn", "push", "sent", "<diamino.push.11@x>", "", 0.0],
    [12, "turn", "push", "sent", "<diamino.push.12@x>", "", 0.0],
    [13, "game-over", "push", "pending", "<diamino.push.13@x>", "", 0.0],
    [14, "turn", "push", "skipped", "<diamino.push.14@x>", "that turn has passed", 0.0],
    [15, "turn", "email", "sent", "<a@x>", "", 0.0],
]


def test_a_push_sent_twice_never_received_or_left_pending_is_reported() -> None:
    found = report.check_pushes(PUSH_ROWS, {"11": 2})
    assert found["doubled"] == ["push row 11 received 2 times"]
    assert found["lost"] == ["row 12 (turn) marked sent, never received"]
    assert found["stuck"] == ["row 13 (game-over) still pending"]
    assert found["written"] == 4  # the email row is the emails' check
    assert found["skipped_reasons"] == {"that turn has passed": 1}


def test_pushes_each_received_once_are_neither_lost_nor_doubled() -> None:
    clean = report.check_pushes(PUSH_ROWS[:2], {"11": 1, "12": 1})
    assert (clean["doubled"], clean["lost"], clean["stuck"]) == ([], [], [])
    assert clean["received"] == 2
    # A push for a row that was never marked sent, or for no row at all, is said.
    odd = report.check_pushes(PUSH_ROWS[2:4], {"13": 1, "99": 1})
    assert (odd["received_not_marked_sent"], odd["stranger"]) == (["13"], 1)


def summary(rows: list[list], pushes: report.PushCounts) -> report.Report:
    """The run's report for a quiet run whose outbox held ``rows``."""
    return report.build(
        config=SimpleNamespace(grace_s=5.0),
        faults_run=(),
        played=report.Played([], [], [], [], {}, 0, 2, 60.0, push_players=1),
        audit={"moves": [], "games": [], "emails": rows, "inbound": []},
        moves_before=0,
        sink_ids={"<a@x>": 1},
        sink_times={},
        play_started=0.0,
        seed_drained_s=0.0,
        sink_refused=0,
        drained_s=0.0,
        alive={},
        restarts={},
        log_errors={},
        notes=[],
        services=SimpleNamespace(postgres_version="PostgreSQL", redis_version="Redis"),
        pushes=pushes,
    )


def test_a_lost_or_doubled_push_fails_the_run_and_is_in_the_summary() -> None:
    rows = [PUSH_ROWS[0], PUSH_ROWS[1], PUSH_ROWS[4]]
    clean = summary(rows, report.PushCounts(ids={"11": 1, "12": 1}, refused=3))
    assert clean.status == 0, clean.text()
    assert (
        "Pushes: 2 written, 2 sent, 2 received at the push service (3 refused with 503); lost 0, doubled 0"
        in clean.text()
    )
    bad = summary(rows, report.PushCounts(ids={"11": 2}))
    assert bad.status == 1
    assert bad.failures == ["push lost: 1", "push doubled: 1"]
    assert "push doubled: push row 11 received 2 times" in bad.text()


def test_push_players_are_the_first_of_each_share_and_not_the_mail_players() -> None:
    players = [{"username": f"p{k}"} for k in range(20)]
    assert [p["username"] for p in push_players(players, 0.1)] == ["p0", "p10"]
    assert push_players(players, 0) == []


def test_the_push_share_and_the_push_fault_are_settings() -> None:
    config = SoakConfig.from_env(
        {"SOAK_PUSH_SHARE": "0.25", "SOAK_FAULTS": "push-503", "SOAK_PUSH_SECONDS": "20"}
    )
    assert (config.push_share, config.faults, config.push_seconds) == (0.25, ("push-503",), 20)
    assert SoakConfig.from_env({}).push_share == 0.1


def post_push(browser: dict, data: dict) -> int:
    """A push as the site sends it (pywebpush: VAPID-signed, encrypted for ``browser``)."""
    try:
        answer = webpush(
            subscription_info=browser,
            data=json.dumps(data),
            vapid_private_key=VAPID[1],
            vapid_claims={"sub": "mailto:soak@soak.invalid"},
            timeout=5,
        )
    except WebPushException as error:
        assert error.response is not None
        return int(error.response.status_code)
    return int(answer.status_code)


VAPID = servers.vapid_pair()


def test_the_push_sink_counts_what_it_took_by_id_not_what_it_answered_503_to() -> None:
    with servers.PushService(VAPID[0], keep_received=False) as service:
        phone, laptop = service.subscription("phone"), service.subscription("laptop")
        service.refusing = True
        assert post_push(phone, {"id": 7}) == 503
        service.refusing = False
        assert post_push(phone, {"id": 7}) == 201
        assert post_push(laptop, {"id": 8}) == 201
        assert post_push(laptop, {"id": 8}) == 201
    assert service.refused == 1
    assert service.push_ids == {"7": 1, "8": 2}
    assert service.received == []  # a long run keeps counts only


def test_the_push_503_fault_refuses_for_its_seconds_then_takes_again() -> None:
    with servers.PushService(VAPID[0]) as service:
        the_stack = soak_stack.Stack(
            redis=None,  # type: ignore[arg-type]  # the fault touches the push service only
            smtp=None,  # type: ignore[arg-type]
            webs={},
            processes={},
            postgres=None,
            push=service,
            push_seconds=0.01,
        )
        note = soak_stack.FAULTS["push-503"](the_stack)
        assert note == "0 s, 0 pushes answered 503"
        assert not service.refusing
        assert post_push(service.subscription("phone"), {"id": 1}) == 201


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
        push_share=0.5,
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
    # Two players have a device: their turns were pushed, each push taken once.
    assert result.figures["pushes received"] == result.figures["pushes sent"] > 0


def test_the_supervisor_starts_again_a_process_that_ended_on_its_own_not_one_killed(
    tmp_path,
) -> None:
    import sys
    import time

    from benchmarks.soak import stack

    quitter = stack.Process(
        "quitter", [sys.executable, "-c", "raise SystemExit(3)"], {}, tmp_path / "q.log"
    )
    sleeper = stack.Process(
        "sleeper", [sys.executable, "-c", "import time; time.sleep(60)"], {}, tmp_path / "s.log"
    )
    processes = {"quitter": quitter, "sleeper": sleeper}
    for process in processes.values():
        process.start()
    with stack.supervise(processes, restart_after=0.1):
        sleeper.kill()  # on purpose, as a fault does: left to the fault to start again
        deadline = time.monotonic() + 20
        while quitter.starts < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    for process in processes.values():
        process.stop()
    assert quitter.starts >= 3 and quitter.exits[:2] == [3, 3]
    assert (sleeper.starts, sleeper.exits, sleeper.alive()) == (1, [], False)
