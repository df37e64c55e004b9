"""Forms: what the pages post, read into service arguments.

``MoveForm`` turns the board's fields into an engine move; it checks only the
shape of the input (a square name, a letter). Whether the move is legal is the
engine's business.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.conf import settings
from django.urls import reverse
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

import rules
from accounts.models import BotLevel, User
from games import policies
from games.models import Mode, QueuedMove

# The move form's format (docs/NOTATION.md, "The move form"), filled by static/js/board.js.
_PLACEMENT = re.compile(r"^([A-Za-z][0-9]{1,2})=([A-Za-z?])$")
_TILES = re.compile(r"^[A-Z?]{1,40}$")


def _mode_help() -> str:
    """A link, next to the mode choice, to the rules' section on the two modes."""
    return format_html(
        '<a href="{}#formules">{}</a>', reverse("learn:rules"), _("Which mode? How to choose")
    )


MODE_HELP = lazy(_mode_help, str)()


class CreateGameForm(forms.Form):
    mode = forms.ChoiceField(
        label=_("Game"), choices=Mode.choices, initial=Mode.MARQUE, help_text=MODE_HELP
    )
    seats = forms.TypedChoiceField(
        label=_("Players"),
        coerce=int,
        choices=[(n, str(n)) for n in range(2, 9)],
        initial=2,
        help_text=_("2 to 4 in avec marque, 2 to 8 in sans marque."),
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Days per move"),
        coerce=int,
        choices=[(d, str(d)) for d in settings.DIAMINO_DAYS_PER_MOVE_CHOICES],
        initial=3,
    )
    invitation_only = forms.BooleanField(
        label=_("By invitation only"), required=False, help_text=_("Hidden from the lobby.")
    )
    friendly = forms.BooleanField(
        label=_("Friendly game"),
        required=False,
        help_text=_("Not rated; each player may ask for a few hints."),
    )
    invite = forms.CharField(
        label=_("Invite players"),
        required=False,
        help_text=_("Usernames, separated by commas or spaces."),
    )

    def clean_invite(self) -> list[User]:
        names = [n for n in re.split(r"[\s,;]+", self.cleaned_data.get("invite", "")) if n]
        players = list(User.objects.filter(username__in=names, is_active=True, bot_level=""))
        missing = sorted(set(names) - {p.username for p in players})
        if missing:
            raise forms.ValidationError(
                _("No player is called %(names)s.") % {"names": ", ".join(missing)}
            )
        return players

    def clean(self) -> dict:
        data = super().clean()
        assert data is not None  # Form.clean gives cleaned_data
        mode, seats = data.get("mode"), data.get("seats")
        refusal = policies.seats_refusal(mode, seats) if mode and seats else None
        if refusal is not None:
            self.add_error("seats", refusal.message)
        return data


class InviteForm(forms.Form):
    username = forms.CharField(label=_("Username"), max_length=150)

    def clean_username(self) -> User:
        name = self.cleaned_data["username"].strip()
        player = User.objects.filter(username=name, is_active=True, bot_level="").first()
        if player is None:
            raise forms.ValidationError(_("No player is called %(name)s.") % {"name": name})
        return player


class ComputerGameForm(forms.Form):
    """ "Jouer contre l'ordinateur": a mode and a level, one click."""

    mode = forms.ChoiceField(
        label=_("Game"), choices=Mode.choices, initial=Mode.MARQUE, help_text=MODE_HELP
    )
    level = forms.ChoiceField(label=_("Level"), choices=BotLevel.choices, initial=BotLevel.DEBUTANT)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The lobby shows it beside the table form, which has a "mode" too: without a
        # prefix both selects were id="id_mode", and each label named the first.
        kwargs.setdefault("prefix", "computer")
        super().__init__(*args, **kwargs)


class SeatComputerForm(forms.Form):
    """The creator gives a free seat to a computer player of this level."""

    level = forms.ChoiceField(label=_("Level"), choices=BotLevel.choices, initial=BotLevel.DEBUTANT)


class UnseatComputerForm(forms.Form):
    """The creator takes back the seat ``seat`` they gave to a computer player."""

    seat = forms.IntegerField(min_value=1)


class VersionForm(forms.Form):
    """The move number the page was built at (a hint is for that position only)."""

    version = forms.IntegerField(min_value=0)


class TimeGiftForm(forms.Form):
    """The version of the game the page showed: its move number and the days already given."""

    version = forms.IntegerField(min_value=0)
    extra_days = forms.IntegerField(min_value=0)


class MoveForm(forms.Form):
    """A placement, exchange or pass, and the move number the page was built at."""

    ACTIONS = ("place", "exchange", "pass")

    version = forms.IntegerField(min_value=0)
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS])
    placements = forms.CharField(required=False, max_length=2000)
    returns = forms.CharField(required=False, max_length=60)
    exchange = forms.CharField(required=False, max_length=60)

    def clean_placements(self) -> tuple[tuple[str, str], ...]:
        raw = self.cleaned_data.get("placements", "")
        items = [item.strip() for item in raw.split(",") if item.strip()]
        tiles = []
        for item in items:
            match = _PLACEMENT.match(item)
            if match is None:
                raise forms.ValidationError(
                    _("%(item)s is not a square and a letter, like H8=C.") % {"item": item[:12]}
                )
            tiles.append((match.group(1).upper(), match.group(2)))
        return tuple(tiles)

    def _tiles(self, field: str) -> str:
        raw = self.cleaned_data.get(field, "").strip().upper()
        if raw and not _TILES.match(raw):
            raise forms.ValidationError(_("Tiles are letters A to Z, or ? for a joker."))
        return raw

    def clean_returns(self) -> str:
        return self._tiles("returns")

    def clean_exchange(self) -> str:
        return self._tiles("exchange")

    def clean(self) -> dict:
        data = super().clean()
        assert data is not None  # Form.clean gives cleaned_data
        action = data.get("action")
        if action == "place" and not data.get("placements") and "placements" not in self.errors:
            self.add_error("placements", _("Put at least one tile on the board."))
        if action == "exchange" and not data.get("exchange") and "exchange" not in self.errors:
            self.add_error("exchange", _("Choose the tiles to exchange."))
        return data

    def move(self) -> rules.Move:
        """The engine move; the service sets ``player`` from the poster's seat."""
        data = self.cleaned_data
        if data["action"] == "place":
            return rules.Place(0, data["placements"], returns=data.get("returns", ""))
        if data["action"] == "exchange":
            return rules.Exchange(0, data["exchange"])
        return rules.Pass(0)

    def first_error(self) -> str:
        for errors in self.errors.values():
            return str(errors[0])
        return ""


class QueueForm(MoveForm):
    """A placement queued for the player's next turn, and when it is to be played (issue #36)."""

    action = forms.ChoiceField(choices=[("place", "place")])
    keep = forms.ChoiceField(
        choices=QueuedMove.Keep.choices, initial=QueuedMove.Keep.LEGAL, required=False
    )

    def clean_keep(self) -> str:
        return self.cleaned_data.get("keep") or QueuedMove.Keep.LEGAL


class ChatForm(forms.Form):
    text = forms.CharField(label=_("Message"), max_length=500)
