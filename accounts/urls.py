from __future__ import annotations

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("compte/", views.settings_view, name="settings"),
    path("compte/supprimer/", views.delete_account, name="delete"),
    path("compte/ordre-des-tuiles/", views.hand_order_view, name="hand_order"),
    path("compte/vacances/", views.vacation_view, name="vacation"),
    path(
        "compte/adresse-a-confirmer/",
        views.confirm_email_first,
        name="confirm_email_first",
    ),
    path("desabonnement/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("joueurs/<str:username>/", views.player_page, name="player"),
]
