from __future__ import annotations

from django.urls import path

from learn import views

app_name = "learn"
urlpatterns = [
    path("regles/", views.rules_page, name="rules"),
    path("regles/imprimer/", views.rules_page, {"printable": True}, name="rules_print"),
]
