"""The site's URLs and three that fail, for the error-page tests."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_POST

from diamino_site.urls import urlpatterns as site_urlpatterns


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied


def suspicious(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("a malformed request")


@require_POST
def form(request: HttpRequest) -> HttpResponse:
    return HttpResponse("sent")


urlpatterns = [
    path("_test/crash", crash),
    path("_test/forbidden", forbidden),
    path("_test/suspicious", suspicious),
    path("_test/form", form),
    *site_urlpatterns,
]
