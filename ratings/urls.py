from __future__ import annotations

from django.urls import path

from ratings import views

app_name = "ratings"
urlpatterns = [
    path("classement/", views.leaderboard, name="leaderboard"),
    path("classement/niveau/<slug:mode>/", views.rating_board, name="ratings"),
]
