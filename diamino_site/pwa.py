"""The installable app (PWA): the web app manifest, the service worker and its offline page.

A phone or a desktop browser offers to install the site once it has a manifest
(``/manifest.webmanifest``: name, icons, theme colour, opening on "My games" in
a window of its own) and a service worker. The worker (``/sw.js``, the template
``templates/pwa/sw.js``) is served from a view, not from ``/static/``, because
a worker controls only the pages under the path it is served from: at the root
it controls the whole site without a ``Service-Worker-Allowed`` header.

What the worker keeps is deliberately little. The game pages, the hands and
every answer of the server are always asked of the network: a position shown
from a cache could be one the opponent has already moved on from. Only the
static files (CSS, scripts, icons) are kept, and one page, ``/hors-ligne/``,
shown in place of any page when the network is gone. Its cache is named after
the release (``DIAMINO_RELEASE``), so a deploy installs a new worker, which
fills a new cache and drops the old ones.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

# The site's green (--brand in static/css/site.css): the colour of the header, so the
# installed app's title bar and the phone's status bar continue it.
THEME_COLOR = "#1d6b48"
BACKGROUND_COLOR = "#fbf8f1"  # --paper: the splash screen while the app starts

# The PNGs drawn from static/favicon.svg by tools/make_icons.py, and what each is for.
ICONS = (
    ("icons/icon-192.png", "192x192", "any"),
    ("icons/icon-512.png", "512x512", "any"),
    ("icons/icon-maskable-512.png", "512x512", "maskable"),
)


@require_GET
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the request's language (LocaleMiddleware varies the answer on it)."""
    return JsonResponse(
        {
            "id": "/",
            "name": "Diamino",
            "short_name": "Diamino",
            "description": _("Correspondence Diamino Compétition: play at your own pace."),
            "lang": get_language(),
            "dir": "ltr",
            "start_url": reverse("games:mine"),
            "scope": "/",
            "display": "standalone",
            "theme_color": THEME_COLOR,
            "background_color": BACKGROUND_COLOR,
            "icons": [
                {"src": static(path), "sizes": sizes, "type": "image/png", "purpose": purpose}
                for path, sizes, purpose in ICONS
            ],
        },
        content_type="application/manifest+json",
        json_dumps_params={"ensure_ascii": False},
    )


def precached_urls() -> list[str]:
    """What the worker stores when it installs: the offline page and all that page loads.

    The offline page is an error page (``templates/errors/base_error.html``),
    which loads the style sheet by its plain name (``/static/css/site.css``,
    never a hashed one): that name is the one stored. The icons are there for
    the installed app's window.
    """
    return [
        reverse("offline"),
        f"{settings.STATIC_URL}css/site.css",
        static("favicon.svg"),
        *(static(path) for path, _sizes, _purpose in ICONS),
    ]


@never_cache  # the browser checks for a new worker on every visit: a deploy is seen at once
@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    config = {
        "cache": f"diamino-{settings.DIAMINO_RELEASE}",
        "offline": reverse("offline"),
        "precache": precached_urls(),
        "static": settings.STATIC_URL,
        # Under DEBUG the static files keep their names while they change: asked of the
        # network first, so an edited style sheet shows at the next reload. In production
        # their names carry a hash of their content (ManifestStaticFilesStorage): a name's
        # content never changes, and the copy kept is as good as the network's.
        "staticFromCacheFirst": not settings.DEBUG,
    }
    body = loader.render_to_string("pwa/sw.js", {"config": json.dumps(config)})
    return HttpResponse(body, content_type="application/javascript; charset=utf-8")


@never_cache  # fetched once by the worker when it installs, always in the player's language
@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """The page shown in place of any page while the network is gone.

    Rendered like the error pages, with a plain context: it is kept and shown
    later, to a player who may have logged out since, so it holds no name, no
    session and no CSRF token. Its "try again" link is the empty address: the
    page it stands in for, whichever that was.
    """
    return HttpResponse(loader.render_to_string("offline.html"))
