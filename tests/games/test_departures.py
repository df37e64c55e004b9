"""Deleting an account resigns its running games and leaves its open tables (R-END-4)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import services
from games.models import Game, Invitation, Move, Seat
from notifications.models import Notification
from tests.factories import PASSWORD, make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.django_db


def delete_account(player: User) -> Client:
    client = Client()
    client.force_login(player)
    response = client.post(reverse("accounts:delete"), {"password": PASSWORD})
    assert response.status_code == 302
    return client


def test_a_deleted_player_resigns_and_a_two_player_game_ends(
    alice, bob, django_capture_on_commit_callbacks
) -> None:
    game = start_game([alice, bob])
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        delete_account(bob)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.end == "last-player"
    assert game.seats.get(player=alice).is_winner
    assert game.seats.get(player=bob).status == Seat.Status.RESIGNED
    last = game.moves.get(number=game.move_count)
    assert (last.kind, last.seat.player_id) == (Move.Kind.RESIGN, bob.pk)
    # Alice is told as for any resignation: the game-over email.
    assert Notification.objects.filter(
        recipient=alice, game_id=game.pk, kind=Notification.Kind.GAME_OVER
    ).exists()
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    page = Client()
    page.force_login(alice)
    assert "Waiting for" not in page.get(reverse("games:page", args=[game.pk])).content.decode()


def test_a_three_player_game_goes_on_without_the_deleted_player(alice, bob, carol) -> None:
    game = start_game([alice, bob, carol])
    leaving = seat_at(game, 0)  # the player to move
    next_seat = seat_at(game, 1)

    delete_account(leaving.player)

    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.seats.get(pk=leaving.pk).status == Seat.Status.RESIGNED
    assert game.to_move_id == next_seat.pk, "the turn passes on at once, not at a time-out"
    assert Notification.objects.filter(
        recipient=next_seat.player, game_id=game.pk, kind=Notification.Kind.TURN
    ).exists()


def test_a_deleted_player_leaves_the_open_tables_and_their_own_closes(alice, bob, carol) -> None:
    alices_table = services.game_create(creator=alice, mode="marque", seats=3)
    services.game_join(game_id=alices_table.pk, player=bob)
    bobs_table = services.game_create(creator=bob, mode="sans-marque", seats=3)
    services.game_join(game_id=bobs_table.pk, player=carol)
    carols_table = services.game_create(creator=carol, mode="marque", seats=3)
    services.game_invite(game_id=carols_table.pk, by=carol, invitee=bob)

    delete_account(bob)

    assert list(alices_table.seats.values_list("player__username", flat=True)) == ["alice"]
    assert not Game.objects.filter(pk=bobs_table.pk).exists()
    invitation = Invitation.objects.get(game=carols_table, invitee=bob)
    assert invitation.status == Invitation.Status.DECLINED


def test_the_delete_page_says_which_games_the_deletion_resigns_and_leaves(
    alice, bob, carol
) -> None:
    running = [start_game([alice, bob]), start_game([carol, alice], seed=2)]
    table = services.game_create(creator=alice, mode="sans-marque", seats=4)
    mine = services.game_create(creator=bob, mode="marque", seats=3)
    services.game_join(game_id=mine.pk, player=alice)
    finished = start_game([alice, carol], seed=3)
    services.game_resign(game_id=finished.pk, player=carol)
    alice.language = "en"
    alice.save()
    client = Client()
    client.force_login(alice)

    html = client.get(reverse("accounts:delete")).content.decode()

    assert "You will resign your 2 running games" in html
    for game in running:
        assert reverse("games:page", args=[game.pk]) in html
    assert "You will leave these tables" in html
    assert f"#{table.pk} · " in html and "your table: it closes" in html
    assert f"#{mine.pk} · " in html
    assert reverse("games:page", args=[finished.pk]) not in html


def test_the_delete_page_in_french(alice, bob) -> None:
    start_game([alice, bob])
    client = Client()
    client.force_login(alice)
    html = client.get(reverse("accounts:delete"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Vous abandonnerez votre partie en cours" in html


def test_a_wrong_password_resigns_nothing(alice, bob) -> None:
    game = start_game([alice, bob])
    client = Client()
    client.force_login(bob)
    response = client.post(reverse("accounts:delete"), {"password": "not-mine"})
    assert response.status_code == 400
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert game.seats.get(player=bob).status == Seat.Status.ACTIVE


def test_a_player_with_no_game_is_deleted_as_before() -> None:
    oscar = make_player("oscar")
    delete_account(oscar)
    assert User.objects.get(pk=oscar.pk).deleted_at is not None


def test_the_deletion_and_its_resignations_are_one_transaction(alice, bob, monkeypatch) -> None:
    game = start_game([alice, bob])

    def broken(**kwargs: object) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services, "game_resign", broken)
    client = Client(raise_request_exception=False)
    client.force_login(bob)
    assert client.post(reverse("accounts:delete"), {"password": PASSWORD}).status_code == 500
    bob.refresh_from_db()
    assert (bob.username, bob.deleted_at, bob.is_active) == ("bob", None, True)
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
