"""The leagues' emails: who gets them when a season moves on, and what they say, in each language."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import services as games
from games.models import Game
from leagues import emails, services
from leagues.models import Placement, Season
from notifications import kinds
from notifications.models import Notification
from tests.emails import html_of as _html
from tests.factories import make_player, page_as
from tests.french import misplaced_marks, text_of_html
from tests.leagues.lifecycle import play_out
from tests.leagues.pages_helpers import make_league, make_players, running_season

pytestmark = pytest.mark.django_db


def recipient_of(row: Notification) -> User:
    """Whom ``row`` goes to (the field is nullable)."""
    assert row.recipient is not None
    return row.recipient


def _render(row: Notification) -> mail.EmailMessage:
    return kinds.get(row.kind).render(row)


def _rows(kind: str) -> list[Notification]:
    return list(Notification.objects.filter(kind=kind).select_related("recipient").order_by("pk"))


@pytest.fixture
def season_of_four(django_capture_on_commit_callbacks):
    """Four players, two of them French, registered, placed and started: the start's emails sent."""
    players = make_players(2, prefix="anglais", language="en") + make_players(
        2, prefix="francais", language="fr"
    )
    with django_capture_on_commit_callbacks(execute=True):
        season, _division = running_season(players)
    return season, players


def test_the_start_tells_each_player_their_division_and_games_in_their_language(
    season_of_four, mailoutbox
) -> None:
    season, players = season_of_four
    rows = _rows(emails.SEASON_STARTED)
    assert sorted(recipient_of(r).username for r in rows) == sorted(p.username for p in players)
    sent = {m.to[0]: m for m in mailoutbox if "Division 1" in m.subject}
    assert len(sent) == 4, "one email each, sent by the outbox"
    english = sent[players[0].email]
    assert "Ligue du lundi, season 1: you play in Division 1" in english.subject
    assert "your 3 games are all under way at once" in english.body
    my_games = Game.objects.filter(league_game__division__season=season, seats__player=players[0])
    for game in my_games:
        assert f"/parties/{game.pk}/" in english.body
    assert english.body.count("you move first") in (1, 2), "3 games: first in one or two"
    french = sent[players[2].email]
    assert "Ligue du lundi, saison 1\u00a0: vous jouez en Division 1" in french.subject
    assert "vos 3 parties commencent toutes à la fois" in french.body
    assert misplaced_marks(text_of_html(_html(french))) == []
    assert "Unsubscribe" not in french.body and "Se désabonner" in french.body


def test_a_step_s_emails_written_twice_give_one_row_each(season_of_four) -> None:
    season, _players = season_of_four
    from leagues import notify

    assert notify.season_started(season) == 0
    assert len(_rows(emails.SEASON_STARTED)) == 4


def test_the_last_week_tells_each_player_their_place_and_games_left(
    season_of_four, django_capture_on_commit_callbacks, mailoutbox
) -> None:
    season, _players = season_of_four
    game = Game.objects.filter(league_game__division__season=season).order_by("pk").first()
    assert game is not None
    loser, winner = (seat.player for seat in game.seats.order_by("position"))
    games.game_resign(game_id=game.pk, player=loser)
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.season_last_week(
            season_id=season.pk, now=season.ends_at - timedelta(days=6)
        )
    assert len(_rows(emails.LAST_WEEK)) == 4
    subjects = sorted(m.subject for m in mailoutbox)
    assert sum("the last week" in s for s in subjects) == 2
    assert sum("la dernière semaine" in s for s in subjects) == 2
    body = {m.to[0]: m.body for m in mailoutbox}
    # The only game over so far: its winner leads with 1 point and 2 games left.
    if winner.language == "fr":
        assert "vous êtes à la place 1 sur 4 (1 pts)" in body[winner.email]
        assert "Il vous reste 2 parties en cours." in body[winner.email]
    else:
        assert "you are number 1 of 4 (1 pts)" in body[winner.email]
        assert "You have 2 games still running." in body[winner.email]


def test_the_final_standing_says_champion_promotion_or_relegation_in_each_language(
    django_capture_on_commit_callbacks, mailoutbox
) -> None:
    # Two divisions of four: the top one's winner is champion, its last two are
    # relegated (a quarter of 4, at least one: 1); the bottom one's first is promoted.
    players = make_players(4, prefix="en", language="en") + make_players(
        4, prefix="fr", language="fr"
    )
    league = make_league()
    league.division_max = 4
    league.save()
    season, _division = running_season(players, league=league)
    play_out(season, players)  # h5's: the stronger player wins, everyone moves
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.season_close(season_id=season.pk, now=season.ends_at + timedelta(hours=1))
    finals = {r.recipient_id: r for r in _rows(emails.FINAL_STANDING)}
    assert len(finals) == 8
    placements = Placement.objects.filter(season=season).select_related("player", "division")
    seen = set()
    for placement in placements:
        message = _render(finals[placement.player_id])
        french = placement.player.language == "fr"
        body = message.body
        if placement.champion:
            assert ("vous êtes champion" if french else "you are the champion") in message.subject
            assert ("champion de la ligue" if french else "the league's champion") in body
        else:
            rank = placement.final_rank
            assert (
                f"vous finissez à la place {rank}" if french else f"you finish number {rank}"
            ) in message.subject
        outcomes: dict[str, tuple[str, str]] = {
            Placement.Outcome.PROMOTED: ("Vous montez", "You are promoted"),
            Placement.Outcome.RELEGATED: ("Vous descendez", "You are relegated"),
            Placement.Outcome.KEPT: ("Vous restez", "You stay in this division"),
        }
        expected = outcomes.get(placement.outcome)
        if expected:
            assert expected[0 if french else 1] in body
            seen.add(placement.outcome)
        if french:
            assert misplaced_marks(text_of_html(_html(message))) == []
    assert Placement.Outcome.PROMOTED in seen and Placement.Outcome.RELEGATED in seen


def test_registration_opening_tells_last_season_s_players_and_says_they_are_registered(
    django_capture_on_commit_callbacks,
) -> None:
    players = make_players(4)
    league = make_league()
    season, _division = running_season(players, league=league)
    play_out(season, players)
    with django_capture_on_commit_callbacks(execute=True):
        services.season_close(season_id=season.pk, now=season.ends_at + timedelta(hours=1))
    rows = _rows(emails.REGISTRATION_OPEN)
    following = Season.objects.get(league=league, number=2)
    assert following.state == Season.State.REGISTRATION
    assert {r.recipient_id for r in rows} == {p.pk for p in players}
    carried = set(following.registrations.values_list("player_id", flat=True))
    for row in rows:
        message = _render(row)
        assert "Ligue du lundi: registration for season 2 is open" in message.subject
        if row.recipient_id in carried:
            assert "you are registered already" in message.body
        else:
            assert "is open until" in message.body
        assert "/ligues/lundi/" in message.body


def test_an_email_is_skipped_when_the_season_has_moved_on(season_of_four) -> None:
    season, _players = season_of_four
    row = _rows(emails.SEASON_STARTED)[0]
    Season.objects.filter(pk=season.pk).update(state=Season.State.FINISHED)
    with pytest.raises(kinds.Skip):
        _render(row)


def test_a_player_who_turned_off_invitations_gets_no_league_invitation(
    django_capture_on_commit_callbacks,
) -> None:
    players = make_players(4)
    players[0].invitation_emails = "never"
    players[0].save(update_fields=["invitation_emails"])
    # The daily digest lists no league step: a player who reads invitations there gets it.
    players[1].invitation_emails = "digest"
    players[1].save(update_fields=["invitation_emails"])
    with django_capture_on_commit_callbacks(execute=True):
        running_season(players)
    row = Notification.objects.get(kind=emails.SEASON_STARTED, recipient=players[0])
    assert row.status == Notification.Status.SKIPPED
    assert row.reason == "turned off in the player's settings"
    digest_reader = Notification.objects.get(kind=emails.SEASON_STARTED, recipient=players[1])
    assert digest_reader.status != Notification.Status.SKIPPED
    assert (
        Notification.objects.filter(kind=emails.SEASON_STARTED)
        .exclude(recipient=players[0])
        .exclude(status=Notification.Status.SKIPPED)
        .count()
        == 3
    )


def test_the_settings_page_says_which_setting_the_league_emails_follow() -> None:
    player = make_player("reglages")
    english = page_as(player, reverse("accounts:settings"))
    assert (
        "Leagues too: registration open, your season's start and its last week, "
        "emailed on their own unless you chose “Never”." in english
    )
    assert 'aria-describedby="id_game_over_emails_helptext"' in english
    french = page_as(player, reverse("accounts:settings"), language="fr")
    assert (
        "Les ligues aussi\u00a0: votre classement final à la fin d’une saison, envoyé à part "
        "sauf si vous avez choisi «\u00a0Jamais\u00a0»." in french
    )


def test_registration_opening_does_not_invite_inactive_or_suspended_players(
    django_capture_on_commit_callbacks,
) -> None:
    """Before, both got "registration is open" and then a refusal (suspended) or no
    carried-over place (inactive)."""
    from leagues import notify
    from leagues.models import Suspension

    players = make_players(4)
    league = make_league()
    season, _division = running_season(players, league=league)
    play_out(season, players)
    services.season_close(season_id=season.pk, now=season.ends_at + timedelta(hours=1))
    following = Season.objects.get(league=league, number=2)
    idle, banned, expired = players[1], players[2], players[3]
    Placement.objects.filter(season=season, player=idle).update(outcome=Placement.Outcome.INACTIVE)
    following.registrations.filter(player=idle).delete()
    staff = make_player("modo", is_staff=True)
    services.suspension_create(player=banned, reason="Abandons", by=staff, league=league)
    past = Suspension.objects.create(player=expired, league=None, reason="Ancien", created_by=staff)
    Suspension.objects.filter(pk=past.pk).update(until=timezone.now() - timedelta(hours=1))
    Notification.objects.all().delete()
    notify.registration_opened(following)
    rows = _rows(emails.REGISTRATION_OPEN)
    assert {r.recipient_id for r in rows} == {players[0].pk, expired.pk}


def test_a_registration_open_email_is_skipped_for_a_player_suspended_before_it_is_sent(
    django_capture_on_commit_callbacks,
) -> None:
    players = make_players(4)
    season, _division = running_season(players)
    play_out(season, players)
    with django_capture_on_commit_callbacks(execute=True):
        services.season_close(season_id=season.pk, now=season.ends_at + timedelta(hours=1))
    rows = {r.recipient_id: r for r in _rows(emails.REGISTRATION_OPEN)}
    banned = players[0]
    services.suspension_create(
        player=banned, reason="Abandons", by=make_player("modo", is_staff=True)
    )
    with pytest.raises(kinds.Skip):
        _render(rows[banned.pk])
    assert "registration for season 2 is open" in _render(rows[players[1].pk]).subject
