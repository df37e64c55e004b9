"""The staff's desk for games: look into any game, check it, annul it.

Everything the engine wrote (the deal, the state, the moves, the hands) is
read-only here: a game changes only through ``games/services/``, so staff
cannot edit a position by hand. The actions call the services (``game_annul``)
or the audit (``game_check``); nothing here decides a rule.

Any active staff member may use these pages (``StaffReviewMixin``): reviewing
games is what staff accounts are for, and it spares the project a permission
set-up for a read-only admin. The admin site itself already refuses everyone
else (anonymous visitors and players go to the admin log-in page).

Staff who play are players first (R-HIDE-1): in a game they sit at that is not
over, the pages leave out every private column (``HidesFromSeatedStaff``: the
deal, the state, the hands, the tiles drawn and returned, a move's record),
the review links are replaced by a note, and "check" refuses them (its
differences can quote hands). ``services.game_annul`` refuses them too.

The reports about a game (a column, a filter, a link) are added by
``moderation/admin.py``, which sits above games and registers this admin
again with them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.requests import user_of
from games import services
from games.audit import game_check
from games.errors import GameError
from games.models import ChatMessage, Game, Move, Seat
from games.staff_views import is_staff, plays_in, refuse_own_game, seated

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# The statuses ``services.game_annul`` accepts; the confirmation page lists the
# others as refused before anything is done (the service still has the last word).
ANNULLABLE = (Game.Status.RUNNING, Game.Status.FINISHED)


class StaffReviewMixin:
    """Staff may look; nobody adds, edits or deletes engine data through the admin."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_staff(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_staff(request.user)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HidesFromSeatedStaff:
    """Leave ``private_fields`` out for a staff member seated at the object's unfinished game.

    ``game_of`` finds the game an object belongs to; for an inline, ``obj`` is
    already the parent game.
    """

    private_fields: tuple[str, ...] = ()

    def game_of(self, obj: Any) -> Game | None:
        return getattr(obj, "game", None)

    def hides_from(self, request: HttpRequest, obj: Any) -> bool:
        game = self.game_of(obj) if obj is not None else None
        return game is not None and plays_in(request.user, game)

    def _public(self, request: HttpRequest, obj: Any, names: Any) -> Any:
        if not self.hides_from(request, obj):
            return names
        return [name for name in names if name not in self.private_fields]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A mixin: super() is the ModelAdmin or the inline it is mixed into.
        return self._public(request, obj, super().get_fields(request, obj))  # type: ignore[misc]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self._public(request, obj, super().get_readonly_fields(request, obj))  # type: ignore[misc]


def pretty_json(value: Any) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, ensure_ascii=False, indent=2))


# --- list filters ------------------------------------------------------------------


class AnnulledFilter(admin.SimpleListFilter):
    title = _("annulled")
    parameter_name = "annulled"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [("yes", _("Annulled")), ("no", _("Not annulled"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() == "yes":
            return queryset.filter(status=Game.Status.ANNULLED)
        if self.value() == "no":
            return queryset.exclude(status=Game.Status.ANNULLED)
        return queryset


# --- inlines --------------------------------------------------------------------------


class ReadOnlyInline(StaffReviewMixin, admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False


class GameInlineMixin(HidesFromSeatedStaff):
    def game_of(self, obj: Any) -> Game | None:
        return obj  # an inline's ``obj`` is the parent game


class SeatInline(GameInlineMixin, ReadOnlyInline):
    model = Seat
    private_fields = ("hand",)
    fields = ("position", "player", "status", "hand", "score", "is_winner", "rank", "joined_at")
    readonly_fields = fields
    ordering = ("position", "joined_at")


class MoveInline(GameInlineMixin, ReadOnlyInline):
    model = Move
    private_fields = ("tiles_drawn", "tiles_returned")
    fields = (
        "number",
        "player",
        "kind",
        "notation",
        "words_played",
        "points",
        "tiles_drawn",
        "tiles_returned",
        "created_at",
    )
    readonly_fields = fields
    ordering = ("number",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Move]:
        return super().get_queryset(request).select_related("seat__player")

    @admin.display(description=_("player"))
    def player(self, move: Move) -> str:
        return str(move.seat.player)

    @admin.display(description=_("words"))
    def words_played(self, move: Move) -> str:
        return ", ".join(move.words)


class ChatInline(ReadOnlyInline):
    model = ChatMessage
    fields = ("created_at", "author", "text")
    readonly_fields = fields
    ordering = ("created_at",)
    verbose_name_plural = _("chat")


# --- the annulment form -----------------------------------------------------------------


class AnnulForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("The players are told this reason."),
    )


# --- games --------------------------------------------------------------------------------


@admin.register(Game)
class GameAdmin(HidesFromSeatedStaff, StaffReviewMixin, admin.ModelAdmin):
    list_display: tuple[str, ...] = (  # moderation/admin.py adds a column
        "id",
        "mode",
        "status",
        "players",
        "move_count",
        "created_at",
        "started_at",
        "finished_at",
        "is_annulled",
    )
    list_display_links = ("id",)
    list_filter = (
        "status",
        "mode",
        "rated",
        AnnulledFilter,
        "created_at",
        "started_at",
        "finished_at",
    )
    date_hierarchy = "created_at"
    search_fields = (
        "=id",
        "seats__player__username",
        "seats__player__email",
        "seats__player__display_name",
    )
    search_help_text = _("A game number, or a player's username, email or display name.")
    inlines = (SeatInline, MoveInline, ChatInline)
    actions = ("annul_games", "check_games")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "review_links",
                    ("mode", "status", "end"),
                    ("layout", "tiles", "word_list"),
                    ("seats_wanted", "days_per_move", "invitation_only", "rated", "friendly"),
                    "creator",
                    ("created_at", "started_at", "finished_at"),
                    ("move_count", "to_move", "turn_started_at"),
                    ("turn_extra_days", "days_given"),
                    ("analysis_queued_at", "analysed_at"),
                )
            },
        ),
        (_("Annulment"), {"fields": ("annulled_reason", "annulled_by", "annulled_at")}),
        (
            _("Engine data (read-only)"),
            {
                "classes": ("collapse",),
                "fields": ("setup_json", "first_player_draw_json", "state_json"),
            },
        ),
    )
    readonly_fields: ClassVar[tuple[str, ...]] = (
        "review_links",
        "days_given",
        "setup_json",
        "first_player_draw_json",
        "state_json",
    )
    # The first-player draw is shown to the players (R-SETUP-1): not private.
    private_fields = ("setup_json", "state_json")

    def game_of(self, obj: Any) -> Game | None:
        return obj

    def get_fieldsets(self, request: HttpRequest, obj: Game | None = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if not self.hides_from(request, obj):
            return fieldsets
        return [
            (name, {**options, "fields": self._public(request, obj, options["fields"])})
            for name, options in fieldsets
        ]

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        game = super().get_object(request, object_id, from_field)
        if game is not None:
            # The review links and the page's tools see only the game: tell them the viewer plays.
            game.viewer_seated = seated(request.user, game)
            game.hidden_from_viewer = game.viewer_seated and not game.is_over
        return game

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).prefetch_related("seats__player")

    # --- columns and fields

    @admin.display(description=_("players"))
    def players(self, game: Game) -> str:
        seats = sorted(game.seats.all(), key=lambda s: (s.position is None, s.position, s.pk))
        return ", ".join(str(s.player) for s in seats)

    @admin.display(description=_("annulled"), boolean=True, ordering="status")
    def is_annulled(self, game: Game) -> bool:
        return game.status == Game.Status.ANNULLED

    @admin.display(description=_("review"))
    def review_links(self, game: Game) -> StrOrPromise:
        if game.setup is None:
            return _("The table has not started yet.")
        if getattr(game, "hidden_from_viewer", False):
            return _("You play in this game: another staff member must review it.")
        links = [
            (reverse("games:staff_replay", args=[game.pk]), _("Staff replay")),
            (reverse("games:staff_record", args=[game.pk]), _("Download the record")),
            (reverse("admin:games_game_check", args=[game.pk]), _("Check the game")),
        ]
        if game.status in ANNULLABLE and not getattr(game, "viewer_seated", False):
            links.append((reverse("admin:games_game_annul", args=[game.pk]), _("Annul the game")))
        return format_html_join(" · ", '<a href="{}">{}</a>', links)

    @admin.display(description=_("days given"))
    def days_given(self, game: Game) -> StrOrPromise:
        """Each day given, as a sentence: when, after which move, who gave it to whom.

        ``Game.time_gifts`` holds seat ids; staff read names.
        """
        if not game.time_gifts:
            return _("No day given yet.")
        names = {seat.pk: str(seat.player) for seat in game.seats.all()}
        lines = []
        for gift in game.time_gifts:
            at = parse_datetime(gift.get("at", ""))
            when = date_format(localtime(at), "DATETIME_FORMAT") if at else "?"
            lines.append(
                _("%(when)s, after move %(after)s: %(giver)s gave %(receiver)s one more day.")
                % {
                    "when": when,
                    "after": gift.get("after", "?"),
                    "giver": names.get(gift.get("by"), "?"),
                    "receiver": names.get(gift.get("to"), "?"),
                }
            )
        return format_html_join("", "<div>{}</div>", ((line,) for line in lines))

    @admin.display(description=_("set-up"))
    def setup_json(self, game: Game) -> str:
        return pretty_json(game.setup)

    @admin.display(description=_("first-player draw"))
    def first_player_draw_json(self, game: Game) -> str:
        return pretty_json(game.first_player_draw)

    @admin.display(description=_("state"))
    def state_json(self, game: Game) -> str:
        return pretty_json(game.state)

    # --- custom pages: one game's check and annulment, linked from its change page

    def get_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path("<int:game_id>/check/", view(self.check_view), name="games_game_check"),
            path("<int:game_id>/annul/", view(self.annul_view), name="games_game_annul"),
            *super().get_urls(),
        ]

    def check_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        game = get_object_or_404(Game, pk=game_id)
        if plays_in(request.user, game):
            raise refuse_own_game()  # its differences can quote the hands
        return self._check_response(request, [game])

    def annul_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        game = get_object_or_404(Game, pk=game_id)
        form = AnnulForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            self._annul(request, [game], form.cleaned_data["reason"])
            return HttpResponseRedirect(reverse("admin:games_game_change", args=[game.pk]))
        return self._annul_confirmation(request, [game], form, single=True)

    # --- actions

    @admin.action(description=_("Annul the selected games (asks for a reason)"))
    def annul_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        """Django's intermediate-page pattern: the page posts back here with ``apply``."""
        games = list(queryset.order_by("pk"))
        if "apply" in request.POST:
            form = AnnulForm(request.POST)
            if form.is_valid():
                self._annul(request, games, form.cleaned_data["reason"])
                return None  # back to the list, with the messages
        else:
            form = AnnulForm()
        return self._annul_confirmation(request, games, form)

    @admin.action(description=_("Check the selected games (replay the moves)"))
    def check_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse:
        return self._check_response(request, list(queryset.order_by("pk")))

    def _annul(self, request: HttpRequest, games: list[Game], reason: str) -> None:
        """Annul each game through the service; report refusals instead of failing."""
        done = []
        for game in games:
            try:
                services.game_annul(game_id=game.pk, by=user_of(request), reason=reason)
            except GameError as exc:
                messages.warning(
                    request,
                    _("Game #%(id)d was not annulled: %(why)s")
                    % {"id": game.pk, "why": exc.message},
                )
            else:
                done.append(f"#{game.pk}")
        if done:
            messages.success(
                request,
                ngettext(
                    "Annulled game %(games)s; its players are told why.",
                    "Annulled games %(games)s; their players are told why.",
                    len(done),
                )
                % {"games": ", ".join(done)},
            )

    def _annul_confirmation(
        self, request: HttpRequest, games: list[Game], form: AnnulForm, *, single: bool = False
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Annul games"),
            "games": games,
            "annullable": [g for g in games if self._may_annul(request, g)],
            "refused": [g for g in games if not self._may_annul(request, g)],
            "form": form,
            "single": single,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        status = 400 if form.is_bound and not form.is_valid() else 200
        return TemplateResponse(request, "admin/games/game/annul.html", context, status=status)

    def _may_annul(self, request: HttpRequest, game: Game) -> bool:
        """What ``services.game_annul`` will accept, to list the others before anything is done."""
        return game.status in ANNULLABLE and not seated(request.user, game)

    def _check_response(self, request: HttpRequest, games: list[Game]) -> HttpResponse:
        for game in [g for g in games if plays_in(request.user, g)]:
            games.remove(game)
            messages.warning(
                request,
                _("Game #%(id)d was not checked: you play in it; another staff member must.")
                % {"id": game.pk},
            )
        results = [
            {"game": game, "started": game.setup is not None, "differences": game_check(game)}
            for game in games
        ]
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Check the game"),
            "results": results,
        }
        return TemplateResponse(request, "admin/games/game/check.html", context)


# --- seats and moves ------------------------------------------------------------------------


@admin.register(Seat)
class SeatAdmin(HidesFromSeatedStaff, StaffReviewMixin, admin.ModelAdmin):
    private_fields = ("hand", "hint")  # a hint is made from the hand
    list_display = ("game", "position", "player", "status", "score", "is_winner", "rank")
    list_filter = ("status", "is_winner", "game__mode", "game__status")
    search_fields = ("=game__id", "player__username", "player__email", "player__display_name")
    list_select_related = ("game", "player")
    ordering = ("-game_id", "position")


@admin.register(Move)
class MoveAdmin(HidesFromSeatedStaff, StaffReviewMixin, admin.ModelAdmin):
    private_fields = ("record", "tiles_drawn", "tiles_returned", "from_queue")
    list_display = (
        "game",
        "number",
        "player",
        "kind",
        "notation",
        "words_played",
        "points",
        "created_at",
    )
    list_filter = ("kind", "game__mode", "game__status", "created_at")
    search_fields = ("=game__id", "seat__player__username", "notation")
    list_select_related = ("game", "seat__player")
    ordering = ("-game_id", "number")
    date_hierarchy = "created_at"

    @admin.display(description=_("player"), ordering="seat__player__username")
    def player(self, move: Move) -> str:
        return str(move.seat.player)

    @admin.display(description=_("words"))
    def words_played(self, move: Move) -> str:
        return ", ".join(move.words)
