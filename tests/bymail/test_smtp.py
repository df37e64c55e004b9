"""Replies handed to the SMTP server of `make mail-in`: stored, then played or answered."""

from __future__ import annotations

import re
import smtplib

import pytest
from django.core import mail

from bymail.models import InboundMessage
from games.models import Game, Move
from tests.bymail.conftest import (
    address_of,
    answers_to,
    drain,
    processed,
    reply,
    send,
)

State = InboundMessage.State
pytestmark = pytest.mark.usefixtures("smtp_server")


def test_a_plain_reply_plays_the_move_and_is_answered_with_the_new_board(game):
    message = reply("H8 CHAT\n", to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert (row.state, row.via, row.answered) == (State.PLAYED, "smtp", True)
    game.refresh_from_db()
    assert game.move_count == 1
    move = Move.objects.get(game=game)
    assert move.words == ["CHAT"]
    (answer,) = answers_to("alice@example.com")
    assert "Your move was played in game" in answer.subject
    assert "H8 CHAT" in answer.body
    assert "It is bob's turn." in answer.body
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    assert answer.extra_headers["In-Reply-To"] == message["Message-ID"]
    # The other player is told as for a move made on the site: Bob's turn email, in French.
    (turn,) = answers_to("bob@example.com")
    assert "À vous" in turn.subject or "votre tour" in turn.subject.lower()


OUTLOOK_QUOTE = (
    "________________________________\n"
    "From: Diamino <diamino@localhost>\n"
    "Sent: Tuesday, 1 December 2026 14:00\n"
    "To: Alice <alice@example.com>\n"
    "Subject: [Diamino] Your turn — Game 1\n\n"
    "It is your turn in Game 1.\nH8 ZZZ\n"
)
GMAIL_HTML = (
    '<div dir="ltr">h8 chat</div><br><div class="gmail_quote"><div dir="ltr" '
    'class="gmail_attr">On Tue, Dec 1, 2026 at 2:00 PM Diamino &lt;diamino@localhost&gt; '
    'wrote:<br></div><blockquote class="gmail_quote">It is your turn.<br>A1 ZZZ</blockquote></div>'
)


@pytest.mark.parametrize(
    ("body", "options"),
    [
        pytest.param(
            "H8 CHAT\n\nOn Tue, Dec 1, 2026 at 2:00 PM Diamino <diamino@localhost> wrote:\n"
            "> It is your turn in Game 1.\n> A1 ZZZ\n",
            {},
            id="gmail-plain",
        ),
        pytest.param(
            "Je joue :\nH8 CHAT\n\nLe mar. 1 déc. 2026 à 14:00, Diamino <diamino@localhost> a écrit :\n"
            "> C'est à vous de jouer, partie 1.\n",
            {"cte": "quoted-printable"},
            id="french-quoted-printable",
        ),
        pytest.param("H8 CHAT\n\n-- \nAlice, à très bientôt\n", {"cte": "base64"}, id="base64"),
        pytest.param("H8 CHAT\n\n" + OUTLOOK_QUOTE, {}, id="outlook"),
        pytest.param(
            "H8 CHAT\n\nSent from my iPhone\n\n> On 1 Dec 2026, at 14:00, Diamino "
            "<diamino@localhost> wrote:\n> \n> It is your turn.\n",
            {},
            id="apple-mail",
        ),
        pytest.param("", {"html": GMAIL_HTML}, id="html-only"),
        pytest.param("", {"html": GMAIL_HTML, "cte": "quoted-printable"}, id="html-only-qp"),
    ],
)
def test_replies_in_the_shapes_mail_clients_send_play_the_move(game, body, options):
    message = reply(body, to=address_of(game, 0), **options)
    send(message)
    row = processed(message)
    assert row.state == State.PLAYED, row.reason
    game.refresh_from_db()
    assert game.move_count == 1
    assert Move.objects.get(game=game).words == ["CHAT"]


def test_an_illegal_move_is_refused_with_the_rule_and_the_position_and_changes_nothing(game):
    message = reply("A1 CHAT", to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert row.state == State.REFUSED
    game.refresh_from_db()
    assert game.move_count == 0
    (answer,) = answers_to("alice@example.com")
    assert answer.subject == f"[Diamino] Your move was not played in game {game.pk}"
    assert "Your move was not played: A1 CHAT" in answer.body
    # The rule the move broke, as the address of its paragraph on the rules page.
    assert re.search(r"The rule, with examples: https?://\S+/regles/#R-PLACE-\d\b", answer.body)
    assert "(rule R-" not in answer.body
    assert "It is your turn." in answer.body
    assert "To play, answer this email with your move" in answer.body
    # The answer's Reply-To is the seat's address at the same version: the player tries again.
    assert answer.reply_to == [address_of(game, 0)]


def test_a_refusal_is_answered_in_the_players_language(game, players):
    alice = players[0]
    alice.language = "fr"
    alice.save(update_fields=["language"])
    message = reply("A1 CHAT", to=address_of(game, 0))
    send(message)
    processed(message)
    (answer,) = answers_to("alice@example.com")
    assert answer.subject == f"[Diamino] Votre coup n’a pas été joué dans la partie {game.pk}"
    assert "Votre coup n’a pas été joué\u00a0: A1 CHAT" in answer.body


def test_an_unreadable_reply_is_answered_with_the_parsers_message(game):
    message = reply("Bonjour, je ne sais pas quoi jouer.", to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert row.state == State.REFUSED
    (answer,) = answers_to("alice@example.com")
    assert "We could not read a move in your reply" in answer.body
    assert Game.objects.get(pk=game.pk).move_count == 0


@pytest.mark.parametrize(
    ("language", "taught"),
    [("en", '"H8 v CHAT" (down)'), ("fr", "«\u00a0H8 v CHAT\u00a0» (vertical)")],
)
def test_a_refusal_teaches_the_same_notation_for_down_as_the_turn_email(
    game, players, language, taught
):
    alice = players[0]
    alice.language = language
    alice.save(update_fields=["language"])
    message = reply("Bonjour, je ne sais pas quoi jouer.", to=address_of(game, 0))
    send(message)
    processed(message)
    (answer,) = answers_to("alice@example.com")
    assert taught in answer.body
    assert "H8 v CHAT" in answer.body.split(taught)[1]  # the turn email's own lines, below
    assert "↓" not in answer.body


def test_a_reply_to_an_older_email_is_answered_the_game_has_moved_on(game):
    old = address_of(game, 0)
    first = reply("H8 CHAT", to=old)
    send(first)
    processed(first)
    mail.outbox.clear()
    again = reply("H8 CHAT", to=old)  # a second reply to the same turn email
    send(again)
    row = processed(again)
    assert row.state == State.MOVED_ON
    assert Game.objects.get(pk=game.pk).move_count == 1
    (answer,) = answers_to("alice@example.com")
    assert f"Game {game.pk} has moved on" in answer.subject
    assert "It is bob's turn." in answer.body


def test_the_same_message_delivered_twice_plays_once_and_is_answered_once(game):
    message = reply("H8 CHAT", to=address_of(game, 0), message_id="<same@client.example.com>")
    send(message)
    processed(message)
    send(message)  # a resend, a duplicate delivery: the server says 250 again
    processed(message)
    assert InboundMessage.objects.count() == 1
    assert Game.objects.get(pk=game.pk).move_count == 1
    assert len(answers_to("alice@example.com")) == 1


def test_a_message_without_message_id_is_deduplicated_by_its_bytes(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    del message["Message-ID"]
    send(message)
    send(message)
    drain()
    (row,) = InboundMessage.objects.all()
    assert row.message_id.startswith("sha256:")
    assert Game.objects.get(pk=game.pk).move_count == 1


def test_a_reply_from_another_address_is_dropped_and_nobody_is_answered(game):
    message = reply("H8 CHAT", to=address_of(game, 0), sender="Mallory <mallory@example.net>")
    send(message)
    row = processed(message)
    assert (row.state, row.answered) == (State.DROPPED, False)
    assert "not the seat's player" in row.reason
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


@pytest.mark.parametrize("kind", ["edited-token", "anything"])
def test_a_forged_token_is_refused_at_rcpt_and_nobody_is_answered(game, kind):
    genuine = address_of(game, 0)
    local, domain = genuine.split("@")
    forged = {
        "edited-token": local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain,
        "anything": f"reply+whatever@{domain}",
    }[kind]
    message = reply("H8 CHAT", to=forged)
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(message)
    assert refused.value.recipients[forged][0] == 550
    drain()
    assert InboundMessage.objects.count() == 0
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


def test_another_seats_token_is_dropped_and_nobody_is_answered(game):
    # Alice writes to Bob's reply address: it names Bob's seat, and she is not Bob.
    message = reply("H8 CHAT", to=address_of(game, 1))
    send(message)
    row = processed(message)
    assert (row.state, row.answered) == (State.DROPPED, False)
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("headers", "envelope_from", "subject"),
    [
        ({"Auto-Submitted": "auto-replied"}, None, None),
        ({"Precedence": "bulk"}, None, None),
        ({"Precedence": "auto_reply"}, None, None),
        ({"X-Autoreply": "yes"}, None, None),
        ({}, "", None),  # a bounce: the null sender
        ({}, None, "Out of Office: Re: [Diamino] Your turn"),
        ({}, None, "Réponse automatique : absent jusqu'au 3 décembre"),
    ],
    ids=["auto-submitted", "bulk", "auto_reply", "x-autoreply", "bounce", "ooo", "absence"],
)
def test_automatic_mail_is_ignored_and_never_answered(game, headers, envelope_from, subject):
    options = {"subject": subject} if subject else {}
    message = reply("H8 CHAT", to=address_of(game, 0), headers=headers, **options)
    send(message, envelope_from=envelope_from)
    row = processed(message)
    assert (row.state, row.answered) == (State.IGNORED, False)
    assert Game.objects.get(pk=game.pk).move_count == 0
    assert mail.outbox == []


def test_a_delivery_report_is_ignored(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    message.make_mixed()
    message.set_type("multipart/report")
    send(message)
    row = processed(message)
    assert row.state == State.IGNORED
    assert mail.outbox == []


def test_mail_to_any_other_address_is_refused_at_rcpt():
    message = reply("H8 CHAT", to="someone@play.example.org")
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        send(message)
    assert refused.value.recipients["someone@play.example.org"][0] == 550
    assert InboundMessage.objects.count() == 0


def test_the_no_reply_address_answers_a_player_with_instructions(game):
    from games.reply_address import noreply_address

    message = reply("H8 CHAT", to=noreply_address())
    send(message)
    row = processed(message)
    assert (row.state, row.answered) == (State.REFUSED, True)
    (answer,) = answers_to("alice@example.com")
    assert "How to play by email" in answer.subject
    assert "This address receives no moves" in answer.body
    assert Game.objects.get(pk=game.pk).move_count == 0


def test_the_no_reply_address_answers_no_stranger(game):
    from games.reply_address import noreply_address

    message = reply("H8 CHAT", to=noreply_address(), sender="mallory@example.net")
    send(message)
    assert processed(message).state == State.DROPPED
    assert mail.outbox == []


def test_a_reply_over_the_size_limit_is_refused_with_the_reason(game, settings):
    settings.MAIL_IN_MAX_BYTES = 4096  # the server refuses outright above 4 × this
    message = reply("H8 CHAT\n\n" + "x" * 6000, to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert row.state == State.REFUSED
    (answer,) = answers_to("alice@example.com")
    assert "larger than 4 KB" in answer.body
    assert Game.objects.get(pk=game.pk).move_count == 0


def test_a_reply_with_too_many_parts_is_refused_with_the_reason(game, settings):
    settings.MAIL_IN_MAX_PARTS = 3
    message = reply("H8 CHAT", to=address_of(game, 0))
    for n in range(4):
        message.add_attachment(
            b"x", maintype="application", subtype="octet-stream", filename=f"{n}"
        )
    send(message)
    assert processed(message).state == State.REFUSED
    (answer,) = answers_to("alice@example.com")
    assert "more than 3 parts" in answer.body


def test_replies_faster_than_the_limit_per_seat_are_refused_and_answered_once(game, settings):
    settings.MAIL_IN_RATE_COUNT = 1
    first = reply("A1 CHAT", to=address_of(game, 0))
    send(first)
    processed(first)
    mail.outbox.clear()
    for _ in range(2):
        extra = reply("H8 CHAT", to=address_of(game, 0))
        send(extra)
        row = processed(extra)
        assert row.state == State.REFUSED
        assert row.reason == "too many replies for this seat"
    (answer,) = answers_to("alice@example.com")
    assert "too many replies" in answer.body
    assert Game.objects.get(pk=game.pk).move_count == 0


def test_a_resignation_by_email_resigns(game):
    message = reply("abandon", to=address_of(game, 0))
    send(message)
    assert processed(message).state == State.PLAYED, InboundMessage.objects.get().reason
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    # Alice gets the game-over email every player gets, and the answer to her reply.
    (answer,) = [m for m in answers_to("alice@example.com") if "Auto-Submitted" in m.extra_headers]
    assert "The game is over." in answer.body


def test_with_playing_by_email_turned_off_a_reply_is_answered_with_instructions(game, players):
    alice = players[0]
    alice.play_by_email = False
    alice.save(update_fields=["play_by_email"])
    message = reply("H8 CHAT", to=address_of(game, 0))
    send(message)
    row = processed(message)
    assert (row.state, row.answered) == (State.REFUSED, True)
    assert Game.objects.get(pk=game.pk).move_count == 0
    (answer,) = answers_to("alice@example.com")
    assert "Playing by email is turned off in your settings" in answer.body
    from games.reply_address import noreply_address

    assert answer.reply_to == [noreply_address()]
    assert "To play, answer this email" not in answer.body


def test_a_message_far_over_the_size_limit_is_refused_by_the_server(game, settings):
    limit = 4 * settings.MAIL_IN_MAX_BYTES  # the server was started with it
    message = reply("H8 CHAT\n\n" + "x" * (limit + 1000), to=address_of(game, 0))
    with pytest.raises(smtplib.SMTPException) as refused:
        send(message)
    assert "552" in str(refused.value) or getattr(refused.value, "smtp_code", 0) == 552
    assert InboundMessage.objects.count() == 0


def test_a_message_the_database_cannot_store_is_answered_451_so_the_sender_retries(
    game, monkeypatch
):
    from bymail import smtp

    def failing_store(*args, **kwargs):
        from django.db import OperationalError

        raise OperationalError("database is locked")

    monkeypatch.setattr(smtp, "message_store", failing_store)
    message = reply("H8 CHAT", to=address_of(game, 0))
    with pytest.raises(smtplib.SMTPDataError) as refused:
        send(message)
    assert refused.value.smtp_code == 451
    assert InboundMessage.objects.count() == 0
    monkeypatch.undo()
    send(message)  # the retry, once the database is back
    assert processed(message).state == State.PLAYED


def test_the_answer_html_shows_the_position_in_monospace(game):
    message = reply("H8 CHAT", to=address_of(game, 0))
    send(message)
    processed(message)
    (answer,) = answers_to("alice@example.com")
    html = answer.alternatives[0][0]
    assert "<pre" in html and "Your move was played: H8 CHAT" in html
    assert answer.body.count("CHAT") >= 2  # the move, and the board that now holds it
