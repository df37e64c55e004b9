"""The forms a player fills in about their own account."""

from __future__ import annotations

import zoneinfo
from datetime import date, timedelta
from functools import cache
from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from accounts.models import User


@cache
def time_zone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in time_zone_names()]


class SettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        choices=time_zone_choices,
        help_text=_("Deadlines are shown in this time zone."),
    )

    class Meta:
        model = User
        fields = [
            "display_name",
            "language",
            "time_zone",
            "turn_emails",
            "invitation_emails",
            "game_over_emails",
            "report_emails",
            "play_by_email",
        ]
        labels = {
            "display_name": _("Display name"),
            "language": _("Language"),
            "turn_emails": _("When it is my turn"),
            "invitation_emails": _("When someone invites me to a game"),
            "game_over_emails": _("When a game of mine ends"),
            "report_emails": _("When a player files a report (staff)"),
            "play_by_email": _("Play by answering the turn emails"),
        }
        help_texts = {
            "play_by_email": _(
                "Answer a turn email with your move (for example H8 CHAT) and it is played, "
                "as if you had played it on the site. Off, the turn emails only tell you "
                "it is your turn."
            ),
            "display_name": _("What other players see. Leave empty to show your username."),
            # The leagues' emails have no setting of their own (leagues/emails.py).
            "invitation_emails": _(
                "Leagues too: registration open, your season's start and its last week."
            ),
            "game_over_emails": _("Leagues too: your final standing at the end of a season."),
        }
        widgets = {
            "language": forms.RadioSelect,
            "turn_emails": forms.RadioSelect,
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.instance.is_staff:
            del self.fields["report_emails"]  # only staff are told about reports
        if not settings.MAIL_IN_ENABLED:
            del self.fields["play_by_email"]  # this site receives no replies (#24)

    def clean_display_name(self) -> str:
        return " ".join(self.cleaned_data["display_name"].split())

    def clean_time_zone(self) -> str:
        name = self.cleaned_data["time_zone"]
        try:
            zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise forms.ValidationError(_("Choose a time zone from the list.")) from None
        return name


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("This is not your password. Nothing was deleted."))
        return password


class VacationForm(forms.Form):
    days = forms.IntegerField(
        label=_("Number of days"),
        min_value=1,
        max_value=settings.DIAMINO_VACATION_DAYS_PER_YEAR,
        initial=7,
        help_text=_("Your clocks stop from now for this many days. You can come back earlier."),
    )


class PlannedVacationForm(VacationForm):
    """A vacation booked ahead: from the start of a day, in the player's time zone."""

    first_day = forms.DateField(
        label=_("First day"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("Your clocks stop at midnight at the start of this day, in your time zone."),
    )
    field_order = ["first_day", "days"]

    def __init__(self, *args: Any, today: date, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", "plan")
        super().__init__(*args, **kwargs)
        latest = today + timedelta(days=settings.DIAMINO_VACATION_BOOKING_HORIZON_DAYS)
        first_day = self.fields["first_day"]
        first_day.initial = today + timedelta(days=7)
        first_day.widget.attrs.update(min=today.isoformat(), max=latest.isoformat())
        self.fields["days"].help_text = _(
            "Your clocks stop for this many days from the first one. You can cancel until it "
            "starts, or come back earlier."
        )
