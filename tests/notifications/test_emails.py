"""What the emails say: the move, the board, the link, the deadline, the way out — and no secret."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail

import rules
from accounts.emails import read_unsubscribe_token
from accounts.models import EmailChoice
from games import bridge, clock, services
from games.errors import GameError
from games.models import Game, Invitation
from moderation.services import report_create
from notifications import renderers, sending
from notifications.models import Notification
from notifications.services import DIGEST_MARK, DIGEST_REASON, DIGEST_WAITING
from tests.emails import html_of
from tests.factories import make_player
from tests.french import misplaced_marks, text_of_html
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game

pytestmark = pytest.mark.django_db

# Position 0 plays CHARNUES down from H8, covering the red devil on H15: +10 (marque).
CHARNUES = rules.Place(0, tuple(zip([f"H{r}" for r in range(8, 16)], "CHARNUES", strict=True)))
HANDS = ("CHATEAUXSIRN", "LEPOTIERMANU")
T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)  # a Monday; 3 days per move → Thursday 15:00 UTC


def play_charnues(game: Game) -> None:
    """Position 0 opens with CHARNUES (HANDS dealt)."""
    services.move_submit(
        game_id=game.pk,
        player=seat_at(game, 0).player,
        version=0,
        move=CHARNUES,
        rng=random.Random(0),
    )


def the_turn_email(players, committed, mailoutbox) -> tuple[Game, mail.EmailMessage]:
    """Position 0 plays CHARNUES at T0; the email the next player gets."""
    game = new_game(players, hands=HANDS)
    with time_machine.travel(T0, tick=False), committed():
        play_charnues(game)
    assert len(mailoutbox) == 1
    return game, mailoutbox[0]


def test_the_turn_email_shows_the_last_move_with_its_words_and_points(
    alice, bob, committed, mailoutbox, settings
) -> None:
    settings.SITE_URL = "https://diamino.example"
    game, message = the_turn_email([alice, bob], committed, mailoutbox)
    mover = seat_at(game, 0).player
    recipient = seat_at(game, 1).player
    assert message.to == [recipient.email]
    html = html_of(message)
    assert isinstance(message.body, str)
    for body in (message.body, html):
        assert "H8↓ CHARNUES" in body
        assert "CHARNUES" in body
        assert re.search(r"Points\s?:\s*(<strong>)?10", body)
        assert f"https://diamino.example/parties/{game.pk}/" in body
        assert str(mover) in body


def test_the_turn_email_has_a_picture_of_the_board(alice, bob, committed, mailoutbox) -> None:
    _game, message = the_turn_email([alice, bob], committed, mailoutbox)
    # Text: a fixed-width grid with column letters and row numbers.
    assert "    A B C D E F G H I J K L M N O" in message.body
    assert " 8  + . . . . . . C . . . . . . +" in message.body
    assert "15  + . . . . . . S . . . . . . +" in message.body
    # HTML: a table with inline styles, the move's tiles highlighted.
    html = html_of(message)
    assert re.search(r'<td style="[^"]*background:#f7d27a;[^"]*" title="H15">S</td>', html)
    assert re.search(r'<td style="[^"]*background:#2b2622;[^"]*" title="B2"></td>', html)


def test_the_deadline_is_in_the_recipients_time_zone_and_language(
    alice, bob, committed, mailoutbox
) -> None:
    # alice: English, New York; bob: French, Paris. Whoever plays second gets the email.
    game, message = the_turn_email([alice, bob], committed, mailoutbox)
    recipient = seat_at(game, 1).player
    if recipient.language == "en":  # Thursday 15:00 UTC = 10:00 in New York
        assert "Deadline: March 5, 2026, 10:00 AM (America/New_York)" in message.body
        assert "It is your turn in Game" in message.body
        assert message.subject == f"[Diamino] Your turn in game {game.pk}"
        assert '<html lang="en">' in html_of(message)
    else:  # 16:00 in Paris, French date
        assert "Échéance\u00a0: 5 mars 2026 16:00 (Europe/Paris)" in message.body
        assert "Vous recevez cet e-mail en tant que bob sur Diamino." in message.body
        assert message.subject == f"[Diamino] À vous de jouer dans la partie {game.pk}"
        assert '<html lang="fr">' in html_of(message)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_player_reads_the_email_in_their_own_language(
    alice, bob, committed, mailoutbox, language
) -> None:
    for player in (alice, bob):
        player.language = language
        player.save()
    _game, message = the_turn_email([alice, bob], committed, mailoutbox)
    html = html_of(message)
    assert f'<html lang="{language}">' in html
    if language == "fr":
        assert "Se désabonner des e-mails concernant votre tour" in message.body
        assert "mars 2026" in message.body
        assert "Mots\u00a0:" in message.body and "Points\u00a0:" in message.body
    else:
        assert "Unsubscribe from emails about your turn" in message.body
        assert "March 5, 2026" in message.body
        assert "Words: CHARNUES" in message.body


def test_the_email_carries_the_one_click_unsubscribe_link(
    alice, bob, committed, mailoutbox, client
) -> None:
    game, message = the_turn_email([alice, bob], committed, mailoutbox)
    recipient = seat_at(game, 1).player
    assert isinstance(message.body, str)
    link = re.search(r"http://127\.0\.0\.1:8000/desabonnement/([^/\s]+)/", message.body)
    assert link is not None
    assert read_unsubscribe_token(link.group(1)) == (recipient.pk, "turn")
    assert link.group(0) in html_of(message)
    assert message.extra_headers["List-Unsubscribe"] == f"<{link.group(0)}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.extra_headers["Message-ID"].startswith("<diamino.turn.")
    client.post(link.group(0), {"List-Unsubscribe": "One-Click"})
    recipient.refresh_from_db()
    assert recipient.turn_emails == "never"


def test_no_email_shows_a_hand_the_reserve_or_the_tiles_drawn(
    alice, bob, committed, mailoutbox
) -> None:
    game, message = the_turn_email([alice, bob], committed, mailoutbox)
    seats = list(game.seats.all())
    move = game.moves.get()
    assert isinstance(message.subject, str) and isinstance(message.body, str)
    everything = message.subject + message.body + html_of(message)
    for seat in seats:
        assert seat.hand not in everything
        assert "".join(sorted(seat.hand)) not in everything
    assert move.tiles_drawn not in everything
    game.refresh_from_db()
    reserve = "".join(bridge.state_of(game).reserve)
    assert reserve[:6] not in everything and reserve[-6:] not in everything
    assert "Final hand" not in everything and "Main finale" not in everything


def test_the_game_over_email_gives_the_result_to_every_player(
    alice, bob, committed, mailoutbox
) -> None:
    game = new_game([alice, bob], hands=HANDS)
    loser = seat_at(game, 1).player
    with committed():
        services.game_resign(game_id=game.pk, player=loser)
    assert sorted(m.to[0] for m in mailoutbox) == sorted([alice.email, bob.email])
    by_address = {m.to[0]: m for m in mailoutbox}
    winner = seat_at(game, 0).player
    to_winner, to_loser = by_address[winner.email], by_address[loser.email]
    for message in (to_winner, to_loser):
        colon = ":" if message.to[0] == alice.email else "\u00a0:"  # alice reads English
        assert f"1. {winner}{colon} " in message.body
        assert f"2. {loser}{colon} " in message.body
        assert f"/parties/{game.pk}/" in message.body
    if winner.language == "en":
        assert "Congratulations, you won!" in to_winner.body
    winner_line = f"Winner: {winner}" if loser.language == "en" else f"Gagnant\u00a0: {winner}"
    assert winner_line in to_loser.body
    english = to_winner if winner.language == "en" else to_loser
    assert english.subject == f"[Diamino] Game {game.pk} is over"
    assert re.search(r"Last move \(move \d+\) by \w+: Resignation\n", english.body)
    assert "Abandon" not in english.body
    french = to_loser if english is to_winner else to_winner
    assert french.subject == f"[Diamino] La partie {game.pk} est terminée"


@pytest.mark.parametrize(("days", "shown"), [(1, "1 jour par coup"), (3, "3 jours par coup")])
def test_the_invitation_gives_the_days_per_move_in_good_french(
    alice, bob, committed, mailoutbox, days, shown
) -> None:
    with committed():
        services.game_create(
            creator=alice, mode="marque", seats=2, days_per_move=days, invitees=[bob]
        )
    (message,) = mailoutbox
    assert message.to == [bob.email]
    assert shown in message.body


# --- a day given by another player (games/services/time_given.py) -------------------------------------------


def give_a_day(game: Game, giver, committed) -> None:
    """``giver`` gives a day an hour after T0, from a page showing the game as it is."""
    game.refresh_from_db()
    with time_machine.travel(T0 + timedelta(hours=1), tick=False), committed():
        services.time_give(
            game_id=game.pk, giver=giver, version=game.move_count, extra_days=game.turn_extra_days
        )


@pytest.mark.parametrize(
    ("language", "zone", "subject", "sentence"),
    [
        (
            "en",
            "America/New_York",
            "[Diamino] {giver} gave you one more day in game {game}",
            "{giver} gave you one more day to play in Game {game}: your deadline is now "
            "March 6, 2026, 10:00 AM.",
        ),
        (
            "fr",
            "Europe/Paris",
            "[Diamino] {giver} vous donne un jour de plus dans la partie {game}",
            "Partie {game}\u00a0: {giver} vous donne un jour de plus pour jouer. Votre échéance "
            "est maintenant le 6 mars 2026 16:00.",
        ),
    ],
)
def test_a_day_given_is_emailed_once_to_the_player_to_move_with_the_new_deadline(
    alice, bob, committed, mailoutbox, language, zone, subject, sentence
) -> None:
    for player in (alice, bob):
        player.language, player.time_zone = language, zone
        player.save()
    with time_machine.travel(T0, tick=False):
        game = new_game([alice, bob], hands=HANDS)
    mover, giver = seat_at(game, 0).player, seat_at(game, 1).player
    give_a_day(game, giver, committed)
    later = time_machine.travel(T0 + timedelta(hours=1), tick=False)
    with later, committed(), pytest.raises(GameError):  # the same page again: one day, one email
        services.time_give(game_id=game.pk, giver=giver, version=0, extra_days=0)
    (message,) = mailoutbox
    assert message.to == [mover.email]
    assert message.subject == subject.format(giver=giver, game=game.pk)
    for body in (message.body, html_of(message)):
        assert sentence.format(giver=giver, game=game.pk) in body
    assert f"({zone})" in message.body
    assert Notification.objects.filter(kind="time-gift").count() == 1


def test_a_second_day_given_says_how_many_days_the_turn_has_had(
    alice, bob, committed, mailoutbox
) -> None:
    for player in (alice, bob):
        player.language = "en"
        player.save()
    with time_machine.travel(T0, tick=False):
        game = new_game([alice, bob], hands=HANDS)
    giver = seat_at(game, 1).player
    give_a_day(game, giver, committed)
    give_a_day(game, giver, committed)
    first, second = mailoutbox
    assert "days given on this turn" not in first.body
    assert "That makes 2 days given on this turn." in second.body


def test_the_email_of_a_day_given_follows_the_turn_email_preference(
    alice, bob, committed, mailoutbox
) -> None:
    with time_machine.travel(T0, tick=False):
        game = new_game([alice, bob], hands=HANDS)
    mover, giver = seat_at(game, 0).player, seat_at(game, 1).player
    mover.turn_emails = EmailChoice.DIGEST
    mover.save()
    give_a_day(game, giver, committed)
    mover.turn_emails = EmailChoice.NEVER
    mover.save()
    give_a_day(game, giver, committed)
    assert mailoutbox == []
    assert list(
        Notification.objects.filter(kind="time-gift")
        .order_by("pk")
        .values_list("reason", flat=True)
    ) == ["the player reads the daily digest instead", "turned off in the player's settings"]


def test_a_day_given_is_not_emailed_once_the_player_has_moved(alice, bob, mailoutbox) -> None:
    with time_machine.travel(T0, tick=False):
        game = new_game([alice, bob], hands=HANDS)
    mover = seat_at(game, 0).player
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        services.time_give(game_id=game.pk, giver=seat_at(game, 1).player, version=0, extra_days=0)
        services.move_submit(game_id=game.pk, player=mover, version=0, move=rules.Pass(0))
    row = Notification.objects.get(kind="time-gift")
    assert sending.send_one(row.pk).status == "skipped"
    assert mailoutbox == []


def french_emails_of_every_kind(bob) -> dict[Notification.Kind, mail.EmailMultiAlternatives]:
    """One email of each kind the outbox sends, rendered for French players."""
    claire = make_player("claire", language="fr", time_zone="Europe/Paris")
    staff = make_player("sandrine", is_staff=True)
    table = services.game_create(
        creator=claire, mode="marque", seats=2, days_per_move=3, invitees=[bob]
    )
    invitation = Invitation.objects.get(game=table)
    game = new_game([bob, claire], hands=HANDS)
    play_charnues(game)
    game.refresh_from_db()
    to_move = seat_at(game, 1)
    turn = {"turn": clock.turn_key(game)}
    Kind = Notification.Kind
    # The digest with both its parts: a game waiting, and an event read there (#35).
    to_move.player.turn_emails = to_move.player.invitation_emails = EmailChoice.DIGEST
    to_move.player.save()
    Notification.objects.create(
        recipient=to_move.player,
        kind=Kind.GAME_STARTED,
        game=game,
        key=f"game-started:{game.pk}:{to_move.player.pk}",
        status=Notification.Status.SKIPPED,
        reason=DIGEST_REASON,
        context={DIGEST_MARK: DIGEST_WAITING},
    )
    rows = {
        Kind.INVITATION: (bob, table, {"invitation": invitation.pk}),
        Kind.GAME_STARTED: (to_move.player, game, {}),
        Kind.TURN: (to_move.player, game, turn),
        Kind.REMINDER: (to_move.player, game, turn),
        Kind.TIME_GIFT: (to_move.player, game, {**turn, "giver": seat_at(game, 0).pk}),
        Kind.DIGEST: (to_move.player, None, {}),
        Kind.INVITATIONS_HELD: (
            bob,
            None,
            {"until": int(datetime.now(UTC).timestamp()) + 3600, "count": 10},
        ),
    }
    report = report_create(
        reporter=bob, game_id=game.pk, reported_seat_id=None, reason="other", text="Bizarre."
    )
    rows[Kind.REPORT] = (staff, game, {"report": report.pk})
    rendered = {
        kind: renderers.render(Notification(recipient=who, kind=kind, game=on, context=context))
        for kind, (who, on, context) in rows.items()
    }
    timeout = services.game_timeout(game_id=game.pk, seat_id=to_move.pk)
    assert timeout is not None
    game.refresh_from_db()
    for kind, context in ((Kind.TIMEOUT, {"move": timeout.pk}), (Kind.GAME_OVER, {})):
        row = Notification(recipient=to_move.player, kind=kind, game=game, context=context)
        rendered[kind] = renderers.render(row)
    services.game_annul(game_id=game.pk, by=staff, reason="Partie arrangée")
    game.refresh_from_db()
    rendered[Kind.ANNULLED] = renderers.render(
        Notification(recipient=bob, kind=Kind.ANNULLED, game=game)
    )
    return rendered


def test_french_emails_put_a_non_breaking_space_before_every_colon(bob) -> None:
    rendered = french_emails_of_every_kind(bob)
    assert set(rendered) == renderers.built_kinds()  # a new kind of email is checked too
    for kind, message in rendered.items():
        assert '<html lang="fr">' in html_of(message), kind
        for part in (message.subject, message.body, text_of_html(html_of(message))):
            assert isinstance(part, str)
            assert misplaced_marks(part) == [], (kind, part)
    digest = rendered[Notification.Kind.DIGEST]
    assert "Depuis votre précédent récapitulatif\u00a0:" in str(digest.body)  # both parts
    turn = rendered[Notification.Kind.TURN]
    assert isinstance(turn.body, str)
    assert re.search("Échéance\u00a0: \\d", turn.body)
    assert "Joueurs\u00a0:" in turn.body and "Ouvrir la partie\u00a0: http" in turn.body


@pytest.mark.parametrize(
    ("language", "intro", "shown"),
    [("en", r"Last move \(move 1\) by", "Exchange 2"), ("fr", r"joué par", "Échange 2")],
)
def test_the_last_move_is_written_in_the_reader_s_language(
    alice, bob, committed, mailoutbox, language, intro, shown
) -> None:
    for player in (alice, bob):
        player.language = language
        player.save()
    game = new_game([alice, bob], hands=HANDS)
    with committed():
        services.move_submit(
            game_id=game.pk,
            player=seat_at(game, 0).player,
            version=0,
            move=rules.Exchange(0, "CH"),
            rng=random.Random(0),
        )
    (message,) = mailoutbox
    for body in (message.body, html_of(message)):
        assert re.search(rf"{intro} \w+\s?:\s*(<strong[^>]*>)?{shown}(\s|<)", body), body
        # One word for the move: no "(Exchange)" after it any more.
        assert "(Exchange)" not in body and "(Échange)" not in body
    assert game.moves.get().notation == "Échange 2"  # the record's notation (docs/NOTATION.md)


def test_english_calls_the_tile_a_joker_and_the_squares_devils(
    alice, bob, committed, mailoutbox
) -> None:
    for player in (alice, bob):
        player.language = "en"
        player.save()
    _game, message = the_turn_email([alice, bob], committed, mailoutbox)
    assert "- green devil, + red devil. A lower-case letter is a joker." in message.body
    assert "diable" not in message.body.lower() and "diable" not in html_of(message).lower()


@pytest.mark.parametrize(
    ("template", "context", "english", "french"),
    [
        ("game_started", {}, "Game 4 has started", "La partie 4 a commencé"),
        (
            "turn",
            {"first_move": True},
            "Game 4 has started: your turn",
            "La partie 4 a commencé\u00a0: à vous de jouer",
        ),
        ("turn", {}, "Your turn in game 4", "À vous de jouer dans la partie 4"),
        ("game_over", {}, "Game 4 is over", "La partie 4 est terminée"),
        ("annulled", {}, "Game 4 was annulled", "La partie 4 a été annulée"),
        (
            "timeout",
            {"it_was_me": True},
            "You ran out of time in game 4",
            "Votre délai est dépassé dans la partie 4",
        ),
    ],
)
def test_email_subjects_read_as_sentences(template, context, english, french) -> None:
    from types import SimpleNamespace

    from django.template.loader import render_to_string
    from django.utils import translation

    for language, expected in (("en", english), ("fr", french)):
        with translation.override(language):
            subject = render_to_string(
                f"emails/{template}_subject.txt", {"game": SimpleNamespace(pk=4), **context}
            )
        assert subject.strip() == expected
