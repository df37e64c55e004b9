"""The report form: it reads the page's fields; ``services.report_create`` decides."""

from __future__ import annotations

from collections.abc import Iterable

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import Seat
from moderation.models import TEXT_MAX_LENGTH, Report

GAME_ITSELF = ""


class ReportForm(forms.Form):
    about = forms.ChoiceField(label=_("About"), required=False)
    reason = forms.ChoiceField(
        label=_("Reason"), choices=Report.Reason.choices, widget=forms.RadioSelect
    )
    text = forms.CharField(
        label=_("What happened"),
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("A few sentences for the team: which move, which message, what you saw."),
    )

    def __init__(self, *args, others: Iterable[Seat] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The other seats by seat id: usernames of deleted accounts are blanked.
        about = self.fields["about"]
        assert isinstance(about, forms.ChoiceField)
        about.choices = [
            (GAME_ITSELF, _("The game itself")),
            *((str(seat.pk), str(seat.player)) for seat in others),
        ]

    def reported_seat_id(self) -> int | None:
        about = self.cleaned_data.get("about") or GAME_ITSELF
        return None if about == GAME_ITSELF else int(about)
