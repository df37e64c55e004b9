from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _

from diamino_site import bench, pwa, views

# The admin under the site's name, not "Django administration" (translated titles).
admin.site.site_header = admin.site.site_title = "Diamino"
admin.site.index_title = _("Diamino administration")

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("robots.txt", views.robots_txt, name="robots_txt"),
    path(".well-known/security.txt", views.security_txt, name="security_txt"),
    # The installable app: the worker at the root controls every page (diamino_site/pwa.py).
    path("manifest.webmanifest", pwa.manifest, name="manifest"),
    path("sw.js", pwa.service_worker, name="service_worker"),
    path("hors-ligne/", pwa.offline, name="offline"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("games.urls", namespace="games")),
    path("", include("ratings.urls", namespace="ratings")),
    path("", include("moderation.urls", namespace="moderation")),
    path("", include("learn.urls", namespace="learn")),
    path("", include("leagues.urls", namespace="leagues")),
    path("", include("notifications.urls", namespace="push")),
]

# A database that cannot be reached is a 503 page, anything else Django's 500.
handler500 = "diamino_site.views.server_error"

if settings.DIAMINO_BENCH_VIEWS:  # `make bench` only: the ceiling every endpoint is compared with
    urlpatterns += [
        path("_bench/bare", bench.bare, name="bench_bare"),
        path("_bench/floor/<int:game_id>", bench.floor, name="bench_floor"),
    ]
