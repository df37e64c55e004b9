"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

Every test here is marked ``browser`` (tests/conftest.py skips it without
Chromium and fails it under ``DIAMINO_REQUIRE_BROWSER=1``). Players act only
through the pages; the ORM is used to set the stage (``rig`` a deal so the
moves are known in advance) and to check what the pages did.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles import finders
from django.core import mail
from django.test import Client

from diamino_site.storage import minifier
from tests.conftest import CHROMIUM, FULL_CHROMIUM

if TYPE_CHECKING:  # Playwright may be missing: the tests then skip, they must still collect
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route

# Playwright's sync API runs an asyncio event loop in the test thread (in a
# greenlet) from the first browser test to the end of the session, so Django
# sees "a running loop" and refuses ORM calls from that thread with
# SynchronousOnlyOperation — in these tests and in every test that runs after
# them in the same session. Nothing here is async: the live server answers in
# its own threads, and the test thread only blocks on the browser. Set at
# import, before any test of the session runs.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # CI and the developers' machines run as root
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
# Two cores shared by a whole team or a CI run: give each wait room to breathe.
TIMEOUT_MS = 10_000


@pytest.fixture(scope="session", autouse=True)
def patient_expectations() -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Debian's Chromium, never a downloaded browser."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict, live_server) -> dict:
    # French first, as the site is: the pages and the accessible names are French.
    return {**browser_context_args, "base_url": live_server.url, "locale": "fr-FR"}


# Each browser reports what the Content-Security-Policy blocked to the test (below).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__diaminoCspViolation(
    `${event.violatedDirective} blocked ${event.blockedURI || "inline"} on ${location.pathname}`
  );
});
"""


# The scripts and style sheets as production serves them. The live server serves the
# sources; every page of every browser test gets our js/ and css/ minified instead, as
# collectstatic minifies them (diamino_site/storage.py), so a minifier that changes what
# a script does fails the tests that use it (rjsmin, for one, does not handle a
# template literal nested in another).
@functools.cache
def minified(name: str) -> str | None:
    """Static file ``name`` as collectstatic would write it, or None if it is not minified."""
    minify, found = minifier(name), finders.find(name)
    if minify is None or not isinstance(found, str):
        return None
    with open(found, encoding="utf-8") as source:
        return minify(source.read())


def static_prefix() -> str:
    """The path under which the live server serves the static files: ``/static/``."""
    return "/" + django_settings.STATIC_URL.strip("/") + "/"


def serve_minified(route: Route) -> None:
    path = urlsplit(route.request.url).path
    text = minified(path.removeprefix(static_prefix()))
    if text is None:
        route.fallback()
        return
    kind = "text/css" if path.endswith(".css") else "text/javascript"
    route.fulfill(body=text, content_type=f"{kind}; charset=utf-8")


@pytest.fixture(scope="session")
def full_chromium(playwright: Playwright, browser_type_launch_args: dict) -> Iterator[Browser]:
    """The whole browser, for the tests marked ``full_chromium`` where the others run in
    its headless shell (tests/conftest.py): launched once per worker, when one asks."""
    browser = playwright.chromium.launch(
        **{**browser_type_launch_args, "executable_path": FULL_CHROMIUM}
    )
    yield browser
    browser.close()


@pytest.fixture
def new_context(
    new_context, request: pytest.FixtureRequest, browser_context_args: dict
) -> Iterator[Callable[..., Any]]:
    """pytest-playwright's contexts, failing the test on any CSP violation in any page,
    and served our scripts and style sheets minified (``serve_minified``).

    The policy (settings.CONTENT_SECURITY_POLICY) blocks inline scripts and
    handlers; a template or script that brings one back breaks the page where
    the browser enforces it, so every browser test watches for it. A test marked
    ``full_chromium`` gets its contexts from the whole browser instead.
    """
    violations: list[str] = []
    whole: list[BrowserContext] = []

    def make(**kwargs: Any) -> Any:
        if request.node.get_closest_marker("full_chromium") and FULL_CHROMIUM != CHROMIUM:
            browser = request.getfixturevalue("full_chromium")
            context = browser.new_context(**browser_context_args, **kwargs)
            whole.append(context)
        else:
            context = new_context(**kwargs)
        context.expose_function("__diaminoCspViolation", lambda text: violations.append(text))
        context.add_init_script(CSP_LISTENER)
        context.route(f"**{static_prefix()}**", serve_minified)
        return context

    make.violations = violations  # type: ignore[attr-defined]
    yield make
    for context in whole:
        context.close()
    assert violations == [], "Content-Security-Policy violations:\n" + "\n".join(violations)


@pytest.fixture(autouse=True)
def site(live_server, settings) -> Iterator[str]:
    """The live site as the browser tests need it."""
    settings.DIAMINO_POLL_SECONDS = 1
    # A manifest storage (DJANGO_DEBUG=0) would need collectstatic first; the
    # live server serves the files from the source folders with the plain one.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    yield live_server.url


@pytest.fixture
def browse(transactional_db, new_context, site: str) -> Callable[..., Page]:
    """Open a new browser (its own cookies) as ``user``, on a desktop or a ``phone``, in ``language`` if given.

    Signing in sets the session cookie: only the sign-up test goes through the
    log-in pages, elsewhere signing in is not what is being tested.

    It asks for ``transactional_db`` first, so that the browsers are closed
    before the database is emptied: every open game page polls, and a poll
    still reading the embedded default's shared in-memory SQLite locks the
    tables the flush must empty ("database table is locked").
    """

    def open_page(user=None, *, phone: bool = False, language: str | None = None) -> Page:
        context = new_context(**(PHONE if phone else DESKTOP))
        context.set_default_timeout(TIMEOUT_MS)
        if language is not None:  # as the header's language switch leaves it: cookie and player
            name = django_settings.LANGUAGE_COOKIE_NAME
            context.add_cookies([{"name": name, "value": language, "url": site}])
            if user is not None:
                type(user).objects.filter(pk=user.pk).update(language=language)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies[django_settings.SESSION_COOKIE_NAME]
            context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": site}])
        return context.new_page()

    return open_page
