"""The report queue: open reports first, oldest first; staff say what was done.

What a player wrote is evidence and stays read-only. The only thing staff
write is the resolution: saving a report with one (or the "resolve" action)
calls ``services.report_resolve``, which records who resolved it and when.
Acting on the game itself (annul, check, replay) happens on the game's admin
page, linked from each report; that page, registered again at the end of this
module, shows the reports about the game (games never reads a report).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.requests import user_of
from games import admin as games_admin
from games.errors import GameError
from games.models import Game
from games.staff_views import is_staff, plays_in
from moderation import services
from moderation.models import Report

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class ReportForm(forms.ModelForm):
    class Meta:
        model = Report
        fields = ("resolution",)
        help_texts = {
            "resolution": _(
                "What was done (warned the player, annulled the game, nothing wrong found…). "
                "Saving with a resolution resolves the report."
            )
        }

    def clean_resolution(self) -> str:
        resolution = self.cleaned_data["resolution"].strip()
        if not resolution:
            raise forms.ValidationError(_("Say what was done to resolve the report."))
        return resolution


class ResolveForm(forms.Form):
    resolution = forms.CharField(
        label=_("What was done"), widget=forms.Textarea(attrs={"rows": 3, "cols": 60})
    )


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    form = ReportForm
    list_display = (
        "id",
        "created_at",
        "status",
        "reason",
        "game_link",
        "reporter",
        "reported_player",
        "resolved_by",
        "resolved_at",
    )
    list_filter = ("status", "reason", "created_at")
    search_fields = (
        "=game__id",
        "reporter__username",
        "reporter__email",
        "reported_player__username",
        "reported_player__email",
        "text",
        "resolution",
    )
    search_help_text = _("A game number, a username or email, or words of the report.")
    list_select_related = ("game", "reporter", "reported_player", "resolved_by")
    # The queue: open before resolved ("open" < "resolved"), the oldest first.
    ordering = ("status", "created_at", "pk")
    actions = ("resolve_reports",)
    fields = (
        "game_link",
        "review_links",
        "reporter",
        "reported_player",
        "reason",
        "text",
        "created_at",
        "status",
        "resolution",
        "resolved_by",
        "resolved_at",
    )

    # --- permissions: staff review reports; nobody files or deletes one here

    def has_module_permission(self, request: HttpRequest) -> bool:
        return is_staff(request.user)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return is_staff(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A resolved report is a record of what was done: it is shown, not edited; and
        # nobody resolves their own case (``services.own_case``): they only read it.
        if not is_staff(request.user):
            return False
        if obj is None:
            return True
        return obj.status == Report.Status.OPEN and services.own_case(obj, user_of(request)) is None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Report | None = None) -> list[str]:
        return [name for name in self.fields if name != "resolution"]

    # --- columns

    @admin.display(description=_("game"), ordering="game_id")
    def game_link(self, report: Report) -> str:
        game = report.game
        return format_html(
            '<a href="{}">#{} · {}</a>',
            reverse("admin:games_game_change", args=[game.pk]),
            game.pk,
            game.get_status_display(),
        )

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> Any:
        report = super().get_object(request, object_id, from_field)
        if report is not None:
            # ``review_links`` sees only the report: tell it the viewer plays in the game.
            report.viewer_plays = plays_in(request.user, report.game)
            conflict = services.own_case(report, user_of(request))
            open_ = report.status == Report.Status.OPEN
            if conflict is not None and open_ and request.method == "GET":
                # Why the page is read-only for them (``has_change_permission``).
                messages.warning(request, conflict.message)
        return report

    @admin.display(description=_("review"))
    def review_links(self, report: Report) -> StrOrPromise:
        if getattr(report, "viewer_plays", False):
            return _("You play in this game: another staff member must review it.")
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a>',
            reverse("games:staff_replay", args=[report.game_id]),
            _("Staff replay"),
            reverse("admin:games_game_check", args=[report.game_id]),
            _("Check the game"),
        )

    # --- resolving

    def save_model(self, request: HttpRequest, obj: Report, form: Any, change: bool) -> None:
        """Saving an open report resolves it through the service (who and when included)."""
        try:
            services.report_resolve(
                report_id=obj.pk, by=user_of(request), resolution=form.cleaned_data["resolution"]
            )
        except GameError as exc:
            messages.error(request, exc.message)
        obj.refresh_from_db()

    @admin.action(description=_("Resolve the selected reports (asks what was done)"))
    def resolve_reports(
        self, request: HttpRequest, queryset: QuerySet[Report]
    ) -> HttpResponse | None:
        reports = list(queryset.order_by("pk"))
        if "apply" in request.POST:
            form = ResolveForm(request.POST)
            if form.is_valid():
                self._resolve(request, reports, form.cleaned_data["resolution"])
                return None
        else:
            form = ResolveForm()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Resolve reports"),
            "reports": reports,
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        status = 400 if form.is_bound and not form.is_valid() else 200
        return TemplateResponse(
            request, "admin/moderation/report/resolve.html", context, status=status
        )

    def _resolve(self, request: HttpRequest, reports: list[Report], resolution: str) -> None:
        done = []
        for report in reports:
            try:
                services.report_resolve(
                    report_id=report.pk, by=user_of(request), resolution=resolution
                )
            except GameError as exc:
                messages.warning(
                    request,
                    _("Report #%(id)d was left as it was: %(why)s")
                    % {"id": report.pk, "why": exc.message},
                )
            else:
                done.append(f"#{report.pk}")
        if done:
            messages.success(
                request,
                ngettext("Resolved report %(ids)s.", "Resolved reports %(ids)s.", len(done))
                % {"ids": ", ".join(done)},
            )


# --- the games' admin, with their reports -----------------------------------------------
# games sits below moderation and never reads a report: its admin is registered
# again here with a column, a filter and a link for the reports about each game.


class ReportedFilter(admin.SimpleListFilter):
    title = _("reported")
    parameter_name = "reported"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, StrOrPromise]]:
        return [
            ("open", _("With an open report")),
            ("any", _("With any report")),
            ("no", _("Never reported")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() == "open":
            # Annotated by GameWithReportsAdmin.get_queryset, which the stubs' plugin cannot see.
            return queryset.filter(has_open_report=True)  # type: ignore[misc]
        if self.value() == "any":
            return queryset.filter(Exists(Report.objects.filter(game=OuterRef("pk"))))
        if self.value() == "no":
            return queryset.exclude(Exists(Report.objects.filter(game=OuterRef("pk"))))
        return queryset


def _with_reported_filter(filters: Sequence[Any]) -> tuple[Any, ...]:
    """The games' filters with "reported" after "annulled"."""
    at = list(filters).index(games_admin.AnnulledFilter) + 1
    return (*filters[:at], ReportedFilter, *filters[at:])


class GameWithReportsAdmin(games_admin.GameAdmin):
    list_display = (*games_admin.GameAdmin.list_display, "open_reports")
    list_filter = _with_reported_filter(games_admin.GameAdmin.list_filter)
    fieldsets = (
        (
            games_admin.GameAdmin.fieldsets[0][0],
            {"fields": (*games_admin.GameAdmin.fieldsets[0][1]["fields"], "reports")},
        ),
        *games_admin.GameAdmin.fieldsets[1:],
    )
    readonly_fields = (*games_admin.GameAdmin.readonly_fields, "reports")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        open_reports = Report.objects.filter(game=OuterRef("pk"), status=Report.Status.OPEN)
        return super().get_queryset(request).annotate(has_open_report=Exists(open_reports))

    @admin.display(description=_("open report"), boolean=True, ordering="has_open_report")
    def open_reports(self, game: Game) -> bool:
        return game.has_open_report  # type: ignore[attr-defined]  # get_queryset's annotation

    @admin.display(description=_("reports"))
    def reports(self, game: Game) -> str:
        url = reverse("admin:moderation_report_changelist") + f"?game__id__exact={game.pk}"
        count = Report.objects.filter(game=game).count()
        return format_html(
            '<a href="{}">{}</a>',
            url,
            ngettext("%(n)d report", "%(n)d reports", count) % {"n": count},
        )


admin.site.unregister(Game)
admin.site.register(Game, GameWithReportsAdmin)
