"""An invitation-only table is seen by its players, the invited and staff; to others it is a 404."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game, Invitation, Seat
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def table(alice, bob, carol):
    """Alice's private table for three: Bob has joined, Carol is invited and has not answered."""
    game = services.game_create(
        creator=alice, mode="marque", seats=3, invitation_only=True, invitees=[bob, carol]
    )
    services.game_join(game_id=game.pk, player=bob)
    return game


@pytest.fixture
def staff(db):
    return make_player("sabine", is_staff=True)


def table_page(client: Client, game: Game):
    return client.get(reverse("games:page", args=[game.pk]))


def test_its_players_and_the_invited_see_the_seats(table, alice, bob, carol) -> None:
    for viewer in (alice, bob, carol):
        response = table_page(client_for(viewer), table)
        assert response.status_code == 200, viewer
        assert "alice" in response.content.decode() and "bob" in response.content.decode()


def test_staff_see_it(table, staff) -> None:
    assert table_page(client_for(staff), table).status_code == 200


def test_another_player_gets_the_answer_for_no_game_at_all(table, outsider) -> None:
    client = client_for(outsider)
    response = table_page(client, table)
    missing = client.get(reverse("games:page", args=[table.pk + 1000]))
    assert response.status_code == missing.status_code == 404
    assert "bob" not in response.content.decode()


def test_another_player_cannot_act_on_it_nor_learn_it_exists(table, outsider) -> None:
    client = client_for(outsider)
    before = (Seat.objects.count(), Invitation.objects.count(), Game.objects.get().status)
    for name, data in [
        ("join", {}),
        ("leave", {}),
        ("start", {}),
        ("invite", {"username": "alice"}),
        ("seat_bot", {"level": "debutant"}),
        ("unseat_bot", {"seat": 1}),
        ("chat", {"text": "bonjour"}),
        ("preview", {"version": 0, "action": "pass"}),
        ("play", {"version": 0, "action": "pass"}),
    ]:
        response = client.post(reverse(f"games:{name}", args=[table.pk]), data)
        assert response.status_code == 404, name
        assert "bob" not in response.content.decode(), name
    assert (Seat.objects.count(), Invitation.objects.count(), Game.objects.get().status) == before


def test_an_anonymous_visitor_is_asked_to_log_in_as_for_any_game(table) -> None:
    response = table_page(client_for(), table)
    missing = client_for().get(reverse("games:page", args=[table.pk + 1000]))
    assert response.status_code == missing.status_code == 302
    assert reverse("account_login") in response["Location"]


def test_a_public_table_stays_open_to_every_signed_in_player(alice, outsider) -> None:
    game = services.game_create(creator=alice, mode="marque", seats=3)
    assert table_page(client_for(outsider), game).status_code == 200


def test_once_it_has_started_it_is_watched_like_any_game(table, carol, outsider) -> None:
    services.game_join(game_id=table.pk, player=carol)
    assert Game.objects.get().status == Game.Status.RUNNING
    assert table_page(client_for(outsider), table).status_code == 200


@pytest.mark.parametrize(
    ("language", "invited", "pending"),
    [("en", "Invited", "Pending"), ("fr", "Invité", "En attente")],
)
def test_an_invitee_who_joined_is_listed_once_among_the_players(
    table, alice, bob, carol, language: str, invited: str, pending: str
) -> None:
    alice.language = language
    alice.save(update_fields=["language"])
    html = table_page(client_for(alice), table).content.decode()
    players = html.split('class="seat-list"')[1].split("</ol>")[0]
    assert "bob" in players and "carol" not in players
    invitations = html.split(f"<h3>{invited}</h3>")[1].split("</ul>")[0]
    assert "carol" in invitations and pending in invitations
    assert "bob" not in invitations
