from __future__ import annotations

from django.urls import path

from leagues import views

app_name = "leagues"
urlpatterns = [
    path("ligues/", views.league_list, name="list"),
    path("ligues/<slug:slug>/", views.league_page, name="league"),
    path("ligues/<slug:slug>/saisons/<int:number>/", views.season_page, name="season"),
    path(
        "ligues/<slug:slug>/saisons/<int:number>/inscription/",
        views.registration,
        name="registration",
    ),
    path(
        "ligues/<slug:slug>/saisons/<int:number>/divisions/<int:division_id>/",
        views.division_page,
        name="division",
    ),
]
