"""The installable app in Chromium: a valid manifest, a worker that registers, the offline page.

The worker keeps no game page: with the network gone, a game's address shows
the offline page, never the position last seen (diamino_site/pwa.py).
"""

from __future__ import annotations

import json

import pytest
from django.utils import translation

from games.models import Game
from games.push import payload as push_payload
from notifications.models import Notification
from tests.browser.pages import expect
from tests.factories import make_player
from tests.games.conftest import seat_at, start_game

pytestmark = pytest.mark.browser


@pytest.fixture
def game(transactional_db) -> Game:
    return start_game([make_player("alice"), make_player("bob")])


def worker_ready(page) -> str:
    """The scope of the worker once it is active (installed, its files stored)."""
    return page.evaluate("navigator.serviceWorker.ready.then((registration) => registration.scope)")


def test_the_manifest_is_valid_and_the_app_installable(browse) -> None:
    page = browse()
    page.goto("/")
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"].endswith("/manifest.webmanifest")
    assert manifest["errors"] == []
    worker_ready(page)
    # Chromium's own check, the one behind its "Install" button: manifest, icons, worker.
    # Playwright's contexts are incognito windows, where Chromium installs nothing: that
    # one error is the test's window, not the site.
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [error["errorId"] for error in errors if error["errorId"] != "in-incognito"] == []


def test_the_offline_page_stands_in_for_a_game_page_never_a_copy_of_it(browse, game) -> None:
    player = seat_at(game, 0).player
    page = browse(player)
    page.goto(f"/parties/{game.pk}/")
    expect(page.locator("#board")).to_be_visible()
    assert worker_ready(page).endswith("/")  # the site's root: every page

    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", name="Vous êtes hors ligne")).to_be_visible()
    expect(page).to_have_title("Hors ligne · Diamino")
    expect(page.locator("#board")).to_have_count(0)
    # The page's style sheet came from the worker's store too: the site's header, in its green.
    header = page.locator(".site-header")
    assert header.evaluate("(h) => getComputedStyle(h).backgroundColor") == "rgb(29, 107, 72)"

    page.goto("/")  # any page, not only the one that was open
    expect(page.get_by_role("heading", name="Vous êtes hors ligne")).to_be_visible()

    page.context.set_offline(False)
    page.get_by_role("link", name="Réessayer").click()  # back to the page it stood in for
    expect(page).not_to_have_title("Hors ligne · Diamino")
    page.goto(f"/parties/{game.pk}/")
    expect(page.locator("#board")).to_be_visible()  # the game again, from the server


@pytest.mark.full_chromium  # the headless shell shows no notification (getNotifications is empty)
def test_a_push_delivered_to_the_worker_shows_the_games_notification(
    browse, game, settings, site
) -> None:
    """The site's one worker (/sw.js imports /push-sw.js) shows a push as a notification
    that opens the game.

    The push is the outbox's own payload for the game's first turn, handed to the worker by
    the DevTools protocol (``ServiceWorker.deliverPushMessage``) as a push service would.
    Headless Chromium draws no notification and the DevTools protocol cannot click one; a
    click made up in the page cannot open a window either (``clients.openWindow`` needs a
    real click). So the test reads what the worker shows (``getNotifications``) and asks the
    worker's click handler which page that notification opens.
    """
    settings.SITE_URL = site  # the push's address is the site's own, as in production
    player = seat_at(game, 0).player
    page = browse(player)
    page.context.grant_permissions(["notifications"], origin=site)
    page.goto(f"/parties/{game.pk}/")
    assert worker_ready(page) == f"{site}/"

    cdp = page.context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _attempt in range(100):
        root = [r for r in registrations if r["scopeURL"] == f"{site}/" and not r["isDeleted"]]
        if root:
            break
        page.wait_for_timeout(50)  # the protocol's events come in the page's time
    row = Notification.objects.get(kind="turn", game=game, channel="email")
    with translation.override("fr"):
        data = push_payload(row)
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": site, "registrationId": root[0]["registrationId"], "data": json.dumps(data)},
    )

    # Shown once the worker handled the push: looked for every 50 ms, for at most 5 s.
    shown = page.evaluate(
        """() => new Promise((resolve) => {
          let tries = 100;
          const look = () => navigator.serviceWorker.ready
            .then((registration) => registration.getNotifications())
            .then((found) => found.length || !--tries
              ? resolve(found.map((n) => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url})))
              : setTimeout(look, 50));
          look();
        })"""
    )
    game_url = f"{site}/parties/{game.pk}/"
    assert shown == [
        {
            "title": "Diamino",
            "body": f"À vous de jouer dans la partie nº\u00a0{game.pk}.",  # nº, a no-break space
            "tag": f"game-{game.pk}",
            "url": game_url,
        }
    ]
    [worker] = page.context.service_workers
    opens = worker.evaluate(
        "self.registration.getNotifications().then((found) => notificationTarget(found[0]))"
    )
    assert opens == game_url
