"""Replies fetched from a mailbox over IMAP: a real (small) IMAP server on a socket, not a mock."""

from __future__ import annotations

import imaplib

import pytest
from django.core import mail

from bymail.imap import fetch
from bymail.models import InboundMessage
from bymail.tasks import imap_fetch
from games.models import Game
from tests.bymail.conftest import IMAP_PORT, IMAP_URL, address_of, answers_to, reply

State = InboundMessage.State
URL = IMAP_URL


def test_a_reply_in_the_mailbox_is_stored_played_and_flagged_seen(game, imap, settings):
    settings.MAIL_IN_IMAP_URL = URL
    message = reply("H8 CHAT", to=address_of(game, 0))
    uid = imap.append(message.as_bytes())
    assert imap_fetch.delay().get() == 1  # the periodic task, run as beat would
    row = InboundMessage.objects.get()
    assert (row.via, row.state) == ("imap", State.PLAYED)
    assert "\\Seen" in imap.flags_of(uid)
    assert Game.objects.get(pk=game.pk).move_count == 1
    (answer,) = answers_to("alice@example.com")
    assert "Your move was played in game" in answer.subject


def test_messages_already_seen_are_not_fetched_again(game, imap):
    message = reply("H8 CHAT", to=address_of(game, 0))
    imap.append(message.as_bytes())
    assert fetch(URL) == 1
    assert fetch(URL) == 0
    assert InboundMessage.objects.count() == 1


def test_a_crash_between_storing_and_flagging_fetches_again_and_plays_once(game, imap):
    message = reply("H8 CHAT", to=address_of(game, 0))
    uid = imap.append(message.as_bytes())
    imap.hang_up_on_store = True  # the connection drops before the message is flagged
    with pytest.raises((imaplib.IMAP4.abort, OSError)):
        fetch(URL)
    assert "\\Seen" not in imap.flags_of(uid)
    assert InboundMessage.objects.get().state == State.PLAYED  # stored (and played) first
    imap.hang_up_on_store = False
    mail.outbox.clear()
    assert fetch(URL) == 0  # fetched again, stored already: nothing new
    assert "\\Seen" in imap.flags_of(uid)
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert answers_to("alice@example.com") == []


def test_stored_but_not_played_before_the_crash_the_next_fetch_plays_it_once(game, imap):
    message = reply("H8 CHAT", to=address_of(game, 0))
    uid = imap.append(message.as_bytes())
    imap.hang_up_on_store = True
    with pytest.raises((imaplib.IMAP4.abort, OSError)):
        fetch(URL, queue=False)  # stored, its processing never queued, then the crash
    assert InboundMessage.objects.get().state == State.RECEIVED
    imap.hang_up_on_store = False
    assert fetch(URL) == 0  # not new: the row stored first is the one played
    assert "\\Seen" in imap.flags_of(uid)
    assert InboundMessage.objects.get().state == State.PLAYED
    assert Game.objects.get(pk=game.pk).move_count == 1
    (answer,) = answers_to("alice@example.com")
    assert "Your move was played in game" in answer.subject
    assert fetch(URL) == 0 and len(answers_to("alice@example.com")) == 1


def test_the_reply_address_is_read_from_the_headers_and_strangers_are_dropped(game, imap):
    imap.append(reply("H8 CHAT", to=address_of(game, 0), sender="eve@example.net").as_bytes())
    fetch(URL)
    row = InboundMessage.objects.get()
    assert row.recipient == address_of(game, 0)
    assert row.state == State.DROPPED
    assert mail.outbox == []


def test_a_wrong_password_stores_nothing(game, imap):
    imap.append(reply("H8 CHAT", to=address_of(game, 0)).as_bytes())
    with pytest.raises(imaplib.IMAP4.error):
        fetch(f"imap://diamino%40example.org:wrong@127.0.0.1:{IMAP_PORT}/INBOX")
    assert InboundMessage.objects.count() == 0


def test_a_huge_message_in_the_mailbox_is_kept_without_its_body_and_refused(game, imap, settings):
    settings.MAIL_IN_MAX_BYTES = 2048
    message = reply("H8 CHAT\n" + "x" * 20000, to=address_of(game, 0))
    uid = imap.append(message.as_bytes())
    fetch(URL)
    row = InboundMessage.objects.get()
    assert row.size > 20000 and len(bytes(row.raw)) < 4 * 2048
    assert row.state == State.REFUSED
    assert "\\Seen" in imap.flags_of(uid)
    (answer,) = answers_to("alice@example.com")
    assert "larger than 2 KB" in answer.body


def test_one_copy_addressed_to_two_seats_plays_for_each_seat_once(game, players, imap):
    from tests.notifications.conftest import new_game

    other = new_game([players[1], players[0]])  # Alice to move there too
    first, second = address_of(game, 0), address_of(other, 0)
    imap.append(reply("H8 CHAT", to=f"{first}, {second}").as_bytes())
    assert fetch(URL) == 2  # one row for each seat's reply address
    assert fetch(URL) == 0  # flagged seen
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert Game.objects.get(pk=other.pk).move_count == 1
    assert set(InboundMessage.objects.values_list("state", flat=True)) == {State.PLAYED}
