"""Pages in the signed-in player's language and time zone."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone, translation

LANGUAGE_CODES = ("fr", "en")


class UserPreferencesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        zone = None
        if user is not None and user.is_authenticated:
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
            try:
                zone = zoneinfo.ZoneInfo(user.time_zone)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                zone = None
        # The player's zone for this request only: whatever runs next in this
        # thread (another request, a task run eagerly) keeps the site's zone.
        with timezone.override(zone):
            response = self.get_response(request)
        self._remember_language_switch(request, response)
        return response

    @staticmethod
    def _remember_language_switch(request: HttpRequest, response: HttpResponse) -> None:
        # The header's language switch only sets a cookie, which the player's own
        # language would override on the next page: make the switch stick.
        user = getattr(request, "user", None)
        if (
            request.method != "POST"
            or user is None
            or not user.is_authenticated
            or request.path != reverse("set_language")
            or response.status_code not in (200, 204, 302)
        ):
            return
        language = request.POST.get("language", "")
        if language in LANGUAGE_CODES and language != user.language:
            user.language = language
            user.save(update_fields=["language"])
