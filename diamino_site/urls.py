from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from diamino_site import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("", include("accounts.urls")),
    path("", include("games.urls", namespace="games")),
    path("", include("ratings.urls", namespace="ratings")),
    path("", include("moderation.urls", namespace="moderation")),
]
