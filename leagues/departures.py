"""What a deleted account leaves in the leagues (``accounts.services.user_delete``).

Its registrations in seasons not started are dropped (with its place in a
division already placed), and in a running season it is withdrawn: its games
still running are resigned (``games.departures`` resigns them too, whichever
receiver runs first) and it is not carried over.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.models import User
from accounts.signals import user_deleted
from leagues import services
from leagues.models import Season


@receiver(user_deleted, dispatch_uid="leagues.departures")
def leagues_leave(sender: Any, *, user: User, **kwargs: Any) -> None:
    not_started = (Season.State.ANNOUNCED, Season.State.REGISTRATION)
    for season in Season.objects.filter(registrations__player=user, state__in=not_started):
        services.registration_drop(season_id=season.pk, player=user)
    placed = Season.objects.filter(
        placements__player=user,
        placements__withdrawn_at=None,
        state__in=(Season.State.SCHEDULED, Season.State.RUNNING),
    )
    for season in placed:
        services.placement_withdraw(season_id=season.pk, player=user, by=user)
