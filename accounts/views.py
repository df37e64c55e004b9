"""Account pages: settings, deletion, the public player page, unsubscribe links."""

from __future__ import annotations

from allauth.account.adapter import get_adapter
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts import vacations
from accounts.emails import BadUnsubscribeToken, read_unsubscribe_token
from accounts.forms import DeleteAccountForm, PlannedVacationForm, SettingsForm, VacationForm
from accounts.models import EmailKind, HandOrder, User
from accounts.permissions import can_play
from accounts.requests import SignedInRequest
from accounts.services import confirmation_send_again, email_unsubscribe, user_delete
from infra.ratelimit import limited


@login_required
@require_http_methods(["GET", "POST"])
@limited("form")
def settings_view(request: SignedInRequest) -> HttpResponse:
    form = SettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        with translation.override(user.language):
            messages.success(request, _("Your settings are saved."))
        return redirect("accounts:settings")
    return render(request, "accounts/settings.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
@limited("form")
def vacation_view(request: SignedInRequest) -> HttpResponse:
    """Start a vacation now or book one ahead, cancel a planned one, or come back early."""
    user = request.user
    action = request.POST.get("action")
    today = vacations.local_today(user)
    form = VacationForm(request.POST if action == "start" else None)
    plan_form = PlannedVacationForm(request.POST if action == "plan" else None, today=today)
    cancel_error = None
    if action == "end":
        if vacations.vacation_end(user=user) is not None:
            messages.success(request, _("Welcome back: your clocks run again."))
        return redirect("accounts:vacation")
    if action == "cancel":
        try:
            cancelled = vacations.vacation_cancel(
                user=user, vacation_id=_int_or_zero(request.POST.get("vacation"))
            )
        except vacations.VacationRefused as refusal:
            cancel_error = refusal.message
        else:
            messages.success(
                request,
                _("Your vacation from %(date)s is cancelled: its days are given back.")
                % {"date": vacations.date_text(cancelled.starts_at)},
            )
            return redirect("accounts:vacation")
    bound = form if form.is_bound else plan_form
    if bound.is_bound and bound.is_valid():
        try:
            vacation = vacations.vacation_start(
                user=user,
                days=bound.cleaned_data["days"],
                first_day=bound.cleaned_data.get("first_day"),
            )
        except vacations.VacationRefused as refusal:
            bound.add_error(
                "first_day" if refusal.code in ("past", "too-far") else "days", refusal.message
            )
        else:
            dates = {
                "start": vacations.date_text(vacation.starts_at),
                "end": vacations.date_text(vacation.ends_at),
            }
            if vacation.starts_at > timezone.now():
                messages.success(
                    request,
                    _("Your vacation is booked: your clocks will stop from %(start)s to %(end)s.")
                    % dates,
                )
            else:
                messages.success(
                    request,
                    _("Enjoy your vacation: your clocks stop until %(date)s.")
                    % {"date": dates["end"]},
                )
            return redirect("accounts:vacation")
    now = timezone.now()
    planned = vacations.planned_vacations(user, now)
    # This year's allowance, and that of each later year a planned vacation reaches.
    zone = vacations.zone_of(user)
    years = {today.year}
    for vacation in planned:
        years.update(vacations.days_by_year(vacation.starts_at, vacation.ends_at, zone))
    context = {
        "form": form,
        "plan_form": plan_form,
        "cancel_error": cancel_error,
        "current": vacations.current_vacation(user, now),
        "planned": planned,
        "allowance": vacations.allowance(),
        "horizon": vacations.horizon(),
        "years": [
            {"year": y, "used": vacations.days_used(user, y), "left": vacations.days_left(user, y)}
            for y in sorted(years)
        ],
        "history": user.vacations.filter(starts_at__lte=now)[:10],
    }
    failed = form.errors or plan_form.errors or cancel_error
    return render(request, "accounts/vacation.html", context, status=400 if failed else 200)


def _plain_text(message: str, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def _hand_order_too_fast(request: HttpRequest, message: str) -> HttpResponse:
    """The rate limit's refusal as the game page's script shows it: the message alone."""
    return _plain_text(message, 429)


@login_required
@require_POST
@limited("hand-order", refuse=_hand_order_too_fast)
def hand_order_view(request: SignedInRequest) -> HttpResponse:
    """Remember how the player sorts their tiles (``HandOrder``), for every game and device.

    Sent by the game page's script when the player picks an order or shuffles
    (``static/js/board.js``), which sorts the tiles on the page itself: the
    answer is 204 and nothing to draw, or the reason in plain text (400, 429)
    for the script to show beside the list.
    """
    order = request.POST.get("hand_order", "")
    if order not in HandOrder.values:
        return _plain_text(_("Unknown order of tiles: pick one in the list."), 400)
    user = request.user
    user.hand_order = order
    user.save(update_fields=["hand_order"])
    return HttpResponse(status=204)


def _int_or_zero(value: str | None) -> int:
    try:
        return int(value or 0)
    except ValueError:
        return 0


@login_required
@require_http_methods(["GET", "POST"])
@limited("form")
def delete_account(request: SignedInRequest) -> HttpResponse:
    form = DeleteAccountForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        user_delete(user=request.user)
        get_adapter(request).logout(request)
        messages.success(
            request,
            _("Your account is deleted and your personal data removed. Thank you for playing."),
        )
        return redirect("home")
    # The page lists what the deletion resigns (R-END-4) with games' {% departures_of %}.
    return render(
        request, "accounts/delete.html", {"form": form}, status=400 if form.errors else 200
    )


def player_page(request: HttpRequest, username: str) -> HttpResponse:
    # A computer player has no page: nothing about it is a person's.
    player = get_object_or_404(User, username=username, bot_level="")
    if player.deleted_at is not None:
        return render(request, "accounts/former_player.html", {"player": player}, status=410)
    return render(request, "accounts/player.html", {"player": player})


# No rate limit: the signed token is the proof and the change is idempotent, and a
# mail provider's one-click POSTs (RFC 8058) come for all its users from a few addresses.
@csrf_exempt  # signed links: the token is the proof, and mail providers POST without a session
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """A GET asks; a POST (the page's button, or RFC 8058's one-click) unsubscribes.

    Mail scanners follow every link in a message with a GET, so a GET must change nothing.
    """
    try:
        user_id, kind = read_unsubscribe_token(token)
    except BadUnsubscribeToken:
        return render(request, "accounts/unsubscribe_invalid.html", status=400)
    if request.method == "POST":
        user = email_unsubscribe(user_id=user_id, kind=kind)
        template = "accounts/unsubscribed.html"
    else:
        user = User.objects.filter(pk=user_id).first()
        template = "accounts/unsubscribe_confirm.html"
    language = user.language if user is not None else translation.get_language()
    with translation.override(language):
        return render(
            request,
            template,
            {"player": user, "kind": kind, "kind_label": EmailKind(kind).label},
        )


@login_required
@require_http_methods(["GET", "POST"])
@limited("form")
def confirm_email_first(request: SignedInRequest) -> HttpResponse:
    next_url = request.GET.get("next") or request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()}):
        next_url = ""
    if can_play(request.user):
        return redirect(next_url or "home")
    if request.method == "POST":
        if not confirmation_send_again(request=request, user=request.user):
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
