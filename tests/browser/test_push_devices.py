"""A player turns on web push for this browser, sees it listed, and removes it (issue #35).

Chromium's own push service is out of reach in the tests, so the page's
``PushManager.subscribe`` answers with a subscription made here (as the browser
would, keys of the right lengths); everything else is the site's: the button,
the permission asked on the click, the worker's registration, the POST, the list.
"""

from __future__ import annotations

import base64

import pytest

from benchmarks.servers import vapid_pair
from notifications.models import PushSubscription
from tests.browser.pages import expect
from tests.factories import make_player

pytestmark = pytest.mark.browser


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


FAKE_SUBSCRIBE = """
(() => {
  const json = {
    endpoint: "https://push.example.net/send/%(name)s",
    keys: { p256dh: "%(p256dh)s", auth: "%(auth)s" },
  };
  const subscription = { endpoint: json.endpoint, toJSON: () => json };
  PushManager.prototype.getSubscription = async () => null;
  PushManager.prototype.subscribe = async () => subscription;
})();
"""


@pytest.fixture
def vapid(settings) -> None:
    settings.DIAMINO_VAPID_PUBLIC_KEY, settings.DIAMINO_VAPID_PRIVATE_KEY = vapid_pair()


def test_a_player_turns_on_notifications_then_removes_the_device(
    browse, transactional_db, vapid
) -> None:
    player = make_player("paulette", language="fr")
    page = browse(player)
    page.add_init_script(
        FAKE_SUBSCRIBE
        % {
            "name": "paulette",
            "p256dh": b64url(b"\x04" + bytes(range(64))),
            "auth": b64url(bytes(16)),
        }
    )
    page.context.grant_permissions(["notifications"])
    page.goto("/compte/")
    expect(page.get_by_text("Aucun appareil ne reçoit encore de notifications.")).to_be_visible()
    page.get_by_role("button", name="Activer les notifications sur cet appareil").click()
    expect(page.get_by_text("Les notifications sont activées sur cet appareil.")).to_be_visible()
    [device] = PushSubscription.objects.filter(user=player)
    assert device.endpoint == "https://push.example.net/send/paulette"
    expect(page.get_by_text("Chrome")).to_be_visible()
    page.get_by_role("button", name="Retirer").click()
    expect(page.get_by_text("Cet appareil ne reçoit plus de notifications.")).to_be_visible()
    assert not PushSubscription.objects.filter(user=player).exists()


def test_a_refused_permission_is_said_and_nothing_is_stored(
    browse, transactional_db, vapid
) -> None:
    player = make_player("quentin", language="en")
    page = browse(player)
    page.context.clear_permissions()
    page.add_init_script("Notification.requestPermission = async () => 'denied';")
    page.goto("/compte/")
    page.get_by_role("button", name="Turn on notifications on this device").click()
    expect(
        page.get_by_text("Notifications are blocked for this site in your browser’s settings.")
    ).to_be_visible()
    assert not PushSubscription.objects.exists()


def test_without_vapid_keys_the_settings_show_no_button(browse, transactional_db, settings) -> None:
    settings.DIAMINO_VAPID_PUBLIC_KEY = ""
    page = browse(make_player("rose", language="en"))
    page.goto("/compte/")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible()
    expect(page.get_by_role("button", name="Turn on notifications on this device")).to_have_count(0)
