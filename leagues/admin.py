"""The leagues in the admin: staff create leagues and seasons; the lifecycle runs itself.

The staff's three interventions go through ``leagues.services`` from actions
with a confirmation page (``templates/admin/leagues/confirm.html``): move a
player to another division before the start, withdraw a player (mid-season:
their remaining games resigned), suspend players (their registrations in
seasons not started are dropped, and registering is refused). A refusal is a
warning message and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import User
from leagues import services
from leagues.models import (
    Division,
    League,
    LeagueGame,
    Placement,
    Registration,
    Season,
    Suspension,
)
from leagues.services import LeagueError

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

CONFIRM_TEMPLATE = "admin/leagues/confirm.html"


def _staff(request: HttpRequest) -> User:
    """The staff member acting: the admin lets only signed-in staff this far."""
    user = request.user
    assert isinstance(user, User)
    return user


def _confirm(
    admin_: admin.ModelAdmin,
    request: HttpRequest,
    *,
    action: str,
    title: StrOrPromise,
    explanation: StrOrPromise,
    items: list[Any],
    form: forms.Form,
    button: StrOrPromise,
) -> HttpResponse:
    """Django's intermediate page: posts back to the changelist with ``action`` and ``apply``."""
    context = {
        **admin_.admin_site.each_context(request),
        "opts": admin_.model._meta,
        "title": title,
        "explanation": explanation,
        "items": items,
        "form": form,
        "action": action,
        "button": button,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    status = 400 if form.is_bound and not form.is_valid() else 200
    return TemplateResponse(request, CONFIRM_TEMPLATE, context, status=status)


def _refused(request: HttpRequest, what: object, exc: LeagueError) -> None:
    messages.warning(
        request, _("%(what)s: nothing done. %(why)s") % {"what": what, "why": exc.message}
    )


# --- leagues and seasons ----------------------------------------------------------


# A started season's times are the players' deadlines: fixed in the admin once it
# runs. Staff change a running season only through the actions (move, withdraw,
# suspend), which go through leagues.services.
SEASON_TIMES = ("registration_opens_at", "registration_closes_at", "starts_at", "ends_at")
STARTED = (Season.State.RUNNING, Season.State.FINISHED)


class SeasonInlineForm(forms.ModelForm):
    """A season's row in its league's page: its times shown, not editable, once started."""

    class Meta:
        model = Season
        fields = ("number", *SEASON_TIMES)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None and self.instance.state in STARTED:
            for name in SEASON_TIMES:
                if name in self.fields:
                    # Django ignores what is posted for a disabled field: the stored time stays.
                    self.fields[name].disabled = True


class SeasonInline(admin.TabularInline):
    model = Season
    form = SeasonInlineForm
    extra = 0
    fields = ("number", "state", "registration_opens_at", "starts_at", "ends_at")
    readonly_fields = ("state",)
    show_change_link = True


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ("name", "table_size", "days_per_move", "season_days", "active")
    list_filter = ("active", "table_size")
    prepopulated_fields = {"slug": ("name",)}
    inlines = [SeasonInline]


class DivisionInline(admin.TabularInline):
    model = Division
    extra = 0
    fields = ("level", "number", "players")
    readonly_fields = ("level", "number", "players")
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("players"))
    def players(self, division: Division) -> int:
        return division.placements.count()


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("league", "number", "state", "registration_opens_at", "starts_at", "ends_at")
    list_filter = ("state", "league")
    readonly_fields = (
        "state",
        "registration_opened_at",
        "scheduled_at",
        "started_at",
        "last_week_notified_at",
        "finished_at",
    )
    inlines = [DivisionInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and obj.state in STARTED:
            return (*fields, "league", "number", *SEASON_TIMES)
        return fields


# --- divisions and placements -----------------------------------------------------


class PlacementInline(admin.TabularInline):
    model = Placement
    extra = 0
    fields = ("seed", "player", "final_rank", "points", "score_difference", "outcome", "champion")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class LeagueGameInline(admin.TabularInline):
    model = LeagueGame
    extra = 0
    fields = ("round", "game")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Division)
class DivisionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "season", "level")
    list_filter = ("season__league", "season__state")
    inlines = [PlacementInline, LeagueGameInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # placed by the season's schedule (services.season_schedule)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class DivisionChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return str(obj.label)


class MoveForm(forms.Form):
    division = DivisionChoiceField(label=_("Division"), queryset=Division.objects.none())

    def __init__(self, *args: Any, season: Season, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["division"]
        assert isinstance(field, DivisionChoiceField)
        field.queryset = season.divisions.order_by("level", "number")


class SuspendForm(forms.Form):
    every_league = forms.BooleanField(
        label=_("Every league"),
        required=False,
        help_text=_("Otherwise only the league of each selected row."),
    )
    until = forms.DateTimeField(
        label=_("Until"), required=False, help_text=_("Empty: until the staff lift it.")
    )
    reason = forms.CharField(
        label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3, "cols": 60})
    )


class WithdrawForm(forms.Form):
    confirm = forms.BooleanField(
        label=_("Yes, withdraw them and resign their remaining games"), required=True
    )


@admin.register(Placement)
class PlacementAdmin(admin.ModelAdmin):
    list_display = ("player", "division", "seed", "final_rank", "points", "outcome", "champion")
    list_filter = ("season__league", "season__state", "outcome")
    search_fields = ("player__username",)
    actions = ["move_players", "withdraw_players", "suspend_players"]
    readonly_fields = (
        "season",
        "division",
        "player",
        "seed",
        "withdrawn_at",
        "final_rank",
        "points",
        "score_difference",
        "outcome",
        "champion",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # withdraw instead: it keeps the divisions and the games consistent

    @admin.action(
        description=_("Move the selected players to another division (before the start)"),
        permissions=["change"],
    )
    def move_players(
        self, request: HttpRequest, queryset: QuerySet[Placement]
    ) -> HttpResponse | None:
        placements = list(queryset.select_related("season", "division", "player").order_by("pk"))
        seasons = {p.season_id for p in placements}
        if len(seasons) != 1:
            messages.warning(request, _("Choose players of one season."))
            return None
        season = placements[0].season
        if "apply" in request.POST:
            form = MoveForm(request.POST, season=season)
            if form.is_valid():
                target = form.cleaned_data["division"]
                for placement in placements:
                    try:
                        services.placement_move(
                            placement_id=placement.pk, division_id=target.pk, by=_staff(request)
                        )
                    except LeagueError as exc:
                        _refused(request, placement.player, exc)
                    else:
                        messages.success(
                            request,
                            _("%(player)s moved to %(division)s.")
                            % {"player": placement.player, "division": target.label},
                        )
                return None
        else:
            form = MoveForm(season=season)
        return _confirm(
            self,
            request,
            action="move_players",
            title=_("Move players to another division"),
            explanation=_(
                "The players join the end of the division's seeds. A promoted player must "
                "land higher than last season and a kept player no lower; the site refuses "
                "otherwise, and once the season has started."
            ),
            items=placements,
            form=form,
            button=_("Move"),
        )

    @admin.action(
        description=_("Withdraw the selected players (their remaining games resigned)"),
        permissions=["change"],
    )
    def withdraw_players(
        self, request: HttpRequest, queryset: QuerySet[Placement]
    ) -> HttpResponse | None:
        placements = list(queryset.select_related("season", "division", "player").order_by("pk"))
        if "apply" in request.POST:
            form = WithdrawForm(request.POST)
            if form.is_valid():
                for placement in placements:
                    try:
                        resigned = services.placement_withdraw(
                            season_id=placement.season_id,
                            player=placement.player,
                            by=_staff(request),
                        )
                    except LeagueError as exc:
                        _refused(request, placement.player, exc)
                    else:
                        messages.success(
                            request,
                            ngettext(
                                "%(player)s withdrawn; %(count)d game resigned.",
                                "%(player)s withdrawn; %(count)d games resigned.",
                                resigned,
                            )
                            % {"player": placement.player, "count": resigned},
                        )
                return None
        else:
            form = WithdrawForm()
        return _confirm(
            self,
            request,
            action="withdraw_players",
            title=_("Withdraw players"),
            explanation=_(
                "Before the start, the players leave their division. During the season, "
                "every game of theirs still running is resigned (their opponents win) and "
                "they are not carried over to the next season. This cannot be undone."
            ),
            items=placements,
            form=form,
            button=_("Withdraw"),
        )

    def has_suspend_permission(self, request: HttpRequest) -> bool:
        return _may_suspend(request)

    @admin.action(description=_("Suspend the selected players"), permissions=["suspend"])
    def suspend_players(
        self, request: HttpRequest, queryset: QuerySet[Placement]
    ) -> HttpResponse | None:
        return _suspend(self, request, list(queryset.select_related("season__league", "player")))


def _may_suspend(request: HttpRequest) -> bool:
    """Suspending is adding a suspension: a staff member who may only view is not offered it.

    Django runs an action only if it is offered (``ModelAdmin.response_action`` picks it
    from ``get_actions``), so the confirmation page's post is refused the same way."""
    return request.user.has_perm("leagues.add_suspension")


def _suspend(
    admin_: admin.ModelAdmin, request: HttpRequest, rows: list[Placement] | list[Registration]
) -> HttpResponse | None:
    if "apply" in request.POST:
        form = SuspendForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            done: set[tuple[int, int | None]] = set()
            for row in rows:
                league = None if data["every_league"] else row.season.league
                key = (row.player_id, league.pk if league else None)
                if key in done:
                    continue
                done.add(key)
                try:
                    services.suspension_create(
                        player=row.player,
                        league=league,
                        reason=data["reason"],
                        until=data["until"],
                        by=_staff(request),
                    )
                except LeagueError as exc:
                    _refused(request, row.player, exc)
                else:
                    messages.success(
                        request,
                        _("%(player)s suspended from %(league)s.")
                        % {"player": row.player, "league": league or _("every league")},
                    )
            return None
    else:
        form = SuspendForm()
    return _confirm(
        admin_,
        request,
        action="suspend_players",
        title=_("Suspend players"),
        explanation=_(
            "A suspended player cannot register. Their registrations in seasons not started "
            "yet are dropped (and their places in divisions not started); a season already "
            "running is not touched: withdraw them from it too if their games must end."
        ),
        items=rows,
        form=form,
        button=_("Suspend"),
    )


# --- registrations and suspensions ------------------------------------------------


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = ("player", "season", "created_at", "carried_over")
    list_filter = ("season__league", "season__state", "carried_over")
    search_fields = ("player__username",)
    actions = ["suspend_players"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players register themselves (services.registration_create)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Once the divisions are placed, withdraw the placement instead.
        return obj is None or obj.season.state in (
            Season.State.ANNOUNCED,
            Season.State.REGISTRATION,
        )

    def has_suspend_permission(self, request: HttpRequest) -> bool:
        return _may_suspend(request)

    @admin.action(description=_("Suspend the selected players"), permissions=["suspend"])
    def suspend_players(
        self, request: HttpRequest, queryset: QuerySet[Registration]
    ) -> HttpResponse | None:
        return _suspend(self, request, list(queryset.select_related("season__league", "player")))


@admin.register(Suspension)
class SuspensionAdmin(admin.ModelAdmin):
    list_display = ("player", "league", "until", "created_at", "created_by")
    list_filter = ("league",)
    search_fields = ("player__username",)
    fields = ("player", "league", "until", "reason")
    raw_id_fields = ("player",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # lift a suspension by deleting it; suspend again to change it

    def save_model(self, request: HttpRequest, obj: Suspension, form: Any, change: bool) -> None:
        """Through the service, which drops the player's registrations not started yet."""
        try:
            saved = services.suspension_create(
                player=obj.player,
                league=obj.league,
                reason=obj.reason,
                until=obj.until,
                by=_staff(request),
            )
        except LeagueError as exc:
            # The form validated it already (clean below); a race is the only way here.
            raise forms.ValidationError(exc.message) from exc
        obj.pk = saved.pk
        obj.created_by = saved.created_by

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)

        class Checked(form):  # type: ignore[misc, valid-type]
            def clean(self) -> dict[str, Any]:
                data = super().clean()
                until = data.get("until")
                if until is not None and until <= timezone.now():
                    self.add_error("until", _("The end of the suspension must be in the future."))
                return data

        return Checked
