"""Web push: a device per subscription, pushes through the outbox, to a real local push service."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.services import user_delete
from benchmarks.servers import PushService, vapid_pair
from games.services.chat import chat_post
from notifications import periodic, sending
from notifications.models import Notification, PushSubscription
from tests.games.conftest import seat_at
from tests.notifications.conftest import new_game, play_chat

pytestmark = pytest.mark.django_db
Status = Notification.Status
FIREFOX = "Mozilla/5.0 (Android 14; Mobile; rv:128.0) Gecko/128.0 Firefox/128.0"


@pytest.fixture
def vapid(settings) -> str:
    public, private = vapid_pair()
    settings.DIAMINO_VAPID_PUBLIC_KEY = public
    settings.DIAMINO_VAPID_PRIVATE_KEY = private
    settings.DIAMINO_VAPID_SUBJECT = "mailto:admin@diamino.test"
    return public


@pytest.fixture
def push_service(vapid):
    with PushService(vapid) as service:
        yield service


def subscribe(user, subscription: dict) -> PushSubscription:
    """As the view stores it, but for the local service's http endpoint (the view wants https)."""
    return PushSubscription.objects.create(
        user=user,
        endpoint=subscription["endpoint"],
        p256dh=subscription["keys"]["p256dh"],
        auth=subscription["keys"]["auth"],
        user_agent=FIREFOX,
    )


def push_rows(**filters) -> list[Notification]:
    return list(Notification.objects.filter(channel="push", **filters).order_by("pk"))


def test_a_move_pushes_one_encrypted_message_naming_the_game_and_whose_turn(
    alice, bob, push_service, committed
) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    subscribe(second, push_service.subscription("phone"))
    with committed():
        play_chat(game)
    [received] = push_service.received
    assert (received.error, received.status) == ("", 201)
    [row] = push_rows()
    assert (row.kind, row.recipient, row.status) == ("turn", second, Status.SENT)
    assert received.claims["sub"] == "mailto:admin@diamino.test"
    payload = received.payload
    assert payload["game"] == game.pk
    assert payload["to_move"] == second.name_shown
    assert payload["url"].endswith(reverse("games:page", args=[game.pk]))
    assert str(game.pk) in payload["body"]
    # The hand is secret: no tile of it travels, whatever the field.
    assert set(payload) == {"title", "body", "url", "tag", "game", "to_move", "id"}
    assert payload["id"] == row.pk  # the row's: a push received twice reads as one
    hand = seat_at(game, 1).hand
    assert hand and hand not in json.dumps(payload)


def test_each_device_of_the_player_gets_its_own_push(alice, bob, push_service, committed) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    subscribe(second, push_service.subscription("phone"))
    subscribe(second, push_service.subscription("laptop"))
    with committed():
        play_chat(game)
    assert sorted(r.device for r in push_service.received) == ["laptop", "phone"]
    assert [r.status for r in push_rows()] == [Status.SENT, Status.SENT]


def test_a_410_removes_the_subscription_and_closes_the_row(
    alice, bob, push_service, committed
) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    subscribe(second, push_service.subscription("phone"))
    push_service.answers = [410]
    with committed():
        play_chat(game)
    assert not PushSubscription.objects.filter(user=second).exists()
    [row] = push_rows()
    assert row.status == Status.SKIPPED
    assert "410" in row.reason
    assert [r.status for r in push_service.received] == [410]


def test_a_503_is_retried_with_the_outbox_backoff_then_sent_once(
    alice, bob, push_service, committed
) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    subscribe(second, push_service.subscription("phone"))
    push_service.answers = [503]
    with committed():
        play_chat(game)
    [row] = push_rows()
    assert row.status == Status.PENDING and "503" in row.last_error
    assert row.next_attempt_at > timezone.now()
    # Not due yet: nothing is sent again.
    assert sending.send_one(row.pk).status == "not-claimed"
    with time_machine.travel(row.next_attempt_at + timedelta(seconds=1)):
        assert sending.send_one(row.pk).status == "sent"
        assert sending.send_one(row.pk).status == "not-claimed"
    assert [r.status for r in push_service.received] == [503, 201]
    assert push_service.received[1].payload["game"] == game.pk
    # Both attempts carried the row's id; the service counts only the one it took.
    assert [r.payload["id"] for r in push_service.received] == [row.pk, row.pk]
    assert push_service.push_ids == {str(row.pk): 1}


def test_a_push_service_that_is_down_never_stops_the_move(alice, bob, vapid, committed) -> None:
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    # Nothing listens on port 9 of this machine: the connection is refused.
    PushSubscription.objects.create(
        user=second,
        endpoint="http://127.0.0.1:9/push/gone",
        p256dh=base64.urlsafe_b64encode(b"\x04" + b"\x01" * 64).decode().rstrip("="),
        auth="AAAAAAAAAAAAAAAAAAAAAA",
    )
    with committed():
        play_chat(game)
    game.refresh_from_db()
    assert game.move_count == 1
    [row] = push_rows()
    assert row.status == Status.PENDING  # waits for the sweep, with the backoff
    assert row.last_error


def test_without_vapid_keys_no_push_row_is_written(alice, bob, committed, settings) -> None:
    settings.DIAMINO_VAPID_PUBLIC_KEY = ""
    settings.DIAMINO_VAPID_PRIVATE_KEY = ""
    game = new_game([alice, bob])
    second = seat_at(game, 1).player
    PushSubscription.objects.create(
        user=second, endpoint="https://push.example/x", p256dh="k", auth="a"
    )
    with committed():
        play_chat(game)
    assert push_rows() == []
    assert Notification.objects.filter(kind="turn", recipient=second).exists()  # the email


def test_chat_pushes_at_most_once_per_game_per_hour(alice, bob, push_service, committed) -> None:
    game = new_game([alice, bob])
    subscribe(bob, push_service.subscription("phone"))
    with committed():
        chat_post(game_id=game.pk, author=alice, text="Bonjour !")
        chat_post(game_id=game.pk, author=alice, text="Tu es là ?")
    [row] = push_rows(kind="chat")
    assert row.recipient == bob and row.status == Status.SENT
    [received] = push_service.received
    # The text of the message stays on the site.
    assert "Bonjour" not in json.dumps(received.payload)
    with time_machine.travel(timezone.now() + timedelta(hours=1, minutes=1)), committed():
        chat_post(game_id=game.pk, author=alice, text="Encore moi")
    assert len(push_rows(kind="chat")) == 2


# --- The settings: subscribe, list, remove -------------------------------------------------


def valid_subscription(endpoint: str = "https://push.example.net/send/abc") -> dict:
    return {
        "endpoint": endpoint,
        "keys": {
            "p256dh": base64.urlsafe_b64encode(b"\x04" + bytes(range(64))).decode().rstrip("="),
            "auth": base64.urlsafe_b64encode(bytes(16)).decode().rstrip("="),
        },
    }


def post_subscription(client, data) -> Any:
    body = data if isinstance(data, str) else json.dumps(data)
    return client.post(
        reverse("push:subscribe"),
        body,
        content_type="application/json",
        headers={"user-agent": FIREFOX},
    )


def test_a_device_is_subscribed_listed_with_its_browser_and_removed(alice, client, vapid) -> None:
    client.force_login(alice)
    answer = post_subscription(client, valid_subscription())
    assert answer.status_code == 201
    [device] = PushSubscription.objects.filter(user=alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Firefox, Android" in page
    assert "Turn on notifications on this device" in page
    assert device.endpoint not in page  # a capability: whoever knows it can push
    answer = client.post(reverse("push:remove", args=[device.pk]))
    assert answer.status_code == 302
    assert not PushSubscription.objects.filter(user=alice).exists()


def test_a_player_cannot_remove_another_players_device(alice, bob, client, vapid) -> None:
    device = PushSubscription.objects.create(
        user=bob, endpoint="https://push.example/bob", p256dh="k", auth="a"
    )
    client.force_login(alice)
    client.post(reverse("push:remove", args=[device.pk]))
    assert PushSubscription.objects.filter(pk=device.pk).exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not json", "This is not a push subscription."),
        ([1, 2], "This is not a push subscription."),
        (valid_subscription("http://push.example.net/x"), "must be an https address"),
        ({"endpoint": "https://push.example.net/x"}, "no encryption keys"),
        (
            {**valid_subscription(), "keys": {"p256dh": "AAAA", "auth": "AAAAAAAAAAAAAAAAAAAAAA"}},
            "public key is not valid",
        ),
        (
            {**valid_subscription(), "keys": {**valid_subscription()["keys"], "auth": "abc!"}},
            "authentication secret is not valid",
        ),
    ],
)
def test_what_is_not_a_subscription_is_refused_with_why_and_nothing_stored(
    alice, client, vapid, data, message
) -> None:
    client.force_login(alice)
    answer = post_subscription(client, data)
    assert answer.status_code == 400
    assert message in answer.json()["error"]
    assert not PushSubscription.objects.exists()


def test_the_refusal_is_in_the_players_language(bob, client, vapid) -> None:
    client.force_login(bob)  # bob reads French
    answer = post_subscription(client, valid_subscription("http://push.example.net/x"))
    assert answer.status_code == 400
    assert "https" in answer.json()["error"]
    assert "doit" in answer.json()["error"]


def test_without_vapid_keys_the_settings_offer_no_push(alice, client, settings) -> None:
    settings.DIAMINO_VAPID_PUBLIC_KEY = ""
    settings.DIAMINO_VAPID_PRIVATE_KEY = ""
    client.force_login(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "Turn on notifications on this device" not in page
    assert post_subscription(client, valid_subscription()).status_code == 404
    assert not PushSubscription.objects.exists()


def test_signed_out_visitors_cannot_subscribe(client, vapid) -> None:
    answer = post_subscription(client, valid_subscription())
    assert answer.status_code == 302
    assert not PushSubscription.objects.exists()


def test_a_deleted_account_s_devices_go_with_it(alice, vapid) -> None:
    PushSubscription.objects.create(
        user=alice, endpoint="https://push.example/a", p256dh="k", auth="a"
    )
    user_delete(user=alice)
    assert not PushSubscription.objects.exists()


def test_vapid_keys_prints_a_pair_the_settings_take(capsys) -> None:
    call_command("vapid_keys")
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    public = base64.urlsafe_b64decode(lines["DIAMINO_VAPID_PUBLIC_KEY"] + "==")
    private = base64.urlsafe_b64decode(lines["DIAMINO_VAPID_PRIVATE_KEY"] + "==")
    assert len(public) == 65 and public[0] == 4
    assert len(private) == 32


def test_staff_see_push_rows_in_the_admin(admin_client, alice, bob, push_service, committed):
    game = new_game([alice, bob])
    subscribe(bob, push_service.subscription("phone"))
    with committed():
        chat_post(game_id=game.pk, author=alice, text="Bonjour !")
    [row] = push_rows(kind="chat")
    listing = admin_client.get(reverse("admin:notifications_notification_changelist"))
    assert listing.status_code == 200
    page = admin_client.get(reverse("admin:notifications_notification_change", args=[row.pk]))
    assert page.status_code == 200
    assert "Firefox, Android" in page.content.decode()


def test_a_game_that_starts_pushes_whose_turn_it_is_to_each_player(
    alice, bob, push_service, committed
) -> None:
    subscribe(alice, push_service.subscription("alice-phone"))
    subscribe(bob, push_service.subscription("bob-phone"))
    with committed():
        game = new_game([alice, bob], keep_start=True)
    first = seat_at(game, 0).player
    kinds = {row.recipient: row.kind for row in push_rows()}
    assert kinds == {first: "turn", (bob if first == alice else alice): "game-started"}
    payloads = [r.payload for r in push_service.received]
    assert {p["game"] for p in payloads} == {game.pk}
    assert {p["to_move"] for p in payloads} == {first.name_shown}


# --- The player's choices (#35): push per kind, quiet hours ------------------------------


def test_a_kind_the_player_turned_off_is_not_pushed(alice, bob, push_service, committed) -> None:
    game = new_game([alice, bob])
    subscribe(bob, push_service.subscription("phone"))
    bob.push_chat = False
    bob.save()
    with committed():
        chat_post(game_id=game.pk, author=alice, text="Bonjour !")
    assert push_rows() == []
    assert push_service.received == []


def test_quiet_hours_hold_the_pushes_and_release_them_as_one(
    alice, bob, push_service, committed
) -> None:
    # bob is in Paris; at 23:30 there (22:30 UTC in March) his quiet hours have begun.
    night = datetime(2026, 3, 4, 22, 30, tzinfo=UTC)
    morning = datetime(2026, 3, 5, 7, 0, tzinfo=UTC)  # 8:00 in Paris
    with time_machine.travel(night - timedelta(days=1), tick=False):
        game = new_game([bob, alice])
    assert seat_at(game, 1).player == bob  # the deal's order: bob plays second
    subscribe(bob, push_service.subscription("phone"))
    bob.quiet_from, bob.quiet_until = 23, 8
    bob.save()
    with time_machine.travel(night, tick=False), committed():
        play_chat(game)
        chat_post(game_id=game.pk, author=alice, text="À demain")
    rows = push_rows(recipient=bob)
    assert [(r.kind, r.status, r.next_attempt_at) for r in rows] == [
        ("turn", Status.PENDING, morning),
        ("chat", Status.PENDING, morning),
    ]
    with time_machine.travel(morning - timedelta(minutes=1), tick=False):
        periodic.sweep()
    assert push_service.received == []  # nothing during the quiet hours
    with time_machine.travel(morning + timedelta(minutes=2), tick=False):
        periodic.sweep()
    [received] = push_service.received  # one push for both
    assert (received.error, received.status) == ("", 201)
    payload = received.payload
    assert payload["game"] == game.pk
    assert payload["to_move"] == bob.name_shown
    assert payload["url"].endswith(reverse("games:page", args=[game.pk]))
    assert (
        f"À vous de jouer dans la partie nº\u00a0{game.pk}." in payload["body"]
    )  # bob reads French
    assert f"Nouveau message dans la partie nº\u00a0{game.pk}." in payload["body"]
    assert [r.status for r in push_rows(recipient=bob)] == [Status.SENT, Status.SENT]
