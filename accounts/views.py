"""Account pages: settings, deletion, the public player page, unsubscribe links."""

from __future__ import annotations

from allauth.account.adapter import get_adapter
from allauth.account.internal.flows.email_verification import send_verification_email_for_user
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import formats, timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts import vacations
from accounts.emails import BadUnsubscribeToken, read_unsubscribe_token
from accounts.forms import DeleteAccountForm, SettingsForm, VacationForm
from accounts.models import EmailKind, User
from accounts.permissions import can_play
from accounts.services import email_unsubscribe, user_delete


@login_required
@require_http_methods(["GET", "POST"])
def settings_view(request: HttpRequest) -> HttpResponse:
    form = SettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        with translation.override(user.language):
            messages.success(request, _("Your settings are saved."))
        return redirect("accounts:settings")
    return render(request, "accounts/settings.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def vacation_view(request: HttpRequest) -> HttpResponse:
    """Start a vacation (the clocks of every game stop) or come back early."""
    user = request.user
    action = request.POST.get("action")
    form = VacationForm(request.POST if action == "start" else None)
    if action == "end":
        if vacations.vacation_end(user=user) is not None:
            messages.success(request, _("Welcome back: your clocks run again."))
        return redirect("accounts:vacation")
    if form.is_bound and form.is_valid():
        try:
            vacation = vacations.vacation_start(user=user, days=form.cleaned_data["days"])
        except vacations.VacationRefused as refusal:
            form.add_error("days", refusal.message)
        else:
            ends = formats.date_format(timezone.localtime(vacation.ends_at), "DATETIME_FORMAT")
            messages.success(
                request, _("Enjoy your vacation: your clocks stop until %(date)s.") % {"date": ends}
            )
            return redirect("accounts:vacation")
    year = timezone.localdate().year
    context = {
        "form": form,
        "current": vacations.current_vacation(user),
        "year": year,
        "allowance": vacations.allowance(),
        "days_used": vacations.days_used(user, year),
        "days_left": vacations.days_left(user, year),
        "history": user.vacations.all()[:10],
    }
    return render(request, "accounts/vacation.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def delete_account(request: HttpRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        user_delete(user=request.user)
        get_adapter(request).logout(request)
        messages.success(
            request,
            _("Your account is deleted and your personal data removed. Thank you for playing."),
        )
        return redirect("home")
    return render(request, "accounts/delete.html", {"form": form})


def player_page(request: HttpRequest, username: str) -> HttpResponse:
    # A computer player has no page: nothing about it is a person's.
    player = get_object_or_404(User, username=username, bot_level="")
    if player.deleted_at is not None:
        return render(request, "accounts/former_player.html", {"player": player}, status=410)
    return render(request, "accounts/player.html", {"player": player})


@csrf_exempt  # RFC 8058: mail providers POST here without a session or a form token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        user_id, kind = read_unsubscribe_token(token)
    except BadUnsubscribeToken:
        return render(request, "accounts/unsubscribe_invalid.html", status=400)
    user = email_unsubscribe(user_id=user_id, kind=kind)
    language = user.language if user is not None else translation.get_language()
    with translation.override(language):
        return render(
            request,
            "accounts/unsubscribed.html",
            {"player": user, "kind": kind, "kind_label": EmailKind(kind).label},
        )


@login_required
@require_http_methods(["GET", "POST"])
def confirm_email_first(request: HttpRequest) -> HttpResponse:
    next_url = request.GET.get("next") or request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = ""
    if can_play(request.user):
        return redirect(next_url or "home")
    if request.method == "POST":
        if not send_verification_email_for_user(request, request.user):
            messages.info(
                request,
                _(
                    "A confirmation email was sent a few minutes ago: look for it in your inbox "
                    "and your spam folder, or try again later."
                ),
            )
        return redirect(request.path + (f"?{urlencode({'next': next_url})}" if next_url else ""))
    return render(
        request,
        "accounts/confirm_email_first.html",
        {"next": next_url, "email": request.user.email},
    )
