from __future__ import annotations

from django.urls import path

from moderation import views

app_name = "moderation"
urlpatterns = [
    path("parties/<int:game_id>/signaler/", views.report, name="report"),
]
