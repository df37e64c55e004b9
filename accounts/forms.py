"""The forms a player fills in about their own account."""

from __future__ import annotations

import zoneinfo
from datetime import date, timedelta
from functools import cache
from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext_lazy

from accounts.models import User
from accounts.names import name_taken
from accounts.preferences import REMINDER_HOURS, reminder_hours_of

LOOK_ALIKE_DISPLAY_NAME = _(
    "This name looks too much like another player's username or display name (letters "
    "differing only by case, accents or look-alike characters count as the same). "
    "Choose another, or leave it empty to show your username."
)


@cache
def time_zone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in time_zone_names()]


HOUR_CHOICES = [("", _("none")), *((str(h), f"{h:02d}:00") for h in range(24))]
PUSH_FIELDS = ("push_turn", "push_reminder", "push_invitations", "push_game_over", "push_chat")


def reminder_choices() -> list[tuple[str, str]]:
    # Called when the form is shown (callable choices): in the page's language.
    return [
        (str(h), ngettext("%(hours)s hour before", "%(hours)s hours before", h) % {"hours": h})
        for h in REMINDER_HOURS
    ]


def _hour(value: str) -> int | None:
    return int(value) if value != "" else None


class SettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        choices=time_zone_choices,
        help_text=_("Deadlines are shown in this time zone."),
    )
    reminder_hours = forms.TypedMultipleChoiceField(
        label=_("Remind me before a deadline"),
        choices=reminder_choices,
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_(
            "In one-day games a reminder never comes before half the day has gone. "
            "None ticked: no reminder."
        ),
    )
    quiet_from = forms.TypedChoiceField(
        label=pgettext_lazy("quiet hours", "From"),
        choices=HOUR_CHOICES,
        coerce=_hour,
        empty_value=None,
        required=False,
    )
    quiet_until = forms.TypedChoiceField(
        label=pgettext_lazy("quiet hours", "To"),
        choices=HOUR_CHOICES,
        coerce=_hour,
        empty_value=None,
        required=False,
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
            "screen_reader",
            "reminder_emails",
            "reminder_hours",
            *PUSH_FIELDS,
            "quiet_from",
            "quiet_until",
        ]
        labels = {
            "display_name": _("Display name"),
            "language": _("Language"),
            "turn_emails": _("When it is my turn"),
            "invitation_emails": _("When someone invites me to a game"),
            "game_over_emails": _("When a game of mine ends"),
            "report_emails": _("When a player files a report (staff)"),
            "play_by_email": _("Play by answering the turn emails"),
            "screen_reader": _("Screen-reader mode"),
            "reminder_emails": _("Email me before a deadline"),
            "push_turn": _("Push when it is my turn"),
            "push_reminder": _("Push before a deadline"),
            "push_invitations": _("Push invitations and games starting"),
            "push_game_over": _("Push when a game of mine ends"),
            "push_chat": _("Push chat messages"),
        }
        help_texts = {
            "screen_reader": _(
                "The game page as text, for listening: a summary first, the board read "
                "by words, rows and columns, and moves typed as in a turn email (H8 CHAT)."
            ),
            "play_by_email": _(
                "Answer a turn email with your move (for example H8 CHAT) and it is played, "
                "as if you had played it on the site. Off, the turn emails only tell you "
                "it is your turn."
            ),
            "display_name": _(
                "What other players see, with your username beside it; it may not look like "
                "another player's name. Leave empty to show your username."
            ),
            # The leagues' emails have no setting of their own (leagues/emails.py); the
            # digest lists no league step, so they go on their own unless "never".
            "invitation_emails": _(
                "Leagues too: registration open, your season's start and its last week, "
                "emailed on their own unless you chose “Never”."
            ),
            "game_over_emails": _(
                "Leagues too: your final standing at the end of a season, emailed on its own "
                "unless you chose “Never”."
            ),
        }
        widgets = {
            "language": forms.RadioSelect,
            "turn_emails": forms.RadioSelect,
            "invitation_emails": forms.RadioSelect,
            "game_over_emails": forms.RadioSelect,
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The hour the daily digest goes, in the player's time zone (games/deadlines.py).
        self.digest_hour = settings.DIAMINO_DIGEST_HOUR
        if not self.instance.is_staff:
            del self.fields["report_emails"]  # only staff are told about reports
        if not settings.MAIL_IN_ENABLED:
            del self.fields["play_by_email"]  # this site receives no replies (#24)
        if not (settings.DIAMINO_VAPID_PUBLIC_KEY and settings.DIAMINO_VAPID_PRIVATE_KEY):
            for name in PUSH_FIELDS:  # this site sends no web push (notifications/push.py)
                del self.fields[name]
        if not self.is_bound:
            self.initial["reminder_hours"] = [str(h) for h in reminder_hours_of(self.instance)]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        assert data is not None  # Form.clean gives cleaned_data
        start, end = data.get("quiet_from"), data.get("quiet_until")
        if (start is None) != (end is None):
            self.add_error(
                "quiet_until",
                _("Choose both the start and the end of your quiet hours, or neither."),
            )
        elif start is not None and start == end:
            self.add_error("quiet_until", _("Your quiet hours must end at another hour."))
        return data

    def clean_display_name(self) -> str:
        name = " ".join(self.cleaned_data["display_name"].split())
        # Folded for case, accents and look-alike letters (accounts/names.py): a player
        # may show their own username, never pass for someone else on the game pages.
        if name and name_taken(name, by=self.instance):
            raise forms.ValidationError(LOOK_ALIKE_DISPLAY_NAME)
        return name

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
