"""The turn email is a playable position (play by mail, #24): the text position, Reply-To."""

from __future__ import annotations

import email
import re
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

import rules
from accounts.models import EmailChoice
from bymail.extract import html_to_text, reply_text
from games import bridge, clock
from games.email_board import text_position
from games.models import Game
from games.reply_address import ReplyTicket, noreply_address, read_reply_address, reply_address
from notifications import renderers
from notifications.models import Notification
from rules.reply_notation import ReplyNotationError, parse_reply
from tests.emails import html_of
from tests.factories import make_player
from tests.french import misplaced_marks
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game
from tests.notifications.test_emails import HANDS, play_charnues

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)
ANSWER = "To play, answer this email with your move on the first line"


@pytest.fixture(autouse=True)
def domain(settings):
    settings.MAIL_IN_DOMAIN = "play.example.org"
    settings.MAIL_IN_ENABLED = True


def charnues_played(players) -> Game:
    """Position 0 opens with CHARNUES down from H8 at T0 (+10 on the red devil H15)."""
    game = new_game(players, hands=HANDS)
    with time_machine.travel(T0, tick=False):
        play_charnues(game)
    game.refresh_from_db()
    Notification.objects.all().delete()
    return game


def turn_email(players, committed, mailoutbox) -> tuple[Game, mail.EmailMultiAlternatives]:
    game = new_game(players, hands=HANDS)
    with time_machine.travel(T0, tick=False), committed():
        play_charnues(game)
    assert len(mailoutbox) == 1
    game.refresh_from_db()
    return game, mailoutbox[0]


def render(kind: str, game: Game | None, recipient) -> mail.EmailMultiAlternatives:
    context = {"turn": clock.turn_key(game)} if game is not None else {}
    row = Notification(recipient=recipient, kind=kind, game=game, context=context)
    return renderers.render(row)


def reply_to(message: mail.EmailMessage) -> str | None:
    return message.message()["Reply-To"]


def test_the_turn_email_is_a_playable_text_position(alice, bob, committed, mailoutbox) -> None:
    game, message = turn_email([alice, bob], committed, mailoutbox)
    me, mover = seat_at(game, 1), seat_at(game, 0)
    body = message.body
    assert isinstance(body, str)
    # The board with its coordinates and the squares' kinds, and the legend.
    assert "    A B C D E F G H I J K L M N O" in body
    assert " 1  + . . . . . . + . . . . . . +" in body
    assert " 2  . # . . . - . . . - . . . # ." in body
    assert " 8  + . . . . . . C . . . . . . +" in body
    assert "Empty squares: * start, # black square, - green devil, + red devil." in body
    # The recipient's own hand, in its numbered slots (avec marque), with the values.
    total = sum({"P": 3, "M": 2}.get(t, 1) for t in me.hand)
    assert f"Your hand (12 tiles, {total} points):" in body
    assert "  slot     1  2  3  4  5  6  7  8  9 10 11 12" in body
    assert "  tile   " + "".join(f"{t:>3}" for t in me.hand) in body
    assert "  points   1  1  3  1  1  1  1  1  2  1  1  1" in body
    # Nobody else's hand (R-HIDE-1): the mover's tiles appear nowhere as a hand.
    assert "".join(f"{t:>3}" for t in mover.hand) not in body
    # Scores, hand sizes, reserve, deadline, the last moves.
    assert f"- {mover.player}: 10 points, 12 tiles in hand" in body
    assert f"- {me.player} (you): 0 points, 12 tiles in hand — to play" in body
    assert "Reserve: 80 tiles" in body
    assert re.search(r"Deadline: March 5, 2026, 10:00 AM \(America/New_York\)", body)
    assert f"Last moves:\n  1. {mover.player}: H8↓ CHARNUES — CHARNUES — 10 points" in body
    # Two lines on how to answer.
    assert ANSWER in body
    assert "Letters already on the board may be written in parentheses, C(HA)T" in body
    html = html_of(message)
    assert "Your hand" in html and "Reserve: 80 tiles" in html
    assert f'href="mailto:{reply_address(me, game.move_count)}?subject=Game%20{game.pk}"' in html


def test_the_turn_emails_reply_to_is_the_seats_signed_address(
    alice, bob, committed, mailoutbox
) -> None:
    game, message = turn_email([alice, bob], committed, mailoutbox)
    me = seat_at(game, 1)
    address = reply_to(message)
    assert address == reply_address(me, 1)
    assert read_reply_address(address) == ReplyTicket(game.pk, me.pk, game.move_count)
    assert message.from_email.endswith("<diamino@localhost>"), "From is unchanged"


def test_the_reminder_and_the_time_gift_are_playable_too(alice, bob) -> None:
    game = charnues_played([alice, bob])
    me = seat_at(game, 1)
    extra: dict[str, object]
    for kind, extra in ((Notification.Kind.REMINDER, {}), (Notification.Kind.TIME_GIFT, {})):
        row = Notification(
            recipient=me.player,
            kind=kind,
            game=game,
            context={"turn": clock.turn_key(game), "giver": seat_at(game, 0).pk, **extra},
        )
        message = renderers.render(row)
        assert reply_to(message) == reply_address(me, game.move_count), kind
        assert "Your hand (12 tiles" in message.body and ANSWER in message.body, kind


def test_a_digest_of_one_game_replies_to_it(alice, bob) -> None:
    game = charnues_played([alice, bob])
    me = seat_at(game, 1)
    me.player.turn_emails = EmailChoice.DIGEST
    me.player.save()
    message = render(Notification.Kind.DIGEST, None, me.player)
    address = reply_address(me, game.move_count)
    assert reply_to(message) == address
    assert f"To play this game by email, write your move to {address}" in message.body
    assert "Your hand (12 tiles" in message.body
    assert ANSWER in message.body


def test_a_digest_of_several_games_lists_each_games_address(alice, bob, carol) -> None:
    first = charnues_played([alice, bob])
    player = seat_at(first, 1).player  # to move in the first game
    other = carol
    # The first-player draw decides the order: seat the player second in the other game too.
    second = charnues_played([other, player])
    if seat_at(second, 1).player != player:
        second = charnues_played([player, other])
    seats = [seat_at(first, 1), seat_at(second, 1)]
    assert [s.player for s in seats] == [player, player]
    assert [first.to_move_id, second.to_move_id] == [s.pk for s in seats]
    player.language = "fr"
    player.turn_emails = EmailChoice.DIGEST  # the digest lists the waiting games
    player.save()
    message = render(Notification.Kind.DIGEST, None, player)
    # One Reply-To cannot name two games: each is in the body, the header is the no-reply one.
    assert reply_to(message) == noreply_address()
    body = message.body
    assert isinstance(body, str)
    for game, seat in zip((first, second), seats, strict=True):
        address = reply_address(seat, game.move_count)
        assert f"écrivez votre coup à {address}" in body
        assert read_reply_address(address) == ReplyTicket(game.pk, seat.pk, game.move_count)
    assert body.count("Votre main (12 lettres") == 2
    assert "répondez à cet e-mail" not in body, "'answer this email' is for one game only"


def test_playing_by_email_turned_off_replies_to_noreply_without_answer_lines(
    alice, bob, committed, mailoutbox
) -> None:
    game = new_game([alice, bob], hands=HANDS)
    recipient = seat_at(game, 1).player
    recipient.play_by_email = False
    recipient.save()
    with time_machine.travel(T0, tick=False), committed():
        play_charnues(game)
    message = mailoutbox[0]
    assert reply_to(message) == noreply_address() == "noreply@play.example.org"
    assert "Your hand (12 tiles" in message.body, "the position is still shown"
    assert ANSWER not in message.body
    assert "mailto:" not in html_of(message)
    game.refresh_from_db()
    reminder = render(Notification.Kind.REMINDER, game, recipient)
    assert reply_to(reminder) == noreply_address()
    assert ANSWER not in reminder.body


def test_a_site_that_receives_no_mail_never_asks_for_a_reply(
    alice, bob, committed, mailoutbox, settings
) -> None:
    settings.MAIL_IN_ENABLED = False  # no MAIL_IN_DOMAIN nor IMAP mailbox: nothing comes in
    game = new_game([alice, bob], hands=HANDS)
    recipient = seat_at(game, 1).player
    assert recipient.play_by_email  # the account's default, on
    with time_machine.travel(T0, tick=False), committed():
        play_charnues(game)
    message = mailoutbox[0]
    assert reply_to(message) == noreply_address()
    assert "Your hand (12 tiles" in message.body, "the position is still shown"
    assert ANSWER not in message.body
    assert "mailto:" not in html_of(message)
    client = Client()
    client.force_login(recipient)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="play_by_email"' not in page
    assert "Play by answering the turn emails" not in page


def test_the_french_position_reads_french(alice, bob) -> None:
    game = charnues_played([bob, alice])  # bob reads French and is to move second
    assert game.to_move is not None
    me = next(s for s in game.seat_list() if s.player_id == game.to_move.player_id)
    me.player.language = "fr"
    with translation.override("fr"):
        text = text_position(game, me)
    assert "Votre main (12 lettres" in text
    assert "  case " in text and "  lettre " in text
    assert "Réserve\u00a0: 80 lettres" in text
    assert "Derniers coups\u00a0:" in text
    assert misplaced_marks(text) == []


def test_sans_marque_hands_are_not_numbered_and_a_spectator_sees_no_hand(alice, bob) -> None:
    hands = ("CHARNUESAAAAEEEEIIIILLLOOOTTTUUDDSSMMGBP", "LEPOTIEREEEEEENNNNRRRTTOOUUIIAASSVVFFJKW")
    game = new_game([alice, bob], hands=hands, mode="sans-marque")
    seat = seat_at(game, 0)
    with translation.override("en"):
        text = text_position(game, seat)
        spectator = text_position(game, None)
    assert re.search(r"Your hand \(40 tiles, \d+ points\):", text)
    assert "  slot" not in text
    assert text.count("  tile   ") == 2, "40 tiles wrap after 20"
    assert " 8  + . . . . . . * . . . . . . +" in text, "the empty Départ square is marked"
    assert "points," not in text, "no scores sans marque"
    assert f"- {seat.player} (you): 40 tiles in hand — to play" in text
    assert "Your hand" not in spectator and "(you)" not in spectator
    assert "Reserve: 32 tiles" in spectator


def test_the_settings_page_turns_playing_by_email_off_and_on() -> None:
    client = Client()
    user = make_player("dora", language="fr")
    client.force_login(user)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Jouer en répondant aux e-mails de tour" in page
    assert "il est joué comme si vous l’aviez joué sur le site" in page
    assert (
        'name="play_by_email"' in page and "checked" in page.split('name="play_by_email"')[1][:80]
    )
    form = {
        "display_name": "",
        "language": "fr",
        "time_zone": "Europe/Paris",
        "turn_emails": "each",
        "invitation_emails": "each",
        "game_over_emails": "each",
    }
    client.post(reverse("accounts:settings"), form)
    user.refresh_from_db()
    assert user.play_by_email is False
    client.post(reverse("accounts:settings"), {**form, "play_by_email": "on"})
    user.refresh_from_db()
    assert user.play_by_email is True
    user.language = "en"
    user.save()
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Play by answering the turn emails" in page
    assert "Answer a turn email with your move (for example H8 CHAT)" in page


def test_a_gmail_reply_to_the_real_turn_email_reads_as_the_move(
    alice, bob, committed, mailoutbox
) -> None:

    game, turn = turn_email([alice, bob], committed, mailoutbox)
    me = seat_at(game, 1)
    quoted = "\n".join("> " + line for line in turn.body.splitlines())
    reply = EmailMessage()
    reply["From"], reply["To"] = me.player.email, reply_to(turn)
    reply.set_content(
        f"H9 (H)ELP\n\nOn Tue, Dec 1, 2026 at 2:00 PM Diamino <diamino@localhost> wrote:\n{quoted}\n",
        cte="quoted-printable",
    )
    reply.add_alternative(
        '<div dir="ltr">H9 (H)ELP</div><div class="gmail_quote"><blockquote class="gmail_quote">'
        + html_of(turn)
        + "</blockquote></div>",
        subtype="html",
    )
    received = email.message_from_bytes(reply.as_bytes(policy=policy.SMTP), policy=policy.default)
    view = rules.view(bridge.state_of(game), me.position)
    move = parse_reply(reply_text(received), view)
    assert me.position is not None
    assert move == rules.Place(me.position, (("I9", "E"), ("J9", "L"), ("K9", "P")))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_turn_email_itself_holds_no_move(alice, bob, committed, mailoutbox, language) -> None:
    """A reply that keeps the whole email unquoted (and adds nothing) plays nothing.

    The email's examples (H8 CHAT…) stand inside sentences, never first on a line.
    """
    bob.language = alice.language = language
    bob.save()
    alice.save()
    game, turn = turn_email([alice, bob], committed, mailoutbox)
    me = seat_at(game, 1)
    view = rules.view(bridge.state_of(game), me.position)
    for text in (turn.body, html_to_text(html_of(turn))):
        assert isinstance(text, str)
        with pytest.raises(ReplyNotationError) as error:
            parse_reply(text, view)
        assert error.value.code == "no-move"
