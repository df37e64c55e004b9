"""Invitations and tables are limited per player: a limited request is a 429 that changes nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game, Invitation
from notifications.models import Notification
from tests.factories import client_as, make_player
from tests.french import misplaced_marks

if TYPE_CHECKING:
    from django.test.client import _MonkeyPatchedWSGIResponse

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, int, int]:
    return (Game.objects.count(), Invitation.objects.count(), Notification.objects.count())


def open_table(client: Client, **fields) -> _MonkeyPatchedWSGIResponse:
    data = {"mode": "sans-marque", "seats": 8, "days_per_move": 3, "invite": ""} | fields
    return client.post(reverse("games:create"), data)


def test_opening_and_closing_tables_cannot_flood_one_player_with_invitations(alice, bob) -> None:
    # The measured abuse: a table inviting bob, closed again, over and over.
    client = client_as(alice)
    for _ in range(services.SAME_INVITEE_PER_DAY.count):
        response = open_table(client, invite="bob", invitation_only="on")
        game = Game.objects.get()
        client.post(reverse("games:leave", args=[game.pk]))  # the creator leaving closes it
    assert Notification.objects.filter(recipient=bob, kind="invitation").count() == 3
    before = counts()
    response = open_table(client, invite="bob", invitation_only="on")
    assert response.status_code == 429
    page = response.content.decode()
    assert "You have invited bob several times today" in page
    assert "you can invite them again in" in page
    assert 'value="bob"' in page  # the form as typed, nothing to type again
    assert counts() == before
    # Another player may still invite bob, and alice may still invite someone else.
    assert open_table(client_as(make_player("carol")), invite="bob").status_code == 302
    assert open_table(client, invite="carol").status_code == 302


def test_a_player_who_opens_too_many_tables_is_told_to_wait(alice) -> None:
    client = client_as(alice, "fr")
    for _ in range(services.TABLES_PER_HOUR.count):
        assert open_table(client).status_code == 302
    before = counts()
    response = open_table(client)
    assert response.status_code == 429
    page = response.content.decode()
    message = "Vous avez ouvert beaucoup de tables en peu de temps\u00a0: vous pourrez en ouvrir"
    assert message in page
    assert counts() == before
    # One click against the computer opens a table too.
    refused = client.post(
        reverse("games:against_computer"), {"computer-mode": "marque", "computer-level": "debutant"}
    )
    assert refused.status_code == 429 and counts() == before
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)):
        assert open_table(client).status_code == 302


def test_a_player_who_sends_too_many_invitations_is_refused_and_nobody_is_invited(alice) -> None:
    client = client_as(alice)
    open_table(client)
    game = Game.objects.get()
    limit = services.INVITATIONS_PER_HOUR.count
    players = [make_player(f"guest{k}") for k in range(limit + 1)]
    invite = reverse("games:invite", args=[game.pk])
    for player in players[:limit]:
        assert client.post(invite, {"username": player.username}).status_code == 302
    before = counts()
    response = client.post(invite, {"username": players[-1].username})
    assert response.status_code == 429
    page = response.content.decode()
    assert "You have sent many invitations in a short time: you can invite again in" in page
    assert 'id="table-area"' in page  # the table's own page, with the reason
    assert counts() == before
    assert not Invitation.objects.filter(invitee=players[-1]).exists()


def test_inviting_a_player_whose_invitation_is_pending_spends_nothing(alice, bob) -> None:
    game = services.game_create(creator=alice, mode="sans-marque", seats=8)
    for _ in range(services.SAME_INVITEE_PER_DAY.count + 2):  # no new email: no count
        services.game_invite(game_id=game.pk, by=alice, invitee=bob)
    assert Notification.objects.filter(recipient=bob, kind="invitation").count() == 1


def test_the_rate_limit_messages_read_well_in_french() -> None:
    from django.utils import translation
    from django.utils.translation import gettext

    from infra.ratelimit import wait_text

    with translation.override("fr"):
        messages = [
            gettext(
                "You have opened many tables in a short time: you can open another in %(wait)s."
            ),
            gettext(
                "You have sent many invitations in a short time: you can invite again in %(wait)s."
            ),
            gettext(
                "You have invited %(name)s several times today: "
                "you can invite them again in %(wait)s."
            ),
        ]
        received = gettext(
            "%(name)s has received many invitations today: you can invite them again in %(wait)s."
        )
        assert received.startswith("%(name)s a reçu") and misplaced_marks(received) == []
        assert wait_text(30) == "1\u00a0minute"
        assert wait_text(90 * 60) == "90\u00a0minutes"
        assert wait_text(3 * 3600) == "3\u00a0heures"
    for message in messages:
        assert message.startswith("Vous avez")
        assert misplaced_marks(message) == []


def test_many_senders_together_cannot_flood_one_player_with_invitations(bob) -> None:
    # Each sender stays far under their own limits; together they reach bob's.
    limit = services.INVITEE_PER_DAY.count
    senders = [make_player(f"sender{k}") for k in range(limit + 1)]
    for sender in senders[:limit]:
        assert open_table(client_as(sender), invite="bob").status_code == 302
    assert Notification.objects.filter(recipient=bob, kind="invitation").count() == limit
    before = counts()
    refused = open_table(client_as(senders[-1], "fr"), invite="bob")
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "bob a reçu beaucoup d’invitations aujourd’hui\u00a0: vous pourrez l’inviter" in page
    # No table, no invitation, no invitation email: only bob's notice that invitations
    # to him are held back (tests/games/test_invitations_held.py).
    assert counts() == (before[0], before[1], before[2] + 1)
    assert Notification.objects.filter(recipient=bob, kind="invitations-held").count() == 1
    # In English, through the table's invite form too.
    game = services.game_create(creator=senders[-1], mode="sans-marque", seats=8)
    english = client_as(senders[-1], "en")
    answer = english.post(reverse("games:invite", args=[game.pk]), {"username": "bob"})
    assert answer.status_code == 429
    assert "bob has received many invitations today: you can invite them again in" in (
        answer.content.decode()
    )
    # Others may still be invited, and bob again the next day.
    make_player("carol")
    assert open_table(english, invite="carol").status_code == 302
    with time_machine.travel(timezone.now() + timedelta(days=1)):
        assert open_table(english, invite="bob").status_code == 302
