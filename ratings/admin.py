"""Ratings in the admin, read-only: they change only through ``ratings.services``."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ratings.models import Rating, RatingChange, RatingSeries


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("player", "mode", "rating", "mu", "sigma", "games", "updated_at")
    list_filter = ("mode",)
    search_fields = ("player__username", "player__display_name")
    list_select_related = ("player",)
    ordering = ("mode", "-ordinal")

    @admin.display(description=_("rating"), ordering="ordinal")
    def rating(self, rating: Rating) -> int:
        return rating.display


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyAdmin):
    list_display = (
        "game",
        "player",
        "mode",
        "finished_at",
        "rank",
        "players",
        "rating_before",
        "rating_after",
    )
    list_filter = ("mode",)
    search_fields = ("player__username", "=game__id")
    list_select_related = ("player", "game")
    date_hierarchy = "finished_at"

    @admin.display(description=_("rating before"))
    def rating_before(self, change: RatingChange) -> int:
        return change.display_before

    @admin.display(description=_("rating after"))
    def rating_after(self, change: RatingChange) -> int:
        return change.display_after


@admin.register(RatingSeries)
class RatingSeriesAdmin(ReadOnlyAdmin):
    list_display = ("mode", "recomputed_at")
