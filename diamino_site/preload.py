"""A page's render-blocking files, named in its answer's headers (``Link: rel=preload``).

A page is drawn only once its style sheets have come, and its parser stops at
menu.js (templates/base.html): each is a round trip after the HTML. Named in a
``Link`` header, they are asked for ahead of the page's deferred scripts, which
the browser finds only as it scans the page. On the bench's phone a cold game
page's board was ready 60 to 80 ms sooner (docs/PERFORMANCE.md, "A page on a
phone").
A CDN that sends a page's earlier Link headers as 103 Early Hints (Cloudflare's
Early Hints) can have them fetched before Django has even drawn the page.

In a template, ``{% preload 'css/board.css' %}`` gives the file's address as
``{% static %}`` does, and notes it for the answer; ``PreloadMiddleware`` sends
what the page noted. Only render-blocking files: the deferred scripts would take
the phone's bandwidth from the style sheets, and naming them too bought nothing.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from django import template
from django.http import HttpRequest, HttpResponse
from django.templatetags.static import static

register = template.Library()

# What the tag notes on the request, for the middleware: each file's address and what
# it is ("style" or "script"), in the order the page names them.
NOTED = "diamino_preload"
KINDS = {".css": "style", ".js": "script"}


@register.simple_tag(takes_context=True)
def preload(context: template.Context, path: str) -> str:
    """The static file's address, noted to be named in the answer's ``Link`` header.

    A page drawn without a request (the database-outage page) gets the address alone.
    """
    kind = KINDS.get(posixpath.splitext(path)[1])
    if kind is None:
        raise ValueError(f"{{% preload %}} takes a style sheet or a script, not {path!r}")
    url = static(path)
    request = context.get("request")
    if request is not None:
        noted: dict[str, str] | None = getattr(request, NOTED, None)
        if noted is None:
            noted = {}
            setattr(request, NOTED, noted)
        noted[url] = kind
    return url


class PreloadMiddleware:
    """Names the files the page's templates noted in the answer's ``Link`` header.

    Only on a page (a 200 answer in HTML): an error page drawn after a template had
    noted its files does not use them, and a browser warns of a preload left unused.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        noted: dict[str, str] | None = getattr(request, NOTED, None)
        if noted and response.status_code == 200 and is_html(response):
            links = [f"<{url}>; rel=preload; as={kind}" for url, kind in noted.items()]
            if response.has_header("Link"):
                links.insert(0, response["Link"])
            response["Link"] = ", ".join(links)
        return response


def is_html(response: HttpResponse) -> bool:
    """Whether the answer is a page: its media type, whatever its case and parameters."""
    return response.get("Content-Type", "").split(";")[0].strip().lower() == "text/html"
