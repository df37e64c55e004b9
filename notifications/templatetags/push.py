"""``{% push_devices %}``: the settings' web push section (notifications/push.py).

A tag rather than the settings view's context: accounts sits below notifications
(the import contracts in pyproject.toml), so its view does not read the devices.
Nothing is shown when the site has no VAPID keys.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from notifications import push
from notifications.models import PushSubscription

register = template.Library()


@register.inclusion_tag("notifications/_push_devices.html", takes_context=True)
def push_devices(context: template.Context) -> dict[str, Any]:
    user = context["request"].user
    if not push.enabled() or not user.is_authenticated:
        return {"push_enabled": False}
    return {
        "push_enabled": True,
        "vapid_public_key": settings.DIAMINO_VAPID_PUBLIC_KEY,
        "push_devices": PushSubscription.objects.filter(user=user),
        "csrf_token": context.get("csrf_token"),
    }
