"""Processing a stored reply: once, whoever asks (the task, the sweep, twice), and answered once."""

from __future__ import annotations

import pytest
from django.core import mail

import rules
from bymail.models import InboundMessage
from bymail.process import automatic_reason, inbound_process
from bymail.store import message_store
from bymail.tasks import sweep_inbound
from games.models import Game
from tests.bymail.conftest import address_of, answers_to, reply
from tests.notifications.conftest import new_game

State = InboundMessage.State


def test_a_stored_message_left_unprocessed_is_played_by_the_sweep(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, new = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert new and row.state == State.RECEIVED
    assert sweep_inbound.delay().get() == 1
    row.refresh_from_db()
    assert row.state == State.PLAYED
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert sweep_inbound.delay().get() == 0  # nothing left


def test_processing_twice_plays_once_and_answers_once(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert inbound_process(row.pk) == State.PLAYED
    assert inbound_process(row.pk) is None  # already processed: left alone
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert len(answers_to("alice@example.com")) == 1


def test_the_sweep_leaves_messages_younger_than_its_delay_to_their_task(game, settings):
    settings.MAIL_IN_SWEEP_AFTER = 3600
    message = reply("H8 CHAT", to=address_of(game, 0))
    message_store(message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False)
    assert sweep_inbound.delay().get() == 0
    assert InboundMessage.objects.get().state == State.RECEIVED


def test_storing_queues_the_processing_once_committed(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(message.as_bytes(), via="imap", recipient=address_of(game, 0))
    row.refresh_from_db()
    assert row.state == State.PLAYED  # eager tasks: the queued task ran on commit
    assert mail.outbox  # and the answer went


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Auto-Submitted": "no"}, ""),
        ({"Auto-Submitted": "auto-generated"}, "Auto-Submitted: auto-generated"),
        ({"Precedence": "list"}, "Precedence: list"),
        ({"From": "MAILER-DAEMON@mx.example.com"}, "From: mailer-daemon@mx.example.com (a bounce)"),
        ({"Return-Path": "<>"}, "empty Return-Path (a bounce)"),
        ({"Subject": "Automatic reply: Your turn"}, "an automatic answer's subject"),
        ({"Subject": "Re: Your turn — Game 1"}, ""),
    ],
)
def test_automatic_mail_is_recognised_by_its_headers(headers, expected):
    from email.message import EmailMessage

    message = EmailMessage()
    message["From"] = headers.pop("From", "alice@example.com")
    message["Subject"] = headers.pop("Subject", "Re: Your turn")
    for name, value in headers.items():
        message[name] = value
    message.set_content("H8 CHAT")
    assert automatic_reason(message) == expected


def test_a_message_whose_processing_keeps_failing_is_set_aside_after_its_attempts(
    game, monkeypatch
):
    from bymail import process

    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )

    def broken(row, *rest):
        raise RuntimeError("a bug")

    monkeypatch.setattr(process, "_decide", broken)
    for _ in range(process.MAX_ATTEMPTS - 1):
        assert process.inbound_sweep(after_seconds=0) == 0
    row.refresh_from_db()
    assert (row.state, row.attempts) == (State.RECEIVED, process.MAX_ATTEMPTS - 1)
    assert "RuntimeError: a bug" in row.reason
    process.inbound_sweep(after_seconds=0)
    row.refresh_from_db()
    assert row.state == State.DROPPED
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


def test_the_sweep_records_its_run_for_the_health_check(db):
    from monitoring.models import TaskRun

    sweep_inbound.delay()
    assert TaskRun.objects.filter(task="bymail.sweep").exists()


def test_two_workers_processing_one_message_at_once_play_it_once(game) -> None:
    """The claim (a conditional UPDATE) makes the second wait for the first, then skip."""
    import threading

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers: SQLite's in-memory test database locks tables instead")
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    results: list[str | None] = []
    start = threading.Barrier(2)

    def worker() -> None:
        try:
            start.wait()
            results.append(inbound_process(row.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results, key=str) == [None, State.PLAYED]
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert len(answers_to("alice@example.com")) == 1


@pytest.mark.parametrize(
    ("results", "played"),
    [
        (["mx.play.example.org; dmarc=pass (p=reject) header.from=example.com"], True),
        (["mx.play.example.org; spf=pass; dmarc=fail header.from=example.com"], False),
        # Written by the sender under another server's name: not looked at.
        (["mx.elsewhere.example; dmarc=pass header.from=example.com"], False),
        ([], False),
        # Our server's real verdict on top, a forged pass with our id written below it.
        (
            [
                "mx.play.example.org; dmarc=fail header.from=example.com",
                "mx.play.example.org; dmarc=pass header.from=example.com",
            ],
            False,
        ),
        # A pass for another domain than the From's.
        (["mx.play.example.org; dmarc=pass header.from=attacker.example"], False),
    ],
    ids=["pass", "fail", "foreign-header", "none", "forged-below-ours", "other-domain"],
)
def test_with_an_authserv_id_set_a_from_that_failed_dmarc_is_dropped(
    game, players, settings, results, played
):
    settings.MAIL_IN_AUTHSERV_ID = "mx.play.example.org"
    message = reply("H8 CHAT", to=address_of(game, 0))
    for header in results:
        message["Authentication-Results"] = header
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    state = inbound_process(row.pk)
    assert state == (State.PLAYED if played else State.DROPPED)
    assert Game.objects.get(pk=game.pk).move_count == (1 if played else 0)
    if not played:  # the player is told, at the account's address
        assert [m.to for m in mail.outbox] == [[players[0].email]]
        assert "the DMARC check failed" in mail.outbox[0].body


def test_a_reply_that_failed_dmarc_is_answered_at_the_accounts_address_once_per_window(
    game, players, settings
):
    from allauth.account.models import EmailAddress

    settings.MAIL_IN_AUTHSERV_ID = "mx.play.example.org"
    EmailAddress.objects.create(
        user=players[0], email="alice@work.example", verified=True, primary=False
    )
    for _ in range(2):
        message = reply("H8 CHAT", to=address_of(game, 0), sender="alice@work.example")
        message["Authentication-Results"] = (
            "mx.play.example.org; dmarc=fail header.from=work.example"
        )
        row, _ = message_store(
            message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
        )
        assert inbound_process(row.pk) == State.DROPPED
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert [m.to for m in mail.outbox] == [[players[0].email]]  # never the From, once


def test_a_deactivated_player_cannot_play_by_email(game, players):
    alice = players[0]
    alice.is_active = False  # the site's block
    alice.save(update_fields=["is_active"])
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert inbound_process(row.pk) == State.DROPPED
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


def _to_noreply(**kwargs) -> InboundMessage:
    from games.reply_address import noreply_address

    message = reply("H8 CHAT", to=noreply_address(), **kwargs)
    row, _ = message_store(message.as_bytes(), via="smtp", recipient=noreply_address(), queue=False)
    inbound_process(row.pk)
    row.refresh_from_db()
    return row


def test_a_forged_from_to_the_no_reply_address_gets_no_instructions(game, settings):
    settings.MAIL_IN_AUTHSERV_ID = "mx.play.example.org"
    row = _to_noreply(
        headers={
            "Authentication-Results": "mx.play.example.org; dmarc=fail header.from=example.com"
        }
    )
    assert row.state == State.DROPPED
    assert mail.outbox == []


def test_the_no_reply_address_answers_a_player_once_per_window(game):
    first, second = _to_noreply(), _to_noreply()
    assert (first.state, first.answered) == (State.REFUSED, True)
    assert (second.state, second.answered) == (State.REFUSED, False)
    assert len(answers_to("alice@example.com")) == 1


def test_a_forged_token_reaching_the_processing_is_dropped_unanswered(game):
    # Over IMAP there is no RCPT to refuse it at: the processing drops it.
    local, domain = address_of(game, 0).split("@")
    forged = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    message = reply("H8 CHAT", to=forged)
    row, _ = message_store(message.as_bytes(), via="imap", recipient=forged, queue=False)
    assert inbound_process(row.pk) == State.DROPPED
    row.refresh_from_db()
    assert "forged" in row.reason
    assert mail.outbox == []


def test_the_sweep_empties_the_raw_bytes_of_old_processed_replies_and_keeps_the_row(game, settings):
    import time_machine
    from django.utils import timezone

    settings.MAIL_IN_KEEP_RAW_DAYS = 30
    to = address_of(game, 0)  # a resend goes to the address the email had
    old = reply("H8 CHAT", to=to)
    old_row, _ = message_store(old.as_bytes(), via="smtp", recipient=to, queue=False)
    inbound_process(old_row.pk)
    pending = reply("H8 CHAT", to=address_of(game, 0), subject="Re: waiting")
    waiting, _ = message_store(
        pending.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    with time_machine.travel(timezone.now() + timezone.timedelta(days=31)):
        settings.MAIL_IN_SWEEP_AFTER = 10**9  # leave the unprocessed one alone
        sweep_inbound.delay().get()
    old_row.refresh_from_db()
    waiting.refresh_from_db()
    assert bytes(old_row.raw) == b""
    assert old_row.state == State.PLAYED and old_row.message_id == str(old["Message-ID"])
    assert bytes(waiting.raw) == pending.as_bytes()  # not processed yet: kept
    again, new = message_store(old.as_bytes(), via="smtp", recipient=to)
    assert not new and again.pk == old_row.pk  # still deduplicated


def test_a_processing_that_fails_gives_back_the_rate_limit_it_took(game, settings, monkeypatch):
    from bymail import process

    settings.MAIL_IN_RATE_COUNT = 1
    calls = []
    submit = process.services.move_submit

    def failing_once(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise RuntimeError("the database went away")
        return submit(**kwargs)

    monkeypatch.setattr(process.services, "move_submit", failing_once)
    message = reply("H8 CHAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    with pytest.raises(RuntimeError):
        inbound_process(row.pk)
    assert inbound_process(row.pk) == State.PLAYED  # the retry is not "too many replies"
    assert Game.objects.get(pk=game.pk).move_count == 1


def test_the_answer_echoes_the_line_read_not_the_whole_reply(game):
    body = "Hello Bob,\n\nmy move:\nH8 CHAT\n\nSee you soon, and thanks for the game!"
    message = reply(body, to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert inbound_process(row.pk) == State.PLAYED
    row.refresh_from_db()
    assert row.move_text == "H8 CHAT"
    (answer,) = answers_to("alice@example.com")
    assert "Your move was played: H8 CHAT\n" in answer.body
    assert "Hello Bob" not in answer.body and "thanks for the game" not in answer.body


def test_one_reply_to_two_seats_plays_each_seats_move_once(game, players):
    """A player at two tables answers both turn emails in one message (one Message-ID)."""
    other = new_game([players[1], players[0]])  # Alice to move there too, same tiles
    first, second = address_of(game, 0), address_of(other, 0)
    message = reply("H8 CHAT", to=f"{first}, {second}").as_bytes()
    # As the SMTP server receives it: one transaction per recipient (it takes one each).
    rows = [message_store(message, via="smtp", recipient=to)[0] for to in (first, second)]
    assert [row.state for row in InboundMessage.objects.filter(pk__in=[r.pk for r in rows])] == [
        State.PLAYED,
        State.PLAYED,
    ]
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert Game.objects.get(pk=other.pk).move_count == 1
    # Replayed (the sender's retry, a second delivery): stored once per address already.
    assert [message_store(message, via="smtp", recipient=to)[1] for to in (first, second)] == [
        False,
        False,
    ]
    # Come again to the first seat at its address written otherwise (case is ignored):
    # the same message for the same seat is a duplicate, not a second move.
    again, new = message_store(message, via="smtp", recipient=first.upper())
    assert new
    again.refresh_from_db()
    assert again.state == State.DROPPED and "duplicate" in again.reason
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert InboundMessage.objects.filter(state=State.PLAYED).count() == 2


# --- "plus tard :" — a move queued for the next turn (issue #36) -------------------------


def test_a_later_line_queues_the_next_turn_s_move_after_the_move_is_played(game):
    from games import services
    from games.models import QueuedMove
    from tests.games.conftest import seat_at

    message = reply("H8 CHAT\nlater: H8 CHATS\nThanks!", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert inbound_process(row.pk) == State.PLAYED
    queued = QueuedMove.objects.get()
    assert (queued.seat.position, queued.placements, queued.keep) == (0, "L8=S", "legal")
    [answer] = answers_to("alice@example.com")
    assert "Your move was played: H8 CHAT" in answer.body
    assert "Queued for your next turn: later: H8 CHATS" in answer.body
    services.move_submit(
        game_id=game.pk, player=seat_at(game, 1).player, version=1, move=rules.Pass(1)
    )
    assert Game.objects.get(pk=game.pk).moves.get(number=3).words == ["CHATS"]


def test_a_later_line_refused_keeps_the_move_and_says_why(game):
    from games.models import QueuedMove

    message = reply("H8 CHAT\nplus tard : H8 CRAT", to=address_of(game, 0))
    row, _ = message_store(
        message.as_bytes(), via="smtp", recipient=address_of(game, 0), queue=False
    )
    assert inbound_process(row.pk) == State.PLAYED
    assert Game.objects.get(pk=game.pk).move_count == 1 and not QueuedMove.objects.exists()
    [answer] = answers_to("alice@example.com")
    assert "Not queued for your next turn: plus tard : H8 CRAT" in answer.body
    assert "The square I8 already holds H, not R." in answer.body
