from __future__ import annotations

from django.urls import path

from notifications import views

app_name = "push"

urlpatterns = [
    path("compte/appareils/", views.subscribe, name="subscribe"),
    path("compte/appareils/<int:subscription_id>/supprimer/", views.unsubscribe, name="remove"),
]
