"""The report queue: open reports first, oldest first; staff say what was done.

What a player wrote is evidence and stays read-only. The only thing staff
write is the resolution: saving a report with one (or the "resolve" action)
calls ``services.report_resolve``, which records who resolved it and when.
Acting on the game itself (annul, check, replay) happens on the game's admin
page, linked from each report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.requests import user_of
from games.errors import GameError
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
