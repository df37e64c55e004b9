"""A player invited more than the day's limit allows is told once that invitations are held back.

The senders are refused (429, ``tests/games/test_rate_limits.py``); the
recipient gets one email per window of the limit, in their own language,
although the refused service rolled back everything it wrote.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import notify, services
from games.errors import GameError
from games.models import Game, Invitation
from notifications import sending
from notifications.models import Notification
from tests.factories import client_as, make_player

pytestmark = pytest.mark.django_db

HELD = Notification.Kind.INVITATIONS_HELD


def open_table(client: Client, invite: str):
    data = {"mode": "sans-marque", "seats": 8, "days_per_move": 3, "invite": invite}
    return client.post(reverse("games:create"), data)


def notices_to(mailoutbox, user) -> list:
    """The held-back notices ``user`` received (their subject says so)."""
    return [
        m
        for m in mailoutbox
        if m.to == [user.email] and ("held back" in m.subject or "retenues" in m.subject)
    ]


def fill_the_day(recipient, prefix: str) -> list:
    """As many senders as the limit allows invite ``recipient``, one table each."""
    senders = [make_player(f"{prefix}{k}") for k in range(services.INVITEE_PER_DAY.count)]
    for sender in senders:
        assert open_table(client_as(sender), recipient.username).status_code == 302
    return senders


def test_the_player_is_told_once_in_their_language_and_the_senders_are_refused(
    committed, mailoutbox
) -> None:
    bob = make_player("bob", language="fr")
    carol = make_player("carol", language="en")
    with committed():
        fill_the_day(bob, "sender")
    assert len(mailoutbox) == services.INVITEE_PER_DAY.count  # the invitations themselves
    assert notices_to(mailoutbox, bob) == []

    # The 11th invitation, from yet another sender: refused, and bob is told.
    eleventh = make_player("eleventh")
    before = (Game.objects.count(), Invitation.objects.count())
    with committed():
        refused = open_table(client_as(eleventh, "en"), "bob")
    assert refused.status_code == 429
    assert "bob has received many invitations today: you can invite them again in" in (
        refused.content.decode()
    )
    assert (Game.objects.count(), Invitation.objects.count()) == before  # nothing else written
    [notice] = notices_to(mailoutbox, bob)
    assert notice.subject.startswith("[Diamino] Les invitations qui vous sont adressées")
    text = notice.body
    assert "Plus d’invitations que d’habitude vous ont été envoyées aujourd’hui" in text
    assert reverse("accounts:settings") in text  # where to turn invitation emails off
    assert "abus" in text  # and whom to tell if it looks like abuse
    html = notice.alternatives[0][0]
    assert "Plus d’invitations que d’habitude" in html

    # The 12th, in French through a table's invite form: refused, no second notice.
    twelfth = make_player("twelfth")
    game = services.game_create(creator=twelfth, mode="sans-marque", seats=8)
    with committed():
        again = client_as(twelfth, "fr").post(
            reverse("games:invite", args=[game.pk]), {"username": "bob"}
        )
    assert again.status_code == 429
    assert "bob a reçu beaucoup d’invitations aujourd’hui\u00a0: vous pourrez l’inviter" in (
        again.content.decode()
    )
    assert len(notices_to(mailoutbox, bob)) == 1
    assert Notification.objects.filter(recipient=bob, kind=HELD).count() == 1

    # Another player is unaffected: invited, and told nothing.
    with committed():
        assert open_table(client_as(twelfth), "carol").status_code == 302
    assert Invitation.objects.filter(invitee=carol).count() == 1
    assert notices_to(mailoutbox, carol) == []


def test_the_notice_is_in_english_for_an_english_player_and_each_window_has_its_own(
    committed, mailoutbox
) -> None:
    dave = make_player("dave", language="en")
    with committed():
        fill_the_day(dave, "first")
        with pytest.raises(GameError) as refused:
            services.game_create(
                creator=make_player("late"), mode="sans-marque", seats=8, invitees=[dave]
            )
    assert refused.value.status == 429
    [notice] = notices_to(mailoutbox, dave)
    assert notice.subject.startswith("[Diamino] Invitations to you are held back until")
    assert "More invitations than usual were sent to you today: 10" in notice.body
    assert "If these invitations look like abuse, tell the team:" in notice.body

    # The next day the window has ended: invitations go again, and a new flood a new notice.
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)), committed():
        fill_the_day(dave, "second")
        with pytest.raises(GameError):
            services.game_create(
                creator=make_player("later"), mode="sans-marque", seats=8, invitees=[dave]
            )
    assert len(notices_to(mailoutbox, dave)) == 2


def test_a_refusal_for_another_limit_tells_the_invitee_nothing(committed, mailoutbox) -> None:
    # alice invites erin too often herself: alice's limit, not erin's; erin is not flooded.
    alice, erin = make_player("alice"), make_player("erin")
    with committed():
        for _ in range(services.SAME_INVITEE_PER_DAY.count):
            game = services.game_create(creator=alice, mode="sans-marque", seats=8, invitees=[erin])
            services.game_leave(game_id=game.pk, player=alice)
        with pytest.raises(GameError):
            services.game_create(creator=alice, mode="sans-marque", seats=8, invitees=[erin])
    assert notices_to(mailoutbox, erin) == []
    assert not Notification.objects.filter(kind=HELD).exists()


def test_a_notice_sent_after_the_window_ended_is_skipped(mailoutbox) -> None:
    # Held in the outbox (broker down) until the invitations flow again: nothing to tell.
    frank = make_player("frank")
    start = int(timezone.now().timestamp())
    until = start + services.INVITEE_PER_DAY.seconds
    notify.invitations_held(frank, window_start=start, until=until, count=10)
    notify.invitations_held(frank, window_start=start, until=until, count=10)  # same window
    [row] = Notification.objects.filter(recipient=frank, kind=HELD)
    with time_machine.travel(timezone.now() + timedelta(days=1, minutes=1)):
        assert sending.send_one(row.pk).status == "skipped"
    assert mailoutbox == []
