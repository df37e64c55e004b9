"""The settings' web push devices: add this browser, remove one (``notifications/push.py``)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.requests import SignedInRequest
from infra.ratelimit import limited
from notifications import push

# A subscription is a few hundred bytes; anything much larger is not one.
MAX_BODY = 4096


def _json_too_fast(request: HttpRequest, message: str) -> HttpResponse:
    return JsonResponse({"error": message}, status=429)


@login_required
@require_POST
@limited("form", refuse=_json_too_fast)
def subscribe(request: SignedInRequest) -> HttpResponse:
    """Store this browser's subscription, sent by static/js/push.js as JSON.

    Answers JSON: ``{"message"}`` (201) when stored, ``{"error"}`` (400) with
    why when what came is not a Web Push subscription (nothing is stored), 404
    when the site has no VAPID keys.
    """
    if not push.enabled():
        return JsonResponse({"error": _("Push notifications are not offered here.")}, status=404)
    if len(request.body) > MAX_BODY:
        return JsonResponse({"error": _("This is not a push subscription.")}, status=400)
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        return JsonResponse({"error": _("This is not a push subscription.")}, status=400)
    try:
        push.subscription_save(
            user=request.user, data=data, user_agent=request.headers.get("User-Agent", "")
        )
    except push.InvalidSubscription as invalid:
        return JsonResponse({"error": str(invalid)}, status=400)
    message = _("Notifications are on for this device.")
    messages.success(request, message)
    return JsonResponse({"message": message}, status=201)


@login_required
@require_POST
@limited("form")
def unsubscribe(request: SignedInRequest, subscription_id: int) -> HttpResponse:
    """Remove one of the player's devices (the settings' list); back to the settings."""
    if push.subscription_delete(user=request.user, subscription_id=subscription_id):
        messages.success(request, _("That device gets no more notifications."))
    return redirect("accounts:settings")
