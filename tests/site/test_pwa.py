"""The installable app: the manifest, the service worker and the offline page, as a browser fetches them.

The browser side (the worker registers, the offline page stands in for a page
when the network is gone) is tests/browser/test_pwa.py.
"""

from __future__ import annotations

import json
import struct

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import Client

from tests.factories import make_player

pytestmark = pytest.mark.django_db

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: str) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk comes first, by the format's rule)."""
    with open(path, "rb") as png:
        head = png.read(24)
    assert head[:8] == PNG_SIGNATURE and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def static_file(url: str) -> str:
    """The file in static/ that a /static/ address serves."""
    assert url.startswith(settings.STATIC_URL)
    found = finders.find(url.removeprefix(settings.STATIC_URL))
    assert found, f"no static file for {url}"
    return found


@pytest.fixture
def manifest(client: Client) -> dict:
    answer = client.get("/manifest.webmanifest")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/manifest+json"
    return json.loads(answer.content)


def test_the_manifest_makes_an_app_that_opens_on_my_games(manifest) -> None:
    assert manifest["name"] == manifest["short_name"] == "Diamino"
    assert manifest["start_url"] == "/parties/mes-parties/"
    assert manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"].startswith("#")
    assert manifest["lang"] == "fr"


def test_the_manifest_follows_the_players_language(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    english = json.loads(client.get("/manifest.webmanifest").content)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    french = json.loads(client.get("/manifest.webmanifest").content)
    assert (english["lang"], french["lang"]) == ("en", "fr")
    assert english["description"] != french["description"]


def test_the_manifests_icons_are_pngs_of_the_sizes_it_declares(manifest) -> None:
    icons = manifest["icons"]
    purposes = {(icon["sizes"], icon["purpose"]) for icon in icons}
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= purposes
    for icon in icons:
        assert icon["type"] == "image/png"
        width, height = png_size(static_file(icon["src"]))
        assert f"{width}x{height}" == icon["sizes"], icon["src"]


def test_the_service_worker_is_served_at_the_root_as_a_script_never_cached(client: Client) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("application/javascript")
    assert "no-cache" in answer["Cache-Control"]
    assert "Service-Worker-Allowed" not in answer  # at the root, its scope is the whole site
    # Its cache is the release's: a deploy brings a new worker and a new cache.
    assert f"diamino-{settings.DIAMINO_RELEASE}" in answer.content.decode()


def test_what_the_worker_stores_at_install_exists(client: Client) -> None:
    from diamino_site.pwa import precached_urls

    urls = precached_urls()
    assert "/hors-ligne/" in urls
    for url in urls:
        if url.startswith(settings.STATIC_URL):
            static_file(url)
        else:
            assert client.get(url).status_code == 200, url


@pytest.mark.parametrize(
    ("language", "heading"), [("fr", "Vous êtes hors ligne"), ("en", "You are offline")]
)
def test_the_offline_page_is_in_the_players_language(client: Client, language, heading) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    answer = client.get("/hors-ligne/")
    assert answer.status_code == 200
    assert heading in answer.content.decode()
    assert "no-cache" in answer["Cache-Control"]


def test_the_offline_page_shows_nobody_in_particular(client: Client) -> None:
    """It is kept and shown later, maybe after a log-out: no name, no session's token."""
    player = make_player("gaspard")
    client.force_login(player)
    page = client.get("/hors-ligne/").content.decode()
    assert player.name_shown not in page
    assert "csrfmiddlewaretoken" not in page


def test_every_page_links_the_manifest_and_the_worker(client: Client) -> None:
    page = client.get("/").content.decode()
    assert 'rel="manifest" href="/manifest.webmanifest"' in page
    assert 'data-service-worker="/sw.js"' in page
