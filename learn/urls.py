from __future__ import annotations

from django.urls import path

from learn import views

app_name = "learn"
urlpatterns = [
    path("regles/", views.rules_page, name="rules"),
    path("regles/imprimer/", views.rules_page, {"printable": True}, name="rules_print"),
    path("partie-guidee/", views.guided_page, name="guided"),
    path("partie-guidee/apercu/", views.guided_preview, name="guided_preview"),
    path("partie-guidee/jouer/", views.guided_play, name="guided_play"),
    path("partie-guidee/recommencer/", views.guided_restart, name="guided_restart"),
]
